// SPDX-License-Identifier: MIT
// The Redis relay (cluster.h, docs/scaling.md "Relays"): one per node, between the master's Redis
// ("upstream") and a node-local Redis that the node's workers use as if it were the master's. It
// mirrors the experiment (description, current id, announcement) into the local Redis, claims
// tasks upstream in batches for the node's workers (as one consumer of the task group) and adds
// them to the local task stream, copies the broadcast blobs those tasks name (once per node), and
// forwards the workers' results upstream in pipelined batches, each with the acknowledgement of the
// upstream task it answers (the same answer script workers use). So the master's Redis serves a
// few connections per node instead of two or three per worker, one blocked claim per node, and one
// blob fetch per node. The fault rules hold: a task is acknowledged upstream only with its result;
// tasks held by a relay stay fresh upstream only while the node works on them (so a killed relay's
// tasks are re-claimed by the master), a local worker that dies has its tasks re-claimed locally by
// the relay, and a node Redis that restarted empty is set up again with every task held. Threads: the main thread (follow, heartbeat, touch, local re-claims), a
// claimer and a forwarder, each with its own connections.
#include <inttypes.h>
#include <math.h>  // floor
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
#include "exec/redis_scripts.h"
#include "exec/redis_wire.h"
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"
#include "neuroevo/version.h"

#define ID_LEN (NE_WIRE_MAX_ENTRY + 1)  // a stream entry id
#define BLOCK_MS 2000                   // blocking reads (leaving cuts the upstream claim short with CLIENT UNBLOCK)
#define WAIT_MS 100                     // condition waits
#define TICK_S 0.5                      // the main thread's period: follow, local workers, re-claims, sweep
#define KEEP_S (7 * 86400)              // local experiment keys expire like the master's
#define BLOB_TTL_S 86400                // local copies of blobs (deleted with the experiment)
#define FORWARD_COUNT 512               // local results read (and forwarded) per round trip
#define MAX_LOCAL_IDS 4                 // local entries remembered per upstream task (re-claimed locally)
#define MAX_BLOBS 64                    // blob hashes remembered as copied (per experiment)
#define DONE_TTL_S 86400                // a finished experiment's local description
#define DRAIN_S 10.0                    // a stopping relay forwards results of tasks in hand this long at most
#define TOUCH_IDS 256                   // upstream task ids per XCLAIM that keeps them fresh
#define IDLE_FOLLOW_S 0.2               // an idle relay looks for a new experiment upstream this often
#define PREFETCH_S 0.010                // tasks queued on a node beyond one per worker: those finishing in this long

// An upstream task this relay holds for its node.
typedef struct held {
  char up[ID_LEN];                    // upstream entry id
  char local[MAX_LOCAL_IDS][ID_LEN];  // its local entry ids, newest last
  int n_local;
  ne_buf payload;  // the task message (re-added locally after a local re-claim)
  double since;    // when it was claimed
  int vanished;    // times its local entry vanished without a result (the node's Redis intact)
  int unplaced;    // 1: claimed while the node's Redis was away, not in its stream yet
} held;

typedef struct relay {
  ne_cluster_relay_options opt;
  ne__redis_url up_url, lo_url;
  char name[NE_WIRE_MAX_NAME + 1];
  char host[128];
  FILE* log;
  long long started;
  double interval_s;
  ne__rconn up, lo;              // the main thread's connections
  ne__rconn up_claim, lo_claim;  // the claimer's
  ne__rconn up_fwd, lo_fwd;      // the forwarder's
  // the experiment followed (following = 1)
  int following;
  char id[17];
  char k_meta[NE_KEY_LEN], k_tasks[NE_KEY_LEN], k_results[NE_KEY_LEN], k_workers[NE_KEY_LEN];
  double task_timeout_s;
  volatile int leave;  // the claimer and the forwarder return
  pthread_t claimer, forwarder;
  int claimer_started, forwarder_started;
  int claimer_exited;
  long long claim_client_id;  // upstream CLIENT ID of up_claim (-1: unknown)
  unsigned long claim_opens;
  // shared between the threads (mu)
  pthread_mutex_t mu;
  pthread_cond_t cv;  // held tasks or local threads changed
  held* held;
  int n_held, cap_held;
  int local_threads, local_workers;
  double no_workers_since;    // local threads have been 0 since then (0: there are some)
  uint64_t blobs[MAX_BLOBS];  // hashes copied to the local Redis this experiment
  int n_blobs;
  uint64_t claimed, forwarded, discarded, dropped, requeued, released;
  uint64_t rebuilt;            // times the node's Redis lost the experiment and it was set up again
  uint64_t forwarded_results;  // candidate results in the forwarded messages (status: the node's throughput)
  double task_s;               // a held task's time from claim to result (moving average; 0: none yet)
  double keep_at, sweep_at, beat_at, touch_at, follow_at;
  double drain_until;  // the forwarder forwards results of tasks in hand until then
  // the node's throughput for `status`: results forwarded per second (moving average)
  double rate, rate_at;
  uint64_t rate_done;
  int waiting_said;  // 1 once "waiting for a master" was logged (reset when following)
} relay;

// ---- messages -----------------------------------------------------------------------------

static void say(relay* r, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(relay* r, const char* fmt, ...) {
  char prefix[NE_WIRE_MAX_NAME + 32];
  snprintf(prefix, sizeof prefix, "neuroevo relay %s", r->name);
  va_list ap;
  va_start(ap, fmt);
  ne__vsay(r->log, prefix, fmt, ap);
  va_end(ap);
}

static int stopping(const relay* r) { return r->opt.stop && *r->opt.stop; }

static void timed_wait(relay* r) { ne__cond_wait_ms(&r->cv, &r->mu, WAIT_MS); }

// ---- held tasks (mu held) -----------------------------------------------------------------

static held* find_up(relay* r, const char* up) {
  for (int i = 0; i < r->n_held; i++)
    if (strcmp(r->held[i].up, up) == 0) return &r->held[i];
  return NULL;
}

static held* find_local(relay* r, const char* local) {
  for (int i = 0; i < r->n_held; i++)
    for (int k = 0; k < r->held[i].n_local; k++)
      if (strcmp(r->held[i].local[k], local) == 0) return &r->held[i];
  return NULL;
}

static void add_local_id(held* h, const char* local) {
  if (h->n_local == MAX_LOCAL_IDS) {
    memmove(h->local[0], h->local[1], (MAX_LOCAL_IDS - 1) * sizeof h->local[0]);
    h->n_local--;
  }
  snprintf(h->local[h->n_local++], ID_LEN, "%s", local);
}

static held* add_held(relay* r, const char* up, const char* payload, size_t len) {
  if (r->n_held == r->cap_held) {
    int cap = r->cap_held ? 2 * r->cap_held : 64;
    held* grown = ne_realloc(r->held, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    r->held = grown, r->cap_held = cap;
  }
  held* h = &r->held[r->n_held];
  memset(h, 0, sizeof *h);
  ne__buf_init(&h->payload);
  ne__buf_bytes(&h->payload, payload, len);
  if (h->payload.oom) {
    ne__buf_free(&h->payload);
    return NULL;
  }
  snprintf(h->up, sizeof h->up, "%s", up);
  h->since = ne__now();
  r->n_held++;
  return h;
}

static void remove_held(relay* r, held* h) {
  ne__buf_free(&h->payload);
  *h = r->held[--r->n_held];
  pthread_cond_broadcast(&r->cv);  // room to claim more
}

static void clear_held(relay* r) {
  while (r->n_held) remove_held(r, &r->held[r->n_held - 1]);
}

// Tasks the node should hold: one per local worker thread plus a few queued, so that a worker that
// answers finds its next task locally instead of after an upstream round trip: as many as finish
// during PREFETCH_S at the measured task duration (0 .. threads / 8). A task queued here is one
// another node's idle worker cannot take: with 3 s tasks none is worth it (a claim takes
// milliseconds), with 35 ms tasks a node of 64 workers finishes ~18 in 10 ms.
static int target_held(const relay* r) {
  if (r->local_threads <= 0) return 0;
  int prefetch = r->opt.prefetch;
  if (prefetch <= 0) {
    double per = r->task_s > 0 ? PREFETCH_S * r->local_threads / r->task_s : r->local_threads / 8.0;
    int cap = r->local_threads / 8 > 1 ? r->local_threads / 8 : 1;
    prefetch = per > cap ? cap : (int)floor(per + 0.5);  // 0 for long tasks: a claim's round trip is nothing then
  }
  return r->local_threads + prefetch;
}

// ---- the claimer: upstream tasks into the local stream ------------------------------------

// 1 if the blob was copied to the local Redis this experiment.
static int blob_copied(relay* r, uint64_t hash) {
  pthread_mutex_lock(&r->mu);
  int found = 0;
  for (int i = 0; i < r->n_blobs && !found; i++) found = r->blobs[i] == hash;
  pthread_mutex_unlock(&r->mu);
  return found;
}

// Copies the blobs a task names (GET upstream, SET locally, through the caller's connections)
// unless already copied. 0, NE_ENOTFOUND when a blob is missing upstream (the task is stale or
// Redis lost it: leave it to the master), or NE_ENET when either Redis cannot be reached.
static int copy_blobs(relay* r, ne__rconn* up, ne__rconn* lo, const ne__wire_task* t) {
  ne__wire_blobref refs[2];
  int n_norm = 0;
  if (t->has_norm) refs[0] = t->norm[0], refs[1] = t->norm[1], n_norm = 2;
  for (int k = 0; k < t->n_blobs + n_norm; k++) {
    uint64_t hash = k < t->n_blobs ? t->blobs[k].hash : refs[k - t->n_blobs].hash;
    if (blob_copied(r, hash)) continue;
    char key[NE_KEY_LEN], suffix[32], hex[17];
    ne__wire_id_format(hash, hex);
    snprintf(suffix, sizeof suffix, "blob:%s", hex);
    ne__key_exp(key, r->id, suffix);
    redisReply* g = ne__rconn_command(up, "GET %s", key);
    if (!g || g->type != REDIS_REPLY_STRING) {
      ne__reply_free(g);
      return g ? NE_ENOTFOUND : NE_ENET;
    }
    char ttl[16];
    snprintf(ttl, sizeof ttl, "%d", BLOB_TTL_S);
    const char* argv[] = {"SET", key, g->str, "EX", ttl};
    size_t lens[] = {3, strlen(key), g->len, 2, strlen(ttl)};
    redisReply* s = ne__rconn_argv(lo, 5, argv, lens);
    int ok = s && s->type != REDIS_REPLY_ERROR;
    ne__reply_free(s);
    freeReplyObject(g);
    if (!ok) return NE_ENET;
    pthread_mutex_lock(&r->mu);
    if (r->n_blobs == MAX_BLOBS) r->n_blobs = 0;  // forget the oldest generation's
    r->blobs[r->n_blobs++] = hash;
    pthread_mutex_unlock(&r->mu);
  }
  return 0;
}

// Adds a held task to the local stream (payload m, upstream id u) and records its local id.
static int add_locally(relay* r, ne__rconn* lo, const char* up, const ne_buf* payload, char* local_id) {
  const char* argv[] = {"XADD", r->k_tasks, "*", "m", (const char*)payload->data, "u", up};
  size_t lens[] = {4, strlen(r->k_tasks), 1, 1, payload->len, 1, strlen(up)};
  redisReply* x = ne__rconn_argv(lo, 7, argv, lens);
  int ok = x && x->type == REDIS_REPLY_STRING;
  if (ok) snprintf(local_id, ID_LEN, "%s", x->str);
  ne__reply_free(x);
  return ok ? 0 : -1;
}

// A task upstream that cannot be decoded: acknowledged and deleted there, as a worker would.
static void drop_upstream(relay* r, ne__rconn* up, const char* id, const char* why) {
  say(r, "dropped task %s upstream: %s", id, why);
  if (ne__drop_append(up, r->k_tasks, id) == 0) {
    ne__reply_free(ne__rconn_get_reply(up));
    ne__reply_free(ne__rconn_get_reply(up));
  }
  pthread_mutex_lock(&r->mu);
  r->dropped++;
  pthread_mutex_unlock(&r->mu);
}

// Checks one claimed upstream entry, copies its blobs and holds it; returns its payload (then the
// caller adds it locally), or NULL when it is not held (malformed: dropped; blob missing).
static const redisReply* take_entry(relay* r, ne__wire_task* t, const redisReply* e) {
  if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING) return NULL;
  const char* id = e->element[0]->str;
  const redisReply* m = ne__reply_field(e->element[1], "m");
  char why[NE_ERRSTR_LEN];
  if (!m || m->type != REDIS_REPLY_STRING) {
    drop_upstream(r, &r->up_claim, id, "malformed: no 'm' field");
    return NULL;
  }
  int rc = ne__wire_decode_task(t, m->str, m->len, why);
  if (rc == NE_ENOMEM) return NULL;  // not held: the master re-claims it
  if (rc) {
    char what[NE_ERRSTR_LEN + 16];
    snprintf(what, sizeof what, "malformed: %s", why);
    drop_upstream(r, &r->up_claim, id, what);
    return NULL;
  }
  rc = copy_blobs(r, &r->up_claim, &r->lo_claim, t);
  if (rc == NE_ENOTFOUND) {
    say(r, "task %s names a blob missing upstream; leaving it to the master", id);
    return NULL;
  }
  pthread_mutex_lock(&r->mu);
  held* h = add_held(r, id, m->str, m->len);
  if (h && rc) h->unplaced = 1;  // a Redis is away: the main thread adds it once it is back
  pthread_mutex_unlock(&r->mu);
  return h && !rc ? m : NULL;
}

// Adds the held entries of a claimed batch to the local stream in one round trip (payload m,
// upstream id u) and records their local ids; entries the local Redis did not take (it is away)
// stay held, for the main thread to add once it is back.
static void add_batch(relay* r, const redisReply* entries, const redisReply** payloads) {
  int queued = 0;
  for (size_t i = 0; i < entries->elements; i++) {
    if (!payloads[i]) continue;
    const char* up = entries->element[i]->element[0]->str;
    const char* argv[] = {"XADD", r->k_tasks, "*", "m", payloads[i]->str, "u", up};
    size_t lens[] = {4, strlen(r->k_tasks), 1, 1, payloads[i]->len, 1, strlen(up)};
    if (ne__rconn_append(&r->lo_claim, 7, argv, lens) == 0) queued++;
    else payloads[i] = NULL;
  }
  for (size_t i = 0, k = 0; i < entries->elements; i++) {
    if (!payloads[i]) continue;
    const char* up = entries->element[i]->element[0]->str;
    redisReply* x = k++ < (size_t)queued ? ne__rconn_get_reply(&r->lo_claim) : NULL;
    pthread_mutex_lock(&r->mu);
    held* h = find_up(r, up);
    if (h && x && x->type == REDIS_REPLY_STRING) add_local_id(h, x->str);
    else if (h) h->unplaced = 1;
    if (h) r->claimed++;
    pthread_mutex_unlock(&r->mu);
    ne__reply_free(x);
  }
}

static void note_claim_client(relay* r) {
  if (r->claim_opens == r->up_claim.opens || !r->up_claim.c) return;
  redisReply* x = ne__rconn_command(&r->up_claim, "CLIENT ID");
  long long id = x && x->type == REDIS_REPLY_INTEGER ? x->integer : -1;
  ne__reply_free(x);
  pthread_mutex_lock(&r->mu);
  r->claim_client_id = id;
  r->claim_opens = r->up_claim.opens;
  pthread_mutex_unlock(&r->mu);
}

static void* claimer_main(void* arg) {
  relay* r = arg;
  ne__wire_task t;
  ne__wire_task_init(&t);
  while (!r->leave && !stopping(r)) {
    pthread_mutex_lock(&r->mu);
    int want = target_held(r) - r->n_held;
    if (want <= 0) timed_wait(r);
    pthread_mutex_unlock(&r->mu);
    if (want <= 0) continue;
    if (ne__rconn_wait(&r->up_claim, &r->leave, 0) || ne__rconn_wait(&r->lo_claim, &r->leave, 0)) break;
    note_claim_client(r);
    char count[16], block[16];
    snprintf(count, sizeof count, "%d", want);
    snprintf(block, sizeof block, "%d", BLOCK_MS);
    const char* argv[] = {"XREADGROUP", "GROUP", NE_GROUP,  r->name,    "COUNT", count,
                          "BLOCK",      block,   "STREAMS", r->k_tasks, ">"};
    redisReply* x = ne__rconn_argv(&r->up_claim, 11, argv, NULL);
    if (!x) continue;
    if (x->type == REDIS_REPLY_ERROR) ne__sleep_s(0.2);  // NOGROUP: the master has not (re-)created it yet
    else if (x->type == REDIS_REPLY_ARRAY && x->elements == 1 && x->element[0]->elements == 2) {
      const redisReply* entries = x->element[0]->element[1];
      const redisReply** payloads = ne_calloc(entries->elements + 1, sizeof *payloads);
      for (size_t i = 0; payloads && i < entries->elements; i++) payloads[i] = take_entry(r, &t, entries->element[i]);
      if (payloads) add_batch(r, entries, payloads);
      ne_free((void*)payloads);
    }
    freeReplyObject(x);
  }
  ne__wire_task_free(&t);
  ne__rconn_close(&r->up_claim);
  ne__rconn_close(&r->lo_claim);
  pthread_mutex_lock(&r->mu);
  r->claimer_exited = 1;
  pthread_cond_broadcast(&r->cv);
  pthread_mutex_unlock(&r->mu);
  return NULL;
}

// ---- the forwarder: local results upstream ------------------------------------------------

// A result to forward: its message (rewritten when a failure report names the local entry) and the
// upstream task it answers ("" when none is known: a duplicate, forwarded without acknowledging).
typedef struct fwd {
  const char* msg;
  size_t len;
  char up[ID_LEN];
  char local[ID_LEN];
  ne_buf own;  // the rewritten message, when rewritten
} fwd;

// A failure report names the task entry it failed on (one attempt = one entry): upstream, that is
// the upstream entry, not the local one.
// Returns the message's number of results (0: undecodable; the master drops it too).
static int rewrite_failure(fwd* f, ne__wire_results* dec) {
  char why[NE_ERRSTR_LEN];
  if (ne__wire_decode_results(dec, f->msg, f->len, why) != 0) return 0;
  if (!f->up[0] || !dec->hdr.error[0]) return dec->n;
  snprintf(dec->hdr.entry, sizeof dec->hdr.entry, "%s", f->up);
  if (ne__wire_encode_results_parts(&f->own, &dec->hdr, dec->index, dec->results, dec->parts, dec->returns, dec->n) ==
          0 &&
      !f->own.oom)
    f->msg = (const char*)f->own.data, f->len = f->own.len;
  return dec->n;
}

// The upstream task of a local entry, from its `u` field ("" if the entry is gone).
static void upstream_of(relay* r, const char* local, char* up) {
  up[0] = '\0';
  redisReply* x = ne__rconn_command(&r->lo_fwd, "XRANGE %s %s %s", r->k_tasks, local, local);
  if (x && x->type == REDIS_REPLY_ARRAY && x->elements == 1 && x->element[0]->elements == 2) {
    const redisReply* u = ne__reply_field(x->element[0]->element[1], "u");
    if (u && u->type == REDIS_REPLY_STRING) snprintf(up, ID_LEN, "%s", u->str);
  }
  ne__reply_free(x);
}

// Sends fs[0..n) upstream in one round trip (answer script each). 0, or NE_ENET (sent again later).
static int send_upstream(relay* r, fwd* fs, int n, int* discarded) {
  if (ne__rconn_ensure(&r->up_fwd) || ne__answer_load(&r->up_fwd)) return NE_ENET;
  for (int i = 0; i < n; i++)
    if (ne__answer_append(&r->up_fwd, r->k_tasks, r->k_results, fs[i].up[0] ? fs[i].up : "0-0", fs[i].msg, fs[i].len))
      return NE_ENET;
  int noscript = 0;
  *discarded = 0;
  for (int i = 0; i < n; i++) {
    redisReply* x = ne__rconn_get_reply(&r->up_fwd);
    if (!x) return NE_ENET;
    if (ne__reply_error_is(x, "NOSCRIPT")) noscript = 1;
    else if (x->type == REDIS_REPLY_INTEGER && x->integer == 0) (*discarded)++;
    freeReplyObject(x);
  }
  if (noscript) ne__rconn_scripts_lost(&r->up_fwd);
  return noscript ? NE_ENET : 0;
}

// Forwards one batch of local result entries (an XREAD reply); returns the last entry id handled.
static void forward_batch(relay* r, const redisReply* entries, fwd* fs, ne__wire_results* dec, char* last) {
  int n = 0;
  uint64_t results = 0;  // candidate results in the batch
  for (size_t i = 0; i < entries->elements; i++) {
    const redisReply* e = entries->element[i];
    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING) continue;
    snprintf(last, ID_LEN, "%s", e->element[0]->str);
    const redisReply* msg = ne__reply_field(e->element[1], "r");
    const redisReply* t = ne__reply_field(e->element[1], "t");
    if (!msg || msg->type != REDIS_REPLY_STRING) continue;  // garbage: the master would drop it too
    fwd* f = &fs[n++];
    f->msg = msg->str, f->len = msg->len, f->up[0] = f->local[0] = '\0';
    f->own.len = 0;
    if (t && t->type == REDIS_REPLY_STRING) {
      snprintf(f->local, sizeof f->local, "%s", t->str);
      pthread_mutex_lock(&r->mu);
      held* h = find_local(r, t->str);
      if (h) snprintf(f->up, sizeof f->up, "%s", h->up);
      pthread_mutex_unlock(&r->mu);
      // a worker can answer before the claimer has recorded the local id: the entry names its task
      if (!h) upstream_of(r, t->str, f->up);
    }
    results += (uint64_t)rewrite_failure(f, dec);
  }
  int discarded = 0;
  // upstream away: try again until it is back, or until the relay gives up on the experiment
  while (n && send_upstream(r, fs, n, &discarded) != 0)
    if (ne__rconn_wait(&r->up_fwd, NULL, 1) && r->claimer_exited && ne__now() > r->drain_until) break;
  // answered: no longer held (the claimer may take more), and gone from the local task stream
  pthread_mutex_lock(&r->mu);
  double now = ne__now();
  for (int i = 0; i < n; i++) {
    held* h = fs[i].up[0] ? find_up(r, fs[i].up) : NULL;
    if (!h) continue;
    r->task_s = r->task_s > 0 ? 0.9 * r->task_s + 0.1 * (now - h->since) : now - h->since;
    remove_held(r, h);
  }
  r->forwarded += (uint64_t)(n - discarded);
  r->forwarded_results += results;
  r->discarded += (uint64_t)discarded;
  pthread_mutex_unlock(&r->mu);
  // one XDEL for the batch's local tasks
  const char* del[2 + FORWARD_COUNT];
  int nd = 2;
  del[0] = "XDEL", del[1] = r->k_tasks;
  for (int i = 0; i < n; i++)
    if (fs[i].local[0]) del[nd++] = fs[i].local;
  if (nd > 2) ne__reply_free(ne__rconn_argv(&r->lo_fwd, nd, del, NULL));
}

static void* forwarder_main(void* arg) {
  relay* r = arg;
  fwd* fs = ne_calloc(FORWARD_COUNT, sizeof *fs);
  ne__wire_results dec;
  ne__wire_results_init(&dec);
  char cursor[ID_LEN] = "0-0";
  unsigned long opens = 0;  // the connection the cursor is about
  for (int i = 0; fs && i < FORWARD_COUNT; i++) ne__buf_init(&fs[i].own);
  // after the claimer: results of tasks in hand still come in, and are forwarded, until the
  // claimer has returned and nothing is held any more (or the relay is stopping)
  for (;;) {
    pthread_mutex_lock(&r->mu);
    int done = r->claimer_exited && (r->n_held == 0 || ne__now() > r->drain_until);
    pthread_mutex_unlock(&r->mu);
    if (done || !fs) break;
    if (ne__rconn_wait(&r->lo_fwd, NULL, 2)) {
      if (r->claimer_exited) break;  // stopping, and the node's Redis is gone with what it held
      continue;
    }
    // a new connection may reach a restarted, empty Redis: read its result stream from the start
    // (what was forwarded is trimmed, so that is only what awaits forwarding)
    if (r->lo_fwd.opens != opens) opens = r->lo_fwd.opens, snprintf(cursor, sizeof cursor, "0-0");
    char count[16];
    snprintf(count, sizeof count, "%d", FORWARD_COUNT);
    redisReply* x =
        ne__rconn_command(&r->lo_fwd, "XREAD COUNT %s BLOCK %d STREAMS %s %s", count, 200, r->k_results, cursor);
    if (!x) continue;
    if (x->type == REDIS_REPLY_ARRAY && x->elements == 1 && x->element[0]->elements == 2) {
      char last[ID_LEN] = "";
      forward_batch(r, x->element[0]->element[1], fs, &dec, last);
      if (last[0]) {
        snprintf(cursor, sizeof cursor, "%s", last);
        uint64_t ms, seq;
        ne__stream_id_parse(last, &ms, &seq);
        ne__reply_free(ne__rconn_command(&r->lo_fwd, "XTRIM %s MINID %llu-%llu", r->k_results, (unsigned long long)ms,
                                         (unsigned long long)seq + 1));
      }
    }
    freeReplyObject(x);
  }
  for (int i = 0; fs && i < FORWARD_COUNT; i++) ne__buf_free(&fs[i].own);
  ne_free(fs);
  ne__wire_results_free(&dec);
  ne__rconn_close(&r->up_fwd);
  ne__rconn_close(&r->lo_fwd);
  return NULL;
}

// ---- the main thread: following, mirroring, heartbeats ------------------------------------

static void set_keys(relay* r, const char* id) {
  snprintf(r->id, sizeof r->id, "%s", id);
  ne__key_exp(r->k_meta, id, "meta");
  ne__key_exp(r->k_tasks, id, "tasks");
  ne__key_exp(r->k_results, id, "results");
  ne__key_exp(r->k_workers, id, "workers");
}

// Copies the upstream description into the local Redis (HSET of every field). 0, or -1.
static int mirror_meta(relay* r, const redisReply* meta) {
  if (!meta || meta->type != REDIS_REPLY_ARRAY || meta->elements < 2 || meta->elements > 64) return -1;
  const char* argv[66];
  size_t lens[66];
  argv[0] = "HSET", lens[0] = 4;
  argv[1] = r->k_meta, lens[1] = strlen(r->k_meta);
  int n = 2;
  for (size_t i = 0; i < meta->elements; i++) {
    if (meta->element[i]->type != REDIS_REPLY_STRING) return -1;
    argv[n] = meta->element[i]->str, lens[n++] = meta->element[i]->len;
  }
  redisReply* x = ne__rconn_argv(&r->lo, n, argv, lens);
  int ok = x && x->type != REDIS_REPLY_ERROR;
  ne__reply_free(x);
  // HSET re-creates a description the node's Redis lost: it expires as the master's does
  if (ok) ne__reply_free(ne__rconn_command(&r->lo, "EXPIRE %s %d", r->k_meta, KEEP_S));
  return ok ? 0 : -1;
}

// Makes the local Redis look like the master's for experiment r->id: description, task group,
// expiry, ne:current and an announcement.
static int setup_local(relay* r, const redisReply* meta) {
  // a previous relay's experiment (killed, then the master moved on): finish it on this node
  redisReply* cur = ne__rconn_command(&r->lo, "GET %s", NE_KEY_CURRENT);
  char old[17] = "";
  uint64_t old_exp;
  if (cur && cur->type == REDIS_REPLY_STRING && ne__wire_id_parse(cur->str, &old_exp) == 0 && strcmp(cur->str, r->id))
    snprintf(old, sizeof old, "%s", cur->str);
  ne__reply_free(cur);
  if (old[0]) {
    char k[4][NE_KEY_LEN];
    const char* suffix[] = {"meta", "tasks", "results", "workers"};
    for (int i = 0; i < 4; i++) ne__key_exp(k[i], old, suffix[i]);
    ne__reply_free(ne__rconn_command(&r->lo, "HSET %s status done", k[0]));
    ne__reply_free(ne__rconn_command(&r->lo, "EXPIRE %s %d", k[0], DONE_TTL_S));
    ne__reply_free(ne__rconn_command(&r->lo, "DEL %s %s %s", k[1], k[2], k[3]));
  }
  if (mirror_meta(r, meta)) return -1;
  // the group starts at the stream's beginning: after the node's Redis restarted, the claimer may
  // have added tasks (re-creating the stream without the group) that must reach the workers
  redisReply* x = ne__rconn_command(&r->lo, "XGROUP CREATE %s %s 0 MKSTREAM", r->k_tasks, NE_GROUP);
  int ok = x && (x->type != REDIS_REPLY_ERROR || ne__reply_error_is(x, "BUSYGROUP"));
  ne__reply_free(x);
  if (!ok) return -1;
  ne__reply_free(ne__rconn_command(&r->lo, "EXPIRE %s %d", r->k_meta, KEEP_S));
  ne__reply_free(ne__rconn_command(&r->lo, "EXPIRE %s %d", r->k_tasks, KEEP_S));
  ne__reply_free(ne__rconn_command(&r->lo, "SET %s %s", NE_KEY_CURRENT, r->id));
  x = ne__rconn_command(&r->lo, "XADD %s MAXLEN ~ 100 * id %s", NE_KEY_ANNOUNCE, r->id);
  ok = x && x->type == REDIS_REPLY_STRING;
  ne__reply_free(x);
  return ok ? 0 : -1;
}

static void unblock_claimer(relay* r) {
  pthread_mutex_lock(&r->mu);
  long long id = r->claim_client_id;
  pthread_mutex_unlock(&r->mu);
  if (id >= 0 && r->up.c) ne__reply_free(ne__rconn_command(&r->up, "CLIENT UNBLOCK %lld", id));
}

// Stops the claimer, then the forwarder once it has forwarded the results of the tasks in hand or
// drain_s passed (0: at once).
static void stop_threads(relay* r, double drain_s) {
  pthread_mutex_lock(&r->mu);
  r->drain_until = ne__now() + drain_s;
  pthread_mutex_unlock(&r->mu);
  r->leave = 1;
  pthread_mutex_lock(&r->mu);
  while (r->claimer_started && !r->claimer_exited) {
    pthread_mutex_unlock(&r->mu);
    unblock_claimer(r);
    pthread_mutex_lock(&r->mu);
    if (!r->claimer_exited) timed_wait(r);
  }
  pthread_mutex_unlock(&r->mu);
  if (r->claimer_started) pthread_join(r->claimer, NULL);
  if (r->forwarder_started) pthread_join(r->forwarder, NULL);
  r->claimer_started = r->forwarder_started = 0;
}

static int start_threads(relay* r) {
  r->leave = 0;
  r->claimer_exited = 0;
  r->claim_client_id = -1;
  r->claim_opens = 0;
  r->up_claim = (ne__rconn){.url = r->up_url, .timeout_s = 2};
  r->up_fwd = (ne__rconn){.url = r->up_url, .timeout_s = 2};
  r->lo_claim = (ne__rconn){.url = r->lo_url, .timeout_s = 2};
  r->lo_fwd = (ne__rconn){.url = r->lo_url, .timeout_s = 2};
  if (pthread_create(&r->forwarder, NULL, forwarder_main, r) != 0) return NE_ENOMEM;
  r->forwarder_started = 1;
  if (pthread_create(&r->claimer, NULL, claimer_main, r) != 0) {
    r->claimer_exited = 1;
    return NE_ENOMEM;
  }
  r->claimer_started = 1;
  return 0;
}

// Claims every task still queued in the local stream (not delivered to a worker) and deletes it:
// no longer held, so the master re-claims it from upstream once it grows idle.
static void release_queued(relay* r) {
  int released = 0;
  for (int pass = 0; pass < 64; pass++) {
    redisReply* x =
        ne__rconn_command(&r->lo, "XREADGROUP GROUP %s relay-release COUNT 256 STREAMS %s >", NE_GROUP, r->k_tasks);
    int n = x && x->type == REDIS_REPLY_ARRAY && x->elements == 1 ? (int)x->element[0]->element[1]->elements : 0;
    for (int i = 0; i < n; i++) {
      const redisReply* e = x->element[0]->element[1]->element[i];
      const redisReply* u = ne__reply_field(e->element[1], "u");
      pthread_mutex_lock(&r->mu);
      held* h = u && u->type == REDIS_REPLY_STRING ? find_up(r, u->str) : NULL;
      if (h) remove_held(r, h), r->released++, released++;
      pthread_mutex_unlock(&r->mu);
      ne__reply_free(ne__rconn_command(&r->lo, "XACK %s %s %s", r->k_tasks, NE_GROUP, e->element[0]->str));
      ne__reply_free(ne__rconn_command(&r->lo, "XDEL %s %s", r->k_tasks, e->element[0]->str));
    }
    ne__reply_free(x);
    if (n < 256) break;
  }
  if (released) say(r, "%d queued task%s left to the master", released, released == 1 ? "" : "s");
}

// Leaves the followed experiment: threads stopped (after drain_s of forwarding the results of
// tasks in hand), local keys of the experiment removed (its description is kept, marked done, with
// an expiry), so the local workers leave too.
static void leave_experiment(relay* r, const char* why, double drain_s) {
  if (!r->following) return;
  say(r, "experiment %s %s", r->id, why);
  if (drain_s > 0) release_queued(r);
  stop_threads(r, drain_s);
  pthread_mutex_lock(&r->mu);
  clear_held(r);
  pthread_mutex_unlock(&r->mu);
  ne__reply_free(ne__rconn_command(&r->lo, "HSET %s status done", r->k_meta));
  ne__reply_free(ne__rconn_command(&r->lo, "DEL %s %s %s", r->k_tasks, r->k_results, r->k_workers));
  for (int i = 0; i < r->n_blobs; i++) {
    char key[NE_KEY_LEN], suffix[32], hex[17];
    ne__wire_id_format(r->blobs[i], hex);
    snprintf(suffix, sizeof suffix, "blob:%s", hex);
    ne__key_exp(key, r->id, suffix);
    ne__reply_free(ne__rconn_command(&r->lo, "DEL %s", key));
  }
  ne__reply_free(ne__rconn_command(&r->lo, "EXPIRE %s %d", r->k_meta, DONE_TTL_S));
  pthread_mutex_lock(&r->mu);
  r->n_blobs = 0;
  pthread_mutex_unlock(&r->mu);
  r->following = 0;
}

// Follows upstream's current experiment: joins a new one, leaves a finished or replaced one.
static int follow(relay* r, char* errstr) {
  redisReply* cur = ne__rconn_command(&r->up, "GET %s", NE_KEY_CURRENT);
  if (!cur) return 0;  // upstream away: keep what we have
  char id[64] = "";
  if (cur->type == REDIS_REPLY_STRING) snprintf(id, sizeof id, "%s", cur->str);
  freeReplyObject(cur);
  if (r->following && id[0] && strcmp(id, r->id) != 0) leave_experiment(r, "replaced upstream", 0);
  if (!id[0]) {
    if (!r->following && !r->waiting_said++) say(r, "waiting for a master: no running experiment upstream");
    return 0;
  }
  uint64_t exp;
  if (ne__wire_id_parse(id, &exp)) return 0;
  char key[NE_KEY_LEN];
  ne__key_exp(key, id, "meta");
  redisReply* meta = ne__rconn_command(&r->up, "HGETALL %s", key);
  if (!meta) return 0;
  const redisReply* status = ne__reply_field(meta, "status");
  const redisReply* wire = ne__reply_field(meta, "wire");
  int done = status && status->type == REDIS_REPLY_STRING && strcmp(status->str, "done") == 0;
  int rc = 0;
  if (r->following) {
    if (done) leave_experiment(r, "finished upstream", 0);
    else if (meta->elements) mirror_meta(r, meta);  // generation, round: for status on the node
  } else if (!done && meta->elements && wire && wire->type == REDIS_REPLY_STRING) {
    if (atoi(wire->str) != NE_WIRE_VERSION) {
      rc = ne__set_error(errstr, NE_EVERSION,
                         "experiment %s was published by a master speaking wire version %s; this relay (neuroevo %s) "
                         "speaks version %d: run the same neuroevo version on the master, the relays and every worker",
                         id, wire->str, NE_VERSION_STRING, NE_WIRE_VERSION);
    } else {
      set_keys(r, id);
      const redisReply* timeout = ne__reply_field(meta, "task_timeout_ms");
      r->task_timeout_s = timeout && timeout->type == REDIS_REPLY_STRING ? atof(timeout->str) / 1000 : 10;
      if (r->task_timeout_s <= 0) r->task_timeout_s = 10;
      if (setup_local(r, meta) == 0) {
        r->following = 1;
        r->n_blobs = 0;
        r->keep_at = ne__now() + 60;
        r->no_workers_since = 0;
        if (start_threads(r)) rc = ne__set_error(errstr, NE_ENOMEM, "cannot start the relay's threads");
        else say(r, "following experiment %s", id);
      }
    }
  }
  if (r->following) r->waiting_said = 0;
  else if (!rc && !r->waiting_said++) say(r, "waiting for a master: no running experiment upstream");
  freeReplyObject(meta);
  return rc;
}

// Counts the node's live workers and threads from the local worker hash.
static void refresh_local(relay* r) {
  long long now = 0;
  if (ne__rconn_server_ms(&r->lo, &now)) now = 0;
  redisReply* h = now ? ne__rconn_command(&r->lo, "HGETALL %s", r->k_workers) : NULL;
  int workers = 0, threads = 0;
  for (size_t i = 0; h && h->type == REDIS_REPLY_ARRAY && i + 1 < h->elements; i += 2) {
    long long beat = 0, interval = 1000;
    int th = 0;
    if (sscanf(h->element[i + 1]->str, "%lld %d %lld", &beat, &th, &interval) < 2) continue;
    if (now - beat <= 3 * interval + 1000) workers++, threads += th > 0 ? th : 1;
  }
  ne__reply_free(h);
  if (!now) return;
  pthread_mutex_lock(&r->mu);
  // the master sizes its chunks from the threads it sees: tell it at once
  if (threads != r->local_threads) pthread_cond_broadcast(&r->cv), r->beat_at = 0;
  r->local_threads = threads;
  r->local_workers = workers;
  if (threads > 0) r->no_workers_since = 0;
  else if (r->no_workers_since == 0) r->no_workers_since = ne__now();
  pthread_mutex_unlock(&r->mu);
}

// The node has had no live worker for a while: the tasks it holds go back to the master (they are
// no longer touched upstream, so the master re-claims them) and leave the local stream.
static void release_if_orphaned(relay* r) {
  pthread_mutex_lock(&r->mu);
  int orphaned = r->no_workers_since > 0 && ne__now() - r->no_workers_since > r->task_timeout_s / 2 && r->n_held;
  char(*locals)[ID_LEN] = NULL;
  int n = 0;
  if (orphaned) {
    locals = ne_calloc((size_t)r->n_held * MAX_LOCAL_IDS, sizeof *locals);
    for (int i = 0; locals && i < r->n_held; i++)
      for (int k = 0; k < r->held[i].n_local; k++) snprintf(locals[n++], ID_LEN, "%s", r->held[i].local[k]);
    r->released += (uint64_t)r->n_held;
    say(r, "no live worker on this node for %.0f s: %d task%s left to the master", ne__now() - r->no_workers_since,
        r->n_held, r->n_held == 1 ? "" : "s");
    clear_held(r);
  }
  pthread_mutex_unlock(&r->mu);
  for (int i = 0; i < n; i++) {
    ne__reply_free(ne__rconn_command(&r->lo, "XACK %s %s %s", r->k_tasks, NE_GROUP, locals[i]));
    ne__reply_free(ne__rconn_command(&r->lo, "XDEL %s %s", r->k_tasks, locals[i]));
  }
  ne_free(locals);
  if (orphaned) release_queued(r);  // and what was never delivered (its held entry is gone already)
}

// Keeps the upstream tasks the node works on fresh (XCLAIM ... JUSTID resets their idle time), a
// third of the task timeout apart, TOUCH_IDS ids per command: a killed relay's tasks grow idle and
// the master re-claims them.
static void touch_upstream(relay* r) {
  const char* argv[6 + TOUCH_IDS];
  char ids[TOUCH_IDS][ID_LEN];
  for (int from = 0;; from += TOUCH_IDS) {
    pthread_mutex_lock(&r->mu);
    int n = r->n_held - from < TOUCH_IDS ? r->n_held - from : TOUCH_IDS;
    for (int i = 0; i < n; i++) snprintf(ids[i], ID_LEN, "%s", r->held[from + i].up);
    pthread_mutex_unlock(&r->mu);
    if (n <= 0) return;
    argv[0] = "XCLAIM", argv[1] = r->k_tasks, argv[2] = NE_GROUP, argv[3] = r->name, argv[4] = "0";
    for (int i = 0; i < n; i++) argv[5 + i] = ids[i];
    argv[5 + n] = "JUSTID";
    redisReply* x = ne__rconn_argv(&r->up, 6 + n, argv, NULL);
    if (!x) return;
    freeReplyObject(x);
    if (n < TOUCH_IDS) return;
  }
}

static int readd_held(relay* r, const char* up);

// Re-adds local tasks that a dead local worker held (idle past the task timeout: live workers
// touch theirs), as the master does upstream; the upstream task stays held.
static void reclaim_local(relay* r) {
  char idle[32];
  snprintf(idle, sizeof idle, "%.0f", r->task_timeout_s * 1000);
  redisReply* x = ne__rconn_command(&r->lo, "XAUTOCLAIM %s %s relay %s 0-0 COUNT 256", r->k_tasks, NE_GROUP, idle);
  if (!x || x->type != REDIS_REPLY_ARRAY || x->elements < 2) return ne__reply_free(x);
  const redisReply* entries = x->element[1];
  for (size_t i = 0; i < entries->elements; i++) {
    const redisReply* e = entries->element[i];
    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2) continue;
    const char* old = e->element[0]->str;
    const redisReply* u = ne__reply_field(e->element[1], "u");
    if (u && u->type == REDIS_REPLY_STRING) readd_held(r, u->str);  // not held: answered or let go
    ne__reply_free(ne__rconn_command(&r->lo, "XACK %s %s %s", r->k_tasks, NE_GROUP, old));
    ne__reply_free(ne__rconn_command(&r->lo, "XDEL %s %s", r->k_tasks, old));
  }
  for (size_t i = 0; x->elements > 2 && i < x->element[2]->elements; i++)
    ne__reply_free(ne__rconn_command(&r->lo, "XACK %s %s %s", r->k_tasks, NE_GROUP, x->element[2]->element[i]->str));
  size_t n = entries->elements;
  freeReplyObject(x);
  if (n)
    say(r, "re-added %zu local task%s idle for more than %.1f s (a worker stopped?)", n, n == 1 ? "" : "s",
        r->task_timeout_s);
}

// 1 if the node's Redis still holds the experiment as set up (its task stream with the group
// `workers`), 0 if it lost it (restarted empty: the description alone proves nothing, since
// mirroring writes it back, and a task added since re-creates the stream without the group), -1
// when it cannot be asked.
static int local_intact(relay* r) {
  redisReply* x = ne__rconn_command(&r->lo, "XINFO GROUPS %s", r->k_tasks);
  if (!x) return -1;
  int found = 0;
  for (size_t g = 0; x->type == REDIS_REPLY_ARRAY && g < x->elements; g++)
    found = found || strcmp(ne__reply_str(x->element[g], "name", ""), NE_GROUP) == 0;
  ne__reply_free(x);
  return found;
}

// A held task as the sweep sees it (copied under mu, looked at without it).
typedef struct held_view {
  char up[ID_LEN];     // upstream entry id
  char local[ID_LEN];  // newest local entry id ("" while the claimer is adding it, or unplaced)
  int settled;         // claimed more than a second ago (its entry is visible to XRANGE)
  int unplaced;        // claimed while the node's Redis was away
} held_view;

// A snapshot of the held tasks (mu taken here); *n gets their number. Caller frees. NULL: none or
// out of memory.
static held_view* snapshot_held(relay* r, int* n) {
  pthread_mutex_lock(&r->mu);
  *n = r->n_held;
  held_view* v = ne_calloc((size_t)*n + 1, sizeof *v);
  double now = ne__now();
  for (int i = 0; v && i < *n; i++) {
    const held* h = &r->held[i];
    snprintf(v[i].up, ID_LEN, "%s", h->up);
    snprintf(v[i].local, ID_LEN, "%s", h->n_local ? h->local[h->n_local - 1] : "");
    v[i].settled = now - h->since > 1;
    v[i].unplaced = h->unplaced;
  }
  pthread_mutex_unlock(&r->mu);
  if (!v) *n = 0;
  return v;
}

// Adds held task `up` to the local stream again (its blobs first: they may have gone with the
// rest). 0, or -1 when it is no longer held or the node's Redis refused.
static int readd_held(relay* r, const char* up) {
  pthread_mutex_lock(&r->mu);
  held* h = find_up(r, up);
  int found = h != NULL;
  ne_buf payload;
  ne__buf_init(&payload);
  if (h) ne__buf_bytes(&payload, h->payload.data, h->payload.len);
  pthread_mutex_unlock(&r->mu);
  ne__wire_task t;
  ne__wire_task_init(&t);
  char why[NE_ERRSTR_LEN], local[ID_LEN];
  int rc = found && !payload.oom && ne__wire_decode_task(&t, payload.data, payload.len, why) == 0 &&
          copy_blobs(r, &r->up, &r->lo, &t) == 0 && add_locally(r, &r->lo, up, &payload, local) == 0
      ? 0
      : -1;
  if (!rc) {
    pthread_mutex_lock(&r->mu);
    h = find_up(r, up);
    if (h) add_local_id(h, local), h->unplaced = 0, r->requeued++;
    pthread_mutex_unlock(&r->mu);
  }
  ne__wire_task_free(&t);
  ne__buf_free(&payload);
  return rc;
}

// The node's Redis lost the experiment (restarted empty): description, task group (created at
// the stream's start, so that tasks the claimer added since the restart are delivered too),
// ne:current and an announcement again; the blobs are copied again as tasks need them. 0, or -1
// (tried again at the next tick).
static int rebuild_local(relay* r) {
  redisReply* meta = ne__rconn_command(&r->up, "HGETALL %s", r->k_meta);
  int ok = meta && setup_local(r, meta) == 0;
  ne__reply_free(meta);
  if (!ok) return -1;
  pthread_mutex_lock(&r->mu);
  r->n_blobs = 0;
  r->rebuilt++;
  say(r, "the node's Redis lost experiment %s (restarted?): set it up again; re-adding the %d task%s held", r->id,
      r->n_held, r->n_held == 1 ? "" : "s");
  pthread_mutex_unlock(&r->mu);
  return 0;
}

// Copies the blobs of every held task to the node's Redis (after it lost them: tasks the claimer
// added since the restart, with blobs it believed copied, need them too).
static void recopy_blobs(relay* r, const held_view* v, int n) {
  ne__wire_task t;
  ne__wire_task_init(&t);
  for (int i = 0; i < n; i++) {
    pthread_mutex_lock(&r->mu);
    held* h = find_up(r, v[i].up);
    char why[NE_ERRSTR_LEN];
    int ok = h && ne__wire_decode_task(&t, h->payload.data, h->payload.len, why) == 0;
    pthread_mutex_unlock(&r->mu);
    if (ok) copy_blobs(r, &r->up, &r->lo, &t);
  }
  ne__wire_task_free(&t);
}

// Which held tasks' newest local entries still exist: gone[i] = 1 for those that vanished (a
// task without a local entry is not looked at). 0, or -1 when the node's Redis went away.
static int find_vanished(relay* r, const held_view* v, int n, uint8_t* gone) {
  int queued = 0;
  for (int i = 0; i < n && r->lo.c; i++) {
    if (!v[i].local[0]) continue;
    const char* argv[] = {"XRANGE", r->k_tasks, v[i].local, v[i].local};
    if (ne__rconn_append(&r->lo, 4, argv, NULL)) return -1;
    queued++;
  }
  for (int i = 0, k = 0; i < n && k < queued; i++) {
    if (!v[i].local[0]) continue;
    redisReply* e = ne__rconn_get_reply(&r->lo);
    k++;
    if (!e) return -1;  // nothing is concluded
    gone[i] = e->type == REDIS_REPLY_ARRAY && e->elements == 0;
    freeReplyObject(e);
  }
  return 0;
}

// Held tasks that are not in the node's stream: claimed while its Redis was away (added now), or
// whose local entry is gone without a result. After the node's Redis lost its state (rebuilt = 1)
// every such task is added again. Otherwise a worker of the node dropped it (a task it cannot
// decode or check): it is added once more, and if it vanishes again the relay lets it go upstream
// (stops holding and touching it, so the master re-claims it after its task timeout and any
// worker may take it). An upstream task is never acknowledged without a result.
static void sweep_held(relay* r, int rebuilt) {
  int n;
  held_view* v = snapshot_held(r, &n);
  uint8_t* gone = ne_calloc((size_t)n + 1, 1);
  if (rebuilt && v) recopy_blobs(r, v, n);
  if (!v || !gone || find_vanished(r, v, n, gone)) n = 0;
  int readded = 0, released = 0, placed = 0;
  for (int i = 0; i < n; i++) {
    if (!v[i].unplaced && (!gone[i] || (!rebuilt && !v[i].settled))) continue;  // there, or just added
    pthread_mutex_lock(&r->mu);
    held* h = find_up(r, v[i].up);
    // still held, at that local entry (not answered, not re-added meanwhile)
    int same = h && (v[i].unplaced ? h->unplaced : h->n_local && strcmp(h->local[h->n_local - 1], v[i].local) == 0);
    int let_go = same && !v[i].unplaced && !rebuilt && h->vanished++ >= 1;
    if (let_go) remove_held(r, h), r->released++;
    pthread_mutex_unlock(&r->mu);
    if (let_go) released++;
    else if (same && readd_held(r, v[i].up) == 0) v[i].unplaced ? placed++ : readded++;
  }
  if (readded && !rebuilt)
    say(r, "%d task%s vanished from the node's stream without a result (a worker dropped it?): added again", readded,
        readded == 1 ? "" : "s");
  if (rebuilt) say(r, "%d held task%s added to the node's stream again", readded, readded == 1 ? "" : "s");
  if (placed) say(r, "%d task%s claimed while the node's Redis was away added to it", placed, placed == 1 ? "" : "s");
  if (released)
    say(r, "%d task%s vanished twice without a result: left to the master, which re-claims %s", released,
        released == 1 ? "" : "s", released == 1 ? "it" : "them");
  ne_free(gone);
  ne_free(v);
}

// Every tick: is the node's Redis intact? If not, set it up again and re-add the held tasks at
// once; tasks claimed while it was away are added at once too; every 2 s, look for held tasks
// whose entries vanished from its stream.
static void check_local(relay* r, double now) {
  int intact = local_intact(r);
  if (intact < 0 || (!intact && rebuild_local(r) != 0)) return;
  pthread_mutex_lock(&r->mu);
  int unplaced = 0;
  for (int i = 0; i < r->n_held && !unplaced; i++) unplaced = r->held[i].unplaced;
  pthread_mutex_unlock(&r->mu);
  if (!intact || unplaced || now >= r->sweep_at) {
    r->sweep_at = now + 2;
    sweep_held(r, !intact);
  }
}

// Workers of this node that refused the experiment (a module missing on the node, another build)
// wrote why into the node's refusal hash; copied upstream, the master prints them and stops when no
// worker joins, as it does for workers connected to it directly. The copy expires as a worker's own
// refusal does.
static void forward_refusals(relay* r) {
  char key[NE_KEY_LEN], ttl[24];
  ne__key_exp(key, r->id, "refused");
  redisReply* x = ne__rconn_command(&r->lo, "HGETALL %s", key);
  if (x && x->type == REDIS_REPLY_ARRAY && x->elements >= 2) {
    for (size_t i = 0; i + 1 < x->elements; i += 2) {
      const redisReply *name = x->element[i], *why = x->element[i + 1];
      if (name->type != REDIS_REPLY_STRING || why->type != REDIS_REPLY_STRING) continue;
      const char* argv[] = {"HSET", key, name->str, why->str};
      size_t lens[] = {4, strlen(key), name->len, why->len};
      ne__reply_free(ne__rconn_argv(&r->up, 4, argv, lens));
    }
    snprintf(ttl, sizeof ttl, "%d", KEEP_S);
    ne__reply_free(ne__rconn_command(&r->up, "EXPIRE %s %s", key, ttl));
  }
  ne__reply_free(x);
}

// Results forwarded per second, as workers report their own (`status` shows the node's throughput).
static void update_rate(relay* r, uint64_t forwarded) {
  double now = ne__now(), dt = now - r->rate_at;
  if (dt <= 0) return;
  double inst = (double)(forwarded - r->rate_done) / dt;
  r->rate = r->rate_at == 0 ? inst : 0.5 * r->rate + 0.5 * inst;
  r->rate_done = forwarded;
  r->rate_at = now;
}

// Heartbeat upstream, as one worker with the node's threads (the master sizes chunks from them).
static void heartbeat(relay* r) {
  pthread_mutex_lock(&r->mu);
  int threads = r->local_threads, workers = r->local_workers, n_held = r->n_held;
  uint64_t forwarded = r->forwarded_results, claimed = r->claimed;
  pthread_mutex_unlock(&r->mu);
  update_rate(r, forwarded);
  char rate[32];
  snprintf(rate, sizeof rate, "%.1f", r->rate);
  char wkey[NE_KEY_LEN], xkey[NE_KEY_LEN], tkey[NE_KEY_LEN], ttl[24], exp_val[64], v[8][32];
  snprintf(wkey, sizeof wkey, NE_KEY_WORKER_FMT, r->name);
  snprintf(xkey, sizeof xkey, "%s", r->following ? r->k_workers : "ne:exp:none:workers");
  snprintf(tkey, sizeof tkey, "%s", r->following ? r->k_tasks : "ne:exp:none:tasks");
  snprintf(ttl, sizeof ttl, "%.0f", 3 * r->interval_s * 1000 + 1000);
  exp_val[0] = '\0';
  if (r->following && threads > 0) snprintf(exp_val, sizeof exp_val, "%d %.0f", threads, r->interval_s * 1000);
  snprintf(v[0], 32, "%d", threads);
  snprintf(v[1], 32, "%" PRIu64, forwarded);
  snprintf(v[2], 32, "%" PRIu64, claimed);
  snprintf(v[3], 32, "%d", workers);
  snprintf(v[4], 32, "%d", n_held);
  snprintf(v[5], 32, "%d", (int)getpid());
  snprintf(v[6], 32, "%lld", r->started);
  snprintf(v[7], 32, "%.0f", r->interval_s * 1000);
  // clang-format off
  const char* args[] = {NE_KEY_WORKERS, wkey, xkey, tkey, r->name, ttl, exp_val,
                        "threads", v[0], "results", v[1], "tasks", v[2], "rate", rate, "bad_tasks", "0",
                        "relay", "1", "node_workers", v[3], "held", v[4], "pid", v[5], "started", v[6],
                        "interval_ms", v[7], "host", r->host, "experiment", r->following ? r->id : "-",
                        "version", NE_VERSION_STRING};
  // clang-format on
  ne__reply_free(ne__rconn_script(&r->up, ne__heartbeat_lua, 4, (int)(sizeof args / sizeof args[0]), args, NULL));
  if (r->following) forward_refusals(r);
}

static int main_loop(relay* r, char* errstr) {
  double next = 0;
  int rc = 0, waiting_said = 0;
  while (!stopping(r) && !rc) {
    double now = ne__now();
    if (now >= next) {
      next = now + TICK_S;
      int up = ne__rconn_ensure(&r->up), lo = ne__rconn_ensure(&r->lo);
      if ((up && r->up.err == NE_EINVAL) || (lo && r->lo.err == NE_EINVAL))
        return ne__set_error(errstr, NE_EINVAL, "%s", up ? r->up.errstr : r->lo.errstr);
      if (up || lo) {
        if (!waiting_said++) say(r, "waiting for Redis: %s", up ? r->up.errstr : r->lo.errstr);
        ne__sleep_s(TICK_S);
        continue;
      }
      waiting_said = 0;
      // upstream: the experiment once per heartbeat period, the held tasks a third of their timeout
      // apart; the node: every tick
      if (now >= r->follow_at)
        rc = follow(r, errstr), r->follow_at = now + (r->following ? r->interval_s : IDLE_FOLLOW_S);
      if (r->following && !rc) {
        refresh_local(r);
        release_if_orphaned(r);
        if (now >= r->touch_at) r->touch_at = now + r->task_timeout_s / 3, touch_upstream(r);
        reclaim_local(r);
        check_local(r, now);
        if (now >= r->keep_at) {
          r->keep_at = now + 60;
          ne__reply_free(ne__rconn_command(&r->lo, "EXPIRE %s %d", r->k_meta, KEEP_S));
          ne__reply_free(ne__rconn_command(&r->lo, "EXPIRE %s %d", r->k_tasks, KEEP_S));
        }
      }
      if (now >= r->beat_at) r->beat_at = now + r->interval_s, heartbeat(r);
    }
    ne__sleep_s(0.05);
  }
  return rc;
}

// ---- entry point --------------------------------------------------------------------------

int ne_cluster_relay_run(const ne_cluster_relay_options* opt, char* errstr) {
  if (!opt || !opt->upstream || !opt->local)
    return ne__set_error(errstr, NE_EINVAL, "a relay needs --upstream and --local");
  relay* r = ne_calloc(1, sizeof *r);
  if (!r) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  r->opt = *opt;
  r->log = opt->log ? opt->log : stderr;
  r->interval_s = opt->heartbeat_s > 0 ? opt->heartbeat_s : 1.0;
  r->started = (long long)time(NULL);
  gethostname(r->host, sizeof r->host - 1);
  if (opt->name && opt->name[0]) snprintf(r->name, sizeof r->name, "%s", opt->name);
  else snprintf(r->name, sizeof r->name, "relay-%.40s-%d", r->host, (int)getpid());
  for (char* p = r->name; *p; p++)
    if (*p <= ' ' || *p > '~') *p = '_';
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  int rc = ne__redis_url_parse(opt->upstream, &r->up_url, errstr);
  if (!rc) rc = ne__redis_url_check_auth(&r->up_url, "the relay", errstr);
  // the node's Redis has credentials of its own (NEUROEVO_NODE_REDIS_PASSWORD, or none on loopback):
  // the master's password is not sent there
  if (!rc) rc = ne__redis_url_parse_env(opt->local, "NEUROEVO_NODE_REDIS_PASSWORD", &r->lo_url, errstr);
  if (!rc) rc = ne__redis_url_check_auth(&r->lo_url, "the relay", errstr);
  if (!rc) {
    r->up = (ne__rconn){.url = r->up_url, .timeout_s = 2};
    r->lo = (ne__rconn){.url = r->lo_url, .timeout_s = 2};
    say(r, "upstream %s, node-local Redis %s", r->up_url.shown, r->lo_url.shown);
    rc = main_loop(r, errstr);
    // stopping: forward what the node's workers finish in the next seconds (they may be stopping
    // too, finishing their tasks in hand); the rest is re-claimed by the master
    if (r->following) leave_experiment(r, "left (relay stopping)", DRAIN_S);
    if (r->up.c) {
      char wkey[NE_KEY_LEN];
      snprintf(wkey, sizeof wkey, NE_KEY_WORKER_FMT, r->name);
      ne__reply_free(ne__rconn_command(&r->up, "ZREM %s %s", NE_KEY_WORKERS, r->name));
      ne__reply_free(ne__rconn_command(&r->up, "DEL %s", wkey));
    }
    say(r,
        "leaving after %" PRIu64 " tasks claimed, %" PRIu64 " results forwarded (%" PRIu64
        " discarded: experiment "
        "over), %" PRIu64 " local re-claims, %" PRIu64 " malformed tasks dropped, %" PRIu64
        " times the node's Redis set up again",
        r->claimed, r->forwarded, r->discarded, r->requeued, r->dropped, r->rebuilt);
  }
  ne__rconn_close(&r->up);
  ne__rconn_close(&r->lo);
  pthread_mutex_lock(&r->mu);
  clear_held(r);
  pthread_mutex_unlock(&r->mu);
  ne_free(r->held);
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  ne_free(r);
  return rc;
}
