// SPDX-License-Identifier: MIT
// What the Box2D env files share: their make functions (listed in box2d.c's registry table), the
// spec filling and the random draws (own stream or Gymnasium's, replayed). Not public API.
#ifndef NEUROEVO_ENVS_BOX2D_INT_H
#define NEUROEVO_ENVS_BOX2D_INT_H

#include "envs/box2d/b2shim.h"
#include "envs/envs_int.h"
#include "neuroevo/error.h"  // NE_ERRSTR_LEN

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

// Where an episode's random values come from: the env's own stream, or the values Gymnasium's
// np_random returned, replayed (ne_env_reset_draws). The first member of both envs' state, so that
// the family's status hook (ne__box2d_status) finds it in any Box2D impl. Each draw function is
// the np_random call Gymnasium makes at that point; `what` names it in a replay's error messages.
typedef struct ne__b2_draws {
  ne_rng own;               // the env's stream: a copy of the reset's, continued by the steps
  ne_env_draws* replay;     // this episode's replayed values, or NULL
  ne_env_draws* pending;    // set by the replay_draws hook; taken by the next reset
  const char* env_id;       // for messages
  int failed;               // NE_EINVAL once a replayed value ran out or was out of its range
  char err[NE_ERRSTR_LEN];  // the message of that failure
} ne__b2_draws;

// At the start of a reset: the stream continues from rng, or the pending replay starts.
void ne__b2_draws_begin(ne__b2_draws* d, const ne_env_spec* spec, const ne_rng* rng);
// np_random.uniform(lo, hi): a double in [lo, hi).
double ne__b2_uniform(ne__b2_draws* d, double lo, double hi, const char* what);
// np_random.integers(lo, hi): an integer in [lo, hi).
int ne__b2_integers(ne__b2_draws* d, int lo, int hi, const char* what);
// np_random.random(): a double in [0, 1).
double ne__b2_random(ne__b2_draws* d, const char* what);

// The family's hooks for replays: ne_env_hooks.replay_draws and ne_env_spec.status (a failed
// replay, NE_EINVAL with its message). impl starts with an ne__b2_draws.
void ne__box2d_replay_draws(const ne_env_spec* spec, void* impl, ne_env_draws* draws);
int ne__box2d_status(const ne_env_spec* spec, const void* impl, char* errstr);

// np.clip on a float32 scalar.
static inline float ne__b2_clipf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

#endif
