// SPDX-License-Identifier: MIT
// The Atari family's per-step pixel work with AVX2, for CPUs without AVX-512 VBMI (Zen 2/3, most
// Intel before Ice Lake): the palette lookup of two screens (max-pool fused into the second), the
// 210x160 -> 84x84 INTER_AREA resize and the 4-frame stack as HWC floats. The same bytes as the
// portable code in ale.c (tests/ale/test_ale.c compares them): a lookup is a lookup; the resize
// forms the same float products and adds them in the same order, 8 output pixels at a time, then
// rounds to nearest even as cvtps2dq does under the default MXCSR.
// AVX2 has no 256-entry byte permute (AVX-512 VBMI's vpermi2b): the lookup selects among 16
// 16-entry vpshufb tables by the index's high nibble, and the resize's horizontal taps are
// gathered 4 output columns per 128-bit lane, whose taps span at most 16 input bytes at these
// scales (ne_area_resize.quad).
#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <immintrin.h>  // AVX2 intrinsics (compiled per function through simd.h's target)
#include <string.h>

#include "envs/ale/ale_int.h"

#define AVX2 NE_TARGET_AVX2

// ---- palette lookup -----------------------------------------------------------------------------

// 32 bytes of src through `tables` vpshufb tables of 16 entries: the entry's low 4 bits are
// (index >> shift) & 15, the table the next bits up (16 tables for shift 0; 8 for shift 1)
AVX2 static inline __m256i lookup32(const __m256i* tables, int n_tables, int shift, __m256i idx) {
  const __m256i low = _mm256_set1_epi8(0x0f);
  __m256i lo = _mm256_and_si256(_mm256_srli_epi16(idx, shift), low);
  __m256i hi = _mm256_and_si256(_mm256_srli_epi16(idx, shift + 4), _mm256_set1_epi8((char)(n_tables - 1)));
  __m256i v = _mm256_shuffle_epi8(tables[0], lo);
  for (int h = 1; h < n_tables; h++)
    v = _mm256_blendv_epi8(v, _mm256_shuffle_epi8(tables[h], lo), _mm256_cmpeq_epi8(hi, _mm256_set1_epi8((char)h)));
  return v;
}

// 1 if no byte of src[0, n) is odd
AVX2 static int all_even(const uint8_t* src, int n) {
  __m256i acc = _mm256_setzero_si256();
  int i = 0;
  for (; i + 32 <= n; i += 32) acc = _mm256_or_si256(acc, _mm256_loadu_si256((const __m256i*)(src + i)));
  int odd = _mm256_movemask_epi8(_mm256_slli_epi16(acc, 7));
  for (; i < n; i++) odd |= src[i] & 1;
  return !odd;
}

// The TIA's colours are even palette indices (bit 0 is ignored), so screens have no odd byte and
// 128 entries of the table, in 8 vpshufb tables, serve them: half the work of all 256. A screen
// with an odd byte (or any src, when the table repeats each even entry at the odd index too) is
// checked first: the pre-scan is ~1/20 of the lookup.
AVX2 static void luma(const uint8_t* src, const uint8_t lut[256], const uint8_t* pool, const uint8_t* pool_src,
                      uint8_t* dst, int n) {
  int half = 1;
  for (int i = 0; i < 256 && half; i += 2) half = lut[i] == lut[i + 1];
  half = half || all_even(src, n);
  __m256i tables[16];
  int n_tables = half ? 8 : 16, shift = half ? 1 : 0;
  for (int h = 0; h < n_tables; h++) {
    uint8_t t[16];
    for (int k = 0; k < 16; k++) t[k] = lut[(16 * h + k) << shift];
    tables[h] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*)t));
  }
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i idx = _mm256_loadu_si256((const __m256i*)(src + i));
    if (pool_src &&
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(idx, _mm256_loadu_si256((const __m256i*)(pool_src + i)))) == -1) {
      if (pool) _mm256_storeu_si256((__m256i*)(dst + i), _mm256_loadu_si256((const __m256i*)(pool + i)));
      continue;
    }
    __m256i v = lookup32(tables, n_tables, shift, idx);
    if (pool) v = _mm256_max_epu8(v, _mm256_loadu_si256((const __m256i*)(pool + i)));
    _mm256_storeu_si256((__m256i*)(dst + i), v);
  }
  // the tail, < 32 bytes
  ne__ale_luma(src + i, lut, pool ? pool + i : NULL, pool_src ? pool_src + i : NULL, dst + i, n - i);
}

// ---- area resize --------------------------------------------------------------------------------

// One quad pair's (or a lone quad's, in the low lane) column taps in registers: vpshufb controls
// and weights, the low lane quad q's, the high lane quad q+1's.
typedef struct quad_taps {
  __m256i ctl[NE_AREA_TAPS];
  __m256 w[NE_AREA_TAPS];
} quad_taps;

AVX2 static inline quad_taps load_taps(const ne_area_resize* r, int q, int pair) {
  quad_taps t;
  for (int j = 0; j < NE_AREA_TAPS; j++) {
    const __m128i* lo = (const __m128i*)r->qx_idx[q][j];
    const float* wlo = r->qx_w[q][j];
    t.ctl[j] = pair ? _mm256_loadu2_m128i((const __m128i*)r->qx_idx[q + 1][j], lo)
                    : _mm256_castsi128_si256(_mm_loadu_si128(lo));
    t.w[j] = pair ? _mm256_loadu2_m128(r->qx_w[q + 1][j], wlo) : _mm256_castps128_ps256(_mm_loadu_ps(wlo));
  }
  return t;
}

// 4 output columns per lane from that lane's 16-byte window: each tap's bytes zero-extended to
// dwords by the shuffle, as floats, times the tap's weights, added in tap order
AVX2 static inline __m256 apply_taps(const quad_taps* t, __m256i window) {
  __m256 acc = _mm256_mul_ps(t->w[0], _mm256_cvtepi32_ps(_mm256_shuffle_epi8(window, t->ctl[0])));
  for (int j = 1; j < NE_AREA_TAPS; j++)
    acc = _mm256_add_ps(acc, _mm256_mul_ps(t->w[j], _mm256_cvtepi32_ps(_mm256_shuffle_epi8(window, t->ctl[j]))));
  return acc;
}

// Horizontal pass over `rows` rows of src (each with at least the last quad's window of readable
// bytes after it) into tmp, out_w floats a row. Column by column (a quad pair at a time, all rows)
// so that the taps are loaded once per pair rather than once per row.
AVX2 static void area_rows(const ne_area_resize* r, const uint8_t* src, int rows, float* tmp) {
  int quads = (r->out_w + 3) / 4;
  size_t in_w = (size_t)r->in_w, out_w = (size_t)r->out_w;
  for (int q = 0; q < quads; q += 2) {
    const uint8_t *s0 = src + r->qx_base[q], *s1 = q + 1 < quads ? src + r->qx_base[q + 1] : NULL;
    float* t = tmp + 4 * q;
    quad_taps taps = load_taps(r, q, s1 != NULL);
    if (s1)
      for (int y = 0; y < rows; y++)
        _mm256_storeu_ps(
            t + y * out_w,
            apply_taps(&taps, _mm256_loadu2_m128i((const __m128i*)(s1 + y * in_w), (const __m128i*)(s0 + y * in_w))));
    else
      for (int y = 0; y < rows; y++)
        _mm_storeu_ps(t + y * out_w,
                      _mm256_castps256_ps128(
                          apply_taps(&taps, _mm256_castsi128_si256(_mm_loadu_si128((const __m128i*)(s0 + y * in_w))))));
  }
}

// 8 (4) floats rounded to nearest even, clamped to bytes
AVX2 static inline __m128i to_bytes8(__m256 a) {
  __m256i v = _mm256_cvtps_epi32(a);  // nearest, ties to even: the MXCSR default, never changed
  __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));  // exact: 0..2^22
  return _mm_packus_epi16(w, w);                                                           // clamps to 0..255
}

// vertical pass: three rows of tmp weighted and added in order, rounded, clamped to bytes
AVX2 static void area_col(const ne_area_resize* r, const float* tmp, int y, uint8_t* out) {
  const float* t0 = tmp + (size_t)r->y0[y] * (size_t)r->out_w;
  const float *t1 = t0 + r->out_w, *t2 = t1 + r->out_w;
  __m256 w0 = _mm256_set1_ps(r->wy[y][0]), w1 = _mm256_set1_ps(r->wy[y][1]), w2 = _mm256_set1_ps(r->wy[y][2]);
  uint8_t* o = out + (size_t)y * (size_t)r->out_w;
  int x = 0;
  for (; x + 8 <= r->out_w; x += 8) {
    __m256 a = _mm256_mul_ps(w0, _mm256_loadu_ps(t0 + x));
    a = _mm256_add_ps(a, _mm256_mul_ps(w1, _mm256_loadu_ps(t1 + x)));
    a = _mm256_add_ps(a, _mm256_mul_ps(w2, _mm256_loadu_ps(t2 + x)));
    _mm_storel_epi64((__m128i*)(o + x), to_bytes8(a));
  }
  for (; x < r->out_w; x++) {  // the tail, as the portable code computes it
    float a = r->wy[y][0] * t0[x];
    a += r->wy[y][1] * t1[x];
    a += r->wy[y][2] * t2[x];
    __m128i v = _mm_cvtps_epi32(_mm_set_ss(a));
    v = _mm_packus_epi16(_mm_packs_epi32(v, v), v);
    o[x] = (uint8_t)_mm_cvtsi128_si32(v);
  }
}

AVX2 static void resize(const ne_area_resize* r, const uint8_t* in, float* tmp, float* row, uint8_t* out) {
  (void)row;
  // the padding rows past the last input row carry zero weights; zeros there keep 0 * x exact
  memset(tmp + (size_t)r->in_h * (size_t)r->out_w, 0, (NE_AREA_TAPS - 1) * (size_t)r->out_w * sizeof(float));
  // a row's last windows read up to 16 bytes from their base, past the row's end (into the next
  // row, whose bytes no tap selects); the image's last row goes through a padded copy
  int last_row = r->in_h - 1;
  area_rows(r, in, last_row, tmp);
  uint8_t last[NE_AREA_QUAD_ROW];
  memset(last, 0, sizeof last);
  memcpy(last, in + (size_t)last_row * (size_t)r->in_w, (size_t)r->in_w);
  area_rows(r, last, 1, tmp + (size_t)last_row * (size_t)r->out_w);
  for (int y = 0; y < r->out_h; y++) area_col(r, tmp, y, out);
}

// ---- observation --------------------------------------------------------------------------------

// 8 pixels of the four frames interleaved (HWC) by byte and word unpacks, then widened to floats
// and scaled 8 at a time
AVX2 static void stack(const uint8_t* const f[NE_ALE_STACK], int n, float* obs) {
  const __m256 scale = _mm256_set1_ps(1.0f / 255.0f);
  for (int i = 0; i < n; i += 8) {
    __m128i a = _mm_loadl_epi64((const __m128i*)(f[0] + i)), b = _mm_loadl_epi64((const __m128i*)(f[1] + i));
    __m128i c = _mm_loadl_epi64((const __m128i*)(f[2] + i)), d = _mm_loadl_epi64((const __m128i*)(f[3] + i));
    __m128i ab = _mm_unpacklo_epi8(a, b), cd = _mm_unpacklo_epi8(c, d);
    __m128i lo = _mm_unpacklo_epi16(ab, cd), hi = _mm_unpackhi_epi16(ab, cd);  // pixels 0-3, 4-7
    float* o = obs + (size_t)i * NE_ALE_STACK;
    _mm256_storeu_ps(o, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(lo)), scale));
    _mm256_storeu_ps(o + 8, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(lo, 8))), scale));
    _mm256_storeu_ps(o + 16, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(hi)), scale));
    _mm256_storeu_ps(o + 24, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(hi, 8))), scale));
  }
}

// the quad resize tables, 8 pixels a vector
static int fits(const ne_area_resize* r, int n) { return r->quad && n % 8 == 0; }

const ne__ale_kernels ne__ale_avx2 = {luma, resize, stack, fits};
#endif
