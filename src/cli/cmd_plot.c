// SPDX-License-Identifier: MIT
// `neuroevo plot RUN_DIR... [--out FILE.png] [--x env_steps|evaluations|wall_s]`: draws the
// training curves of finished or running runs (ne_plot_runs) and prints the PNG's path. Argument
// checking and exit codes only; the drawing lives in src/run/plot.c.
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/plot.h"

static const char USAGE[] =
    "usage: neuroevo plot RUN_DIR... [--out FILE.png] [--x env_steps|evaluations|wall_s]\n"
    "\n"
    "Draws the training curves in RUN_DIR/metrics.csv into a PNG (needs gnuplot: apt-get install\n"
    "gnuplot-nox). One run: the best, mean and elite (re-evaluated) return per generation. Several\n"
    "runs: one colour per run; elite solid, best dashed, mean dotted. Works on runs still training.\n"
    "\n"
    "options:\n"
    "  --out FILE.png  output file (default: RUN_DIR/curve.png for one run, ./curves.png for several)\n"
    "  --x COLUMN      x axis: env_steps (default), evaluations or wall_s\n"
    "  -h, --help      show this help\n";

// Parsed command line.
typedef struct plot_args {
  const char** dirs;  // (n_dirs) run directories, pointing into argv
  int n_dirs;         // number of run directories
  const char* out;    // --out, or NULL for the default
  const char* x;      // --x column
} plot_args;

// the value of --name VALUE or --name=VALUE at argv[*i], advancing *i; NULL if arg is not that option
static const char* option_value(int argc, char** argv, int* i, const char* name, int* missing) {
  size_t len = strlen(name);
  const char* arg = argv[*i];
  if (strncmp(arg, name, len) != 0) return NULL;
  if (arg[len] == '=') return arg + len + 1;
  if (arg[len] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

// fills a from argv; returns 0 or the exit code 2 after printing why
static int parse_args(int argc, char** argv, plot_args* a) {
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char* v;
    if ((v = option_value(argc, argv, &i, "--out", &missing))) a->out = v;
    else if ((v = option_value(argc, argv, &i, "--x", &missing))) a->x = v;
    else if (missing) {
      fprintf(stderr, "neuroevo plot: %s needs a value\n", argv[i]);
      return 2;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "neuroevo plot: unknown option '%s' (see neuroevo plot --help)\n", argv[i]);
      return 2;
    } else {
      a->dirs[a->n_dirs++] = argv[i];
    }
  }
  if (a->n_dirs == 0) {
    fprintf(stderr, "neuroevo plot: no run directory given\n\n%s", USAGE);
    return 2;
  }
  if (strcmp(a->x, "env_steps") != 0 && strcmp(a->x, "evaluations") != 0 && strcmp(a->x, "wall_s") != 0) {
    fprintf(stderr, "neuroevo plot: --x %s: expected env_steps, evaluations or wall_s\n", a->x);
    return 2;
  }
  return 0;
}

// every RUN_DIR must be an existing directory; returns 0 or 2 after naming the bad one
static int check_dirs(const plot_args* a) {
  for (int i = 0; i < a->n_dirs; i++) {
    struct stat st;
    if (stat(a->dirs[i], &st) != 0) {
      fprintf(stderr, "neuroevo plot: %s: no such run directory\n", a->dirs[i]);
      return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
      fprintf(stderr, "neuroevo plot: %s: not a directory (expected a run directory with metrics.csv)\n", a->dirs[i]);
      return 2;
    }
  }
  return 0;
}

// input problems (missing or empty metrics) are exit 2; gnuplot or I/O failures exit 1
static int exit_code(int rc) { return rc == NE_ENOTFOUND || rc == NE_EPARSE || rc == NE_EINVAL ? 2 : 1; }

int ne_cmd_plot(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  plot_args a = {.dirs = ne_malloc(sizeof(char*) * (size_t)(argc > 0 ? argc : 1)), .x = "env_steps"};
  if (!a.dirs) {
    fprintf(stderr, "neuroevo plot: out of memory\n");
    return 1;
  }
  int code = parse_args(argc, argv, &a);
  if (code == 0) code = check_dirs(&a);
  if (code == 0) {
    // default output: inside the run for one run, the working directory for a comparison
    char out[4096];
    if (a.out) snprintf(out, sizeof out, "%s", a.out);
    else if (a.n_dirs == 1) snprintf(out, sizeof out, "%s/curve.png", a.dirs[0]);
    else snprintf(out, sizeof out, "curves.png");
    char err[NE_ERRSTR_LEN];
    int rc = ne_plot_runs(a.dirs, a.n_dirs, out, a.x, err);
    if (rc == 0) printf("%s\n", out);
    else fprintf(stderr, "neuroevo plot: %s\n", err);
    code = rc == 0 ? 0 : exit_code(rc);
  }
  ne_free(a.dirs);
  return code;
}
