// SPDX-License-Identifier: MIT
// Unit tests of the env layer (src/envs/env.c, registry.c) and the classic-control family: registry
// lookup and unknown-id errors, the TimeLimit (500/500/200/999/200), terminated vs truncated, reset
// ranges and determinism, set/get_state, action checks, NE_ESTATE, OOM paths, and golden steps
// dumped from Gymnasium 1.4.0 (the full comparison is tests/py_gym_compare.py).
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"  // ne__simd_force: each SIMD path of the lanes
#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "test.h"

// 1 if x is a float32 value; the volatile keeps GCC 12's vectorizer from folding the round trip away
static int is_f32(double x) {
  volatile float f = (float)x;
  return x == (double)f;
}

static const char* const classic_ids[5] = {"CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0",
                                           "Pendulum-v1"};

static ne_env_spec* make_env(const char* id) {
  char err[NE_ERRSTR_LEN] = "";
  ne_env_spec* spec = NULL;
  int rc = ne_env_make(id, NULL, &spec, err);
  if (rc) TEST_FAIL("ne_env_make(%s): %d %s", id, rc, err);
  return spec;
}

// a spec, a state, and the state vector set; the caller frees both
static ne_env_state* state_at(const ne_env_spec* spec, const double* v) {
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT(st);
  char err[NE_ERRSTR_LEN] = "";
  int rc = ne_env_set_state(spec, st, v, spec->state_dim, err);
  if (rc) TEST_FAIL("set_state(%s): %s", spec->id, err);
  return st;
}

static void test_registry_lists_classic_ids(void) {
  int n = ne_env_registry_count();
  ASSERT_GE(n, 5);
  for (int k = 0; k < 5; k++) {
    int found = 0;
    for (int i = 0; i < n; i++) found |= strcmp(ne_env_registry_id(i), classic_ids[k]) == 0;
    ASSERT(found);
  }
  for (int i = 0; i < n; i++) ASSERT(ne_env_registry_summary(i) && ne_env_registry_summary(i)[0]);
  // making the specs of other families is their tests' business (some load physics models)
  for (int k = 0; k < 5; k++) {
    ne_env_spec* spec = make_env(classic_ids[k]);
    ASSERT_STR_EQ(spec->id, classic_ids[k]);
    ne_env_spec_destroy(spec);
  }
  ASSERT(ne_env_registry_id(-1) == NULL);
  ASSERT(ne_env_registry_id(n) == NULL);
  ASSERT(ne_env_registry_summary(n) == NULL);
  ne_env_spec_destroy(NULL);
  ne_env_state_destroy(NULL);
}

static void test_unknown_id_lists_valid_ids_and_suggests(void) {
  char err[NE_ERRSTR_LEN] = "";
  ne_env_spec sentinel;
  ne_env_spec* spec = &sentinel;  // must be reset to NULL
  ASSERT_EQ(ne_env_make("CartPole-v2", NULL, &spec, err), NE_ENOTFOUND);
  ASSERT(spec == NULL);
  ASSERT_CONTAINS(err, "'CartPole-v2'");
  ASSERT_CONTAINS(err, "did you mean 'CartPole-v1'?");
  for (int k = 0; k < 5; k++) ASSERT_CONTAINS(err, classic_ids[k]);
  // nothing near: no suggestion, the list still given
  ASSERT_EQ(ne_env_make("Zq", NULL, &spec, err), NE_ENOTFOUND);
  ASSERT(strstr(err, "did you mean") == NULL);
  ASSERT_CONTAINS(err, "valid ids: CartPole-v1");
  // a NULL errstr is allowed
  ASSERT_EQ(ne_env_make("nope", NULL, &spec, NULL), NE_ENOTFOUND);
}

static void test_spec_fields_match_gymnasium(void) {
  // obs_dim, discrete, n_actions, max steps, has_threshold, threshold, state_dim
  static const struct {
    int obs, disc, n, steps, has_thr;
    double thr;
    int sdim;
  } want[5] = {
      {4, 1, 2, 500, 1, 475.0, 4}, {6, 1, 3, 500, 1, -100.0, 4}, {2, 1, 3, 200, 1, -110.0, 2},
      {2, 0, 0, 999, 1, 90.0, 2},  {3, 0, 0, 200, 0, 0.0, 2},
  };
  for (int k = 0; k < 5; k++) {
    ne_env_spec* s = make_env(classic_ids[k]);
    ASSERT_EQ(s->obs_dim, want[k].obs);
    ASSERT_EQ(s->obs_rank, 1);
    ASSERT_EQ(s->obs_shape[0], want[k].obs);
    ASSERT_EQ(s->discrete, want[k].disc);
    ASSERT_EQ(s->act_dim, 1);
    if (s->discrete) ASSERT_EQ(s->n_actions, want[k].n);
    ASSERT_EQ(s->max_episode_steps, want[k].steps);
    ASSERT_EQ(s->has_threshold, want[k].has_thr);
    if (s->has_threshold) ASSERT_NEAR(s->reward_threshold, want[k].thr, 0);
    ASSERT_EQ(s->state_dim, want[k].sdim);
    ne_env_spec_destroy(s);
  }
  ne_env_spec* mcc = make_env("MountainCarContinuous-v0");
  ASSERT_NEAR(mcc->act_low[0], -1.0, 0);
  ASSERT_NEAR(mcc->act_high[0], 1.0, 0);
  ne_env_spec_destroy(mcc);
  ne_env_spec* pd = make_env("Pendulum-v1");
  ASSERT_NEAR(pd->act_low[0], -2.0, 0);
  ASSERT_NEAR(pd->act_high[0], 2.0, 0);
  ne_env_spec_destroy(pd);
}

// steps k-th classic env from a safe state with a benign action until an episode end; returns t
static int steps_until_end(const ne_env_spec* spec, ne_env_state* st, int k, ne_step_out* out) {
  for (int t = 1;; t++) {
    float a = 0.0f;
    // CartPole needs balancing (the same controller as py_gym_compare.py); Acrobot/MountainCar: no push
    if (k == 0) a = 0.5f * st->obs[0] + 1.0f * st->obs[1] + 15 * st->obs[2] + 2 * st->obs[3] > 0 ? 1.0f : 0.0f;
    if (k == 1 || k == 2) a = 1.0f;
    ASSERT_EQ(ne_env_step(spec, st, &a, out), 0);
    if (out->terminated || out->truncated) return t;
    ASSERT_LT(t, 5000);
  }
}

static void test_time_limit_truncates_at_registered_steps(void) {
  static const int limit[5] = {500, 500, 200, 999, 200};
  static const double start[5][4] = {{0, 0, 0.01, 0}, {0, 0, 0, 0}, {-0.5, 0}, {-0.5, 0}, {1.0, 0.5}};
  for (int k = 0; k < 5; k++) {
    ne_env_spec* spec = make_env(classic_ids[k]);
    ne_env_state* st = state_at(spec, start[k]);
    ne_step_out out;
    ASSERT_EQ(steps_until_end(spec, st, k, &out), limit[k]);
    ASSERT_EQ(out.truncated, 1);
    ASSERT_EQ(out.terminated, 0);
    ASSERT_EQ(st->t, limit[k]);
    // the episode is over until a reset
    float a = 0.0f;
    ASSERT_EQ(ne_env_step(spec, st, &a, &out), NE_ESTATE);
    ASSERT_EQ(ne_env_reset(spec, st, 7), 0);
    ASSERT_EQ(st->t, 0);
    ASSERT_EQ(ne_env_step(spec, st, &a, &out), 0);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

static void test_max_episode_steps_override(void) {
  ne_env_options opt = {0};
  opt.max_episode_steps = 7;
  char err[NE_ERRSTR_LEN];
  ne_env_spec* spec = NULL;
  ASSERT_EQ(ne_env_make("Pendulum-v1", &opt, &spec, err), 0);
  ASSERT_EQ(spec->max_episode_steps, 7);
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 1), 0);
  ne_step_out out;
  ASSERT_EQ(steps_until_end(spec, st, 4, &out), 7);
  ASSERT_EQ(out.truncated, 1);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  opt.max_episode_steps = -3;
  ASSERT_EQ(ne_env_make("Pendulum-v1", &opt, &spec, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "-3");
}

// one step of id from state v with action a; checks the flags and the reward
static void expect_step(const char* id, const double* v, float a, double reward, int term, int trunc,
                        const ne_env_options* opt) {
  char err[NE_ERRSTR_LEN];
  ne_env_spec* spec = NULL;
  ASSERT_EQ(ne_env_make(id, opt, &spec, err), 0);
  ne_env_state* st = state_at(spec, v);
  ne_step_out out;
  ASSERT_EQ(ne_env_step(spec, st, &a, &out), 0);
  ASSERT_NEAR(out.reward, reward, 0);
  ASSERT_EQ(out.terminated, term);
  ASSERT_EQ(out.truncated, trunc);
  ASSERT_EQ(st->needs_reset, term || trunc);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

static void test_terminated_is_not_truncated(void) {
  // CartPole's reward on the terminating step is still 1
  expect_step("CartPole-v1", (const double[]){0, 0, 0.2, 1.0}, 0, 1.0, 1, 0, NULL);
  expect_step("CartPole-v1", (const double[]){2.39, 1.0, 0, 0}, 1, 1.0, 1, 0, NULL);
  // Acrobot's tip above the bar: reward 0
  expect_step("Acrobot-v1", (const double[]){M_PI, 0, 0, 0}, 1, 0.0, 1, 0, NULL);
  expect_step("Acrobot-v1", (const double[]){0, 0, 0, 0}, 1, -1.0, 0, 0, NULL);
  expect_step("MountainCar-v0", (const double[]){0.49, 0.05}, 1, -1.0, 1, 0, NULL);
  // MountainCarContinuous: +100 at the goal, minus 0.1 * action^2
  expect_step("MountainCarContinuous-v0", (const double[]){0.44, 0.05}, 0, 100.0, 1, 0, NULL);
  expect_step("MountainCarContinuous-v0", (const double[]){0.44, 0.05}, 0.5f, 100.0 - 0.025, 1, 0, NULL);
  // a termination on the TimeLimit's last step is terminated only
  ne_env_options opt = {0};
  opt.max_episode_steps = 1;
  expect_step("CartPole-v1", (const double[]){0, 0, 0.2, 1.0}, 0, 1.0, 1, 0, &opt);
  expect_step("CartPole-v1", (const double[]){0, 0, 0, 0}, 0, 1.0, 0, 1, &opt);
}

// the state after reset(seed) must lie in Gymnasium's start distribution
static void check_reset_range(int k, const double* s) {
  switch (k) {
    case 0:
      for (int i = 0; i < 4; i++) ASSERT(s[i] >= -0.05 && s[i] < 0.05);
      break;
    case 1:
      for (int i = 0; i < 4; i++) ASSERT(s[i] >= -0.1f && s[i] <= 0.1f && is_f32(s[i]));
      break;
    case 2:
    case 3:
      ASSERT_GE(s[0], -0.6);
      ASSERT_LT(s[0], -0.4);
      ASSERT_EQ(s[1], 0.0);
      break;
    default:
      ASSERT_GE(s[0], -M_PI);
      ASSERT_LT(s[0], M_PI);
      ASSERT_GE(s[1], -1.0);
      ASSERT_LT(s[1], 1.0);
  }
}

static void test_reset_ranges(void) {
  for (int k = 0; k < 5; k++) {
    ne_env_spec* spec = make_env(classic_ids[k]);
    ne_env_state* st = ne_env_state_create(spec);
    double lo[4] = {1e9, 1e9, 1e9, 1e9}, hi[4] = {-1e9, -1e9, -1e9, -1e9}, s[4];
    for (uint64_t seed = 0; seed < 2000; seed++) {
      ASSERT_EQ(ne_env_reset(spec, st, seed), 0);
      ne_env_get_state(spec, st, s);
      check_reset_range(k, s);
      for (int i = 0; i < spec->state_dim; i++) {
        lo[i] = s[i] < lo[i] ? s[i] : lo[i];
        hi[i] = s[i] > hi[i] ? s[i] : hi[i];
      }
    }
    // the draws cover their range (not a constant)
    ASSERT_GT(hi[0] - lo[0], 0.09);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

static void test_reset_is_deterministic(void) {
  for (int k = 0; k < 5; k++) {
    ne_env_spec* spec = make_env(classic_ids[k]);
    ne_env_state* a = ne_env_state_create(spec);
    ne_env_state* b = ne_env_state_create(spec);
    ASSERT_EQ(ne_env_reset(spec, a, 42), 0);
    ASSERT_EQ(ne_env_reset(spec, b, 42), 0);
    ASSERT(memcmp(a->obs, b->obs, (size_t)spec->obs_dim * sizeof(float)) == 0);
    // the same actions keep them equal; another seed differs
    for (int t = 0; t < 20 && !a->needs_reset; t++) {
      float act = (float)(t % 2);
      ne_step_out oa, ob;
      ASSERT_EQ(ne_env_step(spec, a, &act, &oa), 0);
      ASSERT_EQ(ne_env_step(spec, b, &act, &ob), 0);
      ASSERT(memcmp(a->obs, b->obs, (size_t)spec->obs_dim * sizeof(float)) == 0);
      ASSERT_EQ(oa.reward, ob.reward);
    }
    ASSERT_EQ(ne_env_reset(spec, b, 43), 0);
    ASSERT_EQ(ne_env_reset(spec, a, 42), 0);
    ASSERT(memcmp(a->obs, b->obs, (size_t)spec->obs_dim * sizeof(float)) != 0);
    ne_env_state_destroy(a);
    ne_env_state_destroy(b);
    ne_env_spec_destroy(spec);
  }
}

static void test_set_get_state_round_trip(void) {
  static const double v[4] = {0.123456789012345, -1.5e-3, 2.75, -31.0};
  for (int k = 0; k < 5; k++) {
    ne_env_spec* spec = make_env(classic_ids[k]);
    ne_env_state* st = state_at(spec, v);
    double got[4] = {0};
    ne_env_get_state(spec, st, got);
    for (int i = 0; i < spec->state_dim; i++) ASSERT_EQ(got[i], v[i]);
    ASSERT_EQ(st->t, 0);
    ASSERT_EQ(st->needs_reset, 0);
    // a wrong length names the expected one and leaves the state alone
    char err[NE_ERRSTR_LEN] = "";
    static const double w[5] = {9, 9, 9, 9, 9};
    ASSERT_EQ(ne_env_set_state(spec, st, w, spec->state_dim + 1, err), NE_EINVAL);
    char want[32];
    snprintf(want, sizeof want, "needs %d values", spec->state_dim);
    ASSERT_CONTAINS(err, want);
    ASSERT_CONTAINS(err, classic_ids[k]);
    ne_env_get_state(spec, st, got);
    ASSERT_EQ(got[0], v[0]);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

static void test_check_action_names_value_and_space(void) {
  char err[NE_ERRSTR_LEN];
  ne_env_spec* cp = make_env("CartPole-v1");
  ASSERT_EQ(ne_env_check_action(cp, (const float[]){0}, err), 0);
  ASSERT_EQ(ne_env_check_action(cp, (const float[]){1}, err), 0);
  ASSERT_EQ(ne_env_check_action(cp, (const float[]){2}, err), NE_ERANGE);
  ASSERT_CONTAINS(err, "action 2 ");
  ASSERT_CONTAINS(err, "Discrete(2)");
  ASSERT_EQ(ne_env_check_action(cp, (const float[]){-1}, err), NE_ERANGE);
  ASSERT_CONTAINS(err, "-1");
  ASSERT_EQ(ne_env_check_action(cp, (const float[]){0.5f}, err), NE_ERANGE);
  ASSERT_CONTAINS(err, "0.5");
  ASSERT_EQ(ne_env_check_action(cp, (const float[]){NAN}, NULL), NE_ERANGE);
  // ne_env_step's own inline check agrees, and a rejected action leaves the episode running
  ne_env_state* st = ne_env_state_create(cp);
  ne_step_out out;
  ASSERT_EQ(ne_env_reset(cp, st, 1), 0);
  const float bad[] = {2, -1, 0.5f, NAN, INFINITY, 1e30f};
  for (int i = 0; i < 6; i++) ASSERT_EQ(ne_env_step(cp, st, &bad[i], &out), NE_ERANGE);
  ASSERT_EQ(ne_env_step(cp, st, (const float[]){1}, &out), 0);
  ASSERT_EQ(ne_env_step(cp, st, (const float[]){-0.0f}, &out), 0);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(cp);

  ne_env_spec* pd = make_env("Pendulum-v1");
  ASSERT_EQ(ne_env_check_action(pd, (const float[]){-2.0f}, err), 0);
  ASSERT_EQ(ne_env_check_action(pd, (const float[]){2.0f}, err), 0);
  ASSERT_EQ(ne_env_check_action(pd, (const float[]){2.5f}, err), NE_ERANGE);
  ASSERT_CONTAINS(err, "2.5");
  ASSERT_CONTAINS(err, "Box(-2, 2, (1,))");
  ASSERT_EQ(ne_env_check_action(pd, (const float[]){INFINITY}, err), NE_ERANGE);
  ASSERT_CONTAINS(err, "inf");
  ne_env_spec_destroy(pd);
}

static void test_step_before_reset_is_estate(void) {
  for (int k = 0; k < 5; k++) {
    ne_env_spec* spec = make_env(classic_ids[k]);
    ne_env_state* st = ne_env_state_create(spec);
    ASSERT_EQ(st->needs_reset, 1);
    float a = 0.0f;
    ne_step_out out;
    ASSERT_EQ(ne_env_step(spec, st, &a, &out), NE_ESTATE);
    ASSERT_EQ(st->n_steps_total, 0);
    ASSERT_EQ(ne_env_reset(spec, st, 0), 0);
    ASSERT_EQ(ne_env_step(spec, st, &a, &out), 0);
    ASSERT_EQ(st->t, 1);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

// ne_env_step_many equals one ne_env_step per state, bit for bit: CartPole through its vector
// lanes (9 states: a full chunk of 8 and one more; one never reset: NE_ESTATE; one given action 5:
// NE_ERANGE; episodes ending at different steps), Acrobot (no lanes) through the plain loop.
static void test_step_many_equals_one_at_a_time(void) {
  const char* ids[2] = {"CartPole-v1", "Acrobot-v1"};
  enum { N = 9 };
  for (int k = 0; k < 2; k++) {
    ne_env_spec* spec = make_env(ids[k]);
    ne_env_state *many[N], *one[N];
    for (int i = 0; i < N; i++) {
      many[i] = ne_env_state_create(spec), one[i] = ne_env_state_create(spec);
      ASSERT(many[i] && one[i]);
      if (i == 4) continue;  // never reset
      ASSERT_EQ(ne_env_reset(spec, many[i], 70 + (uint64_t)i), 0);
      ASSERT_EQ(ne_env_reset(spec, one[i], 70 + (uint64_t)i), 0);
    }
    float act[N];
    const float* acts[N];
    ne_step_out out_many[N], out_one[N];
    int rcs[N], ended = 0;
    for (int t = 0; t < 300; t++) {
      for (int i = 0; i < N; i++) act[i] = (float)((t * 7 + i * 3) / 5 % 2), acts[i] = &act[i];
      if (t == 3) act[6] = 5.0f;
      ne_env_step_many(spec, many, acts, N, out_many, rcs);
      for (int i = 0; i < N; i++) {
        ASSERT_EQ(rcs[i], ne_env_step(spec, one[i], acts[i], &out_one[i]));
        if (i == 4) ASSERT_EQ(rcs[i], NE_ESTATE);
        if (i == 6 && t == 3) ASSERT_EQ(rcs[i], NE_ERANGE);
        if (rcs[i]) continue;
        ASSERT(out_many[i].reward == out_one[i].reward);
        ASSERT_EQ(out_many[i].terminated, out_one[i].terminated);
        ASSERT_EQ(out_many[i].truncated, out_one[i].truncated);
        ASSERT_EQ(memcmp(many[i]->obs, one[i]->obs, (size_t)spec->obs_dim * sizeof(float)), 0);
        if (out_one[i].terminated || out_one[i].truncated) {
          ended++;
          ASSERT_EQ(ne_env_reset(spec, many[i], (uint64_t)t), 0);
          ASSERT_EQ(ne_env_reset(spec, one[i], (uint64_t)t), 0);
        }
      }
    }
    if (k == 0) ASSERT(ended > 20);  // CartPole's episodes end at many different steps
    for (int i = 0; i < N; i++) ne_env_state_destroy(many[i]), ne_env_state_destroy(one[i]);
    ne_env_spec_destroy(spec);
  }
}

// Episodes in lanes (ne_env_lanes_*) give what ne_env_step gives each one: outcomes, codes (an
// action outside the space is NE_ERANGE and leaves the lane as it was), observations, and at the
// end the env state (get_state, observation, step count) the one-at-a-time episode ended in; free
// lanes hold anything (a NaN action) and keep their state. Lane 7 starts from `odd_state` (angles
// beyond the vector sin/cos kernels' range and velocities beyond the bounds, where given). A second
// copy of the lanes steps with ne_env_lanes_advance: the same observations, returns summed, step
// counts, and the same lanes ended or refused.
static void lanes_equal_one_at_a_time(const char* id, int steps, int min_ended, const double* odd_state) {
  ne_env_spec* spec = make_env(id);
  ASSERT(ne_env_lanes_ok(spec) && ne_env_lanes_bytes(spec) > 0);
  enum { L = NE_ENV_LANES, DMAX = 8 };
  int d = spec->obs_dim, n_actions = spec->n_actions;
  ASSERT(d <= DMAX);
  void* lanes = ne_calloc(1, ne_env_lanes_bytes(spec));
  void* lanes2 = ne_calloc(1, ne_env_lanes_bytes(spec));
  ne_env_state *lane[L], *one[L];
  float obs[DMAX * L], obs2[DMAX * L], act[L];
  uint64_t t[L], t2[L];
  double ret[L] = {0}, ret2[L] = {0};
  for (int k = 0; k < L; k++) {
    lane[k] = ne_env_state_create(spec), one[k] = ne_env_state_create(spec);
    ASSERT(lane[k] && one[k]);
    ASSERT_EQ(ne_env_reset(spec, lane[k], 90 + (uint64_t)k), 0);
    ASSERT_EQ(ne_env_reset(spec, one[k], 90 + (uint64_t)k), 0);
    if (k == 7 && odd_state) {
      ASSERT_EQ(ne_env_set_state(spec, lane[k], odd_state, spec->state_dim, NULL), 0);
      ASSERT_EQ(ne_env_set_state(spec, one[k], odd_state, spec->state_dim, NULL), 0);
    }
    ne_env_lanes_enter(spec, lanes, k, lane[k], obs);
    ne_env_lanes_enter(spec, lanes2, k, lane[k], obs2);
    t[k] = t2[k] = 0;
  }
  unsigned mask = 0xffu & ~(1u << 5);  // lane 5 stays free
  act[5] = NAN;
  int ended = 0;
  for (int step = 0; step < steps; step++) {
    for (int k = 0; k < L; k++)
      if (k != 5)  // continuous: torques across the box and beyond it (clipped)
        act[k] =
            spec->discrete ? (float)((step * 7 + k * 3) / 5 % n_actions) : (float)((step * 7 + k * 3) % 13) * 0.5f - 3;
    if (step == 3) act[6] = 5.0f;                      // outside a discrete space: NE_ERANGE
    if (spec->discrete && step == 5) act[4] = 0.5f;    // not a whole number: NE_ERANGE
    if (spec->discrete && step == 7) act[3] = NAN;     // NE_ERANGE
    if (spec->discrete && step == 9) act[2] = -0.0f;   // action 0
    if (spec->discrete && step == 11) act[1] = -1.0f;  // NE_ERANGE
    float before[DMAX];
    for (int i = 0; i < d; i++) before[i] = obs[i * L + 5];
    ne_step_out out[L], expect;
    int rcs[L];
    ne_env_lanes_step(spec, lanes, mask, act, t, obs, out, rcs);
    unsigned invalid, ended2 = ne_env_lanes_advance(spec, lanes2, mask, act, t2, ret2, obs2, &invalid);
    ASSERT_EQ(memcmp(obs, obs2, sizeof(float) * (size_t)(d * L)), 0);
    for (int i = 0; i < d; i++) ASSERT(obs[i * L + 5] == before[i]);
    for (int k = 0; k < L; k++) {
      if (!((mask >> k) & 1u)) continue;
      ASSERT_EQ(rcs[k], ne_env_step(spec, one[k], &act[k], &expect));
      if (k == 6 && step == 3) ASSERT_EQ(rcs[k], spec->discrete ? NE_ERANGE : 0);
      ASSERT_EQ((invalid >> k) & 1u, rcs[k] != 0);
      if (rcs[k]) continue;
      t[k]++;
      ret[k] += expect.reward;
      ASSERT(t2[k] == t[k] && ret2[k] == ret[k]);
      ASSERT_EQ((ended2 >> k) & 1u, expect.terminated || expect.truncated);
      ASSERT(out[k].reward == expect.reward);
      ASSERT_EQ(out[k].terminated, expect.terminated);
      ASSERT_EQ(out[k].truncated, expect.truncated);
      for (int i = 0; i < d; i++) ASSERT(obs[i * L + k] == one[k]->obs[i]);
      if (!expect.terminated && !expect.truncated) continue;
      ended++;
      ne_env_lanes_leave(spec, lanes, k, obs, t[k], lane[k]);
      double got[8], want[8];
      ne_env_get_state(spec, lane[k], got);
      ne_env_get_state(spec, one[k], want);
      ASSERT_EQ(memcmp(got, want, sizeof(double) * (size_t)spec->state_dim), 0);
      ASSERT_EQ(memcmp(lane[k]->obs, one[k]->obs, sizeof(float) * (size_t)d), 0);
      ASSERT(lane[k]->t == one[k]->t && lane[k]->needs_reset == 1);
      ASSERT_EQ(ne_env_reset(spec, lane[k], (uint64_t)step), 0);
      ASSERT_EQ(ne_env_reset(spec, one[k], (uint64_t)step), 0);
      ne_env_lanes_enter(spec, lanes, k, lane[k], obs);
      ne_env_lanes_enter(spec, lanes2, k, lane[k], obs2);
      t[k] = t2[k] = 0;
      ret[k] = ret2[k] = 0;
    }
  }
  ASSERT(ended >= min_ended);
  for (int k = 0; k < L; k++) ne_env_state_destroy(lane[k]), ne_env_state_destroy(one[k]);
  ne_free(lanes);
  ne_free(lanes2);
  ne_env_spec_destroy(spec);
}

static void test_lanes_equal_one_at_a_time(void) {
  // CartPole on every SIMD path it has (its AVX-512 and AVX2 steps, the portable loop), lane 7 also
  // from an angle beyond the vector sin/cos's small range (it ends after a step), and from the
  // termination bounds at rest (the first step lands on them exactly: strict comparisons, not ended);
  // Acrobot's and Pendulum's lanes on every level too (their loops compiled for each). Their
  // episodes run to the TimeLimit here: one or two end in each lane
  for (int level = NE_SIMD_BASE; level <= NE_SIMD_AVX512; level++) {
    if (ne__simd_force(level) != level) {  // a path the CPU lacks: said, not run
      printf("  (SIMD level %s: not on this CPU, not run)\n", ne__simd_name(level));
      continue;
    }
    lanes_equal_one_at_a_time("CartPole-v1", 400, 21, NULL);
    lanes_equal_one_at_a_time("CartPole-v1", 60, 8, (const double[]){0.5, -3.0, 3.0, 40.0});
    lanes_equal_one_at_a_time("CartPole-v1", 60, 8, (const double[]){2.4, 0.0, 12 * 2 * M_PI / 360, 0.0});
    lanes_equal_one_at_a_time("CartPole-v1", 60, 8, (const double[]){-2.4, 0.0, -12 * 2 * M_PI / 360, 0.0});
    lanes_equal_one_at_a_time("Acrobot-v1", 1100, 12, (const double[]){2e8, -3e6, 40.0, -90.0});
    lanes_equal_one_at_a_time("Pendulum-v1", 450, 12, (const double[]){2e8, 30.0});
  }
  ne__simd_force(0);
  // MountainCar's lanes are one loop for every level
  lanes_equal_one_at_a_time("MountainCar-v0", 450, 12, (const double[]){2e8, 5.0});
  lanes_equal_one_at_a_time("MountainCarContinuous-v0", 1050, 6, (const double[]){-2e8, -5.0});
}

static void test_invalid_discrete_action_in_step_is_erange(void) {
  ne_env_spec* spec = make_env("Acrobot-v1");
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 3), 0);
  ne_step_out out;
  ASSERT_EQ(ne_env_step(spec, st, (const float[]){3}, &out), NE_ERANGE);
  ASSERT_EQ(ne_env_step(spec, st, (const float[]){NAN}, &out), NE_ERANGE);
  ASSERT_EQ(st->t, 0);  // nothing happened; the episode goes on
  ASSERT_EQ(ne_env_step(spec, st, (const float[]){2}, &out), 0);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// three steps from Gymnasium 1.4.0 (gymnasium.make(id); reset(); unwrapped.state = v), as hex floats
typedef struct golden {
  const char* id;
  double state[4];
  int n_state;
  float actions[3];
  float obs[3][6];
  double reward[3];
  int terminated[3];
} golden;

static const golden goldens[] = {
    {"CartPole-v1",
     {0.01, -0.02, 0.03, 0.04},
     4,
     {1.0, 0.0, 1.0},
     {{0x1.3a92a4p-7f, 0x1.65be34p-3f, 0x1.f8a09p-6f, -0x1.f1ce04p-3f},
      {0x1.ad0cf2p-7f, -0x1.55ea4cp-6f, 0x1.a8fa7cp-6f, 0x1.e4b44ap-5f},
      {0x1.9f5fbcp-7f, 0x1.6416e2p-3f, 0x1.bc5ddap-6f, -0x1.cd3fecp-3f}},
     {1.0, 1.0, 1.0},
     {0, 0, 0}},
    {"Acrobot-v1",
     {0.1, -0.2, 0.3, -0.4},
     4,
     {0.0, 1.0, 2.0},
     {{0x1.f9e834p-1f, 0x1.3b035ap-3f, 0x1.ec1b1ap-1f, -0x1.1aabf8p-2f, 0x1.d924ecp-3f, -0x1.8056f8p-2f},
      {0x1.f83386p-1f, 0x1.641792p-3f, 0x1.e7cecep-1f, -0x1.370bfcp-2f, -0x1.06ecd4p-5f, 0x1.7aedp-4f},
      {0x1.fbbc62p-1f, 0x1.07c43cp-3f, 0x1.f4ba26p-1f, -0x1.ab6386p-3f, -0x1.a65772p-2f, 0x1.bd3be2p-1f}},
     {-1.0, -1.0, -1.0},
     {0, 0, 0}},
    // the left wall: position clipped to -1.2, velocity zeroed
    {"MountainCar-v0",
     {-1.19, -0.05},
     2,
     {0.0, 0.0, 2.0},
     {{-0x1.333334p+0f, 0x0p+0f}, {-0x1.32e1dp+0f, 0x1.458e3cp-10f}, {-0x1.31bbb2p+0f, 0x1.261e7p-8f}},
     {-1.0, -1.0, -1.0},
     {0, 0, 0}},
    // forces clamped to +-1, the reward from the unclamped action
    {"MountainCarContinuous-v0",
     {-0.5, 0.01},
     2,
     {1.5, -3.0, 0.25},
     {{-0x1.f467b4p-2f, 0x1.730986p-7f}, {-0x1.ea9d28p-2f, 0x1.395188p-7f}, {-0x1.e0c78p-2f, 0x1.3ab4e4p-7f}},
     {-0x1.ccccccccccccdp-3, -0x1.ccccccccccccdp-1, -0x1.999999999999ap-8},
     {0, 0, 0}},
    // torque clipped to 2, theta_dot clipped to 8, theta past pi
    {"Pendulum-v1",
     {3.5, 9.0},
     2,
     {3.0, -0.5, 2.0},
     {{-0x1.73ad66p-1f, -0x1.6022e2p-1f, 0x1p+3f},
      {-0x1.b5f31p-2f, -0x1.cecfap-1f, 0x1.da2feep+2f},
      {-0x1.71a59p-4f, -0x1.fde92ap-1f, 0x1.c1ffaap+2f}},
     {-0x1.fb342fcf9acd6p+3, -0x1.828de74dcdfebp+3, -0x1.316dd2a0eeba4p+3},
     {0, 0, 0}},
};

static void test_golden_steps_match_gymnasium(void) {
  for (size_t g = 0; g < sizeof goldens / sizeof goldens[0]; g++) {
    const golden* gd = &goldens[g];
    ne_env_spec* spec = make_env(gd->id);
    ne_env_state* st = state_at(spec, gd->state);
    for (int t = 0; t < 3; t++) {
      ne_step_out out;
      ASSERT_EQ(ne_env_step(spec, st, &gd->actions[t], &out), 0);
      for (int i = 0; i < spec->obs_dim; i++)
        if (st->obs[i] != gd->obs[t][i])
          TEST_FAIL("%s step %d obs[%d]: %a vs Gymnasium %a", gd->id, t + 1, i, st->obs[i], gd->obs[t][i]);
      if (out.reward != gd->reward[t])
        TEST_FAIL("%s step %d reward %a vs %a", gd->id, t + 1, out.reward, gd->reward[t]);
      ASSERT_EQ(out.terminated, gd->terminated[t]);
    }
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

static void test_continuous_mountain_car_state_becomes_float32(void) {
  // Gymnasium stores np.float32 after a step; get_state shows the same values
  ne_env_spec* spec = make_env("MountainCarContinuous-v0");
  ne_env_state* st = state_at(spec, (const double[]){-0.5123456789, 0.0123456789});
  ne_step_out out;
  ASSERT_EQ(ne_env_step(spec, st, (const float[]){0.3f}, &out), 0);
  double s[2];
  ne_env_get_state(spec, st, s);
  ASSERT(is_f32(s[0]) && is_f32(s[1]));
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

static void test_nan_observations_are_counted(void) {
  ne_env_spec* spec = make_env("CartPole-v1");
  ne_env_state* st = state_at(spec, (const double[]){NAN, 0, 0, 0});
  ASSERT_U64_EQ(st->n_nan_obs, 1);
  ne_step_out out;
  ASSERT_EQ(ne_env_step(spec, st, (const float[]){1}, &out), 0);
  ASSERT_U64_EQ(st->n_nan_obs, 2);
  ASSERT_EQ(out.terminated, 0);  // NaN compares false: no termination, as in Gymnasium
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

static void test_allocation_failures_are_clean(void) {
  // every allocation of make + state_create fails in turn; nothing leaks (ASan checks), nothing crashes
  int succeeded = 0;
  for (long k = 0; k < 20 && !succeeded; k++) {
    ne_alloc_fail_after(k);
    char err[NE_ERRSTR_LEN];
    ne_env_spec* spec = NULL;
    int rc = ne_env_make("Acrobot-v1", NULL, &spec, err);
    ne_env_state* st = rc == 0 ? ne_env_state_create(spec) : NULL;
    if (rc) ASSERT_EQ(rc, NE_ENOMEM);
    succeeded = st != NULL;
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
    // the unknown-id message survives a failed allocation of its suggestion list
    rc = ne_env_make("Acrobot-v2", NULL, &spec, err);
    ASSERT_EQ(rc, NE_ENOTFOUND);
    ASSERT_CONTAINS(err, "valid ids");
  }
  ne_alloc_fail_after(-1);
  ASSERT(succeeded);
}

TEST_MAIN(TEST_ENTRY(test_step_many_equals_one_at_a_time), TEST_ENTRY(test_lanes_equal_one_at_a_time),
          TEST_ENTRY(test_registry_lists_classic_ids), TEST_ENTRY(test_unknown_id_lists_valid_ids_and_suggests),
          TEST_ENTRY(test_spec_fields_match_gymnasium), TEST_ENTRY(test_time_limit_truncates_at_registered_steps),
          TEST_ENTRY(test_max_episode_steps_override), TEST_ENTRY(test_terminated_is_not_truncated),
          TEST_ENTRY(test_reset_ranges), TEST_ENTRY(test_reset_is_deterministic),
          TEST_ENTRY(test_set_get_state_round_trip), TEST_ENTRY(test_check_action_names_value_and_space),
          TEST_ENTRY(test_step_before_reset_is_estate), TEST_ENTRY(test_invalid_discrete_action_in_step_is_erange),
          TEST_ENTRY(test_golden_steps_match_gymnasium), TEST_ENTRY(test_continuous_mountain_car_state_becomes_float32),
          TEST_ENTRY(test_nan_observations_are_counted), TEST_ENTRY(test_allocation_failures_are_clean))
