// SPDX-License-Identifier: MIT
// Reacher-v5 (gymnasium/envs/mujoco/reacher_v5.py, default arguments) over reacher.xml: a
// two-link arm should bring its fingertip to a random target. It never terminates.
//
// Action space: Box(-1, 1, (2,)) float32: torques of the two joints.
// Observation (10, unbounded): cos and sin of the two joint angles (4), the target's position
//   qpos[2:4], the joints' velocities qvel[:2], and (fingertip - target)[:2] (body positions).
// Reward: -|fingertip - target| (3-D Euclidean, float64) - sum(action^2) (float32, as NumPy
//   computes it); both weights are 1.
// Start state: qpos0 + U(-0.1, 0.1) per coordinate, then the target (qpos[-2:]) drawn
//   U(-0.2, 0.2)^2 until its norm is < 0.2; qvel U(-0.005, 0.005) with the target's set to 0.
// Termination: never. Truncation: the TimeLimit at 50 steps. Threshold -3.75.
#include "core/util.h"  // ne__set_error
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 2
#define QPOS_NOISE 0.1
#define QVEL_NOISE 0.005
#define GOAL_RANGE 0.2

enum { FINGERTIP, TARGET };  // ne_mj_spec.body slots

static int obs_dim(const mjModel* m) {
  (void)m;
  return 10;
}

static void reset(const ne_mj_spec* s, mjData* d, ne_rng* rng) {
  int nq = s->m->nq, nv = s->m->nv;
  ne__mj_noise_uniform(rng, d->qpos, s->m->qpos0, nq, QPOS_NOISE);
  // rejection sampling of a goal inside the disc of radius 0.2
  double g0, g1;
  do {
    g0 = ne_rng_range(rng, -GOAL_RANGE, GOAL_RANGE);
    g1 = ne_rng_range(rng, -GOAL_RANGE, GOAL_RANGE);
  } while (!(sqrt(g0 * g0 + g1 * g1) < GOAL_RANGE));
  d->qpos[nq - 2] = g0;
  d->qpos[nq - 1] = g1;
  ne__mj_noise_uniform(rng, d->qvel, NULL, nv, QVEL_NOISE);
  d->qvel[nv - 2] = 0.0;
  d->qvel[nv - 1] = 0.0;
}

static void observe(const ne_mj_spec* s, const mjData* d, float* obs) {
  const double* tip = d->xpos + 3 * s->body[FINGERTIP];
  const double* target = d->xpos + 3 * s->body[TARGET];
  obs[0] = (float)cos(d->qpos[0]);
  obs[1] = (float)cos(d->qpos[1]);
  obs[2] = (float)sin(d->qpos[0]);
  obs[3] = (float)sin(d->qpos[1]);
  obs[4] = (float)d->qpos[2];
  obs[5] = (float)d->qpos[3];
  obs[6] = (float)d->qvel[0];
  obs[7] = (float)d->qvel[1];
  obs[8] = (float)(tip[0] - target[0]);
  obs[9] = (float)(tip[1] - target[1]);
}

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  (void)before;
  const double* tip = d->xpos + 3 * s->body[FINGERTIP];
  const double* target = d->xpos + 3 * s->body[TARGET];
  double v[3] = {tip[0] - target[0], tip[1] - target[1], tip[2] - target[2]};
  double reward_dist = -sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  float reward_ctrl = -ne__mj_sumsq_f32(act, s->m->nu);
  *terminated = 0;
  return reward_dist + (double)reward_ctrl;
}

// the fingertip and target bodies; the layout above also assumes nq = nv = 4
static int prepare(ne_mj_spec* s, char* errstr) {
  if (s->m->nq != 4 || s->m->nv != 4)
    return ne__set_error(errstr, NE_EINVAL, "Reacher-v5: expected nq = nv = 4, got %d, %d", (int)s->m->nq,
                         (int)s->m->nv);
  int rc = ne__mj_body(s, "fingertip", &s->body[FINGERTIP], errstr);
  return rc ? rc : ne__mj_body(s, "target", &s->body[TARGET], errstr);
}

const ne_mj_task ne__mj_reacher = {
    "Reacher-v5", "reacher.xml", FRAME_SKIP, 50, 1, -3.75, obs_dim, prepare, reset, observe, NULL, reward, 0, NULL,
};
