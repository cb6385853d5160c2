// SPDX-License-Identifier: MIT
// Tests of MLP policies (policy.h): the n_params formula, spec validation messages, forward against
// a hand-computed network and against a naive reference loop (bit for bit), the output heads,
// initialization (normc column norms, Xavier/He scales), names, and that forward stays inside the
// caller's buffers (exact-size heap buffers, so ASan reports any overrun).
#include "core/cpu.h"
#include "core/detmath.h"
#include "neuroevo/error.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "policy/policy_int.h"  // ne__policy_activate_simd
#include "test.h"

static ne_policy_spec make_spec(int obs, const int* hidden, int nh, int out, ne_activation act, ne_head head,
                                ne_init init, const float* low, const float* high) {
  ne_policy_spec s;
  char err[NE_ERRSTR_LEN] = "";
  int rc = ne_policy_spec_init(&s, obs, hidden, nh, out, act, head, init, low, high, err);
  if (rc != 0) TEST_FAIL("spec_init: %s", err);
  return s;
}

static float* alloc_floats(size_t n) {
  float* p = malloc((n ? n : 1) * sizeof *p);
  ASSERT(p != NULL);
  return p;
}

// ---- spec ----------------------------------------------------------------------------------------

static void test_n_params_formula(void) {
  const int h64[2] = {64, 64};
  ne_policy_spec s = make_spec(4, h64, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL);
  ASSERT_EQ(s.n_params, 4 * 64 + 64 + 64 * 64 + 64 + 64 * 2 + 2);  // 4610
  ASSERT_EQ(s.n_layers, 3);
  ASSERT_EQ(s.act_dim, 1);
  ASSERT_EQ(s.scratch_floats, 128);
  float lo[6] = {-1, -1, -1, -1, -1, -1}, hi[6] = {1, 1, 1, 1, 1, 1};
  s = make_spec(17, h64, 2, 6, NE_ACT_TANH, NE_HEAD_TANH, NE_INIT_NORMC, lo, hi);
  ASSERT_EQ(s.n_params, 17 * 64 + 64 + 64 * 64 + 64 + 64 * 6 + 6);  // 5702
  ASSERT_EQ(s.act_dim, 6);
  s = make_spec(3, NULL, 0, 2, NE_ACT_RELU, NE_HEAD_ARGMAX, NE_INIT_HE, NULL, NULL);
  ASSERT_EQ(s.n_params, 3 * 2 + 2);
  ASSERT_EQ(s.n_layers, 1);
}

// Each invalid spec fails with NE_EINVAL and a message naming the bad value.
static void test_spec_errors_name_the_value(void) {
  ne_policy_spec s;
  char err[NE_ERRSTR_LEN];
  const int good[2] = {64, 64}, bad[2] = {64, 0}, eight[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  float lo[2] = {-1, 2}, hi[2] = {1, 1}, ok_lo[2] = {-1, -1}, ok_hi[2] = {1, 1};
  float inf_lo[2] = {-INFINITY, -1}, nan_hi[2] = {NAN, 1};
  struct {
    int rc;
    const char* needle;
  } cases[10];
  int n = 0;
#define CASE(call, needle_)                \
  do {                                     \
    err[0] = '\0';                         \
    cases[n].rc = (call);                  \
    cases[n].needle = (needle_);           \
    ASSERT_EQ(cases[n].rc, NE_EINVAL);     \
    ASSERT_CONTAINS(err, cases[n].needle); \
    n++;                                   \
  } while (0)
  CASE(ne_policy_spec_init(&s, 0, good, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
       "observation size = 0");
  CASE(ne_policy_spec_init(&s, 4, bad, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
       "hidden[1] = 0");
  CASE(ne_policy_spec_init(&s, 4, eight, 8, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
       "8 hidden layers");
  CASE(ne_policy_spec_init(&s, 4, good, 2, -3, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
       "number of actions = -3");
  CASE(ne_policy_spec_init(&s, 4, good, 2, 2, NE_ACT_TANH, NE_HEAD_TANH, NE_INIT_NORMC, NULL, NULL, err),
       "needs action bounds");
  CASE(ne_policy_spec_init(&s, 4, good, 2, 2, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_NORMC, lo, hi, err),
       "bound 1 has low 2 > high 1");
  CASE(ne_policy_spec_init(&s, 4, good, 2, NE_POLICY_MAX_ACT + 1, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_NORMC, ok_lo,
                           ok_hi, err),
       "33 exceeds 32");
  CASE(ne_policy_spec_init(&s, 4, good, 2, 2, NE_ACT_TANH, NE_HEAD_TANH, NE_INIT_NORMC, inf_lo, ok_hi, err),
       "infinite");
  CASE(ne_policy_spec_init(&s, 4, good, 2, 2, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_NORMC, ok_lo, nan_hi, err), "NaN");
  CASE(ne_policy_spec_init(&s, 4, good, 2, 2, (ne_activation)7, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
       "activation 7");
#undef CASE
  // errstr may be NULL; clip accepts unbounded actions
  ASSERT_EQ(ne_policy_spec_init(&s, 0, good, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL),
            NE_EINVAL);
  float ilo[1] = {-INFINITY}, ihi[1] = {INFINITY};
  ASSERT_EQ(ne_policy_spec_init(&s, 4, good, 2, 1, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_NORMC, ilo, ihi, err), 0);
}

static void test_names_and_format(void) {
  const int h[2] = {64, 64};
  ne_policy_spec s = make_spec(4, h, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL);
  char buf[128];
  ASSERT_EQ(ne_policy_spec_format(&s, buf, sizeof buf), (int)strlen("mlp 4-64-64-2 tanh argmax normc"));
  ASSERT_STR_EQ(buf, "mlp 4-64-64-2 tanh argmax normc");
  char small[8];
  ASSERT_EQ(ne_policy_spec_format(&s, small, sizeof small), (int)strlen(buf));  // snprintf rules
  ASSERT_STR_EQ(small, "mlp 4-6");
  s.tanh_eval = NE_TANH_FLOAT, s.fma = 1;  // a new run's policy: both named
  ne_policy_spec_format(&s, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "mlp 4-64-64-2 tanh argmax normc tanh=float fma");
  // every name parses back to its value; unknown names are NE_EINVAL
  for (int i = 0; i < 2; i++) {
    ne_activation a;
    ASSERT_EQ(ne_activation_parse(ne_activation_name((ne_activation)i), &a), 0);
    ASSERT_EQ(a, i);
  }
  for (int i = 0; i < 3; i++) {
    ne_head hd;
    ne_init in;
    ASSERT_EQ(ne_head_parse(ne_head_name((ne_head)i), &hd), 0);
    ASSERT_EQ(hd, i);
    ASSERT_EQ(ne_init_parse(ne_init_name((ne_init)i), &in), 0);
    ASSERT_EQ(in, i);
  }
  for (int i = 0; i <= NE_HEAD_RAW; i++) {
    ne_head hd;
    ASSERT_EQ(ne_head_parse(ne_head_name((ne_head)i), &hd), 0);
    ASSERT_EQ(hd, i);
  }
  ne_head hd;
  ASSERT_EQ(ne_head_parse("softmax", &hd), NE_EINVAL);
  ASSERT_EQ(ne_head_parse(NULL, &hd), NE_EINVAL);
  ASSERT_STR_EQ(ne_init_name(NE_INIT_XAVIER), "xavier");
  ne_init zi;
  ASSERT_EQ(ne_init_parse("zeros", &zi), 0);
  ASSERT_EQ(zi, NE_INIT_ZEROS);
  ASSERT_STR_EQ(ne_init_name(NE_INIT_ZEROS), "zeros");
  ASSERT_STR_EQ(ne_head_name((ne_head)9), "invalid");
}

// ---- forward -------------------------------------------------------------------------------------

// 2-2-2 network with hand-chosen weights: layer 1 W = [[1, 2], [3, 4]] (input-major), b = [0.5, -0.5];
// layer 2 W = [[1, -1], [2, 0.5]], b = [0.1, 0.2]; clip head with wide bounds returns raw outputs.
static void test_forward_hand_computed(void) {
  const int h[1] = {2};
  float lo[2] = {-100, -100}, hi[2] = {100, 100};
  ne_policy_spec s = make_spec(2, h, 1, 2, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_NORMC, lo, hi);
  ASSERT_EQ(s.n_params, 12);
  const float params[12] = {1, 2, 3, 4, 0.5f, -0.5f, 1, -1, 2, 0.5f, 0.1f, 0.2f};
  const float obs[2] = {1, -1};
  float scratch[4], act[2];
  ne_policy_forward(&s, params, obs, scratch, act);
  // h = [0.5 + 1 - 3, -0.5 + 2 - 4] = [-1.5, -2.5]
  double t0 = tanh(-1.5), t1 = tanh(-2.5);
  ASSERT_NEAR(act[0], 0.1 + t0 * 1 + t1 * 2, 1e-6);
  ASSERT_NEAR(act[1], 0.2 - t0 + t1 * 0.5, 1e-6);
  // relu: h = [0, 0], so the output is the bias
  s = make_spec(2, h, 1, 2, NE_ACT_RELU, NE_HEAD_CLIP, NE_INIT_NORMC, lo, hi);
  ne_policy_forward(&s, params, obs, scratch, act);
  ASSERT_EQ(act[0], 0.1f);
  ASSERT_EQ(act[1], 0.2f);
  // relu passes positives unchanged: obs = [1, 1] gives h = [4.5, 5.5]
  const float obs2[2] = {1, 1};
  ne_policy_forward(&s, params, obs2, scratch, act);
  ASSERT_EQ(act[0], 0.1f + 4.5f * 1 + 5.5f * 2);
  ASSERT_EQ(act[1], 0.2f + 4.5f * -1 + 5.5f * 0.5f);
  // bounds [-1, 1]: clip cuts 15.6 and -2.05 to the box, raw passes them as they are (ARS)
  float lo1[2] = {-1, -1}, hi1[2] = {1, 1};
  s = make_spec(2, h, 1, 2, NE_ACT_RELU, NE_HEAD_CLIP, NE_INIT_NORMC, lo1, hi1);
  ne_policy_forward(&s, params, obs2, scratch, act);
  ASSERT_EQ(act[0], 1.0f);
  ASSERT_EQ(act[1], -1.0f);
  s = make_spec(2, h, 1, 2, NE_ACT_RELU, NE_HEAD_RAW, NE_INIT_NORMC, lo1, hi1);
  ne_policy_forward(&s, params, obs2, scratch, act);
  ASSERT_EQ(act[0], 0.1f + 4.5f * 1 + 5.5f * 2);
  ASSERT_EQ(act[1], 0.2f + 4.5f * -1 + 5.5f * 0.5f);
}

// Naive forward with the documented summation order: y[o] = b[o]; for i: y[o] += x[i] * W[i*out+o],
// with two roundings, or one (fmaf) for policy.fma.
static void reference_forward(const ne_policy_spec* s, const float* p, const float* obs, float* out) {
  float a[256], b[256];
  memcpy(a, obs, (size_t)s->sizes[0] * sizeof *a);
  for (int l = 0; l < s->n_layers; l++) {
    int in = s->sizes[l], o = s->sizes[l + 1];
    for (int j = 0; j < o; j++) b[j] = p[in * o + j];
    for (int i = 0; i < in; i++)
      for (int j = 0; j < o; j++) {
        float prod = a[i] * p[i * o + j];
        b[j] = s->fma ? fmaf(a[i], p[i * o + j], b[j]) : b[j] + prod;
      }
    for (int j = 0; j < o; j++)
      a[j] = l == s->n_layers - 1          ? b[j]
          : s->activation == NE_ACT_RELU   ? (b[j] < 0 ? 0 : b[j])
          : s->tanh_eval == NE_TANH_DOUBLE ? ne__tanhf(b[j])
          : s->fma                         ? ne__tanhf_float_fma(b[j])
                                           : ne__tanhf_float(b[j]);
    p += in * o + o;
  }
  memcpy(out, a, (size_t)s->sizes[s->n_layers] * sizeof *out);
}

// Widths that exercise the 16- and 4-output blocks and tails of 1, 2 and 3 outputs give exactly
// the naive loop's bits.
static void test_forward_matches_naive_loop(void) {
  const int h[2] = {37, 22};
  float lo[3] = {-1e30f, -1e30f, -1e30f}, hi[3] = {1e30f, 1e30f, 1e30f};
  for (int variant = 0; variant < 6; variant++) {
    int act = variant % 2, out = 1 + variant / 2;
    ne_policy_spec s = make_spec(5, h, 2, out, (ne_activation)act, NE_HEAD_CLIP, NE_INIT_XAVIER, lo, hi);
    float* p = alloc_floats(s.n_params);
    ne_policy_init_params(&s, 11, p);
    // non-zero biases too
    ne_rng r;
    ne_rng_seed(&r, 5);
    for (size_t i = 0; i < s.n_params; i++) p[i] += (float)ne_rng_range(&r, -0.1, 0.1);
    float* scratch = alloc_floats(s.scratch_floats);
    for (int trial = 0; trial < 50; trial++) {
      float obs[5], got[3], want[3];
      for (int i = 0; i < 5; i++) obs[i] = (float)ne_rng_range(&r, -3, 3);
      ne_policy_forward(&s, p, obs, scratch, got);
      reference_forward(&s, p, obs, want);
      ASSERT(memcmp(got, want, (size_t)out * sizeof *got) == 0);
    }
    free(p);
    free(scratch);
  }
}

// ulps between a float and the exact value v, in units of the float spacing at v
static double ulps(float got, double v) {
  float vf = (float)v;
  double spacing = (double)nextafterf(fabsf(vf), INFINITY) - (double)fabsf(vf);
  return fabs((double)got - v) / spacing;
}

// The float tanh, with separate roundings and with fused multiply-adds (policy.fma): within 6.3 ulp
// of libm's double tanh over [0, 10] and at tiny arguments, odd, never beyond +-1, exactly +-1 from
// 9.1 on (9.09 fused), NaN for NaN; the inplace loops (vectorized) give the scalar kernels' bits,
// as does the double tanh's.
static void test_float_tanh_accuracy_and_edges(void) {
  float (*const kernels[2])(float) = {ne__tanhf_float, ne__tanhf_float_fma};
  for (int fused = 0; fused < 2; fused++) {
    float (*tanh_f)(float) = kernels[fused];
    double worst = 0;
    for (int i = 0; i <= 2000000; i++) {
      float x = (float)i * 5e-6f;
      float y = tanh_f(x);
      double u = ulps(y, tanh((double)x));
      if (u > worst) worst = u;
      ASSERT(y <= 1.0f);
      ASSERT_EQ(tanh_f(-x), -y);
    }
    for (float x = 1e-30f; x < 1e-2f; x *= 1.7f) {
      double u = ulps(tanh_f(x), tanh((double)x));
      if (u > worst) worst = u;
    }
    printf("  float tanh%s: worst %.2f ulp\n", fused ? " (fma)" : "", worst);
    ASSERT(worst <= 6.3);
    ASSERT_EQ(tanh_f(9.1f), 1.0f);
    if (fused) ASSERT_EQ(tanh_f(9.09f), 1.0f);  // its clamp's bound (NE__TANHF_FMA_BOUND)
    ASSERT_EQ(tanh_f(1e30f), 1.0f);
    ASSERT_EQ(tanh_f(-INFINITY), -1.0f);
    ASSERT(isnan(tanh_f(NAN)));
    // below 2^-12 P and Q are exactly 1, so tanh(x) = x, subnormals included: the separate form's
    // floor on z (NE__TANHF_Z_FLOOR, which spares subnormal products) must stay below where that holds
    for (float x = 0x1p-149f; x < 0x1p-12f; x = x * 1.37f + 0x1p-149f) {
      ASSERT_EQ(tanh_f(x), x);
      ASSERT_EQ(tanh_f(-x), -x);
    }
    ASSERT_EQ(tanh_f(nextafterf(0x1p-12f, 0)), nextafterf(0x1p-12f, 0));
  }
  float a[37], b[37], c[37];
  for (int i = 0; i < 37; i++) a[i] = b[i] = c[i] = (float)(i - 18) * 0.61f;
  ne__tanhf_float_inplace(b, 37);
  ne__tanhf_inplace(c, 37);
  for (int i = 0; i < 37; i++) {
    ASSERT_EQ(b[i], ne__tanhf_float(a[i]));
    ASSERT_EQ(c[i], ne__tanhf(a[i]));
  }
  memcpy(b, a, sizeof b);
  ne__tanhf_float_fma_inplace(b, 37);
  for (int i = 0; i < 37; i++) ASSERT_EQ(b[i], ne__tanhf_float_fma(a[i]));
}

// A batch of 9 observations (8 rows for the output tails, and one left) gives the single forwards'
// bits, row by row, as do batches of 5 and 7 (the tails' few-row paths); so do 9 rows with 9
// different parameter vectors, and the first 8 of them in lanes.
static void batch_matches_single(const ne_policy_spec* s, const float* p, ne_rng* r) {
  enum { N = 9 };
  int d = s->sizes[0];
  float obs[N * 8], got[N * 8], want[N * 8];
  float* scratch = alloc_floats(ne_policy_batch_scratch_floats(s, N));
  for (int i = 0; i < N * d; i++) obs[i] = (float)ne_rng_range(r, -3, 3);
  for (int i = 0; i < N; i++) ne_policy_forward(s, p, obs + i * d, scratch, want + i * s->act_dim);
  static const int batch_sizes[] = {N, 5, 7};
  for (int k = 0; k < 3; k++) {
    memset(got, 0, sizeof got);
    ne_policy_forward_batch(s, p, obs, batch_sizes[k], scratch, got);
    ASSERT_EQ(memcmp(got, want, (size_t)batch_sizes[k] * (size_t)s->act_dim * sizeof *got), 0);
  }
  // each row with its own parameters (ne_policy_forward_rows): row i scaled by 1 + i/8
  float* own = alloc_floats(N * s->n_params);
  const float* rows[N];
  for (int i = 0; i < N; i++) {
    for (size_t k = 0; k < s->n_params; k++) own[(size_t)i * s->n_params + k] = p[k] * (1.0f + (float)i / 8);
    rows[i] = own + (size_t)i * s->n_params;
  }
  ne_policy_forward_rows(s, rows, obs, N, scratch, got);
  for (int i = 0; i < N; i++) ne_policy_forward(s, rows[i], obs + i * d, scratch, want + i * s->act_dim);
  ASSERT_EQ(memcmp(got, want, (size_t)N * (size_t)s->act_dim * sizeof *got), 0);
  // the first 8 rows in lanes (ne_policy_forward_lanes): interleaved parameters and inputs
  ASSERT(ne_policy_lanes_ok(s));
  float* lanes = alloc_floats(NE_POLICY_LANES * s->n_params);
  float* lane_scratch = alloc_floats(ne_policy_lanes_scratch_floats(s));
  float lane_obs[8 * NE_POLICY_LANES];
  for (int i = 0; i < NE_POLICY_LANES; i++) {
    ne_policy_set_lane(s, lanes, i, rows[i]);
    for (int k = 0; k < d; k++) lane_obs[k * NE_POLICY_LANES + i] = obs[i * d + k];
  }
  memset(got, 0, sizeof got);
  ne_policy_forward_lanes(s, lanes, lane_obs, lane_scratch, got);
  ASSERT_EQ(memcmp(got, want, (size_t)NE_POLICY_LANES * (size_t)s->act_dim * sizeof *got), 0);
  free(lanes);
  free(lane_scratch);
  free(own);
  free(scratch);
}

// The float tanh over a layer on every SIMD path (mlp_x86.c's vector kernels) equals the scalar kernel
// bit for bit, with separate roundings and with fused multiply-adds (policy.fma): 1M bit patterns
// spread over all 2^32 (every sign, exponent and NaN payload class), plus +-0, +-inf, NaNs, the
// clamp's +-9.1 and its neighbours. (Exhaustive runs over all 2^32 inputs matched on AVX2 and
// AVX-512 when the kernels were written.)
static void test_float_tanh_vectors_equal_scalar_kernel(void) {
  enum { N = 1 << 20, SPECIAL = 12 };
  ne_policy_spec s = {0};
  s.activation = NE_ACT_TANH;
  s.tanh_eval = NE_TANH_FLOAT;
  float* x = alloc_floats(N + SPECIAL);
  float* y = alloc_floats(N + SPECIAL);
  const uint32_t special[SPECIAL] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0xffa00002u,
                                     0x4111999au, 0xc111999au, 0x4111999bu, 0x41119999u, 0x00000001u, 0x7f7fffffu};
  for (uint32_t i = 0; i < N + SPECIAL; i++) {
    uint32_t bits = i < N ? i * 4093u + 0x9e3779b9u : special[i - N];  // an odd stride: every class
    memcpy(&x[i], &bits, sizeof bits);
  }
  for (s.fma = 0; s.fma <= 1; s.fma++)
    for (int level = NE_SIMD_BASE; level <= NE_SIMD_AVX512; level++) {
      if (ne__simd_force(level) != level) {  // a path the CPU lacks: said, not run
        printf("  (SIMD level %s: not on this CPU, not run)\n", ne__simd_name(level));
        continue;
      }
      memcpy(y, x, (N + SPECIAL) * sizeof *y);
      ne__policy_activate_simd(&s, y, N + SPECIAL);
      for (uint32_t i = 0; i < N + SPECIAL; i++) {
        float want = s.fma ? ne__tanhf_float_fma(x[i]) : ne__tanhf_float(x[i]);
        if (memcmp(&want, &y[i], sizeof want) != 0)
          TEST_FAIL("level %d, fma %d: tanh(%a) = %a, want %a", level, s.fma, x[i], y[i], want);
      }
    }
  ne__simd_force(0);
  free(x);
  free(y);
}

// Spec s with parameters scaled so that tanh units leave their linear range: 20 forwards of random
// observations equal the naive loop's bits, then batches, rows and lanes equal single forwards.
static void check_forward_paths(ne_policy_spec* s, int level, uint64_t seed) {
  int out = s->sizes[s->n_layers];
  float* p = alloc_floats(s->n_params);
  ne_policy_init_params(s, seed, p);
  ne_rng r;
  ne_rng_seed(&r, 9);
  for (size_t i = 0; i < s->n_params; i++) p[i] = p[i] * 3.0f + (float)ne_rng_range(&r, -0.1, 0.1);
  float* scratch = alloc_floats(s->scratch_floats);
  for (int trial = 0; trial < 20; trial++) {
    float obs[7], got[8], want[8];
    for (int i = 0; i < 7; i++) obs[i] = (float)ne_rng_range(&r, -3, 3);
    ne_policy_forward(s, p, obs, scratch, got);
    reference_forward(s, p, obs, want);
    if (s->head == NE_HEAD_ARGMAX) {  // the lowest index of the largest output (no NaN here)
      int best = 0;
      for (int k = 1; k < out; k++) best = want[k] > want[best] ? k : best;
      want[0] = (float)best;
    }
    if (memcmp(got, want, (size_t)s->act_dim * sizeof *got) != 0)
      TEST_FAIL("%s path, %d layers 7-%d-..-%d %s%s%s: %a vs naive %a", ne__simd_name(level), s->n_layers, s->sizes[1],
                out, ne_activation_name(s->activation), s->tanh_eval == NE_TANH_FLOAT ? " (float)" : "",
                s->fma ? " fma" : "", got[0], want[0]);
  }
  batch_matches_single(s, p, &r);
  free(p);
  free(scratch);
}

// Every SIMD path (core/cpu.h: baseline, AVX2, AVX-512) gives the naive loop's bits, for widths that
// exercise each path's blocks (4 vectors, 1 vector, 4 floats, 1-3 floats), both activations, both
// evaluations of tanh and both roundings (policy.fma), one observation at a time, batched, in rows
// and in lanes; one hidden layer (the lanes' last hidden layer and output layer in one pass read the
// observations: 16 units are one AVX-512 block, 9 four pairs and an odd one, 40 two blocks and
// four pairs) with the float tanh, fused, argmax and clip heads; paths the CPU lacks are reported,
// not run.
static void test_forward_simd_paths_match_naive_loop(void) {
  static const int widths[][3] = {{37, 22, 3}, {64, 64, 2}, {130, 17, 6}, {8, 71, 1}};
  static const int one_hidden[][2] = {{16, 2}, {9, 3}, {40, 8}};
  float lo[8], hi[8];
  for (int i = 0; i < 8; i++) lo[i] = -1e30f, hi[i] = 1e30f;
  for (int level = NE_SIMD_BASE; level <= NE_SIMD_AVX512; level++) {
    if (ne__simd_force(level) != level) {
      printf("  (SIMD path %s: not on this CPU, not run)\n", ne__simd_name(level));
      continue;
    }
    for (int v = 0; v < 24; v++) {
      const int* w = widths[v / 3 % 4];
      ne_policy_spec s =
          make_spec(7, w, 2, w[2], v % 3 == 1 ? NE_ACT_RELU : NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_XAVIER, lo, hi);
      if (v % 3 == 2) s.tanh_eval = NE_TANH_FLOAT;
      s.fma = v >= 12;
      check_forward_paths(&s, level, 3 + (uint64_t)v);
    }
    for (int v = 0; v < 6; v++) {
      const int* w = one_hidden[v % 3];
      ne_policy_spec s =
          make_spec(7, w, 1, w[1], NE_ACT_TANH, v < 3 ? NE_HEAD_ARGMAX : NE_HEAD_CLIP, NE_INIT_XAVIER, lo, hi);
      s.tanh_eval = NE_TANH_FLOAT, s.fma = 1;
      check_forward_paths(&s, level, 40 + (uint64_t)v);
    }
  }
  ne__simd_force(0);
}

// Known answer, generated once by this implementation (and identical at -O0, -O2, -O3 and
// -march=native): CartPole normc parameters for seed 1 (a hash of their bits), and the raw outputs
// of forward with those parameters scaled by 30 so the tanh units leave their linear range; then a
// new run's policy's (tanh in float, fused multiply-adds; the same on the baseline, AVX2 and
// AVX-512 paths).
static void test_init_and_forward_known_answer(void) {
  const int h[2] = {64, 64};
  float lo[2] = {-1e30f, -1e30f}, hi[2] = {1e30f, 1e30f};
  ne_policy_spec s = make_spec(4, h, 2, 2, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_NORMC, lo, hi);
  float* p = alloc_floats(s.n_params);
  ne_policy_init_params(&s, 1, p);
  uint64_t hash = 0;
  for (size_t i = 0; i < s.n_params; i++) {
    uint32_t bits;
    memcpy(&bits, &p[i], sizeof bits);
    hash = ne_hash2(hash, bits);
  }
  ASSERT_U64_EQ(hash, 0x97198136499ab268ull);
  for (size_t i = 0; i < s.n_params; i++) p[i] *= 30.0f;
  float obs[4] = {0.1f, -0.2f, 0.03f, 0.4f}, scratch[128], act[2];
  ne_policy_forward(&s, p, obs, scratch, act);
  if (act[0] != -0x1.4ffd9ep-5f || act[1] != -0x1.5b00fp-2f) TEST_FAIL("outputs %a %a", act[0], act[1]);
  // a new run's policy: tanh in float, multiply-adds fused
  s.tanh_eval = NE_TANH_FLOAT, s.fma = 1;
  ne_policy_forward(&s, p, obs, scratch, act);
  if (act[0] != -0x1.4ffd9p-5f || act[1] != -0x1.5b00f4p-2f) TEST_FAIL("fused outputs %a %a", act[0], act[1]);
  free(p);
}

// Output layer = bias only (W = 0, obs = 0), so the head sees exactly the chosen values.
static float argmax_of(const float* y, int n) {
  ne_policy_spec s = make_spec(1, NULL, 0, n, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL);
  float params[16] = {0}, obs[1] = {0}, scratch[32], act[1];
  memcpy(params + n, y, (size_t)n * sizeof *y);
  ne_policy_forward(&s, params, obs, scratch, act);
  return act[0];
}

static void test_argmax_ties_and_nan(void) {
  const float ties[4] = {1, 3, 3, 0}, first[3] = {5, 5, 5}, nan_first[4] = {NAN, 1, 2, 2}, all_nan[2] = {NAN, NAN};
  const float neg_inf[3] = {-INFINITY, -INFINITY, -1e38f}, last[5] = {0, 0, 0, 0, 1e-30f};
  ASSERT_EQ(argmax_of(ties, 4), 1.0f);  // lowest index on ties
  ASSERT_EQ(argmax_of(first, 3), 0.0f);
  ASSERT_EQ(argmax_of(nan_first, 4), 2.0f);  // NaN skipped, then ties
  ASSERT_EQ(argmax_of(all_nan, 2), 0.0f);
  ASSERT_EQ(argmax_of(neg_inf, 3), 2.0f);
  ASSERT_EQ(argmax_of(last, 5), 4.0f);
  // two outputs (their own two-compare form): every case of the loop's rule
  const float pairs[][2] = {{1, 2},   {2, 1},   {3, 3},           {-0.0f, 0.0f},
                            {NAN, 1}, {1, NAN}, {-INFINITY, NAN}, {NAN, -INFINITY}};
  const float want[] = {1, 0, 0, 0, 1, 0, 0, 1};
  for (int i = 0; i < 8; i++) ASSERT_EQ(argmax_of(pairs[i], 2), want[i]);
}

// The argmax head in lanes decides every case as the single forward does (ties, NaN, infinities)
// on every SIMD path.
// Lane k of one lanes forward (zero weights, cases[k] of n outputs as biases) chooses want[k], on
// every SIMD path, as the single forward does.
static void check_argmax_in_lanes(int n, const float* cases, const float* want) {
  ne_policy_spec s = make_spec(1, NULL, 0, n, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL);
  float lanes[2 * 5 * NE_POLICY_LANES] = {0}, obs[NE_POLICY_LANES] = {0}, scratch[2 * 5 * NE_POLICY_LANES];
  float act[NE_POLICY_LANES];
  for (int k = 0; k < NE_POLICY_LANES; k++) {
    float params[2 * 5] = {0};  // zero weights, the case as biases
    memcpy(params + n, cases + k * n, (size_t)n * sizeof *cases);
    ne_policy_set_lane(&s, lanes, k, params);
    ASSERT_EQ(argmax_of(cases + k * n, n), want[k]);
  }
  for (int level = NE_SIMD_BASE; level <= NE_SIMD_AVX512; level++) {
    if (ne__simd_force(level) != level) {  // a path the CPU lacks: said, not run
      printf("  (SIMD level %s: not on this CPU, not run)\n", ne__simd_name(level));
      continue;
    }
    memset(act, 0xff, sizeof act);
    ne_policy_forward_lanes(&s, lanes, obs, scratch, act);
    for (int k = 0; k < NE_POLICY_LANES; k++) ASSERT_EQ(act[k], want[k]);
  }
  ne__simd_force(0);
}

static void test_argmax_in_lanes(void) {
  enum { N = 5 };
  const float cases[NE_POLICY_LANES][N] = {{1, 3, 3, 0, -INFINITY},
                                           {5, 5, 5, 5, 5},
                                           {NAN, 1, 2, 2, 0},
                                           {NAN, NAN, NAN, NAN, NAN},
                                           {-INFINITY, -INFINITY, -1e38f, -INFINITY, -1e38f},
                                           {0, 0, 0, 0, 1e-30f},
                                           {NAN, NAN, NAN, NAN, -INFINITY},
                                           {2, NAN, 3, NAN, 3}};
  const float want[NE_POLICY_LANES] = {1, 0, 2, 0, 2, 4, 4, 2};
  check_argmax_in_lanes(N, cases[0], want);
  // two outputs (the lanes' two-compare form): every case of the loop's rule
  const float pairs[NE_POLICY_LANES][2] = {{1, 2},   {2, 1},   {3, 3},           {-0.0f, 0.0f},
                                           {NAN, 1}, {1, NAN}, {-INFINITY, NAN}, {NAN, -INFINITY}};
  const float want_pairs[NE_POLICY_LANES] = {1, 0, 0, 0, 1, 0, 0, 1};
  check_argmax_in_lanes(2, pairs[0], want_pairs);
}

// Whatever the parameters, continuous actions stay in [low, high].
static void test_tanh_and_clip_heads_stay_in_bounds(void) {
  const int h[1] = {8};
  float lo[3] = {-2, 0, 0.25f}, hi[3] = {2, 1, 0.25f};
  ne_rng r;
  ne_rng_seed(&r, 9);
  for (int head = NE_HEAD_TANH; head <= NE_HEAD_CLIP; head++) {
    ne_policy_spec s = make_spec(4, h, 1, 3, NE_ACT_TANH, (ne_head)head, NE_INIT_HE, lo, hi);
    float* p = alloc_floats(s.n_params);
    float* scratch = alloc_floats(s.scratch_floats);
    int hit_low = 0, hit_high = 0;
    for (int trial = 0; trial < 2000; trial++) {
      // huge weights saturate the head at both ends
      ne_policy_init_params(&s, (uint64_t)trial, p);
      for (size_t i = 0; i < s.n_params; i++) p[i] *= trial % 2 ? 1e6f : 1.0f;
      float obs[4], act[3];
      for (int i = 0; i < 4; i++) obs[i] = (float)ne_rng_range(&r, -10, 10);
      ne_policy_forward(&s, p, obs, scratch, act);
      for (int i = 0; i < 3; i++) {
        if (!(act[i] >= lo[i] && act[i] <= hi[i]))
          TEST_FAIL("head %d action %d = %g outside [%g, %g]", head, i, act[i], lo[i], hi[i]);
        hit_low += act[0] == lo[0], hit_high += act[0] == hi[0];
      }
    }
    ASSERT_GT(hit_low, 0);
    ASSERT_GT(hit_high, 0);
    free(p);
    free(scratch);
  }
  // tanh head midpoint: zero output maps to the middle of the interval
  ne_policy_spec s = make_spec(1, NULL, 0, 3, NE_ACT_TANH, NE_HEAD_TANH, NE_INIT_NORMC, lo, hi);
  float params[6] = {0}, obs[1] = {0}, scratch[6], act[3];
  ne_policy_forward(&s, params, obs, scratch, act);
  ASSERT_EQ(act[0], 0.0f);
  ASSERT_EQ(act[1], 0.5f);
  ASSERT_EQ(act[2], 0.25f);
}

// Exact-size heap buffers for params, obs, scratch and action: ASan reports any write or read past
// them. Covers no hidden layer, the maximum depth, wide and narrow layers, both activations.
static void test_forward_stays_in_buffers(void) {
  const int h7[7] = {3, 17, 1, 64, 5, 33, 2}, h2[2] = {200, 7};
  struct {
    int obs, nh, out;
    const int* hidden;
  } archs[] = {{4, 0, 2, NULL}, {1, 7, 3, h7}, {9, 2, 1, h2}, {300, 2, 17, h2}};  // 17: Humanoid
  float lo[17], hi[17];
  for (int i = 0; i < 17; i++) lo[i] = -1, hi[i] = 1;
  for (size_t a = 0; a < sizeof archs / sizeof *archs; a++)
    for (int head = 0; head < 3; head++) {
      ne_policy_spec s = make_spec(archs[a].obs, archs[a].hidden, archs[a].nh, archs[a].out, (ne_activation)(a % 2),
                                   (ne_head)head, NE_INIT_NORMC, lo, hi);
      float *p = alloc_floats(s.n_params), *obs = alloc_floats((size_t)archs[a].obs);
      float *scratch = alloc_floats(s.scratch_floats), *act = alloc_floats((size_t)s.act_dim);
      ne_policy_init_params(&s, 3, p);
      for (int i = 0; i < archs[a].obs; i++) obs[i] = (float)i * 0.1f - 1.0f;
      ne_policy_forward(&s, p, obs, scratch, act);
      for (int i = 0; i < s.act_dim; i++) ASSERT_EQ(act[i], act[i]);
      free(p), free(obs), free(scratch), free(act);
    }
}

// ---- initialization ------------------------------------------------------------------------------

// normc: every column W[:, j] has L2 norm 1 (hidden layers) or 0.01 (output layer); biases are 0.
static void test_normc_column_norms(void) {
  const int h[2] = {64, 64};
  ne_policy_spec s = make_spec(4, h, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL);
  float* p = alloc_floats(s.n_params);
  ne_policy_init_params(&s, 123, p);
  const float* w = p;
  for (int l = 0; l < s.n_layers; l++) {
    int in = s.sizes[l], out = s.sizes[l + 1];
    double want = l == s.n_layers - 1 ? 0.01 : 1.0;
    for (int j = 0; j < out; j++) {
      double sq = 0;
      for (int i = 0; i < in; i++) sq += (double)w[i * out + j] * w[i * out + j];
      ASSERT_NEAR(sqrt(sq), want, 1e-6 * want);
    }
    for (int j = 0; j < out; j++) ASSERT_EQ(w[in * out + j], 0.0f);
    w += in * out + out;
  }
  free(p);
}

static double weight_std(const float* w, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += (double)w[i] * w[i];
  return sqrt(s / (double)n);
}

// Xavier N(0, 2/(in+out)) and He N(0, 2/in): the weights' RMS matches within 5% on 128x96.
static void test_xavier_and_he_scales(void) {
  const int h[1] = {96};
  for (int init = NE_INIT_XAVIER; init <= NE_INIT_HE; init++) {
    ne_policy_spec s = make_spec(128, h, 1, 4, NE_ACT_RELU, NE_HEAD_ARGMAX, (ne_init)init, NULL, NULL);
    float* p = alloc_floats(s.n_params);
    ne_policy_init_params(&s, 77, p);
    double want = init == NE_INIT_XAVIER ? sqrt(2.0 / (128 + 96)) : sqrt(2.0 / 128);
    ASSERT_NEAR(weight_std(p, 128 * 96), want, 0.05 * want);
    for (int j = 0; j < 96; j++) ASSERT_EQ(p[128 * 96 + j], 0.0f);
    free(p);
  }
}

// zeros: every weight and bias 0 whatever the seed (ARS's M = 0 start; black-box ask/tell at x0).
static void test_zeros_init(void) {
  const int h[1] = {8};
  ne_policy_spec s = make_spec(5, h, 1, 3, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_ZEROS, NULL, NULL);
  float* p = alloc_floats(s.n_params);
  for (size_t i = 0; i < s.n_params; i++) p[i] = 1.0f;
  ne_policy_init_params(&s, 123, p);
  for (size_t i = 0; i < s.n_params; i++) ASSERT_EQ(p[i], 0.0f);
  free(p);
}

// Same seed, same bits; another seed or another layer, other noise.
static void test_init_is_deterministic_per_seed_and_layer(void) {
  const int h[1] = {16};
  ne_policy_spec s = make_spec(16, h, 1, 16, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_HE, (float[16]){0}, (float[16]){0});
  float *a = alloc_floats(s.n_params), *b = alloc_floats(s.n_params);
  ne_policy_init_params(&s, 1, a);
  ne_policy_init_params(&s, 1, b);
  ASSERT(memcmp(a, b, s.n_params * sizeof *a) == 0);
  ne_policy_init_params(&s, 2, b);
  ASSERT(memcmp(a, b, 256 * sizeof *a) != 0);
  // layer 2's weights (after 256 + 16) are not layer 1's, although both layers are 16x16 He
  ASSERT(memcmp(a, a + 272, 256 * sizeof *a) != 0);
  free(a);
  free(b);
}

TEST_MAIN(TEST_ENTRY(test_n_params_formula), TEST_ENTRY(test_float_tanh_accuracy_and_edges),
          TEST_ENTRY(test_float_tanh_vectors_equal_scalar_kernel), TEST_ENTRY(test_forward_simd_paths_match_naive_loop),
          TEST_ENTRY(test_spec_errors_name_the_value), TEST_ENTRY(test_names_and_format),
          TEST_ENTRY(test_forward_hand_computed), TEST_ENTRY(test_forward_matches_naive_loop),
          TEST_ENTRY(test_init_and_forward_known_answer), TEST_ENTRY(test_argmax_ties_and_nan),
          TEST_ENTRY(test_argmax_in_lanes), TEST_ENTRY(test_tanh_and_clip_heads_stay_in_bounds),
          TEST_ENTRY(test_forward_stays_in_buffers), TEST_ENTRY(test_normc_column_norms),
          TEST_ENTRY(test_xavier_and_he_scales), TEST_ENTRY(test_zeros_init),
          TEST_ENTRY(test_init_is_deterministic_per_seed_and_layer))
