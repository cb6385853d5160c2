// SPDX-License-Identifier: MIT
// Turns a config into the objects a run needs: the env spec from [env], the policy spec from
// [policy] (fitted to the env's spaces), and the genome header that makes a genome file
// self-contained (every [env] and [policy] key, so `eval` rebuilds exactly the same policy).
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "neuroevo/run.h"
#include "policy/conv_config.h"  // conv policies

int ne_env_from_config(const ne_config* cfg, ne_env_spec** out, char* errstr) {
  ne_env_options opt = {0};
  opt.max_episode_steps = (int)ne_config_int(cfg, "env", "max_episode_steps");
  opt.dim = (int)ne_config_int(cfg, "env", "dim");                        // bbob/* only
  opt.shift_seed = (uint64_t)ne_config_int(cfg, "env", "shift_seed");     // bbob/* only
  const char* id = ne_config_str(cfg, "env", "id");
  int rc = ne_env_make(id, &opt, out, errstr);
#ifndef NE_HAVE_ALE
  // Atari ids exist only in builds with ALE (cmake/ale.cmake): say how to get it
  if (rc == NE_ENOTFOUND && strncmp(id, "ALE/", 4) == 0)
    return ne__set_error(errstr, rc, "%s: this build has no Atari family: run `make ale` (or `make test`), "
                         "which builds ALE once (~2.5 min) and turns it on in build/ (-DNE_ALE=ON)", id);
#endif
  // pixel families (MinAtar/*, ALE/*): sticky actions and difficulty ramp; others ignore them
  if (rc == 0 && (rc = ne_env_set_pixel_options(*out, ne_config_float(cfg, "env", "sticky_prob"),
                                                ne_config_bool(cfg, "env", "difficulty_ramping"), errstr)) != 0) {
    ne_env_spec_destroy(*out);
    *out = NULL;
  }
  return rc;
}

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
                         env->discrete ? "argmax" : "tanh or clip");
  int out_dim = env->discrete ? env->n_actions : env->act_dim;
  // conv policies over image observations (src/policy/conv_config.c): policy.type = conv or a preset
  if (ne__config_wants_conv(cfg)) return ne__conv_policy_from_config(cfg, env, out_dim, head, init, out, errstr);
  return ne_policy_spec_init(out, env->obs_dim, hidden, n_hidden, out_dim, act, head, init,
                             env->discrete ? NULL : env->act_low, env->discrete ? NULL : env->act_high, errstr);
}

int ne_genome_header_from_config(const ne_config* cfg, ne_genome_header* header) {
  memset(header, 0, sizeof *header);
  const ne_config_key* schema = ne_config_schema();
  int n = ne_config_schema_count();
  char key[NE_GENOME_KEY_LEN], value[NE_GENOME_VAL_LEN];
  for (int i = 0; i < n; i++) {
    const ne_config_key* k = &schema[i];
    if (strcmp(k->section, "env") != 0 && strcmp(k->section, "policy") != 0) continue;
    snprintf(key, sizeof key, "%s.%s", k->section, k->key);
    // render the value in its config text form
    switch (k->type) {
      case NE_CFG_INT: snprintf(value, sizeof value, "%lld", (long long)ne_config_int(cfg, k->section, k->key)); break;
      case NE_CFG_FLOAT: snprintf(value, sizeof value, "%.17g", ne_config_float(cfg, k->section, k->key)); break;
      case NE_CFG_BOOL: snprintf(value, sizeof value, "%s", ne_config_bool(cfg, k->section, k->key) ? "true" : "false"); break;
      case NE_CFG_INTLIST: {
        int items[64];
        int m = ne_config_intlist(cfg, k->section, k->key, items, 64);
        size_t used = 0;
        value[0] = '\0';
        for (int j = 0; j < m && j < 64; j++)
          used += (size_t)snprintf(value + used, sizeof value - used, "%s%d", j ? "," : "", items[j]);
        break;
      }
      default: snprintf(value, sizeof value, "%s", ne_config_str(cfg, k->section, k->key)); break;
    }
    int rc = ne_genome_header_set(header, key, value);
    if (rc) return rc;
  }
  return 0;
}

int ne_config_apply_genome_header(ne_config* cfg, const ne_genome_header* header, const char* origin, char* errstr) {
  char assignment[NE_GENOME_KEY_LEN + NE_GENOME_VAL_LEN + 2];
  for (int i = 0; i < header->n; i++) {
    snprintf(assignment, sizeof assignment, "%s=%s", header->key[i], header->value[i]);
    int rc = ne_config_override(cfg, assignment, origin, errstr);
    if (rc) return rc;
  }
  return 0;
}
