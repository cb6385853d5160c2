// SPDX-License-Identifier: MIT
// PGPE (Sehnke et al. 2010) with symmetric sampling and the ClipUp optimizer (Toklu et al. 2020),
// following EvoTorch's PGPE: pairs μ ± σ⊙ε_k, centered ranks over all 2n returns,
//   ∇μ = Σ_k (u⁺ − u⁻)/2 · σ⊙ε_k / n,   ∇σ = Σ_k (u⁺ + u⁻)/2 · σ⊙(ε_k² − 1) / n,
// μ follows ∇μ through ClipUp (or Adam/SGD), σ += stdev_lr·∇σ limited to ±stdev_max_change of its
// old value and to [stdev_min, stdev_max]. Per-parameter σ cannot ride on a scalar PERTURB
// candidate, so samples travel as explicit VECTOR blobs (O(population · P) per generation).
#include <math.h>
#include <string.h>

#include "algos/es_common.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

#define PGPE_STATE_MAGIC 0x45504750u  // "PGPE"

typedef struct pgpe {
  // configuration
  ne_problem prob;
  int n_pairs;                  // population / 2
  double stdev_lr;              // σ learning rate
  double stdev_max_change;      // largest relative σ change per generation (0: none)
  double stdev_min, stdev_max;  // σ bounds (0: none)
  int obs_norm;                 // 1: normalize observations
  float obs_clip;               // clip of normalized observations
  int eval_episodes;            // episodes of the centre evaluation
  // state at the generation boundary
  uint32_t generation;   // generations completed
  float* mu;             // (P) centre
  float* sigma;          // (P) standard deviations
  ne__optimizer opt;     // ClipUp velocity (or Adam/SGD moments) of μ
  ne__obs_stats obs;     // running observation statistics
  ne__best_centre best;  // best centre so far
  ne_gen_report report;  // figures of the last completed generation
  // the generation in progress
  uint64_t* seeds;        // (n_pairs) direction seeds
  float* samples;         // (2 n_pairs, P) the population's parameter vectors
  float* eps;             // (P) noise scratch (generator)
  ne_noise_table* table;  // pgpe.noise = table: the shared table (owned); NULL: the generator
  float* grad_mu;         // (P)
  float* grad_sigma;      // (P)
  double* fitness;        // (2 n_pairs)
  double* shaped;         // (2 n_pairs) centered ranks
  ne__ranked* ranks;      // (2 n_pairs)
  ne_candidate* cands;    // (2 n_pairs + 1)
  ne_blob* blobs;         // (2 n_pairs + 1) μ, then the samples
  ne_batch batch;
} pgpe;

// ---- configuration -------------------------------------------------------------------------

static void pgpe_destroy(void* self) {
  pgpe* g = self;
  if (!g) return;
  ne_free(g->mu);
  ne_free(g->sigma);
  ne_free(g->seeds);
  ne_free(g->samples);
  ne_free(g->eps);
  ne_noise_table_destroy(g->table);
  ne_free(g->grad_mu);
  ne_free(g->grad_sigma);
  ne_free(g->fitness);
  ne_free(g->shaped);
  ne_free(g->ranks);
  ne_free(g->cands);
  ne_free(g->blobs);
  ne__opt_free(&g->opt);
  ne__obs_stats_free(&g->obs);
  ne__best_free(&g->best);
  ne_free(g);
}

static int pgpe_alloc(pgpe* g) {
  size_t p = g->prob.n_params, m = 2 * (size_t)g->n_pairs;
  if (p && m > SIZE_MAX / sizeof(float) / p) return NE_ENOMEM;
  g->mu = ne_calloc(p, sizeof(float));
  g->sigma = ne_calloc(p, sizeof(float));
  g->seeds = ne_calloc((size_t)g->n_pairs, sizeof(uint64_t));
  g->samples = ne_malloc(m * p * sizeof(float));
  g->eps = ne_calloc(p, sizeof(float));
  g->grad_mu = ne_calloc(p, sizeof(float));
  g->grad_sigma = ne_calloc(p, sizeof(float));
  g->fitness = ne_calloc(m, sizeof(double));
  g->shaped = ne_calloc(m, sizeof(double));
  g->ranks = ne_calloc(m, sizeof(ne__ranked));
  g->cands = ne_calloc(m + 1, sizeof(ne_candidate));
  g->blobs = ne_calloc(m + 1, sizeof(ne_blob));
  int ok = g->mu && g->sigma && g->seeds && g->samples && g->eps && g->grad_mu && g->grad_sigma && g->fitness &&
      g->shaped && g->ranks && g->cands && g->blobs;
  int rc = ok ? 0 : NE_ENOMEM;
  if (!rc) rc = ne__obs_stats_init(&g->obs, g->prob.obs_dim, NE__OBS_ES);
  if (!rc) rc = ne__best_init(&g->best, p, g->prob.obs_dim);
  return rc;
}

static int optimizer_init(pgpe* g, const ne_config* cfg) {
  const char* name = ne_config_str(cfg, "pgpe", "optimizer");
  ne__opt_kind kind = strcmp(name, "adam") == 0 ? NE__OPT_ADAM
      : strcmp(name, "sgd") == 0                ? NE__OPT_SGD
                                                : NE__OPT_CLIPUP;
  double lr = ne_config_float(cfg, "pgpe", "center_lr");
  int rc = ne__opt_init(&g->opt, kind, g->prob.n_params, lr);
  g->opt.momentum = ne_config_float(cfg, "pgpe", "momentum");
  double max_speed = ne_config_float(cfg, "pgpe", "max_speed");
  g->opt.max_speed = max_speed > 0 ? max_speed : 2 * lr;  // EvoTorch's ClipUp default
  return rc;
}

// μ from the policy's initialization; σ = stdev_init, or radius_init / sqrt(P) (EvoTorch's radius).
static void initial_distribution(pgpe* g, const ne_config* cfg) {
  size_t p = g->prob.n_params;
  ne_policy_init_params(g->prob.policy, ne_seed_derive(g->prob.seed, 0, 0, NE_PURPOSE_INIT), g->mu);
  double radius = ne_config_float(cfg, "pgpe", "radius_init");
  double stdev = radius > 0 ? radius / sqrt((double)p) : ne_config_float(cfg, "pgpe", "stdev_init");
  for (size_t i = 0; i < p; i++) g->sigma[i] = (float)stdev;
}

static int pgpe_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  *self = NULL;
  int population = (int)ne_config_int(cfg, "pgpe", "population");
  if (population % 2)
    return ne__set_error(errstr, NE_EINVAL, "pgpe.population = %d: must be even (symmetric pairs)", population);
  pgpe* g = ne_calloc(1, sizeof *g);
  if (!g) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  g->prob = *problem;
  g->n_pairs = population / 2;
  g->stdev_lr = ne_config_float(cfg, "pgpe", "stdev_lr");
  g->stdev_max_change = ne_config_float(cfg, "pgpe", "stdev_max_change");
  g->stdev_min = ne_config_float(cfg, "pgpe", "stdev_min");
  g->stdev_max = ne_config_float(cfg, "pgpe", "stdev_max");
  g->obs_norm = ne_config_bool(cfg, "pgpe", "obs_norm") && problem->obs_dim > 0;  // none for black-box functions
  g->obs_clip = (float)ne_config_float(cfg, "pgpe", "obs_clip");
  g->eval_episodes = (int)ne_config_int(cfg, "pgpe", "eval_episodes");
  int rc = pgpe_alloc(g);
  if (!rc) rc = optimizer_init(g, cfg);
  if (rc) {
    pgpe_destroy(g);
    return ne__set_error(errstr, rc, "out of memory for PGPE: %d x %zu parameters", population, problem->n_params);
  }
  if ((rc = ne_algo_noise_table(cfg, problem->seed, problem->n_params, &g->table, errstr)) != 0) {
    pgpe_destroy(g);
    return rc;
  }
  initial_distribution(g, cfg);
  g->report.elite_mean = NAN;
  *self = g;
  return 0;
}

// ---- ask -----------------------------------------------------------------------------------

// ε_k: its slice of the shared table, or the generator's values written into g->eps.
static const float* pair_eps(pgpe* g, int k) {
  size_t p = g->prob.n_params;
  if (g->table) return g->table->data + ne_noise_table_offset(g->table, g->seeds[k], p);
  ne_noise_fill(g->seeds[k], 0, p, g->eps);
  return g->eps;
}

// Samples pair k: x⁺ = μ + σ⊙ε, x⁻ = μ − σ⊙ε (the same rounded σ⊙ε on both sides).
static void sample_pair(pgpe* g, int k) {
  size_t p = g->prob.n_params;
  float* plus = g->samples + (size_t)(2 * k) * p;
  float* minus = plus + p;
  const float* eps = pair_eps(g, k);
  for (size_t i = 0; i < p; i++) {
    float d = g->sigma[i] * eps[i];
    plus[i] = g->mu[i] + d;
    minus[i] = g->mu[i] - d;
  }
}

static void set_blobs(pgpe* g, uint32_t gen) {
  size_t p = g->prob.n_params;
  uint64_t salt = ne_seed_derive(g->prob.seed, gen, 0, NE_PURPOSE_ALGO);
  uint64_t hmu = ne__blob_hash(g->mu, p, salt), hsig = ne__blob_hash(g->sigma, p, salt);
  g->blobs[0] = (ne_blob){hmu, p, g->mu};
  // a sample is a pure function of (μ, σ, seed, sign), so that identifies it without rehashing P floats
  for (int j = 0; j < 2 * g->n_pairs; j++)
    g->blobs[1 + j] = (ne_blob){ne_hash2(ne_hash2(hmu, hsig), ne_hash2(g->seeds[j / 2], (uint64_t)(j % 2))), p,
                                g->samples + (size_t)j * p};
}

static int pgpe_ask(void* self, const ne_batch** out) {
  pgpe* g = self;
  uint32_t gen = g->generation;
  int m = 2 * g->n_pairs;
  for (int k = 0; k < g->n_pairs; k++) {
    g->seeds[k] = ne_seed_derive(g->prob.seed, gen, (uint64_t)k, NE_PURPOSE_MUTATION);
    sample_pair(g, k);
  }
  set_blobs(g, gen);
  // explicit vectors, mirrored pairs sharing their episode seeds
  for (int j = 0; j < m; j++) {
    ne__centre_candidate(&g->cands[j], (uint32_t)j, (uint32_t)(1 + j), (uint32_t)g->prob.episodes, g->prob.seed, gen);
    g->cands[j].episode_seed = ne_seed_derive(g->prob.seed, gen, (uint64_t)(j / 2), NE_PURPOSE_EPISODE);
  }
  ne__centre_candidate(&g->cands[m], (uint32_t)m, 0, (uint32_t)g->eval_episodes, g->prob.seed, gen);
  memset(&g->batch, 0, sizeof g->batch);
  g->batch.generation = gen;
  g->batch.n = m + 1;
  g->batch.cands = g->cands;
  g->batch.n_blobs = m + 1;
  g->batch.blobs = g->blobs;
  if (g->obs_norm) {
    g->batch.want_obs_stats = 1;
    g->batch.obs_mean = g->obs.norm_mean;
    g->batch.obs_std = g->obs.norm_std;
    g->batch.obs_clip = g->obs_clip;
  }
  *out = &g->batch;
  return 0;
}

// ---- tell ----------------------------------------------------------------------------------

// Accumulates ∇μ and ∇σ over the pairs in order (ε regenerated from the seeds).
static void gradients(pgpe* g) {
  size_t p = g->prob.n_params;
  memset(g->grad_mu, 0, p * sizeof(float));
  memset(g->grad_sigma, 0, p * sizeof(float));
  for (int k = 0; k < g->n_pairs; k++) {
    double up = g->shaped[2 * k], um = g->shaped[2 * k + 1];
    float a = (float)((up - um) / 2 / g->n_pairs), b = (float)((up + um) / 2 / g->n_pairs);
    if (a == 0 && b == 0) continue;
    const float* eps = pair_eps(g, k);
    for (size_t i = 0; i < p; i++) {
      float d = g->sigma[i] * eps[i];
      g->grad_mu[i] += a * d;
      g->grad_sigma[i] += b * (d * eps[i] - g->sigma[i]);  // σ(ε² − 1) = ((σε)² − σ²) / σ
    }
  }
}

// σ += stdev_lr ∇σ, within ±max_change of the old value and the bounds. Returns the mean σ.
static double update_sigma(pgpe* g) {
  double total = 0;
  float c = (float)g->stdev_max_change, lo = (float)g->stdev_min, hi = (float)g->stdev_max;
  float lr = (float)g->stdev_lr;
  for (size_t i = 0; i < g->prob.n_params; i++) {
    float old = g->sigma[i], s = old + lr * g->grad_sigma[i];
    if (c > 0) {
      float down = old * (1 - c), up = old * (1 + c);
      s = s < down ? down : (s > up ? up : s);
    }
    if (lo > 0 && s < lo) s = lo;
    if (hi > 0 && s > hi) s = hi;
    g->sigma[i] = s;
    total += s;
  }
  return total / (double)(g->prob.n_params ? g->prob.n_params : 1);
}

static int pgpe_tell(void* self, const ne_batch* batch, const ne_result* results, int* done) {
  pgpe* g = self;
  if (batch != &g->batch) return NE_EINVAL;
  int m = 2 * g->n_pairs;
  for (int i = 0; i < m; i++) g->fitness[i] = ne__result_fitness(&results[i]);
  memset(&g->report, 0, sizeof g->report);
  g->report.generation = g->generation;
  ne__population_figures(g->fitness, m, g->ranks, &g->report);
  const ne_result* centre = &results[m];
  g->report.elite_mean = centre->status == 0 ? centre->fitness : NAN;
  if (centre->status == 0 && !isnan(centre->fitness))
    ne__best_offer(&g->best, centre->fitness, g->generation, g->mu, g->obs_norm ? g->obs.norm_mean : NULL,
                   g->obs_norm ? g->obs.norm_std : NULL, g->obs_clip);
  // both gradients at the old (μ, σ), then the updates
  ne__centered_ranks(g->fitness, m, g->shaped, g->ranks);
  gradients(g);
  g->report.extra[0] = ne__opt_step(&g->opt, g->grad_mu, g->mu);
  g->report.extra[1] = update_sigma(g);
  if (g->obs_norm) {
    ne__obs_stats_merge_results(&g->obs, results, m);
    ne__obs_stats_refresh(&g->obs);
  }
  g->generation++;
  *done = 1;
  return 0;
}

// ---- reporting and checkpoints -------------------------------------------------------------

static void pgpe_report(void* self, ne_gen_report* out) { *out = ((pgpe*)self)->report; }

static int pgpe_best(void* self, ne_best* out) { return ne__best_export(&((pgpe*)self)->best, out); }

static int pgpe_save(void* self, uint8_t** data, size_t* len) {
  pgpe* g = self;
  ne_buf b;
  ne__buf_init(&b);
  ne__buf_u32(&b, PGPE_STATE_MAGIC);
  ne__buf_u32(&b, (uint32_t)g->n_pairs);
  ne__buf_u32(&b, g->generation);
  ne__floats_save(g->mu, g->prob.n_params, &b);
  ne__floats_save(g->sigma, g->prob.n_params, &b);
  ne__opt_save(&g->opt, &b);
  ne__obs_stats_save(&g->obs, &b);
  ne__best_save(&g->best, &b);
  ne__report_save(&g->report, &b);
  return ne__buf_take(&b, data, len);
}

static int pgpe_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  pgpe* g = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  if (ne__reader_u32(&r) != PGPE_STATE_MAGIC) return ne__set_error(errstr, NE_ECORRUPT, "not a PGPE state");
  uint32_t pairs = ne__reader_u32(&r);
  if (pairs != (uint32_t)g->n_pairs)
    return ne__set_error(errstr, NE_EINVAL, "PGPE state has population %u, config says %d", 2 * pairs, 2 * g->n_pairs);
  g->generation = ne__reader_u32(&r);
  int rc = ne__floats_load(g->mu, g->prob.n_params, &r);
  if (!rc) rc = ne__floats_load(g->sigma, g->prob.n_params, &r);
  if (!rc) rc = ne__opt_load(&g->opt, &r);
  if (!rc) rc = ne__obs_stats_load(&g->obs, &r);
  if (!rc) rc = ne__best_load(&g->best, &r);
  ne__report_load(&g->report, &r);
  if (rc || r.bad || r.pos != r.len) return ne__set_error(errstr, NE_ECORRUPT, "PGPE state is truncated or corrupt");
  return 0;
}

const ne_algo_vt ne__algo_pgpe = {
    .name = "pgpe",
    .section = "pgpe",
    .create = pgpe_create,
    .destroy = pgpe_destroy,
    .ask = pgpe_ask,
    .tell = pgpe_tell,
    .report = pgpe_report,
    .best = pgpe_best,
    .save = pgpe_save,
    .load = pgpe_load,
};
