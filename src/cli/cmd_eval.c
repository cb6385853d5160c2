// SPDX-License-Identifier: MIT
// `neuroevo eval RUN_DIR | --genome FILE [--episodes N] [--seed S] [--threads N]`: rebuilds the
// policy from a self-contained genome file (env, policy spec, sigma, seed chain) and reports the
// mean ± std return over N episodes. Episode seeds derive from S, so the figure is reproducible.
#include <stdio.h>
#include <string.h>
#include <unistd.h>  // access: best.genome or best.params

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/agent.h"  // loading and evaluating the agent file: shared with the run report
#include "neuroevo/error.h"

static const char USAGE[] =
    "usage: neuroevo eval RUN_DIR | --genome FILE [--episodes N] [--seed S] [--threads N]\n"
    "\n"
    "Evaluates a genome (RUN_DIR/best.genome, or FILE) over N episodes (default 100) with episode\n"
    "seeds derived from S (default 0) and prints mean ± std, min and max return. The genome file\n"
    "names its env and policy, so nothing else is needed to reproduce the agent. Runs of the ES\n"
    "family leave RUN_DIR/best.params (explicit parameters plus observation normalization)\n"
    "instead; eval falls back to it, and --genome accepts such a file too.\n";

typedef struct eval_args {
  const char* genome_path;
  long long episodes, seed, threads;
} eval_args;

static int parse_args(int argc, char** argv, eval_args* a, char* path, size_t size) {
  a->genome_path = NULL;
  a->episodes = 100;
  a->seed = 0;
  a->threads = 0;
  const char* run_dir = NULL;
  for (int i = 1; i < argc; i++) {
    const char* o = argv[i];
    int has_value = i + 1 < argc;
    int rc = 0;
    if (o[0] != '-') {
      if (run_dir || a->genome_path) {
        fprintf(stderr, "neuroevo eval: unexpected argument '%s'\n", o);
        return 2;
      }
      run_dir = o;
      continue;
    }
    if (!has_value) {
      fprintf(stderr, "neuroevo eval: %s needs a value (see neuroevo eval --help)\n", o);
      return 2;
    }
    if (strcmp(o, "--genome") == 0) a->genome_path = argv[++i];
    else if (strcmp(o, "--episodes") == 0) rc = ne_cli_parse_int("eval", o, argv[++i], 1, 100000000, &a->episodes);
    else if (strcmp(o, "--seed") == 0) rc = ne_cli_parse_int("eval", o, argv[++i], 0, 9000000000000000000LL, &a->seed);
    else if (strcmp(o, "--threads") == 0) rc = ne_cli_parse_int("eval", o, argv[++i], 1, 1024, &a->threads);
    else {
      fprintf(stderr, "neuroevo eval: unknown option %s (see neuroevo eval --help)\n", o);
      return 2;
    }
    if (rc) return rc;
  }
  if (!run_dir == !a->genome_path) {
    fputs(USAGE, stderr);
    return 2;
  }
  if (run_dir) snprintf(path, size, "%s/best.genome", run_dir);
  else snprintf(path, size, "%s", a->genome_path);
  // vector solutions: RUN_DIR/best.params when there is no best.genome
  if (run_dir && access(path, F_OK) != 0) {
    char params[4096];
    snprintf(params, sizeof params, "%s/best.params", run_dir);
    if (access(params, F_OK) == 0) snprintf(path, size, "%s", params);
  }
  return 0;
}

// Evaluates the genome (or params) file through the library (agent.h: the same code the run report
// uses) and prints the one-line summary.
static int evaluate(const char* path, const eval_args* a) {
  char err[NE_ERRSTR_LEN], line[256];
  ne_agent_eval e;
  int rc = ne_agent_evaluate(path, (int)a->episodes, (uint64_t)a->seed, (int)a->threads, &e, NULL, err);
  if (rc) {
    fprintf(stderr, "neuroevo eval: %s\n", err);
    return rc == NE_ENOMEM ? 1 : 2;
  }
  ne_agent_eval_line(&e, line, sizeof line);
  puts(line);
  return 0;
}

int ne_cmd_eval(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  eval_args a;
  char path[4096];
  int rc = parse_args(argc, argv, &a, path, sizeof path);
  return rc ? rc : evaluate(path, &a);
}
