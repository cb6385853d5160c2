// SPDX-License-Identifier: MIT
// Unit tests of the task families (meta-learning; src/envs/env_task.c, src/envs/point,
// src/envs/mujoco/*_tasks.c): tasks drawn deterministically from a seed and inside each family's
// distribution (MAML's / ProMP's), a reset's task derived from its seed, the fixed-task variant and
// a state's own task, env.task from a config with its errors, PointNav2D's dynamics, reward and
// termination as MAML's point env, and the MuJoCo families' rewards checked against their formulas
// (two tasks on the same trajectory: the task terms must differ exactly as the formula says).
#include <stdint.h>

#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "test.h"

static ne_env_spec* make_env(const char* id) {
  char err[NE_ERRSTR_LEN] = "";
  ne_env_spec* spec = NULL;
  int rc = ne_env_make(id, NULL, &spec, err);
  if (rc) TEST_FAIL("ne_env_make(%s): %d %s", id, rc, err);
  return spec;
}

// ---- drawing tasks ----------------------------------------------------------------------------

// the same seed gives the same task, bit for bit; nearby seeds give other tasks
static void test_sampling_is_a_function_of_the_seed(void) {
  ne_env_spec* env = make_env("PointNav2D-v0");
  double a[NE_ENV_MAX_TASK], b[NE_ENV_MAX_TASK];
  ASSERT_EQ(env->task_dim, 2);
  for (uint64_t s = 0; s < 50; s++) {
    ASSERT_EQ(ne_env_sample_task(env, s, a), 0);
    ASSERT_EQ(ne_env_sample_task(env, s, b), 0);
    ASSERT(memcmp(a, b, 2 * sizeof(double)) == 0);
    ASSERT_EQ(ne_env_sample_task(env, s + 1, b), 0);
    ASSERT(a[0] != b[0] && a[1] != b[1]);
  }
  // a known draw pins the stream down (a change of derivation changes every run's tasks)
  ASSERT_EQ(ne_env_sample_task(env, 12345, a), 0);
  ASSERT(a[0] == -0.31176381960014188 && a[1] == 0.30238196703309772);
  ne_env_spec_destroy(env);
  // not a task family
  env = make_env("CartPole-v1");
  ASSERT_EQ(ne_env_sample_task(env, 1, a), NE_EUNSUPPORTED);
  ne_env_spec_destroy(env);
}

// PointNav2D: goals uniform in [-0.5, 0.5)^2 (MAML): inside, centred, spread over the square
static void test_point_goal_distribution(void) {
  ne_env_spec* env = make_env("PointNav2D-v0");
  double t[2], sum[2] = {0, 0}, sumsq[2] = {0, 0};
  int quadrant[4] = {0};
  const int n = 4000;
  for (int i = 0; i < n; i++) {
    ne_env_sample_task(env, (uint64_t)i * 7919u, t);
    for (int k = 0; k < 2; k++) {
      ASSERT(t[k] >= -0.5 && t[k] < 0.5);
      sum[k] += t[k];
      sumsq[k] += t[k] * t[k];
    }
    quadrant[(t[0] > 0) * 2 + (t[1] > 0)]++;
  }
  // uniform on [-0.5, 0.5): mean 0 (se 0.0046), variance 1/12
  for (int k = 0; k < 2; k++) {
    ASSERT_NEAR(sum[k] / n, 0.0, 0.02);
    ASSERT_NEAR(sumsq[k] / n, 1.0 / 12, 0.006);
  }
  for (int q = 0; q < 4; q++) ASSERT(quadrant[q] > n / 4 - 150 && quadrant[q] < n / 4 + 150);
  ne_env_spec_destroy(env);
}

#ifdef NE_HAVE_MUJOCO
// the MuJoCo families: directions +-1 half each, velocities in [0, 2) or [0, 3), goals in the disc
// of radius 3
static void test_mujoco_task_distributions(void) {
  const char* dirs[2] = {"HalfCheetahDir-v5", "AntDir-v5"};
  for (int e = 0; e < 2; e++) {
    ne_env_spec* env = make_env(dirs[e]);
    ASSERT_EQ(env->task_dim, 1);
    int plus = 0;
    for (int i = 0; i < 2000; i++) {
      double t;
      ne_env_sample_task(env, (uint64_t)i, &t);
      ASSERT(t == 1.0 || t == -1.0);
      plus += t > 0;
    }
    ASSERT(plus > 900 && plus < 1100);
    ne_env_spec_destroy(env);
  }
  // goal velocities: HalfCheetahVel in [0, 2), AntVel in [0, 3) (MAML's), uniform
  const char* vels[2] = {"HalfCheetahVel-v5", "AntVel-v5"};
  const double high[2] = {2.0, 3.0};
  ne_env_spec* env;
  for (int e = 0; e < 2; e++) {
    env = make_env(vels[e]);
    double lo = 1e9, hi = -1e9, sum = 0;
    for (int i = 0; i < 2000; i++) {
      double t;
      ne_env_sample_task(env, (uint64_t)i, &t);
      lo = t < lo ? t : lo;
      hi = t > hi ? t : hi;
      sum += t;
    }
    ASSERT(lo >= 0.0 && lo < 0.01 && hi < high[e] && hi > high[e] - 0.01);
    ASSERT_NEAR(sum / 2000, high[e] / 2, 0.05);
    ne_env_spec_destroy(env);
  }
  // AntGoal: uniform in the disc of radius 3, so E[r^2] = 9/2 and every half-plane gets half
  env = make_env("AntGoal-v5");
  double r2 = 0;
  int right = 0, up = 0;
  for (int i = 0; i < 4000; i++) {
    double g[2];
    ne_env_sample_task(env, (uint64_t)i, g);
    double d2 = g[0] * g[0] + g[1] * g[1];
    ASSERT(d2 <= 9.0 + 1e-12);
    r2 += d2;
    right += g[0] > 0;
    up += g[1] > 0;
  }
  ASSERT_NEAR(r2 / 4000, 4.5, 0.15);
  ASSERT(right > 1850 && right < 2150 && up > 1850 && up < 2150);
  ne_env_spec_destroy(env);
}
#endif

// ---- which task an episode pursues ------------------------------------------------------------

// each reset draws the task from its seed; a fixed task (spec) or a state's own task wins
static void test_reset_task_fixed_and_per_state(void) {
  ne_env_spec* env = make_env("PointNav2D-v0");
  ne_env_state* st = ne_env_state_create(env);
  double t[2];
  ASSERT_EQ(ne_env_reset(env, st, 99), 0);
  ne_env_sample_task(env, 99, t);
  ASSERT(st->task[0] == t[0] && st->task[1] == t[1]);
  ASSERT_EQ(ne_env_reset(env, st, 100), 0);
  ne_env_sample_task(env, 100, t);
  ASSERT(st->task[0] == t[0] && st->task[1] == t[1]);
  // a state's own task, for every reset until cleared
  const double own[2] = {0.25, -0.125};
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne_env_set_task(env, st, own, 2, err), 0);
  for (uint64_t s = 0; s < 3; s++) {
    ASSERT_EQ(ne_env_reset(env, st, s), 0);
    ASSERT(st->task[0] == 0.25 && st->task[1] == -0.125);
  }
  ASSERT_EQ(ne_env_set_task(env, st, NULL, 0, err), 0);
  ASSERT_EQ(ne_env_reset(env, st, 99), 0);
  ne_env_sample_task(env, 99, t);
  ASSERT(st->task[0] == t[0]);
  // bad lengths and values name the env and what a task is
  ASSERT_EQ(ne_env_set_task(env, st, own, 1, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "PointNav2D-v0: a task has 2 values (goal_x,goal_y), got 1");
  const double bad[2] = {NAN, 0};
  ASSERT_EQ(ne_env_set_task(env, st, bad, 2, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "not finite");
  ne_env_state_destroy(st);
  // the fixed-task variant: every state, every reset
  const double fixed[2] = {-0.3, 0.4};
  ASSERT_EQ(ne_env_fix_task(env, fixed, 2, err), 0);
  st = ne_env_state_create(env);
  for (uint64_t s = 0; s < 3; s++) {
    ASSERT_EQ(ne_env_reset(env, st, s), 0);
    ASSERT(st->task[0] == -0.3 && st->task[1] == 0.4);
  }
  // a state's own task still wins (the inner loop's)
  ASSERT_EQ(ne_env_set_task(env, st, own, 2, err), 0);
  ASSERT_EQ(ne_env_reset(env, st, 0), 0);
  ASSERT(st->task[0] == 0.25);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(env);
  // plain envs have no tasks
  env = make_env("Pendulum-v1");
  ASSERT_EQ(ne_env_fix_task(env, fixed, 2, err), NE_EUNSUPPORTED);
  ASSERT_CONTAINS(err, "Pendulum-v1 is not a task family");
  ne_env_spec_destroy(env);
}

// env.task parses into the fixed-task variant; bad values are errors naming the key and the task
static void test_env_task_from_config(void) {
  char err[NE_ERRSTR_LEN] = "";
  ne_config* cfg = ne_config_create();
  ne_env_spec* env = NULL;
  ASSERT_EQ(ne_config_override(cfg, "env.id=PointNav2D-v0", "test", err), 0);
  ASSERT_EQ(ne_env_from_config(cfg, &env, err), 0);
  ASSERT_EQ(env->task_fixed, 0);
  ne_env_spec_destroy(env);
  ASSERT_EQ(ne_config_override(cfg, "env.task=0.3, -0.2", "test", err), 0);
  ASSERT_EQ(ne_env_from_config(cfg, &env, err), 0);
  ASSERT_EQ(env->task_fixed, 1);
  ASSERT(env->task[0] == 0.3 && env->task[1] == -0.2);
  char text[128];
  ne_env_format_task(env, env->task, text, sizeof text);
  ASSERT_STR_EQ(text, "goal_x=0.3, goal_y=-0.2");
  ne_env_spec_destroy(env);
  // one config, each value set in turn (overriding a key twice is an error)
  const char* bad[3] = {"0.3", "0.3,x", "0.1,0.2,0.3"};
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(ne_config_set(cfg, "env", "task", bad[i], "test", err), 0);
    ASSERT_EQ(ne_env_from_config(cfg, &env, err), NE_EINVAL);
    ASSERT(env == NULL);
    ASSERT_CONTAINS(err, "env.task = ");
    ASSERT_CONTAINS(err, "expected 2 comma-separated numbers (goal_x,goal_y;");
  }
  ASSERT_EQ(ne_config_set(cfg, "env", "id", "CartPole-v1", "test", err), 0);
  ASSERT_EQ(ne_config_set(cfg, "env", "task", "1", "test", err), 0);
  ASSERT_EQ(ne_env_from_config(cfg, &env, err), NE_EUNSUPPORTED);
  ASSERT_CONTAINS(err, "CartPole-v1 is not a task family");
  ne_config_destroy(cfg);
}

// ---- PointNav2D ---------------------------------------------------------------------------------

// MAML's point env: from the origin, clipped moves, reward -distance, done within 0.01 per axis
static void test_point_dynamics(void) {
  ne_env_spec* env = make_env("PointNav2D-v0");
  ASSERT_EQ(env->obs_dim, 2);
  ASSERT_EQ(env->act_dim, 2);
  ASSERT(env->act_low[0] == -0.1f && env->act_high[1] == 0.1f);
  ASSERT_EQ(env->max_episode_steps, 100);
  ne_env_state* st = ne_env_state_create(env);
  const double goal[2] = {0.2, -0.35};
  ASSERT_EQ(ne_env_set_task(env, st, goal, 2, NULL), 0);
  ASSERT_EQ(ne_env_reset(env, st, 5), 0);
  ASSERT(st->obs[0] == 0.0f && st->obs[1] == 0.0f);
  // an action beyond the box moves by the box's bound
  float act[2] = {0.05f, -0.7f};
  ne_step_out so;
  ASSERT_EQ(ne_env_step(env, st, act, &so), 0);
  double x = (double)0.05f, y = -0.1;
  ASSERT(st->obs[0] == (float)x && st->obs[1] == (float)y);
  ASSERT(so.reward == -sqrt((x - 0.2) * (x - 0.2) + (y + 0.35) * (y + 0.35)));
  ASSERT(!so.terminated && !so.truncated);
  // straight to the goal: (0.15, -0.25) more is reached in 3 steps (0.1 a step, clipped in y)
  float a2[2] = {0.075f, -0.1f};
  for (int i = 0; i < 2; i++) ASSERT_EQ(ne_env_step(env, st, a2, &so), 0);
  ASSERT(!so.terminated);
  float a3[2] = {0.0f, -0.05f};
  ASSERT_EQ(ne_env_step(env, st, a3, &so), 0);
  ASSERT(so.terminated);  // |dx| = 0, |dy| ~ 1e-17 < 0.01
  ASSERT(so.reward > -0.01);
  // standing still: truncated at 100 steps, every reward the distance to the goal
  ASSERT_EQ(ne_env_reset(env, st, 6), 0);
  float zero[2] = {0, 0};
  int steps = 0;
  do {
    ASSERT_EQ(ne_env_step(env, st, zero, &so), 0);
    ASSERT(so.reward == -sqrt(0.2 * 0.2 + 0.35 * 0.35));
    steps++;
  } while (!so.truncated && !so.terminated);
  ASSERT_EQ(steps, 100);
  ASSERT(so.truncated);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(env);
}

// ---- the MuJoCo families -----------------------------------------------------------------------

#ifdef NE_HAVE_MUJOCO
#include "envs/mujoco/mujoco_int.h"  // the state's mjData: positions and contact forces the rewards read

// What one step of a MuJoCo task family showed: its reward and what the formulas read.
typedef struct step_seen {
  double reward;
  double qx0, qx1;       // qpos[0] before and after (HalfCheetah's x)
  double tx0, tx1, ty1;  // the torso's xpos x before, x and y after (Ant)
  double ctrl;           // sum(action^2), float actions widened
  double contact;        // Ant: 5e-4 * sum(clip(cfrc_ext, -1, 1)^2) after the step
} step_seen;

// the action of step s: fixed values in [-0.45, 0.45]
static void action_at(int s, int n, float* act) {
  for (int i = 0; i < n; i++) act[i] = (float)(0.9 * ((s * 7 + i * 3) % 5) / 4.0 - 0.45);
}

// n steps of env id under task from reset seed 42, recording each
static void run_task(const char* id, const double* task, int n, step_seen* seen) {
  ne_env_spec* env = make_env(id);
  ne_env_state* st = ne_env_state_create(env);
  const ne_mj_spec* ms = env->data;
  const mjData* d = ((const ne_mj_state*)st->impl)->d;
  int torso = mj_name2id(ms->m, mjOBJ_BODY, "torso");
  ASSERT_EQ(ne_env_set_task(env, st, task, env->task_dim, NULL), 0);
  ASSERT_EQ(ne_env_reset(env, st, 42), 0);
  for (int s = 0; s < n; s++) {
    float act[8];
    action_at(s, env->act_dim, act);
    step_seen* v = &seen[s];
    v->qx0 = d->qpos[0];
    v->tx0 = d->xpos[3 * torso];
    ne_step_out so;
    ASSERT_EQ(ne_env_step(env, st, act, &so), 0);
    ASSERT(!so.terminated);
    v->reward = so.reward;
    v->qx1 = d->qpos[0];
    v->tx1 = d->xpos[3 * torso];
    v->ty1 = d->xpos[3 * torso + 1];
    v->ctrl = 0;
    for (int i = 0; i < env->act_dim; i++) v->ctrl += (double)act[i] * act[i];
    v->contact = 0;
    for (int i = 0; i < 6 * ms->m->nbody; i++) {
      double c = d->cfrc_ext[i] < -1 ? -1 : d->cfrc_ext[i] > 1 ? 1 : d->cfrc_ext[i];
      v->contact += 5e-4 * c * c;
    }
  }
  ne_env_state_destroy(st);
  ne_env_spec_destroy(env);
}

// HalfCheetahDir: direction * dx/dt - 0.05 |a|^2; HalfCheetahVel: -|dx/dt - goal| - 0.05 |a|^2
// (dx of qpos[0], dt = 5 * 0.01)
static void test_half_cheetah_rewards(void) {
  step_seen v[20];
  const double dirs[2] = {1, -1}, goals[2] = {0.5, 1.75};
  for (int k = 0; k < 2; k++) {
    run_task("HalfCheetahDir-v5", &dirs[k], 20, v);
    for (int s = 0; s < 20; s++)
      ASSERT_NEAR(v[s].reward, dirs[k] * (v[s].qx1 - v[s].qx0) / 0.05 - 0.05 * v[s].ctrl, 1e-9);
    run_task("HalfCheetahVel-v5", &goals[k], 20, v);
    for (int s = 0; s < 20; s++)
      ASSERT_NEAR(v[s].reward, -fabs((v[s].qx1 - v[s].qx0) / 0.05 - goals[k]) - 0.05 * v[s].ctrl, 1e-9);
  }
  ne_env_spec* env = make_env("HalfCheetahDir-v5");
  ASSERT_EQ(env->obs_dim, 17);
  ASSERT_EQ(env->max_episode_steps, 200);
  ne_env_spec_destroy(env);
}

// AntVel: -|vx - goal| + 1 - 0.005 |a|^2 - contact + 0.05; AntDir: direction * vx - 0.005 |a|^2
// - contact + 0.05 (MAML's terms, vx of the torso); AntGoal: -L1(torso xy, goal) - 0.1 |a|^2 - contact
// (ProMP's terms)
static void test_ant_rewards(void) {
  step_seen v[10];
  const double dirs[2] = {1, -1}, goals[2] = {0.5, 2.25};
  for (int k = 0; k < 2; k++) {
    run_task("AntDir-v5", &dirs[k], 10, v);
    for (int s = 0; s < 10; s++)
      ASSERT_NEAR(v[s].reward, dirs[k] * (v[s].tx1 - v[s].tx0) / 0.05 - 0.005 * v[s].ctrl - v[s].contact + 0.05, 1e-9);
    run_task("AntVel-v5", &goals[k], 10, v);
    for (int s = 0; s < 10; s++)
      ASSERT_NEAR(v[s].reward,
                  -fabs((v[s].tx1 - v[s].tx0) / 0.05 - goals[k]) + 1.0 - 0.005 * v[s].ctrl - v[s].contact + 0.05, 1e-9);
  }
  const double goal[2] = {1.5, -2.0};
  run_task("AntGoal-v5", goal, 10, v);
  for (int s = 0; s < 10; s++)
    ASSERT_NEAR(v[s].reward, -(fabs(v[s].tx1 - 1.5) + fabs(v[s].ty1 + 2.0)) - 0.1 * v[s].ctrl - v[s].contact, 1e-9);
  // MAML's termination (torso z outside [0.2, 1.0]): a torso lifted to 1.5 ends AntVel's and
  // AntDir's episode on the first step; AntGoal never terminates
  const char* ids[3] = {"AntVel-v5", "AntDir-v5", "AntGoal-v5"};
  for (int e = 0; e < 3; e++) {
    ne_env_spec* env = make_env(ids[e]);
    ne_env_state* st = ne_env_state_create(env);
    ASSERT_EQ(ne_env_reset(env, st, 7), 0);
    double q[NE_ENV_MAX_STATE];
    ne_env_get_state(env, st, q);
    q[2] = 1.5;
    ASSERT_EQ(ne_env_set_state(env, st, q, env->state_dim, NULL), 0);
    float act[8] = {0};
    ne_step_out so;
    ASSERT_EQ(ne_env_step(env, st, act, &so), 0);
    ASSERT_EQ(so.terminated, e < 2);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(env);
  }
  ne_env_spec* env = make_env("AntGoal-v5");
  ASSERT_EQ(env->obs_dim, 107);  // Ant-v5's 105 and the torso's x, y
  ASSERT_EQ(env->max_episode_steps, 200);
  ne_env_spec_destroy(env);
}
#endif

int main(int argc, char** argv) {
  static const test_entry tests[] = {
      TEST_ENTRY(test_sampling_is_a_function_of_the_seed),
      TEST_ENTRY(test_point_goal_distribution),
      TEST_ENTRY(test_reset_task_fixed_and_per_state),
      TEST_ENTRY(test_env_task_from_config),
      TEST_ENTRY(test_point_dynamics),
#ifdef NE_HAVE_MUJOCO
      TEST_ENTRY(test_mujoco_task_distributions),
      TEST_ENTRY(test_half_cheetah_rewards),
      TEST_ENTRY(test_ant_rewards),
#endif
  };
  return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
