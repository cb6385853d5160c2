// SPDX-License-Identifier: MIT
// A run directory as the dashboard and the report see it, read without the config loader (so runs
// of newer versions still show): metrics.csv rows, a few config.ini keys, the state told by
// log.txt, and derived figures (ETA, throughput). Read-only; safe while the run is writing.
// Internal; not public API.
#ifndef NEUROEVO_RUNDATA_H
#define NEUROEVO_RUNDATA_H

#include <stddef.h>
#include <stdint.h>

// Columns of ne__rundata.rows (metrics.csv columns, by name).
enum {
  NE__RD_GEN = 0,     // generation (0-based)
  NE__RD_EVALS = 1,   // evaluations so far
  NE__RD_STEPS = 2,   // env steps so far
  NE__RD_WALL = 3,    // training seconds so far
  NE__RD_BEST = 4,    // best of the generation
  NE__RD_MEAN = 5,    // population mean
  NE__RD_MEDIAN = 6,  // population median
  NE__RD_ELITE = 7,   // elite re-evaluation (NaN if none)
  NE__RD_COLS = 8
};

typedef struct ne__rundata {
  char dir[1024];           // the run directory as given
  char name[256];           // its basename
  char env[128];            // [env] id ("" if unknown)
  char algorithm[64];       // [run] algorithm ("" if unknown)
  char state[32];           // "running", "finished", "interrupted", "stopped" or "starting"
  char last_line[256];      // last line of log.txt (no newline)
  int minimized;            // 1: metrics hold f = -fitness (bbob/*), lower is better
  double* rows;             // (n_rows, NE__RD_COLS); NaN = missing
  int n_rows;               // rows read
  int cap_rows;             // rows allocated
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

// Value of row r, column c.
double ne__rundata_at(const ne__rundata* d, int r, int c);

// Seconds left until the nearest budget (generations, env steps, seconds) at the pace of the last
// few generations; NaN when there is no budget or too few rows, 0 when a budget is reached.
double ne__rundata_eta(const ne__rundata* d);

// Evaluations and env steps per second over the last few generations (0 with < 2 rows).
void ne__rundata_rate(const ne__rundata* d, double* evals_per_s, double* steps_per_s);

// Writes "12.3s", "4m05s" or "2h07m" into buf.
void ne__rundata_duration(double s, char* buf, size_t size);

// Writes v with a k/M/G suffix ("729.4k", "1.51M") into buf.
void ne__rundata_human(double v, char* buf, size_t size);

// Value of key in [section] of an INI text (comments and blanks stripped) into out; 0 if found.
int ne__ini_get(const char* text, const char* section, const char* key, char* out, size_t size);

#endif
