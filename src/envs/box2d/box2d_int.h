// SPDX-License-Identifier: MIT
// What the Box2D env files share: their make functions (listed in box2d.c's registry table) and
// the spec filling and contact-tag helpers. Not public API.
#ifndef NEUROEVO_ENVS_BOX2D_INT_H
#define NEUROEVO_ENVS_BOX2D_INT_H

#include "envs/box2d/b2shim.h"
#include "envs/envs_int.h"

// Per-id constructors (envs_int.h's ne_env_entry.make signature).
int ne__lunar_lander_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);
int ne__bipedal_walker_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);

// Fills what both families share: id, a flat float observation of obs_dim, no set_state vector
// (Box2D worlds have no Gymnasium state layout), the TimeLimit and the family/hooks.
void ne__box2d_spec_init(ne_env_spec* spec, const char* id, const ne_env_family* family, const ne_env_hooks* hooks,
                         int obs_dim, int max_episode_steps, double reward_threshold);

// The set_state hook of both: NE_EUNSUPPORTED naming the env. Nullable: errstr.
int ne__box2d_no_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr);
void ne__box2d_no_get_state(const ne_env_spec* spec, const void* impl, double* v);

// np.clip on a float32 scalar.
static inline float ne__b2_clipf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

#endif
