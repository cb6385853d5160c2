// SPDX-License-Identifier: MIT
// `neuroevo eval RUN_DIR | --genome FILE [--episodes N] [--seed S] [--threads N]`: rebuilds the
// policy from a self-contained genome file (env, policy spec, sigma, seed chain) and reports the
// mean ± std return over N episodes. Episode seeds derive from S, so the figure is reproducible.
// With --adapt K (task families): the returns before and after each of K inner-loop steps per task.
#include <math.h>  // sqrt
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>  // stat: a run directory or an agent file
#include <unistd.h>    // access: best.genome or best.params

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/agent.h"  // loading and evaluating the agent file: shared with the run report
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

static const char USAGE[] =
    "usage: neuroevo eval RUN_DIR | --genome FILE [--episodes N] [--seed S] [--threads N]\n"
    "       neuroevo eval RUN_DIR | --genome FILE --adapt K [--tasks N | --task V1,V2,...] [--seed S]\n"
    "                     [--threads N]\n"
    "\n"
    "Evaluates a genome (RUN_DIR/best.genome, or FILE) over N episodes (default 100) with episode\n"
    "seeds derived from S (default 0) and prints mean ± std, min and max return. The genome file\n"
    "names its env and policy, so nothing else is needed to reproduce the agent. Runs of the ES\n"
    "family leave RUN_DIR/best.params (explicit parameters plus observation normalization)\n"
    "instead; eval falls back to it, and --genome accepts such a file too (as does RUN_DIR: a file\n"
    "there is taken as the agent file).\n"
    "\n"
    "Task families (meta-learning, `neuroevo envs tasks`): --adapt K runs the agent's inner loop (its\n"
    "file's [meta] keys: meta.update, inner_episodes, inner_lr, ...) for K steps on each of N tasks\n"
    "(default 10) drawn from S, or on the task --task gives, and prints every task's return before\n"
    "and after each step, then their means. Also works for agents trained without an inner loop\n"
    "(meta.tasks = 0), whose [meta] keys then say how to adapt them.\n";

typedef struct eval_args {
  const char* genome_path;
  long long episodes, seed, threads;
  long long adapt;   // --adapt K (-1: plain evaluation)
  long long tasks;   // --tasks N
  const char* task;  // --task V1,V2,... (NULL: drawn)
} eval_args;

static int parse_args(int argc, char** argv, eval_args* a, char* path, size_t size) {
  a->genome_path = NULL;
  a->episodes = 100;
  a->seed = 0;
  a->threads = 0;
  a->adapt = -1;
  a->tasks = 10;
  a->task = NULL;
  int episodes_given = 0, tasks_given = 0;
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
    else if (strcmp(o, "--episodes") == 0) {
      rc = ne_cli_parse_int("eval", o, argv[++i], 1, 100000000, &a->episodes);
      episodes_given = 1;
    } else if (strcmp(o, "--adapt") == 0) rc = ne_cli_parse_int("eval", o, argv[++i], 0, NE_META_MAX_STEPS, &a->adapt);
    else if (strcmp(o, "--tasks") == 0) {
      rc = ne_cli_parse_int("eval", o, argv[++i], 1, 1000000, &a->tasks);
      tasks_given = 1;
    } else if (strcmp(o, "--task") == 0) a->task = argv[++i];
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
  // meta-learning options go together
  if (a->adapt < 0 && (tasks_given || a->task)) {
    fprintf(stderr, "neuroevo eval: --tasks and --task go with --adapt K (see neuroevo eval --help)\n");
    return 2;
  }
  if (a->adapt >= 0 && episodes_given) {
    fprintf(stderr,
            "neuroevo eval: --episodes does not go with --adapt (the agent's meta.eval_episodes measure "
            "each stage; --tasks N sets how many tasks)\n");
    return 2;
  }
  if (tasks_given && a->task) {
    fprintf(stderr, "neuroevo eval: --tasks draws tasks, --task fixes one: give one of them\n");
    return 2;
  }
  // a file where RUN_DIR goes (`neuroevo eval runs/x/best.params`) is the agent file itself
  struct stat st;
  if (run_dir && stat(run_dir, &st) == 0 && S_ISREG(st.st_mode)) {
    snprintf(path, size, "%s", run_dir);
    return 0;
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

// ---- --adapt: meta-learning ----------------------------------------------------------------------

// "before -35.20  step 1 -20.10  ..." for one row of k + 1 stage returns
static void print_stages(const double* r, int k) {
  printf("before %9.2f", r[0]);
  for (int s = 1; s <= k; s++) printf("  step %d %9.2f", s, r[s]);
}

// prints every task's row, then the means and standard deviations over the tasks
static void print_adapt(const ne_agent* ag, const ne_meta_spec* m, int n, const double* tasks, const double* ret,
                        uint64_t steps) {
  const ne_env_spec* env = ne_agent_env(ag);
  int k = m->inner_steps;
  printf("%s: %s inner loop, %d step%s of %d episode%s; each stage measured on %d episode%s\n", env->id,
         ne_meta_update_name(m->update), k, k == 1 ? "" : "s", m->inner_episodes, m->inner_episodes == 1 ? "" : "s",
         m->eval_episodes, m->eval_episodes == 1 ? "" : "s");
  for (int i = 0; i < n; i++) {
    char task[160];
    ne_env_format_task(env, tasks + (size_t)i * (size_t)env->task_dim, task, sizeof task);
    printf("task %3d (%s): ", i + 1, task);
    print_stages(ret + (size_t)i * (size_t)(k + 1), k);
    printf("\n");
  }
  printf("mean over %d task%s: ", n, n == 1 ? "" : "s");
  double mean[NE_META_MAX_STEPS + 1];
  for (int s = 0; s <= k; s++) {
    double sum = 0, var = 0;
    for (int i = 0; i < n; i++) sum += ret[(size_t)i * (size_t)(k + 1) + (size_t)s];
    mean[s] = sum / n;
    for (int i = 0; i < n; i++) {
      double d = ret[(size_t)i * (size_t)(k + 1) + (size_t)s] - mean[s];
      var += d * d / n;
    }
    if (s) printf("  step %d %.2f ± %.2f", s, mean[s], sqrt(var));
    else printf("before %.2f ± %.2f", mean[s], sqrt(var));
  }
  printf("  (%llu env steps)\n", (unsigned long long)steps);
}

// Adapts the agent to the tasks the arguments ask for and prints the table.
static int adapt(const char* path, const eval_args* a) {
  char err[NE_ERRSTR_LEN];
  ne_agent* ag = NULL;
  int rc = ne_agent_load(path, &ag, err);
  ne_meta_spec meta;
  double fixed[NE_ENV_MAX_TASK];
  if (!rc) rc = ne_agent_meta(ag, (int)a->adapt, &meta, err);
  if (!rc && a->task) rc = ne_env_parse_task(ne_agent_env(ag), a->task, fixed, err);
  int n = a->task ? 1 : (int)a->tasks, k = (int)a->adapt;
  double* tasks = rc ? NULL : ne_calloc((size_t)n * NE_ENV_MAX_TASK, sizeof(double));
  double* ret = rc ? NULL : ne_calloc((size_t)n * (size_t)(k + 1), sizeof(double));
  uint64_t steps = 0;
  if (!rc && (!tasks || !ret)) rc = NE_ENOMEM;
  if (!rc)
    rc = ne_agent_adapt(ag, k, n, a->task ? fixed : NULL, (uint64_t)a->seed, (int)a->threads, tasks, ret, &steps, err);
  if (!rc) print_adapt(ag, &meta, n, tasks, ret, steps);
  else fprintf(stderr, "neuroevo eval: %s\n", rc == NE_ENOMEM && !err[0] ? "out of memory" : err);
  ne_free(tasks);
  ne_free(ret);
  ne_agent_destroy(ag);
  return rc == 0 ? 0 : rc == NE_ENOMEM ? 1 : 2;
}

int ne_cmd_eval(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  eval_args a;
  char path[4096];
  int rc = parse_args(argc, argv, &a, path, sizeof path);
  if (rc) return rc;
  return a.adapt >= 0 ? adapt(path, &a) : evaluate(path, &a);
}
