// SPDX-License-Identifier: MIT
// MLP policies over one flat parameter vector (policy.h): spec validation, deterministic initial
// parameters (layer by layer, layers.c), and an allocation-free forward pass; conv specs are handed
// to conv.c.
// Workload: forward runs once per environment step of every rollout, so it is the hottest code in
// a run; it needs only caller scratch and gives the same bits on every SIMD path (no
// reassociation: each output sums b, x0*w0, x1*w1, ... in that order whatever the block size, each
// term a fused multiply-add with policy.fma, else a product and a sum rounded separately). The
// dense layers and the tanh are compiled for the baseline, AVX2 and AVX-512 (target attributes)
// and the widest the CPU has runs (core/cpu.h); they differ only in vector width.
#include <math.h>    // sqrt and fmaf (IEEE exact), isnan/isinf; no other libm call
#include <stdio.h>   // snprintf
#include <string.h>  // memset, strcmp

#include "core/cpu.h"  // which forward variant runs
#include "core/detmath.h"
#include "core/util.h"
#include "neuroevo/error.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "policy/policy_int.h"  // conv policies: dispatch by spec->kind, shared layer helpers

#define MAX_WIDTH (1 << 24)  // largest layer width accepted (keeps every index product in range)

// ---- names ---------------------------------------------------------------------------------------

static const char* const ACT_NAMES[] = {"tanh", "relu"};
static const char* const HEAD_NAMES[] = {"argmax", "tanh", "clip", "gaussian"};
static const char* const INIT_NAMES[] = {"normc", "xavier", "he", "zeros"};

// Index of s in names[0..n), or -1.
static int name_index(const char* s, const char* const* names, int n) {
  for (int i = 0; s && i < n; i++)
    if (strcmp(s, names[i]) == 0) return i;
  return -1;
}

int ne_activation_parse(const char* s, ne_activation* out) {
  int i = name_index(s, ACT_NAMES, 2);
  if (i < 0) return NE_EINVAL;
  *out = (ne_activation)i;
  return 0;
}

int ne_head_parse(const char* s, ne_head* out) {
  int i = name_index(s, HEAD_NAMES, 4);
  if (i < 0) return NE_EINVAL;
  *out = (ne_head)i;
  return 0;
}

int ne_init_parse(const char* s, ne_init* out) {
  int i = name_index(s, INIT_NAMES, 4);
  if (i < 0) return NE_EINVAL;
  *out = (ne_init)i;
  return 0;
}

const char* ne_activation_name(ne_activation a) { return (unsigned)a < 2 ? ACT_NAMES[a] : "invalid"; }
const char* ne_head_name(ne_head h) { return (unsigned)h < 4 ? HEAD_NAMES[h] : "invalid"; }
const char* ne_init_name(ne_init i) { return (unsigned)i < 4 ? INIT_NAMES[i] : "invalid"; }

// ---- spec ----------------------------------------------------------------------------------------

// Checks the action bounds of a continuous head and copies them into the spec.
static int set_bounds(ne_policy_spec* spec, int out_dim, const float* low, const float* high, char* errstr) {
  const char* head = ne_head_name(spec->head);
  if (out_dim > NE_POLICY_MAX_ACT)
    return ne__set_error(errstr, NE_EINVAL, "policy: action dimension %d exceeds %d (%s head)", out_dim,
                         NE_POLICY_MAX_ACT, head);
  if (!low || !high)
    return ne__set_error(errstr, NE_EINVAL, "policy: the %s head needs action bounds (low and high)", head);
  for (int i = 0; i < out_dim; i++) {
    if (isnan(low[i]) || isnan(high[i]))
      return ne__set_error(errstr, NE_EINVAL, "policy: action bound %d is NaN (low %g, high %g)", i, low[i], high[i]);
    if (low[i] > high[i])
      return ne__set_error(errstr, NE_EINVAL, "policy: action bound %d has low %g > high %g", i, low[i], high[i]);
    // tanh and gaussian are rescaled onto [low, high], which needs a finite interval; clip can be unbounded
    if ((spec->head == NE_HEAD_TANH || spec->head == NE_HEAD_GAUSSIAN) && (isinf(low[i]) || isinf(high[i])))
      return ne__set_error(errstr, NE_EINVAL,
                           "policy: action bound %d is infinite (low %g, high %g); the %s head needs finite bounds", i,
                           low[i], high[i], head);
    spec->act_low[i] = low[i];
    spec->act_high[i] = high[i];
  }
  spec->act_dim = out_dim;
  return 0;
}

// Checks one layer width; `what` names it in the message.
static int check_width(int w, const char* what, int index, char* errstr) {
  if (w >= 1 && w <= MAX_WIDTH) return 0;
  if (index < 0) return ne__set_error(errstr, NE_EINVAL, "policy: %s = %d must be in [1, %d]", what, w, MAX_WIDTH);
  return ne__set_error(errstr, NE_EINVAL, "policy: %s[%d] = %d must be in [1, %d]", what, index, w, MAX_WIDTH);
}

// Derives n_params and scratch_floats from the sizes.
static void set_derived(ne_policy_spec* spec) {
  size_t n = 0, widest = 0;
  for (int l = 0; l < spec->n_layers; l++) {
    size_t in = (size_t)spec->sizes[l], out = (size_t)spec->sizes[l + 1];
    n += in * out + out;
    if (out > widest) widest = out;
  }
  // gaussian head: one log standard deviation per action after the layers
  if (spec->head == NE_HEAD_GAUSSIAN) n += (size_t)spec->act_dim;
  spec->n_params = n;
  spec->scratch_floats = 2 * widest;  // ping-pong between two layer outputs
}

int ne_policy_spec_init(ne_policy_spec* spec, int obs_dim, const int* hidden, int n_hidden, int out_dim,
                        ne_activation activation, ne_head head, ne_init init, const float* low, const float* high,
                        char* errstr) {
  memset(spec, 0, sizeof *spec);
  // enums and layer counts
  if ((unsigned)activation > NE_ACT_RELU)
    return ne__set_error(errstr, NE_EINVAL, "policy: activation %d is not tanh or relu", (int)activation);
  if ((unsigned)head > NE_HEAD_GAUSSIAN)
    return ne__set_error(errstr, NE_EINVAL, "policy: head %d is not argmax, tanh, clip or gaussian", (int)head);
  if ((unsigned)init > NE_INIT_ZEROS)
    return ne__set_error(errstr, NE_EINVAL, "policy: init %d is not normc, xavier, he or zeros", (int)init);
  if (n_hidden < 0 || n_hidden > NE_POLICY_MAX_LAYERS - 1)
    return ne__set_error(errstr, NE_EINVAL, "policy: %d hidden layers; allowed 0 to %d", n_hidden,
                         NE_POLICY_MAX_LAYERS - 1);
  if (n_hidden > 0 && !hidden)
    return ne__set_error(errstr, NE_EINVAL, "policy: %d hidden layers but no sizes given", n_hidden);
  // layer widths
  int rc = check_width(obs_dim, "observation size", -1, errstr);
  for (int i = 0; rc == 0 && i < n_hidden; i++) rc = check_width(hidden[i], "hidden", i, errstr);
  if (rc == 0) rc = check_width(out_dim, head == NE_HEAD_ARGMAX ? "number of actions" : "action dimension", -1, errstr);
  if (rc != 0) return rc;
  spec->n_layers = n_hidden + 1;
  spec->sizes[0] = obs_dim;
  for (int i = 0; i < n_hidden; i++) spec->sizes[i + 1] = hidden[i];
  spec->sizes[n_hidden + 1] = out_dim;
  spec->activation = activation;
  spec->head = head;
  spec->init = init;
  // the head decides what forward writes
  if (head == NE_HEAD_ARGMAX) spec->act_dim = 1;
  else if ((rc = set_bounds(spec, out_dim, low, high, errstr)) != 0) return rc;
  set_derived(spec);
  return 0;
}

int ne_policy_spec_format(const ne_policy_spec* spec, char* buf, size_t size) {
  if (spec->kind == NE_POLICY_CONV) return ne__conv_format(spec, buf, size);  // src/policy/conv.c
  char sizes[NE_POLICY_MAX_LAYERS * 12 + 16];
  size_t len = 0;
  for (int l = 0; l <= spec->n_layers && len < sizeof sizes; l++)
    len += (size_t)snprintf(sizes + len, sizeof sizes - len, l ? "-%d" : "%d", spec->sizes[l]);
  // " fma" only when fused: a description without it is what every MLP was before policy.fma existed
  return snprintf(buf, size, "mlp %s %s %s %s%s%s", sizes, ne_activation_name(spec->activation),
                  ne_head_name(spec->head), ne_init_name(spec->init), ne__policy_tanh_suffix(spec),
                  spec->fma ? " fma" : "");
}

// ---- initial parameters --------------------------------------------------------------------------

void ne_policy_init_params(const ne_policy_spec* spec, uint64_t seed, float* out) {
  if (spec->kind == NE_POLICY_CONV) {  // src/policy/conv.c
    ne__conv_init_params(spec, seed, out);
    return;
  }
  float* p = out;
  for (int l = 0; l < spec->n_layers; l++) {
    int in = spec->sizes[l], o = spec->sizes[l + 1];
    ne__policy_init_layer(spec->init, seed, l, in, o, l == spec->n_layers - 1, p);
    p += (size_t)in * (size_t)o + (size_t)o;
  }
  // gaussian head: every log standard deviation starts at policy.init_log_std (MAML: log(init_std))
  if (spec->head == NE_HEAD_GAUSSIAN)
    for (int i = 0; i < spec->act_dim; i++) p[i] = spec->init_log_std;
}

// ---- forward -------------------------------------------------------------------------------------

// Four floats as one GNU C vector (gcc and clang; the codebase already relies on GNU attributes).
// Written out explicitly because plain loops vectorize at -O2 but not at -O3, where gcc unrolls the
// short inner loops first; element-wise * and + round exactly like the scalar operations.
typedef float f4 __attribute__((vector_size(16)));

static inline f4 load4(const float* p) {
  f4 v;
  memcpy(&v, p, sizeof v);  // unaligned load
  return v;
}

static inline void store4(float* p, f4 v) { memcpy(p, &v, sizeof v); }

static inline f4 splat4(float x) { return (f4){x, x, x, x}; }

// y[o .. o+16) = b + x W for one block of 16 outputs: four accumulators in registers across the
// whole input loop.
static void dense_block16(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                          int o, float* restrict y) {
  f4 a0 = load4(b + o), a1 = load4(b + o + 4), a2 = load4(b + o + 8), a3 = load4(b + o + 12);
  for (int i = 0; i < in; i++) {
    const float* wr = w + (size_t)i * (size_t)out + (size_t)o;
    f4 xi = splat4(x[i]);
    a0 += xi * load4(wr);
    a1 += xi * load4(wr + 4);
    a2 += xi * load4(wr + 8);
    a3 += xi * load4(wr + 12);
  }
  store4(y + o, a0), store4(y + o + 4, a1), store4(y + o + 8, a2), store4(y + o + 12, a3);
}

// The same for a block of 4 outputs.
static void dense_block4(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                         int o, float* restrict y) {
  f4 a0 = load4(b + o);
  for (int i = 0; i < in; i++) a0 += splat4(x[i]) * load4(w + (size_t)i * (size_t)out + (size_t)o);
  store4(y + o, a0);
}

// The last 1-3 outputs, accumulated together so that their addition chains overlap (one chain of
// `in` dependent adds per output would otherwise run back to back).
static void dense_tail(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                       int o, float* restrict y) {
  int r = out - o;
  float a0 = b[o], a1 = r > 1 ? b[o + 1] : 0.0f, a2 = r > 2 ? b[o + 2] : 0.0f;
  for (int i = 0; i < in; i++) {
    const float xi = x[i], *wr = w + (size_t)i * (size_t)out + (size_t)o;
    a0 += xi * wr[0];
    if (r > 1) a1 += xi * wr[1];
    if (r > 2) a2 += xi * wr[2];
  }
  y[o] = a0;
  if (r > 1) y[o + 1] = a1;
  if (r > 2) y[o + 2] = a2;
}

// The last 1-3 outputs of 4 rows of x (in floats apart) into 4 rows of y (out floats apart), c
// outputs each (a constant after inlining, so the 4c accumulators stay in registers): the rows'
// addition chains are independent, so they overlap where one row's run back to back. Each output
// sums in dense_tail's order.
static inline __attribute__((always_inline)) void tail_rows4(const float* restrict x, int in, const float* restrict w,
                                                             const float* restrict b, int out, int o, float* restrict y,
                                                             const int c) {
  float a[4][3];
  for (int r = 0; r < 4; r++)
    for (int k = 0; k < c; k++) a[r][k] = b[o + k];
  for (int i = 0; i < in; i++) {
    const float* wr = w + (size_t)i * (size_t)out + (size_t)o;
    for (int k = 0; k < c; k++)
      for (int r = 0; r < 4; r++) a[r][k] += x[(size_t)r * (size_t)in + (size_t)i] * wr[k];
  }
  for (int r = 0; r < 4; r++)
    for (int k = 0; k < c; k++) y[(size_t)r * (size_t)out + (size_t)(o + k)] = a[r][k];
}

static void dense_tail_rows4(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                             int o, float* restrict y) {
  switch (out - o) {
    case 1: tail_rows4(x, in, w, b, out, o, y, 1); break;
    case 2: tail_rows4(x, in, w, b, out, o, y, 2); break;
    default: tail_rows4(x, in, w, b, out, o, y, 3); break;
  }
}

// The outputs of y = b + x W before the last 1-3 (blocks of 16, then 4); returns where they start.
static int dense_blocks(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                        float* restrict y) {
  int o = 0;
  for (; o + 16 <= out; o += 16) dense_block16(x, in, w, b, out, o, y);
  for (; o + 4 <= out; o += 4) dense_block4(x, in, w, b, out, o, y);
  return o;
}

// dense_blocks for n rows of x (in floats apart) into n rows of y (out floats apart)
static int dense_blocks_rows(const float* restrict x, int n, int in, const float* restrict w, const float* restrict b,
                             int out, float* restrict y) {
  int o = out;
  for (int r = 0; r < n; r++) o = dense_blocks(x + (size_t)r * (size_t)in, in, w, b, out, y + (size_t)r * (size_t)out);
  return o;
}

// y = b + x W for W (in, out) input-major: blocks of 16 outputs, then 4, then the last 1-3. Each
// output sums b, x0*w0, x1*w1, ... in that order (products rounded to float, no FMA) in every path,
// so the result does not depend on the block size or the vector width.
static void dense_separate(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                           float* restrict y) {
  int o = dense_blocks(x, in, w, b, out, y);
  if (o < out) dense_tail(x, in, w, b, out, o, y);
}

// The same sums with each multiply-add fused (policy.fma): b, then fmaf(x_i, w_i, sum) for i = 0,
// 1, ..., one rounding a term. fmaf is exactly rounded wherever it runs (an instruction, or libm's
// emulation on a CPU without one), so every path gives these bits; the vector variants' FMA
// instructions compute the same.
static void dense_fused(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                        float* restrict y) {
  int o = 0;
  for (; o + 4 <= out; o += 4) {
    float a0 = b[o], a1 = b[o + 1], a2 = b[o + 2], a3 = b[o + 3];
    for (int i = 0; i < in; i++) {
      const float xi = x[i], *wr = w + (size_t)i * (size_t)out + (size_t)o;
      a0 = fmaf(xi, wr[0], a0), a1 = fmaf(xi, wr[1], a1), a2 = fmaf(xi, wr[2], a2), a3 = fmaf(xi, wr[3], a3);
    }
    y[o] = a0, y[o + 1] = a1, y[o + 2] = a2, y[o + 3] = a3;
  }
  for (; o < out; o++) {
    float a = b[o];
    for (int i = 0; i < in; i++) a = fmaf(x[i], w[(size_t)i * (size_t)out + (size_t)o], a);
    y[o] = a;
  }
}

// dense_fused for n rows of x (in floats apart) into n rows of y (out floats apart): all outputs
static int dense_fused_rows(const float* restrict x, int n, int in, const float* restrict w, const float* restrict b,
                            int out, float* restrict y) {
  for (int r = 0; r < n; r++) dense_fused(x + (size_t)r * (size_t)in, in, w, b, out, y + (size_t)r * (size_t)out);
  return out;
}

// ---- wider variants ------------------------------------------------------------------------------

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86_VARIANTS 1
#include <immintrin.h>

#include "policy/tanh_simd.h"  // AVX2_FMA, AVX512_FMA, the float tanh on one vector

// A tanh above over y[0..n) in whole vectors; returns where the rest (< VL) starts.
#define TANH_ARRAY(name, attr, VL, LOAD, STORE, VEC)             \
  attr static int name(float* y, int n) {                        \
    int i = 0;                                                   \
    for (; i + VL <= n; i += VL) STORE(y + i, VEC(LOAD(y + i))); \
    return i;                                                    \
  }
TANH_ARRAY(tanh_float_avx2, AVX2_FMA, 8, _mm256_loadu_ps, _mm256_storeu_ps, tanh_float_avx2_vec)
TANH_ARRAY(tanh_float_avx512, AVX512_FMA, 16, _mm512_loadu_ps, _mm512_storeu_ps, tanh_float_avx512_vec)
TANH_ARRAY(tanh_float_avx2_fma, AVX2_FMA, 8, _mm256_loadu_ps, _mm256_storeu_ps, tanh_fma_avx2_vec)
TANH_ARRAY(tanh_float_avx512_fma, AVX512_FMA, 16, _mm512_loadu_ps, _mm512_storeu_ps, tanh_fma_avx512_vec)

// The dense layer and the activation at vector width VL (8: AVX2, 16: AVX-512): blocks of 8, then 4
// vectors of outputs with their accumulators held across the input loop, then blocks of VL, then
// the rest: one masked vector in a single forward (name##_rest), blocks of 4 (separate roundings)
// and mlp_kernels' tails in a batched one; the same sums in the same order as ne__policy_dense().
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
      for (; !FUSED && o + 4 <= out; o += 4) dense_block4(x + r * xs, in, w, b, out, o, y + r * ys);                  \
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
// and sums rounded separately under -ffp-contract=off), one chain per lane where dense_tail runs up
// to three scalar ones plus the loop's branches. The lanes leave through a whole-vector store and
// float copies: the next layer or the head reads them one float at a time, which a masked store
// could not forward to (a masked store made a whole CartPole ES run ~9% slower here).
AVX512_FMA static inline __attribute__((always_inline)) void rest_avx512(const float* restrict x, int in,
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

AVX2_FMA static inline __attribute__((always_inline)) void rest_avx2(const float* restrict x, int in,
                                                                     const float* restrict w, const float* restrict b,
                                                                     int out, int o, float* restrict y,
                                                                     const int fused) {
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
REST_WRAPPER(mlp_avx512_rest, AVX512_FMA, rest_avx512, 0)
REST_WRAPPER(mlp_avx512_fma_rest, AVX512_FMA, rest_avx512, 1)
REST_WRAPPER(mlp_avx2_rest, AVX2_FMA, rest_avx2, 0)
REST_WRAPPER(mlp_avx2_fma_rest, AVX2_FMA, rest_avx2, 1)

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
// into 8 rows of y, one row per lane: lane r sums b, x_r0*w0, x_r1*w1, ... in dense_tail's order,
// so c chains of in adds serve 8 rows where tail_rows4's 4c scalar chains serve 4. Each 8x8 block
// of inputs is transposed so that one input of all 8 rows is one vector.
AVX2_FMA static inline __attribute__((always_inline)) __m256 madd8(__m256 x, __m256 w, __m256 a, const int fused) {
  return fused ? _mm256_fmadd_ps(x, w, a) : _mm256_add_ps(a, _mm256_mul_ps(x, w));
}

// Input i of 8 rows of x (in floats apart) as one vector, row r in lane r
AVX2_FMA static inline __attribute__((always_inline)) __m256 column8(const float* restrict x, int in, int i) {
  return _mm256_setr_ps(x[i], x[(size_t)in + i], x[2 * (size_t)in + i], x[3 * (size_t)in + i], x[4 * (size_t)in + i],
                        x[5 * (size_t)in + i], x[6 * (size_t)in + i], x[7 * (size_t)in + i]);
}

AVX2_FMA static inline __attribute__((always_inline)) void tail_rows8(const float* restrict x, int in,
                                                                      const float* restrict w, const float* restrict b,
                                                                      int out, int o, float* restrict y, const int c,
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
AVX2_FMA static inline __attribute__((always_inline)) void tails_rows8(const float* restrict x, int in,
                                                                       const float* restrict w, const float* restrict b,
                                                                       int out, int o, float* restrict y,
                                                                       const int fused) {
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
AVX512_FMA static inline __attribute__((always_inline)) void tanh_block16(const float* restrict x, int in, int i,
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

AVX512_FMA static inline __attribute__((always_inline)) void tanh_tail_rows8(const float* restrict x, int in,
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
AVX512_FMA static void tanh_dense_rows8_avx512_fma(const float* restrict x, int in, const float* restrict w,
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

AVX2_FMA static void dense_tail_rows8(const float* restrict x, int in, const float* restrict w, const float* restrict b,
                                      int out, int o, float* restrict y) {
  tails_rows8(x, in, w, b, out, o, y, 0);
}

AVX2_FMA static void dense_tail_rows8_fma(const float* restrict x, int in, const float* restrict w,
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
MLP_VARIANT(mlp_avx2, AVX2_FMA, 8, _mm256_set1_ps, 0, _mm256_fmadd_ps)
MLP_VARIANT(mlp_avx2_fma, AVX2_FMA, 8, _mm256_set1_ps, 1, _mm256_fmadd_ps)
MLP_VARIANT(mlp_avx512, AVX512_FMA, 16, _mm512_set1_ps, 0, _mm512_fmadd_ps)
MLP_VARIANT(mlp_avx512_fma, AVX512_FMA, 16, _mm512_set1_ps, 1, _mm512_fmadd_ps)
#pragma GCC diagnostic pop
#endif

typedef void (*dense_fn)(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                         float* restrict y);
typedef int (*blocks_rows_fn)(const float* restrict x, int n, int in, const float* restrict w, const float* restrict b,
                              int out, float* restrict y);
typedef void (*activate_fn)(const ne_policy_spec* spec, float* y, int n);
typedef void (*tail_rows_fn)(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                             int o, float* restrict y);
typedef void (*tanh_rows8_fn)(const float* restrict x, int in, const float* restrict w, const float* restrict b,
                              int out, float* restrict y);

// The kernels of the SIMD level in use (core/cpu.h) for one rounding (fused multiply-adds or not):
// the dense layer, its outputs but the last few (batched forwards do those rows together:
// blocks_rows returns where they start), the activation, and those last outputs of 8 rows, of 4
// and of one; and, for the float tanh with fused multiply-adds on AVX-512, a small output layer
// (up to 8 outputs) of 8 rows that takes the tanh of its inputs on the way.
typedef struct mlp_kernels {
  dense_fn dense;
  blocks_rows_fn blocks_rows;
  activate_fn activate;
  tail_rows_fn tail_rows8;  // NULL: none
  tail_rows_fn tail_rows4;  // NULL: none
  tail_rows_fn tail_row;
  tanh_rows8_fn tanh_dense_rows8;  // NULL: none
} mlp_kernels;

static mlp_kernels pick_variant(const ne_policy_spec* spec) {
#ifdef HAVE_X86_VARIANTS
  int level = ne__simd_level();
  if (level >= NE_SIMD_AVX512 && spec->fma)
    return (mlp_kernels){
        mlp_avx512_fma_dense, mlp_avx512_fma_blocks_rows, mlp_avx512_fma_activate, dense_tail_rows8_fma, NULL,
        mlp_avx512_fma_rest,  tanh_dense_rows8_avx512_fma};
  if (level >= NE_SIMD_AVX512)
    return (mlp_kernels){mlp_avx512_dense,
                         mlp_avx512_blocks_rows,
                         mlp_avx512_activate,
                         dense_tail_rows8,
                         dense_tail_rows4,
                         dense_tail,
                         NULL};
  if (level == NE_SIMD_AVX2 && spec->fma)
    return (mlp_kernels){mlp_avx2_fma_dense,
                         mlp_avx2_fma_blocks_rows,
                         mlp_avx2_fma_activate,
                         dense_tail_rows8_fma,
                         NULL,
                         mlp_avx2_fma_rest,
                         NULL};
  if (level == NE_SIMD_AVX2)
    return (mlp_kernels){
        mlp_avx2_dense, mlp_avx2_blocks_rows, mlp_avx2_activate, dense_tail_rows8, dense_tail_rows4, dense_tail, NULL};
#endif
  // the baseline (ne__policy_activate: policy_int.h); dense_fused_rows leaves no tail
  if (spec->fma) return (mlp_kernels){dense_fused, dense_fused_rows, ne__policy_activate, NULL, NULL, NULL, NULL};
  return (mlp_kernels){
      dense_separate, dense_blocks_rows, ne__policy_activate, NULL, dense_tail_rows4, dense_tail, NULL};
}

void ne__policy_dense(const ne_policy_spec* spec, const float* restrict x, int in, const float* restrict w,
                      const float* restrict b, int out, float* restrict y) {
  pick_variant(spec).dense(x, in, w, b, out, y);
}

void ne__policy_activate_simd(const ne_policy_spec* spec, float* y, int n) { pick_variant(spec).activate(spec, y, n); }

void ne_policy_forward(const ne_policy_spec* spec, const float* params, const float* obs, float* scratch,
                       float* action) {
  if (spec->kind == NE_POLICY_CONV) {  // src/policy/conv.c: a batch of one
    ne__conv_forward_batch(spec, params, obs, 1, scratch, action);
    return;
  }
  const float* x = obs;
  const float* p = params;
  size_t half = spec->scratch_floats / 2;
  mlp_kernels k = pick_variant(spec);
  // layer l writes into one half of scratch and reads the other (or the observation)
  for (int l = 0; l < spec->n_layers; l++) {
    int in = spec->sizes[l], out = spec->sizes[l + 1];
    float* y = scratch + (l & 1) * half;
    k.dense(x, in, p, p + (size_t)in * (size_t)out, out, y);
    if (l < spec->n_layers - 1) k.activate(spec, y, out);
    p += (size_t)in * (size_t)out + (size_t)out;
    x = y;
  }
  ne__policy_head(spec, x, action);
}

// One MLP layer over n rows: each row's outputs but the last 1-3 as forward computes them, then
// those last few 8 or 4 rows at a time (their short addition chains overlap: a CartPole 64-2 output
// layer costs ~0.6x as much a row), the same sums in the same order.
static void dense_rows(const mlp_kernels* k, const float* x, int n, int in, const float* w, const float* b, int out,
                       float* y) {
  size_t xs = (size_t)in, ys = (size_t)out;
  int o = k->blocks_rows(x, n, in, w, b, out, y);
  if (o == out) return;
  int r = 0;
  if (k->tail_rows8)
    for (; r + 8 <= n; r += 8) k->tail_rows8(x + r * xs, in, w, b, out, o, y + r * ys);
  if (k->tail_rows4)
    for (; r + 4 <= n; r += 4) k->tail_rows4(x + r * xs, in, w, b, out, o, y + r * ys);
  for (; r < n; r++) k->tail_row(x + r * xs, in, w, b, out, o, y + r * ys);
}

// How many of n rows (the first) layer l of one shared vector runs through a kernel that takes the
// tanh of its inputs itself (mlp_kernels' tanh_dense_rows8: the output layer after a hidden tanh
// computed in float, up to 8 outputs, 8 rows at a time): 0 where none applies.
static int tanh_input_rows(const ne_policy_spec* spec, const mlp_kernels* k, int l, int n) {
  if (!k->tanh_dense_rows8 || !ne__policy_hidden_float_tanh(spec) || l == 0 || l != spec->n_layers - 1 ||
      spec->sizes[l + 1] > 8)
    return 0;
  return n - n % 8;
}

// An MLP over n rows, layer by layer: with one shared vector (rows == NULL) each layer through
// dense_rows, else each row through forward's own kernel with its parameters rows[r]; then the
// activation over all rows at once and the head per row. Each row gets forward's bits (the same
// sums in the same order, the same activation per element).
static void mlp_rows(const ne_policy_spec* spec, const float* shared, const float* const* rows, const float* obs, int n,
                     float* scratch, float* actions) {
  const float* x = obs;
  size_t offset = 0;                                     // of this layer's parameters
  size_t half = (size_t)n * (spec->scratch_floats / 2);  // n rows of the widest layer
  mlp_kernels k = pick_variant(spec);
  int last = spec->n_layers - 1;
  for (int l = 0; l < spec->n_layers; l++) {
    int in = spec->sizes[l], out = spec->sizes[l + 1];
    size_t bias = (size_t)in * (size_t)out;
    float* y = scratch + (l & 1) * half;
    if (!rows) {
      const float* w = shared + offset;
      int own = tanh_input_rows(spec, &k, l, n);  // the rows whose inputs' tanh this layer takes
      for (int r = 0; r < own; r += 8)
        k.tanh_dense_rows8(x + (size_t)r * (size_t)in, in, w, w + bias, out, y + (size_t)r * (size_t)out);
      if (own < n)
        dense_rows(&k, x + (size_t)own * (size_t)in, n - own, in, w, w + bias, out, y + (size_t)own * (size_t)out);
    } else {
      for (int r = 0; r < n; r++)
        k.dense(x + (size_t)r * (size_t)in, in, rows[r] + offset, rows[r] + offset + bias, out,
                y + (size_t)r * (size_t)out);
    }
    if (l < last) {  // but the rows whose tanh the next layer takes
      size_t skip = rows ? 0 : (size_t)tanh_input_rows(spec, &k, l + 1, n) * (size_t)out;
      k.activate(spec, y + skip, (int)((size_t)n * (size_t)out - skip));
    }
    offset += bias + (size_t)out;
    x = y;
  }
  int out = spec->sizes[spec->n_layers];
  for (int i = 0; i < n; i++)
    ne__policy_head(spec, x + (size_t)i * (size_t)out, actions + (size_t)i * (size_t)spec->act_dim);
}

// conv policies batch whole layers (conv.c); an MLP too, layer by layer over all n rows
void ne_policy_forward_batch(const ne_policy_spec* spec, const float* params, const float* obs, int n, float* scratch,
                             float* actions) {
  if (spec->kind == NE_POLICY_CONV) {
    ne__conv_forward_batch(spec, params, obs, n, scratch, actions);
    return;
  }
  if (n == 1) {
    ne_policy_forward(spec, params, obs, scratch, actions);
    return;
  }
  mlp_rows(spec, params, NULL, obs, n, scratch, actions);
}

// MLPs layer by layer over all rows, each row through forward's own kernels (so its bits)
void ne_policy_forward_rows(const ne_policy_spec* spec, const float* const* params, const float* obs, int n,
                            float* scratch, float* actions) {
  if (spec->kind == NE_POLICY_CONV) {
    const ne_conv_layer* in = &spec->conv[0];
    size_t d = (size_t)in->in_h * (size_t)in->in_w * (size_t)in->in_c;
    for (int i = 0; i < n; i++)
      ne_policy_forward(spec, params[i], obs + (size_t)i * d, scratch, actions + (size_t)i * (size_t)spec->act_dim);
    return;
  }
  mlp_rows(spec, NULL, params, obs, n, scratch, actions);
}

size_t ne_policy_batch_scratch_floats(const ne_policy_spec* spec, int n) {
  return (size_t)(n > 0 ? n : 1) * spec->scratch_floats;
}
