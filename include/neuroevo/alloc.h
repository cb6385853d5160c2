// SPDX-License-Identifier: MIT
// All library allocation goes through these wrappers so that tests can inject allocation failures
// (SQLite-style fault injection) and embedders can route memory to their own allocator.
#ifndef NEUROEVO_ALLOC_H
#define NEUROEVO_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// A replaceable allocator table; every function must be thread-safe.
typedef struct ne_alloc_funcs {
  void* (*malloc_fn)(size_t size);
  void* (*calloc_fn)(size_t count, size_t size);
  void* (*realloc_fn)(void* ptr, size_t size);
  void (*free_fn)(void* ptr);
} ne_alloc_funcs;

// Replaces the allocator (NULL restores libc's); returns the previous table. Call before creating
// any object: memory must be freed by the allocator that made it.
ne_alloc_funcs ne_set_allocator(const ne_alloc_funcs* funcs);

// malloc/calloc/realloc/free through the current table. Caller frees with ne_free. Nullable: ptr.
void* ne_malloc(size_t size);
void* ne_calloc(size_t count, size_t size);
void* ne_realloc(void* ptr, size_t size);
void ne_free(void* ptr);

// Copies a NUL-terminated string; caller frees with ne_free. Returns NULL on allocation failure.
char* ne_strdup(const char* s);

// Test hook: the next `n` allocations succeed, every one after fails, until called with n < 0.
void ne_alloc_fail_after(long n);

#ifdef __cplusplus
}
#endif
#endif
