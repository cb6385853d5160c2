// SPDX-License-Identifier: MIT
// Walker2d-v5 (gymnasium/envs/mujoco/walker2d_v5.py, default arguments) over walker2d_v5.xml (v5's
// model: both feet with the same friction): a planar biped that should walk forward.
//
// Action space: Box(-1, 1, (6,)) float32: torques of the thigh, leg and foot joints of both legs.
// Observation (17, unbounded): qpos[1:] (z, torso angle, 6 joint angles; x excluded), then qvel
//   (9) clipped to [-10, 10].
// Reward: forward_reward_weight * dx/dt (dt = 4 * 0.002) + healthy_reward * is_healthy
//   - ctrl_cost_weight * sum(action^2) (float32, as NumPy computes it).
// Start state: qpos0 + U(-0.005, 0.005) per coordinate, qvel U(-0.005, 0.005).
// Termination: not healthy: healthy when 0.8 < z < 2.0 and -1 < torso angle < 1 (strict).
// Truncation: the TimeLimit at 1000 steps. No reward threshold.
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 4
#define FORWARD_REWARD_WEIGHT 1.0
#define CTRL_COST_WEIGHT 0.001f  // applied to a float32 sum, so a float32 product
#define HEALTHY_REWARD 1.0
#define HEALTHY_Z_MIN 0.8
#define HEALTHY_Z_MAX 2.0
#define HEALTHY_ANGLE_MIN (-1.0)
#define HEALTHY_ANGLE_MAX 1.0
#define RESET_NOISE_SCALE 0.005

static int obs_dim(const mjModel* m) { return m->nq - 1 + m->nv; }

static void reset(const ne_mj_spec* s, mjData* d, ne_rng* rng) {
  ne__mj_noise_uniform(rng, d->qpos, s->m->qpos0, s->m->nq, RESET_NOISE_SCALE);
  ne__mj_noise_uniform(rng, d->qvel, NULL, s->m->nv, RESET_NOISE_SCALE);
}

static void observe(const ne_mj_spec* s, const mjData* d, float* obs) { ne__mj_obs_qpos_qvel(s->m, d, 1, 10.0, obs); }

static void position(const ne_mj_spec* s, const mjData* d, double xy[2]) {
  (void)s;
  xy[0] = d->qpos[0];
}

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  double x_velocity = (d->qpos[0] - before[0]) / s->dt;
  double z = d->qpos[1], angle = d->qpos[2];
  int is_healthy = HEALTHY_Z_MIN < z && z < HEALTHY_Z_MAX && HEALTHY_ANGLE_MIN < angle && angle < HEALTHY_ANGLE_MAX;
  double rewards = FORWARD_REWARD_WEIGHT * x_velocity + is_healthy * HEALTHY_REWARD;
  float ctrl_cost = CTRL_COST_WEIGHT * ne__mj_sumsq_f32(act, s->m->nu);
  *terminated = !is_healthy;
  return rewards - (double)ctrl_cost;
}

const ne_mj_task ne__mj_walker2d = {
    "Walker2d-v5", "walker2d_v5.xml", FRAME_SKIP, 1000,   0, 0.0,  obs_dim, NULL,
    reset,         observe,           position,   reward, 1, NULL,
};
