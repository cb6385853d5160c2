// SPDX-License-Identifier: MIT
// Behaviour characterizations (env.h's ne_env_behaviour, the evaluator's want_bc): the final
// observation by default, the components env.behaviour names, clear errors for bad values, none
// for black-box functions; the evaluator's mean over a candidate's episodes equals a hand-rolled
// loop over the same seeds, also when a conv policy runs the episodes in lockstep, and several
// candidates' episodes in lockstep equal their evaluations one at a time. (MuJoCo's final
// positions: test_mujoco; Atari's RAM: tests/ale/test_ale; the maze's x-y: test_maze.)
#include <stdint.h>
#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/conv.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "test.h"

static ne_env_spec* make(const char* id) {
  char err[NE_ERRSTR_LEN] = "";
  ne_env_spec* spec = NULL;
  if (ne_env_make(id, NULL, &spec, err)) TEST_FAIL("%s: %s", id, err);
  return spec;
}

// CartPole's default is its final observation; obs:I,J picks components in the order named
static void test_default_and_selected_components(void) {
  ne_env_spec* spec = make("CartPole-v1");
  ASSERT_EQ(spec->bc_dim, 4);
  ASSERT_EQ(spec->bc_native, 0);
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 5), 0);
  float act = 1, bc[4];
  ne_step_out so;
  for (int t = 0; t < 7; t++) ASSERT_EQ(ne_env_step(spec, st, &act, &so), 0);
  ASSERT_EQ(ne_env_behaviour(spec, st, bc), 0);
  ASSERT_EQ(memcmp(bc, st->obs, sizeof bc), 0);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_env_set_behaviour(spec, "obs:2,0", err), 0);
  ASSERT_EQ(spec->bc_dim, 2);
  ASSERT_EQ(ne_env_behaviour(spec, st, bc), 0);
  ASSERT(bc[0] == st->obs[2] && bc[1] == st->obs[0]);
  ASSERT_EQ(ne_env_set_behaviour(spec, "auto", err), 0);  // auto keeps what is there
  ASSERT_EQ(spec->bc_dim, 2);
  ASSERT_EQ(ne_env_set_behaviour(spec, "obs", err), 0);
  ASSERT_EQ(spec->bc_dim, 4);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// bad values name the key, the value and what is expected
static void test_bad_values_are_clear_errors(void) {
  ne_env_spec* spec = make("CartPole-v1");
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_env_set_behaviour(spec, "obs:4", err), NE_EINVAL);
  ASSERT_CONTAINS(err, "env.behaviour = 'obs:4'");
  ASSERT_CONTAINS(err, "0..3");
  ASSERT_EQ(ne_env_set_behaviour(spec, "obs:1;2", err), NE_EINVAL);
  ASSERT_CONTAINS(err, "expected ','");
  ASSERT_EQ(ne_env_set_behaviour(spec, "obs:", err), NE_EINVAL);
  ASSERT_EQ(ne_env_set_behaviour(spec, "position", err), NE_EINVAL);
  ASSERT_CONTAINS(err, "expected auto, obs or obs:I,J");
  ASSERT_EQ(spec->bc_dim, 4);  // a refused value changes nothing
  ne_env_spec_destroy(spec);
  // black-box functions have no episodes to characterize
  spec = make("bbob/sphere");
  ASSERT_EQ(spec->bc_dim, 0);
  ASSERT_EQ(ne_env_set_behaviour(spec, "obs", err), NE_EINVAL);
  ASSERT_CONTAINS(err, "no observations");
  ne_env_spec_destroy(spec);
}

// The evaluator's behaviour is the mean of each episode's final characterization, in episode
// order: a loop over the same seeds with the same parameters gives the same floats.
static void test_evaluator_mean_over_episodes(void) {
  ne_env_spec* env = make("Acrobot-v1");
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_env_set_behaviour(env, "obs:0,1,4", err), 0);
  ne_policy_spec ps;
  int hidden = 8;
  ASSERT_EQ(ne_policy_spec_init(&ps, env->obs_dim, &hidden, 1, env->n_actions, NE_ACT_TANH, NE_HEAD_ARGMAX,
                                NE_INIT_NORMC, NULL, NULL, err),
            0);
  float* p = ne_malloc(ps.n_params * sizeof *p);
  float* scratch = ne_malloc((ps.scratch_floats + 1) * sizeof(float));
  ne_policy_init_params(&ps, 9, p);
  ne_noise_axpy(2, 0, ps.n_params, 1.0f, p);
  ne_evaluator* ev = ne_evaluator_create(env, &ps, NULL);
  ASSERT(ev && p && scratch);
  ne_blob blob = {.hash = 1, .n = ps.n_params, .data = p};
  ne_candidate c = {.kind = NE_CAND_VECTOR, .episodes = 3, .episode_seed = 41, .blob = 0};
  ne_batch batch = {.n = 1, .cands = &c, .n_blobs = 1, .blobs = &blob, .want_bc = 1};
  float bc[3] = {-7, -7, -7};
  ne_result r = {0};
  r.bc = bc;
  ASSERT_EQ(ne_evaluator_run(ev, &batch, &c, &r), 0);
  // the reference: three episodes by hand, characterizations summed in double, then averaged
  double sum[3] = {0, 0, 0};
  ne_env_state* st = ne_env_state_create(env);
  for (uint32_t e = 0; e < 3; e++) {
    ASSERT_EQ(ne_env_reset(env, st, ne_hash2(41, e)), 0);
    ne_step_out so = {0};
    float act;
    do {
      ne_policy_forward(&ps, p, st->obs, scratch, &act);
      ASSERT_EQ(ne_env_step(env, st, &act, &so), 0);
    } while (!so.terminated && !so.truncated);
    sum[0] += st->obs[0], sum[1] += st->obs[1], sum[2] += st->obs[4];
  }
  for (int i = 0; i < 3; i++) ASSERT(bc[i] == (float)(sum[i] / 3.0));
  // without want_bc the buffer is left alone
  float untouched[3] = {5, 5, 5};
  r.bc = untouched;
  batch.want_bc = 0;
  ASSERT_EQ(ne_evaluator_run(ev, &batch, &c, &r), 0);
  ASSERT(untouched[0] == 5 && untouched[2] == 5);
  ne_env_state_destroy(st);
  ne_evaluator_destroy(ev);
  ne_free(scratch);
  ne_free(p);
  ne_env_spec_destroy(env);
}

// A conv policy's episodes run in lockstep (src/exec/lockstep.c): each episode's own env state
// gives its characterization, equal to the sequential loop's.
static void test_lockstep_behaviours_equal_sequential(void) {
  ne_env_spec* env = make("MinAtar/Breakout-v1");
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_env_set_behaviour(env, "obs:0,5,17,42,99", err), 0);
  ne_policy_spec ps;
  int hidden = 16;
  ne_conv_layer conv;
  ASSERT_EQ(ne_conv_parse("4x3x3/1", &conv, 1, err), 1);
  ASSERT_EQ(ne_policy_spec_init_conv(&ps, env->obs_shape, &conv, 1, &hidden, 1, env->n_actions, NE_ACT_RELU,
                                     NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
            0);
  float* p = ne_malloc(ps.n_params * sizeof *p);
  float* scratch = ne_malloc((ps.scratch_floats + 1) * sizeof(float));
  ne_policy_init_params(&ps, 3, p);
  ne_noise_axpy(4, 0, ps.n_params, 0.5f, p);
  ne_evaluator* ev = ne_evaluator_create(env, &ps, NULL);
  ASSERT(ev && p && scratch);
  ne_blob blob = {.hash = 1, .n = ps.n_params, .data = p};
  ne_candidate c = {.kind = NE_CAND_VECTOR, .episodes = 11, .episode_seed = 77, .blob = 0};
  ne_batch batch = {.n = 1, .cands = &c, .n_blobs = 1, .blobs = &blob, .want_bc = 1};
  float bc[5];
  ne_result r = {0};
  r.bc = bc;
  ASSERT_EQ(ne_evaluator_run(ev, &batch, &c, &r), 0);
  double sum[5] = {0};
  const int pick[5] = {0, 5, 17, 42, 99};
  ne_env_state* st = ne_env_state_create(env);
  for (uint32_t e = 0; e < 11; e++) {
    ASSERT_EQ(ne_env_reset(env, st, ne_hash2(77, e)), 0);
    ne_step_out so = {0};
    float act;
    do {
      ne_policy_forward(&ps, p, st->obs, scratch, &act);
      ASSERT_EQ(ne_env_step(env, st, &act, &so), 0);
    } while (!so.terminated && !so.truncated);
    for (int i = 0; i < 5; i++) sum[i] += st->obs[pick[i]];
  }
  for (int i = 0; i < 5; i++) ASSERT(bc[i] == (float)(sum[i] / 11.0));
  ne_env_state_destroy(st);
  ne_evaluator_destroy(ev);
  ne_free(scratch);
  ne_free(p);
  ne_env_spec_destroy(env);
}

// An MLP's episodes with observation normalization, 8 at a time in lockstep
// (ne_evaluator_episodes), give each episode's return and steps exactly as the one-at-a-time loop
// (ne_evaluator_episode) gives them: Pendulum with a continuous tanh head, and CartPole, whose envs
// and small MLP run in lanes (the inputs normalized there); float tanh, 11 episodes (a partial
// chunk too).
static void test_mlp_lockstep_with_normalization_equals_sequential(void) {
  for (int v = 0; v < 2; v++) {
    ne_env_spec* env = make(v ? "CartPole-v1" : "Pendulum-v1");
    char err[NE_ERRSTR_LEN];
    ne_policy_spec ps;
    int hidden[2] = {16, 16};
    ASSERT_EQ(ne_policy_spec_init(&ps, env->obs_dim, hidden, 2, v ? env->n_actions : env->act_dim, NE_ACT_TANH,
                                  v ? NE_HEAD_ARGMAX : NE_HEAD_TANH, NE_INIT_NORMC, v ? NULL : env->act_low,
                                  v ? NULL : env->act_high, err),
              0);
    ps.tanh_eval = NE_TANH_FLOAT;
    float* p = ne_malloc(ps.n_params * sizeof *p);
    ne_policy_init_params(&ps, 5, p);
    ne_noise_axpy(6, 0, ps.n_params, 0.3f, p);
    float mean[4] = {0.1f, -0.2f, 0.3f, 0.01f}, std[4] = {0.5f, 0.7f, 2.0f, 0.02f};
    ne_batch norm = {.obs_mean = mean, .obs_std = std, .obs_clip = 1.5f};
    enum { N = 11 };
    uint64_t seeds[N], steps[N];
    double returns[N];
    for (int e = 0; e < N; e++) seeds[e] = 1000 + 7 * (uint64_t)e;
    ne_evaluator* ev = ne_evaluator_create(env, &ps, NULL);
    ASSERT(ev && p);
    ne_evaluator_episodes(ev, p, seeds, N, &norm, returns, steps);
    for (int e = 0; e < N; e++) {
      uint64_t s = 0;
      double r = ne_evaluator_episode(ev, p, seeds[e], &norm, &s);
      ASSERT(r == returns[e]);
      ASSERT_EQ(s, steps[e]);
    }
    ASSERT(returns[0] != returns[1] || steps[0] != steps[1]);  // the episodes differ: their seeds reach the env
    ne_evaluator_destroy(ev);
    ne_free(p);
    ne_env_spec_destroy(env);
  }
}

// More episodes than slots whose lengths differ (CartPole): a slot whose episode ends takes the next
// one (ne__lockstep_run), and every episode still gets the one-at-a-time loop's return and steps.
static void test_streamed_episodes_equal_sequential(void) {
  ne_env_spec* env = make("CartPole-v1");
  char err[NE_ERRSTR_LEN];
  ne_policy_spec ps;
  int hidden = 8;
  ASSERT_EQ(ne_policy_spec_init(&ps, env->obs_dim, &hidden, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL,
                                NULL, err),
            0);
  float* p = ne_malloc(ps.n_params * sizeof *p);
  ne_policy_init_params(&ps, 2, p);
  ne_noise_axpy(3, 0, ps.n_params, 0.5f, p);
  enum { N = 29 };
  uint64_t seeds[N], steps[N];
  double returns[N];
  for (int e = 0; e < N; e++) seeds[e] = 50 + (uint64_t)e;
  ne_evaluator* ev = ne_evaluator_create(env, &ps, NULL);
  ASSERT(ev && p);
  ne_evaluator_episodes(ev, p, seeds, N, NULL, returns, steps);
  int longer = 0;
  for (int e = 0; e < N; e++) {
    uint64_t s = 0;
    ASSERT(ne_evaluator_episode(ev, p, seeds[e], NULL, &s) == returns[e]);
    ASSERT_EQ(s, steps[e]);
    longer += steps[e] > steps[0];
  }
  ASSERT(longer > 0 && longer < N - 1);  // lengths differ: slots were refilled out of order
  ne_evaluator_destroy(ev);
  ne_free(p);
  ne_env_spec_destroy(env);
}

// CartPole's 4-16-2 tanh (float) argmax MLP, *ps, and a centre vector drawn from seed (the caller
// frees it)
static float* cartpole_mlp(const ne_env_spec* env, uint64_t seed, ne_policy_spec* ps) {
  char err[NE_ERRSTR_LEN];
  int hidden = 16;
  ASSERT_EQ(ne_policy_spec_init(ps, env->obs_dim, &hidden, 1, env->n_actions, NE_ACT_TANH, NE_HEAD_ARGMAX,
                                NE_INIT_NORMC, NULL, NULL, err),
            0);
  ps->tanh_eval = NE_TANH_FLOAT;
  float* centre = ne_malloc(ps->n_params * sizeof *centre);
  ne_policy_init_params(ps, seed, centre);
  return centre;
}

// One-episode candidates in lockstep (ne_evaluator_run_many: 8 slots, a slot whose episode ends
// takes the next candidate) give each candidate what ne_evaluator_run gives it alone: fitness,
// steps, observation sums and behaviour, a failed candidate's status; the run stops before a
// candidate of several episodes; a raised stop flag drops every candidate of the run.
static void test_candidates_in_lockstep_equal_one_at_a_time(void) {
  ne_env_spec* env = make("CartPole-v1");
  ne_policy_spec ps;
  float* centre = cartpole_mlp(env, 2, &ps);
  enum { N = 23, MULTI = 20 };  // candidate 7's blob does not exist; 20 has 3 episodes
  ne_candidate c[N];
  for (int j = 0; j < N; j++)
    c[j] = (ne_candidate){.kind = NE_CAND_PERTURB,
                          .index = (uint32_t)j,
                          .episodes = j == MULTI ? 3 : 1,
                          .episode_seed = 500 + (uint64_t)j,
                          .blob = j == 7 ? 9 : 0,
                          .noise_seed = 40 + (uint64_t)j / 2,
                          .coef = j % 2 ? -0.5f : 0.5f};
  ne_blob blob = {.hash = 1, .n = ps.n_params, .data = centre};
  ne_batch batch = {.n = N, .cands = c, .n_blobs = 1, .blobs = &blob, .want_obs_stats = 1, .want_bc = 1};
  double sums[2][N][8];
  float bcs[2][N][4];
  ne_result r[2][N];
  memset(r, 0, sizeof r);
  for (int v = 0; v < 2; v++)
    for (int j = 0; j < N; j++)
      r[v][j].obs_sum = sums[v][j], r[v][j].obs_sumsq = sums[v][j] + 4, r[v][j].bc = bcs[v][j];
  ne_evaluator* ev = ne_evaluator_create(env, &ps, NULL);
  ne_evaluator* alone = ne_evaluator_create(env, &ps, NULL);
  ASSERT(ev && alone && centre);
  ASSERT_EQ(ne_evaluator_candidate_width(ev), NE_EVALUATOR_LOCKSTEP);
  // with observation sums, then without: the slots' envs and policies then stay in lanes throughout
  // (lockstep.c's step_in_lanes), the behaviours still from each episode's final state
  for (int pass = 0; pass < 2; pass++) {
    batch.want_obs_stats = pass == 0;
    ASSERT_EQ(ne_evaluator_run_many(ev, &batch, c, N, r[0]), MULTI);
    ASSERT_EQ(ne_evaluator_run_many(ev, &batch, c + MULTI, N - MULTI, r[0] + MULTI), 1);
    ASSERT_EQ(ne_evaluator_run_many(ev, &batch, c + MULTI + 1, N - MULTI - 1, r[0] + MULTI + 1), N - MULTI - 1);
    uint64_t lengths = 0;
    for (int j = 0; j < N; j++) {
      ASSERT_EQ(ne_evaluator_run(alone, &batch, &c[j], &r[1][j]), r[1][j].status);
      ASSERT_EQ(r[0][j].status, r[1][j].status);
      ASSERT_EQ(r[0][j].steps, r[1][j].steps);
      if (j == 7) {
        ASSERT_EQ(r[0][j].status, NE_EINVAL);
        continue;
      }
      ASSERT(r[0][j].fitness == r[1][j].fitness);
      ASSERT_EQ(r[0][j].episodes, c[j].episodes);
      ASSERT(r[0][j].obs_count == r[1][j].obs_count);
      ASSERT_EQ(memcmp(sums[0][j], sums[1][j], sizeof sums[0][j]), 0);
      ASSERT_EQ(memcmp(bcs[0][j], bcs[1][j], sizeof bcs[0][j]), 0);
      lengths |= 1ull << (r[0][j].steps % 64);
    }
    ASSERT(__builtin_popcountll(lengths) > 3);  // episodes of many lengths: slots were refilled
  }
  volatile int stop = 1;
  ne_evaluator_set_stop(ev, &stop);
  ASSERT_EQ(ne_evaluator_run_many(ev, &batch, c, MULTI, r[0]), MULTI);
  for (int j = 0; j < MULTI; j++)
    if (j != 7) ASSERT_EQ(r[0][j].status, NE_EINTR);
  ne_evaluator_destroy(ev);
  ne_evaluator_destroy(alone);
  ne_free(centre);
  ne_env_spec_destroy(env);
}

// Candidates of several episodes (without observation sums or behaviours) share the stream with
// the one-episode ones, their episodes in whichever slots free up: each gets what ne_evaluator_run
// gives it alone (the mean and spread of its returns in episode order), the centre's vector and
// perturbed vectors alike, several of them in flight at once; the run stops before a candidate of
// more episodes than a stream holds; a raised stop flag drops every candidate of the run.
static void test_several_episode_candidates_share_the_stream(void) {
  ne_env_spec* env = make("CartPole-v1");
  ne_policy_spec ps;
  float* centre = cartpole_mlp(env, 3, &ps);
  enum { N = 16, STREAMED = 15 };  // the last has 129 episodes: more than a stream holds
  static const uint32_t episodes[N] = {1, 5, 1, 1, 3, 1, 128, 1, 1, 2, 1, 1, 1, 1, 10, 129};
  ne_candidate c[N];
  for (int j = 0; j < N; j++)
    c[j] = (ne_candidate){.kind = j == 14 ? NE_CAND_VECTOR : NE_CAND_PERTURB,  // 14: the centre, as ES asks it
                          .index = (uint32_t)j,
                          .episodes = episodes[j],
                          .episode_seed = 900 + (uint64_t)j,
                          .noise_seed = 70 + (uint64_t)j / 2,
                          .coef = j % 2 ? -0.4f : 0.4f};
  ne_blob blob = {.hash = 1, .n = ps.n_params, .data = centre};
  ne_batch batch = {.n = N, .cands = c, .n_blobs = 1, .blobs = &blob};
  ne_result r[2][N];
  memset(r, 0, sizeof r);
  ne_evaluator* ev = ne_evaluator_create(env, &ps, NULL);
  ne_evaluator* alone = ne_evaluator_create(env, &ps, NULL);
  ASSERT(ev && alone && centre);
  ASSERT_EQ(ne_evaluator_run_many(ev, &batch, c, N, r[0]), STREAMED);
  uint64_t lengths = 0;
  ASSERT_EQ(ne_evaluator_run_many(ev, &batch, c + STREAMED, N - STREAMED, r[0] + STREAMED), 1);
  for (int j = 0; j < N; j++) {
    ASSERT_EQ(ne_evaluator_run(alone, &batch, &c[j], &r[1][j]), 0);
    ASSERT_EQ(r[0][j].status, 0);
    ASSERT_EQ(r[0][j].episodes, c[j].episodes);
    ASSERT_EQ(r[0][j].steps, r[1][j].steps);
    ASSERT_EQ(memcmp(&r[0][j].fitness, &r[1][j].fitness, sizeof(double)), 0);
    ASSERT_EQ(memcmp(&r[0][j].return_std, &r[1][j].return_std, sizeof(double)), 0);
    ASSERT(c[j].episodes == 1 || r[0][j].return_std > 0);  // returns differ between episodes
    lengths |= 1ull << (r[0][j].steps % 64);
  }
  ASSERT(__builtin_popcountll(lengths) > 3);  // episodes of many lengths: slots refilled out of order
  volatile int stop = 1;
  ne_evaluator_set_stop(ev, &stop);
  ASSERT_EQ(ne_evaluator_run_many(ev, &batch, c, N, r[0]), STREAMED);
  for (int j = 0; j < STREAMED; j++) ASSERT_EQ(r[0][j].status, NE_EINTR);
  ne_evaluator_destroy(ev);
  ne_evaluator_destroy(alone);
  ne_free(centre);
  ne_env_spec_destroy(env);
}

TEST_MAIN(TEST_ENTRY(test_default_and_selected_components), TEST_ENTRY(test_bad_values_are_clear_errors),
          TEST_ENTRY(test_evaluator_mean_over_episodes), TEST_ENTRY(test_lockstep_behaviours_equal_sequential),
          TEST_ENTRY(test_mlp_lockstep_with_normalization_equals_sequential),
          TEST_ENTRY(test_streamed_episodes_equal_sequential),
          TEST_ENTRY(test_candidates_in_lockstep_equal_one_at_a_time),
          TEST_ENTRY(test_several_episode_candidates_share_the_stream))
