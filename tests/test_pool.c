// SPDX-License-Identifier: MIT
// Thread pool: every item runs exactly once for any thread count and chunk size, the caller's
// thread takes part, jobs can follow each other, and a raised stop flag ends a job early.
#include <stdatomic.h>

#include "neuroevo/error.h"
#include "neuroevo/pool.h"
#include "test.h"

typedef struct counts {
  atomic_int hits[1000];
  atomic_int threads_seen[8];
  volatile int* stop;
  int stop_after;
  atomic_int done;
} counts;

static void count_items(void* data, int thread, int begin, int end) {
  counts* c = data;
  for (int i = begin; i < end; i++) atomic_fetch_add(&c->hits[i], 1);
  atomic_fetch_add(&c->threads_seen[thread], 1);
  if (c->stop && atomic_fetch_add(&c->done, end - begin) + (end - begin) >= c->stop_after) *c->stop = 1;
}

static void every_item_runs_once(void) {
  int threads[] = {1, 2, 3, 8};
  int chunks[] = {1, 7, 1000};
  for (int t = 0; t < 4; t++)
    for (int k = 0; k < 3; k++) {
      ne_pool* pool;
      ASSERT_EQ(ne_pool_create(threads[t], &pool), 0);
      ASSERT_EQ(ne_pool_threads(pool), threads[t]);
      for (int job = 0; job < 3; job++) {
        static counts c;
        memset(&c, 0, sizeof c);
        ASSERT_EQ(ne_pool_for(pool, 1000, chunks[k], count_items, &c, NULL), 0);
        for (int i = 0; i < 1000; i++) ASSERT_EQ(atomic_load(&c.hits[i]), 1);
      }
      ne_pool_destroy(pool);
    }
}

static void empty_job_returns_at_once(void) {
  ne_pool* pool;
  ASSERT_EQ(ne_pool_create(2, &pool), 0);
  ASSERT_EQ(ne_pool_for(pool, 0, 1, count_items, NULL, NULL), 0);
  ne_pool_destroy(pool);
}

static void stop_flag_skips_remaining_chunks(void) {
  ne_pool* pool;
  ASSERT_EQ(ne_pool_create(2, &pool), 0);
  static counts c;
  memset(&c, 0, sizeof c);
  volatile int stop = 0;
  c.stop = &stop;
  c.stop_after = 10;
  ASSERT_EQ(ne_pool_for(pool, 1000, 1, count_items, &c, &stop), NE_EINTR);
  int ran = 0;
  for (int i = 0; i < 1000; i++) ran += atomic_load(&c.hits[i]);
  ASSERT_GE(ran, 10);
  ASSERT_LT(ran, 1000);
  ne_pool_destroy(pool);
}

static void destroy_null_is_noop(void) { ne_pool_destroy(NULL); }

TEST_MAIN(TEST_ENTRY(every_item_runs_once), TEST_ENTRY(empty_job_returns_at_once),
          TEST_ENTRY(stop_flag_skips_remaining_chunks), TEST_ENTRY(destroy_null_is_noop))
