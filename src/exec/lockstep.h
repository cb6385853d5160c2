// SPDX-License-Identifier: MIT
// Episodes in lockstep (src/exec/lockstep.c): NE_LOCKSTEP_WIDTH slots, each an env state running
// one episode of some parameter vector; every step computes the actions of all running slots, then
// steps their envs. Each slot keeps the one-episode contract of neuroevo/episode.h (the same
// returns, steps, sums and final states as ne_episode, bit for bit); the lockstep only chooses how
// the 8 steps are computed. Not public API: the evaluator uses it for multi-episode candidates, for
// runs of single-episode candidates and for ne_evaluator_episodes.
//
// The step modes (ne__lockstep_step; the first that applies runs):
//
//   mode       when                                   inputs            forward         env step
//   ---------  -------------------------------------  ----------------  --------------  ---------------------
//   parked     env lanes, once fewer than PARK_BELOW  ne_policy_input   ne_policy_      ne_env_step, one
//              (2) run, until all slots are free: a   per slot          forward each    slot at a time
//              run's last episodes
//   in lanes   env lanes and a lanes MLP (<= 4096     ne_policy_input_  ne_policy_      ne_env_lanes_advance
//              parameters): classic control           columns over the  forward_lanes   (the state never leaves
//                                                     lanes' columns                    the lanes)
//   env lanes  env lanes, any other policy            gather: rows from forward mode    ne_env_lanes_advance
//                                                     the lanes' columns below
//   rows       no env lanes (MuJoCo, Box2D, MinAtar,  gather: rows from forward mode    ne_env_step_many
//              Atari, maze, ...)                      the env states    below
//
// The forward modes of gathered rows (act()):
//
//   lanes      a lanes MLP, the slots' vectors differ or all 8 share one: a lane per slot
//   batch      one vector shared by the running slots: ne_policy_forward_batch (a conv policy
//              reads its weights once for 8 frames)
//   rows       each row its own vector: ne_policy_forward_rows, layer by layer over the rows
//
// Where the contract's parts are applied, in every mode:
//   - the TimeLimit: inside the env step (ne_env_step, ne_env_step_many, ne_env_lanes_advance,
//     which counts each lane's steps), never here;
//   - observation sums (ES normalization, slots begun with stats): ne__add_obs_stats of each
//     observation before the policy acts on it (gather, add_lane_stats, step_parked), as
//     ne_episode_input adds them; the final observation is not added;
//   - the policy's input: ne_policy_input / ne_policy_input_columns, the one formula;
//   - behaviours: not here; an ended slot's env state holds the final state (lanes write it back
//     when the episode ends, ne_env_lanes_leave), and the evaluator reads ne__lockstep_state.
// Speed: a batched forward shares each weight load between rows; independent episodes overlap their
// forward and env-step latency chains in the core where one episode alone waits on each; envs in
// lanes avoid moving state, observations and actions between slots, rows and lanes every step
// (which had cost as much as the physics and the forward together). Parking: a lanes step costs the
// same for 1 running lane as for 8.
#ifndef NEUROEVO_EXEC_LOCKSTEP_H
#define NEUROEVO_EXEC_LOCKSTEP_H

#include <stdint.h>

#include "neuroevo/algo.h"  // ne_result: observation sums
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

// One step of every running slot: the policy sees each observation as ne_policy_input makes it,
// then the envs step. A slot whose episode terminated, was truncated or whose env failed is free
// afterwards (its failure ends the episode there, as the sequential loop stops). Returns the number
// of slots still running. Nullable: norm.
int ne__lockstep_step(ne_lockstep* ls, const ne_obs_norm* norm);

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
int ne__lockstep_run(ne_lockstep* ls, const float* params, const uint64_t* seeds, int n, const ne_obs_norm* norm,
                     const volatile int* stop, double* returns, uint64_t* steps);

// The return and the steps of slot i's last (or current) episode.
double ne__lockstep_return(const ne_lockstep* ls, int i);
uint64_t ne__lockstep_steps(const ne_lockstep* ls, int i);

// The env state slot i's last episode ended in (its behaviour characterization).
const ne_env_state* ne__lockstep_state(const ne_lockstep* ls, int i);

// Adds one raw observation to out's observation sums (ES normalization statistics), in double, in
// step order: the lockstep and ne_episode (episode.c) call it, so every loop gives the same sums.
static inline void ne__add_obs_stats(const float* obs, int d, ne_result* out) {
  for (int i = 0; i < d; i++) {
    double x = obs[i];
    out->obs_sum[i] += x;
    out->obs_sumsq[i] += x * x;
  }
  out->obs_count += 1;
}

#endif
