// SPDX-License-Identifier: MIT
// A run's lifetime (see run.h): create (validate the config, make the run directory, write
// config.ini, build env, policy, algorithm and executor), resume (reopen a run directory at its
// newest valid checkpoint, cut metrics.csv back to it) and destroy, plus the log and metrics.csv
// helpers the loop uses. The generation loop itself is runloop.c.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/checkpoint.h"
#include "neuroevo/metrics.h"  // a resumed run's best row so far
#include "neuroevo/plot.h"
#include "neuroevo/run.h"
#include "run/ahead.h"  // results of candidates asked ahead (overlapped generations)
#include "run/partial.h"
#include "run/record.h"        // run.json
#include "run/run_tfevents.h"  // TensorBoard events of the run directory
#include "run/runner_int.h"

static const char METRICS_HEADER[] = "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean\n";
// Black-box functions (bbob/*) are minimized: their metrics hold f = -fitness (best = the lowest f
// of the generation) and a ninth column `minimized` = 1 tells readers so. Other runs keep the
// eight columns; a missing column means 0.
static const char METRICS_HEADER_MIN[] =
    "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean,minimized\n";

// Meta-learning runs (meta.tasks > 0) add two columns: the population's mean return before and
// after the inner loop (post_adapt is the mean fitness).
static const char METRICS_HEADER_META[] =
    "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean,pre_adapt,post_adapt\n";

static const char* metrics_header(const ne_run* run) {
  if (run->meta.tasks > 0) return METRICS_HEADER_META;
  return run->minimize ? METRICS_HEADER_MIN : METRICS_HEADER;
}

// ---- output --------------------------------------------------------------------------------

// Formats a line into log.txt and, when out is not NULL, out (with prefix before it).
static void vsay(ne_run* run, FILE* out, const char* prefix, const char* fmt, va_list ap) {
  char line[8192];
  vsnprintf(line, sizeof line, fmt, ap);
  if (out) {
    fprintf(out, "%s%s", prefix, line);
    fflush(out);
  }
  if (run->log) {
    fputs(line, run->log);
    fflush(run->log);
  }
}

void ne__run_say_stop(ne_run* run, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  // a quiet run says it on stderr: where the stopped run is kept is never hidden
  vsay(run, run->opt.quiet ? stderr : stdout, run->opt.quiet ? "neuroevo: " : "", fmt, ap);
  va_end(ap);
}

void ne__run_say(ne_run* run, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay(run, run->opt.quiet ? NULL : stdout, "", fmt, ap);
  va_end(ap);
}

static void path_in(const ne_run* run, char* buf, size_t size, const char* name) {
  snprintf(buf, size, "%s/%s", run->dir, name);
}

// Appends one row with a single write(2), so a crash never leaves half a row plus a later row. The
// file stays open from the run's creation to its end: a row is then one system call, where opening
// and closing it again was two more a generation (~5% of a CartPole ES run of 0.4 ms generations).
int ne__run_append_metrics(ne_run* run, const ne_gen_report* r, char* errstr) {
  char row[512];
  double s = run->minimize ? -1.0 : 1.0;  // fitness -> f for minimized tasks
  char meta[64] = "";                     // meta-learning: the population's returns before and after the inner loop
  if (run->meta.tasks > 0) snprintf(meta, sizeof meta, ",%.10g,%.10g", run->gen_pre, run->gen_post);
  int n = snprintf(row, sizeof row, "%u,%llu,%llu,%.3f,%.10g,%.10g,%.10g,%.10g%s%s\n", r->generation,
                   (unsigned long long)run->evaluations, (unsigned long long)run->env_steps, run->wall_s, s * r->best,
                   s * r->mean, s * r->median, s * r->elite_mean, run->minimize ? ",1" : "", meta);
  ssize_t w = write(run->metrics_fd, row, (size_t)n);
  if (w != n)
    return ne__set_error(errstr, NE_EIO, "%s/metrics.csv: write failed: %s", run->dir,
                         strerror(w < 0 ? errno : ENOSPC));
  // the best row so far, as a listing scores a row: its elite where it has one, else its best
  double score = isnan(r->elite_mean) ? r->best : r->elite_mean;
  if (isnan(run->row_best) || score > run->row_best) run->row_best = score;
  return 0;
}

// The best row of metrics.csv (fitness, as ne__run_append_metrics tracks it) after a resume cut it
static void read_row_best(ne_run* run) {
  ne_metrics m;
  run->row_best = NAN;
  if (ne_metrics_read(run->dir, &m, NULL) != 0) return;
  double s = run->minimize ? -1.0 : 1.0;  // f -> fitness
  for (int i = 0; i < m.n_rows; i++) {
    double e = ne_metrics_at(&m, i, NE_M_ELITE), b = ne_metrics_at(&m, i, NE_M_BEST);
    double score = s * (isnan(e) ? b : e);
    if (!isnan(score) && (isnan(run->row_best) || score > run->row_best)) run->row_best = score;
  }
  ne_metrics_free(&m);
}

// What the executor is, for the record: "local, 4 threads", "redis 3 workers/12 thr"
void ne__run_describe(const ne_run* run, char* buf, size_t size) {
  char what[96] = "";
  if (run->exec && run->exec->vt->describe) run->exec->vt->describe(run->exec, what, sizeof what);
  snprintf(buf, size, "%s%s%s", run->exec ? run->exec->vt->name : "none", what[0] ? ", " : "", what);
}

// 1 when line is a row of metrics.csv (it starts with its generation), not the header
static int is_metrics_row(const char* line) { return *line >= '0' && *line <= '9'; }

// Opens metrics.csv for appending rows (ne__run_append_metrics)
static int open_metrics(ne_run* run, char* errstr) {
  char path[4096];
  path_in(run, path, sizeof path, "metrics.csv");
  run->metrics_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (run->metrics_fd < 0) return ne__set_error(errstr, NE_EIO, "%s: %s", path, strerror(errno));
  return 0;
}

// A new run's metrics.csv: the header alone, in one write(2) and without an fsync (two fewer
// fsyncs a run, ~3% of a CartPole ES run): a crash that loses it loses no row, and resuming writes
// it back (truncate_metrics). The file stays open for the rows, as open_metrics leaves it.
static int create_metrics(ne_run* run, char* errstr) {
  char path[4096];
  path_in(run, path, sizeof path, "metrics.csv");
  const char* header = metrics_header(run);
  size_t n = strlen(header);
  run->metrics_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (run->metrics_fd < 0) return ne__set_error(errstr, NE_EIO, "%s: cannot create: %s", path, strerror(errno));
  ssize_t w = write(run->metrics_fd, header, n);
  if (w != (ssize_t)n)
    return ne__set_error(errstr, NE_EIO, "%s: write failed: %s", path, strerror(w < 0 ? errno : ENOSPC));
  return 0;
}

// Keeps the rows of generations < keep_generations under the header (resume replays the rest). The
// header is written whether the file still has it or not (create_metrics does not make it durable);
// a torn last line (no newline) is dropped.
static int truncate_metrics(ne_run* run, uint32_t keep_generations, char* errstr) {
  char path[4096];
  path_in(run, path, sizeof path, "metrics.csv");
  char* text = NULL;
  size_t len = 0;
  int rc = ne__read_file(path, &text, &len, errstr);
  if (rc == NE_ENOTFOUND) rc = 0, len = 0;
  if (rc) return rc;
  const char* header = metrics_header(run);
  size_t header_len = strlen(header), kept = header_len;
  char* out = ne_malloc(header_len + len + 1);
  if (!out) {
    ne_free(text);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  }
  memcpy(out, header, header_len);
  for (char* line = text; text && line < text + len;) {
    char* nl = memchr(line, '\n', (size_t)(text + len - line));
    if (!nl) break;
    unsigned gen;
    if (is_metrics_row(line) && sscanf(line, "%u,", &gen) == 1 && gen < keep_generations) {
      memcpy(out + kept, line, (size_t)(nl + 1 - line));
      kept += (size_t)(nl + 1 - line);
    }
    line = nl + 1;
  }
  ne_free(text);
  rc = ne__write_file_atomic(path, out, kept, errstr);
  ne_free(out);
  return rc;
}

// ---- setup ---------------------------------------------------------------------------------

// Makes <out>/<name>-YYYYmmdd-HHMMSS (with -2, -3, ... if taken).
static int make_run_dir(ne_run* run, char* errstr) {
  if (run->opt.out_dir) {
    snprintf(run->dir, sizeof run->dir, "%s", run->opt.out_dir);
    int rc = ne__mkdir_p(run->dir, errstr);
    if (rc) return rc;
    char probe[4096];
    path_in(run, probe, sizeof probe, "config.ini");
    if (access(probe, F_OK) == 0)
      return ne__set_error(errstr, NE_EINVAL, "%s already holds a run (use `neuroevo resume %s`)", run->dir, run->dir);
    return 0;
  }
  const char* parent = ne_config_str(run->cfg, "run", "out");
  int rc = ne__mkdir_p(parent, errstr);
  if (rc) return rc;
  char stamp[32];
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  const char* name = run->opt.name ? run->opt.name : "run";
  for (int k = 1; k < 1000; k++) {
    if (k == 1) snprintf(run->dir, sizeof run->dir, "%s/%s-%s", parent, name, stamp);
    else snprintf(run->dir, sizeof run->dir, "%s/%s-%s-%d", parent, name, stamp, k);
    if (mkdir(run->dir, 0755) == 0) return 0;
    if (errno != EEXIST) return ne__set_error(errstr, NE_EIO, "%s: cannot create: %s", run->dir, strerror(errno));
  }
  return ne__set_error(errstr, NE_EIO, "%s: too many runs with the same timestamp", parent);
}

static int parse_target(ne_run* run, char* errstr) {
  const char* t = ne_config_str(run->cfg, "run", "target");
  run->has_target = 0;
  if (strcmp(t, "none") == 0) return 0;
  if (strcmp(t, "auto") == 0) {
    run->has_target = run->env->has_threshold;
    run->target = run->env->reward_threshold;
    return 0;
  }
  char* end;
  run->target = strtod(t, &end);
  if (*end || end == t || !isfinite(run->target))
    return ne__set_error(errstr, NE_EINVAL, "run.target = '%s': expected auto, none or a number", t);
  run->has_target = 1;
  if (run->minimize) run->target = -run->target;  // bbob/*: the target is an f value to get below
  return 0;
}

// Everything both create and resume need once the config is final.
static int build(ne_run* run, char* errstr) {
  int rc = ne_env_from_config(run->cfg, &run->env, errstr);
  if (!rc) rc = ne_policy_from_config(run->cfg, run->env, &run->policy, errstr);
  if (!rc) rc = ne_meta_from_config(run->cfg, run->env, &run->policy, &run->meta, errstr);
  if (!rc) run->minimize = run->env->evaluate != NULL;
  if (!rc) rc = parse_target(run, errstr);
  if (rc) return rc;
  // no TimeLimit (Gymnasium registered none, MinAtar has none): an episode a good policy never
  // ends would hold its generation forever
  if (run->env->max_episode_steps <= 0 && !run->env->evaluate)
    fprintf(stderr,
            "neuroevo: warning: %s has no time limit and env.max_episode_steps = 0: an episode that never ends "
            "stalls the run (Ctrl-C still stops it); set env.max_episode_steps (e.g. 1000)\n",
            run->env->id);
  const char* algo = ne_config_str(run->cfg, "run", "algorithm");
  run->vt = ne_algo_find(algo);
  if (!run->vt) return ne__set_error(errstr, NE_ENOTFOUND, "run.algorithm = %s is not available in this build", algo);
  // meta-learning's inner loop measures no behaviour characterizations: novelty would compare zeros
  int novelty = strncmp(algo, "ns", 2) == 0 || (strcmp(algo, "ga") == 0 && ne_config_bool(run->cfg, "ga", "novelty"));
  if (run->meta.tasks > 0 && novelty)
    return ne__set_error(errstr, NE_EINVAL,
                         "meta.tasks = %d with %s: a meta-evaluation measures no behaviour characterizations for "
                         "novelty search; set meta.tasks = 0, or use a reward-only algorithm (ga, es, ...)",
                         run->meta.tasks, strcmp(algo, "ga") == 0 ? "ga.novelty = true" : algo);
  ne_problem prob = {&run->policy,
                     run->policy.n_params,
                     (uint64_t)ne_config_int(run->cfg, "run", "seed"),
                     (int)ne_config_int(run->cfg, "env", "episodes"),
                     run->env->obs_dim,
                     run->env->bc_dim};
  rc = run->vt->create(&prob, run->cfg, &run->algo, errstr);
  if (rc) return rc;
  // budgets (the --generations override is in run->cfg already, see apply_generations)
  run->max_generations = ne_config_int(run->cfg, "run", "generations");
  run->max_steps = (uint64_t)ne_config_int(run->cfg, "run", "max_env_steps");
  run->max_seconds = ne_config_float(run->cfg, "run", "max_seconds");
  run->checkpoint_every = (int)ne_config_int(run->cfg, "run", "checkpoint_every");
  run->keep_checkpoints = (int)ne_config_int(run->cfg, "run", "keep_checkpoints");
  run->plot_every = (int)ne_config_int(run->cfg, "run", "plot_every");
  run->plot_seconds = ne_config_float(run->cfg, "run", "plot_seconds");
  run->progress_seconds = ne_config_float(run->cfg, "run", "progress_seconds");
  // overlapped generations: only for an algorithm that asks ahead
  run->overlap = ne_config_bool(run->cfg, "run", "overlap") && run->vt->ask_ahead;
  if (run->overlap && ne__ahead_create(run->env->obs_dim, run->env->bc_dim, &run->ahead))
    return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  run->best_score = NAN;
  run->gen_pre = run->gen_post = NAN;
  // executor: the caller's, or a local pool
  if (run->opt.executor) {
    run->exec = run->opt.executor;
  } else {
    int threads = run->opt.threads > 0 ? run->opt.threads : (int)ne_config_int(run->cfg, "run", "threads");
    size_t cache_bytes = (size_t)ne_config_int(run->cfg, "ga", "cache_mb") << 20;
    rc = ne_local_executor_create(run->env, &run->policy, threads, cache_bytes, &run->exec, errstr);
    run->own_exec = rc == 0;
  }
  // the partial-generation log and progress lines within a round take each result from the
  // executor (local or the Redis master); black-box functions (a generation takes milliseconds)
  // need neither
  if (!rc) run->result_hook = !run->minimize && ne_executor_set_result_hook(run->exec, NULL, NULL) == 0;
  // meta-learning: local evaluators run the inner loop (a caller's local executor too, e.g.
  // compare's); Redis workers read [meta] from the experiment's config themselves
  if (!rc && run->meta.tasks > 0) {
    rc = ne_local_executor_set_meta(run->exec, &run->meta, NULL);
    if (rc == NE_EINVAL) rc = 0;  // not local
    else if (rc) rc = ne__set_error(errstr, rc, "out of memory for the inner loops");
  }
  return rc;
}

// The caller's generation budget, if any, becomes run.generations of the run's config, so that
// config.ini (what resume, the dashboard and the report read) holds the budget the run uses.
// *changed is set when the value differs from the config's.
static int apply_generations(ne_run* run, int* changed, char* errstr) {
  *changed = 0;
  if (!(run->opt.generations > 0 || (run->opt.generations_set && run->opt.generations == 0))) return 0;
  if (run->opt.generations == ne_config_int(run->cfg, "run", "generations")) return 0;
  char value[32];
  snprintf(value, sizeof value, "%lld", (long long)run->opt.generations);
  *changed = 1;
  return ne_config_set(run->cfg, "run", "generations", value, "--generations", errstr);
}

// Nevergrad's budget = 0 means run.generations x population: fixed here, when the run starts, in
// the run's config, so that a later resume --generations (a new run budget) does not rebuild the
// optimizer with a different budget than the one its saved state was made with.
static int resolve_nevergrad_budget(ne_run* run, char* errstr) {
  if (strcmp(ne_config_str(run->cfg, "run", "algorithm"), "nevergrad") != 0) return 0;
  int64_t gens = ne_config_int(run->cfg, "run", "generations");
  if (ne_config_int(run->cfg, "nevergrad", "budget") != 0 || gens <= 0) return 0;
  char value[32];
  snprintf(value, sizeof value, "%lld", (long long)(gens * ne_config_int(run->cfg, "nevergrad", "population")));
  return ne_config_set(run->cfg, "nevergrad", "budget", value, "run.generations x nevergrad.population", errstr);
}

// The partial-generation log (partial.h) for the generation after checkpoint `base`, when the run
// has episodes and its executor reports each result.
static int open_partial(ne_run* run, uint32_t base, char* errstr) {
  if (!run->result_hook) return 0;
  char path[4096];
  path_in(run, path, sizeof path, "checkpoints");
  int rc = ne__partial_open(path, base, run->env->obs_dim, run->env->bc_dim, &run->partial, errstr);
  if (rc) return rc;
  // results evaluated elsewhere (Redis workers) are written as the master accepts them and fsynced
  // every second: a master killed, or stopped with its Redis lost, keeps every finished candidate
  // (a write each is nothing against a remote evaluation; a local CartPole run finishes 100,000
  // candidates a second and keeps the buffered default)
  if (strcmp(run->exec->vt->name, "local") != 0) ne__partial_set_timing(run->partial, 0, 1);
  run->partial_on = 1;
  return 0;
}

static int open_log(ne_run* run, char* errstr) {
  char path[4096];
  path_in(run, path, sizeof path, "log.txt");
  run->log = fopen(path, "a");
  if (!run->log) return ne__set_error(errstr, NE_EIO, "%s: %s", path, strerror(errno));
  return 0;
}

// An empty run with the caller's options (NULL: defaults); ne_run_destroy frees it.
static ne_run* new_run(const ne_run_options* opt) {
  ne_run* run = ne_calloc(1, sizeof *run);
  if (!run) return NULL;
  if (opt) run->opt = *opt;
  run->metrics_fd = -1;
  run->row_best = NAN;
  pthread_mutex_init(&run->progress_mu, NULL);
  return run;
}

int ne_run_create(const ne_config* cfg, const ne_run_options* opt, ne_run** out, char* errstr) {
  *out = NULL;
  int rc = ne_config_validate(cfg, errstr);
  if (rc) return rc;
  ne_run* run = new_run(opt);
  if (!run) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  run->cfg = ne_config_clone(cfg);
  int changed;
  rc = run->cfg ? apply_generations(run, &changed, errstr) : ne__set_error(errstr, NE_ENOMEM, "out of memory");
  if (!rc) rc = resolve_nevergrad_budget(run, errstr);
  if (!rc) rc = build(run, errstr);
  if (!rc) rc = make_run_dir(run, errstr);
  char path[4096];
  if (!rc) {
    path_in(run, path, sizeof path, "config.ini");
    rc = ne_config_write_file(run->cfg, path, errstr);
  }
  if (!rc) rc = create_metrics(run, errstr);
  if (!rc) {
    char executor[160];
    ne__run_describe(run, executor, sizeof executor);
    rc = ne__record_start(run->dir, run->cfg, run->opt.name, run->opt.origin, 0, executor, errstr);
  }
  if (!rc) ne__run_tb_open(run);  // TensorBoard events (run_tfevents.c); warns, never fails
  if (!rc) rc = open_log(run, errstr);
  if (!rc) rc = open_partial(run, 0, errstr);
  if (rc) {
    ne_run_destroy(run);
    return rc;
  }
  *out = run;
  return 0;
}

static void warn_checkpoint(const char* msg) { fprintf(stderr, "neuroevo: warning: skipping checkpoint: %s\n", msg); }

// 1 when the run never completed a generation: no checkpoint file and no metrics row (a run stopped
// during its first generation). Resuming it is starting it: build() made the algorithm's state
// at generation 0 from the config.
static int never_started(ne_run* run) {
  char path[4096];
  path_in(run, path, sizeof path, "checkpoints");
  if (ne_checkpoint_count(path) > 0) return 0;
  path_in(run, path, sizeof path, "metrics.csv");
  char* text = NULL;
  size_t len = 0;
  if (ne__read_file(path, &text, &len, NULL) != 0) return 1;
  int rows = 0;  // a row, even a torn one (the header may be lost: create_metrics)
  for (const char* line = text; !rows && line < text + len;) {
    rows = is_metrics_row(line);
    const char* nl = memchr(line, '\n', (size_t)(text + len - line));
    line = nl ? nl + 1 : text + len;
  }
  ne_free(text);
  return !rows;
}

int ne_run_resume(const char* run_dir, const ne_run_options* opt, ne_run** out, char* errstr) {
  *out = NULL;
  ne_run* run = new_run(opt);
  if (!run) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  run->opt.out_dir = NULL;
  snprintf(run->dir, sizeof run->dir, "%s", run_dir);
  char path[4096];
  path_in(run, path, sizeof path, "config.ini");
  run->cfg = ne_config_create();
  int rc = run->cfg ? ne_config_load_file(run->cfg, path, errstr) : NE_ENOMEM, changed = 0;
  if (!rc) rc = ne_config_validate(run->cfg, errstr);
  if (!rc) rc = apply_generations(run, &changed, errstr);
  // a new budget is the run's budget from now on: config.ini says so (atomic rewrite)
  if (!rc && changed) rc = ne_config_write_file(run->cfg, path, errstr);
  if (!rc) rc = build(run, errstr);
  ne_checkpoint ck = {0};
  path_in(run, path, sizeof path, "checkpoints");
  int fresh = !rc && never_started(run);
  if (!rc && !fresh) rc = ne_checkpoint_read_latest(path, &ck, errstr, warn_checkpoint);
  if (!rc && !fresh) rc = run->vt->load(run->algo, ck.algo, ck.algo_len, errstr);
  if (!rc) {
    run->generation = ck.generation;
    run->evaluations = ck.evaluations;
    run->env_steps = ck.env_steps;
    run->wall_s = ck.wall_s;
    run->checkpointed_generation = ck.generation;
    ne_best best;
    if (run->vt->best(run->algo, &best) == 0) run->best_score = best.score;
    rc = truncate_metrics(run, ck.generation, errstr);
  }
  if (!rc) read_row_best(run);
  if (!rc) rc = open_metrics(run, errstr);
  if (!rc) {
    char executor[160];
    ne__run_describe(run, executor, sizeof executor);
    rc = ne__record_start(run->dir, run->cfg, run->opt.name, run->opt.origin, 1, executor, errstr);
  }
  ne_checkpoint_free(&ck);
  // TensorBoard events: drops those of generations >= the checkpoint's, as metrics.csv does
  if (!rc) ne__run_tb_open(run);
  if (!rc) rc = open_log(run, errstr);
  if (!rc) rc = open_partial(run, run->generation, errstr);
  if (rc) {
    ne_run_destroy(run);
    return rc;
  }
  *out = run;
  return 0;
}

void ne_run_destroy(ne_run* run) {
  if (!run) return;
  if (run->algo) run->vt->destroy(run->algo);
  if (run->own_exec) ne_executor_destroy(run->exec);
  // a caller's local executor outlives run->meta: back to plain evaluations
  else if (run->exec && run->meta.tasks > 0) ne_local_executor_set_meta(run->exec, NULL, NULL);
  ne_env_spec_destroy(run->env);
  ne_config_destroy(run->cfg);
  ne__result_buf* bufs[] = {&run->res, &run->ahead_res};
  for (int k = 0; k < 2; k++) {
    ne_free(bufs[k]->results);
    ne_free(bufs[k]->obs_stats);
    ne_free(bufs[k]->bcs);
  }
  ne__ahead_destroy(run->ahead);
  ne_free(run->pending_state);
  ne__partial_close(run->partial);
  pthread_mutex_destroy(&run->progress_mu);
  if (run->log) fclose(run->log);
  if (run->metrics_fd >= 0) close(run->metrics_fd);
  ne__run_tb_close(run);
  ne_free(run);
}

const char* ne_run_dir(const ne_run* run) { return run->dir; }
uint32_t ne_run_generation(const ne_run* run) { return run->generation; }
double ne_run_best_score(const ne_run* run) { return run->best_score; }
