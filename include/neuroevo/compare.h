// SPDX-License-Identifier: MIT
// Studies: each arm (a config, with its overrides and swept values) is trained with seeds 0..K-1,
// then the runs' metrics are summarized into summary.csv (one row per run), summary.md (per arm:
// mean, median and an interval of the final score, then the runs that failed with their errors)
// and compare.png (mean curve with its band per arm). Every run trains in a process of its own,
// several at a time on the local threads (each on a thread pool of its own) or one after another
// on executors the caller makes (Redis workers); either way a run is the run alone, and the whole
// study is a pure function of its configs: thread and worker counts change nothing but wall times.
// A run that fails (its config, env or optimizer, a crash of its process) is recorded with its
// error and the others go on; the same call later continues: finished runs are kept, failed and
// interrupted ones resumed.
//
//   DIR/study.json  DIR/summary.csv  DIR/summary.md  DIR/compare.png
//   DIR/<arm>/seed<k>/ (a run directory each, its run.json naming the study and the arm)
//
// study.json: the command, the arms (name, env, algorithm, an arm's error) and each run's status
// ("finished", "failed" with its error, "stopped", "pending"), wall and CPU seconds of its process.
#ifndef NEUROEVO_COMPARE_H
#define NEUROEVO_COMPARE_H

#include <stdint.h>

#include "neuroevo/config.h"
#include "neuroevo/executor.h"
#include "neuroevo/run.h"  // ne_run_origin

#ifdef __cplusplus
extern "C" {
#endif

// One config to compare.
typedef struct ne_compare_entry {
  const char* name;      // label and subdirectory (e.g. the config's base name); unique per compare
  const ne_config* cfg;  // resolved config (file + overrides); run.seed is replaced by each run's seed
} ne_compare_entry;

// How a study went: runs in all, finished (kept: finished before this call), failed, and stopped
// or never started (a stop request).
typedef struct ne_compare_result {
  int runs, finished, kept, failed, stopped;
} ne_compare_result;

// How to compare; zero-initialize and set what you need.
typedef struct ne_compare_options {
  int seeds;                 // runs per config with seeds 0..seeds-1 (<= 0: 3)
  int threads;               // evaluation threads in all (<= 0: the largest run.threads, 0 = all cores);
                             // min(threads, runs) runs train at once, each on threads / that many
  const char* out_dir;       // directory to write (created; run directories already in it are resumed)
  int quiet;                 // 1: no progress lines on stdout (failed runs are still said on stderr)
  double progress_s;         // seconds between status lines (runs done, running, ETA); <= 0: 30
  const volatile int* stop;  // raised by a signal handler: the runs checkpoint, NE_EINTR returns
  int has_threshold;         // 1: `threshold` replaces every config's run.target in the summary
  double threshold;          // score counted as solved (black-box tasks: the f value to get below)
  int64_t generations;       // each run's budget as ne_run_options.generations (written to its config.ini)
  int generations_set;       // 1: `generations` applies, 0 included (= no limit)
  // The executor of each run instead of local threads (e.g. a Redis master; runs then go one after
  // another): begin_run makes it for the run's config (run_dir/config.ini when resuming) before the
  // run is created or resumed in run_dir; end_run gets it back with the run's result (0, NE_EINTR or
  // an error) and frees it. NULL: local threads.
  int (*begin_run)(void* user, const ne_config* cfg, const char* name, const char* run_dir, ne_executor** out,
                   char* errstr);
  void (*end_run)(void* user, ne_executor* ex, int rc);
  void* run_user;               // handed to begin_run and end_run
  const ne_run_origin* origin;  // command line, tags and note for each run's record; NULL: none
  ne_compare_result* result;    // filled with the outcome counts; NULL: not wanted
} ne_compare_options;

// Trains every (arm, seed) run that is not finished yet in opt->out_dir, each in a process of its
// own (fork), then writes the summary files and the plot of the finished runs. A run directory left
// by an interrupted or failed run is resumed, so the same call continues where it stopped. Returns
// 0 once every run was tried and the summary written, failed runs included: opt->result says how
// many failed (summary.md and study.json say which and why). NE_EINTR after a stop request (no
// summary: the runs checkpointed), or an error before any run (bad arguments, the directory).
// A missing gnuplot only skips compare.png (warning on stderr). Nullable: errstr.
int ne_compare_run(const ne_compare_entry* entries, int n, const ne_compare_options* opt, char* errstr);

// The 95% percentile-bootstrap interval of the mean of x[0..n): `resamples` resamples drawn from a
// stream seeded with `seed`, so the interval is a pure function of its arguments. n = 1 gives
// [x[0], x[0]]; n = 0 gives NaN.
void ne_compare_bootstrap(const double* x, int n, int resamples, uint64_t seed, double* lo, double* hi);

#ifdef __cplusplus
}
#endif
#endif
