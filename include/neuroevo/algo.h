// SPDX-License-Identifier: MIT
// The ask/tell contract between algorithms and executors (DESIGN.md §3). An algorithm asks for a
// batch of compact candidates (a seed chain, or a broadcast base vector plus one scaled noise seed,
// or an explicit vector), an executor evaluates them anywhere, and the algorithm is told the results
// in candidate order. Algorithms never do I/O and never know where candidates ran; every random
// choice derives from (run seed, generation, index, purpose), so results do not depend on threads,
// workers or arrival order. A generation may take several rounds (the GA re-evaluates its elite
// candidates in a second round).
#ifndef NEUROEVO_ALGO_H
#define NEUROEVO_ALGO_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/config.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

// How a candidate's parameter vector is built.
typedef enum ne_cand_kind {
  NE_CAND_CHAIN = 0,    // params = init(seeds[0]) + sigma * sum_{i>=1} eps(seeds[i])  (GA)
  NE_CAND_PERTURB = 1,  // params = blobs[blob] + coef * eps(noise_seed)               (ES family)
  NE_CAND_VECTOR = 2,   // params = blobs[blob]                                        (CMA-ES, centre evals)
} ne_cand_kind;

// One thing to evaluate. Pointers reference memory owned by the algorithm's batch.
typedef struct ne_candidate {
  ne_cand_kind kind;      // how to build the parameters
  uint32_t index;         // position in the batch; results are returned in this order
  uint32_t episodes;      // episodes to average over (>= 1)
  uint64_t episode_seed;  // episode e resets the env with ne_hash2(episode_seed, e)
  const uint64_t* seeds;  // (n_seeds) CHAIN: the seed chain
  uint32_t n_seeds;       // CHAIN: chain length (>= 1)
  float sigma;            // CHAIN: mutation power
  uint32_t blob;          // PERTURB/VECTOR: index into the batch's blobs
  uint64_t noise_seed;    // PERTURB: perturbation seed
  float coef;             // PERTURB: scale of the perturbation (e.g. +sigma or -sigma)
} ne_candidate;

// A vector broadcast once per batch (ES centre, CMA-ES sample); identified by a content hash.
typedef struct ne_blob {
  uint64_t hash;      // identity across processes (generation-unique)
  size_t n;           // number of floats
  const float* data;  // (n) owned by the algorithm
} ne_blob;

// A batch of candidates for one round of one generation. Owned by the algorithm; valid until tell.
typedef struct ne_batch {
  uint32_t generation;    // generation number (0-based)
  uint32_t round;         // round within the generation (0 = population)
  int n;                  // number of candidates
  ne_candidate* cands;    // (n)
  int n_blobs;            // number of broadcast vectors
  ne_blob* blobs;         // (n_blobs)
  int want_obs_stats;     // 1: results carry observation sums (ES observation normalization)
  const float* obs_mean;  // (obs_dim) normalize observations as (obs - mean) / std; NULL = none
  const float* obs_std;   // (obs_dim) see obs_mean
  float obs_clip;         // clip normalized observations to [-obs_clip, obs_clip] (0: no clip)
  // PERTURB candidates: eps(noise_seed) is a slice of this shared table (ne_noise_perturb), NULL =
  // the generator. Owned by the algorithm in the master process; a Redis worker builds its own twin
  // from the stored config (ne_algo_noise_table) and the task says which one it must be.
  const ne_noise_table* noise_table;
  // 1: results carry the behaviour characterization of each candidate (novelty search): the mean
  // over its episodes of ne_env_behaviour at each episode's end (env spec's bc_dim floats)
  int want_bc;
} ne_batch;

// The outcome of one candidate's evaluation.
typedef struct ne_result {
  double fitness;     // mean return over the episodes (maximized); NaN if status < 0
  double return_std;  // standard deviation of the episode returns
  uint32_t episodes;  // episodes run
  uint64_t steps;     // environment steps taken
  int status;         // 0, or a negative NE_E* code when the evaluation failed
  double obs_count;   // observations summed (want_obs_stats)
  double* obs_sum;    // (obs_dim) executor writes here when want_obs_stats; owned by the caller
  double* obs_sumsq;  // (obs_dim) likewise
  float* bc;          // (bc_dim) executor writes the behaviour characterization here when want_bc;
                      // owned by the caller (zeros when the evaluation failed)
  // meta-learning (meta.h): the mean return over the tasks before the inner loop (fitness is the one
  // after it); NaN when the evaluation had no inner loop
  double pre_fitness;
} ne_result;

// Per-generation figures an algorithm reports after the generation's last tell.
typedef struct ne_gen_report {
  uint32_t generation;  // the generation that just completed
  double best;          // best fitness among this generation's population
  double mean;          // mean fitness of the population
  double median;        // median fitness of the population
  double elite_mean;    // mean return of the elite / centre on its extra episodes; NaN if none
  double extra[4];      // algorithm-specific figures (ES: update norm, sigma; CMA-ES: sigma, cond)
} ne_gen_report;

// The best solution so far, as the algorithm exports it for best.genome / eval.
typedef struct ne_best {
  double score;           // its evaluation mean (elite re-evaluation or centre evaluation)
  uint32_t generation;    // generation it was found in
  const uint64_t* seeds;  // (n_seeds) seed chain, or NULL for vector solutions
  size_t n_seeds;         // chain length
  float sigma;            // mutation power of the chain
  const float* params;    // (n_params) explicit parameters, or NULL for chains
  size_t n_params;        // length of params
  // the observation normalization params were evaluated with (ES family); NULL when none
  const float* obs_mean;  // (obs_dim) subtracted from each observation
  const float* obs_std;   // (obs_dim) then divided by
  float obs_clip;         // then clipped to [-obs_clip, obs_clip] (0: no clip)
  int obs_dim;            // length of obs_mean / obs_std
} ne_best;

// What an algorithm optimizes: the policy (its parameter count and init scheme) and the run seed.
typedef struct ne_problem {
  const ne_policy_spec* policy;  // policy whose flat parameters are searched
  size_t n_params;               // = policy->n_params
  uint64_t seed;                 // run seed
  int episodes;                  // env.episodes: episodes per fitness evaluation
  int obs_dim;                   // observation length (observation normalization)
  int bc_dim;                    // behaviour characterization length (novelty search; 0: none)
} ne_problem;

// An algorithm's implementation: pure ask/tell plus serialization of its whole state.
typedef struct ne_algo_vt {
  const char* name;     // run.algorithm value, e.g. "ga"
  const char* section;  // its config section, e.g. "ga"
  // creates the state; caller frees with destroy. Nullable: errstr
  int (*create)(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr);
  void (*destroy)(void* self);
  // the next batch to evaluate; owned by self, valid until the matching tell
  int (*ask)(void* self, const ne_batch** batch);
  // results in batch order; *generation_done = 1 after a generation's last round
  int (*tell)(void* self, const ne_batch* batch, const ne_result* results, int* generation_done);
  // figures of the generation that just completed
  void (*report)(void* self, ne_gen_report* out);
  // the best solution so far (pointers valid until the next ask/tell); 0, or NE_ENOTFOUND before any
  int (*best)(void* self, ne_best* out);
  // serializes the whole state at a generation boundary into a new buffer (caller frees with ne_free)
  int (*save)(void* self, uint8_t** data, size_t* len);
  // restores a state written by save; NE_ECORRUPT / NE_EVERSION with errstr on bad data
  int (*load)(void* self, const uint8_t* data, size_t len, char* errstr);
  // novelty search: the archive's behaviour characterizations, *n of *dim floats each, row-major
  // (valid until the next ask/tell); NE_ENOTFOUND when this run keeps none. Nullable (no archive)
  int (*archive)(void* self, const float** data, int* n, int* dim);
  // Nullable hook: the message of the last failed ask, tell or save (valid until the next call), or
  // NULL; algorithms that can fail for reasons of their own (an optimizer server) set it
  const char* (*last_error)(void* self);
  // Nullable hook, called after ask handed out a round and before its tell: candidates of the next
  // generation's first round that do not depend on what that tell learns (GA: the children of the
  // next generation, bred from this generation's parents, and the carried-over elite's evaluation
  // for each candidate the re-evaluation may crown). The runner evaluates them alongside the round,
  // and hands the next ask's candidates the results of identical candidates (same fields, same
  // batch settings: ne_candidate_digest), so the results of a run never change; a candidate asked
  // ahead that is never asked is wasted work. *ahead = NULL (or a batch of 0) when there are none.
  // The batch is owned by self and valid until the tell of the round in flight.
  int (*ask_ahead)(void* self, const ne_batch** ahead);
} ne_algo_vt;

// The algorithm registered under name, or NULL.
const ne_algo_vt* ne_algo_find(const char* name);

// The shared noise table a config's algorithm perturbs with: *out = NULL when it uses the generator
// (or has no such setting), else a new table (caller frees with ne_noise_table_destroy) of
// <section>.noise_table_mb MiB filled from ne_seed_derive(run_seed, 0, 0, NE_PURPOSE_NOISE_TABLE).
// The algorithm (with its problem's seed) and every Redis worker (with the config's run.seed) call
// this, so they hold the same table. NE_EINVAL (errstr names the key) when the table cannot hold
// n_params floats; NE_ENOMEM. Nullable: errstr.
int ne_algo_noise_table(const ne_config* cfg, uint64_t run_seed, size_t n_params, ne_noise_table** out, char* errstr);

// 1 when evaluators read the config's noise table (ES and ARS with the table: their candidates are
// slices of it), so a Redis worker must build it; 0 for the generator and for PGPE and SNES, whose
// master builds explicit vectors from its table.
int ne_algo_noise_table_evaluated(const ne_config* cfg);

// A hash of everything a batch's results depend on (every candidate field, blob hashes and sizes,
// the noise table, the observation normalization given as the content hashes norm_hash of obs_mean
// and obs_std over obs_dim floats): results are only used for the exact batch they were computed
// for (Redis tasks carry it; a resumed run checks its partial-generation log with it).
uint64_t ne_batch_digest(const ne_batch* batch, const uint64_t norm_hash[2], int obs_dim);

// A hash of everything candidate i's result depends on, whatever its batch and position: its
// fields but the index, the blob it names (hash and size), the noise table and the batch's
// evaluation settings (observation statistics, behaviours, observation normalization as in
// ne_batch_digest). Two candidates with the same digest get the same result, bit for bit.
uint64_t ne_candidate_digest(const ne_batch* batch, int i, const uint64_t norm_hash[2], int obs_dim);

// Content hash of a float vector (obs_mean and obs_std's norm_hash above).
uint64_t ne_hash_floats(const float* v, size_t n);

// Registered algorithms, for listings and error messages.
int ne_algo_count(void);
const ne_algo_vt* ne_algo_at(int i);

#ifdef __cplusplus
}
#endif
#endif
