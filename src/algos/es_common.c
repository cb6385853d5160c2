// SPDX-License-Identifier: MIT
// Shared pieces of the ES family (see es_common.h): fitness shaping, optimizers, observation
// statistics, candidate bookkeeping and serialization. Per-generation work is O(population) or
// O(P) and allocates nothing; sums run in index order so results never depend on threads.
#include "algos/es_common.h"

#include <math.h>    // sqrt (IEEE correctly rounded, so deterministic), isnan, INFINITY
#include <stdlib.h>  // qsort
#include <string.h>

#include "core/detmath.h"  // ne__log: deterministic logarithm for the NES utilities
#include "core/util.h"     // ne__set_error
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/rng.h"

// ---- fitness shaping -------------------------------------------------------------------------

double ne__result_fitness(const ne_result* r) { return r->status == 0 && !isnan(r->fitness) ? r->fitness : -INFINITY; }

static int by_fitness_desc(const void* a, const void* b) {
  const ne__ranked *x = a, *y = b;
  if (x->fitness > y->fitness) return -1;
  if (x->fitness < y->fitness) return 1;
  return (x->index > y->index) - (x->index < y->index);
}

void ne__sort_desc(ne__ranked* items, int n) { qsort(items, (size_t)n, sizeof *items, by_fitness_desc); }

static void sort_fitness(const double* fitness, int n, ne__ranked* scratch) {
  for (int i = 0; i < n; i++) scratch[i] = (ne__ranked){fitness[i], i};
  ne__sort_desc(scratch, n);
}

void ne__centered_ranks(const double* fitness, int n, double* out, ne__ranked* scratch) {
  if (n == 1) {
    out[0] = 0;
    return;
  }
  sort_fitness(fitness, n, scratch);
  // position p from the best: rank n-1-p from the worst, scaled to [-0.5, 0.5]
  for (int p = 0; p < n; p++) out[scratch[p].index] = (double)(n - 1 - p) / (double)(n - 1) - 0.5;
}

void ne__nes_utilities(const double* fitness, int n, double* out, ne__ranked* scratch) {
  sort_fitness(fitness, n, scratch);
  double top = ne__log((double)n / 2.0 + 1.0), total = 0;
  for (int p = 0; p < n; p++) {
    double u = top - ne__log((double)(p + 1));
    out[scratch[p].index] = u > 0 ? u : 0;
    total += u > 0 ? u : 0;
  }
  // normalize to sum 1, then center (sum 0)
  for (int i = 0; i < n; i++) out[i] = out[i] / total - 1.0 / (double)n;
}

void ne__population_figures(const double* fitness, int n, ne__ranked* scratch, ne_gen_report* r) {
  double sum = 0;
  for (int i = 0; i < n; i++) sum += fitness[i];
  sort_fitness(fitness, n, scratch);
  r->best = scratch[0].fitness;
  r->mean = sum / n;
  r->median = n % 2 ? scratch[n / 2].fitness : 0.5 * (scratch[n / 2 - 1].fitness + scratch[n / 2].fitness);
}

// ---- optimizers ------------------------------------------------------------------------------

int ne__opt_init(ne__optimizer* o, ne__opt_kind kind, size_t n, double lr) {
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->n = n;
  o->lr = lr;
  o->beta1 = 0.9;
  o->beta2 = 0.999;
  o->eps = 1e-8;
  o->momentum = 0.9;
  o->max_speed = 2 * lr;
  o->beta1_t = o->beta2_t = 1.0;
  o->m = ne_calloc(n ? n : 1, sizeof(float));
  if (kind == NE__OPT_ADAM) o->v = ne_calloc(n ? n : 1, sizeof(float));
  return !o->m || (kind == NE__OPT_ADAM && !o->v) ? NE_ENOMEM : 0;
}

void ne__opt_free(ne__optimizer* o) {
  if (!o) return;
  ne_free(o->m);
  ne_free(o->v);
  o->m = o->v = NULL;
}

// Adam: a = lr sqrt(1 - b2^t) / (1 - b1^t); theta += a m / (sqrt(v) + eps).
static double adam_step(ne__optimizer* o, const float* g, float* theta) {
  o->beta1_t *= o->beta1;
  o->beta2_t *= o->beta2;
  double a = o->lr * sqrt(1.0 - o->beta2_t) / (1.0 - o->beta1_t);
  double norm2 = 0;
  for (size_t i = 0; i < o->n; i++) {
    double gi = g[i];
    float m = (float)(o->beta1 * o->m[i] + (1.0 - o->beta1) * gi);
    float v = (float)(o->beta2 * o->v[i] + (1.0 - o->beta2) * gi * gi);
    double step = a * m / (sqrt((double)v) + o->eps);
    o->m[i] = m;
    o->v[i] = v;
    theta[i] += (float)step;
    norm2 += step * step;
  }
  return sqrt(norm2);
}

// SGD with momentum (evolution-strategies-starter): v = mu v + (1 - mu) g; theta += lr v.
static double sgd_step(ne__optimizer* o, const float* g, float* theta) {
  double norm2 = 0;
  for (size_t i = 0; i < o->n; i++) {
    float v = (float)(o->momentum * o->m[i] + (1.0 - o->momentum) * g[i]);
    double step = o->lr * v;
    o->m[i] = v;
    theta[i] += (float)step;
    norm2 += step * step;
  }
  return sqrt(norm2);
}

// ClipUp: v = mu v + lr g / |g|; v clipped to norm max_speed; theta += v.
static double clipup_step(ne__optimizer* o, const float* g, float* theta) {
  double gnorm = ne__norm(g, o->n);
  double scale = gnorm > 0 ? o->lr / gnorm : 0;
  for (size_t i = 0; i < o->n; i++) o->m[i] = (float)(o->momentum * o->m[i] + scale * g[i]);
  double vnorm = ne__norm(o->m, o->n);
  if (vnorm > o->max_speed) {
    double shrink = o->max_speed / vnorm;
    for (size_t i = 0; i < o->n; i++) o->m[i] = (float)(o->m[i] * shrink);
    vnorm = ne__norm(o->m, o->n);
  }
  for (size_t i = 0; i < o->n; i++) theta[i] += o->m[i];
  return vnorm;
}

double ne__opt_step(ne__optimizer* o, const float* g, float* theta) {
  o->t++;
  switch (o->kind) {
    case NE__OPT_ADAM: return adam_step(o, g, theta);
    case NE__OPT_SGD: return sgd_step(o, g, theta);
    case NE__OPT_CLIPUP: return clipup_step(o, g, theta);
  }
  return 0;
}

void ne__opt_save(const ne__optimizer* o, ne_buf* b) {
  ne__buf_u32(b, (uint32_t)o->kind);
  ne__buf_u64(b, o->t);
  ne__buf_f64(b, o->beta1_t);
  ne__buf_f64(b, o->beta2_t);
  ne__floats_save(o->m, o->n, b);
  if (o->kind == NE__OPT_ADAM) ne__floats_save(o->v, o->n, b);
}

int ne__opt_load(ne__optimizer* o, ne_reader* r) {
  if (ne__reader_u32(r) != (uint32_t)o->kind) return NE_ECORRUPT;
  o->t = ne__reader_u64(r);
  o->beta1_t = ne__reader_f64(r);
  o->beta2_t = ne__reader_f64(r);
  int rc = ne__floats_load(o->m, o->n, r);
  if (!rc && o->kind == NE__OPT_ADAM) rc = ne__floats_load(o->v, o->n, r);
  return rc;
}

// ---- observation statistics ------------------------------------------------------------------

static void obs_prior(ne__obs_stats* s) {
  // ES: the reference's RunningStat starts at sum 0, sumsq 0.01, count 0.01 (mean 0, variance 1)
  double count = s->rule == NE__OBS_ES ? 1e-2 : 0;
  s->count = count;
  for (int i = 0; i < s->dim; i++) {
    s->mean[i] = 0;
    s->m2[i] = count;
  }
}

int ne__obs_stats_init(ne__obs_stats* s, int dim, ne__obs_rule rule) {
  memset(s, 0, sizeof *s);
  s->dim = dim;
  s->rule = rule;
  size_t d = dim > 0 ? (size_t)dim : 1;
  s->mean = ne_calloc(d, sizeof(double));
  s->m2 = ne_calloc(d, sizeof(double));
  s->norm_mean = ne_calloc(d, sizeof(float));
  s->norm_std = ne_calloc(d, sizeof(float));
  if (!s->mean || !s->m2 || !s->norm_mean || !s->norm_std) return NE_ENOMEM;
  obs_prior(s);
  ne__obs_stats_refresh(s);
  return 0;
}

void ne__obs_stats_free(ne__obs_stats* s) {
  if (!s) return;
  ne_free(s->mean);
  ne_free(s->m2);
  ne_free(s->norm_mean);
  ne_free(s->norm_std);
  memset(s, 0, sizeof *s);
}

void ne__obs_stats_merge(ne__obs_stats* s, double count, const double* sum, const double* sumsq) {
  if (!(count > 0)) return;
  double n = s->count + count;
  for (int i = 0; i < s->dim; i++) {
    // the block's own mean and squared deviations, then Chan et al.'s combination
    double mean_b = sum[i] / count;
    double m2_b = sumsq[i] - sum[i] * mean_b;
    if (m2_b < 0) m2_b = 0;  // rounding on a constant component
    double delta = mean_b - s->mean[i];
    s->mean[i] += delta * (count / n);
    s->m2[i] += m2_b + delta * delta * (s->count * count / n);
  }
  s->count = n;
}

void ne__obs_stats_merge_results(ne__obs_stats* s, const ne_result* results, int n) {
  for (int i = 0; i < n; i++) {
    const ne_result* r = &results[i];
    if (r->status == 0 && r->obs_count > 0 && r->obs_sum && r->obs_sumsq)
      ne__obs_stats_merge(s, r->obs_count, r->obs_sum, r->obs_sumsq);
  }
}

void ne__obs_stats_refresh(ne__obs_stats* s) {
  for (int i = 0; i < s->dim; i++) {
    double mean = s->mean[i], std;
    if (s->rule == NE__OBS_ES) {
      // population variance floored at 1e-2 (std >= 0.1), as the reference's RunningStat.std
      double var = s->m2[i] / s->count;
      std = sqrt(var > 1e-2 ? var : 1e-2);
    } else if (s->count < 2) {
      mean = 0, std = 1;  // nothing seen yet: identity
    } else {
      // ARS: sample std; a (near-)constant component is ignored, as in the ARS code (std -> inf)
      std = sqrt(s->m2[i] / (s->count - 1));
      if (std < 1e-7) std = INFINITY;
    }
    s->norm_mean[i] = (float)mean;
    s->norm_std[i] = (float)std;
  }
}

void ne__obs_stats_save(const ne__obs_stats* s, ne_buf* b) {
  ne__buf_u32(b, (uint32_t)s->dim);
  ne__buf_u32(b, (uint32_t)s->rule);
  ne__buf_f64(b, s->count);
  for (int i = 0; i < s->dim; i++) ne__buf_f64(b, s->mean[i]);
  for (int i = 0; i < s->dim; i++) ne__buf_f64(b, s->m2[i]);
}

int ne__obs_stats_load(ne__obs_stats* s, ne_reader* r) {
  if (ne__reader_u32(r) != (uint32_t)s->dim || ne__reader_u32(r) != (uint32_t)s->rule) return NE_ECORRUPT;
  s->count = ne__reader_f64(r);
  for (int i = 0; i < s->dim; i++) s->mean[i] = ne__reader_f64(r);
  for (int i = 0; i < s->dim; i++) s->m2[i] = ne__reader_f64(r);
  if (r->bad) return NE_ECORRUPT;
  ne__obs_stats_refresh(s);
  return 0;
}

// ---- candidates, blobs, best-so-far ----------------------------------------------------------

uint64_t ne__blob_hash(const float* v, size_t n, uint64_t salt) {
  uint64_t h = ne_hash2(salt, (uint64_t)n);
  size_t i = 0;
  // two floats per mixing step
  for (; i + 1 < n; i += 2) {
    uint32_t a, b;
    memcpy(&a, &v[i], sizeof a);
    memcpy(&b, &v[i + 1], sizeof b);
    h = ne_hash2(h, (uint64_t)a << 32 | b);
  }
  if (i < n) {
    uint32_t a;
    memcpy(&a, &v[i], sizeof a);
    h = ne_hash2(h, a);
  }
  return h;
}

void ne__mirrored_pairs(ne_candidate* cands, int n_pairs, const uint64_t* seeds, uint32_t blob, float sigma,
                        uint32_t episodes, uint64_t run_seed, uint32_t generation) {
  for (int k = 0; k < n_pairs; k++) {
    ne_candidate* c = &cands[2 * k];
    memset(c, 0, 2 * sizeof *c);
    c[0].kind = c[1].kind = NE_CAND_PERTURB;
    c[0].index = (uint32_t)(2 * k);
    c[1].index = (uint32_t)(2 * k + 1);
    c[0].episodes = c[1].episodes = episodes;
    c[0].episode_seed = c[1].episode_seed = ne_seed_derive(run_seed, generation, (uint64_t)k, NE_PURPOSE_EPISODE);
    c[0].blob = c[1].blob = blob;
    c[0].noise_seed = c[1].noise_seed = seeds[k];
    c[0].coef = sigma;
    c[1].coef = -sigma;
  }
}

void ne__vector_candidate(ne_candidate* c, ne_blob* b, uint32_t k, uint32_t episodes, uint64_t episode_seed,
                          uint64_t hash, const float* data, size_t n) {
  memset(c, 0, sizeof *c);
  c->kind = NE_CAND_VECTOR;
  c->index = k;
  c->episodes = episodes;
  c->episode_seed = episode_seed;
  c->blob = k;
  b->hash = hash;
  b->n = n;
  b->data = data;
}

void ne__centre_candidate(ne_candidate* c, uint32_t index, uint32_t blob, uint32_t episodes, uint64_t run_seed,
                          uint32_t generation) {
  memset(c, 0, sizeof *c);
  c->kind = NE_CAND_VECTOR;
  c->index = index;
  c->episodes = episodes;
  c->episode_seed = ne_seed_derive(run_seed, generation, 0, NE_PURPOSE_REEVAL);
  c->blob = blob;
}

int ne__best_init(ne__best_centre* b, size_t n, int obs_dim) {
  memset(b, 0, sizeof *b);
  b->n = n;
  b->obs_dim = obs_dim;
  b->score = -INFINITY;
  size_t d = obs_dim > 0 ? (size_t)obs_dim : 1;
  b->params = ne_calloc(n ? n : 1, sizeof(float));
  b->obs_mean = ne_calloc(d, sizeof(float));
  b->obs_std = ne_calloc(d, sizeof(float));
  return b->params && b->obs_mean && b->obs_std ? 0 : NE_ENOMEM;
}

void ne__best_free(ne__best_centre* b) {
  if (!b) return;
  ne_free(b->params);
  ne_free(b->obs_mean);
  ne_free(b->obs_std);
  memset(b, 0, sizeof *b);
}

void ne__best_offer(ne__best_centre* b, double score, uint32_t generation, const float* params, const float* obs_mean,
                    const float* obs_std, float obs_clip) {
  if (b->found && !(score > b->score)) return;
  b->found = 1;
  b->score = score;
  b->generation = generation;
  memcpy(b->params, params, b->n * sizeof(float));
  b->has_norm = obs_mean && obs_std && b->obs_dim > 0;
  b->obs_clip = b->has_norm ? obs_clip : 0;
  if (b->has_norm) {
    memcpy(b->obs_mean, obs_mean, (size_t)b->obs_dim * sizeof(float));
    memcpy(b->obs_std, obs_std, (size_t)b->obs_dim * sizeof(float));
  }
}

int ne__best_export(const ne__best_centre* b, ne_best* out) {
  if (!b->found) return NE_ENOTFOUND;
  memset(out, 0, sizeof *out);
  out->score = b->score;
  out->generation = b->generation;
  out->params = b->params;
  out->n_params = b->n;
  if (b->has_norm) {
    out->obs_mean = b->obs_mean;
    out->obs_std = b->obs_std;
    out->obs_clip = b->obs_clip;
    out->obs_dim = b->obs_dim;
  }
  return 0;
}

void ne__best_save(const ne__best_centre* b, ne_buf* buf) {
  ne__buf_u32(buf, (uint32_t)b->found);
  ne__buf_f64(buf, b->score);
  ne__buf_u32(buf, b->generation);
  ne__floats_save(b->params, b->n, buf);
  ne__buf_u32(buf, (uint32_t)b->has_norm);
  ne__buf_f64(buf, b->obs_clip);
  ne__floats_save(b->obs_mean, (size_t)b->obs_dim, buf);
  ne__floats_save(b->obs_std, (size_t)b->obs_dim, buf);
}

int ne__best_load(ne__best_centre* b, ne_reader* r) {
  b->found = (int)ne__reader_u32(r);
  b->score = ne__reader_f64(r);
  b->generation = ne__reader_u32(r);
  int rc = ne__floats_load(b->params, b->n, r);
  b->has_norm = (int)ne__reader_u32(r);
  b->obs_clip = (float)ne__reader_f64(r);
  if (!rc) rc = ne__floats_load(b->obs_mean, (size_t)b->obs_dim, r);
  if (!rc) rc = ne__floats_load(b->obs_std, (size_t)b->obs_dim, r);
  if (b->found > 1 || b->has_norm > 1) rc = NE_ECORRUPT;
  return rc;
}

// ---- the shared noise table --------------------------------------------------------------------

// The algorithms that can perturb with a table, the section holding their keys and the keys
// (ars.noise is ARS's nu, so ARS names the source noise_source; the NS-ES family shares [es]). ES,
// ARS and the NS-ES family send PERTURB candidates, whose slices the evaluators read; PGPE and SNES
// build explicit vectors (per-parameter sigma) in the master, so only it reads theirs.
static const struct {
  const char* algorithm;  // run.algorithm
  const char* section;    // where its noise keys are
  const char* mode_key;   // generator|table
  int evaluated;          // 1: evaluators (Redis workers) read the table too
} table_users[] = {{"es", "es", "noise", 1},     {"ars", "ars", "noise_source", 1}, {"pgpe", "pgpe", "noise", 0},
                   {"snes", "snes", "noise", 0}, {"ns-es", "es", "noise", 1},       {"nsr-es", "es", "noise", 1},
                   {"nsra-es", "es", "noise", 1}};

int ne_algo_noise_table_evaluated(const ne_config* cfg) {
  const char* algo = ne_config_str(cfg, "run", "algorithm");
  for (size_t i = 0; i < sizeof table_users / sizeof table_users[0]; i++)
    if (strcmp(algo, table_users[i].algorithm) == 0)
      return table_users[i].evaluated &&
          strcmp(ne_config_str(cfg, table_users[i].section, table_users[i].mode_key), "table") == 0;
  return 0;
}

int ne_algo_noise_table(const ne_config* cfg, uint64_t run_seed, size_t n_params, ne_noise_table** out, char* errstr) {
  *out = NULL;
  const char* algo = ne_config_str(cfg, "run", "algorithm");
  for (size_t i = 0; i < sizeof table_users / sizeof table_users[0]; i++) {
    if (strcmp(algo, table_users[i].algorithm) != 0) continue;
    const char* sec = table_users[i].section;
    if (strcmp(ne_config_str(cfg, sec, table_users[i].mode_key), "table") != 0) return 0;
    int64_t mb = ne_config_int(cfg, sec, "noise_table_mb");
    size_t floats = mb > 0 ? (size_t)mb << 18 : ne_noise_table_auto_size(n_params);  // 2^20 bytes / 4
    if (floats < n_params)
      return ne__set_error(errstr, NE_EINVAL,
                           "%s.noise_table_mb = %lld holds %zu floats, fewer than the policy's %zu parameters: "
                           "raise %s.noise_table_mb to at least %zu or use %s.%s = generator",
                           sec, (long long)mb, floats, n_params, sec, ((n_params * 4) >> 20) + 1, sec,
                           table_users[i].mode_key);
    uint64_t seed = ne_seed_derive(run_seed, 0, 0, NE_PURPOSE_NOISE_TABLE);
    *out = ne_noise_table_create(seed, floats);
    return *out ? 0
                : ne__set_error(errstr, NE_ENOMEM, "out of memory for a %zu MiB noise table (%s.noise_table_mb)",
                                (floats * sizeof(float)) >> 20, sec);
  }
  return 0;
}

// ---- serialization helpers ---------------------------------------------------------------------

void ne__report_save(const ne_gen_report* r, ne_buf* b) {
  ne__buf_u32(b, r->generation);
  ne__buf_f64(b, r->best);
  ne__buf_f64(b, r->mean);
  ne__buf_f64(b, r->median);
  ne__buf_f64(b, r->elite_mean);
  for (int i = 0; i < 4; i++) ne__buf_f64(b, r->extra[i]);
}

void ne__report_load(ne_gen_report* r, ne_reader* rd) {
  r->generation = ne__reader_u32(rd);
  r->best = ne__reader_f64(rd);
  r->mean = ne__reader_f64(rd);
  r->median = ne__reader_f64(rd);
  r->elite_mean = ne__reader_f64(rd);
  for (int i = 0; i < 4; i++) r->extra[i] = ne__reader_f64(rd);
}

void ne__floats_save(const float* v, size_t n, ne_buf* b) {
  ne__buf_u64(b, (uint64_t)n);
  ne__buf_f32s(b, v, n);
}

int ne__floats_load(float* v, size_t n, ne_reader* r) {
  if (ne__reader_u64(r) != (uint64_t)n || r->bad) return NE_ECORRUPT;
  ne__reader_f32s(r, v, n);
  return r->bad ? NE_ECORRUPT : 0;
}

double ne__norm(const float* v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += (double)v[i] * v[i];
  return sqrt(s);
}
