// SPDX-License-Identifier: MIT
// Novelty search's own cost (src/algos/novelty.c), single thread, thread CPU time: the k-NN novelty
// of one generation against archives of growing size, for GA-NS (1000 genomes, k = 25, against
// the archive and the population) and NS-ES (100 perturbations, k = 10, against the archive), with
// 2-float behaviours (final x-y positions) and 128-float ones (Atari RAM). Each figure is the median
// of 3 repeats of at least 0.2 s. Also the cost of the generation's evaluations on HardMaze-v0 (1000
// episodes of a 16-16 MLP), so the novelty share of a GA-NS generation is known. About 30 s.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algos/novelty.h"
#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"

#include "bench_timing.h"

// this thread's CPU seconds per call of fn(ctx): other load on the machine does not count
static double time_op(void (*fn)(void*), void* ctx) { return bench_time_op(CLOCK_THREAD_CPUTIME_ID, fn, ctx); }

// one generation's novelty computation
typedef struct gen_case {
  ne__archive archive;  // filled with random behaviours
  ne__knn knn;
  float* pop;  // (n_pop, dim) queries
  int n_pop;
  int with_pop;  // GA-NS: the population counts as neighbours too
  double sink;   // keeps the work from being optimized away
} gen_case;

static void novelty_generation(void* p) {
  gen_case* g = p;
  for (int i = 0; i < g->n_pop; i++)
    g->sink += ne__novelty(&g->knn, g->pop + (size_t)i * (size_t)g->archive.dim, &g->archive,
                           g->with_pop ? g->pop : NULL, g->with_pop ? g->n_pop : 0, i);
}

static void fill(float* v, size_t n, ne_rng* rng) {
  for (size_t i = 0; i < n; i++) v[i] = (float)(200.0 * ne_rng_uniform(rng));
}

// ms per generation for an archive of n behaviours of dim floats
static double measure(int dim, int n, int n_pop, int k, int with_pop) {
  gen_case g;
  memset(&g, 0, sizeof g);
  ne_rng rng;
  ne_rng_seed(&rng, (uint64_t)n * 31 + (uint64_t)dim);
  if (ne__archive_init(&g.archive, dim, n) || ne__knn_init(&g.knn, k)) exit(1);
  float* bc = malloc((size_t)dim * sizeof(float));
  g.pop = malloc((size_t)n_pop * (size_t)dim * sizeof(float));
  if (!bc || !g.pop) exit(1);
  for (int i = 0; i < n; i++) {
    fill(bc, (size_t)dim, &rng);
    if (ne__archive_insert(&g.archive, bc, (uint64_t)i)) exit(1);
  }
  fill(g.pop, (size_t)n_pop * (size_t)dim, &rng);
  g.n_pop = n_pop;
  g.with_pop = with_pop;
  double s = time_op(novelty_generation, &g);
  free(bc);
  free(g.pop);
  ne__archive_free(&g.archive);
  ne__knn_free(&g.knn);
  return s * 1e3;
}

static void table(const char* title, int dim, int n_pop, int k, int with_pop) {
  static const int sizes[] = {1000, 4000, 16000, 64000};
  printf("%s: %d queries, k = %d, %d-float behaviours%s\n", title, n_pop, k, dim,
         with_pop ? ", neighbours: archive + population" : ", neighbours: archive");
  printf("  %8s  %12s  %14s  %18s\n", "archive", "ms/gen (CPU)", "ns/distance", "x cost of 1000");
  double base = 0;
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    double ms = measure(dim, sizes[i], n_pop, k, with_pop);
    double distances = (double)n_pop * (double)(sizes[i] + (with_pop ? n_pop - 1 : 0));
    if (i == 0) base = ms;
    printf("  %8d  %12.2f  %14.2f  %18.2f\n", sizes[i], ms, ms * 1e6 / distances, ms / base);
  }
  printf("\n");
}

// the evaluations of one GA-NS generation on the maze: 1000 episodes of 400 steps
typedef struct maze_case {
  ne_evaluator* ev;
  const ne_env_spec* env;
  float* params;
  uint64_t steps;
  double sink;
} maze_case;

static void maze_episode(void* p) {
  maze_case* m = p;
  m->sink += ne_evaluator_episode(m->ev, m->params, m->steps, NULL, &m->steps);
}

static void maze_reference(void) {
  ne_env_spec* env;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("HardMaze-v0", NULL, &env, err)) {
    fprintf(stderr, "bench_novelty: %s\n", err);
    exit(1);
  }
  ne_policy_spec ps;
  int hidden[2] = {16, 16};
  if (ne_policy_spec_init(&ps, env->obs_dim, hidden, 2, env->act_dim, NE_ACT_TANH, NE_HEAD_TANH, NE_INIT_NORMC,
                          env->act_low, env->act_high, err)) {
    fprintf(stderr, "bench_novelty: %s\n", err);
    exit(1);
  }
  maze_case m = {ne_evaluator_create(env, &ps, NULL), env, malloc(ps.n_params * sizeof(float)), 0, 0};
  if (!m.ev || !m.params) exit(1);
  ne_policy_init_params(&ps, 1, m.params);
  double s = time_op(maze_episode, &m);
  printf("HardMaze-v0 evaluations of one GA-NS generation (1000 episodes x 400 steps, 16-16 MLP): %.0f ms CPU\n",
         s * 1e3 * 1000);
  ne_evaluator_destroy(m.ev);
  free(m.params);
  ne_env_spec_destroy(env);
}

int main(void) {
  table("GA-NS generation", 2, 1000, 25, 1);
  table("NS-ES generation", 2, 100, 10, 0);
  table("GA-NS generation, Atari RAM", 128, 1000, 25, 1);
  maze_reference();
  return 0;
}
