// SPDX-License-Identifier: MIT
// The local executor: the thread pool plus one evaluator per thread and one parameter cache shared
// by all. Candidates are handed out one at a time (episode lengths vary by orders of magnitude) and
// each result lands at its candidate's index, so the outcome is independent of the thread count.
// Several batches evaluated together are one pool job, their candidates one after another.
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
  // the batches in flight: pool item j is candidate j - first[k] of batches[k], first[k] <= j < first[k + 1]
  int n_batches;
  const ne_batch* batches[NE_EXECUTOR_MAX_BATCHES];
  const uint8_t* have[NE_EXECUTOR_MAX_BATCHES];  // (batches[k]->n) 1: the caller has the result (NULL: none)
  ne_result* results[NE_EXECUTOR_MAX_BATCHES];
  int first[NE_EXECUTOR_MAX_BATCHES + 1];
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

// The batch that pool item j belongs to.
static int batch_of(const local_exec* le, int j) {
  int k = 0;
  while (j >= le->first[k + 1]) k++;
  return k;
}

static void eval_items(void* data, int thread, int begin, int end) {
  local_exec* le = data;
  ne_evaluator* ev = le->evaluators[thread];
  for (int j = begin; j < end;) {
    if (le->caller_stop && *le->caller_stop) le->abort = 1;
    int b = batch_of(le, j), i = j - le->first[b], stop_at = end < le->first[b + 1] ? end : le->first[b + 1];
    const ne_batch* batch = le->batches[b];
    const uint8_t* have = le->have[b];
    ne_result* results = le->results[b];
    if (have && have[i]) {  // the caller has it (a resumed run's finished candidate)
      j++;
      continue;
    }
    int run = 1;  // the missing candidates from i on, all of one batch
    while (j + run < stop_at && !(have && have[i + run])) run++;
    // one candidate, or a run of one-episode candidates in lockstep (small MLPs)
    int k = ne_evaluator_run_many(ev, batch, &batch->cands[i], run, &results[i]);
    for (int c = i; c < i + k; c++) {
      int rc = results[c].status;
      if (rc == NE_EINTR) {  // ended early by the caller's stop: the batch is abandoned
        le->abort = 1;
        return;
      }
      const char* why = rc < 0 && k == 1 ? ne_evaluator_env_error(ev) : NULL;
      if (why) record_env_failure(le, le->first[b] + c, rc, why);
      else if (le->on_result) le->on_result(le->on_result_user, &batch->cands[c], &results[c]);
    }
    j += k;
  }
}

// Candidates per pool chunk: one (episode lengths vary by orders of magnitude, so threads take the
// next candidate as they finish), or where candidates run in lockstep enough to keep the slots
// busy while every thread still gets several chunks.
static int chunk_size(const local_exec* le, int n) {
  int width = ne_evaluator_candidate_width(le->evaluators[0]);
  return width == 1 ? 1 : ne_pool_chunk(le->pool, n, width, 4 * width);
}

// The batches one after another as one pool job: a thread that finishes batch 0's last candidate
// takes batch 1's next one.
static int local_evaluate_many(ne_executor* ex, int n, const ne_batch* const* batches, const uint8_t* const* have,
                               ne_result* const* results, const volatile int* stop, char* errstr) {
  local_exec* le = ex->impl;
  le->n_batches = n;
  le->first[0] = 0;
  for (int k = 0; k < n; k++) {
    le->batches[k] = batches[k];
    le->have[k] = have ? have[k] : NULL;
    le->results[k] = results[k];
    le->first[k + 1] = le->first[k] + batches[k]->n;
  }
  le->caller_stop = stop;
  le->abort = stop && *stop;
  le->failure_index = -1;
  // a stop request ends the episodes in hand too: the generation is dropped anyway
  for (int t = 0; t < le->n_threads; t++) ne_evaluator_set_stop(le->evaluators[t], stop);
  int total = le->first[n];
  int rc = ne_pool_for(le->pool, total, chunk_size(le, total), eval_items, le, &le->abort);
  if (le->failure_index >= 0) return ne__set_error(errstr, le->failure_code, "%s", le->failure_msg);
  if (rc == NE_EINTR) return ne__set_error(errstr, rc, "evaluation interrupted");
  return rc;
}

static int local_evaluate(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop,
                          char* errstr) {
  return local_evaluate_many(ex, 1, &batch, NULL, &results, stop, errstr);
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
                                        .set_result_hook = local_set_result_hook,
                                        .evaluate_many = local_evaluate_many};

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
