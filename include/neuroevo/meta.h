// SPDX-License-Identifier: MIT
// Meta-learning with evolution (GA-MAML, ES-MAML): a candidate's fitness is the return it reaches
// on a task after K steps of an inner loop run on that task, averaged over sampled tasks of a task
// family (env.h: PointNav2D-v0, HalfCheetahDir-v5, ...). The inner loop runs inside the worker that
// evaluates the candidate; the adapted parameters never leave it. Three inner updates:
//   pg    MAML's (Finn et al. 2017): REINFORCE over `inner_episodes` rollouts of the gaussian-head
//         policy, discounted returns minus a linear feature baseline (rllab's, refitted on the
//         rollouts as ProMP does), normalized advantages, theta += lr * mean_t(grad log pi * A)
//   es    ES-MAML's (Song et al. 2019) ES-gradient step from inner_episodes / 2 mirrored pairs of
//         perturbations theta +- sigma * eps, one episode each, returns normalized by their std:
//         theta += lr * sum_j (f+_j - f-_j) eps_j / (inner_episodes * sigma)
//   hill  ES-MAML's hill climbing: inner_episodes perturbations theta + sigma * eps, each evaluated
//         on the episodes that measured theta; the best replaces theta if it beats theta
// Every stage theta_0 .. theta_K is measured on `eval_episodes` fresh episodes of its deterministic
// policy (the mean action): returns[0] is the pre-adaptation return, returns[K] the
// post-adaptation one (the fitness). Every random choice (tasks, resets, action noise,
// perturbations) derives from the candidate's episode seed, so a meta-evaluation is a pure function
// of (parameters, seed), the same on any thread or worker.
#ifndef NEUROEVO_META_H
#define NEUROEVO_META_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/algo.h"  // ne_batch (observation normalization), ne_result (observation sums)
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NE_META_MAX_STEPS 100  // largest inner_steps

// The inner loop's update rule.
typedef enum ne_meta_update {
  NE_META_PG = 0,    // MAML's vanilla policy gradient (gaussian head)
  NE_META_ES = 1,    // ES-MAML's ES-gradient step
  NE_META_HILL = 2,  // ES-MAML's greedy hill climbing
} ne_meta_update;

// The [meta] section, resolved. Immutable; shared by every thread.
typedef struct ne_meta_spec {
  int tasks;              // tasks per fitness evaluation (0: no inner loop; fitness = plain returns)
  int inner_steps;        // K: inner updates per task
  int inner_episodes;     // episodes one update runs (pg: rollouts, es: perturbed episodes, hill: tries)
  int eval_episodes;      // episodes that measure each stage theta_0 .. theta_K
  ne_meta_update update;  // the update rule
  double lr;              // step size (pg, es)
  double sigma;           // perturbation scale (es, hill)
  double discount;        // pg: discount of the returns-to-go
  int normalize_adv;      // pg: 1 = advantages scaled to mean 0, std 1
  double baseline_reg;    // pg: ridge coefficient of the linear feature baseline (rllab's 1e-5)
} ne_meta_spec;

// Reads [meta] for env and policy. meta.tasks = 0 gives tasks 0 and the other fields still set
// (what `neuroevo eval --adapt` uses on a run trained without an inner loop). With tasks > 0 the
// spec is checked (ne_meta_check); errors name the key. Nullable: errstr.
int ne_meta_from_config(const ne_config* cfg, const ne_env_spec* env, const ne_policy_spec* policy, ne_meta_spec* out,
                        char* errstr);

// Checks that meta can run on env and policy: a task family without a fixed task, pg with a gaussian
// head, es with an even inner_episodes, a TimeLimit for pg's buffers. NE_EINVAL naming the key and
// a fix otherwise. Nullable: errstr.
int ne_meta_check(const ne_meta_spec* meta, const ne_env_spec* env, const ne_policy_spec* policy, char* errstr);

// Name of an update rule ("pg", "es", "hill").
const char* ne_meta_update_name(ne_meta_update u);

// The seed of task t of a meta-evaluation whose candidate has episode seed `seed`.
uint64_t ne_meta_task_seed(uint64_t seed, uint32_t t);

// ---- the inner loop -------------------------------------------------------------------------------

// One thread's inner loop: its own env state and every buffer an adaptation needs, made once.
typedef struct ne_adapter ne_adapter;

// Creates an adapter for (meta, env, policy); the specs must outlive it. NULL on OOM. Caller frees
// with ne_adapter_destroy.
ne_adapter* ne_adapter_create(const ne_meta_spec* meta, const ne_env_spec* env, const ne_policy_spec* policy);

// Frees an adapter. Nullable: ad.
void ne_adapter_destroy(ne_adapter* ad);

// What one adaptation on one task did.
typedef struct ne_adapt_result {
  double returns[NE_META_MAX_STEPS + 1];  // (inner_steps + 1) mean return of theta_0 .. theta_K
  uint64_t steps;                         // env steps taken (all episodes)
  uint32_t episodes;                      // episodes run
} ne_adapt_result;

// Adapts params to task (env->task_dim values) with the task seed `seed` (ne_meta_task_seed) and
// measures every stage into *out. norm: observation normalization of the policy input (NULL: none);
// stats: when not NULL, every observation is added to its obs_sum / obs_sumsq / obs_count;
// adapted: when not NULL, receives theta_K (n_params floats). Allocates nothing. Returns 0, or the
// NE_E* code of an env failure (a physics error); NaN returns are the caller's to reject.
// Nullable: norm, stats, adapted.
int ne_adapter_run(ne_adapter* ad, const float* params, const double* task, uint64_t seed, const ne_batch* norm,
                   ne_result* stats, ne_adapt_result* out, float* adapted);

#ifdef __cplusplus
}
#endif
#endif
