// SPDX-License-Identifier: MIT
// A trained agent as a file (best.genome: a seed chain; best.params: explicit parameters plus
// observation normalization), loaded once (env, policy and materialized parameters: what `neuroevo
// render` records) or evaluated over N episodes (what `neuroevo eval` prints and the run report
// shows). Both files name their env and policy, so the file alone reproduces the agent.
#ifndef NEUROEVO_AGENT_H
#define NEUROEVO_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/algo.h"  // ne_batch (observation normalization)
#include "neuroevo/env.h"
#include "neuroevo/meta.h"  // meta-learning: an agent adapted to tasks
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

// The outcome of evaluating an agent.
typedef struct ne_agent_eval {
  char env_id[64];  // the env the agent file names
  int episodes;     // episodes run
  double mean;      // mean episode return
  double std;       // population standard deviation of the returns
  double min, max;  // extreme returns
  uint64_t steps;   // env steps over all episodes
  double seconds;   // wall-clock seconds the episodes took
} ne_agent_eval;

// The agent file of a run directory: RUN_DIR/best.genome, else RUN_DIR/best.params. Returns 0, or
// NE_ENOTFOUND (path then holds the best.genome path, for messages).
int ne_agent_path(const char* run_dir, char* path, size_t size);

// An agent file loaded: its env spec, policy spec, materialized parameters and (params files of
// the ES family) observation normalization, owned together. Read-only once loaded, so threads may
// share it; each thread makes its own env state.
typedef struct ne_agent ne_agent;

// Reads the genome or params file at path and rebuilds env, policy and parameters from its header.
// Errors name the file (NE_ENOTFOUND, NE_EPARSE, NE_EIO, NE_ENOMEM). Caller frees *out with
// ne_agent_destroy. Nullable: errstr.
int ne_agent_load(const char* path, ne_agent** out, char* errstr);

// Frees an agent and everything the accessors below returned. Nullable: agent.
void ne_agent_destroy(ne_agent* agent);

// The agent's env spec, policy spec and (policy->n_params) parameters, owned by the agent.
const ne_env_spec* ne_agent_env(const ne_agent* agent);
const ne_policy_spec* ne_agent_policy(const ne_agent* agent);
const float* ne_agent_params(const ne_agent* agent);

// The observation normalization the policy expects, owned by the agent; NULL when the file has none
// (genome files, params files without obs_mean).
const ne_batch* ne_agent_norm(const ne_agent* agent);

// Rebuilds env, policy and parameters from the agent file at path and runs `episodes` episodes on
// `threads` threads (<= 0: all cores); episode e resets with ne_seed_derive(seed, 0, e,
// NE_PURPOSE_EVAL), so the figures are reproducible and do not depend on threads. Errors name the
// file (NE_ENOTFOUND, NE_EPARSE, NE_EIO, NE_ENOMEM, NE_EINVAL). Nullable: returns ((episodes)
// returns in episode order), errstr.
int ne_agent_evaluate(const char* path, int episodes, uint64_t seed, int threads, ne_agent_eval* out, double* returns,
                      char* errstr);

// ---- meta-learning (meta.h): adapting an agent to tasks of its task family ----

// Fixes the task of every episode of the agent's env (its fixed-task variant; task: task_dim
// values), e.g. before ne_render_episodes. NE_EUNSUPPORTED for envs that are not task families,
// NE_EINVAL for a bad task. Nullable: errstr.
int ne_agent_set_task(ne_agent* agent, const double* task, char* errstr);

// The agent's inner loop (the [meta] keys of its file) with inner_steps = k, checked against its env
// and policy (NE_EINVAL naming the key, e.g. pg without a gaussian head). Nullable: errstr.
int ne_agent_meta(const ne_agent* agent, int k, ne_meta_spec* out, char* errstr);

// Adapts the agent to n_tasks tasks with k inner steps on `threads` threads (<= 0: all cores).
// Task i has the task seed ne_meta_task_seed(ne_seed_derive(seed, 0, 0, NE_PURPOSE_EVAL), i) and is
// drawn from it, or is `task` for every i when task is not NULL. Writes the tasks (n_tasks *
// task_dim values), the returns of each stage (n_tasks rows of k + 1: before, after step 1, ...)
// and the env steps taken. Errors as ne_agent_meta, or an env failure. Nullable: task, steps, errstr.
int ne_agent_adapt(const ne_agent* agent, int k, int n_tasks, const double* task, uint64_t seed, int threads,
                   double* tasks, double* returns, uint64_t* steps, char* errstr);

// Replaces the agent's parameters by the ones its inner loop reaches on `task` in k steps (task
// seed as task 0 of ne_agent_adapt) and writes the k + 1 stage returns, e.g. to render the adapted
// agent. Nullable: returns, errstr.
int ne_agent_adapt_params(ne_agent* agent, int k, const double* task, uint64_t seed, double* returns, char* errstr);

// Formats the one-line summary `neuroevo eval` prints (no newline) into buf:
// "<env>: mean return M ± S over N episodes (min A, max B, T steps)".
void ne_agent_eval_line(const ne_agent_eval* e, char* buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
