// SPDX-License-Identifier: MIT
// ES-family benchmarks: (1) the algorithms' own per-generation cost, ask + tell
// with synthetic results and no environment, for 10^3 .. 10^6 parameters, shown per parameter to
// make the O(P) scaling visible; (2) OpenAI ES evaluations/s over a raw rollout loop's on
// CartPole-v1 (same policy, same parameter vectors, same episodes, same observation normalization;
// raw = ne_env_step + ne_policy_forward only), one thread each, with generator and table noise.
// Prints a table with the targets.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>  // clock_gettime: thread CPU time
#include <unistd.h>

#include "core/util.h"  // ne__now
#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/executor.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "neuroevo/run.h"

static void die(const char* what, const char* err) {
  fprintf(stderr, "bench_algos: %s: %s\n", what, err);
  exit(1);
}

static ne_config* config_for(const char* text) {
  ne_config* cfg = ne_config_create();
  char err[NE_ERRSTR_LEN];
  if (!cfg || ne_config_load_string(cfg, text, "bench", err) != 0) die("config", err);
  return cfg;
}

// ---- (1) ask + tell overhead ---------------------------------------------------------------------

// Seconds per generation of ask + tell for `algo` with P parameters (a linear policy P-1 -> 1),
// synthetic fitness, averaged over enough generations to take ~0.3 s.
static double ask_tell_seconds(const char* algo, const char* cfg_text, size_t p, int* population) {
  char err[NE_ERRSTR_LEN];
  ne_policy_spec spec;
  float lo = -1, hi = 1;
  if (ne_policy_spec_init(&spec, (int)p - 1, NULL, 0, 1, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_NORMC, &lo, &hi, err))
    die("policy", err);
  ne_config* cfg = config_for(cfg_text);
  ne_problem prob = {&spec, spec.n_params, 1, 1, 4, 0};
  const ne_algo_vt* vt = ne_algo_find(algo);
  void* self;
  if (vt->create(&prob, cfg, &self, err)) die(algo, err);
  ne_result* results = NULL;
  double elapsed = 0;
  int gens = 0;
  ne_rng rng;
  ne_rng_seed(&rng, 5);
  while (elapsed < 0.3 || gens < 2) {
    double t0 = ne__now();
    const ne_batch* b;
    vt->ask(self, &b);
    double t1 = ne__now();
    // synthetic results (not timed): random fitness
    if (!results) results = ne_calloc((size_t)b->n, sizeof *results);
    for (int i = 0; i < b->n; i++) results[i] = (ne_result){.fitness = ne_rng_uniform(&rng), .episodes = 1};
    *population = b->n - 1;
    double t2 = ne__now();
    int done;
    vt->tell(self, b, results, &done);
    elapsed += (t1 - t0) + (ne__now() - t2);
    gens++;
  }
  vt->destroy(self);
  ne_free(results);
  ne_config_destroy(cfg);
  return elapsed / gens;
}

static void overhead_table(void) {
  static const struct {
    const char* algo;
    const char* cfg;
  } algos[] = {
      {"es", "[run]\nalgorithm = es\n[es]\npopulation = 32\n"},
      {"pgpe", "[run]\nalgorithm = pgpe\n[pgpe]\npopulation = 32\n"},
      {"snes", "[run]\nalgorithm = snes\n"},
  };
  printf("\nask + tell per generation (synthetic results, no env, 1 thread)\n");
  printf("%-6s %10s %6s %12s %16s\n", "algo", "params", "pop", "ms / gen", "ns / (param*cand)");
  for (int a = 0; a < 3; a++) {
    for (size_t p = 1000; p <= 1000000; p *= 10) {
      int pop = 0;
      double s = ask_tell_seconds(algos[a].algo, algos[a].cfg, p, &pop);
      printf("%-6s %10zu %6d %12.3f %16.3f\n", algos[a].algo, p, pop, s * 1e3, s * 1e9 / ((double)p * pop));
    }
  }
  printf("(O(P): the last column stays flat as params grow 1000x; SNES's population grows with ln P)\n");
}

// ---- (2) ES evaluations vs the raw rollout loop ----------------------------------------------------

typedef struct raw_loop {
  const ne_env_spec* env;
  const ne_policy_spec* policy;
  ne_env_state* st;
  float* params;   // (n_params) candidate parameters
  float* scratch;  // forward scratch
  float* obs;      // (obs_dim) normalized observation
} raw_loop;

// One episode of params from `seed`, normalizing like the evaluator; returns the steps.
static uint64_t raw_episode(raw_loop* r, const ne_batch* b, uint64_t seed, double* ret) {
  float action[NE_ENV_MAX_ACT];
  ne_step_out so;
  uint64_t n = 0;
  ne_env_reset(r->env, r->st, seed);
  do {
    const float* in = r->st->obs;
    if (b->obs_mean) {
      for (int i = 0; i < r->env->obs_dim; i++) {
        float z = (in[i] - b->obs_mean[i]) / b->obs_std[i];
        r->obs[i] = z < -b->obs_clip ? -b->obs_clip : (z > b->obs_clip ? b->obs_clip : z);
      }
      in = r->obs;
    }
    ne_policy_forward(r->policy, r->params, in, r->scratch, action);
    ne_env_step(r->env, r->st, action, &so);
    *ret += so.reward;
    n++;
  } while (!so.terminated && !so.truncated);
  return n;
}

// CPU seconds of the calling thread. A 1-thread local executor evaluates on the calling thread
// (ne_pool counts the caller as its thread), so both sides of the ratio run here, and CPU time
// leaves out the time other processes on a loaded machine take (wall time does not).
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// Replays the batch with the raw loop: the parameters are built untimed, only the rollouts count.
static double raw_batch(raw_loop* r, const ne_batch* b, ne_result* results, uint64_t* steps) {
  double timed = 0;
  for (int i = 0; i < b->n; i++) {
    const ne_candidate* c = &b->cands[i];
    memcpy(r->params, b->blobs[c->blob].data, r->policy->n_params * sizeof(float));
    if (c->kind == NE_CAND_PERTURB)
      ne_noise_perturb_axpy(b->noise_table, c->noise_seed, r->policy->n_params, c->coef, r->params);
    double ret = 0, t0 = cpu_now();
    for (uint32_t e = 0; e < c->episodes; e++) *steps += raw_episode(r, b, ne_hash2(c->episode_seed, e), &ret);
    timed += cpu_now() - t0;
    results[i] = (ne_result){.fitness = ret / c->episodes, .episodes = c->episodes};
  }
  return timed;
}

// ES on CartPole-v1 with the given hidden layers and noise source: population 100 + the centre on
// 10 episodes.
static ne_config* es_cartpole(const char* hidden, const char* noise) {
  char text[512];
  snprintf(text, sizeof text,
           "[run]\nalgorithm = es\nseed = 1\n[env]\nid = CartPole-v1\n[policy]\nhidden = %s\n"
           "[es]\npopulation = 100\nsigma = 0.1\nlr = 0.03\neval_episodes = 10\nnoise = %s\n",
           hidden, noise);
  return config_for(text);
}

// Runs `generations` of ES through a 1-thread local executor (ask + evaluate + tell, all timed) and
// replays every batch on a twin ES with the raw loop (rollouts timed only); prints the ratio.
static void throughput_ratio(const char* hidden, const char* noise, int generations) {
  char err[NE_ERRSTR_LEN];
  ne_config* cfg = es_cartpole(hidden, noise);
  ne_env_spec* env;
  ne_policy_spec policy;
  if (ne_env_from_config(cfg, &env, err) || ne_policy_from_config(cfg, env, &policy, err)) die("setup", err);
  ne_problem prob = {&policy, policy.n_params, 1, 1, env->obs_dim, env->bc_dim};
  const ne_algo_vt* vt = ne_algo_find("es");
  void *es_a, *es_b;
  if (vt->create(&prob, cfg, &es_a, err) || vt->create(&prob, cfg, &es_b, err)) die("es", err);
  ne_executor* ex;
  if (ne_local_executor_create(env, &policy, 1, 1 << 20, &ex, err)) die("executor", err);
  raw_loop raw = {env,
                  &policy,
                  ne_env_state_create(env),
                  ne_malloc(policy.n_params * sizeof(float)),
                  ne_malloc((policy.scratch_floats + 1) * sizeof(float)),
                  ne_malloc((size_t)env->obs_dim * sizeof(float))};
  static ne_result results[128], raw_results[128];
  static double stats[128][2 * 8];
  double es_s = 0, raw_s = 0;
  uint64_t es_steps = 0, raw_steps = 0, evals = 0;
  double* ratios = ne_malloc((size_t)generations * sizeof(double));
  for (int g = 0; g < generations; g++) {
    const ne_batch *ba, *bb;
    int done;
    // the twin asks the same batch (same seed) and is told the same results, so it stays in step;
    // the two sides take turns going first, so a change of machine load hits both alike
    vt->ask(es_b, &bb);
    double raw_g = g % 2 ? raw_batch(&raw, bb, raw_results, &raw_steps) : 0;
    double t0 = cpu_now();
    vt->ask(es_a, &ba);
    for (int i = 0; i < ba->n; i++) results[i].obs_sum = stats[i], results[i].obs_sumsq = stats[i] + 8;
    ne_executor_evaluate(ex, ba, results, NULL, err);
    vt->tell(es_a, ba, results, &done);
    double es_g = cpu_now() - t0;
    if (g % 2 == 0) raw_g = raw_batch(&raw, bb, raw_results, &raw_steps);
    vt->tell(es_b, bb, results, &done);
    es_s += es_g, raw_s += raw_g;
    ratios[g] = raw_g / es_g;
    for (int i = 0; i < ba->n; i++) es_steps += results[i].steps;
    evals += (uint64_t)ba->n;
  }
  qsort(ratios, (size_t)generations, sizeof *ratios, cmp_double);
  // the same evaluations on both sides, so evaluations/s ÷ evaluations/s = raw time ÷ ES time
  double es_evals = (double)evals / es_s, raw_evals = (double)evals / raw_s;
  char label[96];
  printf(
      "\nOpenAI ES on CartPole-v1, policy %d params (hidden %s), es.noise = %s, population 100 + centre, "
      "%d generations, 1 thread, CPU time\n",
      (int)policy.n_params, hidden, noise, generations);
  printf("%-52s %14s %10s\n", "figure", "value", "target");
  printf("%-52s %14.0f\n", "raw rollout loop, evaluations/s", raw_evals);
  printf("%-52s %14.0f\n", "ES ask+evaluate+tell, evaluations/s", es_evals);
  printf("%-52s %14.0f\n", "ES env steps/s", (double)es_steps / es_s);
  printf("%-52s %14.1f\n", "mean episode length", (double)es_steps / (double)evals);
  snprintf(label, sizeof label, "ES / raw evaluations/s%s",
           es_steps == raw_steps ? " (identical episodes)" : " (EPISODES DIFFER)");
  printf("%-52s %14.3f %10s\n", label, es_evals / raw_evals, ">= 0.95");
  printf("%-52s %14.3f %10s\n", "  the same, median of the per-generation ratios", ratios[generations / 2], ">= 0.95");
  ne_free(ratios);
  ne_env_state_destroy(raw.st);
  ne_free(raw.params);
  ne_free(raw.scratch);
  ne_free(raw.obs);
  ne_executor_destroy(ex);
  vt->destroy(es_a);
  vt->destroy(es_b);
  ne_env_spec_destroy(env);
  ne_config_destroy(cfg);
}

// `bench_algos throughput` runs part (2) alone (for profiling and paired timings).
int main(int argc, char** argv) {
  printf("ES-family benchmarks (%d online cores)\n", (int)sysconf(_SC_NPROCESSORS_ONLN));
  if (!(argc > 1 && strcmp(argv[1], "throughput") == 0)) overhead_table();
  // the GA bench's policy, then a 4.7k-parameter one (noise generation per candidate is O(P) like a
  // forward pass, so its share is about (cost of one normal / cost of one MAC) / episode length)
  const char* sources[2] = {"generator", "table"};
  for (int k = 0; k < 2; k++) {
    throughput_ratio("16", sources[k], 40);
    throughput_ratio("64,64", sources[k], 40);
  }
  return 0;
}
