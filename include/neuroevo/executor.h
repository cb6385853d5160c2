// SPDX-License-Identifier: MIT
// Executors evaluate batches wherever they run: the local thread pool (default) or Redis workers.
// An executor never knows which algorithm asked; results come back in candidate order, so what an
// algorithm is told does not depend on threads, workers or arrival order.
#ifndef NEUROEVO_EXECUTOR_H
#define NEUROEVO_EXECUTOR_H

#include "neuroevo/algo.h"
#include "neuroevo/cache.h"
#include "neuroevo/env.h"
#include "neuroevo/meta.h"
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ne_executor ne_executor;

// Called once a candidate's result is complete (not for a candidate a stop request cut short): by a
// local executor on the thread that evaluated it (calls may run concurrently: the hook locks what
// it shares), by the Redis master on its own thread as it accepts the result, before it reads the
// next ones.
typedef void (*ne_result_hook)(void* user, const ne_candidate* cand, const ne_result* result);

// An executor's implementation.
typedef struct ne_executor_vt {
  const char* name;  // "local", "redis"
  // evaluates every candidate of batch into results[0..batch->n); NE_EINTR when *stop was raised
  int (*evaluate)(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop, char* errstr);
  // a short status for the progress line (e.g. "3 workers"); may be empty
  void (*describe)(ne_executor* ex, char* buf, int size);
  void (*destroy)(ne_executor* ex);
  // optional (NULL: not supported): reports each completed result to hook (NULL: none)
  int (*set_result_hook)(ne_executor* ex, ne_result_hook hook, void* user);
  // optional: evaluates n batches together, each whole, leaving the results of the candidates
  // whose have[k][i] is set as given (see ne_executor_evaluate_many)
  int (*evaluate_many)(ne_executor* ex, int n, const ne_batch* const* batches, const uint8_t* const* have,
                       ne_result* const* results, const volatile int* stop, char* errstr);
} ne_executor_vt;

struct ne_executor {
  const ne_executor_vt* vt;  // implementation
  void* impl;                // implementation state
};

// A local executor: a pool of n_threads (<= 0: all cores), one evaluator per thread, one shared
// parameter cache of cache_bytes. The specs must outlive it. Caller frees with ne_executor_destroy.
int ne_local_executor_create(const ne_env_spec* env, const ne_policy_spec* policy, int n_threads, size_t cache_bytes,
                             ne_executor** out, char* errstr);

// Meta-learning (meta.h): makes every evaluator of a local executor run meta's inner loop (meta
// must outlive ex; NULL or meta->tasks 0: plain evaluations). Redis workers read [meta] from the
// experiment's config instead. NE_EINVAL for other executors, NE_ENOMEM. Nullable: meta, errstr.
int ne_local_executor_set_meta(ne_executor* ex, const ne_meta_spec* meta, char* errstr);

// Makes ex call hook(user, ...) for every result it completes or accepts (what the run's
// partial-generation log records). hook NULL: none. NE_EINVAL for an executor that does not report
// results. Nullable: hook, user.
int ne_executor_set_result_hook(ne_executor* ex, ne_result_hook hook, void* user);

// ne_executor_set_result_hook for a local executor only (NE_EINVAL for others). Nullable: hook, user.
int ne_local_executor_set_result_hook(ne_executor* ex, ne_result_hook hook, void* user);

// Evaluates the candidates of batch whose have[i] is 0 into results[i], leaving the others as
// given (a resumed run's finished candidates), as part of the whole batch: results do not depend on
// which candidates are missing. NE_EUNSUPPORTED for an executor without evaluate_many (evaluate a
// sub-batch of the missing candidates instead: results do not depend on a candidate's position
// either). Nullable: stop, errstr.
int ne_executor_evaluate_missing(ne_executor* ex, const ne_batch* batch, const uint8_t* have, ne_result* results,
                                 const volatile int* stop, char* errstr);

// Evaluates a batch (see ne_executor_vt.evaluate). Nullable: stop, errstr.
int ne_executor_evaluate(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop,
                         char* errstr);

// A short status of where the evaluations run, for the progress line ("2 threads", "3 workers"),
// into buf (size bytes; empty when the executor has none).
void ne_executor_describe(ne_executor* ex, char* buf, int size);

// Most batches one ne_executor_evaluate_many call takes.
#define NE_EXECUTOR_MAX_BATCHES 4

// Evaluates n (1..NE_EXECUTOR_MAX_BATCHES) batches that do not depend on each other as one piece of
// work: batch k's results land in results[k][0..batches[k]->n), exactly as ne_executor_evaluate
// would put them, so the outcome never depends on which batches travel together. Workers take
// batch 0's candidates first, then batch 1's, and so on, so a batch whose results are needed
// sooner goes first; no worker waits for the end of one batch while another has work left (the
// runner's overlapped generations: a generation's last round alongside the next generation's
// candidates that do not wait for it). The batches may belong to different generations. have
// (NULL, or have[k] NULL: none): candidates whose results[k][i] the caller has already, as
// ne_executor_evaluate_missing. NE_EINVAL for n out of range; NE_EUNSUPPORTED for have with an
// executor without evaluate_many (without it, batches are evaluated one after another).
// Nullable: have, stop, errstr.
int ne_executor_evaluate_many(ne_executor* ex, int n, const ne_batch* const* batches, const uint8_t* const* have,
                              ne_result* const* results, const volatile int* stop, char* errstr);

// Frees the executor. Nullable: ex.
void ne_executor_destroy(ne_executor* ex);

#ifdef __cplusplus
}
#endif
#endif
