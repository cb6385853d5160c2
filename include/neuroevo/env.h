// SPDX-License-Identifier: MIT
// Environments with Gymnasium's semantics. An immutable spec (shared read-only by all threads) and a
// mutable state (one per worker thread), like mjModel/mjData. The TimeLimit wrapper lives here, once:
// families implement dynamics and `terminated`; ne_env_step counts steps and sets `truncated`.
// Every reset is seeded explicitly, so a rollout is a pure function of (policy, seed).
#ifndef NEUROEVO_ENV_H
#define NEUROEVO_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/config.h"
#include "neuroevo/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NE_ENV_ID_LEN 64
#define NE_ENV_MAX_ACT 32            // largest continuous action dimension
#define NE_ENV_MAX_STATE 512         // largest trace/set_state vector
#define NE_ENV_MAX_RENDER_SIDE 4096  // largest frame side ne_env_render draws
#define NE_ENV_MAX_BC 4096           // largest behaviour characterization (floats) ne_env_behaviour writes
#define NE_ENV_MAX_BC_SELECT 64      // most observation components env.behaviour = obs:I,J,... may name
#define NE_ENV_MAX_TASK 4            // longest task vector of a task family (meta-learning)

typedef struct ne_env_spec ne_env_spec;

// Random values another implementation drew, replayed in place of an env's own stream (see
// ne_env_reset_draws).
typedef struct ne_env_draws {
  const double* v;  // (n) the values in the order they were drawn; borrowed
  int n;            // how many
  int used;         // how many the env has consumed so far (the env advances it)
} ne_env_draws;

// What one step returns besides the observation (which is in state->obs).
typedef struct ne_step_out {
  double reward;   // reward of this step (the final step's reward included)
  int terminated;  // the MDP reached a terminal state
  int truncated;   // the TimeLimit ran out (and not terminated)
} ne_step_out;

// Options that some families read; zero means "the env's default".
typedef struct ne_env_options {
  int max_episode_steps;  // TimeLimit override (0: the registered default)
  int dim;                // dimension of black-box functions
  uint64_t shift_seed;    // black-box random shift/rotation seed (0: none)
} ne_env_options;

// A family's implementation; one static table per family (classic, box2d, mujoco, ...).
typedef struct ne_env_family {
  const char* name;    // e.g. "classic"
  size_t state_bytes;  // size of the family's per-instance state (impl)
  // draws the start state from rng (Gymnasium's reset ranges)
  void (*reset)(const ne_env_spec* spec, void* impl, ne_rng* rng);
  // advances one step; act is validated/clipped as Gymnasium does
  void (*step)(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated);
  // writes the observation (spec->obs_dim floats)
  void (*observe)(const ne_env_spec* spec, const void* impl, float* obs);
  // sets Gymnasium's `env.unwrapped.state` layout (spec->state_dim values); NE_EINVAL on bad length
  int (*set_state)(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr);
  // reads that layout back (spec->state_dim values)
  void (*get_state)(const ne_env_spec* spec, const void* impl, double* v);
  // frees spec->data. Nullable (no family data)
  void (*destroy)(ne_env_spec* spec);
} ne_env_family;

// Optional hooks beyond ne_env_family, reached through spec->hooks (NULL for families without
// any). Kept out of ne_env_family so that adding one never changes the families' positional
// table initializers: hook tables name their members (designated initializers). Every member is
// nullable.
typedef struct ne_env_hooks {
  // prepares a freshly zeroed impl (e.g. allocates a physics engine's data); NE_E* on failure
  int (*state_init)(const ne_env_spec* spec, void* impl);
  // releases what state_init acquired (impl itself is freed by env.c)
  void (*state_free)(const ne_env_spec* spec, void* impl);
  // draws the current frame into rgb (height rows of width RGB pixels, top row first). *ctx is
  // the caller's per-renderer slot, NULL at first: the hook may keep a renderer there (an OpenGL
  // context, a scene) for later frames; render_free releases it. NE_E* with errstr on failure
  // (e.g. no OpenGL). Nullable: errstr
  int (*render)(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                char* errstr);
  // releases what render left in *ctx. Nullable: ctx
  void (*render_free)(const ne_env_spec* spec, void* ctx);
  // makes draws the source of the next reset's random values and of its episode's steps (see
  // ne_env_reset_draws), in place of the rng that reset is given; the family reports a replay that
  // runs out or holds a value outside its draw's range through spec->status
  void (*replay_draws)(const ne_env_spec* spec, void* impl, ne_env_draws* draws);
  // pixel families: applies ne_env_set_pixel_options' (already checked) sticky-action probability
  // and difficulty-ramp switch to a spec still being set up
  void (*set_pixel_options)(ne_env_spec* spec, double sticky_prob, int ramping);
  // a hand-written policy (MinAtar's, for reference comparisons): the action for observation obs as
  // an index into the spec's action set
  int (*scripted_action)(const ne_env_spec* spec, const float* obs);
  // steps n <= 8 instances of the spec at once (impls[i] with action acts[i], already checked
  // against the action space), exactly as n calls of the family's step would: rewards[i] and
  // terminated[i] of each, the same bits (ne_env_step_many)
  void (*step_many)(const ne_env_spec* spec, void* const* impls, const float* const* acts, int n, double* rewards,
                    int* terminated);
  // the family's own behaviour characterization of the current state (spec->bc_dim floats; used
  // when spec->bc_native): the final x-y position of a robot, Atari's RAM
  void (*behaviour)(const ne_env_spec* spec, const void* impl, float* out);
  // draws n behaviour characterizations (dim floats each, e.g. a novelty archive's final
  // positions) over a frame render drew into rgb; NE_E* with errstr when they cannot be drawn
  int (*draw_behaviours)(const ne_env_spec* spec, const float* points, int n, int dim, unsigned char* rgb, int width,
                         int height, char* errstr);
  // task families (spec->task_dim > 0): draws one task (task_dim values) from the family's
  // distribution using rng
  void (*sample_task)(const ne_env_spec* spec, ne_rng* rng, double* task);
  // task families: the episodes of impl that follow pursue task (task_dim values); called by
  // ne_env_reset before the family's reset
  void (*set_task)(const ne_env_spec* spec, void* impl, const double* task);
  // Lanes (lanes_bytes and the three functions, or none; families without spec->status):
  // NE_ENV_LANES instances held as one structure of arrays of lanes_bytes bytes that the caller
  // owns, where a lockstep of episodes keeps them between steps instead of gathering and
  // scattering every step. lanes_load copies instance impl into lane k, lanes_store lane k back
  // into impl. lanes_step steps the lanes whose bit is set in mask exactly as the family's step
  // would (the same bits), lane k with the action at acts + k * act_dim (any float in the other
  // lanes), writing their rewards[k], terminated[k] and observations (component i of lane k at
  // obs[i * NE_ENV_LANES + k]); the other lanes keep their state and observation.
  size_t lanes_bytes;
  void (*lanes_load)(const ne_env_spec* spec, void* lanes, int k, const void* impl);
  void (*lanes_store)(const ne_env_spec* spec, const void* lanes, int k, void* impl);
  void (*lanes_step)(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                     double* rewards, int* terminated);
} ne_env_hooks;

#define NE_ENV_LANES 8  // instances in a family's lanes (ne_env_hooks.lanes_step)

// Immutable description of an environment instance type.
struct ne_env_spec {
  char id[NE_ENV_ID_LEN];          // registry id, e.g. "CartPole-v1"
  int obs_dim;                     // flat observation length
  int obs_rank;                    // 1 for vectors, 3 for (H, W, C) images
  int obs_shape[3];                // (obs_rank) observation shape
  int discrete;                    // 1: Discrete(n_actions); 0: Box(act_dim)
  int n_actions;                   // number of discrete actions (discrete only)
  int act_dim;                     // continuous action dimension (1 for discrete)
  float act_low[NE_ENV_MAX_ACT];   // (act_dim) Box lower bounds
  float act_high[NE_ENV_MAX_ACT];  // (act_dim) Box upper bounds
  int max_episode_steps;           // TimeLimit (0: none)
  int has_threshold;               // 1 if reward_threshold is set
  double reward_threshold;         // Gymnasium's reward_threshold (solved)
  int state_dim;                   // length of the set_state/get_state vector
  // 1 if the family's observe can only write finite values (pixels: bytes / 255): ne_env_step then
  // skips its NaN/inf scan of the observation (28,224 floats a step for Atari); 0 keeps the scan
  int obs_always_finite;
  // Black-box functions (bbob/*) only, NULL for MDPs: f(x) to minimize over n = dim parameters.
  // The parameters are then x itself (a policy spec with act_dim 0 that nothing runs, see
  // ne_policy_from_config), a candidate's fitness is -f(x), and one evaluation counts as one step. (A spec field rather than a hook in
  // ne_env_family / ne_env_hooks: their tables are positional initializers a new member breaks.)
  double (*evaluate)(const ne_env_spec* spec, const float* x, size_t n);
  int dim;                      // black-box dimension (0 for MDPs)
  const ne_env_family* family;  // implementation
  void* data;                   // family-specific immutable data (owned; family->destroy frees)
  double params[8];             // family-specific constants chosen at make time (e.g. goal velocity)
  const ne_env_hooks* hooks;    // optional state lifetime / render hooks (NULL: none)
  // gym: bridge (src/envs/gym): for families whose reset/step can fail outside this process (a
  // crashed env server), and Box2D's replayed draws (ne_env_reset_draws): 0, or the NE_E* code of
  // the last reset/step's failure with its message (naming the env) copied to errstr.
  // ne_env_reset/ne_env_step return that code. NULL: cannot fail.
  // Nullable: errstr
  int (*status)(const ne_env_spec* spec, const void* impl, char* errstr);
  // The behaviour characterization novelty search compares (ne_env_behaviour): bc_dim floats
  // describing where an episode ended. A family with a native one (hooks->behaviour) sets bc_native
  // and bc_dim in make; otherwise ne_env_make sets bc_dim = obs_dim (the final observation).
  // ne_env_set_behaviour applies env.behaviour (obs, or chosen observation components).
  int bc_dim;                           // floats in the characterization (0: none, e.g. bbob/*)
  int bc_native;                        // 1: hooks->behaviour writes it; 0: the final observation
  int bc_n_select;                      // 0: the whole observation; else components bc_select[0..bc_n_select)
  int bc_select[NE_ENV_MAX_BC_SELECT];  // (bc_n_select) observation components, in the order named
  // Task families (meta-learning, e.g. PointNav2D-v0, HalfCheetahDir-v5): the reward or dynamics
  // depend on a task vector. Each reset draws one from the family's distribution with a stream
  // derived from the reset seed (the task mixture), unless the spec fixes it (env.task: the
  // fixed-task variant) or ne_env_set_task fixed it for one state (what the inner loop does).
  int task_dim;                  // length of a task vector (0: not a task family)
  const char* task_desc;         // the distribution and the meaning of the values, for `neuroevo envs`
  const char* task_names;        // the values' names, comma-separated (e.g. "goal_x,goal_y")
  int task_fixed;                // 1: every episode pursues `task` (ne_env_fix_task)
  double task[NE_ENV_MAX_TASK];  // (task_dim) the fixed task when task_fixed
};

// Mutable state of one environment instance; belongs to one thread.
typedef struct ne_env_state {
  const ne_env_spec* spec;  // the spec this state was created for (not owned)
  ne_rng rng;               // the env's own random stream, seeded by ne_env_reset
  int t;                    // steps since reset (TimeLimit counter)
  int needs_reset;          // 1 before the first reset and after terminated/truncated
  float* obs;               // (obs_dim) current observation, owned
  void* impl;               // family state (family->state_bytes), owned
  uint64_t n_nan_obs;       // observations that contained NaN/inf (counted, not fatal)
  uint64_t n_steps_total;   // steps since creation
  // task families: the current episode's task (spec->task_dim values, set by every reset)
  double task[NE_ENV_MAX_TASK];
  int task_set;                      // 1: ne_env_set_task fixed the task of this state's resets
  double task_own[NE_ENV_MAX_TASK];  // (task_dim) that task
} ne_env_state;

// Creates the spec for a registered id. On an unknown id, errstr lists the valid ids and suggests the
// nearest. Caller frees with ne_env_spec_destroy. Nullable: options, errstr.
int ne_env_make(const char* id, const ne_env_options* options, ne_env_spec** out, char* errstr);

// Frees a spec. Nullable: spec.
void ne_env_spec_destroy(ne_env_spec* spec);

// Builds the env spec that cfg's [env] section describes (id, TimeLimit override, black-box
// dimension and shift, the pixel families' options). Caller frees with ne_env_spec_destroy.
// Nullable: errstr.
int ne_env_from_config(const ne_config* cfg, ne_env_spec** out, char* errstr);

// Pixel families (MinAtar/*, ALE/*; src/envs/pixels.c), right after ne_env_make and before any
// state is created: sticky actions (sticky_prob 0 keeps the env's default, MinAtar 0.1 and ALE off;
// < 0 turns them off; otherwise the probability of repeating the previous action, Gymnasium v5
// uses 0.25) and MinAtar's difficulty ramp (ramping 0 turns it off). Other envs ignore both.
// NE_EINVAL for a probability above 1. (Kept out of ne_env_options, whose positional initializers
// a new member would break.) Nullable: errstr.
int ne_env_set_pixel_options(ne_env_spec* spec, double sticky_prob, int ramping, char* errstr);

// Chooses the behaviour characterization, right after ne_env_make and before any state is created
// (env.behaviour): "auto" keeps the env's (its family's native one, else the final observation),
// "obs" is the final observation, "obs:I,J,..." those components of it (at most
// NE_ENV_MAX_BC_SELECT, each in [0, obs_dim)). NE_EINVAL with a message naming the value otherwise.
// Nullable: errstr.
int ne_env_set_behaviour(ne_env_spec* spec, const char* text, char* errstr);

// Writes the behaviour characterization of state (spec->bc_dim floats) to out: called at the end of
// an episode, it describes how the episode ended. NE_EUNSUPPORTED when spec->bc_dim is 0.
int ne_env_behaviour(const ne_env_spec* spec, const ne_env_state* state, float* out);

// 1 if spec's env has a scripted policy (MinAtar/*: a hand-written player per game, mirrored by the
// reference comparison tests/py_minatar_compare.py).
int ne_env_has_scripted_policy(const ne_env_spec* spec);

// The scripted policy's action for state's current observation, as an index into the action set
// (a scripted action outside a minimal set plays noop); NE_EUNSUPPORTED for envs without one.
int ne_env_scripted_action(const ne_env_spec* spec, const ne_env_state* state);

// Creates a state for spec (needs a reset before stepping). Caller frees with ne_env_state_destroy.
// NULL on allocation failure.
ne_env_state* ne_env_state_create(const ne_env_spec* spec);

// Frees a state. Nullable: state.
void ne_env_state_destroy(ne_env_state* state);

// Starts an episode from the seeded start distribution; the observation is in state->obs.
int ne_env_reset(const ne_env_spec* spec, ne_env_state* state, uint64_t seed);

// Starts an episode as Gymnasium's env.reset() starts it from the same random values: draws holds
// what Gymnasium's env.unwrapped.np_random returned (each uniform / integers / random call's
// values, in call order, from the reset on), and the env takes them in place of its own stream for
// the reset and for every step of the episode, until the next reset. Both implementations then
// compute the same episode from the same actions, so traces can be compared step for step
// (`neuroevo trace --draws`). Box2D envs only (their files' top comments list the draws);
// NE_EUNSUPPORTED for the others. *draws is borrowed until the next reset; draws->used counts the
// values taken, so a caller can check that none were left over. A reset or step that needs a value
// past the end, or meets one outside its draw's range, fails with NE_EINVAL: the message is in
// errstr here and through spec->status after a step. Nullable: errstr.
int ne_env_reset_draws(const ne_env_spec* spec, ne_env_state* state, ne_env_draws* draws, char* errstr);

// Sets the internal state (Gymnasium's unwrapped.state layout) and starts the step counter at 0.
// Returns NE_EINVAL with a message naming the expected length. Nullable: errstr.
int ne_env_set_state(const ne_env_spec* spec, ne_env_state* state, const double* v, int n, char* errstr);

// Reads the internal state (spec->state_dim values).
void ne_env_get_state(const ne_env_spec* spec, const ne_env_state* state, double* v);

// Advances one step with the TimeLimit applied. NE_ESTATE if the episode ended and no reset followed.
int ne_env_step(const ne_env_spec* spec, ne_env_state* state, const float* act, ne_step_out* out);

// Steps n states of spec, state i with action acts[i]: exactly what n calls of ne_env_step give
// (rcs[i] the code of each, outs[i] its outcome), in one call of the family's step_many hook for
// up to 8 of them where the family has one (CartPole: its float64 arithmetic in vector lanes,
// several episodes in lockstep).
void ne_env_step_many(const ne_env_spec* spec, ne_env_state* const* states, const float* const* acts, int n,
                      ne_step_out* outs, int* rcs);

// Episodes in lanes: up to NE_ENV_LANES episodes of spec kept in the family's structure of arrays
// (ne_env_hooks' lanes) between steps, for families that have one (the classic-control envs:
// CartPole, Acrobot, Pendulum, MountainCar and MountainCarContinuous). 1 when spec's family has
// lanes (and no status: nothing outside the process can fail its steps).
int ne_env_lanes_ok(const ne_env_spec* spec);

// Bytes of spec's lanes (the caller allocates them zeroed and frees them); 0 without lanes.
size_t ne_env_lanes_bytes(const ne_env_spec* spec);

// Moves the episode state has just begun (ne_env_reset) into lane k of lanes: it continues there.
// Its observation goes to obs as lane k's column (component i at obs[i * NE_ENV_LANES + k]).
void ne_env_lanes_enter(const ne_env_spec* spec, void* lanes, int k, const ne_env_state* state, float* obs);

// One step of the lanes in mask, lane k with action acts + k * act_dim (any float in the other
// lanes) after t[k] steps of its episode: exactly what ne_env_step gives for each (rcs[k] its code,
// outs[k] its outcome with the TimeLimit applied; a discrete action outside the space is NE_ERANGE
// and leaves the lane as it was), their observations as columns of obs.
void ne_env_lanes_step(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, const uint64_t* t,
                       float* obs, ne_step_out* outs, int* rcs);

// ne_env_lanes_step for a caller that keeps each lane's return and step count: the lanes of mask
// with valid actions step, returns[k] gets their reward added and t[k] one more step; returns the
// lanes whose episode ended (terminated, or truncated by the TimeLimit), *invalid those whose
// discrete action was outside the space (not stepped: NE_ERANGE in ne_env_lanes_step).
unsigned ne_env_lanes_advance(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, uint64_t* t,
                              double* returns, float* obs, unsigned* invalid);

// Moves lane k's episode out of the lanes after its t steps there: state gets its state, its
// observation (lane k's column of obs) and its step count, and the episode goes on one step at a
// time (ne_env_step) with the same bits (a lockstep's last few episodes, where a step of every
// lane would cost more than theirs alone).
void ne_env_lanes_park(const ne_env_spec* spec, const void* lanes, int k, const float* obs, uint64_t t,
                       ne_env_state* state);

// Ends lane k's episode: state gets its final state, its observation (lane k's column of obs) and
// its step count t, and needs a reset, as if it had run there (but for n_nan_obs, not counted).
void ne_env_lanes_leave(const ne_env_spec* spec, const void* lanes, int k, const float* obs, uint64_t t,
                        ne_env_state* state);

// Checks an action against the action space (integer in range, or inside the Box); NE_ERANGE with a
// message naming the value otherwise. Nullable: errstr.
int ne_env_check_action(const ne_env_spec* spec, const float* act, char* errstr);

// ---- task families (meta-learning) ----

// Draws a task (spec->task_dim values) of a task family from the stream of `seed`: a pure function
// of (spec, seed). NE_EUNSUPPORTED for other envs.
int ne_env_sample_task(const ne_env_spec* spec, uint64_t seed, double* task);

// Parses "v1,v2,..." (spec->task_dim finite numbers) into task; NE_EINVAL with a message naming the
// env, the expected values and their meaning. Nullable: errstr.
int ne_env_parse_task(const ne_env_spec* spec, const char* text, double* task, char* errstr);

// Writes a task as "name=value, ..." (e.g. "goal_x=0.12, goal_y=-0.3") into buf.
void ne_env_format_task(const ne_env_spec* spec, const double* task, char* buf, size_t size);

// Makes spec the fixed-task variant: every episode of every state pursues task (n = task_dim values);
// call it before states are created. NE_EUNSUPPORTED for envs that are not task families, NE_EINVAL
// for a bad length or a non-finite value. Nullable: errstr.
int ne_env_fix_task(ne_env_spec* spec, const double* task, int n, char* errstr);

// Fixes the task of state's next resets (n = task_dim values), overriding the spec's choice;
// task NULL (n 0) returns to the spec's. The current episode keeps its task until the next reset.
// NE_EUNSUPPORTED / NE_EINVAL as ne_env_fix_task. Nullable: errstr.
int ne_env_set_task(const ne_env_spec* spec, ne_env_state* state, const double* task, int n, char* errstr);

// 1 if ne_env_render can draw spec's environment (its family has a render hook).
int ne_env_can_render(const ne_env_spec* spec);

// Draws the current frame of state into rgb (height rows of width RGB pixels, top row first)
// through the family's render hook (src/envs/env_render.c). *ctx starts NULL and may receive a
// renderer kept for later frames of the same spec (an OpenGL context); free it with
// ne_env_render_free. For humans, never on a training path: it may allocate. NE_EUNSUPPORTED for
// envs without a drawing, other NE_E* codes with errstr on failure. Nullable: errstr.
int ne_env_render(const ne_env_spec* spec, const ne_env_state* state, void** ctx, unsigned char* rgb, int width,
                  int height, char* errstr);

// Releases what ne_env_render kept in ctx. Nullable: ctx.
void ne_env_render_free(const ne_env_spec* spec, void* ctx);

// 1 if ne_env_draw_behaviours can draw spec's behaviour characterizations (the hard maze: final
// positions as dots on the maze).
int ne_env_can_draw_behaviours(const ne_env_spec* spec);

// Draws n behaviour characterizations (points[i * dim + j]) over a frame ne_env_render drew into
// rgb (width x height). NE_EUNSUPPORTED for envs without such a drawing, NE_EINVAL with errstr
// for points of the wrong dimension. Nullable: errstr.
int ne_env_draw_behaviours(const ne_env_spec* spec, const float* points, int n, int dim, unsigned char* rgb, int width,
                           int height, char* errstr);

// Registry: number of registered ids and the i-th id / one-line summary.
int ne_env_registry_count(void);
const char* ne_env_registry_id(int i);
const char* ne_env_registry_summary(int i);

#ifdef __cplusplus
}
#endif
#endif
