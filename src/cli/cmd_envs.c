// SPDX-License-Identifier: MIT
// `neuroevo envs [FILTER]`: the registry as a table (id, observation space, action space, TimeLimit,
// reward threshold) with each env's one-line summary, which carries the observation bounds. Reads
// specs only; never steps an environment.
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"

#define CMD "neuroevo envs"

static void usage(FILE* out) {
  fprintf(out,
          "usage: " CMD
          " [FILTER | tasks]\n\n"
          "Lists the registered environments whose id contains FILTER (all by default): observation\n"
          "space (shape; the bounds are in the summary line below), action space, max episode steps\n"
          "(Gymnasium's TimeLimit) and reward threshold ('-' when Gymnasium defines none). Task families\n"
          "(meta-learning: `neuroevo envs tasks` lists only them) add a line naming the task's values and\n"
          "their distribution; env.task = V1,V2,... fixes the task, [meta] adapts to each drawn task.\n");
}

// a number the way Python prints a float: 2 -> "2.0", 0.5 -> "0.5"
static void fmt_float(double v, char* buf, size_t size) {
  snprintf(buf, size, "%.6g", v);
  if (!strpbrk(buf, ".eni")) strncat(buf, ".0", size - strlen(buf) - 1);
}

// "Box(4,)" or "Box(210, 160, 3)"
static void fmt_obs(const ne_env_spec* spec, char* buf, size_t size) {
  if (spec->obs_rank <= 1) {
    snprintf(buf, size, "Box(%d,)", spec->obs_dim);
    return;
  }
  int len = snprintf(buf, size, "Box(");
  for (int i = 0; i < spec->obs_rank && len < (int)size; i++)
    len += snprintf(buf + len, size - (size_t)len, i ? ", %d" : "%d", spec->obs_shape[i]);
  if (len < (int)size) snprintf(buf + len, size - (size_t)len, ")");
}

// "Discrete(3)" or "Box(-1.0, 1.0, (1,))" (the first component's bounds)
static void fmt_act(const ne_env_spec* spec, char* buf, size_t size) {
  if (spec->discrete) {
    snprintf(buf, size, "Discrete(%d)", spec->n_actions);
    return;
  }
  char lo[32], hi[32];
  fmt_float(spec->act_low[0], lo, sizeof lo);
  fmt_float(spec->act_high[0], hi, sizeof hi);
  snprintf(buf, size, "Box(%s, %s, (%d,))", lo, hi, spec->act_dim);
}

// one table row, then the summary indented below it
static void print_env(const ne_env_spec* spec, const char* summary) {
  char obs[64], act[96], steps[16], thr[32];
  fmt_obs(spec, obs, sizeof obs);
  fmt_act(spec, act, sizeof act);
  if (spec->max_episode_steps > 0) snprintf(steps, sizeof steps, "%d", spec->max_episode_steps);
  else snprintf(steps, sizeof steps, "-");
  if (spec->has_threshold) fmt_float(spec->reward_threshold, thr, sizeof thr);
  else snprintf(thr, sizeof thr, "-");
  printf("%-26s %-16s %-24s %9s %10s\n", spec->id, obs, act, steps, thr);
  printf("  %s\n", summary);
  // task families (meta-learning): what a task is and how tasks are drawn
  if (spec->task_dim > 0) printf("  tasks (%s): %s\n", spec->task_names, spec->task_desc);
}

int ne_cmd_envs(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  // at most one FILTER, and no options other than --help
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    fprintf(stderr, CMD ": unexpected argument '%s' (see " CMD " --help)\n", argv[argc - 1]);
    return 2;
  }
  // each matching id's spec is made (cheap: no state) to read its spaces and limits
  const char* filter = argc == 2 ? argv[1] : "";
  int shown = 0;
  for (int i = 0; i < ne_env_registry_count(); i++) {
    const char* id = ne_env_registry_id(i);
    int tasks_only = strcmp(filter, "tasks") == 0;  // the pseudo-filter `tasks`: task families only
    if (!tasks_only && !strstr(id, filter)) continue;
    char err[NE_ERRSTR_LEN];
    ne_env_spec* spec = NULL;
    if (ne_env_make(id, NULL, &spec, err)) {
      fprintf(stderr, CMD ": %s\n", err);
      return 1;
    }
    if (tasks_only && spec->task_dim == 0) {
      ne_env_spec_destroy(spec);
      continue;
    }
    // the header comes with the first match, so a filter that matches nothing prints nothing
    if (shown == 0) printf("%-26s %-16s %-24s %9s %10s\n", "ID", "OBSERVATION", "ACTION", "MAX_STEPS", "THRESHOLD");
    print_env(spec, ne_env_registry_summary(i));
    ne_env_spec_destroy(spec);
    shown++;
  }
  if (shown == 0) {
    fprintf(stderr, CMD ": no environment id contains '%s'\n", filter);
    return 2;
  }
  return 0;
}
