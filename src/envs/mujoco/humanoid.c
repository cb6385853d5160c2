// SPDX-License-Identifier: MIT
// Humanoid-v5 (gymnasium/envs/mujoco/humanoid_v5.py, default arguments) over humanoid.xml: a 3-D
// bipedal robot that should walk forward without falling.
//
// Action space: Box(-0.4, 0.4, (17,)) float32: torques of the abdomen, hip, knee, shoulder and
//   elbow joints.
// Observation (348, unbounded), v5's defaults (every include_* True, world body left out):
//   qpos[2:] (22; x and y excluded), qvel (23), cinert[1:] (13 x 10), cvel[1:] (13 x 6),
//   qfrc_actuator[6:] (17; the free joint's 6 left out), cfrc_ext[1:] (13 x 6), unclipped.
// Reward: forward_reward_weight * d(mass centre x)/dt (dt = 5 * 0.003) + healthy_reward *
//   is_healthy - ctrl_cost_weight * sum(data.ctrl^2) - min(contact_cost_weight *
//   sum(cfrc_ext^2), 10) (all float64; the control cost reads data.ctrl, not the action).
// Start state: qpos0 + U(-0.01, 0.01) per coordinate, qvel U(-0.01, 0.01).
// Termination: not healthy: healthy when 1.0 < z < 2.0 (strict).
// Truncation: the TimeLimit at 1000 steps. No reward threshold.
//
// HumanoidTrap-v5: the same env with the deceptive trap of Conti et al. 2018 (their reference's
// extra/humanoid_maze.xml, uber-research/deep-neuroevolution): a U-shaped wall open towards the
// start, three boxes 4 units high (front wall at x = 5.5, side walls at y = +-1.5 from x = 2.5 to
// 5.5), added to Gymnasium's humanoid.xml when the model is loaded (mjSpec), with the file's
// default geom class, as the reference's walls have. Walking forward, the reward's direction, ends
// against the front wall; getting past it means walking around. Behaviour characterization: the
// final x-y of the mass centre.
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 5
#define FORWARD_REWARD_WEIGHT 1.25
#define CTRL_COST_WEIGHT 0.1
#define CONTACT_COST_WEIGHT 5e-7
#define CONTACT_COST_MAX 10.0  // contact_cost_range = (-inf, 10)
#define HEALTHY_REWARD 5.0
#define HEALTHY_Z_MIN 1.0
#define HEALTHY_Z_MAX 2.0
#define RESET_NOISE_SCALE 0.01

static int obs_dim(const mjModel* m) {
  int bodies = m->nbody - 1;
  return m->nq - 2 + m->nv + 10 * bodies + 6 * bodies + (m->nv - 6) + 6 * bodies;
}

static void reset(const ne_mj_spec* s, mjData* d, ne_rng* rng) {
  ne__mj_noise_uniform(rng, d->qpos, s->m->qpos0, s->m->nq, RESET_NOISE_SCALE);
  ne__mj_noise_uniform(rng, d->qvel, NULL, s->m->nv, RESET_NOISE_SCALE);
}

// writes x[from:to] as float32 at obs + k; returns the new k
static int put(float* obs, int k, const mjtNum* x, int from, int to) {
  for (int i = from; i < to; i++) obs[k++] = (float)x[i];
  return k;
}

static void observe(const ne_mj_spec* s, const mjData* d, float* obs) {
  const mjModel* m = s->m;
  int k = ne__mj_obs_qpos_qvel(m, d, 2, 0.0, obs);
  k = put(obs, k, d->cinert, 10, 10 * m->nbody);
  k = put(obs, k, d->cvel, 6, 6 * m->nbody);
  k = put(obs, k, d->qfrc_actuator, 6, m->nv);
  put(obs, k, d->cfrc_ext, 6, 6 * m->nbody);
}

// mass_center(): the mass-weighted mean of the bodies' com positions, x and y
static void position(const ne_mj_spec* s, const mjData* d, double xy[2]) {
  double num[2] = {0.0, 0.0};
  for (int b = 0; b < s->m->nbody; b++) {
    num[0] += s->m->body_mass[b] * d->xipos[3 * b];
    num[1] += s->m->body_mass[b] * d->xipos[3 * b + 1];
  }
  xy[0] = num[0] / s->total_mass;
  xy[1] = num[1] / s->total_mass;
}

static double reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated) {
  (void)act;
  double after[2];
  position(s, d, after);
  double x_velocity = (after[0] - before[0]) / s->dt;
  double z = d->qpos[2];
  int is_healthy = HEALTHY_Z_MIN < z && z < HEALTHY_Z_MAX;
  double rewards = FORWARD_REWARD_WEIGHT * x_velocity + is_healthy * HEALTHY_REWARD;
  double ctrl_cost = CTRL_COST_WEIGHT * ne__mj_sumsq(d->ctrl, s->m->nu);
  double contact_cost = CONTACT_COST_WEIGHT * ne__mj_sumsq(d->cfrc_ext, 6 * s->m->nbody);
  if (contact_cost > CONTACT_COST_MAX) contact_cost = CONTACT_COST_MAX;
  *terminated = !is_healthy;
  return rewards - (ctrl_cost + contact_cost);
}

// body_mass.sum(), once
static int prepare(ne_mj_spec* s, char* errstr) {
  if (6 * s->m->nbody > 512) return ne__set_error(errstr, NE_ERANGE, "%s: %d bodies", s->task->id, (int)s->m->nbody);
  s->total_mass = ne__mj_pairwise_sum(s->m->body_mass, s->m->nbody);
  return 0;
}

// the trap's walls: name, centre, half sizes (the reference's humanoid_maze.xml)
static const struct {
  const char* name;
  double pos[3], size[3];
} TRAP[3] = {
    {"trap_front", {5.5, 0, 0}, {0.1, 1.5, 2}},
    {"trap_left", {4, 1.5, 0}, {1.5, 0.1, 2}},
    {"trap_right", {4, -1.5, 0}, {1.5, 0.1, 2}},
};

// the ne_mj_task edit hook: three boxes in the world body
static int add_trap(mjSpec* spec, char* errstr) {
  mjsBody* world = mjs_findBody(spec, "world");
  if (!world) return ne__set_error(errstr, NE_EINVAL, "HumanoidTrap-v5: humanoid.xml has no world body");
  for (int i = 0; i < 3; i++) {
    mjsGeom* g = mjs_addGeom(world, mjs_getSpecDefault(spec));
    if (!g) return ne__set_error(errstr, NE_ENOMEM, "HumanoidTrap-v5: cannot add %s", TRAP[i].name);
    g->type = mjGEOM_BOX;
    memcpy(g->pos, TRAP[i].pos, sizeof g->pos);
    memcpy(g->size, TRAP[i].size, sizeof g->size);
    mjs_setName(g->element, TRAP[i].name);
  }
  return 0;
}

const ne_mj_task ne__mj_humanoid_trap = {
    "HumanoidTrap-v5", "humanoid.xml", FRAME_SKIP, 1000,     0,      0.0, obs_dim,
    prepare,           reset,          observe,    position, reward, 2,   add_trap,
};

const ne_mj_task ne__mj_humanoid = {
    "Humanoid-v5", "humanoid.xml", FRAME_SKIP, 1000,     0,      0.0, obs_dim,
    prepare,       reset,          observe,    position, reward, 2,   NULL,
};
