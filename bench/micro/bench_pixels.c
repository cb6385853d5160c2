// SPDX-License-Identifier: MIT
// Pixel benchmarks, single thread: the Nature-DQN conv policy's forward (ms per frame, GFLOP/s,
// single and batched) against OpenBLAS's own SGEMM peak on this machine (dlopen'ed when installed,
// with a check of whether its bits stay the same across calls and batch sizes), the MinAtar net's
// forward rate, MinAtar env steps/s per game against the reference Python implementation (timed by
// bench/micro/minatar_ref.py), ALE frames/s through the env against raw ALE (builds with -DNE_ALE=ON),
// and the projected core-hours of 1 billion Atari frames of Deep GA. Times are this thread's CPU
// time, each the best of 5 runs of >= 0.2 s, so other load on the machine inflates them little;
// the ALE comparison times both sides on the same frames in lockstep (lockstep_play).
// About 30-60 s in all.
#include <dlfcn.h>  // OpenBLAS is optional: looked up at run time, never linked
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/simd.h"  // the SIMD level each kernel runs at
#include "neuroevo/alloc.h"
#include "neuroevo/conv.h"
#include "neuroevo/env.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"
#include "policy/conv_int.h"  // ne__conv_slot: which level of the matrix kernel runs
#ifdef NE_HAVE_ALE
#include "envs/ale/ale_int.h"   // ne__ale_rom_path
#include "envs/ale/ale_shim.h"  // raw ALE, for the overhead ratio
#endif

#define MIN_SECONDS 0.2
#define REPEATS 5
#define FRAMES_TOTAL 1e9  // the Deep GA paper's budget
#define FRAME_SKIP 4

// this thread's CPU time: other processes on a shared machine slow the wall clock, not this
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Seconds per call of fn(ctx): the best of REPEATS runs of >= MIN_SECONDS each.
static double time_op(void (*fn)(void*), void* ctx) {
  double best = 1e30;
  for (int r = 0; r < REPEATS; r++) {
    long iters = 0;
    double t0 = now(), t;
    do {
      fn(ctx);
      iters++;
    } while ((t = now() - t0) < MIN_SECONDS);
    if (t / (double)iters < best) best = t / (double)iters;
  }
  return best;
}

static void* xmalloc(size_t n) {
  void* p = ne_malloc(n);
  if (!p) {
    fprintf(stderr, "bench_pixels: out of memory\n");
    exit(1);
  }
  return p;
}

// ---- conv forward ------------------------------------------------------------------------------

typedef struct fwd_ctx {
  ne_policy_spec spec;
  float *params, *obs, *scratch, actions[64];
  int batch;
} fwd_ctx;

static void fwd_op(void* p) {
  fwd_ctx* c = p;
  ne_policy_forward_batch(&c->spec, c->params, c->obs, c->batch, c->scratch, c->actions);
}

// a preset's spec over shape, parameters from its init, random observations for up to 32 frames
static void fwd_setup(fwd_ctx* c, const char* preset, const int shape[3], int n_actions) {
  const ne_conv_preset* p = ne_conv_preset_find(preset);
  ne_conv_layer L[NE_POLICY_MAX_CONV];
  char err[256];
  int n = ne_conv_parse(p->conv, L, NE_POLICY_MAX_CONV, err);
  if (n < 0 ||
      ne_policy_spec_init_conv(&c->spec, shape, L, n, p->hidden, p->n_hidden, n_actions, NE_ACT_RELU, NE_HEAD_ARGMAX,
                               NE_INIT_XAVIER, NULL, NULL, err)) {
    fprintf(stderr, "bench_pixels: %s\n", err);
    exit(1);
  }
  size_t d = (size_t)shape[0] * (size_t)shape[1] * (size_t)shape[2];
  c->params = xmalloc(c->spec.n_params * sizeof(float));
  c->obs = xmalloc(32 * d * sizeof(float));
  c->scratch = xmalloc(ne_policy_batch_scratch_floats(&c->spec, 32) * sizeof(float));
  ne_policy_init_params(&c->spec, 1, c->params);
  ne_noise_fill(2, 0, 32 * d, c->obs);
}

static void fwd_free(fwd_ctx* c) {
  ne_free(c->params);
  ne_free(c->obs);
  ne_free(c->scratch);
}

// seconds per frame of a batch of b
static double per_frame(fwd_ctx* c, int b) {
  c->batch = b;
  return time_op(fwd_op, c) / b;
}

// ---- OpenBLAS (optional, dlopen) ----------------------------------------------------------------

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
typedef struct blas_ctx {
  sgemm_fn sgemm;
  int m, n, k;
  float *a, *b, *c;
} blas_ctx;

static void blas_op(void* p) {
  blas_ctx* c = p;
  c->sgemm(101 /*RowMajor*/, 111 /*NoTrans*/, 111, c->m, c->n, c->k, 1.0f, c->a, c->k, c->b, c->n, 0.0f, c->c, c->n);
}

// single-thread SGEMM GFLOP/s for (m, n, k), or 0
static double blas_gflops(blas_ctx* c, int m, int n, int k) {
  c->m = m, c->n = n, c->k = k;
  c->a = xmalloc((size_t)m * k * sizeof(float));
  c->b = xmalloc((size_t)k * n * sizeof(float));
  c->c = xmalloc((size_t)m * n * sizeof(float));
  ne_noise_fill(3, 0, (size_t)m * k, c->a);
  ne_noise_fill(4, 0, (size_t)k * n, c->b);
  double g = 2.0 * m * n * k / time_op(blas_op, c) / 1e9;
  ne_free(c->a);
  ne_free(c->b);
  ne_free(c->c);
  return g;
}

// 1 if row 0 of a (1, n, k) product has the same bits as row 0 of the (32, n, k) product, and two
// calls agree: whether OpenBLAS could serve deterministic batched forwards
static void blas_determinism(sgemm_fn sgemm, int* same_calls, int* same_batch) {
  int n = 512, k = 3136;
  float *a = xmalloc(32 * (size_t)k * sizeof(float)), *b = xmalloc((size_t)k * n * sizeof(float));
  float *c1 = xmalloc(32 * (size_t)n * sizeof(float)), *c2 = xmalloc(32 * (size_t)n * sizeof(float));
  float* r1 = xmalloc((size_t)n * sizeof(float));
  ne_noise_fill(5, 0, 32 * (size_t)k, a);
  ne_noise_fill(6, 0, (size_t)k * n, b);
  sgemm(101, 111, 111, 32, n, k, 1.0f, a, k, b, n, 0.0f, c1, n);
  sgemm(101, 111, 111, 32, n, k, 1.0f, a, k, b, n, 0.0f, c2, n);
  sgemm(101, 111, 111, 1, n, k, 1.0f, a, k, b, n, 0.0f, r1, n);
  *same_calls = memcmp(c1, c2, 32 * (size_t)n * sizeof(float)) == 0;
  *same_batch = memcmp(c1, r1, (size_t)n * sizeof(float)) == 0;
  ne_free(a), ne_free(b), ne_free(c1), ne_free(c2), ne_free(r1);
}

// The Nature forward as OpenBLAS would run it: explicit im2col per conv layer, then SGEMM with the
// biases preloaded (beta = 1), ReLU; the dense layers straight SGEMM. Same layout as conv.c.
typedef struct blas_fwd {
  sgemm_fn sgemm;
  const fwd_ctx* net;
  int batch;
  float *cols, *a, *b;  // im2col buffer and two layer outputs
} blas_fwd;

static void blas_layer(const blas_fwd* f, int rows, int n, int k, const float* x, const float* p, float* y, int relu) {
  const float* bias = p + (size_t)k * (size_t)n;
  for (int r = 0; r < rows; r++) memcpy(y + (size_t)r * (size_t)n, bias, (size_t)n * sizeof(float));
  f->sgemm(101, 111, 111, rows, n, k, 1.0f, x, k, p, n, 1.0f, y, n);
  if (relu)
    for (size_t i = 0; i < (size_t)rows * (size_t)n; i++) y[i] = y[i] < 0 ? 0 : y[i];
}

static void blas_fwd_op(void* ctx) {
  blas_fwd* f = ctx;
  const ne_policy_spec* s = &f->net->spec;
  const float *x = f->net->obs, *p = f->net->params;
  float* out[2] = {f->a, f->b};
  int which = 0;
  for (int l = 0; l < s->n_conv; l++) {
    const ne_conv_layer* L = &s->conv[l];
    int k = L->kernel * L->kernel * L->in_c, rows = f->batch * L->out_h * L->out_w;
    size_t seg = (size_t)L->kernel * (size_t)L->in_c, img = (size_t)L->in_h * L->in_w * L->in_c;
    float* c = f->cols;
    // im2col: one row of k values per output pixel
    for (int b = 0; b < f->batch; b++)
      for (int oy = 0; oy < L->out_h; oy++)
        for (int ox = 0; ox < L->out_w; ox++)
          for (int ky = 0; ky < L->kernel; ky++, c += seg)
            memcpy(c, x + b * img + ((size_t)(oy * L->stride + ky) * L->in_w + (size_t)ox * L->stride) * L->in_c,
                   seg * sizeof(float));
    blas_layer(f, rows, L->filters, k, f->cols, p, out[which], 1);
    p += (size_t)k * L->filters + L->filters;
    x = out[which];
    which ^= 1;
  }
  for (int l = 0; l < s->n_layers; l++) {
    int in = s->sizes[l], o = s->sizes[l + 1];
    blas_layer(f, f->batch, o, in, x, p, out[which], l < s->n_layers - 1);
    p += (size_t)in * o + o;
    x = out[which];
    which ^= 1;
  }
}

static void bench_openblas(double ours_gflops, const fwd_ctx* net, double ours1, double ours32) {
  void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) h = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("OpenBLAS: not installed (apt-get install libopenblas0); no SGEMM peak to compare with\n");
    return;
  }
  sgemm_fn sgemm = (sgemm_fn)dlsym(h, "cblas_sgemm");
  void (*set_threads)(int) = (void (*)(int))dlsym(h, "openblas_set_num_threads");
  char* (*corename)(void) = (char* (*)(void))dlsym(h, "openblas_get_corename");
  if (!sgemm || !set_threads) {
    printf("OpenBLAS: cblas_sgemm not found\n");
    dlclose(h);
    return;
  }
  set_threads(1);  // one thread per worker thread, as a pool would pin it
  blas_ctx c = {.sgemm = sgemm};
  double peak = blas_gflops(&c, 1024, 1024, 1024);
  double gemv = blas_gflops(&c, 1, 512, 3136);
  double dense32 = blas_gflops(&c, 32, 512, 3136);
  int same_calls, same_batch;
  blas_determinism(sgemm, &same_calls, &same_batch);
  printf(
      "OpenBLAS (%s kernels, 1 thread): SGEMM 1024^3 %.1f GFLOP/s (the peak); Nature dense 1x512x3136 %.1f, "
      "32x512x3136 %.1f GFLOP/s\n",
      corename ? corename() : "?", peak, gemv, dense32);
  printf("  Nature forward, batch 32, runs at %.0f%% of that peak\n", 100.0 * ours_gflops / peak);
  // the whole Nature forward through OpenBLAS (im2col + SGEMM) against conv.c's
  blas_fwd f = {.sgemm = sgemm, .net = net};
  f.cols = xmalloc((size_t)32 * 400 * 256 * sizeof(float));
  f.a = xmalloc((size_t)32 * 12800 * sizeof(float));
  f.b = xmalloc((size_t)32 * 12800 * sizeof(float));
  f.batch = 1;
  double b1 = time_op(blas_fwd_op, &f);
  f.batch = 32;
  double b32 = time_op(blas_fwd_op, &f) / 32;
  printf(
      "  Nature forward through OpenBLAS (im2col + SGEMM): %.3f ms/frame alone, %.3f in batches of 32;\n"
      "  conv.c: %.3f and %.3f\n",
      b1 * 1e3, b32 * 1e3, ours1 * 1e3, ours32 * 1e3);
  ne_free(f.cols);
  ne_free(f.a);
  ne_free(f.b);
  printf("  OpenBLAS bits: identical across calls %s; row 0 of a 1-row product == row 0 of the 32-row one %s\n",
         same_calls ? "yes" : "NO", same_batch ? "yes" : "NO");
  dlclose(h);
}

// ---- MinAtar steps/s ----------------------------------------------------------------------------

typedef struct env_ctx {
  ne_env_spec* spec;
  ne_env_state* st;
  ne_rng rng;
  long steps;
  uint64_t episode;
} env_ctx;

// 1000 random-action steps, resetting at episode ends
static void env_op(void* p) {
  env_ctx* c = p;
  ne_step_out so;
  for (int i = 0; i < 1000; i++) {
    float a = (float)ne_rng_below(&c->rng, (uint64_t)c->spec->n_actions);
    if (ne_env_step(c->spec, c->st, &a, &so) != 0 || so.terminated || so.truncated)
      ne_env_reset(c->spec, c->st, c->episode++);
  }
}

static double env_steps_per_second(const char* id) {
  env_ctx c = {0};
  char err[256];
  if (ne_env_make(id, NULL, &c.spec, err)) {
    fprintf(stderr, "bench_pixels: %s\n", err);
    return 0;
  }
  c.st = ne_env_state_create(c.spec);
  ne_rng_seed(&c.rng, 1);
  ne_env_reset(c.spec, c.st, c.episode++);
  double sps = 1000.0 / time_op(env_op, &c);
  ne_env_state_destroy(c.st);
  ne_env_spec_destroy(c.spec);
  return sps;
}

// the reference's steps/s per game from bench/micro/minatar_ref.py ("Game steps_per_second" lines); 0
// when python3 or minatar is missing
static void reference_rates(const char* const* games, int n, double* out) {
  memset(out, 0, (size_t)n * sizeof *out);
  FILE* f = popen("python3 " NE_SOURCE_DIR "/bench/micro/minatar_ref.py 2>/dev/null", "r");
  if (!f) return;
  char name[64];
  double v;
  while (fscanf(f, "%63s %lf", name, &v) == 2)
    for (int i = 0; i < n; i++)
      if (strcmp(name, games[i]) == 0) out[i] = v;
  pclose(f);
}

static void bench_minatar(void) {
  static const char* const games[] = {"Asterix", "Breakout", "Freeway", "Seaquest", "SpaceInvaders"};
  double ref[5];
  reference_rates(games, 5, ref);
  printf(
      "\nMinAtar env steps/s, random actions, 1 core (ours: MinAtar/<Game>-v0; reference: PyPI minatar's\n"
      "Environment.act + state(), bench/micro/minatar_ref.py)\n");
  printf("%-14s %14s %14s %8s\n", "game", "neuroevo", "reference", "ratio");
  for (int i = 0; i < 5; i++) {
    char id[64];
    snprintf(id, sizeof id, "MinAtar/%s-v0", games[i]);
    double ours = env_steps_per_second(id);
    if (ref[i] > 0) printf("%-14s %14.0f %14.0f %7.0fx\n", games[i], ours, ref[i], ours / ref[i]);
    else printf("%-14s %14.0f %14s %8s\n", games[i], ours, "n/a", "-");
  }
}

// ---- ALE ----------------------------------------------------------------------------------------

#ifdef NE_HAVE_ALE
// The env and raw ALE are timed on one fixed piece of Frostbite play that both emulate frame for
// frame: REPLAY_STEPS agent steps of random minimal-set actions (generator seed 1) from episode 0's
// reset, a game over ending the frame skip and followed by the next episode's reset. The env plays
// it and records its no-op starts; raw ALE replays the same actions and no-ops, so the two timings
// differ only by the env's own work (screens, max-pool, resize, stack, float obs), not by which
// frames each side happened to emulate: timing two independent random plays gave pair ratios from
// 0.71 to 1.24 for the same code. The scores of the two plays must match.
#define REPLAY_STEPS 1000
#define REPLAY_MAX_RESETS 256

typedef struct ale_replay {
  ne_env_spec* spec;  // ALE/Frostbite-v5, sticky actions off (the env's default)
  ne_env_state* st;
  ne_ale* ale;  // raw emulator, same ROM
  int actions[18], n;
  int noops[REPLAY_MAX_RESETS], n_resets;  // the env's no-op starts, in order
  long env_score, raw_score;               // total reward of each side's last play
  int read_screens;                        // raw side: also read the last two screens of each skip
  uint8_t gray[NE_ALE_H * NE_ALE_W];
} ale_replay;

// the env's reset of episode `episode`, its no-op count recorded
static void env_start(ale_replay* r, uint64_t episode) {
  ne_env_reset(r->spec, r->st, episode);
  if (r->n_resets < REPLAY_MAX_RESETS) r->noops[r->n_resets] = ne__ale_noops(r->st->impl);
  r->n_resets++;
}

// ALE's reset followed by the env's no-op frames for that episode (a game over restarts, as there)
static void raw_start(ale_replay* r, int noops) {
  ne__ale_reset(r->ale);
  for (int i = 0; i < noops; i++) {
    ne__ale_act(r->ale, 0);
    if (ne__ale_game_over(r->ale)) ne__ale_reset(r->ale);
  }
}

// Where each side is in the play: its own copy of the action generator, and the episodes begun.
typedef struct play_pos {
  ne_rng rng;
  int episodes;
} play_pos;

static void env_begin(ale_replay* r, play_pos* e) {
  ne_rng_seed(&e->rng, 1);
  r->n_resets = 0;
  r->env_score = 0;
  env_start(r, 0);
  e->episodes = 1;
}

static void env_advance(ale_replay* r, play_pos* e) {
  ne_step_out so;
  float a = (float)ne_rng_below(&e->rng, (uint64_t)r->n);
  ne_env_step(r->spec, r->st, &a, &so);
  r->env_score += (long)so.reward;
  if (so.terminated || so.truncated) env_start(r, (uint64_t)e->episodes++);
}

static void raw_begin(ale_replay* r, play_pos* w) {
  ne_rng_seed(&w->rng, 1);
  r->raw_score = 0;
  raw_start(r, r->noops[0]);
  w->episodes = 1;
}

// the env's step again on raw ALE: the emulation the env does and nothing else, with the screens
// read (ALE's grayscale) or not
static void raw_advance(ale_replay* r, play_pos* w) {
  int a = r->actions[ne_rng_below(&w->rng, (uint64_t)r->n)], over = 0;
  for (int f = 0; f < FRAME_SKIP && !over; f++) {
    r->raw_score += ne__ale_act(r->ale, a);
    over = ne__ale_game_over(r->ale);
    if (r->read_screens && !over && f >= FRAME_SKIP - 2) ne__ale_gray(r->ale, r->gray);
  }
  if (over) raw_start(r, r->noops[w->episodes < REPLAY_MAX_RESETS ? w->episodes++ : 0]);
}

// a whole play of one side (setup: the env records its no-op starts, raw ALE checks it replays them)
static void env_play(ale_replay* r) {
  play_pos e;
  env_begin(r, &e);
  for (int i = 0; i < REPLAY_STEPS; i++) env_advance(r, &e);
}

static void raw_play(ale_replay* r) {
  play_pos w;
  raw_begin(r, &w);
  for (int i = 0; i < REPLAY_STEPS; i++) raw_advance(r, &w);
}

// Sets up both sides and plays once each; 0, or 1 with a message when ALE is missing or the two
// plays differ (then the timings would compare different work).
static int replay_setup(ale_replay* r) {
  char err[256];
  memset(r, 0, sizeof *r);
  if (ne_env_make("ALE/Frostbite-v5", NULL, &r->spec, err)) {
    printf("ALE: %s\n", err);
    return 1;
  }
  r->st = ne_env_state_create(r->spec);
  r->ale = ne__ale_create(ne__ale_rom_path(r->spec), err, sizeof err);
  if (!r->st || !r->ale) {
    printf("ALE: %s\n", r->ale ? "out of memory" : err);
    return 1;
  }
  r->n = ne__ale_minimal_actions(r->ale, r->actions, 18);
  env_play(r);
  raw_play(r);
  if (r->n_resets > REPLAY_MAX_RESETS || r->env_score != r->raw_score) {
    printf("ALE: the env and raw ALE did not play alike (scores %ld and %ld, %d resets)\n", r->env_score, r->raw_score,
           r->n_resets);
    return 1;
  }
  return 0;
}

static void replay_free(ale_replay* r) {
  if (r->ale) ne__ale_destroy(r->ale);
  ne_env_state_destroy(r->st);
  ne_env_spec_destroy(r->spec);
}

// One play of both sides in lockstep, timed step by step (one agent step, ~0.3 ms, of each in
// turn, the order alternating), so that the swings of this shared machine's speed (the same play
// took 0.6 s or 0.94 s minutes apart; timing whole plays one after the other gave env/raw from
// 0.79 to 0.92 for the same code) fall on both sides alike; timing 10 or 50 steps of a side at a
// time gave the same ratios, so the two sides' caches do not tax each other measurably. Adds each
// side's thread CPU seconds; 0, or 1 when the two plays differed.
static int lockstep_play(ale_replay* r, double* t_env, double* t_raw) {
  play_pos e, w;
  env_begin(r, &e);
  raw_begin(r, &w);
  for (int k = 0; k < REPLAY_STEPS; k++) {
    int raw_first = k % 2;
    double t0 = now();
    raw_first ? raw_advance(r, &w) : env_advance(r, &e);
    double t1 = now();
    raw_first ? env_advance(r, &e) : raw_advance(r, &w);
    double t2 = now();
    *t_env += raw_first ? t2 - t1 : t1 - t0;
    *t_raw += raw_first ? t1 - t0 : t2 - t1;
  }
  if (r->env_score == r->raw_score) return 0;
  printf("ALE: the env and raw ALE did not play alike (scores %ld and %ld)\n", r->env_score, r->raw_score);
  return 1;
}

// env seconds per agent step (4 frames) through ALE/Frostbite-v5, and the raw/env frame ratios:
// 3 plays in lockstep against raw act() only, 3 against raw act() + the grayscale screens
static double bench_ale(void) {
  static ale_replay r;
  double t_env = 0, t_raw = 0, t_env2 = 0, t_read = 0;
  int bad = replay_setup(&r);
  for (int i = 0; i < 3 && !bad; i++) bad = lockstep_play(&r, &t_env, &t_raw);
  r.read_screens = 1;
  for (int i = 0; i < 3 && !bad; i++) bad = lockstep_play(&r, &t_env2, &t_read);
  replay_free(&r);
  if (bad) return 0;
  double steps = 3.0 * REPLAY_STEPS;
  printf(
      "\nALE (ALE/Frostbite-v5, the same %d agent steps of random play on both sides, in lockstep, x3;\n"
      "frame skip 4, 1 core; frames/s = 4 x agent steps/s, the 1..30 no-op frames after each reset\n"
      "emulated but not counted):\n"
      "  raw ALE, act() only, no screen read          %8.0f frames/s\n"
      "  raw ALE + the 2 grayscale screens per step    %8.0f frames/s (ALE's getScreenGrayscale)\n"
      "  through the env (+ max-pool, 84x84 area       %8.0f frames/s\n"
      "    resize, 4-stack, float obs, TimeLimit)\n"
      "  env / raw act-only = %.3f (target >= 0.95); env / raw + screens = %.3f\n",
      REPLAY_STEPS, FRAME_SKIP * steps / t_raw, FRAME_SKIP * steps / t_read, FRAME_SKIP * steps / t_env, t_raw / t_env,
      t_read / t_env2);
  return t_env / steps;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// `bench_pixels --ale-ratio PAIRS`: raw / env emulation of the same play as thread CPU time, one
// play in lockstep per pair (lockstep_play). Prints one line "ale_ratio MEDIAN MIN MAX PATH" for
// peer_goals.py's table. NEUROEVO_SIMD=avx2 measures the path of a CPU without AVX-512.
static int ale_ratio(int pairs) {
  static ale_replay r;
  if (replay_setup(&r)) {
    replay_free(&r);
    return 1;
  }
  double ratios[64];
  if (pairs > 64) pairs = 64;
  for (int i = 0; i < pairs; i++) {
    double t_env = 0, t_raw = 0;
    if (lockstep_play(&r, &t_env, &t_raw)) {
      replay_free(&r);
      return 1;
    }
    ratios[i] = t_raw / t_env;
  }
  qsort(ratios, (size_t)pairs, sizeof *ratios, cmp_double);
  printf("ale_ratio %.3f %.3f %.3f %s\n", ratios[pairs / 2], ratios[0], ratios[pairs - 1],
         ne__simd_name(ne__simd_chosen_level(&ne__ale_slot)));
  replay_free(&r);
  return 0;
}
#endif

int main(int argc, char** argv) {
#ifdef NE_HAVE_ALE
  if (argc == 3 && strcmp(argv[1], "--ale-ratio") == 0) return ale_ratio(atoi(argv[2]));
#endif
  (void)argc, (void)argv;
  printf("bench_pixels: conv forward kernel = %s\n\n", ne__simd_name(ne__simd_chosen_level(&ne__conv_slot)));
  // the Nature net over 84x84x4 frames, 18 actions (the full Atari set)
  fwd_ctx nat;
  fwd_setup(&nat, "nature", (int[3]){84, 84, 4}, 18);
  double flops = 2.0 * ne_policy_macs(&nat.spec);
  printf("Nature DQN net (%zu parameters, %.2f MFLOP per frame), forward over a batch of B frames:\n",
         nat.spec.n_params, flops / 1e6);
  printf("%6s %12s %10s\n", "B", "ms/frame", "GFLOP/s");
  double t1 = 0, t32 = 0;
  for (int b = 1; b <= 32; b *= 2) {
    if (b != 1 && b != 8 && b != 32) continue;
    double t = per_frame(&nat, b);
    if (b == 1) t1 = t;
    if (b == 32) t32 = t;
    printf("%6d %12.3f %10.1f\n", b, t * 1e3, flops / t / 1e9);
  }
  bench_openblas(flops / t32 / 1e9, &nat, t1, t32);
  fwd_free(&nat);

  // the MinAtar net over 10x10x4 (Breakout), 3 actions
  fwd_ctx mt;
  fwd_setup(&mt, "minatar", (int[3]){10, 10, 4}, 3);
  double tm1 = per_frame(&mt, 1), tm32 = per_frame(&mt, 32);
  printf("\nMinAtar net (%zu parameters): %.0f forwards/s single, %.0f forwards/s in batches of 32\n", mt.spec.n_params,
         1 / tm1, 1 / tm32);
  fwd_free(&mt);

  bench_minatar();

  // projected cost of the Deep GA paper's 1e9 frames: forward + env per agent step
  double steps = FRAMES_TOTAL / FRAME_SKIP;
#ifdef NE_HAVE_ALE
  double t_env = bench_ale();
  if (t_env > 0)
    printf(
        "\nProjected Deep GA, 1e9 Atari frames (%.2g agent steps x (%.3f ms forward + %.3f ms env)): %.0f "
        "core-hours (goal <= 300)\n",
        steps, t1 * 1e3, t_env * 1e3, steps * (t1 + t_env) / 3600);
#else
  printf(
      "\nALE: not built (make ale); projected Deep GA, 1e9 Atari frames, forward passes alone: %.0f core-hours "
      "(%.3f ms x %.2g steps)\n",
      steps * t1 / 3600, t1 * 1e3, steps);
#endif
  return 0;
}
