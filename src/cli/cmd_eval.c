// SPDX-License-Identifier: MIT
// `neuroevo eval RUN_DIR | --genome FILE [--episodes N] [--seed S] [--threads N]`: rebuilds the
// policy from a self-contained genome file (env, policy spec, sigma, seed chain) and reports the
// mean ± std return over N episodes. Episode seeds derive from S, so the figure is reproducible.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>  // access: best.genome or best.params

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "core/util.h"  // ne__set_error
#include "neuroevo/alloc.h"
#include "neuroevo/cache.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/genome.h"
#include "neuroevo/pool.h"
#include "neuroevo/rng.h"
#include "neuroevo/run.h"
#include "run/params_file.h"  // best.params: vector solutions of the ES family

static const char USAGE[] =
    "usage: neuroevo eval RUN_DIR | --genome FILE [--episodes N] [--seed S] [--threads N]\n"
    "\n"
    "Evaluates a genome (RUN_DIR/best.genome, or FILE) over N episodes (default 100) with episode\n"
    "seeds derived from S (default 0) and prints mean ± std, min and max return. The genome file\n"
    "names its env and policy, so nothing else is needed to reproduce the agent. Runs of the ES\n"
    "family leave RUN_DIR/best.params (explicit parameters plus observation normalization)\n"
    "instead; eval falls back to it, and --genome accepts such a file too.\n";

typedef struct eval_job {
  ne_evaluator** evaluators;  // (threads)
  const float* params;        // shared parameters
  const ne_batch* norm;       // observation normalization (best.params), or NULL
  uint64_t seed;              // base of the episode seeds
  double* returns;            // (episodes)
  uint64_t* steps;            // (episodes)
} eval_job;

static void eval_episodes(void* data, int thread, int begin, int end) {
  eval_job* job = data;
  for (int e = begin; e < end; e++) {
    uint64_t seed = ne_seed_derive(job->seed, 0, (uint64_t)e, NE_PURPOSE_EVAL);
    job->steps[e] = 0;
    job->returns[e] = ne_evaluator_episode(job->evaluators[thread], job->params, seed, job->norm, &job->steps[e]);
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
  // vector solutions: RUN_DIR/best.params when there is no best.genome
  if (run_dir && access(path, F_OK) != 0) {
    char params[4096];
    snprintf(params, sizeof params, "%s/best.params", run_dir);
    if (access(params, F_OK) == 0) snprintf(path, size, "%s", params);
  }
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

// ---- best.params (vector solutions) --------------------------------------------------------
// Reads a params file into pf and its header into h.
static int read_params(const char* path, ne_params_file* pf, ne_genome_header* h, char* err) {
  int rc = ne__params_file_read(path, pf, err);
  if (!rc) *h = pf->header;
  return rc;
}

// The params file must fit the policy and env its header rebuilt; sets the normalization batch.
static int check_params(const char* path, const ne_params_file* pf, const ne_env_spec* env,
                        const ne_policy_spec* policy, ne_batch* norm, char* err) {
  if (pf->n_params != policy->n_params)
    return ne__set_error(err, NE_EPARSE, "%s: %zu parameters, but its policy has %zu", path, pf->n_params,
                         policy->n_params);
  if (pf->obs_dim && pf->obs_dim != env->obs_dim)
    return ne__set_error(err, NE_EPARSE, "%s: obs_mean has %d values, but %s observations have %d", path,
                         pf->obs_dim, env->id, env->obs_dim);
  memset(norm, 0, sizeof *norm);
  norm->obs_mean = pf->obs_dim ? pf->obs_mean : NULL;
  norm->obs_std = pf->obs_dim ? pf->obs_std : NULL;
  norm->obs_clip = pf->obs_clip;
  return 0;
}
// ---- end of best.params ---------------------------------------------------------------------

// Rebuilds env, policy and parameters from the genome (or params) file and runs the episodes.
static int evaluate(const char* path, const eval_args* a) {
  char err[NE_ERRSTR_LEN];
  ne_genome g;
  ne_genome_header h;
  ne_genome_init(&g);
  ne_params_file pf = {0};
  ne_batch norm = {0};
  int is_params = ne__params_file_sniff(path);
  ne_config* cfg = ne_config_create();
  ne_env_spec* env = NULL;
  ne_policy_spec policy;
  int rc = !cfg ? NE_ENOMEM : is_params ? read_params(path, &pf, &h, err) : ne_genome_read_file(path, &g, &h, err);
  if (!rc) rc = ne_config_apply_genome_header(cfg, &h, path, err);
  if (!rc) rc = ne_env_from_config(cfg, &env, err);
  if (!rc) rc = ne_policy_from_config(cfg, env, &policy, err);
  if (!rc && is_params) rc = check_params(path, &pf, env, &policy, &norm, err);
  if (rc) {
    fprintf(stderr, "neuroevo eval: %s\n", err);
    ne__params_file_free(&pf);
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
    if (is_params) memcpy(params, pf.params, policy.n_params * sizeof(float));
    else ne_genome_materialize(&policy, g.seeds, g.n_seeds, g.sigma, params);
    eval_job job = {evs, params, is_params ? &norm : NULL, (uint64_t)a->seed, returns, steps};
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
  ne__params_file_free(&pf);
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
