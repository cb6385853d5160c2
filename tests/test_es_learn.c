// SPDX-License-Identifier: MIT
// The ES family learns real tasks through the whole runner (config -> run directory -> best.params),
// judged by a fresh 100-episode evaluation of best.params as `neuroevo eval` does it:
//   OpenAI ES, Pendulum-v1 (MLP 32-32):            >= -200   (RL Zoo's PPO/SAC: about -150 to -200)
//   OpenAI ES, MountainCarContinuous-v0 (linear):  >= 90     (Gymnasium's reward threshold)
//   ARS V2-t, MountainCarContinuous-v0 (linear):   >= 90
//   ARS V1-t, CartPole-v1 (linear):                 = 500    (the maximum)
//   PGPE + ClipUp and SNES, Pendulum-v1:           centre evaluation >= -200 within the budget
// Release builds run the full budgets (a few seconds on 2 threads); sanitizer (Debug) builds run a
// few generations of each and check only that the pipeline works end to end.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "neuroevo/run.h"
#include "run/params_file.h"
#include "test.h"

#ifdef NDEBUG
#define FULL 1  // Release: the real budgets
#else
#define FULL 0  // Debug / sanitizers: a smoke run
#endif

// Trains cfg_text (+ a generation budget) in a scratch directory; returns the run's best score and
// leaves the directory name in dir.
static double train(const char* cfg_text, int generations, char* dir, size_t dir_size) {
  ne_config* cfg = ne_config_create();
  char err[NE_ERRSTR_LEN], budget[64];
  ASSERT(cfg);
  if (ne_config_load_string(cfg, cfg_text, "learn.ini", err)) TEST_FAIL("config: %s", err);
  snprintf(budget, sizeof budget, "run.generations=%d", generations);
  ASSERT_EQ(ne_config_override(cfg, budget, "test", err), 0);
  ASSERT_EQ(ne_config_override(cfg, "run.plot_every=0", "test", err), 0);
  snprintf(dir, dir_size, "/tmp/ne_test_es_learn_XXXXXX");
  ASSERT(mkdtemp(dir));
  char out[512];
  snprintf(out, sizeof out, "%s/run", dir);
  ne_run_options opt = {0};
  opt.out_dir = out;
  opt.threads = 2;
  opt.quiet = 1;
  ne_run* run;
  if (ne_run_create(cfg, &opt, &run, err)) TEST_FAIL("run: %s", err);
  if (ne_run_loop(run, err)) TEST_FAIL("run loop: %s", err);
  double best = ne_run_best_score(run);
  fprintf(stderr, "  %u generations, best centre score %.2f\n", ne_run_generation(run), best);
  ne_run_destroy(run);
  ne_config_destroy(cfg);
  return best;
}

// Mean return of dir/run/best.params over n fresh episodes (seeds as `neuroevo eval --seed 0`).
static double evaluate_best(const char* dir, int n) {
  char path[512], err[NE_ERRSTR_LEN];
  snprintf(path, sizeof path, "%s/run/best.params", dir);
  ASSERT(ne__params_file_sniff(path));
  ne_params_file pf;
  if (ne__params_file_read(path, &pf, err)) TEST_FAIL("%s", err);
  ne_config* cfg = ne_config_create();
  ne_env_spec* env = NULL;
  ne_policy_spec policy;
  ASSERT_EQ(ne_genome_header_to_config(&pf.header, cfg, path, err), 0);
  ASSERT_EQ(ne_env_from_config(cfg, &env, err), 0);
  ASSERT_EQ(ne_policy_from_config(cfg, env, &policy, err), 0);
  ASSERT_EQ(pf.n_params, policy.n_params);
  ne_batch norm = {0};
  norm.obs_mean = pf.obs_dim ? pf.obs_mean : NULL;
  norm.obs_std = pf.obs_dim ? pf.obs_std : NULL;
  norm.obs_clip = pf.obs_clip;
  ne_evaluator* ev = ne_evaluator_create(env, &policy, NULL);
  ASSERT(ev);
  double total = 0;
  for (int e = 0; e < n; e++)
    total += ne_evaluator_episode(ev, pf.params, ne_seed_derive(0, 0, (uint64_t)e, NE_PURPOSE_EVAL), &norm, NULL);
  ne_evaluator_destroy(ev);
  ne_env_spec_destroy(env);
  ne_config_destroy(cfg);
  ne__params_file_free(&pf);
  fprintf(stderr, "  best.params: mean return %.2f over %d fresh episodes\n", total / n, n);
  return total / n;
}

static void cleanup(const char* dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

// ---- the tasks ----------------------------------------------------------------------------------

// seed 0: with the shared noise table, tanh in float and fused multiply-adds (the defaults) seeds
// 0, 1, 4 and 5 reach -200 in 300 generations (fresh-episode means -150 to -163), seeds 2 and 3
// stall near -760; with separate roundings seeds 0 and 3-5 reached it (tanh in double: 1-4; the
// generator: all of 0-4)
static const char ES_PENDULUM[] =
    "[run]\nalgorithm = es\nseed = 0\ntarget = none\n"
    "[env]\nid = Pendulum-v1\n"
    "[policy]\nhidden = 32,32\n"
    "[es]\npopulation = 100\nsigma = 0.1\nlr = 0.1\nl2coeff = 0\neval_episodes = 20\n";

static void es_solves_pendulum(void) {
  char dir[256];
  train(ES_PENDULUM, FULL ? 300 : 3, dir, sizeof dir);
  double ret = evaluate_best(dir, FULL ? 100 : 3);
  if (FULL) ASSERT_GE(ret, -200);
  else ASSERT(isfinite(ret));
  cleanup(dir);
}

static const char ES_MOUNTAINCAR[] =
    "[run]\nalgorithm = es\nseed = 0\ntarget = none\n"
    "[env]\nid = MountainCarContinuous-v0\n"
    "[policy]\nhidden =\n"
    "[es]\npopulation = 50\nsigma = 1\nlr = 0.05\neval_episodes = 20\n";

static void es_solves_mountaincar_continuous(void) {
  char dir[256];
  train(ES_MOUNTAINCAR, FULL ? 100 : 2, dir, sizeof dir);
  double ret = evaluate_best(dir, FULL ? 100 : 3);
  if (FULL) ASSERT_GE(ret, 90);
  else ASSERT(isfinite(ret));
  cleanup(dir);
}

static const char ARS_MOUNTAINCAR[] =
    "[run]\nalgorithm = ars\nseed = 0\ntarget = none\n"
    "[env]\nid = MountainCarContinuous-v0\nepisodes = 3\n"
    "[policy]\nhidden =\nhead = clip\n"
    "[ars]\ndirections = 8\ntop = 4\nstep_size = 0.1\nnoise = 0.3\nversion = v2\neval_episodes = 20\n";

static void ars_linear_solves_mountaincar_continuous(void) {
  char dir[256];
  train(ARS_MOUNTAINCAR, FULL ? 30 : 2, dir, sizeof dir);
  double ret = evaluate_best(dir, FULL ? 100 : 3);
  if (FULL) ASSERT_GE(ret, 90);
  else ASSERT(isfinite(ret));
  cleanup(dir);
}

static const char ARS_CARTPOLE[] =
    "[run]\nalgorithm = ars\nseed = 0\n"
    "[env]\nid = CartPole-v1\n"
    "[policy]\nhidden =\n"
    "[ars]\ndirections = 8\ntop = 4\nstep_size = 0.02\nnoise = 0.03\nversion = v1\neval_episodes = 10\n";

static void ars_linear_solves_cartpole(void) {
  char dir[256];
  double score = train(ARS_CARTPOLE, FULL ? 50 : 2, dir, sizeof dir);
  if (FULL) {
    ASSERT_GE(score, 475);  // the run stopped at CartPole's threshold on its own
    ASSERT_GE(evaluate_best(dir, 100), 475);
  }
  cleanup(dir);
}

static const char PGPE_PENDULUM[] =
    "[run]\nalgorithm = pgpe\nseed = 0\ntarget = -200\n"
    "[env]\nid = Pendulum-v1\n"
    "[policy]\nhidden = 32,32\n"
    "[pgpe]\npopulation = 100\ncenter_lr = 0.15\nstdev_init = 0.1\neval_episodes = 20\n";

static const char SNES_PENDULUM[] =
    "[run]\nalgorithm = snes\nseed = 0\ntarget = -200\n"
    "[env]\nid = Pendulum-v1\n"
    "[policy]\nhidden = 32,32\n"
    "[snes]\npopulation = 50\nstdev_init = 0.2\neval_episodes = 20\n";

static void pgpe_and_snes_reach_pendulum_target(void) {
  char dir[256];
  double score = train(PGPE_PENDULUM, FULL ? 400 : 2, dir, sizeof dir);
  if (FULL) ASSERT_GE(score, -200);
  cleanup(dir);
  score = train(SNES_PENDULUM, FULL ? 400 : 2, dir, sizeof dir);
  if (FULL) ASSERT_GE(score, -200);
  cleanup(dir);
}

TEST_MAIN(TEST_ENTRY(es_solves_pendulum), TEST_ENTRY(es_solves_mountaincar_continuous),
          TEST_ENTRY(ars_linear_solves_mountaincar_continuous), TEST_ENTRY(ars_linear_solves_cartpole),
          TEST_ENTRY(pgpe_and_snes_reach_pendulum_target))
