// SPDX-License-Identifier: MIT
// The master's side of the scale benchmark (bench/cluster/bench_scale.sh starts the rest: redis-server,
// network namespaces, relays, and `neuroevo worker --simulate --count` hosts). It trains a real GA
// or ES (the runner, the algorithm, checkpoints: everything a master does) over the Redis master
// executor with synthetic results, times every round (with run.overlap, a round may carry the
// next generation's candidates asked ahead), and prints one `cell` line of key=value figures over
// generations 1..G-2 (generation 0 is the warm-up: workers join; the last one asks nothing ahead,
// so with overlap it would be a lone re-evaluation round that a long run has once):
//   evals_s     episodes per second the run asked (from the end of generation 0's rounds to the end
//               of generation G-2's); candidates asked ahead count when the run takes their results
//               (the GA's spare evaluations of the carried-over elite do not)
//   ideal_s     workers / mean episode time: every worker busy all the time
//   util        worker utilization: busy worker-time (the simulated durations of every episode
//               evaluated, spares included) / total worker-time (workers x wall)
//   bound_s     what these rounds allow: the candidates' simulated durations (a pure function of
//               the candidate, exec/simulate.h) list-scheduled in publishing order on the workers
//               with no overhead, round by round (the straggler tail), plus nothing between;
//               bound_ep_s the same with episodes as the unit (what splitting a candidate's episodes
//               over tasks allows); bound_nv the first without explicit vectors (ES's centre
//               evaluated alongside the next round instead); split: parts of split candidates published
//   master_us   master CPU (this process: protocol, algorithm, checkpoints) per result; master_cpu
//               the same in cores
//   redis_cpu   redis-server's CPU over the same time, in cores; redis_mb its RSS; clients the most
//               connected clients seen at a round's end
//   gap_ms      from a generation's last result to the next generation's first task in Redis
//               (mean and max): tell, ask, checkpoint, publishing; runner_ms: the part before the
//               executor has the next round (tell, metrics, checkpoint, ask)
// Not a test: numbers only. usage:
//   bench_scale URL --algo ga|es --population N --workers W --simulate MEAN_MS:JITTER
//               [--generations G] [--chunk C] [--episodes-per-task N|off] [--label TEXT]
//               [section.key=value ...]
// Without a URL (as `make bench` runs it) it runs bench/cluster/bench_scale.sh with its small default sweep.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>  // getrusage
#include <unistd.h>

#include "core/util.h"
#include "driver.h"  // bench_run_driver
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/run.h"

#ifdef NE_HAVE_HIREDIS
#include "exec/redis_conn.h"
#include "exec/simulate.h"

#define MAX_ROUNDS 4096
#define MAX_OVERRIDES 32
#define MAX_SET NE_EXECUTOR_MAX_BATCHES

typedef struct bench_opt {
  const char* url;
  const char* algo;  // ga | es
  int population;
  int workers;            // simulated workers (for the ideal and the bound)
  double mean_s, jitter;  // their episode time
  int generations;
  int chunk;
  int episodes_per_task;  // 0 auto, -1 off
  const char* label;
  const char* overrides[MAX_OVERRIDES];
  int n_overrides;
} bench_opt;

// One evaluated round (one executor call: a batch, or a generation's last round and the next
// generation's candidates asked ahead).
typedef struct round_rec {
  uint32_t generation, round;  // of its first batch
  uint64_t episodes;           // episodes evaluated
  uint64_t spare;              // of those, episodes the run will not take (the GA's spare elite evaluations)
  double busy;                 // worker-seconds of the simulated evaluations
  int n;                       // candidates
  double makespan;             // of the ideal synchronous schedule on `workers`, candidates indivisible
  double makespan_ep;          // ... episodes as the unit (a candidate's episodes may run on several workers)
  double makespan_nv;          // ... candidates indivisible, explicit vectors (ES's centre) left to the next round
  double entered_at;           // the runner handed the round to the executor
  double published_at, done_at;
} round_rec;

// The timing executor: wraps the master, records each round.
typedef struct timing {
  ne_executor* inner;
  const bench_opt* o;
  round_rec* recs;
  int n_recs;
  double* heap;    // (workers) finish times of the ideal schedule
  ne__rconn info;  // for INFO clients / memory (the master's connection is private)
  int redis_pid;   // redis-server's process, for its CPU time
  int max_clients;
  double max_rss_mb;
  // the baseline: read when each round of generation 0 ends (the last one counts); the end: read
  // when each round of generation G-2 ends
  double wall0, cpu0, rcpu0;
  uint64_t res0, split0;
  double wall1, cpu1, rcpu1;
  uint64_t res1, split1;
} timing;

static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
      1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

// Min-heap of worker finish times: list scheduling in index order (each candidate goes to the
// worker that is free first), the schedule of a zero-overhead synchronous executor.
static void sift_down(double* h, int n, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && h[l] < h[m]) m = l;
    if (r < n && h[r] < h[m]) m = r;
    if (m == i) return;
    double t = h[i];
    h[i] = h[m], h[m] = t;
    i = m;
  }
}

static double schedule(timing* t, double d, double end) {
  double f = t->heap[0] + d;
  t->heap[0] = f;
  sift_down(t->heap, t->o->workers, 0);
  return f > end ? f : end;
}

// A candidate in publishing order: the master publishes each batch's candidates with the most
// episodes first.
typedef struct queued {
  uint32_t episodes;
  int i;
} queued;

static int by_episodes(const void* a, const void* b) {
  const queued *x = a, *y = b;
  if (x->episodes != y->episodes) return x->episodes > y->episodes ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

// The makespan of the round on `workers` with no overhead: its batches' candidates (or, by_episode,
// episodes) in publishing order, each to the worker free first; skip_vectors: without its explicit
// vectors (ES's centre), as if they went along with the next round.
static double ideal_makespan(timing* t, int n, const ne_batch* const* batches, int by_episode, int skip_vectors) {
  for (int k = 0; k < t->o->workers; k++) t->heap[k] = 0;
  double end = 0;
  for (int s = 0; s < n; s++) {
    const ne_batch* b = batches[s];
    queued* order = ne_malloc((size_t)(b->n > 0 ? b->n : 1) * sizeof *order);
    if (!order) return 0;
    for (int i = 0; i < b->n; i++) order[i] = (queued){b->cands[i].episodes, i};
    qsort(order, (size_t)b->n, sizeof *order, by_episodes);
    for (int q = 0; q < b->n; q++) {
      const ne_candidate* c = &b->cands[order[q].i];
      if (skip_vectors && c->kind == NE_CAND_VECTOR) continue;
      if (!by_episode) end = schedule(t, ne__simulated_eval_s(c, t->o->mean_s, t->o->jitter), end);
      for (uint32_t e = 0; by_episode && e < c->episodes; e++)
        end = schedule(t, ne__simulated_episodes_s(c, e, 1, t->o->mean_s, t->o->jitter), end);
    }
    ne_free(order);
  }
  return end;
}

static double redis_cpu_s(int pid);

// INFO field as a number (0 when absent).
static double info_field(ne__rconn* c, const char* section, const char* name) {
  redisReply* r = ne__rconn_command(c, "INFO %s", section);
  double v = 0;
  if (r && r->type == REDIS_REPLY_STRING) {
    const char* p = strstr(r->str, name);
    if (p) v = atof(p + strlen(name) + 1);
  }
  if (r) freeReplyObject(r);
  return v;
}

// Records one round of n batches (the first is the round the runner waits for).
static void record(timing* t, int n, const ne_batch* const* batches, double entered) {
  ne_cluster_master_stats s;
  ne_cluster_master_get_stats(t->inner, &s);
  round_rec* r = &t->recs[t->n_recs++];
  memset(r, 0, sizeof *r);
  r->generation = batches[0]->generation;
  r->round = batches[0]->round;
  for (int k = 0; k < n; k++) {
    const ne_batch* b = batches[k];
    uint64_t episodes = 0;
    r->n += b->n;
    for (int i = 0; i < b->n; i++) {
      episodes += b->cands[i].episodes;
      r->busy += ne__simulated_eval_s(&b->cands[i], t->o->mean_s, t->o->jitter);
    }
    r->episodes += episodes;
    // the GA's batch asked ahead: the next population plus a spare evaluation of each re-evaluated
    // candidate but the one crowned (each population member has env.episodes episodes)
    if (k > 0 && b->generation > r->generation && b->n > t->o->population)
      r->spare += (uint64_t)(b->n - t->o->population) * (episodes / (uint64_t)b->n);
  }
  r->makespan = ideal_makespan(t, n, batches, 0, 0);
  r->makespan_ep = ideal_makespan(t, n, batches, 1, 0);
  r->makespan_nv = ideal_makespan(t, n, batches, 0, 1);
  r->entered_at = entered;
  r->published_at = s.published_at;
  r->done_at = s.done_at;
  int clients = (int)info_field(&t->info, "clients", "connected_clients");
  double rss = info_field(&t->info, "memory", "used_memory_rss") / 1048576.0;
  if (r->generation == 0) {
    t->wall0 = s.done_at, t->cpu0 = cpu_s(), t->rcpu0 = redis_cpu_s(t->redis_pid), t->res0 = s.accepted;
    t->split0 = s.split;
    t->max_clients = 0, t->max_rss_mb = 0;
    return;
  }
  if (clients > t->max_clients) t->max_clients = clients;
  if (rss > t->max_rss_mb) t->max_rss_mb = rss;
  if ((int)r->generation == t->o->generations - 2) {
    t->wall1 = s.done_at, t->cpu1 = cpu_s(), t->rcpu1 = redis_cpu_s(t->redis_pid), t->res1 = s.accepted;
    t->split1 = s.split;
  }
}

static int timing_evaluate_many(ne_executor* ex, int n, const ne_batch* const* batches, const uint8_t* const* have,
                                ne_result* const* res, const volatile int* stop, char* errstr) {
  timing* t = ex->impl;
  double entered = ne__now();
  int rc = ne_executor_evaluate_many(t->inner, n, batches, have, res, stop, errstr);
  if (!rc && t->n_recs < MAX_ROUNDS) record(t, n, batches, entered);
  return rc;
}

static int timing_evaluate(ne_executor* ex, const ne_batch* b, ne_result* res, const volatile int* stop, char* errstr) {
  return timing_evaluate_many(ex, 1, &b, NULL, &res, stop, errstr);
}

static void timing_describe(ne_executor* ex, char* buf, int size) {
  timing* t = ex->impl;
  t->inner->vt->describe(t->inner, buf, size);
}

static void timing_destroy(ne_executor* ex) { (void)ex; }

static const ne_executor_vt timing_vt = {.name = "redis",
                                         .evaluate = timing_evaluate,
                                         .describe = timing_describe,
                                         .destroy = timing_destroy,
                                         .evaluate_many = timing_evaluate_many};

// redis-server's CPU seconds so far (/proc/PID/stat of the pid INFO reports: same PID namespace).
static double redis_cpu_s(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  char buf[1024];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char* p = strrchr(buf, ')');
  unsigned long long ut = 0, st = 0;
  // fields after the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  if (p) sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st);
  return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int parse(int argc, char** argv, bench_opt* o) {
  memset(o, 0, sizeof *o);
  o->algo = "ga";
  o->population = 1000;
  o->generations = 5;
  o->label = "-";
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (a[0] != '-') {
      if (strchr(a, '=') && o->n_overrides < MAX_OVERRIDES) o->overrides[o->n_overrides++] = a;
      else if (!o->url) o->url = a;
      else return 2;
      continue;
    }
    if (i + 1 >= argc) return 2;
    const char* v = argv[++i];
    if (strcmp(a, "--algo") == 0) o->algo = v;
    else if (strcmp(a, "--population") == 0) o->population = atoi(v);
    else if (strcmp(a, "--workers") == 0) o->workers = atoi(v);
    else if (strcmp(a, "--generations") == 0) o->generations = atoi(v);
    else if (strcmp(a, "--chunk") == 0) o->chunk = atoi(v);
    else if (strcmp(a, "--episodes-per-task") == 0) o->episodes_per_task = strcmp(v, "off") == 0 ? -1 : atoi(v);
    else if (strcmp(a, "--label") == 0) o->label = v;
    else if (strcmp(a, "--simulate") == 0) {
      char* end;
      o->mean_s = strtod(v, &end) / 1000;
      o->jitter = *end == ':' ? atof(end + 1) : 0;
    } else return 2;
  }
  int algo_ok = strcmp(o->algo, "ga") == 0 || strcmp(o->algo, "es") == 0;
  return o->url && algo_ok && o->population > 1 && o->workers > 0 && o->mean_s > 0 && o->generations >= 3 ? 0 : 2;
}

// The run's config: the Deep GA paper's GA (truncation 20, the top 10 re-evaluated on 30 episodes)
// or OpenAI ES with a MuJoCo-sized policy (two hidden layers of 64); CartPole's spec, since no env
// runs. Overrides follow.
static ne_config* make_config(const bench_opt* o, char* err) {
  char text[1024];
  if (strcmp(o->algo, "ga") == 0)
    snprintf(text, sizeof text,
             "[run]\nalgorithm = ga\nseed = 1\ngenerations = %d\ntarget = none\nplot_every = 0\n"
             "[env]\nid = CartPole-v1\n[policy]\nhidden = 16\n"
             "[ga]\npopulation = %d\ntruncation = 20\nelite_candidates = 10\nelite_episodes = 30\n",
             o->generations, o->population);
  else
    snprintf(text, sizeof text,
             "[run]\nalgorithm = es\nseed = 1\ngenerations = %d\ntarget = none\nplot_every = 0\n"
             "[env]\nid = CartPole-v1\n[policy]\nhidden = 64,64\n[es]\npopulation = %d\n",
             o->generations, o->population);
  ne_config* cfg = ne_config_create();
  int rc = cfg ? ne_config_load_string(cfg, text, "bench_scale", err) : NE_ENOMEM;
  for (int i = 0; !rc && i < o->n_overrides; i++) rc = ne_config_override(cfg, o->overrides[i], "command line", err);
  if (!rc) rc = ne_config_validate(cfg, err);
  if (rc) {
    ne_config_destroy(cfg);
    return NULL;
  }
  return cfg;
}

// Prints the cell's figures over generations 1..G-2.
static void report(const bench_opt* o, const timing* t, double wall, double master_cpu, double redis_cpu,
                   uint64_t results, uint64_t split) {
  uint64_t episodes = 0;
  double bound_t = 0, bound_ep_t = 0, bound_nv_t = 0, gap_sum = 0, gap_max = 0, prev_done = 0, runner_sum = 0, busy = 0;
  int gaps = 0;
  for (int i = 0; i < t->n_recs; i++) {
    const round_rec* r = &t->recs[i];
    if (r->generation == 0) {
      prev_done = r->done_at;
      continue;
    }
    if ((int)r->generation > o->generations - 2) break;
    episodes += r->episodes - r->spare;
    busy += r->busy;
    bound_t += r->makespan;
    bound_ep_t += r->makespan_ep;
    bound_nv_t += r->makespan_nv;
    if (i > 0 && r->generation != t->recs[i - 1].generation && prev_done > 0) {  // a generation's first round
      double g = r->published_at - prev_done;
      gap_sum += g;
      runner_sum += r->entered_at - prev_done;
      gaps++;
      if (g > gap_max) gap_max = g;
    }
    prev_done = r->done_at;
  }
  double evals = (double)episodes / wall, ideal = o->workers / o->mean_s, bound = (double)episodes / bound_t;
  double bound_ep = (double)episodes / bound_ep_t, util = busy / (o->workers * wall);
  double bound_nv = (double)episodes / bound_nv_t;
  printf(
      "cell label=%s algo=%s population=%d workers=%d mean_ms=%.0f jitter=%.2f generations=%d "
      "evals_s=%.1f ideal_s=%.1f ratio_ideal=%.3f util=%.3f bound_s=%.1f bound_ideal=%.3f ratio_bound=%.3f "
      "bound_ep_s=%.1f bound_ep_ideal=%.3f ratio_bound_ep=%.3f bound_nv_ideal=%.3f split=%llu "
      "master_us=%.1f master_cpu=%.3f redis_cpu=%.3f redis_mb=%.1f clients=%d gap_ms=%.1f gap_max_ms=%.1f "
      "runner_ms=%.1f results=%llu wall_s=%.2f\n",
      o->label, o->algo, o->population, o->workers, o->mean_s * 1e3, o->jitter, o->generations - 2, evals, ideal,
      evals / ideal, util, bound, bound / ideal, evals / bound, bound_ep, bound_ep / ideal, evals / bound_ep,
      bound_nv / ideal, (unsigned long long)split, 1e6 * master_cpu / (double)results, master_cpu / wall,
      redis_cpu / wall, t->max_rss_mb, t->max_clients, gaps ? 1e3 * gap_sum / gaps : 0, 1e3 * gap_max,
      gaps ? 1e3 * runner_sum / gaps : 0, (unsigned long long)results, wall);
  fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc == 1) return bench_run_driver("bench_scale.sh");  // no URL: the script starts it all
  bench_opt o;
  if (parse(argc, argv, &o)) {
    fprintf(stderr,
            "usage: bench_scale URL --algo ga|es --population N --workers W --simulate MEAN_MS:JITTER "
            "[--generations G] [--chunk C] [--label TEXT] [section.key=value ...]\n");
    return 2;
  }
  char err[NE_ERRSTR_LEN], dir[] = "/tmp/bench_scale.XXXXXX", out[64];
  ne_config* cfg = make_config(&o, err);
  if (!cfg || !mkdtemp(dir)) {
    fprintf(stderr, "bench_scale: %s\n", cfg ? "cannot create a temporary directory" : err);
    return 1;
  }
  snprintf(out, sizeof out, "%s/run", dir);
  ne_cluster_master_options mo = {.url = o.url,
                                  .name = "bench-scale",
                                  .chunk = o.chunk,
                                  .synthetic = 1,
                                  .quiet = 1,
                                  .episodes_per_task = o.episodes_per_task};
  ne_executor* master = NULL;
  if (ne_cluster_master_create(cfg, &mo, &master, err) != 0) {
    fprintf(stderr, "bench_scale: %s\n", err);
    return 1;
  }
  timing t;
  memset(&t, 0, sizeof t);
  t.inner = master, t.o = &o;
  t.recs = ne_calloc(MAX_ROUNDS, sizeof(round_rec));
  t.heap = ne_calloc((size_t)o.workers, sizeof(double));
  ne__redis_url u;
  int rc = ne__redis_url_parse(o.url, &u, err);
  if (!rc) rc = ne__rconn_open(&t.info, &u, 2) ? ne__set_error(err, NE_ENET, "%s", t.info.errstr) : 0;
  if (!rc) t.redis_pid = (int)info_field(&t.info, "server", "process_id");
  ne_executor timed = {&timing_vt, &t};
  ne_run_options ro = {.name = "bench-scale", .out_dir = out, .quiet = 1, .executor = &timed};
  ne_run* run = NULL;
  if (!rc) rc = ne_run_create(cfg, &ro, &run, err);
  if (!rc) rc = ne_run_loop(run, err);
  if (rc) {
    fprintf(stderr, "bench_scale: %s\n", err);
  } else {
    ne_cluster_master_stats s;
    ne_cluster_master_get_stats(master, &s);
    report(&o, &t, t.wall1 - t.wall0, t.cpu1 - t.cpu0, t.rcpu1 - t.rcpu0, t.res1 - t.res0, t.split1 - t.split0);
    ne_cluster_master_finish(master, err);
  }
  ne_run_destroy(run);
  ne_executor_destroy(master);
  ne__rconn_close(&t.info);
  ne_free(t.recs);
  ne_free(t.heap);
  ne_config_destroy(cfg);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "bench_scale: could not remove %s\n", dir);
  return rc ? 1 : 0;
}
#else
int main(void) {
  fprintf(stderr, "bench_scale: this build has no Redis support (install libhiredis-dev and rebuild)\n");
  return 2;
}
#endif
