// SPDX-License-Identifier: MIT
// The executor interface (executor.h): what the run loop calls, dispatched to an implementation's
// table, the local thread pool (local.c) or the Redis master (redis_master.c). Holds no state of its
// own; an implementation is an ne_executor_vt and the struct it points impl at.
#include "neuroevo/executor.h"

#include "core/util.h"  // ne__set_error

int ne_executor_evaluate(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop,
                         char* errstr) {
  return ex->vt->evaluate(ex, batch, results, stop, errstr);
}

int ne_executor_evaluate_many(ne_executor* ex, int n, const ne_batch* const* batches, const uint8_t* const* have,
                              ne_result* const* results, const volatile int* stop, char* errstr) {
  if (n < 1 || n > NE_EXECUTOR_MAX_BATCHES)
    return ne__set_error(errstr, NE_EINVAL, "%d batches to evaluate together: 1 to %d", n, NE_EXECUTOR_MAX_BATCHES);
  if (ex->vt->evaluate_many) return ex->vt->evaluate_many(ex, n, batches, have, results, stop, errstr);
  for (int k = 0; have && k < n; k++)
    if (have[k]) return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: no partial batches", ex->vt->name);
  int rc = 0;
  for (int k = 0; k < n && !rc; k++) rc = ex->vt->evaluate(ex, batches[k], results[k], stop, errstr);
  return rc;
}

int ne_executor_evaluate_missing(ne_executor* ex, const ne_batch* batch, const uint8_t* have, ne_result* results,
                                 const volatile int* stop, char* errstr) {
  return ne_executor_evaluate_many(ex, 1, &batch, &have, &results, stop, errstr);
}

void ne_executor_describe(ne_executor* ex, char* buf, int size) {
  if (size > 0) buf[0] = '\0';
  if (ex->vt->describe) ex->vt->describe(ex, buf, size);
}

void ne_executor_destroy(ne_executor* ex) {
  if (ex) ex->vt->destroy(ex);
}
