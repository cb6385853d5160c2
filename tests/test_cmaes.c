// SPDX-License-Identifier: MIT
// CMA-ES, sep-CMA-ES and the black-box functions: the symmetric eigendecomposition, the default
// strategy parameters against the 2016 tutorial's formulas (n = 10), h_sigma, the IPOP restart
// trigger, save/load continuing bit for bit, the bbob functions' optima and known values, the
// rotation's orthogonality, the bootstrap of `compare`, and evaluations to f < 1e-8 on sphere,
// ellipsoid and Rosenbrock (n = 10, 20) against pycma 4.5.0 (Hansen's reference implementation).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/cma_int.h"
#include "core/linalg.h"
#include "envs/bbob/bbob.h"
#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/compare.h"
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/rng.h"
#include "neuroevo/run.h"
#include "test.h"

#ifdef NDEBUG
#define SEEDS 9  // release: medians over 9 runs per (function, dimension)
#else
#define SEEDS 3  // debug / sanitizer builds: the same checks on fewer runs
#endif

// ---- a minimal in-process driver: config -> env + identity policy + algorithm --------------------

typedef struct bb {
  ne_config* cfg;
  ne_env_spec* env;
  ne_policy_spec policy;
  const ne_algo_vt* vt;
  void* algo;
  ne_result* res;  // (cap)
  int cap;
  int eval_mean;  // 1: the batch's last candidate is the mean, not a sample
  uint64_t hash;  // FNV-1a of the last batch's candidate vectors (taken before tell)
} bb;

static uint64_t hash_batch(const ne_batch* b) {
  uint64_t h = 1469598103934665603ull;
  for (int k = 0; k < b->n_blobs; k++) {
    const unsigned char* p = (const unsigned char*)b->blobs[k].data;
    for (size_t i = 0; i < b->blobs[k].n * sizeof(float); i++) h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

// algo on bbob/fn in dimension dim; extra = "section.key=value" overrides (NULL-terminated)
static void bb_open(bb* b, const char* algo, const char* fn, int dim, uint64_t seed, const char* const* extra) {
  char err[NE_ERRSTR_LEN], line[256];
  memset(b, 0, sizeof *b);
  b->cfg = ne_config_create();
  ASSERT(b->cfg);
  const char* base[] = {"run.algorithm=%s", "env.id=bbob/%s", NULL};
  snprintf(line, sizeof line, base[0], algo);
  ASSERT_EQ(ne_config_override(b->cfg, line, "test", err), 0);
  snprintf(line, sizeof line, base[1], fn);
  ASSERT_EQ(ne_config_override(b->cfg, line, "test", err), 0);
  snprintf(line, sizeof line, "env.dim=%d", dim);
  ASSERT_EQ(ne_config_override(b->cfg, line, "test", err), 0);
  for (int i = 0; extra && extra[i]; i++)
    if (ne_config_override(b->cfg, extra[i], "test", err)) TEST_FAIL("%s: %s", extra[i], err);
  ASSERT_EQ(ne_env_from_config(b->cfg, &b->env, err), 0);
  ASSERT_EQ(ne_policy_from_config(b->cfg, b->env, &b->policy, err), 0);
  ASSERT_EQ((long long)b->policy.n_params, dim);
  b->vt = ne_algo_find(algo);
  ASSERT(b->vt);
  b->eval_mean = ne_config_bool(b->cfg, algo, "eval_mean");
  ne_problem prob = {&b->policy, b->policy.n_params, seed, 1, 1, 0};
  if (b->vt->create(&prob, b->cfg, &b->algo, err)) TEST_FAIL("create: %s", err);
}

static void bb_close(bb* b) {
  b->vt->destroy(b->algo);
  ne_env_spec_destroy(b->env);
  ne_config_destroy(b->cfg);
  ne_free(b->res);
}

// One generation: ask, evaluate every candidate as -f, tell. Returns the batch (only its size may
// be read after tell); *fmin gets the lowest f of the population samples (the mean excluded).
static const ne_batch* bb_generation(bb* b, double* fmin) {
  const ne_batch* batch;
  ASSERT_EQ(b->vt->ask(b->algo, &batch), 0);
  if (batch->n > b->cap) {
    ne_free(b->res);
    b->res = ne_calloc((size_t)batch->n, sizeof *b->res);
    b->cap = batch->n;
  }
  *fmin = INFINITY;
  int samples = batch->n - b->eval_mean;
  for (int k = 0; k < batch->n; k++) {
    const float* x = batch->blobs[batch->cands[k].blob].data;
    double f = b->env->evaluate(b->env, x, b->policy.n_params);
    b->res[k] = (ne_result){.fitness = -f, .episodes = 1, .steps = 1};
    if (f < *fmin && k < samples) *fmin = f;
  }
  b->hash = hash_batch(batch);
  int done = 0;
  ASSERT_EQ(b->vt->tell(b->algo, batch, b->res, &done), 0);
  ASSERT_EQ(done, 1);
  return batch;
}

// ---- linear algebra -----------------------------------------------------------------------------

static void check_eigen(const double* a0, int n, double tol) {
  double* a = malloc((size_t)n * n * sizeof *a);
  double* w = malloc((size_t)n * sizeof *w);
  double* work = malloc((size_t)n * sizeof *work);
  memcpy(a, a0, (size_t)n * n * sizeof *a);
  ASSERT_EQ(ne__eigen_sym(a, w, work, n), 0);
  for (int j = 1; j < n; j++) ASSERT_LE(w[j - 1], w[j]);
  // A v_j = w_j v_j and V^T V = I
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double s = 0, o = 0;
      for (int k = 0; k < n; k++) s += a0[i * n + k] * a[k * n + j];
      ASSERT_NEAR(s, w[j] * a[i * n + j], tol);
      for (int k = 0; k < n; k++) o += a[k * n + i] * a[k * n + j];
      ASSERT_NEAR(o, i == j ? 1.0 : 0.0, tol);
    }
  free(a), free(w), free(work);
}

static void eigendecomposition_of_random_symmetric_matrices(void) {
  ne_rng rng;
  ne_rng_seed(&rng, 7);
  for (int n = 1; n <= 40; n += n < 6 ? 1 : 17) {
    double* a = malloc((size_t)n * n * sizeof *a);
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = ne_rng_normal(&rng);
    check_eigen(a, n, 1e-12 * n);
    free(a);
  }
}

static void eigendecomposition_of_known_matrices(void) {
  // [[2, 1], [1, 2]]: eigenvalues 1 and 3
  double a[4] = {2, 1, 1, 2}, w[2], work[2];
  ASSERT_EQ(ne__eigen_sym(a, w, work, 2), 0);
  ASSERT_NEAR(w[0], 1, 1e-15);
  ASSERT_NEAR(w[1], 3, 1e-15);
  ASSERT_NEAR(fabs(a[0]), sqrt(0.5), 1e-15);
  // diagonal and repeated eigenvalues: the identity, diag(3, 1, 2) and an ill-conditioned diagonal
  double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, dg[9] = {3, 0, 0, 0, 1, 0, 0, 0, 2};
  check_eigen(id, 3, 1e-15);
  check_eigen(dg, 3, 1e-15);
  double ill[9] = {1e14, 0, 0, 0, 1, 0, 0, 0, 1e-6};
  double w3[3], work3[3];
  memcpy(dg, ill, sizeof dg);
  ASSERT_EQ(ne__eigen_sym(dg, w3, work3, 3), 0);
  ASSERT_NEAR(w3[0], 1e-6, 1e-20);
  ASSERT_NEAR(w3[2], 1e14, 1e-2);
}

static void deterministic_exp_matches_libm(void) {
  ASSERT_EQ(ne__exp(0), 1.0);
  ASSERT(isinf(ne__exp(710)));
  ASSERT_EQ(ne__exp(-746), 0);
  ASSERT(isnan(ne__exp(NAN)));
  double worst = 0;
  for (double x = -700; x < 700; x += 0.173) {
    double r = fabs(ne__exp(x) / exp(x) - 1);
    if (r > worst) worst = r;
  }
  ASSERT_LT(worst, 4.5e-16);  // within 2 ulp of libm everywhere
}

static void gram_schmidt_orthonormalizes(void) {
  ne_rng rng;
  ne_rng_seed(&rng, 3);
  int n = 12;
  double a[144];
  for (int i = 0; i < n * n; i++) a[i] = ne_rng_normal(&rng);
  ASSERT_EQ(ne__orthonormalize_rows(a, n), 0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += a[i * n + k] * a[j * n + k];
      ASSERT_NEAR(s, i == j, 1e-14);
    }
  double dep[4] = {1, 2, 2, 4};
  ASSERT_EQ(ne__orthonormalize_rows(dep, 2), NE_ERANGE);
}

// ---- strategy parameters (tutorial 2016, Table 1 and eqs. 49-58) --------------------------------

static void default_parameters_for_n10_match_the_tutorial(void) {
  ASSERT_EQ(ne__cma_default_lambda(10), 10);  // 4 + floor(3 ln 10) = 4 + 6
  ASSERT_EQ(ne__cma_default_lambda(20), 12);
  ASSERT_EQ(ne__cma_default_lambda(1000), 24);
  ASSERT_EQ(ne__cma_default_lambda(1), 4);
  double w[10];
  ne_cma_params p;
  ne__cma_params_compute(&p, w, 10, 10, 1, 0);
  ASSERT_EQ(p.mu, 5);
  // the formulas, evaluated independently here (double precision, libm log)
  double raw[10], pos = 0, pos2 = 0, neg = 0, neg2 = 0, n = 10;
  for (int i = 0; i < 10; i++) {
    raw[i] = log(5.5) - log(i + 1.0);
    if (i < 5) pos += raw[i], pos2 += raw[i] * raw[i];
    else neg -= raw[i], neg2 += raw[i] * raw[i];
  }
  double mueff = pos * pos / pos2, mueff_neg = neg * neg / neg2;
  double c1 = 2 / ((n + 1.3) * (n + 1.3) + mueff);
  double cmu = fmin(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) * (n + 2) + mueff));
  double cs = (mueff + 2) / (n + mueff + 5);
  double ds = 1 + 2 * fmax(0, sqrt((mueff - 1) / (n + 1)) - 1) + cs;
  double cc = (4 + mueff / n) / (n + 4 + 2 * mueff / n);
  double alpha = fmin(1 + c1 / cmu, fmin(1 + 2 * mueff_neg / (mueff + 2), (1 - c1 - cmu) / (n * cmu)));
  ASSERT_NEAR(p.mueff, mueff, 1e-14);
  ASSERT_NEAR(p.mueff, 3.1672992814107026, 1e-13);  // literal from Python with the same formulas
  ASSERT_NEAR(p.c1, c1, 1e-16);
  ASSERT_NEAR(p.c1, 0.015283824524751714, 1e-15);
  ASSERT_NEAR(p.cmu, cmu, 1e-16);
  ASSERT_NEAR(p.cmu, 0.02015428276120838, 1e-15);
  ASSERT_NEAR(p.cs, cs, 1e-15);
  ASSERT_NEAR(p.cs, 0.2844285879463675, 1e-14);
  ASSERT_NEAR(p.ds, ds, 1e-15);
  ASSERT_NEAR(p.cc, cc, 1e-15);
  ASSERT_NEAR(p.cc, 0.29499038303562225, 1e-14);
  ASSERT_NEAR(p.chin, sqrt(10) * (1 - 1 / 40.0 + 1 / 2100.0), 1e-15);
  // weights: positive ones sum to 1; negative ones to -min(alpha_mu, alpha_mueff, alpha_posdef) =
  // -(1 + c1 / cmu) for n = 10, which makes the decay 1 - c1 - cmu sum(w) exactly 1
  double sp = 0, sn = 0;
  for (int i = 0; i < 10; i++) {
    ASSERT_NEAR(w[i], i < 5 ? raw[i] / pos : alpha * raw[i] / neg, 1e-15);
    if (i < 5) sp += w[i];
    else sn += w[i];
  }
  ASSERT_NEAR(sp, 1, 1e-15);
  ASSERT_NEAR(sn, -(1 + c1 / cmu), 1e-14);
  ASSERT_NEAR(w[0], 0.45627264690340597, 1e-14);
  ASSERT_NEAR(p.wsum, sp + sn, 1e-15);
  ne_cma c = {.par = p};
  ASSERT_NEAR(ne__cma_decay(&c, 1), 1.0, 1e-15);
  ASSERT_NEAR(ne__cma_decay(&c, 0), 1.0 + c1 * cc * (2 - cc), 1e-15);
  // without active CMA the negative weights are zero
  ne__cma_params_compute(&p, w, 10, 10, 0, 0);
  for (int i = 5; i < 10; i++) ASSERT_EQ(w[i], 0);
  ASSERT_NEAR(p.wsum, 1, 1e-15);
}

static void separable_rates_scale_by_n_plus_2_over_3(void) {
  double w[17], wf[17];
  ne_cma_params sep, full;
  ne__cma_params_compute(&full, wf, 100, 17, 0, 0);
  ne__cma_params_compute(&sep, w, 100, 17, 1, 1);  // active is ignored for sep-CMA-ES
  ASSERT_NEAR(sep.c1, full.c1 * 102 / 3.0, 1e-16);
  ASSERT_NEAR(sep.cmu, fmin(1 - sep.c1, full.cmu * 102 / 3.0), 1e-16);
  for (int i = 8; i < 17; i++) ASSERT_EQ(w[i], 0);
  ASSERT_NEAR(sep.cs, full.cs, 0);
  ASSERT_NEAR(sep.cc, full.cc, 0);
}

// h_sigma = 1 iff ||p_sigma|| / sqrt(1 - (1 - cs)^(2(g+1))) < (1.4 + 2 / (n + 1)) E||N(0, I)||
static void hsig_follows_the_stall_condition(void) {
  int n = 10;
  double w[10], m[10] = {0}, ps[10], pc[10] = {0}, v[10];
  ne_cma c;
  memset(&c, 0, sizeof c);
  c.n = n;
  c.m = m, c.ps = ps, c.pc = pc;
  c.sigma = 1;
  ne__cma_params_compute(&c.par, w, n, 10, 1, 0);
  double f = sqrt(c.par.cs * (2 - c.par.cs) * c.par.mueff);
  double limit = (1.4 + 2.0 / (n + 1)) * c.par.chin;
  for (int g = 0; g < 40; g += 13) {
    double corr = sqrt(1 - pow(1 - c.par.cs, 2.0 * (g + 1)));
    for (int side = -1; side <= 1; side += 2) {
      // a p_sigma of norm limit * corr * (1 -+ 1e-6) along the first axis, built from ps = 0
      double target = limit * corr * (1 + side * 1e-6);
      memset(ps, 0, sizeof ps);
      memset(v, 0, sizeof v);
      v[0] = target / f;
      c.g = (uint32_t)g;
      c.sigma = 1;
      int hsig = ne__cma_step_size(&c, v);
      ASSERT_NEAR(ps[0], target, 1e-12);
      ASSERT_EQ(hsig, side < 0);
      // and sigma moved by exp(cs / ds (||ps|| / chin - 1))
      ASSERT_NEAR(c.sigma, exp(c.par.cs / c.par.ds * (target / c.par.chin - 1)), 1e-14);
    }
  }
}

// ---- IPOP restarts ------------------------------------------------------------------------------

// On the sphere without a target, TolFun (1e-12) fires once f stalls: IPOP restarts with 2 lambda.
static void ipop_restarts_double_the_population(void) {
  const char* extra[] = {"cmaes.sigma0=0.5", "cmaes.x0_range=1", "cmaes.max_restarts=2", NULL};
  bb b;
  bb_open(&b, "cmaes", "sphere", 10, 1, extra);
  double fmin;
  int first_restart = -1;
  ne_cma* c = b.algo;  // white-box: each algorithm's state starts with the shared ne_cma
  for (int g = 0; g < 3000 && first_restart < 0; g++) {
    const ne_batch* batch = bb_generation(&b, &fmin);
    ASSERT_EQ(batch->n, 11);  // 10 samples + the mean
    if (c->restart >= 1) first_restart = g;
  }
  ASSERT_GT(first_restart, 100);  // only after convergence
  ASSERT_LT(fmin, 1e-9);          // the last generation before the restart had converged
  const ne_batch* batch = bb_generation(&b, &fmin);
  ASSERT_EQ(batch->n, 21);  // lambda 20 + the mean
  ASSERT_GT(fmin, 1e-3);    // a fresh start from a new x0 and sigma0
  ASSERT_EQ(c->restart, 1);
  ASSERT_EQ(c->par.lambda, 20);
  ASSERT_EQ(c->last_stop && (strcmp(c->last_stop, "tolfun") == 0 || strcmp(c->last_stop, "equalfunvalues") == 0), 1);
  // restarts stop at max_restarts
  for (int g = 0; g < 4000; g++) bb_generation(&b, &fmin);
  ASSERT_EQ(c->restart, 2);
  ASSERT_EQ(c->par.lambda, 40);
  bb_close(&b);
  // ipop = false: the same run never restarts
  const char* off[] = {"cmaes.sigma0=0.5", "cmaes.x0_range=1", "cmaes.ipop=false", NULL};
  bb_open(&b, "cmaes", "sphere", 10, 1, off);
  for (int g = 0; g < 1500; g++) bb_generation(&b, &fmin);
  c = b.algo;
  ASSERT_EQ(c->restart, 0);
  ASSERT_EQ(c->par.lambda, 10);
  bb_close(&b);
}

// ---- checkpoints --------------------------------------------------------------------------------

// Run A; B loads A's state saved 5 generations after A's first IPOP restart (tolfun = 1 forces
// restarts early) and must produce the same batches and reports bit for bit until A's second
// restart has passed.
static void save_load_continues_bit_identically_for(const char* algo, const char* fn) {
  char e1[64], e2[64], e3[64];
  snprintf(e1, sizeof e1, "%s.tolfun=1", algo);
  snprintf(e2, sizeof e2, "%s.sigma0=0.3", algo);
  snprintf(e3, sizeof e3, "%s.x0_range=2", algo);
  const char* extra[] = {e1, e2, e3, NULL};
  enum { MAX_GEN = 1500 };
  bb a, b;
  bb_open(&a, algo, fn, 6, 42, extra);
  bb_open(&b, algo, fn, 6, 42, extra);
  uint8_t* state = NULL;
  size_t len = 0;
  static uint64_t hashes[MAX_GEN];
  static ne_gen_report ra[MAX_GEN];
  double fmin;
  ne_cma* ca = a.algo;  // white-box: the shared state comes first
  int cut = -1, total = -1;
  for (int g = 0; g < MAX_GEN && total < 0; g++) {
    if (cut < 0 && ca->restart == 1 && ca->g == 5) {
      cut = g;
      ASSERT_EQ(a.vt->save(a.algo, &state, &len), 0);
    }
    bb_generation(&a, &fmin);
    hashes[g] = a.hash;
    a.vt->report(a.algo, &ra[g]);
    if (ca->restart == 2 && ca->g == 5) total = g + 1;
  }
  ASSERT_GT(cut, 0);
  ASSERT_GT(total, cut);  // restarted before and after the cut
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(b.vt->load(b.algo, state, len, err), 0);
  for (int g = cut; g < total; g++) {
    bb_generation(&b, &fmin);
    ASSERT_U64_EQ(b.hash, hashes[g]);
    ne_gen_report rb;
    b.vt->report(b.algo, &rb);
    ASSERT_EQ(memcmp(&rb, &ra[g], sizeof rb), 0);
  }
  ne_best ba, bb_best;
  ASSERT_EQ(a.vt->best(a.algo, &ba), 0);
  ASSERT_EQ(b.vt->best(b.algo, &bb_best), 0);
  ASSERT_EQ(ba.score, bb_best.score);
  ASSERT_EQ(memcmp(ba.params, bb_best.params, ba.n_params * sizeof(float)), 0);
  // a corrupt state is refused with a message, never half-loaded silently
  state[0] ^= 0xff;
  ASSERT_EQ(b.vt->load(b.algo, state, len, err), NE_ECORRUPT);
  state[0] ^= 0xff;
  ASSERT_LT(b.vt->load(b.algo, state, len - 3, err), 0);
  free(state);
  bb_close(&a);
  bb_close(&b);
}

static void save_load_continues_bit_identically(void) {
  save_load_continues_bit_identically_for("cmaes", "rosenbrock");
  save_load_continues_bit_identically_for("sepcmaes", "ellipsoid");
}

// ---- black-box functions ------------------------------------------------------------------------

static ne_env_spec* make_bbob(const char* id, int dim, uint64_t shift_seed) {
  ne_env_options o = {0};
  o.dim = dim;
  o.shift_seed = shift_seed;
  ne_env_spec* spec = NULL;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make(id, &o, &spec, err)) TEST_FAIL("%s: %s", id, err);
  return spec;
}

static double f_at(const ne_env_spec* s, const float* x) { return s->evaluate(s, x, (size_t)s->dim); }

static void bbob_values_at_known_points(void) {
  const int n = 7;
  float ones[7], zeros[7] = {0}, halves[7], e0[7] = {1}, elast[7] = {0};
  for (int i = 0; i < n; i++) ones[i] = 1, halves[i] = 0.5f;
  elast[n - 1] = 1;
  struct {
    const char* id;
    const float* x;
    double f;
  } cases[] = {
      {"bbob/sphere", ones, 7},
      {"bbob/ellipsoid", e0, 1},
      {"bbob/ellipsoid", elast, 1e6},
      {"bbob/rosenbrock", zeros, 6},                // n - 1 terms of (1 - 0)^2
      {"bbob/rastrigin", halves, 20.25 * 7},        // 10 n + n (0.25 - 10 cos(pi))
      {"bbob/schwefel12", ones, 7 * 8 * 15 / 6.0},  // sum of i^2, i = 1..n
      {"bbob/cigar", ones, 1 + 6e6},
      {"bbob/discus", ones, 1e6 + 6},
      {"bbob/griewank", zeros, 0},
      {"bbob/ackley", zeros, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ne_env_spec* s = make_bbob(cases[i].id, n, 0);
    ASSERT_NEAR(f_at(s, cases[i].x), cases[i].f, 1e-9 * fmax(1, cases[i].f));
    ne_env_spec_destroy(s);
  }
  // griewank and ackley away from the optimum, against their formulas with libm
  ne_env_spec* g = make_bbob("bbob/griewank", n, 0);
  double p = 1, sq = 0, cs = 0;
  for (int i = 0; i < n; i++) p *= cos(1.0 / sqrt(i + 1.0));
  ASSERT_NEAR(f_at(g, ones), 1 + 7 / 4000.0 - p, 1e-14);
  ne_env_spec_destroy(g);
  ne_env_spec* a = make_bbob("bbob/ackley", n, 0);
  for (int i = 0; i < n; i++) sq += 0.25, cs += cos(M_PI);
  ASSERT_NEAR(f_at(a, halves), -20 * exp(-0.2 * sqrt(sq / n)) - exp(cs / n) + 20 + M_E, 1e-13);
  ne_env_spec_destroy(a);
}

static void bbob_optima_are_zero_with_and_without_shift(void) {
  const char* ids[] = {"bbob/sphere",   "bbob/ellipsoid",  "bbob/rosenbrock", "bbob/rastrigin", "bbob/ackley",
                       "bbob/griewank", "bbob/schwefel12", "bbob/cigar",      "bbob/discus"};
  const int n = 9;
  for (int i = 0; i < 9; i++) {
    for (uint64_t seed = 0; seed <= 5; seed += 5) {
      ne_env_spec* s = make_bbob(ids[i], n, seed);
      ASSERT_EQ(s->dim, n);
      ASSERT(s->has_threshold);
      ASSERT_EQ(s->reward_threshold, -1e-8);
      double xd[9];
      float x[9], y[9];
      ASSERT_EQ(ne__bbob_optimum(s, xd), 0);
      for (int j = 0; j < n; j++) x[j] = (float)xd[j];
      double f0 = f_at(s, x);
      // unshifted optima are exact in float; shifted ones carry the float rounding of x*
      if (seed == 0) ASSERT_EQ(f0, 0);
      else ASSERT_LT(f0, 1e-6);
      // any step of 1e-2 away is worse
      for (int j = 0; j < n; j++) {
        memcpy(y, x, sizeof y);
        y[j] += 0.01f;
        ASSERT_GT(f_at(s, y), f0);
      }
      ne_env_spec_destroy(s);
    }
  }
}

static void rotation_is_orthogonal_and_reproducible(void) {
  const int n = 30;
  ne_env_spec* s = make_bbob("bbob/sphere", n, 11);
  ne_env_spec* t = make_bbob("bbob/sphere", n, 11);
  ne_env_spec* u = make_bbob("bbob/sphere", n, 12);
  const double *r = ne__bbob_rotation(s), *r2 = ne__bbob_rotation(t), *r3 = ne__bbob_rotation(u);
  ASSERT(r && r2 && r3);
  ne_env_spec* plain = make_bbob("bbob/cigar", 3, 0);
  ASSERT(ne__bbob_rotation(plain) == NULL);  // shift_seed 0: the plain function
  ne_env_spec_destroy(plain);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double rrt = 0, rtr = 0;
      for (int k = 0; k < n; k++) rrt += r[i * n + k] * r[j * n + k], rtr += r[k * n + i] * r[k * n + j];
      ASSERT_NEAR(rrt, i == j, 1e-13);
      ASSERT_NEAR(rtr, i == j, 1e-13);
    }
  ASSERT_EQ(memcmp(r, r2, (size_t)n * n * sizeof *r), 0);
  ASSERT(memcmp(r, r3, (size_t)n * n * sizeof *r) != 0);
  // the rotated sphere is still |x - o|^2: rotations keep distances
  double o[30];
  float x[30];
  ne__bbob_optimum(s, o);
  double want = 0;
  for (int j = 0; j < n; j++) {
    x[j] = (float)(o[j] + 0.5 * (j % 3 - 1));
    double d = (double)x[j] - o[j];
    want += d * d;
  }
  ASSERT_NEAR(f_at(s, x), want, 1e-10);
  ne_env_spec_destroy(s), ne_env_spec_destroy(t), ne_env_spec_destroy(u);
}

static void bbob_rejects_bad_dimensions(void) {
  ne_env_options o = {.dim = 1};
  ne_env_spec* s = NULL;
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_env_make("bbob/rosenbrock", &o, &s, err), NE_ERANGE);
  ASSERT_CONTAINS(err, "dim >= 2");
  o.dim = 3000;
  o.shift_seed = 1;
  ASSERT_EQ(ne_env_make("bbob/sphere", &o, &s, err), NE_ERANGE);
  ASSERT_CONTAINS(err, "shift_seed");
  ASSERT(s == NULL);
  // the default dimension is 10
  ASSERT_EQ(ne_env_make("bbob/sphere", NULL, &s, err), 0);
  ASSERT_EQ(s->dim, 10);
  ne_env_spec_destroy(s);
}

// ---- compare's bootstrap ------------------------------------------------------------------------

static void bootstrap_interval_is_deterministic(void) {
  double x[6] = {1, 2, 3, 4, 5, 10}, lo, hi, lo2, hi2;
  ne_compare_bootstrap(x, 6, 10000, 12345, &lo, &hi);
  ne_compare_bootstrap(x, 6, 10000, 12345, &lo2, &hi2);
  ASSERT_EQ(lo, lo2);
  ASSERT_EQ(hi, hi2);
  ASSERT_LT(lo, 25 / 6.0);
  ASSERT_LT(25 / 6.0, hi);  // brackets the mean
  ASSERT_GE(lo, 1);
  ASSERT_LE(hi, 10);
  ASSERT_GT(lo, 1.5);
  ASSERT_LT(hi, 8);  // and is far narrower than the data's range
  ne_compare_bootstrap(x, 1, 100, 1, &lo, &hi);
  ASSERT_EQ(lo, 1);
  ASSERT_EQ(hi, 1);
  ne_compare_bootstrap(x, 0, 100, 1, &lo, &hi);
  ASSERT(isnan(lo) && isnan(hi));
}

// ---- evaluations to f < 1e-8 --------------------------------------------------------------------

// Evaluations of population samples until one has f < 1e-8 (the mean's evaluation not counted, as
// in pycma's ftarget count), x0 uniform in [-1, 1]^n, sigma0 = 0.5, default population, IPOP on.
static long evals_to_target(const char* algo, const char* fn, int n, uint64_t seed) {
  char e1[64], e2[64], e3[64];
  snprintf(e1, sizeof e1, "%s.sigma0=0.5", algo);
  snprintf(e2, sizeof e2, "%s.x0_range=1", algo);
  snprintf(e3, sizeof e3, "%s.eval_mean=false", algo);
  const char* extra[] = {e1, e2, e3, NULL};
  bb b;
  bb_open(&b, algo, fn, n, seed, extra);
  long evals = 0;
  double fmin = INFINITY;
  while (fmin >= 1e-8 && evals < 2000000) evals += bb_generation(&b, &fmin)->n;
  bb_close(&b);
  return evals;
}

static int cmp_long(const void* a, const void* b) {
  long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

static long median_evals(const char* algo, const char* fn, int n) {
  long e[SEEDS];
  for (int s = 0; s < SEEDS; s++) e[s] = evals_to_target(algo, fn, n, (uint64_t)s + 1);
  qsort(e, SEEDS, sizeof e[0], cmp_long);
  return e[SEEDS / 2];
}

// Reference: median evaluations to f < 1e-8 of pycma 4.5.0 (cma.fmin, default options: active CMA,
// default population, IPOP restarts=9, incpopsize=2), same start distribution (x0 uniform in
// [-1, 1]^n, sigma0 = 0.5), 11 seeds each, measured with
//   cma.fmin(f, np.random.default_rng(s).uniform(-1, 1, n), 0.5,
//            {'ftarget': 1e-8, 'seed': s + 1, 'verbose': -9}, restarts=9, incpopsize=2)
// minus pycma's one final evaluation of the mean. Our figures must be within 25% of pycma's medians
// (pycma's c_sigma / d_sigma / c_mu defaults differ slightly from the 2016 tutorial's, which we
// follow).
//
// Literature: the per-function figures of Hansen & Ostermeier 2001 (Evolutionary Computation 9(2),
// 159-195) and Hansen, Mueller & Koumoutsakos 2003 (Evolutionary Computation 11(1), 1-18), both run
// to f_stop = 1e-10 (two decades below our 1e-8, so their counts would be somewhat higher), are
// plots and tables we could not retrieve, so none of their numbers is quoted here. The published
// figure we could check is the range in Hansen's own CMA-ES documentation (c-cmaes doc.txt,
// "GENERAL PURPOSE"): "On considerably hard problems the search (a single run) is expected to take
// between 100*N and 300*N^2 function evaluations" (it does not name a target precision). The
// ellipsoid and Rosenbrock medians must fall in that range; the sphere is no hard problem (below
// 100 n is allowed there).
static void evaluations_to_target_match_pycma(void) {
  static const struct {
    const char* fn;
    int n;
    long pycma;
  } ref[] = {
      {"sphere", 10, 1270},     {"sphere", 20, 2436},     {"ellipsoid", 10, 3920},
      {"ellipsoid", 20, 12408}, {"rosenbrock", 10, 4980}, {"rosenbrock", 20, 16968},
  };
  for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
    long med = median_evals("cmaes", ref[i].fn, ref[i].n);
    fprintf(stderr, "  cmaes %-10s n=%d: median %ld evaluations to f < 1e-8 (pycma 4.5.0: %ld)\n", ref[i].fn, ref[i].n,
            med, ref[i].pycma);
    ASSERT_GT(med, 0.75 * ref[i].pycma);
    ASSERT_LT(med, 1.25 * ref[i].pycma);
    long n = ref[i].n;
    ASSERT_LE(med, 300 * n * n);
    if (strcmp(ref[i].fn, "sphere") != 0) ASSERT_GE(med, 100 * n);
  }
}

// sep-CMA-ES learns the separable ellipsoid's scales faster than full CMA-ES (Ros & Hansen 2008,
// Fig. 2: by about the factor (n + 2) / 3 in learning rate), and still solves the sphere.
static void sep_cmaes_is_faster_on_separable_problems(void) {
  long sep = median_evals("sepcmaes", "ellipsoid", 20), full = median_evals("cmaes", "ellipsoid", 20);
  long sphere = median_evals("sepcmaes", "sphere", 20);
  fprintf(stderr, "  ellipsoid n=20: sepcmaes %ld, cmaes %ld evaluations; sepcmaes sphere n=20: %ld\n", sep, full,
          sphere);
  ASSERT_LT(sep, full / 2);
  ASSERT_LT(sphere, 4000);
}

TEST_MAIN(TEST_ENTRY(eigendecomposition_of_random_symmetric_matrices), TEST_ENTRY(eigendecomposition_of_known_matrices),
          TEST_ENTRY(deterministic_exp_matches_libm), TEST_ENTRY(gram_schmidt_orthonormalizes),
          TEST_ENTRY(default_parameters_for_n10_match_the_tutorial),
          TEST_ENTRY(separable_rates_scale_by_n_plus_2_over_3), TEST_ENTRY(hsig_follows_the_stall_condition),
          TEST_ENTRY(ipop_restarts_double_the_population), TEST_ENTRY(save_load_continues_bit_identically),
          TEST_ENTRY(bbob_values_at_known_points), TEST_ENTRY(bbob_optima_are_zero_with_and_without_shift),
          TEST_ENTRY(rotation_is_orthogonal_and_reproducible), TEST_ENTRY(bbob_rejects_bad_dimensions),
          TEST_ENTRY(bootstrap_interval_is_deterministic), TEST_ENTRY(evaluations_to_target_match_pycma),
          TEST_ENTRY(sep_cmaes_is_faster_on_separable_problems))
