// SPDX-License-Identifier: MIT
// The ES family's shared pieces and its four algorithms through ask/tell on synthetic objectives (no
// environment): centered ranks and NES utilities, Adam/SGD/ClipUp against hand-computed values,
// observation-statistics merging, antithetic pairing, progress on a sphere for
// ES/ARS/PGPE/SNES, and save/load giving the same continuation bit for bit.
#include <math.h>

#include "algos/es_common.h"
#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "test.h"

#define OBS_DIM 3

static ne_policy_spec spec;

// ---- fixtures ------------------------------------------------------------------------------

static ne_config* make_config(const char* algorithm, const char* section_text) {
  ne_config* cfg = ne_config_create();
  ASSERT(cfg);
  char text[1024], err[NE_ERRSTR_LEN];
  snprintf(text, sizeof text, "[run]\nalgorithm = %s\n%s", algorithm, section_text);
  if (ne_config_load_string(cfg, text, "test.ini", err) != 0) TEST_FAIL("config: %s", err);
  ASSERT_EQ(ne_config_validate(cfg, err), 0);
  return cfg;
}

static void* make_algo(const char* name, const ne_config* cfg, uint64_t seed) {
  int hidden[1] = {4};
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(
      ne_policy_spec_init(&spec, OBS_DIM, hidden, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
      0);
  ne_problem prob = {&spec, spec.n_params, seed, 1, OBS_DIM, 0};
  const ne_algo_vt* vt = ne_algo_find(name);
  ASSERT(vt);
  void* algo = NULL;
  if (vt->create(&prob, cfg, &algo, err) != 0) TEST_FAIL("create %s: %s", name, err);
  return algo;
}

// The candidate's parameters, built as an executor would.
static void candidate_params(const ne_batch* b, const ne_candidate* c, float* out) {
  ASSERT_LT(c->blob, (uint32_t)b->n_blobs);
  const ne_blob* blob = &b->blobs[c->blob];
  ASSERT_EQ(blob->n, spec.n_params);
  memcpy(out, blob->data, spec.n_params * sizeof(float));
  if (c->kind == NE_CAND_PERTURB) ne_noise_perturb_axpy(b->noise_table, c->noise_seed, spec.n_params, c->coef, out);
  else ASSERT_EQ(c->kind, NE_CAND_VECTOR);
}

// Sphere: -|params - target|^2 with target_i = 0.5 sin(i), plus episode-seeded noise; fake obs stats.
static double objective(const ne_batch* b, const ne_candidate* c, ne_result* r) {
  float params[256];
  ASSERT_LE(spec.n_params, 256);
  candidate_params(b, c, params);
  double f = 0;
  for (size_t i = 0; i < spec.n_params; i++) {
    double d = params[i] - 0.5 * sin((double)i);
    f -= d * d;
  }
  ne_rng rng;
  ne_rng_seed(&rng, c->episode_seed);
  if (b->want_obs_stats && r->obs_sum) {
    r->obs_count = 2;
    for (int i = 0; i < OBS_DIM; i++) {
      double x0 = ne_rng_normal(&rng) + i, x1 = ne_rng_normal(&rng) + i;
      r->obs_sum[i] = x0 + x1;
      r->obs_sumsq[i] = x0 * x0 + x1 * x1;
    }
  }
  return f + 0.001 * ne_rng_uniform(&rng);
}

// One generation on the sphere; returns the report.
static ne_gen_report generation(const char* name, void* algo) {
  const ne_algo_vt* vt = ne_algo_find(name);
  static ne_result results[512];
  static double stats[512][2 * OBS_DIM];
  int done = 0;
  while (!done) {
    const ne_batch* b;
    ASSERT_EQ(vt->ask(algo, &b), 0);
    ASSERT_LE(b->n, 512);
    for (int i = 0; i < b->n; i++) {
      ASSERT_EQ(b->cands[i].index, i);
      memset(&results[i], 0, sizeof results[i]);
      results[i].obs_sum = stats[i];
      results[i].obs_sumsq = stats[i] + OBS_DIM;
      results[i].fitness = objective(b, &b->cands[i], &results[i]);
      results[i].episodes = 1;
    }
    ASSERT_EQ(vt->tell(algo, b, results, &done), 0);
  }
  ne_gen_report r;
  vt->report(algo, &r);
  return r;
}

// ---- fitness shaping -------------------------------------------------------------------------

static void centered_ranks_match_reference(void) {
  // evolution-strategies-starter: rank / (n - 1) - 0.5 with rank 0 = worst
  double f[5] = {3.0, -1.0, 10.0, 0.5, 2.0}, out[5];
  ne__ranked scratch[5];
  ne__centered_ranks(f, 5, out, scratch);
  double want[5] = {0.25, -0.5, 0.5, -0.25, 0.0};
  for (int i = 0; i < 5; i++) ASSERT_NEAR(out[i], want[i], 0);
  // ties: the lower index ranks higher, deterministically; failed (-inf) ranks last
  double g[4] = {1.0, 1.0, -INFINITY, 1.0};
  ne__centered_ranks(g, 4, out, scratch);
  ASSERT_NEAR(out[0], 0.5, 0);
  ASSERT_NEAR(out[1], 0.5 - 1.0 / 3, 1e-15);
  ASSERT_NEAR(out[3], -0.5 + 1.0 / 3, 1e-15);
  ASSERT_NEAR(out[2], -0.5, 0);
  double sum = 0;
  for (int i = 0; i < 4; i++) sum += out[i];
  ASSERT_NEAR(sum, 0, 1e-15);
}

static void nes_utilities_sum_to_zero(void) {
  double f[4] = {1, 4, 2, 3}, u[4];
  ne__ranked scratch[4];
  ne__nes_utilities(f, 4, u, scratch);
  // lambda = 4: raw max(0, ln 3 - ln k) for k = 1..4 is ln3, ln1.5, 0, 0
  double r1 = log(3.0), r2 = log(1.5), tot = r1 + r2;
  ASSERT_NEAR(u[1], r1 / tot - 0.25, 1e-15);  // best (4)
  ASSERT_NEAR(u[3], r2 / tot - 0.25, 1e-15);  // second (3)
  ASSERT_NEAR(u[2], -0.25, 1e-15);
  ASSERT_NEAR(u[0], -0.25, 1e-15);
  ASSERT_NEAR(u[0] + u[1] + u[2] + u[3], 0, 1e-15);
}

// ---- optimizers --------------------------------------------------------------------------------

static void adam_matches_hand_computed(void) {
  ne__optimizer o;
  ASSERT_EQ(ne__opt_init(&o, NE__OPT_ADAM, 2, 0.01), 0);
  float theta[2] = {1.0f, -2.0f};
  const float grads[3][2] = {{0.5f, -1.0f}, {0.25f, 2.0f}, {-1.0f, 0.0f}};
  // the reference in doubles: m, v, bias-corrected step
  double m[2] = {0, 0}, v[2] = {0, 0}, th[2] = {1.0, -2.0};
  for (int t = 1; t <= 3; t++) {
    double step_norm = ne__opt_step(&o, grads[t - 1], theta);
    double a = 0.01 * sqrt(1 - pow(0.999, t)) / (1 - pow(0.9, t)), n2 = 0;
    for (int i = 0; i < 2; i++) {
      m[i] = 0.9 * m[i] + 0.1 * grads[t - 1][i];
      v[i] = 0.999 * v[i] + 0.001 * grads[t - 1][i] * grads[t - 1][i];
      double s = a * m[i] / (sqrt(v[i]) + 1e-8);
      th[i] += s;
      n2 += s * s;
      ASSERT_NEAR(theta[i], th[i], 1e-6);
    }
    ASSERT_NEAR(step_norm, sqrt(n2), 1e-6);
  }
  // first step of Adam moves each coordinate by lr in the gradient's sign direction
  ASSERT_EQ(o.t, 3);
  ne__opt_free(&o);
}

static void sgd_and_clipup_follow_their_rules(void) {
  ne__optimizer o;
  ASSERT_EQ(ne__opt_init(&o, NE__OPT_SGD, 1, 0.1), 0);
  o.momentum = 0.5;
  float th = 0, g = 2;
  ne__opt_step(&o, &g, &th);  // v = 0.5*0 + 0.5*2 = 1; th = 0.1
  ASSERT_NEAR(th, 0.1, 1e-7);
  ne__opt_step(&o, &g, &th);  // v = 0.5 + 1 = 1.5; th = 0.25
  ASSERT_NEAR(th, 0.25, 1e-7);
  ne__opt_free(&o);
  // ClipUp: the first step has norm lr whatever |g|; constant g saturates at max_speed = 2 lr
  ASSERT_EQ(ne__opt_init(&o, NE__OPT_CLIPUP, 2, 0.1), 0);
  float theta[2] = {0, 0}, gv[2] = {30, 40};
  double n1 = ne__opt_step(&o, gv, theta);
  ASSERT_NEAR(n1, 0.1, 1e-7);
  ASSERT_NEAR(theta[0], 0.06, 1e-7);
  ASSERT_NEAR(theta[1], 0.08, 1e-7);
  double n = 0;
  for (int i = 0; i < 50; i++) n = ne__opt_step(&o, gv, theta);
  ASSERT_NEAR(n, 0.2, 1e-6);
  ne__opt_free(&o);
}

// ---- observation statistics ------------------------------------------------------------------

static void obs_stats_merge_matches_whole_data(void) {
  enum { N = 1000, D = 2 };
  static double x[N][D];
  ne_rng rng;
  ne_rng_seed(&rng, 99);
  for (int i = 0; i < N; i++) x[i][0] = 3 + 2 * ne_rng_normal(&rng), x[i][1] = -1 + 0.5 * ne_rng_normal(&rng);
  ne__obs_stats a, b;
  ASSERT_EQ(ne__obs_stats_init(&a, D, NE__OBS_ARS), 0);
  ASSERT_EQ(ne__obs_stats_init(&b, D, NE__OBS_ARS), 0);
  // identity before anything is seen
  ASSERT_NEAR(a.norm_mean[0], 0, 0);
  ASSERT_NEAR(a.norm_std[0], 1, 0);
  // a: blocks of 7; b: one block. Same statistics up to rounding
  double sum[D], sq[D], all_sum[D] = {0}, all_sq[D] = {0};
  for (int i = 0; i < N; i += 7) {
    int n = i + 7 <= N ? 7 : N - i;
    memset(sum, 0, sizeof sum), memset(sq, 0, sizeof sq);
    for (int j = i; j < i + n; j++)
      for (int d = 0; d < D; d++) sum[d] += x[j][d], sq[d] += x[j][d] * x[j][d];
    ne__obs_stats_merge(&a, n, sum, sq);
    for (int d = 0; d < D; d++) all_sum[d] += sum[d], all_sq[d] += sq[d];
  }
  ne__obs_stats_merge(&b, N, all_sum, all_sq);
  ne__obs_stats_refresh(&a);
  ne__obs_stats_refresh(&b);
  for (int d = 0; d < D; d++) {
    double mean = all_sum[d] / N, var = 0;
    for (int j = 0; j < N; j++) var += (x[j][d] - mean) * (x[j][d] - mean);
    ASSERT_NEAR(a.mean[d], mean, 1e-12);
    ASSERT_NEAR(a.m2[d], var, 1e-9 * var);
    ASSERT_NEAR(b.m2[d], var, 1e-9 * var);
    ASSERT_NEAR(a.norm_std[d], sqrt(var / (N - 1)), 1e-6);
  }
  ASSERT_NEAR(a.norm_mean[0], 3, 0.2);
  ASSERT_NEAR(a.norm_std[1], 0.5, 0.05);
  // a constant component is ignored (std -> inf, as ARS's MeanStdFilter)
  double cs[D] = {5, 10}, cq[D] = {5, 20};
  ne__obs_stats c;
  ASSERT_EQ(ne__obs_stats_init(&c, D, NE__OBS_ARS), 0);
  ne__obs_stats_merge(&c, 5, cs, cq);
  ne__obs_stats_refresh(&c);
  ASSERT(isinf(c.norm_std[0]));
  ne__obs_stats_free(&a);
  ne__obs_stats_free(&b);
  ne__obs_stats_free(&c);
}

static void es_obs_rule_has_prior_and_floor(void) {
  ne__obs_stats s;
  ASSERT_EQ(ne__obs_stats_init(&s, 1, NE__OBS_ES), 0);
  ASSERT_NEAR(s.norm_mean[0], 0, 0);
  ASSERT_NEAR(s.norm_std[0], 1, 1e-7);  // prior: count 0.01, variance 1
  // many identical observations: variance -> 0, std floored at sqrt(1e-2)
  double sum = 7 * 1000.0, sq = 49 * 1000.0;
  ne__obs_stats_merge(&s, 1000, &sum, &sq);
  ne__obs_stats_refresh(&s);
  ASSERT_NEAR(s.norm_mean[0], 7 * 1000 / 1000.01, 1e-5);
  ASSERT_NEAR(s.norm_std[0], 0.1, 1e-4 + 0.01);
  ASSERT_GE(s.norm_std[0], 0.1f);
  // the reference's formula: sqrt(max(sumsq/count - mean^2, 1e-2)) with the prior folded in
  double count = 1000.01, mean = 7000 / count, var = (49000 + 0.01) / count - mean * mean;
  ASSERT_NEAR(s.norm_std[0], sqrt(var > 1e-2 ? var : 1e-2), 1e-6);
  ne__obs_stats_free(&s);
}

// ---- ES through ask/tell -------------------------------------------------------------------------

static void es_asks_antithetic_pairs_and_the_centre(void) {
  ne_config* cfg = make_config("es", "[es]\npopulation = 6\nsigma = 0.05\neval_episodes = 4\n");
  void* es = make_algo("es", cfg, 7);
  const ne_algo_vt* vt = ne_algo_find("es");
  const ne_batch* b;
  ASSERT_EQ(vt->ask(es, &b), 0);
  ASSERT_EQ(b->n, 7);
  ASSERT_EQ(b->n_blobs, 1);
  ASSERT_EQ(b->blobs[0].n, spec.n_params);
  ASSERT_EQ(b->want_obs_stats, 1);
  ASSERT(b->obs_mean && b->obs_std);
  ASSERT_NEAR(b->obs_clip, 5, 0);
  for (int k = 0; k < 3; k++) {
    const ne_candidate *p = &b->cands[2 * k], *m = &b->cands[2 * k + 1];
    ASSERT_EQ(p->kind, NE_CAND_PERTURB);
    ASSERT_EQ(m->kind, NE_CAND_PERTURB);
    ASSERT_U64_EQ(p->noise_seed, m->noise_seed);
    ASSERT_U64_EQ(p->episode_seed, m->episode_seed);
    ASSERT_NEAR(p->coef, 0.05, 1e-9);
    ASSERT_NEAR(m->coef, -0.05, 1e-9);
    if (k) ASSERT_NE(p->noise_seed, b->cands[0].noise_seed);
    // the two members average to the centre
    float xp[256], xm[256];
    candidate_params(b, p, xp);
    candidate_params(b, m, xm);
    for (size_t i = 0; i < spec.n_params; i++) ASSERT_NEAR(0.5f * (xp[i] + xm[i]), b->blobs[0].data[i], 1e-6);
  }
  ASSERT_EQ(b->cands[6].kind, NE_CAND_VECTOR);
  ASSERT_EQ(b->cands[6].episodes, 4);
  // an odd population is refused with a message naming the key
  ne_config* odd = make_config("es", "[es]\npopulation = 7\n");
  ne_problem prob = {&spec, spec.n_params, 1, 1, OBS_DIM, 0};
  void* none = NULL;
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(vt->create(&prob, odd, &none, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "es.population");
  vt->destroy(es);
  ne_config_destroy(cfg);
  ne_config_destroy(odd);
}

static void es_gradient_follows_rank_differences(void) {
  // one pair, rank difference +1 for the plus side: g = eps / 2, Adam's first step = lr * sign(g)
  // (the generator's eps; the table's slices are es_table_noise_slices_one_table's)
  ne_config* cfg = make_config("es", "[es]\npopulation = 2\nl2coeff = 0\nobs_norm = false\nnoise = generator\n");
  void* es = make_algo("es", cfg, 3);
  const ne_algo_vt* vt = ne_algo_find("es");
  const ne_batch* b;
  ASSERT_EQ(vt->ask(es, &b), 0);
  float before[256], eps[256];
  memcpy(before, b->blobs[0].data, spec.n_params * sizeof(float));
  ne_noise_fill(b->cands[0].noise_seed, 0, spec.n_params, eps);
  ne_result res[3] = {{.fitness = 1}, {.fitness = 0}, {.fitness = 0.5}};
  int done;
  ASSERT_EQ(vt->tell(es, b, res, &done), 0);
  ASSERT_EQ(done, 1);
  ne_best best;
  ASSERT_EQ(vt->best(es, &best), 0);
  ASSERT_NEAR(best.score, 0.5, 0);
  ASSERT(best.obs_mean == NULL);
  for (size_t i = 0; i < spec.n_params; i++) ASSERT_NEAR(best.params[i], before[i], 0);
  ASSERT_EQ(vt->ask(es, &b), 0);
  for (size_t i = 0; i < spec.n_params; i++) {
    double step = b->blobs[0].data[i] - before[i];
    ASSERT_NEAR(step, eps[i] > 0 ? 0.01 : -0.01, 1e-5);
  }
  ne_gen_report r;
  vt->report(es, &r);
  ASSERT_NEAR(r.elite_mean, 0.5, 0);
  ASSERT_NEAR(r.extra[0], 0.01 * sqrt((double)spec.n_params), 1e-4);
  vt->destroy(es);
  ne_config_destroy(cfg);
}

// es.noise = table: the batch names a table built from the problem's seed (one per algorithm
// object, the same contents for the same seed), candidates and the gradient read its slices.
static void es_table_noise_slices_one_table(void) {
  ne_config* cfg = make_config("es",
                               "[es]\npopulation = 2\nl2coeff = 0\nobs_norm = false\nnoise = table\n"
                               "noise_table_mb = 1\n");
  void *es = make_algo("es", cfg, 3), *twin = make_algo("es", cfg, 3);
  const ne_algo_vt* vt = ne_algo_find("es");
  const ne_batch *b, *tb;
  ASSERT_EQ(vt->ask(es, &b), 0);
  ASSERT_EQ(vt->ask(twin, &tb), 0);
  const ne_noise_table* t = b->noise_table;
  ASSERT(t);
  ASSERT(tb->noise_table);
  ASSERT_NE(t, tb->noise_table);
  ASSERT_EQ(t->size, 1u << 18);
  ASSERT_U64_EQ(t->seed, ne_seed_derive(3, 0, 0, NE_PURPOSE_NOISE_TABLE));
  ASSERT(memcmp(t->data, tb->noise_table->data, t->size * sizeof(float)) == 0);
  // the pair: centre +- sigma * slice; one rank step moves the centre by lr * sign(slice)
  const float* slice = t->data + ne_noise_table_offset(t, b->cands[0].noise_seed, spec.n_params);
  float before[256], plus[256];
  memcpy(before, b->blobs[0].data, spec.n_params * sizeof(float));
  candidate_params(b, &b->cands[0], plus);
  for (size_t i = 0; i < spec.n_params; i++) ASSERT_EQ(plus[i], before[i] + 0.02f * slice[i]);
  ne_result res[3] = {{.fitness = 1}, {.fitness = 0}, {.fitness = 0.5}};
  int done;
  ASSERT_EQ(vt->tell(es, b, res, &done), 0);
  ASSERT_EQ(vt->ask(es, &b), 0);
  for (size_t i = 0; i < spec.n_params; i++)
    ASSERT_NEAR(b->blobs[0].data[i] - before[i], slice[i] > 0 ? 0.01 : -0.01, 1e-5);
  vt->destroy(es);
  vt->destroy(twin);
  ne_config_destroy(cfg);
  // the table is the default, sized automatically (1000 floats per parameter, at least 2^16);
  // es.noise = generator has none
  cfg = make_config("es", "");
  es = make_algo("es", cfg, 3);
  ASSERT_EQ(vt->ask(es, &b), 0);
  ASSERT(b->noise_table != NULL);
  ASSERT_EQ(b->noise_table->size, ne_noise_table_auto_size(spec.n_params));
  ASSERT_EQ(b->noise_table->size, spec.n_params * 1000 > (1u << 16) ? spec.n_params * 1000 : 1u << 16);
  vt->destroy(es);
  ne_config_destroy(cfg);
  cfg = make_config("es", "[es]\nnoise = generator\n");
  es = make_algo("es", cfg, 3);
  ASSERT_EQ(vt->ask(es, &b), 0);
  ASSERT(b->noise_table == NULL);
  vt->destroy(es);
  ne_config_destroy(cfg);
  // the automatic size: 1000 per parameter within [2^16, 2^24], never below 4 per parameter
  ASSERT_EQ(ne_noise_table_auto_size(10), 1u << 16);
  ASSERT_EQ(ne_noise_table_auto_size(100), 100000u);
  ASSERT_EQ(ne_noise_table_auto_size(10000), 10000000u);
  ASSERT_EQ(ne_noise_table_auto_size(1700000), 1u << 24);
  ASSERT_EQ(ne_noise_table_auto_size(10000000), 40000000u);
}

// The evaluator's PERTURB parameters equal ne_noise_perturb's for either source, whatever order
// the seeds come in (the generator's eps is kept for the mirrored twin: a stale one must not leak).
static void evaluator_perturbs_like_ne_noise_perturb(void) {
  char err[NE_ERRSTR_LEN];
  ne_env_spec* env;
  ASSERT_EQ(ne_env_make("CartPole-v1", NULL, &env, err), 0);
  ne_policy_spec p;
  int hidden[1] = {40};
  ASSERT_EQ(ne_policy_spec_init(&p, 4, hidden, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err), 0);
  ne_evaluator* ev = ne_evaluator_create(env, &p, NULL);
  ne_noise_table* table = ne_noise_table_create(4, 10000);
  ASSERT(ev && table);
  float* centre = ne_malloc(p.n_params * sizeof(float));
  float* expect = ne_malloc(p.n_params * sizeof(float));
  ne_policy_init_params(&p, 9, centre);
  ne_blob blob = {1, p.n_params, centre};
  const uint64_t seeds[6] = {11, 11, 12, 11, 12, 12};
  const float coefs[6] = {0.1f, -0.1f, 0.1f, 0.1f, -0.1f, -0.1f};
  for (int source = 0; source < 2; source++) {
    const ne_noise_table* t = source ? table : NULL;
    for (int i = 0; i < 6; i++) {
      ne_candidate c = {.kind = NE_CAND_PERTURB, .episodes = 1, .noise_seed = seeds[i], .coef = coefs[i]};
      ne_batch b = {.n = 1, .cands = &c, .n_blobs = 1, .blobs = &blob, .noise_table = t};
      int status;
      const float* got = ne_evaluator_params(ev, &b, &c, &status);
      ASSERT(got != NULL);
      ASSERT_EQ(status, 0);
      ne_noise_perturb(t, seeds[i], p.n_params, centre, coefs[i], expect);
      ASSERT(memcmp(got, expect, p.n_params * sizeof(float)) == 0);
    }
  }
  ne_free(centre);
  ne_free(expect);
  ne_noise_table_destroy(table);
  ne_evaluator_destroy(ev);
  ne_env_spec_destroy(env);
}

// A table too small for the policy is an error naming the key and the size it needs.
static void noise_table_too_small_is_an_error(void) {
  char err[NE_ERRSTR_LEN] = "";
  ne_config* cfg = make_config("ars", "[ars]\nnoise_source = table\nnoise_table_mb = 1\n");
  ne_noise_table* t = NULL;
  ASSERT_EQ(ne_algo_noise_table(cfg, 1, 300000, &t, err), NE_EINVAL);
  ASSERT(t == NULL);
  ASSERT_CONTAINS(err, "ars.noise_table_mb = 1");
  ASSERT_CONTAINS(err, "300000 parameters");
  ASSERT_CONTAINS(err, "at least 2");
  ASSERT_EQ(ne_algo_noise_table(cfg, 1, 1000, &t, err), 0);
  ASSERT(t != NULL);
  ne_noise_table_destroy(t);
  ne_config_destroy(cfg);
  // PGPE and SNES have one too (by default); CMA-ES and the GA have none
  cfg = make_config("pgpe", "");
  ASSERT_EQ(ne_algo_noise_table(cfg, 1, 1000, &t, err), 0);
  ASSERT(t != NULL);
  ne_noise_table_destroy(t);
  ne_config_destroy(cfg);
  cfg = make_config("cmaes", "");
  ASSERT_EQ(ne_algo_noise_table(cfg, 1, 1000, &t, err), 0);
  ASSERT(t == NULL);
  ne_config_destroy(cfg);
}

// ---- every algorithm: progress and save/load ---------------------------------------------------

typedef struct algo_case {
  const char* name;     // run.algorithm
  const char* section;  // its config
} algo_case;

static const algo_case cases[] = {
    {"es", "[es]\npopulation = 40\nsigma = 0.05\nlr = 0.03\neval_episodes = 1\n"},
    {"ars", "[ars]\ndirections = 20\ntop = 10\nstep_size = 0.05\nnoise = 0.05\neval_episodes = 1\n"},
    {"es", "[es]\npopulation = 40\nsigma = 0.05\nlr = 0.03\neval_episodes = 1\nnoise = table\nnoise_table_mb = 1\n"},
    {"ars",
     "[ars]\ndirections = 20\ntop = 10\nstep_size = 0.05\nnoise = 0.05\neval_episodes = 1\n"
     "noise_source = table\nnoise_table_mb = 1\n"},
    {"pgpe", "[pgpe]\npopulation = 40\ncenter_lr = 0.05\nstdev_init = 0.1\nobs_norm = true\neval_episodes = 1\n"},
    {"snes", "[snes]\nstdev_init = 0.2\nobs_norm = true\neval_episodes = 1\n"},
};

static void every_algorithm_improves_the_sphere(void) {
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    ne_config* cfg = make_config(cases[c].name, cases[c].section);
    void* algo = make_algo(cases[c].name, cfg, 11);
    ne_gen_report first = generation(cases[c].name, algo), r = first;
    for (int g = 0; g < 60; g++) r = generation(cases[c].name, algo);
    fprintf(stderr, "  %-4s centre %.4f -> %.4f (update %.4f, sigma %.4f)\n", cases[c].name, first.elite_mean,
            r.elite_mean, r.extra[0], r.extra[1]);
    ASSERT_GT(r.elite_mean, 0.1 * first.elite_mean);  // negative objective: 90% of the way
    ASSERT_EQ(r.generation, 60);
    ne_best best;
    ASSERT_EQ(ne_algo_find(cases[c].name)->best(algo, &best), 0);
    ASSERT(best.params);
    ASSERT_EQ(best.n_params, spec.n_params);
    ASSERT_GE(best.score, r.elite_mean);
    ne_algo_find(cases[c].name)->destroy(algo);
    ne_config_destroy(cfg);
  }
}

static int same_report(const ne_gen_report* a, const ne_gen_report* b) { return memcmp(a, b, sizeof *a) == 0; }

static void save_load_continues_identically(void) {
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    const char* name = cases[c].name;
    const ne_algo_vt* vt = ne_algo_find(name);
    ne_config* cfg = make_config(name, cases[c].section);
    void* a = make_algo(name, cfg, 5);
    void* b = make_algo(name, cfg, 5);
    for (int g = 0; g < 4; g++) generation(name, a), generation(name, b);
    // b travels through its serialized form into a fresh object
    uint8_t* data;
    size_t len;
    ASSERT_EQ(vt->save(b, &data, &len), 0);
    vt->destroy(b);
    void* c2 = make_algo(name, cfg, 5);
    char err[NE_ERRSTR_LEN];
    if (vt->load(c2, data, len, err) != 0) TEST_FAIL("%s load: %s", name, err);
    ne_gen_report ra, rc;
    vt->report(a, &ra);
    vt->report(c2, &rc);
    ASSERT(same_report(&ra, &rc));
    for (int g = 0; g < 4; g++) {
      ra = generation(name, a);
      rc = generation(name, c2);
      if (!same_report(&ra, &rc)) TEST_FAIL("%s: generation %u differs after load", name, ra.generation);
    }
    ne_best ba, bc;
    ASSERT_EQ(vt->best(a, &ba), 0);
    ASSERT_EQ(vt->best(c2, &bc), 0);
    ASSERT_EQ(ba.score, bc.score);
    ASSERT_EQ(ba.generation, bc.generation);
    ASSERT(memcmp(ba.params, bc.params, ba.n_params * sizeof(float)) == 0);
    ASSERT_EQ(!ba.obs_mean, !bc.obs_mean);
    // corrupt, truncated or foreign state is refused
    ASSERT_EQ(vt->load(c2, data, len / 2, err), NE_ECORRUPT);
    ASSERT_EQ(vt->load(c2, data, len - 1, err), NE_ECORRUPT);
    data[0] ^= 1;
    ASSERT_EQ(vt->load(c2, data, len, err), NE_ECORRUPT);
    ne_free(data);
    vt->destroy(a);
    vt->destroy(c2);
    ne_config_destroy(cfg);
  }
}

// ---- ARS, PGPE, SNES specifics -----------------------------------------------------------------

static void ars_steps_along_the_top_directions(void) {
  // 3 directions, top 2, V1; returns chosen by hand; the generator's directions
  ne_config* cfg = make_config("ars",
                               "[ars]\ndirections = 3\ntop = 2\nstep_size = 0.1\nnoise = 0.02\nversion = v1\n"
                               "noise_source = generator\n");
  void* ars = make_algo("ars", cfg, 4);
  const ne_algo_vt* vt = ne_algo_find("ars");
  const ne_batch* b;
  ASSERT_EQ(vt->ask(ars, &b), 0);
  ASSERT_EQ(b->want_obs_stats, 0);
  for (size_t i = 0; i < spec.n_params; i++) ASSERT_NEAR(b->blobs[0].data[i], 0, 0);  // M = 0
  uint64_t seeds[3];
  for (int k = 0; k < 3; k++) seeds[k] = b->cands[2 * k].noise_seed;
  // direction 1 (max 5) and 2 (max 4) are kept, direction 0 (max 1) is dropped
  ne_result res[7] = {{.fitness = 1}, {.fitness = 0}, {.fitness = 2}, {.fitness = 5},
                      {.fitness = 4}, {.fitness = 1}, {.fitness = 0}};
  int done;
  ASSERT_EQ(vt->tell(ars, b, res, &done), 0);
  double used[4] = {2, 5, 4, 1}, mean = 3, var = 0;
  for (int i = 0; i < 4; i++) var += (used[i] - mean) * (used[i] - mean) / 4;
  double sr = sqrt(var);
  float want[256] = {0}, e1[256], e2[256];
  ne_noise_fill(seeds[1], 0, spec.n_params, e1);
  ne_noise_fill(seeds[2], 0, spec.n_params, e2);
  for (size_t i = 0; i < spec.n_params; i++) want[i] = (float)(0.1 / (2 * sr) * ((2 - 5) * e1[i] + (4 - 1) * e2[i]));
  ASSERT_EQ(vt->ask(ars, &b), 0);
  for (size_t i = 0; i < spec.n_params; i++) ASSERT_NEAR(b->blobs[0].data[i], want[i], 1e-6);
  vt->destroy(ars);
  ne_config_destroy(cfg);
}

static void ars_shift_ranks_and_steps_on_shifted_returns(void) {
  // shift 1: a return R over T steps counts as R - T. Unshifted, direction 0 (10 in 10 steps) would
  // win; shifted it scores 0 against direction 1's 4 (5 in 1 step), so the top 1 is direction 1
  ne_config* cfg = make_config("ars",
                               "[ars]\ndirections = 2\ntop = 1\nstep_size = 0.1\nnoise = 0.02\nversion = v1\n"
                               "shift = 1\nnoise_source = generator\n");
  void* ars = make_algo("ars", cfg, 4);
  const ne_algo_vt* vt = ne_algo_find("ars");
  const ne_batch* b;
  ASSERT_EQ(vt->ask(ars, &b), 0);
  uint64_t seed1 = b->cands[2].noise_seed;
  ne_result res[5] = {{.fitness = 10, .episodes = 1, .steps = 10},
                      {.fitness = 0, .episodes = 1, .steps = 1},
                      {.fitness = 5, .episodes = 1, .steps = 1},
                      {.fitness = 4, .episodes = 1, .steps = 1},
                      {.fitness = 7, .episodes = 1, .steps = 100}};
  int done;
  ASSERT_EQ(vt->tell(ars, b, res, &done), 0);
  ne_gen_report r;
  vt->report(ars, &r);
  ASSERT_NEAR(r.best, 10, 0);       // population figures are unshifted
  ASSERT_NEAR(r.elite_mean, 7, 0);  // and so is the centre's evaluation
  // the step uses 4 and 3: their std is 0.5, so M = 0.1 / 0.5 * (4 - 3) * e1
  float e1[256];
  ne_noise_fill(seed1, 0, spec.n_params, e1);
  ASSERT_EQ(vt->ask(ars, &b), 0);
  for (size_t i = 0; i < spec.n_params; i++) ASSERT_NEAR(b->blobs[0].data[i], (float)(0.2 * e1[i]), 1e-6);
  vt->destroy(ars);
  ne_config_destroy(cfg);
}

static void pgpe_pairs_are_symmetric_and_sigma_change_is_limited(void) {
  ne_config* cfg = make_config("pgpe", "[pgpe]\npopulation = 4\nstdev_init = 0.5\nstdev_lr = 100\n");
  void* pg = make_algo("pgpe", cfg, 8);
  const ne_algo_vt* vt = ne_algo_find("pgpe");
  const ne_batch* b;
  ASSERT_EQ(vt->ask(pg, &b), 0);
  ASSERT_EQ(b->n, 5);
  ASSERT_EQ(b->n_blobs, 5);
  for (int k = 0; k < 2; k++) {
    const float *xp = b->blobs[1 + 2 * k].data, *xm = b->blobs[2 + 2 * k].data, *mu = b->blobs[0].data;
    ASSERT_U64_EQ(b->cands[2 * k].episode_seed, b->cands[2 * k + 1].episode_seed);
    for (size_t i = 0; i < spec.n_params; i++) ASSERT_NEAR(xp[i] - mu[i], mu[i] - xm[i], 1e-6);
    ASSERT_NE(b->blobs[1 + 2 * k].hash, b->blobs[2 + 2 * k].hash);
  }
  ne_result res[5] = {{.fitness = 3}, {.fitness = 1}, {.fitness = 2}, {.fitness = 0}, {.fitness = 0}};
  int done;
  ASSERT_EQ(vt->tell(pg, b, res, &done), 0);
  ne_gen_report r;
  vt->report(pg, &r);
  // a huge stdev_lr still moves every sigma by at most 20%
  ASSERT_GE(r.extra[1], 0.5 * 0.8 - 1e-6);
  ASSERT_LE(r.extra[1], 0.5 * 1.2 + 1e-6);
  ASSERT_NE(r.extra[1], 0.5);
  // ClipUp's first step has norm center_lr
  ASSERT_NEAR(r.extra[0], 0.15, 1e-5);
  vt->destroy(pg);
  ne_config_destroy(cfg);
}

// PGPE and SNES draw their samples' eps from the shared table by default (the slice of each sample's
// seed, times the per-parameter sigma), from the generator with noise = generator.
static void pgpe_and_snes_samples_come_from_the_table_or_the_generator(void) {
  const char* algos[2] = {"pgpe", "snes"};
  for (int a = 0; a < 2; a++)
    for (int table = 0; table < 2; table++) {
      char text[128];
      snprintf(text, sizeof text, "[%s]\nstdev_init = 0.5\nnoise = %s\n", algos[a], table ? "table" : "generator");
      ne_config* cfg = make_config(algos[a], text);
      void* g = make_algo(algos[a], cfg, 8);
      const ne_algo_vt* vt = ne_algo_find(algos[a]);
      const ne_batch* b;
      ASSERT_EQ(vt->ask(g, &b), 0);
      ne_noise_table* t = NULL;
      ASSERT_EQ(ne_algo_noise_table(cfg, 8, spec.n_params, &t, NULL), 0);
      ASSERT(table ? t != NULL : t == NULL);
      ASSERT_EQ(ne_algo_noise_table_evaluated(cfg), 0);  // the master's vectors: no worker table
      const float* mu = b->blobs[0].data;
      // sample k (SNES) or pair k's plus side (PGPE)
      for (int k = 0; k < 2; k++) {
        uint64_t seed = ne_seed_derive(8, 0, (uint64_t)k, NE_PURPOSE_MUTATION);
        float eps[256];
        if (t) memcpy(eps, t->data + ne_noise_table_offset(t, seed, spec.n_params), spec.n_params * sizeof(float));
        else ne_noise_fill(seed, 0, spec.n_params, eps);
        const float* x = b->blobs[1 + (a == 0 ? 2 * k : k)].data;
        for (size_t i = 0; i < spec.n_params; i++)
          if (x[i] != mu[i] + 0.5f * eps[i])
            TEST_FAIL("%s, noise %s: sample %d [%zu] = %a, want %a", algos[a], table ? "table" : "generator", k, i,
                      x[i], mu[i] + 0.5f * eps[i]);
      }
      ne_noise_table_destroy(t);
      vt->destroy(g);
      ne_config_destroy(cfg);
    }
}

static void snes_uses_the_paper_defaults(void) {
  ne_config* cfg = make_config("snes", "");
  void* s = make_algo("snes", cfg, 9);
  const ne_algo_vt* vt = ne_algo_find("snes");
  const ne_batch* b;
  ASSERT_EQ(vt->ask(s, &b), 0);
  int lambda = 4 + (int)floor(3 * log((double)spec.n_params));
  ASSERT_EQ(b->n, lambda + 1);
  ASSERT_EQ(b->cands[lambda].kind, NE_CAND_VECTOR);
  ASSERT_EQ(b->cands[lambda].blob, 0);
  vt->destroy(s);
  ne_config_destroy(cfg);
}

static void sections_of_other_algorithms_are_rejected(void) {
  ne_config* cfg = ne_config_create();
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_config_load_string(cfg, "[run]\nalgorithm = es\n[ars]\ndirections = 4\n", "mixed.ini", err), 0);
  ASSERT_NE(ne_config_validate(cfg, err), 0);
  ASSERT_CONTAINS(err, "[ars]");
  ne_config_destroy(cfg);
  cfg = ne_config_create();
  ASSERT_EQ(ne_config_load_string(cfg, "[run]\nalgorithm = ga\n[es]\nsigma = 0.1\n", "mixed.ini", err), 0);
  ASSERT_NE(ne_config_validate(cfg, err), 0);
  ASSERT_CONTAINS(err, "[es]");
  ne_config_destroy(cfg);
}

TEST_MAIN(TEST_ENTRY(centered_ranks_match_reference), TEST_ENTRY(nes_utilities_sum_to_zero),
          TEST_ENTRY(adam_matches_hand_computed), TEST_ENTRY(sgd_and_clipup_follow_their_rules),
          TEST_ENTRY(obs_stats_merge_matches_whole_data), TEST_ENTRY(es_obs_rule_has_prior_and_floor),
          TEST_ENTRY(es_asks_antithetic_pairs_and_the_centre), TEST_ENTRY(es_gradient_follows_rank_differences),
          TEST_ENTRY(es_table_noise_slices_one_table), TEST_ENTRY(noise_table_too_small_is_an_error),
          TEST_ENTRY(pgpe_and_snes_samples_come_from_the_table_or_the_generator),
          TEST_ENTRY(evaluator_perturbs_like_ne_noise_perturb), TEST_ENTRY(every_algorithm_improves_the_sphere),
          TEST_ENTRY(save_load_continues_identically), TEST_ENTRY(ars_steps_along_the_top_directions),
          TEST_ENTRY(ars_shift_ranks_and_steps_on_shifted_returns),
          TEST_ENTRY(pgpe_pairs_are_symmetric_and_sigma_change_is_limited), TEST_ENTRY(snes_uses_the_paper_defaults),
          TEST_ENTRY(sections_of_other_algorithms_are_rejected))
