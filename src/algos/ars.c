// SPDX-License-Identifier: MIT
// Augmented Random Search (Mania, Guy & Recht 2018, arXiv 1803.07055) as a pure ask/tell algorithm:
// N directions δ_k, rollouts of M ± ν·δ_k (mirrored PERTURB candidates) plus the unperturbed M,
// keep the b best directions by max(r⁺, r⁻), and step M += α / (b σ_R) Σ (r⁺ − r⁻) δ_k with σ_R the
// standard deviation of the 2b returns used. V2 normalizes observations by the mean and standard
// deviation of every state seen so far (ARS's MeanStdFilter, merged in candidate order). M starts
// at zero; pair it with a linear policy (policy.hidden empty) and policy.head = clip as in the paper.
// ars.shift subtracts a constant from every step's reward of the perturbed rollouts (ARS's `shift`,
// the survival bonus of the locomotion tasks): a candidate's return R over T steps counts as R - shift T.
#include <math.h>
#include <string.h>

#include "algos/es_common.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

#define ARS_STATE_MAGIC 0x31535241u  // "ARS1"

typedef struct ars {
  // configuration
  ne_problem prob;
  int directions;         // N
  int top;                // b (<= N)
  float noise;            // ν
  double shift;           // subtracted from each step's reward of the perturbed rollouts
  double step;            // α
  int v2;                 // 1: state normalization (V2)
  int eval_episodes;      // episodes of the unperturbed policy
  ne_noise_table* table;  // ars.noise_source = table: the shared table (owned); NULL: the generator
  // state at the generation boundary
  uint32_t generation;   // generations completed
  float* theta;          // (P) M, flattened as the policy's parameters
  ne__obs_stats obs;     // V2: statistics of every state seen
  ne__best_centre best;  // best policy so far by its evaluation
  ne_gen_report report;  // figures of the last completed generation
  // the generation in progress
  uint64_t* seeds;      // (N) direction seeds
  double* returns;      // (2N) the perturbed rollouts' mean returns, unshifted (population figures)
  double* fitness;      // (2N) returns r⁺_k, r⁻_k at 2k, 2k+1, shifted
  ne__ranked* ranks;    // (2N) sort scratch
  float* grad;          // (P) the step
  ne_candidate* cands;  // (2N + 1)
  ne_blob blob;         // M, broadcast
  ne_batch batch;
} ars;

// ---- configuration -------------------------------------------------------------------------

static void ars_destroy(void* self) {
  ars* a = self;
  if (!a) return;
  ne_free(a->theta);
  ne_free(a->grad);
  ne_free(a->seeds);
  ne_free(a->fitness);
  ne_free(a->returns);
  ne_free(a->ranks);
  ne_free(a->cands);
  ne_noise_table_destroy(a->table);
  ne__obs_stats_free(&a->obs);
  ne__best_free(&a->best);
  ne_free(a);
}

static int ars_alloc(ars* a) {
  size_t p = a->prob.n_params, m = 2 * (size_t)a->directions;
  a->theta = ne_calloc(p, sizeof(float));  // M = 0
  a->grad = ne_calloc(p, sizeof(float));
  a->seeds = ne_calloc((size_t)a->directions, sizeof(uint64_t));
  a->fitness = ne_calloc(m, sizeof(double));
  a->returns = ne_calloc(m, sizeof(double));
  a->ranks = ne_calloc(m, sizeof(ne__ranked));
  a->cands = ne_calloc(m + 1, sizeof(ne_candidate));
  int rc = a->theta && a->grad && a->seeds && a->fitness && a->returns && a->ranks && a->cands ? 0 : NE_ENOMEM;
  if (!rc) rc = ne__obs_stats_init(&a->obs, a->prob.obs_dim, NE__OBS_ARS);
  if (!rc) rc = ne__best_init(&a->best, p, a->prob.obs_dim);
  return rc;
}

static int ars_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  *self = NULL;
  ars* a = ne_calloc(1, sizeof *a);
  if (!a) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  a->prob = *problem;
  a->directions = (int)ne_config_int(cfg, "ars", "directions");
  a->top = (int)ne_config_int(cfg, "ars", "top");
  if (a->top <= 0 || a->top > a->directions) a->top = a->directions;
  a->noise = (float)ne_config_float(cfg, "ars", "noise");
  a->step = ne_config_float(cfg, "ars", "step_size");
  a->shift = ne_config_float(cfg, "ars", "shift");
  // V2 needs observations (black-box functions have none)
  a->v2 = strcmp(ne_config_str(cfg, "ars", "version"), "v2") == 0 && problem->obs_dim > 0;
  a->eval_episodes = (int)ne_config_int(cfg, "ars", "eval_episodes");
  int rc = ars_alloc(a);
  if (rc) {
    ars_destroy(a);
    return ne__set_error(errstr, rc, "out of memory for ARS with %zu parameters", problem->n_params);
  }
  if ((rc = ne_algo_noise_table(cfg, problem->seed, problem->n_params, &a->table, errstr)) != 0) {
    ars_destroy(a);
    return rc;
  }
  a->report.elite_mean = NAN;
  *self = a;
  return 0;
}

// ---- ask -----------------------------------------------------------------------------------

static int ars_ask(void* self, const ne_batch** out) {
  ars* a = self;
  uint32_t gen = a->generation;
  int m = 2 * a->directions;
  for (int k = 0; k < a->directions; k++)
    a->seeds[k] = ne_seed_derive(a->prob.seed, gen, (uint64_t)k, NE_PURPOSE_MUTATION);
  ne__mirrored_pairs(a->cands, a->directions, a->seeds, 0, a->noise, (uint32_t)a->prob.episodes, a->prob.seed, gen);
  ne__centre_candidate(&a->cands[m], (uint32_t)m, 0, (uint32_t)a->eval_episodes, a->prob.seed, gen);
  a->blob = (ne_blob){ne__blob_hash(a->theta, a->prob.n_params, ne_seed_derive(a->prob.seed, gen, 0, NE_PURPOSE_ALGO)),
                      a->prob.n_params, a->theta};
  memset(&a->batch, 0, sizeof a->batch);
  a->batch.generation = gen;
  a->batch.n = m + 1;
  a->batch.cands = a->cands;
  a->batch.n_blobs = 1;
  a->batch.blobs = &a->blob;
  a->batch.noise_table = a->table;
  if (a->v2) {
    // V2: x -> (x - mu) / sigma, no clipping (the paper has none)
    a->batch.want_obs_stats = 1;
    a->batch.obs_mean = a->obs.norm_mean;
    a->batch.obs_std = a->obs.norm_std;
  }
  *out = &a->batch;
  return 0;
}

// ---- tell ----------------------------------------------------------------------------------

// Population standard deviation (ddof 0, as numpy's np.std in the ARS code) of the top-b returns.
static double top_returns_std(const ars* a) {
  double sum = 0, sq = 0;
  for (int j = 0; j < a->top; j++) {
    int k = a->ranks[j].index;
    sum += a->fitness[2 * k] + a->fitness[2 * k + 1];
  }
  double mean = sum / (2.0 * a->top);
  for (int j = 0; j < a->top; j++) {
    int k = a->ranks[j].index;
    double d0 = a->fitness[2 * k] - mean, d1 = a->fitness[2 * k + 1] - mean;
    sq += d0 * d0 + d1 * d1;
  }
  return sqrt(sq / (2.0 * a->top));
}

// M += α / (b σ_R) Σ_{top b} (r⁺ − r⁻) δ_k; returns the step's norm (0 when σ_R is 0 or not finite:
// all returns equal, or a failed rollout, gives no direction).
static double update(ars* a) {
  // directions ranked by max(r⁺, r⁻), best first
  for (int k = 0; k < a->directions; k++) {
    double rp = a->fitness[2 * k], rm = a->fitness[2 * k + 1];
    a->ranks[k] = (ne__ranked){rp > rm ? rp : rm, k};
  }
  ne__sort_desc(a->ranks, a->directions);
  double sigma_r = top_returns_std(a);
  if (!(sigma_r > 0) || !isfinite(sigma_r)) return 0;
  size_t p = a->prob.n_params;
  memset(a->grad, 0, p * sizeof(float));
  for (int j = 0; j < a->top; j++) {
    int k = a->ranks[j].index;
    double coef = a->step * (a->fitness[2 * k] - a->fitness[2 * k + 1]) / ((double)a->top * sigma_r);
    if (coef != 0) ne_noise_perturb_axpy(a->table, a->seeds[k], p, (float)coef, a->grad);
  }
  for (size_t i = 0; i < p; i++) a->theta[i] += a->grad[i];
  return ne__norm(a->grad, p);
}

static int ars_tell(void* self, const ne_batch* batch, const ne_result* results, int* done) {
  ars* a = self;
  if (batch != &a->batch) return NE_EINVAL;
  int m = 2 * a->directions;
  for (int i = 0; i < m; i++) {
    const ne_result* r = &results[i];
    a->returns[i] = ne__result_fitness(r);
    // the mean over episodes of R_e - shift T_e is the mean return less shift times the mean length
    double steps = r->episodes ? (double)r->steps / r->episodes : 0.0;
    a->fitness[i] = a->shift != 0 ? a->returns[i] - a->shift * steps : a->returns[i];
  }
  memset(&a->report, 0, sizeof a->report);
  a->report.generation = a->generation;
  ne__population_figures(a->returns, m, a->ranks, &a->report);
  // the unperturbed policy, before the step moves it
  const ne_result* centre = &results[m];
  a->report.elite_mean = centre->status == 0 ? centre->fitness : NAN;
  if (centre->status == 0 && !isnan(centre->fitness))
    ne__best_offer(&a->best, centre->fitness, a->generation, a->theta, a->v2 ? a->obs.norm_mean : NULL,
                   a->v2 ? a->obs.norm_std : NULL, 0);
  a->report.extra[0] = update(a);
  a->report.extra[1] = a->noise;
  // V2: every state the population visited joins the statistics
  if (a->v2) {
    ne__obs_stats_merge_results(&a->obs, results, m);
    ne__obs_stats_refresh(&a->obs);
  }
  a->generation++;
  *done = 1;
  return 0;
}

// ---- reporting and checkpoints -------------------------------------------------------------

static void ars_report(void* self, ne_gen_report* out) { *out = ((ars*)self)->report; }

static int ars_best(void* self, ne_best* out) { return ne__best_export(&((ars*)self)->best, out); }

static int ars_save(void* self, uint8_t** data, size_t* len) {
  ars* a = self;
  ne_buf b;
  ne__buf_init(&b);
  ne__buf_u32(&b, ARS_STATE_MAGIC);
  ne__buf_u32(&b, (uint32_t)a->directions);
  ne__buf_u32(&b, a->generation);
  ne__floats_save(a->theta, a->prob.n_params, &b);
  ne__obs_stats_save(&a->obs, &b);
  ne__best_save(&a->best, &b);
  ne__report_save(&a->report, &b);
  return ne__buf_take(&b, data, len);
}

static int ars_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  ars* a = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  if (ne__reader_u32(&r) != ARS_STATE_MAGIC) return ne__set_error(errstr, NE_ECORRUPT, "not an ARS state");
  uint32_t directions = ne__reader_u32(&r);
  if (directions != (uint32_t)a->directions)
    return ne__set_error(errstr, NE_EINVAL, "ARS state has %u directions, config says %d", directions, a->directions);
  a->generation = ne__reader_u32(&r);
  int rc = ne__floats_load(a->theta, a->prob.n_params, &r);
  if (!rc) rc = ne__obs_stats_load(&a->obs, &r);
  if (!rc) rc = ne__best_load(&a->best, &r);
  ne__report_load(&a->report, &r);
  if (rc || r.bad || r.pos != r.len) return ne__set_error(errstr, NE_ECORRUPT, "ARS state is truncated or corrupt");
  return 0;
}

const ne_algo_vt ne__algo_ars = {
    .name = "ars",
    .section = "ars",
    .create = ars_create,
    .destroy = ars_destroy,
    .ask = ars_ask,
    .tell = ars_tell,
    .report = ars_report,
    .best = ars_best,
    .save = ars_save,
    .load = ars_load,
};
