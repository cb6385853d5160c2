// SPDX-License-Identifier: MIT
// Atari 2600 games through the Arcade Learning Environment (ale-py 0.12's C++ library behind
// ale_shim.cpp), with the DeepMind preprocessing the Deep GA paper used (Such et al. 2017, after
// Mnih et al. 2015), step for step as Gymnasium 1.x's AtariPreprocessing wrapper on a frameskip-1
// ALE/<Game>-v5 env followed by FrameStackObservation(4). Built with -DNE_ALE=ON (`make test`,
// `make ale`); the per-pixel work has AVX-512 and AVX2 kernels in frame_avx512.c and frame_avx2.c
// (a kernel table per SIMD level, core/simd.h, chosen once per spec).
//
// Action space: the game's minimal action set (v5's default), Discrete(n <= 18).
// Observation: 84x84x4 floats in [0, 1] (HWC; channel 0 the oldest of the 4 stacked frames): each
//   frame is the max of the last two emulated screens' luminance, area-resized from 210x160 as
//   OpenCV's INTER_AREA, rounded to a byte, then / 255 (scale_obs=True).
// Step: the action is held for 4 emulated frames (frame skip 4); reward = the sum of the frames'
//   raw game score changes (unclipped, as the Deep GA's fitness). Optional sticky actions as v5:
//   each frame repeats the previous frame's action with probability env.sticky_prob (off here by
//   default, as in the paper; Gymnasium v5 uses 0.25).
// Start state: ALE's reset, then 1..30 no-op frames (uniform; the game restarts if they end it);
//   the stack holds the first frame four times.
// Termination: the game is over (all lives lost; a lost life does not end the episode).
// Truncation: 4500 steps = 18,000 frames (the paper's cap; the no-op frames are not counted).
// Randomness: every draw (no-ops, sticky actions) comes from the env's own seeded stream, and the
//   emulator is deterministic, so an episode is a pure function of its reset seed.
#include <assert.h>
#include <errno.h>
#include <math.h>  // lrintf: IEEE round-to-nearest-even, as OpenCV's cvRound
#include <stdio.h>
#include <stdlib.h>  // getenv
#include <string.h>
#include <unistd.h>  // access: the ROM is there

#include "core/util.h"  // ne__set_error
#include "envs/ale/ale_int.h"
#include "envs/ale/ale_shim.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

#define FRAME_SKIP 4
#define NOOP_MAX 30
#define STACK NE_ALE_STACK
#define MAX_EPISODE_STEPS 4500  // 18,000 frames / FRAME_SKIP
#define MAX_ACTIONS 18
#define OUT_PIXELS (NE_ALE_OUT * NE_ALE_OUT)
#define SCREEN (NE_ALE_H * NE_ALE_W)

// spec->params layout
enum { P_STICKY = 0 };

// Per-spec immutable data (spec->data, freed by ale_destroy).
typedef struct ale_data {
  char rom[1024];            // ROM file path
  int actions[MAX_ACTIONS];  // minimal action set (full-set action codes)
  int n_actions;
  ne_area_resize resize;           // 210x160 -> 84x84 tables
  ne_area_resize band;             // the same for one band (NE_AREA_BAND_IN rows -> NE_AREA_BAND_OUT)
  int banded;                      // 1: bands resize exactly as the whole (ne__area_bands_match)
  const ne__ale_kernels* kernels;  // the pixel kernels this spec runs (ale_int.h's table)
} ale_data;

// Per-instance state (one per worker thread).
typedef struct ale_state {
  ne_ale* ale;                 // the emulator (hooks: state_init / state_free)
  ne_rng rng;                  // no-op starts and sticky actions
  int last_action;             // the previous frame's full-set action (sticky actions)
  int head;                    // index in stack of the newest frame
  int noops;                   // no-op frames at the start of this episode
  uint8_t screens[2][SCREEN];  // AtariPreprocessing's obs_buffer: [0] last frame (then the pooled
                               // one, in place, as the wrapper does), [1] the one before
  uint8_t indices1[SCREEN];    // the palette indices screens[1] was looked up from
  int have_screen1;            // 1 while screens[1] holds the lookup of indices1 (0 after a reset)
  uint8_t resized[SCREEN];     // the pooled screen the newest stack frame was resized from
  int have_resized;            // 0 after a reset: the next frame is resized whole
  uint8_t lut[256];            // ALE's grayscale palette (palette index -> luminance)
  float tmp[(NE_ALE_H + NE_AREA_TAPS - 1) * NE_ALE_OUT];  // horizontal pass of the resize, padded
  float row[NE_ALE_W + NE_AREA_TAPS - 1];                 // one input row as floats, padded
  uint8_t stack[STACK][OUT_PIXELS];                       // ring of preprocessed frames
} ale_state;

// ---- area resize (OpenCV INTER_AREA for non-integer scales) ---------------------------------------

// one axis of OpenCV's computeResizeAreaTab: the first tap of each output pixel and the weights of
// its (at most NE_AREA_TAPS) consecutive taps, zero-padded
static int area_axis(int in, int out, int* first, float (*w)[NE_AREA_TAPS]) {
  double scale = (double)in / out;
  for (int d = 0; d < out; d++) {
    double f1 = d * scale, f2 = f1 + scale, cell = scale < in - f1 ? scale : in - f1;
    int s1 = (int)ceil(f1), s2 = (int)floor(f2);
    s2 = s2 < in - 1 ? s2 : in - 1;
    s1 = s1 < s2 ? s1 : s2;
    double taps[8];
    int k = 0;
    first[d] = s1 - f1 > 1e-3 ? s1 - 1 : s1;
    if (s1 - f1 > 1e-3) taps[k++] = (s1 - f1) / cell;
    for (int s = s1; s < s2 && k < 8; s++) taps[k++] = 1.0 / cell;
    if (f2 - s2 > 1e-3 && k < 8) {
      double part = f2 - s2 < 1.0 ? f2 - s2 : 1.0;
      taps[k++] = (part < cell ? part : cell) / cell;
    }
    if (k > NE_AREA_TAPS || first[d] < 0 || first[d] + k > in) return NE_EINVAL;
    for (int j = 0; j < NE_AREA_TAPS; j++) w[d][j] = j < k ? (float)taps[j] : 0.0f;
  }
  return 0;
}

// the column taps again, 16 output columns at a time, as offsets into each group's 64-byte window
// (AVX-512 kernel); a zero-weight tap reads an in-range byte, so 0 * byte adds exactly +0 as the
// portable kernel's zero padding does. grouped = 0 if some group's taps spread wider.
static void area_groups(ne_area_resize* r) {
  r->grouped = 1;
  for (int g = 0; g * NE_AREA_GROUP < r->out_w; g++) {
    int base = r->gx_base[g] = r->x0[g * NE_AREA_GROUP];
    for (int k = 0; k < NE_AREA_GROUP; k++) {
      int x = g * NE_AREA_GROUP + k;
      for (int j = 0; j < NE_AREA_TAPS; j++) {
        int live = x < r->out_w && r->wx[x][j] != 0.0f, col = live ? r->x0[x] + j : base;
        if (col - base >= 64) r->grouped = 0;
        r->gx_idx[g][j][k] = (uint8_t)(col - base);
        r->gx_w[g][j][k] = live ? r->wx[x][j] : 0.0f;
      }
    }
  }
}

// the column taps again, 4 output columns at a time, as vpshufb controls into each quad's 16-byte
// window (AVX2 kernel): byte 4k of a tap's control is column k's offset, the other three 0x80 (zero),
// so the shuffle leaves each tap byte zero-extended in its dword. quad = 0 if some quad's taps
// spread wider, out_w is not a multiple of 4 or the padded last row would not hold in_w + 16 bytes.
static void area_quads(ne_area_resize* r) {
  r->quad = r->out_w % 4 == 0 && r->in_w + 16 <= NE_AREA_QUAD_ROW;
  for (int q = 0; q * 4 < r->out_w; q++) {
    int base = r->qx_base[q] = r->x0[4 * q];
    memset(r->qx_idx[q], 0x80, sizeof r->qx_idx[q]);
    for (int k = 0; k < 4; k++) {
      int x = 4 * q + k;
      for (int j = 0; j < NE_AREA_TAPS; j++) {
        int live = x < r->out_w && r->wx[x][j] != 0.0f, col = live ? r->x0[x] + j : base;
        if (col - base >= 16) r->quad = 0;
        r->qx_idx[q][j][4 * k] = (uint8_t)(col - base);
        r->qx_w[q][j][k] = live ? r->wx[x][j] : 0.0f;
      }
    }
  }
}

int ne__area_resize_init(ne_area_resize* r, int in_h, int in_w, int out_h, int out_w) {
  memset(r, 0, sizeof *r);
  if (out_h < 1 || out_w < 1 || out_h > NE_ALE_OUT || out_w > NE_ALE_OUT || in_h < out_h || in_w < out_w ||
      2 * in_h > 5 * out_h || 2 * in_w > 5 * out_w)
    return NE_EINVAL;
  r->in_h = in_h, r->in_w = in_w, r->out_h = out_h, r->out_w = out_w;
  if (area_axis(in_w, out_w, r->x0, r->wx) || area_axis(in_h, out_h, r->y0, r->wy)) return NE_EINVAL;
  area_groups(r);
  area_quads(r);
  return 0;
}

int ne__area_bands_match(const ne_area_resize* full, const ne_area_resize* band) {
  if (band->in_h != NE_AREA_BAND_IN || band->out_h != NE_AREA_BAND_OUT || full->in_h % NE_AREA_BAND_IN != 0 ||
      full->out_h * NE_AREA_BAND_IN != full->in_h * NE_AREA_BAND_OUT || band->in_w != full->in_w ||
      band->out_w != full->out_w)
    return 0;
  // the column tables of both come from the same widths; each output row's taps, band by band
  for (int y = 0; y < full->out_h; y++) {
    int k = y / NE_AREA_BAND_OUT, j = y % NE_AREA_BAND_OUT;
    if (full->y0[y] != k * NE_AREA_BAND_IN + band->y0[j] || memcmp(full->wy[y], band->wy[j], sizeof full->wy[y]) != 0)
      return 0;
    for (int t = 0; t < NE_AREA_TAPS; t++)
      if (band->wy[j][t] != 0.0f && band->y0[j] + t >= NE_AREA_BAND_IN) return 0;
  }
  return 1;
}

// round to the nearest integer, ties to even (cvRound), for 0 <= v < 2^22: adding 1.5 * 2^23 leaves
// no fraction bits, so the float addition itself rounds; no libm call. Without -ffast-math (never
// used here) the compiler may not fold (v + big) - big into v, and the loop below vectorizes.
static inline int round_even(float v) {
  const float big = 12582912.0f;
  return (int)((v + big) - big);
}

void ne__area_resize(const ne_area_resize* r, const uint8_t* in, float* tmp, float* row, uint8_t* out) {
  // horizontal: every input row into out_w columns, taps in order (acc = w0 p0, += w1 p1, ...);
  // row and tmp end in NE_AREA_TAPS - 1 zeros that zero-weight taps past the edge read
  for (int x = r->in_w; x < r->in_w + NE_AREA_TAPS - 1; x++) row[x] = 0.0f;
  for (int i = r->in_h * r->out_w; i < (r->in_h + NE_AREA_TAPS - 1) * r->out_w; i++) tmp[i] = 0.0f;
  for (int y = 0; y < r->in_h; y++) {
    const uint8_t* restrict src = in + (size_t)y * (size_t)r->in_w;
    float* restrict dst = row;  // restrict: the bytes cannot alias the floats, so this vectorizes
    for (int x = 0; x < r->in_w; x++) dst[x] = src[x];
    float* t = tmp + (size_t)y * (size_t)r->out_w;
    for (int x = 0; x < r->out_w; x++) {
      const float* p = row + r->x0[x];
      float acc = r->wx[x][0] * p[0];
      acc += r->wx[x][1] * p[1];
      acc += r->wx[x][2] * p[2];
      t[x] = acc;
    }
  }
  // vertical: three rows accumulated in order over contiguous columns (this loop vectorizes)
  for (int y = 0; y < r->out_h; y++) {
    const float* t0 = tmp + (size_t)r->y0[y] * (size_t)r->out_w;
    const float *t1 = t0 + r->out_w, *t2 = t1 + r->out_w;
    float w0 = r->wy[y][0], w1 = r->wy[y][1], w2 = r->wy[y][2];
    float acc[NE_ALE_OUT];
    for (int x = 0; x < r->out_w; x++) {
      float a = w0 * t0[x];
      a += w1 * t1[x];
      a += w2 * t2[x];
      acc[x] = a;
    }
    for (int x = 0; x < r->out_w; x++) {
      int v = round_even(acc[x]);
      out[(size_t)y * (size_t)r->out_w + (size_t)x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

// ---- emulation ----------------------------------------------------------------------------------

// one emulated frame: v5's sticky actions (the previous frame's action with probability p)
static int frame(const ne_env_spec* spec, ale_state* s, int action) {
  double p = spec->params[P_STICKY];
  if (p > 0 && ne_rng_uniform(&s->rng) < p) action = s->last_action;
  s->last_action = action;
  return ne__ale_act(s->ale, action);
}

void ne__ale_luma(const uint8_t* src, const uint8_t lut[256], const uint8_t* pool, const uint8_t* pool_src,
                  uint8_t* dst, int n) {
  if (!pool && !pool_src) {
    for (int i = 0; i < n; i++) dst[i] = lut[src[i]];
    return;
  }
  for (int i = 0; i < n; i += 8) {
    int len = n - i < 8 ? n - i : 8;
    if (pool_src && len == 8 && memcmp(src + i, pool_src + i, 8) == 0) {  // a word compare
      if (pool) memmove(dst + i, pool + i, 8);                            // dst may be pool
      continue;
    }
    for (int k = i; k < i + len; k++) {
      uint8_t v = lut[src[k]];
      dst[k] = !pool || v > pool[k] ? v : pool[k];
    }
  }
}

// the current screen's luminance into dst (the palette lookup of ALE's getScreenGrayscale), max-
// pooled with pool when it is not NULL (pool_src: the indices pool came from, or NULL)
static void capture(const ale_data* d, ale_state* s, const uint8_t* pool, const uint8_t* pool_src, uint8_t* dst) {
  const uint8_t* src = ne__ale_screen(s->ale);
  d->kernels->luma(src, s->lut, pool, pool_src, dst, SCREEN);
}

// screens[0] = max(screens[0], screens[1]) in place: a skip cut short by a game over pools what
// the buffers hold, as the wrapper does
static void pool(ale_state* s) {
  uint8_t *a = s->screens[0], *b = s->screens[1];
  for (int i = 0; i < SCREEN; i++) a[i] = a[i] > b[i] ? a[i] : b[i];
}

// in resized by r's tables into out, with this CPU's kernel
static void resize(const ale_data* d, const ne_area_resize* r, ale_state* s, const uint8_t* in, uint8_t* out) {
  d->kernels->resize(r, in, s->tmp, s->row, out);
}

// The pooled screen, resized into the next stack slot: band by band, a band whose input rows equal
// the previous frame's taking that frame's output rows (~85-95% of rows are unchanged from one
// step to the next in random play of Frostbite, Ice Hockey, Pong, Breakout, Space Invaders)
static void push_frame(const ale_data* d, ale_state* s) {
  const uint8_t* before = s->stack[s->head];
  s->head = (s->head + 1) % STACK;
  uint8_t* out = s->stack[s->head];
  const uint8_t* pooled = s->screens[0];
  if (!d->banded || !s->have_resized) {
    resize(d, &d->resize, s, pooled, out);
    memcpy(s->resized, pooled, SCREEN);
    s->have_resized = 1;
    return;
  }
  // s->resized already holds the unchanged bands: only the changed ones are copied in
  const size_t in_band = (size_t)NE_AREA_BAND_IN * NE_ALE_W, out_band = (size_t)NE_AREA_BAND_OUT * NE_ALE_OUT;
  for (size_t k = 0; k < NE_ALE_H / NE_AREA_BAND_IN; k++) {
    const uint8_t* in = pooled + k * in_band;
    if (memcmp(in, s->resized + k * in_band, in_band) == 0) {
      memcpy(out + k * out_band, before + k * out_band, out_band);
      continue;
    }
    resize(d, &d->band, s, in, out + k * out_band);
    memcpy(s->resized + k * in_band, in, in_band);
  }
}

int ne__ale_noops(const void* impl) { return ((const ale_state*)impl)->noops; }

static void ale_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  const ale_data* d = spec->data;
  ale_state* s = impl;
  ne_rng_seed(&s->rng, ne_rng_u64(rng));
  s->last_action = 0;
  s->have_resized = 0;
  ne__ale_reset(s->ale);
  // AtariPreprocessing.reset: 1..noop_max no-op frames, restarting a game they end
  int noops = s->noops = 1 + (int)ne_rng_below(&s->rng, NOOP_MAX);
  for (int i = 0; i < noops; i++) {
    frame(spec, s, 0);
    if (ne__ale_game_over(s->ale)) ne__ale_reset(s->ale);
  }
  capture(d, s, NULL, NULL, s->screens[0]);
  memset(s->screens[1], 0, SCREEN);  // pooling with zeros leaves screens[0] as it is
  s->have_screen1 = 0;               // (no longer the lookup of indices1)
  // FrameStackObservation pads with the reset frame
  push_frame(d, s);
  for (int k = 1; k < STACK; k++) memcpy(s->stack[(s->head + k) % STACK], s->stack[s->head], OUT_PIXELS);
}

static void ale_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  const ale_data* d = spec->data;
  ale_state* s = impl;
  int action = d->actions[(int)act[0]];
  // AtariPreprocessing.step: hold the action for 4 frames, keep the last two screens; a game over
  // stops the skip early (the buffers then keep what they had, as in the wrapper)
  long total = 0;
  int pooled = 0;
  for (int t = 0; t < FRAME_SKIP; t++) {
    total += frame(spec, s, action);
    if (ne__ale_game_over(s->ale)) {
      *terminated = 1;
      break;
    }
    // the last frame's luminance pooled with screens[1] straight into screens[0]: the wrapper's
    // obs_buffer[0] = max(obs_buffer[0], obs_buffer[1]) in place, fused with the capture
    // (the indices of the first are kept: where the second frame's equal them, ~99% of an Atari
    // frame, the pooled byte is the first's and the lookup is skipped)
    // The frame before it: looked up where its indices differ from the previous step's frame
    // before the last (95-99% of the 32-byte blocks do not, 4 frames later, in random play of
    // Frostbite, Ice Hockey, Pong and Breakout: their luminance is in screens[1])
    if (t == FRAME_SKIP - 2) {
      capture(d, s, NULL, s->have_screen1 ? s->indices1 : NULL, s->screens[1]);
      memcpy(s->indices1, ne__ale_screen(s->ale), SCREEN);
      s->have_screen1 = 1;
    } else if (t == FRAME_SKIP - 1) {
      capture(d, s, s->screens[1], s->indices1, s->screens[0]);
      pooled = 1;
    }
  }
  if (!pooled) pool(s);
  push_frame(d, s);
  *reward = (double)total;
}

void ne__ale_stack(const uint8_t* const f[NE_ALE_STACK], int n, float* obs) {
  const float scale = 1.0f / 255.0f;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < NE_ALE_STACK; k++) obs[i * NE_ALE_STACK + k] = f[k][i] * scale;
}

// the portable kernels fit every table
static int portable_fits(const ne_area_resize* r, int n) {
  (void)r, (void)n;
  return 1;
}

static const ne__ale_kernels portable_kernels = {ne__ale_luma, ne__area_resize, ne__ale_stack, portable_fits};

// AVX-512's kernels need VBMI on top of the level
static int usable(int level, const char** why) {
  if (level < NE_SIMD_AVX512 || (ne__simd_cpu_extras() & NE_SIMD_EXTRA_VBMI)) return 1;
  *why = "the CPU lacks AVX-512 VBMI";
  return 0;
}

// by level: the portable kernels, AVX2 (frame_avx2.c) and AVX-512 VBMI (frame_avx512.c)
ne_simd_slot ne__ale_slot = {
    .name = "ale",
    .portable = &portable_kernels,
    .table = {[NE_SIMD_BASE] = &portable_kernels,
              NE_ON_X86([NE_SIMD_AVX2] = &ne__ale_avx2, [NE_SIMD_AVX512] = &ne__ale_avx512)},
    .usable = usable,
};

static void ale_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  const ale_data* d = spec->data;
  const ale_state* s = impl;
  // HWC with the oldest frame in channel 0
  const uint8_t* f[STACK];
  for (int k = 0; k < STACK; k++) f[k] = s->stack[(s->head + 1 + k) % STACK];
  d->kernels->stack(f, OUT_PIXELS, obs);
}

static int ale_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  (void)impl, (void)v, (void)n;
  return ne__set_error(errstr, NE_EINVAL, "%s: Atari games have no settable state vector", spec->id);
}

static void ale_get_state(const ne_env_spec* spec, const void* impl, double* v) { (void)spec, (void)impl, (void)v; }

static void ale_destroy(ne_env_spec* spec) {
  ne_free(spec->data);
  spec->data = NULL;
}

static const ne_env_family ale_family = {
    "ale", sizeof(ale_state), ale_reset, ale_step, ale_observe, ale_set_state, ale_get_state, ale_destroy,
};

// each state owns an emulator with the ROM loaded
static int ale_state_init(const ne_env_spec* spec, void* impl) {
  const ale_data* d = spec->data;
  ale_state* s = impl;
  s->ale = ne__ale_create(d->rom, NULL, 0);
  if (!s->ale) return NE_EIO;
#ifndef NDEBUG
  // the listed action set is the ROM's (tests/ale checks every game)
  int rom[MAX_ACTIONS];
  int n = ne__ale_minimal_actions(s->ale, rom, MAX_ACTIONS);
  assert(n == d->n_actions && memcmp(rom, d->actions, (size_t)n * sizeof *rom) == 0);
  (void)n;
#endif
  ne__ale_gray_lut(s->ale, s->lut);
  return 0;
}

static void ale_state_free(const ne_env_spec* spec, void* impl) {
  (void)spec;
  ne__ale_destroy(((ale_state*)impl)->ale);
}

// the set_pixel_options hook: the per-frame sticky-action probability (0 or < 0: off, the
// default); ALE has no difficulty ramp
static void ale_set_pixel_options(ne_env_spec* spec, double sticky_prob, int ramping) {
  (void)ramping;
  spec->params[P_STICKY] = sticky_prob > 0 ? sticky_prob : 0;
}

// the render hook: the emulator's last frame in colour, scaled to width x height by nearest
// neighbour (a 2x scale, 320x420, keeps every pixel's shape)
static int ale_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                      char* errstr) {
  (void)ctx;
  const ale_state* s = impl;
  unsigned char* screen = ne_malloc(NE_ALE_H * NE_ALE_W * 3);
  if (!screen) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", spec->id);
  if (ne__ale_rgb(s->ale, screen)) {
    ne_free(screen);
    return ne__set_error(errstr, NE_EIO, "%s: ALE could not read the screen", spec->id);
  }
  for (int y = 0; y < height; y++) {
    const unsigned char* row = screen + (size_t)(y * NE_ALE_H / height) * NE_ALE_W * 3;
    for (int x = 0; x < width; x++) memcpy(rgb + ((size_t)y * width + x) * 3, row + (x * NE_ALE_W / width) * 3, 3);
  }
  ne_free(screen);
  return 0;
}

// the behaviour characterization: the console's RAM at the end of the episode, one float per byte
// (Conti et al. 2018 characterize Atari agents by their RAM states)
static void ale_behaviour(const ne_env_spec* spec, const void* impl, float* out) {
  (void)spec;
  uint8_t ram[NE_ALE_RAM];
  ne__ale_ram(((const ale_state*)impl)->ale, ram);
  for (int i = 0; i < NE_ALE_RAM; i++) out[i] = ram[i];
}

static const ne_env_hooks ale_hooks = {.state_init = ale_state_init,
                                       .state_free = ale_state_free,
                                       .render = ale_render,
                                       .set_pixel_options = ale_set_pixel_options,
                                       .behaviour = ale_behaviour};

int ne__ale_spec_actions(const ne_env_spec* spec, const int** actions) {
  if (spec->family != &ale_family) return 0;
  const ale_data* d = spec->data;
  *actions = d->actions;
  return d->n_actions;
}

const char* ne__ale_rom_path(const ne_env_spec* spec) {
  return spec->family == &ale_family ? ((const ale_data*)spec->data)->rom : NULL;
}

// ---- ids ----------------------------------------------------------------------------------------

// "ALE/FooBar-v5" -> "foo_bar.bin" (ale-py's ROM file names)
static int rom_name(const char* id, char* out, size_t size) {
  const char* name = id + 4;
  const char* dash = strstr(name, "-v5");
  if (!dash || dash[3] != '\0') return -1;
  size_t n = 0;
  for (const char* p = name; p < dash; p++) {
    int upper = *p >= 'A' && *p <= 'Z';
    if (n + 3 >= size) return -1;
    if (upper && p != name) out[n++] = '_';
    out[n++] = upper ? (char)(*p - 'A' + 'a') : *p;
  }
  snprintf(out + n, size - n, ".bin");
  return 0;
}

// the ROM folder: $NEUROEVO_ALE_ROMS, else the one found at configure time
static const char* rom_dir(void) {
  const char* env = getenv("NEUROEVO_ALE_ROMS");
  if (env && *env) return env;
#ifdef NE_ALE_ROMS
  return NE_ALE_ROMS;
#else
  return ".";
#endif
}

// The minimal action sets (v5's action space, full-set action codes) as ALE 0.12 gives them for each
// ROM: listed here so that making a spec (`neuroevo envs`, a master, eval) loads no ROM, which costs
// ~0.25 s of emulation each (20 games made `neuroevo envs` take 5 s). tests/ale/test_ale.c checks
// every entry against the ROM's own set.
#define ALL_ACTIONS \
  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 }
static const struct game_actions {
  const char* id;
  int n;                     // actions in the minimal set
  int actions[MAX_ACTIONS];  // (n) their full-set codes
} GAME_ACTIONS[] = {
    {"ALE/Amidar-v5", 10, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13}},
    {"ALE/Assault-v5", 7, {0, 1, 2, 3, 4, 11, 12}},
    {"ALE/Asterix-v5", 9, {0, 2, 3, 4, 5, 6, 7, 8, 9}},
    {"ALE/Asteroids-v5", 14, {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15}},
    {"ALE/Atlantis-v5", 4, {0, 1, 11, 12}},
    {"ALE/BeamRider-v5", 9, {0, 1, 2, 3, 4, 6, 7, 11, 12}},
    {"ALE/Breakout-v5", 4, {0, 1, 3, 4}},
    {"ALE/Enduro-v5", 9, {0, 1, 3, 4, 5, 8, 9, 11, 12}},
    {"ALE/Frostbite-v5", 18, ALL_ACTIONS},
    {"ALE/Gravitar-v5", 18, ALL_ACTIONS},
    {"ALE/IceHockey-v5", 18, ALL_ACTIONS},
    {"ALE/Kangaroo-v5", 18, ALL_ACTIONS},
    {"ALE/MontezumaRevenge-v5", 18, ALL_ACTIONS},
    {"ALE/Pong-v5", 6, {0, 1, 3, 4, 11, 12}},
    {"ALE/Qbert-v5", 6, {0, 1, 2, 3, 4, 5}},
    {"ALE/Seaquest-v5", 18, ALL_ACTIONS},
    {"ALE/Skiing-v5", 3, {0, 3, 4}},
    {"ALE/SpaceInvaders-v5", 6, {0, 1, 3, 4, 11, 12}},
    {"ALE/Venture-v5", 18, ALL_ACTIONS},
    {"ALE/Zaxxon-v5", 18, ALL_ACTIONS},
};
#undef ALL_ACTIONS

static int ale_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;  // the TimeLimit override is env.c's
  ale_data* d = ne_calloc(1, sizeof *d);
  if (!d) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", id);
  spec->data = d;  // freed by ale_destroy, also on the failures below
  spec->family = &ale_family;
  char file[128];
  if (rom_name(id, file, sizeof file)) return ne__set_error(errstr, NE_ENOTFOUND, "%s: not an ALE/<Game>-v5 id", id);
  snprintf(d->rom, sizeof d->rom, "%s/%s", rom_dir(), file);
  // the ROM is loaded by each state (ale_state_init); here only its presence is checked
  if (access(d->rom, R_OK) != 0)
    return ne__set_error(errstr, NE_EIO, "%s: ROM %s: %s (set NEUROEVO_ALE_ROMS to ale-py's roms folder)", id, d->rom,
                         strerror(errno));
  const struct game_actions* g = NULL;
  for (size_t i = 0; i < sizeof GAME_ACTIONS / sizeof GAME_ACTIONS[0] && !g; i++)
    if (strcmp(GAME_ACTIONS[i].id, id) == 0) g = &GAME_ACTIONS[i];
  if (!g) return ne__set_error(errstr, NE_ENOTFOUND, "%s: no minimal action set listed for this game", id);
  d->n_actions = g->n;
  memcpy(d->actions, g->actions, sizeof d->actions);
  if (ne__area_resize_init(&d->resize, NE_ALE_H, NE_ALE_W, NE_ALE_OUT, NE_ALE_OUT) ||
      ne__area_resize_init(&d->band, NE_AREA_BAND_IN, NE_ALE_W, NE_AREA_BAND_OUT, NE_ALE_OUT))
    return ne__set_error(errstr, NE_EINVAL, "%s: resize tables", id);
  d->banded = ne__area_bands_match(&d->resize, &d->band);
  // the level's kernels, chosen once per spec (210x160 -> 84x84 fits every level's)
  d->kernels = ne__simd_table(&ne__ale_slot);
  if (!d->kernels->fits(&d->resize, OUT_PIXELS)) d->kernels = &portable_kernels;
  spec->obs_dim = OUT_PIXELS * STACK;
  spec->obs_rank = 3;
  spec->obs_always_finite = 1;  // bytes / 255
  spec->obs_shape[0] = NE_ALE_OUT, spec->obs_shape[1] = NE_ALE_OUT, spec->obs_shape[2] = STACK;
  spec->discrete = 1;
  spec->n_actions = d->n_actions;
  spec->act_dim = 1;
  spec->max_episode_steps = MAX_EPISODE_STEPS;
  spec->hooks = &ale_hooks;
  spec->bc_native = 1;  // the final RAM (ale_behaviour)
  spec->bc_dim = NE_ALE_RAM;
  spec->params[P_STICKY] = 0;
  return 0;
}

// The registry reads this table (src/envs/registry.c): the Deep GA paper's 13 games plus common
// benchmarks. Any other ROM ale-py ships works the same way once listed here.
const ne_env_entry ne__ale_envs[] = {
    {"ALE/Amidar-v5", "Atari Amidar (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Assault-v5", "Atari Assault (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Asterix-v5", "Atari Asterix (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Asteroids-v5", "Atari Asteroids (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Atlantis-v5", "Atari Atlantis (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/BeamRider-v5", "Atari BeamRider (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Breakout-v5", "Atari Breakout (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Enduro-v5", "Atari Enduro (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Frostbite-v5", "Atari Frostbite (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Gravitar-v5", "Atari Gravitar (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/IceHockey-v5", "Atari Ice Hockey (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Kangaroo-v5", "Atari Kangaroo (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/MontezumaRevenge-v5", "Atari Montezuma's Revenge (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Pong-v5", "Atari Pong (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Qbert-v5", "Atari Q*bert (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Seaquest-v5", "Atari Seaquest (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Skiing-v5", "Atari Skiing (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/SpaceInvaders-v5", "Atari Space Invaders (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Venture-v5", "Atari Venture (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {"ALE/Zaxxon-v5", "Atari Zaxxon (ALE), 84x84x4 DeepMind preprocessing", ale_make},
    {NULL, NULL, NULL},
};
