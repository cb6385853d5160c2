// SPDX-License-Identifier: MIT
// Shared pieces of the ES family (OpenAI ES, ARS, PGPE, SNES): fitness shaping (centered ranks, NES
// utilities), the gradient-following optimizers (Adam, SGD with momentum, ClipUp), running
// observation statistics merged in candidate order, candidate/blob bookkeeping and state
// serialization helpers. Everything here is deterministic: fixed-order reductions, no libm calls
// whose last bit may vary, no allocation after init. Not public API.
#ifndef NEUROEVO_ES_COMMON_H
#define NEUROEVO_ES_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "neuroevo/algo.h"

// ---- fitness shaping -------------------------------------------------------------------------

// A fitness and its candidate index, for sorting.
typedef struct ne__ranked {
  double fitness;  // shaped or raw fitness (-inf for failed evaluations)
  int index;       // candidate index
} ne__ranked;

// The fitness a result stands for in rankings: its mean return, or -inf when it failed.
double ne__result_fitness(const ne_result* r);

// Sorts items best first (descending fitness; ties: lower index first, so the order is total).
void ne__sort_desc(ne__ranked* items, int n);

// Centered ranks as in Salimans et al. 2017: the worst gets -0.5, the best +0.5, evenly spaced
// (rank / (n - 1) - 0.5); ties are broken by candidate index. `scratch` holds n items. n == 1: 0.
void ne__centered_ranks(const double* fitness, int n, double* out, ne__ranked* scratch);

// SNES/xNES utilities (Wierstra et al. 2014): u = max(0, ln(n/2 + 1) - ln(rank)) / sum - 1/n with
// rank 1 = best; they sum to zero. `scratch` holds n items.
void ne__nes_utilities(const double* fitness, int n, double* out, ne__ranked* scratch);

// best / mean / median of a population into r (other fields untouched). `scratch` holds n items.
void ne__population_figures(const double* fitness, int n, ne__ranked* scratch, ne_gen_report* r);

// ---- optimizers ------------------------------------------------------------------------------

typedef enum ne__opt_kind {
  NE__OPT_ADAM = 0,    // Kingma & Ba 2015 with bias correction (the OpenAI ES default)
  NE__OPT_SGD = 1,     // SGD with momentum as in evolution-strategies-starter: v = m v + (1-m) g
  NE__OPT_CLIPUP = 2,  // ClipUp (Toklu et al. 2020): normalized gradient, momentum, speed limit
} ne__opt_kind;

// An optimizer that follows an ascent direction g (maximization) on a vector theta.
typedef struct ne__optimizer {
  ne__opt_kind kind;    // which rule
  size_t n;             // vector length
  double lr;            // step size (Adam, SGD, ClipUp)
  double beta1, beta2;  // Adam moment decay rates
  double eps;           // Adam denominator guard
  double momentum;      // SGD / ClipUp momentum
  double max_speed;     // ClipUp: largest L2 norm of the velocity
  uint64_t t;           // steps taken so far
  double beta1_t;       // Adam: beta1^t, kept by repeated products (no pow)
  double beta2_t;       // Adam: beta2^t
  float* m;             // (n) Adam first moment; SGD / ClipUp velocity
  float* v;             // (n) Adam second moment (NULL for SGD / ClipUp)
} ne__optimizer;

// Sets the kind and hyper-parameters and allocates zeroed moments. Returns 0 or NE_ENOMEM; free with
// ne__opt_free either way.
int ne__opt_init(ne__optimizer* o, ne__opt_kind kind, size_t n, double lr);

// Frees the moments. Nullable: o.
void ne__opt_free(ne__optimizer* o);

// One step along the ascent direction g: theta += step(g). Returns the step's L2 norm.
double ne__opt_step(ne__optimizer* o, const float* g, float* theta);

// Serialization of the moments and step count (hyper-parameters come from the config).
void ne__opt_save(const ne__optimizer* o, ne_buf* b);
int ne__opt_load(ne__optimizer* o, ne_reader* r);

// ---- observation statistics ------------------------------------------------------------------

// How the normalization is derived from the statistics.
typedef enum ne__obs_rule {
  NE__OBS_ES = 0,   // OpenAI ES: a prior of count 0.01 with variance 1, std = sqrt(max(var, 1e-2))
  NE__OBS_ARS = 1,  // ARS V2: identity until 2 observations, sample std, std < 1e-7 -> component ignored
} ne__obs_rule;

// Running mean and sum of squared deviations of every observation seen, merged result by result in
// candidate order (Chan et al.'s pairwise update, in doubles), plus the float normalization the
// next batch uses.
typedef struct ne__obs_stats {
  int dim;            // observation length
  ne__obs_rule rule;  // how norm_mean/norm_std follow from the statistics
  double count;       // observations merged (plus the prior's weight)
  double* mean;       // (dim) running mean
  double* m2;         // (dim) running sum of squared deviations from the mean
  float* norm_mean;   // (dim) what batches subtract
  float* norm_std;    // (dim) what batches divide by
} ne__obs_stats;

// Allocates the statistics with the rule's prior and sets the normalization. 0 or NE_ENOMEM; free
// with ne__obs_stats_free either way.
int ne__obs_stats_init(ne__obs_stats* s, int dim, ne__obs_rule rule);
void ne__obs_stats_free(ne__obs_stats* s);

// Merges one block of observations given as (count, per-component sum, sum of squares).
void ne__obs_stats_merge(ne__obs_stats* s, double count, const double* sum, const double* sumsq);

// Merges results[0..n) in index order (failed or empty ones are skipped).
void ne__obs_stats_merge_results(ne__obs_stats* s, const ne_result* results, int n);

// Recomputes norm_mean/norm_std from the statistics (a pure function of them).
void ne__obs_stats_refresh(ne__obs_stats* s);

// Serialization (the normalization is recomputed on load).
void ne__obs_stats_save(const ne__obs_stats* s, ne_buf* b);
int ne__obs_stats_load(ne__obs_stats* s, ne_reader* r);

// ---- candidates, blobs, best-so-far ----------------------------------------------------------

// A content hash of a broadcast vector, salted (e.g. with the generation), for ne_blob.hash.
uint64_t ne__blob_hash(const float* v, size_t n, uint64_t salt);

// Fills cands[2k] and cands[2k+1] (k < n_pairs) as the mirrored pair blob ± sigma * eps(seed_k),
// with seed_k = seeds[k]; both members of a pair share their episode seeds (common random numbers
// make the difference r+ - r- measure the direction, not the start states).
void ne__mirrored_pairs(ne_candidate* cands, int n_pairs, const uint64_t* seeds, uint32_t blob, float sigma,
                        uint32_t episodes, uint64_t run_seed, uint32_t generation);

// Sets candidate k to evaluate its own explicit vector (NE_CAND_VECTOR) data[0..n) as blob k, whose
// hash is `hash` (CMA-ES samples, an optimizer server's asks).
void ne__vector_candidate(ne_candidate* c, ne_blob* b, uint32_t k, uint32_t episodes, uint64_t episode_seed,
                          uint64_t hash, const float* data, size_t n);

// Sets c to evaluate blob `blob` unperturbed (a centre evaluation) on `episodes` episodes.
void ne__centre_candidate(ne_candidate* c, uint32_t index, uint32_t blob, uint32_t episodes, uint64_t run_seed,
                          uint32_t generation);

// The best centre so far: its parameters and the observation normalization it was evaluated with.
typedef struct ne__best_centre {
  int found;            // 0 until the first centre evaluation
  double score;         // its centre-evaluation mean
  uint32_t generation;  // generation it was evaluated in
  size_t n;             // parameter count
  int obs_dim;          // observation length (0: no normalization kept)
  int has_norm;         // 1 if obs_mean/obs_std hold the normalization it ran with
  float obs_clip;       // clip it ran with
  float* params;        // (n)
  float* obs_mean;      // (obs_dim)
  float* obs_std;       // (obs_dim)
} ne__best_centre;

int ne__best_init(ne__best_centre* b, size_t n, int obs_dim);
void ne__best_free(ne__best_centre* b);

// Keeps (params, normalization) as the best if score beats it (first call always does).
// Nullable: obs_mean, obs_std (no normalization).
void ne__best_offer(ne__best_centre* b, double score, uint32_t generation, const float* params, const float* obs_mean,
                    const float* obs_std, float obs_clip);

// Exports it for ne_algo_vt.best: 0, or NE_ENOTFOUND before any.
int ne__best_export(const ne__best_centre* b, ne_best* out);

void ne__best_save(const ne__best_centre* b, ne_buf* buf);
int ne__best_load(ne__best_centre* b, ne_reader* r);

// ---- serialization helpers ---------------------------------------------------------------------

void ne__report_save(const ne_gen_report* r, ne_buf* b);
void ne__report_load(ne_gen_report* r, ne_reader* rd);

// A float vector with its length; load checks the length against n (NE_ECORRUPT on mismatch).
void ne__floats_save(const float* v, size_t n, ne_buf* b);
int ne__floats_load(float* v, size_t n, ne_reader* r);

// L2 norm in double, summed in index order.
double ne__norm(const float* v, size_t n);

#endif
