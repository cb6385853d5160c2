// SPDX-License-Identifier: MIT
// The Box2D family table (Gymnasium 1.4.0 box2d: LunarLander-v3, LunarLanderContinuous-v3,
// BipedalWalker-v3, BipedalWalkerHardcore-v3) and the spec helpers its two files share. Built
// only when Box2D is found (cmake/physics.cmake). Physics: Debian's Box2D 2.4.1 through the C
// shim b2shim.h, where Gymnasium uses pybox2d 2.3: equal in distribution, not bit for bit (see
// tests/py_box2d_compare.py).
#include <stdio.h>

#include "core/util.h"  // ne__set_error
#include "envs/box2d/box2d_int.h"

// The registry reads this table (src/envs/registry.c).
const ne_env_entry ne__box2d_envs[] = {
    {"LunarLander-v3",
     "land on the pad with 4 discrete engine choices; obs 8 (position, velocity, angle, leg contacts)",
     ne__lunar_lander_make},
    {"LunarLanderContinuous-v3", "LunarLander with Box(-1, 1, (2,)) throttles (main, lateral)", ne__lunar_lander_make},
    {"BipedalWalker-v3", "walk a 4-joint biped over rough terrain; obs 24 (hull, joints, contacts, 10 lidar)",
     ne__bipedal_walker_make},
    {"BipedalWalkerHardcore-v3", "BipedalWalker with stumps, pits and stairs; TimeLimit 2000", ne__bipedal_walker_make},
    {NULL, NULL, NULL},
};

void ne__box2d_spec_init(ne_env_spec* spec, const char* id, const ne_env_family* family, const ne_env_hooks* hooks,
                         int obs_dim, int max_episode_steps, double reward_threshold) {
  snprintf(spec->id, sizeof spec->id, "%s", id);
  spec->obs_dim = obs_dim;
  spec->obs_rank = 1;
  spec->obs_shape[0] = obs_dim;
  spec->state_dim = 0;
  spec->max_episode_steps = max_episode_steps;
  spec->has_threshold = 1;
  spec->reward_threshold = reward_threshold;
  spec->family = family;
  spec->hooks = hooks;
}

int ne__box2d_no_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  (void)impl;
  (void)v;
  (void)n;
  return ne__set_error(errstr, NE_EUNSUPPORTED,
                       "%s: a Box2D world (bodies, joints, contacts, terrain) cannot be set from a flat state "
                       "vector; start from a reset seed instead (neuroevo trace --seed S)",
                       spec->id);
}

void ne__box2d_no_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  (void)impl;
  (void)v;
}
