// SPDX-License-Identifier: MIT
// The swappable allocator behind ne_malloc & co., plus a fault-injection countdown for tests.
// The table is process-wide configuration set once before objects exist (like hiredisAllocFuncs);
// the countdown is atomic so allocation from pool threads stays race-free.
#include "neuroevo/alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static ne_alloc_funcs current = {malloc, calloc, realloc, free};
static atomic_long fail_countdown = -1;

ne_alloc_funcs ne_set_allocator(const ne_alloc_funcs* funcs) {
  ne_alloc_funcs prev = current;
  if (funcs) current = *funcs;
  else current = (ne_alloc_funcs){malloc, calloc, realloc, free};
  return prev;
}

void ne_alloc_fail_after(long n) { atomic_store(&fail_countdown, n < 0 ? -1 : n); }

// true when an injected failure is due
static int injected_failure(void) {
  long left = atomic_load(&fail_countdown);
  while (left >= 0) {
    if (left == 0) return 1;
    if (atomic_compare_exchange_weak(&fail_countdown, &left, left - 1)) return 0;
  }
  return 0;
}

void* ne_malloc(size_t size) { return injected_failure() ? NULL : current.malloc_fn(size ? size : 1); }

void* ne_calloc(size_t count, size_t size) {
  return injected_failure() ? NULL : current.calloc_fn(count ? count : 1, size ? size : 1);
}

void* ne_realloc(void* ptr, size_t size) {
  return injected_failure() ? NULL : current.realloc_fn(ptr, size ? size : 1);
}

void ne_free(void* ptr) {
  if (ptr) current.free_fn(ptr);
}

char* ne_strdup(const char* s) {
  size_t n = strlen(s) + 1;
  char* copy = ne_malloc(n);
  if (copy) memcpy(copy, s, n);
  return copy;
}
