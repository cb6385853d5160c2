// SPDX-License-Identifier: MIT
// Reading a run's metrics.csv (one row per completed generation, written by the runner): the one
// reader that the plot, the study summary, the dashboard, the report, `neuroevo runs` and the
// MLflow tracker share. Columns are found by name in the header, so files with more or fewer
// columns (meta-learning's pre_adapt/post_adapt, black-box runs' `minimized`, older versions) all
// read; a missing column or field reads as NaN. A torn last line (the run is appending) is skipped.
// Read-only and safe while the run writes.
#ifndef NEUROEVO_METRICS_H
#define NEUROEVO_METRICS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// The columns a reader gets, in this order (metrics.csv's names in ne_metrics_column_name).
typedef enum ne_metrics_col {
  NE_M_GEN = 0,     // generation (0-based)
  NE_M_EVALS = 1,   // evaluations so far
  NE_M_STEPS = 2,   // env steps so far (= evaluations for black-box functions)
  NE_M_WALL = 3,    // training seconds so far
  NE_M_BEST = 4,    // best of the generation (f, lower is better, when minimized)
  NE_M_MEAN = 5,    // population mean
  NE_M_MEDIAN = 6,  // population median
  NE_M_ELITE = 7,   // elite / mean re-evaluation (NaN when the algorithm has none)
  NE_M_PRE = 8,     // meta-learning: population mean return before the inner loop
  NE_M_POST = 9,    // meta-learning: after it
  NE_M_COLS = 10
} ne_metrics_col;

// A metrics.csv read into memory.
typedef struct ne_metrics {
  double* rows;        // (n_rows, NE_M_COLS) row-major; NaN = missing or not a finite number
  int n_rows;          // complete rows read
  int cap_rows;        // rows allocated
  int has[NE_M_COLS];  // 1 when the header has the column
  int header;          // 1 once the header line was read (0: an empty file)
  int minimized;       // 1: the `minimized` column is there (bbob/*: values are f = -fitness)
} ne_metrics;

// metrics.csv's name of column c ("generation", "env_steps", ...).
const char* ne_metrics_column_name(ne_metrics_col c);

// The column named name, or -1.
int ne_metrics_column(const char* name);

// Reads run_dir/metrics.csv into out (zeroed first; free with ne_metrics_free). Errors:
// NE_ENOTFOUND (no file), NE_EIO, NE_ENOMEM, each naming the file. An empty file or a header alone
// gives 0 rows; which columns the header had is in has[] (a reader checks those it needs).
// Nullable: errstr.
int ne_metrics_read(const char* run_dir, ne_metrics* out, char* errstr);

// The last complete row of run_dir/metrics.csv into row (NE_M_COLS values) without reading the
// whole file (the header and the file's last few KiB): what a listing of thousands of runs needs.
// Returns 1 when there is a row, 0 when none yet (row all NaN), or a negative error as above.
// *minimized (nullable) gets the flag.
int ne_metrics_last(const char* run_dir, double* row, int* minimized, char* errstr);

// Value of row r, column c.
static inline double ne_metrics_at(const ne_metrics* m, int r, ne_metrics_col c) {
  return m->rows[(size_t)r * NE_M_COLS + c];
}

// Frees the rows. Nullable: m.
void ne_metrics_free(ne_metrics* m);

#ifdef __cplusplus
}
#endif
#endif
