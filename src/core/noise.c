// SPDX-License-Identifier: MIT
// Counter-based Gaussian noise ε(seed) and the shared noise table (noise.h), plus ne_rng_normal.
// Philox4x32-10 (Salmon et al. 2011) keyed by the 64-bit seed turns pair index k into 128 bits;
// Box–Muller with detmath's log/sin/cos turns them into outputs 2k (r cos) and 2k+1 (r sin). Every
// value depends only on (seed, index), so any split of a range gives the same numbers.
//
// Workload: GA mutations and ES perturbations of 10^3..10^7 floats, millions of times per run. Each
// block of BLOCK_PAIRS counters goes through stages over small stack arrays: Philox (intrinsics,
// since gcc cannot vectorize its 32x32->64 products), then log, sqrt and sin/cos as fixed-length
// lane loops that gcc -O2 vectorizes. The block is compiled three times, for the baseline (SSE2 on
// x86-64, portable C elsewhere), AVX2 and AVX-512 through target attributes, and the widest the CPU
// has runs (core/cpu.h). No stage reassociates anything and nothing contracts into FMA
// (-ffp-contract=off), so the bits are the same on every path (tests/test_noise.c runs each).
#include "neuroevo/noise.h"

#include <assert.h>
#include <math.h>    // sqrt: IEEE correctly rounded everywhere, so deterministic
#include <string.h>  // memcpy

#include "core/cpu.h"  // which block variant runs
#include "core/detmath.h"
#include "neuroevo/alloc.h"
#include "neuroevo/rng.h"

#if defined(__SSE2__)
#include <emmintrin.h>  // SSE2 intrinsics: Philox products, and sqrt without libm's errno branch
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>  // AVX2 / AVX-512 intrinsics, compiled per function through target attributes
#define HAVE_X86_VARIANTS 1
#define TARGET_AVX2 __attribute__((target("avx2")))
#define TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#endif
#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define BLOCK_PAIRS 32               // Philox counters per block (two AVX-512 vectors)
#define BLOCK_OUT (2 * BLOCK_PAIRS)  // normals per block

// Philox4x32 constants (Random123): round multipliers and the Weyl key increments
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

// One scalar Philox round on the words x0..x3 in scope, with round key (k0, k1).
#define PHILOX_ROUND(k0, k1)                          \
  do {                                                \
    uint64_t p0_ = (uint64_t)PHILOX_M0 * x0;          \
    uint64_t p1_ = (uint64_t)PHILOX_M1 * x2;          \
    uint32_t y0_ = (uint32_t)(p1_ >> 32) ^ x1 ^ (k0); \
    uint32_t y2_ = (uint32_t)(p0_ >> 32) ^ x3 ^ (k1); \
    x1 = (uint32_t)p1_;                               \
    x3 = (uint32_t)p0_;                               \
    x0 = y0_;                                         \
    x2 = y2_;                                         \
  } while (0)

void ne__philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
  for (uint32_t r = 0; r < 10; r++) PHILOX_ROUND(key[0] + r * PHILOX_W0, key[1] + r * PHILOX_W1);
  out[0] = x0, out[1] = x1, out[2] = x2, out[3] = x3;
}

// The per-block intermediate values, one array per quantity so each stage is a plain lane loop.
typedef struct block {
  double v[BLOCK_PAIRS];  // u1, then -2 log(u1), then the radius sqrt(-2 log u1)
  double t[BLOCK_PAIRS];  // angle in turns, u2 in [0, 1)
  float z[BLOCK_OUT];     // the normals of pairs pair0 .. pair0 + BLOCK_PAIRS
} block;

// Stage 1: Philox words of counters pair0 + j (counter = {lo, hi, 0, 0}, key = {lo, hi} of seed),
// turned into 52-bit uniforms u1 in (0, 1] and u2 in [0, 1): 52 random bits under the exponent of
// 1.0 give a double in [1, 2) without an integer conversion.
#if defined(__SSE2__)
// SSE2 path: four counters per vector, pmuludq on the even and odd lanes for the 32x32->64
// products. Integer operations only, so bit-identical to the portable path.
static inline void mulhilo_sse2(__m128i x, __m128i m, __m128i* hi, __m128i* lo) {
  const __m128i low_mask = _mm_set_epi32(0, -1, 0, -1);
  __m128i even = _mm_mul_epu32(x, m);                     // 64-bit products of lanes 0 and 2
  __m128i odd = _mm_mul_epu32(_mm_srli_epi64(x, 32), m);  // lanes 1 and 3
  *hi = _mm_or_si128(_mm_srli_epi64(even, 32), _mm_andnot_si128(low_mask, odd));
  *lo = _mm_or_si128(_mm_and_si128(even, low_mask), _mm_slli_epi64(odd, 32));
}

// One Philox round on four lanes held in x[0..3].
static inline void philox_round_sse2(__m128i x[4], __m128i k0, __m128i k1) {
  const __m128i m0 = _mm_set1_epi32((int)PHILOX_M0), m1 = _mm_set1_epi32((int)PHILOX_M1);
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

static void block_uniforms(uint64_t seed, uint64_t pair0, block* b) {
  // four groups round by round: a round is a long dependency chain, interleaving hides it
  for (int h = 0; h < BLOCK_PAIRS; h += 16) {
    __m128i x[4][4];
    for (int g = 0; g < 4; g++) philox_load_sse2(pair0 + (uint64_t)(h + 4 * g), x[g]);
    for (uint32_t r = 0; r < 10; r++) {
      __m128i k0 = _mm_set1_epi32((int)((uint32_t)seed + r * PHILOX_W0));
      __m128i k1 = _mm_set1_epi32((int)((uint32_t)(seed >> 32) + r * PHILOX_W1));
      for (int g = 0; g < 4; g++) philox_round_sse2(x[g], k0, k1);
    }
    for (int g = 0; g < 4; g++) philox_store_uniforms_sse2(x[g], b->v + h + 4 * g, b->t + h + 4 * g);
  }
}
#else
// Portable path: one counter at a time, ten rounds written out so the state stays in registers.
static void block_uniforms(uint64_t seed, uint64_t pair0, block* b) {
  uint32_t ks0[10], ks1[10];
  for (uint32_t r = 0; r < 10; r++)
    ks0[r] = (uint32_t)seed + r * PHILOX_W0, ks1[r] = (uint32_t)(seed >> 32) + r * PHILOX_W1;
  uint32_t lo = (uint32_t)pair0, hi = (uint32_t)(pair0 >> 32);
  for (uint32_t j = 0; j < BLOCK_PAIRS; j++) {
    // the 64-bit counter pair0 + j in 32-bit lanes (carry into the high word)
    uint32_t x0 = lo + j, x1 = hi + (x0 < lo), x2 = 0, x3 = 0;
    PHILOX_ROUND(ks0[0], ks1[0]);
    PHILOX_ROUND(ks0[1], ks1[1]);
    PHILOX_ROUND(ks0[2], ks1[2]);
    PHILOX_ROUND(ks0[3], ks1[3]);
    PHILOX_ROUND(ks0[4], ks1[4]);
    PHILOX_ROUND(ks0[5], ks1[5]);
    PHILOX_ROUND(ks0[6], ks1[6]);
    PHILOX_ROUND(ks0[7], ks1[7]);
    PHILOX_ROUND(ks0[8], ks1[8]);
    PHILOX_ROUND(ks0[9], ks1[9]);
    // the 52-bit mantissas (x1 << 32 | x0) >> 12 and (x3 << 32 | x2) >> 12
    uint64_t m1 = ((uint64_t)x1 << 20) | (x0 >> 12);
    uint64_t m2 = ((uint64_t)x3 << 20) | (x2 >> 12);
    b->v[j] = 2.0 - ne__bitsd(m1 | 0x3ff0000000000000ull);  // u1 in (0, 1]: log is finite
    b->t[j] = ne__bitsd(m2 | 0x3ff0000000000000ull) - 1.0;
  }
}
#endif

// Stage 1b: v = -2 log u1. Inlined into each variant, so gcc vectorizes it at that variant's width.
ALWAYS_INLINE void block_log(block* b) {
  for (int j = 0; j < BLOCK_PAIRS; j++) b->v[j] = -2.0 * ne__log_kernel(b->v[j]);
}

// Stage 2: radius = sqrt(-2 log u1); packed where the ISA has it, scalar otherwise (same bits).
static inline void block_sqrt(block* b) {
#if defined(__SSE2__)
  for (int j = 0; j < BLOCK_PAIRS; j += 2) _mm_storeu_pd(b->v + j, _mm_sqrt_pd(_mm_loadu_pd(b->v + j)));
#else
  for (int j = 0; j < BLOCK_PAIRS; j++) b->v[j] = sqrt(b->v[j]);
#endif
}

// Stage 3: z[2j] = r cos(2 pi t), z[2j+1] = r sin(2 pi t), rounded to float.
ALWAYS_INLINE void block_polar(block* b) {
  for (int j = 0; j < BLOCK_PAIRS; j++) {
    double s, c;
    ne__sincos_turns_kernel(b->t[j], &s, &c);
    b->z[2 * j] = (float)(b->v[j] * c);
    b->z[2 * j + 1] = (float)(b->v[j] * s);
  }
}

// The normals of pairs pair0 .. pair0 + BLOCK_PAIRS into b->z: the baseline variant.
static void block_generate_base(uint64_t seed, uint64_t pair0, block* b) {
  block_uniforms(seed, pair0, b);
  block_log(b);
  block_sqrt(b);
  block_polar(b);
}

#ifdef HAVE_X86_VARIANTS
// ---- AVX2: eight counters per vector, two groups of them interleaved ----

// hi and lo 32 bits of the products x * m, lane by lane (vpmuludq on the even and odd lanes).
TARGET_AVX2 ALWAYS_INLINE void mulhilo_avx2(__m256i x, __m256i m, __m256i* hi, __m256i* lo) {
  const __m256i low_mask = _mm256_set1_epi64x(0xffffffffll);
  __m256i even = _mm256_mul_epu32(x, m), odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
  *hi = _mm256_or_si256(_mm256_srli_epi64(even, 32), _mm256_andnot_si256(low_mask, odd));
  *lo = _mm256_or_si256(_mm256_and_si256(even, low_mask), _mm256_slli_epi64(odd, 32));
}

TARGET_AVX2 ALWAYS_INLINE void philox_round_avx2(__m256i x[4], __m256i k0, __m256i k1) {
  const __m256i m0 = _mm256_set1_epi32((int)PHILOX_M0), m1 = _mm256_set1_epi32((int)PHILOX_M1);
  __m256i hi0, lo0, hi1, lo1;
  mulhilo_avx2(x[0], m0, &hi0, &lo0);
  mulhilo_avx2(x[2], m1, &hi1, &lo1);
  x[0] = _mm256_xor_si256(_mm256_xor_si256(hi1, x[1]), k0);
  x[2] = _mm256_xor_si256(_mm256_xor_si256(hi0, x[3]), k1);
  x[1] = lo1;
  x[3] = lo0;
}

// words (lo, hi) of eight lanes -> the four 64-bit values hi << 32 | lo of lanes 4h .. 4h+3
TARGET_AVX2 ALWAYS_INLINE __m256i join_avx2(__m256i lo, __m256i hi, int h) {
  __m128i l = h ? _mm256_extracti128_si256(lo, 1) : _mm256_castsi256_si128(lo);
  __m128i u = h ? _mm256_extracti128_si256(hi, 1) : _mm256_castsi256_si128(hi);
  return _mm256_or_si256(_mm256_cvtepu32_epi64(l), _mm256_slli_epi64(_mm256_cvtepu32_epi64(u), 32));
}

// u1 = 2 - [1, 2) and t = [1, 2) - 1 of eight lanes, stored at v[0..8) and t[0..8).
TARGET_AVX2 ALWAYS_INLINE void store_uniforms_avx2(const __m256i x[4], double* v, double* t) {
  const __m256i one = _mm256_set1_epi64x(0x3ff0000000000000ll);
  const __m256d two = _mm256_set1_pd(2.0), onep = _mm256_set1_pd(1.0);
  for (int h = 0; h < 2; h++) {
    __m256i u1 = _mm256_or_si256(_mm256_srli_epi64(join_avx2(x[0], x[1], h), 12), one);
    __m256i u2 = _mm256_or_si256(_mm256_srli_epi64(join_avx2(x[2], x[3], h), 12), one);
    _mm256_storeu_pd(v + 4 * h, _mm256_sub_pd(two, _mm256_castsi256_pd(u1)));
    _mm256_storeu_pd(t + 4 * h, _mm256_sub_pd(_mm256_castsi256_pd(u2), onep));
  }
}

TARGET_AVX2 static void block_generate_avx2(uint64_t seed, uint64_t pair0, block* b) {
  for (int h = 0; h < BLOCK_PAIRS; h += 16) {
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
      __m256i k0 = _mm256_set1_epi32((int)((uint32_t)seed + r * PHILOX_W0));
      __m256i k1 = _mm256_set1_epi32((int)((uint32_t)(seed >> 32) + r * PHILOX_W1));
      for (int g = 0; g < 2; g++) philox_round_avx2(x[g], k0, k1);
    }
    for (int g = 0; g < 2; g++) store_uniforms_avx2(x[g], b->v + h + 8 * g, b->t + h + 8 * g);
  }
  block_log(b);
  for (int j = 0; j < BLOCK_PAIRS; j += 4) _mm256_storeu_pd(b->v + j, _mm256_sqrt_pd(_mm256_loadu_pd(b->v + j)));
  block_polar(b);
}

// ---- AVX-512: sixteen counters per vector, two groups interleaved ----

TARGET_AVX512 ALWAYS_INLINE void mulhilo_avx512(__m512i x, __m512i m, __m512i* hi, __m512i* lo) {
  const __m512i low_mask = _mm512_set1_epi64(0xffffffffll);
  __m512i even = _mm512_mul_epu32(x, m), odd = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), m);
  *hi = _mm512_or_si512(_mm512_srli_epi64(even, 32), _mm512_andnot_si512(low_mask, odd));
  *lo = _mm512_or_si512(_mm512_and_si512(even, low_mask), _mm512_slli_epi64(odd, 32));
}

TARGET_AVX512 ALWAYS_INLINE void philox_round_avx512(__m512i x[4], __m512i k0, __m512i k1) {
  const __m512i m0 = _mm512_set1_epi32((int)PHILOX_M0), m1 = _mm512_set1_epi32((int)PHILOX_M1);
  __m512i hi0, lo0, hi1, lo1;
  mulhilo_avx512(x[0], m0, &hi0, &lo0);
  mulhilo_avx512(x[2], m1, &hi1, &lo1);
  x[0] = _mm512_xor_si512(_mm512_xor_si512(hi1, x[1]), k0);
  x[2] = _mm512_xor_si512(_mm512_xor_si512(hi0, x[3]), k1);
  x[1] = lo1;
  x[3] = lo0;
}

// words (lo, hi) of sixteen lanes -> the eight 64-bit values hi << 32 | lo of lanes 8h .. 8h+7
TARGET_AVX512 ALWAYS_INLINE __m512i join_avx512(__m512i lo, __m512i hi, int h) {
  __m256i l = h ? _mm512_extracti64x4_epi64(lo, 1) : _mm512_castsi512_si256(lo);
  __m256i u = h ? _mm512_extracti64x4_epi64(hi, 1) : _mm512_castsi512_si256(hi);
  return _mm512_or_si512(_mm512_cvtepu32_epi64(l), _mm512_slli_epi64(_mm512_cvtepu32_epi64(u), 32));
}

TARGET_AVX512 ALWAYS_INLINE void store_uniforms_avx512(const __m512i x[4], double* v, double* t) {
  const __m512i one = _mm512_set1_epi64(0x3ff0000000000000ll);
  const __m512d two = _mm512_set1_pd(2.0), onep = _mm512_set1_pd(1.0);
  for (int h = 0; h < 2; h++) {
    __m512i u1 = _mm512_or_si512(_mm512_srli_epi64(join_avx512(x[0], x[1], h), 12), one);
    __m512i u2 = _mm512_or_si512(_mm512_srli_epi64(join_avx512(x[2], x[3], h), 12), one);
    _mm512_storeu_pd(v + 8 * h, _mm512_sub_pd(two, _mm512_castsi512_pd(u1)));
    _mm512_storeu_pd(t + 8 * h, _mm512_sub_pd(_mm512_castsi512_pd(u2), onep));
  }
}

TARGET_AVX512 static void block_generate_avx512(uint64_t seed, uint64_t pair0, block* b) {
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
    __m512i k0 = _mm512_set1_epi32((int)((uint32_t)seed + r * PHILOX_W0));
    __m512i k1 = _mm512_set1_epi32((int)((uint32_t)(seed >> 32) + r * PHILOX_W1));
    for (int g = 0; g < 2; g++) philox_round_avx512(x[g], k0, k1);
  }
  for (int g = 0; g < 2; g++) store_uniforms_avx512(x[g], b->v + 16 * g, b->t + 16 * g);
  block_log(b);
  for (int j = 0; j < BLOCK_PAIRS; j += 8) _mm512_storeu_pd(b->v + j, _mm512_sqrt_pd(_mm512_loadu_pd(b->v + j)));
  block_polar(b);
}
#endif

typedef void (*block_fn)(uint64_t seed, uint64_t pair0, block* b);

// The block variant of the SIMD level in use (core/cpu.h); all give the same bits.
static block_fn block_generator(void) {
#ifdef HAVE_X86_VARIANTS
  int level = ne__simd_level();
  if (level >= NE_SIMD_AVX512) return block_generate_avx512;
  if (level == NE_SIMD_AVX2) return block_generate_avx2;
#endif
  return block_generate_base;
}

void ne_noise_fill(uint64_t seed, uint64_t offset, size_t n, float* out) {
  block_fn block_generate = block_generator();
  block b;
  // each block starts at the pair holding `offset`; only the first can start on an odd index
  while (n > 0) {
    size_t skip = (size_t)(offset & 1);
    size_t take = BLOCK_OUT - skip < n ? BLOCK_OUT - skip : n;
    block_generate(seed, offset >> 1, &b);
    memcpy(out, b.z + skip, take * sizeof *out);
    out += take, offset += take, n -= take;
  }
}

// out[i] += coef * z[i] for one block's worth; the product is rounded to float before the add.
static void add_scaled(float* out, const float* z, size_t n, float coef) {
  size_t i = 0;
  for (; i + BLOCK_OUT <= n; i += BLOCK_OUT)
    for (int j = 0; j < BLOCK_OUT; j++) out[i + j] += coef * z[i + j];
  for (; i < n; i++) out[i] += coef * z[i];
}

void ne_noise_axpy(uint64_t seed, uint64_t offset, size_t n, float coef, float* out) {
  block_fn block_generate = block_generator();
  block b;
  while (n > 0) {
    size_t skip = (size_t)(offset & 1);
    size_t take = BLOCK_OUT - skip < n ? BLOCK_OUT - skip : n;
    block_generate(seed, offset >> 1, &b);
    add_scaled(out, b.z + skip, take, coef);
    out += take, offset += take, n -= take;
  }
}

// out[i] = base[i] + coef * z[i]: add_scaled with a separate source, the same rounding.
static void base_plus_scaled(float* out, const float* base, const float* z, size_t n, float coef) {
  for (size_t i = 0; i < n; i++) out[i] = base[i] + coef * z[i];
}

// The table's slices at vector width VL (explicit vectors: out may alias base exactly, which rules
// out restrict, and gcc -O2 does not version loops for aliasing): the same product rounded to float
// and the same add per element as the loops above, so the same bits.
#ifdef HAVE_X86_VARIANTS
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
SCALED_VARIANT(scaled_avx2, TARGET_AVX2, 8)
SCALED_VARIANT(scaled_avx512, TARGET_AVX512, 16)
#pragma GCC diagnostic pop
#endif

// out[i] = base[i] + coef * slice[i] at the SIMD level in use (out may equal base).
static void table_scaled(float* out, const float* base, const float* slice, size_t n, float coef) {
#ifdef HAVE_X86_VARIANTS
  int level = ne__simd_level();
  if (level >= NE_SIMD_AVX512) return scaled_avx512(out, base, slice, n, coef);
  if (level == NE_SIMD_AVX2) return scaled_avx2(out, base, slice, n, coef);
#endif
  base_plus_scaled(out, base, slice, n, coef);
}

double ne_rng_normal(ne_rng* rng) {
  // Box–Muller's cosine branch: u1 in (0, 1] keeps the log finite
  double u1 = 1.0 - ne_rng_uniform(rng);
  double u2 = ne_rng_uniform(rng);
  double s, c;
  ne__sincos_turns(u2, &s, &c);
  return sqrt(-2.0 * ne__log(u1)) * c;
}

ne_noise_table* ne_noise_table_create(uint64_t seed, size_t size) {
  if (size == 0 || size > SIZE_MAX / sizeof(float)) return NULL;
  ne_noise_table* t = ne_malloc(sizeof *t);
  if (!t) return NULL;
  t->data = ne_malloc(size * sizeof(float));
  if (!t->data) {
    ne_free(t);
    return NULL;
  }
  t->seed = seed;
  t->size = size;
  ne_noise_fill(seed, 0, size, t->data);
  return t;
}

size_t ne_noise_table_auto_size(size_t n_params) {
  const size_t lo = (size_t)1 << 16, hi = (size_t)1 << 24;
  size_t want = n_params > hi / 1000 ? hi : n_params * 1000;
  if (want < lo) want = lo;
  if (n_params > SIZE_MAX / 4) return n_params;
  return want > 4 * n_params ? want : 4 * n_params;
}

void ne_noise_table_destroy(ne_noise_table* table) {
  if (!table) return;
  ne_free(table->data);
  ne_free(table);
}

size_t ne_noise_table_offset(const ne_noise_table* table, uint64_t seed, size_t n) {
  // uniform over the size - n + 1 valid starts (modulo bias: starts / 2^64, negligible)
  size_t starts = n <= table->size ? table->size - n + 1 : 1;
  return (size_t)(ne_hash2(seed, table->seed) % starts);
}

// ---- perturbations from either source -------------------------------------------------------

void ne_noise_perturb_axpy(const ne_noise_table* table, uint64_t seed, size_t n, float coef, float* out) {
  if (!table) {
    ne_noise_axpy(seed, 0, n, coef, out);
    return;
  }
  assert(n <= table->size);
  table_scaled(out, out, table->data + ne_noise_table_offset(table, seed, n), n, coef);
}

void ne_noise_perturb(const ne_noise_table* table, uint64_t seed, size_t n, const float* base, float coef, float* out) {
  if (table) {
    assert(n <= table->size);
    table_scaled(out, base, table->data + ne_noise_table_offset(table, seed, n), n, coef);
    return;
  }
  // the generator block by block, each block added to its slice of base straight away
  block_fn block_generate = block_generator();
  block b;
  for (uint64_t offset = 0; offset < n; offset += BLOCK_OUT) {
    size_t take = n - offset < BLOCK_OUT ? (size_t)(n - offset) : BLOCK_OUT;
    block_generate(seed, offset >> 1, &b);
    base_plus_scaled(out + offset, base + offset, b.z, take, coef);
  }
}
