// SPDX-License-Identifier: MIT
// Swimmer-v5 (gymnasium/envs/mujoco/swimmer_v5.py, default arguments) over swimmer.xml: a
// three-link robot in a viscous fluid that should swim forward. It never terminates.
//
// Action space: Box(-1, 1, (2,)) float32: torques of the two rotors.
// Observation (8, unbounded): qpos[2:] (body angle, 2 joint angles; x and y excluded), qvel (5).
// Reward: forward_reward_weight * dx/dt (dt = 4 * 0.01; x is qpos[0]) - ctrl_cost_weight *
//   sum(action^2) (float32, as NumPy computes it).
// Start state: qpos0 + U(-0.1, 0.1) per coordinate, qvel U(-0.1, 0.1).
// Termination: never. Truncation: the TimeLimit at 1000 steps. Threshold 360.
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 4
#define FORWARD_REWARD_WEIGHT 1.0
#define CTRL_COST_WEIGHT 1e-4f  // applied to a float32 sum, so a float32 product
#define RESET_NOISE_SCALE 0.1

static int obs_dim(const mjModel* m) { return m->nq - 2 + m->nv; }

static void reset(const ne_mj_spec* s, mjData* d, ne_rng* rng) {
  ne__mj_noise_uniform(rng, d->qpos, s->m->qpos0, s->m->nq, RESET_NOISE_SCALE);
  ne__mj_noise_uniform(rng, d->qvel, NULL, s->m->nv, RESET_NOISE_SCALE);
}

static void observe(const ne_mj_spec* s, const mjData* d, float* obs) { ne__mj_obs_qpos_qvel(s->m, d, 2, 0.0, obs); }

static void position(const ne_mj_spec* s, const mjData* d, double xy[2]) {
  (void)s;
  xy[0] = d->qpos[0];
  xy[1] = d->qpos[1];
}

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  double x_velocity = (d->qpos[0] - before[0]) / s->dt;
  float ctrl_cost = CTRL_COST_WEIGHT * ne__mj_sumsq_f32(act, s->m->nu);
  *terminated = 0;
  return FORWARD_REWARD_WEIGHT * x_velocity - (double)ctrl_cost;
}

const ne_mj_task ne__mj_swimmer = {
    "Swimmer-v5", "swimmer.xml", FRAME_SKIP, 1000, 1, 360.0, obs_dim, NULL, reset, observe, position, reward, 2, NULL,
};
