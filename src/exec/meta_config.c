// SPDX-License-Identifier: MIT
// The [meta] section resolved into an ne_meta_spec (see meta.h), its checks against the env and the
// policy, and the task seeds of a meta-evaluation. Messages name the key and say what would work.
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/error.h"
#include "neuroevo/meta.h"
#include "neuroevo/rng.h"

static const char* const UPDATE_NAMES[] = {"pg", "es", "hill"};

const char* ne_meta_update_name(ne_meta_update u) { return (unsigned)u < 3 ? UPDATE_NAMES[u] : "invalid"; }

uint64_t ne_meta_task_seed(uint64_t seed, uint32_t t) { return ne_seed_derive(seed, 0, t, NE_PURPOSE_TASK); }

int ne_meta_from_config(const ne_config* cfg, const ne_env_spec* env, const ne_policy_spec* policy, ne_meta_spec* out,
                        char* errstr) {
  memset(out, 0, sizeof *out);
  out->tasks = (int)ne_config_int(cfg, "meta", "tasks");
  out->inner_steps = (int)ne_config_int(cfg, "meta", "inner_steps");
  out->inner_episodes = (int)ne_config_int(cfg, "meta", "inner_episodes");
  out->eval_episodes = (int)ne_config_int(cfg, "meta", "eval_episodes");
  const char* update = ne_config_str(cfg, "meta", "update");
  for (int i = 0; i < 3; i++)
    if (strcmp(update, UPDATE_NAMES[i]) == 0) out->update = (ne_meta_update)i;
  out->lr = ne_config_float(cfg, "meta", "inner_lr");
  out->sigma = ne_config_float(cfg, "meta", "inner_sigma");
  out->discount = ne_config_float(cfg, "meta", "discount");
  out->normalize_adv = ne_config_bool(cfg, "meta", "normalize_adv");
  out->baseline_reg = 1e-5;  // rllab's LinearFeatureBaseline(reg_coeff=1e-5)
  if (out->tasks == 0) return 0;
  // a meta-learning run: the env must be a family and the update must fit the policy
  if (ne_config_int(cfg, "env", "episodes") != 1)
    return ne__set_error(errstr, NE_EINVAL,
                         "env.episodes = %lld with meta.tasks = %d: a meta-evaluation runs meta.tasks tasks, so "
                         "set env.episodes = 1 (and meta.eval_episodes for more episodes per stage)",
                         (long long)ne_config_int(cfg, "env", "episodes"), out->tasks);
  return ne_meta_check(out, env, policy, errstr);
}

int ne_meta_check(const ne_meta_spec* meta, const ne_env_spec* env, const ne_policy_spec* policy, char* errstr) {
  if (env->task_dim == 0)
    return ne__set_error(errstr, NE_EINVAL,
                         "meta-learning needs a task family, and env.id = %s is not one (`neuroevo envs tasks` "
                         "lists them: PointNav2D-v0, HalfCheetahDir-v5, ...)",
                         env->id);
  if (env->task_fixed)
    return ne__set_error(errstr, NE_EINVAL,
                         "env.task fixes %s's task, but meta-learning draws a task per adaptation: leave env.task "
                         "empty",
                         env->id);
  // (0 only through `eval --adapt 0`: the same tasks and episodes, no update; configs start at 1)
  if (meta->inner_steps < 0 || meta->inner_steps > NE_META_MAX_STEPS)
    return ne__set_error(errstr, NE_EINVAL, "meta.inner_steps = %d: expected 1 to %d", meta->inner_steps,
                         NE_META_MAX_STEPS);
  if (meta->update == NE_META_PG && policy->head != NE_HEAD_GAUSSIAN)
    return ne__set_error(errstr, NE_EINVAL,
                         "meta.update = pg samples actions and needs policy.head = gaussian (got %s); or use "
                         "meta.update = es or hill",
                         ne_head_name(policy->head));
  if (meta->update == NE_META_PG && policy->kind != NE_POLICY_MLP)
    return ne__set_error(errstr, NE_EINVAL, "meta.update = pg needs an MLP policy (policy.type = mlp)");
  if (meta->update == NE_META_PG && env->max_episode_steps <= 0)
    return ne__set_error(errstr, NE_EINVAL, "meta.update = pg needs a TimeLimit (env.max_episode_steps > 0)");
  if (meta->update == NE_META_ES && meta->inner_episodes % 2 != 0)
    return ne__set_error(errstr, NE_EINVAL,
                         "meta.inner_episodes = %d: es evaluates mirrored pairs, so it must be even (try %d)",
                         meta->inner_episodes, meta->inner_episodes + 1);
  return 0;
}
