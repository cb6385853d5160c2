// SPDX-License-Identifier: MIT
// A fixed thread pool that runs parallel-for jobs: items [0, n) are handed out one chunk at a time
// from an atomic counter, so long and short episodes balance across threads. The caller's thread
// works too (as thread 0) and the call returns when every item is done. The pool is an explicit
// object passed around, never a global; which thread ran an item never affects a result.
#ifndef NEUROEVO_POOL_H
#define NEUROEVO_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ne_pool ne_pool;

// Work callback: process items [begin, end) on thread `thread` (0 .. threads-1).
typedef void (*ne_pool_work_fn)(void* data, int thread, int begin, int end);

// Creates a pool of n_threads threads in all (the caller counts as one; n_threads <= 0 means one
// per online core). Caller frees with ne_pool_destroy. Returns 0, NE_ENOMEM or NE_EIO.
int ne_pool_create(int n_threads, ne_pool** out);

// Joins the threads and frees the pool. Nullable: pool.
void ne_pool_destroy(ne_pool* pool);

// Number of threads (the caller included).
int ne_pool_threads(const ne_pool* pool);

// Runs fn over [0, n) in chunks of `chunk` items and waits for all. If *stop becomes non-zero,
// chunks not yet started are skipped and NE_EINTR is returned. Not reentrant: one job at a time per
// pool. Nullable: stop.
int ne_pool_for(ne_pool* pool, int n, int chunk, ne_pool_work_fn fn, void* data, const volatile int* stop);

// A chunk size for ne_pool_for over n items: all of them with one thread (nothing to balance),
// else about four chunks a thread, within [lo, hi] (lo: what keeps an item's batching busy).
int ne_pool_chunk(const ne_pool* pool, int n, int lo, int hi);

// Number of online cores.
int ne_cpu_count(void);

#ifdef __cplusplus
}
#endif
#endif
