// SPDX-License-Identifier: MIT
// Gradients of MLP policies and the gaussian head (see policy.h): a forward pass that keeps every
// layer's output, the backward pass through the dense layers and tanh/relu, and the diagonal
// Gaussian's sampling and log-likelihood with its gradient in the mean and the log-stds. This is
// what meta-learning's policy-gradient inner loop (MAML's REINFORCE step, src/exec/adapt.c) runs
// once per stored step.
// Numerics: the forward is mlp.c's (float, ne__policy_dense), so the mean here is forward's mean to
// the bit; the backward and the likelihood run in double and accumulate in a fixed order, so a
// gradient is a pure function of its inputs. Workload: a few thousand steps per inner update.
#include <math.h>  // sqrt (IEEE exact)
#include <stdint.h>
#include <string.h>

#include "core/linalg.h"  // ne__exp: deterministic e^x for the standard deviations
#include "neuroevo/policy.h"
#include "policy/policy_int.h"

#define HALF_LOG_2PI 0.91893853320467274178  // 0.5 * log(2 pi)

// ---- scratch layout: doubles first (aligned), then floats ----------------------------------------

// the widest layer output
static size_t widest(const ne_policy_spec* spec) {
  size_t w = 0;
  for (int l = 1; l <= spec->n_layers; l++)
    if ((size_t)spec->sizes[l] > w) w = (size_t)spec->sizes[l];
  return w;
}

// floats that hold every layer's output, back to back
static size_t outputs_floats(const ne_policy_spec* spec) {
  size_t n = 0;
  for (int l = 1; l <= spec->n_layers; l++) n += (size_t)spec->sizes[l];
  return n;
}

size_t ne_policy_grad_scratch_bytes(const ne_policy_spec* spec) {
  // two delta vectors (double) of the widest layer, then the layer outputs (float)
  return 2 * widest(spec) * sizeof(double) + outputs_floats(spec) * sizeof(float);
}

// the two delta buffers and the first layer output in scratch
static void split(const ne_policy_spec* spec, void* scratch, double** d0, double** d1, float** outs) {
  size_t w = widest(spec);
  *d0 = scratch;
  *d1 = *d0 + w;
  *outs = (float*)(*d1 + w);
}

// ---- forward with every layer's output kept --------------------------------------------------------

// Runs the MLP on obs: layer l's output (after the activation for hidden layers) goes to outs at
// the offset of the layers before it; returns the output layer's values (before the head).
static const float* forward_keep(const ne_policy_spec* spec, const float* params, const float* obs, float* outs) {
  const float* x = obs;
  const float* p = params;
  float* y = outs;
  for (int l = 0; l < spec->n_layers; l++) {
    int in = spec->sizes[l], out = spec->sizes[l + 1];
    ne__policy_dense(spec, x, in, p, p + (size_t)in * (size_t)out, out, y);
    if (l < spec->n_layers - 1) ne__policy_activate(spec, y, out);
    p += (size_t)in * (size_t)out + (size_t)out;
    x = y;
    y += out;
  }
  return x;
}

// ---- backward --------------------------------------------------------------------------------------

// offset of layer l's parameters in the flat vector
static size_t layer_offset(const ne_policy_spec* spec, int l) {
  size_t off = 0;
  for (int k = 0; k < l; k++) off += (size_t)spec->sizes[k] * (size_t)spec->sizes[k + 1] + (size_t)spec->sizes[k + 1];
  return off;
}

// offset of layer l's output in the kept outputs
static size_t output_offset(const ne_policy_spec* spec, int l) {
  size_t off = 0;
  for (int k = 1; k <= l; k++) off += (size_t)spec->sizes[k];
  return off;
}

// d activation / d preactivation, from the activation's output a
static inline double act_deriv(ne_activation act, float a) {
  if (act == NE_ACT_TANH) return 1.0 - (double)a * (double)a;
  return a > 0.0f ? 1.0 : 0.0;
}

// From delta = dL/dz of layer l's output (z before any activation), adds the layer's weight and bias
// gradients and, below the first layer, writes dL/dz of layer l-1 into prev.
static void backward_layer(const ne_policy_spec* spec, const float* params, const float* obs, const float* outs, int l,
                           const double* delta, double* prev, double* grad) {
  int in = spec->sizes[l], out = spec->sizes[l + 1];
  size_t off = layer_offset(spec, l);
  const float* x = l == 0 ? obs : outs + output_offset(spec, l - 1);
  double* gw = grad + off;
  double* gb = gw + (size_t)in * (size_t)out;
  // dL/dW[i][o] = x_i delta_o, dL/db[o] = delta_o
  for (int i = 0; i < in; i++) {
    double xi = x[i];
    double* row = gw + (size_t)i * (size_t)out;
    for (int o = 0; o < out; o++) row[o] += xi * delta[o];
  }
  for (int o = 0; o < out; o++) gb[o] += delta[o];
  if (l == 0) return;
  // dL/dx_i = sum_o W[i][o] delta_o, then through the hidden activation
  const float* w = params + off;
  for (int i = 0; i < in; i++) {
    const float* wr = w + (size_t)i * (size_t)out;
    double sum = 0.0;
    for (int o = 0; o < out; o++) sum += (double)wr[o] * delta[o];
    prev[i] = sum * act_deriv(spec->activation, x[i]);
  }
}

// backward through every layer from dL/dy already scaled in d0
static void backward_all(const ne_policy_spec* spec, const float* params, const float* obs, const float* outs,
                         double* d0, double* d1, double* grad) {
  double *delta = d0, *prev = d1;
  for (int l = spec->n_layers - 1; l >= 0; l--) {
    backward_layer(spec, params, obs, outs, l, delta, prev, grad);
    double* t = delta;
    delta = prev;
    prev = t;
  }
}

void ne_policy_backward(const ne_policy_spec* spec, const float* params, const float* obs, const double* dy,
                        double scale, void* scratch, double* grad, float* out_y) {
  double *d0, *d1;
  float* outs;
  split(spec, scratch, &d0, &d1, &outs);
  const float* y = forward_keep(spec, params, obs, outs);
  int n_out = spec->sizes[spec->n_layers];
  if (out_y) memcpy(out_y, y, (size_t)n_out * sizeof *y);
  for (int o = 0; o < n_out; o++) d0[o] = scale * dy[o];
  backward_all(spec, params, obs, outs, d0, d1, grad);
}

// ---- the gaussian head -----------------------------------------------------------------------------

// the log-stds (act_dim) at the end of the vector
static const float* log_stds(const ne_policy_spec* spec, const float* params) {
  return params + spec->n_params - (size_t)spec->act_dim;
}

double ne_policy_logprob_grad(const ne_policy_spec* spec, const float* params, const float* obs, const float* u,
                              double scale, void* scratch, double* grad) {
  double *d0, *d1;
  float* outs;
  split(spec, scratch, &d0, &d1, &outs);
  const float* mean = forward_keep(spec, params, obs, outs);
  const float* ls = log_stds(spec, params);
  double* gls = grad ? grad + spec->n_params - (size_t)spec->act_dim : NULL;
  double logp = 0.0;
  // per action: z = (u - mean) / std; log N = -z^2/2 - log std - log(2 pi)/2
  for (int i = 0; i < spec->act_dim; i++) {
    int floored = (double)ls[i] < NE_POLICY_MIN_LOG_STD;
    double s = floored ? NE_POLICY_MIN_LOG_STD : (double)ls[i];
    double inv_std = 1.0 / ne__exp(s);
    double z = ((double)u[i] - (double)mean[i]) * inv_std;
    logp += -0.5 * z * z - s - HALF_LOG_2PI;
    if (!grad) continue;
    d0[i] = scale * z * inv_std;                    // d log N / d mean
    if (!floored) gls[i] += scale * (z * z - 1.0);  // d log N / d log std
  }
  if (grad) backward_all(spec, params, obs, outs, d0, d1, grad);
  return logp;
}

void ne_policy_sample(const ne_policy_spec* spec, const float* params, const float* obs, void* scratch, ne_rng* rng,
                      float* u, float* action) {
  double *d0, *d1;
  float* outs;
  split(spec, scratch, &d0, &d1, &outs);
  const float* mean = forward_keep(spec, params, obs, outs);
  const float* ls = log_stds(spec, params);
  for (int i = 0; i < spec->act_dim; i++) {
    double s = (double)ls[i] < NE_POLICY_MIN_LOG_STD ? NE_POLICY_MIN_LOG_STD : (double)ls[i];
    u[i] = (float)((double)mean[i] + ne__exp(s) * ne_rng_normal(rng));
  }
  // the head's map from normalized units onto the box, as for the mean
  ne__policy_head(spec, u, action);
}
