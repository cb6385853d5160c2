// SPDX-License-Identifier: MIT
// The episode contract (episode.h, policy.h's ne_policy_input): the policy's input is the
// observation itself without normalization and (obs - mean) / std clipped to +-clip with it, the
// same in the lanes' column layout; an ne_episode gives the return, steps and observation sums of
// a loop written here from the contract's words (reset; per step: sums, input, forward, env step),
// and so does the evaluator's one-at-a-time episode; without a policy the caller's actions drive
// it; a failed step ends it with the env's code.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/episode.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "test.h"

#define NE_ENV_MAX_OBS_TEST 8  // the classic-control observations here have at most 4 floats

static ne_env_spec* make(const char* id) {
  char err[NE_ERRSTR_LEN] = "";
  ne_env_spec* spec = NULL;
  if (ne_env_make(id, NULL, &spec, err)) TEST_FAIL("%s: %s", id, err);
  return spec;
}

// no normalization: the observation itself, not a copy; with it, each component's formula in
// float, the clip at +-clip (or none when clip is 0), and the columns layout gives the same bits
static void test_policy_input_formula(void) {
  float obs[5] = {1.0f, -2.0f, 0.25f, 30.0f, -0.001f}, out[5];
  ASSERT(ne_policy_input(NULL, obs, 5, out) == obs);
  ne_obs_norm none = {NULL, NULL, 5};
  ASSERT(ne_policy_input(&none, obs, 5, out) == obs);
  float mean[5] = {0.5f, 0.0f, -0.25f, 1.0f, 0.0f}, std[5] = {2.0f, 0.5f, 0.1f, 3.0f, 0.1f};
  for (int c = 0; c < 2; c++) {
    ne_obs_norm n = {mean, std, c ? 5.0f : 0.0f};
    ASSERT(ne_policy_input(&n, obs, 5, out) == out);
    for (int i = 0; i < 5; i++) {
      float z = (obs[i] - mean[i]) / std[i];
      if (c) z = z < -5 ? -5 : (z > 5 ? 5 : z);
      ASSERT_EQ(out[i], z);
    }
    ASSERT_EQ(out[3], c ? 5.0f : (30.0f - 1.0f) / 3.0f);  // clipped from 9.67
    // 8 observations (the lockstep's lanes) and 3 (another count), component-major
    for (int n_obs = 3; n_obs <= 8; n_obs += 5) {
      float cols[5 * 8], got[5 * 8], row[5], want[5];
      for (int k = 0; k < n_obs; k++)
        for (int i = 0; i < 5; i++) cols[i * n_obs + k] = obs[i] * (float)(k + 1) - (float)k;
      ne_policy_input_columns(&n, cols, 5, n_obs, got);
      for (int k = 0; k < n_obs; k++) {
        for (int i = 0; i < 5; i++) row[i] = cols[i * n_obs + k];
        ne_policy_input(&n, row, 5, want);
        for (int i = 0; i < 5; i++) ASSERT_EQ(got[i * n_obs + k], want[i]);
      }
    }
  }
}

// a batch's normalization, or none
static void test_norm_of_a_batch(void) {
  ne_obs_norm n = ne_episode_norm(NULL);
  ASSERT(n.mean == NULL && n.std == NULL);
  ne_batch b = {0};
  n = ne_episode_norm(&b);
  ASSERT(n.mean == NULL);
  float mean[2] = {1, 2}, std[2] = {3, 4};
  b.obs_mean = mean, b.obs_std = std, b.obs_clip = 2.5f;
  n = ne_episode_norm(&b);
  ASSERT(n.mean == mean && n.std == std && n.clip == 2.5f);
}

// The contract's loop written out: reset; per step, add the observation to the sums, normalize
// and clip it, forward, step, add the reward.
static double plain_episode(const ne_env_spec* env, const ne_policy_spec* ps, const float* p, const ne_obs_norm* n,
                            uint64_t seed, uint64_t* steps, double* sum, double* sumsq) {
  ne_env_state* st = ne_env_state_create(env);
  float* scratch = ne_malloc((ps->scratch_floats + 1) * sizeof(float));
  float in[NE_ENV_MAX_OBS_TEST], act[NE_ENV_MAX_ACT];
  ASSERT(st && scratch);
  ASSERT_EQ(ne_env_reset(env, st, seed), 0);
  double ret = 0;
  *steps = 0;
  ne_step_out so = {0};
  do {
    for (int i = 0; i < env->obs_dim; i++) {
      double x = st->obs[i];
      sum[i] += x, sumsq[i] += x * x;
      float z = (st->obs[i] - n->mean[i]) / n->std[i];
      in[i] = z < -n->clip ? -n->clip : (z > n->clip ? n->clip : z);
    }
    ne_policy_forward(ps, p, in, scratch, act);
    ASSERT_EQ(ne_env_step(env, st, act, &so), 0);
    ret += so.reward;
    (*steps)++;
  } while (!so.terminated && !so.truncated);
  ne_free(scratch);
  ne_env_state_destroy(st);
  return ret;
}

// Pendulum (continuous, truncated at 200) and CartPole (discrete, terminates): an ne_episode and
// the evaluator's episode give the plain loop's return, steps and observation sums, bit for bit
static void test_episode_is_the_contract(void) {
  for (int v = 0; v < 2; v++) {
    ne_env_spec* env = make(v ? "CartPole-v1" : "Pendulum-v1");
    ASSERT(env->obs_dim <= NE_ENV_MAX_OBS_TEST);
    char err[NE_ERRSTR_LEN];
    ne_policy_spec ps;
    int hidden[2] = {16, 16};
    ASSERT_EQ(ne_policy_spec_init(&ps, env->obs_dim, hidden, 2, v ? env->n_actions : env->act_dim, NE_ACT_TANH,
                                  v ? NE_HEAD_ARGMAX : NE_HEAD_TANH, NE_INIT_NORMC, v ? NULL : env->act_low,
                                  v ? NULL : env->act_high, err),
              0);
    ps.tanh_eval = NE_TANH_FLOAT;
    float* p = ne_malloc(ps.n_params * sizeof *p);
    float* scratch = ne_malloc((ps.scratch_floats + 1) * sizeof(float));
    float input[NE_ENV_MAX_OBS_TEST];
    ASSERT(p && scratch);
    ne_policy_init_params(&ps, 5, p);
    ne_noise_axpy(6, 0, ps.n_params, 0.3f, p);
    float mean[4] = {0.1f, -0.2f, 0.3f, 0.01f}, std[4] = {0.5f, 0.7f, 2.0f, 0.02f};
    ne_obs_norm norm = {mean, std, 1.5f};
    uint64_t seed = 4242 + (uint64_t)v;
    // the plain loop
    double sum[4] = {0}, sumsq[4] = {0};
    uint64_t plain_steps;
    double plain = plain_episode(env, &ps, p, &norm, seed, &plain_steps, sum, sumsq);
    // an ne_episode with sums
    double osum[4] = {0}, osumsq[4] = {0};
    ne_result stats = {.obs_sum = osum, .obs_sumsq = osumsq};
    ne_env_state* st = ne_env_state_create(env);
    ne_episode ep = {.env = env,
                     .state = st,
                     .policy = &ps,
                     .params = p,
                     .norm = norm,
                     .stats = &stats,
                     .input = input,
                     .scratch = scratch};
    ASSERT_EQ(ne_episode_begin(&ep, seed), 0);
    while (!ep.done) ASSERT_EQ(ne_episode_step(&ep), 0);
    ASSERT(ep.ret == plain);
    ASSERT_EQ(ep.steps, plain_steps);
    ASSERT(ep.last.terminated || ep.last.truncated);
    ASSERT(stats.obs_count == (double)plain_steps);  // every observation acted on, not the final one
    for (int i = 0; i < env->obs_dim; i++) ASSERT(osum[i] == sum[i] && osumsq[i] == sumsq[i]);
    // the evaluator's one-at-a-time episode, with the same normalization as a batch
    ne_batch b = {.obs_mean = mean, .obs_std = std, .obs_clip = 1.5f};
    ne_evaluator* ev = ne_evaluator_create(env, &ps, NULL);
    uint64_t s = 0;
    ASSERT(ev && ne_evaluator_episode(ev, p, seed, &b, &s) == plain);
    ASSERT_EQ(s, plain_steps);
    ASSERT(v ? plain_steps < 200 : plain_steps == 200);  // CartPole ends itself, Pendulum truncates
    ne_evaluator_destroy(ev);
    ne_env_state_destroy(st);
    ne_free(scratch);
    ne_free(p);
    ne_env_spec_destroy(env);
  }
}

// without a policy the caller's actions drive the episode: the rewards of ne_env_step summed, the
// TimeLimit's truncation; an action outside the space ends it with the env's code
static void test_episode_with_the_callers_actions(void) {
  ne_env_spec* env = make("MountainCar-v0");
  ne_env_state* st = ne_env_state_create(env);
  ne_env_state* ref = ne_env_state_create(env);
  ASSERT(st && ref);
  ne_episode ep = {.env = env, .state = st};
  ASSERT_EQ(ne_episode_begin(&ep, 9), 0);
  ASSERT_EQ(ne_env_reset(env, ref, 9), 0);
  double ret = 0;
  ne_step_out so = {0};
  for (int t = 0; !ep.done; t++) {
    float a = (float)(t % 3);
    ASSERT_EQ(ne_episode_act(&ep, &a), 0);
    ASSERT_EQ(ne_env_step(env, ref, &a, &so), 0);
    ret += so.reward;
    ASSERT_EQ(memcmp(st->obs, ref->obs, (size_t)env->obs_dim * sizeof(float)), 0);
  }
  ASSERT(ep.ret == ret && ep.last.truncated && ep.steps == 200);
  ASSERT_EQ(ne_episode_begin(&ep, 10), 0);
  ASSERT(ep.ret == 0 && ep.steps == 0 && !ep.done);
  float bad = 7;
  ASSERT_EQ(ne_episode_act(&ep, &bad), NE_ERANGE);
  ASSERT(ep.done && ep.steps == 0);
  ne_env_state_destroy(ref);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(env);
}

TEST_MAIN(TEST_ENTRY(test_policy_input_formula), TEST_ENTRY(test_norm_of_a_batch),
          TEST_ENTRY(test_episode_is_the_contract), TEST_ENTRY(test_episode_with_the_callers_actions))
