// SPDX-License-Identifier: MIT
// Meta-learning's cost (src/exec/adapt.c): the CPU time of one candidate's meta-evaluation on one
// task (meta.tasks = 1) with K = 1 and K = 3 inner steps of each update rule, against one plain
// evaluation (one episode of the same policy, what a non-meta run pays per episode). Also the cost
// per episode run, against a plain episode: what the inner loop adds beyond stepping the env (pg:
// sampling, the baseline fit and the backward pass; es/hill: the perturbations). PointNav2D-v0 (a
// trivial env: the overhead shows), HalfCheetahDir-v5 and AntDir-v5 (MuJoCo: the env dominates; the
// ant's step costs ~4x the cheetah's), a 32-32 tanh MLP with the gaussian head. Each figure: 5
// interleaved pairs (plain, meta) of >= 0.2 s CPU of this thread each; the median ratio is printed,
// and the plain evaluation's CPU per env step (what a run's env steps cost).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/meta.h"
#include "neuroevo/policy.h"

#define PAIRS 5
#define MIN_CPU_S 0.2

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char* what, const char* err) {
  fprintf(stderr, "bench_meta: %s: %s\n", what, err);
  exit(1);
}

// CPU seconds per candidate of ev on the candidate, its episodes (the last evaluation's) and the
// env steps of all evaluations, over >= MIN_CPU_S
static double cpu_per_candidate(ne_evaluator* ev, const ne_batch* b, ne_candidate* c, uint32_t* episodes,
                                double* cpu_per_step) {
  ne_result r = {0};
  double t0 = thread_cpu_s(), t = 0;
  uint64_t steps = 0;
  int n = 0;
  do {
    c->episode_seed = (uint64_t)n + 1;  // other tasks and resets each time
    if (ne_evaluator_run(ev, b, c, &r) != 0) die("evaluation", "failed");
    steps += r.steps;
    n++;
    t = thread_cpu_s() - t0;
  } while (t < MIN_CPU_S);
  *episodes = r.episodes;
  *cpu_per_step = steps ? t / (double)steps : 0.0;
  return t / n;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// one table row: update rule, K, ms a candidate, ratio to a plain evaluation, episodes, ratio a
// episode, microseconds of CPU a plain env step
static void row(const char* env_id, ne_config* cfg, const char* update, int k, const char* inner_episodes) {
  char err[NE_ERRSTR_LEN], kv[64];
  snprintf(kv, sizeof kv, "meta.update=%s", update);
  if (ne_config_override(cfg, kv, "bench", err)) die(kv, err);
  snprintf(kv, sizeof kv, "meta.inner_steps=%d", k);
  if (ne_config_override(cfg, kv, "bench", err)) die(kv, err);
  snprintf(kv, sizeof kv, "meta.inner_episodes=%s", inner_episodes);
  if (ne_config_override(cfg, kv, "bench", err)) die(kv, err);
  ne_env_spec* env = NULL;
  ne_policy_spec policy;
  ne_meta_spec meta;
  if (ne_env_from_config(cfg, &env, err)) die(env_id, err);
  if (ne_policy_from_config(cfg, env, &policy, err)) die("policy", err);
  if (ne_meta_from_config(cfg, env, &policy, &meta, err)) die("meta", err);
  float* params = ne_malloc(policy.n_params * sizeof(float));
  ne_policy_init_params(&policy, 1, params);
  ne_blob blob = {1, policy.n_params, params};
  ne_candidate c = {.kind = NE_CAND_VECTOR, .episodes = 1, .blob = 0};
  ne_batch b = {.n = 1, .cands = &c, .n_blobs = 1, .blobs = &blob};
  ne_evaluator* plain = ne_evaluator_create(env, &policy, NULL);
  ne_evaluator* metaev = ne_evaluator_create(env, &policy, NULL);
  if (!plain || !metaev || ne_evaluator_set_meta(metaev, &meta)) die("evaluator", "out of memory");
  double ratio[PAIRS], per_episode[PAIRS], step_us[PAIRS], ms = 0, plain_ms = 0, unused;
  uint32_t eps = 0, one = 0;
  for (int p = 0; p < PAIRS; p++) {
    double tp = cpu_per_candidate(plain, &b, &c, &one, &step_us[p]);
    double tm = cpu_per_candidate(metaev, &b, &c, &eps, &unused);
    ratio[p] = tm / tp;
    per_episode[p] = tm / eps / tp;
    step_us[p] *= 1e6;
    ms += tm * 1e3 / PAIRS;
    plain_ms += tp * 1e3 / PAIRS;
  }
  qsort(ratio, PAIRS, sizeof *ratio, cmp_double);
  qsort(per_episode, PAIRS, sizeof *per_episode, cmp_double);
  qsort(step_us, PAIRS, sizeof *step_us, cmp_double);
  printf("%-18s %-5s %2d %9.3f %9.3f %10.1fx %9u %10.2fx %8.1f\n", env_id, update, k, plain_ms, ms, ratio[PAIRS / 2],
         eps, per_episode[PAIRS / 2], step_us[PAIRS / 2]);
  fflush(stdout);
  ne_evaluator_destroy(plain);
  ne_evaluator_destroy(metaev);
  ne_free(params);
  ne_env_spec_destroy(env);
}

int main(void) {
  const char* envs[] = {"PointNav2D-v0",
#ifdef NE_HAVE_MUJOCO
                        "HalfCheetahDir-v5", "AntDir-v5"
#endif
  };
  printf("Meta-learning: CPU per candidate on 1 task (meta.tasks = 1, eval_episodes 1) vs one plain evaluation\n");
  printf("(1 episode); policy 32-32 tanh, gaussian head; median of %d interleaved pairs, 1 thread\n", PAIRS);
  printf("%-18s %-5s %2s %9s %9s %11s %9s %11s %8s\n", "env", "rule", "K", "plain ms", "meta ms", "meta/plain",
         "episodes", "per episode", "us/step");
  for (size_t e = 0; e < sizeof envs / sizeof envs[0]; e++) {
    char err[NE_ERRSTR_LEN], kv[96];
    ne_config* cfg = ne_config_create();
    snprintf(kv, sizeof kv, "env.id=%s", envs[e]);
    const char* base[] = {kv, "policy.hidden=32,32", "policy.head=gaussian", "meta.tasks=1"};
    for (int i = 0; i < 4; i++)
      if (ne_config_override(cfg, base[i], "bench", err)) die(base[i], err);
    for (int k = 1; k <= 3; k += 2) {
      row(envs[e], cfg, "pg", k, "10");
      row(envs[e], cfg, "es", k, "10");
      row(envs[e], cfg, "hill", k, "5");
    }
    ne_config_destroy(cfg);
  }
  return 0;
}
