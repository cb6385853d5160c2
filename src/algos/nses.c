// SPDX-License-Identifier: MIT
// NS-ES, NSR-ES and NSRA-ES (Conti et al. 2018, "Improving Exploration in Evolution Strategies for
// Deep Reinforcement Learning via a Population of Novelty-Seeking Agents", NeurIPS; the reference
// is uber-research/deep-neuroevolution es_distributed/nses.py) as pure ask/tell algorithms over
// OpenAI ES's machinery (es_common.h, the [es] section's settings).
//
// A meta-population of M centres (novelty.meta_population, 5), each with its own Adam moments and
// observation statistics. Generation 0 first evaluates all M (their behaviours seed the archive,
// as the reference does before its loop). Each generation updates one centre m: mirrored pairs
// m +- sigma*eps are evaluated, each perturbation's novelty is the mean distance of its behaviour
// to the k nearest (k = 10) in the archive, and the ES step follows
//   NS-ES:   centered ranks of the novelties,
//   NSR-ES:  the mean of the reward's and the novelty's centered ranks,
//   NSRA-ES: w * reward ranks + (1 - w) * novelty ranks, w adapted (below),
// with Adam, L2 decay and the mirrored-pair gradient of es.c. A second round evaluates the updated
// centre on es.eval_episodes episodes: its behaviour joins the archive, its mean return is the
// generation's elite score (best.params keeps the best such centre), and the next centre is drawn
// with probability proportional to its novelty against the archive (the paper's; or round robin).
// NSRA-ES's weight starts at novelty.weight (1.0): a centre evaluation above the best so far
// raises it by weight_delta (0.05), weight_patience (10) generations without one lower it by as
// much (clamped to [0, 1]). Every draw derives from (run seed, generation, index, purpose).
#include <math.h>
#include <string.h>

#include "algos/es_common.h"
#include "algos/novelty.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

#define NSES_STATE_MAGIC 0x3145534eu  // "NSE1"

typedef enum nses_mode { MODE_NS = 0, MODE_NSR = 1, MODE_NSRA = 2 } nses_mode;
typedef enum nses_phase { PHASE_POPULATION, PHASE_CENTRE } nses_phase;

// One member of the meta-population.
typedef struct centre {
  float* theta;       // (P) parameters
  ne__optimizer opt;  // its Adam / SGD moments
  ne__obs_stats obs;  // its observation statistics
  float* bc;          // (bc_dim) its behaviour at its last evaluation
  double score;       // that evaluation's mean return (NaN before any)
} centre;

typedef struct nses {
  // configuration
  ne_problem prob;
  nses_mode mode;
  int m;                  // meta-population size M
  int round_robin;        // 1: centres in turn instead of by novelty
  int n_pairs;            // mirrored pairs per generation
  float sigma;            // perturbation standard deviation
  double l2coeff;         // weight decay
  int obs_norm;           // 1: normalize observations (per centre)
  float obs_clip;         // clip of normalized observations
  int eval_episodes;      // episodes of a centre evaluation
  double w_delta;         // NSRA: weight step
  int patience;           // NSRA: generations without improvement before w decreases
  ne_noise_table* noise;  // es.noise = table (owned); NULL: the generator
  // state at the generation boundary (what a checkpoint holds)
  uint32_t generation;   // generations completed
  centre* c;             // (m)
  int cur;               // the centre the next generation updates
  int initialized;       // 1 once the M initial behaviours are archived
  ne__archive archive;   // behaviours of every evaluated centre
  double w;              // reward weight (NS 0, NSR 0.5, NSRA adapted)
  double f_best;         // best centre evaluation so far (NSRA's performance)
  int stagnation;        // NSRA: generations since f_best improved
  ne__best_centre best;  // best centre so far by its evaluation
  ne_gen_report report;  // figures of the last completed generation
  // the generation in progress (scratch, allocated once)
  nses_phase phase;
  uint64_t* seeds;      // (n_pairs) perturbation seeds
  double* fitness;      // (2 n_pairs) returns
  double* novelty;      // (2 n_pairs) novelties
  double* rank_f;       // (2 n_pairs) centered ranks of the returns
  double* rank_n;       // (2 n_pairs) centered ranks of the novelties
  double* shaped;       // (2 n_pairs) their weighted sum
  double* centre_nov;   // (m) the centres' novelties (choosing the next one)
  ne__ranked* ranks;    // (2 n_pairs) sort scratch
  float* grad;          // (P) gradient estimate
  ne_candidate* cands;  // (2 n_pairs + m) pairs, then (generation 0) every centre
  ne_blob* blobs;       // (m) broadcast centres
  ne_batch batch;       // what ask hands out
  ne__knn knn;          // k-NN scratch
  // asked ahead (nses_ask_ahead): the next generation's population while the centre round runs
  uint64_t* ahead_seeds;      // (n_pairs)
  ne_candidate* ahead_cands;  // (2 n_pairs)
  ne_blob ahead_blob;         // the next centre
  ne_batch ahead_batch;
} nses;

// ---- configuration -------------------------------------------------------------------------

static void nses_destroy(void* self) {
  nses* e = self;
  if (!e) return;
  for (int j = 0; e->c && j < e->m; j++) {
    ne_free(e->c[j].theta);
    ne_free(e->c[j].bc);
    ne__opt_free(&e->c[j].opt);
    ne__obs_stats_free(&e->c[j].obs);
  }
  ne_free(e->c);
  ne_free(e->seeds);
  ne_free(e->fitness);
  ne_free(e->novelty);
  ne_free(e->rank_f);
  ne_free(e->rank_n);
  ne_free(e->shaped);
  ne_free(e->ranks);
  ne_free(e->grad);
  ne_free(e->cands);
  ne_free(e->blobs);
  ne_free(e->centre_nov);
  ne_free(e->ahead_seeds);
  ne_free(e->ahead_cands);
  ne_noise_table_destroy(e->noise);
  ne__archive_free(&e->archive);
  ne__knn_free(&e->knn);
  ne__best_free(&e->best);
  ne_free(e);
}

// The M centres: the policy's initialization from seeds (run seed, 0, j), each with its optimizer.
static int centres_alloc(nses* e, const ne_config* cfg) {
  size_t p = e->prob.n_params;
  int sgd = strcmp(ne_config_str(cfg, "es", "optimizer"), "sgd") == 0;
  double lr = ne_config_float(cfg, "es", "lr");
  e->c = ne_calloc((size_t)e->m, sizeof *e->c);
  if (!e->c) return NE_ENOMEM;
  for (int j = 0; j < e->m; j++) {
    centre* c = &e->c[j];
    c->score = NAN;
    c->theta = ne_calloc(p, sizeof(float));
    c->bc = ne_calloc((size_t)e->prob.bc_dim, sizeof(float));
    int rc = c->theta && c->bc ? 0 : NE_ENOMEM;
    if (!rc) rc = ne__opt_init(&c->opt, sgd ? NE__OPT_SGD : NE__OPT_ADAM, p, lr);
    c->opt.momentum = ne_config_float(cfg, "es", "momentum");
    if (!rc) rc = ne__obs_stats_init(&c->obs, e->prob.obs_dim, NE__OBS_ES);
    if (rc) return rc;
    ne_policy_init_params(e->prob.policy, ne_seed_derive(e->prob.seed, 0, (uint64_t)j, NE_PURPOSE_INIT), c->theta);
  }
  return 0;
}

static int scratch_alloc(nses* e) {
  size_t n2 = 2 * (size_t)e->n_pairs;
  e->seeds = ne_calloc((size_t)e->n_pairs, sizeof *e->seeds);
  e->fitness = ne_calloc(n2, sizeof *e->fitness);
  e->novelty = ne_calloc(n2, sizeof *e->novelty);
  e->rank_f = ne_calloc(n2, sizeof *e->rank_f);
  e->rank_n = ne_calloc(n2, sizeof *e->rank_n);
  e->shaped = ne_calloc(n2, sizeof *e->shaped);
  e->ranks = ne_calloc(n2, sizeof *e->ranks);
  e->grad = ne_calloc(e->prob.n_params, sizeof *e->grad);
  e->cands = ne_calloc(n2 + (size_t)e->m, sizeof *e->cands);
  e->blobs = ne_calloc((size_t)e->m, sizeof *e->blobs);
  e->centre_nov = ne_calloc((size_t)e->m, sizeof *e->centre_nov);
  e->ahead_seeds = ne_calloc((size_t)e->n_pairs, sizeof *e->ahead_seeds);
  e->ahead_cands = ne_calloc(n2, sizeof *e->ahead_cands);
  return e->seeds && e->fitness && e->novelty && e->rank_f && e->rank_n && e->shaped && e->ranks && e->grad &&
          e->cands && e->blobs && e->centre_nov && e->ahead_seeds && e->ahead_cands
      ? 0
      : NE_ENOMEM;
}

static int nses_create_mode(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr,
                            nses_mode mode) {
  *self = NULL;
  int population = (int)ne_config_int(cfg, "es", "population");
  if (population % 2)
    return ne__set_error(errstr, NE_EINVAL, "es.population = %d: must be even (mirrored pairs)", population);
  if (problem->bc_dim <= 0)
    return ne__set_error(errstr, NE_EINVAL,
                         "%s needs behaviour characterizations, and this problem has none to "
                         "compare (black-box functions and Python ask/tell have none; see env.behaviour)",
                         mode == MODE_NS        ? "ns-es"
                             : mode == MODE_NSR ? "nsr-es"
                                                : "nsra-es");
  nses* e = ne_calloc(1, sizeof *e);
  if (!e) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  e->prob = *problem;
  e->mode = mode;
  e->m = (int)ne_config_int(cfg, "novelty", "meta_population");
  e->round_robin = strcmp(ne_config_str(cfg, "novelty", "selection"), "round_robin") == 0;
  e->n_pairs = population / 2;
  e->sigma = (float)ne_config_float(cfg, "es", "sigma");
  e->l2coeff = ne_config_float(cfg, "es", "l2coeff");
  e->obs_norm = ne_config_bool(cfg, "es", "obs_norm") && problem->obs_dim > 0;
  e->obs_clip = (float)ne_config_float(cfg, "es", "obs_clip");
  e->eval_episodes = (int)ne_config_int(cfg, "es", "eval_episodes");
  e->w_delta = ne_config_float(cfg, "novelty", "weight_delta");
  e->patience = (int)ne_config_int(cfg, "novelty", "weight_patience");
  e->w = mode == MODE_NS ? 0.0 : mode == MODE_NSR ? 0.5 : ne_config_float(cfg, "novelty", "weight");
  e->f_best = -INFINITY;
  e->report.elite_mean = NAN;
  *self = e;
  int rc = centres_alloc(e, cfg);
  if (!rc) rc = scratch_alloc(e);
  if (!rc) rc = ne__archive_init(&e->archive, problem->bc_dim, (int)ne_config_int(cfg, "novelty", "archive_max"));
  if (!rc) rc = ne__knn_init(&e->knn, ne__novelty_k(cfg, 0));
  if (!rc) rc = ne__best_init(&e->best, problem->n_params, problem->obs_dim);
  if (rc) return ne__set_error(errstr, rc, "out of memory for %d centres of %zu parameters", e->m, problem->n_params);
  return ne_algo_noise_table(cfg, problem->seed, problem->n_params, &e->noise, errstr);
}

static int ns_create(const ne_problem* p, const ne_config* cfg, void** self, char* errstr) {
  return nses_create_mode(p, cfg, self, errstr, MODE_NS);
}
static int nsr_create(const ne_problem* p, const ne_config* cfg, void** self, char* errstr) {
  return nses_create_mode(p, cfg, self, errstr, MODE_NSR);
}
static int nsra_create(const ne_problem* p, const ne_config* cfg, void** self, char* errstr) {
  return nses_create_mode(p, cfg, self, errstr, MODE_NSRA);
}

// ---- ask -----------------------------------------------------------------------------------

// Centre j's parameters as a blob of generation gen's round `round`, under a hash unique to
// (generation, round, k) for blob k of the batch.
static ne_blob centre_blob(const nses* e, uint32_t gen, int k, int j, uint32_t round) {
  uint64_t salt = ne_seed_derive(e->prob.seed, gen, (uint64_t)round << 32 | (uint32_t)k, NE_PURPOSE_ALGO);
  return (ne_blob){ne__blob_hash(e->c[j].theta, e->prob.n_params, salt), e->prob.n_params, e->c[j].theta};
}

// Blob k of the batch: centre j's parameters in this generation.
static void set_blob(nses* e, int k, int j, uint32_t round) {
  e->blobs[k] = centre_blob(e, e->generation, k, j, round);
}

// A batch frame for centre j: behaviours always, its observation normalization when on.
static void frame_batch(const nses* e, ne_batch* b, uint32_t gen, uint32_t round, int j, int n, ne_candidate* cands,
                        int n_blobs, ne_blob* blobs) {
  memset(b, 0, sizeof *b);
  b->generation = gen;
  b->round = round;
  b->n = n;
  b->cands = cands;
  b->n_blobs = n_blobs;
  b->blobs = blobs;
  b->noise_table = e->noise;
  b->want_bc = 1;
  if (e->obs_norm) {
    const ne__obs_stats* s = &e->c[j].obs;
    b->want_obs_stats = round == 0;  // the population's rollouts feed the statistics
    b->obs_mean = s->norm_mean;
    b->obs_std = s->norm_std;
    b->obs_clip = e->obs_clip;
  }
}

// The batch frame of this generation: the current centre's.
static void set_batch(nses* e, uint32_t round, int n, int n_blobs) {
  frame_batch(e, &e->batch, e->generation, round, e->cur, n, e->cands, n_blobs, e->blobs);
}

// Mirrored pairs around blob 0 for generation gen, seeds and candidates into the given arrays.
static void pairs_of(const nses* e, uint32_t gen, uint64_t* seeds, ne_candidate* cands) {
  for (int k = 0; k < e->n_pairs; k++) seeds[k] = ne_seed_derive(e->prob.seed, gen, (uint64_t)k, NE_PURPOSE_MUTATION);
  ne__mirrored_pairs(cands, e->n_pairs, seeds, 0, e->sigma, (uint32_t)e->prob.episodes, e->prob.seed, gen);
}

// Round 0: mirrored pairs around the current centre; in generation 0 also every centre as is.
static void ask_population(nses* e) {
  uint32_t gen = e->generation;
  int n2 = 2 * e->n_pairs, n_blobs = 1;
  set_blob(e, 0, e->cur, 0);
  pairs_of(e, gen, e->seeds, e->cands);
  int n = n2;
  if (!e->initialized) {
    // the reference archives every centre's behaviour before its first update; cur is 0 here
    for (int j = 0; j < e->m; j++) {
      if (j > 0) set_blob(e, j, j, 0);
      ne__centre_candidate(&e->cands[n2 + j], (uint32_t)(n2 + j), (uint32_t)j, (uint32_t)e->eval_episodes, e->prob.seed,
                           gen);
    }
    n += e->m;
    n_blobs = e->m;
  }
  set_batch(e, 0, n, n_blobs);
}

// Round 1: the updated centre, evaluated as is.
static void ask_centre(nses* e) {
  set_blob(e, 0, e->cur, 1);
  ne__centre_candidate(&e->cands[0], 0, 0, (uint32_t)e->eval_episodes, e->prob.seed, e->generation);
  set_batch(e, 1, 1, 1);
}

static int nses_ask(void* self, const ne_batch** out) {
  nses* e = self;
  if (e->phase == PHASE_POPULATION) ask_population(e);
  else ask_centre(e);
  *out = &e->batch;
  return 0;
}

// The centre the next generation updates when it does not depend on the centre round: the next
// in turn (or the only one); -1 when it is drawn by novelty against the archive, which the round
// about to be told adds to.
static int next_centre_known(const nses* e) { return e->round_robin || e->m == 1 ? (e->cur + 1) % e->m : -1; }

// While the centre round is asked: the next generation's population round, when its centre is
// known already (round robin, or a single centre). The centre it perturbs and that centre's
// observation statistics do not change at the centre round's tell (which archives a behaviour and
// picks the next centre), so these are the very candidates the next ask hands out.
static int nses_ask_ahead(void* self, const ne_batch** out) {
  nses* e = self;
  int next = next_centre_known(e);
  *out = NULL;
  if (e->phase != PHASE_CENTRE || next < 0) return 0;
  uint32_t gen = e->generation + 1;
  e->ahead_blob = centre_blob(e, gen, 0, next, 0);
  pairs_of(e, gen, e->ahead_seeds, e->ahead_cands);
  frame_batch(e, &e->ahead_batch, gen, 0, next, 2 * e->n_pairs, e->ahead_cands, 1, &e->ahead_blob);
  *out = &e->ahead_batch;
  return 0;
}

// ---- tell ----------------------------------------------------------------------------------

// Archives a behaviour (a draw seed unique to (generation, slot)); failed evaluations are skipped.
static int archive_result(nses* e, const ne_result* r, uint64_t slot) {
  if (r->status != 0 || !r->bc) return 0;
  return ne__archive_insert(&e->archive, r->bc, ne__novelty_seed(e->prob.seed, e->generation, slot));
}

// Generation 0: the M initial centres' evaluations, in index order.
static int tell_initial(nses* e, const ne_result* results) {
  int n2 = 2 * e->n_pairs;
  for (int j = 0; j < e->m; j++) {
    const ne_result* r = &results[n2 + j];
    int rc = archive_result(e, r, (uint64_t)j);
    if (rc) return rc;
    centre* c = &e->c[j];
    if (r->status == 0 && r->bc) memcpy(c->bc, r->bc, (size_t)e->prob.bc_dim * sizeof(float));
    c->score = r->status == 0 ? r->fitness : NAN;
    if (r->status == 0 && isfinite(r->fitness)) {
      if (r->fitness > e->f_best) e->f_best = r->fitness;
      ne__best_offer(&e->best, r->fitness, e->generation, c->theta, e->obs_norm ? c->obs.norm_mean : NULL,
                     e->obs_norm ? c->obs.norm_std : NULL, e->obs_clip);
    }
  }
  e->initialized = 1;
  return 0;
}

// g = sum_k (u+_k - u-_k) eps_k / (2n) - l2coeff * theta over the current centre, summed in pair order.
static void estimate_gradient(nses* e, const float* theta) {
  size_t p = e->prob.n_params;
  int n2 = 2 * e->n_pairs;
  memset(e->grad, 0, p * sizeof(float));
  for (int k = 0; k < e->n_pairs; k++) {
    double w = (e->shaped[2 * k] - e->shaped[2 * k + 1]) / (double)n2;
    if (w != 0) ne_noise_perturb_axpy(e->noise, e->seeds[k], p, (float)w, e->grad);
  }
  float l2 = (float)e->l2coeff;
  if (l2 != 0)
    for (size_t i = 0; i < p; i++) e->grad[i] -= l2 * theta[i];
}

static int tell_population(nses* e, const ne_result* results, int* done) {
  int n2 = 2 * e->n_pairs;
  if (!e->initialized) {
    int rc = tell_initial(e, results);
    if (rc) return rc;
  }
  // rewards and novelties of the perturbations (a failed one ranks last in both)
  for (int i = 0; i < n2; i++) {
    e->fitness[i] = ne__result_fitness(&results[i]);
    e->novelty[i] = isfinite(e->fitness[i]) && results[i].bc
        ? ne__novelty(&e->knn, results[i].bc, &e->archive, NULL, 0, -1)
        : -INFINITY;
  }
  memset(&e->report, 0, sizeof e->report);
  e->report.generation = e->generation;
  e->report.elite_mean = NAN;
  ne__population_figures(e->fitness, n2, e->ranks, &e->report);
  // the step: w * reward ranks + (1 - w) * novelty ranks
  ne__centered_ranks(e->fitness, n2, e->rank_f, e->ranks);
  ne__centered_ranks(e->novelty, n2, e->rank_n, e->ranks);
  for (int i = 0; i < n2; i++) e->shaped[i] = e->w * e->rank_f[i] + (1.0 - e->w) * e->rank_n[i];
  centre* c = &e->c[e->cur];
  estimate_gradient(e, c->theta);
  e->report.extra[0] = ne__opt_step(&c->opt, e->grad, c->theta);
  if (e->obs_norm) {
    ne__obs_stats_merge_results(&c->obs, results, n2);
    ne__obs_stats_refresh(&c->obs);
  }
  e->phase = PHASE_CENTRE;
  *done = 0;
  return 0;
}

// NSRA-ES: more reward weight after an improvement, less after `patience` generations without.
static void adapt_weight(nses* e, double score) {
  if (isfinite(score) && score > e->f_best) {
    e->f_best = score;
    e->stagnation = 0;
    if (e->mode == MODE_NSRA) e->w = fmin(1.0, e->w + e->w_delta);
    return;
  }
  if (++e->stagnation < e->patience) return;
  e->stagnation = 0;
  if (e->mode == MODE_NSRA) e->w = fmax(0.0, e->w - e->w_delta);
}

// The next centre: drawn with probability proportional to its novelty against the archive (all
// equal when none has any), or the next in turn.
static void choose_centre(nses* e) {
  int next = next_centre_known(e);
  if (next >= 0) {
    e->cur = next;
    return;
  }
  double total = 0;
  for (int j = 0; j < e->m; j++) {
    e->centre_nov[j] = ne__novelty(&e->knn, e->c[j].bc, &e->archive, NULL, 0, -1);
    total += e->centre_nov[j];
  }
  ne_rng rng;
  ne_rng_seed(&rng, ne_seed_derive(e->prob.seed, e->generation, 0, NE_PURPOSE_SELECTION));
  if (!(total > 0) || !isfinite(total)) {
    e->cur = (int)ne_rng_below(&rng, (uint64_t)e->m);
    return;
  }
  double u = ne_rng_uniform(&rng) * total, acc = 0;
  e->cur = e->m - 1;
  for (int j = 0; j < e->m; j++) {
    acc += e->centre_nov[j];
    if (u < acc) {
      e->cur = j;
      break;
    }
  }
}

static int tell_centre(nses* e, const ne_result* results, int* done) {
  const ne_result* r = &results[0];
  centre* c = &e->c[e->cur];
  int rc = archive_result(e, r, (uint64_t)e->m);
  if (rc) return rc;
  if (r->status == 0 && r->bc) memcpy(c->bc, r->bc, (size_t)e->prob.bc_dim * sizeof(float));
  double score = r->status == 0 ? r->fitness : NAN;
  c->score = score;
  e->report.elite_mean = score;
  if (isfinite(score))
    ne__best_offer(&e->best, score, e->generation, c->theta, e->obs_norm ? c->obs.norm_mean : NULL,
                   e->obs_norm ? c->obs.norm_std : NULL, e->obs_clip);
  adapt_weight(e, score);
  e->report.extra[1] = e->w;
  e->report.extra[2] = e->archive.n;
  e->report.extra[3] = e->cur;
  choose_centre(e);
  e->generation++;
  e->phase = PHASE_POPULATION;
  *done = 1;
  return 0;
}

static int nses_tell(void* self, const ne_batch* batch, const ne_result* results, int* done) {
  nses* e = self;
  if (batch != &e->batch) return NE_EINVAL;
  return e->phase == PHASE_POPULATION ? tell_population(e, results, done) : tell_centre(e, results, done);
}

// ---- reporting and checkpoints -------------------------------------------------------------

static void nses_report(void* self, ne_gen_report* out) { *out = ((nses*)self)->report; }

static int nses_best(void* self, ne_best* out) { return ne__best_export(&((nses*)self)->best, out); }

static int nses_archive(void* self, const float** data, int* n, int* dim) {
  nses* e = self;
  *data = e->archive.data;
  *n = e->archive.n;
  *dim = e->archive.dim;
  return 0;
}

static int nses_save(void* self, uint8_t** data, size_t* len) {
  nses* e = self;
  if (e->phase != PHASE_POPULATION) return NE_ESTATE;
  ne_buf b;
  ne__buf_init(&b);
  ne__buf_u32(&b, NSES_STATE_MAGIC);
  ne__buf_u32(&b, (uint32_t)e->mode);
  ne__buf_u32(&b, (uint32_t)e->m);
  ne__buf_u32(&b, (uint32_t)e->n_pairs);
  ne__buf_u32(&b, e->generation);
  ne__buf_u32(&b, (uint32_t)e->cur);
  ne__buf_u32(&b, (uint32_t)e->initialized);
  ne__buf_f64(&b, e->w);
  ne__buf_f64(&b, e->f_best);
  ne__buf_u32(&b, (uint32_t)e->stagnation);
  for (int j = 0; j < e->m; j++) {
    const centre* c = &e->c[j];
    ne__floats_save(c->theta, e->prob.n_params, &b);
    ne__opt_save(&c->opt, &b);
    ne__obs_stats_save(&c->obs, &b);
    ne__floats_save(c->bc, (size_t)e->prob.bc_dim, &b);
    ne__buf_f64(&b, c->score);
  }
  ne__archive_save(&e->archive, &b);
  ne__best_save(&e->best, &b);
  ne__report_save(&e->report, &b);
  return ne__buf_take(&b, data, len);
}

static int nses_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  nses* e = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  if (ne__reader_u32(&r) != NSES_STATE_MAGIC) return ne__set_error(errstr, NE_ECORRUPT, "not an NS-ES state");
  uint32_t mode = ne__reader_u32(&r), m = ne__reader_u32(&r), pairs = ne__reader_u32(&r);
  if (mode != (uint32_t)e->mode || m != (uint32_t)e->m || pairs != (uint32_t)e->n_pairs)
    return ne__set_error(errstr, NE_EINVAL,
                         "NS-ES state has variant %u, %u centres and population %u; the config says %d, %d and %d",
                         mode, m, 2 * pairs, (int)e->mode, e->m, 2 * e->n_pairs);
  e->generation = ne__reader_u32(&r);
  e->cur = (int)ne__reader_u32(&r);
  e->initialized = (int)ne__reader_u32(&r);
  e->w = ne__reader_f64(&r);
  e->f_best = ne__reader_f64(&r);
  e->stagnation = (int)ne__reader_u32(&r);
  int rc = 0;
  for (int j = 0; j < e->m && !rc; j++) {
    centre* c = &e->c[j];
    rc = ne__floats_load(c->theta, e->prob.n_params, &r);
    if (!rc) rc = ne__opt_load(&c->opt, &r);
    if (!rc) rc = ne__obs_stats_load(&c->obs, &r);
    if (!rc) rc = ne__floats_load(c->bc, (size_t)e->prob.bc_dim, &r);
    c->score = ne__reader_f64(&r);
  }
  if (!rc) rc = ne__archive_load(&e->archive, &r);
  if (!rc) rc = ne__best_load(&e->best, &r);
  ne__report_load(&e->report, &r);
  if (rc == NE_ENOMEM) return ne__set_error(errstr, rc, "out of memory");
  if (rc || r.bad || r.pos != r.len || e->cur < 0 || e->cur >= e->m || !(e->w >= 0 && e->w <= 1))
    return ne__set_error(errstr, NE_ECORRUPT, "NS-ES state is truncated or corrupt");
  e->phase = PHASE_POPULATION;
  return 0;
}

#define NSES_VT(NAME, CREATE)                                                                                     \
  {                                                                                                               \
    .name = NAME, .section = "es", .create = CREATE, .destroy = nses_destroy, .ask = nses_ask, .tell = nses_tell, \
    .report = nses_report, .best = nses_best, .save = nses_save, .load = nses_load, .archive = nses_archive,      \
    .ask_ahead = nses_ask_ahead,                                                                                  \
  }

const ne_algo_vt ne__algo_ns_es = NSES_VT("ns-es", ns_create);
const ne_algo_vt ne__algo_nsr_es = NSES_VT("nsr-es", nsr_create);
const ne_algo_vt ne__algo_nsra_es = NSES_VT("nsra-es", nsra_create);
