// SPDX-License-Identifier: MIT
// Conv policies (conv.h): spec building, presets, initial parameters and an allocation-free forward
// over a batch of observations. Every layer, conv or dense, is one matrix product Y = b + X W
// whose rows are image patches read in place (an implicit im2col: a patch is `kernel` contiguous
// runs of kernel*C floats of the HWC input), so no patch matrix is ever built.
//
// Workload: Atari's Nature net is ~9.3 M multiply-adds per frame, so this is where Deep GA on
// pixels spends its time. The kernel keeps a block of Y in registers over the whole K loop (6 rows
// x 32 columns under AVX-512, 6 x 16 under AVX2: conv_x86.c; 4 x 8 in the portable build, SSE2 on
// x86-64); the variants are compiled from one source (conv_int.h) and picked by the SIMD level
// (core/simd.h). Determinism: each output is b + x0*w0 + x1*w1 + ... in k order, products
// rounded to float, no FMA (-ffp-contract=off), in every variant and tail path, so the bits do not
// depend on the CPU, the batch size, the block position or the thread count. (OpenBLAS was
// measured for comparison, bench/micro/bench_pixels.c, but its kernels pick FMA and blocking per CPU,
// which would make fitness depend on the machine.)
#include <stdio.h>   // snprintf
#include <stdlib.h>  // strtol
#include <string.h>  // memcpy, memset

#include "core/util.h"  // ne__set_error
#include "neuroevo/conv.h"
#include "neuroevo/error.h"
#include "policy/conv_int.h"  // the matrix kernel and its table (core/simd.h)
#include "policy/policy_int.h"

#define MAX_DIM (1 << 16)    // largest image side / channel count / filter count accepted
#define MAX_WIDTH (1 << 24)  // largest dense width (as mlp.c)

// ---- presets -------------------------------------------------------------------------------------

static const ne_conv_preset PRESETS[] = {
    {"nature",
     "32x8x8/4,64x4x4/2,64x3x3/1",
     {512, 0},
     1,
     "DQN Nature net (Mnih et al. 2015), used by the Deep GA (Such et al. 2017): 3 conv + 512 dense, ReLU"},
    {"minatar", "16x3x3/1", {128, 0}, 1, "MinAtar's net (Young & Tian 2019): 16x3x3 conv + 128 dense, ReLU"},
};
#define N_PRESETS ((int)(sizeof PRESETS / sizeof PRESETS[0]))

const ne_conv_preset* ne_conv_preset_at(int i) { return i >= 0 && i < N_PRESETS ? &PRESETS[i] : NULL; }

const ne_conv_preset* ne_conv_preset_find(const char* name) {
  for (int i = 0; name && i < N_PRESETS; i++)
    if (strcmp(PRESETS[i].name, name) == 0) return &PRESETS[i];
  return NULL;
}

// ---- parsing ---------------------------------------------------------------------------------------

// Reads a decimal integer in [1, MAX_DIM] at *p and moves past it; -1 if there is none.
static int read_dim(const char** p) {
  if (**p < '0' || **p > '9') return -1;
  char* end;
  long v = strtol(*p, &end, 10);
  *p = end;
  return v >= 1 && v <= MAX_DIM ? (int)v : -1;
}

// Parses one "FxKxK[/S]" item of length len at s into *out; 0 or -1.
static int parse_item(const char* s, size_t len, ne_conv_layer* out) {
  const char *p = s, *end = s + len;
  memset(out, 0, sizeof *out);
  int f = read_dim(&p);
  if (f < 0 || p >= end || *p++ != 'x') return -1;
  int k1 = read_dim(&p);
  if (k1 < 0 || p >= end || *p++ != 'x') return -1;
  int k2 = read_dim(&p);
  if (k2 < 0 || k2 != k1) return -1;  // square kernels only
  int stride = 1;
  if (p < end && *p == '/') {
    p++;
    if ((stride = read_dim(&p)) < 0) return -1;
  }
  if (p != end) return -1;
  out->filters = f, out->kernel = k1, out->stride = stride;
  return 0;
}

int ne_conv_parse(const char* text, ne_conv_layer* out, int max, char* errstr) {
  if (!text) return ne__set_error(errstr, NE_EINVAL, "policy.conv: no conv layers given");
  int n = 0;
  const char* s = text;
  // comma-separated items; blanks around them are allowed
  while (*s) {
    while (*s == ' ') s++;
    size_t len = strcspn(s, ", ");
    if (len == 0)
      return ne__set_error(errstr, NE_EINVAL, "policy.conv = '%s': empty layer (expected e.g. 32x8x8/4,64x4x4/2)",
                           text);
    if (n >= max) return ne__set_error(errstr, NE_EINVAL, "policy.conv = '%s': more than %d conv layers", text, max);
    if (parse_item(s, len, &out[n]) != 0)
      return ne__set_error(errstr, NE_EINVAL,
                           "policy.conv = '%s': bad layer '%.*s' (expected FILTERSxKxK/STRIDE, e.g. 32x8x8/4, "
                           "square kernels, sizes in [1, %d])",
                           text, (int)len, s, MAX_DIM);
    n++;
    s += len;
    while (*s == ' ') s++;
    if (*s == ',') s++;
  }
  if (n == 0) return ne__set_error(errstr, NE_EINVAL, "policy.conv is empty: give at least one layer, e.g. 16x3x3/1");
  return n;
}

// ---- spec ----------------------------------------------------------------------------------------

// Derives each layer's input and output shapes from the image shape; NE_EINVAL naming the layer
// whose kernel does not fit its input.
static int derive_shapes(ne_policy_spec* spec, const int shape[3], char* errstr) {
  int h = shape[0], w = shape[1], c = shape[2];
  for (int l = 0; l < spec->n_conv; l++) {
    ne_conv_layer* L = &spec->conv[l];
    if (L->filters < 1 || L->filters > MAX_DIM || L->kernel < 1 || L->kernel > MAX_DIM || L->stride < 1 ||
        L->stride > MAX_DIM)
      return ne__set_error(errstr, NE_EINVAL, "policy: conv layer %d (%dx%dx%d/%d) has a size outside [1, %d]", l,
                           L->filters, L->kernel, L->kernel, L->stride, MAX_DIM);
    if (L->kernel > h || L->kernel > w)
      return ne__set_error(errstr, NE_EINVAL,
                           "policy: conv layer %d (%dx%dx%d/%d) has a kernel larger than its %dx%dx%d input", l,
                           L->filters, L->kernel, L->kernel, L->stride, h, w, c);
    L->in_h = h, L->in_w = w, L->in_c = c;
    // VALID padding: the last window starts at most kernel - 1 before the edge
    L->out_h = (h - L->kernel) / L->stride + 1;
    L->out_w = (w - L->kernel) / L->stride + 1;
    h = L->out_h, w = L->out_w, c = L->filters;
  }
  return 0;
}

// n_params and scratch_floats: the conv layers' then the dense layers'; scratch ping-pongs two
// buffers of the largest layer output (per observation).
static void set_derived(ne_policy_spec* spec) {
  size_t n = 0, widest = 0;
  for (int l = 0; l < spec->n_conv; l++) {
    const ne_conv_layer* L = &spec->conv[l];
    size_t k = (size_t)L->kernel * (size_t)L->kernel * (size_t)L->in_c,
           out = (size_t)L->out_h * (size_t)L->out_w * (size_t)L->filters;
    n += k * (size_t)L->filters + (size_t)L->filters;
    if (out > widest) widest = out;
  }
  for (int l = 0; l < spec->n_layers; l++) {
    size_t in = (size_t)spec->sizes[l], out = (size_t)spec->sizes[l + 1];
    n += in * out + out;
    if (out > widest) widest = out;
  }
  spec->n_params = n;
  spec->scratch_floats = 2 * widest;
}

int ne_policy_spec_init_conv(ne_policy_spec* spec, const int obs_shape[3], const ne_conv_layer* conv, int n_conv,
                             const int* hidden, int n_hidden, int out_dim, ne_activation activation, ne_head head,
                             ne_init init, const float* low, const float* high, char* errstr) {
  memset(spec, 0, sizeof *spec);
  if (head == NE_HEAD_GAUSSIAN)
    return ne__set_error(errstr, NE_EINVAL,
                         "policy: the gaussian head is for MLPs (conv policies: argmax, tanh or clip)");
  if (n_conv < 1 || n_conv > NE_POLICY_MAX_CONV || !conv)
    return ne__set_error(errstr, NE_EINVAL, "policy: %d conv layers; allowed 1 to %d", n_conv, NE_POLICY_MAX_CONV);
  for (int i = 0; i < 3; i++)
    if (obs_shape[i] < 1 || obs_shape[i] > MAX_DIM)
      return ne__set_error(errstr, NE_EINVAL,
                           "policy: a conv policy needs an image observation (H, W, C); got shape %dx%dx%d",
                           obs_shape[0], obs_shape[1], obs_shape[2]);
  // the conv part
  ne_policy_spec tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.n_conv = n_conv;
  memcpy(tmp.conv, conv, (size_t)n_conv * sizeof *conv);
  int rc = derive_shapes(&tmp, obs_shape, errstr);
  if (rc) return rc;
  const ne_conv_layer* last = &tmp.conv[n_conv - 1];
  long long flat = (long long)last->out_h * last->out_w * last->filters;
  if (flat > MAX_WIDTH)
    return ne__set_error(errstr, NE_EINVAL, "policy: the last conv output has %lld values (at most %d)", flat,
                         MAX_WIDTH);
  // the dense part and the head as for an MLP over the flattened conv output
  rc = ne_policy_spec_init(spec, (int)flat, hidden, n_hidden, out_dim, activation, head, init, low, high, errstr);
  if (rc) return rc;
  spec->kind = NE_POLICY_CONV;
  spec->n_conv = n_conv;
  memcpy(spec->conv, tmp.conv, sizeof spec->conv);
  set_derived(spec);
  return 0;
}

int ne__conv_format(const ne_policy_spec* spec, char* buf, size_t size) {
  char layers[NE_POLICY_MAX_CONV * 32], sizes[NE_POLICY_MAX_LAYERS * 12 + 16];
  size_t len = 0;
  for (int l = 0; l < spec->n_conv && len < sizeof layers; l++) {
    const ne_conv_layer* L = &spec->conv[l];
    len += (size_t)snprintf(layers + len, sizeof layers - len, "%s%dx%dx%d/%d", l ? "," : "", L->filters, L->kernel,
                            L->kernel, L->stride);
  }
  len = 0;
  for (int l = 0; l <= spec->n_layers && len < sizeof sizes; l++)
    len += (size_t)snprintf(sizes + len, sizeof sizes - len, l ? "-%d" : "%d", spec->sizes[l]);
  const ne_conv_layer* in = &spec->conv[0];
  return snprintf(buf, size, "conv %dx%dx%d %s %s %s %s %s%s", in->in_h, in->in_w, in->in_c, layers, sizes,
                  ne_activation_name(spec->activation), ne_head_name(spec->head), ne_init_name(spec->init),
                  ne__policy_tanh_suffix(spec));
}

double ne_policy_macs(const ne_policy_spec* spec) {
  double m = 0;
  for (int l = 0; spec->kind == NE_POLICY_CONV && l < spec->n_conv; l++) {
    const ne_conv_layer* L = &spec->conv[l];
    m += (double)L->out_h * L->out_w * L->filters * ((double)L->kernel * L->kernel * L->in_c);
  }
  for (int l = 0; l < spec->n_layers; l++) m += (double)spec->sizes[l] * spec->sizes[l + 1];
  return m;
}

// ---- initial parameters --------------------------------------------------------------------------

// Conv layer l is a (k*k*C, F) matrix to the init schemes (fan-in k*k*C), seeded as layer l;
// dense layer l is seeded as layer n_conv + l, so no two layers share noise.
void ne__conv_init_params(const ne_policy_spec* spec, uint64_t seed, float* out) {
  float* p = out;
  for (int l = 0; l < spec->n_conv; l++) {
    const ne_conv_layer* L = &spec->conv[l];
    int k = L->kernel * L->kernel * L->in_c;
    ne__policy_init_layer(spec->init, seed, l, k, L->filters, 0, p);
    p += (size_t)k * (size_t)L->filters + (size_t)L->filters;
  }
  for (int l = 0; l < spec->n_layers; l++) {
    int in = spec->sizes[l], o = spec->sizes[l + 1];
    ne__policy_init_layer(spec->init, seed, spec->n_conv + l, in, o, l == spec->n_layers - 1, p);
    p += (size_t)in * (size_t)o + (size_t)o;
  }
}

// ---- the matrix kernel ---------------------------------------------------------------------------

// The matrix kernel is conv_int.h's (its job, its macro); conv_x86.c stamps it out for AVX2 and
// AVX-512, this file for the portable 4 x 8 blocks.
// The last columns, one output at a time: b, then x0*w0, x1*w1, ... in k order like the vectors.
void ne__gemm_tail_columns(const ne__gemm_job* g, int f0) {
  size_t F = (size_t)g->F;
  for (int r = 0; r < g->rows; r++) {
    const float* x = ne__gemm_row_base(g, r);
    for (int f = f0; f < g->F; f++) {
      float acc = g->b[f];
      const float* wk = g->w + f;
      for (int i = 0; i < g->nseg; i++) {
        const float* xs = x + (size_t)i * g->seg_stride;
        for (int k = 0; k < g->seg; k++, wk += F) acc += xs[k] * *wk;
      }
      g->y[(size_t)r * F + (size_t)f] = acc;
    }
  }
}

typedef float splat4_v __attribute__((vector_size(16)));
static inline splat4_v splat4(float x) { return (splat4_v){x, x, x, x}; }
NE__GEMM_KERNEL(gemm_portable, , v4, 4, 4, 2, splat4)

static const ne__conv_kernels portable = {gemm_portable};

// by level: the portable kernel (SSE2 on x86-64, 8 of 16 xmm), AVX2 and AVX-512 (conv_x86.c)
ne_simd_slot ne__conv_slot = {
    .name = "conv",
    .portable = &portable,
    .table = {[NE_SIMD_BASE] = &portable,
              NE_ON_X86([NE_SIMD_AVX2] = &ne__conv_avx2, [NE_SIMD_AVX512] = &ne__conv_avx512)},
};

static void gemm(const ne__gemm_job* g) {
  const ne__conv_kernels* k = ne__simd_table(&ne__conv_slot);
  k->gemm(g);
}

// ---- forward -------------------------------------------------------------------------------------

// Conv layer L over n observations at x into y (n, out_h, out_w, filters).
static void conv_layer(const ne_conv_layer* L, const float* p, const float* x, int n, float* y) {
  size_t k = (size_t)L->kernel * (size_t)L->kernel * (size_t)L->in_c;
  // clang-format off
  ne__gemm_job g = {
      .in = x,
      .img_floats = (size_t)L->in_h * (size_t)L->in_w * (size_t)L->in_c,
      .out_w = L->out_w,
      .out_hw = L->out_h * L->out_w,
      .step_x = (size_t)L->stride * (size_t)L->in_c,
      .step_y = (size_t)L->stride * (size_t)L->in_w * (size_t)L->in_c,
      .nseg = L->kernel,
      .seg = L->kernel * L->in_c,
      .seg_stride = (size_t)L->in_w * (size_t)L->in_c,
      .w = p,
      .b = p + k * (size_t)L->filters,
      .F = L->filters,
      .rows = n * L->out_h * L->out_w,
      .y = y,
  };
  // clang-format on
  gemm(&g);
}

// Dense layer (in, out) over n rows of x into y (n, out).
static void dense_layer(int in, int out, const float* p, const float* x, int n, float* y) {
  ne__gemm_job g = {
      .in = x,
      .img_floats = (size_t)in,
      .out_w = 1,
      .out_hw = 1,
      .nseg = 1,
      .seg = in,
      .w = p,
      .b = p + (size_t)in * (size_t)out,
      .F = out,
      .rows = n,
      .y = y,
  };
  gemm(&g);
}

void ne__conv_forward_batch(const ne_policy_spec* spec, const float* params, const float* obs, int n, float* scratch,
                            float* actions) {
  // two halves of scratch, each n times the largest layer output, ping-pong between layers
  size_t half = (size_t)n * (spec->scratch_floats / 2);
  const float* x = obs;
  const float* p = params;
  int layer = 0;
  for (int l = 0; l < spec->n_conv; l++, layer++) {
    const ne_conv_layer* L = &spec->conv[l];
    float* y = scratch + (size_t)(layer & 1) * half;
    conv_layer(L, p, x, n, y);
    ne__policy_activate(spec, y, n * L->out_h * L->out_w * L->filters);
    p += (size_t)L->kernel * (size_t)L->kernel * (size_t)L->in_c * (size_t)L->filters + (size_t)L->filters;
    x = y;
  }
  for (int l = 0; l < spec->n_layers; l++, layer++) {
    int in = spec->sizes[l], out = spec->sizes[l + 1];
    float* y = scratch + (size_t)(layer & 1) * half;
    dense_layer(in, out, p, x, n, y);
    if (l < spec->n_layers - 1) ne__policy_activate(spec, y, n * out);
    p += (size_t)in * (size_t)out + (size_t)out;
    x = y;
  }
  // the head per observation
  int n_out = spec->sizes[spec->n_layers];
  for (int i = 0; i < n; i++)
    ne__policy_head(spec, x + (size_t)i * (size_t)n_out, actions + (size_t)i * (size_t)spec->act_dim);
}
