// SPDX-License-Identifier: MIT
// Episodes in lockstep with batched forwards (lockstep.h). All memory is allocated at create; a
// run allocates nothing. Workload: several episodes of one parameter vector (elite re-evaluation,
// a candidate's episodes, `neuroevo eval`): a conv forward of 8 frames costs much less than 8
// forwards of one (weights read once), an MLP's short output layers overlap their addition chains.
#include "exec/lockstep.h"

#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

struct ne_lockstep {
  const ne_env_spec* env;                   // shared, read-only
  const ne_policy_spec* policy;             // shared, read-only
  ne_env_state* states[NE_LOCKSTEP_WIDTH];  // one env per episode
  float* obs;                               // (NE_LOCKSTEP_WIDTH, obs_dim) policy inputs of running episodes
  float* scratch;                           // batched forward scratch
  float actions[NE_LOCKSTEP_WIDTH * NE_POLICY_MAX_ACT];  // (running, act_dim) actions
  double returns[NE_LOCKSTEP_WIDTH];                     // episode returns of the last run
  uint64_t steps[NE_LOCKSTEP_WIDTH];                     // episode steps of the last run
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

// gathers the running episodes' policy inputs into rows of ls->obs; returns how many
static int gather(ne_lockstep* ls, int n, const ne_batch* norm) {
  int d = ls->env->obs_dim;
  int rows = 0;
  for (int i = 0; i < n; i++) {
    if (!ls->live[i]) continue;
    ne__policy_input(ls->states[i]->obs, d, norm, ls->obs + (size_t)rows * (size_t)d);
    ls->row_of[i] = rows++;
  }
  return rows;
}

int ne__lockstep_run(ne_lockstep* ls, const float* params, const uint64_t* seeds, int n, const ne_batch* norm,
                     const volatile int* stop) {
  const ne_env_spec* env = ls->env;
  int failed = 0, running = 0;
  // every episode from its own seed, as the sequential loop resets them
  for (int i = 0; i < n; i++) {
    ls->returns[i] = 0;
    ls->steps[i] = 0;
    int rc = ne_env_reset(env, ls->states[i], seeds[i]);
    ls->live[i] = rc == 0;
    running += ls->live[i];
    if (rc && !failed) failed = rc;
  }
  // one batched forward per step over the episodes still running
  ne_step_out so;
  while (running > 0) {
    if (stop && *stop) return NE_EINTR;  // the episodes in hand end here: a partial result
    int rows = gather(ls, n, norm);
    ne_policy_forward_batch(ls->policy, params, ls->obs, rows, ls->scratch, ls->actions);
    for (int i = 0; i < n; i++) {
      if (!ls->live[i]) continue;
      const float* act = ls->actions + (size_t)ls->row_of[i] * (size_t)ls->policy->act_dim;
      int rc = ne_env_step(env, ls->states[i], act, &so);
      if (rc == 0) {
        ls->returns[i] += so.reward;
        ls->steps[i]++;
      } else if (!failed) {
        failed = rc;
      }
      if (rc || so.terminated || so.truncated) ls->live[i] = 0, running--;
    }
  }
  return failed;
}

double ne__lockstep_return(const ne_lockstep* ls, int i) { return ls->returns[i]; }

uint64_t ne__lockstep_steps(const ne_lockstep* ls, int i) { return ls->steps[i]; }

const ne_env_state* ne__lockstep_state(const ne_lockstep* ls, int i) { return ls->states[i]; }
