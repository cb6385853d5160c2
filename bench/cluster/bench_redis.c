// SPDX-License-Identifier: MIT
// Master throughput over Redis: a synthetic master (ne_cluster_master_create with synthetic = 1)
// evaluates batches of synthetic candidates on `neuroevo worker --synthetic` processes that some
// driver started (bench/cluster/bench_redis.sh does it all), and reports results/s accepted, bytes per
// result and per candidate, and the round-trip latency of a 1-candidate round. Not a test: numbers
// only. usage: bench_redis URL [--candidates N] [--rounds R] [--chain L] [--chunk C] [--latency K]
// Without a URL (as `make bench` runs it) it runs bench/cluster/bench_redis.sh, which starts everything.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>  // getrusage: the master's own CPU per result
#include <unistd.h>

#include "core/util.h"
#include "driver.h"  // bench_run_driver
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"

#ifdef NE_HAVE_HIREDIS
typedef struct bench_opt {
  const char* url;  // Redis
  int candidates;   // per round
  int rounds;       // timed rounds
  int chain;        // seeds per candidate (GA generation depth)
  int chunk;        // candidates per task (0: automatic)
  int latency;      // 1-candidate rounds for the latency figure
} bench_opt;

// A GA-like batch: candidate i has a chain of `chain` seeds sharing a prefix with its parent.
static ne_batch* make_batch(const bench_opt* o, uint64_t** seeds_out) {
  ne_batch* b = ne_calloc(1, sizeof *b);
  ne_candidate* c = ne_calloc((size_t)o->candidates, sizeof *c);
  uint64_t* seeds = ne_malloc((size_t)o->candidates * (size_t)o->chain * sizeof *seeds);
  if (!b || !c || !seeds) exit(1);
  for (int i = 0; i < o->candidates; i++) {
    uint64_t* s = seeds + (size_t)i * (size_t)o->chain;
    for (int k = 0; k < o->chain; k++)
      s[k] = k + 1 < o->chain ? (uint64_t)(i % 20) * 1000003u + (uint64_t)k : (uint64_t)i;
    c[i] = (ne_candidate){NE_CAND_CHAIN, (uint32_t)i, 1, (uint64_t)i * 7919u, s, (uint32_t)o->chain, 0.01f, 0, 0, 0};
  }
  b->n = o->candidates;
  b->cands = c;
  *seeds_out = seeds;
  return b;
}

static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
      1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int run_rounds(ne_executor* ex, ne_batch* b, ne_result* res, int rounds, uint32_t* gen) {
  char err[NE_ERRSTR_LEN];
  for (int r = 0; r < rounds; r++) {
    b->generation = (*gen)++;
    if (ne_executor_evaluate(ex, b, res, NULL, err) != 0) {
      fprintf(stderr, "bench_redis: %s\n", err);
      return 1;
    }
  }
  return 0;
}

static int parse(int argc, char** argv, bench_opt* o) {
  *o = (bench_opt){NULL, 100000, 5, 1, 0, 200};
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '-') {
      o->url = argv[i];
      continue;
    }
    if (i + 1 >= argc) return 2;
    int v = atoi(argv[++i]);
    if (strcmp(argv[i - 1], "--candidates") == 0) o->candidates = v;
    else if (strcmp(argv[i - 1], "--rounds") == 0) o->rounds = v;
    else if (strcmp(argv[i - 1], "--chain") == 0) o->chain = v;
    else if (strcmp(argv[i - 1], "--chunk") == 0) o->chunk = v;
    else if (strcmp(argv[i - 1], "--latency") == 0) o->latency = v;
    else return 2;
  }
  return o->url && o->candidates > 0 && o->rounds > 0 && o->chain > 0 ? 0 : 2;
}

int main(int argc, char** argv) {
  bench_opt o;
  if (argc == 1) return bench_run_driver("bench_redis.sh");  // no URL: the script starts it all
  if (parse(argc, argv, &o)) {
    fprintf(stderr, "usage: bench_redis URL [--candidates N] [--rounds R] [--chain L] [--chunk C] [--latency K]\n");
    return 2;
  }
  char err[NE_ERRSTR_LEN];
  ne_config* cfg = ne_config_create();
  ne_config_load_string(cfg, "[run]\nalgorithm = ga\n[env]\nid = CartPole-v1\n[policy]\nhidden = 16\n", "bench", err);
  ne_cluster_master_options mo = {
      .url = o.url, .name = "bench", .chunk = o.chunk, .task_timeout_s = 30, .synthetic = 1};
  ne_executor* ex;
  if (ne_cluster_master_create(cfg, &mo, &ex, err) != 0) {
    fprintf(stderr, "bench_redis: %s\n", err);
    return 1;
  }
  uint64_t* seeds;
  ne_batch* b = make_batch(&o, &seeds);
  ne_result* res = ne_calloc((size_t)o.candidates, sizeof *res);
  uint32_t gen = 0;
  // warm-up round: workers join, caches fill
  int rc = run_rounds(ex, b, res, 1, &gen);
  ne_cluster_master_stats s0, s1;
  ne_cluster_master_get_stats(ex, &s0);
  double t0 = ne__now(), c0 = cpu_s();
  if (!rc) rc = run_rounds(ex, b, res, o.rounds, &gen);
  double dt = ne__now() - t0, dc = cpu_s() - c0;
  ne_cluster_master_get_stats(ex, &s1);
  uint64_t accepted = s1.accepted - s0.accepted;
  if (!rc)
    printf(
        "throughput: %d rounds x %d candidates (chain %d) on %d workers/%d threads: %.0f results/s accepted, "
        "%.1f result bytes/result, %.1f task bytes/candidate, master CPU %.2f us/result\n",
        o.rounds, o.candidates, o.chain, s1.live_workers, s1.live_threads, (double)accepted / dt,
        (double)(s1.result_bytes - s0.result_bytes) / (double)accepted,
        (double)(s1.task_bytes - s0.task_bytes) / (double)accepted, 1e6 * dc / (double)accepted);
  // latency: rounds of a single candidate
  int n = b->n;
  b->n = 1;
  t0 = ne__now();
  if (!rc && o.latency > 0) rc = run_rounds(ex, b, res, o.latency, &gen);
  if (!rc && o.latency > 0)
    printf("latency: %.3f ms per 1-candidate round (%d rounds)\n", (ne__now() - t0) * 1e3 / o.latency, o.latency);
  b->n = n;
  if (!rc) ne_cluster_master_finish(ex, err);
  ne_executor_destroy(ex);
  ne_free(res);
  ne_free(seeds);
  ne_free(b->cands);
  ne_free(b);
  ne_config_destroy(cfg);
  return rc;
}
#else
int main(void) {
  fprintf(stderr, "bench_redis: this build has no Redis support (install libhiredis-dev and rebuild)\n");
  return 2;
}
#endif
