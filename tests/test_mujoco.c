// SPDX-License-Identifier: MIT
// Unit tests of the MuJoCo family (src/envs/mujoco): the nine v5 ids with their spaces, TimeLimits
// and thresholds, one shared model per XML file, seeded resets inside v5's noise ranges,
// set_state/get_state round trips (Gymnasium's set_state(qpos, qvel)), final positions as behaviour
// characterizations, termination of an unhealthy
// Hopper, Reacher's truncation at 50, a state's mjData lifetime (ASan), and MuJoCo's fatal errors
// (an arena too small for the contacts) failing one step with NE_EPHYSICS instead of the process. Exact agreement with
// Gymnasium step by step is tests/py_mujoco_compare.py.
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>  // setenv, mkdtemp
#include <unistd.h>  // rmdir

#include "core/util.h"  // ne__read_file
#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/policy.h"
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
    {"Hopper-v5", 11, 3, 12, 1000, 3800},        {"HalfCheetah-v5", 17, 6, 18, 1000, 4800},
    {"Walker2d-v5", 17, 6, 18, 1000, NAN},       {"Ant-v5", 105, 8, 29, 1000, 6000},
    {"Humanoid-v5", 348, 17, 47, 1000, NAN},     {"Swimmer-v5", 8, 2, 10, 1000, 360},
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
  ASSERT_NE(a->data, b->data);
  ASSERT_EQ(((const ne_mj_spec*)a->data)->m, ((const ne_mj_spec*)b->data)->m);
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
    ASSERT_EQ(va[i], vb[i]);
    ASSERT_NEAR(va[i], i < 6 ? qpos0[i] : 0.0, 0.005);
  }
  ASSERT_EQ(ne_env_reset(spec, b, 8), 0);
  ne_env_get_state(spec, b, vb);
  ASSERT_NE(va[0], vb[0]);
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
  for (int i = 0; i < 12; i++) ASSERT_EQ(back[i], v[i]);
  ASSERT_EQ(st->obs[0], (float)1.2);  // qpos[1:]
  ASSERT_EQ(st->obs[5], 10.0f);       // qvel[0] = 25 clipped
  ASSERT_EQ(st->obs[9], -10.0f);      // qvel[4] = -30 clipped
  ASSERT_EQ(ne_env_set_state(spec, st, v, 11, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "12 values");
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// Locomotion's behaviour characterization is the final position its forward reward differentiates
// (Conti et al. 2018): Ant's torso x-y, Humanoid's mass centre x-y, Hopper's x alone; the others
// characterize by their final observation.
static void test_behaviour_is_final_position(void) {
  ne_env_spec* spec = make_env("Ant-v5");
  ASSERT_EQ(spec->bc_dim, 2);
  ASSERT_EQ(spec->bc_native, 1);
  ne_env_state* st = ne_env_state_create(spec);
  double v[29] = {0};
  v[0] = 3.5, v[1] = -2.25, v[2] = 0.75, v[3] = 1.0;  // torso at (3.5, -2.25), upright quaternion
  ASSERT_EQ(ne_env_set_state(spec, st, v, 29, NULL), 0);
  float bc[2];
  ASSERT_EQ(ne_env_behaviour(spec, st, bc), 0);
  ASSERT(bc[0] == 3.5f && bc[1] == -2.25f);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  // Humanoid: the mass centre moves with the whole body
  spec = make_env("Humanoid-v5");
  ASSERT_EQ(spec->bc_dim, 2);
  st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 3), 0);
  float before[2];
  ASSERT_EQ(ne_env_behaviour(spec, st, before), 0);
  ASSERT_NEAR(before[0], 0.0, 0.2);
  double q[47];
  ne_env_get_state(spec, st, q);
  q[0] += 4.0, q[1] -= 1.0;
  ASSERT_EQ(ne_env_set_state(spec, st, q, 47, NULL), 0);
  ASSERT_EQ(ne_env_behaviour(spec, st, bc), 0);
  ASSERT_NEAR(bc[0], before[0] + 4.0, 1e-4);
  ASSERT_NEAR(bc[1], before[1] - 1.0, 1e-4);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  spec = make_env("Hopper-v5");
  ASSERT_EQ(spec->bc_dim, 1);
  ne_env_spec_destroy(spec);
  spec = make_env("Reacher-v5");
  ASSERT_EQ(spec->bc_native, 0);
  ASSERT_EQ(spec->bc_dim, 10);
  ne_env_spec_destroy(spec);
}

// HumanoidTrap-v5 is Humanoid-v5's model with the three walls of Conti et al.'s trap added at load
// time: the same observation layout and start states; a body inside the front wall is pushed out
// of it, the plain humanoid at the same state is not; both ids share nothing (two cached models).
static void test_humanoid_trap(void) {
  ne_env_spec* plain = make_env("Humanoid-v5");
  ne_env_spec* trap = make_env("HumanoidTrap-v5");
  const mjModel* mp = ((const ne_mj_spec*)plain->data)->m;
  const mjModel* mt = ((const ne_mj_spec*)trap->data)->m;
  ASSERT(mp != mt);
  ASSERT_EQ(mt->ngeom, mp->ngeom + 3);
  ASSERT_EQ(mt->nbody, mp->nbody);
  ASSERT_EQ(trap->obs_dim, plain->obs_dim);
  ASSERT_EQ(trap->bc_dim, 2);
  int front = mj_name2id(mt, mjOBJ_GEOM, "trap_front");
  ASSERT_GE(front, 0);
  ASSERT_NEAR(mt->geom_pos[3 * front], 5.5, 0);
  ASSERT_NEAR(mt->geom_size[3 * front + 1], 1.5, 0);
  ASSERT_GE(mj_name2id(mt, mjOBJ_GEOM, "trap_left"), 0);
  ASSERT_GE(mj_name2id(mt, mjOBJ_GEOM, "trap_right"), 0);
  // the same reset in both: identical observations (the walls are far from the start)
  ne_env_state* a = ne_env_state_create(plain);
  ne_env_state* b = ne_env_state_create(trap);
  ASSERT(a && b);
  ASSERT_EQ(ne_env_reset(plain, a, 8), 0);
  ASSERT_EQ(ne_env_reset(trap, b, 8), 0);
  ASSERT_EQ(memcmp(a->obs, b->obs, (size_t)plain->obs_dim * sizeof(float)), 0);
  // the torso moved into the front wall: only the trap pushes it back
  double q[47];
  ne_env_get_state(plain, a, q);
  q[0] = 5.45;
  ASSERT_EQ(ne_env_set_state(plain, a, q, 47, NULL), 0);
  ASSERT_EQ(ne_env_set_state(trap, b, q, 47, NULL), 0);
  float act[17] = {0};
  ne_step_out so;
  ASSERT_EQ(ne_env_step(plain, a, act, &so), 0);
  ASSERT_EQ(ne_env_step(trap, b, act, &so), 0);
  double qa[47], qb[47];
  ne_env_get_state(plain, a, qa);
  ne_env_get_state(trap, b, qb);
  ASSERT_NEAR(qa[0], 5.45, 0.01);
  ASSERT(qb[0] < qa[0] - 0.01);
  ne_env_state_destroy(a);
  ne_env_state_destroy(b);
  ne_env_spec_destroy(plain);
  ne_env_spec_destroy(trap);
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
  ASSERT_LT(out.reward, 0);
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

// the handler alone: mju_error inside a guard comes back as NE_EPHYSICS with its text, on any
// number of threads at once (each thread jumps to its own guard and gets its own message)
static void* raise_many(void* arg) {
  const char* tag = arg;
  for (int i = 0; i < 200; i++) {
    char text[64], msg[NE_ERRSTR_LEN] = "";
    snprintf(text, sizeof text, "%s error %d", tag, i);
    if (ne__mj_guard_selftest(text, msg, sizeof msg) != NE_EPHYSICS || strcmp(msg, text) != 0) return (void*)1;
  }
  return NULL;
}

static void test_error_handler_per_thread(void) {
  pthread_t t[4];
  static const char* tags[4] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; i++) ASSERT_EQ(pthread_create(&t[i], NULL, raise_many, (void*)tags[i]), 0);
  for (int i = 0; i < 4; i++) {
    void* bad = NULL;
    pthread_join(t[i], &bad);
    ASSERT(bad == NULL);
  }
  ASSERT_EQ(strcmp(ne_strerror(NE_EPHYSICS), "physics engine error"), 0);
}

// Gymnasium's hopper.xml with a 4 KB arena (<size memory>) in a scratch assets folder: enough for
// mj_makeData and the reset, too small for the constraint solver once the foot touches the floor
static void write_small_arena_hopper(char* dir) {
  char* xml = NULL;
  char path[600], err[NE_ERRSTR_LEN];
  snprintf(path, sizeof path, "%s/hopper.xml", NE_MUJOCO_ASSETS_DIR);
  if (ne__read_file(path, &xml, NULL, err)) TEST_FAIL("%s", err);
  char* open_tag = strstr(xml, "<mujoco model=\"hopper\">");
  ASSERT(open_tag != NULL);
  char* rest = open_tag + strlen("<mujoco model=\"hopper\">");
  ASSERT(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/hopper.xml", dir);
  FILE* f = fopen(path, "w");
  ASSERT(f != NULL);
  fprintf(f, "%.*s<size memory=\"4K\"/>%s", (int)(rest - xml), xml, rest);
  fclose(f);
  ne_free(xml);
}

// steps with zero actions until the step fails or the episode ends; the failing step's code
static int step_until_error(const ne_env_spec* spec, ne_env_state* st) {
  float act[3] = {0, 0, 0};
  ne_step_out out = {0, 0, 0};
  int rc = 0;
  for (int t = 0; t < 1000 && !rc && !out.terminated && !out.truncated; t++) rc = ne_env_step(spec, st, act, &out);
  return rc;
}

static void test_fatal_error_fails_the_step(void) {
  char dir[] = "/tmp/ne_test_mujoco_XXXXXX";
  write_small_arena_hopper(dir);
  setenv("NEUROEVO_MUJOCO_ASSETS", dir, 1);
  ne_env_spec* spec = make_env("Hopper-v5");
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT(st != NULL);
  // the step that overflows the arena fails with MuJoCo's message; the state then needs a reset
  char msg[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne_env_reset(spec, st, 0), 0);
  ASSERT_EQ(step_until_error(spec, st), NE_EPHYSICS);
  ASSERT_EQ(spec->status(spec, st->impl, msg), NE_EPHYSICS);
  ASSERT_CONTAINS(msg, "Hopper-v5: MuJoCo: mj_stackAlloc: out of memory");
  float act[3] = {0, 0, 0};
  ne_step_out out;
  ASSERT_EQ(ne_env_step(spec, st, act, &out), NE_ESTATE);
  // a reset recovers the state: the same episode fails the same way again
  ASSERT_EQ(ne_env_reset(spec, st, 0), 0);
  ASSERT_EQ(spec->status(spec, st->impl, NULL), 0);
  ASSERT_EQ(step_until_error(spec, st), NE_EPHYSICS);
  // through the evaluator (what workers run): the episode is NaN and the error names MuJoCo's cause
  ne_policy_spec pol;
  ASSERT_EQ(ne_policy_spec_init(&pol, spec->obs_dim, NULL, 0, spec->act_dim, NE_ACT_TANH, NE_HEAD_TANH, NE_INIT_NORMC,
                                spec->act_low, spec->act_high, NULL),
            0);
  float* params = ne_calloc(pol.n_params, sizeof(float));
  ne_evaluator* ev = ne_evaluator_create(spec, &pol, NULL);
  ASSERT(ev != NULL);
  ASSERT(isnan(ne_evaluator_episode(ev, params, 0, NULL, NULL)));
  ASSERT(ne_evaluator_env_error(ev) != NULL);
  ASSERT_CONTAINS(ne_evaluator_env_error(ev), "mj_stackAlloc");
  ne_evaluator_destroy(ev);
  ne_free(params);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  // the process lives on: Gymnasium's own model steps as usual
  unsetenv("NEUROEVO_MUJOCO_ASSETS");
  spec = make_env("Hopper-v5");
  st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 0), 0);
  ASSERT_EQ(step_until_error(spec, st), 0);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  char path[600];
  snprintf(path, sizeof path, "%s/hopper.xml", dir);
  remove(path);
  rmdir(dir);
}

int main(int argc, char** argv) {
  static const test_entry tests[] = {
      TEST_ENTRY(test_ids_spaces_and_limits),       TEST_ENTRY(test_model_is_shared),
      TEST_ENTRY(test_reset_seeded_and_in_range),   TEST_ENTRY(test_set_state_round_trip),
      TEST_ENTRY(test_behaviour_is_final_position), TEST_ENTRY(test_humanoid_trap),
      TEST_ENTRY(test_termination_and_truncation),  TEST_ENTRY(test_all_envs_step),
      TEST_ENTRY(test_error_handler_per_thread),    TEST_ENTRY(test_fatal_error_fails_the_step),
  };
  return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
#endif
