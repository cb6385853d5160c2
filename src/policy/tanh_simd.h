// SPDX-License-Identifier: MIT
// The float tanh (detmath.h's ne__tanhf_float_kernel and its fused form) on one AVX2 or AVX-512
// vector, for the MLP kernels of mlp_x86.c and mlp_lanes_x86.c: each lane gets the scalar kernel's
// bits. Not public API; x86-64 only (core/simd.h's NE_SIMD_X86).
#ifndef NEUROEVO_POLICY_TANH_SIMD_H
#define NEUROEVO_POLICY_TANH_SIMD_H

#include "core/simd.h"  // NE_TARGET_AVX2, NE_TARGET_AVX512

#ifdef NE_SIMD_X86
#include <immintrin.h>

#include "core/detmath.h"  // the coefficients and bounds

// ne__tanhf_float_kernel (detmath.h) on one vector with the fewest instructions: its two
// clamps as min/max with the operand order that is the C expression's (MINPS(a, b) = a < b ? a :
// b, so min(1, y) = y > 1 ? 1 : y, and NaN passes through as the second operand; the input's
// +-9.1 clamp equals the kernel's clamp on the magnitude's bits), then its products and sums in its
// order: the same bits (all 2^32 inputs compared once; test_policy samples 1M on every path), ~25
// instructions a vector where gcc made ~34 of the scalar form: 128 values 53 -> 40 ns on AVX-512.
// z's floor (detmath.h) is MAXPS(floor, z): a NaN z passes through as the second operand.
#define TANH_FLOAT_VECTOR(name, attr, V, SET1, MUL, ADD, DIV, MIN, MAX)                               \
  attr static inline __attribute__((always_inline)) V name(V y) {                                     \
    const V p1 = SET1(NE__TANHF_P1), p2 = SET1(NE__TANHF_P2), p3 = SET1(NE__TANHF_P3);                \
    const V p4 = SET1(NE__TANHF_P4), q1 = SET1(NE__TANHF_Q1), q2 = SET1(NE__TANHF_Q2);                \
    const V q3 = SET1(NE__TANHF_Q3), q4 = SET1(NE__TANHF_Q4);                                         \
    const V one = SET1(1.0f), minus_one = SET1(-1.0f), bound = SET1(9.1f), minus_bound = SET1(-9.1f); \
    V x = MIN(bound, MAX(minus_bound, y));                                                            \
    V z = MAX(SET1(NE__TANHF_Z_FLOOR), MUL(x, x)), z2 = MUL(z, z), z4 = MUL(z2, z2);                  \
    V p = ADD(ADD(ADD(one, MUL(p1, z)), MUL(z2, ADD(p2, MUL(p3, z)))), MUL(z4, p4));                  \
    V q = ADD(ADD(ADD(one, MUL(q1, z)), MUL(z2, ADD(q2, MUL(q3, z)))), MUL(z4, q4));                  \
    return MAX(minus_one, MIN(one, DIV(MUL(x, p), q)));                                               \
  }
TANH_FLOAT_VECTOR(tanh_float_avx2_vec, NE_TARGET_AVX2, __m256, _mm256_set1_ps, _mm256_mul_ps, _mm256_add_ps,
                  _mm256_div_ps, _mm256_min_ps, _mm256_max_ps)
TANH_FLOAT_VECTOR(tanh_float_avx512_vec, NE_TARGET_AVX512, __m512, _mm512_set1_ps, _mm512_mul_ps, _mm512_add_ps,
                  _mm512_div_ps, _mm512_min_ps, _mm512_max_ps)

// ne__tanhf_float_fma_kernel (policy.fma) on one vector: its clamps as min/max in the operand order
// above, Horner's fused steps in its order: 15 instructions where the separate form takes 26 (128
// values 15% faster on an Intel Xeon's AVX-512, where the division then bounds it), the same bits
// as the scalar kernel (all 2^32 inputs compared once on AVX2 and AVX-512; test_policy samples 1M
// on every path).
#define TANH_FMA_VECTOR(name, attr, V, SET1, MUL, FMA, DIV, MIN, MAX)                    \
  attr static inline __attribute__((always_inline)) V name(V y) {                        \
    const V p1 = SET1(NE__TANHF_P1), p2 = SET1(NE__TANHF_P2), p3 = SET1(NE__TANHF_P3);   \
    const V p4 = SET1(NE__TANHF_P4), q1 = SET1(NE__TANHF_Q1), q2 = SET1(NE__TANHF_Q2);   \
    const V q3 = SET1(NE__TANHF_Q3), q4 = SET1(NE__TANHF_Q4);                            \
    const V one = SET1(1.0f), minus_one = SET1(-1.0f);                                   \
    const V bound = SET1(NE__TANHF_FMA_BOUND), minus_bound = SET1(-NE__TANHF_FMA_BOUND); \
    V x = MIN(bound, MAX(minus_bound, y)), z = MUL(x, x);                                \
    V p = FMA(FMA(FMA(FMA(p4, z, p3), z, p2), z, p1), z, one);                           \
    V q = FMA(FMA(FMA(FMA(q4, z, q3), z, q2), z, q1), z, one);                           \
    return MAX(minus_one, MIN(one, DIV(MUL(x, p), q)));                                  \
  }
TANH_FMA_VECTOR(tanh_fma_avx2_vec, NE_TARGET_AVX2, __m256, _mm256_set1_ps, _mm256_mul_ps, _mm256_fmadd_ps,
                _mm256_div_ps, _mm256_min_ps, _mm256_max_ps)
TANH_FMA_VECTOR(tanh_fma_avx512_vec, NE_TARGET_AVX512, __m512, _mm512_set1_ps, _mm512_mul_ps, _mm512_fmadd_ps,
                _mm512_div_ps, _mm512_min_ps, _mm512_max_ps)

#endif
#endif
