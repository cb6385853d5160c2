// SPDX-License-Identifier: MIT
// `neuroevo render RUN_DIR | --genome FILE [--episodes N] [--seed S] [--out FILE] [--size WxH]
// [--max-frames N] [--fps N] [--archive FILE|none] [--task V,... [--adapt K]]`: records the best
// agent of a run (or a genome / params file) as an animated GIF or an MP4 video, by default
// RUN_DIR/agent.gif (what `neuroevo report` embeds); for task families, on a given task and adapted
// to it. The
// file names its env and policy, as for `neuroevo eval`; MuJoCo envs render
// through EGL or OSMesa (MUJOCO_GL), the others through neuroevo's 2-D drawings.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>  // isatty: progress redrawn in place on a terminal

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "core/util.h"       // ne__set_error
#include "neuroevo/agent.h"  // loading the genome or params file: shared with eval and the report
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/render.h"

#define CMD "neuroevo render"

static const char USAGE[] =
    "usage: " CMD
    " RUN_DIR | --genome FILE [--episodes N] [--seed S] [--out agent.gif|.mp4] [--size WxH]\n"
    "                       [--max-frames N] [--fps N] [--archive FILE|none]\n"
    "                       [--task V1,V2,... [--adapt K]]\n"
    "\n"
    "Records N episodes (default 1) of a run's best agent (RUN_DIR/best.genome or best.params) or of\n"
    "a genome/params FILE into an animated GIF (--out NAME.gif; default RUN_DIR/agent.gif, which\n"
    "`neuroevo report RUN_DIR` embeds, or ./agent.gif for --genome) or an MP4 video\n"
    "(--out NAME.mp4: H.264, else MPEG-4 part 2; even sizes only; needs a build with FFmpeg). Episode seeds\n"
    "derive from S (default 0) as in `neuroevo eval`. Frames are WxH pixels (default 400x300); long\n"
    "episodes keep every k-th step so that at most --max-frames (default 500) are written, played at\n"
    "--fps (default 30). MuJoCo envs need a headless OpenGL: MUJOCO_GL=egl or osmesa (default: EGL,\n"
    "then OSMesa). A novelty-search run's archive (RUN_DIR/archive.csv, or --archive FILE) is drawn\n"
    "over every frame where the env can draw behaviours (HardMaze-v0: the final positions as dots);\n"
    "--archive none leaves it out.\n"
    "\n"
    "Task families (meta-learning): --task V1,V2,... fixes the task of every episode (otherwise each\n"
    "episode draws one), and --adapt K first runs the agent's inner loop for K steps on that task\n"
    "(its file's [meta] keys, seeds from S as `neuroevo eval --adapt`), then records the adapted agent.\n";

typedef struct render_args {
  const char* run_dir;
  const char* genome;
  const char* out;      // --out, or NULL: the default (default_out)
  const char* archive;  // --archive: a behaviours file, "none", or NULL (RUN_DIR/archive.csv if any)
  long long episodes, seed, width, height, max_frames, fps;
  const char* task;        // task families: --task V1,V2,... (NULL: every episode draws one)
  long long adapt;         // --adapt K inner steps before recording (0: none)
  char default_out[4096];  // RUN_DIR/agent.gif (where the report looks), or agent.gif for --genome
} render_args;

// "WxH" into w, h
static int parse_size(const char* s, long long* w, long long* h) {
  char* end = NULL;
  *w = strtoll(s, &end, 10);
  if (!end || (*end != 'x' && *end != 'X')) return 2;
  *h = strtoll(end + 1, &end, 10);
  if (*end || *w < 16 || *h < 16 || *w > 4096 || *h > 4096) return 2;
  return 0;
}

// one "--name VALUE" option into a; 2 on bad usage
static int parse_option(const char* o, const char* v, render_args* a) {
  if (strcmp(o, "--genome") == 0) a->genome = v;
  else if (strcmp(o, "--out") == 0) a->out = v;
  else if (strcmp(o, "--archive") == 0) a->archive = v;
  else if (strcmp(o, "--episodes") == 0) return ne_cli_parse_int("render", o, v, 1, 1000, &a->episodes);
  else if (strcmp(o, "--seed") == 0) return ne_cli_parse_int("render", o, v, 0, 9000000000000000000LL, &a->seed);
  else if (strcmp(o, "--max-frames") == 0) return ne_cli_parse_int("render", o, v, 1, 100000, &a->max_frames);
  else if (strcmp(o, "--fps") == 0) return ne_cli_parse_int("render", o, v, 1, 100, &a->fps);
  else if (strcmp(o, "--task") == 0) a->task = v;
  else if (strcmp(o, "--adapt") == 0) return ne_cli_parse_int("render", o, v, 0, NE_META_MAX_STEPS, &a->adapt);
  else if (strcmp(o, "--size") == 0) {
    if (parse_size(v, &a->width, &a->height))
      return fprintf(stderr, CMD ": --size '%s': expected WxH with sides in 16..4096, e.g. 400x300\n", v), 2;
  } else {
    return fprintf(stderr, CMD ": unknown option %s (see " CMD " --help)\n", o), 2;
  }
  return 0;
}

static int parse_args(int argc, char** argv, render_args* a) {
  memset(a, 0, sizeof *a);
  a->episodes = 1;
  for (int i = 1; i < argc; i++) {
    const char* o = argv[i];
    if (o[0] != '-') {
      if (a->run_dir) return fprintf(stderr, CMD ": unexpected argument '%s'\n", o), 2;
      a->run_dir = o;
      continue;
    }
    if (i + 1 >= argc) return fprintf(stderr, CMD ": %s needs a value (see " CMD " --help)\n", o), 2;
    int rc = parse_option(o, argv[++i], a);
    if (rc) return rc;
  }
  if (!a->run_dir == !a->genome) return fputs(USAGE, stderr), 2;
  if (a->adapt > 0 && !a->task)
    return fprintf(stderr, CMD ": --adapt K adapts to one task: give it with --task V1,V2,...\n"), 2;
  // the default file goes where `neuroevo report RUN_DIR` looks for it
  if (!a->out) {
    if (a->run_dir) snprintf(a->default_out, sizeof a->default_out, "%s/agent.gif", a->run_dir);
    else snprintf(a->default_out, sizeof a->default_out, "agent.gif");
    a->out = a->default_out;
  }
  return 0;
}

// Task families: fixes the task --task names and, with --adapt K, adapts the agent's parameters to
// it (printing the returns of each stage). 0, or an NE_E* code with err set.
static int apply_task(ne_agent* ag, const render_args* a, char* err) {
  if (!a->task) return 0;
  double task[NE_ENV_MAX_TASK], r[NE_META_MAX_STEPS + 1];
  int rc = ne_env_parse_task(ne_agent_env(ag), a->task, task, err);
  // the inner loop first (it sets the task of its own env state), then every recorded episode's task
  if (!rc && a->adapt > 0) rc = ne_agent_adapt_params(ag, (int)a->adapt, task, (uint64_t)a->seed, r, err);
  if (!rc) rc = ne_agent_set_task(ag, task, err);
  if (rc || a->adapt == 0) return rc;
  printf("%s: adapted to the task in %lld step%s: return before %.2f", ne_agent_env(ag)->id, a->adapt,
         a->adapt == 1 ? "" : "s", r[0]);
  for (long long s = 1; s <= a->adapt; s++) printf(", after step %lld %.2f", s, r[s]);
  printf("\n");
  return 0;
}

// the genome or params file to load: FILE, RUN_DIR/best.genome, or RUN_DIR/best.params
static void source_path(const render_args* a, char* path, size_t size) {
  if (a->genome) snprintf(path, size, "%s", a->genome);
  else (void)ne_agent_path(a->run_dir, path, size);  // not found: the best.genome path, which load names
}

// The behaviours to draw: --archive FILE, else RUN_DIR/archive.csv when it exists and the env can
// draw them. 0, or a usage/read error already printed (2).
static int load_archive(const render_args* a, const ne_env_spec* env, ne_render_options* o, float** owned) {
  char path[4096], err[NE_ERRSTR_LEN];
  if (a->archive && strcmp(a->archive, "none") == 0) return 0;
  if (a->archive) snprintf(path, sizeof path, "%s", a->archive);
  else if (a->run_dir && ne_env_can_draw_behaviours(env)) snprintf(path, sizeof path, "%s/archive.csv", a->run_dir);
  else return 0;
  int n, dim, rc = ne_render_read_behaviours(path, owned, &n, &dim, err);
  if (rc == NE_ENOTFOUND && !a->archive) return 0;  // not a novelty run: nothing to draw
  if (rc) return fprintf(stderr, CMD ": %s\n", err), 2;
  o->behaviours = *owned;
  o->n_behaviours = n;
  o->behaviour_dim = dim;
  return 0;
}

// Progress on stderr: a line redrawn in place on a terminal (at most 5 times a second), else a
// line at every tenth of the frames.
typedef struct progress {
  const char* env;  // env id shown
  int tty;          // 1: stderr is a terminal
  double shown_at;  // ne__now() of the last redraw
  int last_tenth;   // last tenth printed (not a terminal)
} progress;

static void on_frame(void* user, int frames, int total) {
  progress* p = user;
  if (p->tty) {
    double now = ne__now();
    if (frames < total && now - p->shown_at < 0.2) return;
    p->shown_at = now;
    fprintf(stderr, "\rrendering %s: frame %d/%d%s", p->env, frames, total, frames == total ? "\n" : "");
    return;
  }
  int tenth = total > 0 ? frames * 10 / total : 10;
  if (tenth == p->last_tenth) return;
  p->last_tenth = tenth;
  fprintf(stderr, "rendering %s: frame %d/%d\n", p->env, frames, total);
}

int ne_cmd_render(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) return fputs(USAGE, stdout), 0;
  render_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  char path[4096], err[NE_ERRSTR_LEN];
  source_path(&a, path, sizeof path);
  ne_agent* ag = NULL;
  rc = ne_agent_load(path, &ag, err);
  if (!rc) rc = apply_task(ag, &a, err);
  if (rc) {
    fprintf(stderr, CMD ": %s\n", err);
    ne_agent_destroy(ag);
    return rc == NE_ENOMEM ? 1 : 2;
  }
  const ne_env_spec* env = ne_agent_env(ag);
  progress pr = {env->id, isatty(STDERR_FILENO), 0, -1};
  ne_render_stats stats = {0};
  ne_render_options o = {.width = (int)a.width,
                         .height = (int)a.height,
                         .episodes = (int)a.episodes,
                         .seed = (uint64_t)a.seed,
                         .max_frames = (int)a.max_frames,
                         .fps = (int)a.fps,
                         .progress = on_frame,
                         .progress_user = &pr,
                         .stats = &stats};
  float* archive = NULL;
  if ((rc = load_archive(&a, env, &o, &archive)) != 0) {
    ne_agent_destroy(ag);
    return rc;
  }
  double* returns = ne_calloc((size_t)a.episodes, sizeof(double));
  rc = returns
      ? ne_render_episodes(env, ne_agent_policy(ag), ne_agent_params(ag), ne_agent_norm(ag), &o, a.out, returns, err)
      : ne__set_error(err, NE_ENOMEM, "out of memory");
  if (rc) fprintf(stderr, CMD ": %s\n", err);
  else {
    printf("%s: wrote %s (", env->id, a.out);
    for (long long e = 0; e < a.episodes; e++) printf("%sreturn %.2f", e ? ", " : "", returns[e]);
    if (o.n_behaviours > 0) printf(", %d archived behaviours drawn", o.n_behaviours);
    printf(")\n");
    // where the time went: physics (two passes), drawing (the renderer), encoding
    fprintf(stderr, "%d frames of %ld steps: physics %.2f s, drawing %.2f s (%.1f ms a frame), encoding %.2f s\n",
            stats.frames, stats.steps, stats.step_s, stats.draw_s, stats.frames ? 1e3 * stats.draw_s / stats.frames : 0,
            stats.encode_s);
  }
  ne_free(returns);
  ne_free(archive);
  ne_agent_destroy(ag);
  return rc == 0 ? 0 : rc == NE_EUNSUPPORTED || rc == NE_EINVAL ? 2 : 1;
}
