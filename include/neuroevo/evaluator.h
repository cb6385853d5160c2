// SPDX-License-Identifier: MIT
// Evaluates candidates: builds the parameters (seed chain through the cache, or base + noise),
// runs the policy in the environment for the candidate's episodes and returns the mean return.
// One evaluator per thread (it owns an env state and buffers); the env spec, policy spec and cache
// are shared read-only / thread-safe. A bad candidate yields a result with status < 0, never a crash.
#ifndef NEUROEVO_EVALUATOR_H
#define NEUROEVO_EVALUATOR_H

#include <stdint.h>

#include "neuroevo/algo.h"
#include "neuroevo/cache.h"
#include "neuroevo/env.h"
#include "neuroevo/meta.h"  // meta-learning: the inner loop a candidate runs per task
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ne_evaluator ne_evaluator;

// Episodes of one parameter vector that run together, in lockstep with batched forwards (an
// in-process env): a good chunk for pools that hand out ne_evaluator_episodes work.
#define NE_EVALUATOR_LOCKSTEP 8
// Episodes per ne_evaluator_episodes call worth batching: a call's last steps run with fewer slots
// (smaller batches, then one episode at a time), so a block of 64 had spent ~6% of a CartPole
// rollout's CPU in its tails; 512 leaves ~1/8 of that
#define NE_EVALUATOR_EPISODE_BLOCK 512

// Creates an evaluator for (env, policy) that materializes chains through cache. The specs and the
// cache must outlive it. Caller frees with ne_evaluator_destroy. NULL on OOM. Nullable: cache.
ne_evaluator* ne_evaluator_create(const ne_env_spec* env, const ne_policy_spec* policy, ne_param_cache* cache);

// Frees the evaluator. Nullable: ev.
void ne_evaluator_destroy(ne_evaluator* ev);

// Meta-learning (meta.h): from now on a candidate's fitness is its mean return after meta's inner
// loop over meta->tasks * its episodes tasks (result.pre_fitness: the mean before). meta must
// outlive ev; NULL (or meta->tasks 0) returns to plain evaluations. 0 or NE_ENOMEM.
// Nullable: meta.
int ne_evaluator_set_meta(ne_evaluator* ev, const ne_meta_spec* meta);

// Evaluates one candidate of batch into *out (out->obs_sum/obs_sumsq must point to obs_dim doubles
// when batch->want_obs_stats, out->bc to the env's bc_dim floats when batch->want_bc). Returns
// out->status.
int ne_evaluator_run(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* cand, ne_result* out);

// Evaluates cands[0..n) into out[0..n) as n calls of ne_evaluator_run would, bit for bit, but runs
// a leading run of candidates (up to all n) NE_EVALUATOR_LOCKSTEP episodes at a time in lockstep
// where ne_evaluator_candidate_width allows: one-episode candidates, and candidates of up to 128
// episodes that gather neither observation sums nor behaviours (ES's centre evaluation, elites
// re-evaluated). The episodes are independent, so their steps overlap in the core (a slot whose
// episode ends takes the next episode, and all candidates share one end). Returns how many
// candidates from the front it evaluated, k >= 1 (n >= 1): out[0..k) hold their results and
// statuses (NE_EINTR for the unfinished ones after a stop request; ne_evaluator_env_error tells of
// an env failure of out[0] when k is 1); the caller goes on from cands + k.
int ne_evaluator_run_many(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* cands, int n, ne_result* out);

// How many episodes ne_evaluator_run_many runs at once: NE_EVALUATOR_LOCKSTEP for an
// MLP of at most 16384 parameters in an in-process env without an inner loop (meta-learning), else
// 1 (a bigger policy keeps its own weights in cache while its episode runs). A pool handing out
// candidates in chunks of at least this many lets it fill its slots.
int ne_evaluator_candidate_width(const ne_evaluator* ev);

// Evaluates episodes first .. first + n - 1 of cand (episode e reset with ne_hash2(episode_seed, e),
// as ne_evaluator_run does), a part of a candidate whose other episodes run elsewhere: returns[k]
// gets the return of episode first + k, out->steps their steps, out->status the status. No
// observation statistics; NE_EINVAL for a meta-learning evaluator (ne_evaluator_set_meta), whose
// candidates are evaluated whole. Returns out->status.
int ne_evaluator_run_episodes(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* cand, uint32_t first,
                              uint32_t n, double* returns, ne_result* out);

// Sets out's fitness (mean), return_std and episodes from the episode returns[0..n) in episode
// order, with the arithmetic ne_evaluator_run uses, so a candidate evaluated in parts ends
// bit-identical to one evaluated whole; a non-finite mean turns a status of 0 into NE_ERANGE.
void ne_evaluator_summarize(const double* returns, uint32_t n, ne_result* out);

// Makes episodes watch *stop: when it is raised, the episode in hand ends at its next step and the
// run returns NE_EINTR (a partial result, to be dropped), so a stop request never waits for an
// episode without a time limit. Checked once per step; the stop pointer must outlive the runs.
// Nullable: stop (never stop early).
void ne_evaluator_set_stop(ne_evaluator* ev, const volatile int* stop);

// gym: bridge: the message of the env failure (e.g. a crashed env server, already retried once)
// that made the last ne_evaluator_run fail, or NULL when its env did not fail. Owned by ev, valid
// until the next run.
const char* ne_evaluator_env_error(const ne_evaluator* ev);

// Runs n episodes of params from reset seeds seeds[0..n): returns[k] and steps[k] (set) of each,
// exactly what n calls of ne_evaluator_episode give, NE_EVALUATOR_LOCKSTEP at a time in lockstep
// where the env runs in this process (a slot whose episode ends takes the next one; calls of
// NE_EVALUATOR_EPISODE_BLOCK episodes keep the slots full but for the last few steps). Nullable:
// batch (no observation normalization).
void ne_evaluator_episodes(ne_evaluator* ev, const float* params, const uint64_t* seeds, int n, const ne_batch* batch,
                           double* returns, uint64_t* steps);

// Runs one episode of the given parameters from reset seed `seed`; returns the episode return and
// adds the steps taken to *steps. Nullable: batch (no observation normalization), steps.
double ne_evaluator_episode(ne_evaluator* ev, const float* params, uint64_t seed, const ne_batch* batch,
                            uint64_t* steps);

// Builds a candidate's parameters into the evaluator's buffer and returns it (valid until the next
// call). NULL with *status set on failure.
const float* ne_evaluator_params(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* cand, int* status);

#ifdef __cplusplus
}
#endif
#endif
