// SPDX-License-Identifier: MIT
// Task families (see env.h): the task of each episode, parsing and printing task vectors, the
// fixed-task variant of a spec and the per-state override the meta-learning inner loop uses. A
// family supplies only its distribution (hooks->sample_task) and how a task enters its dynamics or
// reward (hooks->set_task); which task an episode pursues is decided here, once for every family.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/envs_int.h"
#include "neuroevo/error.h"

// salt of the stream a reset seed's task is drawn from: independent of the start-state stream
#define TASK_STREAM_SALT 0x7461736b5f736565ull  // "task_see"

static int is_task_family(const ne_env_spec* spec) {
  return spec && spec->task_dim > 0 && spec->hooks && spec->hooks->sample_task && spec->hooks->set_task;
}

int ne_env_sample_task(const ne_env_spec* spec, uint64_t seed, double* task) {
  if (!is_task_family(spec)) return NE_EUNSUPPORTED;
  ne_rng rng;
  ne_rng_seed(&rng, ne_hash2(seed, TASK_STREAM_SALT));
  spec->hooks->sample_task(spec, &rng, task);
  return 0;
}

void ne__env_begin_task(const ne_env_spec* spec, ne_env_state* state, uint64_t seed) {
  if (!is_task_family(spec)) return;
  size_t bytes = (size_t)spec->task_dim * sizeof(double);
  // the state's own task (inner loop), else the spec's (env.task), else the mixture's draw
  if (state->task_set) memcpy(state->task, state->task_own, bytes);
  else if (spec->task_fixed) memcpy(state->task, spec->task, bytes);
  else ne_env_sample_task(spec, seed, state->task);
  spec->hooks->set_task(spec, state->impl, state->task);
}

// NE_EUNSUPPORTED unless spec is a task family; NE_EINVAL unless task holds task_dim finite values
static int check_task(const ne_env_spec* spec, const double* task, int n, char* errstr) {
  if (!is_task_family(spec))
    return ne__set_error(errstr, NE_EUNSUPPORTED,
                         "%s is not a task family (`neuroevo envs` lists those with their tasks)",
                         spec ? spec->id : "(null)");
  if (!task || n != spec->task_dim)
    return ne__set_error(errstr, NE_EINVAL, "%s: a task has %d value%s (%s), got %d", spec->id, spec->task_dim,
                         spec->task_dim == 1 ? "" : "s", spec->task_names, task ? n : 0);
  for (int i = 0; i < n; i++)
    if (!isfinite(task[i])) return ne__set_error(errstr, NE_EINVAL, "%s: task value %d is not finite", spec->id, i);
  return 0;
}

int ne_env_parse_task(const ne_env_spec* spec, const char* text, double* task, char* errstr) {
  if (!is_task_family(spec)) return check_task(spec, NULL, 0, errstr);
  int n = 0;
  const char* p = text ? text : "";
  // comma-separated numbers, each fully consumed (spaces around them allowed)
  for (;;) {
    char* end = NULL;
    double v = strtod(p, &end);
    if (end == p || n >= spec->task_dim) break;
    task[n++] = v;
    while (*end == ' ') end++;
    if (*end == '\0') {
      if (n == spec->task_dim) return check_task(spec, task, n, errstr);
      break;
    }
    if (*end != ',') break;
    p = end + 1;
  }
  return ne__set_error(errstr, NE_EINVAL, "%s: task '%s': expected %d comma-separated number%s (%s; %s)", spec->id,
                       text ? text : "", spec->task_dim, spec->task_dim == 1 ? "" : "s", spec->task_names,
                       spec->task_desc);
}

void ne_env_format_task(const ne_env_spec* spec, const double* task, char* buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  const char* names = spec->task_names ? spec->task_names : "";
  // walk the comma-separated names beside the values
  for (int i = 0; i < spec->task_dim && used < size; i++) {
    const char* comma = strchr(names, ',');
    int len = comma ? (int)(comma - names) : (int)strlen(names);
    used += (size_t)snprintf(buf + used, size - used, "%s%.*s=%.4g", i ? ", " : "", len, names, task[i]);
    names = comma ? comma + 1 : names + len;
  }
}

int ne_env_fix_task(ne_env_spec* spec, const double* task, int n, char* errstr) {
  int rc = check_task(spec, task, n, errstr);
  if (rc) return rc;
  memcpy(spec->task, task, (size_t)n * sizeof(double));
  spec->task_fixed = 1;
  return 0;
}

int ne_env_set_task(const ne_env_spec* spec, ne_env_state* state, const double* task, int n, char* errstr) {
  if (!state || state->spec != spec) return ne__set_error(errstr, NE_EINVAL, "state/spec mismatch");
  if (!task && n == 0 && is_task_family(spec)) {
    state->task_set = 0;
    return 0;
  }
  int rc = check_task(spec, task, n, errstr);
  if (rc) return rc;
  memcpy(state->task_own, task, (size_t)n * sizeof(double));
  state->task_set = 1;
  return 0;
}
