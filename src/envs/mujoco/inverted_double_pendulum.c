// SPDX-License-Identifier: MIT
// InvertedDoublePendulum-v5 (gymnasium/envs/mujoco/inverted_double_pendulum_v5.py, default
// arguments) over inverted_double_pendulum.xml: balance two stacked poles on a cart.
//
// Action space: Box(-1, 1, (1,)) float32: the force on the cart.
// Observation (9, unbounded): cart position qpos[0], sin(qpos[1:]) (2), cos(qpos[1:]) (2),
//   qvel (3) clipped to [-10, 10], qfrc_constraint[0] clipped to [-10, 10].
// Reward: healthy_reward (10) unless terminated - (0.01 x^2 + (y - 2)^2) - (0.001 v1^2 +
//   0.005 v2^2), with (x, _, y) the tip site's position and v1, v2 = qvel[1:3].
// Start state: qpos0 + U(-0.1, 0.1) per coordinate, qvel 0.1 * N(0, 1).
// Termination: the tip's height y <= 1.
// Truncation: the TimeLimit at 1000 steps. Threshold 9100.
#include "core/libm_bits.h"  // ne__py_sq: x ** 2 on a NumPy float64 is libm pow
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 5
#define HEALTHY_REWARD 10.0
#define TIP_Y_MIN 1.0  // terminated when y <= this
#define CLIP 10.0
#define RESET_NOISE_SCALE 0.1

static int obs_dim(const mjModel* m) { return 1 + 2 * (m->nq - 1) + m->nv + 1; }

static void reset(const ne_mj_spec* s, mjData* d, ne_rng* rng) {
  ne__mj_noise_uniform(rng, d->qpos, s->m->qpos0, s->m->nq, RESET_NOISE_SCALE);
  ne__mj_noise_normal(rng, d->qvel, NULL, s->m->nv, RESET_NOISE_SCALE);
}

static void observe(const ne_mj_spec* s, const mjData* d, float* obs) {
  const mjModel* m = s->m;
  int k = 0;
  obs[k++] = (float)d->qpos[0];
  for (int i = 1; i < m->nq; i++) obs[k++] = (float)sin(d->qpos[i]);
  for (int i = 1; i < m->nq; i++) obs[k++] = (float)cos(d->qpos[i]);
  for (int i = 0; i < m->nv; i++) obs[k++] = (float)ne__mj_clip(d->qvel[i], -CLIP, CLIP);
  obs[k] = (float)ne__mj_clip(d->qfrc_constraint[0], -CLIP, CLIP);
}

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  (void)s;
  (void)before;
  (void)act;
  double x = d->site_xpos[0], y = d->site_xpos[2];
  *terminated = y <= TIP_Y_MIN;
  double v1 = d->qvel[1], v2 = d->qvel[2];
  double dist_penalty = 0.01 * ne__py_sq(x) + ne__py_sq(y - 2);
  double vel_penalty = 0.001 * ne__py_sq(v1) + 0.005 * ne__py_sq(v2);
  double alive_bonus = HEALTHY_REWARD * (*terminated ? 0 : 1);
  return alive_bonus - dist_penalty - vel_penalty;
}

// clang-format off
const ne_mj_task ne__mj_inverted_double_pendulum = {
    "InvertedDoublePendulum-v5", "inverted_double_pendulum.xml", FRAME_SKIP, 1000, 1, 9100.0, obs_dim, NULL, reset,
    observe, NULL, reward, 0, NULL,
};
// clang-format on
