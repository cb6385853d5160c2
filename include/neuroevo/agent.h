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

// Formats the one-line summary `neuroevo eval` prints (no newline) into buf:
// "<env>: mean return M ± S over N episodes (min A, max B, T steps)".
void ne_agent_eval_line(const ne_agent_eval* e, char* buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
