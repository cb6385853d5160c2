// SPDX-License-Identifier: MIT
// Physics env benchmarks, single thread:
//   1. per MuJoCo env, the env's step rate x frame_skip / the raw mj_step rate of the same model
//      (target >= 0.90): the cost of Gymnasium's semantics (ctrl copy, mj_rnePostConstraint,
//      observation, reward, TimeLimit) over bare physics. Both loops run the same episodes: same
//      reset seeds, same random actions, same episode ends;
//   2. LunarLander-v3 and BipedalWalker-v3 steps/s with random actions;
//   3. a rollout loop with a 2x64 tanh MLP policy (forward + step) per env, steps/s.
// `bench_physics [SECONDS]` (default 0.3 per measurement; MuJoCo ratios take the best of 5 pairs).
// Rates are per second of the thread's CPU time, so that a busy machine skews them less.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>  // clock_gettime(CLOCK_THREAD_CPUTIME_ID)

#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#ifdef NE_HAVE_MUJOCO
#include "envs/mujoco/mujoco_int.h"  // the state's mjData and the task's frame_skip for the raw loop
#endif

static double seconds_per_measure = 0.3;

// this thread's CPU seconds: on a shared machine, time spent descheduled does not count
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static ne_env_spec* make_env(const char* id) {
  char err[NE_ERRSTR_LEN];
  ne_env_spec* spec = NULL;
  if (ne_env_make(id, NULL, &spec, err)) {
    fprintf(stderr, "bench_physics: %s\n", err);
    exit(1);
  }
  return spec;
}

static void random_action(const ne_env_spec* spec, ne_rng* rng, float* a) {
  if (spec->discrete) {
    a[0] = (float)ne_rng_below(rng, (uint64_t)spec->n_actions);
    return;
  }
  for (int i = 0; i < spec->act_dim; i++) a[i] = (float)ne_rng_range(rng, spec->act_low[i], spec->act_high[i]);
}

// mode 0: ne_env_step with random actions; mode 1: the same episodes with bare mj_step calls
// (MuJoCo only); mode 2: a policy chooses the actions.
typedef struct loop_args {
  const ne_env_spec* spec;
  int mode;
  const ne_policy_spec* policy;  // mode 2
  const float* params;           // mode 2
  int* lengths;                  // mode 0 records episode lengths here, mode 1 replays them. Nullable
  long max_lengths;              // capacity of lengths
  long replay_steps;             // mode 1: the number of steps mode 0 took
} loop_args;

#ifdef NE_HAVE_MUJOCO
// one env step's worth of bare physics: ctrl and frame_skip mj_step calls
static void raw_step(const ne_env_spec* spec, ne_env_state* st, const float* a) {
  const ne_mj_spec* s = spec->data;
  mjData* d = ((ne_mj_state*)st->impl)->d;
  for (int i = 0; i < s->m->nu; i++) d->ctrl[i] = a[i];
  for (int k = 0; k < s->task->frame_skip; k++) mj_step(s->m, d);
}
#endif

// one step of the loop's kind; 1 when the episode ends there
static int loop_step(loop_args* L, ne_env_state* st, ne_rng* rng, float* scratch, long episode, int t) {
  float a[NE_ENV_MAX_ACT];
  if (L->mode == 2) ne_policy_forward(L->policy, L->params, st->obs, scratch, a);
  else random_action(L->spec, rng, a);
#ifdef NE_HAVE_MUJOCO
  if (L->mode == 1) {
    raw_step(L->spec, st, a);
    return t + 1 >= L->lengths[episode];
  }
#endif
  ne_step_out out;
  ne_env_step(L->spec, st, a, &out);
  int done = out.terminated || out.truncated;
  if (done && L->lengths && episode < L->max_lengths) L->lengths[episode] = t + 1;
  return done;
}

// steps per second of the loop: for seconds_per_measure (modes 0, 2) or replay_steps steps (mode 1)
static double run_loop(loop_args* L, long* steps_out) {
  ne_env_state* st = ne_env_state_create(L->spec);
  float* scratch = L->policy ? ne_malloc(L->policy->scratch_floats * sizeof(float) + 64) : NULL;
  ne_rng rng;
  ne_rng_seed(&rng, 42);
  long episode = 0, steps = 0;
  int t = 0;
  ne_env_reset(L->spec, st, 0);
  double start = cpu_now(), elapsed = 0;
  for (;;) {
    if (L->mode == 1 ? steps >= L->replay_steps : elapsed >= seconds_per_measure) break;
    for (int k = 0; k < 64 && (L->mode != 1 || steps < L->replay_steps); k++) {
      int done = loop_step(L, st, &rng, scratch, episode, t);
      steps++, t++;
      if (done) {
        ne_env_reset(L->spec, st, (uint64_t)++episode);  // the same seeds in every mode
        t = 0;
        if (L->mode == 0 && L->lengths && episode >= L->max_lengths) elapsed = seconds_per_measure;
      }
    }
    if (L->mode != 1 && elapsed < seconds_per_measure) elapsed = cpu_now() - start;
  }
  elapsed = cpu_now() - start;
  ne_free(scratch);
  ne_env_state_destroy(st);
  if (steps_out) *steps_out = steps;
  return (double)steps / elapsed;
}

#ifdef NE_HAVE_MUJOCO
// env steps/s x frame_skip over raw mj_step/s. The raw loop replays the env loop's episodes: the
// same reset seeds, the same random actions in the same order, the same episode lengths, so both
// simulate exactly the same states and differ only by what Gymnasium's semantics add
static void bench_mujoco(void) {
  static const char* ids[] = {"Hopper-v5",   "HalfCheetah-v5", "Walker2d-v5",         "Ant-v5",
                              "Humanoid-v5", "Swimmer-v5",     "InvertedPendulum-v5", "InvertedDoublePendulum-v5",
                              "Reacher-v5"};
  enum { MAX_EPISODES = 1 << 20, REPEATS = 5 };
  int* lengths = ne_malloc(MAX_EPISODES * sizeof(int));
  printf("\n1. MuJoCo: env step rate x frame_skip / raw mj_step rate (target >= 0.90)\n");
  printf("%-26s %5s %12s %14s %14s %8s\n", "env", "skip", "episodes", "env steps/s", "mj_step/s", "ratio");
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    ne_env_spec* spec = make_env(ids[i]);
    const ne_mj_spec* s = spec->data;
    // best of REPEATS paired runs each (the machine may be shared: the best rate is the least
    // disturbed one); each raw run replays the episodes of the env run just before it
    double r_env = 0, r_raw = 0;
    long steps = 0;
    for (int rep = 0; rep < REPEATS; rep++) {
      // the episode still running when the env loop stops has no recorded end: a huge length
      for (long e = 0; e < MAX_EPISODES; e++) lengths[e] = 1 << 30;
      loop_args env = {spec, 0, NULL, NULL, lengths, MAX_EPISODES, 0};
      double e_rate = run_loop(&env, &steps);
      loop_args raw = {spec, 1, NULL, NULL, lengths, MAX_EPISODES, steps};
      double m_rate = run_loop(&raw, NULL) * s->task->frame_skip;
      if (e_rate > r_env) r_env = e_rate;
      if (m_rate > r_raw) r_raw = m_rate;
    }
    double ratio = r_env * s->task->frame_skip / r_raw;
    long episodes = 0;
    for (long n = 0; n < steps && episodes < MAX_EPISODES; episodes++) n += lengths[episodes];  // incl. the last
    printf("%-26s %5d %12ld %14.0f %14.0f %8.3f%s\n", ids[i], s->task->frame_skip, episodes, r_env, r_raw, ratio,
           ratio >= 0.90 ? "" : "  (below target)");
    ne_env_spec_destroy(spec);
  }
  ne_free(lengths);
}
#endif

static void bench_box2d(void) {
#ifdef NE_HAVE_BOX2D
  static const char* ids[] = {"LunarLander-v3", "LunarLanderContinuous-v3", "BipedalWalker-v3"};
  printf("\n2. Box2D, random actions, one thread\n%-26s %14s\n", "env", "steps/s");
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    ne_env_spec* spec = make_env(ids[i]);
    loop_args env = {spec, 0, NULL, NULL, NULL, 0, 0};
    printf("%-26s %14.0f\n", ids[i], run_loop(&env, NULL));
    ne_env_spec_destroy(spec);
  }
#endif
}

// a 2x64 tanh MLP's rollout rate, and the share of time the bare env loop accounts for
static void bench_rollouts(void) {
  static const char* ids[] = {
      "CartPole-v1",
#ifdef NE_HAVE_BOX2D
      "LunarLander-v3",
#endif
#ifdef NE_HAVE_MUJOCO
      "Hopper-v5",
      "Humanoid-v5",
#endif
  };
  printf("\n3. rollouts with a 2x64 tanh MLP (forward + step), one thread\n");
  printf("%-26s %8s %14s %14s %8s\n", "env", "params", "steps/s", "env only/s", "env share");
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    ne_env_spec* spec = make_env(ids[i]);
    ne_policy_spec pol;
    int hidden[2] = {64, 64};
    int out = spec->discrete ? spec->n_actions : spec->act_dim;
    char err[NE_ERRSTR_LEN];
    if (ne_policy_spec_init(&pol, spec->obs_dim, hidden, 2, out, NE_ACT_TANH,
                            spec->discrete ? NE_HEAD_ARGMAX : NE_HEAD_TANH, NE_INIT_NORMC, spec->act_low,
                            spec->act_high, err)) {
      fprintf(stderr, "bench_physics: %s\n", err);
      exit(1);
    }
    float* params = ne_malloc(pol.n_params * sizeof(float));
    ne_policy_init_params(&pol, 1, params);
    loop_args roll = {spec, 2, &pol, params, NULL, 0, 0}, env = {spec, 0, NULL, NULL, NULL, 0, 0};
    double r_roll = run_loop(&roll, NULL), r_env = run_loop(&env, NULL);
    printf("%-26s %8zu %14.0f %14.0f %7.0f%%\n", ids[i], pol.n_params, r_roll, r_env, 100.0 * r_roll / r_env);
    ne_free(params);
    ne_env_spec_destroy(spec);
  }
}

int main(int argc, char** argv) {
  if (argc > 1) seconds_per_measure = atof(argv[1]);
  if (seconds_per_measure <= 0) seconds_per_measure = 0.3;
  printf("bench_physics: %.2f s per measurement, one thread\n", seconds_per_measure);
#ifdef NE_HAVE_MUJOCO
  bench_mujoco();
#else
  printf("\n1. MuJoCo: not built (run scripts/install-deps)\n");
#endif
  bench_box2d();
  bench_rollouts();
  return 0;
}
