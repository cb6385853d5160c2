// SPDX-License-Identifier: MIT
// Several episodes of one parameter vector in lockstep (src/exec/lockstep.c): each step gathers
// the observations of the episodes still running and computes their actions with one batched
// forward (ne_policy_forward_batch): conv policies read their weights once for 8 frames (elite
// re-evaluation: 30 episodes per candidate), MLPs overlap their output layers' addition chains.
// Not public API: the evaluator uses it for multi-episode candidates and ne_evaluator_episodes.
// Results are identical to running the episodes one after another: each episode has its own env
// state and seed, and the batched forward equals single forwards bit for bit.
#ifndef NEUROEVO_EXEC_LOCKSTEP_H
#define NEUROEVO_EXEC_LOCKSTEP_H

#include <stdint.h>
#include <string.h>

#include "neuroevo/algo.h"  // ne_batch: observation normalization
#include "neuroevo/env.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/policy.h"

#define NE_LOCKSTEP_WIDTH NE_EVALUATOR_LOCKSTEP  // episodes at once (evaluator.h)

typedef struct ne_lockstep ne_lockstep;

// Creates the env states and buffers for NE_LOCKSTEP_WIDTH episodes of (env, policy). Caller frees
// with ne__lockstep_destroy. NULL on OOM.
ne_lockstep* ne__lockstep_create(const ne_env_spec* env, const ne_policy_spec* policy);

// Frees it. Nullable: ls.
void ne__lockstep_destroy(ne_lockstep* ls);

// Runs n episodes (n <= NE_LOCKSTEP_WIDTH) of params, episode i reset with seeds[i], the policy
// seeing each observation as ne__policy_input makes it. Returns 0; the first NE_E* code an env
// returned (that episode stops there, as the sequential loop stops); or NE_EINTR when *stop was
// raised (checked every step: the episodes end there, a partial result). Nullable: norm, stop.
int ne__lockstep_run(ne_lockstep* ls, const float* params, const uint64_t* seeds, int n, const ne_batch* norm,
                     const volatile int* stop);

// The return and the steps of episode i of the last run.
double ne__lockstep_return(const ne_lockstep* ls, int i);
uint64_t ne__lockstep_steps(const ne_lockstep* ls, int i);

// The env state episode i of the last run ended in (its behaviour characterization).
const ne_env_state* ne__lockstep_state(const ne_lockstep* ls, int i);

// The observation the policy sees, into out: raw, or normalized and clipped as norm asks ((raw -
// mean) / std, then within +-obs_clip when it is > 0). The evaluator's one-at-a-time loop uses it
// too, so both paths feed the policy the same bits. Nullable: norm (or norm->obs_mean: raw).
static inline void ne__policy_input(const float* raw, int d, const ne_batch* norm, float* out) {
  if (!norm || !norm->obs_mean) {
    memcpy(out, raw, (size_t)d * sizeof *out);
    return;
  }
  float clip = norm->obs_clip;
  for (int i = 0; i < d; i++) {
    float z = (raw[i] - norm->obs_mean[i]) / norm->obs_std[i];
    if (clip > 0) z = z < -clip ? -clip : (z > clip ? clip : z);
    out[i] = z;
  }
}

#endif
