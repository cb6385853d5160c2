// SPDX-License-Identifier: MIT
// The MLP kernels of x86-64 (mlp_int.h's table at the AVX2 and AVX-512 levels): the dense layer and
// the activation at vector width VL (8: AVX2, 16: AVX-512), with separate roundings and with fused
// multiply-adds, the last outputs of 8 rows as one vector per output, and (AVX-512, fused, float
// tanh) an output layer that takes its inputs' tanh on the way. Every entry gives mlp.c's portable
// bits (the same sums in the same order, the same tanh kernel per element); tests/test_simd.c and
// test_policy compare them.
#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <immintrin.h>

#include "core/detmath.h"
#include "policy/mlp_int.h"
#include "policy/policy_int.h"  // ne__policy_hidden_float_tanh
#include "policy/tanh_simd.h"   // the float tanh on one vector

// A tanh above over y[0..n) in whole vectors; returns where the rest (< VL) starts.
#define TANH_ARRAY(name, attr, VL, LOAD, STORE, VEC)             \
  attr static int name(float* y, int n) {                        \
    int i = 0;                                                   \
    for (; i + VL <= n; i += VL) STORE(y + i, VEC(LOAD(y + i))); \
    return i;                                                    \
  }
TANH_ARRAY(tanh_float_avx2, NE_TARGET_AVX2, 8, _mm256_loadu_ps, _mm256_storeu_ps, tanh_float_avx2_vec)
TANH_ARRAY(tanh_float_avx512, NE_TARGET_AVX512, 16, _mm512_loadu_ps, _mm512_storeu_ps, tanh_float_avx512_vec)
TANH_ARRAY(tanh_float_avx2_fma, NE_TARGET_AVX2, 8, _mm256_loadu_ps, _mm256_storeu_ps, tanh_fma_avx2_vec)
TANH_ARRAY(tanh_float_avx512_fma, NE_TARGET_AVX512, 16, _mm512_loadu_ps, _mm512_storeu_ps, tanh_fma_avx512_vec)

// The dense layer and the activation at vector width VL (8: AVX2, 16: AVX-512): blocks of 8, then 4
// vectors of outputs with their accumulators held across the input loop, then blocks of VL, then
// the rest: one masked vector in a single forward (name##_rest), blocks of 4 (separate roundings)
// and ne__mlp_kernels' tails in a batched one; the same sums in the same order as ne__policy_dense().
// The tanh runs the same inline kernel as ne__tanhf_inplace in blocks of VL, which gcc vectorizes at
// that width; the float tanh (NE_TANH_FLOAT) runs TANH_ARRAY's kernels, then the scalar one on the rest. FUSED
// (policy.fma) makes each multiply-add one FMA instruction (FMA).
// SPLAT broadcasts an input to all lanes (not x + (vector){0}: that is an add, -0 becoming +0, on
// the add ports the layer is bound by).
#define MLP_VARIANT(name, attr, VL, SPLAT, FUSED, FMA)                                                                \
  typedef float name##_v __attribute__((vector_size(VL * 4)));                                                        \
  /* a + x w, one rounding (FUSED) or two */                                                                          \
  attr static inline __attribute__((always_inline)) name##_v name##_madd(name##_v x, name##_v w, name##_v a) {        \
    return FUSED ? (name##_v)FMA(x, w, a) : a + x * w;                                                                \
  }                                                                                                                   \
  attr static inline __attribute__((always_inline)) name##_v name##_load(const float* p) {                            \
    name##_v v;                                                                                                       \
    memcpy(&v, p, sizeof v);                                                                                          \
    return v;                                                                                                         \
  }                                                                                                                   \
  /* NA accumulators (a constant after inlining) held across the whole input loop: independent  */                    \
  /* addition chains, so their latencies overlap                                                */                    \
  attr static inline __attribute__((always_inline)) void name##_block(                                                \
      const float* restrict x, int in, const float* restrict w, const float* restrict b, int out, int o,              \
      float* restrict y, int NA) {                                                                                    \
    name##_v acc[8];                                                                                                  \
    for (int v = 0; v < NA; v++) acc[v] = name##_load(b + o + v * VL);                                                \
    for (int i = 0; i < in; i++) {                                                                                    \
      const float* wr = w + (size_t)i * (size_t)out + (size_t)o;                                                      \
      name##_v xi = (name##_v)SPLAT(x[i]);                                                                            \
      for (int v = 0; v < NA; v++) acc[v] = name##_madd(xi, name##_load(wr + v * VL), acc[v]);                        \
    }                                                                                                                 \
    for (int v = 0; v < NA; v++) memcpy(y + o + v * VL, &acc[v], sizeof acc[v]);                                      \
  }                                                                                                                   \
  /* the outputs from o on in whole vectors; returns where the rest (< VL) starts */                                  \
  attr static inline                                                                                                  \
      __attribute__((always_inline)) int name##_vectors(const float* restrict x, int in, const float* restrict w,     \
                                                        const float* restrict b, int out, float* restrict y, int o) { \
    for (; o + 8 * VL <= out; o += 8 * VL) name##_block(x, in, w, b, out, o, y, 8);                                   \
    for (; o + 4 * VL <= out; o += 4 * VL) name##_block(x, in, w, b, out, o, y, 4);                                   \
    for (; o + VL <= out; o += VL) {                                                                                  \
      name##_v a0 = name##_load(b + o);                                                                               \
      for (int i = 0; i < in; i++)                                                                                    \
        a0 = name##_madd((name##_v)SPLAT(x[i]), name##_load(w + (size_t)i * (size_t)out + (size_t)o), a0);            \
      memcpy(y + o, &a0, sizeof a0);                                                                                  \
    }                                                                                                                 \
    return o;                                                                                                         \
  }                                                                                                                   \
  /* R rows (a constant after inlining) of x (xs floats apart) times 4 vectors of outputs from o: */                  \
  /* each vector of W loaded once an input serves all R rows, where one row at a time loads it   */                   \
  /* again for every row (the loads, not the arithmetic, then bound the layer)                   */                   \
  attr static inline __attribute__((always_inline)) void name##_block_rows(                                           \
      const float* restrict x, size_t xs, int in, const float* restrict w, const float* restrict b, int out, int o,   \
      float* restrict y, size_t ys, int R) {                                                                          \
    name##_v acc[4][4];                                                                                               \
    for (int r = 0; r < R; r++)                                                                                       \
      for (int v = 0; v < 4; v++) acc[r][v] = name##_load(b + o + v * VL);                                            \
    for (int i = 0; i < in; i++) {                                                                                    \
      const float* wr = w + (size_t)i * (size_t)out + (size_t)o;                                                      \
      name##_v wv[4];                                                                                                 \
      for (int v = 0; v < 4; v++) wv[v] = name##_load(wr + v * VL);                                                   \
      for (int r = 0; r < R; r++) {                                                                                   \
        name##_v xi = (name##_v)SPLAT(x[(size_t)r * xs + (size_t)i]);                                                 \
        for (int v = 0; v < 4; v++) acc[r][v] = name##_madd(xi, wv[v], acc[r][v]);                                    \
      }                                                                                                               \
    }                                                                                                                 \
    for (int r = 0; r < R; r++)                                                                                       \
      for (int v = 0; v < 4; v++)                                                                                     \
        memcpy(y + (size_t)r * ys + (size_t)o + (size_t)(v * VL), &acc[r][v], sizeof acc[r][v]);                      \
  }                                                                                                                   \
  /* blocks() for n rows (in and out floats apart): the outputs in blocks of 4 vectors ROWS rows  */                  \
  /* at a time, then each row's others but the last 1-3 (fused: but those after the whole       */                    \
  /* vectors); returns where those start                                                        */                    \
  attr static int name##_blocks_rows(const float* restrict x, int n, int in, const float* restrict w,                 \
                                     const float* restrict b, int out, float* restrict y) {                           \
    size_t xs = (size_t)in, ys = (size_t)out;                                                                         \
    int o4 = out - out % (4 * VL);                                                                                    \
    for (int o = 0; o < o4; o += 4 * VL) {                                                                            \
      int r = 0;                                                                                                      \
      for (; r + name##_ROWS <= n; r += name##_ROWS)                                                                  \
        name##_block_rows(x + r * xs, xs, in, w, b, out, o, y + r * ys, ys, name##_ROWS);                             \
      for (; r < n; r++) name##_block_rows(x + r * xs, xs, in, w, b, out, o, y + r * ys, ys, 1);                      \
    }                                                                                                                 \
    int o = out;                                                                                                      \
    for (int r = 0; r < n; r++) {                                                                                     \
      o = name##_vectors(x + r * xs, in, w, b, out, y + r * ys, o4);                                                  \
      /* fused: the rest all to tail_rows8 (dense_tail_rows8_fma) */                                                  \
      for (; !FUSED && o + 4 <= out; o += 4) ne__mlp_dense_block4(x + r * xs, in, w, b, out, o, y + r * ys);          \
    }                                                                                                                 \
    return o;                                                                                                         \
  }                                                                                                                   \
  /* one forward: the last out % VL outputs in one masked vector (a small layer: one in all) */                       \
  attr static void name##_dense(const float* restrict x, int in, const float* restrict w, const float* restrict b,    \
                                int out, float* restrict y) {                                                         \
    int o = name##_vectors(x, in, w, b, out, y, 0);                                                                   \
    if (o < out) name##_rest(x, in, w, b, out, o, y);                                                                 \
  }                                                                                                                   \
  attr static void name##_activate(const ne_policy_spec* spec, float* y, int n) {                                     \
    int i = 0;                                                                                                        \
    if (ne__policy_hidden_float_tanh(spec)) {                                                                         \
      i = name##_tanh_float(y, n);                                                                                    \
      for (; i < n; i++) y[i] = FUSED ? ne__tanhf_float_fma_kernel(y[i]) : ne__tanhf_float_kernel(y[i]);              \
      return;                                                                                                         \
    }                                                                                                                 \
    if (spec->activation == NE_ACT_TANH) {                                                                            \
      for (; i + VL <= n; i += VL)                                                                                    \
        for (int j = 0; j < VL; j++) y[i + j] = ne__tanhf_kernel(y[i + j]);                                           \
      for (; i < n; i++) y[i] = ne__tanhf_kernel(y[i]);                                                               \
      return;                                                                                                         \
    }                                                                                                                 \
    for (; i < n; i++) y[i] = y[i] < 0.0f ? 0.0f : y[i];                                                              \
  }

// The last r = out - o < VL outputs of y = b + x W in one vector whose other lanes are masked off:
// each lane sums b, x0*w0, x1*w1, ... in ne__policy_dense's order (fused multiply-adds, or products
// and sums rounded separately under -ffp-contract=off), one chain per lane where ne__mlp_dense_tail runs up
// to three scalar ones plus the loop's branches. The lanes leave through a whole-vector store and
// float copies: the next layer or the head reads them one float at a time, which a masked store
// could not forward to (a masked store made a whole CartPole ES run ~9% slower here).
NE_TARGET_AVX512 static inline __attribute__((always_inline)) void rest_avx512(const float* restrict x, int in,
                                                                               const float* restrict w,
                                                                               const float* restrict b, int out, int o,
                                                                               float* restrict y, const int fused) {
  __mmask16 m = (__mmask16)((1u << (out - o)) - 1u);
  __m512 a = _mm512_maskz_loadu_ps(m, b + o);
  for (int i = 0; i < in; i++) {
    __m512 xi = _mm512_set1_ps(x[i]), wi = _mm512_maskz_loadu_ps(m, w + (size_t)i * (size_t)out + (size_t)o);
    a = fused ? _mm512_fmadd_ps(xi, wi, a) : _mm512_add_ps(a, _mm512_mul_ps(xi, wi));
  }
  float lanes[16];
  _mm512_storeu_ps(lanes, a);
  for (int k = 0; k < out - o; k++) y[o + k] = lanes[k];
}

NE_TARGET_AVX2 static inline __attribute__((always_inline)) void rest_avx2(const float* restrict x, int in,
                                                                           const float* restrict w,
                                                                           const float* restrict b, int out, int o,
                                                                           float* restrict y, const int fused) {
  __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(out - o), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256 a = _mm256_maskload_ps(b + o, m);
  for (int i = 0; i < in; i++) {
    __m256 xi = _mm256_set1_ps(x[i]), wi = _mm256_maskload_ps(w + (size_t)i * (size_t)out + (size_t)o, m);
    a = fused ? _mm256_fmadd_ps(xi, wi, a) : _mm256_add_ps(a, _mm256_mul_ps(xi, wi));
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, a);
  for (int k = 0; k < out - o; k++) y[o + k] = lanes[k];
}

#define REST_WRAPPER(name, attr, kernel, fused)                                                                     \
  attr static void name(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out, \
                        int o, float* restrict y) {                                                                 \
    kernel(x, in, w, b, out, o, y, fused);                                                                          \
  }
REST_WRAPPER(mlp_avx512_rest, NE_TARGET_AVX512, rest_avx512, 0)
REST_WRAPPER(mlp_avx512_fma_rest, NE_TARGET_AVX512, rest_avx512, 1)
REST_WRAPPER(mlp_avx2_rest, NE_TARGET_AVX2, rest_avx2, 0)
REST_WRAPPER(mlp_avx2_fma_rest, NE_TARGET_AVX2, rest_avx2, 1)

// The 4x4 transposes of 8 rows r[0..7] of floats within each 128-bit lane, for AVX2 and AVX-512
// (t[0..7]: scratch): afterwards r[k] (k < 4) holds, in each lane, element k of rows 0-3 (the
// lane's 4 inputs being 4L .. 4L + 3), r[k + 4] the same of rows 4-7.
#define TRANSPOSE_IN_LANES(r, t, UNPACKLO, UNPACKHI, SHUFFLE)                 \
  do {                                                                        \
    for (int k_ = 0; k_ < 8; k_ += 2) {                                       \
      (t)[k_] = UNPACKLO((r)[k_], (r)[k_ + 1]);                               \
      (t)[k_ + 1] = UNPACKHI((r)[k_], (r)[k_ + 1]);                           \
    }                                                                         \
    for (int k_ = 0; k_ < 8; k_ += 4)                                         \
      for (int h_ = 0; h_ < 2; h_++) {                                        \
        (r)[k_ + 2 * h_] = SHUFFLE((t)[k_ + h_], (t)[k_ + h_ + 2], 0x44);     \
        (r)[k_ + 2 * h_ + 1] = SHUFFLE((t)[k_ + h_], (t)[k_ + h_ + 2], 0xEE); \
      }                                                                       \
  } while (0)

// The last c = out - o (1-8, a constant after inlining) outputs of 8 rows of x (in floats apart)
// into 8 rows of y, one row per lane: lane r sums b, x_r0*w0, x_r1*w1, ... in ne__mlp_dense_tail's order,
// so c chains of in adds serve 8 rows where tail_rows4's 4c scalar chains serve 4. Each 8x8 block
// of inputs is transposed so that one input of all 8 rows is one vector.
NE_TARGET_AVX2 static inline __attribute__((always_inline)) __m256 madd8(__m256 x, __m256 w, __m256 a,
                                                                         const int fused) {
  return fused ? _mm256_fmadd_ps(x, w, a) : _mm256_add_ps(a, _mm256_mul_ps(x, w));
}

// Input i of 8 rows of x (in floats apart) as one vector, row r in lane r
NE_TARGET_AVX2 static inline __attribute__((always_inline)) __m256 column8(const float* restrict x, int in, int i) {
  return _mm256_setr_ps(x[i], x[(size_t)in + i], x[2 * (size_t)in + i], x[3 * (size_t)in + i], x[4 * (size_t)in + i],
                        x[5 * (size_t)in + i], x[6 * (size_t)in + i], x[7 * (size_t)in + i]);
}

NE_TARGET_AVX2 static inline __attribute__((always_inline)) void tail_rows8(const float* restrict x, int in,
                                                                            const float* restrict w,
                                                                            const float* restrict b, int out, int o,
                                                                            float* restrict y, const int c,
                                                                            const int fused) {
  __m256 acc[8];
  for (int k = 0; k < c; k++) acc[k] = _mm256_set1_ps(b[o + k]);
  int i = 0;
  for (; i + 8 <= in; i += 8) {
    __m256 r[8], t[8], col[8];
    for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(x + (size_t)k * (size_t)in + (size_t)i);
    TRANSPOSE_IN_LANES(r, t, _mm256_unpacklo_ps, _mm256_unpackhi_ps, _mm256_shuffle_ps);
    // r[0..3] hold rows 0-3's inputs (i, i+1 | i+4, i+5 ...) by halves, r[4..7] rows 4-7's
    for (int k = 0; k < 4; k++) {
      col[k] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x20);
      col[k + 4] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x31);
    }
    for (int j = 0; j < 8; j++) {
      const float* wr = w + (size_t)(i + j) * (size_t)out + (size_t)o;
      for (int k = 0; k < c; k++) acc[k] = madd8(col[j], _mm256_set1_ps(wr[k]), acc[k], fused);
    }
  }
  for (; i < in; i++) {
    __m256 col = column8(x, in, i);
    const float* wr = w + (size_t)i * (size_t)out + (size_t)o;
    for (int k = 0; k < c; k++) acc[k] = madd8(col, _mm256_set1_ps(wr[k]), acc[k], fused);
  }
  for (int k = 0; k < c; k++) {
    float lanes[8];
    _mm256_storeu_ps(lanes, acc[k]);
    for (int r = 0; r < 8; r++) y[(size_t)r * (size_t)out + (size_t)(o + k)] = lanes[r];
  }
}

// The outputs from o on of 8 rows, 8 at a time. The separate variants' rows leave the last 1-3 to
// this; the fused variants' every output after their whole vectors (1 to VL - 1): one FMA chain of
// `in` per output and 8 rows, where a row's 4-wide blocks would chain each row's own (FMA latency
// 4: a 17-64-64-6 batch of 8 rows took 311 ns a row that way on an Intel Xeon, against 270 ns for
// the separate roundings, whose adds chain faster).
NE_TARGET_AVX2 static inline __attribute__((always_inline)) void tails_rows8(const float* restrict x, int in,
                                                                             const float* restrict w,
                                                                             const float* restrict b, int out, int o,
                                                                             float* restrict y, const int fused) {
  for (; o < out; o += 8) switch (out - o) {
      case 1: tail_rows8(x, in, w, b, out, o, y, 1, fused); break;
      case 2: tail_rows8(x, in, w, b, out, o, y, 2, fused); break;
      case 3: tail_rows8(x, in, w, b, out, o, y, 3, fused); break;
      case 4: tail_rows8(x, in, w, b, out, o, y, 4, fused); break;
      case 5: tail_rows8(x, in, w, b, out, o, y, 5, fused); break;
      case 6: tail_rows8(x, in, w, b, out, o, y, 6, fused); break;
      case 7: tail_rows8(x, in, w, b, out, o, y, 7, fused); break;
      default: tail_rows8(x, in, w, b, out, o, y, 8, fused); break;
    }
}

// tail_rows8 of the fused AVX-512 variant with the tanh of its inputs folded in: x holds the last
// hidden layer's outputs before their activation, and each 16 inputs of 8 rows are transposed into 8
// zmm (inputs k and k + 4 of rows 0-7 in one, inputs 8 + k and 12 + k in another), put through the
// tanh 16 at a time and fed to the c output chains in input order. The chains' latency (in FMAs of
// 4 cycles) and the tanh's divisions (~10 cycles a zmm, one divider) then overlap, where the
// activation pass and the output pass each waited on their own (a 4-64-64-2 batch of 8: ~5 ns a
// row less on an Intel Xeon). Each element gets tanh_fma_avx512_vec's bits, so the sums are
// tail_rows8's. (On AVX2, a ymm tanh of each 8 rows' column inside tail_rows8 made the forward 4%
// faster alone but a whole rollout no faster: not kept.)
NE_TARGET_AVX512 static inline __attribute__((always_inline)) void tanh_block16(const float* restrict x, int in, int i,
                                                                                __m512 z[8]) {
  const __m512i low_lanes = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i high_lanes = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  __m512 r[8], t[8];
  for (int k = 0; k < 8; k++) r[k] = _mm512_loadu_ps(x + (size_t)k * (size_t)in + (size_t)i);
  // r[k] (k < 4) then holds input 4L + k of rows 0-3 in 128-bit lane L, r[k + 4] the same of rows 4-7
  TRANSPOSE_IN_LANES(r, t, _mm512_unpacklo_ps, _mm512_unpackhi_ps, _mm512_shuffle_ps);
  // z[k]: inputs k | 4 + k of rows 0-7, z[k + 4]: inputs 8 + k | 12 + k
  for (int k = 0; k < 4; k++) {
    z[k] = tanh_fma_avx512_vec(_mm512_permutex2var_ps(r[k], low_lanes, r[k + 4]));
    z[k + 4] = tanh_fma_avx512_vec(_mm512_permutex2var_ps(r[k], high_lanes, r[k + 4]));
  }
}

NE_TARGET_AVX512 static inline __attribute__((always_inline)) void tanh_tail_rows8(const float* restrict x, int in,
                                                                                   const float* restrict w,
                                                                                   const float* restrict b, int out,
                                                                                   float* restrict y, const int c) {
  __m256 acc[8];
  for (int k = 0; k < c; k++) acc[k] = _mm256_set1_ps(b[k]);
  int whole = in - in % 16;
  __m512 z[8], next[8];
  if (whole) tanh_block16(x, in, 0, next);
  for (int i = 0; i < whole; i += 16) {
    for (int k = 0; k < 8; k++) z[k] = next[k];
    // the next block's tanh first: its divisions then run while this block's chains wait on each other
    if (i + 16 < whole) tanh_block16(x, in, i + 16, next);
    for (int j = 0; j < 16; j++) {
      __m512 zj = z[(j & 3) + (j & 8) / 2];
      __m256 col = (j & 4) ? _mm512_extractf32x8_ps(zj, 1) : _mm512_castps512_ps256(zj);
      const float* wr = w + (size_t)(i + j) * (size_t)out;
      for (int k = 0; k < c; k++) acc[k] = madd8(col, _mm256_set1_ps(wr[k]), acc[k], 1);
    }
  }
  for (int i = whole; i < in; i++) {
    __m256 col = tanh_fma_avx2_vec(column8(x, in, i));
    const float* wr = w + (size_t)i * (size_t)out;
    for (int k = 0; k < c; k++) acc[k] = madd8(col, _mm256_set1_ps(wr[k]), acc[k], 1);
  }
  for (int k = 0; k < c; k++) {
    float lanes[8];
    _mm256_storeu_ps(lanes, acc[k]);
    for (int r = 0; r < 8; r++) y[(size_t)r * (size_t)out + (size_t)k] = lanes[r];
  }
}

// All out (1-8) outputs of 8 rows whose inputs still want the fused float tanh (tanh_tail_rows8)
NE_TARGET_AVX512 static void tanh_dense_rows8_avx512_fma(const float* restrict x, int in, const float* restrict w,
                                                         const float* restrict b, int out, float* restrict y) {
  switch (out) {
    case 1: tanh_tail_rows8(x, in, w, b, out, y, 1); break;
    case 2: tanh_tail_rows8(x, in, w, b, out, y, 2); break;
    case 3: tanh_tail_rows8(x, in, w, b, out, y, 3); break;
    case 4: tanh_tail_rows8(x, in, w, b, out, y, 4); break;
    case 5: tanh_tail_rows8(x, in, w, b, out, y, 5); break;
    case 6: tanh_tail_rows8(x, in, w, b, out, y, 6); break;
    case 7: tanh_tail_rows8(x, in, w, b, out, y, 7); break;
    default: tanh_tail_rows8(x, in, w, b, out, y, 8); break;
  }
}

NE_TARGET_AVX2 static void dense_tail_rows8(const float* restrict x, int in, const float* restrict w,
                                            const float* restrict b, int out, int o, float* restrict y) {
  tails_rows8(x, in, w, b, out, o, y, 0);
}

NE_TARGET_AVX2 static void dense_tail_rows8_fma(const float* restrict x, int in, const float* restrict w,
                                                const float* restrict b, int out, int o, float* restrict y) {
  tails_rows8(x, in, w, b, out, o, y, 1);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // the vectors never cross a real call
// rows per block in name##_blocks_rows: 4 rows' 4 accumulators + 4 weight vectors fit AVX-512's 32
// registers, 2 rows' fit AVX2's 16
#define mlp_avx2_ROWS 2
#define mlp_avx2_fma_ROWS 2
#define mlp_avx512_ROWS 4
#define mlp_avx512_fma_ROWS 4
#define mlp_avx2_tanh_float tanh_float_avx2
#define mlp_avx2_fma_tanh_float tanh_float_avx2_fma
#define mlp_avx512_tanh_float tanh_float_avx512
#define mlp_avx512_fma_tanh_float tanh_float_avx512_fma
MLP_VARIANT(mlp_avx2, NE_TARGET_AVX2, 8, _mm256_set1_ps, 0, _mm256_fmadd_ps)
MLP_VARIANT(mlp_avx2_fma, NE_TARGET_AVX2, 8, _mm256_set1_ps, 1, _mm256_fmadd_ps)
MLP_VARIANT(mlp_avx512, NE_TARGET_AVX512, 16, _mm512_set1_ps, 0, _mm512_fmadd_ps)
MLP_VARIANT(mlp_avx512_fma, NE_TARGET_AVX512, 16, _mm512_set1_ps, 1, _mm512_fmadd_ps)
#pragma GCC diagnostic pop

// clang-format off
const ne__mlp_table ne__mlp_avx2 = {{
    {mlp_avx2_dense, mlp_avx2_blocks_rows, mlp_avx2_activate, dense_tail_rows8, ne__mlp_dense_tail_rows4,
     ne__mlp_dense_tail, NULL},
    {mlp_avx2_fma_dense, mlp_avx2_fma_blocks_rows, mlp_avx2_fma_activate, dense_tail_rows8_fma, NULL,
     mlp_avx2_fma_rest, NULL},
}};
const ne__mlp_table ne__mlp_avx512 = {{
    {mlp_avx512_dense, mlp_avx512_blocks_rows, mlp_avx512_activate, dense_tail_rows8, ne__mlp_dense_tail_rows4,
     ne__mlp_dense_tail, NULL},
    {mlp_avx512_fma_dense, mlp_avx512_fma_blocks_rows, mlp_avx512_fma_activate, dense_tail_rows8_fma, NULL,
     mlp_avx512_fma_rest, tanh_dense_rows8_avx512_fma},
}};
// clang-format on
#endif
