// SPDX-License-Identifier: MIT
// Videos of agents (render.h): frames come from ne_env_render (each env family's render hook), the
// GIF writer streams them through giflib with a median-cut palette per frame, and ne_render_episodes runs a policy twice over the same seeds — once to count steps,
// once to draw every k-th — so that a long episode still fits in max_frames. The frames go to a
// frame sink: the GIF writer here or the MP4 writer (video_mp4.c), picked by the file's extension.
#include <stdio.h>
#include <stdlib.h>  // strtod
#include <string.h>

#ifdef NE_HAVE_GIFLIB
#include <errno.h>
#include <fcntl.h>    // open
#include <gif_lib.h>  // EGifOpenFileHandle, GifQuantizeBuffer
#include <unistd.h>   // close
#endif

#include "core/util.h"  // ne__set_error
#include "neuroevo/alloc.h"
#include "neuroevo/episode.h"  // the episodes drawn are stepped as evaluations step them
#include "neuroevo/error.h"
#include "neuroevo/render.h"
#include "neuroevo/rng.h"

#define DEFAULT_WIDTH 400
#define DEFAULT_HEIGHT 300
#define DEFAULT_MAX_FRAMES 500
#define DEFAULT_FPS 30
#define MAX_SIDE NE_ENV_MAX_RENDER_SIDE

// ---- GIF ------------------------------------------------------------------------------------------

#ifdef NE_HAVE_GIFLIB
struct ne_gif {
  GifFileType* file;      // giflib's writer
  int width, height;      // frame size
  int delay_cs;           // frame duration, 1/100 s
  unsigned char* planes;  // (3, height, width) R, G, B planes for the quantizer
  GifByteType* indexed;   // (height, width) palette indices
};

int ne_gif_open(const char* path, int width, int height, int delay_cs, ne_gif** out, char* errstr) {
  *out = NULL;
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE)
    return ne__set_error(errstr, NE_EINVAL, "%s: frame size %dx%d outside 1..%d", path, width, height, MAX_SIDE);
  ne_gif* g = ne_calloc(1, sizeof *g);
  size_t n = (size_t)width * (size_t)height;
  if (g) g->planes = ne_malloc(3 * n), g->indexed = ne_malloc(n);
  if (!g || !g->planes || !g->indexed) {
    ne_gif_close(g, NULL);
    return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory for %dx%d frames", path, width, height);
  }
  g->width = width, g->height = height, g->delay_cs = delay_cs;
  // open(2) ourselves: EGifOpenFileName would create the file mode 0600
  int err = 0, fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) {
    ne_gif_close(g, NULL);
    return ne__set_error(errstr, NE_EIO, "%s: cannot create: %s", path, strerror(errno));
  }
  g->file = EGifOpenFileHandle(fd, &err);
  if (!g->file) {
    close(fd);
    ne_gif_close(g, NULL);
    return ne__set_error(errstr, NE_EIO, "%s: cannot start a GIF: %s", path, GifErrorString(err));
  }
  // GIF89a with no global palette, looping forever (the NETSCAPE2.0 application extension)
  EGifSetGifVersion(g->file, true);
  static const GifByteType loop[3] = {1, 0, 0};
  if (EGifPutScreenDesc(g->file, width, height, 8, 0, NULL) == GIF_ERROR ||
      EGifPutExtensionLeader(g->file, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
      EGifPutExtensionBlock(g->file, 11, "NETSCAPE2.0") == GIF_ERROR ||
      EGifPutExtensionBlock(g->file, 3, loop) == GIF_ERROR || EGifPutExtensionTrailer(g->file) == GIF_ERROR) {
    ne__set_error(errstr, NE_EIO, "%s: writing the header: %s", path, GifErrorString(g->file->Error));
    ne_gif_close(g, NULL);
    return NE_EIO;
  }
  *out = g;
  return 0;
}

int ne_gif_add_frame(ne_gif* g, const unsigned char* rgb, char* errstr) {
  size_t n = (size_t)g->width * (size_t)g->height;
  unsigned char *r = g->planes, *gr = g->planes + n, *b = g->planes + 2 * n;
  for (size_t i = 0; i < n; i++) r[i] = rgb[3 * i], gr[i] = rgb[3 * i + 1], b[i] = rgb[3 * i + 2];
  // a median-cut palette of this frame
  GifColorType colors[256];
  int n_colors = 256;
  if (GifQuantizeBuffer((unsigned)g->width, (unsigned)g->height, &n_colors, r, gr, b, g->indexed, colors) == GIF_ERROR)
    return ne__set_error(errstr, NE_ENOMEM, "GIF: quantizing a frame failed");
  ColorMapObject* map = GifMakeMapObject(256, colors);
  if (!map) return ne__set_error(errstr, NE_ENOMEM, "GIF: out of memory for a palette");
  // the frame's duration, then the image
  GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, false, g->delay_cs, NO_TRANSPARENT_COLOR};
  GifByteType ext[4];
  EGifGCBToExtension(&gcb, ext);
  int ok = EGifPutExtension(g->file, GRAPHICS_EXT_FUNC_CODE, 4, ext) != GIF_ERROR &&
      EGifPutImageDesc(g->file, 0, 0, g->width, g->height, false, map) != GIF_ERROR;
  for (int y = 0; ok && y < g->height; y++)
    ok = EGifPutLine(g->file, g->indexed + (size_t)y * (size_t)g->width, g->width) != GIF_ERROR;
  GifFreeMapObject(map);
  if (!ok) return ne__set_error(errstr, NE_EIO, "GIF: writing a frame: %s", GifErrorString(g->file->Error));
  return 0;
}

int ne_gif_close(ne_gif* g, char* errstr) {
  if (!g) return 0;
  int rc = 0, err = 0;
  if (g->file && EGifCloseFile(g->file, &err) == GIF_ERROR)
    rc = ne__set_error(errstr, NE_EIO, "GIF: closing: %s", GifErrorString(err));
  ne_free(g->planes);
  ne_free(g->indexed);
  ne_free(g);
  return rc;
}
#else
// built without giflib: the writer exists but refuses, naming the fix
struct ne_gif {
  int unused;
};

int ne_gif_open(const char* path, int width, int height, int delay_cs, ne_gif** out, char* errstr) {
  (void)width, (void)height, (void)delay_cs;
  *out = NULL;
  return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: built without giflib (run scripts/install-deps, reconfigure)",
                       path);
}

int ne_gif_add_frame(ne_gif* g, const unsigned char* rgb, char* errstr) {
  (void)g, (void)rgb;
  return ne__set_error(errstr, NE_EUNSUPPORTED, "built without giflib");
}

int ne_gif_close(ne_gif* g, char* errstr) {
  (void)g, (void)errstr;
  return 0;
}
#endif

// ---- frame sinks: where recorded frames go --------------------------------------------------------

// A video file being written: the GIF or the MP4 writer behind two calls.
typedef struct frame_sink {
  void* writer;                                                      // ne_gif or ne_mp4, owned
  int (*add)(void* writer, const unsigned char* rgb, char* errstr);  // appends one RGB frame
  int (*close)(void* writer, char* errstr);                          // finishes and frees writer
} frame_sink;

static int gif_add(void* w, const unsigned char* rgb, char* errstr) { return ne_gif_add_frame(w, rgb, errstr); }
static int gif_close(void* w, char* errstr) { return ne_gif_close(w, errstr); }
static int mp4_add(void* w, const unsigned char* rgb, char* errstr) { return ne_mp4_add_frame(w, rgb, errstr); }
static int mp4_close(void* w, char* errstr) { return ne_mp4_close(w, errstr); }

// 1 if s ends with suffix
static int ends_with(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

// 1 for the names a sink exists for
static int is_video_path(const char* path) { return ends_with(path, ".gif") || ends_with(path, ".mp4"); }

// opens the writer path's extension names (is_video_path holds)
static int sink_open(frame_sink* s, const char* path, int width, int height, int fps, char* errstr) {
  if (ends_with(path, ".mp4")) {
    *s = (frame_sink){NULL, mp4_add, mp4_close};
    return ne_mp4_open(path, width, height, fps, (ne_mp4**)&s->writer, errstr);
  }
  int delay = (int)(100.0 / fps + 0.5);  // GIF delays are in 1/100 s; browsers treat < 2 as 10
  *s = (frame_sink){NULL, gif_add, gif_close};
  return ne_gif_open(path, width, height, delay < 2 ? 2 : delay, (ne_gif**)&s->writer, errstr);
}

// refuses before any episode runs what the writer would refuse after them: MP4 in a build without
// FFmpeg, odd sizes for yuv420p (ne_mp4_open checks both before it creates anything)
static int sink_check(const char* path, int width, int height, char* errstr) {
  if (!ends_with(path, ".mp4") || (ne_mp4_available() && width % 2 == 0 && height % 2 == 0)) return 0;
  ne_mp4* v = NULL;
  int rc = ne_mp4_open(path, width, height, DEFAULT_FPS, &v, errstr);
  ne_mp4_close(v, NULL);
  return rc;
}

// ---- recording episodes -------------------------------------------------------------------------------

// everything one recording needs, allocated once
typedef struct recorder {
  const ne_env_spec* env;
  const ne_policy_spec* policy;
  const float* params;
  ne_obs_norm norm;     // the policy's input (all NULL: raw observations)
  ne_env_state* state;  // owned
  float* scratch;       // (policy->scratch_floats) owned
  float* obs;           // (obs_dim) normalized observation, owned
  unsigned char* rgb;   // (height, width, 3) frame, owned
  void* ctx;            // the env's renderer (ne_env_render_free)
  frame_sink* sink;     // the output, or NULL in the counting pass
  int width, height;
  long frame;                    // steps seen so far over all episodes (frame candidates)
  long stride;                   // draw every stride-th candidate
  int total;                     // frames the writing pass writes
  const ne_render_options* opt;  // progress callback, behaviours drawn over each frame
  ne_render_stats stats;         // time spent so far
} recorder;

// draws the current state if this step is one of the kept ones (writing pass only)
static int maybe_draw(recorder* r, char* errstr) {
  int keep = r->sink && r->frame % r->stride == 0;
  r->frame++;
  if (!keep) return 0;
  double t0 = ne__now();
  int rc = ne_env_render(r->env, r->state, &r->ctx, r->rgb, r->width, r->height, errstr);
  if (!rc && r->opt->behaviours && r->opt->n_behaviours > 0)
    rc = ne_env_draw_behaviours(r->env, r->opt->behaviours, r->opt->n_behaviours, r->opt->behaviour_dim, r->rgb,
                                r->width, r->height, errstr);
  double t1 = ne__now();
  if (!rc) rc = r->sink->add(r->sink->writer, r->rgb, errstr);
  r->stats.draw_s += t1 - t0;
  r->stats.encode_s += ne__now() - t1;
  if (!rc && ++r->stats.frames && r->opt->progress) r->opt->progress(r->opt->progress_user, r->stats.frames, r->total);
  return rc;
}

// one episode from seed, stepped as an evaluation steps it (ne_episode), drawn after its reset
// and each step; its return in *ret
static int run_episode(recorder* r, uint64_t seed, double* ret, char* errstr) {
  ne_episode ep = {.env = r->env,
                   .state = r->state,
                   .policy = r->policy,
                   .params = r->params,
                   .norm = r->norm,
                   .input = r->obs,
                   .scratch = r->scratch};
  int rc = ne_episode_begin(&ep, seed);
  if (rc) return ne__set_error(errstr, rc, "%s: reset failed", r->env->id);
  if ((rc = maybe_draw(r, errstr))) return rc;
  while (!ep.done) {
    double t0 = ne__now();
    rc = ne_episode_step(&ep);
    r->stats.step_s += ne__now() - t0;
    if (!r->sink) r->stats.steps++;
    if (rc) return ne__set_error(errstr, rc, "%s: step failed", r->env->id);
    if ((rc = maybe_draw(r, errstr))) return rc;
  }
  *ret = ep.ret;
  return 0;
}

// all episodes, counting (sink NULL) or drawing
static int run_all(recorder* r, const ne_render_options* o, double* returns, char* errstr) {
  r->frame = 0;
  for (int e = 0; e < o->episodes; e++) {
    double ret = 0;
    int rc = run_episode(r, ne_seed_derive(o->seed, 0, (uint64_t)e, NE_PURPOSE_EVAL), &ret, errstr);
    if (rc) return rc;
    if (returns) returns[e] = ret;
  }
  return 0;
}

// the options with defaults filled in
static ne_render_options resolve(const ne_render_options* in) {
  ne_render_options o;
  if (in) o = *in;
  else memset(&o, 0, sizeof o);
  if (o.width <= 0) o.width = DEFAULT_WIDTH;
  if (o.height <= 0) o.height = DEFAULT_HEIGHT;
  if (o.episodes <= 0) o.episodes = 1;
  if (o.max_frames <= 0) o.max_frames = DEFAULT_MAX_FRAMES;
  if (o.fps <= 0) o.fps = DEFAULT_FPS;
  return o;
}

static void recorder_free(recorder* r) {
  ne_env_render_free(r->env, r->ctx);
  ne_env_state_destroy(r->state);
  ne_free(r->scratch);
  ne_free(r->obs);
  ne_free(r->rgb);
}

int ne_render_episodes(const ne_env_spec* env, const ne_policy_spec* policy, const float* params, const ne_batch* norm,
                       const ne_render_options* options, const char* path, double* returns, char* errstr) {
  if (!env || !policy || !params || !path) return ne__set_error(errstr, NE_EINVAL, "render: bad arguments");
  if (!is_video_path(path))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: unknown video format: name the file *.gif or *.mp4", path);
  if (!ne_env_can_render(env))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: no drawing for this environment", env->id);
  ne_render_options o = resolve(options);
  if (o.behaviours && o.n_behaviours > 0 && !ne_env_can_draw_behaviours(env))
    return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: no drawing of behaviours for this environment", env->id);
  if (o.width > MAX_SIDE || o.height > MAX_SIDE)
    return ne__set_error(errstr, NE_EINVAL, "frame size %dx%d: at most %d per side", o.width, o.height, MAX_SIDE);
  int rc = sink_check(path, o.width, o.height, errstr);
  if (rc) return rc;
  recorder r = {env, policy, params, ne_episode_norm(norm), NULL, NULL, NULL, NULL, NULL, NULL, o.width, o.height, 0, 1,
                0,   &o,     {0}};
  r.state = ne_env_state_create(env);
  r.scratch = ne_malloc((policy->scratch_floats + 1) * sizeof(float));
  r.obs = ne_malloc((size_t)env->obs_dim * sizeof(float));
  r.rgb = ne_malloc((size_t)o.width * (size_t)o.height * 3);
  rc = r.state && r.scratch && r.obs && r.rgb ? 0 : ne__set_error(errstr, NE_ENOMEM, "render: out of memory");
  // pass 1 counts the frames (rollouts are pure functions of the seeds), pass 2 draws every k-th
  if (!rc) rc = run_all(&r, &o, NULL, errstr);
  frame_sink sink = {NULL, NULL, NULL};
  if (!rc) {
    r.stride = (r.frame + o.max_frames - 1) / o.max_frames;
    if (r.stride < 1) r.stride = 1;
    r.total = (int)((r.frame + r.stride - 1) / r.stride);
    rc = sink_open(&sink, path, o.width, o.height, o.fps, errstr);
  }
  int opened = !rc;
  if (opened) r.sink = &sink;
  if (!rc) rc = run_all(&r, &o, returns, errstr);
  double t0 = ne__now();
  int crc = opened ? sink.close(sink.writer, rc ? NULL : errstr) : 0;
  r.stats.encode_s += ne__now() - t0;
  if (o.stats) *o.stats = r.stats;
  recorder_free(&r);
  // no half-written animation is left behind
  if (opened && (rc || crc)) remove(path);
  return rc ? rc : crc;
}

// ---- behaviours (a novelty run's archive.csv) -----------------------------------------------------

// the number of comma-separated fields of a line
static int count_fields(const char* line, const char* end) {
  int n = 1;
  for (const char* p = line; p < end; p++) n += *p == ',';
  return n;
}

// one row of dim numbers into out; 0, or NE_EPARSE
static int parse_row(const char* line, const char* end, int dim, float* out) {
  const char* p = line;
  for (int j = 0; j < dim; j++) {
    char* stop = NULL;
    double v = strtod(p, &stop);
    if (stop == p || stop > end || (j + 1 < dim ? *stop != ',' : stop != end)) return NE_EPARSE;
    out[j] = (float)v;
    p = stop + 1;
  }
  return 0;
}

// rows after the header: complete lines, plus a last one without its newline
static int count_rows(const char* first, const char* end) {
  int rows = 0;
  for (const char* p = first; p < end; p++) rows += *p == '\n';
  return rows + (first < end && end[-1] != '\n');
}

int ne_render_read_behaviours(const char* path, float** out, int* n, int* dim, char* errstr) {
  *out = NULL;
  *n = *dim = 0;
  char* text = NULL;
  size_t len = 0;
  int rc = ne__read_file(path, &text, &len, errstr);
  if (rc) return rc;
  const char* end = text + len;
  // the header gives the dimension; every line after it is one behaviour
  const char* eol = memchr(text, '\n', len);
  if (!eol || strncmp(text, "b0", 2) != 0) {
    ne_free(text);
    return ne__set_error(errstr, NE_EPARSE, "%s:1: expected a header b0,b1,...", path);
  }
  int d = count_fields(text, eol), rows = count_rows(eol + 1, end);
  float* v = ne_malloc(((size_t)rows * (size_t)d + 1) * sizeof(float));
  if (!v) rc = ne__set_error(errstr, NE_ENOMEM, "%s: out of memory for %d behaviours", path, rows);
  const char* line = eol + 1;
  for (int i = 0; !rc && i < rows; i++) {
    const char* stop = memchr(line, '\n', (size_t)(end - line));
    if (!stop) stop = end;
    if (parse_row(line, stop, d, v + (size_t)i * (size_t)d))
      rc = ne__set_error(errstr, NE_EPARSE, "%s:%d: expected %d numbers separated by commas", path, i + 2, d);
    line = stop + 1;
  }
  ne_free(text);
  if (rc) {
    ne_free(v);
    return rc;
  }
  *out = v;
  *n = rows;
  *dim = d;
  return 0;
}
