// SPDX-License-Identifier: MIT
// Unit tests of the MuJoCo family (src/envs/mujoco): the nine v5 ids with their spaces, TimeLimits
// and thresholds, one shared model per XML file, seeded resets inside v5's noise ranges,
// set_state/get_state round trips (Gymnasium's set_state(qpos, qvel)), termination of an unhealthy
// Hopper, Reacher's truncation at 50, and a state's mjData lifetime (ASan). Exact agreement with
// Gymnasium step by step is tests/py_mujoco_compare.py.
#include <stdint.h>

#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "test.h"

#ifndef NE_HAVE_MUJOCO
// CI installs MuJoCo through scripts/install-deps: a build without it fails here instead of skipping
int main(void) {
  fprintf(stderr, "MuJoCo was not found at configure time: run scripts/install-deps and reconfigure\n");
  return 1;
}
#else
#include "envs/mujoco/mujoco_int.h"  // ne_mj_spec: the shared model pointer

// id, obs_dim, act_dim, nq + nv, TimeLimit, threshold (NAN: none)
typedef struct expect {
  const char* id;
  int obs, act, state, limit;
  double threshold;
} expect;

static const expect envs[9] = {
    {"Hopper-v5", 11, 3, 12, 1000, 3800},       {"HalfCheetah-v5", 17, 6, 18, 1000, 4800},
    {"Walker2d-v5", 17, 6, 18, 1000, NAN},      {"Ant-v5", 105, 8, 29, 1000, 6000},
    {"Humanoid-v5", 348, 17, 47, 1000, NAN},    {"Swimmer-v5", 8, 2, 10, 1000, 360},
    {"InvertedPendulum-v5", 4, 1, 4, 1000, 950}, {"InvertedDoublePendulum-v5", 9, 1, 6, 1000, 9100},
    {"Reacher-v5", 10, 2, 8, 50, -3.75},
};

static ne_env_spec* make_env(const char* id) {
  char err[NE_ERRSTR_LEN] = "";
  ne_env_spec* spec = NULL;
  int rc = ne_env_make(id, NULL, &spec, err);
  if (rc) TEST_FAIL("ne_env_make(%s): %d %s", id, rc, err);
  return spec;
}

static void test_ids_spaces_and_limits(void) {
  for (int i = 0; i < 9; i++) {
    ne_env_spec* spec = make_env(envs[i].id);
    ASSERT_EQ(spec->obs_dim, envs[i].obs);
    ASSERT_EQ(spec->act_dim, envs[i].act);
    ASSERT_EQ(spec->state_dim, envs[i].state);
    ASSERT_EQ(spec->max_episode_steps, envs[i].limit);
    ASSERT_EQ(spec->discrete, 0);
    ASSERT_EQ(spec->has_threshold, !isnan(envs[i].threshold));
    if (spec->has_threshold) ASSERT_NEAR(spec->reward_threshold, envs[i].threshold, 0);
    // Humanoid's ctrlrange is +-0.4, InvertedPendulum's +-3, the others +-1
    float hi = i == 4 ? 0.4f : i == 6 ? 3.0f : 1.0f;
    for (int k = 0; k < spec->act_dim; k++) ASSERT(spec->act_low[k] == -hi && spec->act_high[k] == hi);
    ne_env_spec_destroy(spec);
  }
}

// two specs of one id share the model; the last spec frees it
static void test_model_is_shared(void) {
  ne_env_spec* a = make_env("Ant-v5");
  ne_env_spec* b = make_env("Ant-v5");
  ASSERT(a->data != b->data);
  ASSERT(((const ne_mj_spec*)a->data)->m == ((const ne_mj_spec*)b->data)->m);
  ne_env_spec_destroy(a);
  ne_env_spec_destroy(b);
  ne_env_spec* c = make_env("Ant-v5");  // loads again after the last release
  ne_env_spec_destroy(c);
}

// resets are seeded, and Hopper's lie within qpos0 +- 0.005 (qpos0 = 0, 1.25, 0, 0, 0, 0)
static void test_reset_seeded_and_in_range(void) {
  ne_env_spec* spec = make_env("Hopper-v5");
  ne_env_state* a = ne_env_state_create(spec);
  ne_env_state* b = ne_env_state_create(spec);
  ASSERT(a && b);
  ASSERT_EQ(ne_env_reset(spec, a, 7), 0);
  ASSERT_EQ(ne_env_reset(spec, b, 7), 0);
  double va[12], vb[12];
  ne_env_get_state(spec, a, va);
  ne_env_get_state(spec, b, vb);
  static const double qpos0[6] = {0, 1.25, 0, 0, 0, 0};
  for (int i = 0; i < 12; i++) {
    ASSERT(va[i] == vb[i]);
    ASSERT_NEAR(va[i], i < 6 ? qpos0[i] : 0.0, 0.005);
  }
  ASSERT_EQ(ne_env_reset(spec, b, 8), 0);
  ne_env_get_state(spec, b, vb);
  ASSERT(va[0] != vb[0]);
  ne_env_state_destroy(a);
  ne_env_state_destroy(b);
  ne_env_spec_destroy(spec);
}

// set_state then get_state returns the vector; the observation drops x and clips qvel at 10
static void test_set_state_round_trip(void) {
  ne_env_spec* spec = make_env("Hopper-v5");
  ne_env_state* st = ne_env_state_create(spec);
  double v[12] = {0.3, 1.2, 0.05, -0.1, 0.2, 0.1, 25.0, -1, 0.5, 0.25, -30.0, 2};
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne_env_set_state(spec, st, v, 12, err), 0);
  double back[12];
  ne_env_get_state(spec, st, back);
  for (int i = 0; i < 12; i++) ASSERT(back[i] == v[i]);
  ASSERT(st->obs[0] == (float)1.2);   // qpos[1:]
  ASSERT(st->obs[5] == 10.0f);        // qvel[0] = 25 clipped
  ASSERT(st->obs[9] == -10.0f);       // qvel[4] = -30 clipped
  ASSERT_EQ(ne_env_set_state(spec, st, v, 11, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "12 values");
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// a Hopper set below z = 0.7 terminates on its first step; Reacher truncates at 50
static void test_termination_and_truncation(void) {
  ne_env_spec* spec = make_env("Hopper-v5");
  ne_env_state* st = ne_env_state_create(spec);
  double v[12] = {0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(ne_env_set_state(spec, st, v, 12, NULL), 0);
  float act[3] = {0, 0, 0};
  ne_step_out out;
  ASSERT_EQ(ne_env_step(spec, st, act, &out), 0);
  ASSERT(out.terminated && !out.truncated);
  ASSERT_NEAR(out.reward, 0.0, 1.0);  // no healthy reward, only the small forward term
  ASSERT_EQ(ne_env_step(spec, st, act, &out), NE_ESTATE);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);

  spec = make_env("Reacher-v5");
  st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 1), 0);
  float a2[2] = {0.1f, -0.1f};
  int t = 0;
  do ASSERT_EQ(ne_env_step(spec, st, a2, &out), 0);
  while (++t < 100 && !out.terminated && !out.truncated);
  ASSERT_EQ(t, 50);
  ASSERT(out.truncated && !out.terminated);
  ASSERT(out.reward < 0);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// every env steps from its reset with finite observations
static void test_all_envs_step(void) {
  for (int i = 0; i < 9; i++) {
    ne_env_spec* spec = make_env(envs[i].id);
    ne_env_state* st = ne_env_state_create(spec);
    ASSERT(st);
    ASSERT_EQ(ne_env_reset(spec, st, (uint64_t)i), 0);
    float act[NE_ENV_MAX_ACT] = {0};
    for (int k = 0; k < spec->act_dim; k++) act[k] = 0.5f * spec->act_high[k] * (k % 2 ? -1 : 1);
    ne_step_out out = {0, 0, 0};
    for (int t = 0; t < 5 && !out.terminated; t++) ASSERT_EQ(ne_env_step(spec, st, act, &out), 0);
    for (int k = 0; k < spec->obs_dim; k++) ASSERT(isfinite(st->obs[k]));
    ASSERT(isfinite(out.reward));
    ASSERT_EQ(st->n_nan_obs, 0);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

int main(int argc, char** argv) {
  static const test_entry tests[] = {
      TEST_ENTRY(test_ids_spaces_and_limits), TEST_ENTRY(test_model_is_shared),
      TEST_ENTRY(test_reset_seeded_and_in_range), TEST_ENTRY(test_set_state_round_trip),
      TEST_ENTRY(test_termination_and_truncation), TEST_ENTRY(test_all_envs_step),
  };
  return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
#endif
