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
  int episodes_per_task;      // a candidate with more episodes is split over tasks of at most this
                              // many (results bit-identical); 0: automatic (when one candidate holds
                              // more episodes than the round has per live thread), -1: never
  int min_workers;            // the first round waits until this many workers are live (a relay
                              // counts as one once its node's workers have joined), or join_timeout_s
                              // has passed, then starts with those there are (0 or 1: the first one)
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
  uint64_t split;         // parts of candidates whose episodes were split over tasks
  uint64_t together;      // rounds of several batches (a generation's last round with the next one's candidates)
  uint64_t result_bytes;  // bytes of accepted result messages
  uint64_t task_bytes;    // bytes of task messages published
  int live_workers;       // workers that sent a heartbeat recently
  int live_threads;       // their evaluation threads
  double published_at;    // CLOCK_MONOTONIC seconds when the last round's first task was in Redis
  double done_at;         // ... and when its last missing result was accepted (0: not yet)
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
  double simulate_s;         // with synthetic: each episode sleeps this long on average (0: no sleep)
  double simulate_jitter;    // ... times a factor uniform in [1 - jitter, 1 + jitter] drawn from the
                             // episode's seed (a pure function of the candidate)
  int count;                 // workers this process hosts, each with its own threads, connections
                             // and name (<name>-<k>); <= 1: one
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
// credentials. With opt->count > 1, runs that many workers in this process (one thread each, plus
// their own) until *stop is raised or one of them fails, and returns the first failure. Nullable:
// errstr.
int ne_cluster_worker_run(const ne_cluster_worker_options* opt, char* errstr);

// How a relay runs; zero-initialize and set what you need.
typedef struct ne_cluster_relay_options {
  const char* upstream;      // the master's Redis: redis://[user:password@]host:port[/db]
  const char* local;         // the node-local Redis the node's workers use (--redis of each worker)
  const char* name;          // consumer name upstream; NULL: relay-<hostname>-<pid>
  int prefetch;              // tasks held beyond one per local worker thread (0: those its workers
                             // finish in 10 ms at the measured task time, 0 .. threads / 8)
  double heartbeat_s;        // heartbeat period upstream (0: 1 s)
  const volatile int* stop;  // raised by SIGTERM/SIGINT: stop claiming, forward what the node finishes
  FILE* log;                 // where messages go; NULL: stderr
} ne_cluster_relay_options;

// A per-node relay (docs/scaling.md "Relays"): follows the master's current experiment upstream,
// mirrors it into the node-local Redis so that the node's workers see a master there, claims tasks
// upstream in batches for them, copies the blobs they need once per node, and forwards their
// results upstream in batches, each with the acknowledgement of its upstream task. Runs until
// *stop is raised (returns 0). NE_EINVAL for a bad URL or refused credentials, NE_EVERSION when the
// master speaks another wire version. Nullable: errstr.
int ne_cluster_relay_run(const ne_cluster_relay_options* opt, char* errstr);

// Writes a human-readable report of the Redis at url to out: the current experiment, its
// generation, queued and claimed tasks, and live workers with throughput and last heartbeat (at most
// max_workers lines; <= 0: all). Nullable: errstr.
int ne_cluster_status(const char* url, FILE* out, int max_workers, char* errstr);

#ifdef __cplusplus
}
#endif
#endif
