// SPDX-License-Identifier: MIT
// The lane forwards of x86-64 (mlp_lanes_int.h's table at the AVX2 and AVX-512 levels): the portable
// forward compiled for each level, and with policy.fma the AVX2 FMA instruction for each
// multiply-add plus the last hidden layer and the output layer in one pass (below). mlp_lanes.c's
// bits in every lane (tests/test_simd.c, test_policy).
#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <immintrin.h>

#include "policy/mlp_lanes_int.h"
#include "policy/tanh_simd.h"  // tanh_fma_avx2_vec, tanh_fma_avx512_vec

#define LANES_FMA8(a, x, w) ((a) = (lanes_v)_mm256_fmadd_ps((__m256)(x), (__m256)(w), (__m256)(a)))
LANES_DENSE(dense_fma8, NE_TARGET_AVX2, LANES_FMA8)

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
HIDDEN_OUT_BLOCK(hidden_out_units_avx2, NE_TARGET_AVX2, __m256, 1, _mm256_loadu_ps, _mm256_loadu_ps, _mm256_fmadd_ps,
                 tanh_fma_avx2_vec, UNITS_1)
HIDDEN_OUT_BLOCK(hidden_out_units_avx512, NE_TARGET_AVX512, __m512, 2, _mm512_loadu_ps, BROADCAST_LANES_512,
                 _mm512_fmadd_ps, tanh_fma_avx512_vec, UNITS_2)
HIDDEN_OUT_BLOCK(hidden_out_unit_avx512, NE_TARGET_AVX512, __m256, 1, _mm256_loadu_ps, _mm256_loadu_ps, _mm256_fmadd_ps,
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
HIDDEN_OUT(hidden_out_avx2, NE_TARGET_AVX2, hidden_out_units_avx2, 1, hidden_out_units_avx2)
HIDDEN_OUT(hidden_out_avx512, NE_TARGET_AVX512, hidden_out_units_avx512, 2, hidden_out_unit_avx512)

LANES_VARIANT(lanes_avx2, NE_TARGET_AVX2, dense_separate, no_hidden_out)
LANES_VARIANT(lanes_avx2_fma, NE_TARGET_AVX2, dense_fma8, hidden_out_avx2_layers)
LANES_VARIANT(lanes_avx512, NE_TARGET_AVX512, dense_separate, no_hidden_out)
LANES_VARIANT(lanes_avx512_fma, NE_TARGET_AVX512, dense_fma8, hidden_out_avx512_layers)

const ne__lanes_table ne__lanes_avx2 = {{lanes_avx2, lanes_avx2_fma}};
const ne__lanes_table ne__lanes_avx512 = {{lanes_avx512, lanes_avx512_fma}};
#endif
