// SPDX-License-Identifier: MIT
// Episodes in lockstep with batched forwards (lockstep.h). All memory is allocated at create; a
// run allocates nothing. Workload: elite re-evaluation and multi-episode fitness of conv policies,
// where one forward of 8 frames costs much less than 8 forwards of one (weights read once).
#include "exec/lockstep.h"

#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/rng.h"

struct ne_lockstep {
  const ne_env_spec* env;                   // shared, read-only
  const ne_policy_spec* policy;             // shared, read-only
  ne_env_state* states[NE_LOCKSTEP_WIDTH];  // one env per episode
  float* obs;                               // (NE_LOCKSTEP_WIDTH, obs_dim) observations of running episodes
  float* scratch;                           // batched forward scratch
  float actions[NE_LOCKSTEP_WIDTH * NE_POLICY_MAX_ACT];  // (running, act_dim) actions
  double returns[NE_LOCKSTEP_WIDTH];                     // episode returns of the last run
  int row_of[NE_LOCKSTEP_WIDTH];                         // episode -> row of obs this step
  int live[NE_LOCKSTEP_WIDTH];                           // 1 while the episode runs
};

ne_lockstep* ne__lockstep_create(const ne_env_spec* env, const ne_policy_spec* policy) {
  ne_lockstep* ls = ne_calloc(1, sizeof *ls);
  if (!ls) return NULL;
  ls->env = env;
  ls->policy = policy;
  int ok = 1;
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++) ok &= (ls->states[i] = ne_env_state_create(env)) != NULL;
  ls->obs = ne_malloc((size_t)NE_LOCKSTEP_WIDTH * (size_t)env->obs_dim * sizeof(float));
  ls->scratch = ne_malloc((ne_policy_batch_scratch_floats(policy, NE_LOCKSTEP_WIDTH) + 1) * sizeof(float));
  if (!ok || !ls->obs || !ls->scratch) {
    ne__lockstep_destroy(ls);
    return NULL;
  }
  return ls;
}

void ne__lockstep_destroy(ne_lockstep* ls) {
  if (!ls) return;
  for (int i = 0; i < NE_LOCKSTEP_WIDTH; i++) ne_env_state_destroy(ls->states[i]);
  ne_free(ls->obs);
  ne_free(ls->scratch);
  ne_free(ls);
}

// gathers the running episodes' observations into rows of ls->obs; returns how many
static int gather(ne_lockstep* ls, int n) {
  size_t d = (size_t)ls->env->obs_dim;
  int rows = 0;
  for (int i = 0; i < n; i++) {
    if (!ls->live[i]) continue;
    memcpy(ls->obs + (size_t)rows * d, ls->states[i]->obs, d * sizeof(float));
    ls->row_of[i] = rows++;
  }
  return rows;
}

int ne__lockstep_run(ne_lockstep* ls, const float* params, uint64_t episode_seed, uint32_t first, int n,
                     uint64_t* steps) {
  const ne_env_spec* env = ls->env;
  int failed = 0, running = 0;
  // every episode from its own seed, as the sequential loop resets them
  for (int i = 0; i < n; i++) {
    ls->returns[i] = 0;
    int rc = ne_env_reset(env, ls->states[i], ne_hash2(episode_seed, first + (uint32_t)i));
    ls->live[i] = rc == 0;
    running += ls->live[i];
    if (rc && !failed) failed = rc;
  }
  // one batched forward per step over the episodes still running
  ne_step_out so;
  while (running > 0) {
    int rows = gather(ls, n);
    ne_policy_forward_batch(ls->policy, params, ls->obs, rows, ls->scratch, ls->actions);
    for (int i = 0; i < n; i++) {
      if (!ls->live[i]) continue;
      const float* act = ls->actions + (size_t)ls->row_of[i] * (size_t)ls->policy->act_dim;
      int rc = ne_env_step(env, ls->states[i], act, &so);
      if (rc == 0) {
        ls->returns[i] += so.reward;
        if (steps) *steps += 1;
      } else if (!failed) {
        failed = rc;
      }
      if (rc || so.terminated || so.truncated) ls->live[i] = 0, running--;
    }
  }
  return failed;
}

double ne__lockstep_return(const ne_lockstep* ls, int i) { return ls->returns[i]; }

const ne_env_state* ne__lockstep_state(const ne_lockstep* ls, int i) { return ls->states[i]; }
