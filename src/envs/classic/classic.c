// SPDX-License-Identifier: MIT
// The classic-control family table (Gymnasium 1.4.0 classic_control: CartPole-v1, Acrobot-v1,
// MountainCar-v0, MountainCarContinuous-v0, Pendulum-v1) and the spec-filling helpers its five
// files share. The dynamics live one env per file beside this one.
#include <stdio.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/classic/classic_int.h"

// The registry reads this table (src/envs/registry.c); summaries carry the observation bounds,
// which the spec itself does not store.
const ne_env_entry ne__classic_envs[] = {
    {"CartPole-v1", "balance a pole on a cart; obs x in [-4.8, 4.8], theta in [-0.419, 0.419], velocities unbounded",
     ne__cartpole_make},
    {"Acrobot-v1",
     "swing a two-link chain up; obs cos/sin of both joints in [-1, 1], velocities in [-4pi, 4pi], [-9pi, 9pi]",
     ne__acrobot_make},
    {"MountainCar-v0", "drive an underpowered car up a hill; obs position in [-1.2, 0.6], velocity in [-0.07, 0.07]",
     ne__mountain_car_make},
    {"MountainCarContinuous-v0",
     "mountain car with a continuous force; obs position in [-1.2, 0.6], velocity in [-0.07, 0.07]",
     ne__mountain_car_continuous_make},
    {"Pendulum-v1", "swing a pendulum up and hold it; obs cos, sin in [-1, 1], theta_dot in [-8, 8]",
     ne__pendulum_make},
    {NULL, NULL, NULL},
};

void ne__classic_spec_init(ne_env_spec* spec, const char* id, const ne_env_family* family, int obs_dim, int state_dim,
                           int max_episode_steps) {
  snprintf(spec->id, sizeof spec->id, "%s", id);
  spec->obs_dim = obs_dim;
  spec->obs_rank = 1;
  spec->obs_shape[0] = obs_dim;
  spec->state_dim = state_dim;
  spec->max_episode_steps = max_episode_steps;
  spec->family = family;
  spec->hooks = &ne__classic_hooks;
}

void ne__classic_discrete(ne_env_spec* spec, int n) {
  spec->discrete = 1;
  spec->n_actions = n;
  spec->act_dim = 1;
}

void ne__classic_box1(ne_env_spec* spec, float low, float high) {
  spec->discrete = 0;
  spec->act_dim = 1;
  spec->act_low[0] = low;
  spec->act_high[0] = high;
}

int ne__classic_check_len(const ne_env_spec* spec, int n, const char* layout, char* errstr) {
  if (n == spec->state_dim) return 0;
  return ne__set_error(errstr, NE_EINVAL, "%s: state needs %d values (%s), got %d", spec->id, spec->state_dim, layout,
                       n);
}
