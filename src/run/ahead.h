// SPDX-License-Identifier: MIT
// Results of candidates asked ahead (ne_algo_vt.ask_ahead): the next generation's candidates that
// do not wait for a generation's last round are evaluated alongside it, and their results wait
// here, keyed by ne_candidate_digest, for the round the next generation asks. A candidate gets a
// kept result only when its digest (every field the result depends on, and the batch's evaluation
// settings) is the same, so a run's results never depend on what was asked ahead. Internal to the
// run layer; single-threaded (the run loop's thread).
#ifndef NEUROEVO_RUN_AHEAD_H
#define NEUROEVO_RUN_AHEAD_H

#include <stdint.h>

#include "neuroevo/algo.h"

typedef struct ne__ahead ne__ahead;

// An empty store for an env of obs_dim observations and bc_dim behaviour floats. *out is freed with
// ne__ahead_destroy. Returns 0 or NE_ENOMEM.
int ne__ahead_create(int obs_dim, int bc_dim, ne__ahead** out);

// Frees the store. Nullable: a.
void ne__ahead_destroy(ne__ahead* a);

// Replaces what the store holds with the results of batch b (results[i] of candidate i; its
// observation sums and behaviour when b wants them). norm_hash: the content hashes of b's
// obs_mean and obs_std (0 when NULL). Returns 0 or NE_ENOMEM (the store is then empty).
int ne__ahead_keep(ne__ahead* a, const ne_batch* b, const uint64_t norm_hash[2], const ne_result* results);

// What ne__ahead_take sets have[i] to.
#define NE__AHEAD_TAKEN 2

// For each candidate of b without a result (have[i] = 0) that the store holds: copies its result
// into results[i] (scalars, and the arrays results[i]'s pointers point at) and sets have[i] =
// NE__AHEAD_TAKEN. Returns how many. The store is emptied (what the next generation did not ask is
// wasted work).
int ne__ahead_take(ne__ahead* a, const ne_batch* b, const uint64_t norm_hash[2], ne_result* results, uint8_t* have);

// Results the store holds.
int ne__ahead_count(const ne__ahead* a);

#endif
