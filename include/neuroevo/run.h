// SPDX-License-Identifier: MIT
// A training run: config -> env + policy + algorithm + executor, the generation loop with budgets,
// progress lines, metrics, checkpoints and the run directory (DESIGN.md §5):
//   config.ini  run.json  metrics.csv  checkpoints/  best.genome  curve.png  log.txt
// run.json is the run's record (runinfo.h): written when a session starts and when it ends.
// A run is a pure function of (config, seed): thread count, workers and kill + resume change
// nothing but the wall-clock column.
#ifndef NEUROEVO_RUN_H
#define NEUROEVO_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/executor.h"
#include "neuroevo/genome.h"
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ne_run ne_run;

// Where a run comes from, for its record (run.json, see runinfo.h); the config itself tells the
// rest (its source files, overrides, values). Zero-initialize and set what you know.
typedef struct ne_run_origin {
  const char* const* argv;  // (argc) the command line that started this session; NULL: none
  int argc;
  const char* study;        // a study's (compare's) directory, for one of its runs; NULL: none
  const char* arm;          // the arm of the study this run belongs to
  const char* const* tags;  // (n_tags) tags a new run starts with
  int n_tags;
  const char* note;  // a note a new run starts with; NULL: none
} ne_run_origin;

// How a run is started or resumed; zero-initialize and set what you need.
typedef struct ne_run_options {
  const char* name;          // prefix of a new run directory (e.g. the config's name); NULL: "run"
  const char* out_dir;       // exact run directory to create; NULL: <run.out>/<name>-<timestamp>
  int threads;               // > 0 overrides run.threads
  int64_t generations;       // > 0 overrides run.generations (a total, also on resume); the budget
                             // used is written to the run's config.ini, so resume, the dashboard
                             // and the report see it
  int generations_set;       // 1: `generations` applies even when 0 (= no limit, as run.generations = 0)
  int quiet;                 // 1: no progress lines on stdout (log.txt still gets them)
  const volatile int* stop;  // raised by a signal handler: checkpoint and return NE_EINTR
  ne_executor* executor;     // NULL: a local thread pool; otherwise used (not owned)
  // called on ne_run_loop's thread after each completed generation, once its metrics.csv row is
  // written; a non-zero return ends the run there like a budget (the generation is checkpointed and
  // ne_run_loop returns 0). Nullable (no hook); `user` is passed through.
  int (*on_generation)(void* user, const ne_run* run);
  void* user;
  const ne_run_origin* origin;  // for run.json; NULL: none recorded beyond the config
} ne_run_options;

// Creates a new run directory for cfg (validated), writes config.ini. Caller frees with
// ne_run_destroy. Nullable: errstr.
int ne_run_create(const ne_config* cfg, const ne_run_options* opt, ne_run** out, char* errstr);

// Opens an existing run directory at its newest valid checkpoint (falling back to older ones when
// the newest is corrupt, with a warning on stderr). Caller frees with ne_run_destroy.
int ne_run_resume(const char* run_dir, const ne_run_options* opt, ne_run** out, char* errstr);

// Trains until a budget (generations, env steps, seconds) or the target is reached. Returns 0,
// NE_EINTR after a stop request (a checkpoint of the last completed generation exists, and the
// finished candidates of the one in progress are in its partial-generation log), or an error.
int ne_run_loop(ne_run* run, char* errstr);

// The run directory (owned by run).
const char* ne_run_dir(const ne_run* run);

// Generations completed so far, and the best score so far (NaN before any).
uint32_t ne_run_generation(const ne_run* run);
double ne_run_best_score(const ne_run* run);

// Frees the run (its directory stays). Nullable: run.
void ne_run_destroy(ne_run* run);

#ifdef __cplusplus
}
#endif
#endif
