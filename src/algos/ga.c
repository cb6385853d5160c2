// SPDX-License-Identifier: MIT
// The Deep GA of Such et al. 2017 ("Deep Neuroevolution", arXiv 1712.06567) as a pure ask/tell
// algorithm. Genomes are seed chains. Each generation: the population (the previous elite unmutated
// at index 0, then children = a uniformly chosen parent among the top T plus one new mutation seed)
// is evaluated; then the top C candidates and the previous elite are re-evaluated on extra episodes
// and the best by that mean becomes the elite. Every draw derives from (run seed, generation, index,
// purpose), so the run is a pure function of (config, seed). With ga.shared_episodes the episode
// seeds derive from (run seed, generation, purpose) alone: common random numbers, every candidate
// of a round on the same episodes (for meta-learning: the same tasks, whose spread in return would
// otherwise outweigh the genomes' differences).
//
// GA-NS (ga.novelty, Such et al. 2017 sec. 4.4 after Lehman & Stanley 2011): the top T by novelty
// become the parents instead of the top T by reward. A genome's novelty is the mean distance of its
// behaviour characterization to the k nearest (k = 25) among the archive and the rest of the
// population; afterwards each genome's behaviour enters the archive with probability
// novelty.archive_prob (0.01). The elite is still chosen (and re-evaluated) by reward.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/chains.h"
#include "algos/es_common.h"  // ranking, population figures, report serialization
#include "algos/novelty.h"    // GA-NS: the archive and k-NN novelty
#include "core/buf.h"
#include "core/util.h"
#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/rng.h"

#define GA_STATE_MAGIC 0x31304147u    // "GA01"
#define GA_NOVELTY_MAGIC 0x31534e47u  // "GNS1": the archive that follows a GA-NS state

typedef enum phase { PHASE_POPULATION, PHASE_REEVAL, PHASE_DONE } phase;

typedef struct ga {
  // configuration
  ne_problem prob;
  int population;        // N
  int truncation;        // T
  float sigma;           // mutation power
  int elite_candidates;  // C
  int elite_episodes;    // episodes of each re-evaluation
  int elitism;           // carry the elite over unmutated
  int shared_episodes;   // every candidate of a round runs the same episode seeds
  // state at the generation boundary (what a checkpoint holds)
  uint32_t generation;  // generations completed
  ne_chains parents;    // top T of the last completed generation
  ne_chains elite;      // 0 or 1 chain: the last elite
  double elite_score;   // its re-evaluation mean (NaN without re-evaluation)
  ne_chains best;       // 0 or 1 chain: the best elite so far
  double best_score;    // its score
  uint32_t best_generation;
  ne_gen_report report;  // figures of the last completed generation
  // the generation in progress
  phase phase;
  ne_chains pop;        // population of the generation in progress
  double* fitness;      // (population) round-0 fitness
  int* order;           // (population) indices sorted by fitness, best first
  ne__ranked* ranks;    // (population) sort scratch
  ne_candidate* cands;  // (population) candidates of the current batch
  ne_batch batch;       // the batch handed out by ask
  int n_reeval;         // candidates in the re-evaluation round
  int* reeval_idx;      // (C + 1) population index of each re-evaluated candidate
  // asked ahead (ga_ask_ahead): the next generation's children, and its elite's evaluation for each
  // candidate of the re-evaluation
  ne_chains ahead;            // their chains
  ne_candidate* ahead_cands;  // (population + C + 1)
  ne_batch ahead_batch;
  // GA-NS (ga.novelty): parents by novelty
  int novelty;          // 1: select parents by novelty
  double archive_prob;  // probability a genome's behaviour enters the archive
  ne__archive archive;  // behaviours of past genomes (checkpointed)
  ne__knn knn;          // k-NN scratch
  float* bcs;           // (population, bc_dim) this generation's behaviours
  double* novelty_of;   // (population) their novelty
} ga;

// ---- configuration -------------------------------------------------------------------------

// GA-NS: the archive, k-NN scratch and per-generation behaviours.
static int novelty_create(ga* g, const ne_config* cfg, char* errstr) {
  int d = g->prob.bc_dim;
  if (d <= 0)
    return ne__set_error(errstr, NE_EINVAL,
                         "ga.novelty = true needs behaviour characterizations, and this problem "
                         "has none to compare (black-box functions and Python ask/tell have none; see env.behaviour)");
  g->archive_prob = ne_config_float(cfg, "novelty", "archive_prob");
  int rc = ne__archive_init(&g->archive, d, (int)ne_config_int(cfg, "novelty", "archive_max"));
  if (!rc) rc = ne__knn_init(&g->knn, ne__novelty_k(cfg, 1));
  g->bcs = ne_calloc((size_t)g->population * (size_t)d, sizeof(float));
  g->novelty_of = ne_calloc((size_t)g->population, sizeof(double));
  if (rc || !g->bcs || !g->novelty_of)
    return ne__set_error(errstr, NE_ENOMEM, "out of memory for GA-NS behaviours (%d x %d floats)", g->population, d);
  return 0;
}

static int ga_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  ga* g = ne_calloc(1, sizeof *g);
  if (!g) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  g->prob = *problem;
  g->population = (int)ne_config_int(cfg, "ga", "population");
  g->truncation = (int)ne_config_int(cfg, "ga", "truncation");
  g->sigma = (float)ne_config_float(cfg, "ga", "sigma");
  g->elite_candidates = (int)ne_config_int(cfg, "ga", "elite_candidates");
  g->elite_episodes = (int)ne_config_int(cfg, "ga", "elite_episodes");
  g->elitism = ne_config_bool(cfg, "ga", "elitism");
  g->shared_episodes = ne_config_bool(cfg, "ga", "shared_episodes");
  g->novelty = ne_config_bool(cfg, "ga", "novelty");
  if (g->truncation > g->population) g->truncation = g->population;
  if (g->elite_candidates > g->population) g->elite_candidates = g->population;
  g->elite_score = NAN;
  g->best_score = -INFINITY;
  ne__chains_init(&g->parents);
  ne__chains_init(&g->elite);
  ne__chains_init(&g->best);
  ne__chains_init(&g->pop);
  size_t n = (size_t)g->population;
  g->fitness = ne_calloc(n, sizeof *g->fitness);
  g->order = ne_calloc(n, sizeof *g->order);
  g->cands = ne_calloc(n, sizeof *g->cands);
  g->reeval_idx = ne_calloc(n + 1, sizeof *g->reeval_idx);
  g->ranks = ne_calloc(n, sizeof *g->ranks);
  ne__chains_init(&g->ahead);
  g->ahead_cands = ne_calloc(2 * n + 1, sizeof *g->ahead_cands);
  *self = g;
  if (!g->fitness || !g->order || !g->cands || !g->reeval_idx || !g->ranks || !g->ahead_cands) {
    return ne__set_error(errstr, NE_ENOMEM, "out of memory for a population of %d", g->population);
  }
  g->phase = PHASE_DONE;
  return g->novelty ? novelty_create(g, cfg, errstr) : 0;
}

static void ga_destroy(void* self) {
  ga* g = self;
  if (!g) return;
  ne__chains_free(&g->parents);
  ne__chains_free(&g->elite);
  ne__chains_free(&g->best);
  ne__chains_free(&g->pop);
  ne_free(g->fitness);
  ne_free(g->order);
  ne_free(g->cands);
  ne_free(g->reeval_idx);
  ne_free(g->ranks);
  ne__chains_free(&g->ahead);
  ne_free(g->ahead_cands);
  ne__archive_free(&g->archive);
  ne__knn_free(&g->knn);
  ne_free(g->bcs);
  ne_free(g->novelty_of);
  ne_free(g);
}

// ---- ask -----------------------------------------------------------------------------------

// 1 when generation gen's population starts with the carried-over elite (unmutated, index 0).
static int elite_carried(const ga* g, uint32_t gen) { return g->elitism && gen > 0; }

// Appends members [first, population) of generation gen's population, children of g->parents
// (initial genomes in generation 0), to out.
static int add_children(ga* g, uint32_t gen, int first, ne_chains* out) {
  for (int i = first; i < g->population; i++) {
    if (gen == 0 || g->parents.n == 0) {
      uint64_t init_seed = ne_seed_derive(g->prob.seed, gen, (uint64_t)i, NE_PURPOSE_INIT);
      if (ne__chains_add(out, &init_seed, 1, NULL, 0) < 0) return NE_ENOMEM;
      continue;
    }
    // uniform parent among the top T, then one new mutation seed
    ne_rng rng;
    ne_rng_seed(&rng, ne_seed_derive(g->prob.seed, gen, (uint64_t)i, NE_PURPOSE_SELECTION));
    int p = (int)ne_rng_below(&rng, (uint64_t)g->parents.n);
    uint64_t mutation = ne_seed_derive(g->prob.seed, gen, (uint64_t)i, NE_PURPOSE_MUTATION);
    if (ne__chains_add(out, ne__chain(&g->parents, p), g->parents.len[p], &mutation, 1) < 0) return NE_ENOMEM;
  }
  return 0;
}

// Builds the population of generation g->generation into g->pop.
static int build_population(ga* g) {
  ne__chains_clear(&g->pop);
  int carried = elite_carried(g, g->generation) && g->elite.n == 1;
  // the elite survives unmutated at index 0
  if (carried && ne__chains_add(&g->pop, ne__chain(&g->elite, 0), g->elite.len[0], NULL, 0) < 0) return NE_ENOMEM;
  return add_children(g, g->generation, carried, &g->pop);
}

// The episode seed of population member i of generation gen for a purpose (episodes of the
// population round or of the re-evaluation); shared_episodes: the same for every member.
static uint64_t episode_seed(const ga* g, uint32_t gen, int i, ne_purpose purpose) {
  return ne_seed_derive(g->prob.seed, gen, g->shared_episodes ? 0 : (uint64_t)i, purpose);
}

// Points candidate c at population member i.
static void set_candidate(ga* g, ne_candidate* c, int batch_index, int i, uint32_t episodes, ne_purpose purpose) {
  memset(c, 0, sizeof *c);
  c->kind = NE_CAND_CHAIN;
  c->index = (uint32_t)batch_index;
  c->episodes = episodes;
  c->episode_seed = episode_seed(g, g->generation, i, purpose);
  c->seeds = ne__chain(&g->pop, i);
  c->n_seeds = g->pop.len[i];
  c->sigma = g->sigma;
}

static void set_batch(ga* g, uint32_t round, int n) {
  memset(&g->batch, 0, sizeof g->batch);
  g->batch.generation = g->generation;
  g->batch.round = round;
  g->batch.n = n;
  g->batch.cands = g->cands;
}

static int ga_ask(void* self, const ne_batch** out) {
  ga* g = self;
  if (g->phase == PHASE_DONE) {
    int rc = build_population(g);
    if (rc) return rc;
    for (int i = 0; i < g->population; i++)
      set_candidate(g, &g->cands[i], i, i, (uint32_t)g->prob.episodes, NE_PURPOSE_EPISODE);
    set_batch(g, 0, g->population);
    g->batch.want_bc = g->novelty;  // GA-NS: the population's behaviours
    g->phase = PHASE_POPULATION;
  } else if (g->phase == PHASE_REEVAL) {
    for (int j = 0; j < g->n_reeval; j++)
      set_candidate(g, &g->cands[j], j, g->reeval_idx[j], (uint32_t)g->elite_episodes, NE_PURPOSE_REEVAL);
    set_batch(g, 1, g->n_reeval);
  }
  *out = &g->batch;
  return 0;
}

// Points candidate c at chain k of g->ahead, evaluated as member i of generation gen's population.
static void set_ahead(ga* g, ne_candidate* c, int batch_index, int k, uint32_t gen, int i) {
  memset(c, 0, sizeof *c);
  c->kind = NE_CAND_CHAIN;
  c->index = (uint32_t)batch_index;
  c->episodes = (uint32_t)g->prob.episodes;
  c->episode_seed = episode_seed(g, gen, i, NE_PURPOSE_EPISODE);
  c->seeds = ne__chain(&g->ahead, k);
  c->n_seeds = g->ahead.len[k];
  c->sigma = g->sigma;
}

// While the re-evaluation is asked: the next generation's population round without waiting for
// it. Its children depend only on this generation's parents (chosen at the population round's
// tell). Its member 0, the elite carried over, is whichever re-evaluated candidate the
// re-evaluation crowns: each of them is asked as that member (n_reeval episodes where one is used,
// ~1% of a Deep GA generation), so the next round has every result it needs the moment the
// re-evaluation ends.
static int ga_ask_ahead(void* self, const ne_batch** out) {
  ga* g = self;
  *out = NULL;
  if (g->phase != PHASE_REEVAL) return 0;
  uint32_t next = g->generation + 1;
  ne__chains_clear(&g->ahead);
  int n_elite = elite_carried(g, next) ? g->n_reeval : 0;
  for (int j = 0; j < n_elite; j++) {
    int i = g->reeval_idx[j];
    if (ne__chains_add(&g->ahead, ne__chain(&g->pop, i), g->pop.len[i], NULL, 0) < 0) return NE_ENOMEM;
  }
  int rc = add_children(g, next, n_elite > 0, &g->ahead);
  if (rc) return rc;
  int n = g->ahead.n;
  for (int k = 0; k < n; k++) set_ahead(g, &g->ahead_cands[k], k, k, next, k < n_elite ? 0 : k - n_elite + 1);
  memset(&g->ahead_batch, 0, sizeof g->ahead_batch);
  g->ahead_batch.generation = next;
  g->ahead_batch.round = 0;
  g->ahead_batch.n = n;
  g->ahead_batch.cands = g->ahead_cands;
  g->ahead_batch.want_bc = g->novelty;
  *out = &g->ahead_batch;
  return 0;
}

// ---- tell ----------------------------------------------------------------------------------

// Ranks the population best first (failed evaluations hold -inf; ties: lower index first) and
// fills the report's best/mean/median.
static void rank_population(ga* g) {
  ne_gen_report* r = &g->report;
  memset(r, 0, sizeof *r);
  r->generation = g->generation;
  r->elite_mean = NAN;
  ne__population_figures(g->fitness, g->population, g->ranks, r);
  for (int i = 0; i < g->population; i++) g->order[i] = g->ranks[i].index;
}

// GA-NS: each genome's novelty against the archive and the rest of the population (a failed
// evaluation gets -inf and is never a parent), then the archive insertions, then g->ranks holds
// the population by novelty, most novel first (ties: lower index first).
static int rank_by_novelty(ga* g, const ne_result* results) {
  int d = g->prob.bc_dim, n = g->population;
  for (int i = 0; i < n; i++) {
    const float* bc = results[i].bc;
    if (bc) memcpy(g->bcs + (size_t)i * (size_t)d, bc, (size_t)d * sizeof(float));
    else memset(g->bcs + (size_t)i * (size_t)d, 0, (size_t)d * sizeof(float));
  }
  double best = 0;
  for (int i = 0; i < n; i++) {
    int ok = results[i].status == 0 && results[i].bc && isfinite(g->fitness[i]);
    g->novelty_of[i] = ok ? ne__novelty(&g->knn, g->bcs + (size_t)i * (size_t)d, &g->archive, g->bcs, n, i) : -INFINITY;
    if (g->novelty_of[i] > best) best = g->novelty_of[i];
  }
  // each genome's behaviour joins the archive with probability archive_prob, in index order
  for (int i = 0; i < n; i++) {
    if (!isfinite(g->novelty_of[i])) continue;
    ne_rng rng;
    ne_rng_seed(&rng, ne__novelty_seed(g->prob.seed, g->generation, 2 * (uint64_t)i));
    if (ne_rng_uniform(&rng) >= g->archive_prob) continue;
    int rc = ne__archive_insert(&g->archive, g->bcs + (size_t)i * (size_t)d,
                                ne__novelty_seed(g->prob.seed, g->generation, 2 * (uint64_t)i + 1));
    if (rc) return rc;
  }
  for (int i = 0; i < n; i++) g->ranks[i] = (ne__ranked){g->novelty_of[i], i};
  ne__sort_desc(g->ranks, n);
  g->report.extra[0] = g->archive.n;
  g->report.extra[1] = best;
  return 0;
}

// The top T become parents: by reward (g->order), or for GA-NS by novelty (g->ranks).
static int keep_parents(ga* g) {
  ne__chains_clear(&g->parents);
  for (int k = 0; k < g->truncation; k++) {
    int i = g->novelty ? g->ranks[k].index : g->order[k];
    if (ne__chains_add(&g->parents, ne__chain(&g->pop, i), g->pop.len[i], NULL, 0) < 0) return NE_ENOMEM;
  }
  return 0;
}

// Chooses the re-evaluation set: the top C, plus the carried-over elite if it is not among them.
static void choose_reeval(ga* g) {
  g->n_reeval = 0;
  int elite_in_pop = g->elitism && g->elite.n == 1 && g->generation > 0;
  int elite_seen = 0;
  for (int k = 0; k < g->elite_candidates; k++) {
    g->reeval_idx[g->n_reeval++] = g->order[k];
    if (g->order[k] == 0) elite_seen = 1;
  }
  if (elite_in_pop && !elite_seen) g->reeval_idx[g->n_reeval++] = 0;
}

// Makes population member i the elite with the given score and updates the best-so-far.
static int crown(ga* g, int i, double score) {
  ne__chains_clear(&g->elite);
  if (ne__chains_add(&g->elite, ne__chain(&g->pop, i), g->pop.len[i], NULL, 0) < 0) return NE_ENOMEM;
  g->elite_score = score;
  double rank_score = isnan(score) ? g->fitness[i] : score;
  if (g->best.n == 0 || rank_score > g->best_score) {
    ne__chains_clear(&g->best);
    if (ne__chains_add(&g->best, ne__chain(&g->pop, i), g->pop.len[i], NULL, 0) < 0) return NE_ENOMEM;
    g->best_score = rank_score;
    g->best_generation = g->generation;
  }
  return 0;
}

static int finish_generation(ga* g) {
  g->generation++;
  g->phase = PHASE_DONE;
  return 0;
}

static int tell_population(ga* g, const ne_result* results, int* done) {
  for (int i = 0; i < g->population; i++)
    g->fitness[i] = results[i].status == 0 && !isnan(results[i].fitness) ? results[i].fitness : -INFINITY;
  rank_population(g);
  int rc = g->novelty ? rank_by_novelty(g, results) : 0;
  if (!rc) rc = keep_parents(g);
  if (rc) return rc;
  if (g->elite_candidates > 0 && g->elite_episodes > 0) {
    choose_reeval(g);
    g->phase = PHASE_REEVAL;
    *done = 0;
    return 0;
  }
  // no re-evaluation: the best by fitness is the elite
  rc = crown(g, g->order[0], NAN);
  *done = 1;
  return rc ? rc : finish_generation(g);
}

static int tell_reeval(ga* g, const ne_result* results, int* done) {
  int best = -1;
  double best_score = -INFINITY;
  // candidates are in rank order (the carried elite last), so '>' keeps the better-ranked on ties
  for (int j = 0; j < g->n_reeval; j++) {
    double s = results[j].status == 0 && !isnan(results[j].fitness) ? results[j].fitness : -INFINITY;
    if (best < 0 || s > best_score) best = j, best_score = s;
  }
  g->report.elite_mean = best_score;
  int rc = crown(g, g->reeval_idx[best], best_score);
  *done = 1;
  return rc ? rc : finish_generation(g);
}

static int ga_tell(void* self, const ne_batch* batch, const ne_result* results, int* done) {
  ga* g = self;
  if (batch != &g->batch) return NE_EINVAL;
  if (g->phase == PHASE_POPULATION) return tell_population(g, results, done);
  if (g->phase == PHASE_REEVAL) return tell_reeval(g, results, done);
  return NE_ESTATE;
}

// ---- reporting and checkpoints -------------------------------------------------------------

static void ga_report(void* self, ne_gen_report* out) { *out = ((ga*)self)->report; }

static int ga_best(void* self, ne_best* out) {
  ga* g = self;
  if (g->best.n == 0) return NE_ENOTFOUND;
  memset(out, 0, sizeof *out);
  out->score = g->best_score;
  out->generation = g->best_generation;
  out->seeds = ne__chain(&g->best, 0);
  out->n_seeds = g->best.len[0];
  out->sigma = g->sigma;
  return 0;
}

static int ga_archive(void* self, const float** data, int* n, int* dim) {
  ga* g = self;
  if (!g->novelty) return NE_ENOTFOUND;
  *data = g->archive.data;
  *n = g->archive.n;
  *dim = g->archive.dim;
  return 0;
}

static int ga_save(void* self, uint8_t** data, size_t* len) {
  ga* g = self;
  if (g->phase != PHASE_DONE) return NE_ESTATE;
  ne_buf b;
  ne__buf_init(&b);
  ne__buf_u32(&b, GA_STATE_MAGIC);
  ne__buf_u32(&b, (uint32_t)g->population);
  ne__buf_u32(&b, g->generation);
  ne__chains_save(&g->parents, &b);
  ne__chains_save(&g->elite, &b);
  ne__buf_f64(&b, g->elite_score);
  ne__chains_save(&g->best, &b);
  ne__buf_f64(&b, g->best_score);
  ne__buf_u32(&b, g->best_generation);
  ne__report_save(&g->report, &b);
  // GA-NS: the archive follows (a plain GA state ends here, as before novelty search existed)
  if (g->novelty) {
    ne__buf_u32(&b, GA_NOVELTY_MAGIC);
    ne__archive_save(&g->archive, &b);
  }
  return ne__buf_take(&b, data, len);
}

static int ga_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  ga* g = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  if (ne__reader_u32(&r) != GA_STATE_MAGIC) return ne__set_error(errstr, NE_ECORRUPT, "not a GA state");
  uint32_t population = ne__reader_u32(&r);
  if (population != (uint32_t)g->population)
    return ne__set_error(errstr, NE_EINVAL, "GA state has population %u, config says %d", population, g->population);
  g->generation = ne__reader_u32(&r);
  int rc = ne__chains_load(&g->parents, &r);
  if (!rc) rc = ne__chains_load(&g->elite, &r);
  g->elite_score = ne__reader_f64(&r);
  if (!rc) rc = ne__chains_load(&g->best, &r);
  g->best_score = ne__reader_f64(&r);
  g->best_generation = ne__reader_u32(&r);
  ne__report_load(&g->report, &r);
  if (!rc && g->novelty && ne__reader_u32(&r) != GA_NOVELTY_MAGIC)
    return ne__set_error(errstr, NE_ECORRUPT, "GA state has no novelty archive, but ga.novelty = true");
  if (!rc && g->novelty) rc = ne__archive_load(&g->archive, &r);
  if (rc == NE_ENOMEM) return ne__set_error(errstr, rc, "out of memory");
  if (rc || r.bad || g->elite.n > 1 || g->best.n > 1)
    return ne__set_error(errstr, NE_ECORRUPT, "GA state is truncated or corrupt");
  g->phase = PHASE_DONE;
  return 0;
}

const ne_algo_vt ne__algo_ga = {
    .name = "ga",
    .section = "ga",
    .create = ga_create,
    .destroy = ga_destroy,
    .ask = ga_ask,
    .tell = ga_tell,
    .report = ga_report,
    .best = ga_best,
    .save = ga_save,
    .load = ga_load,
    .archive = ga_archive,
    .ask_ahead = ga_ask_ahead,
};
