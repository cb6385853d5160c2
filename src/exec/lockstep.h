// SPDX-License-Identifier: MIT
// Episodes in lockstep (src/exec/lockstep.c): NE_LOCKSTEP_WIDTH slots, each an env state running
// one episode of some parameter vector; every step computes the actions of all running slots, then
// steps their envs. Slots of one vector share one batched forward (ne_policy_forward_batch): conv
// policies read their weights once for 8 frames (elite re-evaluation: 30 episodes per candidate),
// MLPs share each weight load between rows (small MLPs with all 8 slots running, or with their envs
// in lanes, use the lanes below, which are faster still). Slots of different vectors (the single
// episodes of several small-MLP candidates) run in vector lanes when the MLP is small (a lane per
// slot, ne_policy_forward_lanes), else get one forward each, layer by layer over the rows: the
// episodes are independent, so their forward and env-step latency chains overlap in the core, where
// one episode alone waits on each step's chain. Envs whose family keeps instances in lanes
// (ne_env_lanes_*: the classic-control envs) run there between reset and episode end, a lane per
// slot; with a small MLP a step then never leaves the lanes (observation sums, normalization,
// forward, actions, env step), whichever vectors the slots run. A run's last two episodes leave the
// lanes (ne_env_lanes_park) and step on their own: a lanes step costs the same for 1 running lane
// as for 8.
// Not public API: the evaluator uses it for multi-episode candidates, for runs of single-episode
// candidates and for ne_evaluator_episodes. Results are identical to running the episodes one after
// another: each episode has its own env state and seed, and a batched forward equals single
// forwards bit for bit.
#ifndef NEUROEVO_EXEC_LOCKSTEP_H
#define NEUROEVO_EXEC_LOCKSTEP_H

#include <stdint.h>
#include <string.h>

#include "neuroevo/algo.h"  // ne_batch: observation normalization; ne_result: observation sums
#include "neuroevo/env.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/policy.h"

#define NE_LOCKSTEP_WIDTH NE_EVALUATOR_LOCKSTEP  // slots (evaluator.h)

typedef struct ne_lockstep ne_lockstep;

// Creates the env states and buffers of NE_LOCKSTEP_WIDTH slots for (env, policy), all free. Caller
// frees with ne__lockstep_destroy. NULL on OOM.
ne_lockstep* ne__lockstep_create(const ne_env_spec* env, const ne_policy_spec* policy);

// Frees it. Nullable: ls.
void ne__lockstep_destroy(ne_lockstep* ls);

// Starts an episode of params in free slot `slot` (< NE_LOCKSTEP_WIDTH), its env reset with seed;
// while it runs, each observation it sees is added to stats' observation sums (as the evaluator's
// one-at-a-time loop adds them). params (and stats) must stay valid until the episode ends. Returns
// the reset's code; the slot stays free when it failed. Nullable: stats.
int ne__lockstep_begin(ne_lockstep* ls, int slot, const float* params, uint64_t seed, ne_result* stats);

// One step of every running slot: the policy sees each observation as ne__policy_input makes it,
// then the envs step. A slot whose episode terminated, was truncated or whose env failed is free
// afterwards (its failure ends the episode there, as the sequential loop stops). Returns the number
// of slots still running. Nullable: norm.
int ne__lockstep_step(ne_lockstep* ls, const ne_batch* norm);

// 1 while slot's episode runs.
int ne__lockstep_running(const ne_lockstep* ls, int slot);

// Frees every slot (the episodes in hand are abandoned: a stop request).
void ne__lockstep_clear(ne_lockstep* ls);

// Runs n episodes of params, episode k reset with seeds[k], NE_LOCKSTEP_WIDTH at a time: a slot
// whose episode ends takes the next one, so the batched forwards stay full while episode lengths
// differ. returns[k] and steps[k] get episode k's (NAN and the steps so far for an episode a stop
// request cut short or never started). With n <= NE_LOCKSTEP_WIDTH episode k runs in slot k, so
// ne__lockstep_state(ls, k) is where it ended. Returns 0; the first NE_E* code an env returned
// (that episode stops there, as the sequential loop stops); or NE_EINTR when *stop was raised
// (checked every step). Nullable: norm, stop.
int ne__lockstep_run(ne_lockstep* ls, const float* params, const uint64_t* seeds, int n, const ne_batch* norm,
                     const volatile int* stop, double* returns, uint64_t* steps);

// The return and the steps of slot i's last (or current) episode.
double ne__lockstep_return(const ne_lockstep* ls, int i);
uint64_t ne__lockstep_steps(const ne_lockstep* ls, int i);

// The env state slot i's last episode ended in (its behaviour characterization).
const ne_env_state* ne__lockstep_state(const ne_lockstep* ls, int i);

// One component of a normalized observation: (raw - mean) / std, then within +-clip when clip > 0
// (the lanes of lockstep.c normalize with it too: the same bits on both paths).
static inline float ne__normalized_obs(float raw, float mean, float std, float clip) {
  float z = (raw - mean) / std;
  if (clip > 0) z = z < -clip ? -clip : (z > clip ? clip : z);
  return z;
}

// The observation the policy sees, into out: raw, or normalized and clipped as norm asks ((raw -
// mean) / std, then within +-obs_clip when it is > 0). The evaluator's one-at-a-time loop uses it
// too, so both paths feed the policy the same bits. Nullable: norm (or norm->obs_mean: raw).
static inline void ne__policy_input(const float* raw, int d, const ne_batch* norm, float* out) {
  if (!norm || !norm->obs_mean) {
    if (d > 16) {
      memcpy(out, raw, (size_t)d * sizeof *out);
      return;
    }
    // classic control's few floats: fixed-size copies compile to moves, where memcpy of a variable
    // size is a libc call (~3% of a CartPole ES run)
    int i = 0;
    for (; i + 4 <= d; i += 4) memcpy(out + i, raw + i, 4 * sizeof *out);
    for (; i < d; i++) out[i] = raw[i];
    return;
  }
  for (int i = 0; i < d; i++) out[i] = ne__normalized_obs(raw[i], norm->obs_mean[i], norm->obs_std[i], norm->obs_clip);
}

// Adds one raw observation to out's observation sums (ES normalization statistics), in double, in
// step order: both episode loops call it, so both give the same sums.
static inline void ne__add_obs_stats(const float* obs, int d, ne_result* out) {
  for (int i = 0; i < d; i++) {
    double x = obs[i];
    out->obs_sum[i] += x;
    out->obs_sumsq[i] += x * x;
  }
  out->obs_count += 1;
}

#endif
