// SPDX-License-Identifier: MIT
// One episode (episode.h): reset, then per step the observation sums, the policy's input, the
// action and the env step, in that order: the order every episode loop keeps, so that they all
// give the same returns, steps and sums.
#include "neuroevo/episode.h"

#include "exec/lockstep.h"  // ne__add_obs_stats: the sums the lockstep adds the same way

ne_obs_norm ne_episode_norm(const ne_batch* batch) {
  ne_obs_norm n = {NULL, NULL, 0};
  if (batch && batch->obs_mean) n.mean = batch->obs_mean, n.std = batch->obs_std, n.clip = batch->obs_clip;
  return n;
}

int ne_episode_begin(ne_episode* ep, uint64_t seed) {
  ep->last = (ne_step_out){0, 0, 0};
  ep->ret = 0;
  ep->steps = 0;
  int rc = ne_env_reset(ep->env, ep->state, seed);
  ep->done = rc != 0;
  return rc;
}

const float* ne_episode_input(ne_episode* ep) {
  const float* obs = ep->state->obs;
  if (ep->stats) ne__add_obs_stats(obs, ep->env->obs_dim, ep->stats);
  return ne_policy_input(&ep->norm, obs, ep->env->obs_dim, ep->input);
}

int ne_episode_act(ne_episode* ep, const float* action) {
  ne_step_out* so = &ep->last;
  int rc = ne_env_step(ep->env, ep->state, action, so);
  if (rc) {
    ep->done = 1;
    return rc;
  }
  ep->ret += so->reward;
  ep->steps++;
  ep->done = so->terminated || so->truncated;
  return 0;
}

int ne_episode_step(ne_episode* ep) {
  const float* in = ne_episode_input(ep);
  ne_policy_forward(ep->policy, ep->params, in, ep->scratch, ep->action);
  return ne_episode_act(ep, ep->action);
}
