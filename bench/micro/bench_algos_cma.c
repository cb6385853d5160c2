// SPDX-License-Identifier: MIT
// CMA-ES benchmarks: the algorithms' own cost per generation, ask + tell with synthetic fitness and
// no environment, one thread. sep-CMA-ES for 10^3 .. 10^6 parameters, shown per parameter and
// sample to make the O(P) scaling visible; full CMA-ES for n = 10, 100, 1000 with the O(n^3)
// eigendecomposition timed on its own and amortized over the generations between two of them.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "algos/cma_int.h"  // ne__cma_params_compute: the eigendecomposition gap
#include "core/linalg.h"    // ne__eigen_sym, timed directly
#include "core/util.h"      // ne__now
#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/rng.h"

static void die(const char* what, const char* err) {
  fprintf(stderr, "bench_algos_cma: %s: %s\n", what, err);
  exit(1);
}

// What one timing returns.
typedef struct timing {
  double s_per_gen;  // seconds of ask + tell per generation
  int lambda;        // population
  int gens;          // generations timed
} timing;

// Times ask + tell of `algo` on a black-box problem of p parameters (a policy spec with act_dim 0,
// never run), random fitness, for at least min_s seconds and min_gens generations.
static timing time_ask_tell(const char* algo, size_t p, double min_s, int min_gens) {
  char err[NE_ERRSTR_LEN], text[256];
  ne_policy_spec spec = {0};
  spec.sizes[0] = (int)p;
  spec.n_params = p;
  ne_config* cfg = ne_config_create();
  // no IPOP: random fitness would eventually trip a stop criterion and double lambda mid-timing
  snprintf(text, sizeof text,
           "[run]\nalgorithm = %s\n[%s]\nx0 = zeros\nsigma0 = 0.1\neval_mean = false\nipop = false\n", algo, algo);
  if (!cfg || ne_config_load_string(cfg, text, "bench", err)) die("config", err);
  ne_problem prob = {&spec, p, 1, 1, 1, 0};
  const ne_algo_vt* vt = ne_algo_find(algo);
  void* self;
  if (!vt || vt->create(&prob, cfg, &self, err)) die(algo, err);
  ne_result* res = NULL;
  int res_cap = 0;
  ne_rng rng;
  ne_rng_seed(&rng, 9);
  timing t = {0, 0, 0};
  double elapsed = 0;
  while (elapsed < min_s || t.gens < min_gens) {
    double t0 = ne__now();
    const ne_batch* b;
    vt->ask(self, &b);
    double t1 = ne__now();
    // synthetic results, not timed
    if (b->n > res_cap) {
      ne_free(res);
      res = ne_calloc((size_t)b->n, sizeof *res);
      res_cap = b->n;
    }
    for (int i = 0; i < b->n; i++) res[i] = (ne_result){.fitness = ne_rng_uniform(&rng), .episodes = 1};
    t.lambda = b->n;
    double t2 = ne__now();
    int done;
    vt->tell(self, b, res, &done);
    elapsed += (t1 - t0) + (ne__now() - t2);
    t.gens++;
  }
  t.s_per_gen = elapsed / t.gens;
  vt->destroy(self);
  ne_free(res);
  ne_config_destroy(cfg);
  return t;
}

static void sep_table(void) {
  printf("sep-CMA-ES: ask + tell per generation (random fitness, 1 thread)\n");
  printf("  %-9s %7s %12s %20s\n", "params", "lambda", "s/gen", "ns/(param*sample)");
  for (size_t p = 1000; p <= 1000000; p *= 10) {
    timing t = time_ask_tell("sepcmaes", p, 0.5, 3);
    printf("  %-9zu %7d %12.6f %20.2f\n", p, t.lambda, t.s_per_gen, t.s_per_gen * 1e9 / ((double)p * t.lambda));
  }
}

// seconds of one eigendecomposition of a random n x n covariance-like matrix
static double eigen_seconds(int n) {
  double* a = ne_malloc((size_t)n * n * sizeof(double));
  double* g = ne_malloc((size_t)n * n * sizeof(double));
  double* w = ne_malloc((size_t)n * sizeof(double));
  double* work = ne_malloc((size_t)n * sizeof(double));
  if (!a || !g || !w || !work) die("eigen", "out of memory");
  ne_rng rng;
  ne_rng_seed(&rng, 1);
  for (size_t i = 0; i < (size_t)n * n; i++) g[i] = ne_rng_normal(&rng);
  // symmetric: (G + G^T) / 2 + n I
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[(size_t)i * n + j] = 0.5 * (g[(size_t)i * n + j] + g[(size_t)j * n + i]) + (i == j ? n : 0);
  double t0 = ne__now();
  if (ne__eigen_sym(a, w, work, n)) die("eigen", "no convergence");
  double s = ne__now() - t0;
  ne_free(a), ne_free(g), ne_free(w), ne_free(work);
  return s;
}

static void full_table(void) {
  printf(
      "\nfull CMA-ES: ask + tell per generation (random fitness, 1 thread; eigendecompositions lazily,\n"
      "every max(1, floor(1 / (10 n (c1 + cmu)))) generations; timed runs include them)\n");
  printf("  %-6s %7s %12s %12s %9s %16s\n", "n", "lambda", "s/gen", "eigen s", "gap", "eigen s/gen");
  static const int ns[] = {10, 100, 1000};
  for (int i = 0; i < 3; i++) {
    int n = ns[i];
    double w[64];
    ne_cma_params par;
    ne__cma_params_compute(&par, w, n, ne__cma_default_lambda(n), 1, 0);
    double gap = floor(1.0 / (10.0 * n * (par.c1 + par.cmu)));
    if (gap < 1) gap = 1;
    double eig = eigen_seconds(n);
    // long enough to include at least two decompositions
    timing t = time_ask_tell("cmaes", (size_t)n, 0.5, (int)(2 * gap + 2));
    printf("  %-6d %7d %12.6f %12.6f %9.0f %16.6f\n", n, t.lambda, t.s_per_gen, eig, gap, eig / gap);
  }
}

int main(void) {
  sep_table();
  full_table();
  return 0;
}
