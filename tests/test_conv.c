// SPDX-License-Identifier: MIT
// Conv policies (neuroevo/conv.h, src/policy/conv.c): layer text parsing, spec shapes and parameter
// counts of the Nature and MinAtar nets, a forward pass that matches a naive reference bit for bit
// on every kernel variant, batched forward equal to single forwards, deterministic init, and the
// [policy] config keys.
#include <stdio.h>
#include <string.h>

#include "core/cpu.h"  // ne__simd_force: each SIMD level of the matrix kernel
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/conv.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/noise.h"
#include "neuroevo/run.h"
#include "policy/policy_int.h"
#include "test.h"

static void test_parse_layers(void) {
  ne_conv_layer L[NE_POLICY_MAX_CONV];
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_conv_parse("32x8x8/4,64x4x4/2,64x3x3/1", L, NE_POLICY_MAX_CONV, err), 3);
  ASSERT_EQ(L[0].filters, 32);
  ASSERT_EQ(L[0].kernel, 8);
  ASSERT_EQ(L[0].stride, 4);
  ASSERT_EQ(L[2].filters, 64);
  ASSERT_EQ(L[2].kernel, 3);
  ASSERT_EQ(L[2].stride, 1);
  // stride 1 may be left out; blanks are allowed
  ASSERT_EQ(ne_conv_parse(" 16x3x3 , 8x2x2/2", L, NE_POLICY_MAX_CONV, err), 2);
  ASSERT_EQ(L[0].stride, 1);
  ASSERT_EQ(L[1].stride, 2);
  // errors name the bad item
  ASSERT_EQ(ne_conv_parse("32x8x4/4", L, NE_POLICY_MAX_CONV, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "32x8x4/4");
  ASSERT_EQ(ne_conv_parse("32x8x8/0", L, NE_POLICY_MAX_CONV, err), NE_EINVAL);
  ASSERT_EQ(ne_conv_parse("32x8", L, NE_POLICY_MAX_CONV, err), NE_EINVAL);
  ASSERT_EQ(ne_conv_parse("", L, NE_POLICY_MAX_CONV, err), NE_EINVAL);
  ASSERT_EQ(ne_conv_parse("1x1x1,1x1x1,1x1x1", L, 2, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "more than 2");
}

// builds a preset's spec over shape with n_actions outputs
static void preset_spec(const char* name, const int shape[3], int n_actions, ne_policy_spec* s) {
  const ne_conv_preset* p = ne_conv_preset_find(name);
  ASSERT(p != NULL);
  ne_conv_layer L[NE_POLICY_MAX_CONV];
  char err[NE_ERRSTR_LEN];
  int n = ne_conv_parse(p->conv, L, NE_POLICY_MAX_CONV, err);
  ASSERT_GT(n, 0);
  int rc = ne_policy_spec_init_conv(s, shape, L, n, p->hidden, p->n_hidden, n_actions, NE_ACT_RELU, NE_HEAD_ARGMAX,
                                    NE_INIT_NORMC, NULL, NULL, err);
  if (rc) TEST_FAIL("%s", err);
}

static void test_nature_net_shapes(void) {
  ne_policy_spec s;
  preset_spec("nature", (int[3]){84, 84, 4}, 18, &s);
  // 84 -> 20 -> 9 -> 7 (Mnih et al. 2015), 7*7*64 = 3136 into 512
  ASSERT_EQ(s.conv[0].out_h, 20);
  ASSERT_EQ(s.conv[1].out_h, 9);
  ASSERT_EQ(s.conv[2].out_w, 7);
  ASSERT_EQ(s.sizes[0], 3136);
  ASSERT_EQ(s.sizes[1], 512);
  ASSERT_EQ(s.sizes[2], 18);
  size_t want = (256 * 32 + 32) + (512 * 64 + 64) + (576 * 64 + 64) + (3136 * 512 + 512) + (512 * 18 + 18);
  ASSERT_U64_EQ(s.n_params, want);
  ASSERT_NEAR(ne_policy_macs(&s), 400.0 * 32 * 256 + 81.0 * 64 * 512 + 49.0 * 64 * 576 + 3136.0 * 512 + 512 * 18, 0);
  char buf[256];
  ne_policy_spec_format(&s, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "conv 84x84x4 32x8x8/4,64x4x4/2,64x3x3/1 3136-512-18 relu argmax normc");
  // MinAtar: 10x10xC -> 8x8x16 = 1024 -> 128
  preset_spec("minatar", (int[3]){10, 10, 4}, 3, &s);
  ASSERT_EQ(s.sizes[0], 1024);
  ASSERT_EQ(s.sizes[1], 128);
  ASSERT_U64_EQ(s.n_params, (36 * 16 + 16) + (1024 * 128 + 128) + (128 * 3 + 3));
}

static void test_spec_errors_name_the_layer(void) {
  ne_conv_layer L[2] = {{.filters = 4, .kernel = 5, .stride = 1}, {.filters = 4, .kernel = 9, .stride = 1}};
  ne_policy_spec s;
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_policy_spec_init_conv(&s, (int[3]){10, 10, 2}, L, 2, NULL, 0, 3, NE_ACT_RELU, NE_HEAD_ARGMAX,
                                     NE_INIT_NORMC, NULL, NULL, err),
            NE_EINVAL);
  ASSERT_CONTAINS(err, "conv layer 1");
  ASSERT_CONTAINS(err, "6x6x4");
}

// The reference: each output is b, then + x*w over (ky, kx, c) in order, relu; dense likewise.
static void reference_forward(const ne_policy_spec* s, const float* p, const float* obs, float* out) {
  static float bufs[2][4096];
  const float* x = obs;
  int which = 0;
  for (int l = 0; l < s->n_conv; l++) {
    const ne_conv_layer* L = &s->conv[l];
    int K = L->kernel * L->kernel * L->in_c;
    float* y = bufs[which];
    for (int oy = 0; oy < L->out_h; oy++)
      for (int ox = 0; ox < L->out_w; ox++)
        for (int f = 0; f < L->filters; f++) {
          float acc = p[K * L->filters + f];
          int k = 0;
          for (int ky = 0; ky < L->kernel; ky++)
            for (int kx = 0; kx < L->kernel; kx++)
              for (int c = 0; c < L->in_c; c++, k++) {
                float xv = x[((oy * L->stride + ky) * L->in_w + (ox * L->stride + kx)) * L->in_c + c];
                acc += xv * p[k * L->filters + f];
              }
          y[(oy * L->out_w + ox) * L->filters + f] = acc < 0 ? 0 : acc;
        }
    p += K * L->filters + L->filters;
    x = y;
    which ^= 1;
  }
  for (int l = 0; l < s->n_layers; l++) {
    int in = s->sizes[l], o = s->sizes[l + 1];
    float* y = l == s->n_layers - 1 ? out : bufs[which];
    for (int j = 0; j < o; j++) {
      float acc = p[in * o + j];
      for (int i = 0; i < in; i++) acc += x[i] * p[i * o + j];
      y[j] = (l < s->n_layers - 1 && acc < 0) ? 0 : acc;
    }
    p += in * o + o;
    x = y;
    which ^= 1;
  }
}

// A small net with every awkward size: odd filters (column tails), rows not a multiple of the
// row block, two conv layers, a hidden dense layer.
static void odd_spec(ne_policy_spec* s) {
  ne_conv_layer L[2] = {{.filters = 21, .kernel = 3, .stride = 2}, {.filters = 37, .kernel = 2, .stride = 1}};
  int hidden = 19;
  char err[NE_ERRSTR_LEN];
  int rc = ne_policy_spec_init_conv(s, (int[3]){11, 9, 3}, L, 2, &hidden, 1, 5, NE_ACT_RELU, NE_HEAD_ARGMAX,
                                    NE_INIT_XAVIER, NULL, NULL, err);
  if (rc) TEST_FAIL("%s", err);
}

// the output layer's values: forward with a linear head is awkward, so read the scratch's last
// layer (the ping-pong half written by the output layer)
static const float* last_layer(const ne_policy_spec* s, const float* scratch, int n) {
  int layers = s->n_conv + s->n_layers;
  return scratch + (size_t)((layers - 1) & 1) * (size_t)n * (s->scratch_floats / 2);
}

static void test_forward_matches_reference_on_every_kernel(void) {
  ne_policy_spec s;
  odd_spec(&s);
  float* p = ne_malloc(s.n_params * sizeof *p);
  float obs[11 * 9 * 3], want[5], act;
  ne_noise_fill(7, 0, s.n_params, p);  // random biases too, not just the init's zeros
  ne_noise_fill(8, 0, sizeof obs / sizeof obs[0], obs);
  reference_forward(&s, p, obs, want);
  float* scratch = ne_malloc(s.scratch_floats * sizeof *scratch);
  for (int level = NE_SIMD_BASE; level <= NE_SIMD_AVX512; level++) {
    if (ne__simd_force(level) != level) {
      printf("  (SIMD level %s: not on this CPU, not run)\n", ne__simd_name(level));
      continue;
    }
    ne_policy_forward(&s, p, obs, scratch, &act);
    const float* y = last_layer(&s, scratch, 1);
    for (int j = 0; j < 5; j++)
      if (memcmp(&y[j], &want[j], sizeof want[j]) != 0)
        TEST_FAIL("level %s: output %d = %.9g, reference %.9g", ne__simd_name(level), j, y[j], want[j]);
  }
  ne__simd_force(0);
  ne_free(p);
  ne_free(scratch);
}

static void test_batch_equals_single_forwards(void) {
  ne_policy_spec s;
  odd_spec(&s);
  enum { N = 7 };
  size_t d = 11 * 9 * 3;
  float* p = ne_malloc(s.n_params * sizeof *p);
  float* obs = ne_malloc(N * d * sizeof *obs);
  float* batch = ne_malloc(ne_policy_batch_scratch_floats(&s, N) * sizeof *batch);
  float* one = ne_malloc(s.scratch_floats * sizeof *one);
  ne_noise_fill(9, 0, s.n_params, p);
  ne_noise_fill(10, 0, N * d, obs);
  float acts[N], act;
  ne_policy_forward_batch(&s, p, obs, N, batch, acts);
  float outs[N][5];
  memcpy(outs, last_layer(&s, batch, N), sizeof outs);
  for (int i = 0; i < N; i++) {
    ne_policy_forward(&s, p, obs + i * d, one, &act);
    ASSERT_EQ(memcmp(last_layer(&s, one, 1), outs[i], sizeof outs[i]), 0);
    ASSERT_EQ((int)act, (int)acts[i]);
  }
  ne_free(p);
  ne_free(obs);
  ne_free(batch);
  ne_free(one);
}

static void test_init_is_deterministic_and_normalized(void) {
  ne_policy_spec s;
  preset_spec("minatar", (int[3]){10, 10, 7}, 3, &s);
  float* a = ne_malloc(s.n_params * sizeof *a);
  float* b = ne_malloc(s.n_params * sizeof *b);
  ne_policy_init_params(&s, 42, a);
  ne_policy_init_params(&s, 42, b);
  ASSERT_EQ(memcmp(a, b, s.n_params * sizeof *a), 0);
  // normc: each filter's fan-in (a column of the (63, 16) matrix) has norm 1, biases 0
  for (int f = 0; f < 16; f++) {
    double sq = 0;
    for (int k = 0; k < 63; k++) sq += (double)a[k * 16 + f] * a[k * 16 + f];
    ASSERT_NEAR(sq, 1.0, 1e-5);
    ASSERT_EQ(a[63 * 16 + f], 0.0f);
  }
  ne_policy_init_params(&s, 43, b);
  ASSERT(memcmp(a, b, s.n_params * sizeof *a) != 0);
  ne_free(a);
  ne_free(b);
}

// builds the policy a config text describes for env id
static int policy_from_text(const char* text, const char* env_id, ne_policy_spec* s, char* err) {
  ne_config* cfg = ne_config_create();
  ASSERT(cfg != NULL);
  int rc = ne_config_load_string(cfg, text, "test", err);
  ne_env_spec* env = NULL;
  if (!rc) rc = ne_env_make(env_id, NULL, &env, err);
  if (!rc) rc = ne_policy_from_config(cfg, env, s, err);
  ne_env_spec_destroy(env);
  ne_config_destroy(cfg);
  return rc;
}

static void test_config_keys(void) {
  ne_policy_spec s;
  char err[NE_ERRSTR_LEN], buf[256];
  // a preset fixes the layers and relu, whatever hidden/activation say
  ASSERT_EQ(policy_from_text("[policy]\npreset = minatar\nhidden = 7\n", "MinAtar/Breakout-v1", &s, err), 0);
  ne_policy_spec_format(&s, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "conv 10x10x4 16x3x3/1 1024-128-3 relu argmax normc");
  // explicit layers
  ASSERT_EQ(policy_from_text("[policy]\ntype = conv\nconv = 8x3x3/1,4x2x2/2\nhidden = 32\nactivation = tanh\n",
                             "MinAtar/Breakout-v0", &s, err),
            0);
  ne_policy_spec_format(&s, buf, sizeof buf);
  ASSERT_STR_EQ(buf, "conv 10x10x4 8x3x3/1,4x2x2/2 64-32-6 tanh argmax normc tanh=float");  // a config: tanh in float
  // a flat observation cannot feed a conv net; type = conv needs layers
  ASSERT_EQ(policy_from_text("[policy]\npreset = nature\n", "CartPole-v1", &s, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "image observation");
  ASSERT_EQ(policy_from_text("[policy]\ntype = conv\n", "MinAtar/Breakout-v1", &s, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "policy.conv");
}

// A conv candidate's episodes run in lockstep with batched forwards (src/exec/lockstep.c) give the
// fitness, spread and steps of the same episodes run one at a time, bit for bit.
static void test_evaluator_lockstep_equals_sequential_episodes(void) {
  ne_env_spec* env;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("MinAtar/Breakout-v1", NULL, &env, err)) TEST_FAIL("%s", err);
  ne_policy_spec s;
  preset_spec("minatar", env->obs_shape, env->n_actions, &s);
  float* p = ne_malloc(s.n_params * sizeof *p);
  ne_policy_init_params(&s, 3, p);
  ne_noise_axpy(4, 0, s.n_params, 0.5f, p);  // a policy that does not always pick the same action
  ne_evaluator* ev = ne_evaluator_create(env, &s, NULL);
  ASSERT(ev != NULL);
  // 13 episodes: a full lockstep chunk of 8 and a partial one of 5
  ne_blob blob = {.hash = 1, .n = s.n_params, .data = p};
  ne_candidate c = {.kind = NE_CAND_VECTOR, .episodes = 13, .episode_seed = 77, .blob = 0};
  ne_batch batch = {.n = 1, .cands = &c, .n_blobs = 1, .blobs = &blob};
  ne_result r = {0};
  ASSERT_EQ(ne_evaluator_run(ev, &batch, &c, &r), 0);
  // the sequential reference: the evaluator's own single-episode path and Welford's fold
  double mean = 0, m2 = 0;
  uint64_t steps = 0;
  for (uint32_t e = 0; e < 13; e++) {
    double ret = ne_evaluator_episode(ev, p, ne_hash2(77, e), NULL, &steps);
    double delta = ret - mean;
    mean += delta / (double)(e + 1);
    m2 += delta * (ret - mean);
  }
  ASSERT_EQ(memcmp(&r.fitness, &mean, sizeof mean), 0);
  ASSERT_NEAR(r.return_std, sqrt(m2 / 13), 0);
  ASSERT_U64_EQ(r.steps, steps);
  ASSERT_GT(steps, 13 * 5);
  ne_evaluator_destroy(ev);
  ne_free(p);
  ne_env_spec_destroy(env);
}

// A candidate's episodes evaluated in parts (ne_evaluator_run_episodes, as Redis workers do when
// the master splits a candidate over tasks) and folded with ne_evaluator_summarize give the whole
// candidate's fitness, spread and steps bit for bit, whatever the cut: in lockstep (conv) and not.
static void test_evaluator_parts_equal_whole(void) {
  ne_env_spec* env;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("MinAtar/Breakout-v1", NULL, &env, err)) TEST_FAIL("%s", err);
  ne_policy_spec s;
  preset_spec("minatar", env->obs_shape, env->n_actions, &s);
  float* p = ne_malloc(s.n_params * sizeof *p);
  ne_policy_init_params(&s, 5, p);
  ne_noise_axpy(6, 0, s.n_params, 0.5f, p);
  ne_evaluator* ev = ne_evaluator_create(env, &s, NULL);
  ASSERT(ev != NULL);
  ne_blob blob = {.hash = 1, .n = s.n_params, .data = p};
  ne_candidate c = {.kind = NE_CAND_VECTOR, .episodes = 13, .episode_seed = 91, .blob = 0};
  ne_batch batch = {.n = 1, .cands = &c, .n_blobs = 1, .blobs = &blob};
  ne_result whole = {0};
  ASSERT_EQ(ne_evaluator_run(ev, &batch, &c, &whole), 0);
  // cuts: one part, a cut inside a lockstep chunk, single episodes
  const uint32_t cuts[3][14] = {{0, 13}, {0, 5, 9, 13}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}};
  const int n_cuts[3] = {2, 4, 14};
  for (int k = 0; k < 3; k++) {
    double returns[13];
    uint64_t steps = 0;
    for (int j = 0; j + 1 < n_cuts[k]; j++) {
      ne_result part = {0};
      uint32_t first = cuts[k][j], n = cuts[k][j + 1] - first;
      ASSERT_EQ(ne_evaluator_run_episodes(ev, &batch, &c, first, n, returns + first, &part), 0);
      ASSERT_EQ(part.episodes, n);
      steps += part.steps;
    }
    int varied = 0;  // the fold's order must matter for the test to mean something
    for (int e = 1; e < 13; e++) varied |= returns[e] != returns[0];
    ASSERT(varied);
    ne_result joined = {0};
    ne_evaluator_summarize(returns, 13, &joined);
    ASSERT_EQ(memcmp(&joined.fitness, &whole.fitness, sizeof whole.fitness), 0);
    ASSERT_EQ(memcmp(&joined.return_std, &whole.return_std, sizeof whole.return_std), 0);
    ASSERT_EQ(joined.episodes, 13);
    ASSERT_U64_EQ(steps, whole.steps);
  }
  ne_evaluator_destroy(ev);
  ne_free(p);
  ne_env_spec_destroy(env);
}

TEST_MAIN(TEST_ENTRY(test_parse_layers), TEST_ENTRY(test_nature_net_shapes),
          TEST_ENTRY(test_spec_errors_name_the_layer), TEST_ENTRY(test_forward_matches_reference_on_every_kernel),
          TEST_ENTRY(test_batch_equals_single_forwards), TEST_ENTRY(test_init_is_deterministic_and_normalized),
          TEST_ENTRY(test_config_keys), TEST_ENTRY(test_evaluator_lockstep_equals_sequential_episodes),
          TEST_ENTRY(test_evaluator_parts_equal_whole))
