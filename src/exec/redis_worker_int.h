// SPDX-License-Identifier: MIT
// Private structures of the Redis worker, shared by redis_worker.c (following experiments,
// heartbeats, the main loop) and redis_worker_tasks.c (claiming, evaluating and answering tasks).
// One process = one consumer of the task group: a reader thread claims tasks for the whole process,
// N evaluation threads take them from the process's slots, a writer thread sends results with their
// acknowledgements; with one evaluation thread, that thread does all three. Everything shared is
// guarded by worker.mu. Not public API.
#ifndef NEUROEVO_REDIS_WORKER_INT_H
#define NEUROEVO_REDIS_WORKER_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "core/buf.h"
#include "exec/redis_conn.h"
#include "exec/redis_wire.h"
#include "neuroevo/cache.h"
#include "neuroevo/cluster.h"
#include "neuroevo/config.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/noise.h"

#define NE_WORKER_ID_LEN 48  // room for a stream id

// One broadcast vector held by this process; shared by the threads, freed when unused and old.
typedef struct ne__blob_entry {
  uint64_t hash;  // identity
  uint32_t n;     // floats
  float* data;    // (n) owned
  uint32_t gen;   // newest generation that used it
  int refs;       // tasks using it now
} ne__blob_entry;

// What the threads share while following one experiment.
typedef struct ne__experiment {
  uint64_t exp;                // experiment id
  char id[17];                 // its hex form
  char k_tasks[NE_KEY_LEN];    // task stream
  char k_results[NE_KEY_LEN];  // result stream
  char k_meta[NE_KEY_LEN];     // description
  char k_workers[NE_KEY_LEN];  // live-worker hash the master reads
  ne_config* cfg;              // the master's resolved config (owned)
  ne_env_spec* env;            // owned
  ne_policy_spec policy;       // policy spec
  ne_param_cache* cache;       // shared by the threads (thread-safe)
  ne_noise_table* noise;       // shared noise table the config asks for (owned; NULL: the generator)
  ne_meta_spec meta;           // meta-learning: the config's inner loop (meta.tasks 0: none)
  uint64_t fingerprint;        // what results are stamped with
  double task_timeout_s;       // the master's re-claim threshold
  pthread_mutex_t blob_mu;     // guards blobs and blob_conn (fetches happen under it: once per blob)
  ne__rconn blob_conn;         // the connection blobs are fetched through
  ne__blob_entry** blobs;      // (cap_blobs)
  int n_blobs, cap_blobs;
  volatile int leave;  // raised by the main thread: finish the tasks in hand and return
} ne__experiment;

// Where a task held by this process is in its life.
typedef enum ne__slot_state {
  NE_SLOT_FREE = 0,  // empty
  NE_SLOT_QUEUED,    // claimed by the reader, waiting for an evaluation thread
  NE_SLOT_RUNNING,   // being evaluated
  NE_SLOT_DONE,      // results (or a failure report) encoded, waiting for the writer
  NE_SLOT_DROP,      // garbage: the writer acknowledges and deletes it
} ne__slot_state;

// A task the process holds (one per evaluation thread).
typedef struct ne__slot {
  ne__slot_state state;       // guarded by worker.mu
  uint64_t seq;               // claim order: threads take the oldest queued task
  char id[NE_WORKER_ID_LEN];  // stream entry id
  ne_buf payload;             // the task message as read (QUEUED, RUNNING)
  ne_buf out;                 // the encoded result message (DONE)
  int n_results;              // results in out (counted once sent)
} ne__slot;

typedef struct ne__worker ne__worker;

// One evaluation thread and its scratch buffers.
typedef struct ne__wthread {
  ne__worker* w;         // the process
  ne__experiment* ex;    // the experiment being followed
  pthread_t th;          // the thread
  int started;           // 1 once pthread_create succeeded
  ne_evaluator* ev;      // this thread's evaluator
  ne__wire_task task;    // decoding scratch
  ne_result* res;        // (cap) results of the task in hand
  uint32_t* idx;         // (cap) their candidate indices
  ne__wire_part* parts;  // (cap) the part of its candidate each result is of (n == 0: whole)
  double* returns;       // (cap_returns) per-episode returns of the parts, back to back
  size_t cap_returns;
  double* obs;            // (cap * 2 * obs_dim) observation sums
  float* bc;              // (cap * bc_dim) behaviour characterizations
  int cap;                // allocated results
  ne_blob* blobs;         // (cap_blobs) the task's blobs as a batch sees them
  ne__blob_entry** held;  // (cap_blobs + 2) cache entries in use
  int cap_blobs;
} ne__wthread;

struct ne__worker {
  ne_cluster_worker_options opt;    // as given
  ne__redis_url url;                // parsed
  char name[NE_WIRE_MAX_NAME + 1];  // unique name, also the process's consumer name in the group
  int threads;                      // evaluation threads
  double interval_s;                // heartbeat period
  FILE* log;                        // messages
  ne__rconn conn;                   // main thread's connection (heartbeats, following, touching)
  ne__experiment* ex;               // followed now, or NULL
  uint64_t refused;                 // experiment id not joined (bad config, other build); 0: none
  int has_refused;
  char refused_why[NE_WIRE_MAX_ERROR + 1];  // why, as published (heartbeat and the experiment's refusals)
  // the task pipeline (redis_worker_tasks.c), while following an experiment
  pthread_mutex_t mu;        // guards everything below and the counters
  pthread_cond_t task_cv;    // a task was queued or the reader stopped (evaluation threads wait)
  pthread_cond_t slot_cv;    // a thread took a task or a slot was freed (the reader waits)
  pthread_cond_t send_cv;    // a slot is ready to send or a thread stopped (the writer waits)
  ne__wthread* th;           // (threads)
  ne__slot* slots;           // (n_slots)
  int n_slots;               // SLOTS_PER_THREAD * threads
  uint64_t seq;              // claims so far
  pthread_t reader, writer;  // the reader and writer threads
  int reader_started, writer_started;
  int reader_exited, writer_exited;  // 1 when they returned
  int evals_running;                 // evaluation threads not yet returned
  ne__rconn rconn, wconn;            // the reader's and the writer's connections
  long long rconn_id;                // Redis's CLIENT ID of rconn (-1: unknown), for CLIENT UNBLOCK
  unsigned long rconn_opens;         // the rconn.opens that id belongs to (a reconnect changes it)
  // counters
  uint64_t results_done, tasks_done, bad_tasks, env_failures;  // since start
  volatile int done;                                           // max_tasks reached
  double rate;                                                 // results/s (smoothed)
  uint64_t rate_done;                                          // results_done at the last rate update
  double rate_at;                                              // time of that update
  char announce[NE_WORKER_ID_LEN];                             // last entry seen on the announcement stream
  double delay_s;     // test hook NEUROEVO_TEST_EVAL_DELAY_MS: sleep per candidate
  char host[128];     // hostname
  long long started;  // unix time
  // what the worker waits for, said once in its log per change ("" / "master" / an experiment's
  // master state: "gone", "stopped")
  long long server_ms;  // Redis's clock at the last heartbeat (0: unknown)
  char waiting[16];
};

// Writes one line to the worker's log.
void ne__worker_say(ne__worker* w, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// 1 when SIGTERM/SIGINT arrived or max_tasks were done.
int ne__worker_stopping(const ne__worker* w);

// Starts the reader, the writer and the evaluation threads for w->ex. 0 or NE_ENOMEM (then
// ne__worker_stop_tasks cleans up what started).
int ne__worker_start_tasks(ne__worker* w);

// Raises the leave flag and joins every thread: tasks already claimed are evaluated and answered
// first. A claim blocked in Redis is cut short with CLIENT UNBLOCK through conn (the caller's own
// connection), so leaving does not wait for the block to time out. Frees the pipeline. Nullable:
// w->th (nothing started).
void ne__worker_stop_tasks(ne__worker* w, ne__rconn* conn);

// 1 when every thread of the pipeline has returned (the worker is stopping).
int ne__worker_tasks_exited(ne__worker* w);

// Resets the idle time of every task the process holds (XCLAIM ... JUSTID through conn), so the
// master re-claims only a dead worker's tasks.
void ne__worker_touch_tasks(ne__worker* w, ne__rconn* conn);

// Frees the blob cache of an experiment and closes its blob connection.
void ne__worker_blobs_free(ne__experiment* ex);

#endif
