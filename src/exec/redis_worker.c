// SPDX-License-Identifier: MIT
// The Redis worker (cluster.h): follows the experiment named by ne:current, builds its env, policy
// and parameter cache from the config the master stored, and runs N evaluation threads, each with
// its own connection (hiredis contexts do no locking), reading task chunks through the consumer
// group and writing each chunk's results together with the task's acknowledgement (MULTI/EXEC), so
// a task is never acknowledged without its result. The main thread heartbeats, keeps the tasks in
// hand fresh (so only a dead worker's tasks are re-claimed) and switches experiments. A bad task is
// logged and dropped; a missing blob leaves the task for re-claim; SIGTERM finishes the task in hand.
#include <inttypes.h>  // PRIu64
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "exec/redis_conn.h"
#include "exec/redis_wire.h"
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/pool.h"
#include "neuroevo/rng.h"
#include "neuroevo/run.h"
#include "neuroevo/version.h"

#define READ_BLOCK_MS 500  // XREADGROUP block: how often a thread looks at the leave flag
#define ID_LEN 48          // room for a stream id

// One broadcast vector held by this process; shared by the threads, freed when unused and old.
typedef struct blob_entry {
  uint64_t hash;   // identity
  uint32_t n;      // floats
  float* data;     // (n) owned
  uint32_t gen;    // newest generation that used it
  int refs;        // tasks using it now
} blob_entry;

// What the threads share while following one experiment.
typedef struct experiment {
  uint64_t exp;                  // experiment id
  char id[17];                   // its hex form
  char k_tasks[NE_KEY_LEN];      // task stream
  char k_results[NE_KEY_LEN];    // result stream
  char k_meta[NE_KEY_LEN];       // description
  char k_workers[NE_KEY_LEN];    // live-worker hash the master reads
  ne_config* cfg;                // the master's resolved config (owned)
  ne_env_spec* env;              // owned
  ne_policy_spec policy;         // policy spec
  ne_param_cache* cache;         // shared by the threads (thread-safe)
  ne_noise_table* noise;         // shared noise table the config asks for (owned; NULL: the generator)
  uint64_t fingerprint;          // what results are stamped with
  double task_timeout_s;         // the master's re-claim threshold
  pthread_mutex_t blob_mu;       // guards blobs (fetches happen under it: once per blob)
  blob_entry** blobs;            // (cap_blobs)
  int n_blobs, cap_blobs;
  volatile int leave;            // raised by the main thread: finish the task in hand and return
} experiment;

typedef struct worker worker;

// One evaluation thread and everything it owns.
typedef struct wthread {
  worker* w;                      // the process
  experiment* ex;                 // the experiment being followed
  int t;                          // thread number
  pthread_t th;                   // the thread
  int started;                    // 1 once pthread_create succeeded
  volatile int exited;            // 1 when the thread function returned
  ne__rconn conn;                 // this thread's own connection
  char consumer[NE_WIRE_MAX_NAME + 16]; // consumer name in the group: <worker>/<t>
  ne_evaluator* ev;               // this thread's evaluator
  ne__wire_task task;             // decoding scratch
  ne_buf out;                     // encoded results of the last task, until sent
  char pending[ID_LEN];           // task whose results in `out` are not sent yet ("" none)
  int pending_n;                  // its number of results
  ne_result* res;                 // (cap) results of the task in hand
  uint32_t* idx;                  // (cap) their candidate indices
  double* obs;                    // (cap * 2 * obs_dim) observation sums
  int cap;                        // allocated results
  ne_blob* blobs;                 // (cap_blobs) the task's blobs as a batch sees them
  blob_entry** held;              // (cap_blobs + 2) cache entries in use
  int cap_blobs;
} wthread;

struct worker {
  ne_cluster_worker_options opt;  // as given
  ne__redis_url url;              // parsed
  char name[NE_WIRE_MAX_NAME + 1];// unique name
  int threads;                    // evaluation threads
  double interval_s;              // heartbeat period
  FILE* log;                      // messages
  ne__rconn conn;                 // main thread's connection (heartbeats, following, touching)
  experiment* ex;                 // followed now, or NULL
  wthread* th;                    // (threads) while following
  uint64_t refused;               // experiment id not joined (bad config, other build); 0: none
  int has_refused;
  pthread_mutex_t mu;             // guards the counters and in_hand
  char (*in_hand)[ID_LEN];        // (threads) task id each thread holds ("" none)
  uint64_t results_done, tasks_done, bad_tasks;  // since start
  volatile int done;              // max_tasks reached
  double rate;                    // results/s (smoothed)
  uint64_t rate_done;             // results_done at the last rate update
  double rate_at;                 // time of that update
  char announce[ID_LEN];          // last entry seen on the announcement stream
  double delay_s;                 // test hook NEUROEVO_TEST_EVAL_DELAY_MS: sleep per candidate
  char host[128];                 // hostname
  long long started;              // unix time
};

// ---- messages -----------------------------------------------------------------------------

static void say(worker* w, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(worker* w, const char* fmt, ...) {
  char line[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(w->log, "neuroevo worker %s: %s\n", w->name, line);
  fflush(w->log);
}

static void sleep_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

static int stopping(const worker* w) { return (w->opt.stop && *w->opt.stop) || w->done; }

// ---- blob cache ---------------------------------------------------------------------------

// Frees entries nobody uses that are two generations old.
static void blob_evict(experiment* ex, uint32_t gen) {
  int k = 0;
  for (int i = 0; i < ex->n_blobs; i++) {
    blob_entry* e = ex->blobs[i];
    if (e->refs == 0 && e->gen + 1 < gen) {
      ne_free(e->data);
      ne_free(e);
    } else {
      ex->blobs[k++] = e;
    }
  }
  ex->n_blobs = k;
}

// Fetches and decodes one blob through conn. Returns the new entry or NULL with why.
static blob_entry* blob_fetch(experiment* ex, ne__rconn* conn, const ne__wire_blobref* ref, char* why) {
  char key[NE_KEY_LEN], suffix[32], hex[17];
  ne__wire_id_format(ref->hash, hex);
  snprintf(suffix, sizeof suffix, "blob:%s", hex);
  ne__key_exp(key, ex->id, suffix);
  redisReply* r = ne__rconn_command(conn, "GET %s", key);
  if (!r || r->type != REDIS_REPLY_STRING) {
    snprintf(why, NE_ERRSTR_LEN, "blob %s: %.200s", hex, r ? "not in Redis" : conn->errstr);
    if (r) freeReplyObject(r);
    return NULL;
  }
  blob_entry* e = ne_calloc(1, sizeof *e);
  float* data = ne_malloc((size_t)ref->n * sizeof(float));
  int rc = e && data ? ne__wire_decode_blob(r->str, r->len, ref->hash, ref->n, data, why) : NE_ENOMEM;
  freeReplyObject(r);
  if (rc) {
    if (rc == NE_ENOMEM) snprintf(why, NE_ERRSTR_LEN, "out of memory for blob %s (%u floats)", hex, ref->n);
    ne_free(e);
    ne_free(data);
    return NULL;
  }
  *e = (blob_entry){ref->hash, ref->n, data, 0, 0};
  return e;
}

// A blob for a task of generation gen, from the cache or fetched once; caller releases it.
static blob_entry* blob_acquire(experiment* ex, ne__rconn* conn, const ne__wire_blobref* ref, uint32_t gen, char* why) {
  pthread_mutex_lock(&ex->blob_mu);
  blob_entry* e = NULL;
  for (int i = 0; i < ex->n_blobs && !e; i++)
    if (ex->blobs[i]->hash == ref->hash && ex->blobs[i]->n == ref->n) e = ex->blobs[i];
  if (!e) {
    blob_evict(ex, gen);
    if (ex->n_blobs == ex->cap_blobs) {
      int cap = ex->cap_blobs ? 2 * ex->cap_blobs : 16;
      blob_entry** grown = ne_realloc(ex->blobs, (size_t)cap * sizeof *grown);
      if (grown) ex->blobs = grown, ex->cap_blobs = cap;
    }
    if (ex->n_blobs < ex->cap_blobs && (e = blob_fetch(ex, conn, ref, why)) != NULL) ex->blobs[ex->n_blobs++] = e;
    else if (ex->n_blobs == ex->cap_blobs) snprintf(why, NE_ERRSTR_LEN, "out of memory");
  }
  if (e) {
    e->refs++;
    if (gen > e->gen) e->gen = gen;
  }
  pthread_mutex_unlock(&ex->blob_mu);
  return e;
}

static void blob_release(experiment* ex, blob_entry* e) {
  if (!e) return;
  pthread_mutex_lock(&ex->blob_mu);
  e->refs--;
  pthread_mutex_unlock(&ex->blob_mu);
}

// ---- one task -----------------------------------------------------------------------------

// Grows the thread's result and blob buffers for the task in hand.
static int reserve_thread(wthread* th, int n, int n_blobs, int obs_dim) {
  if (n > th->cap) {
    ne_free(th->res);
    ne_free(th->idx);
    ne_free(th->obs);
    th->res = ne_calloc((size_t)n, sizeof *th->res);
    th->idx = ne_calloc((size_t)n, sizeof *th->idx);
    th->obs = ne_calloc((size_t)n * 2 * (size_t)(obs_dim > 0 ? obs_dim : 1), sizeof(double));
    th->cap = th->res && th->idx && th->obs ? n : 0;
    if (!th->cap) return NE_ENOMEM;
  }
  if (n_blobs + 2 > th->cap_blobs) {
    ne_free(th->blobs);
    ne_free(th->held);
    th->blobs = ne_calloc((size_t)n_blobs + 2, sizeof *th->blobs);
    th->held = ne_calloc((size_t)n_blobs + 2, sizeof *th->held);
    th->cap_blobs = th->blobs && th->held ? n_blobs + 2 : 0;
    if (!th->cap_blobs) return NE_ENOMEM;
  }
  return 0;
}

// Semantic checks a structurally valid task must pass before anything is evaluated.
static int check_task(const wthread* th, char* why) {
  const ne__wire_task* t = &th->task;
  const experiment* ex = th->ex;
  char theirs[17];
  ne__wire_id_format(t->round.exp, theirs);
  if (t->round.exp != ex->exp)
    return ne__set_error(why, NE_EINVAL, "task of experiment %s, not the followed %s", theirs, ex->id);
  if (t->has_norm && t->norm[0].n != (uint32_t)ex->env->obs_dim)
    return ne__set_error(why, NE_EINVAL, "normalization vectors of %u floats for %d observations", t->norm[0].n,
                         ex->env->obs_dim);
  // a worker whose config gives another table would compute other perturbations (size 0: the generator)
  uint64_t seed = ex->noise ? ex->noise->seed : 0, size = ex->noise ? ex->noise->size : 0;
  if (t->table_size != size || t->table_seed != seed)
    return ne__set_error(why, NE_EINVAL,
                         "task perturbs with noise table %016" PRIx64 " of %" PRIu64 " floats, this worker built "
                         "%016" PRIx64 " of %" PRIu64 " floats from the experiment's config (0 floats: the generator)",
                         t->table_seed, t->table_size, seed, size);
  for (int k = 0; k < t->n_blobs; k++)
    if (t->blobs[k].n != ex->policy.n_params)
      return ne__set_error(why, NE_EINVAL, "blob of %u floats for a policy of %zu parameters", t->blobs[k].n,
                           ex->policy.n_params);
  return 0;
}

// Takes the task's blobs from the cache into th->blobs / th->held; NULL entries on failure.
static int hold_blobs(wthread* th, char* why) {
  const ne__wire_task* t = &th->task;
  int n_held = t->n_blobs + (t->has_norm ? 2 : 0);
  memset(th->held, 0, (size_t)n_held * sizeof *th->held);
  for (int k = 0; k < t->n_blobs; k++) {
    th->held[k] = blob_acquire(th->ex, &th->conn, &t->blobs[k], t->round.generation, why);
    if (!th->held[k]) return NE_ENOTFOUND;
    th->blobs[k] = (ne_blob){t->blobs[k].hash, t->blobs[k].n, th->held[k]->data};
  }
  for (int k = 0; t->has_norm && k < 2; k++) {
    th->held[t->n_blobs + k] = blob_acquire(th->ex, &th->conn, &t->norm[k], t->round.generation, why);
    if (!th->held[t->n_blobs + k]) return NE_ENOTFOUND;
  }
  return 0;
}

static void release_blobs(wthread* th) {
  int n_held = th->task.n_blobs + (th->task.has_norm ? 2 : 0);
  for (int k = 0; k < n_held; k++) blob_release(th->ex, th->held[k]);
}

// A fitness for benchmarks: a pure function of the candidate, no env.
static void synthetic_result(const ne_candidate* c, ne_result* out) {
  uint64_t tail = c->kind == NE_CAND_CHAIN ? c->seeds[c->n_seeds - 1] : c->noise_seed;
  out->fitness = (double)(ne_hash2(c->episode_seed, tail) >> 11) * 0x1p-53;
  out->return_std = 0;
  out->episodes = c->episodes;
  out->steps = c->episodes;
  out->status = 0;
  out->obs_count = 0;
}

// Evaluates every candidate of the decoded task into th->res. Returns the first env failure
// (an env server that crashed twice, gym bridge) with its message in why, or 0.
static int evaluate_task(wthread* th, char* why) {
  const ne__wire_task* t = &th->task;
  int d = th->ex->env->obs_dim;
  ne_batch b = {t->round.generation, t->round.round, t->n, t->cands, t->n_blobs, th->blobs, t->want_obs_stats,
                NULL, NULL, t->obs_clip, th->ex->noise};
  if (t->has_norm) {
    b.obs_mean = th->held[t->n_blobs]->data;
    b.obs_std = th->held[t->n_blobs + 1]->data;
  }
  for (int j = 0; j < t->n; j++) {
    ne_result* r = &th->res[j];
    memset(r, 0, sizeof *r);
    r->obs_sum = t->want_obs_stats ? th->obs + (size_t)j * 2 * (size_t)d : NULL;
    r->obs_sumsq = t->want_obs_stats ? r->obs_sum + d : NULL;
    th->idx[j] = t->cands[j].index;
    if (th->w->delay_s > 0) sleep_s(th->w->delay_s);  // test hook: machine-independent run lengths
    if (th->w->opt.synthetic) {
      synthetic_result(&t->cands[j], r);
      continue;
    }
    int rc = ne_evaluator_run(th->ev, &b, &t->cands[j], r);
    const char* env_error = rc < 0 ? ne_evaluator_env_error(th->ev) : NULL;
    if (env_error) return ne__set_error(why, rc, "%s", env_error);
  }
  return 0;
}

// Acknowledges and deletes a task that cannot be evaluated (garbage must not circulate).
static void drop_task(wthread* th, const char* task_id) {
  const char* ack[] = {"XACK", th->ex->k_tasks, NE_GROUP, task_id};
  const char* del[] = {"XDEL", th->ex->k_tasks, task_id};
  redisReply* r = ne__rconn_argv(&th->conn, 4, ack, NULL);
  if (r) freeReplyObject(r);
  r = ne__rconn_argv(&th->conn, 3, del, NULL);
  if (r) freeReplyObject(r);
  pthread_mutex_lock(&th->w->mu);
  th->w->bad_tasks++;
  pthread_mutex_unlock(&th->w->mu);
}

static void count_done(wthread* th, int n) {
  worker* w = th->w;
  pthread_mutex_lock(&w->mu);
  w->results_done += (uint64_t)n;
  w->tasks_done++;
  if (w->opt.max_tasks > 0 && (long)w->tasks_done >= w->opt.max_tasks) w->done = 1;
  pthread_mutex_unlock(&w->mu);
}

// Decodes, evaluates and answers one task entry. Never fails the thread.
static void process_task(wthread* th, const char* task_id, const char* data, size_t len) {
  worker* w = th->w;
  char why[NE_ERRSTR_LEN];
  int rc = ne__wire_decode_task(&th->task, data, len, why);
  if (!rc) rc = check_task(th, why);
  if (rc == NE_ENOMEM) {
    say(w, "task %s: %s; leaving it for another worker", task_id, why);
    return;
  }
  if (rc) {
    say(w, "dropped %s task %s: %s", rc == NE_EVERSION ? "incompatible" : "malformed", task_id, why);
    drop_task(th, task_id);
    return;
  }
  if (reserve_thread(th, th->task.n, th->task.n_blobs, th->ex->env->obs_dim) != 0) {
    say(w, "task %s: out of memory for %d results; leaving it for another worker", task_id, th->task.n);
    return;
  }
  // a blob missing (Redis restarted, generation over) leaves the task unacknowledged: it is re-claimed
  if (hold_blobs(th, why) != 0) {
    release_blobs(th);
    say(w, "task %s: %s; leaving it for re-claim", task_id, why);
    sleep_s(0.2);
    return;
  }
  // an env that failed outside the process is this worker's problem, not the candidate's: the
  // task is left for re-claim (the local executor would stop the run instead)
  rc = evaluate_task(th, why);
  release_blobs(th);
  if (rc) {
    say(w, "task %s: env failure: %s; leaving it for re-claim", task_id, why);
    sleep_s(1);
    return;
  }
  ne__wire_result_hdr h = {"", th->task.round, th->task.task_no, th->ex->fingerprint,
                           th->task.want_obs_stats ? th->ex->env->obs_dim : 0};
  snprintf(h.worker, sizeof h.worker, "%s", w->name);
  // sent with the next XREADGROUP in one round trip (take_task), or by flush_pending on leaving
  rc = ne__wire_encode_results(&th->out, &h, th->idx, th->res, th->task.n);
  if (rc) {
    say(w, "task %s: results not encoded (%s); it will be re-claimed", task_id, ne_strerror(rc));
    return;
  }
  snprintf(th->pending, sizeof th->pending, "%s", task_id);
  th->pending_n = th->task.n;
}

// Queues MULTI / XADD results / XACK task / EXEC for the pending results; returns replies queued.
static int queue_pending(wthread* th) {
  const experiment* ex = th->ex;
  const char* multi[] = {"MULTI"};
  const char* xadd[] = {"XADD", ex->k_results, "*", "r", (const char*)th->out.data};
  size_t xlens[] = {4, strlen(ex->k_results), 1, 1, th->out.len};
  const char* xack[] = {"XACK", ex->k_tasks, NE_GROUP, th->pending};
  const char* exec[] = {"EXEC"};
  int rc = ne__rconn_append(&th->conn, 1, multi, NULL);
  if (!rc) rc = ne__rconn_append(&th->conn, 5, xadd, xlens);
  if (!rc) rc = ne__rconn_append(&th->conn, 4, xack, NULL);
  if (!rc) rc = ne__rconn_append(&th->conn, 1, exec, NULL);
  return rc ? -1 : 4;
}

// Reads the 4 replies of queue_pending; on success the pending results are done. 0 or NE_ENET
// (the results stay pending and are sent again after the reconnect: duplicates are harmless).
static int read_pending(wthread* th) {
  for (int i = 0; i < 4; i++) {
    redisReply* r = ne__rconn_get_reply(&th->conn);
    if (!r) return NE_ENET;
    freeReplyObject(r);
  }
  count_done(th, th->pending_n);
  th->pending[0] = '\0';
  return 0;
}

// Sends pending results on their own (the thread is leaving), retrying on a new connection.
static void flush_pending(wthread* th) {
  for (int attempt = 0; attempt < 3 && th->pending[0]; attempt++) {
    if (ne__rconn_wait(&th->conn, NULL, 10) != 0) break;
    if (queue_pending(th) == 4) read_pending(th);
  }
  if (th->pending[0])
    say(th->w, "task %s: results not sent (%s); it will be re-claimed", th->pending, th->conn.errstr);
}

// ---- evaluation threads -------------------------------------------------------------------

static void set_in_hand(wthread* th, const char* id) {
  pthread_mutex_lock(&th->w->mu);
  snprintf(th->w->in_hand[th->t], ID_LEN, "%s", id);
  pthread_mutex_unlock(&th->w->mu);
}

// Reads one task entry; returns 1 and processes it, 0 when none came, -1 after a connection error.
static int take_task(wthread* th) {
  experiment* ex = th->ex;
  // the previous task's results and this read share one round trip
  int queued = th->pending[0] ? queue_pending(th) : 0;
  char block[16];
  snprintf(block, sizeof block, "%d", READ_BLOCK_MS);
  const char* read[] = {"XREADGROUP", "GROUP", NE_GROUP, th->consumer, "COUNT", "1", "BLOCK", block, "STREAMS",
                        ex->k_tasks, ">"};
  if (queued < 0 || ne__rconn_append(&th->conn, 11, read, NULL) != 0) return -1;
  if (queued && read_pending(th) != 0) return -1;
  redisReply* r = ne__rconn_get_reply(&th->conn);
  if (!r) return -1;
  if (r->type == REDIS_REPLY_ERROR) {  // NOGROUP: the master has not (re-)created the stream yet
    freeReplyObject(r);
    sleep_s(0.2);
    return 0;
  }
  int got = 0;
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 1 && r->element[0]->elements == 2 &&
      r->element[0]->element[1]->elements == 1) {
    const redisReply* e = r->element[0]->element[1]->element[0];
    const redisReply* fields = e->elements == 2 ? e->element[1] : NULL;
    const char* id = e->element[0]->str;
    const redisReply* payload = NULL;
    for (size_t i = 0; fields && fields->type == REDIS_REPLY_ARRAY && i + 1 < fields->elements; i += 2)
      if (strcmp(fields->element[i]->str, "m") == 0) payload = fields->element[i + 1];
    set_in_hand(th, id);
    if (payload && payload->type == REDIS_REPLY_STRING) process_task(th, id, payload->str, payload->len);
    else {
      say(th->w, "dropped malformed task %s: no 'm' field", id);
      drop_task(th, id);
    }
    set_in_hand(th, "");
    got = 1;
  }
  freeReplyObject(r);
  return got;
}

static void* thread_main(void* arg) {
  wthread* th = arg;
  worker* w = th->w;
  experiment* ex = th->ex;
  while (!ex->leave && !stopping(w)) {
    if (ne__rconn_wait(&th->conn, &ex->leave, 0) != 0) break;
    take_task(th);
  }
  if (th->pending[0]) flush_pending(th);
  ne__rconn_close(&th->conn);
  th->exited = 1;
  return NULL;
}

static void thread_free(wthread* th) {
  ne__rconn_close(&th->conn);
  ne_evaluator_destroy(th->ev);
  ne__wire_task_free(&th->task);
  ne_buf_free(&th->out);
  ne_free(th->res);
  ne_free(th->idx);
  ne_free(th->obs);
  ne_free(th->blobs);
  ne_free(th->held);
}

// Raises the leave flag and joins every thread (each finishes the task in hand first).
static void stop_threads(worker* w) {
  if (!w->th) return;
  w->ex->leave = 1;
  for (int t = 0; t < w->threads; t++) {
    if (w->th[t].started) pthread_join(w->th[t].th, NULL);
    thread_free(&w->th[t]);
  }
  ne_free(w->th);
  w->th = NULL;
}

static int start_threads(worker* w) {
  w->th = ne_calloc((size_t)w->threads, sizeof *w->th);
  if (!w->th) return NE_ENOMEM;
  for (int t = 0; t < w->threads; t++) {
    wthread* th = &w->th[t];
    th->w = w;
    th->ex = w->ex;
    th->t = t;
    th->conn.url = w->url;
    th->conn.timeout_s = 2;
    snprintf(th->consumer, sizeof th->consumer, "%s/%d", w->name, t);
    ne__wire_task_init(&th->task);
    ne_buf_init(&th->out);
    th->ev = ne_evaluator_create(w->ex->env, &w->ex->policy, w->ex->cache);
    if (!th->ev) return NE_ENOMEM;
  }
  for (int t = 0; t < w->threads; t++) {
    if (pthread_create(&w->th[t].th, NULL, thread_main, &w->th[t]) != 0) return NE_ENOMEM;
    w->th[t].started = 1;
  }
  return 0;
}

// ---- experiments --------------------------------------------------------------------------

static void experiment_free(experiment* ex) {
  if (!ex) return;
  for (int i = 0; i < ex->n_blobs; i++) {
    ne_free(ex->blobs[i]->data);
    ne_free(ex->blobs[i]);
  }
  ne_free(ex->blobs);
  pthread_mutex_destroy(&ex->blob_mu);
  ne_cache_destroy(ex->cache);
  ne_noise_table_destroy(ex->noise);
  ne_env_spec_destroy(ex->env);
  ne_config_destroy(ex->cfg);
  ne_free(ex);
}

static const char* meta_field(const redisReply* r, const char* name) {
  for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2)
    if (strcmp(r->element[i]->str, name) == 0) return r->element[i + 1]->str;
  return NULL;
}

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
    say(w, "fingerprint %s differs from the master's %s; joining anyway (NEUROEVO_TEST_FINGERPRINT_SALT test hook)",
        mine, fp);
  }
  const char* timeout = meta_field(meta, "task_timeout_ms");
  ex->task_timeout_s = timeout ? atof(timeout) / 1000 : 10;
  size_t cache_bytes = (size_t)ne_config_int(ex->cfg, "ga", "cache_mb") << 20;
  ex->cache = ne_cache_create(ex->policy.n_params, cache_bytes);
  if (!ex->cache) return ne__set_error(why, NE_ENOMEM, "out of memory for the parameter cache");
  // the master's algorithm built the same table from the same config (built once, before the threads)
  uint64_t seed = (uint64_t)ne_config_int(ex->cfg, "run", "seed");
  return ne_algo_noise_table(ex->cfg, seed, ex->policy.n_params, &ex->noise, why);
}

// Reads the experiment's description and prepares to follow it. NE_EVERSION is fatal for the
// worker; other errors make it skip this experiment.
static int join_experiment(worker* w, const char* id, char* why) {
  experiment* ex = ne_calloc(1, sizeof *ex);
  if (!ex) return ne__set_error(why, NE_ENOMEM, "out of memory");
  pthread_mutex_init(&ex->blob_mu, NULL);
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
  stop_threads(w);
  experiment_free(w->ex);
  w->ex = NULL;
}

// ---- main thread: heartbeat, touch, follow ------------------------------------------------

static const char HEARTBEAT_LUA[] =
    "local t = redis.call('TIME')\n"
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    "redis.call('ZADD', KEYS[1], now, ARGV[1])\n"
    "redis.call('HSET', KEYS[2], 'beat', now, unpack(ARGV, 4))\n"
    "redis.call('PEXPIRE', KEYS[2], ARGV[2])\n"
    "if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], now .. ' ' .. ARGV[3]) end\n"
    "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 3600000)\n"
    "return now\n";

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
  char wkey[NE_KEY_LEN], xkey[NE_KEY_LEN], ttl[24], exp_val[64], v[8][32];
  snprintf(wkey, sizeof wkey, NE_KEY_WORKER_FMT, w->name);
  if (w->ex) snprintf(xkey, sizeof xkey, "%s", w->ex->k_workers);
  else snprintf(xkey, sizeof xkey, "ne:exp:none:workers");
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
  const char* argv[] = {"EVAL", HEARTBEAT_LUA, "3", NE_KEY_WORKERS, wkey, xkey, w->name, ttl, exp_val,
                        "threads", v[0], "results", v[1], "tasks", v[2], "rate", v[3], "bad_tasks", v[4],
                        "pid", v[5], "started", v[6], "interval_ms", v[7], "host", w->host,
                        "experiment", w->ex ? w->ex->id : "-", "version", NE_VERSION_STRING};
  redisReply* r = ne__rconn_argv(&w->conn, (int)(sizeof argv / sizeof argv[0]), argv, NULL);
  if (r) freeReplyObject(r);
}

// Resets the idle time of the tasks in hand, so the master re-claims only a dead worker's tasks.
static void touch_tasks(worker* w) {
  if (!w->ex || !w->conn.c) return;
  int queued = 0;
  pthread_mutex_lock(&w->mu);
  for (int t = 0; t < w->threads; t++) {
    if (!w->in_hand[t][0]) continue;
    char consumer[NE_WIRE_MAX_NAME + 16], id[ID_LEN];
    snprintf(consumer, sizeof consumer, "%s/%d", w->name, t);
    snprintf(id, sizeof id, "%s", w->in_hand[t]);
    const char* argv[] = {"XCLAIM", w->ex->k_tasks, NE_GROUP, consumer, "0", id, "JUSTID"};
    if (ne__rconn_append(&w->conn, 7, argv, NULL) == 0) queued++;
  }
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < queued; i++) {
    redisReply* r = ne__rconn_get_reply(&w->conn);
    if (!r) break;
    freeReplyObject(r);
  }
}

// The experiment to follow: ne:current, unless it is finished. "" when there is none (or Redis lost
// it, in which case the current one is kept until the master re-creates it).
static void current_experiment(worker* w, char* id, size_t size) {
  id[0] = '\0';
  redisReply* r = ne__rconn_command(&w->conn, "GET %s", NE_KEY_CURRENT);
  if (r && r->type == REDIS_REPLY_STRING) snprintf(id, size, "%s", r->str);
  if (r) freeReplyObject(r);
  if (!id[0]) return;
  char key[NE_KEY_LEN];
  ne__key_exp(key, id, "meta");
  r = ne__rconn_command(&w->conn, "HGET %s status", key);
  if (r && r->type == REDIS_REPLY_STRING && strcmp(r->str, "done") == 0) snprintf(id, size, "-done-");
  if (r) freeReplyObject(r);
}

// One pass of the main loop: follow the right experiment. Returns NE_EVERSION when fatal.
static int follow(worker* w, char* errstr) {
  char id[64], why[NE_ERRSTR_LEN];
  current_experiment(w, id, sizeof id);
  if (!w->conn.c) return 0;  // Redis unreachable: keep what we have
  int finished = strcmp(id, "-done-") == 0;
  if (w->ex && (finished || (id[0] && strcmp(id, w->ex->id) != 0))) {
    say(w, "experiment %s %s", w->ex->id, finished ? "finished" : "replaced: re-initializing");
    leave_experiment(w);
  }
  if (w->ex || !id[0] || finished) return 0;
  uint64_t exp = 0;
  ne__wire_id_parse(id, &exp);
  if (w->has_refused && exp == w->refused) return 0;
  int rc = join_experiment(w, id, why);
  if (rc == NE_ENET) return 0;
  if (rc) {
    w->refused = exp, w->has_refused = 1;
    if (rc == NE_EVERSION) return ne__set_error(errstr, rc, "%s", why);
    say(w, "not joining experiment %s: %s", id, why);
    return 0;
  }
  if (start_threads(w) != 0) return ne__set_error(errstr, NE_ENOMEM, "cannot start %d threads", w->threads);
  say(w, "following experiment %s (%s) with %d thread%s", id, w->ex->env->id, w->threads, w->threads == 1 ? "" : "s");
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
  redisReply* r = ne__rconn_command(&w->conn, "XREAD COUNT 16 BLOCK %d STREAMS %s %s", ms, NE_KEY_ANNOUNCE, w->announce);
  int got = r && r->type == REDIS_REPLY_ARRAY && r->elements == 1;
  if (got) {
    const redisReply* entries = r->element[0]->element[1];
    snprintf(w->announce, sizeof w->announce, "%s", entries->element[entries->elements - 1]->element[0]->str);
  }
  if (r) freeReplyObject(r);
  return got;
}

static int all_threads_exited(const worker* w) {
  if (!w->th) return 0;
  for (int t = 0; t < w->threads; t++)
    if (!w->th[t].exited) return 0;
  return 1;
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
        touch_tasks(w);
        rc = follow(w, errstr);
      } else if (w->conn.err == NE_EINVAL) {
        rc = ne__set_error(errstr, NE_EINVAL, "%s", w->conn.errstr);
      } else if (!waiting_said++) {
        say(w, "waiting for Redis: %s", w->conn.errstr);
      }
      double touch = w->ex ? w->ex->task_timeout_s / 3 : w->interval_s;
      next = ne__now() + (touch < w->interval_s ? touch : w->interval_s);
    }
    if (w->ex && all_threads_exited(w)) break;
    int wait_ms = (int)((next - ne__now()) * 1000);
    if (!w->ex && w->conn.c && wait_ms > 0) {
      if (wait_announce(w, wait_ms > 1000 ? 1000 : wait_ms)) next = 0;  // follow the new experiment now
    } else {
      sleep_s(0.05);
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
  if (opt->name && opt->name[0]) snprintf(w->name, sizeof w->name, "%s", opt->name);
  else snprintf(w->name, sizeof w->name, "%.40s-%d", w->host, (int)getpid());
  for (char* p = w->name; *p; p++)
    if (*p <= ' ' || *p > '~') *p = '_';
  pthread_mutex_init(&w->mu, NULL);
  w->in_hand = ne_calloc((size_t)w->threads, sizeof *w->in_hand);
  if (!w->in_hand) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  int rc = ne__redis_url_parse(opt->url, &w->url, errstr);
  if (!rc) rc = ne__redis_url_check_auth(&w->url, "the worker", errstr);
  if (rc) return rc;
  w->conn.url = w->url;
  w->conn.timeout_s = 2;
  return 0;
}

int ne_cluster_worker_run(const ne_cluster_worker_options* opt, char* errstr) {
  if (!opt || !opt->url) return ne__set_error(errstr, NE_EINVAL, "no Redis URL");
  worker* w = ne_calloc(1, sizeof *w);
  if (!w) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  int rc = setup_worker(w, opt, errstr);
  if (!rc) {
    say(w, "%d thread%s, Redis at %s%s", w->threads, w->threads == 1 ? "" : "s", w->url.shown,
        opt->synthetic ? " (synthetic fitness)" : "");
    rc = main_loop(w, errstr);
    if (w->ex) leave_experiment(w);
    if (w->conn.c) forget_worker(w);
    say(w, "leaving after %llu tasks (%llu results, %llu bad tasks dropped)", (unsigned long long)w->tasks_done,
        (unsigned long long)w->results_done, (unsigned long long)w->bad_tasks);
  }
  ne__rconn_close(&w->conn);
  ne_free(w->in_hand);
  pthread_mutex_destroy(&w->mu);
  ne_free(w);
  return rc;
}
