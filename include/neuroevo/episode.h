// SPDX-License-Identifier: MIT
// One episode of a policy in an environment: the contract every loop that steps one keeps
// (evaluations, `neuroevo eval`, the meta-learning inner loop, render, rollouts; the lockstep of
// src/exec/lockstep.h keeps it for 8 at a time), so a change to episode handling is made once and
// gives the same bits everywhere:
//   1. ne_episode_begin: ne_env_reset(seed); return and steps at 0.
//   2. each step, ne_episode_input: the current observation is added to the observation sums when
//      the episode keeps them (ES normalization: every observation the policy acts on, so not the
//      final one), then turned into the policy's input by ne_policy_input (normalized and clipped
//      as the algorithm's statistics say); the policy computes the action from that input;
//      ne_episode_act: ne_env_step applies it (the TimeLimit truncates there) and the reward is
//      added to the return.
//   3. the episode ends when the env terminates, truncates or fails; the env state keeps the final
//      state, whose behaviour characterization (novelty search) the evaluator reads.
// `neuroevo trace` is the one loop that does not: it starts from a state set by hand or from
// Gymnasium's recorded draws (not a seeded reset), has no policy, and prints every raw observation;
// it calls ne_env_step itself, the call ne_episode_act makes. Black-box functions (bbob/*) have no
// episode: one evaluation of the point is one step.
// The struct is the caller's (libuv's request style): fill the fields above the line, then call the
// functions. Nothing here allocates. Not thread-safe: one episode, one thread.
#ifndef NEUROEVO_EPISODE_H
#define NEUROEVO_EPISODE_H

#include <stdint.h>

#include "neuroevo/algo.h"  // ne_batch: the normalization a batch asks for; ne_result: observation sums
#include "neuroevo/env.h"
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ne_episode {
  // set by the caller
  const ne_env_spec* env;        // the environment
  ne_env_state* state;           // its state, which the episode resets and steps
  const ne_policy_spec* policy;  // the policy (NULL: the caller picks every action; ne_episode_act only)
  const float* params;           // (policy->n_params) its parameters
  ne_obs_norm norm;              // the policy's input (all NULL: raw observations)
  ne_result* stats;              // observation sums to add to (NULL: none)
  float* input;                  // (env->obs_dim) room for a normalized observation
  float* scratch;                // (policy->scratch_floats) ne_policy_forward's scratch
  // ---- kept by the episode
  float action[NE_ENV_MAX_ACT];  // ne_episode_step's last action
  ne_step_out last;              // the last step's reward and end flags
  double ret;                    // the return so far
  uint64_t steps;                // the steps so far
  int done;                      // 1 once the env terminated, truncated or failed
} ne_episode;

// The normalization a batch asks its episodes to apply (NULL mean: none). Nullable: batch.
ne_obs_norm ne_episode_norm(const ne_batch* batch);

// Starts an episode: resets the env with seed. Returns 0, or the reset's NE_E* code (done is then 1).
int ne_episode_begin(ne_episode* ep, uint64_t seed);

// The policy's input for the current observation (ep->state->obs itself, or ep->input), after
// adding that observation to ep->stats.
const float* ne_episode_input(ne_episode* ep);

// Applies action (act_dim floats; discrete: the index) with ne_env_step and adds its reward to the
// return. Returns 0 (done tells whether the episode ended), or the step's NE_E* code (done is 1).
int ne_episode_act(ne_episode* ep, const float* action);

// One step of the policy: ne_episode_input, ne_policy_forward into ep->action, ne_episode_act.
int ne_episode_step(ne_episode* ep);

#ifdef __cplusplus
}
#endif

#endif
