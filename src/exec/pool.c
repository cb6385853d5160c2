// SPDX-License-Identifier: MIT
// Parallel-for thread pool (see pool.h). Workers sleep on a condition variable between jobs; a job
// is published by bumping `job_id`, items are claimed with an atomic counter, and the last thread
// to finish wakes the caller. One mutex, two condition variables, no allocation per job.
#include "neuroevo/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

struct ne_pool {
  int n_threads;         // threads in all, the caller included
  pthread_t* threads;    // (n_threads - 1) workers
  pthread_mutex_t lock;  // guards job fields and the counters below
  pthread_cond_t wake;   // a new job or shutdown
  pthread_cond_t done;   // the job's last worker finished
  unsigned long job_id;  // incremented per job
  int shutdown;          // 1: workers exit
  int busy;              // workers still inside the current job
  // the current job
  ne_pool_work_fn fn;
  void* data;
  int n, chunk;
  const volatile int* stop;
  atomic_int next;  // next unclaimed item
};

typedef struct worker_arg {
  ne_pool* pool;
  int thread;
} worker_arg;

int ne_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

// Claims and runs chunks until none are left or a stop is requested.
static void drain(ne_pool* p, int thread) {
  for (;;) {
    if (p->stop && *p->stop) return;
    int begin = atomic_fetch_add(&p->next, p->chunk);
    if (begin >= p->n) return;
    int end = begin + p->chunk < p->n ? begin + p->chunk : p->n;
    p->fn(p->data, thread, begin, end);
  }
}

static void* worker_main(void* arg) {
  worker_arg* w = arg;
  ne_pool* p = w->pool;
  int thread = w->thread;
  ne_free(w);
  unsigned long seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->shutdown && p->job_id == seen) pthread_cond_wait(&p->wake, &p->lock);
    if (p->shutdown) break;
    seen = p->job_id;
    pthread_mutex_unlock(&p->lock);
    drain(p, thread);
    pthread_mutex_lock(&p->lock);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

int ne_pool_create(int n_threads, ne_pool** out) {
  *out = NULL;
  if (n_threads <= 0) n_threads = ne_cpu_count();
  ne_pool* p = ne_calloc(1, sizeof *p);
  if (!p) return NE_ENOMEM;
  p->n_threads = n_threads;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  p->threads = ne_calloc((size_t)n_threads, sizeof *p->threads);
  if (!p->threads) {
    ne_pool_destroy(p);
    return NE_ENOMEM;
  }
  // start the workers; on failure, shut down the ones already running
  for (int t = 1; t < n_threads; t++) {
    worker_arg* w = ne_malloc(sizeof *w);
    if (w) *w = (worker_arg){p, t};
    if (!w || pthread_create(&p->threads[t - 1], NULL, worker_main, w) != 0) {
      ne_free(w);
      p->n_threads = t;
      ne_pool_destroy(p);
      return w ? NE_EIO : NE_ENOMEM;
    }
  }
  *out = p;
  return 0;
}

void ne_pool_destroy(ne_pool* p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->shutdown = 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int t = 1; t < p->n_threads; t++) pthread_join(p->threads[t - 1], NULL);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  ne_free(p->threads);
  ne_free(p);
}

int ne_pool_threads(const ne_pool* p) { return p->n_threads; }

int ne_pool_chunk(const ne_pool* pool, int n, int lo, int hi) {
  int threads = ne_pool_threads(pool);
  if (threads == 1) return n > 1 ? n : 1;
  int chunk = n / (4 * threads);
  return chunk < lo ? lo : (chunk > hi ? hi : chunk);
}

int ne_pool_for(ne_pool* p, int n, int chunk, ne_pool_work_fn fn, void* data, const volatile int* stop) {
  if (n <= 0) return 0;
  if (chunk < 1) chunk = 1;
  // publish the job, work on it from this thread too, then wait for the workers
  pthread_mutex_lock(&p->lock);
  p->fn = fn;
  p->data = data;
  p->n = n;
  p->chunk = chunk;
  p->stop = stop;
  atomic_store(&p->next, 0);
  p->busy = p->n_threads - 1;
  p->job_id++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  drain(p, 0);
  pthread_mutex_lock(&p->lock);
  while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
  return stop && *stop ? NE_EINTR : 0;
}
