// SPDX-License-Identifier: MIT
// The Atari family's per-step pixel work with AVX-512 (F + BW + VBMI): the palette lookup of two
// screens (with the max-pool fused into the second), the 210x160 -> 84x84 INTER_AREA resize, and
// the 4-frame stack as HWC floats.
// Portable versions are in ale.c; these give the same bytes (tests/ale/test_ale.c compares them):
// the lookup is a table lookup either way, and the resize forms the same float products and adds
// them in the same order, only 16 output pixels at a time, then rounds to nearest even as
// cvtps2dq does under the default MXCSR. ale.c's table at the AVX-512 level, where the CPU has VBMI.
// Workload: per agent step two lookups of 33,600 bytes and one resize, ~3 us in all on a Zen 4
// core against ~45 us for the portable code (perf of neuroevo rollouts ALE/Frostbite-v5).
#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <immintrin.h>  // AVX-512 intrinsics (compiled per function through simd.h's target)
#include <string.h>

#include "envs/ale/ale_int.h"

#define AVX512 NE_TARGET_AVX512_VBMI

// ---- palette lookup -----------------------------------------------------------------------------

// the 256-byte table as four registers; vpermi2b looks up the low 7 bits in two of them, the top
// bit picks which pair
AVX512 static void luma(const uint8_t* src, const uint8_t lut[256], const uint8_t* pool, const uint8_t* pool_src,
                        uint8_t* dst, int n) {
  __m512i t0 = _mm512_loadu_si512(lut), t1 = _mm512_loadu_si512(lut + 64);
  __m512i t2 = _mm512_loadu_si512(lut + 128), t3 = _mm512_loadu_si512(lut + 192);
  for (int i = 0; i < n; i += 64) {
    __mmask64 live = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
    __m512i idx = _mm512_maskz_loadu_epi8(live, src + i);
    if (pool_src && _mm512_cmpeq_epi8_mask(idx, _mm512_maskz_loadu_epi8(live, pool_src + i)) == ~(__mmask64)0) {
      if (pool) _mm512_mask_storeu_epi8(dst + i, live, _mm512_maskz_loadu_epi8(live, pool + i));
      continue;
    }
    __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1), hi = _mm512_permutex2var_epi8(t2, idx, t3);
    __m512i v = _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
    if (pool) v = _mm512_max_epu8(v, _mm512_maskz_loadu_epi8(live, pool + i));
    _mm512_mask_storeu_epi8(dst + i, live, v);
  }
}

// ---- area resize --------------------------------------------------------------------------------

// 16 taps' bytes gathered from a window by a byte permute, as floats
AVX512 static inline __m512 taps(__m512i window, const uint8_t idx[NE_AREA_GROUP]) {
  __m128i b = _mm512_castsi512_si128(
      _mm512_permutexvar_epi8(_mm512_castsi128_si512(_mm_loadu_si128((const __m128i*)idx)), window));
  return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b));
}

// horizontal pass: one input row into out_w floats, acc = w0 p0; acc += w1 p1; acc += w2 p2
AVX512 static void area_row(const ne_area_resize* r, const uint8_t* src, float* t) {
  for (int g = 0; g * NE_AREA_GROUP < r->out_w; g++) {
    int base = r->gx_base[g], have = r->in_w - base, left = r->out_w - g * NE_AREA_GROUP;
    __m512i window = _mm512_maskz_loadu_epi8(have >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << have) - 1, src + base);
    __m512 acc = _mm512_mul_ps(_mm512_loadu_ps(r->gx_w[g][0]), taps(window, r->gx_idx[g][0]));
    for (int j = 1; j < NE_AREA_TAPS; j++)
      acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_loadu_ps(r->gx_w[g][j]), taps(window, r->gx_idx[g][j])));
    _mm512_mask_storeu_ps(t + g * NE_AREA_GROUP, left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1), acc);
  }
}

// vertical pass: three rows of tmp weighted and added in order, rounded, clamped to bytes
AVX512 static void area_col(const ne_area_resize* r, const float* tmp, int y, uint8_t* out) {
  const float* t0 = tmp + (size_t)r->y0[y] * (size_t)r->out_w;
  __m512 w0 = _mm512_set1_ps(r->wy[y][0]), w1 = _mm512_set1_ps(r->wy[y][1]), w2 = _mm512_set1_ps(r->wy[y][2]);
  for (int x = 0; x < r->out_w; x += 16) {
    __mmask16 m = r->out_w - x >= 16 ? 0xFFFF : (__mmask16)((1u << (r->out_w - x)) - 1);
    const float* p = t0 + x;
    __m512 a = _mm512_mul_ps(w0, _mm512_maskz_loadu_ps(m, p));
    a = _mm512_add_ps(a, _mm512_mul_ps(w1, _mm512_maskz_loadu_ps(m, p + r->out_w)));
    a = _mm512_add_ps(a, _mm512_mul_ps(w2, _mm512_maskz_loadu_ps(m, p + 2 * r->out_w)));
    __m512i v = _mm512_cvtps_epi32(a);  // nearest, ties to even: the MXCSR default, never changed
    v = _mm512_min_epi32(_mm512_max_epi32(v, _mm512_setzero_si512()), _mm512_set1_epi32(255));
    _mm512_mask_cvtepi32_storeu_epi8(out + (size_t)y * (size_t)r->out_w + (size_t)x, m, v);
  }
}

AVX512 static void resize(const ne_area_resize* r, const uint8_t* in, float* tmp, float* row, uint8_t* out) {
  (void)row;
  // the padding rows past the last input row carry zero weights; zeros there keep 0 * x exact
  memset(tmp + (size_t)r->in_h * (size_t)r->out_w, 0, (NE_AREA_TAPS - 1) * (size_t)r->out_w * sizeof(float));
  for (int y = 0; y < r->in_h; y++) area_row(r, in + (size_t)y * (size_t)r->in_w, tmp + (size_t)y * (size_t)r->out_w);
  for (int y = 0; y < r->out_h; y++) area_col(r, tmp, y, out);
}

// ---- observation --------------------------------------------------------------------------------

// 16 pixels of the four frames in one register, bytes reordered from frame-major to pixel-major
// (HWC) by one permute, then widened to floats and scaled 16 at a time
AVX512 static void stack(const uint8_t* const f[NE_ALE_STACK], int n, float* obs) {
  uint8_t order[64];
  for (int b = 0; b < 64; b++) order[b] = (uint8_t)(16 * (b % NE_ALE_STACK) + b / NE_ALE_STACK);
  const __m512i perm = _mm512_loadu_si512(order);
  const __m512 scale = _mm512_set1_ps(1.0f / 255.0f);
  for (int i = 0; i < n; i += 16) {
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i*)(f[0] + i)));
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i*)(f[1] + i)), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i*)(f[2] + i)), 2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i*)(f[3] + i)), 3);
    v = _mm512_permutexvar_epi8(perm, v);
    float* o = obs + (size_t)i * NE_ALE_STACK;
    _mm512_storeu_ps(o,
                     _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 0))), scale));
    _mm512_storeu_ps(o + 16,
                     _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 1))), scale));
    _mm512_storeu_ps(o + 32,
                     _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 2))), scale));
    _mm512_storeu_ps(o + 48,
                     _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 3))), scale));
  }
}

// the grouped resize tables, 16 pixels a vector
static int fits(const ne_area_resize* r, int n) { return r->grouped && n % 16 == 0; }

const ne__ale_kernels ne__ale_avx512 = {luma, resize, stack, fits};
#endif
