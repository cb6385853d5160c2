// SPDX-License-Identifier: MIT
// The local executor: the thread pool plus one evaluator per thread and one parameter cache shared
// by all. Candidates are handed out one at a time (episode lengths vary by orders of magnitude) and
// each result lands at its candidate's index, so the outcome is independent of the thread count.
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
} local_exec;

static void eval_items(void* data, int thread, int begin, int end) {
  local_exec* le = data;
  for (int i = begin; i < end; i++)
    ne_evaluator_run(le->evaluators[thread], le->batch, &le->batch->cands[i], &le->results[i]);
}

static int local_evaluate(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop,
                          char* errstr) {
  local_exec* le = ex->impl;
  le->batch = batch;
  le->results = results;
  int rc = ne_pool_for(le->pool, batch->n, 1, eval_items, le, stop);
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
    ne_free(le);
  }
  ne_free(ex);
}

static const ne_executor_vt local_vt = {"local", local_evaluate, local_describe, local_destroy};

int ne_local_executor_create(const ne_env_spec* env, const ne_policy_spec* policy, int n_threads,
                             size_t cache_bytes, ne_executor** out, char* errstr) {
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

int ne_executor_evaluate(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop,
                         char* errstr) {
  return ex->vt->evaluate(ex, batch, results, stop, errstr);
}

void ne_executor_destroy(ne_executor* ex) {
  if (ex) ex->vt->destroy(ex);
}
