// SPDX-License-Identifier: MIT
// `neuroevo render RUN_DIR | --genome FILE [--episodes N] [--seed S] [--out agent.gif] [--size WxH]
// [--max-frames N] [--fps N]`: records the best agent of a run (or a genome / params file) as an
// animated GIF. The file names its env and policy, as for `neuroevo eval`; MuJoCo envs render
// through EGL or OSMesa (MUJOCO_GL), the others through neuroevo's 2-D drawings.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>  // access: best.genome or best.params

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "core/util.h"  // ne__set_error
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/genome.h"
#include "neuroevo/render.h"
#include "neuroevo/run.h"
#include "run/params_file.h"  // best.params: vector solutions of the ES family

#define CMD "neuroevo render"

static const char USAGE[] =
    "usage: " CMD " RUN_DIR | --genome FILE [--episodes N] [--seed S] [--out agent.gif] [--size WxH]\n"
    "                       [--max-frames N] [--fps N]\n"
    "\n"
    "Records N episodes (default 1) of a run's best agent (RUN_DIR/best.genome or best.params) or of\n"
    "a genome/params FILE into an animated GIF (default agent.gif; MP4 is not built in). Episode seeds\n"
    "derive from S (default 0) as in `neuroevo eval`. Frames are WxH pixels (default 400x300); long\n"
    "episodes keep every k-th step so that at most --max-frames (default 500) are written, played at\n"
    "--fps (default 30). MuJoCo envs need a headless OpenGL: MUJOCO_GL=egl or osmesa (default: EGL,\n"
    "then OSMesa).\n";

typedef struct render_args {
  const char* run_dir;
  const char* genome;
  const char* out;
  long long episodes, seed, width, height, max_frames, fps;
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
  else if (strcmp(o, "--episodes") == 0) return ne_cli_parse_int("render", o, v, 1, 1000, &a->episodes);
  else if (strcmp(o, "--seed") == 0) return ne_cli_parse_int("render", o, v, 0, 9000000000000000000LL, &a->seed);
  else if (strcmp(o, "--max-frames") == 0) return ne_cli_parse_int("render", o, v, 1, 100000, &a->max_frames);
  else if (strcmp(o, "--fps") == 0) return ne_cli_parse_int("render", o, v, 1, 100, &a->fps);
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
  a->out = "agent.gif";
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
  return 0;
}

// the genome or params file to load: FILE, RUN_DIR/best.genome, or RUN_DIR/best.params
static void source_path(const render_args* a, char* path, size_t size) {
  if (a->genome) {
    snprintf(path, size, "%s", a->genome);
    return;
  }
  snprintf(path, size, "%s/best.genome", a->run_dir);
  if (access(path, F_OK) == 0) return;
  char params[4096];
  snprintf(params, sizeof params, "%s/best.params", a->run_dir);
  if (access(params, F_OK) == 0) snprintf(path, size, "%s", params);
}

// what a genome or params file rebuilds
typedef struct agent {
  ne_genome g;
  ne_params_file pf;
  ne_config* cfg;
  ne_env_spec* env;
  ne_policy_spec policy;
  float* params;
  ne_batch norm;
  int has_norm;
} agent;

static int load_agent(const char* path, agent* ag, char* err) {
  ne_genome_header h;
  int is_params = ne__params_file_sniff(path);
  ag->cfg = ne_config_create();
  int rc = !ag->cfg ? NE_ENOMEM : is_params ? ne__params_file_read(path, &ag->pf, err) : ne_genome_read_file(path, &ag->g, &h, err);
  if (!rc && is_params) h = ag->pf.header;
  if (!rc) rc = ne_config_apply_genome_header(ag->cfg, &h, path, err);
  if (!rc) rc = ne_env_from_config(ag->cfg, &ag->env, err);
  if (!rc) rc = ne_policy_from_config(ag->cfg, ag->env, &ag->policy, err);
  if (rc) return rc;
  if (is_params && ag->pf.n_params != ag->policy.n_params)
    return ne__set_error(err, NE_EPARSE, "%s: %zu parameters, but its policy has %zu", path, ag->pf.n_params,
                         ag->policy.n_params);
  ag->params = ne_malloc(ag->policy.n_params * sizeof(float));
  if (!ag->params) return ne__set_error(err, NE_ENOMEM, "out of memory");
  if (is_params) {
    memcpy(ag->params, ag->pf.params, ag->policy.n_params * sizeof(float));
    ag->norm.obs_mean = ag->pf.obs_dim == ag->env->obs_dim ? ag->pf.obs_mean : NULL;
    ag->norm.obs_std = ag->pf.obs_dim == ag->env->obs_dim ? ag->pf.obs_std : NULL;
    ag->norm.obs_clip = ag->pf.obs_clip;
    ag->has_norm = ag->norm.obs_mean != NULL;
  } else {
    ne_genome_materialize(&ag->policy, ag->g.seeds, ag->g.n_seeds, ag->g.sigma, ag->params);
  }
  return 0;
}

static void free_agent(agent* ag) {
  ne_free(ag->params);
  ne__params_file_free(&ag->pf);
  ne_genome_free(&ag->g);
  ne_env_spec_destroy(ag->env);
  ne_config_destroy(ag->cfg);
}

int ne_cmd_render(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) return fputs(USAGE, stdout), 0;
  render_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  char path[4096], err[NE_ERRSTR_LEN];
  source_path(&a, path, sizeof path);
  agent ag;
  memset(&ag, 0, sizeof ag);
  ne_genome_init(&ag.g);
  rc = load_agent(path, &ag, err);
  if (rc) {
    fprintf(stderr, CMD ": %s\n", err);
    free_agent(&ag);
    return rc == NE_ENOMEM ? 1 : 2;
  }
  ne_render_options o = {(int)a.width, (int)a.height, (int)a.episodes, (uint64_t)a.seed, (int)a.max_frames, (int)a.fps};
  double* returns = ne_calloc((size_t)a.episodes, sizeof(double));
  rc = returns ? ne_render_episodes(ag.env, &ag.policy, ag.params, ag.has_norm ? &ag.norm : NULL, &o, a.out, returns, err)
               : ne__set_error(err, NE_ENOMEM, "out of memory");
  if (rc) fprintf(stderr, CMD ": %s\n", err);
  else {
    printf("%s: wrote %s (", ag.env->id, a.out);
    for (long long e = 0; e < a.episodes; e++) printf("%sreturn %.2f", e ? ", " : "", returns[e]);
    printf(")\n");
  }
  ne_free(returns);
  free_agent(&ag);
  return rc == 0 ? 0 : rc == NE_EUNSUPPORTED || rc == NE_EINVAL ? 2 : 1;
}
