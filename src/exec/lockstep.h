// SPDX-License-Identifier: MIT
// Several episodes of one parameter vector in lockstep (src/exec/lockstep.c): each step gathers
// the observations of the episodes still running and computes their actions with one batched
// forward (ne_policy_forward_batch), which is where conv policies gain (elite re-evaluation: 30
// episodes per candidate). Not public API: the evaluator uses it for multi-episode candidates.
// Results are identical to running the episodes one after another: each episode has its own env
// state and seed, and the batched forward equals single forwards bit for bit.
#ifndef NEUROEVO_EXEC_LOCKSTEP_H
#define NEUROEVO_EXEC_LOCKSTEP_H

#include <stdint.h>

#include "neuroevo/env.h"
#include "neuroevo/policy.h"

#define NE_LOCKSTEP_WIDTH 8  // episodes at once (one Nature forward of 8 frames: ~1.5x less time per frame)

typedef struct ne_lockstep ne_lockstep;

// Creates the env states and buffers for NE_LOCKSTEP_WIDTH episodes of (env, policy). Caller frees
// with ne__lockstep_destroy. NULL on OOM.
ne_lockstep* ne__lockstep_create(const ne_env_spec* env, const ne_policy_spec* policy);

// Frees it. Nullable: ls.
void ne__lockstep_destroy(ne_lockstep* ls);

// Runs episodes first .. first+n-1 (n <= NE_LOCKSTEP_WIDTH) of params, episode e reset with seed
// ne_hash2(episode_seed, e) as the evaluator does; adds their steps to *steps. Returns 0, or the
// first NE_E* code an env returned (that episode stops there, as the sequential loop stops).
int ne__lockstep_run(ne_lockstep* ls, const float* params, uint64_t episode_seed, uint32_t first, int n,
                     uint64_t* steps);

// The return of episode first + i of the last run.
double ne__lockstep_return(const ne_lockstep* ls, int i);

// The env state episode first + i of the last run ended in (its behaviour characterization).
const ne_env_state* ne__lockstep_state(const ne_lockstep* ls, int i);

#endif
