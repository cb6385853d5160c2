// SPDX-License-Identifier: MIT
// Episodes in lockstep (lockstep.h). All memory is allocated at create; a step allocates nothing.
// Workloads: several episodes of one parameter vector (elite re-evaluation, a candidate's episodes,
// `neuroevo eval`): a conv forward of 8 frames costs much less than 8 forwards of one (weights read
// once), an MLP's short output layers overlap their addition chains; and the single episodes of
// several small-MLP candidates (ES and GA populations on classic control), whose steps overlap.
// Envs with lanes (the classic-control envs) stay in them for the whole episode: moving each
// step's state, observations and actions between per-slot env states, rows and lanes had cost as
// much as the physics and the forward together.
#include "exec/lockstep.h"

#include <math.h>  // NAN
#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

// Small MLPs of different vectors run in lanes (ne_policy_forward_lanes) up to this many parameters;
// beyond, wide layers keep each row's weights in the widest vectors (ne_policy_forward_rows)
#define LANES_MAX_PARAMS 4096

struct ne_lockstep {
  const ne_env_spec* env;                                // shared, read-only
  const ne_policy_spec* policy;                          // shared, read-only
  ne_env_state* states[NE_LOCKSTEP_WIDTH];               // one env per slot
  float* obs;                                            // (NE_LOCKSTEP_WIDTH, obs_dim) policy inputs of running slots
  float* scratch;                                        // batched forward scratch: NE_LOCKSTEP_WIDTH rows' worth
  float actions[NE_LOCKSTEP_WIDTH * NE_POLICY_MAX_ACT];  // (running, act_dim) actions
  const float* params[NE_LOCKSTEP_WIDTH];                // each running slot's parameters (borrowed)
  const float* row_params[NE_LOCKSTEP_WIDTH];            // the parameters of each row of obs this step
  ne_result* stats[NE_LOCKSTEP_WIDTH];                   // each slot's observation sums (NULL: none)
  double returns[NE_LOCKSTEP_WIDTH];                     // each slot's episode return so far
  uint64_t steps[NE_LOCKSTEP_WIDTH];                     // each slot's episode steps so far
  int row_of[NE_LOCKSTEP_WIDTH];                         // slot -> row of obs this step
  int live[NE_LOCKSTEP_WIDTH];                           // 1 while the slot's episode runs
  int n_live;                                            // slots running
  int n_stats;                                           // running slots with observation sums
  int failed;                                            // the first NE_E* code of an env since the last clear
  // small MLPs of different vectors run in lanes (lane = slot; NULL: one forward per row)
  float* lane_params;                                         // (n_params, NE_LOCKSTEP_WIDTH) the slots' vectors
  float* lane_obs;                                            // (obs_dim, NE_LOCKSTEP_WIDTH) their policy inputs
  float* lane_scratch;                                        // ne_policy_lanes_scratch_floats
  float lane_actions[NE_LOCKSTEP_WIDTH * NE_POLICY_MAX_ACT];  // (lane, act_dim)
  int lane_stale[NE_LOCKSTEP_WIDTH];                          // 1 until a slot's new vector is in lane_params
  // envs in the family's lanes (lane = slot; NULL: each slot's env steps on its own): a running
  // slot's env lives there and its ne_env_state is brought up to date when its episode ends
  void* env_lanes;                                           // the family's structure of arrays
  float* env_obs;                                            // (obs_dim, NE_LOCKSTEP_WIDTH) the lanes' observations
  float env_actions[NE_LOCKSTEP_WIDTH * NE_POLICY_MAX_ACT];  // (lane, act_dim) the lanes' last actions
  // a run's last few episodes (fewer than PARK_BELOW running) leave the lanes: each then steps on
  // its own (ne_policy_forward, ne_env_step) until every slot is free again
  int parked;  // 1 while the running slots' envs are out of the lanes (ls->states hold them)
};

_Static_assert(NE_LOCKSTEP_WIDTH == NE_POLICY_LANES && NE_LOCKSTEP_WIDTH == NE_ENV_LANES, "a lane per slot");

// With fewer running slots than this, their episodes leave the env lanes and step one at a time:
// the lanes' step of all 8 lanes (~190 ns for CartPole and a 16-unit MLP on AVX-512) costs more
// than one episode's step on its own, about what two do (parking at 2 running, as before the lanes'
// step got cheaper: CartPole ES to 475 ~2% slower, seed 3). Only the end of a run has so few: a
// free slot takes the next episode at once while there is one.
#define PARK_BELOW 2

// Envs in lanes for observations of at most this many floats (gather()'s column buffer; classic
// control's have 2 to 6)
#define ENV_LANES_MAX_OBS 16

ne_lockstep* ne__lockstep_create(const ne_env_spec* env, const ne_policy_spec* policy) {
  ne_lockstep* ls = ne_calloc(1, sizeof *ls);
  if (!ls) return NULL;
  ls->env = env;
  ls->policy = policy;
  int ok = 1;
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++) ok &= (ls->states[i] = ne_env_state_create(env)) != NULL;
  ls->obs = ne_malloc((size_t)NE_LOCKSTEP_WIDTH * (size_t)env->obs_dim * sizeof(float));
  ls->scratch = ne_malloc((ne_policy_batch_scratch_floats(policy, NE_LOCKSTEP_WIDTH) + 1) * sizeof(float));
  if (policy->n_params <= LANES_MAX_PARAMS && ne_policy_lanes_ok(policy)) {
    // zeroed: a free slot's lane computes on finite values
    ls->lane_params = ne_calloc(policy->n_params * NE_LOCKSTEP_WIDTH, sizeof(float));
    ls->lane_obs = ne_calloc((size_t)env->obs_dim * NE_LOCKSTEP_WIDTH, sizeof(float));
    ls->lane_scratch = ne_malloc(ne_policy_lanes_scratch_floats(policy) * sizeof(float));
    ok &= ls->lane_params && ls->lane_obs && ls->lane_scratch;
  }
  if (ne_env_lanes_ok(env) && env->obs_dim <= ENV_LANES_MAX_OBS && env->act_dim == policy->act_dim) {
    // zeroed: a lane that never ran holds a finite state
    ls->env_lanes = ne_calloc(1, ne_env_lanes_bytes(env));
    ls->env_obs = ne_calloc((size_t)env->obs_dim * NE_LOCKSTEP_WIDTH, sizeof(float));
    ok &= ls->env_lanes && ls->env_obs;
  }
  if (!ok || !ls->obs || !ls->scratch) {
    ne__lockstep_destroy(ls);
    return NULL;
  }
  return ls;
}

void ne__lockstep_destroy(ne_lockstep* ls) {
  if (!ls) return;
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++) ne_env_state_destroy(ls->states[i]);
  ne_free(ls->obs);
  ne_free(ls->scratch);
  ne_free(ls->lane_params);
  ne_free(ls->lane_obs);
  ne_free(ls->lane_scratch);
  ne_free(ls->env_lanes);
  ne_free(ls->env_obs);
  ne_free(ls);
}

int ne__lockstep_begin(ne_lockstep* ls, int slot, const float* params, uint64_t seed, ne_result* stats) {
  ls->returns[slot] = 0;
  ls->steps[slot] = 0;
  ls->params[slot] = params;
  ls->lane_stale[slot] = 1;
  ls->stats[slot] = stats;
  int rc = ne_env_reset(ls->env, ls->states[slot], seed);
  ls->live[slot] = rc == 0;
  ls->n_live += rc == 0;
  ls->n_stats += rc == 0 && stats;
  if (rc && !ls->failed) ls->failed = rc;
  // the episode runs in the env's lane from its first observation (or on its own beside parked ones)
  if (!rc && ls->env_lanes && !ls->parked)
    ne_env_lanes_enter(ls->env, ls->env_lanes, slot, ls->states[slot], ls->env_obs);
  return rc;
}

int ne__lockstep_running(const ne_lockstep* ls, int slot) { return ls->live[slot]; }

void ne__lockstep_clear(ne_lockstep* ls) {
  memset(ls->live, 0, sizeof ls->live);
  ls->n_live = 0;
  ls->n_stats = 0;
  ls->failed = 0;
  ls->parked = 0;
}

// Slot s's observation, a column of the env lanes, into out (obs_dim floats)
static void lane_column(const ne_lockstep* ls, int s, float* out) {
  for (int k = 0; k < ls->env->obs_dim; k++) out[k] = ls->env_obs[(size_t)k * NE_LOCKSTEP_WIDTH + (size_t)s];
}

// row = raw (d floats): classic control's few floats as fixed-size copies, which compile to moves
// where memcpy of a variable size is a libc call (~3% of a CartPole ES run)
static inline void copy_obs(float* row, const float* raw, int d) {
  if (d > 16) {
    memcpy(row, raw, (size_t)d * sizeof *row);
    return;
  }
  int i = 0;
  for (; i + 4 <= d; i += 4) memcpy(row + i, raw + i, 4 * sizeof *row);
  for (; i < d; i++) row[i] = raw[i];
}

// Gathers the running slots' policy inputs into rows of ls->obs (adding each raw observation to
// its slot's sums); returns how many, *shared = 1 when they all run one parameter vector.
static int gather(ne_lockstep* ls, const ne_obs_norm* norm, int* shared) {
  int d = ls->env->obs_dim;
  int rows = 0;
  const float* first = NULL;
  *shared = 1;
  float column[ENV_LANES_MAX_OBS];
  int raw_rows = !norm || !norm->mean;  // the policy sees the raw observations
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++) {
    if (!ls->live[i]) continue;
    float* row = ls->obs + (size_t)rows * (size_t)d;
    const float* raw = ls->states[i]->obs;
    if (ls->env_lanes) {  // the slot's observation is a column of the env's lanes
      float* to = raw_rows ? row : column;
      lane_column(ls, i, to);
      raw = to;
    }
    if (ls->stats[i]) ne__add_obs_stats(raw, d, ls->stats[i]);
    if (raw != row && ne_policy_input(norm, raw, d, row) != row) copy_obs(row, raw, d);
    if (!first) first = ls->params[i];
    *shared &= ls->params[i] == first;
    ls->row_params[rows] = ls->params[i];
    ls->row_of[i] = rows++;
  }
  return rows;
}

// Slot s's parameter vector into its lane, once an episode
static void interleave(ne_lockstep* ls, int s) {
  if (ls->lane_stale[s]) ne_policy_set_lane(ls->policy, ls->lane_params, s, ls->params[s]), ls->lane_stale[s] = 0;
}

// The running slots' rows in lanes (lane = slot), then one forward of all lanes; the actions back
// into rows
static void act_in_lanes(ne_lockstep* ls) {
  int d = ls->env->obs_dim, a = ls->policy->act_dim;
  // locals: with -fno-strict-aliasing every float store would reload ls's pointers
  float* restrict lane_obs = ls->lane_obs;
  const float* restrict obs = ls->obs;
  for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++) {
    if (!ls->live[s]) continue;
    interleave(ls, s);
    const float* row = obs + (size_t)ls->row_of[s] * (size_t)d;
    for (int i = 0; i < d; i++) lane_obs[(size_t)i * NE_LOCKSTEP_WIDTH + (size_t)s] = row[i];
  }
  ne_policy_forward_lanes(ls->policy, ls->lane_params, ls->lane_obs, ls->lane_scratch, ls->lane_actions);
  for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++)
    if (ls->live[s])
      memcpy(ls->actions + (size_t)ls->row_of[s] * (size_t)a, ls->lane_actions + (size_t)s * (size_t)a,
             (size_t)a * sizeof(float));
}

// The actions of the gathered rows: small MLPs in lanes, one forward of all slots (also 8 running
// episodes of one shared vector: each slot interleaves it once an episode, and the lanes beat the
// batched forward's calls per row, CartPole GA's elite re-evaluation ~4%); else one batched forward
// of a shared vector; else a forward of each row's own vector, layer by layer over all rows (their
// chains overlap)
static void act(ne_lockstep* ls, int rows, int shared) {
  if (ls->lane_params && (!shared || rows == NE_LOCKSTEP_WIDTH)) act_in_lanes(ls);
  else if (shared) ne_policy_forward_batch(ls->policy, ls->row_params[0], ls->obs, rows, ls->scratch, ls->actions);
  else ne_policy_forward_rows(ls->policy, ls->row_params, ls->obs, rows, ls->scratch, ls->actions);
}

// Slot i's episode ended (or its env failed): the slot is free (in lanes, its env state is brought
// up to date first)
static void end_episode(ne_lockstep* ls, int i) {
  ls->live[i] = 0, ls->n_live--;
  ls->n_stats -= ls->stats[i] != NULL;
  if (ls->env_lanes && !ls->parked)
    ne_env_lanes_leave(ls->env, ls->env_lanes, i, ls->env_obs, ls->steps[i], ls->states[i]);
  if (ls->n_live == 0) ls->parked = 0;
}

// A running slot's step outcome (one at a time): its return and steps, or the env's failure
static void count_step(ne_lockstep* ls, int i, int rc, const ne_step_out* so) {
  if (rc == 0) {
    ls->returns[i] += so->reward;
    ls->steps[i]++;
  } else if (!ls->failed) {
    ls->failed = rc;
  }
  if (rc || so->terminated || so->truncated) end_episode(ls, i);
}

// The envs of the slots in mask stepped in the family's lanes (lane = slot) with acts (lane,
// act_dim): returns and steps added for all lanes at once, then the episodes that ended
static void step_lanes(ne_lockstep* ls, unsigned mask, const float* acts) {
  unsigned invalid;
  unsigned ended =
      ne_env_lanes_advance(ls->env, ls->env_lanes, mask, acts, ls->steps, ls->returns, ls->env_obs, &invalid);
  if (invalid && !ls->failed) ls->failed = NE_ERANGE;  // an action outside the space ends its episode
  for (unsigned m = ended | invalid; m; m &= m - 1) end_episode(ls, __builtin_ctz(m));
}

// The running slots' envs stepped in the family's lanes with the gathered rows' actions
static void step_env_lanes(ne_lockstep* ls) {
  int a = ls->env->act_dim;
  unsigned mask = 0;
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++) {
    if (!ls->live[i]) continue;
    const float* from = ls->actions + (size_t)ls->row_of[i] * (size_t)a;
    float* to = ls->env_actions + (size_t)i * (size_t)a;
    if (a == 1) *to = *from;  // discrete actions: not a libc call per slot
    else memcpy(to, from, (size_t)a * sizeof(float));
    mask |= 1u << i;
  }
  step_lanes(ls, mask, ls->env_actions);
}

// The running slots' observation sums, from the env lanes' columns
static void add_lane_stats(ne_lockstep* ls) {
  if (!ls->n_stats) return;
  float column[ENV_LANES_MAX_OBS];
  for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++) {
    if (!ls->live[s] || !ls->stats[s]) continue;
    lane_column(ls, s, column);
    ne__add_obs_stats(column, ls->env->obs_dim, ls->stats[s]);
  }
}

// A step that never leaves the lanes: the policy reads the env lanes' observations (normalized
// when the batch says so), the envs take the lanes' actions (a free lane computes on what it last
// held; its results are not used)
static void step_in_lanes(ne_lockstep* ls, const ne_obs_norm* norm) {
  unsigned mask = 0;
  for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++)
    if (ls->live[s]) interleave(ls, s), mask |= 1u << s;
  add_lane_stats(ls);
  // every lane's input normalized at once (a free lane's is computed and not used)
  const float* input = ls->env_obs;
  if (norm && norm->mean)
    ne_policy_input_columns(norm, ls->env_obs, ls->env->obs_dim, NE_LOCKSTEP_WIDTH, ls->lane_obs), input = ls->lane_obs;
  ne_policy_forward_lanes(ls->policy, ls->lane_params, input, ls->lane_scratch, ls->lane_actions);
  step_lanes(ls, mask, ls->lane_actions);
}

// The running slots' envs out of the lanes (ne_env_lanes_park), each state holding its episode
static void park(ne_lockstep* ls) {
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++)
    if (ls->live[i]) ne_env_lanes_park(ls->env, ls->env_lanes, i, ls->env_obs, ls->steps[i], ls->states[i]);
  ls->parked = 1;
}

// One step of each running slot on its own, as the evaluator's one-at-a-time loop steps an episode
static void step_parked(ne_lockstep* ls, const ne_obs_norm* norm) {
  int d = ls->env->obs_dim, a = ls->policy->act_dim;
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++) {
    if (!ls->live[i]) continue;
    ne_env_state* st = ls->states[i];
    float* action = ls->actions + (size_t)i * (size_t)a;
    if (ls->stats[i]) ne__add_obs_stats(st->obs, d, ls->stats[i]);
    const float* input = ne_policy_input(norm, st->obs, d, ls->obs + (size_t)i * (size_t)d);
    ne_policy_forward(ls->policy, ls->params[i], input, ls->scratch, action);
    ne_step_out so = {0};
    int rc = ne_env_step(ls->env, st, action, &so);
    count_step(ls, i, rc, &so);
  }
}

int ne__lockstep_step(ne_lockstep* ls, const ne_obs_norm* norm) {
  if (ls->n_live == 0) return 0;
  if (!ls->parked && ls->env_lanes && ls->n_live < PARK_BELOW) park(ls);
  if (ls->parked) {
    step_parked(ls, norm);
    return ls->n_live;
  }
  // a small MLP with its envs in lanes: the step stays in lanes, whichever vectors the slots run
  // (one shared by 3-7 slots too: the lanes forward of 8 costs less than a batched one of 3-7 rows)
  if (ls->env_lanes && ls->lane_params) {
    step_in_lanes(ls, norm);
    return ls->n_live;
  }
  int shared;
  int rows = gather(ls, norm, &shared);  // n_live > 0 rows
  act(ls, rows, shared);
  if (ls->env_lanes) {
    step_env_lanes(ls);
    return ls->n_live;
  }
  // the envs of the running slots, row by row (families with lanes step them together)
  ne_env_state* states[NE_LOCKSTEP_WIDTH];
  const float* acts[NE_LOCKSTEP_WIDTH];
  ne_step_out so[NE_LOCKSTEP_WIDTH];
  int rcs[NE_LOCKSTEP_WIDTH], slot_of[NE_LOCKSTEP_WIDTH];
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++) {
    if (!ls->live[i]) continue;
    int r = ls->row_of[i];
    states[r] = ls->states[i];
    acts[r] = ls->actions + (size_t)r * (size_t)ls->policy->act_dim;
    slot_of[r] = i;
  }
  ne_env_step_many(ls->env, states, acts, rows, so, rcs);
  for (int r = 0; r < rows; r++) count_step(ls, slot_of[r], rcs[r], &so[r]);
  return ls->n_live;
}

int ne__lockstep_run(ne_lockstep* ls, const float* params, const uint64_t* seeds, int n, const ne_obs_norm* norm,
                     const volatile int* stop, double* returns, uint64_t* steps) {
  int episode_of[NE_LOCKSTEP_WIDTH], next = 0;
  ne__lockstep_clear(ls);
  for (int k = 0; k < n; k++) returns[k] = NAN, steps[k] = 0;  // until episode k ends
  for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++) episode_of[s] = -1;
  for (;;) {
    int busy = 0;
    for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++) {
      int k = episode_of[s];
      if (k >= 0 && !ls->live[s]) returns[k] = ls->returns[s], steps[k] = ls->steps[s], k = episode_of[s] = -1;
      // a free slot takes the next episode, reset from its own seed as the sequential loop resets
      // it (a failed reset ends it at once, with no steps)
      if (k < 0 && next < n) ne__lockstep_begin(ls, s, params, seeds[next], NULL), k = episode_of[s] = next++;
      busy |= k >= 0;
    }
    if (!busy) return ls->failed;
    if (stop && *stop) {  // the episodes in hand and those not started end here: a partial result
      for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++)
        if (episode_of[s] >= 0) steps[episode_of[s]] = ls->steps[s];
      ne__lockstep_clear(ls);
      return NE_EINTR;
    }
    ne__lockstep_step(ls, norm);
  }
}

double ne__lockstep_return(const ne_lockstep* ls, int i) { return ls->returns[i]; }

uint64_t ne__lockstep_steps(const ne_lockstep* ls, int i) { return ls->steps[i]; }

const ne_env_state* ne__lockstep_state(const ne_lockstep* ls, int i) { return ls->states[i]; }
