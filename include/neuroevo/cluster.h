// SPDX-License-Identifier: MIT
// Distributed evaluation over Redis (DESIGN.md §4): a master executor that publishes candidates to a
// Redis task stream and assembles results by candidate index (so a run is bit-identical to a local
// one), the worker loop that any number of processes on any machines run, and a status report.
// Available when the library was built with hiredis (NE_HAVE_HIREDIS); the protocol is described in
// docs/scaling.md.
#ifndef NEUROEVO_CLUSTER_H
#define NEUROEVO_CLUSTER_H

#include <stdint.h>
#include <stdio.h>

#include "neuroevo/config.h"
#include "neuroevo/executor.h"

#ifdef __cplusplus
extern "C" {
#endif

// How a master is set up; zero-initialize and set what you need.
typedef struct ne_cluster_master_options {
  const char* url;            // redis://[user:password@]host:port[/db]
  const char* experiment_id;  // 16 hex digits to continue an experiment (resume); NULL: a new id
  const char* name;           // shown by `status` (e.g. the config name); NULL: "run"
  int chunk;                  // candidates per task; 0: from the live worker threads and the measured cost
  double task_timeout_s;      // a task idle this long in a worker's hands is re-published (0: 10 s)
  int synthetic;              // benchmark: workers return synthetic fitness without an env
  int quiet;                  // 1: no warnings on stderr (they are still counted)
  double join_timeout_s;      // workers refused the experiment (their reasons are printed) and none
                              // joined for this long: evaluate fails (0: 60 s)
} ne_cluster_master_options;

// Figures a master has counted since it was created.
typedef struct ne_cluster_master_stats {
  uint64_t accepted;      // results accepted (first per candidate)
  uint64_t duplicates;    // results for candidates already done (ignored)
  uint64_t stale;         // results of earlier rounds (ignored)
  uint64_t dropped;       // malformed, foreign, wrong-batch or wrong-build messages (logged)
  uint64_t reused;        // results found in Redis when a round started (resume)
  uint64_t reclaimed;     // tasks taken from silent workers and re-published
  uint64_t republished;   // candidates re-published after their results were lost or rejected
  uint64_t recoveries;    // times the experiment was re-created after Redis lost it
  uint64_t result_bytes;  // bytes of accepted result messages
  uint64_t task_bytes;    // bytes of task messages published
  int live_workers;       // workers that sent a heartbeat recently
  int live_threads;       // their evaluation threads
} ne_cluster_master_stats;

// Creates a master executor for cfg (the resolved config, published to workers) and registers the
// experiment in Redis (workers start following it). Refuses a non-loopback Redis without
// credentials. Caller frees with ne_executor_destroy. Nullable: errstr.
int ne_cluster_master_create(const ne_config* cfg, const ne_cluster_master_options* opt, ne_executor** out,
                             char* errstr);

// The experiment id (16 hex digits) of a master executor; owned by ex.
const char* ne_cluster_master_id(const ne_executor* ex);

// Copies the master's counters.
void ne_cluster_master_get_stats(const ne_executor* ex, ne_cluster_master_stats* out);

// Marks the experiment finished and frees its streams and blobs in Redis (call after the run
// completed; an interrupted run keeps them for resume). Nullable: errstr.
int ne_cluster_master_finish(ne_executor* ex, char* errstr);

// How a worker runs; zero-initialize and set what you need.
typedef struct ne_cluster_worker_options {
  const char* url;           // redis://[user:password@]host:port[/db]
  int threads;               // evaluation threads, fed by one reader connection (<= 0: all cores)
  const char* name;          // unique worker name; NULL: <hostname>-<pid>
  int synthetic;             // benchmark: return a synthetic fitness without running an env
  double heartbeat_s;        // heartbeat period (0: 1 s)
  long max_tasks;            // leave after this many tasks (0: no limit; leak tests)
  double spin_s;             // one-thread workers: busy-wait this long for Redis's reply before
                             // sleeping (0: never); trades idle CPU for latency between rounds
  const volatile int* stop;  // raised by SIGTERM/SIGINT: finish the task in hand, then return
  FILE* log;                 // where messages go; NULL: stderr
} ne_cluster_worker_options;

// Follows the current experiment in Redis and evaluates its tasks until *stop is raised (returns 0).
// Re-initializes when a new experiment appears; survives Redis restarts (reconnects). Returns
// NE_EVERSION when the master speaks another wire version, NE_EINVAL for a bad URL or refused
// credentials. Nullable: errstr.
int ne_cluster_worker_run(const ne_cluster_worker_options* opt, char* errstr);

// Writes a human-readable report of the Redis at url to out: the current experiment, its
// generation, queued and claimed tasks, and live workers with throughput and last heartbeat (at most
// max_workers lines; <= 0: all). Nullable: errstr.
int ne_cluster_status(const char* url, FILE* out, int max_workers, char* errstr);

#ifdef __cplusplus
}
#endif
#endif
