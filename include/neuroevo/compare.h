// SPDX-License-Identifier: MIT
// Comparing configurations: each config is trained with seeds 0..K-1 in one process, then the runs'
// metrics are summarized into summary.csv (one row per run), summary.md (per config: mean, median
// and a deterministic 95% bootstrap interval of the final score) and compare.png (mean curve with
// the bootstrap band per config). Runs go one after another through one local executor per
// config, so the whole comparison is a pure function of its configs: thread counts change nothing
// but wall times.
//
//   DIR/summary.csv  DIR/summary.md  DIR/compare.png  DIR/<config>/seed<k>/ (a run directory each)
#ifndef NEUROEVO_COMPARE_H
#define NEUROEVO_COMPARE_H

#include <stdint.h>

#include "neuroevo/config.h"

#ifdef __cplusplus
extern "C" {
#endif

// One config to compare.
typedef struct ne_compare_entry {
  const char* name;      // label and subdirectory (e.g. the config's base name); unique per compare
  const ne_config* cfg;  // resolved config (file + overrides); run.seed is replaced by each run's seed
} ne_compare_entry;

// How to compare; zero-initialize and set what you need.
typedef struct ne_compare_options {
  int seeds;                 // runs per config with seeds 0..seeds-1 (<= 0: 3)
  int threads;               // evaluation threads (<= 0: each config's run.threads)
  const char* out_dir;       // directory to write (created; run directories already in it are resumed)
  int quiet;                 // 1: no progress lines on stdout
  const volatile int* stop;  // raised by a signal handler: the current run checkpoints, NE_EINTR returns
  int has_threshold;         // 1: `threshold` replaces every config's run.target in the summary
  double threshold;          // score counted as solved (black-box tasks: the f value to get below)
} ne_compare_options;

// Trains every (config, seed) pair that is not finished yet in opt->out_dir, then writes the
// summary files and the plot. A run directory left by an interrupted compare is resumed, so the
// same command continues where it stopped. Returns 0, NE_EINTR after a stop request, or an error
// with errstr naming the config and seed. A missing gnuplot only skips compare.png (warning on
// stderr). Nullable: errstr.
int ne_compare_run(const ne_compare_entry* entries, int n, const ne_compare_options* opt, char* errstr);

// The 95% percentile-bootstrap interval of the mean of x[0..n): `resamples` resamples drawn from a
// stream seeded with `seed`, so the interval is a pure function of its arguments. n = 1 gives
// [x[0], x[0]]; n = 0 gives NaN.
void ne_compare_bootstrap(const double* x, int n, int resamples, uint64_t seed, double* lo, double* hi);

#ifdef __cplusplus
}
#endif
#endif
