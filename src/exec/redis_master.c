// SPDX-License-Identifier: MIT
// The Redis master executor (cluster.h, DESIGN.md §4). One evaluate call = one round: store the
// round's broadcast blobs once, publish its candidates as chunked tasks to a stream read by workers
// through a consumer group, and collect results from the result stream until every candidate index
// has its first valid result. An evaluate_many call is one round of several batches (a
// generation's last round and the next generation's candidates that do not wait for it): each task
// holds candidates of one batch and carries that batch's identity, so workers see plain rounds;
// the round's candidates are numbered across its batches (set[s].first + index in batch s).
// Everything else is recovery: tasks idle in a silent worker's hands are re-published, candidates
// whose results were lost or rejected are re-published once nothing is in flight, and an
// experiment that vanished from Redis (restart without persistence) is re-created. Results land by
// candidate index, so the algorithm sees exactly what a local run would. Single-threaded: one
// connection, one round at a time. Per result the master decodes ~22 bytes.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "exec/redis_beat.h"  // the heartbeat thread: `status` and workers tell a live master from a dead one
#include "exec/redis_conn.h"
#include "exec/redis_wire.h"
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"
#include "neuroevo/config.h"     // ne_config_int: meta.tasks
#include "neuroevo/env.h"        // ne_env_from_config
#include "neuroevo/evaluator.h"  // ne_evaluator_summarize: split candidates end as whole ones
#include "neuroevo/policy.h"     // ne_policy_from_config

#define READ_COUNT 256       // result entries per XREAD
#define BLOCK_MS 100         // XREAD block: how often the loop looks at the stop flag and timers
#define TICK_S 0.25          // reclaim / stall checks
#define WORKERS_EVERY_S 1.0  // live-worker refresh and experiment-exists check
#define KEEP_S (7 * 86400)   // an abandoned experiment (master killed, never resumed) expires after this
#define KEEP_EVERY_S 60.0    // how often the master pushes that expiry back
#define MAX_CHUNK 1024       // candidates per task when sizing automatically
#define TARGET_TASK_S 0.010  // automatic chunks hold at least this much evaluation (a task costs ~0.1-0.2 ms)
#define N_ROUND_KINDS 4      // rounds of a generation whose costs are estimated apart (GA: population, elite)
#define MAX_FAILURES 3       // env failures of one candidate (distinct attempts) that stop the run
#define FAIL_RECORDS 64      // failure reports remembered per round (attempts, workers, messages)
#define PIPELINE 64          // commands queued before replies are read
#define BLOB_TTL_S 86400     // safety expiry of blobs (deleted explicitly each generation)
#define WAIT_WORKERS_S 2.0   // a round with no live worker known waits this long for one before sizing chunks
#define N_WARN_KINDS 6
#define WARN_LINES 5         // messages printed per kind before the rest are only counted
#define JOIN_TIMEOUT_S 60.0  // workers refused the experiment and none joined for this long: the run stops
#define WAIT_NOTE_S 10.0     // no worker joined for this long: say what the master waits for (once)
#define REFUSALS_SHOWN 8     // refusals printed (by worker name); more are counted
#define BEAT_S 1.0           // the master's heartbeat period (status: gone after 3 missed beats + 1 s)

enum { W_MALFORMED, W_FOREIGN, W_BUILD, W_GENERATION, W_BATCH, W_INFO };
static const char* const warn_names[N_WARN_KINDS] = {"malformed",        "out-of-experiment", "wrong-build",
                                                     "wrong-generation", "wrong-batch",       "info"};

// One batch of the round in flight.
typedef struct mbatch {
  const ne_batch* batch;  // not owned
  ne_result* results;     // the caller's (batch->n)
  ne__wire_round rd;      // its identity in tasks and results
  uint64_t norm_hash[2];  // content hashes of obs_mean / obs_std
  int first;              // its first candidate in the round's numbering
} mbatch;

typedef struct master {
  ne_cluster_master_options opt;  // as given (url pointer not kept)
  ne__rconn conn;                 // the master's only connection
  char name[128];                 // experiment name shown by status
  char* config_text;              // resolved config published to workers (owned)
  int meta;                       // meta-learning (meta.tasks > 0): candidates are never split
  ne_env_spec* env;               // for the fingerprint and the observation length (owned)
  ne_policy_spec policy;          // for the fingerprint
  uint64_t fingerprint;           // this build's ne__wire_fingerprint
  uint64_t exp;                   // experiment id
  char id[17];                    // its hex form
  char k_meta[NE_KEY_LEN], k_tasks[NE_KEY_LEN], k_results[NE_KEY_LEN], k_workers[NE_KEY_LEN];
  char k_refused[NE_KEY_LEN];  // hash: worker name -> why it does not join (workers write it)
  // nobody joining: workers that refused the experiment are reported and, with none joined, the run
  // stops after join_timeout_s instead of waiting forever
  double alone_since;                                        // ne__now() since when no worker is live (0: one is)
  int waiting_said;                                          // 1 once the "waiting for workers" note was printed
  int gathered;                                              // 1 once the first round waited for opt.min_workers
  char refusals_said[REFUSALS_SHOWN][NE_WIRE_MAX_NAME + 1];  // workers whose refusal was printed
  int n_refusals_said;
  double task_timeout_s;          // re-claim threshold
  double join_timeout_s;          // see check_joins
  int lost;                       // 1: the connection or the experiment must be recovered
  int fatal;                      // NE_E* code once a candidate failed MAX_FAILURES times (0: none)
  char fatal_msg[NE_ERRSTR_LEN];  // its message
  int queued;                     // pipelined commands whose replies are not read yet
  // the round in flight: its batches in the order their tasks are published
  mbatch set[NE_EXECUTOR_MAX_BATCHES];
  int n_set;
  int n_cands;  // candidates of all its batches
  // the round's work items: whole candidates, or parts of the episodes of a candidate split over
  // several tasks (a straggler otherwise: the GA's elite re-evaluation, 30 episodes of a candidate
  // while hundreds of workers idle); item k is candidate item_cand[k], episodes item_part[k]
  int n_items, cap_items;
  int* item_cand;            // (cap_items)
  ne__wire_part* item_part;  // (cap_items) n == 0: the whole candidate
  int* first_item;           // (have_cap + 1) candidate i's items: first_item[i] .. first_item[i + 1] - 1
  uint8_t* have;             // (cap_items) 1 once item k has its result
  uint8_t* redo;             // (cap_items) 1: re-publish item k now (its result was rejected)
  uint64_t* part_steps;      // (cap_items) steps of a part
  int* part_status;          // (cap_items) status of a part
  double* returns;           // (cap_returns) split candidates' episode returns, candidate i's from ret_at[i]
  size_t* ret_at;            // (have_cap)
  size_t cap_returns;
  uint8_t* fails;                // (have_cap) env failures reported for candidate i this round
  int have_cap, n_have, n_redo;  // n_have: items with their result
  struct fail_record {           // one failure report: an attempt is a task entry
    uint32_t index;              // candidate
    char entry[NE_WIRE_MAX_ENTRY + 1];
    char worker[NE_WIRE_MAX_NAME + 1];
    char error[NE_WIRE_MAX_ERROR + 1];
  } fail_recs[FAIL_RECORDS];           // this round's, oldest overwritten
  int n_fail_recs;                     // reports recorded this round (may exceed FAIL_RECORDS)
  double est_s[N_ROUND_KINDS];         // evaluation seconds per episode of each round kind (0: unknown)
  double round_eval_s[N_ROUND_KINDS];  // this round's accepted evaluation time and episodes, for est_s
  uint64_t round_episodes[N_ROUND_KINDS];
  int* idx;                   // (cap_items) scratch list of missing items
  int* task_cands;            // (cap_items) a task's candidates and parts, for the encoder
  ne__wire_part* task_parts;  // (cap_items)
  uint32_t task_no;           // tasks published so far
  char last_read[48];         // result stream position
  char consumed[48];          // results up to here belong to completed generations
  char round_first_task[48];  // first task id of this round ("" before publishing)
  char last_task[48];         // newest task id this master published
  int reread;                 // 1: results of this generation may predate us (resume, recovery)
  int replaying;              // 1 while reading results a previous master left (their failures don't count)
  int in_generation;          // 1 after the first round of this master
  uint32_t gen;               // generation of the last round
  uint64_t* blobs;            // (cap_blobs) hashes stored for the current generation
  int n_blobs, cap_blobs;
  // live workers, refreshed every WORKERS_EVERY_S
  double workers_at, tick_at, progress_at;
  double keep_at;                 // next time the experiment's expiry is pushed back
  ne_buf enc;                     // encoding scratch
  ne__wire_results dec;           // decoding scratch
  ne_cluster_master_stats stats;  // counters
  int warned[N_WARN_KINDS];       // messages printed per kind
  ne_result_hook on_result;       // told each accepted result (the run's partial-generation log)
  void* on_result_user;
  ne__beat* beat;  // the heartbeat thread (redis_beat.h)
  int finished;    // 1 once ne_cluster_master_finish marked the experiment done
} master;

// ---- messages -----------------------------------------------------------------------------

static void warn(master* m, int kind, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(master* m, int kind, const char* fmt, ...) {
  // progress notes (W_INFO) are always printed; problems are printed WARN_LINES times per kind
  if (m->opt.quiet || (kind != W_INFO && m->warned[kind] > WARN_LINES)) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (kind == W_INFO || ++m->warned[kind] <= WARN_LINES) fprintf(stderr, "neuroevo: master: %s\n", line);
  else fprintf(stderr, "neuroevo: master: further %s messages are only counted\n", warn_names[kind]);
}

// ---- small Redis helpers ------------------------------------------------------------------

// The reply of a command, or NULL with m->lost set after an I/O error.
static redisReply* vquery(master* m, const char* fmt, va_list ap) {
  if (!m->conn.c && ne__rconn_ensure(&m->conn)) return m->lost = 1, NULL;
  redisReply* r = redisvCommand(m->conn.c, fmt, ap);
  if (!r) {
    ne__rconn_set_error(&m->conn, NE_ENET, "Redis at %s: %s", m->conn.url.shown, m->conn.c->errstr);
    ne__rconn_close(&m->conn);
    m->lost = 1;
  }
  return r;
}

static redisReply* query(master* m, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  redisReply* r = vquery(m, fmt, ap);
  va_end(ap);
  return r;
}

// Runs a command whose reply is not needed. 0, NE_ENET (m->lost set) or NE_EIO for an error reply.
static int cmd(master* m, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  redisReply* r = vquery(m, fmt, ap);
  va_end(ap);
  if (!r) return NE_ENET;
  int rc = r->type == REDIS_REPLY_ERROR ? ne__rconn_set_error(&m->conn, NE_EIO, "Redis: %s", r->str) : 0;
  freeReplyObject(r);
  return rc;
}

// ---- pipelining: a round's bookkeeping goes out in one or two round trips --------------------

// Queues one command (printf-style). NE_ENET (m->lost set) when disconnected.
static int pipe_cmd(master* m, const char* fmt, ...) {
  if (!m->conn.c) return m->lost = 1, NE_ENET;
  va_list ap;
  va_start(ap, fmt);
  int ok = redisvAppendCommand(m->conn.c, fmt, ap) == REDIS_OK;
  va_end(ap);
  if (!ok) {
    ne__rconn_close(&m->conn);
    return m->lost = 1, NE_ENET;
  }
  m->queued++;
  return 0;
}

// Queues one binary-safe command.
static int pipe_argv(master* m, int argc, const char** argv, const size_t* lens) {
  if (ne__rconn_append(&m->conn, argc, argv, lens)) return m->lost = 1, NE_ENET;
  m->queued++;
  return 0;
}

// Reads every queued reply. XADD replies (stream ids) advance round_first_task / last_task; the
// first error reply is returned as NE_EIO (with errstr), a broken connection as NE_ENET.
static int flush(master* m) {
  int rc = 0;
  for (; m->queued > 0; m->queued--) {
    redisReply* r = ne__rconn_get_reply(&m->conn);
    if (!r) {
      m->queued = 0;
      return m->lost = 1, NE_ENET;
    }
    if (r->type == REDIS_REPLY_STRING) {
      if (!m->round_first_task[0]) {
        snprintf(m->round_first_task, sizeof m->round_first_task, "%s", r->str);
        m->stats.published_at = ne__now();
      }
      if (ne__stream_id_cmp(r->str, m->last_task) > 0) snprintf(m->last_task, sizeof m->last_task, "%s", r->str);
    } else if (r->type == REDIS_REPLY_ERROR && !rc) {
      rc = ne__rconn_set_error(&m->conn, NE_EIO, "Redis: %s", r->str);
    }
    freeReplyObject(r);
  }
  return rc;
}

// Stream id just after `id` (XTRIM MINID keeps ids >= its argument).
static void id_after(const char* id, char* out, size_t size) {
  uint64_t ms, seq;
  ne__stream_id_parse(id, &ms, &seq);
  snprintf(out, size, "%llu-%llu", (unsigned long long)ms, (unsigned long long)seq + 1);
}

// ---- the experiment -----------------------------------------------------------------------

static int keep_alive(master* m);

// Writes the experiment's description workers read when they join.
static int write_meta(master* m) {
  char fp[17], host[128] = "?";
  ne__wire_id_format(m->fingerprint, fp);
  gethostname(host, sizeof host - 1);
  char wire[16], timeout_ms[32], created[32], master_name[192];
  snprintf(wire, sizeof wire, "%d", NE_WIRE_VERSION);
  snprintf(timeout_ms, sizeof timeout_ms, "%.0f", m->task_timeout_s * 1000);
  snprintf(created, sizeof created, "%lld", (long long)time(NULL));
  snprintf(master_name, sizeof master_name, "%s:%d", host, (int)getpid());
  return cmd(m,
             "HSET %s config %s wire %s fingerprint %s name %s created %s status running task_timeout_ms %s "
             "synthetic %d master %s",
             m->k_meta, m->config_text, wire, fp, m->name, created, timeout_ms, m->opt.synthetic ? 1 : 0, master_name);
}

// Creates the experiment's keys, or adopts them when they exist (a resumed master). Adoption drops
// the old master's queued tasks: whatever is still missing is re-published.
static int setup_experiment(master* m, int* adopted) {
  redisReply* r = query(m, "EXISTS %s", m->k_meta);
  if (!r) return NE_ENET;
  *adopted = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  freeReplyObject(r);
  int rc = write_meta(m);
  if (!rc) {
    r = query(m, "XGROUP CREATE %s %s $ MKSTREAM", m->k_tasks, NE_GROUP);
    if (!r) return NE_ENET;
    if (r->type == REDIS_REPLY_ERROR && !ne__reply_error_is(r, "BUSYGROUP"))
      rc = ne__rconn_set_error(&m->conn, NE_EIO, "Redis: XGROUP CREATE %s: %s", m->k_tasks, r->str);
    freeReplyObject(r);
  }
  if (!rc && *adopted) rc = cmd(m, "XTRIM %s MAXLEN 0", m->k_tasks);
  // every key of the experiment expires from the start (workers copy the task stream's expiry onto
  // what they create): a master killed now leaves nothing behind for long
  if (!rc) rc = keep_alive(m);
  if (!rc) rc = cmd(m, "SET %s %s", NE_KEY_CURRENT, m->id);
  // wakes idle workers at once (they block on this stream instead of polling ne:current)
  if (!rc) rc = cmd(m, "XADD %s MAXLEN ~ 100 * id %s", NE_KEY_ANNOUNCE, m->id);
  snprintf(m->last_read, sizeof m->last_read, "0-0");
  m->reread = 1;
  return rc;
}

// ---- live workers -------------------------------------------------------------------------

// Server time in ms (workers stamp heartbeats with it too, so clocks of other machines don't matter).
static int server_ms(master* m, long long* now) {
  if (!m->conn.c && ne__rconn_ensure(&m->conn)) return m->lost = 1, NE_ENET;
  int rc = ne__rconn_server_ms(&m->conn, now);
  if (rc == NE_ENET) m->lost = 1;
  return rc;
}

// Counts live workers and threads from the experiment's worker hash (name -> "beat threads
// interval_ms"); forgets workers silent for a minute.
static int refresh_workers(master* m) {
  long long now;
  int rc = server_ms(m, &now);
  if (rc) return rc;
  redisReply* r = query(m, "HGETALL %s", m->k_workers);
  if (!r) return NE_ENET;
  int workers = 0, threads = 0;
  for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2) {
    long long beat = 0, interval = 1000;
    int th = 0;
    if (sscanf(r->element[i + 1]->str, "%lld %d %lld", &beat, &th, &interval) < 2) continue;
    if (now - beat <= 3 * interval + 1000) {
      workers++;
      threads += th > 0 ? th : 1;
    } else if (now - beat > 60000) {
      cmd(m, "HDEL %s %s", m->k_workers, r->element[i]->str);
    }
  }
  freeReplyObject(r);
  m->stats.live_workers = workers;
  m->stats.live_threads = threads;
  return m->lost ? NE_ENET : 0;
}

// 1 if worker `name`'s refusal was printed already, or REFUSALS_SHOWN were (the rest are counted in
// the final message); otherwise remembers it
static int refusal_said(master* m, const char* name) {
  for (int i = 0; i < m->n_refusals_said; i++)
    if (strcmp(m->refusals_said[i], name) == 0) return 1;
  if (m->n_refusals_said == REFUSALS_SHOWN) return 1;
  snprintf(m->refusals_said[m->n_refusals_said++], sizeof m->refusals_said[0], "%s", name);
  return 0;
}

// With no live worker: prints the refusals workers left in Redis (once each), notes once that the
// master waits for workers, and stops the run (m->fatal) when workers refused the experiment and
// none joined for join_timeout_s. A worker that joins resets the clock.
static int check_joins(master* m, double now) {
  if (m->stats.live_workers > 0) {
    m->alone_since = 0;
    return 0;
  }
  if (m->alone_since == 0) m->alone_since = now;
  redisReply* r = query(m, "HGETALL %s", m->k_refused);
  if (!r) return NE_ENET;
  int n = r->type == REDIS_REPLY_ARRAY ? (int)r->elements / 2 : 0;
  for (int i = 0; i < n; i++) {
    const char* name = r->element[2 * i]->str ? r->element[2 * i]->str : "?";
    if (!refusal_said(m, name))
      warn(m, W_INFO, "worker '%s' refused experiment %s: %s", name, m->id,
           r->element[2 * i + 1]->str ? r->element[2 * i + 1]->str : "?");
  }
  double waited = now - m->alone_since;
  if (n > 0 && waited >= m->join_timeout_s) {
    m->fatal = NE_EUNSUPPORTED;
    // the worker's reason is cut to what fits (its log has it whole)
    int len = snprintf(m->fatal_msg, sizeof m->fatal_msg,
                       "no worker joined experiment %s for %.0f s; %d refused "
                       "it; fix the workers or run without --redis. '%.40s': ",
                       m->id, waited, n, r->element[0]->str ? r->element[0]->str : "?");
    if (len > 0 && len < (int)sizeof m->fatal_msg)
      snprintf(m->fatal_msg + len, sizeof m->fatal_msg - (size_t)len, "%s",
               r->element[1]->str ? r->element[1]->str : "?");
  } else if (n == 0 && waited >= WAIT_NOTE_S && !m->waiting_said) {
    m->waiting_said = 1;
    warn(m, W_INFO,
         "waiting for workers: none has joined experiment %s for %.0f s (start `neuroevo worker "
         "--redis URL`; `neuroevo status` shows them)",
         m->id, waited);
  }
  freeReplyObject(r);
  return 0;
}

// ---- blobs --------------------------------------------------------------------------------

static int remember_blob(master* m, uint64_t hash) {
  for (int i = 0; i < m->n_blobs; i++)
    if (m->blobs[i] == hash) return 1;
  if (m->n_blobs == m->cap_blobs) {
    int cap = m->cap_blobs ? 2 * m->cap_blobs : 16;
    uint64_t* grown = ne_realloc(m->blobs, (size_t)cap * sizeof *grown);
    if (!grown) return -1;
    m->blobs = grown;
    m->cap_blobs = cap;
  }
  m->blobs[m->n_blobs++] = hash;
  return 0;
}

static void blob_key(const master* m, uint64_t hash, char key[NE_KEY_LEN]) {
  char suffix[32], hex[17];
  ne__wire_id_format(hash, hex);
  snprintf(suffix, sizeof suffix, "blob:%s", hex);
  ne__key_exp(key, m->id, suffix);
}

// Queues SET of one blob unless already stored this generation (force: again).
static int queue_blob(master* m, uint64_t hash, const float* data, size_t n, int force) {
  int seen = remember_blob(m, hash);
  if (seen < 0) return NE_ENOMEM;
  if (seen && !force) return 0;
  int rc = ne__wire_encode_blob(&m->enc, hash, data, n);
  if (rc) return rc;
  char key[NE_KEY_LEN], ttl[16];
  blob_key(m, hash, key);
  snprintf(ttl, sizeof ttl, "%d", BLOB_TTL_S);
  const char* argv[] = {"SET", key, (const char*)m->enc.data, "EX", ttl};
  size_t lens[] = {3, strlen(key), m->enc.len, 2, strlen(ttl)};
  return pipe_argv(m, 5, argv, lens);
}

// Queues the round's broadcast vectors (force: again, after Redis lost them).
static int publish_blobs(master* m, int force) {
  int rc = 0;
  for (int s = 0; !rc && s < m->n_set; s++) {
    const ne_batch* b = m->set[s].batch;
    for (int k = 0; !rc && k < b->n_blobs; k++)
      rc = queue_blob(m, b->blobs[k].hash, b->blobs[k].data, b->blobs[k].n, force);
    if (!rc && b->obs_mean && b->obs_std) {
      size_t d = (size_t)m->env->obs_dim;
      rc = queue_blob(m, m->set[s].norm_hash[0], b->obs_mean, d, force);
      if (!rc) rc = queue_blob(m, m->set[s].norm_hash[1], b->obs_std, d, force);
    }
  }
  return rc;
}

// A new generation: queues the removal of the previous generation's results and blobs.
static int start_generation(master* m) {
  int rc = 0;
  if (m->in_generation && m->consumed[0]) {
    char min[48];
    id_after(m->consumed, min, sizeof min);
    rc = pipe_cmd(m, "XTRIM %s MINID %s", m->k_results, min);
  }
  for (int i = 0; !rc && i < m->n_blobs; i++) {
    char key[NE_KEY_LEN];
    blob_key(m, m->blobs[i], key);
    rc = pipe_cmd(m, "DEL %s", key);
  }
  if (!rc) m->n_blobs = 0;
  m->reread = m->reread && !m->in_generation;
  return rc;
}

// ---- tasks --------------------------------------------------------------------------------

// The batch of the round's candidate c.
static int batch_of(const master* m, int c) {
  int s = 0;
  while (s + 1 < m->n_set && c >= m->set[s + 1].first) s++;
  return s;
}

// Candidate c of the round.
static const ne_candidate* cand_of(const master* m, int c) {
  const mbatch* mb = &m->set[batch_of(m, c)];
  return &mb->batch->cands[c - mb->first];
}

// Its result slot.
static ne_result* result_of(const master* m, int c) {
  const mbatch* mb = &m->set[batch_of(m, c)];
  return &mb->results[c - mb->first];
}

// Episodes of item k.
static uint32_t item_episodes(const master* m, int k) {
  return m->item_part[k].n ? m->item_part[k].n : cand_of(m, m->item_cand[k])->episodes;
}

// Which estimate of the cost of an episode a batch's round uses.
static int round_kind(const ne__wire_round* rd) {
  return rd->round < N_ROUND_KINDS ? (int)rd->round : N_ROUND_KINDS - 1;
}

// Items per task that hold TARGET_TASK_S of evaluation, from the measured cost of this kind
// of round (1 until measured), at most a fair share of the round (every thread gets work). Item k
// is one of the batch's.
static int min_chunk(const master* m, int k, int n_round, int threads) {
  double per_ep = m->est_s[round_kind(&m->set[batch_of(m, m->item_cand[k])].rd)];
  uint32_t episodes = item_episodes(m, k);
  if (episodes < 1) episodes = 1;
  if (per_ep <= 0) return 1;
  double c = ceil(TARGET_TASK_S / (per_ep * episodes));
  int fair = (n_round + threads - 1) / threads;
  return c < 1 ? 1 : (c > fair ? fair : (int)c);
}

// Guided self-scheduling: each task takes a share of what is left (remaining / (2 * threads)), so
// a round starts with big chunks (few messages) and ends with small ones (no worker idles while
// another finishes a big last chunk), but never below TARGET_TASK_S of work: a task costs ~0.1-0.2
// ms of Redis, master and worker time, as much as a whole CartPole candidate. 10 ms keeps that at
// 1-2%; a round with less work per thread is one task per thread (measured better than 3 ms chunks
// on Acrobot and on par on CartPole, docs/scaling.md). --chunk N fixes the size instead.
static int chunk_size(const master* m, int k, int remaining, int n_round) {
  if (m->opt.chunk > 0) return m->opt.chunk;
  int threads = m->stats.live_threads > 2 ? m->stats.live_threads : 2;
  int c = (remaining + 2 * threads - 1) / (2 * threads), lo = min_chunk(m, k, n_round, threads);
  if (c < lo) c = lo;
  return c < 1 ? 1 : (c > MAX_CHUNK ? MAX_CHUNK : c);
}

// Queues one task of the items items[0..n), all of batch s.
static int queue_task(master* m, int s, const int* items, int n) {
  const mbatch* mb = &m->set[s];
  for (int j = 0; j < n; j++)
    m->task_cands[j] = m->item_cand[items[j]] - mb->first, m->task_parts[j] = m->item_part[items[j]];
  int rc = ne__wire_encode_task_parts(&m->enc, &mb->rd, m->task_no++, mb->batch, mb->norm_hash, m->env->obs_dim,
                                      m->task_cands, m->task_parts, n);
  if (rc) return rc;
  const char* argv[] = {"XADD", m->k_tasks, "*", "m", (const char*)m->enc.data};
  size_t lens[] = {4, strlen(m->k_tasks), 1, 1, m->enc.len};
  m->stats.task_bytes += m->enc.len;
  return pipe_argv(m, 5, argv, lens);
}

// An item to publish, for ordering.
typedef struct ordered_item {
  int batch;          // its batch's position in the round
  uint32_t episodes;  // its episodes
  int item;           // its number
} ordered_item;

static int by_batch_then_episodes(const void* a, const void* b) {
  const ordered_item *x = a, *y = b;
  if (x->batch != y->batch) return x->batch < y->batch ? -1 : 1;
  if (x->episodes != y->episodes) return x->episodes > y->episodes ? -1 : 1;
  return (x->item > y->item) - (x->item < y->item);
}

// Orders the items m->idx[0..n) (in item order) of each batch by their episodes, most first, else
// in item order: a candidate that holds more episodes than the others (ES's centre, 5 episodes
// among one-episode perturbations, unsplit when the batch wants observation sums) starts with the
// round instead of ending it alone (on 720 MuJoCo-like workers it held the round up by ~0.1 s of
// a 0.5 s generation). Results land by index whatever the order. Nothing moves when every item of
// a batch has as many episodes.
static int order_longest_first(master* m, int n) {
  int uneven = 0;
  for (int j = 1; j < n && !uneven; j++)
    uneven = item_episodes(m, m->idx[j]) != item_episodes(m, m->idx[j - 1]) &&
        batch_of(m, m->item_cand[m->idx[j]]) == batch_of(m, m->item_cand[m->idx[j - 1]]);
  if (!uneven) return 0;
  ordered_item* o = ne_malloc((size_t)n * sizeof *o);
  if (!o) return NE_ENOMEM;
  for (int j = 0; j < n; j++)
    o[j] = (ordered_item){batch_of(m, m->item_cand[m->idx[j]]), item_episodes(m, m->idx[j]), m->idx[j]};
  qsort(o, (size_t)n, sizeof *o, by_batch_then_episodes);
  for (int j = 0; j < n; j++) m->idx[j] = o[j].item;
  ne_free(o);
  return 0;
}

// Publishes the items m->idx[0..n) (in item order) in chunks (after whatever is already queued),
// longest first within a batch (order_longest_first), then reads all replies. Each batch's items are chunked as a round of their own (a task never
// holds items of two batches, whose items may differ in cost: a part of several episodes against
// a one-episode candidate).
static int publish_list(master* m, int n) {
  int rc = order_longest_first(m, n);
  for (int off = 0, chunk, begin = 0, end = 0, s = 0; off < n && !rc; off += chunk) {
    if (off == end) {  // the next batch's items: [begin, end)
      s = batch_of(m, m->item_cand[m->idx[off]]);
      for (begin = end = off; end < n && batch_of(m, m->item_cand[m->idx[end]]) == s;) end++;
    }
    chunk = chunk_size(m, m->idx[off], end - off, end - begin);
    if (chunk > end - off) chunk = end - off;
    rc = queue_task(m, s, m->idx + off, chunk);
    if (!rc && m->queued >= PIPELINE) rc = flush(m);
  }
  if (!rc && n) {
    char gen[16], round[16], total[16];
    snprintf(gen, sizeof gen, "%u", m->set[0].rd.generation);
    snprintf(round, sizeof round, "%u", m->set[0].rd.round);
    snprintf(total, sizeof total, "%d", m->n_cands);
    rc = pipe_cmd(m, "HSET %s generation %s round %s candidates %s", m->k_meta, gen, round, total);
  }
  int frc = m->lost ? NE_ENET : flush(m);
  return rc ? rc : frc;
}

// Publishes every item without a result. *count gets how many.
static int publish_missing(master* m, int* count) {
  int n = 0;
  for (int k = 0; k < m->n_items; k++)
    if (!m->have[k]) m->idx[n++] = k;
  *count = n;
  for (int k = 0; k < m->n_items; k++) m->redo[k] = 0;
  m->n_redo = 0;
  return publish_list(m, n);
}

// Re-publishes at once the items whose results were rejected (a worker of another build) or whose
// evaluation failed.
static int publish_redo(master* m) {
  int n = 0;
  for (int k = 0; k < m->n_items; k++) {
    if (m->redo[k] && !m->have[k]) m->idx[n++] = k;
    m->redo[k] = 0;
  }
  m->n_redo = 0;
  if (n) m->stats.republished += (uint64_t)n;
  return publish_list(m, n);
}

// ---- results ------------------------------------------------------------------------------

// The batch of the round in flight a message belongs to (whatever its fingerprint), or -1.
static int batch_of_message(const master* m, const ne__wire_results* d) {
  const ne__wire_round* r = &d->hdr.round;
  for (int s = 0; s < m->n_set; s++) {
    const ne__wire_round* rd = &m->set[s].rd;
    if (r->exp == m->exp && r->generation == rd->generation && r->round == rd->round && r->digest == rd->digest)
      return s;
  }
  return -1;
}

// Checks a decoded message against the round in flight; returns the warning kind or -1 if usable,
// with *s its batch.
static int classify(master* m, const ne__wire_results* d, int* stale, int* s) {
  const ne__wire_result_hdr* h = &d->hdr;
  *stale = 0;
  if (h->round.exp != m->exp) return W_FOREIGN;
  if (h->fingerprint != m->fingerprint) return W_BUILD;
  *s = batch_of_message(m, d);
  if (*s < 0) {
    for (int k = 0; k < m->n_set; k++)
      if (h->round.generation == m->set[k].rd.generation && h->round.round == m->set[k].rd.round) return W_BATCH;
    *stale = 1;
    return W_GENERATION;
  }
  const ne_batch* b = m->set[*s].batch;
  int want_d = b->want_obs_stats ? m->env->obs_dim : 0;
  if (h->obs_dim != want_d) return W_MALFORMED;
  if (h->bc_dim != (b->want_bc ? m->env->bc_dim : 0)) return W_MALFORMED;
  for (int i = 0; i < d->n; i++)
    if (d->index[i] >= (uint32_t)b->n) return W_MALFORMED;
  if (h->error[0] && h->failed_index >= (uint32_t)b->n) return W_MALFORMED;
  for (int i = 0; h->error[0] && i < h->n_skipped; i++)
    if (h->skipped[i] >= (uint32_t)b->n) return W_MALFORMED;
  return -1;
}

static void explain_drop(master* m, int kind, const char* entry, const ne__wire_results* d) {
  const ne__wire_result_hdr* h = &d->hdr;
  char theirs[17], ours[17];
  switch (kind) {
    case W_FOREIGN:
      ne__wire_id_format(h->round.exp, theirs);
      warn(m, kind, "dropped result entry %s from worker '%s': experiment %s is not this run's (%s)", entry, h->worker,
           theirs, m->id);
      break;
    case W_BUILD:
      ne__wire_id_format(h->fingerprint, theirs);
      ne__wire_id_format(m->fingerprint, ours);
      warn(m, kind,
           "rejected %d results from worker '%s': its build/spec fingerprint %s differs from the master's %s "
           "(another neuroevo version or a different env/policy); the candidates go to other workers",
           d->n, h->worker, theirs, ours);
      break;
    case W_GENERATION:
      warn(m, kind, "dropped result entry %s from worker '%s' for generation %u round %u (now %u round %u)", entry,
           h->worker, h->round.generation, h->round.round, m->set[0].rd.generation, m->set[0].rd.round);
      break;
    case W_BATCH:
      warn(m, kind, "dropped result entry %s from worker '%s': computed for a different batch of generation %u", entry,
           h->worker, h->round.generation);
      break;
    default:
      warn(m, kind,
           "dropped malformed result entry %s from worker '%s': bad candidate index, observation sums "
           "or behaviour characterizations",
           entry, h->worker);
  }
}

// Takes item k's result for candidate i (a whole candidate's result).
static void accept_whole(master* m, uint32_t i, const ne_result* src) {
  ne_result* dst = result_of(m, (int)i);
  const ne_batch* b = m->set[batch_of(m, (int)i)].batch;
  dst->fitness = src->fitness;
  dst->return_std = src->return_std;
  dst->episodes = src->episodes;
  dst->steps = src->steps;
  dst->status = src->status;
  dst->obs_count = src->obs_count;
  dst->pre_fitness = src->pre_fitness;  // meta-learning (NaN without an inner loop)
  if (b->want_obs_stats && dst->obs_sum && dst->obs_sumsq && src->obs_sum) {
    size_t d = (size_t)m->env->obs_dim;
    memcpy(dst->obs_sum, src->obs_sum, d * sizeof(double));
    memcpy(dst->obs_sumsq, src->obs_sumsq, d * sizeof(double));
  }
  if (b->want_bc && dst->bc && src->bc) memcpy(dst->bc, src->bc, (size_t)m->env->bc_dim * sizeof(float));
}

// A split candidate whose parts have all come in: its result from the episode returns in order
// (the local evaluator's arithmetic) and the parts' steps; a part whose parameters failed fails it.
static void finish_split(master* m, uint32_t i) {
  ne_result* dst = result_of(m, (int)i);
  dst->status = 0;
  dst->steps = 0;
  dst->obs_count = 0;
  dst->pre_fitness = NAN;  // never meta-learning: split_target does not split those
  for (int k = m->first_item[i]; k < m->first_item[i + 1]; k++) {
    if (m->part_status[k] < 0 && m->part_status[k] != NE_ERANGE && dst->status == 0) dst->status = m->part_status[k];
    dst->steps += m->part_steps[k];
  }
  if (dst->status) {  // as ne_evaluator_run reports a candidate whose parameters failed
    dst->fitness = NAN, dst->return_std = 0, dst->episodes = 0, dst->steps = 0;
    return;
  }
  ne_evaluator_summarize(m->returns + m->ret_at[i], cand_of(m, (int)i)->episodes, dst);
}

// Candidate i's result is complete: the run's partial-generation log gets it (before the master
// reads further results), so a master stopped or killed keeps it whatever becomes of Redis.
static void report(master* m, uint32_t i) {
  if (m->on_result) m->on_result(m->on_result_user, cand_of(m, (int)i), result_of(m, (int)i));
}

// Takes a result of candidate i (a whole one, or the part `part`). First one per item wins.
static void accept_result(master* m, uint32_t i, const ne_result* src, const ne__wire_part* part,
                          const double* returns) {
  int k0 = m->first_item[i], k1 = m->first_item[i + 1], split = m->item_part[k0].n > 0;
  if (!part->n) {  // a whole result: also completes a candidate this master split
    int fresh = 0;
    for (int k = k0; k < k1; k++) fresh += !m->have[k];
    if (!fresh || (split && fresh < k1 - k0)) {  // done already, or partly from parts: keep those
      m->stats.duplicates++;
      return;
    }
    accept_whole(m, i, src);
    for (int k = k0; k < k1; k++) m->have[k] = 1;
    m->n_have += k1 - k0;
    m->stats.accepted++;
    report(m, i);
    return;
  }
  int k = k0;
  while (k < k1 && !(split && m->item_part[k].first == part->first && m->item_part[k].n == part->n)) k++;
  if (k == k1) {  // a part this master did not cut (a previous master split otherwise)
    m->stats.stale++;
    return;
  }
  if (m->have[k]) {
    m->stats.duplicates++;
    return;
  }
  memcpy(m->returns + m->ret_at[i] + part->first, returns, part->n * sizeof *returns);
  m->part_steps[k] = src->steps;
  m->part_status[k] = src->status;
  m->have[k] = 1;
  m->n_have++;
  int done = 1;
  for (int j = k0; j < k1 && done; j++) done = m->have[j];
  if (done) {
    finish_split(m, i);
    m->stats.accepted++;
    report(m, i);
  }
}

// ---- env failures -------------------------------------------------------------------------

// Marks the items of candidate i that lack a result for re-publishing.
static void mark_redo(master* m, uint32_t i) {
  for (int k = m->first_item[i]; k < m->first_item[i + 1]; k++) {
    if (m->have[k] || m->redo[k]) continue;
    m->redo[k] = 1;
    m->n_redo++;
  }
}

// 1 once every item of candidate i has its result.
static int cand_done(const master* m, uint32_t i) {
  for (int k = m->first_item[i]; k < m->first_item[i + 1]; k++)
    if (!m->have[k]) return 0;
  return 1;
}

// Writes the error that stops the run: the env, the candidate (index: the round's numbering), the
// workers that failed it and the env's last message.
static void fail_run(master* m, uint32_t index, const char* error) {
  const mbatch* mb = &m->set[batch_of(m, (int)index)];
  char workers[192] = "";
  int n = 0, len = 0, first = m->n_fail_recs > FAIL_RECORDS ? m->n_fail_recs - FAIL_RECORDS : 0;
  for (int k = first; k < m->n_fail_recs; k++) {
    const struct fail_record* f = &m->fail_recs[k % FAIL_RECORDS];
    if (f->index != index || strstr(workers, f->worker)) continue;
    len += snprintf(workers + len, sizeof workers - (size_t)(len < (int)sizeof workers ? len : (int)sizeof workers - 1),
                    "%s'%s'", n++ ? ", " : "", f->worker);
    if (len >= (int)sizeof workers) break;
  }
  m->fatal = NE_EIO;
  // a long env message is cut at the end of the buffer (the worker logs it in full)
  int cut = snprintf(m->fatal_msg, sizeof m->fatal_msg,
                     "env %s failed %d times on candidate %u of generation %u round %u (worker%s %s): %s", m->env->id,
                     MAX_FAILURES, index - (uint32_t)mb->first, mb->rd.generation, mb->rd.round, n == 1 ? "" : "s",
                     workers, error);
  if (cut >= (int)sizeof m->fatal_msg) memcpy(m->fatal_msg + sizeof m->fatal_msg - 4, "...", 4);
}

// A worker reported that the env failed on a candidate of batch s (after its own retry). Each
// attempt (task entry) counts once; the candidate goes to any worker again, until MAX_FAILURES
// attempts failed.
static void note_failure(master* m, int s, const ne__wire_result_hdr* h) {
  const mbatch* mb = &m->set[s];
  uint32_t i = (uint32_t)mb->first + h->failed_index;
  int first = m->n_fail_recs > FAIL_RECORDS ? m->n_fail_recs - FAIL_RECORDS : 0;
  for (int k = first; k < m->n_fail_recs; k++) {
    const struct fail_record* f = &m->fail_recs[k % FAIL_RECORDS];
    if (f->index == i && strcmp(f->entry, h->entry) == 0) return;  // the same attempt sent twice
  }
  struct fail_record* f = &m->fail_recs[m->n_fail_recs++ % FAIL_RECORDS];
  f->index = i;
  snprintf(f->entry, sizeof f->entry, "%s", h->entry);
  snprintf(f->worker, sizeof f->worker, "%s", h->worker);
  snprintf(f->error, sizeof f->error, "%s", h->error);
  for (int k = 0; k < h->n_skipped; k++) mark_redo(m, (uint32_t)mb->first + h->skipped[k]);
  if (cand_done(m, i)) return;  // another worker's result came first
  if (++m->fails[i] >= MAX_FAILURES) {
    fail_run(m, i, h->error);
    return;
  }
  warn(m, W_INFO,
       "worker '%s' reported an env failure on candidate %u of generation %u (attempt %d of %d): %s; "
       "retrying",
       h->worker, h->failed_index, mb->rd.generation, m->fails[i], MAX_FAILURES, h->error);
  mark_redo(m, i);
}

// Validates one stream entry and takes its results. Never fails: bad entries are logged and dropped.
static void handle_entry(master* m, const char* entry, const redisReply* fields, int quiet_stale) {
  const redisReply* v = ne__reply_field(fields, "r");
  char why[NE_ERRSTR_LEN];
  if (!v || v->type != REDIS_REPLY_STRING) {
    m->stats.dropped++;
    warn(m, W_MALFORMED, "dropped malformed result entry %s: no 'r' field", entry);
    return;
  }
  if (ne__wire_decode_results(&m->dec, v->str, v->len, why) != 0) {
    m->stats.dropped++;
    warn(m, W_MALFORMED, "dropped malformed result entry %s: %s", entry, why);
    return;
  }
  int stale, s = -1, kind = classify(m, &m->dec, &stale, &s);
  if (kind >= 0) {
    if (stale) m->stats.stale++;
    else m->stats.dropped++;
    if (!(stale && quiet_stale)) explain_drop(m, kind, entry, &m->dec);
    // a rejected build's results name candidates of this round: give them to other workers now
    int current = kind == W_BUILD ? batch_of_message(m, &m->dec) : -1;
    for (int i = 0; current >= 0 && i < m->dec.n; i++)
      if (m->dec.index[i] < (uint32_t)m->set[current].batch->n)
        mark_redo(m, (uint32_t)m->set[current].first + m->dec.index[i]);
    return;
  }
  m->stats.result_bytes += v->len;
  uint32_t first = (uint32_t)m->set[s].first;
  for (int i = 0; i < m->dec.n; i++)
    accept_result(m, first + m->dec.index[i], &m->dec.results[i], &m->dec.parts[i], m->dec.returns + m->dec.ret_off[i]);
  if (m->dec.hdr.error[0]) {
    if (!m->replaying) note_failure(m, s, &m->dec.hdr);
  } else {
    int kind_s = round_kind(&m->set[s].rd);
    m->round_eval_s[kind_s] += (double)m->dec.hdr.eval_us * 1e-6;
    for (int i = 0; i < m->dec.n; i++) m->round_episodes[kind_s] += m->dec.results[i].episodes;
  }
  m->progress_at = ne__now();
}

// One XREAD from last_read (block_ms < 0: do not block). *got gets the entries read.
static int read_results(master* m, int block_ms, int* got) {
  char count[16], block[16];
  snprintf(count, sizeof count, "%d", READ_COUNT);
  snprintf(block, sizeof block, "%d", block_ms);
  redisReply* r = block_ms >= 0
      ? query(m, "XREAD COUNT %s BLOCK %s STREAMS %s %s", count, block, m->k_results, m->last_read)
      : query(m, "XREAD COUNT %s STREAMS %s %s", count, m->k_results, m->last_read);
  *got = 0;
  if (!r) return NE_ENET;
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 1 && r->element[0]->elements == 2) {
    const redisReply* entries = r->element[0]->element[1];
    for (size_t i = 0; i < entries->elements; i++) {
      const redisReply* e = entries->element[i];
      if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING) continue;
      handle_entry(m, e->element[0]->str, e->element[1], m->reread);
      snprintf(m->last_read, sizeof m->last_read, "%s", e->element[0]->str);
      (*got)++;
    }
  }
  freeReplyObject(r);
  return 0;
}

// Reads everything already in the result stream.
static int drain_results(master* m) {
  int got;
  do {
    int rc = read_results(m, -1, &got);
    if (rc) return rc;
  } while (got == READ_COUNT);
  return 0;
}

// ---- recovery -----------------------------------------------------------------------------

// Queues a fresh copy of each claimed task (XADD) and the removal of the old entry (XACK, XDEL);
// entries Redis 7 reports as deleted while pending are acknowledged so they leave the PEL.
// Returns how many tasks were re-published, or -1 when disconnected.
static int requeue(master* m, const redisReply* claimed) {
  const redisReply* entries = claimed->element[1];
  int moved = 0, rc = 0;
  for (size_t i = 0; i < entries->elements && !rc; i++) {
    const redisReply* e = entries->element[i];
    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2) continue;
    const char* id = e->element[0]->str;
    const redisReply* payload = ne__reply_field(e->element[1], "m");
    if (payload && payload->type == REDIS_REPLY_STRING) {
      const char* argv[] = {"XADD", m->k_tasks, "*", "m", payload->str};
      size_t lens[] = {4, strlen(m->k_tasks), 1, 1, payload->len};
      rc = pipe_argv(m, 5, argv, lens);
      moved++;
    }
    if (!rc) rc = pipe_cmd(m, "XACK %s %s %s", m->k_tasks, NE_GROUP, id);
    if (!rc) rc = pipe_cmd(m, "XDEL %s %s", m->k_tasks, id);
  }
  for (size_t i = 0; claimed->elements > 2 && i < claimed->element[2]->elements && !rc; i++)
    rc = pipe_cmd(m, "XACK %s %s %s", m->k_tasks, NE_GROUP, claimed->element[2]->element[i]->str);
  return rc ? -1 : moved;
}

// Re-publishes tasks held too long by workers that stopped (killed, partitioned): XAUTOCLAIM moves
// them to the master, which adds each payload again as a new entry any worker can read.
static int reclaim(master* m) {
  char cursor[48] = "0-0", idle[32];
  snprintf(idle, sizeof idle, "%.0f", m->task_timeout_s * 1000);
  for (int pass = 0; pass < 16; pass++) {
    redisReply* r = query(m, "XAUTOCLAIM %s %s master %s %s COUNT 128", m->k_tasks, NE_GROUP, idle, cursor);
    if (!r) return NE_ENET;
    int ok = r->type == REDIS_REPLY_ARRAY && r->elements >= 2;  // an error: the stream is gone (tick notices)
    if (ok) snprintf(cursor, sizeof cursor, "%s", r->element[0]->str ? r->element[0]->str : "0-0");
    int moved = ok ? requeue(m, r) : 0;
    freeReplyObject(r);
    int rc = moved < 0 ? NE_ENET : flush(m);        // XADD replies advance last_task
    if (rc == NE_EIO) return m->lost = 1, NE_ENET;  // NOGROUP & co: let recover() check the experiment
    if (rc) return rc;
    if (moved) {
      m->stats.reclaimed += (uint64_t)moved;
      warn(m, W_INFO, "re-published %d task%s idle for more than %.1fs (a worker stopped?)", moved,
           moved == 1 ? "" : "s", m->task_timeout_s);
    }
    if (!ok || strcmp(cursor, "0-0") == 0) return 0;
  }
  return 0;
}

// Nothing in flight (every task of this round delivered and acknowledged) yet results missing:
// they were lost or rejected. Re-publish the missing candidates.
static int check_stall(master* m) {
  if (!m->round_first_task[0]) return 0;
  redisReply* r = query(m, "XINFO GROUPS %s", m->k_tasks);
  if (!r) return NE_ENET;
  if (r->type == REDIS_REPLY_ERROR) {  // the stream vanished: Redis lost the experiment
    freeReplyObject(r);
    m->lost = 1;
    return NE_ENET;
  }
  char delivered[48] = "";
  for (size_t g = 0; r->type == REDIS_REPLY_ARRAY && g < r->elements; g++) {
    const redisReply* name = ne__reply_field(r->element[g], "name");
    const redisReply* last = ne__reply_field(r->element[g], "last-delivered-id");
    if (name && last && name->str && last->str && strcmp(name->str, NE_GROUP) == 0)
      snprintf(delivered, sizeof delivered, "%s", last->str);
  }
  freeReplyObject(r);
  if (!delivered[0]) return m->lost = 1, NE_ENET;                // the stream lost its group: recover() re-creates it
  if (ne__stream_id_cmp(delivered, m->last_task) < 0) return 0;  // tasks still queued
  r = query(m, "XPENDING %s %s %s + 1", m->k_tasks, NE_GROUP, m->round_first_task);
  if (!r) return NE_ENET;
  int pending = r->type == REDIS_REPLY_ARRAY && r->elements > 0, failed = r->type == REDIS_REPLY_ERROR;
  freeReplyObject(r);
  if (failed) return m->lost = 1, NE_ENET;  // the group vanished: recover() re-creates it
  if (pending) return 0;
  int rc = drain_results(m), n = 0;
  if (!rc && m->n_have < m->n_items) rc = publish_missing(m, &n);
  if (!rc && n) {
    m->stats.republished += (uint64_t)n;
    warn(m, W_INFO, "re-published %d candidate%s of generation %u round %u whose results were lost or rejected", n,
         n == 1 ? "" : "s", m->set[0].rd.generation, m->set[0].rd.round);
  }
  return rc;
}

// 1 if the experiment's description and its task group exist, 0 if not, -1 when disconnected.
static int experiment_intact(master* m) {
  redisReply* r = query(m, "EXISTS %s", m->k_meta);
  if (!r) return -1;
  int ok = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  freeReplyObject(r);
  if (!ok) return 0;
  r = query(m, "XINFO GROUPS %s", m->k_tasks);
  if (!r) return -1;
  ok = 0;
  for (size_t g = 0; r->type == REDIS_REPLY_ARRAY && g < r->elements; g++) {
    const redisReply* name = ne__reply_field(r->element[g], "name");
    ok = ok || (name && name->str && strcmp(name->str, NE_GROUP) == 0);
  }
  freeReplyObject(r);
  return ok;
}

// Reconnects (waiting for Redis as long as it takes) and re-creates the experiment if Redis lost
// it, then re-publishes the round. Returns 0, NE_EINTR or a fatal error (refused credentials).
static int recover(master* m, const volatile int* stop, char* errstr) {
  for (;;) {
    int rc = ne__rconn_wait(&m->conn, stop, 0);
    if (rc == NE_EINTR) return ne__set_error(errstr, rc, "interrupted while waiting for Redis");
    if (rc) return ne__set_error(errstr, rc, "%s", m->conn.errstr);
    m->lost = 0;
    int exists = experiment_intact(m);
    if (exists < 0) continue;
    // a broken pipeline may have lost some blob SETs: store the round's blobs again
    if (exists && m->n_set > 0 && m->round_first_task[0]) {
      m->queued = 0;
      rc = publish_blobs(m, 1);
      if (!rc) rc = flush(m);
    }
    if (exists && rc == NE_ENET) continue;
    if (exists) return rc ? ne__set_error(errstr, rc, "%s", m->conn.errstr) : 0;
    warn(m, W_INFO,
         "experiment %s vanished from Redis (restarted without persistence?) or lost its task group: "
         "re-creating it and re-publishing generation %u round %u",
         m->id, m->set[0].rd.generation, m->set[0].rd.round);
    m->stats.recoveries++;
    int adopted, n = 0;
    rc = setup_experiment(m, &adopted);
    m->round_first_task[0] = '\0';
    snprintf(m->last_task, sizeof m->last_task, "0-0");
    m->queued = 0;
    if (!rc) rc = publish_blobs(m, 1);
    if (!rc) rc = flush(m);
    if (!rc) rc = drain_results(m);
    if (!rc) rc = publish_missing(m, &n);
    if (!rc) return 0;
    if (rc != NE_ENET) return ne__set_error(errstr, rc, "re-creating the experiment: %s", m->conn.errstr);
  }
}

// Keeps the experiment's keys alive while a master works on it; abandoned ones expire.
static int keep_alive(master* m) {
  int rc = 0;
  // (the refusal hash too: workers give it KEEP_S when they write it, and an experiment that runs
  // longer must keep reporting them; EXPIRE of a missing key does nothing)
  const char* keys[] = {m->k_meta, m->k_tasks, m->k_results, m->k_workers, m->k_refused};
  for (int k = 0; k < 5 && !rc; k++) rc = pipe_cmd(m, "EXPIRE %s %d", keys[k], KEEP_S);
  return rc ? rc : flush(m);
}

// Periodic work while waiting for results.
static int tick(master* m, double now) {
  int rc = 0;
  if (now >= m->keep_at) {
    m->keep_at = now + KEEP_EVERY_S;
    rc = keep_alive(m);
  }
  if (now >= m->workers_at) {
    m->workers_at = now + WORKERS_EVERY_S;
    if (rc) return rc;
    redisReply* r = query(m, "EXISTS %s", m->k_meta);
    if (!r) return NE_ENET;
    int exists = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
    freeReplyObject(r);
    if (!exists) return m->lost = 1, NE_ENET;
    rc = refresh_workers(m);
    if (!rc) rc = check_joins(m, now);
  }
  if (!rc) rc = reclaim(m);
  if (!rc && now - m->progress_at >= TICK_S) rc = check_stall(m);
  return rc;
}

// ---- evaluate -----------------------------------------------------------------------------

// Episodes per part for split candidates of batch b: --episodes-per-task, or automatically the
// batch's episodes per live thread (a candidate with more episodes than that would be its
// straggler; with other batches in the round, the parts only get smaller than the round's share
// per thread: they start first and end early, the other batches' candidates filling in after).
// 0: no split (observation statistics and behaviour characterizations, means over the episodes,
// cannot be added up bit-identically from parts; a meta-learning candidate's episodes are tasks,
// each with its own inner loop, and its fitness is not a mean of per-episode returns).
static uint32_t split_target(const master* m, const ne_batch* b) {
  if (b->want_obs_stats || b->want_bc || m->meta || m->opt.episodes_per_task < 0) return 0;
  if (m->opt.episodes_per_task > 0) return (uint32_t)m->opt.episodes_per_task;
  if (m->stats.live_threads < 2) return 0;
  uint64_t total = 0;
  for (int i = 0; i < b->n; i++) total += b->cands[i].episodes;
  return (uint32_t)((total + (uint64_t)m->stats.live_threads - 1) / (uint64_t)m->stats.live_threads);
}

// Grows the per-candidate arrays to n candidates. 0 or NE_ENOMEM.
static int reserve_cands(master* m, int n) {
  if (n <= m->have_cap) return 0;
  ne_free(m->fails);
  ne_free(m->first_item);
  ne_free(m->ret_at);
  m->fails = ne_malloc((size_t)n);
  m->first_item = ne_malloc(((size_t)n + 1) * sizeof *m->first_item);
  m->ret_at = ne_malloc((size_t)n * sizeof *m->ret_at);
  m->have_cap = m->fails && m->first_item && m->ret_at ? n : 0;
  return m->have_cap ? 0 : NE_ENOMEM;
}

// Grows the per-item arrays to n items. 0 or NE_ENOMEM.
static int reserve_items(master* m, int n) {
  if (n <= m->cap_items) return 0;
  void** arrays[] = {(void**)&m->item_cand, (void**)&m->item_part,  (void**)&m->have,
                     (void**)&m->redo,      (void**)&m->part_steps, (void**)&m->part_status,
                     (void**)&m->idx,       (void**)&m->task_cands, (void**)&m->task_parts};
  size_t sizes[] = {sizeof(int), sizeof(ne__wire_part), 1, 1, sizeof(uint64_t), sizeof(int), sizeof(int),
                    sizeof(int), sizeof(ne__wire_part)};
  int ok = 1;
  for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++) {
    ne_free(*arrays[a]);
    *arrays[a] = ne_malloc((size_t)n * sizes[a]);
    ok = ok && *arrays[a];
  }
  m->cap_items = ok ? n : 0;
  return ok ? 0 : NE_ENOMEM;
}

// Parts of a candidate of e episodes split into parts of about target episodes (0: no split).
static uint32_t n_parts(uint32_t e, uint32_t target) { return target && e > target ? (e + target - 1) / target : 1; }

// The round's items: each candidate whole, or its episodes in parts of about its batch's target.
static int make_items(master* m) {
  uint32_t target[NE_EXECUTOR_MAX_BATCHES];
  int n_items = 0;
  size_t n_returns = 0;
  for (int s = 0; s < m->n_set; s++) {
    const ne_batch* b = m->set[s].batch;
    target[s] = split_target(m, b);
    for (int i = 0; i < b->n; i++) {
      uint32_t e = b->cands[i].episodes, parts = n_parts(e, target[s]);
      n_items += (int)parts;
      if (parts > 1) n_returns += e;
    }
  }
  if (reserve_items(m, n_items)) return NE_ENOMEM;
  if (n_returns > m->cap_returns) {
    ne_free(m->returns);
    m->returns = ne_malloc(n_returns * sizeof *m->returns);
    m->cap_returns = m->returns ? n_returns : 0;
    if (!m->returns) return NE_ENOMEM;
  }
  int k = 0;
  size_t at = 0;
  for (int i = 0; i < m->n_cands; i++) {
    int s = batch_of(m, i);
    uint32_t e = cand_of(m, i)->episodes, parts = n_parts(e, target[s]);
    m->first_item[i] = k;
    m->ret_at[i] = at;
    // contiguous ranges of nearly equal length (the first e % parts one episode longer)
    for (uint32_t p = 0, first = 0; p < parts; p++) {
      uint32_t len = e / parts + (p < e % parts);
      m->item_cand[k] = i;
      m->item_part[k] = parts > 1 ? (ne__wire_part){first, len} : (ne__wire_part){0, 0};
      first += len;
      k++;
    }
    if (parts > 1) at += e, m->stats.split += parts;
  }
  m->first_item[m->n_cands] = k;
  m->n_items = k;
  return 0;
}

// The round's batches, their identities and numbering, its items; every result marked missing but
// those the caller has (have[s][i] set: results[s][i] kept as given; have or have[s] NULL: none).
static int begin_round(master* m, int n, const ne_batch* const* batches, const uint8_t* const* have,
                       ne_result* const* results) {
  size_t d = (size_t)m->env->obs_dim;
  m->n_set = n;
  m->n_cands = 0;
  for (int s = 0; s < n; s++) {
    const ne_batch* b = batches[s];
    mbatch* mb = &m->set[s];
    mb->batch = b;
    mb->results = results[s];
    mb->first = m->n_cands;
    mb->norm_hash[0] = b->obs_mean ? ne_hash_floats(b->obs_mean, d) : 0;
    mb->norm_hash[1] = b->obs_std ? ne_hash_floats(b->obs_std, d) : 0;
    mb->rd = (ne__wire_round){m->exp, b->generation, b->round, ne_batch_digest(b, mb->norm_hash, (int)d)};
    m->n_cands += b->n;
  }
  if (reserve_cands(m, m->n_cands) || make_items(m)) return NE_ENOMEM;
  memset(m->have, 0, (size_t)m->n_items);
  memset(m->redo, 0, (size_t)m->n_items);
  memset(m->fails, 0, (size_t)m->n_cands);
  m->n_fail_recs = 0;
  m->fatal = 0;
  memset(m->round_eval_s, 0, sizeof m->round_eval_s);
  memset(m->round_episodes, 0, sizeof m->round_episodes);
  m->n_redo = 0;
  m->n_have = 0;
  for (int s = 0; s < n; s++) {
    const uint8_t* kept = have ? have[s] : NULL;
    for (int i = 0; i < batches[s]->n; i++) {
      int c = m->set[s].first + i;
      if (kept && kept[i]) {
        for (int k = m->first_item[c]; k < m->first_item[c + 1]; k++) m->have[k] = 1, m->n_have++;
        continue;
      }
      results[s][i].status = NE_ESTATE;
      results[s][i].fitness = NAN;
    }
  }
  return 0;
}

// Stores blobs, takes results already in Redis, publishes the rest. NE_ENET means "recover".
static int start_round(master* m) {
  int rc = 0, n = 0;
  if (!m->conn.c && ne__rconn_ensure(&m->conn)) return m->lost = 1, NE_ENET;
  m->queued = 0;
  // a round of several batches belongs to the generation of its first (the next generation's
  // candidates asked ahead use no blob of this one's and their results stay until the round ends)
  if (!m->in_generation || m->set[0].rd.generation != m->gen) rc = start_generation(m);
  m->in_generation = 1;
  m->gen = m->set[0].rd.generation;
  m->round_first_task[0] = '\0';
  // tasks of earlier rounds are obsolete (their rounds completed): trim them with this round's bookkeeping
  if (!rc && strcmp(m->last_task, "0-0") != 0) {
    char min[48];
    id_after(m->last_task, min, sizeof min);
    rc = pipe_cmd(m, "XTRIM %s MINID %s", m->k_tasks, min);
  }
  if (!rc) rc = publish_blobs(m, 0);
  // the bookkeeping above travels with the tasks (one round trip) unless results must be read first
  if (!rc && (m->reread || m->stats.live_threads == 0)) rc = flush(m);
  if (!rc && m->reread) {
    snprintf(m->last_read, sizeof m->last_read, "0-0");
    uint64_t before = m->stats.accepted;
    m->replaying = 1;  // a failed run that is resumed must get fresh attempts
    rc = drain_results(m);
    m->replaying = 0;
    uint64_t reused = m->stats.accepted - before;
    m->stats.reused += reused;
    if (reused)
      warn(m, W_INFO, "reused %llu results of generation %u round %u already in Redis", (unsigned long long)reused,
           m->set[0].rd.generation, m->set[0].rd.round);
  }
  if (!rc && m->stats.live_threads == 0) rc = refresh_workers(m);
  if (!rc) rc = publish_missing(m, &n);
  return rc;
}

// Before the first round: waits for opt.min_workers workers (a cluster's nodes, each a relay or a
// worker: chunks are sized from the live threads, and a round sized from the first node to join
// hands it most of the round), at most join_timeout_s, then starts with those there are. Before any
// round with no live worker known (a new experiment: workers that were waiting join it within a
// heartbeat or two, relays once their node's workers have): waits up to WAIT_WORKERS_S for one,
// since a round sized for two threads hands a quarter of itself to the first worker that claims
// (250 Atari candidates, 12 minutes, in one task).
static void wait_for_workers(master* m, const volatile int* stop) {
  int want = !m->gathered && m->opt.min_workers > 1 ? m->opt.min_workers : 1;
  m->gathered = 1;
  if (m->stats.live_workers >= want || m->lost) return;
  double now = ne__now(), until = now + (want > 1 ? m->join_timeout_s : WAIT_WORKERS_S), note_at = now + WAIT_NOTE_S;
  while (!(stop && *stop)) {
    if (refresh_workers(m) || m->stats.live_workers >= want || (now = ne__now()) >= until) break;
    if (want > 1 && note_at > 0 && now >= note_at) {
      note_at = 0;
      warn(m, W_INFO, "waiting for workers: %d of the %d asked for (--min-workers) have joined experiment %s",
           m->stats.live_workers, want, m->id);
    }
    ne__sleep_s(0.05);
  }
  if (want > 1 && m->stats.live_workers < want && !m->lost && !(stop && *stop))
    warn(m, W_INFO, "starting with %d of the %d workers asked for (--min-workers): no more joined in %.0f s",
         m->stats.live_workers, want, m->join_timeout_s);
}

static int master_evaluate_many(ne_executor* ex, int n, const ne_batch* const* batches, const uint8_t* const* have,
                                ne_result* const* results, const volatile int* stop, char* errstr) {
  master* m = ex->impl;
  wait_for_workers(m, stop);
  if (begin_round(m, n, batches, have, results))
    return ne__set_error(errstr, NE_ENOMEM, "out of memory for %d results", m->n_cands);
  m->stats.together += n > 1;
  m->progress_at = m->tick_at = ne__now();
  int rc = m->lost ? NE_ENET : start_round(m);
  while (rc == 0 || rc == NE_ENET) {
    if (rc == NE_ENET) {
      rc = recover(m, stop, errstr);
      if (rc) return rc;
      if (!m->round_first_task[0] && (rc = start_round(m)) != 0) continue;
    }
    if (m->n_have == m->n_items) break;
    if (stop && *stop) return ne__set_error(errstr, NE_EINTR, "interrupted");
    int got;
    rc = read_results(m, BLOCK_MS, &got);
    if (!rc && m->fatal) return ne__set_error(errstr, m->fatal, "%s", m->fatal_msg);
    if (!rc && m->n_redo) rc = publish_redo(m);
    double now = ne__now();
    if (!rc && now >= m->tick_at) {
      m->tick_at = now + TICK_S;
      rc = tick(m, now);
      if (!rc && m->fatal) return ne__set_error(errstr, m->fatal, "%s", m->fatal_msg);  // nobody can join
    }
  }
  if (rc) return ne__set_error(errstr, rc, "%s", m->conn.errstr);
  m->stats.done_at = ne__now();
  snprintf(m->consumed, sizeof m->consumed, "%s", m->last_read);
  // what an episode of each kind of round costs sizes the next rounds' chunks
  for (int k = 0; k < N_ROUND_KINDS; k++)
    if (m->round_episodes[k]) m->est_s[k] = m->round_eval_s[k] / (double)m->round_episodes[k];
  return 0;
}

static int master_evaluate(ne_executor* ex, const ne_batch* batch, ne_result* results, const volatile int* stop,
                           char* errstr) {
  return master_evaluate_many(ex, 1, &batch, NULL, &results, stop, errstr);
}

static int master_set_result_hook(ne_executor* ex, ne_result_hook hook, void* user) {
  master* m = ex->impl;
  m->on_result = hook;
  m->on_result_user = user;
  return 0;
}

static void master_describe(ne_executor* ex, char* buf, int size) {
  master* m = ex->impl;
  int w = m->stats.live_workers;
  int n = snprintf(buf, (size_t)size, "redis %d worker%s/%d thr", w, w == 1 ? "" : "s", m->stats.live_threads);
  if (m->stats.dropped && n < size)
    snprintf(buf + n, (size_t)(size - n), ", %llu dropped", (unsigned long long)m->stats.dropped);
}

// A master that leaves without finishing its run (stopped, failed): `status` says "stopped"
// instead of waiting for the heartbeat to age into "gone". Only on a live connection, and only
// while the description exists (writing it would re-create it without its expiry).
static void mark_stopped(master* m) {
  if (m->finished || !m->conn.c) return;
  redisReply* r = ne__rconn_command(&m->conn, "EXISTS %s", m->k_meta);
  if (r && r->type == REDIS_REPLY_INTEGER && r->integer == 1)
    ne__reply_free(ne__rconn_command(&m->conn, "HSET %s status stopped", m->k_meta));
  ne__reply_free(r);
}

static void master_destroy(ne_executor* ex) {
  master* m = ex->impl;
  if (m) {
    ne__beat_stop(m->beat);
    mark_stopped(m);
    const ne_cluster_master_stats* st = &m->stats;
    if (!m->opt.quiet &&
        (st->dropped || st->reclaimed || st->republished || st->recoveries || st->split || st->together))
      fprintf(stderr,
              "neuroevo: master: %llu results accepted, %llu duplicates, %llu stale, %llu dropped; %llu tasks "
              "re-claimed, %llu candidates or parts re-published, %llu recoveries; %llu parts of candidates whose "
              "episodes were split over tasks; %llu rounds of several batches\n",
              (unsigned long long)st->accepted, (unsigned long long)st->duplicates, (unsigned long long)st->stale,
              (unsigned long long)st->dropped, (unsigned long long)st->reclaimed, (unsigned long long)st->republished,
              (unsigned long long)st->recoveries, (unsigned long long)st->split, (unsigned long long)st->together);
    ne__rconn_close(&m->conn);
    ne_env_spec_destroy(m->env);
    ne_free(m->config_text);
    ne_free(m->have);
    ne_free(m->redo);
    ne_free(m->fails);
    ne_free(m->idx);
    ne_free(m->item_cand);
    ne_free(m->item_part);
    ne_free(m->first_item);
    ne_free(m->part_steps);
    ne_free(m->part_status);
    ne_free(m->returns);
    ne_free(m->ret_at);
    ne_free(m->task_cands);
    ne_free(m->task_parts);
    ne_free(m->blobs);
    ne__buf_free(&m->enc);
    ne__wire_results_free(&m->dec);
    ne_free(m);
  }
  ne_free(ex);
}

static const ne_executor_vt master_vt = {.name = "redis",
                                         .evaluate = master_evaluate,
                                         .describe = master_describe,
                                         .destroy = master_destroy,
                                         .set_result_hook = master_set_result_hook,
                                         .evaluate_many = master_evaluate_many};

// ---- creation -----------------------------------------------------------------------------

// Parses the URL, applies the credentials rule and connects.
static int connect_master(master* m, const char* url, char* errstr) {
  ne__redis_url u;
  int rc = ne__redis_url_parse(url, &u, errstr);
  if (!rc) rc = ne__redis_url_check_auth(&u, "the master", errstr);
  if (rc) return rc;
  rc = ne__rconn_open(&m->conn, &u, 2.0);
  return rc ? ne__set_error(errstr, rc, "%s", m->conn.errstr) : 0;
}

// Env, policy, fingerprint, config text, experiment id and key names.
static int prepare(master* m, const ne_config* cfg, char* errstr) {
  int rc = ne_env_from_config(cfg, &m->env, errstr);
  if (!rc) rc = ne_policy_from_config(cfg, m->env, &m->policy, errstr);
  if (rc) return rc;
  m->fingerprint = ne__wire_fingerprint(m->env, &m->policy, m->opt.synthetic);
  m->meta = ne_config_int(cfg, "meta", "tasks") > 0;
  m->config_text = ne_config_format(cfg);
  if (!m->config_text) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  if (m->opt.experiment_id) {
    if (ne__wire_id_parse(m->opt.experiment_id, &m->exp))
      return ne__set_error(errstr, NE_EINVAL, "experiment id '%s': expected 16 hex digits", m->opt.experiment_id);
  } else {
    m->exp = ne__random_u64();
  }
  ne__wire_id_format(m->exp, m->id);
  ne__key_exp(m->k_meta, m->id, "meta");
  ne__key_exp(m->k_tasks, m->id, "tasks");
  ne__key_exp(m->k_results, m->id, "results");
  ne__key_exp(m->k_workers, m->id, "workers");
  ne__key_exp(m->k_refused, m->id, "refused");
  snprintf(m->last_task, sizeof m->last_task, "0-0");
  return 0;
}

int ne_cluster_master_create(const ne_config* cfg, const ne_cluster_master_options* opt, ne_executor** out,
                             char* errstr) {
  *out = NULL;
  if (!opt || !opt->url) return ne__set_error(errstr, NE_EINVAL, "no Redis URL");
  ne_executor* ex = ne_calloc(1, sizeof *ex);
  master* m = ne_calloc(1, sizeof *m);
  if (!ex || !m) {
    ne_free(ex);
    ne_free(m);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  }
  ex->vt = &master_vt;
  ex->impl = m;
  m->opt = *opt;
  m->opt.url = NULL;
  m->opt.experiment_id = NULL;
  snprintf(m->name, sizeof m->name, "%s", opt->name ? opt->name : "run");
  m->task_timeout_s = opt->task_timeout_s > 0 ? opt->task_timeout_s : 10;
  m->join_timeout_s = opt->join_timeout_s > 0 ? opt->join_timeout_s : JOIN_TIMEOUT_S;
  m->opt.experiment_id = opt->experiment_id;
  int rc = prepare(m, cfg, errstr);
  m->opt.experiment_id = NULL;
  if (!rc) rc = connect_master(m, opt->url, errstr);
  int adopted = 0;
  if (!rc && setup_experiment(m, &adopted) != 0) rc = ne__set_error(errstr, NE_ENET, "%s", m->conn.errstr);
  if (!rc && ne__beat_start(&m->conn.url, m->k_meta, BEAT_S, &m->beat) != 0)
    rc = ne__set_error(errstr, NE_ENOMEM, "cannot start the master's heartbeat thread");
  if (rc) {
    master_destroy(ex);
    return rc;
  }
  if (adopted) warn(m, W_INFO, "continuing experiment %s already in Redis", m->id);
  *out = ex;
  return 0;
}

const char* ne_cluster_master_id(const ne_executor* ex) { return ((const master*)ex->impl)->id; }

void ne_cluster_master_get_stats(const ne_executor* ex, ne_cluster_master_stats* out) {
  *out = ((const master*)ex->impl)->stats;
}

int ne_cluster_master_finish(ne_executor* ex, char* errstr) {
  master* m = ex->impl;
  int rc = cmd(m, "HSET %s status done", m->k_meta);
  if (!rc) rc = cmd(m, "DEL %s %s %s %s", m->k_tasks, m->k_results, m->k_workers, m->k_refused);
  for (int i = 0; !rc && i < m->n_blobs; i++) {
    char key[NE_KEY_LEN];
    blob_key(m, m->blobs[i], key);
    rc = cmd(m, "DEL %s", key);
  }
  if (!rc) rc = cmd(m, "EXPIRE %s %d", m->k_meta, BLOB_TTL_S);
  m->n_blobs = 0;
  m->finished = rc == 0;
  return rc ? ne__set_error(errstr, rc, "%s", m->conn.errstr) : 0;
}
