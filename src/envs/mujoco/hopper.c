// SPDX-License-Identifier: MIT
// Hopper-v5 (gymnasium/envs/mujoco/hopper_v5.py, default arguments) over hopper.xml: a planar
// one-legged robot that should hop forward.
//
// Action space: Box(-1, 1, (3,)) float32 (ctrlrange): torques of thigh, leg and foot joints.
// Observation (11, unbounded): qpos[1:] (z, torso angle, 3 joint angles; the x position is
//   excluded), then qvel (6) clipped to [-10, 10].
// Reward: forward_reward_weight * dx/dt (dt = 4 * 0.002) + healthy_reward * is_healthy
//   - ctrl_cost_weight * sum(action^2) (float32, as NumPy computes it).
// Start state: qpos0 + U(-0.005, 0.005) per coordinate, qvel U(-0.005, 0.005).
// Termination: not healthy: healthy when every state_vector()[2:] is strictly inside (-100, 100),
//   z > 0.7 and the torso angle is strictly inside (-0.2, 0.2).
// Truncation: the TimeLimit at 1000 steps. Threshold 3800.
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 4
#define FORWARD_REWARD_WEIGHT 1.0
#define CTRL_COST_WEIGHT 0.001f  // applied to a float32 sum, so a float32 product
#define HEALTHY_REWARD 1.0
#define HEALTHY_STATE_MIN (-100.0)
#define HEALTHY_STATE_MAX 100.0
#define HEALTHY_Z_MIN 0.7  // and no upper bound (inf)
#define HEALTHY_ANGLE_MIN (-0.2)
#define HEALTHY_ANGLE_MAX 0.2
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

// is_healthy: (z, angle) = qpos[1:3]; every other coordinate of (qpos, qvel)[2:] bounded
static int healthy(const mjModel* m, const mjData* d) {
  for (int i = 2; i < m->nq + m->nv; i++) {
    double v = i < m->nq ? d->qpos[i] : d->qvel[i - m->nq];
    if (!(HEALTHY_STATE_MIN < v && v < HEALTHY_STATE_MAX)) return 0;
  }
  double z = d->qpos[1], angle = d->qpos[2];
  return HEALTHY_Z_MIN < z && z < INFINITY && HEALTHY_ANGLE_MIN < angle && angle < HEALTHY_ANGLE_MAX;
}

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  double x_velocity = (d->qpos[0] - before[0]) / s->dt;
  int is_healthy = healthy(s->m, d);
  double rewards = FORWARD_REWARD_WEIGHT * x_velocity + is_healthy * HEALTHY_REWARD;
  float ctrl_cost = CTRL_COST_WEIGHT * ne__mj_sumsq_f32(act, s->m->nu);
  *terminated = !is_healthy;
  return rewards - (double)ctrl_cost;
}

const ne_mj_task ne__mj_hopper = {
    "Hopper-v5", "hopper.xml", FRAME_SKIP, 1000, 1, 3800.0, obs_dim, NULL, reset, observe, position, reward, 1, NULL,
};
