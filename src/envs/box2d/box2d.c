// SPDX-License-Identifier: MIT
// The Box2D family table (Gymnasium 1.4.0 box2d: LunarLander-v3, LunarLanderContinuous-v3,
// BipedalWalker-v3, BipedalWalkerHardcore-v3), the spec helpers its two files share and their
// random draws. Built when scripts/build-box2d's library is there (cmake/physics.cmake). Physics:
// Box2D 2.3 built from pybox2d's sources, the engine of Gymnasium's pybox2d 2.3.10 wheel, through
// the C shim b2shim.h: from the same random draws and actions an episode is Gymnasium's, bit for bit
// (tests/py_box2d_compare.py replays Gymnasium's draws through `neuroevo trace --draws`).
#include <math.h>
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
  spec->status = ne__box2d_status;
}

void ne__b2_draws_begin(ne__b2_draws* d, const ne_env_spec* spec, const ne_rng* rng) {
  d->own = *rng;
  d->replay = d->pending;
  d->pending = NULL;
  d->env_id = spec->id;
  d->failed = 0;
  d->err[0] = '\0';
}

// the next replayed value for a draw named `what` over [lo, hi) (hi itself too: lo + (hi - lo) * u
// can round up to it), or NAN after recording why it is missing or out of range
static double replayed(ne__b2_draws* d, double lo, double hi, int integer, const char* what) {
  ne_env_draws* r = d->replay;
  if (d->failed) return NAN;
  if (r->used >= r->n) {
    d->failed = NE_EINVAL;
    snprintf(d->err, sizeof d->err,
             "%s: the replayed draws ran out: value %d (%s) was needed and %d were given; the env's "
             "file (src/envs/box2d) lists Gymnasium's draws",
             d->env_id, r->used + 1, what, r->n);
    return NAN;
  }
  double v = r->v[r->used++];
  if (!(v >= lo && v <= hi) || (integer && (v != floor(v) || v == hi))) {
    d->failed = NE_EINVAL;
    snprintf(d->err, sizeof d->err, "%s: replayed value %d = %.17g is not what %s draws (%s in [%.17g, %.17g))",
             d->env_id, r->used, v, what, integer ? "an integer" : "a number", lo, hi);
    return NAN;
  }
  return v;
}

double ne__b2_uniform(ne__b2_draws* d, double lo, double hi, const char* what) {
  if (!d->replay) return ne_rng_range(&d->own, lo, hi);
  double v = replayed(d, lo, hi, 0, what);
  return d->failed ? lo : v;
}

int ne__b2_integers(ne__b2_draws* d, int lo, int hi, const char* what) {
  if (!d->replay) return lo + (int)ne_rng_below(&d->own, (uint64_t)(hi - lo));
  double v = replayed(d, lo, hi, 1, what);
  return d->failed ? lo : (int)v;
}

double ne__b2_random(ne__b2_draws* d, const char* what) {
  if (!d->replay) return ne_rng_uniform(&d->own);
  double v = replayed(d, 0.0, 1.0, 0, what);
  return d->failed ? 0.0 : v;
}

void ne__box2d_replay_draws(const ne_env_spec* spec, void* impl, ne_env_draws* draws) {
  (void)spec;
  ((ne__b2_draws*)impl)->pending = draws;
}

int ne__box2d_status(const ne_env_spec* spec, const void* impl, char* errstr) {
  (void)spec;
  const ne__b2_draws* d = impl;
  if (d->failed && errstr) snprintf(errstr, NE_ERRSTR_LEN, "%s", d->err);
  return d->failed;
}

int ne__box2d_no_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  (void)impl;
  (void)v;
  (void)n;
  return ne__set_error(errstr, NE_EUNSUPPORTED,
                       "%s: a Box2D world (bodies, joints, contacts, terrain) cannot be set from a flat state "
                       "vector; start from a reset seed instead (neuroevo trace --seed S), or from Gymnasium's "
                       "random draws (neuroevo trace --draws)",
                       spec->id);
}

void ne__box2d_no_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  (void)impl;
  (void)v;
}
