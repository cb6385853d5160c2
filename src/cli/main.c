// SPDX-License-Identifier: MIT
// Entry point of the `neuroevo` tool: dispatches to one subcommand per file. Only the CLI decides
// exit codes; the library never exits.
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"  // ne_cli_argc, ne_cli_argv
#include "cli/commands.h"
#include "core/sysinfo.h"  // --version: the build
#include "core/util.h"     // ne__nearest
#include "neuroevo/version.h"

typedef struct command {
  const char* name;
  int (*fn)(int argc, char** argv);
  const char* summary;
} command;

static const command commands[] = {
    {"run", ne_cmd_run, "train a policy from a config (named or a path) with key=value overrides"},
    {"resume", ne_cmd_resume, "continue a run from its last checkpoint"},
    {"eval", ne_cmd_eval, "evaluate a run's best genome or a genome file over episodes"},
    {"plot", ne_cmd_plot, "draw training curves of one or more runs into a PNG"},
    {"envs", ne_cmd_envs, "list environments with their spaces and thresholds"},
    {"config", ne_cmd_config, "print the reference of the config keys (every section, or one)"},
    {"trace", ne_cmd_trace, "step an env from a state, a seed or Gymnasium's draws, print CSV (fidelity checks)"},
    {"rollouts", ne_cmd_rollouts, "episodes of a random/noop/scripted policy as CSV (return, length)"},
    {"render", ne_cmd_render, "record a run's best agent (or a genome file) as an animated GIF"},
    {"compare", ne_cmd_compare, "train several configs x seeds; summary table, bootstrap intervals, plot"},
    {"runs", ne_cmd_runs, "list runs (studies included) with status, scores, times; filter, sort, JSON"},
    {"tag", ne_cmd_tag, "add or remove a run's tags, set its note"},
    {"track", ne_cmd_track, "send runs (studies included) to an MLflow tracking server"},
    // distributed runs over Redis (cmd_worker.c, cmd_status.c, cmd_cluster.c, cmd_relay.c)
    {"worker", ne_cmd_worker, "evaluate candidates for the experiment published on a Redis"},
    {"status", ne_cmd_status, "show a Redis cluster: experiment, generation, tasks, live workers"},
    {"cluster", ne_cmd_cluster, "run a config on a local cluster: redis-server + master + K workers"},
    {"relay", ne_cmd_relay, "relay tasks and results between the master's Redis and a node-local Redis"},
    // watching runs (cmd_dashboard.c, cmd_report.c)
    {"dashboard", ne_cmd_dashboard, "serve a live page with the curves, ETA and throughput of runs (+ Redis)"},
    {"report", ne_cmd_report, "write a self-contained HTML report of a run (curves, evaluation, agent)"},
};
static const int n_commands = (int)(sizeof commands / sizeof commands[0]);

static void usage(FILE* out) {
  fprintf(out, "neuroevo %s - distributed neuroevolution (Deep GA, ES, ...)\n\n", NE_VERSION_STRING);
  fprintf(out, "usage: neuroevo COMMAND [ARGS...]   (neuroevo COMMAND --help for details)\n\ncommands:\n");
  for (int i = 0; i < n_commands; i++) fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
}

int ne_cli_wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return 1;
  return 0;
}

int main(int argc, char** argv) {
  ne_cli_argc = argc;  // each run's record (run.json) keeps the command line
  ne_cli_argv = argv;
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    const ne__build_info* b = ne__build();
    printf("neuroevo %s (commit %s, %s, %s)\n", b->version, b->commit, b->compiler, b->type);
    return 0;
  }
  for (int i = 0; i < n_commands; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
  // suggest the nearest command for a typo, with the same rule as config keys and env ids
  const char* names[sizeof commands / sizeof commands[0]];
  for (int i = 0; i < n_commands; i++) names[i] = commands[i].name;
  const char* best = ne__nearest(argv[1], names, n_commands);
  fprintf(stderr, "neuroevo: unknown command '%s'", argv[1]);
  if (best) fprintf(stderr, " (did you mean '%s'?)", best);
  fprintf(stderr, "\n\n");
  usage(stderr);
  return 2;
}
