// SPDX-License-Identifier: MIT
// The family-independent half of env.h: make (registry lookup and the TimeLimit override), state
// lifetime, and reset/step/set_state with Gymnasium's TimeLimit applied once here. Families only
// implement dynamics and `terminated`. No allocation after ne_env_state_create: step, reset and
// set_state write into the state's own buffers.
#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>  // lanes_acting's 8 discrete actions in two vectors
#endif

#include "core/util.h"      // ne__set_error, ne__nearest
#include "envs/envs_int.h"  // ne__env_lookup
#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"

// appends the registered ids to buf (size bytes) as "A, B, C", ending in ", ..." if they do not fit
static void append_valid_ids(char* buf, size_t size) {
  size_t len = strlen(buf);
  int n = ne_env_registry_count();
  for (int i = 0; i < n; i++) {
    const char* id = ne_env_registry_id(i);
    const char* sep = i ? ", " : "";
    // keep room for ", ..." in case a later id does not fit
    if (len + strlen(sep) + strlen(id) + 6 >= size) {
      snprintf(buf + len, size - len, ", ...");
      return;
    }
    len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, id);
  }
}

// the nearest registered id to a misspelt one, or NULL (*oom set when it could not be looked for)
static const char* nearest_id(const char* id, int* oom) {
  int n = ne_env_registry_count();
  const char** ids = ne_malloc((size_t)n * sizeof *ids);
  *oom = !ids;
  if (!ids) return NULL;  // the suggestion is a courtesy; the list of ids still follows
  for (int i = 0; i < n; i++) ids[i] = ne_env_registry_id(i);
  const char* best = ne__nearest(id, ids, n);
  ne_free(ids);
  return best;
}

#define GYM_PROBE_S 20.0  // how long the Gymnasium look-up of an unknown id may take

static int unknown_id_error(const char* id, char* errstr) {
  if (!errstr) return NE_ENOTFOUND;
  char msg[NE_ERRSTR_LEN], gym_id[256];
  int oom;
  const char* best = nearest_id(id, &oom);
  // not a typo of ours: an id Gymnasium knows (Taxi-v3) runs through the gym: bridge
  if (best) snprintf(msg, sizeof msg, "unknown environment id '%s' (did you mean '%s'?); valid ids: ", id, best);
  else if (!oom && strncmp(id, "gym:", 4) != 0 && ne__gym_lookup(id, GYM_PROBE_S, gym_id, sizeof gym_id))
    return ne__set_error(errstr, NE_ENOTFOUND,
                         "unknown environment id '%s': Gymnasium has %s%s, so env.id = gym:%s runs it through the "
                         "Gymnasium bridge (`neuroevo envs` lists the native ids)",
                         id, strcmp(gym_id, id) == 0 ? "it" : gym_id,
                         strcmp(gym_id, id) == 0 ? "" : " (another version)", gym_id);
  else snprintf(msg, sizeof msg, "unknown environment id '%s'; valid ids: ", id);
  append_valid_ids(msg, sizeof msg);
  return ne__set_error(errstr, NE_ENOTFOUND, "%s", msg);
}

// looks id up, lets its family fill a zeroed spec, then applies the options every family shares
int ne_env_make(const char* id, const ne_env_options* options, ne_env_spec** out, char* errstr) {
  assert(out);
  *out = NULL;
  if (!id) return ne__set_error(errstr, NE_EINVAL, "environment id is NULL");
  // an unknown id is the common typo case: say what was meant and what exists
  const ne_env_entry* entry = ne__env_lookup(id);
  if (!entry) return unknown_id_error(id, errstr);
  if (options && options->max_episode_steps < 0)
    return ne__set_error(errstr, NE_EINVAL, "%s: max_episode_steps must be >= 0 (0 keeps the registered limit), got %d",
                         id, options->max_episode_steps);

  // the family fills the spec; on failure it has freed its own data, and destroy frees the rest
  ne_env_spec* spec = ne_calloc(1, sizeof *spec);
  if (!spec) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", id);
  int rc = entry->make(id, options, spec, errstr);
  if (rc) {
    ne_env_spec_destroy(spec);
    return rc;
  }
  snprintf(spec->id, sizeof spec->id, "%s", id);
  // the TimeLimit override replaces the registered max_episode_steps, as gymnasium.make's does
  if (options && options->max_episode_steps > 0) spec->max_episode_steps = options->max_episode_steps;
  // the behaviour characterization: the family's own, else the final observation (if it fits)
  assert(!spec->bc_native || (spec->hooks && spec->hooks->behaviour && spec->bc_dim > 0));
  if (!spec->bc_native) spec->bc_dim = !spec->evaluate && spec->obs_dim <= NE_ENV_MAX_BC ? spec->obs_dim : 0;
  *out = spec;
  return 0;
}

void ne_env_spec_destroy(ne_env_spec* spec) {
  if (!spec) return;
  if (spec->family && spec->family->destroy) spec->family->destroy(spec);
  ne_free(spec);
}

// all of a state's memory is allocated here, once: reset, step and set_state never allocate
ne_env_state* ne_env_state_create(const ne_env_spec* spec) {
  assert(spec && spec->family);
  ne_env_state* state = ne_calloc(1, sizeof *state);
  if (!state) return NULL;
  state->spec = spec;
  state->needs_reset = 1;  // stepping before the first reset or set_state is NE_ESTATE
  state->obs = ne_calloc((size_t)spec->obs_dim, sizeof *state->obs);
  state->impl = ne_calloc(1, spec->family->state_bytes);
  if (!state->obs || !state->impl) {
    ne_env_state_destroy(state);
    return NULL;
  }
  // a family whose state owns more than impl (MuJoCo's mjData, a Box2D world) sets it up here
  if (spec->hooks && spec->hooks->state_init && spec->hooks->state_init(spec, state->impl)) {
    ne_free(state->impl);  // state_init left nothing to release
    state->impl = NULL;
    ne_env_state_destroy(state);
    return NULL;
  }
  return state;
}

void ne_env_state_destroy(ne_env_state* state) {
  if (!state) return;
  // what spec->hooks->state_init acquired, before impl itself goes
  const ne_env_hooks* hooks = state->spec ? state->spec->hooks : NULL;
  if (state->impl && hooks && hooks->state_free) hooks->state_free(state->spec, state->impl);
  ne_free(state->obs);
  ne_free(state->impl);
  ne_free(state);
}

// 1 if any of the n floats is NaN or inf (exponent bits all ones). Long observations (MinAtar,
// pixels) take a branch-free OR over the bits that vectorizes. Short ones (classic control,
// MuJoCo) are read one float at a time with an early exit, which gcc does not vectorize: the
// family has just written them with scalar stores, and a 16-byte load over four of those cannot
// be forwarded from the store buffer (it waits for the stores to retire, ~10% of a CartPole step).
static int any_nonfinite(const float* v, int n) {
  if (n <= 64) {
    for (int i = 0; i < n; i++) {
      uint32_t bits;
      memcpy(&bits, &v[i], sizeof bits);
      if ((bits & 0x7f800000u) == 0x7f800000u) return 1;
    }
    return 0;
  }
  uint32_t bad = 0;
  for (int i = 0; i < n; i++) {
    uint32_t bits;
    memcpy(&bits, &v[i], sizeof bits);
    bad |= (uint32_t)((bits & 0x7f800000u) == 0x7f800000u);
  }
  return bad != 0;
}

// writes the observation and counts it if it holds NaN or inf
static void observe(const ne_env_spec* spec, ne_env_state* state) {
  spec->family->observe(spec, state->impl, state->obs);
  if (!spec->obs_always_finite && any_nonfinite(state->obs, spec->obs_dim)) state->n_nan_obs++;
}

// the family's reset from the seeded stream, then the first observation; errstr gets a failure's
// message. Nullable: errstr
static int reset_from(const ne_env_spec* spec, ne_env_state* state, uint64_t seed, char* errstr) {
  ne_rng_seed(&state->rng, seed);
  spec->family->reset(spec, state->impl, &state->rng);
  // gym: bridge (a failure outside the process: env server) and Box2D's replayed draws report here
  int failed = spec->status ? spec->status(spec, state->impl, errstr) : 0;
  if (failed) {
    state->needs_reset = 1;
    return failed;
  }
  observe(spec, state);
  state->t = 0;
  state->needs_reset = 0;
  return 0;
}

// the env's own stream restarts from seed, so an episode is a pure function of (policy, seed)
int ne_env_reset(const ne_env_spec* spec, ne_env_state* state, uint64_t seed) {
  if (!spec || !state || state->spec != spec) return NE_EINVAL;
  // task families: the episode's task first (env_task.c), then the start state
  if (spec->task_dim > 0) ne__env_begin_task(spec, state, seed);
  return reset_from(spec, state, seed, NULL);
}

// the family takes its random values from draws for this episode instead of the stream (seeded 0,
// unused while the replay lasts)
int ne_env_reset_draws(const ne_env_spec* spec, ne_env_state* state, ne_env_draws* draws, char* errstr) {
  if (!spec || !state || state->spec != spec) return ne__set_error(errstr, NE_EINVAL, "state/spec mismatch");
  if (!draws || draws->n < 0 || (!draws->v && draws->n > 0))
    return ne__set_error(errstr, NE_EINVAL, "%s: no draws to replay", spec->id);
  if (!spec->hooks || !spec->hooks->replay_draws)
    return ne__set_error(errstr, NE_EUNSUPPORTED,
                         "%s: only the Box2D envs replay Gymnasium's random draws; start from a seed instead",
                         spec->id);
  draws->used = 0;
  spec->hooks->replay_draws(spec, state->impl, draws);
  return reset_from(spec, state, 0, errstr);
}

// like assigning env.unwrapped.state after a reset: a new episode at t = 0 from the given state; the
// family checks the length and names its layout. A failed call leaves the state as it was
int ne_env_set_state(const ne_env_spec* spec, ne_env_state* state, const double* v, int n, char* errstr) {
  if (!spec || !state || state->spec != spec) return ne__set_error(errstr, NE_EINVAL, "state/spec mismatch");
  if (!v && n > 0) return ne__set_error(errstr, NE_EINVAL, "%s: state vector is NULL", spec->id);
  int rc = spec->family->set_state(spec, state->impl, v, n, errstr);
  if (rc) return rc;
  observe(spec, state);
  state->t = 0;
  state->needs_reset = 0;
  return 0;
}

void ne_env_get_state(const ne_env_spec* spec, const ne_env_state* state, double* v) {
  assert(spec && state && v);
  spec->family->get_state(spec, state->impl, v);
}

// Discrete(n): an integer value in [0, n). Checked on every step, so no libm floor call: inside
// [0, n) the int conversion is defined and exact for integers. NaN fails the range test.
static inline int discrete_action_ok(const ne_env_spec* spec, float a) {
  return a >= 0 && a < (float)spec->n_actions && (float)(int)a == a;
}

_Static_assert(offsetof(ne_step_out, truncated) == offsetof(ne_step_out, terminated) + sizeof(int),
               "ne_env_step stores both flags at once");

// what makes a step impossible: bad arguments, an ended episode, an action outside the space
static int step_check(const ne_env_spec* spec, const ne_env_state* state, const float* act, const ne_step_out* out) {
  if (!spec || !state || !act || !out || state->spec != spec) return NE_EINVAL;
  if (state->needs_reset) return NE_ESTATE;
  // Gymnasium asserts a discrete action is in its space; continuous ones are clipped by the family
  if (spec->discrete && !discrete_action_ok(spec, act[0])) return NE_ERANGE;
  return 0;
}

// A step's outcome: its reward, terminated, and Gymnasium's TimeLimit after t steps of the episode
// (truncated only when the episode did not also terminate). Returns 1 when the episode ended.
static int step_outcome(const ne_env_spec* spec, double reward, int terminated, uint64_t t, ne_step_out* out) {
  int ended[2];
  ended[0] = terminated != 0;
  ended[1] = !ended[0] && spec->max_episode_steps > 0 && t >= (uint64_t)spec->max_episode_steps;
  out->reward = reward;
  // both flags in one 8-byte store: gcc merges a caller's `so.terminated || so.truncated` into one
  // 8-byte load, which two 4-byte stores could not forward (a stall of every step)
  memcpy((char*)out + offsetof(ne_step_out, terminated), ended, sizeof ended);
  return ended[0] | ended[1];
}

// after the family's dynamics: the observation, the counters and the outcome
static void step_finish(const ne_env_spec* spec, ne_env_state* state, double reward, int terminated, ne_step_out* out) {
  observe(spec, state);
  state->t++;
  state->n_steps_total++;
  if (step_outcome(spec, reward, terminated, (uint64_t)state->t, out)) state->needs_reset = 1;
}

// one step of the family's dynamics, then Gymnasium's TimeLimit; an ended episode needs a reset
int ne_env_step(const ne_env_spec* spec, ne_env_state* state, const float* act, ne_step_out* out) {
  int rc = step_check(spec, state, act, out);
  if (rc) return rc;
  double reward = 0.0;
  int terminated = 0;
  spec->family->step(spec, state->impl, act, &reward, &terminated);
  // gym: bridge: a failure outside the process (env server) ends the episode with its code
  int failed = spec->status ? spec->status(spec, state->impl, NULL) : 0;
  if (failed) {
    state->needs_reset = 1;
    return failed;
  }
  step_finish(spec, state, reward, terminated, out);
  return 0;
}

// Families with a step_many hook step up to 8 instances in one call (the width of their lanes).
#define STEP_MANY_CHUNK 8

void ne_env_step_many(const ne_env_spec* spec, ne_env_state* const* states, const float* const* acts, int n,
                      ne_step_out* outs, int* rcs) {
  void (*many)(const ne_env_spec*, void* const*, const float* const*, int, double*, int*) =
      spec && spec->hooks && !spec->status ? spec->hooks->step_many : NULL;
  if (!many) {
    for (int i = 0; i < n; i++) rcs[i] = ne_env_step(spec, states[i], acts[i], &outs[i]);
    return;
  }
  for (int first = 0; first < n; first += STEP_MANY_CHUNK) {
    int end = n - first < STEP_MANY_CHUNK ? n : first + STEP_MANY_CHUNK, m = 0;
    void* impls[STEP_MANY_CHUNK];
    const float* lane_acts[STEP_MANY_CHUNK];
    int lane_of[STEP_MANY_CHUNK], terminated[STEP_MANY_CHUNK];
    double rewards[STEP_MANY_CHUNK];
    for (int i = first; i < end; i++) {
      if ((rcs[i] = step_check(spec, states[i], acts[i], &outs[i])) != 0) continue;
      impls[m] = states[i]->impl;
      lane_acts[m] = acts[i];
      lane_of[m++] = i;
    }
    if (m == 0) continue;
    many(spec, impls, lane_acts, m, rewards, terminated);
    for (int k = 0; k < m; k++) step_finish(spec, states[lane_of[k]], rewards[k], terminated[k], &outs[lane_of[k]]);
  }
}

// ---- episodes in lanes ------------------------------------------------------------------------

int ne_env_lanes_ok(const ne_env_spec* spec) { return spec && spec->hooks && spec->hooks->lanes_step && !spec->status; }

size_t ne_env_lanes_bytes(const ne_env_spec* spec) { return ne_env_lanes_ok(spec) ? spec->hooks->lanes_bytes : 0; }

void ne_env_lanes_enter(const ne_env_spec* spec, void* lanes, int k, const ne_env_state* state, float* obs) {
  assert(ne_env_lanes_ok(spec) && k >= 0 && k < NE_ENV_LANES && !state->needs_reset);
  spec->hooks->lanes_load(spec, lanes, k, state->impl);
  for (int i = 0; i < spec->obs_dim; i++) obs[(size_t)i * NE_ENV_LANES + (size_t)k] = state->obs[i];
}

// The lanes of mask whose actions are in the space (ne_env_step's check; continuous actions are the
// family's to clip)
static unsigned lanes_acting(const ne_env_spec* spec, unsigned mask, const float* acts) {
  if (!spec->discrete) return mask;
#if defined(__SSE2__) && NE_ENV_LANES == 8
  if (spec->act_dim == 1) {  // 8 contiguous actions: discrete_action_ok in two vectors of 4
    const __m128 zero = _mm_setzero_ps(), n = _mm_set1_ps((float)spec->n_actions);
    unsigned ok = 0;
    for (int h = 0; h < 2; h++) {
      __m128 a = _mm_loadu_ps(acts + 4 * h);
      __m128 in_range = _mm_and_ps(_mm_cmpge_ps(a, zero), _mm_cmplt_ps(a, n));
      // (float)(int)a == a, converting in-range values only (the others as 0)
      __m128 whole = _mm_cvtepi32_ps(_mm_cvttps_epi32(_mm_and_ps(a, in_range)));
      ok |= (unsigned)_mm_movemask_ps(_mm_and_ps(in_range, _mm_cmpeq_ps(whole, a))) << (4 * h);
    }
    return ok & mask;
  }
#endif
  unsigned run = 0;
  for (int k = 0; k < NE_ENV_LANES; k++)
    if ((mask >> k) & 1u) run |= (unsigned)discrete_action_ok(spec, acts[(size_t)k * (size_t)spec->act_dim]) << k;
  return run;
}

void ne_env_lanes_step(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, const uint64_t* t,
                       float* obs, ne_step_out* outs, int* rcs) {
  double rewards[NE_ENV_LANES];
  int terminated[NE_ENV_LANES];
  unsigned run = lanes_acting(spec, mask, acts);
  for (int k = 0; k < NE_ENV_LANES; k++)
    if ((mask >> k) & 1u) rcs[k] = (run >> k) & 1u ? 0 : NE_ERANGE;
  if (run) spec->hooks->lanes_step(spec, lanes, run, acts, obs, rewards, terminated);
  for (int k = 0; k < NE_ENV_LANES; k++)
    if ((run >> k) & 1u) step_outcome(spec, rewards[k], terminated[k], t[k] + 1, &outs[k]);
}

unsigned ne_env_lanes_advance(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, uint64_t* t,
                              double* returns, float* obs, unsigned* invalid) {
  double rewards[NE_ENV_LANES] = {0};
  int terminated[NE_ENV_LANES] = {0};
  unsigned run = lanes_acting(spec, mask, acts);
  *invalid = mask & ~run;
  if (!run) return 0;
  spec->hooks->lanes_step(spec, lanes, run, acts, obs, rewards, terminated);
  // every lane at once (vectorized), the others keeping their values; then the TimeLimit
  uint64_t limit = spec->max_episode_steps > 0 ? (uint64_t)spec->max_episode_steps : UINT64_MAX;
  unsigned ended = 0;
  for (int k = 0; k < NE_ENV_LANES; k++) {
    int on = (run >> k) & 1u;
    returns[k] = on ? returns[k] + rewards[k] : returns[k];
    t[k] = on ? t[k] + 1 : t[k];
    ended |= (unsigned)(on & ((terminated[k] != 0) | (t[k] >= limit))) << k;
  }
  return ended;
}

void ne_env_lanes_park(const ne_env_spec* spec, const void* lanes, int k, const float* obs, uint64_t t,
                       ne_env_state* state) {
  spec->hooks->lanes_store(spec, lanes, k, state->impl);
  for (int i = 0; i < spec->obs_dim; i++) state->obs[i] = obs[(size_t)i * NE_ENV_LANES + (size_t)k];
  state->t = (int)t;
  state->n_steps_total += t;
}

void ne_env_lanes_leave(const ne_env_spec* spec, const void* lanes, int k, const float* obs, uint64_t t,
                        ne_env_state* state) {
  ne_env_lanes_park(spec, lanes, k, obs, t, state);
  state->needs_reset = 1;
}

// "Discrete(3)", "Box(-2, 2, (1,))", or "Box((6,))" when the bounds differ per component, into buf
static void format_space(const ne_env_spec* spec, char* buf, size_t size) {
  if (spec->discrete) {
    snprintf(buf, size, "Discrete(%d)", spec->n_actions);
    return;
  }
  int uniform = 1;
  for (int i = 1; i < spec->act_dim; i++)
    uniform &= spec->act_low[i] == spec->act_low[0] && spec->act_high[i] == spec->act_high[0];
  if (uniform) snprintf(buf, size, "Box(%.9g, %.9g, (%d,))", spec->act_low[0], spec->act_high[0], spec->act_dim);
  else snprintf(buf, size, "Box((%d,))", spec->act_dim);
}

// Gymnasium's action_space.contains, plus finiteness; the message names the value and the space
int ne_env_check_action(const ne_env_spec* spec, const float* act, char* errstr) {
  assert(spec && act);
  char space[96];
  if (spec->discrete) {
    double a = act[0];
    if (discrete_action_ok(spec, act[0])) return 0;
    format_space(spec, space, sizeof space);
    return ne__set_error(errstr, NE_ERANGE, "%s: action %.9g is outside the action space %s (an integer in [0, %d))",
                         spec->id, a, space, spec->n_actions);
  }
  // each component finite and inside its own bounds
  for (int i = 0; i < spec->act_dim; i++) {
    double a = act[i];
    if (isfinite(a) && a >= spec->act_low[i] && a <= spec->act_high[i]) continue;
    format_space(spec, space, sizeof space);
    return ne__set_error(errstr, NE_ERANGE, "%s: action[%d] = %.9g is outside the action space %s ([%.9g, %.9g])",
                         spec->id, i, a, space, spec->act_low[i], spec->act_high[i]);
  }
  return 0;
}
