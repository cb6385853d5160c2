// SPDX-License-Identifier: MIT
// Division by a constant in AVX-512 or AVX2 lanes with the division's bits, faster on a dependency
// chain: CartPole's step chained three divisions, the first and last by its total mass (~23
// cycles a vdivpd zmm, ~13-15 a ymm; three FMA-unit operations here). Not public API; x86-64 only
// (core/simd.h's NE_SIMD_X86).
#ifndef NEUROEVO_CORE_DIV_CONST_H
#define NEUROEVO_CORE_DIV_CONST_H

#include "core/simd.h"  // NE_TARGET_AVX512, NE_TARGET_AVX2

#ifdef NE_SIMD_X86
#include <immintrin.h>

// The lanes where q is proven to be RN(x / c): |x / c - q| < ulp(q) / 2 (ulp(q) / 4 at a power of
// two, whose lower neighbour is nearer: a guard only, the quotient of two doubles never lies in
// that band), checked as |RN(x - q c)| < c ulp(q) / 2. A pass implies the exact inequality: the
// remainder rounds monotonically and the bound c 2^k is exact, for 2^-52 <= c <= 2^52 and q's
// exponent field in 108 .. 2046 (|q| >= 2^-915: the bound stays normal; an overflowing bound
// comes with an infinite remainder). Lanes that fail: x = 0 (the sign of a zero), non-finite or
// extreme x and quotients, and a q that is not the rounded quotient.
NE_TARGET_AVX512 static inline __mmask8 ne__div_const8_exact(__m512d x, __m512d q, double c) {
  const __m512d vc = _mm512_set1_pd(c);
  const __m512i exponent = _mm512_set1_epi64(0x7ff0000000000000ll), fraction = _mm512_set1_epi64(0x000fffffffffffffll);
  __m512i bits = _mm512_castpd_si512(q), e = _mm512_and_si512(bits, exponent);
  __mmask8 power_of_two = _mm512_testn_epi64_mask(bits, fraction);
  __m512i half_ulp = _mm512_sub_epi64(e, _mm512_set1_epi64(53ll << 52));
  half_ulp = _mm512_mask_sub_epi64(half_ulp, power_of_two, half_ulp, _mm512_set1_epi64(1ll << 52));  // a quarter
  __m512d bound = _mm512_mul_pd(vc, _mm512_castsi512_pd(half_ulp));
  __m512d rest = _mm512_abs_pd(_mm512_fnmadd_pd(q, vc, x));
  return _mm512_cmp_pd_mask(rest, bound, _CMP_LT_OQ) &
      _mm512_cmp_epu64_mask(e, _mm512_set1_epi64(108ll << 52), _MM_CMPINT_NLT) &
      _mm512_cmp_epu64_mask(e, exponent, _MM_CMPINT_LT);
}

// ne__div_const8_exact on 4 lanes with AVX2 (no mask registers: all-ones lanes where proven; the
// exponent fields compare as signed 64-bit integers, their sign bit being clear)
NE_TARGET_AVX2 static inline __m256d ne__div_const4_exact(__m256d x, __m256d q, double c) {
  const __m256d vc = _mm256_set1_pd(c);
  const __m256i exponent = _mm256_set1_epi64x(0x7ff0000000000000ll),
                fraction = _mm256_set1_epi64x(0x000fffffffffffffll);
  __m256i bits = _mm256_castpd_si256(q), e = _mm256_and_si256(bits, exponent);
  __m256i power_of_two = _mm256_cmpeq_epi64(_mm256_and_si256(bits, fraction), _mm256_setzero_si256());
  __m256i half_ulp = _mm256_sub_epi64(e, _mm256_set1_epi64x(53ll << 52));
  half_ulp = _mm256_sub_epi64(half_ulp, _mm256_and_si256(power_of_two, _mm256_set1_epi64x(1ll << 52)));  // a quarter
  __m256d bound = _mm256_mul_pd(vc, _mm256_castsi256_pd(half_ulp));
  __m256d rest = _mm256_andnot_pd(_mm256_set1_pd(-0.0), _mm256_fnmadd_pd(q, vc, x));
  __m256i normal =
      _mm256_and_si256(_mm256_cmpgt_epi64(e, _mm256_set1_epi64x(107ll << 52)), _mm256_cmpgt_epi64(exponent, e));
  return _mm256_and_pd(_mm256_cmp_pd(rest, bound, _CMP_LT_OQ), _mm256_castsi256_pd(normal));
}

// For one width: name##_try, q = x r + (x - x r c) r in every lane (r = 1.0 / c as the compiler
// rounds it: RN(1/c)) and in *ok the lanes where EXACT proves it RN(x / c); name, x / c in every
// lane bit for bit: that quotient when every lane passed its check (ALL_OK), else the division of
// the whole vector (rare: see above).
#define NE__DIV_CONST(name, attr, V, OK, SET1, MUL, FMADD, FNMADD, DIV, EXACT, ALL_OK)         \
  attr static inline V name##_try(V x, double c, double r, OK* ok) {                           \
    const V vc = SET1(c), vr = SET1(r);                                                        \
    V q0 = MUL(x, vr);                                                                         \
    V q = FMADD(FNMADD(q0, vc, x), vr, q0);                                                    \
    *ok = EXACT(x, q, c);                                                                      \
    return q;                                                                                  \
  }                                                                                            \
  attr static inline V name(V x, double c, double r) {                                         \
    OK ok;                                                                                     \
    V q = name##_try(x, c, r, &ok);                                                            \
    if (__builtin_expect(!ALL_OK(ok), 0)) return DIV(x, SET1(c)); /* a branch, not a select */ \
    return q;                                                                                  \
  }
#define NE__ALL8(ok) ((ok) == 0xff)
#define NE__ALL4(ok) (_mm256_movemask_pd(ok) == 0xf)
NE__DIV_CONST(ne__div_const8, NE_TARGET_AVX512, __m512d, __mmask8, _mm512_set1_pd, _mm512_mul_pd, _mm512_fmadd_pd,
              _mm512_fnmadd_pd, _mm512_div_pd, ne__div_const8_exact, NE__ALL8)
NE__DIV_CONST(ne__div_const4, NE_TARGET_AVX2, __m256d, __m256d, _mm256_set1_pd, _mm256_mul_pd, _mm256_fmadd_pd,
              _mm256_fnmadd_pd, _mm256_div_pd, ne__div_const4_exact, NE__ALL4)
#endif
#endif
