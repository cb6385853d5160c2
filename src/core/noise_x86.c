// SPDX-License-Identifier: MIT
// The noise kernels of x86-64 (noise_int.h's table, one per level): the baseline's SSE2 block
// (Philox on four counters a vector, packed square roots), the AVX2 and AVX-512 blocks (8 and 16
// counters a vector, two groups interleaved; the log and sincos stages vectorized at that width),
// and the shared table's scaled slices at each width. Integer work for Philox and the uniforms,
// then the portable stages' operations in their order with no contraction: noise.c's bits on
// every path (tests/test_simd.c compares each entry with the portable one).
#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <immintrin.h>  // SSE2, AVX2 and AVX-512 intrinsics (per function through simd.h's targets)
#include <string.h>     // memcpy

#include "core/noise_int.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// ---- SSE2 (the x86-64 baseline) ----

// Stage 1 of noise.c (Philox words of counters pair0 + j turned into the uniforms u1 and u2) four
// counters per vector, pmuludq on the even and odd lanes for the 32x32->64 products. Integer
// operations only, so bit-identical to the portable path.
static inline void mulhilo_sse2(__m128i x, __m128i m, __m128i* hi, __m128i* lo) {
  const __m128i low_mask = _mm_set_epi32(0, -1, 0, -1);
  __m128i even = _mm_mul_epu32(x, m);                     // 64-bit products of lanes 0 and 2
  __m128i odd = _mm_mul_epu32(_mm_srli_epi64(x, 32), m);  // lanes 1 and 3
  *hi = _mm_or_si128(_mm_srli_epi64(even, 32), _mm_andnot_si128(low_mask, odd));
  *lo = _mm_or_si128(_mm_and_si128(even, low_mask), _mm_slli_epi64(odd, 32));
}

// One Philox round on four lanes held in x[0..3].
static inline void philox_round_sse2(__m128i x[4], __m128i k0, __m128i k1) {
  const __m128i m0 = _mm_set1_epi32((int)NE__PHILOX_M0), m1 = _mm_set1_epi32((int)NE__PHILOX_M1);
  __m128i hi0, lo0, hi1, lo1;
  mulhilo_sse2(x[0], m0, &hi0, &lo0);
  mulhilo_sse2(x[2], m1, &hi1, &lo1);
  x[0] = _mm_xor_si128(_mm_xor_si128(hi1, x[1]), k0);
  x[2] = _mm_xor_si128(_mm_xor_si128(hi0, x[3]), k1);
  x[1] = lo1;
  x[3] = lo0;
}

// Counters c .. c+3 into lane words x[0] (low halves) and x[1] (high halves); x[2] = x[3] = 0.
static inline void philox_load_sse2(uint64_t c, __m128i x[4]) {
  x[0] = _mm_set_epi32((int)(uint32_t)(c + 3), (int)(uint32_t)(c + 2), (int)(uint32_t)(c + 1), (int)(uint32_t)c);
  x[1] = _mm_set_epi32((int)((c + 3) >> 32), (int)((c + 2) >> 32), (int)((c + 1) >> 32), (int)(c >> 32));
  x[2] = x[3] = _mm_setzero_si128();
}

// u1 = 2 - [1, 2) and t = [1, 2) - 1 for the four lanes of x, stored at v[0..4) and t[0..4).
static inline void philox_store_uniforms_sse2(const __m128i x[4], double* v, double* t) {
  const __m128i one = _mm_set1_epi64x(0x3ff0000000000000ll);
  const __m128d two = _mm_set1_pd(2.0), onep = _mm_set1_pd(1.0);
  // (x1 << 32 | x0) >> 12 is the 52-bit mantissa of u1 in each lane; likewise (x3, x2) for t
  __m128i u1a = _mm_or_si128(_mm_srli_epi64(_mm_unpacklo_epi32(x[0], x[1]), 12), one);
  __m128i u1b = _mm_or_si128(_mm_srli_epi64(_mm_unpackhi_epi32(x[0], x[1]), 12), one);
  __m128i u2a = _mm_or_si128(_mm_srli_epi64(_mm_unpacklo_epi32(x[2], x[3]), 12), one);
  __m128i u2b = _mm_or_si128(_mm_srli_epi64(_mm_unpackhi_epi32(x[2], x[3]), 12), one);
  _mm_storeu_pd(v, _mm_sub_pd(two, _mm_castsi128_pd(u1a)));
  _mm_storeu_pd(v + 2, _mm_sub_pd(two, _mm_castsi128_pd(u1b)));
  _mm_storeu_pd(t, _mm_sub_pd(_mm_castsi128_pd(u2a), onep));
  _mm_storeu_pd(t + 2, _mm_sub_pd(_mm_castsi128_pd(u2b), onep));
}

static void block_uniforms_sse2(uint64_t seed, uint64_t pair0, ne__noise_block* b) {
  // four groups round by round: a round is a long dependency chain, interleaving hides it
  for (int h = 0; h < NE__NOISE_BLOCK_PAIRS; h += 16) {
    __m128i x[4][4];
    for (int g = 0; g < 4; g++) philox_load_sse2(pair0 + (uint64_t)(h + 4 * g), x[g]);
    for (uint32_t r = 0; r < 10; r++) {
      __m128i k0 = _mm_set1_epi32((int)((uint32_t)seed + r * NE__PHILOX_W0));
      __m128i k1 = _mm_set1_epi32((int)((uint32_t)(seed >> 32) + r * NE__PHILOX_W1));
      for (int g = 0; g < 4; g++) philox_round_sse2(x[g], k0, k1);
    }
    for (int g = 0; g < 4; g++) philox_store_uniforms_sse2(x[g], b->v + h + 4 * g, b->t + h + 4 * g);
  }
}

// The baseline block: the SSE2 uniforms, the log stage, packed square roots (no errno branch), the
// polar stage.
static void block_generate_sse2(uint64_t seed, uint64_t pair0, ne__noise_block* b) {
  block_uniforms_sse2(seed, pair0, b);
  ne__noise_block_log(b);
  for (int j = 0; j < NE__NOISE_BLOCK_PAIRS; j += 2) _mm_storeu_pd(b->v + j, _mm_sqrt_pd(_mm_loadu_pd(b->v + j)));
  ne__noise_block_polar(b);
}

// ---- AVX2: eight counters per vector, two groups of them interleaved ----

// hi and lo 32 bits of the products x * m, lane by lane (vpmuludq on the even and odd lanes).
NE_TARGET_AVX2 ALWAYS_INLINE void mulhilo_avx2(__m256i x, __m256i m, __m256i* hi, __m256i* lo) {
  const __m256i low_mask = _mm256_set1_epi64x(0xffffffffll);
  __m256i even = _mm256_mul_epu32(x, m), odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
  *hi = _mm256_or_si256(_mm256_srli_epi64(even, 32), _mm256_andnot_si256(low_mask, odd));
  *lo = _mm256_or_si256(_mm256_and_si256(even, low_mask), _mm256_slli_epi64(odd, 32));
}

NE_TARGET_AVX2 ALWAYS_INLINE void philox_round_avx2(__m256i x[4], __m256i k0, __m256i k1) {
  const __m256i m0 = _mm256_set1_epi32((int)NE__PHILOX_M0), m1 = _mm256_set1_epi32((int)NE__PHILOX_M1);
  __m256i hi0, lo0, hi1, lo1;
  mulhilo_avx2(x[0], m0, &hi0, &lo0);
  mulhilo_avx2(x[2], m1, &hi1, &lo1);
  x[0] = _mm256_xor_si256(_mm256_xor_si256(hi1, x[1]), k0);
  x[2] = _mm256_xor_si256(_mm256_xor_si256(hi0, x[3]), k1);
  x[1] = lo1;
  x[3] = lo0;
}

// words (lo, hi) of eight lanes -> the four 64-bit values hi << 32 | lo of lanes 4h .. 4h+3
NE_TARGET_AVX2 ALWAYS_INLINE __m256i join_avx2(__m256i lo, __m256i hi, int h) {
  __m128i l = h ? _mm256_extracti128_si256(lo, 1) : _mm256_castsi256_si128(lo);
  __m128i u = h ? _mm256_extracti128_si256(hi, 1) : _mm256_castsi256_si128(hi);
  return _mm256_or_si256(_mm256_cvtepu32_epi64(l), _mm256_slli_epi64(_mm256_cvtepu32_epi64(u), 32));
}

// u1 = 2 - [1, 2) and t = [1, 2) - 1 of eight lanes, stored at v[0..8) and t[0..8).
NE_TARGET_AVX2 ALWAYS_INLINE void store_uniforms_avx2(const __m256i x[4], double* v, double* t) {
  const __m256i one = _mm256_set1_epi64x(0x3ff0000000000000ll);
  const __m256d two = _mm256_set1_pd(2.0), onep = _mm256_set1_pd(1.0);
  for (int h = 0; h < 2; h++) {
    __m256i u1 = _mm256_or_si256(_mm256_srli_epi64(join_avx2(x[0], x[1], h), 12), one);
    __m256i u2 = _mm256_or_si256(_mm256_srli_epi64(join_avx2(x[2], x[3], h), 12), one);
    _mm256_storeu_pd(v + 4 * h, _mm256_sub_pd(two, _mm256_castsi256_pd(u1)));
    _mm256_storeu_pd(t + 4 * h, _mm256_sub_pd(_mm256_castsi256_pd(u2), onep));
  }
}

NE_TARGET_AVX2 static void block_generate_avx2(uint64_t seed, uint64_t pair0, ne__noise_block* b) {
  for (int h = 0; h < NE__NOISE_BLOCK_PAIRS; h += 16) {
    __m256i x[2][4];
    for (int g = 0; g < 2; g++) {
      uint64_t c = pair0 + (uint64_t)(h + 8 * g);
      __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
      x[g][0] = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)c), lanes);
      // the high word carries where the low word wrapped: lo + j < lo (unsigned)
      __m256i wrapped =
          _mm256_cmpgt_epi32(_mm256_xor_si256(_mm256_set1_epi32((int)(uint32_t)c), _mm256_set1_epi32(INT32_MIN)),
                             _mm256_xor_si256(x[g][0], _mm256_set1_epi32(INT32_MIN)));
      x[g][1] = _mm256_sub_epi32(_mm256_set1_epi32((int)(uint32_t)(c >> 32)), wrapped);
      x[g][2] = x[g][3] = _mm256_setzero_si256();
    }
    for (uint32_t r = 0; r < 10; r++) {
      __m256i k0 = _mm256_set1_epi32((int)((uint32_t)seed + r * NE__PHILOX_W0));
      __m256i k1 = _mm256_set1_epi32((int)((uint32_t)(seed >> 32) + r * NE__PHILOX_W1));
      for (int g = 0; g < 2; g++) philox_round_avx2(x[g], k0, k1);
    }
    for (int g = 0; g < 2; g++) store_uniforms_avx2(x[g], b->v + h + 8 * g, b->t + h + 8 * g);
  }
  ne__noise_block_log(b);
  for (int j = 0; j < NE__NOISE_BLOCK_PAIRS; j += 4)
    _mm256_storeu_pd(b->v + j, _mm256_sqrt_pd(_mm256_loadu_pd(b->v + j)));
  ne__noise_block_polar(b);
}

// ---- AVX-512: sixteen counters per vector, two groups interleaved ----

NE_TARGET_AVX512 ALWAYS_INLINE void mulhilo_avx512(__m512i x, __m512i m, __m512i* hi, __m512i* lo) {
  const __m512i low_mask = _mm512_set1_epi64(0xffffffffll);
  __m512i even = _mm512_mul_epu32(x, m), odd = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), m);
  *hi = _mm512_or_si512(_mm512_srli_epi64(even, 32), _mm512_andnot_si512(low_mask, odd));
  *lo = _mm512_or_si512(_mm512_and_si512(even, low_mask), _mm512_slli_epi64(odd, 32));
}

NE_TARGET_AVX512 ALWAYS_INLINE void philox_round_avx512(__m512i x[4], __m512i k0, __m512i k1) {
  const __m512i m0 = _mm512_set1_epi32((int)NE__PHILOX_M0), m1 = _mm512_set1_epi32((int)NE__PHILOX_M1);
  __m512i hi0, lo0, hi1, lo1;
  mulhilo_avx512(x[0], m0, &hi0, &lo0);
  mulhilo_avx512(x[2], m1, &hi1, &lo1);
  x[0] = _mm512_xor_si512(_mm512_xor_si512(hi1, x[1]), k0);
  x[2] = _mm512_xor_si512(_mm512_xor_si512(hi0, x[3]), k1);
  x[1] = lo1;
  x[3] = lo0;
}

// words (lo, hi) of sixteen lanes -> the eight 64-bit values hi << 32 | lo of lanes 8h .. 8h+7
NE_TARGET_AVX512 ALWAYS_INLINE __m512i join_avx512(__m512i lo, __m512i hi, int h) {
  __m256i l = h ? _mm512_extracti64x4_epi64(lo, 1) : _mm512_castsi512_si256(lo);
  __m256i u = h ? _mm512_extracti64x4_epi64(hi, 1) : _mm512_castsi512_si256(hi);
  return _mm512_or_si512(_mm512_cvtepu32_epi64(l), _mm512_slli_epi64(_mm512_cvtepu32_epi64(u), 32));
}

NE_TARGET_AVX512 ALWAYS_INLINE void store_uniforms_avx512(const __m512i x[4], double* v, double* t) {
  const __m512i one = _mm512_set1_epi64(0x3ff0000000000000ll);
  const __m512d two = _mm512_set1_pd(2.0), onep = _mm512_set1_pd(1.0);
  for (int h = 0; h < 2; h++) {
    __m512i u1 = _mm512_or_si512(_mm512_srli_epi64(join_avx512(x[0], x[1], h), 12), one);
    __m512i u2 = _mm512_or_si512(_mm512_srli_epi64(join_avx512(x[2], x[3], h), 12), one);
    _mm512_storeu_pd(v + 8 * h, _mm512_sub_pd(two, _mm512_castsi512_pd(u1)));
    _mm512_storeu_pd(t + 8 * h, _mm512_sub_pd(_mm512_castsi512_pd(u2), onep));
  }
}

NE_TARGET_AVX512 static void block_generate_avx512(uint64_t seed, uint64_t pair0, ne__noise_block* b) {
  __m512i x[2][4];
  for (int g = 0; g < 2; g++) {
    uint64_t c = pair0 + (uint64_t)(16 * g);
    __m512i lo = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)c),
                                  _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    // the high word carries where the low word wrapped: lo + j < lo (unsigned)
    __mmask16 wrapped = _mm512_cmplt_epu32_mask(lo, _mm512_set1_epi32((int)(uint32_t)c));
    x[g][0] = lo;
    x[g][1] = _mm512_mask_add_epi32(_mm512_set1_epi32((int)(uint32_t)(c >> 32)), wrapped,
                                    _mm512_set1_epi32((int)(uint32_t)(c >> 32)), _mm512_set1_epi32(1));
    x[g][2] = x[g][3] = _mm512_setzero_si512();
  }
  for (uint32_t r = 0; r < 10; r++) {
    __m512i k0 = _mm512_set1_epi32((int)((uint32_t)seed + r * NE__PHILOX_W0));
    __m512i k1 = _mm512_set1_epi32((int)((uint32_t)(seed >> 32) + r * NE__PHILOX_W1));
    for (int g = 0; g < 2; g++) philox_round_avx512(x[g], k0, k1);
  }
  for (int g = 0; g < 2; g++) store_uniforms_avx512(x[g], b->v + 16 * g, b->t + 16 * g);
  ne__noise_block_log(b);
  for (int j = 0; j < NE__NOISE_BLOCK_PAIRS; j += 8)
    _mm512_storeu_pd(b->v + j, _mm512_sqrt_pd(_mm512_loadu_pd(b->v + j)));
  ne__noise_block_polar(b);
}

// The shared table's slices at vector width VL (explicit vectors: out may alias base exactly, which
// rules out restrict, and gcc -O2 does not version loops for aliasing): ne__noise_scaled's product
// rounded to float and add per element, so the same bits.
#define SCALED_VARIANT(name, attr, VL)                                                         \
  typedef float name##_v __attribute__((vector_size(VL * 4)));                                 \
  attr static void name(float* out, const float* base, const float* z, size_t n, float coef) { \
    size_t i = 0;                                                                              \
    name##_v c = coef + (name##_v){0};                                                         \
    for (; i + VL <= n; i += VL) {                                                             \
      name##_v b, e;                                                                           \
      memcpy(&b, base + i, sizeof b);                                                          \
      memcpy(&e, z + i, sizeof e);                                                             \
      b += c * e;                                                                              \
      memcpy(out + i, &b, sizeof b);                                                           \
    }                                                                                          \
    for (; i < n; i++) out[i] = base[i] + coef * z[i];                                         \
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // the vectors never cross a real call
SCALED_VARIANT(scaled_avx2, NE_TARGET_AVX2, 8)
SCALED_VARIANT(scaled_avx512, NE_TARGET_AVX512, 16)
#pragma GCC diagnostic pop

const ne__noise_kernels ne__noise_sse2 = {block_generate_sse2, ne__noise_scaled};
const ne__noise_kernels ne__noise_avx2 = {block_generate_avx2, scaled_avx2};
const ne__noise_kernels ne__noise_avx512 = {block_generate_avx512, scaled_avx512};
#endif
