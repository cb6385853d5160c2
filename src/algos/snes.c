// SPDX-License-Identifier: MIT
// Separable NES (Schaul, Glasmachers & Schmidhuber 2011, "High dimensions and heavy tails for natural
// evolution strategies") as a pure ask/tell algorithm: samples z_k = μ + σ⊙s_k, NES utilities u_k
// from the ranks, then μ += η_μ σ⊙Σ u_k s_k and σ ⊙= exp(η_σ/2 · Σ u_k (s_k² − 1)) with the paper's
// defaults η_μ = 1, η_σ = (3 + ln d)/(5√d), λ = 4 + ⌊3 ln d⌋. exp/log are our deterministic ones.
// Samples travel as explicit VECTOR blobs (per-parameter σ); the centre is evaluated each generation.
#include <math.h>
#include <string.h>

#include "algos/es_common.h"
#include "core/detmath.h"  // ne__log: the default rates and population from ln d
#include "core/linalg.h"   // ne__exp: deterministic exp for the log-sigma update
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

#define SNES_STATE_MAGIC 0x53454e53u  // "SNES"

typedef struct snes {
  // configuration
  ne_problem prob;
  int lambda;         // population
  double eta_mu;      // centre learning rate
  double eta_sigma;   // log-σ learning rate
  int obs_norm;       // 1: normalize observations
  float obs_clip;     // clip of normalized observations
  int eval_episodes;  // episodes of the centre evaluation
  // state at the generation boundary
  uint32_t generation;   // generations completed
  float* mu;             // (P) centre
  float* sigma;          // (P) standard deviations
  ne__obs_stats obs;     // running observation statistics
  ne__best_centre best;  // best centre so far
  ne_gen_report report;  // figures of the last completed generation
  // the generation in progress
  uint64_t* seeds;        // (λ) sample seeds
  float* samples;         // (λ, P) z_k
  float* eps;             // (P) noise scratch s_k (generator)
  ne_noise_table* table;  // snes.noise = table: the shared table (owned); NULL: the generator
  double* grad_mu;        // (P) Σ u_k s_k
  double* grad_sigma;     // (P) Σ u_k (s_k² − 1)
  double* fitness;        // (λ)
  double* utility;        // (λ)
  ne__ranked* ranks;      // (λ)
  ne_candidate* cands;    // (λ + 1)
  ne_blob* blobs;         // (λ + 1) μ, then the samples
  ne_batch batch;
} snes;

// ---- configuration -------------------------------------------------------------------------

static void snes_destroy(void* self) {
  snes* s = self;
  if (!s) return;
  ne_free(s->mu);
  ne_free(s->sigma);
  ne_free(s->seeds);
  ne_free(s->samples);
  ne_free(s->eps);
  ne_noise_table_destroy(s->table);
  ne_free(s->grad_mu);
  ne_free(s->grad_sigma);
  ne_free(s->fitness);
  ne_free(s->utility);
  ne_free(s->ranks);
  ne_free(s->cands);
  ne_free(s->blobs);
  ne__obs_stats_free(&s->obs);
  ne__best_free(&s->best);
  ne_free(s);
}

static int snes_alloc(snes* s) {
  size_t p = s->prob.n_params, m = (size_t)s->lambda;
  if (p && m > SIZE_MAX / sizeof(float) / p) return NE_ENOMEM;
  s->mu = ne_calloc(p, sizeof(float));
  s->sigma = ne_calloc(p, sizeof(float));
  s->seeds = ne_calloc(m, sizeof(uint64_t));
  s->samples = ne_malloc(m * p * sizeof(float));
  s->eps = ne_calloc(p, sizeof(float));
  s->grad_mu = ne_calloc(p, sizeof(double));
  s->grad_sigma = ne_calloc(p, sizeof(double));
  s->fitness = ne_calloc(m, sizeof(double));
  s->utility = ne_calloc(m, sizeof(double));
  s->ranks = ne_calloc(m, sizeof(ne__ranked));
  s->cands = ne_calloc(m + 1, sizeof(ne_candidate));
  s->blobs = ne_calloc(m + 1, sizeof(ne_blob));
  int ok = s->mu && s->sigma && s->seeds && s->samples && s->eps && s->grad_mu && s->grad_sigma && s->fitness &&
      s->utility && s->ranks && s->cands && s->blobs;
  int rc = ok ? 0 : NE_ENOMEM;
  if (!rc) rc = ne__obs_stats_init(&s->obs, s->prob.obs_dim, NE__OBS_ES);
  if (!rc) rc = ne__best_init(&s->best, p, s->prob.obs_dim);
  return rc;
}

// The paper's defaults from d = number of parameters, where the config leaves them at 0.
static void defaults(snes* s, const ne_config* cfg) {
  double d = (double)(s->prob.n_params ? s->prob.n_params : 1), ln_d = ne__log(d);
  int lambda = (int)ne_config_int(cfg, "snes", "population");
  s->lambda = lambda > 0 ? lambda : 4 + (int)floor(3.0 * ln_d);
  if (s->lambda < 2) s->lambda = 2;
  s->eta_mu = ne_config_float(cfg, "snes", "center_lr");
  double eta_sigma = ne_config_float(cfg, "snes", "stdev_lr");
  s->eta_sigma = eta_sigma > 0 ? eta_sigma : (3.0 + ln_d) / (5.0 * sqrt(d));
}

static int snes_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  *self = NULL;
  snes* s = ne_calloc(1, sizeof *s);
  if (!s) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  s->prob = *problem;
  defaults(s, cfg);
  s->obs_norm = ne_config_bool(cfg, "snes", "obs_norm") && problem->obs_dim > 0;  // none for black-box functions
  s->obs_clip = (float)ne_config_float(cfg, "snes", "obs_clip");
  s->eval_episodes = (int)ne_config_int(cfg, "snes", "eval_episodes");
  int rc = snes_alloc(s);
  if (rc) {
    snes_destroy(s);
    return ne__set_error(errstr, rc, "out of memory for SNES: %d x %zu parameters", s->lambda, problem->n_params);
  }
  if ((rc = ne_algo_noise_table(cfg, problem->seed, problem->n_params, &s->table, errstr)) != 0) {
    snes_destroy(s);
    return rc;
  }
  ne_policy_init_params(problem->policy, ne_seed_derive(problem->seed, 0, 0, NE_PURPOSE_INIT), s->mu);
  float stdev = (float)ne_config_float(cfg, "snes", "stdev_init");
  for (size_t i = 0; i < problem->n_params; i++) s->sigma[i] = stdev;
  s->report.elite_mean = NAN;
  *self = s;
  return 0;
}

// ---- ask -----------------------------------------------------------------------------------

static void set_blobs(snes* s, uint32_t gen) {
  size_t p = s->prob.n_params;
  uint64_t salt = ne_seed_derive(s->prob.seed, gen, 0, NE_PURPOSE_ALGO);
  uint64_t hmu = ne__blob_hash(s->mu, p, salt), hsig = ne__blob_hash(s->sigma, p, salt);
  s->blobs[0] = (ne_blob){hmu, p, s->mu};
  // a sample is a pure function of (μ, σ, seed): that identifies it
  for (int k = 0; k < s->lambda; k++)
    s->blobs[1 + k] = (ne_blob){ne_hash2(ne_hash2(hmu, hsig), s->seeds[k]), p, s->samples + (size_t)k * p};
}

// s_k: its slice of the shared table, or the generator's values written into s->eps.
static const float* sample_eps(snes* s, int k) {
  size_t p = s->prob.n_params;
  if (s->table) return s->table->data + ne_noise_table_offset(s->table, s->seeds[k], p);
  ne_noise_fill(s->seeds[k], 0, p, s->eps);
  return s->eps;
}

static int snes_ask(void* self, const ne_batch** out) {
  snes* s = self;
  uint32_t gen = s->generation;
  size_t p = s->prob.n_params;
  // z_k = μ + σ⊙s_k
  for (int k = 0; k < s->lambda; k++) {
    s->seeds[k] = ne_seed_derive(s->prob.seed, gen, (uint64_t)k, NE_PURPOSE_MUTATION);
    float* z = s->samples + (size_t)k * p;
    const float* eps = sample_eps(s, k);
    for (size_t i = 0; i < p; i++) z[i] = s->mu[i] + s->sigma[i] * eps[i];
  }
  set_blobs(s, gen);
  for (int k = 0; k < s->lambda; k++) {
    ne__centre_candidate(&s->cands[k], (uint32_t)k, (uint32_t)(1 + k), (uint32_t)s->prob.episodes, s->prob.seed, gen);
    s->cands[k].episode_seed = ne_seed_derive(s->prob.seed, gen, (uint64_t)k, NE_PURPOSE_EPISODE);
  }
  ne__centre_candidate(&s->cands[s->lambda], (uint32_t)s->lambda, 0, (uint32_t)s->eval_episodes, s->prob.seed, gen);
  memset(&s->batch, 0, sizeof s->batch);
  s->batch.generation = gen;
  s->batch.n = s->lambda + 1;
  s->batch.cands = s->cands;
  s->batch.n_blobs = s->lambda + 1;
  s->batch.blobs = s->blobs;
  if (s->obs_norm) {
    s->batch.want_obs_stats = 1;
    s->batch.obs_mean = s->obs.norm_mean;
    s->batch.obs_std = s->obs.norm_std;
    s->batch.obs_clip = s->obs_clip;
  }
  *out = &s->batch;
  return 0;
}

// ---- tell ----------------------------------------------------------------------------------

// The natural-gradient step of μ and log σ; returns the norm of μ's step.
static double update(snes* s) {
  size_t p = s->prob.n_params;
  memset(s->grad_mu, 0, p * sizeof(double));
  memset(s->grad_sigma, 0, p * sizeof(double));
  // Σ u_k s_k and Σ u_k (s_k² − 1), samples in index order (s_k regenerated from its seed)
  for (int k = 0; k < s->lambda; k++) {
    double u = s->utility[k];
    if (u == 0) continue;
    const float* eps = sample_eps(s, k);
    for (size_t i = 0; i < p; i++) {
      double e = eps[i];
      s->grad_mu[i] += u * e;
      s->grad_sigma[i] += u * (e * e - 1.0);
    }
  }
  double norm2 = 0;
  for (size_t i = 0; i < p; i++) {
    double step = s->eta_mu * s->sigma[i] * s->grad_mu[i];
    s->mu[i] = (float)(s->mu[i] + step);
    s->sigma[i] = (float)(s->sigma[i] * ne__exp(0.5 * s->eta_sigma * s->grad_sigma[i]));
    norm2 += step * step;
  }
  return sqrt(norm2);
}

static double mean_sigma(const snes* s) {
  double total = 0;
  for (size_t i = 0; i < s->prob.n_params; i++) total += s->sigma[i];
  return total / (double)(s->prob.n_params ? s->prob.n_params : 1);
}

static int snes_tell(void* self, const ne_batch* batch, const ne_result* results, int* done) {
  snes* s = self;
  if (batch != &s->batch) return NE_EINVAL;
  for (int k = 0; k < s->lambda; k++) s->fitness[k] = ne__result_fitness(&results[k]);
  memset(&s->report, 0, sizeof s->report);
  s->report.generation = s->generation;
  ne__population_figures(s->fitness, s->lambda, s->ranks, &s->report);
  const ne_result* centre = &results[s->lambda];
  s->report.elite_mean = centre->status == 0 ? centre->fitness : NAN;
  if (centre->status == 0 && !isnan(centre->fitness))
    ne__best_offer(&s->best, centre->fitness, s->generation, s->mu, s->obs_norm ? s->obs.norm_mean : NULL,
                   s->obs_norm ? s->obs.norm_std : NULL, s->obs_clip);
  ne__nes_utilities(s->fitness, s->lambda, s->utility, s->ranks);
  s->report.extra[0] = update(s);
  s->report.extra[1] = mean_sigma(s);
  if (s->obs_norm) {
    ne__obs_stats_merge_results(&s->obs, results, s->lambda);
    ne__obs_stats_refresh(&s->obs);
  }
  s->generation++;
  *done = 1;
  return 0;
}

// ---- reporting and checkpoints -------------------------------------------------------------

static void snes_report(void* self, ne_gen_report* out) { *out = ((snes*)self)->report; }

static int snes_best(void* self, ne_best* out) { return ne__best_export(&((snes*)self)->best, out); }

static int snes_save(void* self, uint8_t** data, size_t* len) {
  snes* s = self;
  ne_buf b;
  ne__buf_init(&b);
  ne__buf_u32(&b, SNES_STATE_MAGIC);
  ne__buf_u32(&b, (uint32_t)s->lambda);
  ne__buf_u32(&b, s->generation);
  ne__floats_save(s->mu, s->prob.n_params, &b);
  ne__floats_save(s->sigma, s->prob.n_params, &b);
  ne__obs_stats_save(&s->obs, &b);
  ne__best_save(&s->best, &b);
  ne__report_save(&s->report, &b);
  return ne__buf_take(&b, data, len);
}

static int snes_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  snes* s = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  if (ne__reader_u32(&r) != SNES_STATE_MAGIC) return ne__set_error(errstr, NE_ECORRUPT, "not a SNES state");
  uint32_t lambda = ne__reader_u32(&r);
  if (lambda != (uint32_t)s->lambda)
    return ne__set_error(errstr, NE_EINVAL, "SNES state has population %u, config gives %d", lambda, s->lambda);
  s->generation = ne__reader_u32(&r);
  int rc = ne__floats_load(s->mu, s->prob.n_params, &r);
  if (!rc) rc = ne__floats_load(s->sigma, s->prob.n_params, &r);
  if (!rc) rc = ne__obs_stats_load(&s->obs, &r);
  if (!rc) rc = ne__best_load(&s->best, &r);
  ne__report_load(&s->report, &r);
  if (rc || r.bad || r.pos != r.len) return ne__set_error(errstr, NE_ECORRUPT, "SNES state is truncated or corrupt");
  return 0;
}

const ne_algo_vt ne__algo_snes = {
    .name = "snes",
    .section = "snes",
    .create = snes_create,
    .destroy = snes_destroy,
    .ask = snes_ask,
    .tell = snes_tell,
    .report = snes_report,
    .best = snes_best,
    .save = snes_save,
    .load = snes_load,
};
