// SPDX-License-Identifier: MIT
// InvertedPendulum-v5 (gymnasium/envs/mujoco/inverted_pendulum_v5.py, default arguments) over
// inverted_pendulum.xml: balance a pole on a cart that slides on a rail.
//
// Action space: Box(-3, 3, (1,)) float32: the force on the cart.
// Observation (4, unbounded): qpos (cart position, pole angle), qvel (their velocities).
// Reward: 1 for every step that does not terminate, 0 for the terminating one.
// Start state: qpos0 + U(-0.01, 0.01) per coordinate, qvel U(-0.01, 0.01).
// Termination: an observation that is not finite, or |pole angle| > 0.2 rad.
// Truncation: the TimeLimit at 1000 steps. Threshold 950.
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 2
#define ANGLE_MAX 0.2
#define RESET_NOISE_SCALE 0.01

static int obs_dim(const mjModel* m) { return m->nq + m->nv; }

static void reset(const ne_mj_spec* s, mjData* d, ne_rng* rng) {
  ne__mj_noise_uniform(rng, d->qpos, s->m->qpos0, s->m->nq, RESET_NOISE_SCALE);
  ne__mj_noise_uniform(rng, d->qvel, NULL, s->m->nv, RESET_NOISE_SCALE);
}

static void observe(const ne_mj_spec* s, const mjData* d, float* obs) { ne__mj_obs_qpos_qvel(s->m, d, 0, 0.0, obs); }

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  (void)before;
  (void)act;
  // the float64 observation: finite, and the pole angle (obs[1] = qpos[1]) within 0.2
  int finite = 1;
  for (int i = 0; i < s->m->nq; i++) finite &= isfinite(d->qpos[i]) != 0;
  for (int i = 0; i < s->m->nv; i++) finite &= isfinite(d->qvel[i]) != 0;
  *terminated = !finite || fabs(d->qpos[1]) > ANGLE_MAX;
  return *terminated ? 0.0 : 1.0;
}

// clang-format off
const ne_mj_task ne__mj_inverted_pendulum = {
    "InvertedPendulum-v5", "inverted_pendulum.xml", FRAME_SKIP, 1000, 1, 950.0, obs_dim, NULL, reset, observe, NULL,
    reward, 0, NULL,
};
// clang-format on
