// SPDX-License-Identifier: MIT
// What mlp_lanes.c and its vector kernels (mlp_lanes_x86.c) share: the lane vector, the dense
// layer over lanes and the whole forward as macros that each file stamps out with its own target
// attribute and multiply-add, the argmax over lanes, and the kernel table (core/simd.h). Not
// public API; L is the lane count in the two files that include this.
#ifndef NEUROEVO_POLICY_MLP_LANES_INT_H
#define NEUROEVO_POLICY_MLP_LANES_INT_H

#include <math.h>  // fmaf
#include <stdint.h>
#include <string.h>

#include "core/simd.h"
#include "neuroevo/policy.h"
#include "policy/policy_int.h"  // the head, ne__policy_activate_simd

#define L NE_POLICY_LANES

#pragma GCC diagnostic ignored "-Wpsabi"  // the vectors never cross a real call (all inlined)

typedef float lanes_v __attribute__((vector_size(L * sizeof(float))));
typedef float lanes_unaligned __attribute__((vector_size(L * sizeof(float)), aligned(4)));

// The L floats at p (unaligned) as a vector. A macro, like the multiply-adds below: clang rejects
// (and gcc warns about) a 32-byte vector passed or returned by value where AVX is off, inlined or
// not.
#define LANES_LOAD(p) ((lanes_v)(*(const lanes_unaligned*)(p)))

// a = a + x w in every lane, rounded as policy.fma says: twice (LANES_SEPARATE), or once
// (LANES_FMAF: libm's fmaf, exactly rounded wherever it runs; mlp_lanes_x86.c's LANES_FMA8: the
// AVX2 FMA instruction, the same bits). Macros, not functions: an intrinsic needs its target where
// it is written, and a vector argument AVX (LANES_LOAD).
#define LANES_SEPARATE(a, x, w) ((a) = (a) + (x) * (w))
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

// One level's lane forwards by policy.fma (0: separate roundings, 1: fused), each with
// ne_policy_forward_lanes' contract.
typedef struct ne__lanes_table {
  void (*forward[2])(const ne_policy_spec* spec, const float* lane_params, const float* obs, float* scratch,
                     float* actions);
} ne__lanes_table;

// The tables by level (mlp_lanes.c): the portable one, and on x86-64 AVX2 and AVX-512
// (mlp_lanes_x86.c).
extern ne_simd_slot ne__lanes_slot;
#ifdef NE_SIMD_X86
extern const ne__lanes_table ne__lanes_avx2, ne__lanes_avx512;
#endif

#endif
