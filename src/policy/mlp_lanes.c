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
typedef float lanes_unaligned __attribute__((vector_size(L * sizeof(float)), aligned(4)));

// The L floats at p (unaligned) as a vector. A macro, like the multiply-adds below: clang rejects
// (and gcc warns about) a 32-byte vector passed or returned by value where AVX is off, inlined or
// not.
#define LANES_LOAD(p) ((lanes_v)(*(const lanes_unaligned*)(p)))

// a = a + x w in every lane, rounded as policy.fma says: twice (LANES_SEPARATE), or once
// (LANES_FMAF: libm's fmaf, exactly rounded wherever it runs; LANES_FMA8: the AVX2 FMA
// instruction, the same bits). Macros, not functions: an intrinsic needs its target where it is
// written, and a vector argument AVX (LANES_LOAD).
#define LANES_SEPARATE(a, x, w) ((a) = (a) + (x) * (w))
#define LANES_FMA8(a, x, w) ((a) = (lanes_v)_mm256_fmadd_ps((__m256)(x), (__m256)(w), (__m256)(a)))
#define LANES_FMAF(a, x, w)                                                \
  do {                                                                     \
    lanes_v x_ = (x), w_ = (w), r_;                                        \
    for (int s_ = 0; s_ < L; s_++) r_[s_] = fmaf(x_[s_], w_[s_], (a)[s_]); \
    (a) = r_;                                                              \
  } while (0)

// name##_block: outputs o .. o + NA of one layer (NA a constant after inlining: NA accumulators in
// registers across the input loop, NA independent addition chains); name: y (out lanes) = b + x W
// for one layer in lanes, W (in, out) input-major, each multiply-add as MADD.
#define LANES_DENSE(name, attr, MADD)                                                                                  \
  attr static inline __attribute__((always_inline)) void name##_block(                                                 \
      const float* restrict x, int in, const float* restrict w, const float* restrict b, int out, int o,               \
      float* restrict y, const int NA) {                                                                               \
    lanes_v acc[8];                                                                                                    \
    for (int a = 0; a < NA; a++) acc[a] = LANES_LOAD(b + (size_t)(o + a) * L);                                         \
    for (int i = 0; i < in; i++) {                                                                                     \
      lanes_v xi = LANES_LOAD(x + (size_t)i * L);                                                                      \
      const float* wi = w + ((size_t)i * (size_t)out + (size_t)o) * L;                                                 \
      for (int a = 0; a < NA; a++) MADD(acc[a], xi, LANES_LOAD(wi + (size_t)a * L));                                   \
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
// The last hidden layer (float tanh, fused form) and the output layer (at most 8 outputs) in one
// pass that keeps the hidden units in registers: each block of units is summed from the inputs x,
// its tanh taken, and fed to the NA output chains (a constant after inlining) in unit order, then
// the next block. The chains' FMA latency overlaps the tanh's divisions, and no hidden value goes
// through memory (a separate layer had stored them as 8-lane vectors that the tanh reloaded 16 at
// a time: a store-forwarding stall each). UNIT is the hidden vector: on AVX-512 a zmm of two units'
// 8 lanes (units u, u+1 are 16 consecutive floats of the biases and of each input's weights; x_i
// broadcast to both halves), on AVX2 a ymm of one unit. 8 lanes of CartPole's 4-16-2 on an Intel
// Xeon: 82 -> 61 ns a forward on AVX-512 (with argmax_lanes' two compares), 93 -> 76 on AVX2. Each
// unit gets dense_fma8's sums and the scalar tanh kernel's bits, each output dense_fma8's chain
// (b, then unit 0, 1, ... in order).
#define UNITS_1(t, w2, NA, acc) \
  for (int a = 0; a < (NA); a++) LANES_FMA8((acc)[a], (lanes_v)(t), LANES_LOAD((w2) + (size_t)a * L))
#define UNITS_2(t, w2, NA, acc)                                                                                  \
  do {                                                                                                           \
    lanes_v lo_ = (lanes_v)_mm512_castps512_ps256(t), hi_ = (lanes_v)_mm512_extractf32x8_ps(t, 1);               \
    for (int a = 0; a < (NA); a++) LANES_FMA8((acc)[a], lo_, LANES_LOAD((w2) + (size_t)a * L));                  \
    for (int a = 0; a < (NA); a++) LANES_FMA8((acc)[a], hi_, LANES_LOAD((w2) + ((size_t)(NA) + (size_t)a) * L)); \
  } while (0)
// name: units u .. u + NV * PER (NV <= 8 unit vectors of PER units each, constants after inlining)
#define HIDDEN_OUT_BLOCK(name, attr, V, PER, LOAD, BROADCAST, FMA, TANH, FEED)                                     \
  attr static inline __attribute__((always_inline)) void name(                                                     \
      const float* restrict x, int in, const float* restrict w1, const float* restrict b1, int units,              \
      const float* restrict w2, int u, const int NV, const int NA, lanes_v* restrict acc) {                        \
    V h[8];                                                                                                        \
    _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) h[v] = LOAD(b1 + (size_t)(u + v * PER) * L);              \
    for (int i = 0; i < in; i++) {                                                                                 \
      V xi = BROADCAST(x + (size_t)i * L);                                                                         \
      const float* wi = w1 + ((size_t)i * (size_t)units + (size_t)u) * L;                                          \
      _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) h[v] = FMA(xi, LOAD(wi + (size_t)(v * PER) * L), h[v]); \
    }                                                                                                              \
    _Pragma("GCC unroll 8") /* h stays in registers */                                                             \
        for (int v = 0; v < NV; v++) FEED(TANH(h[v]), w2 + (size_t)(u + v * PER) * (size_t)NA * L, NA, acc);       \
  }
#define BROADCAST_LANES_512(p) _mm512_broadcast_f32x8(_mm256_loadu_ps(p))
HIDDEN_OUT_BLOCK(hidden_out_units_avx2, AVX2_FMA, __m256, 1, _mm256_loadu_ps, _mm256_loadu_ps, _mm256_fmadd_ps,
                 tanh_fma_avx2_vec, UNITS_1)
HIDDEN_OUT_BLOCK(hidden_out_units_avx512, AVX512_FMA, __m512, 2, _mm512_loadu_ps, BROADCAST_LANES_512, _mm512_fmadd_ps,
                 tanh_fma_avx512_vec, UNITS_2)
HIDDEN_OUT_BLOCK(hidden_out_unit_avx512, AVX512_FMA, __m256, 1, _mm256_loadu_ps, _mm256_loadu_ps, _mm256_fmadd_ps,
                 tanh_fma_avx2_vec, UNITS_1)

// name: the two layers for NA outputs: blocks of 8 unit vectors, the 1-7 left in one block (a
// switch makes their count a constant), then (AVX-512, ODD) an odd last unit as a ymm.
#define HIDDEN_OUT(name, attr, BLOCK, PER, ODD)                                                          \
  attr static inline __attribute__((always_inline)) void name(                                           \
      const float* restrict x, int in, const float* restrict w1, const float* restrict b1, int units,    \
      const float* restrict w2, const float* restrict b2, const int NA, float* restrict y) {             \
    lanes_v acc[8];                                                                                      \
    for (int a = 0; a < NA; a++) acc[a] = LANES_LOAD(b2 + (size_t)a * L);                                \
    int u = 0;                                                                                           \
    for (; u + 8 * PER <= units; u += 8 * PER) BLOCK(x, in, w1, b1, units, w2, u, 8, NA, acc);           \
    switch ((units - u) / PER) {                                                                         \
      case 7: BLOCK(x, in, w1, b1, units, w2, u, 7, NA, acc); break;                                     \
      case 6: BLOCK(x, in, w1, b1, units, w2, u, 6, NA, acc); break;                                     \
      case 5: BLOCK(x, in, w1, b1, units, w2, u, 5, NA, acc); break;                                     \
      case 4: BLOCK(x, in, w1, b1, units, w2, u, 4, NA, acc); break;                                     \
      case 3: BLOCK(x, in, w1, b1, units, w2, u, 3, NA, acc); break;                                     \
      case 2: BLOCK(x, in, w1, b1, units, w2, u, 2, NA, acc); break;                                     \
      case 1: BLOCK(x, in, w1, b1, units, w2, u, 1, NA, acc); break;                                     \
      default: break;                                                                                    \
    }                                                                                                    \
    u += (units - u) / PER * PER;                                                                        \
    if (u < units) ODD(x, in, w1, b1, units, w2, u, 1, NA, acc);                                         \
    for (int a = 0; a < NA; a++) memcpy(y + (size_t)a * L, &acc[a], sizeof acc[a]);                      \
  }                                                                                                      \
  /* the layers whose weights start at p (x: the last hidden layer's inputs) into y; returns 0 where */  \
  /* the output layer has more than 8 outputs (the caller runs the layers one by one)               */   \
  attr static inline __attribute__((always_inline)) int name##_layers(                                   \
      const float* restrict x, int in, int units, int out, const float* restrict p, float* restrict y) { \
    const float *w1 = p, *b1 = w1 + (size_t)in * (size_t)units * L, *w2 = b1 + (size_t)units * L;        \
    const float* b2 = w2 + (size_t)units * (size_t)out * L;                                              \
    switch (out) {                                                                                       \
      case 1: name(x, in, w1, b1, units, w2, b2, 1, y); return 1;                                        \
      case 2: name(x, in, w1, b1, units, w2, b2, 2, y); return 1;                                        \
      case 3: name(x, in, w1, b1, units, w2, b2, 3, y); return 1;                                        \
      case 4: name(x, in, w1, b1, units, w2, b2, 4, y); return 1;                                        \
      case 5: name(x, in, w1, b1, units, w2, b2, 5, y); return 1;                                        \
      case 6: name(x, in, w1, b1, units, w2, b2, 6, y); return 1;                                        \
      case 7: name(x, in, w1, b1, units, w2, b2, 7, y); return 1;                                        \
      case 8: name(x, in, w1, b1, units, w2, b2, 8, y); return 1;                                        \
      default: return 0;                                                                                 \
    }                                                                                                    \
  }
HIDDEN_OUT(hidden_out_avx2, AVX2_FMA, hidden_out_units_avx2, 1, hidden_out_units_avx2)
HIDDEN_OUT(hidden_out_avx512, AVX512_FMA, hidden_out_units_avx512, 2, hidden_out_unit_avx512)
#endif

// This variant runs the layers one by one
static inline __attribute__((always_inline)) int no_hidden_out(const float* restrict x, int in, int units, int out,
                                                               const float* restrict p, float* restrict y) {
  (void)x, (void)in, (void)units, (void)out, (void)p, (void)y;
  return 0;
}

typedef int32_t lanes_i __attribute__((vector_size(L * sizeof(int32_t))));

// The argmax head of every lane at once, as ne__policy_argmax decides it for one (the lowest index
// of the largest value, NaN entries skipped, 0 when all are NaN): y holds out outputs in lanes
static inline __attribute__((always_inline)) void argmax_lanes(const float* y, int out, float* actions) {
  if (out == 2) {  // ne__policy_argmax's two compares: 1 where y1 is a number and y0 is not >= y1
    lanes_v y0 = LANES_LOAD(y), y1 = LANES_LOAD(y + L), one = (lanes_v){0} + 1.0f;
    lanes_i second = (y1 == y1) & ~(y0 >= y1);
    lanes_v chosen = (lanes_v)(second & (lanes_i)one);
    memcpy(actions, &chosen, sizeof chosen);
    return;
  }
  lanes_v best = LANES_LOAD(y);
  lanes_i idx = ~(best == best);  // -1 (no number yet) where NaN, else 0
  for (int k = 1; k < out; k++) {
    lanes_v v = LANES_LOAD(y + (size_t)k * L);
    lanes_i take = (v == v) & ((idx < 0) | (v > best));  // all ones where lane k wins
    best = (lanes_v)(((lanes_i)v & take) | ((lanes_i)best & ~take));
    idx = (k & take) | (idx & ~take);
  }
  lanes_i none = idx < 0;
  lanes_v chosen = __builtin_convertvector(idx & ~none, lanes_v);  // all lanes at once, not lane by lane
  memcpy(actions, &chosen, sizeof chosen);
}

// LAST_TWO(x, in, units, out, p, y) runs the last hidden layer (float tanh) and the output layer
// in one pass (hidden_out_*_layers), or returns 0 (then each layer runs by DENSE, each hidden one
// activated).
#define LANES_VARIANT(name, attr, DENSE, LAST_TWO)                                                              \
  attr static void name(const ne_policy_spec* spec, const float* lane_params, const float* obs, float* scratch, \
                        float* actions) {                                                                       \
    const float* x = obs;                                                                                       \
    const float* p = lane_params;                                                                               \
    size_t half = spec->scratch_floats / 2 * L;                                                                 \
    int last = spec->n_layers - 1;                                                                              \
    int fuse = last > 0 && ne__policy_hidden_float_tanh(spec);                                                  \
    for (int l = 0; l <= last; l++) {                                                                           \
      int in = spec->sizes[l], out = spec->sizes[l + 1];                                                        \
      float* y = scratch + (l & 1) * half;                                                                      \
      if (fuse && l == last - 1 && LAST_TWO(x, in, out, spec->sizes[l + 2], p, y)) {                            \
        x = y;                                                                                                  \
        break;                                                                                                  \
      }                                                                                                         \
      DENSE(x, in, p, p + (size_t)in * (size_t)out * L, out, y);                                                \
      if (l < last) ne__policy_activate_simd(spec, y, out* L);                                                  \
      p += ((size_t)in * (size_t)out + (size_t)out) * L;                                                        \
      x = y;                                                                                                    \
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

LANES_VARIANT(lanes_base, , dense_separate, no_hidden_out)
LANES_VARIANT(lanes_base_fma, , dense_fmaf, no_hidden_out)
#if defined(__x86_64__) && defined(__GNUC__)
LANES_VARIANT(lanes_avx2, AVX2_FMA, dense_separate, no_hidden_out)
LANES_VARIANT(lanes_avx2_fma, AVX2_FMA, dense_fma8, hidden_out_avx2_layers)
LANES_VARIANT(lanes_avx512, AVX512_FMA, dense_separate, no_hidden_out)
LANES_VARIANT(lanes_avx512_fma, AVX512_FMA, dense_fma8, hidden_out_avx512_layers)
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
