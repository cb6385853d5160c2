// SPDX-License-Identifier: MIT
// The optimizer bridge's overhead (run.algorithm = nevergrad, src/algos/pyopt.c): CPU time per
// generation of ask + tell through the bridge (the C side's vt->ask / vt->tell, the optimizer server's
// Nevergrad ask x population and tell x population, the vectors through the shared block) against
// Nevergrad's own ask/tell loop in plain Python (bench/micro/nevergrad_loop.py), for a 10,000-parameter
// problem and population 64, no evaluation on either side. CPU time of both processes on the bridge
// side (this one, and its server from /proc/PID/schedstat), the evaluation (the sphere) outside the
// clock on both sides, interleaved pairs, medians.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"

#define DIM 10000
#define POP 64
#define WARMUP 3
#define GENS 20
#define PAIRS 5

static void die(const char* what, const char* err) {
  fprintf(stderr, "bench_pyopt: %s: %s\n", what, err);
  exit(1);
}

// CPU seconds of this process (nanosecond clock)
static double self_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

// the optimizer server: this process's one child (found once, by scanning /proc)
static int server_pid(void) {
  DIR* d = opendir("/proc");
  struct dirent* e;
  int found = 0;
  while (d && (e = readdir(d)) && !found) {
    char path[288], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE* f = fopen(path, "r");
    if (!f) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char* p = strrchr(buf, ')');
    int ppid;
    if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == (int)getpid()) found = atoi(e->d_name);
  }
  if (d) closedir(d);
  return found;
}

// CPU seconds the server's main thread has run (/proc/PID/schedstat: nanoseconds on a CPU)
static double server_cpu(int pid) {
  char path[64];
  unsigned long long ns = 0;
  snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
  FILE* f = fopen(path, "r");
  if (f && fscanf(f, "%llu", &ns) != 1) ns = 0;
  if (f) fclose(f);
  return (double)ns * 1e-9;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// CPU seconds per generation through the bridge (mean of GENS), after WARMUP generations
static double bridge(const char* optimizer) {
  char err[NE_ERRSTR_LEN], text[512];
  ne_policy_spec spec = {0};  // a black-box problem: DIM parameters, no controller
  spec.sizes[0] = DIM;
  spec.n_params = DIM;
  ne_config* cfg = ne_config_create();
  snprintf(text, sizeof text,
           "[run]\nalgorithm = nevergrad\n[nevergrad]\noptimizer = %s\npopulation = %d\nsigma = 0.1\n"
           "x0 = zeros\neval_recommendation = false\nsnapshot_mb = 0\n",
           optimizer, POP);
  if (!cfg || ne_config_load_string(cfg, text, "bench", err)) die("config", err);
  ne_problem prob = {&spec, DIM, 1, 1, 1, 0};
  const ne_algo_vt* vt = ne_algo_find("nevergrad");
  void* self;
  if (!vt || vt->create(&prob, cfg, &self, err)) die(optimizer, err);
  ne_result res[POP];
  memset(res, 0, sizeof res);
  int pid = server_pid();
  if (!pid) die(optimizer, "no optimizer server process found");
  double cpu = 0;
  for (int g = 0; g < WARMUP + GENS; g++) {
    const ne_batch* b;
    int done;
    double t0 = self_cpu() + server_cpu(pid);
    if (vt->ask(self, &b) || b->n != POP) die(optimizer, vt->last_error(self) ? vt->last_error(self) : "ask failed");
    double t1 = self_cpu() + server_cpu(pid);
    // the sphere's values as results: evaluation, not timed on either side
    for (int k = 0; k < POP; k++) {
      const float* x = b->blobs[b->cands[k].blob].data;
      double f = 0;
      for (int i = 0; i < DIM; i++) f += (double)x[i] * x[i];
      res[k].fitness = -f;
    }
    double t2 = self_cpu() + server_cpu(pid);
    if (vt->tell(self, b, res, &done)) die(optimizer, vt->last_error(self) ? vt->last_error(self) : "tell failed");
    if (g >= WARMUP) cpu += t1 - t0 + self_cpu() + server_cpu(pid) - t2;
  }
  double per_gen = cpu / GENS;
  vt->destroy(self);
  ne_config_destroy(cfg);
  return per_gen;
}

// CPU seconds per generation of Nevergrad's own loop (mean of GENS), in a python3 process
static double peer(const char* optimizer) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "python3 %s/bench/micro/nevergrad_loop.py %s %d %d %d %d", NE_SOURCE_DIR, optimizer, DIM,
           POP, WARMUP, GENS);
  FILE* p = popen(cmd, "r");
  if (!p) die("peer", "popen failed");
  double per_gen[GENS];
  int n = 0;
  while (n < GENS && fscanf(p, "%lf", &per_gen[n]) == 1) n++;
  if (pclose(p) != 0 || n != GENS) die("peer", "bench/micro/nevergrad_loop.py failed (is nevergrad installed?)");
  double sum = 0;
  for (int i = 0; i < GENS; i++) sum += per_gen[i];
  return sum / GENS;
}

int main(void) {
  static const char* const optimizers[] = {"OnePlusOne", "TBPSA"};
  printf(
      "optimizer bridge vs Nevergrad's own loop: %d parameters, population %d, CPU ms per generation (ask + tell),\n"
      "mean of %d generations per block, %d interleaved pairs\n\n",
      DIM, POP, GENS, PAIRS);
  printf("%-11s %5s %12s %12s %14s %8s\n", "optimizer", "pair", "bridge ms", "own loop ms", "overhead ms", "ratio");
  for (size_t o = 0; o < sizeof optimizers / sizeof optimizers[0]; o++) {
    double b[PAIRS], q[PAIRS], over[PAIRS], ratio[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
      b[i] = bridge(optimizers[o]) * 1e3;
      q[i] = peer(optimizers[o]) * 1e3;
      over[i] = b[i] - q[i];
      ratio[i] = b[i] / q[i];
      printf("%-11s %5d %12.2f %12.2f %14.2f %8.3f\n", optimizers[o], i + 1, b[i], q[i], over[i], ratio[i]);
    }
    printf("%-11s %5s %12.2f %12.2f %14.2f %8.3f\n\n", optimizers[o], "med", median(b, PAIRS), median(q, PAIRS),
           median(over, PAIRS), median(ratio, PAIRS));
  }
  return 0;
}
