// SPDX-License-Identifier: MIT
// Foundation benchmarks: single-thread step rate of every classic-control env under random actions,
// one instance at a time (ne_env_step) and 8 in the family's lanes (ne_env_lanes_step, as the
// evaluators' lockstep runs them), and the raw rollout loop (env + a 2x64 tanh MLP, no framework)
// that the GA's and ES's overhead ratios are measured against. Prints a table; each figure runs
// for at least 0.3 s.
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"

static const char* const ENVS[] = {"CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0",
                                   "Pendulum-v1"};
#define MIN_SECONDS 0.3

// A random action inside the action space.
static void random_action(const ne_env_spec* env, ne_rng* rng, float* act) {
  if (env->discrete) {
    act[0] = (float)ne_rng_below(rng, (uint64_t)env->n_actions);
    return;
  }
  for (int i = 0; i < env->act_dim; i++) act[i] = (float)ne_rng_range(rng, env->act_low[i], env->act_high[i]);
}

// Steps/s of env with actions from random (policy == NULL) or from the MLP.
static double steps_per_second(const ne_env_spec* env, const ne_policy_spec* policy, const float* params) {
  ne_env_state* st = ne_env_state_create(env);
  float* scratch = policy ? ne_malloc((policy->scratch_floats + 1) * sizeof(float)) : NULL;
  float act[NE_ENV_MAX_ACT];
  ne_rng rng;
  ne_rng_seed(&rng, 7);
  ne_step_out so;
  double steps = 0, t0 = ne__now(), elapsed = 0;
  // whole episodes until the time is up, so resets are counted as a rollout pays them
  for (uint64_t ep = 0; elapsed < MIN_SECONDS; ep++) {
    ne_env_reset(env, st, ep);
    do {
      if (policy) ne_policy_forward(policy, params, st->obs, scratch, act);
      else random_action(env, &rng, act);
      ne_env_step(env, st, act, &so);
      steps++;
    } while (!so.terminated && !so.truncated);
    elapsed = ne__now() - t0;
  }
  ne_free(scratch);
  ne_env_state_destroy(st);
  return steps / elapsed;
}

// Steps/s of NE_ENV_LANES episodes of env in its lanes under random actions, each lane reset (and
// entered again) when its episode ends; 0 when the family has no lanes.
static double lanes_steps_per_second(const ne_env_spec* env) {
  if (!ne_env_lanes_ok(env)) return 0;
  enum { L = NE_ENV_LANES };
  void* lanes = ne_calloc(1, ne_env_lanes_bytes(env));
  float* obs = ne_malloc((size_t)env->obs_dim * L * sizeof(float));
  float acts[L * NE_ENV_MAX_ACT];
  ne_env_state* st[L];
  uint64_t t[L], episode = 0;
  ne_rng rng;
  ne_rng_seed(&rng, 7);
  for (int k = 0; k < L; k++) {
    st[k] = ne_env_state_create(env);
    ne_env_reset(env, st[k], episode++);
    ne_env_lanes_enter(env, lanes, k, st[k], obs);
    t[k] = 0;
  }
  double steps = 0, t0 = ne__now(), elapsed = 0;
  while (elapsed < MIN_SECONDS) {
    for (int round = 0; round < 256; round++) {
      for (int k = 0; k < L; k++) random_action(env, &rng, acts + (size_t)k * (size_t)env->act_dim);
      ne_step_out out[L];
      int rcs[L];
      ne_env_lanes_step(env, lanes, (1u << L) - 1u, acts, t, obs, out, rcs);
      steps += L;
      for (int k = 0; k < L; k++) {
        t[k]++;
        if (!out[k].terminated && !out[k].truncated) continue;
        ne_env_lanes_leave(env, lanes, k, obs, t[k], st[k]);
        ne_env_reset(env, st[k], episode++);
        ne_env_lanes_enter(env, lanes, k, st[k], obs);
        t[k] = 0;
      }
    }
    elapsed = ne__now() - t0;
  }
  for (int k = 0; k < L; k++) ne_env_state_destroy(st[k]);
  ne_free(obs);
  ne_free(lanes);
  return steps / elapsed;
}

int main(void) {
  printf("Environment step rates and the raw rollout loop (1 thread)\n");
  printf("%-26s %16s %18s %22s\n", "env", "random steps/s", "8 in lanes /s", "rollout 2x64 steps/s");
  for (size_t k = 0; k < sizeof ENVS / sizeof ENVS[0]; k++) {
    char err[NE_ERRSTR_LEN];
    ne_env_spec* env;
    if (ne_env_make(ENVS[k], NULL, &env, err) != 0) {
      fprintf(stderr, "bench_envs: %s\n", err);
      return 1;
    }
    int hidden[2] = {64, 64};
    ne_policy_spec policy;
    int out = env->discrete ? env->n_actions : env->act_dim;
    if (ne_policy_spec_init(&policy, env->obs_dim, hidden, 2, out, NE_ACT_TANH,
                            env->discrete ? NE_HEAD_ARGMAX : NE_HEAD_TANH, NE_INIT_NORMC,
                            env->discrete ? NULL : env->act_low, env->discrete ? NULL : env->act_high, err) != 0) {
      fprintf(stderr, "bench_envs: %s\n", err);
      return 1;
    }
    float* params = ne_malloc(policy.n_params * sizeof(float));
    ne_policy_init_params(&policy, 1, params);
    double random_rate = steps_per_second(env, NULL, NULL);
    double lanes_rate = lanes_steps_per_second(env);
    double rollout_rate = steps_per_second(env, &policy, params);
    printf("%-26s %16.0f %18.0f %22.0f\n", ENVS[k], random_rate, lanes_rate, rollout_rate);
    ne_free(params);
    ne_env_spec_destroy(env);
  }
  return 0;
}
