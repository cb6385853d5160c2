// SPDX-License-Identifier: MIT
// The run object's fields, shared by runner.c (create/resume/destroy) and runloop.c (the loop).
#ifndef NEUROEVO_RUNNER_INT_H
#define NEUROEVO_RUNNER_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "neuroevo/algo.h"
#include "neuroevo/meta.h"
#include "neuroevo/run.h"

// Result buffers of a batch, grown as batches need.
typedef struct ne__result_buf {
  ne_result* results;  // (results_cap)
  int results_cap;
  double* obs_stats;  // (2 * obs_stats_cap * obs_dim) when a batch wants observation sums
  int obs_stats_cap;
  float* bcs;  // (bcs_cap * bc_dim) when a batch wants behaviour characterizations
  int bcs_cap;
} ne__result_buf;

struct ne__job;

struct ne_run {
  ne_run_options opt;     // as given (stop flag, overrides)
  ne_config* cfg;         // resolved config, owned
  char dir[3840];         // run directory (shorter than path buffers, which append names)
  ne_env_spec* env;       // owned
  ne_policy_spec policy;  // policy spec
  const ne_algo_vt* vt;   // algorithm implementation
  void* algo;             // algorithm state, owned
  ne_executor* exec;      // executor (owned if own_exec)
  int own_exec;           // 1 if exec was created here
  FILE* log;              // log.txt
  int metrics_fd;         // metrics.csv, open for appending rows (-1: not open)
  // counters at the last completed generation (what a checkpoint holds)
  uint32_t generation;               // generations completed
  uint64_t evaluations;              // candidate evaluations so far
  uint64_t env_steps;                // env steps so far
  double wall_s;                     // training seconds so far (earlier sessions included)
  uint32_t checkpointed_generation;  // generation of the newest checkpoint on disk
  uint8_t* pending_state;            // algorithm state of the last boundary not yet checkpointed
  size_t pending_len;                // bytes of pending_state
  // budgets and settings
  int64_t max_generations;  // 0: none
  uint64_t max_steps;       // 0: none
  double max_seconds;       // 0: none
  int has_target;           // stop when the elite score reaches target
  double target;
  int checkpoint_every, keep_checkpoints, plot_every;
  double best_score;                 // best elite score so far (NaN before any)
  struct ne__tracker* tracker;       // MLflow tracking during ne_run_loop (tracker.h); NULL: none
  double row_best;                   // best metrics row so far (its elite, else its best; fitness; NaN: none)
  uint32_t best_written_generation;  // generation of the genome in best.genome (+1; 0 none)
  // evaluation buffers: the round's, and those of the next generation's candidates asked ahead
  ne__result_buf res, ahead_res;
  // overlapped generations (run.overlap, ne_algo_vt.ask_ahead): the results asked ahead wait for
  // the next generation's first round
  int overlap;                 // 1: ask ahead and evaluate alongside
  struct ne__ahead* ahead;     // run/ahead.h; NULL when the algorithm asks nothing ahead
  const struct ne__job* jobs;  // (n_jobs) the batches being evaluated (runloop.c), for the result hook
  int n_jobs;
  int plot_warned;        // 1 after the first plotting failure was reported
  double plot_seconds;    // least wall time between two redraws of curve.png
  double plotted_at;      // ne__now() of the last redraw (0: none yet)
  struct ne__run_tb* tb;  // TensorBoard event writer (run_tfevents.c); NULL when off
  int minimize;           // 1 for black-box functions: metrics report f = -fitness (see runner.c)
  // meta-learning (meta.h): the inner loop, and this generation's population means of the returns
  // before and after it (metrics.csv's pre_adapt, post_adapt columns)
  ne_meta_spec meta;         // meta.tasks 0: no inner loop
  double gen_pre, gen_post;  // NaN until the population round was evaluated
  // the partial-generation log (partial.h): the finished candidates of the generation in progress;
  // NULL for black-box functions (a generation takes milliseconds) and executors without a result
  // hook (the Redis master keeps its round's results in Redis)
  int result_hook;  // 1: the executor reports each result (a local one) and the run has episodes
  struct ne__partial* partial;
  int partial_on;  // 1 while the log's base is the newest checkpoint (run.checkpoint_every > 1)
  // progress within a long round (runloop.c's round_progress), from the evaluating threads
  double progress_seconds;      // run.progress_seconds (0: never)
  pthread_mutex_t progress_mu;  // guards the fields below
  double round_start, said_at;  // ne__now() at the round's start and at the last progress line
  uint32_t round;               // the batch's round (0: the population)
  int round_n, round_done;      // candidates of the round, and finished (kept ones included)
  int round_ahead;              // of round_n, the next generation's candidates asked ahead
  uint64_t round_steps;         // env steps of the candidates this session finished
};

// Prints a line to stdout (unless quiet) and log.txt.
void ne__run_say(ne_run* run, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Like ne__run_say for what a stopped run kept and where: a quiet run prints it on stderr.
void ne__run_say_stop(ne_run* run, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// What the executor is, for run.json ("local, 4 threads").
void ne__run_describe(const ne_run* run, char* buf, size_t size);

// Appends the metrics row of a completed generation to metrics.csv.
int ne__run_append_metrics(ne_run* run, const ne_gen_report* r, char* errstr);

#endif
