// SPDX-License-Identifier: MIT
// Ant-v5 (gymnasium/envs/mujoco/ant_v5.py, default arguments) over ant.xml: a four-legged robot
// that should walk forward (+x).
//
// Action space: Box(-1, 1, (8,)) float32: hip and ankle torques of the four legs.
// Observation (105, unbounded): qpos[2:] (13: torso z, orientation quaternion, 8 joint angles; x
//   and y excluded), qvel (14), then cfrc_ext[1:] clipped to contact_force_range [-1, 1] (13 bodies
//   x 6: v5's default include_cfrc_ext_in_observation=True; the world body is left out).
// Reward: forward_reward_weight * dx/dt of the main body (body 1, the torso; dt = 5 * 0.01)
//   + healthy_reward * is_healthy - ctrl_cost_weight * sum(action^2) (float32)
//   - contact_cost_weight * sum(clip(cfrc_ext, -1, 1)^2) (all bodies, float64).
// Start state: qpos0 + U(-0.1, 0.1) per coordinate, qvel 0.1 * N(0, 1).
// Termination: not healthy: healthy when (qpos, qvel) is all finite and 0.2 <= z <= 1.0
//   (inclusive, unlike the other envs).
// Truncation: the TimeLimit at 1000 steps. Threshold 6000.
#include "core/util.h"  // ne__set_error
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 5
#define FORWARD_REWARD_WEIGHT 1.0
#define CTRL_COST_WEIGHT 0.5f  // applied to a float32 sum, so a float32 product
#define CONTACT_COST_WEIGHT 5e-4
#define HEALTHY_REWARD 1.0
#define MAIN_BODY 1  // the torso (main_body=1)
#define HEALTHY_Z_MIN 0.2
#define HEALTHY_Z_MAX 1.0
#define CONTACT_FORCE_MIN (-1.0)
#define CONTACT_FORCE_MAX 1.0
#define RESET_NOISE_SCALE 0.1

int ne__mj_ant_obs_dim(const mjModel* m) { return m->nq - 2 + m->nv + 6 * (m->nbody - 1); }

void ne__mj_ant_reset(const ne_mj_spec* s, mjData* d, ne_rng* rng) {
  ne__mj_noise_uniform(rng, d->qpos, s->m->qpos0, s->m->nq, RESET_NOISE_SCALE);
  ne__mj_noise_normal(rng, d->qvel, NULL, s->m->nv, RESET_NOISE_SCALE);
}

void ne__mj_ant_observe(const ne_mj_spec* s, const mjData* d, float* obs) {
  int k = ne__mj_obs_qpos_qvel(s->m, d, 2, 0.0, obs);
  // contact_forces[1:]: every body but the world, 6 components each, clipped
  for (int i = 6; i < 6 * s->m->nbody; i++)
    obs[k++] = (float)ne__mj_clip(d->cfrc_ext[i], CONTACT_FORCE_MIN, CONTACT_FORCE_MAX);
}

void ne__mj_ant_position(const ne_mj_spec* s, const mjData* d, double xy[2]) {
  (void)s;
  xy[0] = d->xpos[3 * MAIN_BODY];
  xy[1] = d->xpos[3 * MAIN_BODY + 1];
}

// np.isfinite(state_vector()).all()
int ne__mj_ant_finite(const mjModel* m, const mjData* d) {
  for (int i = 0; i < m->nq; i++)
    if (!isfinite(d->qpos[i])) return 0;
  for (int i = 0; i < m->nv; i++)
    if (!isfinite(d->qvel[i])) return 0;
  return 1;
}

// np.isfinite(state_vector()).all() and min_z <= z <= max_z
static int healthy(const mjModel* m, const mjData* d) {
  return ne__mj_ant_finite(m, d) && HEALTHY_Z_MIN <= d->qpos[2] && d->qpos[2] <= HEALTHY_Z_MAX;
}

// contact_cost over the clipped cfrc_ext of all bodies, the world included
double ne__mj_ant_contact_cost(const ne_mj_spec* s, const mjData* d) {
  double clipped[6 * 64];
  int n = 6 * s->m->nbody;
  for (int i = 0; i < n; i++) clipped[i] = ne__mj_clip(d->cfrc_ext[i], CONTACT_FORCE_MIN, CONTACT_FORCE_MAX);
  return CONTACT_COST_WEIGHT * ne__mj_sumsq(clipped, n);
}

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  double x_velocity = (d->xpos[3 * MAIN_BODY] - before[0]) / s->dt;
  int is_healthy = healthy(s->m, d);
  double rewards = x_velocity * FORWARD_REWARD_WEIGHT + is_healthy * HEALTHY_REWARD;
  float ctrl_cost = CTRL_COST_WEIGHT * ne__mj_sumsq_f32(act, s->m->nu);
  double contact_cost = ne__mj_ant_contact_cost(s, d);
  *terminated = !is_healthy;
  return rewards - ((double)ctrl_cost + contact_cost);
}

// the model must fit the contact cost's stack buffer
int ne__mj_ant_prepare(ne_mj_spec* s, char* errstr) {
  if (s->m->nbody > 64)
    return ne__set_error(errstr, NE_ERANGE, "%s: %d bodies (at most 64)", s->task->id, (int)s->m->nbody);
  return 0;
}

const ne_mj_task ne__mj_ant = {
    "Ant-v5",
    "ant.xml",
    FRAME_SKIP,
    1000,
    1,
    6000.0,
    ne__mj_ant_obs_dim,
    ne__mj_ant_prepare,
    ne__mj_ant_reset,
    ne__mj_ant_observe,
    ne__mj_ant_position,
    reward,
    2,
    NULL,
};
