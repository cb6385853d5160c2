// SPDX-License-Identifier: MIT
// The env spec that a config's [env] section describes (see env.h's ne_env_from_config): the id,
// the TimeLimit override, the black-box dimension and shift, the pixel families' options, the
// behaviour characterization novelty search compares (env.behaviour) and a task family's fixed task.
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/env.h"
#include "neuroevo/error.h"

// env.task: "" draws a task per episode; otherwise the values every episode pursues
static int apply_task(const ne_config* cfg, ne_env_spec* spec, char* errstr) {
  const char* text = ne_config_str(cfg, "env", "task");
  if (!text[0]) return 0;
  double task[NE_ENV_MAX_TASK];
  char why[NE_ERRSTR_LEN];
  int rc = ne_env_parse_task(spec, text, task, why);
  if (!rc) rc = ne_env_fix_task(spec, task, spec->task_dim, why);
  if (rc) return ne__set_error(errstr, rc, "env.task = %s: %s", text, why);
  return 0;
}

int ne_env_from_config(const ne_config* cfg, ne_env_spec** out, char* errstr) {
  ne_env_options opt = {0};
  opt.max_episode_steps = (int)ne_config_int(cfg, "env", "max_episode_steps");
  opt.dim = (int)ne_config_int(cfg, "env", "dim");                     // bbob/* only
  opt.shift_seed = (uint64_t)ne_config_int(cfg, "env", "shift_seed");  // bbob/* only
  const char* id = ne_config_str(cfg, "env", "id");
  int rc = ne_env_make(id, &opt, out, errstr);
#ifndef NE_HAVE_ALE
  // Atari ids exist only in builds with ALE (cmake/ale.cmake): say how to get it
  if (rc == NE_ENOTFOUND && strncmp(id, "ALE/", 4) == 0)
    return ne__set_error(errstr, rc,
                         "%s: this build has no Atari family: run `make ale` (or `make test`), "
                         "which builds ALE once (~2.5 min) and turns it on in build/ (-DNE_ALE=ON)",
                         id);
#endif
  // pixel families (MinAtar/*, ALE/*): sticky actions and difficulty ramp; others ignore them
  if (rc == 0)
    rc = ne_env_set_pixel_options(*out, ne_config_float(cfg, "env", "sticky_prob"),
                                  ne_config_bool(cfg, "env", "difficulty_ramping"), errstr);
  // task families: env.task makes the fixed-task variant
  if (rc == 0) rc = apply_task(cfg, *out, errstr);
  if (rc != 0 && *out) {
    ne_env_spec_destroy(*out);
    *out = NULL;
  }
  // what novelty search compares between episodes (env.behaviour)
  if (rc == 0 && (rc = ne_env_set_behaviour(*out, ne_config_str(cfg, "env", "behaviour"), errstr)) != 0) {
    ne_env_spec_destroy(*out);
    *out = NULL;
  }
  return rc;
}
