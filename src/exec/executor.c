// SPDX-License-Identifier: MIT
// The executor interface (executor.h): what the run loop calls, dispatched to an implementation's
// table, the local thread pool (local.c) or the Redis master (redis_master.c). Holds no state of its
// own; an implementation is an ne_executor_vt and the struct it points impl at.
#include "neuroevo/executor.h"

int ne_executor_evaluate(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop,
                         char* errstr) {
  return ex->vt->evaluate(ex, batch, results, stop, errstr);
}

void ne_executor_describe(ne_executor* ex, char* buf, int size) {
  if (size > 0) buf[0] = '\0';
  if (ex->vt->describe) ex->vt->describe(ex, buf, size);
}

void ne_executor_destroy(ne_executor* ex) {
  if (ex) ex->vt->destroy(ex);
}
