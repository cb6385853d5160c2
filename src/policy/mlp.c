// SPDX-License-Identifier: MIT
// MLP policies over one flat parameter vector (policy.h): spec validation, deterministic initial
// parameters (layer by layer, layers.c), and an allocation-free forward pass; conv specs are handed
// to conv.c.
// Workload: forward runs once per environment step of every rollout, so it is the hottest code in
// a run; it needs only caller scratch and gives the same bits on every SIMD path (no
// reassociation: each output sums b, x0*w0, x1*w1, ... in that order whatever the block size, each
// term a fused multiply-add with policy.fma, else a product and a sum rounded separately). The
// portable dense layers are here, the AVX2 and AVX-512 ones in mlp_x86.c; the kernel table
// (mlp_int.h, core/simd.h) runs the widest level the CPU has, and the levels differ only in vector
// width.
#include <math.h>    // sqrt and fmaf (IEEE exact), isnan/isinf; no other libm call
#include <stdio.h>   // snprintf
#include <string.h>  // memset, strcmp

#include "core/detmath.h"
#include "core/util.h"
#include "neuroevo/error.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "policy/mlp_int.h"     // the kernel table (core/simd.h) and what mlp_x86.c shares
#include "policy/policy_int.h"  // conv policies: dispatch by spec->kind, shared layer helpers

#define MAX_WIDTH (1 << 24)  // largest layer width accepted (keeps every index product in range)

// ---- names ---------------------------------------------------------------------------------------

static const char* const ACT_NAMES[] = {"tanh", "relu"};
static const char* const HEAD_NAMES[] = {"argmax", "tanh", "clip", "gaussian", "raw"};
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
  int i = name_index(s, HEAD_NAMES, 5);
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
const char* ne_head_name(ne_head h) { return (unsigned)h < 5 ? HEAD_NAMES[h] : "invalid"; }
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
  if ((unsigned)head > NE_HEAD_RAW)
    return ne__set_error(errstr, NE_EINVAL, "policy: head %d is not argmax, tanh, clip, gaussian or raw", (int)head);
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

// y[o .. o+16) = b + x W for one block of 16 outputs: four accumulators in registers across the
// whole input loop.
static void dense_block16(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                          int o, float* restrict y) {
  ne__f4 a0 = ne__load4(b + o), a1 = ne__load4(b + o + 4), a2 = ne__load4(b + o + 8), a3 = ne__load4(b + o + 12);
  for (int i = 0; i < in; i++) {
    const float* wr = w + (size_t)i * (size_t)out + (size_t)o;
    ne__f4 xi = ne__splat4(x[i]);
    a0 += xi * ne__load4(wr);
    a1 += xi * ne__load4(wr + 4);
    a2 += xi * ne__load4(wr + 8);
    a3 += xi * ne__load4(wr + 12);
  }
  ne__store4(y + o, a0), ne__store4(y + o + 4, a1), ne__store4(y + o + 8, a2), ne__store4(y + o + 12, a3);
}

// The last 1-3 outputs, accumulated together so that their addition chains overlap (one chain of
// `in` dependent adds per output would otherwise run back to back).
void ne__mlp_dense_tail(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
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
// sums in ne__mlp_dense_tail's order.
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

void ne__mlp_dense_tail_rows4(const float* restrict x, int in, const float* restrict w, const float* restrict b,
                              int out, int o, float* restrict y) {
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
  for (; o + 4 <= out; o += 4) ne__mlp_dense_block4(x, in, w, b, out, o, y);
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
  if (o < out) ne__mlp_dense_tail(x, in, w, b, out, o, y);
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

// the portable tables (ne__policy_activate: policy_int.h); dense_fused_rows leaves no tail
static const ne__mlp_table portable = {{
    {dense_separate, dense_blocks_rows, ne__policy_activate, NULL, ne__mlp_dense_tail_rows4, ne__mlp_dense_tail, NULL},
    {dense_fused, dense_fused_rows, ne__policy_activate, NULL, NULL, NULL, NULL},
}};

// by level: the portable kernels, AVX2 and AVX-512 (mlp_x86.c)
ne_simd_slot ne__mlp_slot = {
    .name = "mlp",
    .portable = &portable,
    .table = {[NE_SIMD_BASE] = &portable,
              NE_ON_X86([NE_SIMD_AVX2] = &ne__mlp_avx2, [NE_SIMD_AVX512] = &ne__mlp_avx512)},
};

// The kernels of the level in use for spec's rounding
static const ne__mlp_kernels* kernels(const ne_policy_spec* spec) {
  const ne__mlp_table* t = ne__simd_table(&ne__mlp_slot);
  return &t->by_fma[spec->fma != 0];
}

void ne__policy_dense(const ne_policy_spec* spec, const float* restrict x, int in, const float* restrict w,
                      const float* restrict b, int out, float* restrict y) {
  kernels(spec)->dense(x, in, w, b, out, y);
}

void ne__policy_activate_simd(const ne_policy_spec* spec, float* y, int n) { kernels(spec)->activate(spec, y, n); }

void ne_policy_forward(const ne_policy_spec* spec, const float* params, const float* obs, float* scratch,
                       float* action) {
  if (spec->kind == NE_POLICY_CONV) {  // src/policy/conv.c: a batch of one
    ne__conv_forward_batch(spec, params, obs, 1, scratch, action);
    return;
  }
  const float* x = obs;
  const float* p = params;
  size_t half = spec->scratch_floats / 2;
  const ne__mlp_kernels* k = kernels(spec);
  // layer l writes into one half of scratch and reads the other (or the observation)
  for (int l = 0; l < spec->n_layers; l++) {
    int in = spec->sizes[l], out = spec->sizes[l + 1];
    float* y = scratch + (l & 1) * half;
    k->dense(x, in, p, p + (size_t)in * (size_t)out, out, y);
    if (l < spec->n_layers - 1) k->activate(spec, y, out);
    p += (size_t)in * (size_t)out + (size_t)out;
    x = y;
  }
  ne__policy_head(spec, x, action);
}

// One MLP layer over n rows: each row's outputs but the last 1-3 as forward computes them, then
// those last few 8 or 4 rows at a time (their short addition chains overlap: a CartPole 64-2 output
// layer costs ~0.6x as much a row), the same sums in the same order.
static void dense_rows(const ne__mlp_kernels* k, const float* x, int n, int in, const float* w, const float* b, int out,
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
// tanh of its inputs itself (ne__mlp_kernels' tanh_dense_rows8: the output layer after a hidden tanh
// computed in float, up to 8 outputs, 8 rows at a time): 0 where none applies.
static int tanh_input_rows(const ne_policy_spec* spec, const ne__mlp_kernels* k, int l, int n) {
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
  const ne__mlp_kernels* k = kernels(spec);
  int last = spec->n_layers - 1;
  for (int l = 0; l < spec->n_layers; l++) {
    int in = spec->sizes[l], out = spec->sizes[l + 1];
    size_t bias = (size_t)in * (size_t)out;
    float* y = scratch + (l & 1) * half;
    if (!rows) {
      const float* w = shared + offset;
      int own = tanh_input_rows(spec, k, l, n);  // the rows whose inputs' tanh this layer takes
      for (int r = 0; r < own; r += 8)
        k->tanh_dense_rows8(x + (size_t)r * (size_t)in, in, w, w + bias, out, y + (size_t)r * (size_t)out);
      if (own < n)
        dense_rows(k, x + (size_t)own * (size_t)in, n - own, in, w, w + bias, out, y + (size_t)own * (size_t)out);
    } else {
      for (int r = 0; r < n; r++)
        k->dense(x + (size_t)r * (size_t)in, in, rows[r] + offset, rows[r] + offset + bias, out,
                 y + (size_t)r * (size_t)out);
    }
    if (l < last) {  // but the rows whose tanh the next layer takes
      size_t skip = rows ? 0 : (size_t)tanh_input_rows(spec, k, l + 1, n) * (size_t)out;
      k->activate(spec, y + skip, (int)((size_t)n * (size_t)out - skip));
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
