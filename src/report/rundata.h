// SPDX-License-Identifier: MIT
// A run directory as the dashboard and the report see it, read without the config loader (so runs
// of newer versions still show): metrics.csv rows, a few config.ini keys, the state told by
// log.txt, and derived figures (ETA, throughput). Read-only; safe while the run is writing.
// Internal; not public API.
#ifndef NEUROEVO_RUNDATA_H
#define NEUROEVO_RUNDATA_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/metrics.h"  // the rows

// Columns of ne__rundata_at: the first NE__RD_COLS columns of metrics.h, which every run has.
enum {
  NE__RD_GEN = NE_M_GEN,        // generation (0-based)
  NE__RD_EVALS = NE_M_EVALS,    // evaluations so far
  NE__RD_STEPS = NE_M_STEPS,    // env steps so far
  NE__RD_WALL = NE_M_WALL,      // training seconds so far
  NE__RD_BEST = NE_M_BEST,      // best of the generation
  NE__RD_MEAN = NE_M_MEAN,      // population mean
  NE__RD_MEDIAN = NE_M_MEDIAN,  // population median
  NE__RD_ELITE = NE_M_ELITE,    // elite re-evaluation (NaN if none)
  NE__RD_COLS = 8
};

typedef struct ne__rundata {
  char dir[1024];           // the run directory as given
  char name[256];           // its basename; for a study's run "ARM seed K"
  char arm[256];            // a study's run: its arm ("" otherwise)
  int seed;                 // a study's run: its seed
  char reason[256];         // the record's reason: why it ended, or its error
  char env[128];            // [env] id ("" if unknown)
  char algorithm[64];       // [run] algorithm ("" if unknown)
  char state[32];           // running, finished, stopped, failed, killed (the record's, else told by log.txt),
                            // or starting
  char last_line[256];      // last line of log.txt (no newline)
  int minimized;            // 1: metrics hold f = -fitness (bbob/*), lower is better
  ne_metrics metrics;       // metrics.csv's rows (metrics.h)
  int n_rows;               // rows read (metrics.n_rows)
  int64_t max_generations;  // [run] generations (0: none)
  double max_env_steps;     // [run] max_env_steps (0: none)
  double max_seconds;       // [run] max_seconds (0: none)
  int threads;              // [run] threads (0: all cores)
  int eval_episodes;        // [run] eval_episodes (0 if absent)
  double metrics_age_s;     // seconds since metrics.csv last changed
} ne__rundata;

// 1 if dir looks like a run directory (has metrics.csv or config.ini plus checkpoints/).
int ne__rundata_is_run(const char* dir);

// Reads dir into out (zeroed first). Returns 0, or NE_ENOTFOUND / NE_EPARSE / NE_ENOMEM with errstr.
// Free with ne__rundata_free. Nullable: errstr.
int ne__rundata_load(const char* dir, ne__rundata* out, char* errstr);

// Frees the rows. Nullable: d.
void ne__rundata_free(ne__rundata* d);

// Value of row r, column c (NE__RD_* or NE_M_*).
double ne__rundata_at(const ne__rundata* d, int r, int c);

// Seconds left until the nearest budget (generations, env steps, seconds) at the pace of the last
// few generations; NaN when there is no budget or too few rows, 0 when a budget is reached.
double ne__rundata_eta(const ne__rundata* d);

// Evaluations and env steps per second over the last few generations (0 with < 2 rows).
void ne__rundata_rate(const ne__rundata* d, double* evals_per_s, double* steps_per_s);

#endif
