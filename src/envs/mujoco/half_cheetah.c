// SPDX-License-Identifier: MIT
// HalfCheetah-v5 (gymnasium/envs/mujoco/half_cheetah_v5.py, default arguments) over
// half_cheetah.xml: a planar two-legged runner that should run forward. It never terminates.
//
// Action space: Box(-1, 1, (6,)) float32: torques of back/front thigh, shin and foot.
// Observation (17, unbounded): qpos[1:] (z, angle, 6 joint angles; x excluded), then qvel (9).
// Reward: forward_reward_weight * dx/dt (dt = 5 * 0.01) - ctrl_cost_weight * sum(action^2)
//   (float32, as NumPy computes it).
// Start state: qpos0 + U(-0.1, 0.1) per coordinate, qvel 0.1 * N(0, 1).
// Termination: never. Truncation: the TimeLimit at 1000 steps. Threshold 4800.
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 5
#define FORWARD_REWARD_WEIGHT 1.0
#define CTRL_COST_WEIGHT 0.1f  // applied to a float32 sum, so a float32 product
#define RESET_NOISE_SCALE 0.1

int ne__mj_half_cheetah_obs_dim(const mjModel* m) { return m->nq - 1 + m->nv; }

void ne__mj_half_cheetah_reset(const ne_mj_spec* s, mjData* d, ne_rng* rng) {
  ne__mj_noise_uniform(rng, d->qpos, s->m->qpos0, s->m->nq, RESET_NOISE_SCALE);
  ne__mj_noise_normal(rng, d->qvel, NULL, s->m->nv, RESET_NOISE_SCALE);
}

void ne__mj_half_cheetah_observe(const ne_mj_spec* s, const mjData* d, float* obs) {
  ne__mj_obs_qpos_qvel(s->m, d, 1, 0.0, obs);
}

void ne__mj_half_cheetah_position(const ne_mj_spec* s, const mjData* d, double xy[2]) {
  (void)s;
  xy[0] = d->qpos[0];
}

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  double x_velocity = (d->qpos[0] - before[0]) / s->dt;
  float ctrl_cost = CTRL_COST_WEIGHT * ne__mj_sumsq_f32(act, s->m->nu);
  *terminated = 0;
  return FORWARD_REWARD_WEIGHT * x_velocity - (double)ctrl_cost;
}

const ne_mj_task ne__mj_half_cheetah = {
    "HalfCheetah-v5",
    "half_cheetah.xml",
    FRAME_SKIP,
    1000,
    1,
    4800.0,
    ne__mj_half_cheetah_obs_dim,
    NULL,
    ne__mj_half_cheetah_reset,
    ne__mj_half_cheetah_observe,
    ne__mj_half_cheetah_position,
    reward,
    1,
    NULL,
};
