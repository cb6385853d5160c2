// SPDX-License-Identifier: MIT
// The subcommands of the `neuroevo` tool, one file each (cmd_<name>.c). Each takes the arguments
// after its name (argv[0] is the subcommand) and returns the process exit code: 0 success,
// 1 runtime failure, 2 bad usage or bad input, 130 interrupted.
#ifndef NEUROEVO_CLI_COMMANDS_H
#define NEUROEVO_CLI_COMMANDS_H

int ne_cmd_run(int argc, char** argv);
int ne_cmd_resume(int argc, char** argv);
int ne_cmd_eval(int argc, char** argv);
int ne_cmd_plot(int argc, char** argv);
int ne_cmd_envs(int argc, char** argv);
int ne_cmd_config(int argc, char** argv);  // cmd_config.c: the config keys' reference
int ne_cmd_trace(int argc, char** argv);
int ne_cmd_rollouts(int argc, char** argv);  // cmd_rollouts.c: episodes of a fixed policy as CSV
int ne_cmd_render(int argc, char** argv);    // cmd_render.c: a GIF of an agent
int ne_cmd_compare(int argc, char** argv);   // cmd_compare.c: several configs x seeds, summarized
int ne_cmd_runs(int argc, char** argv);      // cmd_runs.c: list runs from their records
int ne_cmd_tag(int argc, char** argv);       // cmd_runs.c: tag a run, note on it
int ne_cmd_track(int argc, char** argv);     // cmd_runs.c: send runs to an MLflow server
// distributed runs over Redis
int ne_cmd_worker(int argc, char** argv);
int ne_cmd_status(int argc, char** argv);
int ne_cmd_cluster(int argc, char** argv);
int ne_cmd_relay(int argc, char** argv);  // cmd_relay.c: a per-node relay
// watching runs: live dashboard (cmd_dashboard.c) and HTML run report (cmd_report.c)
int ne_cmd_dashboard(int argc, char** argv);
int ne_cmd_report(int argc, char** argv);

// 1 if argv holds -h or --help.
int ne_cli_wants_help(int argc, char** argv);

#endif
