// SPDX-License-Identifier: MIT
// OpenAI ES (Salimans et al. 2017, arXiv 1703.03864) as a pure ask/tell algorithm, following the
// evolution-strategies-starter reference: n mirrored pairs centre ± σ·ε(seed_k) (PERTURB candidates
// over one broadcast centre) plus the unperturbed centre on es.eval_episodes episodes, all in one
// batch. Centered ranks over the 2n returns, g = Σ_k (u⁺_k − u⁻_k) ε_k / (2n) (the reference's
// scaling, without 1/σ), weight decay g −= l2coeff·θ, then Adam (or SGD with momentum). Observation
// statistics of every population rollout are merged in candidate order once per generation.
#include <math.h>
#include <string.h>

#include "algos/es_common.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

#define ES_STATE_MAGIC 0x31305345u  // "ES01"

typedef struct es {
  // configuration
  ne_problem prob;
  int n_pairs;            // mirrored pairs per generation (population / 2)
  float sigma;            // noise standard deviation
  double l2coeff;         // weight decay
  int obs_norm;           // 1: normalize observations
  float obs_clip;         // clip of normalized observations
  int eval_episodes;      // episodes of the centre evaluation
  ne_noise_table* noise;  // es.noise = table: the shared table (owned); NULL: the generator
  // state at the generation boundary (what a checkpoint holds)
  uint32_t generation;   // generations completed
  float* theta;          // (P) the centre
  ne__optimizer opt;     // Adam / SGD moments
  ne__obs_stats obs;     // running observation statistics
  ne__best_centre best;  // best centre so far by its evaluation
  ne_gen_report report;  // figures of the last completed generation
  // the generation in progress (scratch, allocated once)
  uint64_t* seeds;      // (n_pairs) perturbation seeds
  double* fitness;      // (2 n_pairs) population returns
  double* shaped;       // (2 n_pairs) centered ranks
  ne__ranked* ranks;    // (2 n_pairs) sort scratch
  float* grad;          // (P) gradient estimate
  ne_candidate* cands;  // (2 n_pairs + 1) pairs, then the centre
  ne_blob blob;         // the centre, broadcast
  ne_batch batch;       // what ask hands out
} es;

// ---- configuration -------------------------------------------------------------------------

static int es_alloc(es* e) {
  size_t p = e->prob.n_params, m = 2 * (size_t)e->n_pairs;
  e->theta = ne_calloc(p, sizeof(float));
  e->grad = ne_calloc(p, sizeof(float));
  e->seeds = ne_calloc((size_t)e->n_pairs, sizeof(uint64_t));
  e->fitness = ne_calloc(m, sizeof(double));
  e->shaped = ne_calloc(m, sizeof(double));
  e->ranks = ne_calloc(m, sizeof(ne__ranked));
  e->cands = ne_calloc(m + 1, sizeof(ne_candidate));
  if (!e->theta || !e->grad || !e->seeds || !e->fitness || !e->shaped || !e->ranks || !e->cands) return NE_ENOMEM;
  return 0;
}

static void es_destroy(void* self) {
  es* e = self;
  if (!e) return;
  ne_free(e->theta);
  ne_free(e->grad);
  ne_free(e->seeds);
  ne_free(e->fitness);
  ne_free(e->shaped);
  ne_free(e->ranks);
  ne_free(e->cands);
  ne_noise_table_destroy(e->noise);
  ne__opt_free(&e->opt);
  ne__obs_stats_free(&e->obs);
  ne__best_free(&e->best);
  ne_free(e);
}

static int es_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  *self = NULL;
  int population = (int)ne_config_int(cfg, "es", "population");
  if (population % 2)
    return ne__set_error(errstr, NE_EINVAL, "es.population = %d: must be even (mirrored pairs)", population);
  es* e = ne_calloc(1, sizeof *e);
  if (!e) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  e->prob = *problem;
  e->n_pairs = population / 2;
  e->sigma = (float)ne_config_float(cfg, "es", "sigma");
  e->l2coeff = ne_config_float(cfg, "es", "l2coeff");
  e->obs_norm = ne_config_bool(cfg, "es", "obs_norm") && problem->obs_dim > 0;  // none for black-box functions
  e->obs_clip = (float)ne_config_float(cfg, "es", "obs_clip");
  e->eval_episodes = (int)ne_config_int(cfg, "es", "eval_episodes");
  int sgd = strcmp(ne_config_str(cfg, "es", "optimizer"), "sgd") == 0;
  int rc = es_alloc(e);
  double lr = ne_config_float(cfg, "es", "lr");
  if (!rc) rc = ne__opt_init(&e->opt, sgd ? NE__OPT_SGD : NE__OPT_ADAM, problem->n_params, lr);
  e->opt.momentum = ne_config_float(cfg, "es", "momentum");
  if (!rc) rc = ne__obs_stats_init(&e->obs, problem->obs_dim, NE__OBS_ES);
  if (!rc) rc = ne__best_init(&e->best, problem->n_params, problem->obs_dim);
  if (rc) {
    es_destroy(e);
    return ne__set_error(errstr, rc, "out of memory for ES with %zu parameters", problem->n_params);
  }
  if ((rc = ne_algo_noise_table(cfg, problem->seed, problem->n_params, &e->noise, errstr)) != 0) {
    es_destroy(e);
    return rc;
  }
  // the centre starts at the policy's initialization (normalized columns by default)
  ne_policy_init_params(problem->policy, ne_seed_derive(problem->seed, 0, 0, NE_PURPOSE_INIT), e->theta);
  e->report.elite_mean = NAN;
  *self = e;
  return 0;
}

// ---- ask -----------------------------------------------------------------------------------

static int es_ask(void* self, const ne_batch** out) {
  es* e = self;
  uint32_t gen = e->generation;
  int m = 2 * e->n_pairs;
  for (int k = 0; k < e->n_pairs; k++)
    e->seeds[k] = ne_seed_derive(e->prob.seed, gen, (uint64_t)k, NE_PURPOSE_MUTATION);
  ne__mirrored_pairs(e->cands, e->n_pairs, e->seeds, 0, e->sigma, (uint32_t)e->prob.episodes, e->prob.seed, gen);
  ne__centre_candidate(&e->cands[m], (uint32_t)m, 0, (uint32_t)e->eval_episodes, e->prob.seed, gen);
  e->blob = (ne_blob){ne__blob_hash(e->theta, e->prob.n_params, ne_seed_derive(e->prob.seed, gen, 0, NE_PURPOSE_ALGO)),
                      e->prob.n_params, e->theta};
  memset(&e->batch, 0, sizeof e->batch);
  e->batch.generation = gen;
  e->batch.n = m + 1;
  e->batch.cands = e->cands;
  e->batch.n_blobs = 1;
  e->batch.blobs = &e->blob;
  e->batch.noise_table = e->noise;
  if (e->obs_norm) {
    e->batch.want_obs_stats = 1;
    e->batch.obs_mean = e->obs.norm_mean;
    e->batch.obs_std = e->obs.norm_std;
    e->batch.obs_clip = e->obs_clip;
  }
  *out = &e->batch;
  return 0;
}

// ---- tell ----------------------------------------------------------------------------------

// g = Σ_k (u⁺_k − u⁻_k) ε_k / (2n) − l2coeff·θ, summed in pair order.
static void estimate_gradient(es* e) {
  size_t p = e->prob.n_params;
  int m = 2 * e->n_pairs;
  memset(e->grad, 0, p * sizeof(float));
  for (int k = 0; k < e->n_pairs; k++) {
    double w = (e->shaped[2 * k] - e->shaped[2 * k + 1]) / (double)m;
    if (w != 0) ne_noise_perturb_axpy(e->noise, e->seeds[k], p, (float)w, e->grad);
  }
  float l2 = (float)e->l2coeff;
  if (l2 != 0)
    for (size_t i = 0; i < p; i++) e->grad[i] -= l2 * e->theta[i];
}

static int es_tell(void* self, const ne_batch* batch, const ne_result* results, int* done) {
  es* e = self;
  if (batch != &e->batch) return NE_EINVAL;
  int m = 2 * e->n_pairs;
  for (int i = 0; i < m; i++) e->fitness[i] = ne__result_fitness(&results[i]);
  // figures, and the centre's evaluation (before the update moves it)
  memset(&e->report, 0, sizeof e->report);
  e->report.generation = e->generation;
  ne__population_figures(e->fitness, m, e->ranks, &e->report);
  const ne_result* centre = &results[m];
  e->report.elite_mean = centre->status == 0 ? centre->fitness : NAN;
  if (centre->status == 0 && !isnan(centre->fitness))
    ne__best_offer(&e->best, centre->fitness, e->generation, e->theta, e->obs_norm ? e->obs.norm_mean : NULL,
                   e->obs_norm ? e->obs.norm_std : NULL, e->obs_clip);
  // update the centre
  ne__centered_ranks(e->fitness, m, e->shaped, e->ranks);
  estimate_gradient(e);
  e->report.extra[0] = ne__opt_step(&e->opt, e->grad, e->theta);
  e->report.extra[1] = e->sigma;
  // observation statistics of the population's rollouts (the centre's are left out, as in the reference)
  if (e->obs_norm) {
    ne__obs_stats_merge_results(&e->obs, results, m);
    ne__obs_stats_refresh(&e->obs);
  }
  e->generation++;
  *done = 1;
  return 0;
}

// ---- reporting and checkpoints -------------------------------------------------------------

static void es_report(void* self, ne_gen_report* out) { *out = ((es*)self)->report; }

static int es_best(void* self, ne_best* out) { return ne__best_export(&((es*)self)->best, out); }

static int es_save(void* self, uint8_t** data, size_t* len) {
  es* e = self;
  ne_buf b;
  ne__buf_init(&b);
  ne__buf_u32(&b, ES_STATE_MAGIC);
  ne__buf_u32(&b, (uint32_t)e->n_pairs);
  ne__buf_u32(&b, e->generation);
  ne__floats_save(e->theta, e->prob.n_params, &b);
  ne__opt_save(&e->opt, &b);
  ne__obs_stats_save(&e->obs, &b);
  ne__best_save(&e->best, &b);
  ne__report_save(&e->report, &b);
  return ne__buf_take(&b, data, len);
}

static int es_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  es* e = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  if (ne__reader_u32(&r) != ES_STATE_MAGIC) return ne__set_error(errstr, NE_ECORRUPT, "not an ES state");
  uint32_t pairs = ne__reader_u32(&r);
  if (pairs != (uint32_t)e->n_pairs)
    return ne__set_error(errstr, NE_EINVAL, "ES state has population %u, config says %d", 2 * pairs, 2 * e->n_pairs);
  e->generation = ne__reader_u32(&r);
  int rc = ne__floats_load(e->theta, e->prob.n_params, &r);
  if (!rc) rc = ne__opt_load(&e->opt, &r);
  if (!rc) rc = ne__obs_stats_load(&e->obs, &r);
  if (!rc) rc = ne__best_load(&e->best, &r);
  ne__report_load(&e->report, &r);
  if (rc || r.bad || r.pos != r.len) return ne__set_error(errstr, NE_ECORRUPT, "ES state is truncated or corrupt");
  return 0;
}

const ne_algo_vt ne__algo_es = {
    .name = "es",
    .section = "es",
    .create = es_create,
    .destroy = es_destroy,
    .ask = es_ask,
    .tell = es_tell,
    .report = es_report,
    .best = es_best,
    .save = es_save,
    .load = es_load,
};
