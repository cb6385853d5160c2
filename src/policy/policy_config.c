// SPDX-License-Identifier: MIT
// The policy spec that a config's [policy] section describes, fitted to the env's spaces (see
// policy.h's ne_policy_from_config): an MLP here, conv policies in conv_config.c, and the fixed
// one-layer spec of black-box problems, whose parameters are the point x itself.
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/policy.h"
#include "policy/policy_int.h"  // ne__config_wants_conv, ne__conv_policy_from_config

// Black-box functions (bbob/*, env->evaluate set) search x itself: no policy maps observations to
// actions, the parameters are the point. The spec is one linear layer (dim - 1) -> 1, dim
// parameters in all, only so that every algorithm's initial parameters are well defined
// (ne_policy_init_params: normc weights near 0, bias 0); act_dim = 0 marks it as no controller.
// Nothing runs it: the evaluator calls env->evaluate instead (src/exec/evaluator.c), and CMA-ES
// starts such problems from a uniform box (x0 = auto).
static int identity_policy(const ne_env_spec* env, ne_policy_spec* out) {
  memset(out, 0, sizeof *out);
  out->n_layers = 1;
  out->sizes[0] = env->dim - 1;
  out->sizes[1] = 1;
  out->head = NE_HEAD_CLIP;
  out->init = NE_INIT_NORMC;
  out->act_dim = 0;
  out->n_params = (size_t)env->dim;
  return 0;
}

int ne_policy_from_config(const ne_config* cfg, const ne_env_spec* env, ne_policy_spec* out, char* errstr) {
  if (env->evaluate) return identity_policy(env, out);
  int hidden[NE_POLICY_MAX_LAYERS];
  int n_hidden = ne_config_intlist(cfg, "policy", "hidden", hidden, NE_POLICY_MAX_LAYERS);
  if (n_hidden > NE_POLICY_MAX_LAYERS - 1)
    return ne__set_error(errstr, NE_ERANGE, "policy.hidden: at most %d hidden layers", NE_POLICY_MAX_LAYERS - 1);
  ne_activation act;
  ne_init init;
  ne_head head;
  ne_activation_parse(ne_config_str(cfg, "policy", "activation"), &act);
  ne_init_parse(ne_config_str(cfg, "policy", "init"), &init);
  const char* head_name = ne_config_str(cfg, "policy", "head");
  if (strcmp(head_name, "auto") == 0) head = env->discrete ? NE_HEAD_ARGMAX : NE_HEAD_TANH;
  else ne_head_parse(head_name, &head);
  // the head must fit the action space
  if (env->discrete != (head == NE_HEAD_ARGMAX))
    return ne__set_error(errstr, NE_EINVAL, "policy.head = %s does not fit %s's %s action space (use %s or auto)",
                         head_name, env->id, env->discrete ? "discrete" : "continuous",
                         env->discrete ? "argmax" : "tanh, clip, gaussian");
  int out_dim = env->discrete ? env->n_actions : env->act_dim;
  // conv policies over image observations (src/policy/conv_config.c): policy.type = conv or a preset
  int rc = ne__config_wants_conv(cfg)
      ? ne__conv_policy_from_config(cfg, env, out_dim, head, init, out, errstr)
      : ne_policy_spec_init(out, env->obs_dim, hidden, n_hidden, out_dim, act, head, init,
                            env->discrete ? NULL : env->act_low, env->discrete ? NULL : env->act_high, errstr);
  if (rc) return rc;
  // gaussian head (MLPs): the initial log standard deviations
  if (out->kind == NE_POLICY_MLP) out->init_log_std = (float)ne_config_float(cfg, "policy", "init_log_std");
  out->tanh_eval = strcmp(ne_config_str(cfg, "policy", "tanh"), "float") == 0 ? NE_TANH_FLOAT : NE_TANH_DOUBLE;
  out->fma = out->kind == NE_POLICY_MLP && ne_config_bool(cfg, "policy", "fma");
  return 0;
}
