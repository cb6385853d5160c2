// SPDX-License-Identifier: MIT
// [policy] keys of conv policies into a spec (policy_int.h): a preset, or policy.conv with
// policy.hidden and policy.activation. Kept beside policy_config.c so the MLP path there stays as
// it was.
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/conv.h"
#include "neuroevo/error.h"
#include "policy/policy_int.h"

int ne__config_wants_conv(const ne_config* cfg) {
  return strcmp(ne_config_str(cfg, "policy", "type"), "conv") == 0 ||
      strcmp(ne_config_str(cfg, "policy", "preset"), "none") != 0;
}

int ne__conv_policy_from_config(const ne_config* cfg, const ne_env_spec* env, int out_dim, ne_head head, ne_init init,
                                ne_policy_spec* out, char* errstr) {
  if (env->obs_rank != 3)
    return ne__set_error(errstr, NE_EINVAL,
                         "policy.type = conv needs an image observation (H, W, C), but %s observes a flat vector of "
                         "%d (use policy.type = mlp)",
                         env->id, env->obs_dim);
  // the layers: from the preset, or from policy.conv / hidden / activation
  const char* preset_name = ne_config_str(cfg, "policy", "preset");
  const ne_conv_preset* preset = ne_conv_preset_find(preset_name);
  ne_conv_layer conv[NE_POLICY_MAX_CONV];
  int hidden[NE_POLICY_MAX_LAYERS], n_hidden;
  ne_activation act = NE_ACT_RELU;
  const char* text = preset ? preset->conv : ne_config_str(cfg, "policy", "conv");
  if (!preset && strcmp(preset_name, "none") != 0)
    return ne__set_error(errstr, NE_EINVAL, "policy.preset = %s is not none, nature or minatar", preset_name);
  if (!preset && text[0] == '\0')
    return ne__set_error(errstr, NE_EINVAL,
                         "policy.type = conv needs policy.conv (e.g. 32x8x8/4,64x4x4/2,64x3x3/1) or a policy.preset");
  int n_conv = ne_conv_parse(text, conv, NE_POLICY_MAX_CONV, errstr);
  if (n_conv < 0) return n_conv;
  if (preset) {
    n_hidden = preset->n_hidden;
    memcpy(hidden, preset->hidden, sizeof preset->hidden);
  } else {
    n_hidden = ne_config_intlist(cfg, "policy", "hidden", hidden, NE_POLICY_MAX_LAYERS);
    if (n_hidden > NE_POLICY_MAX_LAYERS - 1)
      return ne__set_error(errstr, NE_ERANGE, "policy.hidden: at most %d hidden layers", NE_POLICY_MAX_LAYERS - 1);
    ne_activation_parse(ne_config_str(cfg, "policy", "activation"), &act);
  }
  return ne_policy_spec_init_conv(out, env->obs_shape, conv, n_conv, hidden, n_hidden, out_dim, act, head, init,
                                  env->discrete ? NULL : env->act_low, env->discrete ? NULL : env->act_high, errstr);
}
