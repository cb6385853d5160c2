// SPDX-License-Identifier: MIT
// Unit tests of the MLP's backward pass and the gaussian head (src/policy/mlp_grad.c): gradients
// against central finite differences of a double-precision reference MLP written here (whose
// forward is first checked against ne_policy_forward), for tanh and relu, linear and deep nets;
// the log-likelihood and its gradient in the means and the log-stds (the floor included);
// accumulation with a scale; the head's parameter layout and initial log-stds; sampling that is a
// function of the stream and has the head's mean and standard deviation.
#include <stdint.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "test.h"

// ---- a double-precision reference ------------------------------------------------------------

// the output layer's values (before the head) of spec's MLP, in double, from double parameters
static void ref_forward(const ne_policy_spec* spec, const double* p, const double* obs, double* y) {
  double a[64], b[64];
  const double* x = obs;
  for (int l = 0; l < spec->n_layers; l++) {
    int in = spec->sizes[l], out = spec->sizes[l + 1];
    double* z = (l & 1) ? b : a;
    for (int o = 0; o < out; o++) {
      double sum = p[(size_t)in * out + o];
      for (int i = 0; i < in; i++) sum += x[i] * p[(size_t)i * out + o];
      z[o] = l < spec->n_layers - 1 ? (spec->activation == NE_ACT_TANH ? tanh(sum) : (sum > 0 ? sum : 0)) : sum;
    }
    p += (size_t)in * out + out;
    x = z;
  }
  memcpy(y, x, (size_t)spec->sizes[spec->n_layers] * sizeof *y);
}

// log N(u; mean, exp(ls)^2) of the gaussian head, in double (the log-stds at the end of p)
static double ref_logprob(const ne_policy_spec* spec, const double* p, const double* obs, const double* u) {
  double mean[16];
  ref_forward(spec, p, obs, mean);
  const double* ls = p + spec->n_params - spec->act_dim;
  double lp = 0;
  for (int i = 0; i < spec->act_dim; i++) {
    double s = ls[i] < NE_POLICY_MIN_LOG_STD ? NE_POLICY_MIN_LOG_STD : ls[i];
    double z = (u[i] - mean[i]) / exp(s);
    lp += -0.5 * z * z - s - 0.5 * log(2 * M_PI);
  }
  return lp;
}

static ne_policy_spec make_spec(int obs, const int* hidden, int n_hidden, int out, ne_activation act, ne_head head) {
  float lo[NE_POLICY_MAX_ACT], hi[NE_POLICY_MAX_ACT];
  for (int i = 0; i < NE_POLICY_MAX_ACT; i++) lo[i] = -2.0f, hi[i] = 1.0f;
  ne_policy_spec s;
  char err[NE_ERRSTR_LEN];
  if (ne_policy_spec_init(&s, obs, hidden, n_hidden, out, act, head, NE_INIT_XAVIER, lo, hi, err))
    TEST_FAIL("spec: %s", err);
  return s;
}

// float parameters of spec from a seed (init plus noise so the biases are not zero), and their doubles
static void make_params(const ne_policy_spec* spec, uint64_t seed, float* pf, double* pd) {
  ne_policy_init_params(spec, seed, pf);
  ne_noise_axpy(seed + 1, 0, spec->n_params, 0.3f, pf);
  for (size_t i = 0; i < spec->n_params; i++) pd[i] = pf[i];
}

// ---- the backward pass ------------------------------------------------------------------------

// d(c . y)/d params by ne_policy_backward against central differences of the reference, for every
// parameter; the reference's forward agrees with ne_policy_forward first
static void check_backward(const ne_policy_spec* spec, uint64_t seed) {
  size_t n = spec->n_params;
  float* pf = ne_malloc(n * sizeof *pf);
  double* pd = ne_malloc(n * sizeof *pd);
  double* grad = ne_calloc(n, sizeof *grad);
  void* scratch = ne_malloc(ne_policy_grad_scratch_bytes(spec));
  float* fscratch = ne_malloc(spec->scratch_floats * sizeof(float));
  make_params(spec, seed, pf, pd);
  int in = spec->sizes[0], out = spec->sizes[spec->n_layers];
  float obs_f[32];
  double obs[32], c[32], y[32];
  ne_rng rng;
  ne_rng_seed(&rng, seed);
  for (int i = 0; i < in; i++) obs[i] = obs_f[i] = (float)ne_rng_range(&rng, -1.5, 1.5);
  for (int o = 0; o < out; o++) c[o] = ne_rng_range(&rng, -1, 1);
  // the reference is the MLP (float forward vs double: float rounding only)
  float yf[32], act[32];
  ne_policy_backward(spec, pf, obs_f, c, 1.0, scratch, grad, yf);
  ref_forward(spec, pd, obs, y);
  for (int o = 0; o < out; o++) ASSERT_NEAR(yf[o], y[o], 1e-5 * (1 + fabs(y[o])));
  ne_policy_forward(spec, pf, obs_f, fscratch, act);
  if (spec->head == NE_HEAD_CLIP)  // clip passes the mean through inside the box: forward's y to the bit
    for (int o = 0; o < out; o++)
      if (yf[o] > -2 && yf[o] < 1) ASSERT(act[o] == yf[o]);
  // every parameter: (L(p + h) - L(p - h)) / 2h
  const double h = 1e-6;
  size_t layers = n - (spec->head == NE_HEAD_GAUSSIAN ? (size_t)spec->act_dim : 0);
  for (size_t k = 0; k < layers; k++) {
    double keep = pd[k], lp = 0, lm = 0;
    pd[k] = keep + h;
    ref_forward(spec, pd, obs, y);
    for (int o = 0; o < out; o++) lp += c[o] * y[o];
    pd[k] = keep - h;
    ref_forward(spec, pd, obs, y);
    for (int o = 0; o < out; o++) lm += c[o] * y[o];
    pd[k] = keep;
    double fd = (lp - lm) / (2 * h);
    if (!(fabs(grad[k] - fd) <= 2e-5 * (1 + fabs(fd))))
      TEST_FAIL("parameter %zu of %zu: backward %.9g, finite difference %.9g", k, n, grad[k], fd);
  }
  // the log-stds are not the backward pass's
  for (size_t k = layers; k < n; k++) ASSERT(grad[k] == 0);
  ne_free(pf);
  ne_free(pd);
  ne_free(grad);
  ne_free(scratch);
  ne_free(fscratch);
}

static void test_backward_matches_finite_differences(void) {
  const int h2[2] = {7, 6}, h1[1] = {9}, h3[3] = {5, 8, 4};
  for (int act = 0; act < 2; act++) {
    ne_activation a = act ? NE_ACT_RELU : NE_ACT_TANH;
    ne_policy_spec s = make_spec(5, h2, 2, 3, a, NE_HEAD_CLIP);
    check_backward(&s, 11 + act);
    s = make_spec(3, h1, 1, 2, a, NE_HEAD_GAUSSIAN);
    check_backward(&s, 21 + act);
    s = make_spec(4, h3, 3, 5, a, NE_HEAD_CLIP);
    check_backward(&s, 31 + act);
    s = make_spec(6, NULL, 0, 2, a, NE_HEAD_CLIP);  // linear
    check_backward(&s, 41 + act);
    // 16 outputs and more: the vector block paths of the forward kernel
    const int wide[1] = {21};
    s = make_spec(3, wide, 1, 17, a, NE_HEAD_CLIP);
    check_backward(&s, 51 + act);
  }
}

// gradients accumulate: two calls with scale 1 add up to one with scale 2
static void test_backward_accumulates_with_scale(void) {
  const int h[1] = {6};
  ne_policy_spec s = make_spec(4, h, 1, 2, NE_ACT_TANH, NE_HEAD_CLIP);
  size_t n = s.n_params;
  float* pf = ne_malloc(n * sizeof *pf);
  double* pd = ne_malloc(n * sizeof *pd);
  double* g1 = ne_calloc(n, sizeof *g1);
  double* g2 = ne_calloc(n, sizeof *g2);
  void* scratch = ne_malloc(ne_policy_grad_scratch_bytes(&s));
  make_params(&s, 5, pf, pd);
  const float obs[4] = {0.5f, -1, 0.25f, 2};
  const double dy[2] = {0.7, -1.3};
  ne_policy_backward(&s, pf, obs, dy, 1.0, scratch, g1, NULL);
  ne_policy_backward(&s, pf, obs, dy, 1.0, scratch, g1, NULL);
  ne_policy_backward(&s, pf, obs, dy, 2.0, scratch, g2, NULL);
  for (size_t k = 0; k < n; k++) ASSERT_NEAR(g1[k], g2[k], 1e-12 * (1 + fabs(g2[k])));
  ne_free(pf);
  ne_free(pd);
  ne_free(g1);
  ne_free(g2);
  ne_free(scratch);
}

// ---- the gaussian head ------------------------------------------------------------------------

// log pi and its gradient (means through the MLP, and the log-stds) against the reference
static void test_logprob_gradient_matches_finite_differences(void) {
  const int h[2] = {6, 5};
  for (int act = 0; act < 2; act++) {
    ne_policy_spec s = make_spec(4, h, 2, 3, act ? NE_ACT_RELU : NE_ACT_TANH, NE_HEAD_GAUSSIAN);
    size_t n = s.n_params;
    float* pf = ne_malloc(n * sizeof *pf);
    double* pd = ne_malloc(n * sizeof *pd);
    double* grad = ne_calloc(n, sizeof *grad);
    void* scratch = ne_malloc(ne_policy_grad_scratch_bytes(&s));
    make_params(&s, 77 + act, pf, pd);
    pf[n - 3] = -0.7f, pf[n - 2] = 0.3f, pf[n - 1] = 0.1f;
    for (size_t k = n - 3; k < n; k++) pd[k] = pf[k];
    const float obs_f[4] = {0.3f, -0.8f, 1.1f, 0.05f};
    double obs[4], mean[3];
    for (int i = 0; i < 4; i++) obs[i] = obs_f[i];
    ref_forward(&s, pd, obs, mean);
    float u_f[3] = {(float)(mean[0] + 0.4), (float)(mean[1] - 1.7), (float)(mean[2] + 0.05)};
    double u[3] = {u_f[0], u_f[1], u_f[2]};
    double lp = ne_policy_logprob_grad(&s, pf, obs_f, u_f, 1.0, scratch, grad);
    ASSERT_NEAR(lp, ref_logprob(&s, pd, obs, u), 1e-5 * (1 + fabs(lp)));
    ASSERT_NEAR(ne_policy_logprob_grad(&s, pf, obs_f, u_f, 1.0, scratch, NULL), lp, 0);  // grad NULL: the value alone
    const double hh = 1e-6;
    for (size_t k = 0; k < n; k++) {
      double keep = pd[k];
      pd[k] = keep + hh;
      double a = ref_logprob(&s, pd, obs, u);
      pd[k] = keep - hh;
      double b = ref_logprob(&s, pd, obs, u);
      pd[k] = keep;
      double fd = (a - b) / (2 * hh);
      if (!(fabs(grad[k] - fd) <= 1e-4 * (1 + fabs(fd))))
        TEST_FAIL("%s parameter %zu of %zu: gradient %.9g, finite difference %.9g", act ? "relu" : "tanh", k, n,
                  grad[k], fd);
    }
    // d log pi / d log std = z^2 - 1
    double z = 0.4 / exp(-0.7);
    ASSERT_NEAR(grad[n - 3], z * z - 1, 1e-4);
    // a log-std below the floor counts as the floor and gets no gradient (u at the mean: z = 0)
    pf[n - 1] = -20.0f;
    float mean_f[3];
    ne_policy_backward(&s, pf, obs_f, (const double[3]){0, 0, 0}, 1.0, scratch, grad, mean_f);
    memset(grad, 0, n * sizeof *grad);
    u_f[2] = mean_f[2];
    double lp2 = ne_policy_logprob_grad(&s, pf, obs_f, u_f, 1.0, scratch, grad);
    double z0 = ((double)u_f[0] - (double)mean_f[0]) / exp(-0.7), z1 = ((double)u_f[1] - (double)mean_f[1]) / exp(0.3);
    double want = -0.5 * z0 * z0 + 0.7 - 0.5 * z1 * z1 - 0.3 + 13.815510557964274 - 3 * 0.5 * log(2 * M_PI);
    ASSERT_NEAR(lp2, want, 1e-9 * fabs(want));
    ASSERT(grad[n - 1] == 0);
    ne_free(pf);
    ne_free(pd);
    ne_free(grad);
    ne_free(scratch);
  }
}

// the layout: act_dim log-stds after the layers, initialized to init_log_std; forward is the mean's action
static void test_gaussian_head_layout_and_forward(void) {
  const int h[1] = {8};
  ne_policy_spec s = make_spec(3, h, 1, 2, NE_ACT_TANH, NE_HEAD_GAUSSIAN);
  ne_policy_spec c = make_spec(3, h, 1, 2, NE_ACT_TANH, NE_HEAD_CLIP);
  ASSERT_EQ(s.n_params, c.n_params + 2);
  s.init_log_std = -0.5f;
  float* p = ne_malloc(s.n_params * sizeof *p);
  float* q = ne_malloc(c.n_params * sizeof *q);
  ne_policy_init_params(&s, 9, p);
  ne_policy_init_params(&c, 9, q);
  ASSERT(memcmp(p, q, c.n_params * sizeof *p) == 0);  // the same layers
  ASSERT(p[s.n_params - 2] == -0.5f && p[s.n_params - 1] == -0.5f);
  // the action: the mean u mapped from [-1, 1] onto [-2, 1] (rllab's normalize), then clipped
  float scratch[64], act[2], y[2];
  const float obs[3] = {0.2f, -0.4f, 0.9f};
  ne_policy_forward(&s, p, obs, scratch, act);
  ne_policy_forward(&c, q, obs, scratch, y);  // clip head: y itself (inside the box here)
  for (int i = 0; i < 2; i++) ASSERT_NEAR(act[i], -2.0f + (y[i] + 1.0f) * 0.5f * 3.0f, 1e-6);
  char text[128];
  ne_policy_spec_format(&s, text, sizeof text);
  ASSERT_STR_EQ(text, "mlp 3-8-2 tanh gaussian xavier");
  ne_free(p);
  ne_free(q);
}

// samples: a function of the stream; mean and std of u are the head's; actions are u mapped
static void test_sampling(void) {
  const int h[1] = {5};
  ne_policy_spec s = make_spec(2, h, 1, 2, NE_ACT_TANH, NE_HEAD_GAUSSIAN);
  float* p = ne_malloc(s.n_params * sizeof *p);
  double* pd = ne_malloc(s.n_params * sizeof *pd);
  make_params(&s, 3, p, pd);
  p[s.n_params - 2] = -1.0f;  // std e^-1
  p[s.n_params - 1] = 0.5f;   // std e^0.5
  void* scratch = ne_malloc(ne_policy_grad_scratch_bytes(&s));
  const float obs[2] = {0.6f, -0.1f};
  double obs_d[2] = {0.6f, -0.1f}, mean[2];
  for (size_t i = 0; i < s.n_params; i++) pd[i] = p[i];
  ref_forward(&s, pd, obs_d, mean);
  ne_rng r1, r2;
  ne_rng_seed(&r1, 100);
  ne_rng_seed(&r2, 100);
  float u1[2], u2[2], a1[2], a2[2];
  ne_policy_sample(&s, p, obs, scratch, &r1, u1, a1);
  ne_policy_sample(&s, p, obs, scratch, &r2, u2, a2);
  ASSERT(memcmp(u1, u2, sizeof u1) == 0 && memcmp(a1, a2, sizeof a1) == 0);
  const int n = 20000;
  double sum[2] = {0, 0}, sq[2] = {0, 0};
  for (int k = 0; k < n; k++) {
    ne_policy_sample(&s, p, obs, scratch, &r1, u1, a1);
    for (int i = 0; i < 2; i++) {
      sum[i] += u1[i];
      sq[i] += (u1[i] - mean[i]) * (u1[i] - mean[i]);
      float want = -2.0f + (u1[i] + 1.0f) * 0.5f * 3.0f;
      want = want < -2 ? -2 : want > 1 ? 1 : want;
      ASSERT(a1[i] == want);
    }
  }
  const double std[2] = {exp(-1.0), exp(0.5)};
  for (int i = 0; i < 2; i++) {
    ASSERT_NEAR(sum[i] / n, mean[i], 4 * std[i] / sqrt(n));
    ASSERT_NEAR(sqrt(sq[i] / n), std[i], 0.03 * std[i]);
  }
  ne_free(p);
  ne_free(pd);
  ne_free(scratch);
}

int main(int argc, char** argv) {
  static const test_entry tests[] = {
      TEST_ENTRY(test_backward_matches_finite_differences),
      TEST_ENTRY(test_backward_accumulates_with_scale),
      TEST_ENTRY(test_logprob_gradient_matches_finite_differences),
      TEST_ENTRY(test_gaussian_head_layout_and_forward),
      TEST_ENTRY(test_sampling),
  };
  return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
