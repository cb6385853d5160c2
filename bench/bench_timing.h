// SPDX-License-Identifier: MIT
// Timing shared by the C micro-benchmarks: the median time of one call of an operation, measured
// on a clock the benchmark chooses (wall time, or the thread's CPU time so that other load on the
// machine does not count).
#ifndef NE_BENCH_TIMING_H
#define NE_BENCH_TIMING_H

#include <stdlib.h>
#include <time.h>

#define BENCH_MIN_SECONDS 0.2
#define BENCH_REPEATS 3

static inline double bench_clock(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// Seconds of `clock` per call of fn(ctx): the median over BENCH_REPEATS runs of at least
// BENCH_MIN_SECONDS each (one run when a single call takes over a second).
static inline double bench_time_op(clockid_t clock, void (*fn)(void*), void* ctx) {
  double per_op[BENCH_REPEATS];
  int done = 0;
  for (; done < BENCH_REPEATS; done++) {
    long iters = 0;
    double t0 = bench_clock(clock), t;
    do {
      fn(ctx);
      iters++;
    } while ((t = bench_clock(clock)) - t0 < BENCH_MIN_SECONDS);
    per_op[done] = (t - t0) / (double)iters;
    if (per_op[done] > 1.0) {
      done++;
      break;
    }
  }
  qsort(per_op, (size_t)done, sizeof *per_op, bench_cmp_double);
  return per_op[done / 2];
}

#endif
