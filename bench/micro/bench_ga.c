// SPDX-License-Identifier: MIT
// Deep GA benchmarks: framework overhead (GA env steps/s on one thread
// vs a raw env+policy loop), parallel efficiency from 1 to 2 threads on CartPole and Acrobot, and
// the time to solve CartPole-v1 on 2 threads (median of 5 seeds). Prints a table with the targets.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/policy.h"
#include "neuroevo/run.h"

typedef struct run_figures {
  double seconds;        // wall time of the loop (start-up, final plot and checkpoint included)
  double train_seconds;  // wall time of the generations alone (metrics.csv's last wall_s)
  double env_steps;      // env steps taken
  double evaluations;    // candidate evaluations
  uint32_t generations;  // generations completed
  double best_score;     // best elite score
} run_figures;

static ne_config* config_for(const char* text) {
  ne_config* cfg = ne_config_create();
  char err[NE_ERRSTR_LEN];
  if (!cfg || ne_config_load_string(cfg, text, "bench", err) != 0) {
    fprintf(stderr, "bench config: %s\n", err);
    exit(1);
  }
  return cfg;
}

static void override(ne_config* cfg, const char* assignment) {
  char err[NE_ERRSTR_LEN];
  if (ne_config_override(cfg, assignment, "bench", err) != 0) {
    fprintf(stderr, "bench override: %s\n", err);
    exit(1);
  }
}

// Trains in-process into a scratch directory and returns the figures.
static run_figures train(ne_config* cfg, int threads) {
  static int counter;
  char dir[256], err[NE_ERRSTR_LEN];
  snprintf(dir, sizeof dir, "/tmp/ne_bench_ga_%d_%d", (int)getpid(), counter++);
  ne_run_options opt = {0};
  opt.out_dir = dir;
  opt.threads = threads;
  opt.quiet = 1;
  ne_run* run;
  if (ne_run_create(cfg, &opt, &run, err) != 0) {
    fprintf(stderr, "bench run: %s\n", err);
    exit(1);
  }
  double t0 = ne__now();
  if (ne_run_loop(run, err) != 0) {
    fprintf(stderr, "bench run: %s\n", err);
    exit(1);
  }
  run_figures f = {ne__now() - t0, 0, 0, 0, ne_run_generation(run), ne_run_best_score(run)};
  // the last metrics row has the cumulative counters
  char path[512], line[512], last[512] = "";
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  FILE* m = fopen(path, "r");
  while (m && fgets(line, sizeof line, m)) snprintf(last, sizeof last, "%s", line);
  if (m) fclose(m);
  unsigned gen;
  unsigned long long evals, steps;
  double wall;
  if (sscanf(last, "%u,%llu,%llu,%lf", &gen, &evals, &steps, &wall) == 4) {
    f.evaluations = (double)evals;
    f.env_steps = (double)steps;
    // the training time of the generations, without start-up and the final plot/checkpoint
    f.train_seconds = wall;
  }
  ne_run_destroy(run);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "bench: could not remove %s\n", dir);
  return f;
}

// The raw loop: the same env and policy shape, fixed random parameters, steps/s on one thread.
static double raw_steps_per_second(const char* env_id, const ne_config* cfg, double min_steps) {
  char err[NE_ERRSTR_LEN];
  ne_env_spec* env;
  ne_policy_spec policy;
  if (ne_env_make(env_id, NULL, &env, err) || ne_policy_from_config(cfg, env, &policy, err)) {
    fprintf(stderr, "bench raw: %s\n", err);
    exit(1);
  }
  float* params = ne_malloc(policy.n_params * sizeof(float));
  float* scratch = ne_malloc(policy.scratch_floats * sizeof(float) + sizeof(float));
  float action[NE_ENV_MAX_ACT];
  ne_policy_init_params(&policy, 1, params);
  ne_env_state* st = ne_env_state_create(env);
  double steps = 0, t0 = ne__now();
  ne_step_out so;
  for (uint64_t ep = 0; steps < min_steps; ep++) {
    ne_env_reset(env, st, ep);
    do {
      ne_policy_forward(&policy, params, st->obs, scratch, action);
      ne_env_step(env, st, action, &so);
      steps++;
    } while (!so.terminated && !so.truncated);
  }
  double rate = steps / (ne__now() - t0);
  ne_env_state_destroy(st);
  ne_free(params);
  ne_free(scratch);
  ne_env_spec_destroy(env);
  return rate;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static const char CARTPOLE[] =
    "[run]\nalgorithm = ga\ntarget = none\nplot_every = 0\ncheckpoint_every = 1000000\n"
    "[env]\nid = CartPole-v1\n[policy]\nhidden = 16\n"
    "[ga]\npopulation = 1000\ntruncation = 20\nsigma = 0.1\nelite_candidates = 3\nelite_episodes = 10\n";
static const char ACROBOT[] =
    "[run]\nalgorithm = ga\ntarget = none\nplot_every = 0\ncheckpoint_every = 1000000\n"
    "[env]\nid = Acrobot-v1\n[policy]\nhidden = 32\n"
    "[ga]\npopulation = 1000\ntruncation = 20\nsigma = 0.1\nelite_candidates = 3\nelite_episodes = 10\n";

int main(void) {
  printf("Deep GA benchmarks (%d online cores)\n", (int)sysconf(_SC_NPROCESSORS_ONLN));
  printf("%-52s %14s %10s\n", "figure", "value", "target");
  // framework overhead on one thread
  ne_config* cart = config_for(CARTPOLE);
  override(cart, "run.generations=20");
  run_figures one = train(cart, 1);
  double ga_rate = one.env_steps / one.train_seconds;
  double raw_rate = raw_steps_per_second("CartPole-v1", cart, one.env_steps);
  printf("%-52s %14.0f\n", "CartPole raw rollout loop, steps/s (1 thread)", raw_rate);
  printf("%-52s %14.0f\n", "CartPole GA, env steps/s (1 thread, generations only)", ga_rate);
  printf("%-52s %14.0f\n", "CartPole GA, env steps/s (1 thread, whole process)", one.env_steps / one.seconds);
  printf("%-52s %14.3f %10s\n", "framework overhead ratio GA / raw", ga_rate / raw_rate, ">= 0.95");
  // parallel efficiency 1 -> 2 threads
  const char* names[2] = {"CartPole", "Acrobot"};
  const char* texts[2] = {CARTPOLE, ACROBOT};
  for (int k = 0; k < 2; k++) {
    ne_config* cfg = config_for(texts[k]);
    override(cfg, "run.generations=10");
    run_figures t1 = train(cfg, 1), t2 = train(cfg, 2);
    double eff = (t2.env_steps / t2.train_seconds) / (2 * t1.env_steps / t1.train_seconds);
    char label[96];
    snprintf(label, sizeof label, "%s parallel efficiency 1 -> 2 threads", names[k]);
    printf("%-52s %14.3f %10s\n", label, eff, ">= 0.9");
    ne_config_destroy(cfg);
  }
  // time to solve CartPole-v1 with the shipped config, 2 threads, 5 seeds
  double times[5];
  int solved = 0;
  for (int seed = 0; seed < 5; seed++) {
    ne_config* cfg = ne_config_create();
    char err[NE_ERRSTR_LEN], assignment[64];
    if (ne_config_load_file(cfg, NE_SOURCE_DIR "/configs/cartpole-ga.ini", err) != 0) {
      fprintf(stderr, "bench: %s\n", err);
      return 1;
    }
    snprintf(assignment, sizeof assignment, "run.seed=%d", seed);
    override(cfg, assignment);
    override(cfg, "run.plot_every=0");
    run_figures f = train(cfg, 2);
    times[seed] = f.seconds;
    solved += f.best_score >= 475;
    ne_config_destroy(cfg);
  }
  qsort(times, 5, sizeof times[0], cmp_double);
  printf("%-52s %13.2fs %10s\n", "time to solve CartPole-v1, 2 threads, median of 5", times[2], "<= 2 s");
  printf("%-52s %14d %10s\n", "seeds solved (elite mean >= 475 over 100 episodes)", solved, "5");
  ne_config_destroy(cart);
  return 0;
}
