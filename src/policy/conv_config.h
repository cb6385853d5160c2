// SPDX-License-Identifier: MIT
// The conv half of ne_policy_from_config (src/policy/policy_config.c): [policy] type = conv, conv = ...,
// preset = nature|minatar into a conv policy spec (neuroevo/conv.h). Not public API.
#ifndef NEUROEVO_POLICY_CONV_CONFIG_H
#define NEUROEVO_POLICY_CONV_CONFIG_H

#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/policy.h"

// 1 if cfg asks for a conv policy (policy.type = conv, or a policy.preset other than none).
int ne__config_wants_conv(const ne_config* cfg);

// Fills *out with the conv policy cfg describes for env (whose observation must be an (H, W, C)
// image), with the head, init and output size ne_policy_from_config already resolved. A preset
// fixes conv, hidden and the activation (relu); otherwise policy.conv, policy.hidden and
// policy.activation are used. NE_EINVAL with a message naming the key on bad input.
int ne__conv_policy_from_config(const ne_config* cfg, const ne_env_spec* env, int out_dim, ne_head head,
                                ne_init init, ne_policy_spec* out, char* errstr);

#endif
