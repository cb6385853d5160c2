// SPDX-License-Identifier: MIT
// What the pixel families share (env.h): the options ne_env_set_pixel_options sets (sticky actions
// and MinAtar's difficulty ramp), applied right after ne_env_make while the spec is still being set
// up, and the scripted policies of reference comparisons. Both reach the family through its hooks;
// every other family has none and ignores them.
#include "core/util.h"  // ne__set_error
#include "neuroevo/env.h"
#include "neuroevo/error.h"

int ne_env_set_pixel_options(ne_env_spec* spec, double sticky_prob, int ramping, char* errstr) {
  if (!spec) return ne__set_error(errstr, NE_EINVAL, "no env spec");
  if (!(sticky_prob <= 1))  // NaN included
    return ne__set_error(errstr, NE_EINVAL, "%s: sticky action probability %g is not in [0, 1] (or < 0 for off)",
                         spec->id, sticky_prob);
  if (spec->hooks && spec->hooks->set_pixel_options) spec->hooks->set_pixel_options(spec, sticky_prob, ramping);
  return 0;
}

int ne_env_has_scripted_policy(const ne_env_spec* spec) { return spec->hooks && spec->hooks->scripted_action; }

int ne_env_scripted_action(const ne_env_spec* spec, const ne_env_state* state) {
  if (!ne_env_has_scripted_policy(spec)) return NE_EUNSUPPORTED;
  return spec->hooks->scripted_action(spec, state->obs);
}
