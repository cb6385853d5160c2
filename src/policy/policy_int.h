// SPDX-License-Identifier: MIT
// What the policy files share (not public API): the per-layer helpers (layers.c and inline here)
// that MLPs and conv policies both use, so that a conv policy's dense layers, init and head behave
// exactly like an MLP's; conv.c's entry points, which mlp.c's public functions call for specs with
// kind = NE_POLICY_CONV; and the conv half of ne_policy_from_config. Calls go mlp.c -> conv.c ->
// layers, never back.
#ifndef NEUROEVO_POLICY_INT_H
#define NEUROEVO_POLICY_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>  // memcpy: float bits

#include "core/detmath.h"  // the tanh kernels
#include "neuroevo/policy.h"

// ---- layer helpers: layers.c, and inline below so the forwards of mlp.c and conv.c inline them ----

// Initial weights of one (in, o) layer plus zero biases into p (in*o + o floats): ε of
// hash(seed, index), then the init scheme (normc scales each column to 1, or 0.01 for the output
// layer).
void ne__policy_init_layer(ne_init init, uint64_t seed, int index, int in, int o, int is_output, float* p);

// The hidden nonlinearity of spec over y[0..n) in place. relu keeps NaN (y < 0 is false for NaN) so
// bad inputs stay visible.
static inline void ne__policy_activate(const ne_policy_spec* spec, float* y, int n) {
  if (spec->activation == NE_ACT_TANH) {
    if (spec->tanh_eval == NE_TANH_FLOAT && spec->fma) ne__tanhf_float_fma_inplace(y, n);
    else if (spec->tanh_eval == NE_TANH_FLOAT) ne__tanhf_float_inplace(y, n);
    else ne__tanhf_inplace(y, n);
    return;
  }
  for (int i = 0; i < n; i++) y[i] = y[i] < 0.0f ? 0.0f : y[i];
}

// 1 when the hidden layers' tanh is computed in float (the kernels that fuse it into a layer)
static inline int ne__policy_hidden_float_tanh(const ne_policy_spec* spec) {
  return spec->activation == NE_ACT_TANH && spec->tanh_eval == NE_TANH_FLOAT;
}

// The end of a spec's description: " tanh=float" when it computes some tanh in float, else "" (a
// description without it is what every spec described before policy.tanh existed).
static inline const char* ne__policy_tanh_suffix(const ne_policy_spec* spec) {
  int uses_tanh = spec->activation == NE_ACT_TANH || spec->head == NE_HEAD_TANH;
  return uses_tanh && spec->tanh_eval == NE_TANH_FLOAT ? " tanh=float" : "";
}

// tanh of one value as spec evaluates it (the tanh head)
static inline float ne__policy_tanh(const ne_policy_spec* spec, float x) {
  if (spec->tanh_eval == NE_TANH_DOUBLE) return ne__tanhf_kernel(x);
  return spec->fma ? ne__tanhf_float_fma_kernel(x) : ne__tanhf_float_kernel(x);
}

// Index of the largest value, lowest index on ties; NaN entries are skipped (all NaN: 0). Selects
// without branches on the values: which of two CartPole outputs is larger is a coin flip a step,
// and a mispredicted branch each time cost ~4 ns of a ~160 ns batched step.
static inline int ne__policy_argmax(const float* y, int n) {
  // two outputs (CartPole): 1 when y1 is a number and y0 is not at least y1 (smaller, or NaN), the
  // loop's answer in two compares (~3 ns a batched row less)
  if (n == 2) return (y[1] == y[1]) & !(y[0] >= y[1]);
  int32_t best = -1;  // -1 until a number is seen
  uint32_t best_bits = 0;
  float best_value = 0.0f;
  for (int i = 0; i < n; i++) {
    float v = y[i];
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    // all ones where y[i] wins: masks, not a condition (gcc branches on `take ? :` around a `||`)
    uint32_t take = 0u - (uint32_t)((v == v) & ((best < 0) | (v > best_value)));
    best = (int32_t)(((uint32_t)i & take) | ((uint32_t)best & ~take));
    best_bits = (bits & take) | (best_bits & ~take);
    memcpy(&best_value, &best_bits, sizeof best_value);
  }
  return best < 0 ? 0 : best;
}

// Clamps v to [lo, hi]; NaN passes through unchanged.
static inline float ne__policy_clampf(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

// gaussian head: a value u in normalized units ([-1, 1] is the whole box) as an action in [lo, hi]
// before clipping: lo + (u + 1) / 2 * (hi - lo), rllab's normalize().
static inline float ne__policy_unnormalize(float u, float lo, float hi) { return lo + (u + 1.0f) * 0.5f * (hi - lo); }

// The output head: the action (act_dim floats) from the output layer y.
static inline void ne__policy_head(const ne_policy_spec* spec, const float* y, float* action) {
  int n = spec->sizes[spec->n_layers];
  if (spec->head == NE_HEAD_ARGMAX) {
    action[0] = (float)ne__policy_argmax(y, n);
    return;
  }
  for (int i = 0; i < n; i++) {
    float lo = spec->act_low[i], hi = spec->act_high[i], a = y[i];
    // tanh maps onto [-1, 1], then affinely onto [low, high]; the clamp absorbs rounding at the ends
    if (spec->head == NE_HEAD_TANH) a = lo + (ne__policy_tanh(spec, a) + 1.0f) * 0.5f * (hi - lo);
    // gaussian: the mean in normalized units, mapped as rllab's normalize() maps actions, then clipped
    else if (spec->head == NE_HEAD_GAUSSIAN) a = ne__policy_unnormalize(a, lo, hi);
    // raw: as it is, outside the box too
    action[i] = spec->head == NE_HEAD_RAW ? a : ne__policy_clampf(a, lo, hi);
  }
}

// ---- mlp.c ----

// y (out) = b + x W for one dense layer of spec, W (in, out) input-major; forward's kernel at the
// SIMD level in use (bit-identical on every path), shared with the gradients of mlp_grad.c.
void ne__policy_dense(const ne_policy_spec* spec, const float* restrict x, int in, const float* restrict w,
                      const float* restrict b, int out, float* restrict y);

// ne__policy_activate at the widest SIMD level in use (the same bits; mlp_lanes.c's layers).
void ne__policy_activate_simd(const ne_policy_spec* spec, float* y, int n);

// ---- conv.c ----

// Forward of n observations of a conv spec (see ne_policy_forward_batch).
void ne__conv_forward_batch(const ne_policy_spec* spec, const float* params, const float* obs, int n, float* scratch,
                            float* actions);

// Initial parameters of a conv spec (see ne_policy_init_params).
void ne__conv_init_params(const ne_policy_spec* spec, uint64_t seed, float* out);

// Text form of a conv spec (see ne_policy_spec_format).
int ne__conv_format(const ne_policy_spec* spec, char* buf, size_t size);

// ---- conv_config.c (the conv half of ne_policy_from_config, policy_config.c) ----

// 1 if cfg asks for a conv policy (policy.type = conv, or a policy.preset other than none).
int ne__config_wants_conv(const ne_config* cfg);

// Fills *out with the conv policy cfg describes for env (whose observation must be an (H, W, C)
// image), with the head, init and output size ne_policy_from_config already resolved. A preset
// fixes conv, hidden and the activation (relu); otherwise policy.conv, policy.hidden and
// policy.activation are used. NE_EINVAL with a message naming the key on bad input.
int ne__conv_policy_from_config(const ne_config* cfg, const ne_env_spec* env, int out_dim, ne_head head, ne_init init,
                                ne_policy_spec* out, char* errstr);

#endif
