// SPDX-License-Identifier: MIT
// `neuroevo report RUN_DIR [--out FILE] [--episodes N] [--seed S] [--threads N]`: writes the run's
// self-contained HTML report (report.h) and prints its path. Evaluation episodes default to the
// run's run.eval_episodes; --episodes 0 leaves the evaluation out.
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/error.h"
#include "neuroevo/report.h"

static const char USAGE[] =
    "usage: neuroevo report RUN_DIR [--out FILE] [--episodes N] [--seed S] [--threads N]\n"
    "\n"
    "Writes one self-contained HTML file (default RUN_DIR/report.html; opens without network) with\n"
    "the config, the training curves, a final evaluation of the best agent (mean ± std over N\n"
    "episodes, default the run's run.eval_episodes; 0 = no evaluation; seeds from S as in\n"
    "`neuroevo eval`), the best genome, RUN_DIR/agent.gif if `neuroevo render` made one, and the\n"
    "machine and throughput figures.\n";

typedef struct report_args {
  const char* run_dir;
  ne_report_options opt;
} report_args;

// Parses one option at argv[*i] (with its value); returns 0 or the exit code.
static int parse_option(int argc, char** argv, int* i, report_args* a) {
  const char* o = argv[*i];
  int out = strcmp(o, "--out") == 0, episodes = strcmp(o, "--episodes") == 0, seed = strcmp(o, "--seed") == 0,
      threads = strcmp(o, "--threads") == 0;
  if (!out && !episodes && !seed && !threads) {
    fprintf(stderr, "neuroevo report: unknown option %s (see neuroevo report --help)\n", o);
    return 2;
  }
  if (*i + 1 >= argc) {
    fprintf(stderr, "neuroevo report: %s needs a value (see neuroevo report --help)\n", o);
    return 2;
  }
  const char* value = argv[++*i];
  if (out) {
    a->opt.out = value;
    return 0;
  }
  // the numeric options: range check first, then store
  long long v, hi = episodes ? 100000000 : seed ? 9000000000000000000LL : 1024;
  int rc = ne_cli_parse_int("report", o, value, threads ? 1 : 0, hi, &v);
  if (rc) return rc;
  if (episodes) a->opt.episodes = v ? (int)v : -1;  // 0 on the command line: no evaluation
  if (seed) a->opt.seed = (uint64_t)v;
  if (threads) a->opt.threads = (int)v;
  return 0;
}

static int parse_args(int argc, char** argv, report_args* a) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') {
      int rc = parse_option(argc, argv, &i, a);
      if (rc) return rc;
    } else if (!a->run_dir) {
      a->run_dir = argv[i];
    } else {
      fprintf(stderr, "neuroevo report: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!a->run_dir) {
    fputs(USAGE, stderr);
    return 2;
  }
  return 0;
}

int ne_cmd_report(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  report_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  char err[NE_ERRSTR_LEN], path[4096];
  rc = ne_report_write(a.run_dir, &a.opt, path, sizeof path, err);
  if (rc) {
    fprintf(stderr, "neuroevo report: %s\n", err);
    return rc == NE_ENOTFOUND || rc == NE_EPARSE || rc == NE_EINVAL ? 2 : 1;
  }
  printf("report:        %s\n", path);
  return 0;
}
