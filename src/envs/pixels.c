// SPDX-License-Identifier: MIT
// The options the pixel families share (env.h's ne_env_set_pixel_options): sticky actions and
// MinAtar's difficulty ramp, routed to whichever family the spec belongs to. Applied right after
// ne_env_make, while the spec is still being set up; every other family ignores them.
#include "core/util.h"  // ne__set_error
#include "envs/minatar/minatar_int.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#ifdef NE_HAVE_ALE
#include "envs/ale/ale_int.h"  // ne__ale_set_options
#endif

int ne_env_set_pixel_options(ne_env_spec* spec, double sticky_prob, int ramping, char* errstr) {
  if (!spec) return ne__set_error(errstr, NE_EINVAL, "no env spec");
  if (!(sticky_prob <= 1))  // NaN included
    return ne__set_error(errstr, NE_EINVAL, "%s: sticky action probability %g is not in [0, 1] (or < 0 for off)",
                         spec->id, sticky_prob);
  if (ne__mt_game_of(spec) >= 0) ne__mt_set_options(spec, sticky_prob, ramping);
#ifdef NE_HAVE_ALE
  ne__ale_set_options(spec, sticky_prob);  // a no-op for non-ALE specs
#endif
  return 0;
}
