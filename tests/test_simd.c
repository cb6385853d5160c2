// SPDX-License-Identifier: MIT
// Every module's vector kernels against its portable ones, table by table (core/simd.h): for each
// slot (noise, crc32c, sincos8, mlp, mlp_lanes, conv, the classic envs' lanes, ALE's frames where
// built) and each SIMD level, every entry of the level's table runs on the same inputs as the
// portable entry and must give its bits. A level the build or the CPU lacks is printed with the
// reason, never skipped silently; so is an entry a level leaves out. Then the slots themselves:
// ne__simd_force moves every slot to the forced level's table (or the one below that it falls back
// to).
#include <stdio.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/libm_bits.h"
#include "core/noise_int.h"
#include "core/simd.h"
#include "envs/classic/classic_int.h"
#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "policy/conv_int.h"
#include "policy/mlp_int.h"
#include "policy/mlp_lanes_int.h"
#ifdef NE_HAVE_ALE
#include "envs/ale/ale_int.h"
#include "envs/ale/ale_shim.h"  // the screen size
#endif
#include "test.h"

// ---- helpers --------------------------------------------------------------------------------------

static ne_rng rng;

// uniform floats in [-2, 2), a few exact zeros and signed zeros among them
static void fill(float* x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double u = ne_rng_uniform(&rng);
    x[i] = u < 0.02 ? (u < 0.01 ? 0.0f : -0.0f) : (float)(4.0 * ne_rng_uniform(&rng) - 2.0);
  }
}

// the first byte where a and b differ, or -1
static long differ(const void* a, const void* b, size_t n) {
  const unsigned char *p = a, *q = b;
  for (size_t i = 0; i < n; i++)
    if (p[i] != q[i]) return (long)i;
  return -1;
}

#define SAME_BYTES(a, b, n, ...)                                             \
  do {                                                                       \
    long at_ = differ(a, b, n);                                              \
    if (at_ >= 0) {                                                          \
      fprintf(stderr, "differs from the portable entry at byte %ld: ", at_); \
      TEST_FAIL(__VA_ARGS__);                                                \
    }                                                                        \
  } while (0)

// ---- noise ----------------------------------------------------------------------------------------

static int check_noise(const void* table, const void* portable, const char* level) {
  const ne__noise_kernels *k = table, *p = portable;
  // blocks across the 32-bit carry of the counter, for seeds with both halves set
  const uint64_t seeds[] = {0, 1, 0x9e3779b97f4a7c15ull, UINT64_MAX};
  const uint64_t pairs[] = {0, 32, 0xffffffe0ull, 0xfffffff0ull, 1ull << 40};
  for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
    for (size_t q = 0; q < sizeof pairs / sizeof pairs[0]; q++) {
      ne__noise_block a, b;
      p->block(seeds[s], pairs[q], &a);
      k->block(seeds[s], pairs[q], &b);
      SAME_BYTES(a.z, b.z, sizeof a.z, "noise %s block: seed %d pair %d", level, (int)s, (int)q);
    }
  // scaled: lengths around the vector widths, out == base and out apart
  float base[131], z[131], want[131], got[131];
  for (int n = 0; n <= 131; n += n < 40 ? 1 : 13) {
    fill(base, 131), fill(z, 131);
    p->scaled(want, base, z, (size_t)n, 0.37f);
    k->scaled(got, base, z, (size_t)n, 0.37f);
    SAME_BYTES(want, got, (size_t)n * sizeof *got, "noise %s scaled: n %d", level, n);
    memcpy(got, base, sizeof got);
    k->scaled(got, got, z, (size_t)n, 0.37f);
    SAME_BYTES(want, got, (size_t)n * sizeof *got, "noise %s scaled in place: n %d", level, n);
  }
  return 2;
}

// ---- crc32c ---------------------------------------------------------------------------------------

static int check_crc32c(const void* table, const void* portable, const char* level) {
  const ne__crc32c_kernels *k = table, *p = portable;
  unsigned char bytes[300];
  for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)ne_rng_below(&rng, 256);
  for (int off = 0; off < 9; off++)
    for (int n = 0; n + off <= (int)sizeof bytes; n += 1 + n / 4)
      if (k->crc(0x1234u, bytes + off, (size_t)n) != p->crc(0x1234u, bytes + off, (size_t)n))
        TEST_FAIL("crc32c %s: offset %d length %d", level, off, n);
  return 1;
}

// ---- sincos8 --------------------------------------------------------------------------------------

static int check_sincos8(const void* table, const void* portable, const char* level) {
  const ne__sincos8_kernels *k = table, *p = portable;
  // the kernels' ranges and edges (0.126, 0.855, 2.426, 105414350), then random angles small and wide
  const double edges[16] = {0.0,  -0.0,         0x1p-28, 0.126,    0x1.b6p-1, 0x1.b5fffffffffffp-1, 0x1.368fdp1, 3.0,
                            -2.0, 0x1.921fbp26, 1e300,   INFINITY, NAN,       0x1.921fb54442d18p0,  1e6,         -0.5};
  for (int round = 0; round < 202; round++) {
    double x[8], s1[8], c1[8], s2[8], c2[8];
    for (int j = 0; j < 8; j++) {
      double u = ne_rng_uniform(&rng);
      x[j] = round < 2 ? edges[8 * round + j] : round % 2 ? 1.7 * u - 0.85 : 400.0 * u - 200.0;
    }
    p->sincos8(x, s1, c1);
    k->sincos8(x, s2, c2);
    SAME_BYTES(s1, s2, sizeof s1, "sincos8 %s: sin, round %d", level, round);
    SAME_BYTES(c1, c2, sizeof c1, "sincos8 %s: cos, round %d", level, round);
  }
  return 1;
}

// ---- mlp ------------------------------------------------------------------------------------------

// an MLP spec whose activation and rounding are the ones asked (tanh in float or double, or relu)
static void mlp_spec(ne_policy_spec* s, int fma, int act) {
  char err[NE_ERRSTR_LEN];
  int hidden = 8;
  if (ne_policy_spec_init(s, 4, &hidden, 1, 2, act == 2 ? NE_ACT_RELU : NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC,
                          NULL, NULL, err))
    TEST_FAIL("%s", err);
  s->tanh_eval = act == 1 ? NE_TANH_FLOAT : NE_TANH_DOUBLE;
  s->fma = fma;
}

enum { MAX_IN = 40, MAX_OUT = 70, MAX_ROWS = 17 };

// Each entry of one rounding's kernels against the portable dense layer and activation: the dense
// layer; the rows' outputs but the tail (blocks_rows), then the tail by 8, 4 and 1 rows from where
// blocks_rows left it; the activation; the output layer that takes its inputs' tanh.
static void check_mlp_kernels(const ne__mlp_kernels* k, const ne__mlp_kernels* p, int fma, const char* level) {
  static float x[MAX_ROWS * MAX_IN], w[MAX_IN * MAX_OUT], b[MAX_OUT], want[MAX_ROWS * MAX_OUT], got[MAX_ROWS * MAX_OUT];
  const int ins[] = {1, 3, 7, 16, 33, 40}, outs[] = {1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 64, 67, 70};
  const int rows[] = {1, 3, 4, 8, 9, 12, 17};
  for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++)
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++) {
      int in = ins[i], out = outs[o];
      fill(x, sizeof x / sizeof x[0]), fill(w, sizeof w / sizeof w[0]), fill(b, MAX_OUT);
      for (int r = 0; r < MAX_ROWS; r++) p->dense(x + r * in, in, w, b, out, want + r * out);
      k->dense(x, in, w, b, out, got);
      SAME_BYTES(want, got, (size_t)out * sizeof *got, "mlp %s fma %d dense: %d-%d", level, fma, in, out);
      for (size_t n = 0; n < sizeof rows / sizeof rows[0]; n++) {
        int nr = rows[n];
        memset(got, 0xff, sizeof got);
        int from = k->blocks_rows(x, nr, in, w, b, out, got);
        ASSERT(from >= 0 && from <= out);
        int r = 0;
        if (from < out && k->tail_rows8)
          for (; r + 8 <= nr; r += 8) k->tail_rows8(x + r * in, in, w, b, out, from, got + r * out);
        if (from < out && k->tail_rows4)
          for (; r + 4 <= nr; r += 4) k->tail_rows4(x + r * in, in, w, b, out, from, got + r * out);
        if (from < out) {
          if (!k->tail_row) TEST_FAIL("mlp %s fma %d: blocks_rows left a tail and there is no tail_row", level, fma);
          for (; r < nr; r++) k->tail_row(x + r * in, in, w, b, out, from, got + r * out);
        }
        SAME_BYTES(want, got, (size_t)(nr * out) * sizeof *got, "mlp %s fma %d rows: %d rows %d-%d (tail from %d)",
                   level, fma, nr, in, out, from);
      }
    }
  // the activations, over lengths around the vector widths
  for (int act = 0; act < 3; act++) {
    ne_policy_spec s;
    mlp_spec(&s, fma, act);
    for (int n = 1; n <= 70; n += n < 20 ? 1 : 7) {
      fill(want, (size_t)n);
      for (int j = 0; j < n; j++) want[j] *= 6.0f;  // past the float tanh's clamps too
      memcpy(got, want, (size_t)n * sizeof *got);
      p->activate(&s, want, n);
      k->activate(&s, got, n);
      SAME_BYTES(want, got, (size_t)n * sizeof *got, "mlp %s fma %d activate %d: n %d", level, fma, act, n);
    }
  }
  // the output layer over 8 rows that takes the float tanh of its inputs
  if (!k->tanh_dense_rows8) return;
  ne_policy_spec s;
  mlp_spec(&s, fma, 1);
  for (int in = 1; in <= 40; in += 3)
    for (int out = 1; out <= 8; out++) {
      fill(x, (size_t)(8 * in)), fill(w, (size_t)(in * out)), fill(b, (size_t)out);
      for (int j = 0; j < 8 * in; j++) x[j] *= 4.0f;
      static float act_x[8 * MAX_IN];
      memcpy(act_x, x, (size_t)(8 * in) * sizeof *x);
      p->activate(&s, act_x, 8 * in);
      for (int r = 0; r < 8; r++) p->dense(act_x + r * in, in, w, b, out, want + r * out);
      k->tanh_dense_rows8(x, in, w, b, out, got);
      SAME_BYTES(want, got, (size_t)(8 * out) * sizeof *got, "mlp %s fma %d tanh_dense_rows8: %d-%d", level, fma, in,
                 out);
    }
}

static int check_mlp(const void* table, const void* portable, const char* level) {
  const ne__mlp_table *k = table, *p = portable;
  int entries = 0;
  for (int fma = 0; fma < 2; fma++) {
    const ne__mlp_kernels* e = &k->by_fma[fma];
    check_mlp_kernels(e, &p->by_fma[fma], fma, level);
    // the entries a rounding has (a NULL tail: blocks_rows leaves none of that size)
    entries += 3 + !!e->tail_rows8 + !!e->tail_rows4 + !!e->tail_row + !!e->tanh_dense_rows8;
  }
  return entries;
}

// ---- mlp_lanes --------------------------------------------------------------------------------------

static int check_lanes(const void* table, const void* portable, const char* level) {
  const ne__lanes_table *k = table, *p = portable;
  char err[NE_ERRSTR_LEN];
  // (obs, hidden..., out, activation, tanh_eval): the fused last two layers (tanh in float), double
  // tanh, relu, one and three hidden layers, odd widths
  const struct {
    int obs, n_hidden, hidden[3], out, relu, float_tanh;
  } nets[] = {{4, 1, {16}, 2, 0, 1},       {4, 1, {16}, 2, 0, 0}, {6, 2, {32, 32}, 3, 1, 0}, {3, 1, {17}, 1, 0, 1},
              {5, 3, {9, 24, 7}, 6, 0, 1}, {8, 1, {33}, 8, 0, 1}, {2, 2, {64, 64}, 4, 0, 1}, {7, 0, {0}, 5, 0, 1}};
  const float low[8] = {-1e30f, -1e30f, -1e30f, -1e30f, -1e30f, -1e30f, -1e30f, -1e30f};
  const float high[8] = {1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f};
  for (size_t n = 0; n < sizeof nets / sizeof nets[0]; n++)
    for (int fma = 0; fma < 2; fma++) {
      ne_policy_spec s;
      // a clip head with bounds far out: the actions are the output layer's values
      if (ne_policy_spec_init(&s, nets[n].obs, nets[n].hidden, nets[n].n_hidden, nets[n].out,
                              nets[n].relu ? NE_ACT_RELU : NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_NORMC, low, high, err))
        TEST_FAIL("%s", err);
      s.tanh_eval = nets[n].float_tanh ? NE_TANH_FLOAT : NE_TANH_DOUBLE;
      s.fma = fma;
      size_t np = s.n_params * NE_POLICY_LANES, ns = ne_policy_lanes_scratch_floats(&s);
      float* params = ne_malloc(np * sizeof *params);
      float* scratch = ne_malloc(ns * sizeof *scratch);
      float obs[8 * NE_POLICY_LANES], want[8 * NE_POLICY_LANES], got[8 * NE_POLICY_LANES];
      fill(params, np), fill(obs, sizeof obs / sizeof obs[0]);
      p->forward[fma](&s, params, obs, scratch, want);
      k->forward[fma](&s, params, obs, scratch, got);
      SAME_BYTES(want, got, (size_t)(s.act_dim * NE_POLICY_LANES) * sizeof *got, "mlp_lanes %s fma %d: net %d", level,
                 fma, (int)n);
      ne_free(params);
      ne_free(scratch);
    }
  return 2;
}

// ---- conv -----------------------------------------------------------------------------------------

static int check_conv(const void* table, const void* portable, const char* level) {
  const ne__conv_kernels *k = table, *p = portable;
  static float in[4 * 11 * 9 * 3], w[75 * 70], b[70], want[4 * 45 * 70], got[4 * 45 * 70];
  fill(in, sizeof in / sizeof in[0]), fill(w, sizeof w / sizeof w[0]), fill(b, 70);
  // dense layers (rows of K floats) and a 3x3 stride-2 conv over 11x9x3 images, filter counts
  // around the vector widths and register blocks
  const int filters[] = {1, 5, 8, 16, 17, 33, 64, 70};
  for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++)
    for (int rows = 1; rows <= 13; rows += 3) {
      int F = filters[f], K = 27;
      ne__gemm_job g = {.in = in,
                        .img_floats = (size_t)K,
                        .out_w = 1,
                        .out_hw = 1,
                        .nseg = 1,
                        .seg = K,
                        .w = w,
                        .b = b,
                        .F = F,
                        .rows = rows,
                        .y = want};
      p->gemm(&g);
      g.y = got;
      k->gemm(&g);
      SAME_BYTES(want, got, (size_t)(rows * F) * sizeof *got, "conv %s dense: %d rows, %d-%d", level, rows, K, F);
    }
  for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++) {
    int F = filters[f], kernel = 3, stride = 2, c = 3, h = 11, wd = 9;
    int out_h = (h - kernel) / stride + 1, out_w = (wd - kernel) / stride + 1;
    ne__gemm_job g = {.in = in,
                      .img_floats = (size_t)(h * wd * c),
                      .out_w = out_w,
                      .out_hw = out_h * out_w,
                      .step_x = (size_t)(stride * c),
                      .step_y = (size_t)(stride * wd * c),
                      .nseg = kernel,
                      .seg = kernel * c,
                      .seg_stride = (size_t)(wd * c),
                      .w = w,
                      .b = b,
                      .F = F,
                      .rows = 4 * out_h * out_w,
                      .y = want};
    p->gemm(&g);
    g.y = got;
    k->gemm(&g);
    SAME_BYTES(want, got, (size_t)(g.rows * F) * sizeof *got, "conv %s: 3x3/2 conv, %d filters", level, F);
  }
  return 1;
}

// ---- classic control's lanes ----------------------------------------------------------------------

// 8 instances of id from random states, stepped 60 times through the level's lanes and the
// portable lanes with the same random actions and masks: the same lanes, observations, rewards
// and termination flags every step
static void check_classic_env(const ne__classic_kernels* k, const ne__classic_kernels* p, const char* id,
                              const char* level) {
  ne_env_spec* spec;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make(id, NULL, &spec, err)) TEST_FAIL("%s", err);
  size_t bytes = spec->hooks->lanes_bytes;
  unsigned char *a = ne_malloc(bytes), *b = ne_malloc(bytes);
  memset(a, 0, bytes);
  for (int j = 0; j < NE_ENV_LANES; j++) {
    ne_env_state* st = ne_env_state_create(spec);
    ASSERT_EQ(ne_env_reset(spec, st, (uint64_t)j + 1), 0);
    double v[8];
    for (int i = 0; i < spec->state_dim; i++) v[i] = (4.0 * ne_rng_uniform(&rng) - 2.0) * (j == 7 ? 3.0 : 0.1);
    ASSERT_EQ(ne_env_set_state(spec, st, v, spec->state_dim, err), 0);
    spec->hooks->lanes_load(spec, a, j, st->impl);
    ne_env_state_destroy(st);
  }
  for (int step = 0; step < 60; step++) {
    float acts[NE_ENV_LANES * 4], obs_a[NE_ENV_LANES * 8], obs_b[NE_ENV_LANES * 8];
    double rew_a[NE_ENV_LANES], rew_b[NE_ENV_LANES];
    int term_a[NE_ENV_LANES], term_b[NE_ENV_LANES];
    for (int j = 0; j < NE_ENV_LANES * spec->act_dim; j++)
      acts[j] = spec->discrete ? (float)ne_rng_below(&rng, (uint64_t)spec->n_actions)
                               : (float)(2.5 * ne_rng_uniform(&rng) - 1.25) * spec->act_high[0];
    unsigned mask = step % 3 ? 0xffu : (unsigned)ne_rng_below(&rng, 256);
    memcpy(b, a, bytes);
    memset(obs_a, 0, sizeof obs_a), memset(obs_b, 0, sizeof obs_b);
    p->lanes_step(spec, a, mask, acts, obs_a, rew_a, term_a);
    k->lanes_step(spec, b, mask, acts, obs_b, rew_b, term_b);
    SAME_BYTES(a, b, bytes, "%s %s: the lanes after step %d (mask %#x)", id, level, step, mask);
    SAME_BYTES(obs_a, obs_b, sizeof obs_a, "%s %s: observations of step %d", id, level, step);
    SAME_BYTES(rew_a, rew_b, sizeof rew_a, "%s %s: rewards of step %d", id, level, step);
    SAME_BYTES(term_a, term_b, sizeof term_a, "%s %s: termination of step %d", id, level, step);
  }
  ne_free(a), ne_free(b);
  ne_env_spec_destroy(spec);
}

static int check_cartpole(const void* t, const void* p, const char* level) {
  check_classic_env(t, p, "CartPole-v1", level);
  return 1;
}

static int check_acrobot(const void* t, const void* p, const char* level) {
  check_classic_env(t, p, "Acrobot-v1", level);
  return 1;
}

static int check_pendulum(const void* t, const void* p, const char* level) {
  check_classic_env(t, p, "Pendulum-v1", level);
  return 1;
}

// ---- ALE's frames ---------------------------------------------------------------------------------

#ifdef NE_HAVE_ALE
// one random screen through each entry (tests/ale/test_ale.c checks them at length)
static int check_ale(const void* table, const void* portable, const char* level) {
  const ne__ale_kernels *k = table, *p = portable;
  ne_area_resize r;
  ASSERT_EQ(ne__area_resize_init(&r, NE_ALE_H, NE_ALE_W, NE_ALE_OUT, NE_ALE_OUT), 0);
  ASSERT(k->fits(&r, NE_ALE_OUT * NE_ALE_OUT));
  static uint8_t src[NE_ALE_H * NE_ALE_W], lut[256], a[NE_ALE_H * NE_ALE_W], b[NE_ALE_H * NE_ALE_W];
  static uint8_t oa[NE_ALE_OUT * NE_ALE_OUT], ob[NE_ALE_OUT * NE_ALE_OUT];
  static float tmp[(NE_ALE_H + NE_AREA_TAPS - 1) * NE_ALE_OUT], row[NE_ALE_W + NE_AREA_TAPS - 1];
  static float sa[NE_ALE_OUT * NE_ALE_OUT * NE_ALE_STACK], sb[NE_ALE_OUT * NE_ALE_OUT * NE_ALE_STACK];
  for (int i = 0; i < 256; i++) lut[i] = (uint8_t)ne_rng_below(&rng, 256);
  for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)ne_rng_below(&rng, 256);
  p->luma(src, lut, NULL, NULL, a, NE_ALE_H * NE_ALE_W);
  k->luma(src, lut, NULL, NULL, b, NE_ALE_H * NE_ALE_W);
  SAME_BYTES(a, b, sizeof a, "ale %s: luma", level);
  p->resize(&r, a, tmp, row, oa);
  k->resize(&r, a, tmp, row, ob);
  SAME_BYTES(oa, ob, sizeof oa, "ale %s: resize", level);
  const uint8_t* f[NE_ALE_STACK] = {oa, ob, a, b};
  p->stack(f, NE_ALE_OUT * NE_ALE_OUT, sa);
  k->stack(f, NE_ALE_OUT * NE_ALE_OUT, sb);
  SAME_BYTES(sa, sb, sizeof sa, "ale %s: stack", level);
  return 3;
}
#endif

// ---- the walk -------------------------------------------------------------------------------------

// a module: its slot, and the check that runs every entry of a level's table against the portable
// table's (returns how many entries it compared)
typedef struct module {
  ne_simd_slot* slot;
  int (*check)(const void* table, const void* portable, const char* level);
} module;

static const module MODULES[] = {
    {&ne__noise_slot, check_noise},       {&ne__crc32c_slot, check_crc32c},   {&ne__sincos8_slot, check_sincos8},
    {&ne__mlp_slot, check_mlp},           {&ne__lanes_slot, check_lanes},     {&ne__conv_slot, check_conv},
    {&ne__cartpole_slot, check_cartpole}, {&ne__acrobot_slot, check_acrobot}, {&ne__pendulum_slot, check_pendulum},
#ifdef NE_HAVE_ALE
    {&ne__ale_slot, check_ale},
#endif
};
#define N_MODULES ((int)(sizeof MODULES / sizeof MODULES[0]))

static void test_every_entry_gives_the_portable_bits(void) {
  ne_rng_seed(&rng, 41);
  int compared = 0, skipped = 0;
  for (int m = 0; m < N_MODULES; m++) {
    ne_simd_slot* slot = MODULES[m].slot;
    ASSERT(slot->portable != NULL && slot->table[NE_SIMD_BASE] != NULL);
    for (int level = NE_SIMD_BASE; level <= NE_SIMD_AVX512; level++) {
      const char* why;
      const void* t = ne__simd_table_at(slot, level, &why);
      if (!t) {
        printf("  %-10s %-6s skipped: %s\n", slot->name, ne__simd_name(level), why);
        skipped++;
        continue;
      }
      int entries = MODULES[m].check(t, slot->portable, ne__simd_name(level));
      printf("  %-10s %-6s %d entries: the portable bits%s\n", slot->name, ne__simd_name(level), entries,
             t == slot->portable ? " (the portable table itself)" : "");
      compared++;
    }
  }
#ifndef NE_HAVE_ALE
  printf("  %-10s skipped: not in this build (-DNE_ALE=ON)\n", "ale");
#endif
  printf("  %d tables compared, %d levels skipped\n", compared, skipped);
  ASSERT(compared >= N_MODULES);
}

// Forcing a level moves every slot to that level's table, or to the next one down it has and can
// run; 0 lifts the cap again
static void test_slots_follow_the_forced_level(void) {
  for (int level = NE_SIMD_BASE; level <= NE_SIMD_AVX512; level++) {
    int in_use = ne__simd_force(level);
    ASSERT(in_use <= level);
    for (int m = 0; m < N_MODULES; m++) {
      ne_simd_slot* slot = MODULES[m].slot;
      int chosen = ne__simd_chosen_level(slot);
      const char* why;
      ASSERT(chosen <= in_use);
      ASSERT(ne__simd_table(slot) == ne__simd_table_at(slot, chosen, &why));
      for (int above = chosen + 1; above <= in_use; above++) ASSERT(ne__simd_table_at(slot, above, &why) == NULL);
    }
  }
  ne__simd_force(0);
}

TEST_MAIN(TEST_ENTRY(test_every_entry_gives_the_portable_bits), TEST_ENTRY(test_slots_follow_the_forced_level))
