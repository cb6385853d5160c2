// SPDX-License-Identifier: MIT
// Behaviour characterizations (env.h's ne_env_set_behaviour / ne_env_behaviour): the few floats
// novelty search compares between episodes. Families with a meaningful one of their own write it
// through hooks->behaviour (the hard maze and MuJoCo locomotion: the final x-y position, as in
// Lehman & Stanley 2011 and Conti et al. 2018; Atari: the final 128 bytes of RAM); every other env
// offers its final observation, or the components of it that env.behaviour names. Called once per
// episode, never per step; allocates nothing.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/env.h"
#include "neuroevo/error.h"

// "I,J,..." into spec->bc_select; NE_EINVAL naming the first bad item
static int parse_select(ne_env_spec* spec, const char* list, const char* text, char* errstr) {
  int n = 0;
  const char* p = list;
  for (;;) {
    char* end = NULL;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < 0 || v >= spec->obs_dim)
      return ne__set_error(errstr, NE_EINVAL,
                           "env.behaviour = '%.80s': expected observation components in 0..%d after 'obs:' "
                           "(%s observes %d floats), e.g. obs:0,1",
                           text, spec->obs_dim - 1, spec->id, spec->obs_dim);
    if (n == NE_ENV_MAX_BC_SELECT)
      return ne__set_error(errstr, NE_EINVAL, "env.behaviour = '%.80s': at most %d components", text,
                           NE_ENV_MAX_BC_SELECT);
    spec->bc_select[n++] = (int)v;
    if (*end == '\0') break;
    if (*end != ',')
      return ne__set_error(errstr, NE_EINVAL, "env.behaviour = '%.80s': expected ',' between components, got '%c'",
                           text, *end);
    p = end + 1;
  }
  spec->bc_n_select = n;
  spec->bc_dim = n;
  spec->bc_native = 0;
  return 0;
}

int ne_env_set_behaviour(ne_env_spec* spec, const char* text, char* errstr) {
  if (!spec || !text) return ne__set_error(errstr, NE_EINVAL, "ne_env_set_behaviour: NULL argument");
  if (strcmp(text, "auto") == 0) return 0;
  if (spec->obs_dim <= 0 || spec->evaluate)
    return ne__set_error(errstr, NE_EINVAL, "env.behaviour = %s: %s has no observations to characterize", text,
                         spec->id);
  if (strcmp(text, "obs") == 0) {
    if (spec->obs_dim > NE_ENV_MAX_BC)
      return ne__set_error(errstr, NE_EINVAL,
                           "env.behaviour = obs: %s observes %d floats, more than the %d a behaviour may hold "
                           "(name components: obs:I,J,...)",
                           spec->id, spec->obs_dim, NE_ENV_MAX_BC);
    spec->bc_native = 0;
    spec->bc_n_select = 0;
    spec->bc_dim = spec->obs_dim;
    return 0;
  }
  if (strncmp(text, "obs:", 4) == 0) return parse_select(spec, text + 4, text, errstr);
  return ne__set_error(errstr, NE_EINVAL,
                       "env.behaviour = '%.80s': expected auto, obs or obs:I,J,... (observation components)", text);
}

int ne_env_behaviour(const ne_env_spec* spec, const ne_env_state* state, float* out) {
  if (!spec || !state || !out || state->spec != spec) return NE_EINVAL;
  if (spec->bc_dim <= 0) return NE_EUNSUPPORTED;
  // the family's own characterization
  if (spec->bc_native) {
    spec->hooks->behaviour(spec, state->impl, out);
    return 0;
  }
  // the final observation, whole or the named components
  if (spec->bc_n_select == 0) {
    memcpy(out, state->obs, (size_t)spec->bc_dim * sizeof *out);
    return 0;
  }
  for (int i = 0; i < spec->bc_n_select; i++) out[i] = state->obs[spec->bc_select[i]];
  return 0;
}
