// SPDX-License-Identifier: MIT
// Division by a constant in AVX-512 lanes with the division's bits, faster on a dependency chain:
// CartPole's step waits on three chained divisions, two of them by its total mass (~23 cycles a
// vdivpd; three FMA-unit operations here). Not public API; x86-64 with GCC-compatible compilers.
#ifndef NEUROEVO_CORE_DIV_CONST_H
#define NEUROEVO_CORE_DIV_CONST_H

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define NE_DIV_CONST_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,fma")))

// The lanes where q is proven to be RN(x / c): |x / c - q| < ulp(q) / 2 (ulp(q) / 4 at a power of
// two, whose lower neighbour is nearer: a guard only, the quotient of two doubles never lies in that
// band, so no test can reach it), checked as |RN(x - q c)| < c ulp(q) / 2 (a pass implies
// the exact inequality: the remainder rounds monotonically and the bound is representable) with q
// normal and room for the bound (exponent field 55 .. 2046). c must be normal, with c * 2^-969
// normal too. Lanes that fail: x = 0 (the sign of a zero), non-finite or extreme x, and a q that
// is not the rounded quotient.
NE_DIV_CONST_AVX512 static inline __mmask8 ne__div_const8_exact(__m512d x, __m512d q, double c) {
  const __m512d vc = _mm512_set1_pd(c);
  const __m512i exponent = _mm512_set1_epi64(0x7ff0000000000000ll), fraction = _mm512_set1_epi64(0x000fffffffffffffll);
  __m512i bits = _mm512_castpd_si512(q), e = _mm512_and_si512(bits, exponent);
  __mmask8 power_of_two = _mm512_testn_epi64_mask(bits, fraction);
  __m512i half_ulp = _mm512_sub_epi64(e, _mm512_set1_epi64(53ll << 52));
  half_ulp = _mm512_mask_sub_epi64(half_ulp, power_of_two, half_ulp, _mm512_set1_epi64(1ll << 52));  // a quarter
  __m512d bound = _mm512_mul_pd(vc, _mm512_castsi512_pd(half_ulp));
  __m512d rest = _mm512_abs_pd(_mm512_fnmadd_pd(q, vc, x));
  return _mm512_cmp_pd_mask(rest, bound, _CMP_LT_OQ) &
      _mm512_cmp_epu64_mask(e, _mm512_set1_epi64(55ll << 52), _MM_CMPINT_NLT) &
      _mm512_cmp_epu64_mask(e, exponent, _MM_CMPINT_LT);
}

// q = x r + (x - x r c) r in every lane (r = 1.0 / c as the compiler rounds it: RN(1/c)), and in
// *ok the lanes where ne__div_const8_exact proves it RN(x / c)
NE_DIV_CONST_AVX512 static inline __m512d ne__div_const8_try(__m512d x, double c, double r, __mmask8* ok) {
  const __m512d vc = _mm512_set1_pd(c), vr = _mm512_set1_pd(r);
  __m512d q0 = _mm512_mul_pd(x, vr);
  __m512d q = _mm512_fmadd_pd(_mm512_fnmadd_pd(q0, vc, x), vr, q0);
  *ok = ne__div_const8_exact(x, q, c);
  return q;
}

// x / c in every lane, bit for bit (r = 1.0 / c): ne__div_const8_try's quotient when every lane
// passed its check, else the division of the whole vector (rare: see above).
NE_DIV_CONST_AVX512 static inline __m512d ne__div_const8(__m512d x, double c, double r) {
  __mmask8 ok;
  __m512d q = ne__div_const8_try(x, c, r, &ok);
  if (__builtin_expect(ok != 0xff, 0)) return _mm512_div_pd(x, _mm512_set1_pd(c));
  return q;
}
#endif
#endif
