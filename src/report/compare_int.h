// SPDX-License-Identifier: MIT
// What compare.c (training the study's runs) and compare_summary.c (summary.csv, summary.md,
// compare.png) share: each arm's facts and each run's outcome and curve. Private to those two files.
#ifndef NEUROEVO_COMPARE_INT_H
#define NEUROEVO_COMPARE_INT_H

#include "neuroevo/compare.h"
#include "neuroevo/error.h"

#define NE__CMP_PATH 4096

// How a run of the study stands.
typedef enum ne__cmp_state {
  NE__CMP_PENDING = 0,   // not trained yet in this invocation
  NE__CMP_RUNNING = 1,   // its process is training it
  NE__CMP_FINISHED = 2,  // reached its budget or target (now or in an earlier invocation)
  NE__CMP_FAILED = 3,    // failed: error says why; the same command retries it
  NE__CMP_STOPPED = 4,   // stopped by a stop request; the same command resumes it
} ne__cmp_state;

// One run's curve as read from its metrics.csv.
typedef struct ne__cmp_curve {
  double* x;      // (n) env steps (= evaluations for black-box tasks)
  double* score;  // (n) the generation's score (its elite where it has one, else its best)
  double wall_s;  // training seconds at the last row
  int n, cap;     // rows read / allocated
} ne__cmp_curve;

// What the summary says about one finished run.
typedef struct ne__cmp_stats {
  double final_score;   // score of the last generation (NaN without rows)
  double best_score;    // best score over all generations
  double to_threshold;  // x at which the score first reached the threshold (inf: never / no threshold)
  double wall_s;        // training seconds
} ne__cmp_stats;

// One run of an arm.
typedef struct ne__cmp_run {
  ne__cmp_state state;
  char error[NE_ERRSTR_LEN];  // why it failed
  ne__cmp_curve curve;        // read once it finished
  ne__cmp_stats stats;
  int kept;          // 1: finished before this invocation (not trained again)
  double started;    // ne__now() when its process started (0: not started)
  double cpu_s;      // CPU seconds of its process (and the servers it reaped) this invocation
  double session_s;  // wall seconds of its process this invocation
} ne__cmp_run;

// Per arm: what it is and how its runs went.
typedef struct ne__cmp_arm {
  const char* name;           // entry name: a config's name, a swept one "name[key=value]"
  char env_id[64];            // [env] id
  char algo[32];              // run.algorithm
  int minimize;               // 1 for black-box functions: scores are f values, lower is better
  int has_threshold;          // 1 if a threshold applies
  double threshold;           // in score units (f for black-box tasks)
  int64_t generations;        // each run's generation budget (0: none)
  char error[NE_ERRSTR_LEN];  // set when the arm cannot start at all (its config, env or policy)
  ne__cmp_run* runs;          // (seeds)
} ne__cmp_arm;

// The run directory of arm a, seed k.
void ne__cmp_run_dir(char* buf, size_t size, const char* out, const char* arm, int seed);

// Reads the finished run's metrics.csv into r->curve and r->stats. 0 or the reader's error.
int ne__cmp_read_run(const char* dir, const ne__cmp_arm* a, ne__cmp_run* r, char* errstr);

// Writes summary.csv, summary.md (failures listed) and compare.png (a warning on stderr when
// gnuplot fails) for the finished runs of the n arms. 0 or the first write error.
int ne__cmp_write_summary(const ne__cmp_arm* arms, int n, int seeds, const char* out, char* errstr);

// Frees what the runs' curves hold.
void ne__cmp_free_curve(ne__cmp_curve* c);

#endif
