// SPDX-License-Identifier: MIT
// `neuroevo compare` in library form (compare.h): trains each (config, seed) pair, several at a time
// on the local threads (run slots, each with a thread pool of its own; results do not depend on the
// thread count, so a run is the same as the run alone) or one after another on the caller's
// executors (a Redis master per run), then reads the runs' metrics.csv back and writes
// summary.csv, summary.md and compare.png. Reading the metrics files (not in-memory
// state) keeps the summary exactly what the run directories show, also after a resumed compare.
#include "neuroevo/compare.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>  // run slots: several runs at a time on the local threads
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/executor.h"
#include "neuroevo/metrics.h"  // reading each run's metrics.csv
#include "neuroevo/plot.h"     // ne_plot_gnuplot: compare.png
#include "neuroevo/pool.h"     // ne_cpu_count
#include "neuroevo/rng.h"
#include "neuroevo/run.h"

#define DEFAULT_SEEDS 3
#define CI_RESAMPLES 10000    // bootstrap resamples of the final score
#define BAND_RESAMPLES 1000   // per curve point
#define BAND_POINTS 200       // curve points per config
#define BOOTSTRAP_SEED 12345  // fixed: the same runs always give the same intervals
#define PATH_CAP 4096
#define MAX_SLOTS 256  // runs trained at the same time at most

// One run's curve as read from its metrics.csv.
typedef struct curve {
  double* x;      // (n) env steps (= evaluations for black-box tasks)
  double* score;  // (n) the generation's score (see row_score)
  double wall_s;  // training seconds at the last row
  int n, cap;     // rows read / allocated
} curve;

// What the summary says about one run.
typedef struct run_stats {
  double final_score;   // score of the last generation (NaN without rows)
  double best_score;    // best score over all generations
  double to_threshold;  // x at which the score first reached the threshold (inf: never / no threshold)
  double wall_s;        // training seconds
} run_stats;

// Per config: what it is and how its runs went.
typedef struct cfg_info {
  const char* name;   // entry name
  char env_id[64];    // [env] id
  char algo[32];      // run.algorithm
  int minimize;       // 1 for black-box functions: scores are f values, lower is better
  int has_threshold;  // 1 if a threshold applies
  double threshold;   // in score units (f for black-box tasks)
  curve* curves;      // (seeds)
  run_stats* stats;   // (seeds)
} cfg_info;

// ---- small text builder -------------------------------------------------------------------------

typedef struct text {
  char* s;     // NUL-terminated, owned
  size_t len;  // bytes used
  size_t cap;  // bytes allocated
  int oom;     // 1 after an allocation failure
} text;

static void tprintf(text* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void tprintf(text* t, const char* fmt, ...) {
  if (t->oom) return;
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (t->len + (size_t)need + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < t->len + (size_t)need + 1) cap *= 2;
    char* grown = ne_realloc(t->s, cap);
    if (!grown) {
      t->oom = 1;
      return;
    }
    t->s = grown;
    t->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)need;
}

// writes t atomically to dir/name and frees it
static int text_save(text* t, const char* dir, const char* name, char* errstr) {
  char path[PATH_CAP + 64];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = t->oom ? ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path)
                  : ne__write_file_atomic(path, t->s ? t->s : "", t->len, errstr);
  ne_free(t->s);
  memset(t, 0, sizeof *t);
  return rc;
}

// ---- bootstrap ----------------------------------------------------------------------------------

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// the interval from `resamples` bootstrap means written into `means` (resamples doubles)
static void bootstrap_into(const double* x, int n, int resamples, uint64_t seed, double* means, double* lo,
                           double* hi) {
  ne_rng rng;
  ne_rng_seed(&rng, seed);
  for (int b = 0; b < resamples; b++) {
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[ne_rng_below(&rng, (uint64_t)n)];
    means[b] = sum / n;
  }
  qsort(means, (size_t)resamples, sizeof *means, cmp_double);
  *lo = means[(int)(0.025 * resamples)];
  *hi = means[(int)ceil(0.975 * resamples) - 1];
}

void ne_compare_bootstrap(const double* x, int n, int resamples, uint64_t seed, double* lo, double* hi) {
  *lo = *hi = NAN;
  if (n <= 0 || resamples <= 0) return;
  if (n == 1) {
    *lo = *hi = x[0];
    return;
  }
  double* means = ne_malloc((size_t)resamples * sizeof(double));
  if (!means) return;
  bootstrap_into(x, n, resamples, seed, means, lo, hi);
  ne_free(means);
}

static double mean_of(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  return n ? s / n : NAN;
}

// median of x[0..n) (sorts a copy in scratch)
static double median_of(const double* x, int n, double* scratch) {
  if (n == 0) return NAN;
  memcpy(scratch, x, (size_t)n * sizeof(double));
  qsort(scratch, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

// ---- reading metrics.csv ------------------------------------------------------------------------

// A generation's score: for black-box tasks the lowest f evaluated (best or the mean's f), for MDPs
// the elite / mean evaluation when the algorithm has one, else the population's best.
static double row_score(double best, double elite, int minimize) {
  if (minimize) return isfinite(elite) && elite < best ? elite : best;
  return isfinite(elite) ? elite : best;
}

static int curve_push(curve* c, double x, double s) {
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 256;
    double* nx = ne_realloc(c->x, (size_t)cap * sizeof(double));
    if (nx) c->x = nx;
    double* ns = nx ? ne_realloc(c->score, (size_t)cap * sizeof(double)) : NULL;
    if (!nx || !ns) return NE_ENOMEM;
    c->score = ns;
    c->cap = cap;
  }
  c->x[c->n] = x;
  c->score[c->n] = s;
  c->n++;
  return 0;
}

// run_dir's metrics.csv (metrics.h) as a curve: x = env steps, the generation's score
static int read_curve(const char* run_dir, int minimize, curve* c, char* errstr) {
  ne_metrics m;
  int rc = ne_metrics_read(run_dir, &m, errstr);
  if (rc) return rc;
  if (m.header && (!m.has[NE_M_STEPS] || !m.has[NE_M_BEST] || !m.has[NE_M_ELITE] || !m.has[NE_M_WALL]))
    rc = ne__set_error(errstr, NE_EPARSE, "%s/metrics.csv: unexpected header", run_dir);
  c->n = 0;
  c->wall_s = NAN;
  for (int i = 0; i < m.n_rows && !rc; i++) {
    double x = ne_metrics_at(&m, i, NE_M_STEPS);
    double s = row_score(ne_metrics_at(&m, i, NE_M_BEST), ne_metrics_at(&m, i, NE_M_ELITE), minimize);
    if (isfinite(x) && !isnan(s) && curve_push(c, x, s)) rc = ne__set_error(errstr, NE_ENOMEM, "out of memory");
    c->wall_s = ne_metrics_at(&m, i, NE_M_WALL);
  }
  ne_metrics_free(&m);
  return rc;
}

// final / best / threshold figures of one curve
static run_stats curve_stats(const curve* c, const cfg_info* info) {
  run_stats s = {NAN, NAN, INFINITY, c->wall_s};
  double sign = info->minimize ? -1.0 : 1.0;  // compare as "higher is better"
  for (int i = 0; i < c->n; i++) {
    double v = c->score[i];
    if (isnan(s.best_score) || sign * v > sign * s.best_score) s.best_score = v;
    if (info->has_threshold && isinf(s.to_threshold) && sign * v >= sign * info->threshold) s.to_threshold = c->x[i];
  }
  if (c->n) s.final_score = c->score[c->n - 1];
  return s;
}

// ---- running ------------------------------------------------------------------------------------

static void run_dir_of(char* buf, size_t size, const char* out, const char* name, int seed) {
  snprintf(buf, size, "%s/%s/seed%d", out, name, seed);
}

// the config's threshold in score units: --threshold, else run.target (auto: the env's)
static void resolve_threshold(cfg_info* info, const ne_config* cfg, const ne_env_spec* env,
                              const ne_compare_options* opt) {
  const char* t = ne_config_str(cfg, "run", "target");
  char* end;
  info->has_threshold = 0;
  if (opt->has_threshold) {
    info->has_threshold = 1;
    info->threshold = opt->threshold;
  } else if (strcmp(t, "auto") == 0 && env->has_threshold) {
    info->has_threshold = 1;
    info->threshold = info->minimize ? -env->reward_threshold : env->reward_threshold;
  } else if (strcmp(t, "auto") != 0 && strcmp(t, "none") != 0) {
    info->threshold = strtod(t, &end);
    info->has_threshold = *end == '\0' && isfinite(info->threshold);
  }
}

// The config of a run: its run directory's config.ini when it exists (resume), else the entry's
// with run.seed set. *resume tells which. Caller frees with ne_config_destroy.
static int run_config_of(const ne_compare_entry* e, int seed, const char* dir, ne_config** out, int* resume,
                         char* errstr) {
  char probe[PATH_CAP + 16];
  snprintf(probe, sizeof probe, "%s/config.ini", dir);
  *resume = access(probe, F_OK) == 0;
  *out = ne_config_create();
  if (!*out) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  if (*resume) return ne_config_load_file(*out, probe, errstr);
  ne_config_destroy(*out);
  *out = ne_config_clone(e->cfg);
  char seed_text[32];
  snprintf(seed_text, sizeof seed_text, "%d", seed);
  return *out ? ne_config_set(*out, "run", "seed", seed_text, "compare", errstr) : NE_ENOMEM;
}

// trains one (config, seed), creating or resuming its run directory, on ex (NULL: the caller's
// opt->begin_run makes one, e.g. a Redis master)
static int train_one(const ne_compare_entry* e, int seed, ne_executor* ex, const ne_compare_options* opt,
                     char* errstr) {
  char dir[PATH_CAP];
  run_dir_of(dir, sizeof dir, opt->out_dir, e->name, seed);
  ne_run_options ro = {0};
  ro.name = e->name;
  ro.quiet = 1;
  ro.stop = opt->stop;
  ro.executor = ex;
  ro.generations = opt->generations;
  ro.generations_set = opt->generations_set;
  ne_config* cfg = NULL;
  int resume, rc = run_config_of(e, seed, dir, &cfg, &resume, errstr);
  int begun = 0;
  if (!rc && opt->begin_run) {
    rc = opt->begin_run(opt->run_user, cfg, e->name, dir, &ro.executor, errstr);
    begun = rc == 0;
  }
  ne_run* run = NULL;
  if (!rc && resume) rc = ne_run_resume(dir, &ro, &run, errstr);
  ro.out_dir = dir;
  if (!rc && !resume) rc = ne_run_create(cfg, &ro, &run, errstr);
  if (!rc) rc = ne_run_loop(run, errstr);
  ne_run_destroy(run);
  if (begun && opt->end_run) opt->end_run(opt->run_user, ro.executor, rc);
  ne_config_destroy(cfg);
  return rc;
}

// prints one progress line for a finished run
static void say_run(const ne_compare_options* opt, const cfg_info* info, int seed, int done, int total) {
  if (opt->quiet) return;
  const run_stats* s = &info->stats[seed];
  char thr[32] = "inf";
  if (isfinite(s->to_threshold)) snprintf(thr, sizeof thr, "%.0f", s->to_threshold);
  printf("[%d/%d] %s seed %d: final %.6g  best %.6g  %s to threshold %s  %.1fs\n", done, total, info->name, seed,
         s->final_score, s->best_score, info->minimize ? "evaluations" : "env steps", thr, s->wall_s);
  fflush(stdout);
}

// the env facts a config's summary needs, and its env and policy (shared by the run slots)
static int prepare_config(const ne_compare_entry* e, const ne_compare_options* opt, cfg_info* info, ne_env_spec** env,
                          ne_policy_spec* policy, char* errstr) {
  int rc = ne_config_validate(e->cfg, errstr);
  if (!rc) rc = ne_env_from_config(e->cfg, env, errstr);
  if (!rc) rc = ne_policy_from_config(e->cfg, *env, policy, errstr);
  if (rc) return rc;
  info->name = e->name;
  snprintf(info->env_id, sizeof info->env_id, "%s", ne_config_str(e->cfg, "env", "id"));
  snprintf(info->algo, sizeof info->algo, "%s", ne_config_str(e->cfg, "run", "algorithm"));
  info->minimize = (*env)->evaluate != NULL;
  resolve_threshold(info, e->cfg, *env, opt);
  return 0;
}

// ---- run slots: the runs spread over the threads ---------------------------------------------------
// With local evaluation, `slots` threads take the runs (config-major order) one at a time, each
// evaluating on a thread pool of its own (threads / slots threads), so small runs use every core
// and a run's results (thread-count independent) are those of the run alone. With begin_run (a
// Redis master per run) the runs go one after another: the workers are the parallelism.

// What the slots share.
typedef struct slots_ctx {
  const ne_compare_entry* entries;
  const ne_compare_options* opt;
  cfg_info* infos;             // (n) summaries filled as runs finish
  ne_env_spec** envs;          // (n) shared read-only
  ne_policy_spec* policies;    // (n)
  int n, seeds, total;         // configs, seeds per config, runs
  int threads;                 // evaluation threads of each slot
  int slots;                   // slots sharing the machine (divides the parameter-cache budget)
  pthread_mutex_t mu;          // guards the fields below and stdout
  int next;                    // next run to take (config * seeds + seed)
  int done;                    // runs finished
  int rc;                      // first failure (0: none); no new run starts after it
  char errstr[NE_ERRSTR_LEN];  // its message
} slots_ctx;

// a local executor for config i with the slot's threads and its share of the cache budget
static int slot_executor(slots_ctx* c, int i, ne_executor** ex, char* errstr) {
  if (c->opt->begin_run) return *ex = NULL, 0;
  size_t cache = ((size_t)ne_config_int(c->entries[i].cfg, "ga", "cache_mb") << 20) / (size_t)c->slots;
  return ne_local_executor_create(c->envs[i], &c->policies[i], c->threads, cache, ex, errstr);
}

// records the outcome of run j under the lock: the curve and progress line, or the first failure
static void slot_finish(slots_ctx* c, int j, int rc, const char* why) {
  int i = j / c->seeds, k = j % c->seeds;
  char dir[PATH_CAP];
  run_dir_of(dir, sizeof dir, c->opt->out_dir, c->entries[i].name, k);
  char err[NE_ERRSTR_LEN];
  pthread_mutex_lock(&c->mu);
  if (!rc) rc = read_curve(dir, c->infos[i].minimize, &c->infos[i].curves[k], err), why = err;
  if (!rc) {
    c->infos[i].stats[k] = curve_stats(&c->infos[i].curves[k], &c->infos[i]);
    say_run(c->opt, &c->infos[i], k, ++c->done, c->total);
  } else if (!c->rc || (c->rc == NE_EINTR && rc != NE_EINTR)) {
    c->rc = rc;
    if (rc == NE_EINTR) snprintf(c->errstr, sizeof c->errstr, "interrupted");
    else snprintf(c->errstr, sizeof c->errstr, "%.60s seed %d: %.150s", c->entries[i].name, k, why);
  }
  pthread_mutex_unlock(&c->mu);
}

// one slot: takes runs until none is left or one failed
static void* slot_main(void* arg) {
  slots_ctx* c = arg;
  ne_executor* ex = NULL;
  int ex_cfg = -1;  // config ex was made for
  for (;;) {
    pthread_mutex_lock(&c->mu);
    int j = c->rc || c->next == c->total ? -1 : c->next++;
    pthread_mutex_unlock(&c->mu);
    if (j < 0) break;
    int i = j / c->seeds, rc = 0;
    char why[NE_ERRSTR_LEN] = "";
    if (i != ex_cfg) {  // runs are config-major: a slot changes configs at most n times
      ne_executor_destroy(ex);
      ex = NULL;
      ex_cfg = i;
      rc = slot_executor(c, i, &ex, why);
    }
    if (!rc) rc = train_one(&c->entries[i], j % c->seeds, ex, c->opt, why);
    slot_finish(c, j, rc, why);
  }
  ne_executor_destroy(ex);
  return NULL;
}

// the evaluation threads in all: --threads, else the largest run.threads of the configs (0 = all cores)
static int total_threads(const ne_compare_entry* entries, int n, const ne_compare_options* opt) {
  if (opt->threads > 0) return opt->threads;
  int t = 0;
  for (int i = 0; i < n; i++) {
    int ti = (int)ne_config_int(entries[i].cfg, "run", "threads");
    if (ti <= 0) ti = ne_cpu_count();
    if (ti > t) t = ti;
  }
  return t > 0 ? t : 1;
}

// trains every run over the slots; 0, NE_EINTR or the first failure (message in errstr)
static int run_slots(slots_ctx* c, char* errstr) {
  int threads = total_threads(c->entries, c->n, c->opt);
  c->slots = c->opt->begin_run ? 1 : (threads < c->total ? threads : c->total);
  if (c->slots > MAX_SLOTS) c->slots = MAX_SLOTS;
  c->threads = c->opt->begin_run ? 0 : threads / c->slots;
  pthread_mutex_init(&c->mu, NULL);
  pthread_t th[MAX_SLOTS];
  int started = 0;
  for (int s = 1; s < c->slots; s++)  // this thread is slot 0
    if (pthread_create(&th[started], NULL, slot_main, c) == 0) started++;
  slot_main(c);
  for (int s = 0; s < started; s++) pthread_join(th[s], NULL);
  pthread_mutex_destroy(&c->mu);
  if (c->rc) ne__set_error(errstr, c->rc, "%s", c->errstr);
  return c->rc;
}

// ---- summary files ------------------------------------------------------------------------------

static void fmt_x(char* buf, size_t size, double x) {
  if (isfinite(x)) snprintf(buf, size, "%.0f", x);
  else snprintf(buf, size, "inf");
}

static int write_csv(const cfg_info* infos, int n, int seeds, const char* out, char* errstr) {
  text t = {0};
  tprintf(&t, "config,seed,final_score,best_score,steps_to_threshold,wall_s\n");
  for (int i = 0; i < n; i++)
    for (int k = 0; k < seeds; k++) {
      const run_stats* s = &infos[i].stats[k];
      char x[32];
      fmt_x(x, sizeof x, s->to_threshold);
      tprintf(&t, "%s,%d,%.10g,%.10g,%s,%.3f\n", infos[i].name, k, s->final_score, s->best_score, x, s->wall_s);
    }
  return text_save(&t, out, "summary.csv", errstr);
}

// the statistics of one config's final scores
typedef struct final_stats {
  double mean, median, lo, hi, best_mean, median_to_threshold;
  int reached;  // runs that reached the threshold
} final_stats;

static final_stats config_stats(const cfg_info* info, int seeds, double* a, double* scratch) {
  final_stats f;
  for (int k = 0; k < seeds; k++) a[k] = info->stats[k].final_score;
  f.mean = mean_of(a, seeds);
  f.median = median_of(a, seeds, scratch);
  ne_compare_bootstrap(a, seeds, CI_RESAMPLES, BOOTSTRAP_SEED, &f.lo, &f.hi);
  for (int k = 0; k < seeds; k++) a[k] = info->stats[k].best_score;
  f.best_mean = mean_of(a, seeds);
  f.reached = 0;
  for (int k = 0; k < seeds; k++) {
    a[k] = info->stats[k].to_threshold;
    f.reached += isfinite(a[k]) != 0;
  }
  f.median_to_threshold = median_of(a, seeds, scratch);  // inf while more than half never reached it
  return f;
}

static void md_header(text* t, int n, int seeds) {
  tprintf(t, "# neuroevo compare\n\n%d config%s x %d seed%s (run.seed = 0..%d).\n\n", n, n == 1 ? "" : "s", seeds,
          seeds == 1 ? "" : "s", seeds - 1);
  tprintf(t,
          "- **final**: the score of the last generation: the evaluation of the mean / elite where the "
          "algorithm makes one, else the population's best; for black-box functions (bbob/*) the lowest "
          "f of that generation (lower is better).\n");
  tprintf(t, "- **best**: the best such score over all generations.\n");
  tprintf(t,
          "- **95%% CI**: percentile bootstrap of the mean final score over seeds (%d resamples, fixed "
          "seed %d, so the same runs always give the same interval).\n",
          CI_RESAMPLES, BOOTSTRAP_SEED);
  tprintf(t,
          "- **to threshold**: env steps (evaluations for black-box functions) until the score first "
          "reached the threshold; inf = never.\n\n");
}

static void md_config(text* t, const cfg_info* info, int seeds, const final_stats* f, const char* out) {
  char thr[64] = "none", med[32];
  if (info->has_threshold) snprintf(thr, sizeof thr, "%s %.6g", info->minimize ? "f <=" : "score >=", info->threshold);
  fmt_x(med, sizeof med, f->median_to_threshold);
  tprintf(t, "## %s\n\n`%s` on `%s`, threshold %s.\n\n", info->name, info->algo, info->env_id, thr);
  tprintf(t, "| statistic | value |\n|---|---|\n");
  tprintf(t, "| mean final | %.6g |\n| median final | %.6g |\n| 95%% CI of the mean final | [%.6g, %.6g] |\n", f->mean,
          f->median, f->lo, f->hi);
  tprintf(t, "| mean best | %.6g |\n| runs reaching the threshold | %d / %d |\n| median %s to threshold | %s |\n\n",
          f->best_mean, f->reached, seeds, info->minimize ? "evaluations" : "env steps", med);
  tprintf(t, "| seed | final | best | to threshold | wall s | run directory |\n|---|---|---|---|---|---|\n");
  for (int k = 0; k < seeds; k++) {
    const run_stats* s = &info->stats[k];
    char x[32];
    fmt_x(x, sizeof x, s->to_threshold);
    tprintf(t, "| %d | %.6g | %.6g | %s | %.1f | %s/%s/seed%d |\n", k, s->final_score, s->best_score, x, s->wall_s, out,
            info->name, k);
  }
  tprintf(t, "\n");
}

static int write_md(const cfg_info* infos, int n, int seeds, const char* out, char* errstr) {
  double* a = ne_malloc(2 * (size_t)seeds * sizeof(double));
  if (!a) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  text t = {0};
  md_header(&t, n, seeds);
  // overview: one row per config
  tprintf(&t,
          "| config | algorithm | env | mean final | median final | 95%% CI | reached |\n"
          "|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < n; i++) {
    final_stats f = config_stats(&infos[i], seeds, a, a + seeds);
    tprintf(&t, "| %s | %s | %s | %.6g | %.6g | [%.6g, %.6g] | %d / %d |\n", infos[i].name, infos[i].algo,
            infos[i].env_id, f.mean, f.median, f.lo, f.hi, f.reached, seeds);
  }
  tprintf(&t, "\n");
  for (int i = 0; i < n; i++) {
    final_stats f = config_stats(&infos[i], seeds, a, a + seeds);
    md_config(&t, &infos[i], seeds, &f, out);
  }
  ne_free(a);
  return text_save(&t, out, "summary.md", errstr);
}

// ---- compare.png --------------------------------------------------------------------------------

// score of run c at x: the last row at or before x (a run that stopped early keeps its last value)
static double value_at(const curve* c, double x) {
  double v = NAN;
  for (int i = 0; i < c->n && c->x[i] <= x; i++) v = c->score[i];
  return v;
}

// one datablock: x, mean, lo, hi on BAND_POINTS points where every run has a value
static void put_band(text* t, const cfg_info* info, int seeds, int idx, double* vals, double* means) {
  double x_lo = -INFINITY, x_hi = -INFINITY;
  for (int k = 0; k < seeds; k++) {
    const curve* c = &info->curves[k];
    if (c->n == 0) return;
    if (c->x[0] > x_lo) x_lo = c->x[0];
    if (c->x[c->n - 1] > x_hi) x_hi = c->x[c->n - 1];
  }
  tprintf(t, "$c%d << EOD\n", idx);
  for (int p = 0; p < BAND_POINTS; p++) {
    double x = x_lo + (x_hi - x_lo) * p / (BAND_POINTS - 1.0);
    for (int k = 0; k < seeds; k++) vals[k] = value_at(&info->curves[k], x);
    double lo = vals[0], hi = vals[0];
    if (seeds > 1) bootstrap_into(vals, seeds, BAND_RESAMPLES, BOOTSTRAP_SEED, means, &lo, &hi);
    double m = mean_of(vals, seeds);
    if (info->minimize) {  // log axis: keep the band above zero
      lo = lo > 1e-300 ? lo : 1e-300;
      m = m > 1e-300 ? m : 1e-300;
    }
    tprintf(t, "%.10g %.10g %.10g %.10g\n", x, m, lo, hi);
    if (x_hi == x_lo) break;
  }
  tprintf(t, "EOD\n");
}

static void put_plot_header(text* t, const cfg_info* infos, int n, int seeds, int all_min, const char* png_tmp) {
  static const char* const quote = "\"";
  tprintf(t, "set terminal pngcairo size 1100,650 noenhanced font \"sans,11\"\nset output %s%s%s\n", quote, png_tmp,
          quote);
  char envs[512] = "";
  size_t used = 0;
  for (int i = 0; i < n && used < sizeof envs; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= strcmp(infos[j].env_id, infos[i].env_id) == 0;
    if (!seen) used += (size_t)snprintf(envs + used, sizeof envs - used, "%s%s", used ? ", " : "", infos[i].env_id);
  }
  tprintf(t, "set title \"%s: mean of %d seed%s with 95%% bootstrap band\"\n", envs, seeds, seeds == 1 ? "" : "s");
  tprintf(t, "set xlabel \"%s\"\n", all_min ? "function evaluations" : "environment steps");
  tprintf(t, "set ylabel \"%s\"\n",
          all_min ? "f (lowest of the generation, log scale)" : "score (elite / mean evaluation)");
  tprintf(t, "set grid\nset key outside right top\nset style fill transparent solid 0.2 noborder\n");
  tprintf(t, "set format x \"%%.1s%%c\"\n");  // 250.0k, 1.5M
  if (all_min) tprintf(t, "set logscale y\nset format y \"%%.0e\"\n");
}

static const char* const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

static void put_plot_command(text* t, const cfg_info* infos, int n, int seeds) {
  int first = 1;
  for (int i = 0; i < n; i++) {
    if (infos[i].curves[0].n == 0) continue;
    const char* col = palette[i % 10];
    tprintf(t, "%s$c%d using 1:3:4 with filledcurves lc rgb \"%s\" notitle", first ? "plot " : ", \\\n  ", i, col);
    tprintf(t, ", \\\n  $c%d using 1:2 with lines lw 2.5 lc rgb \"%s\" title \"%s (%d seeds)\"", i, col, infos[i].name,
            seeds);
    first = 0;
  }
  tprintf(t, "\nunset output\n");
}

// writes DIR/compare.gp (kept, so the plot can be restyled by hand) and renders DIR/compare.png
static int write_plot(const cfg_info* infos, int n, int seeds, const char* out, char* errstr) {
  double* scratch = ne_malloc(((size_t)seeds + BAND_RESAMPLES) * sizeof(double));
  if (!scratch) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  int all_min = 1;
  for (int i = 0; i < n; i++) all_min &= infos[i].minimize;
  char png[PATH_CAP + 32], tmp[PATH_CAP + 32], script[PATH_CAP + 32], err_path[PATH_CAP + 32];
  snprintf(png, sizeof png, "%s/compare.png", out);
  snprintf(tmp, sizeof tmp, "%s/compare.png.tmp", out);
  snprintf(script, sizeof script, "%s/compare.gp", out);
  snprintf(err_path, sizeof err_path, "%s/compare.gp.log", out);
  text t = {0};
  put_plot_header(&t, infos, n, seeds, all_min, tmp);
  for (int i = 0; i < n; i++) put_band(&t, &infos[i], seeds, i, scratch, scratch + seeds);
  put_plot_command(&t, infos, n, seeds);
  ne_free(scratch);
  int rc = text_save(&t, out, "compare.gp", errstr);
  if (!rc) rc = ne_plot_gnuplot(script, err_path, errstr);
  if (!rc && rename(tmp, png) != 0) rc = ne__set_error(errstr, NE_EIO, "%s: %s", png, strerror(errno));
  if (!rc) unlink(err_path);
  else unlink(tmp);
  return rc;
}

// ---- entry point --------------------------------------------------------------------------------

static void free_infos(cfg_info* infos, int n, int seeds) {
  for (int i = 0; infos && i < n; i++) {
    for (int k = 0; infos[i].curves && k < seeds; k++) {
      ne_free(infos[i].curves[k].x);
      ne_free(infos[i].curves[k].score);
    }
    ne_free(infos[i].curves);
    ne_free(infos[i].stats);
  }
  ne_free(infos);
}

static int alloc_infos(cfg_info** out, int n, int seeds) {
  cfg_info* infos = ne_calloc((size_t)n, sizeof *infos);
  *out = infos;
  if (!infos) return NE_ENOMEM;
  for (int i = 0; i < n; i++) {
    infos[i].curves = ne_calloc((size_t)seeds, sizeof(curve));
    infos[i].stats = ne_calloc((size_t)seeds, sizeof(run_stats));
    if (!infos[i].curves || !infos[i].stats) return NE_ENOMEM;
  }
  return 0;
}

static int check_entries(const ne_compare_entry* entries, int n, const ne_compare_options* opt, char* errstr) {
  if (n < 1) return ne__set_error(errstr, NE_EINVAL, "compare: no configs");
  if (!opt || !opt->out_dir) return ne__set_error(errstr, NE_EINVAL, "compare: no output directory");
  for (int i = 0; i < n; i++) {
    if (!entries[i].name || !*entries[i].name || strchr(entries[i].name, '/'))
      return ne__set_error(errstr, NE_EINVAL, "compare: config %d needs a plain name", i + 1);
    for (int j = 0; j < i; j++)
      if (strcmp(entries[i].name, entries[j].name) == 0)
        return ne__set_error(errstr, NE_EINVAL, "compare: two configs named '%s'", entries[i].name);
  }
  return 0;
}

int ne_compare_run(const ne_compare_entry* entries, int n, const ne_compare_options* opt, char* errstr) {
  int rc = check_entries(entries, n, opt, errstr);
  if (rc) return rc;
  int seeds = opt->seeds > 0 ? opt->seeds : DEFAULT_SEEDS;
  cfg_info* infos = NULL;
  ne_env_spec** envs = ne_calloc((size_t)n, sizeof *envs);
  ne_policy_spec* policies = ne_calloc((size_t)n, sizeof *policies);
  rc = envs && policies ? ne__mkdir_p(opt->out_dir, errstr) : ne__set_error(errstr, NE_ENOMEM, "out of memory");
  if (!rc && alloc_infos(&infos, n, seeds)) rc = ne__set_error(errstr, NE_ENOMEM, "out of memory");
  for (int i = 0; i < n && !rc; i++) {
    char why[NE_ERRSTR_LEN];
    if ((rc = prepare_config(&entries[i], opt, &infos[i], &envs[i], &policies[i], why)) != 0)
      ne__set_error(errstr, rc, "%s: %s", entries[i].name, why);
  }
  if (!rc) {
    slots_ctx c = {.entries = entries,
                   .opt = opt,
                   .infos = infos,
                   .envs = envs,
                   .policies = policies,
                   .n = n,
                   .seeds = seeds,
                   .total = n * seeds};
    char why[NE_ERRSTR_LEN];
    rc = run_slots(&c, why);
    if (rc == NE_EINTR)
      ne__set_error(errstr, rc,
                    "interrupted: the same command continues in %s (finished runs are kept, "
                    "interrupted ones resumed)",
                    opt->out_dir);
    else if (rc) ne__set_error(errstr, rc, "%s", why);
  }
  if (!rc) rc = write_csv(infos, n, seeds, opt->out_dir, errstr);
  if (!rc) rc = write_md(infos, n, seeds, opt->out_dir, errstr);
  if (!rc) {
    char why[NE_ERRSTR_LEN];
    if (write_plot(infos, n, seeds, opt->out_dir, why) != 0)
      fprintf(stderr, "neuroevo: warning: no compare.png: %s\n", why);
  }
  for (int i = 0; envs && i < n; i++) ne_env_spec_destroy(envs[i]);
  ne_free(envs);
  ne_free(policies);
  free_infos(infos, n, seeds);
  return rc;
}
