// SPDX-License-Identifier: MIT
// HalfCheetahVel-v5 and HalfCheetahDir-v5: MAML's half-cheetah task families (Finn, Abbeel and
// Levine 2017, §5.3 "Locomotion"; cbfinn/maml_rl rllab/envs/mujoco/half_cheetah_env_rand.py and
// half_cheetah_env_rand_direc.py, max_path_length 200 in maml_examples/cluster_maml_trpo_cheetah.py),
// with the reward terms of ProMP (Rothfuss et al. 2019; jonasrothfuss/ProMP meta_policy_search/envs/
// mujoco_envs/half_cheetah_rand_vel.py and half_cheetah_rand_direc.py). The physics, start state and
// observation are HalfCheetah-v5's (half_cheetah.c, Gymnasium's half_cheetah.xml); only the reward,
// the horizon and the task differ.
//
// Action space: Box(-1, 1, (6,)) float32, as HalfCheetah-v5.
// Observation (17, unbounded): qpos[1:], qvel, as HalfCheetah-v5.
// Velocity v = (x_after - x_before) / dt of qpos[0] (dt = 5 * 0.01), as ProMP.
// HalfCheetahVel-v5 reward: -|v - goal_velocity| - 0.05 * sum(action^2)  (0.5 * 0.1: MAML and ProMP)
//   task goal_velocity uniform in [0, 2) (MAML's range; ProMP draws from [0, 3)).
// HalfCheetahDir-v5 reward: direction * v - 0.05 * sum(action^2)
//   task direction -1 (run backward) or +1 (forward), each with probability 1/2.
// Start state: HalfCheetah-v5's (qpos0 + U(-0.1, 0.1), qvel 0.1 * N(0, 1)).
// Termination: never. Truncation: the TimeLimit at 200 steps (MAML's horizon).
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 5
#define HORIZON 200            // MAML's max_path_length
#define CTRL_COST_WEIGHT 0.05  // 0.5 * 1e-1 in both sources
#define VEL_LOW 0.0            // goal velocities are uniform in [VEL_LOW, VEL_HIGH)
#define VEL_HIGH 2.0

// 0.05 * sum(action^2), summed in float64 in index order
static double ctrl_cost(const float* act, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; i++) sum += (double)act[i] * (double)act[i];
  return CTRL_COST_WEIGHT * sum;
}

static double forward_velocity(const ne_mj_spec* s, const mjData* d, const double before[2]) {
  return (d->qpos[0] - before[0]) / s->dt;
}

// ---- HalfCheetahVel-v5 ----

static void vel_sample(ne_rng* rng, double* task) { task[0] = ne_rng_range(rng, VEL_LOW, VEL_HIGH); }

static double vel_reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act,
                         const double* task, int* terminated) {
  double v = forward_velocity(s, d, before);
  *terminated = 0;
  return -fabs(v - task[0]) - ctrl_cost(act, s->m->nu);
}

const ne_mj_task_family ne__mj_half_cheetah_vel = {
    .env.id = "HalfCheetahVel-v5",
    .env.xml = "half_cheetah.xml",
    .env.frame_skip = FRAME_SKIP,
    .env.max_episode_steps = HORIZON,
    .env.obs_dim = ne__mj_half_cheetah_obs_dim,
    .env.reset = ne__mj_half_cheetah_reset,
    .env.observe = ne__mj_half_cheetah_observe,
    .env.position = ne__mj_half_cheetah_position,
    .env.position_dims = 1,
    .task_dim = 1,
    .task_names = "goal_velocity",
    .task_desc = "goal_velocity uniform in [0, 2) (MAML's goal velocities)",
    .sample_task = vel_sample,
    .task_reward = vel_reward,
};

// ---- HalfCheetahDir-v5 ----

static void dir_sample(ne_rng* rng, double* task) { task[0] = ne_rng_uniform(rng) < 0.5 ? -1.0 : 1.0; }

static double dir_reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act,
                         const double* task, int* terminated) {
  double v = forward_velocity(s, d, before);
  *terminated = 0;
  return task[0] * v - ctrl_cost(act, s->m->nu);
}

const ne_mj_task_family ne__mj_half_cheetah_dir = {
    .env.id = "HalfCheetahDir-v5",
    .env.xml = "half_cheetah.xml",
    .env.frame_skip = FRAME_SKIP,
    .env.max_episode_steps = HORIZON,
    .env.obs_dim = ne__mj_half_cheetah_obs_dim,
    .env.reset = ne__mj_half_cheetah_reset,
    .env.observe = ne__mj_half_cheetah_observe,
    .env.position = ne__mj_half_cheetah_position,
    .env.position_dims = 1,
    .task_dim = 1,
    .task_names = "direction",
    .task_desc = "direction -1 (backward) or +1 (forward), each with probability 1/2",
    .sample_task = dir_sample,
    .task_reward = dir_reward,
};
