// SPDX-License-Identifier: MIT
// `neuroevo eval RUN_DIR | --genome FILE [--episodes N] [--seed S] [--threads N]`: rebuilds the
// policy from a self-contained genome file (env, policy spec, sigma, seed chain) and reports the
// mean ± std return over N episodes. Episode seeds derive from S, so the figure is reproducible.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/alloc.h"
#include "neuroevo/cache.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/genome.h"
#include "neuroevo/pool.h"
#include "neuroevo/rng.h"
#include "neuroevo/run.h"

static const char USAGE[] =
    "usage: neuroevo eval RUN_DIR | --genome FILE [--episodes N] [--seed S] [--threads N]\n"
    "\n"
    "Evaluates a genome (RUN_DIR/best.genome, or FILE) over N episodes (default 100) with episode\n"
    "seeds derived from S (default 0) and prints mean ± std, min and max return. The genome file\n"
    "names its env and policy, so nothing else is needed to reproduce the agent.\n";

typedef struct eval_job {
  ne_evaluator** evaluators;  // (threads)
  const float* params;        // shared parameters
  uint64_t seed;              // base of the episode seeds
  double* returns;            // (episodes)
  uint64_t* steps;            // (episodes)
} eval_job;

static void eval_episodes(void* data, int thread, int begin, int end) {
  eval_job* job = data;
  for (int e = begin; e < end; e++) {
    uint64_t seed = ne_seed_derive(job->seed, 0, (uint64_t)e, NE_PURPOSE_EVAL);
    job->steps[e] = 0;
    job->returns[e] = ne_evaluator_episode(job->evaluators[thread], job->params, seed, NULL, &job->steps[e]);
  }
}

typedef struct eval_args {
  const char* genome_path;
  long long episodes, seed, threads;
} eval_args;

static int parse_args(int argc, char** argv, eval_args* a, char* path, size_t size) {
  a->genome_path = NULL;
  a->episodes = 100;
  a->seed = 0;
  a->threads = 0;
  const char* run_dir = NULL;
  for (int i = 1; i < argc; i++) {
    const char* o = argv[i];
    int has_value = i + 1 < argc;
    int rc = 0;
    if (o[0] != '-') {
      if (run_dir || a->genome_path) {
        fprintf(stderr, "neuroevo eval: unexpected argument '%s'\n", o);
        return 2;
      }
      run_dir = o;
      continue;
    }
    if (!has_value) {
      fprintf(stderr, "neuroevo eval: %s needs a value (see neuroevo eval --help)\n", o);
      return 2;
    }
    if (strcmp(o, "--genome") == 0) a->genome_path = argv[++i];
    else if (strcmp(o, "--episodes") == 0) rc = ne_cli_parse_int("eval", o, argv[++i], 1, 100000000, &a->episodes);
    else if (strcmp(o, "--seed") == 0) rc = ne_cli_parse_int("eval", o, argv[++i], 0, 9000000000000000000LL, &a->seed);
    else if (strcmp(o, "--threads") == 0) rc = ne_cli_parse_int("eval", o, argv[++i], 1, 1024, &a->threads);
    else {
      fprintf(stderr, "neuroevo eval: unknown option %s (see neuroevo eval --help)\n", o);
      return 2;
    }
    if (rc) return rc;
  }
  if (!run_dir == !a->genome_path) {
    fputs(USAGE, stderr);
    return 2;
  }
  if (run_dir) snprintf(path, size, "%s/best.genome", run_dir);
  else snprintf(path, size, "%s", a->genome_path);
  return 0;
}

static void report(const char* env_id, const double* returns, const uint64_t* steps, long long n) {
  double mean = 0, min = INFINITY, max = -INFINITY, var = 0;
  uint64_t total_steps = 0;
  for (long long e = 0; e < n; e++) {
    mean += returns[e] / (double)n;
    min = fmin(min, returns[e]);
    max = fmax(max, returns[e]);
    total_steps += steps[e];
  }
  for (long long e = 0; e < n; e++) var += (returns[e] - mean) * (returns[e] - mean) / (double)n;
  printf("%s: mean return %.2f ± %.2f over %lld episodes (min %.2f, max %.2f, %llu steps)\n", env_id, mean,
         sqrt(var), n, min, max, (unsigned long long)total_steps);
}

// Rebuilds env, policy and parameters from the genome file and runs the episodes.
static int evaluate(const char* path, const eval_args* a) {
  char err[NE_ERRSTR_LEN];
  ne_genome g;
  ne_genome_header h;
  ne_genome_init(&g);
  ne_config* cfg = ne_config_create();
  ne_env_spec* env = NULL;
  ne_policy_spec policy;
  int rc = cfg ? ne_genome_read_file(path, &g, &h, err) : NE_ENOMEM;
  if (!rc) rc = ne_config_apply_genome_header(cfg, &h, path, err);
  if (!rc) rc = ne_env_from_config(cfg, &env, err);
  if (!rc) rc = ne_policy_from_config(cfg, env, &policy, err);
  if (rc) {
    fprintf(stderr, "neuroevo eval: %s\n", err);
    ne_genome_free(&g);
    ne_config_destroy(cfg);
    ne_env_spec_destroy(env);
    return 2;
  }
  // materialize once, then run the episodes on the pool
  ne_pool* pool = NULL;
  float* params = ne_malloc(policy.n_params * sizeof(float));
  double* returns = ne_calloc((size_t)a->episodes, sizeof(double));
  uint64_t* steps = ne_calloc((size_t)a->episodes, sizeof(uint64_t));
  rc = params && returns && steps ? ne_pool_create((int)a->threads, &pool) : NE_ENOMEM;
  int threads = pool ? ne_pool_threads(pool) : 0;
  ne_evaluator** evs = rc ? NULL : ne_calloc((size_t)threads, sizeof *evs);
  for (int t = 0; evs && t < threads; t++)
    if (!(evs[t] = ne_evaluator_create(env, &policy, NULL))) rc = NE_ENOMEM;
  if (!rc && !evs) rc = NE_ENOMEM;
  if (!rc) {
    ne_genome_materialize(&policy, g.seeds, g.n_seeds, g.sigma, params);
    eval_job job = {evs, params, (uint64_t)a->seed, returns, steps};
    ne_pool_for(pool, (int)a->episodes, 1, eval_episodes, &job, NULL);
    report(env->id, returns, steps, a->episodes);
  } else {
    fprintf(stderr, "neuroevo eval: out of memory\n");
  }
  for (int t = 0; evs && t < threads; t++) ne_evaluator_destroy(evs[t]);
  ne_free(evs);
  ne_pool_destroy(pool);
  ne_free(params);
  ne_free(returns);
  ne_free(steps);
  ne_genome_free(&g);
  ne_env_spec_destroy(env);
  ne_config_destroy(cfg);
  return rc ? 1 : 0;
}

int ne_cmd_eval(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  eval_args a;
  char path[4096];
  int rc = parse_args(argc, argv, &a, path, sizeof path);
  return rc ? rc : evaluate(path, &a);
}
