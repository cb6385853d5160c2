// SPDX-License-Identifier: MIT
// AntDir-v5 and AntGoal-v5: the ant task families of MAML (Finn, Abbeel and Levine 2017, §5.3;
// cbfinn/maml_rl rllab/envs/mujoco/ant_env_rand_direc.py and ant_env_rand_goal.py, max_path_length
// 200 in maml_examples/cluster_maml_trpo_ant.py) with the reward terms, termination and goal
// distribution of ProMP (Rothfuss et al. 2019; jonasrothfuss/ProMP meta_policy_search/envs/
// mujoco_envs/ant_rand_direc.py and ant_rand_goal.py). AntGoal is the "ant meta-task" of GA-MAML.
// The physics and start state are Ant-v5's (ant.c, Gymnasium's ant.xml); the reward, termination,
// horizon and task differ, and AntGoal's observation adds the torso's x and y (a goal cannot be
// reached without them; ProMP observes the whole qpos too).
//
// Action space: Box(-1, 1, (8,)) float32, as Ant-v5.
// AntDir-v5 observation (105): Ant-v5's (qpos[2:], qvel, clipped cfrc_ext[1:]).
//   reward: direction * dx/dt of the torso + 1 (survive) - 0.5 * sum(action^2)
//           - 5e-4 * sum(clip(cfrc_ext, -1, 1)^2)
//   termination: qpos or qvel not finite, or the torso's z outside [0, 1] (ProMP's check)
//   task direction -1 (backward) or +1 (forward), each with probability 1/2.
// AntGoal-v5 observation (107): qpos (x and y included), qvel, clipped cfrc_ext[1:].
//   reward: -(|x - goal_x| + |y - goal_y|) of the torso - 0.1 * sum(action^2)
//           - 5e-4 * sum(clip(cfrc_ext, -1, 1)^2)   (no survive bonus, ProMP's "happy, not suicidal")
//   termination: never (ProMP)
//   task goal uniform in the disc of radius 3: angle uniform in [0, 2 pi), radius 3 * sqrt(U[0, 1)).
// Start state: Ant-v5's (qpos0 + U(-0.1, 0.1), qvel 0.1 * N(0, 1)). Truncation: the TimeLimit at 200.
#include "core/detmath.h"  // ne__sincos_turns: the goal's angle, the same bits everywhere
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 5
#define HORIZON 200         // MAML's max_path_length
#define SURVIVE_REWARD 1.0  // AntDir
#define DIR_CTRL_COST 0.5   // AntDir: 0.5 * sum(action^2)
#define GOAL_CTRL_COST 0.1  // AntGoal: 0.1 * sum(action^2)
#define GOAL_RADIUS 3.0     // AntGoal: goals in the disc of this radius
#define Z_MIN 0.0           // AntDir is healthy for torso z in [Z_MIN, Z_MAX]
#define Z_MAX 1.0

// sum(action^2) in float64, index order
static double sumsq(const float* act, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; i++) sum += (double)act[i] * (double)act[i];
  return sum;
}

// ---- AntDir-v5 ----

static void dir_sample(ne_rng* rng, double* task) { task[0] = ne_rng_uniform(rng) < 0.5 ? -1.0 : 1.0; }

static double dir_reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act,
                         const double* task, int* terminated) {
  double vx = (d->xpos[3 * s->body[0]] - before[0]) / s->dt;
  double z = d->qpos[2];
  *terminated = !(ne__mj_ant_finite(s->m, d) && Z_MIN <= z && z <= Z_MAX);
  return task[0] * vx + SURVIVE_REWARD - DIR_CTRL_COST * sumsq(act, s->m->nu) - ne__mj_ant_contact_cost(s, d);
}

// the torso (Ant-v5's main body), and the contact cost's buffer bound
static int ant_prepare(ne_mj_spec* s, char* errstr) {
  int rc = ne__mj_body(s, "torso", &s->body[0], errstr);
  return rc ? rc : ne__mj_ant_prepare(s, errstr);
}

const ne_mj_task_family ne__mj_ant_dir = {
    .env.id = "AntDir-v5",
    .env.xml = "ant.xml",
    .env.frame_skip = FRAME_SKIP,
    .env.max_episode_steps = HORIZON,
    .env.obs_dim = ne__mj_ant_obs_dim,
    .env.prepare = ant_prepare,
    .env.reset = ne__mj_ant_reset,
    .env.observe = ne__mj_ant_observe,
    .env.position = ne__mj_ant_position,
    .env.position_dims = 2,
    .task_dim = 1,
    .task_names = "direction",
    .task_desc = "direction -1 (backward) or +1 (forward), each with probability 1/2",
    .sample_task = dir_sample,
    .task_reward = dir_reward,
};

// ---- AntGoal-v5 ----

// qpos whole, then Ant-v5's qvel and contact forces
static int goal_obs_dim(const mjModel* m) { return ne__mj_ant_obs_dim(m) + 2; }

static void goal_observe(const ne_mj_spec* s, const mjData* d, float* obs) {
  obs[0] = (float)d->qpos[0];
  obs[1] = (float)d->qpos[1];
  ne__mj_ant_observe(s, d, obs + 2);
}

// ProMP draws the angle first, then the radius
static void goal_sample(ne_rng* rng, double* task) {
  double turns = ne_rng_uniform(rng);  // angle / (2 pi)
  double r = GOAL_RADIUS * sqrt(ne_rng_uniform(rng));
  double sn, cs;
  ne__sincos_turns(turns, &sn, &cs);
  task[0] = r * cs;
  task[1] = r * sn;
}

static double goal_reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act,
                          const double* task, int* terminated) {
  (void)before;
  const double* torso = &d->xpos[3 * s->body[0]];
  double dist = fabs(torso[0] - task[0]) + fabs(torso[1] - task[1]);
  *terminated = 0;
  return -dist - GOAL_CTRL_COST * sumsq(act, s->m->nu) - ne__mj_ant_contact_cost(s, d);
}

const ne_mj_task_family ne__mj_ant_goal = {
    .env.id = "AntGoal-v5",
    .env.xml = "ant.xml",
    .env.frame_skip = FRAME_SKIP,
    .env.max_episode_steps = HORIZON,
    .env.obs_dim = goal_obs_dim,
    .env.prepare = ant_prepare,
    .env.reset = ne__mj_ant_reset,
    .env.observe = goal_observe,
    .env.position = ne__mj_ant_position,
    .env.position_dims = 2,
    .task_dim = 2,
    .task_names = "goal_x,goal_y",
    .task_desc = "goal uniform in the disc of radius 3 around the start (ProMP's AntRandGoal)",
    .sample_task = goal_sample,
    .task_reward = goal_reward,
};
