// SPDX-License-Identifier: MIT
// The local executor: the thread pool plus one evaluator per thread and one parameter cache shared
// by all. Candidates are handed out one at a time (episode lengths vary by orders of magnitude) and
// each result lands at its candidate's index, so the outcome is independent of the thread count.
#include <pthread.h>  // gym: bridge: the first env failure is kept under a lock
#include <stdio.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/executor.h"
#include "neuroevo/pool.h"

typedef struct local_exec {
  ne_pool* pool;
  ne_param_cache* cache;
  int n_threads;
  ne_evaluator** evaluators;  // (n_threads)
  // the batch in flight
  const ne_batch* batch;
  ne_result* results;
  // gym: bridge: an env that failed twice (a crashing env server) stops the batch with its message
  const volatile int* caller_stop;  // the caller's stop flag, folded into `abort`
  volatile int abort;               // the stop flag the pool sees
  pthread_mutex_t failure_mu;       // guards the three fields below
  int failure_index;                // lowest candidate index whose env failed (-1: none)
  int failure_code;                 // its NE_E* code
  char failure_msg[NE_ERRSTR_LEN];  // its message, naming the env
  ne_result_hook on_result;         // called with each completed result (NULL: none)
  void* on_result_user;
} local_exec;

// gym: bridge: keeps the env failure of the lowest candidate index, so the message is deterministic
static void record_env_failure(local_exec* le, int i, int code, const char* why) {
  pthread_mutex_lock(&le->failure_mu);
  if (le->failure_index < 0 || i < le->failure_index) {
    le->failure_index = i;
    le->failure_code = code;
    snprintf(le->failure_msg, sizeof le->failure_msg, "%s", why);
  }
  le->abort = 1;
  pthread_mutex_unlock(&le->failure_mu);
}

static void eval_items(void* data, int thread, int begin, int end) {
  local_exec* le = data;
  ne_evaluator* ev = le->evaluators[thread];
  for (int i = begin; i < end;) {
    if (le->caller_stop && *le->caller_stop) le->abort = 1;
    // one candidate, or a run of one-episode candidates in lockstep (small MLPs)
    int k = ne_evaluator_run_many(ev, le->batch, &le->batch->cands[i], end - i, &le->results[i]);
    for (int j = i; j < i + k; j++) {
      int rc = le->results[j].status;
      if (rc == NE_EINTR) {  // ended early by the caller's stop: the batch is abandoned
        le->abort = 1;
        return;
      }
      const char* why = rc < 0 && k == 1 ? ne_evaluator_env_error(ev) : NULL;
      if (why) record_env_failure(le, j, rc, why);
      else if (le->on_result) le->on_result(le->on_result_user, &le->batch->cands[j], &le->results[j]);
    }
    i += k;
  }
}

// Candidates per pool chunk: one (episode lengths vary by orders of magnitude, so threads take the
// next candidate as they finish), or where candidates run in lockstep enough to keep the slots
// busy while every thread still gets several chunks.
static int chunk_size(const local_exec* le, int n) {
  int width = ne_evaluator_candidate_width(le->evaluators[0]);
  return width == 1 ? 1 : ne_pool_chunk(le->pool, n, width, 4 * width);
}

static int local_evaluate(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop,
                          char* errstr) {
  local_exec* le = ex->impl;
  le->batch = batch;
  le->results = results;
  le->caller_stop = stop;
  le->abort = stop && *stop;
  le->failure_index = -1;
  // a stop request ends the episodes in hand too: the generation is dropped anyway
  for (int t = 0; t < le->n_threads; t++) ne_evaluator_set_stop(le->evaluators[t], stop);
  int rc = ne_pool_for(le->pool, batch->n, chunk_size(le, batch->n), eval_items, le, &le->abort);
  if (le->failure_index >= 0) return ne__set_error(errstr, le->failure_code, "%s", le->failure_msg);
  if (rc == NE_EINTR) return ne__set_error(errstr, rc, "evaluation interrupted");
  return rc;
}

static void local_describe(ne_executor* ex, char* buf, int size) {
  local_exec* le = ex->impl;
  snprintf(buf, (size_t)size, "%d thread%s", le->n_threads, le->n_threads == 1 ? "" : "s");
}

static void local_destroy(ne_executor* ex) {
  local_exec* le = ex->impl;
  if (le) {
    ne_pool_destroy(le->pool);
    for (int t = 0; le->evaluators && t < le->n_threads; t++) ne_evaluator_destroy(le->evaluators[t]);
    ne_free(le->evaluators);
    ne_cache_destroy(le->cache);
    pthread_mutex_destroy(&le->failure_mu);  // gym: bridge
    ne_free(le);
  }
  ne_free(ex);
}

static int local_set_result_hook(ne_executor* ex, ne_result_hook hook, void* user) {
  local_exec* le = ex->impl;
  le->on_result = hook;
  le->on_result_user = user;
  return 0;
}

static const ne_executor_vt local_vt = {.name = "local",
                                        .evaluate = local_evaluate,
                                        .describe = local_describe,
                                        .destroy = local_destroy,
                                        .set_result_hook = local_set_result_hook};

int ne_local_executor_create(const ne_env_spec* env, const ne_policy_spec* policy, int n_threads, size_t cache_bytes,
                             ne_executor** out, char* errstr) {
  *out = NULL;
  ne_executor* ex = ne_calloc(1, sizeof *ex);
  local_exec* le = ne_calloc(1, sizeof *le);
  if (!ex || !le) {
    ne_free(ex);
    ne_free(le);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  }
  ex->vt = &local_vt;
  ex->impl = le;
  pthread_mutex_init(&le->failure_mu, NULL);  // gym: bridge
  int rc = ne_pool_create(n_threads, &le->pool);
  if (rc) {
    local_destroy(ex);
    return ne__set_error(errstr, rc, "cannot start %d threads", n_threads);
  }
  le->n_threads = ne_pool_threads(le->pool);
  le->cache = ne_cache_create(policy->n_params, cache_bytes);
  le->evaluators = ne_calloc((size_t)le->n_threads, sizeof *le->evaluators);
  for (int t = 0; le->evaluators && t < le->n_threads; t++)
    le->evaluators[t] = ne_evaluator_create(env, policy, le->cache);
  int ok = le->cache && le->evaluators;
  for (int t = 0; ok && t < le->n_threads; t++) ok = le->evaluators[t] != NULL;
  if (!ok) {
    local_destroy(ex);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory creating %d evaluators", n_threads);
  }
  *out = ex;
  return 0;
}

int ne_local_executor_set_meta(ne_executor* ex, const ne_meta_spec* meta, char* errstr) {
  if (!ex || ex->vt != &local_vt) return ne__set_error(errstr, NE_EINVAL, "not a local executor");
  local_exec* le = ex->impl;
  for (int t = 0; t < le->n_threads; t++)
    if (ne_evaluator_set_meta(le->evaluators[t], meta) != 0)
      return ne__set_error(errstr, NE_ENOMEM, "out of memory for the inner loops of %d threads", le->n_threads);
  return 0;
}

int ne_local_executor_set_result_hook(ne_executor* ex, ne_result_hook hook, void* user) {
  if (!ex || ex->vt != &local_vt) return NE_EINVAL;
  return local_set_result_hook(ex, hook, user);
}

int ne_executor_set_result_hook(ne_executor* ex, ne_result_hook hook, void* user) {
  if (!ex || !ex->vt->set_result_hook) return NE_EINVAL;
  return ex->vt->set_result_hook(ex, hook, user);
}

int ne_executor_evaluate_missing(ne_executor* ex, const ne_batch* batch, const uint8_t* have, ne_result* results,
                                 const volatile int* stop, char* errstr) {
  if (!ex->vt->evaluate_missing) return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: no partial batches", ex->vt->name);
  return ex->vt->evaluate_missing(ex, batch, have, results, stop, errstr);
}
