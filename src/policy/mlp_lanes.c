// SPDX-License-Identifier: MIT
// Eight MLP forwards at once, each with its own parameters, one per vector lane (policy.h's
// ne_policy_forward_lanes): the single episodes of 8 small-MLP candidates in lockstep.
// Workload: classic control's nets are tiny (CartPole's 4-16-2 is 114 parameters): one forward per
// row spends more on calls, loop set-up and the output layer's 16-add chain than on arithmetic.
// With the 8 parameter vectors interleaved (parameter j of lane s at j * 8 + s) every layer is
// plain vector arithmetic over the lanes, with no call per row and 8 chains of one output each in
// flight. Each lane sums b, x0*w0, x1*w1, ... in ne__policy_dense's order and rounding (fused
// multiply-adds with policy.fma), then the same activation (mlp.c's, over all lanes) and head:
// ne_policy_forward's bits. Compiled for the baseline, AVX2 and AVX-512 (core/cpu.h picks, as for
// mlp.c).
#include <math.h>  // fmaf
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>  // _mm256_fmadd_ps
#endif
#include "neuroevo/policy.h"
#include "policy/policy_int.h"  // the head
#include "policy/tanh_simd.h"   // tanh_fma_avx2_vec, tanh_fma_avx512_vec

#define L NE_POLICY_LANES

#pragma GCC diagnostic ignored "-Wpsabi"  // the vectors never cross a real call (all inlined)

typedef float lanes_v __attribute__((vector_size(L * sizeof(float))));

static inline __attribute__((always_inline)) lanes_v lanes_load(const float* p) {
  lanes_v v;
  memcpy(&v, p, sizeof v);
  return v;
}

// a + x w in every lane, rounded as policy.fma says: twice (LANES_SEPARATE), or once (LANES_FMAF:
// libm's fmaf, exactly rounded wherever it runs; LANES_FMA8: the AVX2 FMA instruction, the same
// bits). A macro, not a function: an intrinsic needs its target where it is written.
#define LANES_SEPARATE(x, w, a) ((a) + (x) * (w))
#define LANES_FMA8(x, w, a) ((lanes_v)_mm256_fmadd_ps((__m256)(x), (__m256)(w), (__m256)(a)))
static inline __attribute__((always_inline)) lanes_v lanes_fmaf(lanes_v x, lanes_v w, lanes_v a) {
  lanes_v r;
  for (int s = 0; s < L; s++) r[s] = fmaf(x[s], w[s], a[s]);
  return r;
}
#define LANES_FMAF(x, w, a) lanes_fmaf(x, w, a)

// name##_block: outputs o .. o + NA of one layer (NA a constant after inlining: NA accumulators in
// registers across the input loop, NA independent addition chains); name: y (out lanes) = b + x W
// for one layer in lanes, W (in, out) input-major, each multiply-add as MADD.
#define LANES_DENSE(name, attr, MADD)                                                                                  \
  attr static inline __attribute__((always_inline)) void name##_block(                                                 \
      const float* restrict x, int in, const float* restrict w, const float* restrict b, int out, int o,               \
      float* restrict y, const int NA) {                                                                               \
    lanes_v acc[8];                                                                                                    \
    for (int a = 0; a < NA; a++) acc[a] = lanes_load(b + (size_t)(o + a) * L);                                         \
    for (int i = 0; i < in; i++) {                                                                                     \
      lanes_v xi = lanes_load(x + (size_t)i * L);                                                                      \
      const float* wi = w + ((size_t)i * (size_t)out + (size_t)o) * L;                                                 \
      for (int a = 0; a < NA; a++) acc[a] = MADD(xi, lanes_load(wi + (size_t)a * L), acc[a]);                          \
    }                                                                                                                  \
    for (int a = 0; a < NA; a++) memcpy(y + (size_t)(o + a) * L, &acc[a], sizeof acc[a]);                              \
  }                                                                                                                    \
  attr static inline __attribute__((always_inline)) void name(                                                         \
      const float* restrict x, int in, const float* restrict w, const float* restrict b, int out, float* restrict y) { \
    int o = 0;                                                                                                         \
    for (; o + 8 <= out; o += 8) name##_block(x, in, w, b, out, o, y, 8);                                              \
    switch (out - o) { /* the last 1-7 together, so that their chains overlap */                                       \
      case 7: name##_block(x, in, w, b, out, o, y, 7); break;                                                          \
      case 6: name##_block(x, in, w, b, out, o, y, 6); break;                                                          \
      case 5: name##_block(x, in, w, b, out, o, y, 5); break;                                                          \
      case 4: name##_block(x, in, w, b, out, o, y, 4); break;                                                          \
      case 3: name##_block(x, in, w, b, out, o, y, 3); break;                                                          \
      case 2: name##_block(x, in, w, b, out, o, y, 2); break;                                                          \
      case 1: name##_block(x, in, w, b, out, o, y, 1); break;                                                          \
      default: break;                                                                                                  \
    }                                                                                                                  \
  }
LANES_DENSE(dense_separate, , LANES_SEPARATE)
LANES_DENSE(dense_fmaf, , LANES_FMAF)
#if defined(__x86_64__) && defined(__GNUC__)
LANES_DENSE(dense_fma8, AVX2_FMA, LANES_FMA8)
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// The output layer's outputs o .. o + NA (a constant after inlining) in lanes with the float tanh
// (fused form) of its inputs taken on the way: x holds the last hidden layer before its
// activation. On AVX-512 (PAIR) each two inputs (16 floats: two lane vectors) go through one zmm
// tanh, on AVX2 each input through a ymm one; then they feed the NA chains in input order. The
// chains' latency (FMAs of 4 cycles) then overlaps the tanh's divisions, where a separate
// activation pass waited on the divider, then the output layer on its chains (8 lanes of 4-16-2:
// 90 -> 82 ns a forward on an Intel Xeon's AVX-512, 4-64-2: 337 -> 259). Each input gets the
// scalar kernel's bits (tanh_fma_avx512_vec, tanh_fma_avx2_vec), each output dense_fma8's sums.
#define DENSE_TANH_BLOCK(name, attr, PAIR)                                                                             \
  attr static inline __attribute__((always_inline)) void name(const float* restrict x, int in,                         \
                                                              const float* restrict w, const float* restrict b,        \
                                                              int out, int o, float* restrict y, const int NA) {       \
    lanes_v acc[8];                                                                                                    \
    for (int a = 0; a < NA; a++) acc[a] = lanes_load(b + (size_t)(o + a) * L);                                         \
    int i = 0;                                                                                                         \
    for (; PAIR && i + 2 <= in; i += 2) {                                                                              \
      __m512 t = tanh_fma_avx512_vec(_mm512_loadu_ps(x + (size_t)i * L));                                              \
      lanes_v lo = (lanes_v)_mm512_castps512_ps256(t), hi = (lanes_v)_mm512_extractf32x8_ps(t, 1);                     \
      const float* w0 = w + ((size_t)i * (size_t)out + (size_t)o) * L;                                                 \
      const float* w1 = w0 + (size_t)out * L;                                                                          \
      for (int a = 0; a < NA; a++) acc[a] = LANES_FMA8(lo, lanes_load(w0 + (size_t)a * L), acc[a]);                    \
      for (int a = 0; a < NA; a++) acc[a] = LANES_FMA8(hi, lanes_load(w1 + (size_t)a * L), acc[a]);                    \
    }                                                                                                                  \
    for (; i < in; i++) { /* AVX2's inputs, AVX-512's odd last one */                                                  \
      lanes_v t = (lanes_v)tanh_fma_avx2_vec(_mm256_loadu_ps(x + (size_t)i * L));                                      \
      const float* wi = w + ((size_t)i * (size_t)out + (size_t)o) * L;                                                 \
      for (int a = 0; a < NA; a++) acc[a] = LANES_FMA8(t, lanes_load(wi + (size_t)a * L), acc[a]);                     \
    }                                                                                                                  \
    for (int a = 0; a < NA; a++) memcpy(y + (size_t)(o + a) * L, &acc[a], sizeof acc[a]);                              \
  }                                                                                                                    \
  /* the whole output layer through the block when it has at most 8 outputs (one block: no input's */                  \
  /* tanh taken twice); returns 0 where it does not apply (the caller activates, then runs DENSE)   */                 \
  attr static inline __attribute__((always_inline)) int name##_layer(                                                  \
      const float* restrict x, int in, const float* restrict w, const float* restrict b, int out, float* restrict y) { \
    switch (out) {                                                                                                     \
      case 1: name(x, in, w, b, out, 0, y, 1); return 1;                                                               \
      case 2: name(x, in, w, b, out, 0, y, 2); return 1;                                                               \
      case 3: name(x, in, w, b, out, 0, y, 3); return 1;                                                               \
      case 4: name(x, in, w, b, out, 0, y, 4); return 1;                                                               \
      case 5: name(x, in, w, b, out, 0, y, 5); return 1;                                                               \
      case 6: name(x, in, w, b, out, 0, y, 6); return 1;                                                               \
      case 7: name(x, in, w, b, out, 0, y, 7); return 1;                                                               \
      case 8: name(x, in, w, b, out, 0, y, 8); return 1;                                                               \
      default: return 0;                                                                                               \
    }                                                                                                                  \
  }
DENSE_TANH_BLOCK(dense_tanh_avx2, AVX2_FMA, 0)
DENSE_TANH_BLOCK(dense_tanh_avx512, AVX512_FMA, 1)
#endif

// No layer of this variant takes the tanh of its inputs itself
static inline __attribute__((always_inline)) int no_tanh_dense(const float* restrict x, int in, const float* restrict w,
                                                               const float* restrict b, int out, float* restrict y) {
  (void)x, (void)in, (void)w, (void)b, (void)out, (void)y;
  return 0;
}

typedef int32_t lanes_i __attribute__((vector_size(L * sizeof(int32_t))));

// The argmax head of every lane at once, as ne__policy_argmax decides it for one (the lowest index
// of the largest value, NaN entries skipped, 0 when all are NaN): y holds out outputs in lanes
static inline __attribute__((always_inline)) void argmax_lanes(const float* y, int out, float* actions) {
  lanes_v best = lanes_load(y);
  lanes_i idx = ~(best == best);  // -1 (no number yet) where NaN, else 0
  for (int k = 1; k < out; k++) {
    lanes_v v = lanes_load(y + (size_t)k * L);
    lanes_i take = (v == v) & ((idx < 0) | (v > best));  // all ones where lane k wins
    best = (lanes_v)(((lanes_i)v & take) | ((lanes_i)best & ~take));
    idx = (k & take) | (idx & ~take);
  }
  lanes_i none = idx < 0;
  lanes_v chosen = __builtin_convertvector(idx & ~none, lanes_v);  // all lanes at once, not lane by lane
  memcpy(actions, &chosen, sizeof chosen);
}

// TANH_DENSE(x, in, w, b, out, y) runs the output layer with the tanh of its inputs, or returns 0
// (then the last hidden layer is activated as the others, the output layer run by DENSE).
#define LANES_VARIANT(name, attr, DENSE, TANH_DENSE)                                                            \
  attr static void name(const ne_policy_spec* spec, const float* lane_params, const float* obs, float* scratch, \
                        float* actions) {                                                                       \
    const float* x = obs;                                                                                       \
    float* hidden = NULL; /* the last layer's outputs (x), writable */                                          \
    const float* p = lane_params;                                                                               \
    size_t half = spec->scratch_floats / 2 * L;                                                                 \
    int last = spec->n_layers - 1;                                                                              \
    for (int l = 0; l <= last; l++) {                                                                           \
      int in = spec->sizes[l], out = spec->sizes[l + 1];                                                        \
      float* y = scratch + (l & 1) * half;                                                                      \
      const float *w = p, *b = p + (size_t)in * (size_t)out * L;                                                \
      if (l != last || !ne__policy_hidden_float_tanh(spec) || l == 0 || !TANH_DENSE(x, in, w, b, out, y)) {     \
        if (l == last && l > 0) ne__policy_activate_simd(spec, hidden, in* L);                                  \
        DENSE(x, in, w, b, out, y);                                                                             \
      }                                                                                                         \
      /* the last hidden layer's tanh waits for the output layer (above) */                                     \
      if (l < last - 1) ne__policy_activate_simd(spec, y, out* L);                                              \
      p += ((size_t)in * (size_t)out + (size_t)out) * L;                                                        \
      x = hidden = y;                                                                                           \
    }                                                                                                           \
    int out = spec->sizes[spec->n_layers];                                                                      \
    if (spec->head == NE_HEAD_ARGMAX) {                                                                         \
      argmax_lanes(x, out, actions);                                                                            \
      return;                                                                                                   \
    }                                                                                                           \
    float row[NE_POLICY_MAX_ACT > 64 ? NE_POLICY_MAX_ACT : 64];                                                 \
    for (int s = 0; s < L; s++) {                                                                               \
      for (int k = 0; k < out; k++) row[k] = x[(size_t)k * L + (size_t)s];                                      \
      ne__policy_head(spec, row, actions + (size_t)s * (size_t)spec->act_dim);                                  \
    }                                                                                                           \
  }

LANES_VARIANT(lanes_base, , dense_separate, no_tanh_dense)
LANES_VARIANT(lanes_base_fma, , dense_fmaf, no_tanh_dense)
#if defined(__x86_64__) && defined(__GNUC__)
LANES_VARIANT(lanes_avx2, AVX2_FMA, dense_separate, no_tanh_dense)
LANES_VARIANT(lanes_avx2_fma, AVX2_FMA, dense_fma8, dense_tanh_avx2_layer)
LANES_VARIANT(lanes_avx512, AVX512_FMA, dense_separate, no_tanh_dense)
LANES_VARIANT(lanes_avx512_fma, AVX512_FMA, dense_fma8, dense_tanh_avx512_layer)
#endif

int ne_policy_lanes_ok(const ne_policy_spec* spec) {
  return spec->kind == NE_POLICY_MLP && spec->sizes[spec->n_layers] <= 64;
}

void ne_policy_forward_lanes(const ne_policy_spec* spec, const float* lane_params, const float* obs, float* scratch,
                             float* actions) {
#if defined(__x86_64__) && defined(__GNUC__)
  int level = ne__simd_level();
  if (level >= NE_SIMD_AVX512) {
    (spec->fma ? lanes_avx512_fma : lanes_avx512)(spec, lane_params, obs, scratch, actions);
    return;
  }
  if (level == NE_SIMD_AVX2) {
    (spec->fma ? lanes_avx2_fma : lanes_avx2)(spec, lane_params, obs, scratch, actions);
    return;
  }
#endif
  (spec->fma ? lanes_base_fma : lanes_base)(spec, lane_params, obs, scratch, actions);
}

void ne_policy_set_lane(const ne_policy_spec* spec, float* lane_params, int lane, const float* params) {
  for (size_t j = 0; j < spec->n_params; j++) lane_params[j * L + (size_t)lane] = params[j];
}

size_t ne_policy_lanes_scratch_floats(const ne_policy_spec* spec) { return spec->scratch_floats * L; }
