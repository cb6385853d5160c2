// SPDX-License-Identifier: MIT
// Agent files evaluated over episodes (see agent.h): load a genome or params file, rebuild env and
// policy from its header, materialize the parameters once, run the episodes on a thread pool with one
// evaluator per thread, and reduce the returns in episode order. Setup allocates; episodes do not.
#include "neuroevo/agent.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>  // access: best.genome or best.params

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/genome.h"
#include "neuroevo/pool.h"
#include "neuroevo/rng.h"
#include "neuroevo/run.h"
#include "run/params_file.h"  // best.params: vector solutions of the ES family

// An agent file loaded: everything its episodes need (agent.h's opaque ne_agent).
struct ne_agent {
  ne_genome genome;       // seed chain (genome files)
  ne_params_file pf;      // explicit parameters (params files)
  int is_params;          // 1 for a params file
  ne_config* cfg;         // config rebuilt from the file's header
  ne_env_spec* env;       // owned
  ne_policy_spec policy;  // policy spec
  ne_batch norm;          // observation normalization (params files), else zero
  float* params;          // (policy.n_params) materialized parameters
};
typedef struct ne_agent agent;

// One pool job: episodes [begin, end) on the calling thread's evaluator.
typedef struct episodes_job {
  ne_evaluator** evaluators;  // (threads)
  const agent* a;             // the agent
  uint64_t seed;              // base of the episode seeds
  double* returns;            // (episodes)
  uint64_t* steps;            // (episodes)
} episodes_job;

int ne_agent_path(const char* run_dir, char* path, size_t size) {
  char params[4096];
  snprintf(params, sizeof params, "%s/best.params", run_dir);
  snprintf(path, size, "%s/best.genome", run_dir);
  if (access(path, F_OK) == 0) return 0;
  if (access(params, F_OK) != 0) return NE_ENOTFOUND;
  snprintf(path, size, "%s", params);
  return 0;
}

void ne_agent_destroy(ne_agent* a) {
  if (!a) return;
  ne__params_file_free(&a->pf);
  ne_genome_free(&a->genome);
  ne_config_destroy(a->cfg);
  ne_env_spec_destroy(a->env);
  ne_free(a->params);
  ne_free(a);
}

// A params file must fit the policy and env its header rebuilt; sets the normalization batch.
static int check_params(const char* path, agent* a, char* err) {
  const ne_params_file* pf = &a->pf;
  if (pf->n_params != a->policy.n_params)
    return ne__set_error(err, NE_EPARSE, "%s: %zu parameters, but its policy has %zu", path, pf->n_params,
                         a->policy.n_params);
  if (pf->obs_dim && pf->obs_dim != a->env->obs_dim)
    return ne__set_error(err, NE_EPARSE, "%s: obs_mean has %d values, but %s observations have %d", path, pf->obs_dim,
                         a->env->id, a->env->obs_dim);
  a->norm.obs_mean = pf->obs_dim ? pf->obs_mean : NULL;
  a->norm.obs_std = pf->obs_dim ? pf->obs_std : NULL;
  a->norm.obs_clip = pf->obs_clip;
  return 0;
}

// Reads the file at path into a (zero-initialized): header -> config -> env, policy, parameters.
static int agent_read(const char* path, agent* a, char* err) {
  ne_genome_init(&a->genome);
  ne_genome_header h;
  a->is_params = ne__params_file_sniff(path);
  a->cfg = ne_config_create();
  if (!a->cfg) return ne__set_error(err, NE_ENOMEM, "out of memory");
  int rc = a->is_params ? ne__params_file_read(path, &a->pf, err) : ne_genome_read_file(path, &a->genome, &h, err);
  if (!rc && a->is_params) h = a->pf.header;
  if (!rc) rc = ne_genome_header_to_config(&h, a->cfg, path, err);
  if (!rc) rc = ne_env_from_config(a->cfg, &a->env, err);
  if (!rc) rc = ne_policy_from_config(a->cfg, a->env, &a->policy, err);
  if (!rc && a->is_params) rc = check_params(path, a, err);
  if (rc) return rc;
  // materialize once: every episode shares the vector
  a->params = ne_malloc(a->policy.n_params * sizeof(float));
  if (!a->params) return ne__set_error(err, NE_ENOMEM, "out of memory for %zu parameters", a->policy.n_params);
  if (a->is_params) memcpy(a->params, a->pf.params, a->policy.n_params * sizeof(float));
  else ne_genome_materialize(&a->policy, a->genome.seeds, a->genome.n_seeds, a->genome.sigma, a->params);
  return 0;
}

int ne_agent_load(const char* path, ne_agent** out, char* errstr) {
  *out = NULL;
  agent* a = ne_calloc(1, sizeof *a);
  if (!a) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  int rc = agent_read(path, a, errstr);
  if (rc) {
    ne_agent_destroy(a);
    return rc;
  }
  *out = a;
  return 0;
}

const ne_env_spec* ne_agent_env(const ne_agent* a) { return a->env; }
const ne_policy_spec* ne_agent_policy(const ne_agent* a) { return &a->policy; }
const float* ne_agent_params(const ne_agent* a) { return a->params; }
const ne_batch* ne_agent_norm(const ne_agent* a) { return a->is_params && a->norm.obs_mean ? &a->norm : NULL; }

// Episodes [begin, end), NE_EVALUATOR_EPISODE_BLOCK at a time: together in lockstep where the env
// allows it, each with the return it gets alone.
static void run_episodes(void* data, int thread, int begin, int end) {
  episodes_job* job = data;
  const ne_batch* norm = ne_agent_norm(job->a);
  for (int e = begin; e < end; e += NE_EVALUATOR_EPISODE_BLOCK) {
    int n = end - e < NE_EVALUATOR_EPISODE_BLOCK ? end - e : NE_EVALUATOR_EPISODE_BLOCK;
    uint64_t seeds[NE_EVALUATOR_EPISODE_BLOCK];
    for (int k = 0; k < n; k++) seeds[k] = ne_seed_derive(job->seed, 0, (uint64_t)(e + k), NE_PURPOSE_EVAL);
    ne_evaluator_episodes(job->evaluators[thread], job->a->params, seeds, n, norm, job->returns + e, job->steps + e);
  }
}

// Mean, std, extremes and steps of the episodes, summed in episode order.
static void summarize(const double* returns, const uint64_t* steps, int n, ne_agent_eval* out) {
  double mean = 0, var = 0;
  out->min = INFINITY;
  out->max = -INFINITY;
  out->steps = 0;
  for (int e = 0; e < n; e++) {
    mean += returns[e] / (double)n;
    out->min = fmin(out->min, returns[e]);
    out->max = fmax(out->max, returns[e]);
    out->steps += steps[e];
  }
  for (int e = 0; e < n; e++) var += (returns[e] - mean) * (returns[e] - mean) / (double)n;
  out->mean = mean;
  out->std = sqrt(var);
  out->episodes = n;
}

// Runs the episodes of a loaded agent on a new pool; returns and steps get one entry per episode.
static int evaluate_loaded(const agent* a, int episodes, uint64_t seed, int threads, double* returns, uint64_t* steps,
                           char* err) {
  ne_pool* pool = NULL;
  int rc = ne_pool_create(threads, &pool);
  if (rc) return ne__set_error(err, rc, "cannot start %d threads: %s", threads, ne_strerror(rc));
  int n = ne_pool_threads(pool);
  ne_evaluator** evs = ne_calloc((size_t)n, sizeof *evs);
  for (int t = 0; evs && t < n; t++)
    if (!(evs[t] = ne_evaluator_create(a->env, &a->policy, NULL))) rc = NE_ENOMEM;
  if (!evs) rc = NE_ENOMEM;
  if (!rc) {
    episodes_job job = {evs, a, seed, returns, steps};
    ne_pool_for(pool, episodes, ne_pool_chunk(pool, episodes, NE_EVALUATOR_LOCKSTEP, NE_EVALUATOR_EPISODE_BLOCK),
                run_episodes, &job, NULL);
  } else {
    ne__set_error(err, rc, "out of memory for %d evaluators", n);
  }
  for (int t = 0; evs && t < n; t++) ne_evaluator_destroy(evs[t]);
  ne_free(evs);
  ne_pool_destroy(pool);
  return rc;
}

int ne_agent_evaluate(const char* path, int episodes, uint64_t seed, int threads, ne_agent_eval* out, double* returns,
                      char* errstr) {
  memset(out, 0, sizeof *out);
  if (episodes < 1) return ne__set_error(errstr, NE_EINVAL, "episodes = %d: expected at least 1", episodes);
  agent* a = NULL;
  int rc = ne_agent_load(path, &a, errstr);
  double* r = returns ? returns : ne_calloc((size_t)episodes, sizeof(double));
  uint64_t* steps = ne_calloc((size_t)episodes, sizeof(uint64_t));
  if (!rc && (!r || !steps)) rc = ne__set_error(errstr, NE_ENOMEM, "out of memory for %d episodes", episodes);
  double t0 = ne__now();
  if (!rc) rc = evaluate_loaded(a, episodes, seed, threads, r, steps, errstr);
  if (!rc) {
    summarize(r, steps, episodes, out);
    out->seconds = ne__now() - t0;
    snprintf(out->env_id, sizeof out->env_id, "%s", a->env->id);
  }
  if (r != returns) ne_free(r);
  ne_free(steps);
  ne_agent_destroy(a);
  return rc;
}

// ---- meta-learning: adaptation ----------------------------------------------------------------

int ne_agent_set_task(ne_agent* a, const double* task, char* errstr) {
  return ne_env_fix_task(a->env, task, a->env->task_dim, errstr);
}

int ne_agent_meta(const ne_agent* a, int k, ne_meta_spec* out, char* errstr) {
  // every field is read before from_config checks anything: its verdict on the training run's
  // settings (env.episodes) does not matter here, the check below of the adaptation's does
  (void)ne_meta_from_config(a->cfg, a->env, &a->policy, out, NULL);
  out->tasks = 1;
  out->inner_steps = k;
  return ne_meta_check(out, a->env, &a->policy, errstr);
}

// One pool job: tasks [begin, end) on the calling thread's adapter.
typedef struct adapt_job {
  ne_adapter** adapters;  // (threads)
  const agent* a;         // the agent
  int k;                  // inner steps
  const double* task;     // the task of every i, or NULL: drawn
  uint64_t base;          // the seed task seeds derive from
  double* tasks;          // (n, task_dim)
  double* returns;        // (n, k + 1)
  uint64_t* steps;        // (n)
  int* status;            // (n) 0 or the NE_E* of an env failure
} adapt_job;

static void run_adapt(void* data, int thread, int begin, int end) {
  adapt_job* job = data;
  const agent* a = job->a;
  int td = a->env->task_dim;
  for (int i = begin; i < end; i++) {
    uint64_t seed = ne_meta_task_seed(job->base, (uint32_t)i);
    double* task = job->tasks + (size_t)i * (size_t)td;
    if (job->task) memcpy(task, job->task, (size_t)td * sizeof *task);
    else ne_env_sample_task(a->env, seed, task);
    ne_adapt_result r;
    job->status[i] = ne_adapter_run(job->adapters[thread], a->params, task, seed, ne_agent_norm(a), NULL, &r, NULL);
    memcpy(job->returns + (size_t)i * (size_t)(job->k + 1), r.returns, (size_t)(job->k + 1) * sizeof(double));
    job->steps[i] = r.steps;
  }
}

int ne_agent_adapt(const ne_agent* a, int k, int n_tasks, const double* task, uint64_t seed, int threads, double* tasks,
                   double* returns, uint64_t* steps, char* errstr) {
  ne_meta_spec meta;
  int rc = ne_agent_meta(a, k, &meta, errstr);
  if (rc) return rc;
  if (n_tasks < 1) return ne__set_error(errstr, NE_EINVAL, "%d tasks: expected at least 1", n_tasks);
  ne_pool* pool = NULL;
  if ((rc = ne_pool_create(threads, &pool)) != 0) return ne__set_error(errstr, rc, "cannot start %d threads", threads);
  int n = ne_pool_threads(pool);
  ne_adapter** ads = ne_calloc((size_t)n, sizeof *ads);
  uint64_t* st = ne_calloc((size_t)n_tasks, sizeof *st);
  int* status = ne_calloc((size_t)n_tasks, sizeof *status);
  rc = ads && st && status ? 0 : NE_ENOMEM;
  for (int t = 0; !rc && t < n; t++)
    if (!(ads[t] = ne_adapter_create(&meta, a->env, &a->policy))) rc = NE_ENOMEM;
  if (!rc) {
    adapt_job job = {ads, a, k, task, ne_seed_derive(seed, 0, 0, NE_PURPOSE_EVAL), tasks, returns, st, status};
    ne_pool_for(pool, n_tasks, 1, run_adapt, &job, NULL);
    // the first failed task, in task order, names the failure
    for (int i = 0; !rc && i < n_tasks; i++)
      if (status[i])
        rc = ne__set_error(errstr, status[i], "%s: task %d: the env failed (%s)", a->env->id, i + 1,
                           ne_strerror(status[i]));
    if (steps) {
      *steps = 0;
      for (int i = 0; i < n_tasks; i++) *steps += st[i];
    }
  } else {
    ne__set_error(errstr, rc, "out of memory for %d inner loops", n);
  }
  for (int t = 0; ads && t < n; t++) ne_adapter_destroy(ads[t]);
  ne_free(ads);
  ne_free(st);
  ne_free(status);
  ne_pool_destroy(pool);
  return rc;
}

int ne_agent_adapt_params(ne_agent* a, int k, const double* task, uint64_t seed, double* returns, char* errstr) {
  ne_meta_spec meta;
  int rc = ne_agent_meta(a, k, &meta, errstr);
  if (rc) return rc;
  ne_adapter* ad = ne_adapter_create(&meta, a->env, &a->policy);
  if (!ad) return ne__set_error(errstr, NE_ENOMEM, "out of memory for the inner loop");
  ne_adapt_result r;
  uint64_t tseed = ne_meta_task_seed(ne_seed_derive(seed, 0, 0, NE_PURPOSE_EVAL), 0);
  rc = ne_adapter_run(ad, a->params, task, tseed, ne_agent_norm(a), NULL, &r, a->params);
  ne_adapter_destroy(ad);
  if (rc) return ne__set_error(errstr, rc, "%s: the env failed while adapting (%s)", a->env->id, ne_strerror(rc));
  if (returns) memcpy(returns, r.returns, (size_t)(k + 1) * sizeof *returns);
  return 0;
}

void ne_agent_eval_line(const ne_agent_eval* e, char* buf, size_t size) {
  snprintf(buf, size, "%s: mean return %.2f ± %.2f over %d episodes (min %.2f, max %.2f, %llu steps)", e->env_id,
           e->mean, e->std, e->episodes, e->min, e->max, (unsigned long long)e->steps);
}
