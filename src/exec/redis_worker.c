// SPDX-License-Identifier: MIT
// The Redis worker (cluster.h): follows the experiment named by ne:current, builds its env, policy
// and parameter cache from the config the master stored, and runs its task pipeline
// (redis_worker_tasks.c: one reader claiming tasks for the process, N evaluation threads, one
// writer sending results with their acknowledgements). This file is the main thread: it
// heartbeats, keeps the tasks in hand fresh (so only a dead worker's tasks are re-claimed) and
// switches experiments. SIGTERM finishes the tasks in hand.
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "exec/redis_beat.h"  // ne__beat_state: is the followed experiment's master alive?
#include "exec/redis_conn.h"
#include "exec/redis_scripts.h"
#include "exec/redis_wire.h"
#include "exec/redis_worker_int.h"
#include "neuroevo/algo.h"  // ne_algo_noise_table
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"
#include "neuroevo/env.h"  // ne_env_from_config
#include "neuroevo/evaluator.h"
#include "neuroevo/policy.h"  // ne_policy_from_config
#include "neuroevo/pool.h"
#include "neuroevo/rng.h"
#include "neuroevo/version.h"

#define MAIN_WAIT_S 0.25  // the main thread looks at the stop flag this often while following

typedef ne__worker worker;
typedef ne__experiment experiment;

// Workers hosted by one process (opt.count > 1) sleep on this condition between heartbeats; the
// host broadcasts it when it raises their stop flag. A lone worker's flag is raised by a signal
// handler, which cannot signal a condition: it looks at the flag MAIN_WAIT_S apart instead.
static pthread_mutex_t host_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t host_cv = PTHREAD_COND_INITIALIZER;

static void host_wait(const worker* w, double s) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  double end = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + s;
  ts.tv_sec = (time_t)end;
  ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
  pthread_mutex_lock(&host_mu);
  if (!(w->opt.stop && *w->opt.stop)) pthread_cond_timedwait(&host_cv, &host_mu, &ts);
  pthread_mutex_unlock(&host_mu);
}

static void host_stop_all(volatile int* stop) {
  pthread_mutex_lock(&host_mu);
  *stop = 1;
  pthread_cond_broadcast(&host_cv);
  pthread_mutex_unlock(&host_mu);
}

// ---- messages -----------------------------------------------------------------------------

void ne__worker_say(worker* w, const char* fmt, ...) {
  char prefix[NE_WIRE_MAX_NAME + 32];
  snprintf(prefix, sizeof prefix, "neuroevo worker %s", w->name);
  va_list ap;
  va_start(ap, fmt);
  ne__vsay(w->log, prefix, fmt, ap);
  va_end(ap);
}

int ne__worker_stopping(const worker* w) { return (w->opt.stop && *w->opt.stop) || w->done; }

static int stopping(const worker* w) { return ne__worker_stopping(w); }

// ---- experiments --------------------------------------------------------------------------

static void experiment_free(experiment* ex) {
  if (!ex) return;
  ne__worker_blobs_free(ex);
  pthread_mutex_destroy(&ex->blob_mu);
  ne_cache_destroy(ex->cache);
  ne_noise_table_destroy(ex->noise);
  ne_env_spec_destroy(ex->env);
  ne_config_destroy(ex->cfg);
  ne_free(ex);
}

static const char* meta_field(const redisReply* r, const char* name) { return ne__reply_str(r, name, NULL); }

// Checks the experiment's wire version and mode against this worker.
static int check_meta(worker* w, const char* id, const redisReply* meta, char* why) {
  const char* wire = meta_field(meta, "wire");
  const char* synthetic = meta_field(meta, "synthetic");
  if (!wire || !meta_field(meta, "config") || !meta_field(meta, "fingerprint"))
    return ne__set_error(why, NE_ECORRUPT, "experiment %s has an incomplete description in Redis", id);
  if (atoi(wire) != NE_WIRE_VERSION)
    return ne__set_error(why, NE_EVERSION,
                         "experiment %s was published by a master speaking wire version %s; this worker (neuroevo %s) "
                         "speaks version %d: run the same neuroevo version on the master and every worker",
                         id, wire, NE_VERSION_STRING, NE_WIRE_VERSION);
  int meta_synth = synthetic && atoi(synthetic) == 1;
  if (meta_synth != (w->opt.synthetic != 0))
    return ne__set_error(why, NE_EINVAL, "experiment %s is %s; this worker was started %s --synthetic", id,
                         meta_synth ? "a synthetic benchmark" : "a real run", w->opt.synthetic ? "with" : "without");
  return 0;
}

// Builds env, policy, cache and fingerprint from the stored config, and compares fingerprints.
static int build_experiment(worker* w, experiment* ex, const redisReply* meta, char* why) {
  ex->cfg = ne_config_create();
  if (!ex->cfg) return ne__set_error(why, NE_ENOMEM, "out of memory");
  char origin[64];
  snprintf(origin, sizeof origin, "experiment %s", ex->id);
  int rc = ne_config_load_string(ex->cfg, meta_field(meta, "config"), origin, why);
  if (!rc) rc = ne_env_from_config(ex->cfg, &ex->env, why);
  if (!rc) rc = ne_policy_from_config(ex->cfg, ex->env, &ex->policy, why);
  if (!rc) rc = ne_meta_from_config(ex->cfg, ex->env, &ex->policy, &ex->meta, why);  // meta-learning
  if (rc) return rc;
  ex->fingerprint = ne__wire_fingerprint(ex->env, &ex->policy, w->opt.synthetic);
  uint64_t theirs = 0;
  const char* fp = meta_field(meta, "fingerprint");
  if (!fp) fp = "?";
  ne__wire_id_parse(fp, &theirs);
  if (theirs != ex->fingerprint) {
    char mine[17];
    ne__wire_id_format(ex->fingerprint, mine);
    const char* salt = getenv("NEUROEVO_TEST_FINGERPRINT_SALT");
    if (!(salt && *salt))
      return ne__set_error(why, NE_EVERSION,
                           "this worker's build/spec fingerprint %s differs from the master's %s (another neuroevo "
                           "version or build options): its results would be rejected",
                           mine, fp);
    ne__worker_say(
        w, "fingerprint %s differs from the master's %s; joining anyway (NEUROEVO_TEST_FINGERPRINT_SALT test hook)",
        mine, fp);
  }
  const char* timeout = meta_field(meta, "task_timeout_ms");
  ex->task_timeout_s = timeout ? atof(timeout) / 1000 : 10;
  size_t cache_bytes = (size_t)ne_config_int(ex->cfg, "ga", "cache_mb") << 20;
  ex->cache = ne_cache_create(ex->policy.n_params, cache_bytes);
  if (!ex->cache) return ne__set_error(why, NE_ENOMEM, "out of memory for the parameter cache");
  // the master's algorithm built the same table from the same config (built once, before the threads);
  // synthetic results read no parameters (a simulated cluster of thousands of workers would build
  // thousands of tables)
  if (w->opt.synthetic) return 0;
  uint64_t seed = (uint64_t)ne_config_int(ex->cfg, "run", "seed");
  if (!ne_algo_noise_table_evaluated(ex->cfg)) return 0;  // PGPE/SNES: the master's explicit vectors
  return ne_algo_noise_table(ex->cfg, seed, ex->policy.n_params, &ex->noise, why);
}

// Reads the experiment's description and prepares to follow it. NE_EVERSION is fatal for the
// worker; other errors make it skip this experiment.
static int join_experiment(worker* w, const char* id, char* why) {
  experiment* ex = ne_calloc(1, sizeof *ex);
  if (!ex) return ne__set_error(why, NE_ENOMEM, "out of memory");
  pthread_mutex_init(&ex->blob_mu, NULL);
  ex->blob_conn = (ne__rconn){.url = w->url, .timeout_s = 2};
  snprintf(ex->id, sizeof ex->id, "%s", id);
  if (ne__wire_id_parse(id, &ex->exp) != 0) {
    experiment_free(ex);
    return ne__set_error(why, NE_EINVAL, "%s names experiment '%.40s', not 16 hex digits", NE_KEY_CURRENT, id);
  }
  ne__key_exp(ex->k_tasks, id, "tasks");
  ne__key_exp(ex->k_results, id, "results");
  ne__key_exp(ex->k_meta, id, "meta");
  ne__key_exp(ex->k_workers, id, "workers");
  redisReply* meta = ne__rconn_command(&w->conn, "HGETALL %s", ex->k_meta);
  int rc = meta ? check_meta(w, id, meta, why) : ne__set_error(why, NE_ENET, "%s", w->conn.errstr);
  if (!rc) rc = build_experiment(w, ex, meta, why);
  if (meta) freeReplyObject(meta);
  if (rc) {
    experiment_free(ex);
    return rc;
  }
  w->ex = ex;
  return 0;
}

static void leave_experiment(worker* w) {
  ne__worker_stop_tasks(w, &w->conn);
  experiment_free(w->ex);
  w->ex = NULL;
}

// ---- main thread: heartbeat, touch, follow ------------------------------------------------

static void update_rate(worker* w, uint64_t done) {
  double now = ne__now();
  double dt = now - w->rate_at;
  if (dt <= 0) return;
  double inst = (double)(done - w->rate_done) / dt;
  w->rate = w->rate_at == 0 ? inst : 0.5 * w->rate + 0.5 * inst;
  w->rate_done = done;
  w->rate_at = now;
}

// Publishes this worker's figures with the server's clock (a Lua script reads TIME).
static void heartbeat(worker* w) {
  pthread_mutex_lock(&w->mu);
  uint64_t results = w->results_done, tasks = w->tasks_done, bad = w->bad_tasks;
  pthread_mutex_unlock(&w->mu);
  update_rate(w, results);
  char wkey[NE_KEY_LEN], xkey[NE_KEY_LEN], tkey[NE_KEY_LEN], ttl[24], exp_val[64], v[8][32];
  snprintf(wkey, sizeof wkey, NE_KEY_WORKER_FMT, w->name);
  snprintf(xkey, sizeof xkey, "%s", w->ex ? w->ex->k_workers : "ne:exp:none:workers");
  snprintf(tkey, sizeof tkey, "%s", w->ex ? w->ex->k_tasks : "ne:exp:none:tasks");
  snprintf(ttl, sizeof ttl, "%.0f", 3 * w->interval_s * 1000 + 1000);
  exp_val[0] = '\0';  // "" tells the script there is no experiment hash to update
  if (w->ex) snprintf(exp_val, sizeof exp_val, "%d %.0f", w->threads, w->interval_s * 1000);
  snprintf(v[0], 32, "%d", w->threads);
  snprintf(v[1], 32, "%llu", (unsigned long long)results);
  snprintf(v[2], 32, "%llu", (unsigned long long)tasks);
  snprintf(v[3], 32, "%.1f", w->rate);
  snprintf(v[4], 32, "%llu", (unsigned long long)bad);
  snprintf(v[5], 32, "%d", (int)getpid());
  snprintf(v[6], 32, "%lld", w->started);
  snprintf(v[7], 32, "%.0f", w->interval_s * 1000);
  char refused[17] = "-";  // the experiment this worker would not join, for `status`
  if (w->has_refused) ne__wire_id_format(w->refused, refused);
  // clang-format off
  const char* args[] = {NE_KEY_WORKERS, wkey, xkey, tkey, w->name, ttl, exp_val,
                        "threads", v[0], "results", v[1], "tasks", v[2], "rate", v[3], "bad_tasks", v[4],
                        "pid", v[5], "started", v[6], "interval_ms", v[7], "host", w->host,
                        "experiment", w->ex ? w->ex->id : "-", "version", NE_VERSION_STRING,
                        "refused", refused, "refused_why", w->has_refused ? w->refused_why : ""};
  // clang-format on
  redisReply* r = ne__rconn_script(&w->conn, ne__heartbeat_lua, 4, (int)(sizeof args / sizeof args[0]), args, NULL);
  if (r && r->type == REDIS_REPLY_INTEGER) w->server_ms = r->integer;
  if (r) freeReplyObject(r);
}

// Says once in the log what the worker waits for: a master (no experiment to follow), or the
// master of the followed experiment (gone: no heartbeat; stopped before its run's end); and when
// that master is back. `what` is "" when nothing is awaited.
static void say_waiting(worker* w, const char* what, const char* id) {
  if (strcmp(w->waiting, what) == 0) return;
  if (!what[0] && strcmp(w->waiting, "master") != 0) ne__worker_say(w, "the master of experiment %s is back", id);
  else if (strcmp(what, "master") == 0)
    ne__worker_say(w,
                   "waiting for a master: no experiment to follow on %s (`neuroevo run CONFIG --redis URL` "
                   "starts one)",
                   w->url.shown);
  else if (strcmp(what, "gone") == 0)
    ne__worker_say(w,
                   "waiting for the master of experiment %s: no heartbeat from it for more than 4 s (killed, or cut "
                   "off from Redis? `neuroevo resume RUN_DIR --redis URL` continues the run)",
                   id);
  else if (strcmp(what, "stopped") == 0)
    ne__worker_say(w,
                   "waiting for the master of experiment %s: it stopped before the run's end (`neuroevo resume "
                   "RUN_DIR --redis URL` continues the run)",
                   id);
  snprintf(w->waiting, sizeof w->waiting, "%s", what);
}

// The experiment to follow: ne:current, unless it is finished. "" when there is none (or Redis lost
// it, in which case the current one is kept until the master re-creates it). state gets its
// master's state (ne__beat_state; "" when unknown).
static void current_experiment(worker* w, char* id, size_t size, char state[16]) {
  id[0] = state[0] = '\0';
  redisReply* r = ne__rconn_command(&w->conn, "GET %s", NE_KEY_CURRENT);
  if (r && r->type == REDIS_REPLY_STRING) snprintf(id, size, "%s", r->str);
  if (r) freeReplyObject(r);
  if (!id[0]) return;
  char key[NE_KEY_LEN];
  ne__key_exp(key, id, "meta");
  r = ne__rconn_command(&w->conn, "HMGET %s status beat beat_ms", key);
  if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 && r->element[0]->type == REDIS_REPLY_STRING) {
    long long beat = r->element[1]->str ? strtoll(r->element[1]->str, NULL, 10) : 0;
    long long beat_ms = r->element[2]->str ? strtoll(r->element[2]->str, NULL, 10) : 0;
    snprintf(state, 16, "%s", ne__beat_state(r->element[0]->str, w->server_ms ? beat : 0, beat_ms, w->server_ms));
    if (strcmp(state, "finished") == 0) snprintf(id, size, "-done-");
  }
  if (r) freeReplyObject(r);
}

// Why this worker does not join experiment id goes where the master and `status` see it: the
// experiment's refusal hash (worker name -> reason; the master reports it, and stops when no worker
// can join) and, through the heartbeat, this worker's own hash.
static void report_refusal(worker* w, const char* id, uint64_t exp, const char* why) {
  w->refused = exp, w->has_refused = 1;
  snprintf(w->refused_why, sizeof w->refused_why, "%s", why);
  char key[NE_KEY_LEN];
  ne__key_exp(key, id, "refused");
  redisReply* r = ne__rconn_command(&w->conn, "HSET %s %s %s", key, w->name, w->refused_why);
  if (r) freeReplyObject(r);
  r = ne__rconn_command(&w->conn, "EXPIRE %s %d", key, 7 * 86400);  // as long as an abandoned experiment
  if (r) freeReplyObject(r);
  heartbeat(w);
}

// One pass of the main loop: follow the right experiment. Returns NE_EVERSION when fatal.
static int follow(worker* w, char* errstr) {
  char id[64], why[NE_ERRSTR_LEN], state[16];
  current_experiment(w, id, sizeof id, state);
  if (!w->conn.c) return 0;  // Redis unreachable: keep what we have
  int finished = strcmp(id, "-done-") == 0;
  // what this worker waits for, if anything: said once in its log
  if (w->ex && strcmp(id, w->ex->id) == 0)
    say_waiting(w, strcmp(state, "gone") == 0 || strcmp(state, "stopped") == 0 ? state : "", id);
  else if (!w->ex && (!id[0] || finished)) say_waiting(w, "master", id);
  if (w->ex && (finished || (id[0] && strcmp(id, w->ex->id) != 0))) {
    ne__worker_say(w, "experiment %s %s", w->ex->id, finished ? "finished" : "replaced: re-initializing");
    leave_experiment(w);
  }
  if (w->ex || !id[0] || finished) return 0;
  uint64_t exp = 0;
  ne__wire_id_parse(id, &exp);
  if (w->has_refused && exp == w->refused) return 0;
  int rc = join_experiment(w, id, why);
  if (rc == NE_ENET) return 0;
  if (rc) {
    report_refusal(w, id, exp, why);
    if (rc == NE_EVERSION) return ne__set_error(errstr, rc, "%s", why);
    ne__worker_say(w, "not joining experiment %s: %s", id, why);
    return 0;
  }
  if (ne__worker_start_tasks(w) != 0) return ne__set_error(errstr, NE_ENOMEM, "cannot start %d threads", w->threads);
  ne__worker_say(w, "following experiment %s (%s) with %d thread%s", id, w->ex->env->id, w->threads,
                 w->threads == 1 ? "" : "s");
  heartbeat(w);  // the master sizes its chunks from live threads: show up at once
  return 0;
}

// Idle: blocks on the announcement stream up to ms; 1 when a master announced an experiment.
static int wait_announce(worker* w, int ms) {
  if (!w->announce[0]) {  // start after the newest announcement (ne:current covers older ones)
    redisReply* r = ne__rconn_command(&w->conn, "XREVRANGE %s + - COUNT 1", NE_KEY_ANNOUNCE);
    int has = r && r->type == REDIS_REPLY_ARRAY && r->elements == 1;
    snprintf(w->announce, sizeof w->announce, "%s", has ? r->element[0]->element[0]->str : "0-0");
    if (r) freeReplyObject(r);
    if (!w->conn.c) return (w->announce[0] = '\0'), 0;
  }
  redisReply* r =
      ne__rconn_command(&w->conn, "XREAD COUNT 16 BLOCK %d STREAMS %s %s", ms, NE_KEY_ANNOUNCE, w->announce);
  int got = r && r->type == REDIS_REPLY_ARRAY && r->elements == 1;
  if (got) {
    const redisReply* entries = r->element[0]->element[1];
    snprintf(w->announce, sizeof w->announce, "%s", entries->element[entries->elements - 1]->element[0]->str);
  }
  if (r) freeReplyObject(r);
  return got;
}

static void forget_worker(worker* w) {
  char wkey[NE_KEY_LEN];
  snprintf(wkey, sizeof wkey, NE_KEY_WORKER_FMT, w->name);
  redisReply* r = ne__rconn_command(&w->conn, "ZREM %s %s", NE_KEY_WORKERS, w->name);
  if (r) freeReplyObject(r);
  r = ne__rconn_command(&w->conn, "DEL %s", wkey);
  if (r) freeReplyObject(r);
  if (w->ex) {
    r = ne__rconn_command(&w->conn, "HDEL %s %s", w->ex->k_workers, w->name);
    if (r) freeReplyObject(r);
  }
}

// The main loop: heartbeat + touch every period, follow the current experiment, until stopped.
static int main_loop(worker* w, char* errstr) {
  double next = 0;
  int rc = 0, waiting_said = 0;
  while (!stopping(w) && !rc) {
    if (ne__now() >= next) {
      if (ne__rconn_ensure(&w->conn) == 0) {
        waiting_said = 0;
        heartbeat(w);
        ne__worker_touch_tasks(w, &w->conn);
        rc = follow(w, errstr);
      } else if (w->conn.err == NE_EINVAL) {
        rc = ne__set_error(errstr, NE_EINVAL, "%s", w->conn.errstr);
      } else if (!waiting_said++) {
        ne__worker_say(w, "waiting for Redis: %s", w->conn.errstr);
      }
      double touch = w->ex ? w->ex->task_timeout_s / 3 : w->interval_s;
      next = ne__now() + (touch < w->interval_s ? touch : w->interval_s);
    }
    if (w->ex && ne__worker_tasks_exited(w)) break;
    double wait_s = next - ne__now();
    if (!w->ex && w->conn.c && wait_s > 0) {
      // at least 1 ms: BLOCK 0 would wait for an announcement forever (no heartbeat, deaf to SIGTERM)
      int ms = wait_s > 1 ? 1000 : (int)(wait_s * 1000) + 1;
      if (wait_announce(w, ms)) next = 0;         // follow the new experiment now
    } else if (wait_s > 0 && w->opt.count < 0) {  // hosted (run_hosted marks its workers with count -1)
      host_wait(w, wait_s);                       // until the next heartbeat or the host's stop
    } else if (wait_s > 0) {
      ne__sleep_s(wait_s < MAIN_WAIT_S ? wait_s : MAIN_WAIT_S);
    }
  }
  return rc;
}

static int setup_worker(worker* w, const ne_cluster_worker_options* opt, char* errstr) {
  w->opt = *opt;
  w->log = opt->log ? opt->log : stderr;
  w->threads = opt->threads > 0 ? opt->threads : ne_cpu_count();
  w->interval_s = opt->heartbeat_s > 0 ? opt->heartbeat_s : 1.0;
  w->started = (long long)time(NULL);
  // test hook: a fixed sleep per candidate makes fault-injection runs last long enough on any
  // machine (results are unaffected: only timing changes)
  const char* delay = getenv("NEUROEVO_TEST_EVAL_DELAY_MS");
  w->delay_s = delay ? atof(delay) / 1000 : 0;
  gethostname(w->host, sizeof w->host - 1);
  snprintf(w->name, sizeof w->name, "%s", opt->name);  // set by ne_cluster_worker_run
  for (char* p = w->name; *p; p++)
    if (*p <= ' ' || *p > '~') *p = '_';
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->task_cv, NULL);
  pthread_cond_init(&w->slot_cv, NULL);
  pthread_cond_init(&w->send_cv, NULL);
  int rc = ne__redis_url_parse(opt->url, &w->url, errstr);
  if (!rc) rc = ne__redis_url_check_auth(&w->url, "the worker", errstr);
  if (rc) return rc;
  w->conn.url = w->url;
  w->conn.timeout_s = 2;
  return 0;
}

// One worker until stopped; opt->name is set.
static int run_one(const ne_cluster_worker_options* opt, char* errstr) {
  worker* w = ne_calloc(1, sizeof *w);
  if (!w) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  int rc = setup_worker(w, opt, errstr);
  if (!rc) {
    if (opt->simulate_s > 0)
      ne__worker_say(w, "%d thread%s, Redis at %s (simulated evaluation: %.1f ms +- %.0f%% per episode)", w->threads,
                     w->threads == 1 ? "" : "s", w->url.shown, opt->simulate_s * 1000, opt->simulate_jitter * 100);
    else
      ne__worker_say(w, "%d thread%s, Redis at %s%s", w->threads, w->threads == 1 ? "" : "s", w->url.shown,
                     opt->synthetic ? " (synthetic fitness)" : "");
    rc = main_loop(w, errstr);
    if (w->ex) leave_experiment(w);
    if (w->conn.c) forget_worker(w);
    ne__worker_say(w, "leaving after %llu tasks (%llu results, %llu bad tasks dropped, %llu env failures reported)",
                   (unsigned long long)w->tasks_done, (unsigned long long)w->results_done,
                   (unsigned long long)w->bad_tasks, (unsigned long long)w->env_failures);
  }
  ne__rconn_close(&w->conn);
  pthread_cond_destroy(&w->task_cv);
  pthread_cond_destroy(&w->slot_cv);
  pthread_cond_destroy(&w->send_cv);
  pthread_mutex_destroy(&w->mu);
  ne_free(w);
  return rc;
}

// ---- many workers in one process ----------------------------------------------------------

// A process that hosts workers (opt.count > 1): each runs the code above in its own thread, with
// its own connections and name, so a simulated cluster of thousands of workers needs no thousands
// of processes.
typedef struct hosted {
  ne_cluster_worker_options opt;    // the worker's options (stop points at the host's flag)
  char name[NE_WIRE_MAX_NAME + 1];  // <name>-<k>
  pthread_t th;
  int started;
  int rc;                   // its return code
  char err[NE_ERRSTR_LEN];  // its message
  volatile int* host_stop;  // raised when any worker fails
  volatile int finished;    // 1 once it returned
} hosted;

static void* hosted_main(void* arg) {
  hosted* x = arg;
  x->rc = run_one(&x->opt, x->err);
  if (x->rc) host_stop_all(x->host_stop);
  x->finished = 1;
  return NULL;
}

static int run_hosted(const ne_cluster_worker_options* opt, const char* base, char* errstr) {
  int n = opt->count;
  hosted* xs = ne_calloc((size_t)n, sizeof *xs);
  volatile int* host_stop = ne_calloc(1, sizeof *host_stop);
  if (!xs || !host_stop) {
    ne_free(xs);
    ne_free((void*)host_stop);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory for %d workers", n);
  }
  int rc = 0;
  for (int k = 0; k < n && !rc; k++) {
    hosted* x = &xs[k];
    x->opt = *opt;
    x->opt.count = -1;  // hosted: wait on host_cv
    x->opt.stop = host_stop;
    snprintf(x->name, sizeof x->name, "%.*s-%d", NE_WIRE_MAX_NAME - 12, base, k % 1000000);
    x->opt.name = x->name;
    x->host_stop = host_stop;
    if (pthread_create(&x->th, NULL, hosted_main, x) != 0)
      rc = ne__set_error(errstr, NE_ENOMEM, "cannot start worker %d of %d (threads or memory exhausted)", k + 1, n);
    else x->started = 1;
  }
  if (rc) host_stop_all(host_stop);
  // the host's thread passes a stop request on
  for (int all = 0; !all;) {
    if (opt->stop && *opt->stop && !*host_stop) host_stop_all(host_stop);
    all = 1;
    for (int k = 0; k < n && all; k++) all = !xs[k].started || xs[k].finished;
    if (!all) ne__sleep_s(0.1);
  }
  for (int k = 0; k < n; k++) {
    if (xs[k].started) pthread_join(xs[k].th, NULL);
    if (!rc && xs[k].rc) rc = ne__set_error(errstr, xs[k].rc, "worker %s: %s", xs[k].name, xs[k].err);
  }
  ne_free(xs);
  ne_free((void*)host_stop);
  return rc;
}

int ne_cluster_worker_run(const ne_cluster_worker_options* opt, char* errstr) {
  if (!opt || !opt->url) return ne__set_error(errstr, NE_EINVAL, "no Redis URL");
  // the default name's random part keeps names apart where host and PID repeat: containers on the
  // host's network (every entrypoint is PID 1) or with a fixed host name
  char name[NE_WIRE_MAX_NAME + 1], host[128] = "?";
  if (opt->name && opt->name[0]) {
    snprintf(name, sizeof name, "%s", opt->name);
  } else {
    gethostname(host, sizeof host - 1);
    snprintf(name, sizeof name, "%.40s-%d-%04x", host, (int)getpid(), (unsigned)(ne__random_u64() & 0xffff));
  }
  if (opt->count > 1) return run_hosted(opt, name, errstr);
  ne_cluster_worker_options one = *opt;
  one.name = name;
  return run_one(&one, errstr);
}
