// SPDX-License-Identifier: MIT
// Listing runs from their records (`neuroevo runs`): one real CartPole run is trained, its run
// directory (run.json, config.ini, a metrics.csv of 2000 generations) copied 5000 times into 50
// study-like folders, and the listing's work, ne_runinfo_scan + ne_runinfo_load of every run, timed
// with the page cache warm (the median of 3 passes; wall and process CPU time). The figure says
// whether the run directories alone (no index file) list fast enough. About 20 s, mostly writing
// the copies.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "neuroevo/config.h"
#include "neuroevo/run.h"
#include "neuroevo/runinfo.h"

#include "bench_timing.h"

#define RUNS 5000
#define STUDIES 50
#define ROWS 2000

static void die(const char* what, const char* err) {
  fprintf(stderr, "bench_runs: %s: %s\n", what, err);
  exit(1);
}

// trains one small run into dir (the template)
static void train_template(const char* dir) {
  char err[256];
  ne_config* cfg = ne_config_create();
  if (!cfg || ne_config_load_file(cfg, NE_SOURCE_DIR "/configs/cartpole-ga.ini", err)) die("config", err);
  const char* items[] = {"ga.population=20", "ga.truncation=5",   "run.generations=2",
                         "run.target=none",  "run.plot_every=-1", "run.threads=1"};
  for (int i = 0; i < 6; i++)
    if (ne_config_override(cfg, items[i], "bench", err)) die(items[i], err);
  ne_run_options opt = {.out_dir = dir, .quiet = 1};
  ne_run* run = NULL;
  if (ne_run_create(cfg, &opt, &run, err) || ne_run_loop(run, err)) die("template run", err);
  ne_run_destroy(run);
  ne_config_destroy(cfg);
}

static char* slurp(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) die("read", path);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  rewind(f);
  char* text = malloc(*len + 1);
  if (!text || fread(text, 1, *len, f) != *len) die("read", path);
  fclose(f);
  return text;
}

static void spit(const char* path, const char* text, size_t len) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(text, 1, len, f) != len) die("write", path);
  fclose(f);
}

// a metrics.csv of ROWS generations
static char* long_metrics(size_t* len) {
  size_t cap = (size_t)ROWS * 96 + 128, used = 0;
  char* text = malloc(cap);
  if (!text) die("metrics", "out of memory");
  used += (size_t)snprintf(text, cap, "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean\n");
  for (int g = 0; g < ROWS; g++)
    used += (size_t)snprintf(text + used, cap - used, "%d,%d,%d,%.3f,%.6g,%.6g,%.6g,%.6g\n", g, 23 * (g + 1),
                             4000 * (g + 1), 0.05 * g, 10.0 + g * 0.2, 9.0 + g * 0.1, 9.5 + g * 0.1, 10.0 + g * 0.15);
  *len = used;
  return text;
}

static int count_run(void* user, const char* dir) {
  ne_runinfo r;
  if (ne_runinfo_load(dir, &r, NULL) == 0) {
    (*(int*)user) += r.generations == ROWS;
    ne_runinfo_free(&r);
  }
  return 0;
}

int main(void) {
  char root[] = "/tmp/bench_runs_XXXXXX", path[1200], tmpl[600];
  if (!mkdtemp(root)) die("mkdtemp", root);
  snprintf(tmpl, sizeof tmpl, "%s/template", root);
  train_template(tmpl);
  size_t json_len, ini_len, metrics_len;
  snprintf(path, sizeof path, "%s/run.json", tmpl);
  char* json = slurp(path, &json_len);
  snprintf(path, sizeof path, "%s/config.ini", tmpl);
  char* ini = slurp(path, &ini_len);
  char* metrics = long_metrics(&metrics_len);
  // STUDIES folders of RUNS / STUDIES runs each
  char runs[600];
  snprintf(runs, sizeof runs, "%s/runs", root);
  mkdir(runs, 0755);
  for (int i = 0; i < RUNS; i++) {
    char dir[1000];
    snprintf(dir, sizeof dir, "%s/study%02d", runs, i / (RUNS / STUDIES));
    mkdir(dir, 0755);
    snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/seed%d", i % (RUNS / STUDIES));
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/run.json", dir);
    spit(path, json, json_len);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    spit(path, ini, ini_len);
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    spit(path, metrics, metrics_len);
  }
  // three passes, the median
  double wall[3], cpu[3];
  int found = 0;
  for (int pass = 0; pass < 3; pass++) {
    const char* paths[1] = {runs};
    found = 0;
    double w0 = bench_clock(CLOCK_MONOTONIC), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    char err[256];
    if (ne_runinfo_scan(paths, 1, count_run, &found, err)) die("scan", err);
    wall[pass] = bench_clock(CLOCK_MONOTONIC) - w0;
    cpu[pass] = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
  }
  qsort(wall, 3, sizeof wall[0], bench_cmp_double);
  qsort(cpu, 3, sizeof cpu[0], bench_cmp_double);
  printf("listing %d runs (%d generations each, run.json %zu B): %.0f ms wall, %.0f ms CPU, %.1f us a run%s\n", RUNS,
         ROWS, json_len, wall[1] * 1e3, cpu[1] * 1e3, wall[1] * 1e6 / RUNS, found == RUNS ? "" : " (WRONG COUNT)");
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  if (system(cmd) != 0) fprintf(stderr, "bench_runs: could not remove %s\n", root);
  free(json);
  free(ini);
  free(metrics);
  return found == RUNS ? 0 : 1;
}
