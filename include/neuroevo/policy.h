// SPDX-License-Identifier: MIT
// Multi-layer perceptron policies over one flat parameter vector. The spec is immutable and shared
// by all threads; forward needs only caller-provided scratch memory and allocates nothing, so
// weights can be swapped per candidate without rebuilding anything.
//
// Parameter layout, per layer l with fan-in I and fan-out O: W (I, O) row-major, then b (O).
// Storing W input-major lets the inner loop run over outputs, which vectorizes without
// reassociating sums (results are identical on every SIMD path).
#ifndef NEUROEVO_POLICY_H
#define NEUROEVO_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/rng.h"  // ne_rng: ne_policy_sample's stream

#ifdef __cplusplus
extern "C" {
#endif

#define NE_POLICY_MAX_LAYERS 8  // hidden layers + output layer
#define NE_POLICY_MAX_ACT 32    // largest continuous action dimension (= NE_ENV_MAX_ACT; Humanoid has 17)

// Hidden-layer nonlinearity.
typedef enum ne_activation { NE_ACT_TANH = 0, NE_ACT_RELU = 1 } ne_activation;

// How tanh (the tanh activation and the tanh head) is evaluated. Both give the same bits on every
// CPU, SIMD path and batch size; they differ in precision and speed. NE_TANH_DOUBLE: a rational in
// double precision, 0.53 ulp (every run before policy.tanh existed). NE_TANH_FLOAT: a rational in
// float, 6.3 ulp, 1.7-1.9x faster per element (the default of new runs' configs).
typedef enum ne_tanh_eval { NE_TANH_DOUBLE = 0, NE_TANH_FLOAT = 1 } ne_tanh_eval;

// How the output layer becomes an action.
typedef enum ne_head {
  NE_HEAD_ARGMAX = 0,  // discrete: index of the largest output (ties: lowest index)
  NE_HEAD_TANH = 1,    // continuous: tanh, then scaled from [-1, 1] to [low, high]
  NE_HEAD_CLIP = 2,    // continuous: raw output clipped to [low, high]
  // continuous, stochastic (meta-learning's policy-gradient inner loop): a diagonal Gaussian over
  // the raw output u in normalized units, with a learned log standard deviation per action (act_dim
  // more parameters at the end of the vector); an action maps u from [-1, 1] onto [low, high] and
  // clips, as rllab's normalize() wrapper in MAML. forward returns the mean's action (deterministic),
  // ne_policy_sample draws one.
  NE_HEAD_GAUSSIAN = 3,
  // continuous: the raw output, not clipped (ARS's linear policies): the env gets what the policy
  // outputs, and clips it where its family does (MuJoCo clamps ctrl to ctrlrange inside the step,
  // while Gymnasium's control costs count the action as given)
  NE_HEAD_RAW = 4,
} ne_head;

#define NE_POLICY_MIN_LOG_STD (-13.815510557964274)  // log(1e-6): MAML's min_std, the log-std floor

// Initial-parameter schemes; biases start at zero in each.
typedef enum ne_init {
  NE_INIT_NORMC = 0,   // normalized columns (OpenAI ES / Uber Deep GA): each unit's fan-in weights
                       // have L2 norm 1 (hidden) or 0.01 (output layer)
  NE_INIT_XAVIER = 1,  // N(0, 2 / (fan_in + fan_out))
  NE_INIT_HE = 2,      // N(0, 2 / fan_in)
  NE_INIT_ZEROS = 3,   // all zero (ARS's linear policies start at M = 0; black-box ask/tell starts at x0)
} ne_init;

// conv policies (src/policy/conv.c, neuroevo/conv.h): which forward a spec runs. MLP is 0 so that
// a zeroed or MLP-initialized spec keeps meaning what it always did.
typedef enum ne_policy_kind {
  NE_POLICY_MLP = 0,   // dense layers over the flat observation
  NE_POLICY_CONV = 1,  // conv layers over an (H, W, C) image, then the dense layers in sizes[]
} ne_policy_kind;

#define NE_POLICY_MAX_CONV 6  // largest number of conv layers

// One VALID-padded conv layer (conv policies): filters x kernel x kernel / stride over an
// (in_h, in_w, in_c) input giving (out_h, out_w, filters). Parameters: W (kernel, kernel, in_c,
// filters) row-major, i.e. a (kernel*kernel*in_c, filters) matrix like a dense layer's, then b
// (filters).
typedef struct ne_conv_layer {
  int filters;           // output channels
  int kernel;            // square kernel size
  int stride;            // stride in both directions
  int in_h, in_w, in_c;  // input shape (derived by ne_policy_spec_init_conv)
  int out_h, out_w;      // output height and width (derived)
} ne_conv_layer;

// Immutable description of an MLP policy (or, with kind = NE_POLICY_CONV, of a conv policy whose
// dense part is described by n_layers/sizes: sizes[0] is then the flattened last conv output).
typedef struct ne_policy_spec {
  int n_layers;                         // number of weight layers (hidden + 1)
  int sizes[NE_POLICY_MAX_LAYERS + 1];  // (n_layers + 1) layer widths: obs_dim, hidden..., out_dim
  ne_activation activation;             // hidden nonlinearity
  ne_head head;                         // output head
  ne_init init;                         // initialization scheme
  int act_dim;                          // action components written by forward (1 for argmax)
  float act_low[NE_POLICY_MAX_ACT];     // (act_dim) lower action bounds (continuous heads)
  float act_high[NE_POLICY_MAX_ACT];    // (act_dim) upper action bounds (continuous heads)
  size_t n_params;                      // length of the flat parameter vector (gaussian head: the
                                        // layers', then act_dim log standard deviations)
  size_t scratch_floats;                // floats of scratch forward needs
  float init_log_std;                   // gaussian head: initial log standard deviation (policy.init_log_std)
  ne_tanh_eval tanh_eval;               // how tanh is evaluated (ne_policy_spec_init: NE_TANH_DOUBLE)
  int fma;  // MLPs: 1 = each multiply-add of the dense layers and of the float tanh fused (one
            // rounding; policy.fma, the default of new runs' configs), 0 = rounded separately
            // (ne_policy_spec_init; every run before policy.fma existed). Same bits on every CPU
            // either way; conv policies keep 0.
  // conv policies (neuroevo/conv.h); all zero for an MLP
  ne_policy_kind kind;                     // NE_POLICY_MLP or NE_POLICY_CONV
  int n_conv;                              // number of conv layers before the dense ones
  ne_conv_layer conv[NE_POLICY_MAX_CONV];  // (n_conv) conv layers, input first
} ne_policy_spec;

// Fills `spec` for an MLP obs_dim -> hidden[0..n_hidden) -> out_dim. For NE_HEAD_ARGMAX out_dim is the
// number of discrete actions; otherwise it is the action dimension and low/high (out_dim each) give
// the bounds. Returns NE_EINVAL with a message in errstr (NE_ERRSTR_LEN) on bad sizes.
// Nullable: low, high (argmax head), errstr.
int ne_policy_spec_init(ne_policy_spec* spec, int obs_dim, const int* hidden, int n_hidden, int out_dim,
                        ne_activation activation, ne_head head, ne_init init, const float* low, const float* high,
                        char* errstr);

// Writes the initial parameters for `seed` (n_params floats) to out.
void ne_policy_init_params(const ne_policy_spec* spec, uint64_t seed, float* out);

// Computes the action for one observation. `scratch` holds spec->scratch_floats floats; `action`
// receives act_dim floats (argmax: the index as a float). Allocates nothing; thread-safe for
// distinct scratch buffers.
void ne_policy_forward(const ne_policy_spec* spec, const float* params, const float* obs, float* scratch,
                       float* action);

// Computes the actions for n observations (obs: n rows of the input size, actions: n rows of
// act_dim) with the same parameters, bit-identical to n calls of ne_policy_forward: conv policies
// run each layer as one matrix product over the whole batch (elite re-evaluation, eval episodes),
// MLPs each layer over all rows (the short output layers' addition chains of 4 rows overlap).
// `scratch` holds ne_policy_batch_scratch_floats(spec, n) floats. Allocates nothing.
void ne_policy_forward_batch(const ne_policy_spec* spec, const float* params, const float* obs, int n, float* scratch,
                             float* actions);

// Computes the actions for n observations, row i with its own parameters params[i] (several
// candidates' episodes in lockstep), bit-identical to n calls of ne_policy_forward: MLPs run each
// layer over all rows, so the rows' independent chains overlap in the core and the activation runs
// over all rows at once; conv policies one row after the other. `scratch` holds
// ne_policy_batch_scratch_floats(spec, n) floats. Allocates nothing.
void ne_policy_forward_rows(const ne_policy_spec* spec, const float* const* params, const float* obs, int n,
                            float* scratch, float* actions);

// Floats of scratch ne_policy_forward_batch needs for n observations (n * scratch_floats).
size_t ne_policy_batch_scratch_floats(const ne_policy_spec* spec, int n);

// ---- the policy's input (src/policy/policy_input.c) ----

// How observations become the policy's input: normalized by the running statistics an algorithm
// keeps (OpenAI ES, ARS V2, PGPE, SNES, NS-ES with obs_norm) and clipped, or passed as they are.
// The arrays are borrowed (the algorithm's, or an agent file's).
typedef struct ne_obs_norm {
  const float* mean;  // (obs_dim) subtracted from each observation; NULL: observations pass as they are
  const float* std;   // (obs_dim) then divided by
  float clip;         // then clipped to [-clip, clip]; <= 0: no clip
} ne_obs_norm;

// The policy's input for the observation obs (d floats): obs itself when norm is NULL or has no
// mean; otherwise out (d floats) holding each component's (obs - mean) / std in float, then within
// +-clip when clip > 0, and out is returned. Every loop that steps an episode (ne_episode, the
// lockstep, the meta-learning inner loop, render) turns observations into inputs here, so a policy
// sees the same bits wherever it runs. Nullable: norm.
const float* ne_policy_input(const ne_obs_norm* norm, const float* obs, int d, float* out);

// ne_policy_input for n observations stored by component (the layout of vector lanes: component i
// of observation k at obs[i * n + k]) into out in the same layout; norm must have a mean. The same
// bits per component as ne_policy_input.
void ne_policy_input_columns(const ne_obs_norm* norm, const float* obs, int d, int n, float* out);

// ---- eight MLPs in vector lanes (src/policy/mlp_lanes.c) ----
// The single episodes of 8 small-MLP candidates in lockstep: with the 8 parameter vectors
// interleaved, each layer is vector arithmetic over the lanes, with no call or short addition chain
// per row. Each lane gets ne_policy_forward's bits.
#define NE_POLICY_LANES 8

// 1 if spec can run in lanes (an MLP with at most 64 outputs).
int ne_policy_lanes_ok(const ne_policy_spec* spec);

// Writes params (n_params floats) as lane `lane` of lane_params (n_params * NE_POLICY_LANES floats:
// parameter j of lane s at j * NE_POLICY_LANES + s).
void ne_policy_set_lane(const ne_policy_spec* spec, float* lane_params, int lane, const float* params);

// The actions of NE_POLICY_LANES observations, lane s with lane s's parameters: input i of lane s
// at obs[i * NE_POLICY_LANES + s], its action (act_dim floats) at actions + s * act_dim.
// `scratch` holds ne_policy_lanes_scratch_floats(spec) floats. Allocates nothing. Requires
// ne_policy_lanes_ok(spec).
void ne_policy_forward_lanes(const ne_policy_spec* spec, const float* lane_params, const float* obs, float* scratch,
                             float* actions);

// Floats of scratch ne_policy_forward_lanes needs (NE_POLICY_LANES * scratch_floats).
size_t ne_policy_lanes_scratch_floats(const ne_policy_spec* spec);

// ---- gradients and the stochastic head (MLPs; src/policy/mlp_grad.c) ----
// For meta-learning's policy-gradient inner loop: the MLP's backward pass and the gaussian head's
// sampling and log-likelihood. All take caller scratch of ne_policy_grad_scratch_bytes(spec) bytes
// and allocate nothing; gradients are accumulated in double, in a fixed order (deterministic).

// Bytes of scratch the functions below need for spec (an MLP).
size_t ne_policy_grad_scratch_bytes(const ne_policy_spec* spec);

// Runs the MLP on obs keeping every layer's output, then adds scale * (d L / d params) to grad
// (the layers' parameters, in the flat layout; a gaussian head's log-stds are not touched), where
// dy (sizes[n_layers] values) is dL/dy for the output layer's values y before the head. Writes y
// to out_y. Nullable: out_y.
void ne_policy_backward(const ne_policy_spec* spec, const float* params, const float* obs, const double* dy,
                        double scale, void* scratch, double* grad, float* out_y);

// gaussian head: log pi(u | obs) of the raw output u (act_dim values, normalized units), and, when
// grad is not NULL, adds scale * d log pi / d params to grad (n_params doubles, the log-stds
// included). Log-stds below NE_POLICY_MIN_LOG_STD are used at that floor (and get no gradient).
// Nullable: grad.
double ne_policy_logprob_grad(const ne_policy_spec* spec, const float* params, const float* obs, const float* u,
                              double scale, void* scratch, double* grad);

// gaussian head: draws u ~ N(mean(obs), exp(log_std)^2) from rng into u (act_dim values) and writes
// its action (u mapped onto the box and clipped, as the head maps the mean) to action.
void ne_policy_sample(const ne_policy_spec* spec, const float* params, const float* obs, void* scratch, ne_rng* rng,
                      float* u, float* action);

// A one-line text form, e.g. "mlp 4-64-64-2 tanh argmax normc"; returns bytes written (snprintf rules).
int ne_policy_spec_format(const ne_policy_spec* spec, char* buf, size_t size);

// Parses names used in configs and genome files; return 0 or NE_EINVAL.
int ne_activation_parse(const char* s, ne_activation* out);
int ne_head_parse(const char* s, ne_head* out);
int ne_init_parse(const char* s, ne_init* out);
const char* ne_activation_name(ne_activation a);
const char* ne_head_name(ne_head h);
const char* ne_init_name(ne_init i);

// Builds the policy spec that cfg's [policy] section describes for env (head "auto": argmax for
// discrete actions, tanh scaled to the Box otherwise; policy.type = conv or a preset: a conv policy
// over the env's image observations; black-box envs: the one-layer spec whose parameters are x).
// Errors name the key. Nullable: errstr.
int ne_policy_from_config(const ne_config* cfg, const ne_env_spec* env, ne_policy_spec* out, char* errstr);

#ifdef __cplusplus
}
#endif
#endif
