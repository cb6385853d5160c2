// SPDX-License-Identifier: MIT
// Thread pool: every item runs exactly once for any thread count and chunk size, the caller's
// thread takes part, jobs can follow each other, and a raised stop flag ends a job early.
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "neuroevo/error.h"
#include "neuroevo/pool.h"
#include "test.h"

typedef struct counts {
  atomic_int hits[1000];
  volatile int* stop;
  int stop_after;
  atomic_int done;
} counts;

static void count_items(void* data, int thread, int begin, int end) {
  (void)thread;  // which thread ran an item is the next test's business
  counts* c = data;
  for (int i = begin; i < end; i++) atomic_fetch_add(&c->hits[i], 1);
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
        for (int i = 0; i < 1000; i++) {
          int hits = atomic_load(&c.hits[i]);
          ASSERT_EQ(hits, 1);
        }
      }
      ne_pool_destroy(pool);
    }
}

// Items as the caller-participation test sees them: which OS thread ran each thread index, and
// whether the caller (index 0) ran anything yet. Other threads hold their first item until it has
// (5 s at most), so the caller always finds items left to take.
typedef struct caller_probe {
  pthread_t caller;         // the thread that called ne_pool_for
  atomic_int caller_ran;    // items index 0 ran
  atomic_int wrong_thread;  // items whose index said 0 but ran elsewhere, or the reverse
  atomic_int bad_index;     // thread indices outside [0, threads)
  int threads;              // the pool's size
} caller_probe;

static void probe_items(void* data, int thread, int begin, int end) {
  caller_probe* c = data;
  if (thread < 0 || thread >= c->threads) atomic_fetch_add(&c->bad_index, 1);
  int on_caller = pthread_equal(pthread_self(), c->caller) != 0;
  if (on_caller != (thread == 0)) atomic_fetch_add(&c->wrong_thread, 1);
  if (thread == 0) {
    atomic_fetch_add(&c->caller_ran, end - begin);
    return;
  }
  // a pool thread waits (bounded) for the caller to take part
  struct timespec ms = {0, 1000000};
  for (int i = 0; i < 5000 && atomic_load(&c->caller_ran) == 0; i++) nanosleep(&ms, NULL);
}

static void callers_thread_takes_part_as_thread_0(void) {
  int threads[] = {1, 2, 4};
  for (int t = 0; t < 3; t++) {
    ne_pool* pool;
    ASSERT_EQ(ne_pool_create(threads[t], &pool), 0);
    for (int job = 0; job < 3; job++) {
      caller_probe c = {.caller = pthread_self(), .threads = threads[t]};
      ASSERT_EQ(ne_pool_for(pool, 100, 1, probe_items, &c, NULL), 0);
      int caller_items = atomic_load(&c.caller_ran), wrong_thread = atomic_load(&c.wrong_thread);
      int bad_index = atomic_load(&c.bad_index);
      ASSERT_GT(caller_items, 0);
      ASSERT_EQ(wrong_thread, 0);
      ASSERT_EQ(bad_index, 0);
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

TEST_MAIN(TEST_ENTRY(every_item_runs_once), TEST_ENTRY(callers_thread_takes_part_as_thread_0),
          TEST_ENTRY(empty_job_returns_at_once), TEST_ENTRY(stop_flag_skips_remaining_chunks),
          TEST_ENTRY(destroy_null_is_noop))
