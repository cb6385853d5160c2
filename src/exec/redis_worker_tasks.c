// SPDX-License-Identifier: MIT
// The worker's task pipeline (redis_worker_int.h): one reader thread claims tasks for the whole
// process with XREADGROUP (one consumer, one blocked client per process, however many threads), the
// evaluation threads take the claimed tasks from the process's slots, and one writer thread sends
// each task's results together with its acknowledgement (MULTI / XADD / XACK / EXEC, several tasks
// per round trip), so a task is never acknowledged without its result. The reader keeps one claimed
// task waiting per thread, so a thread that finishes starts its next task at once instead of after
// a claim's round trip (on 10 ms generations those round trips were the distributed path's cost);
// the price is at most one task per thread held here at a round's end while another worker idles.
// A worker of one thread has no reader or writer: its evaluation thread claims and answers itself
// through the same slots and connections (direct_main), since a hand-off between threads costs more
// than it hides there.
// An env that fails (gym bridge server that crashed twice) is reported to the master as a failure
// result naming the env, the candidate and this worker; the master decides whether to retry.
#include <inttypes.h>  // PRIu64
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "exec/redis_scripts.h"
#include "exec/redis_worker_int.h"
#include "exec/simulate.h"
#include "neuroevo/alloc.h"

// XREADGROUP block (leaving cuts it short with CLIENT UNBLOCK): thousands of idle workers
// re-issuing their claim 5 times a second loaded Redis
#define READ_BLOCK_MS 2000
#define WAIT_MS 100         // condition waits: how often threads look at the leave flag
#define SLOTS_PER_THREAD 3  // a task running, one claimed ahead, one whose results await the writer
#define FLUSH_TRIES 3       // attempts to send the last results when leaving with Redis away
#define RESEND 1            // send_answers: Redis forgot the answer script (restarted): send again

// Waits on cv for at most WAIT_MS (mu held).
static void timed_wait(pthread_cond_t* cv, pthread_mutex_t* mu) { ne__cond_wait_ms(cv, mu, WAIT_MS); }

// ---- blob cache ---------------------------------------------------------------------------

// Frees entries nobody uses that are two generations old.
static void blob_evict(ne__experiment* ex, uint32_t gen) {
  int k = 0;
  for (int i = 0; i < ex->n_blobs; i++) {
    ne__blob_entry* e = ex->blobs[i];
    if (e->refs == 0 && e->gen + 1 < gen) {
      ne_free(e->data);
      ne_free(e);
    } else {
      ex->blobs[k++] = e;
    }
  }
  ex->n_blobs = k;
}

// Fetches and decodes one blob through ex->blob_conn. Returns the new entry or NULL with why.
static ne__blob_entry* blob_fetch(ne__experiment* ex, const ne__wire_blobref* ref, char* why) {
  char key[NE_KEY_LEN], suffix[32], hex[17];
  ne__wire_id_format(ref->hash, hex);
  snprintf(suffix, sizeof suffix, "blob:%s", hex);
  ne__key_exp(key, ex->id, suffix);
  redisReply* r = ne__rconn_command(&ex->blob_conn, "GET %s", key);
  if (!r || r->type != REDIS_REPLY_STRING) {
    snprintf(why, NE_ERRSTR_LEN, "blob %s: %.200s", hex, r ? "not in Redis" : ex->blob_conn.errstr);
    if (r) freeReplyObject(r);
    return NULL;
  }
  ne__blob_entry* e = ne_calloc(1, sizeof *e);
  float* data = ne_malloc((size_t)ref->n * sizeof(float));
  int rc = e && data ? ne__wire_decode_blob(r->str, r->len, ref->hash, ref->n, data, why) : NE_ENOMEM;
  freeReplyObject(r);
  if (rc) {
    if (rc == NE_ENOMEM) snprintf(why, NE_ERRSTR_LEN, "out of memory for blob %s (%u floats)", hex, ref->n);
    ne_free(e);
    ne_free(data);
    return NULL;
  }
  *e = (ne__blob_entry){ref->hash, ref->n, data, 0, 0};
  return e;
}

// A blob for a task of generation gen, from the cache or fetched once; caller releases it.
static ne__blob_entry* blob_acquire(ne__experiment* ex, const ne__wire_blobref* ref, uint32_t gen, char* why) {
  pthread_mutex_lock(&ex->blob_mu);
  ne__blob_entry* e = NULL;
  for (int i = 0; i < ex->n_blobs && !e; i++)
    if (ex->blobs[i]->hash == ref->hash && ex->blobs[i]->n == ref->n) e = ex->blobs[i];
  if (!e) {
    blob_evict(ex, gen);
    if (ex->n_blobs == ex->cap_blobs) {
      int cap = ex->cap_blobs ? 2 * ex->cap_blobs : 16;
      ne__blob_entry** grown = ne_realloc(ex->blobs, (size_t)cap * sizeof *grown);
      if (grown) ex->blobs = grown, ex->cap_blobs = cap;
    }
    if (ex->n_blobs < ex->cap_blobs && (e = blob_fetch(ex, ref, why)) != NULL) ex->blobs[ex->n_blobs++] = e;
    else if (ex->n_blobs == ex->cap_blobs) snprintf(why, NE_ERRSTR_LEN, "out of memory");
  }
  if (e) {
    e->refs++;
    if (gen > e->gen) e->gen = gen;
  }
  pthread_mutex_unlock(&ex->blob_mu);
  return e;
}

static void blob_release(ne__experiment* ex, ne__blob_entry* e) {
  if (!e) return;
  pthread_mutex_lock(&ex->blob_mu);
  e->refs--;
  pthread_mutex_unlock(&ex->blob_mu);
}

void ne__worker_blobs_free(ne__experiment* ex) {
  for (int i = 0; i < ex->n_blobs; i++) {
    ne_free(ex->blobs[i]->data);
    ne_free(ex->blobs[i]);
  }
  ne_free(ex->blobs);
  ex->blobs = NULL;
  ex->n_blobs = ex->cap_blobs = 0;
  ne__rconn_close(&ex->blob_conn);
}

// ---- one task -----------------------------------------------------------------------------

// Grows the thread's result and blob buffers for the task in hand.
static int reserve_thread(ne__wthread* th, int n, int n_blobs, int obs_dim, int bc_dim, size_t part_episodes) {
  if (n > th->cap) {
    ne_free(th->res);
    ne_free(th->idx);
    ne_free(th->parts);
    ne_free(th->obs);
    ne_free(th->bc);
    th->res = ne_calloc((size_t)n, sizeof *th->res);
    th->idx = ne_calloc((size_t)n, sizeof *th->idx);
    th->parts = ne_calloc((size_t)n, sizeof *th->parts);
    th->obs = ne_calloc((size_t)n * 2 * (size_t)(obs_dim > 0 ? obs_dim : 1), sizeof(double));
    th->bc = ne_calloc((size_t)n * (size_t)(bc_dim > 0 ? bc_dim : 1), sizeof(float));
    th->cap = th->res && th->idx && th->parts && th->obs && th->bc ? n : 0;
    if (!th->cap) return NE_ENOMEM;
  }
  if (part_episodes > th->cap_returns) {
    ne_free(th->returns);
    th->returns = ne_malloc(part_episodes * sizeof *th->returns);
    th->cap_returns = th->returns ? part_episodes : 0;
    if (!th->returns) return NE_ENOMEM;
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
static int check_task(const ne__wthread* th, char* why) {
  const ne__wire_task* t = &th->task;
  const ne__experiment* ex = th->ex;
  char theirs[17];
  ne__wire_id_format(t->round.exp, theirs);
  if (t->round.exp != ex->exp)
    return ne__set_error(why, NE_EINVAL, "task of experiment %s, not the followed %s", theirs, ex->id);
  if (t->has_norm && t->norm[0].n != (uint32_t)ex->env->obs_dim)
    return ne__set_error(why, NE_EINVAL, "normalization vectors of %u floats for %d observations", t->norm[0].n,
                         ex->env->obs_dim);
  // a worker whose config gives another table would compute other perturbations (size 0: the
  // generator); synthetic results use no perturbation
  if (th->w->opt.synthetic) return 0;
  uint64_t seed = ex->noise ? ex->noise->seed : 0, size = ex->noise ? ex->noise->size : 0;
  if (t->table_size != size || t->table_seed != seed)
    return ne__set_error(why, NE_EINVAL,
                         "task perturbs with noise table %016" PRIx64 " of %" PRIu64
                         " floats, this worker built "
                         "%016" PRIx64 " of %" PRIu64 " floats from the experiment's config (0 floats: the generator)",
                         t->table_seed, t->table_size, seed, size);
  for (int k = 0; k < t->n_blobs; k++)
    if (t->blobs[k].n != ex->policy.n_params)
      return ne__set_error(why, NE_EINVAL, "blob of %u floats for a policy of %zu parameters", t->blobs[k].n,
                           ex->policy.n_params);
  return 0;
}

// Takes the task's blobs from the cache into th->blobs / th->held; NULL entries on failure.
static int hold_blobs(ne__wthread* th, char* why) {
  const ne__wire_task* t = &th->task;
  int n_held = t->n_blobs + (t->has_norm ? 2 : 0);
  memset(th->held, 0, (size_t)n_held * sizeof *th->held);
  for (int k = 0; k < t->n_blobs; k++) {
    th->held[k] = blob_acquire(th->ex, &t->blobs[k], t->round.generation, why);
    if (!th->held[k]) return NE_ENOTFOUND;
    th->blobs[k] = (ne_blob){t->blobs[k].hash, t->blobs[k].n, th->held[k]->data};
  }
  for (int k = 0; t->has_norm && k < 2; k++) {
    th->held[t->n_blobs + k] = blob_acquire(th->ex, &t->norm[k], t->round.generation, why);
    if (!th->held[t->n_blobs + k]) return NE_ENOTFOUND;
  }
  return 0;
}

static void release_blobs(ne__wthread* th) {
  int n_held = th->task.n_blobs + (th->task.has_norm ? 2 : 0);
  for (int k = 0; k < n_held; k++) blob_release(th->ex, th->held[k]);
}

// Evaluates the candidates of the decoded task into th->res in order: runs of whole candidates
// through ne_evaluator_run_many (single-episode small-MLP candidates in lockstep, as the local
// executor runs them; the same results), parts of candidates one at a time. Returns how many were
// evaluated: t->n, or the position of the first env failure (an env server that crashed twice, gym
// bridge) with its message in why.
static int evaluate_task(ne__wthread* th, char* why) {
  const ne__wire_task* t = &th->task;
  int d = th->ex->env->obs_dim, bd = th->ex->env->bc_dim;
  int want_bc = t->want_bc && bd > 0;
  ne_batch b = {t->round.generation, t->round.round, t->n, t->cands,    t->n_blobs,    th->blobs,
                t->want_obs_stats,   NULL,           NULL, t->obs_clip, th->ex->noise, want_bc};
  if (t->has_norm) {
    b.obs_mean = th->held[t->n_blobs]->data;
    b.obs_std = th->held[t->n_blobs + 1]->data;
  }
  for (int j = 0; j < t->n; j++) {
    ne_result* r = &th->res[j];
    memset(r, 0, sizeof *r);
    r->obs_sum = t->want_obs_stats ? th->obs + (size_t)j * 2 * (size_t)d : NULL;
    r->obs_sumsq = t->want_obs_stats ? r->obs_sum + d : NULL;
    r->bc = want_bc ? th->bc + (size_t)j * (size_t)bd : NULL;
    th->idx[j] = t->cands[j].index;
    th->parts[j] = t->parts[j];
  }
  double* returns = th->returns;  // the parts' per-episode returns, back to back
  for (int j = 0; j < t->n;) {
    ne_result* r = &th->res[j];
    const ne__wire_part* part = &t->parts[j];
    if (th->w->delay_s > 0) ne__sleep_s(th->w->delay_s);  // test hook: machine-independent run lengths
    if (th->w->opt.synthetic) {
      if (th->w->opt.simulate_s > 0)
        ne__sleep_s(ne__simulated_episodes_s(&t->cands[j], part->n ? part->first : 0, t->cands[j].episodes,
                                             th->w->opt.simulate_s, th->w->opt.simulate_jitter));
      ne__synthetic_result(&t->cands[j], r);
      if (r->bc) memset(r->bc, 0, (size_t)bd * sizeof(float));         // a fixed behaviour: the origin
      for (uint32_t e = 0; e < part->n; e++) returns[e] = r->fitness;  // every episode returns the fitness
      returns += part->n;
      j++;
      continue;
    }
    int done = 1;
    if (part->n) {
      ne_evaluator_run_episodes(th->ev, &b, &t->cands[j], part->first, part->n, returns, r);
      returns += part->n;
    } else {
      int whole = 1;  // the whole candidates from j on (one at a time under the delay hook)
      while (th->w->delay_s <= 0 && j + whole < t->n && !t->parts[j + whole].n) whole++;
      done = ne_evaluator_run_many(th->ev, &b, &t->cands[j], whole, r);
    }
    // set only when the last candidate's env failed (run_many's lockstep runs in-process envs only)
    const char* env_error = ne_evaluator_env_error(th->ev);
    if (env_error) {
      snprintf(why, NE_ERRSTR_LEN, "%s", env_error);
      return j;
    }
    j += done;
  }
  return t->n;
}

// Encodes the results of the task in s (a failure report when done < n). Returns the slot's next state.
static ne__slot_state answer_task(ne__wthread* th, ne__slot* s, int done, double eval_s, const char* why) {
  const ne__wire_task* t = &th->task;
  ne__wire_result_hdr h;
  memset(&h, 0, sizeof h);
  snprintf(h.worker, sizeof h.worker, "%s", th->w->name);
  h.round = t->round;
  h.task_no = t->task_no;
  h.fingerprint = th->ex->fingerprint;
  h.obs_dim = t->want_obs_stats ? th->ex->env->obs_dim : 0;
  h.bc_dim = t->want_bc ? th->ex->env->bc_dim : 0;
  h.eval_us = (uint64_t)(eval_s * 1e6);
  if (done < t->n) {
    // the failed candidate first, then the ones not attempted (their indices follow in th->idx)
    snprintf(h.error, sizeof h.error, "%s", why);
    snprintf(h.entry, sizeof h.entry, "%s", s->id);
    h.failed_index = t->cands[done].index;
    for (int j = done + 1; j < t->n; j++) th->idx[j] = t->cands[j].index;
    h.n_skipped = t->n - done - 1;
    h.skipped = th->idx + done + 1;
  }
  int rc = ne__wire_encode_results_parts(&s->out, &h, th->idx, th->res, th->parts, th->returns, done);
  if (rc) {
    ne__worker_say(th->w, "task %s: results not encoded (%s); it will be re-claimed", s->id, ne_strerror(rc));
    return NE_SLOT_FREE;
  }
  s->n_results = done;
  return NE_SLOT_DONE;
}

// Decodes and evaluates the task in s. Returns the slot's next state: DONE (answer it), DROP
// (garbage: acknowledge and delete it) or FREE (leave it unacknowledged for re-claim).
static ne__slot_state process_task(ne__wthread* th, ne__slot* s) {
  ne__worker* w = th->w;
  char why[NE_ERRSTR_LEN];
  if (!s->payload.len) return NE_SLOT_DROP;  // the reader found no payload and said so
  int rc = ne__wire_decode_task(&th->task, s->payload.data, s->payload.len, why);
  if (!rc) rc = check_task(th, why);
  if (rc == NE_ENOMEM) {
    ne__worker_say(w, "task %s: %s; leaving it for another worker", s->id, why);
    return NE_SLOT_FREE;
  }
  if (rc) {
    ne__worker_say(w, "dropped %s task %s: %s", rc == NE_EVERSION ? "incompatible" : "malformed", s->id, why);
    return NE_SLOT_DROP;
  }
  size_t part_episodes = 0;
  for (int j = 0; j < th->task.n; j++) part_episodes += th->task.parts[j].n;
  if (reserve_thread(th, th->task.n, th->task.n_blobs, th->ex->env->obs_dim, th->ex->env->bc_dim, part_episodes) != 0) {
    ne__worker_say(w, "task %s: out of memory for %d results; leaving it for another worker", s->id, th->task.n);
    return NE_SLOT_FREE;
  }
  // a blob missing (Redis restarted, generation over) leaves the task unacknowledged: it is re-claimed
  if (hold_blobs(th, why) != 0) {
    release_blobs(th);
    ne__worker_say(w, "task %s: %s; leaving it for re-claim", s->id, why);
    ne__sleep_s(0.2);
    return NE_SLOT_FREE;
  }
  double t0 = ne__now();
  int done = evaluate_task(th, why);
  release_blobs(th);
  if (done < th->task.n) {
    ne__worker_say(w, "task %s: env failure on candidate %u of generation %u: %s; reported to the master", s->id,
                   th->task.cands[done].index, th->task.round.generation, why);
    pthread_mutex_lock(&w->mu);
    w->env_failures++;
    pthread_mutex_unlock(&w->mu);
  }
  return answer_task(th, s, done, ne__now() - t0, why);
}

// ---- evaluation threads -------------------------------------------------------------------

// The oldest queued slot, or NULL (mu held).
static ne__slot* oldest_queued(ne__worker* w) {
  ne__slot* best = NULL;
  for (int i = 0; i < w->n_slots; i++)
    if (w->slots[i].state == NE_SLOT_QUEUED && (!best || w->slots[i].seq < best->seq)) best = &w->slots[i];
  return best;
}

static void* eval_main(void* arg) {
  ne__wthread* th = arg;
  ne__worker* w = th->w;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    ne__slot* s = oldest_queued(w);
    if (!s) {
      if (w->reader_exited) break;  // nothing more will come
      timed_wait(&w->task_cv, &w->mu);
      continue;
    }
    s->state = NE_SLOT_RUNNING;
    pthread_cond_signal(&w->slot_cv);  // the reader claims this thread's next task meanwhile
    pthread_mutex_unlock(&w->mu);
    ne__slot_state next = process_task(th, s);
    pthread_mutex_lock(&w->mu);
    s->state = next;
    if (next == NE_SLOT_FREE) pthread_cond_signal(&w->slot_cv);
    else pthread_cond_signal(&w->send_cv);
  }
  w->evals_running--;
  pthread_cond_broadcast(&w->send_cv);
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

// ---- the reader ---------------------------------------------------------------------------

// How many tasks the reader may claim now: one waiting per thread, within free slots (mu held).
static int claimable(const ne__worker* w) {
  int queued = 0, free_slots = 0;
  for (int i = 0; i < w->n_slots; i++) {
    queued += w->slots[i].state == NE_SLOT_QUEUED;
    free_slots += w->slots[i].state == NE_SLOT_FREE;
  }
  int want = w->threads - queued;
  return want < free_slots ? want : free_slots;
}

// Puts one claimed entry into a free slot (mu held); an entry without payload is marked for dropping.
static void queue_entry(ne__worker* w, const redisReply* e) {
  ne__slot* s = NULL;
  for (int i = 0; i < w->n_slots && !s; i++)
    if (w->slots[i].state == NE_SLOT_FREE) s = &w->slots[i];
  if (!s || e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING) return;
  const redisReply* fields = e->element[1];
  const redisReply* payload = NULL;
  for (size_t i = 0; fields->type == REDIS_REPLY_ARRAY && i + 1 < fields->elements; i += 2)
    if (fields->element[i]->type == REDIS_REPLY_STRING && strcmp(fields->element[i]->str, "m") == 0)
      payload = fields->element[i + 1];
  snprintf(s->id, sizeof s->id, "%s", e->element[0]->str);
  s->payload.len = 0;
  s->payload.oom = 0;
  if (payload && payload->type == REDIS_REPLY_STRING && payload->len > 0)
    ne__buf_bytes(&s->payload, payload->str, payload->len);
  if (s->payload.oom) {  // leave it for another worker
    s->state = NE_SLOT_FREE;
    return;
  }
  if (!s->payload.len) ne__worker_say(w, "dropped malformed task %s: no 'm' field", s->id);
  s->seq = w->seq++;
  s->state = NE_SLOT_QUEUED;
}

// Queues the entries of an XREADGROUP reply (nil when nothing came). 1 for an error reply.
static int queue_claimed(ne__worker* w, const redisReply* r) {
  if (r->type == REDIS_REPLY_ERROR) return 1;
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 1 && r->element[0]->elements == 2) {
    const redisReply* entries = r->element[0]->element[1];
    pthread_mutex_lock(&w->mu);
    for (size_t i = 0; entries->type == REDIS_REPLY_ARRAY && i < entries->elements; i++)
      queue_entry(w, entries->element[i]);
    pthread_cond_broadcast(&w->task_cv);
    pthread_mutex_unlock(&w->mu);
  }
  return 0;
}

// The XREADGROUP that claims up to `want` new tasks into argv (11 words; 9 without blocking); count
// and block are its buffers. Returns the word count.
static int claim_command(const ne__worker* w, int want, int block, const char* argv[11], char count[16],
                         char block_ms[16]) {
  snprintf(count, 16, "%d", want);
  snprintf(block_ms, 16, "%d", READ_BLOCK_MS);
  const char* words[] = {"XREADGROUP", "GROUP",  NE_GROUP,  w->name,        "COUNT", count,
                         "BLOCK",      block_ms, "STREAMS", w->ex->k_tasks, ">"};
  int n = 0;
  for (int i = 0; i < 11; i++)
    if (block || (i != 6 && i != 7)) argv[n++] = words[i];
  return n;
}

// Learns the CLIENT ID of the claiming connection after each (re)connect, so that a thread that
// wants this one to leave can unblock its claim.
static void note_client_id(ne__worker* w) {
  if (w->rconn_opens == w->rconn.opens || !w->rconn.c) return;
  redisReply* r = ne__rconn_command(&w->rconn, "CLIENT ID");
  long long id = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
  if (r) freeReplyObject(r);
  pthread_mutex_lock(&w->mu);
  w->rconn_id = id;
  w->rconn_opens = w->rconn.opens;
  pthread_mutex_unlock(&w->mu);
}

// One blocking XREADGROUP for up to `want` tasks; queues what came.
static void claim(ne__worker* w, int want) {
  const char* argv[11];
  char count[16], block[16];
  int argc = claim_command(w, want, 1, argv, count, block);
  note_client_id(w);
  // a one-thread worker busy-waits for the reply; the reader of several threads sleeps (spin 0)
  redisReply* r = NULL;
  if (!ne__rconn_ensure(&w->rconn) && !ne__rconn_append(&w->rconn, argc, argv, NULL) &&
      !ne__rconn_spin(&w->rconn, w->threads == 1 ? w->opt.spin_s : 0))
    r = ne__rconn_get_reply(&w->rconn);
  if (!r) return;
  if (queue_claimed(w, r)) ne__sleep_s(0.2);  // NOGROUP: the master has not (re-)created the stream yet
  freeReplyObject(r);
}

static void* reader_main(void* arg) {
  ne__worker* w = arg;
  ne__experiment* ex = w->ex;
  while (!ex->leave && !ne__worker_stopping(w)) {
    pthread_mutex_lock(&w->mu);
    int want = claimable(w);
    if (want <= 0) timed_wait(&w->slot_cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
    if (want <= 0) continue;
    if (ne__rconn_wait(&w->rconn, &ex->leave, 0) != 0) break;
    claim(w, want);
  }
  ne__rconn_close(&w->rconn);
  pthread_mutex_lock(&w->mu);
  w->reader_exited = 1;
  pthread_cond_broadcast(&w->task_cv);
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

// ---- the writer ---------------------------------------------------------------------------

// Queues the commands that answer slot s on conn; returns the replies to read, or -1 when disconnected.
static int queue_answer(ne__worker* w, ne__rconn* conn, const ne__slot* s) {
  const ne__experiment* ex = w->ex;
  if (s->state == NE_SLOT_DROP)  // garbage must not circulate
    return ne__drop_append(conn, ex->k_tasks, s->id) ? -1 : 2;
  return ne__answer_append(conn, ex->k_tasks, ex->k_results, s->id, s->out.data, s->out.len) ? -1 : 1;
}

// Sends the answers of slots[0..n) through conn in one round trip, with a claim of one more task
// (not blocking) when claim_next. 0, NE_ENET (they stay to be sent again after the reconnect:
// duplicate results are harmless) or RESEND (Redis forgot the answer script: load it, send again).
static int send_answers(ne__worker* w, ne__rconn* conn, ne__slot** slots, int n, int claim_next) {
  if (ne__rconn_ensure(conn) || ne__answer_load(conn)) return NE_ENET;
  int replies = 0;
  for (int i = 0; i < n; i++) {
    int k = queue_answer(w, conn, slots[i]);
    if (k < 0) return NE_ENET;
    replies += k;
  }
  if (claim_next) {
    const char* argv[11];
    char count[16], block[16];
    if (ne__rconn_append(conn, claim_command(w, 1, 0, argv, count, block), argv, NULL)) return NE_ENET;
    if (ne__rconn_spin(conn, w->opt.spin_s)) return NE_ENET;
  }
  int noscript = 0;
  for (int i = 0, slot = 0, k = 0; i < replies + claim_next; i++) {
    redisReply* r = ne__rconn_get_reply(conn);
    if (!r) return NE_ENET;
    if (i == replies) queue_claimed(w, r);
    else if (slots[slot]->state == NE_SLOT_DONE && ne__reply_error_is(r, "NOSCRIPT")) noscript = 1;
    else if (slots[slot]->state == NE_SLOT_DONE && r->type == REDIS_REPLY_INTEGER && r->integer == 0)
      ne__worker_say(w, "task %s: experiment %s finished or gone; result discarded", slots[slot]->id, w->ex->id);
    // next slot once this one's replies are read (an answer has one, a drop two)
    if (i < replies && ++k == (slots[slot]->state == NE_SLOT_DROP ? 2 : 1)) slot++, k = 0;
    freeReplyObject(r);
  }
  if (noscript) ne__rconn_scripts_lost(conn);
  return noscript ? RESEND : 0;
}

// Frees the sent slots and counts them (mu held).
static void sent(ne__worker* w, ne__slot** slots, int n) {
  for (int i = 0; i < n; i++) {
    if (slots[i]->state == NE_SLOT_DROP) w->bad_tasks++;
    else w->results_done += (uint64_t)slots[i]->n_results, w->tasks_done++;
    slots[i]->state = NE_SLOT_FREE;
  }
  if (w->opt.max_tasks > 0 && (long)w->tasks_done >= w->opt.max_tasks) w->done = 1;
  pthread_cond_broadcast(&w->slot_cv);
}

// Sends the answers of slots[0..n) through conn (and claims one more task when claim_next),
// reconnecting as often as it takes; leaving with Redis away it gives up after FLUSH_TRIES
// attempts (the master re-claims those tasks). Then frees the slots.
static void deliver(ne__worker* w, ne__rconn* conn, ne__slot** slots, int n, int claim_next) {
  ne__experiment* ex = w->ex;
  // a claim goes with the first attempt only: one made by an attempt whose answers failed was queued
  for (int failures = 0, rc; (rc = send_answers(w, conn, slots, n, claim_next)) != 0; claim_next = 0) {
    if (rc == RESEND) continue;
    int leaving = ex->leave || ne__worker_stopping(w);
    int rc = ne__rconn_wait(conn, leaving ? NULL : &ex->leave, leaving ? 10 : 0);
    if (rc && leaving && ++failures >= FLUSH_TRIES) {
      for (int i = 0; i < n; i++)
        ne__worker_say(w, "task %s: results not sent (%s); it will be re-claimed", slots[i]->id, conn->errstr);
      break;
    }
  }
  pthread_mutex_lock(&w->mu);
  sent(w, slots, n);
  pthread_mutex_unlock(&w->mu);
}

static void* writer_main(void* arg) {
  ne__worker* w = arg;
  ne__slot** ready = ne_calloc((size_t)w->n_slots, sizeof *ready);
  pthread_mutex_lock(&w->mu);
  for (;;) {
    int n = 0;
    for (int i = 0; ready && i < w->n_slots; i++)
      if (w->slots[i].state == NE_SLOT_DONE || w->slots[i].state == NE_SLOT_DROP) ready[n++] = &w->slots[i];
    if (!n) {
      if (w->evals_running == 0) break;  // every thread returned and everything is sent
      timed_wait(&w->send_cv, &w->mu);
      continue;
    }
    pthread_mutex_unlock(&w->mu);
    deliver(w, &w->wconn, ready, n, 0);
    pthread_mutex_lock(&w->mu);
  }
  w->writer_exited = 1;
  pthread_mutex_unlock(&w->mu);
  ne__rconn_close(&w->wconn);
  ne_free(ready);
  return NULL;
}

// ---- a single evaluation thread -----------------------------------------------------------

// With one evaluation thread the reader and the writer only add hand-offs: each task would wake
// the evaluation thread and then the writer, and Linux may queue a woken thread behind a busy one
// while the other CPU idles until the next tick (seen with perf sched on 2 cores: 2-5 ms stalls
// in 11-16 ms generations). This thread claims, evaluates and answers itself, through one
// connection: a task's answer and the claim of the next travel in one round trip, and while it
// waits for Redis it busy-waits up to opt.spin_s before sleeping (claim, send_answers).
static void* direct_main(void* arg) {
  ne__wthread* th = arg;
  ne__worker* w = th->w;
  ne__experiment* ex = w->ex;
  for (;;) {
    pthread_mutex_lock(&w->mu);
    ne__slot* s = oldest_queued(w);
    if (s) s->state = NE_SLOT_RUNNING;
    pthread_mutex_unlock(&w->mu);
    if (s) {  // a claimed task is answered even when leaving
      ne__slot_state next = process_task(th, s);
      pthread_mutex_lock(&w->mu);
      s->state = next;
      pthread_mutex_unlock(&w->mu);
      if (next != NE_SLOT_FREE) deliver(w, &w->rconn, &s, 1, !ex->leave && !ne__worker_stopping(w));
      continue;
    }
    if (ex->leave || ne__worker_stopping(w) || ne__rconn_wait(&w->rconn, &ex->leave, 0) != 0) break;
    claim(w, 1);
  }
  ne__rconn_close(&w->rconn);
  pthread_mutex_lock(&w->mu);
  w->reader_exited = w->writer_exited = 1;
  w->evals_running--;
  pthread_cond_broadcast(&w->task_cv);
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

// ---- starting, stopping, touching ---------------------------------------------------------

int ne__worker_start_tasks(ne__worker* w) {
  w->th = ne_calloc((size_t)w->threads, sizeof *w->th);
  w->n_slots = SLOTS_PER_THREAD * w->threads;
  w->slots = ne_calloc((size_t)w->n_slots, sizeof *w->slots);
  if (!w->th || !w->slots) return NE_ENOMEM;
  for (int i = 0; i < w->n_slots; i++) {
    ne__buf_init(&w->slots[i].payload);
    ne__buf_init(&w->slots[i].out);
  }
  w->reader_exited = w->writer_exited = 0;
  w->rconn_id = -1;
  w->rconn_opens = 0;
  w->rconn = (ne__rconn){.url = w->url, .timeout_s = 2};
  w->wconn = (ne__rconn){.url = w->url, .timeout_s = 2};
  for (int t = 0; t < w->threads; t++) {
    ne__wthread* th = &w->th[t];
    th->w = w;
    th->ex = w->ex;
    ne__wire_task_init(&th->task);
    if (w->opt.synthetic) continue;  // no env, no policy
    th->ev = ne_evaluator_create(w->ex->env, &w->ex->policy, w->ex->cache);
    if (!th->ev || ne_evaluator_set_meta(th->ev, &w->ex->meta) != 0) return NE_ENOMEM;  // meta: the inner loop
  }
  int direct = w->threads == 1;
  for (int t = 0; t < w->threads; t++) {
    pthread_mutex_lock(&w->mu);
    w->evals_running++;  // before the thread can return and count itself out
    pthread_mutex_unlock(&w->mu);
    if (pthread_create(&w->th[t].th, NULL, direct ? direct_main : eval_main, &w->th[t]) != 0) {
      pthread_mutex_lock(&w->mu);
      w->evals_running--;
      pthread_mutex_unlock(&w->mu);
      return NE_ENOMEM;
    }
    w->th[t].started = 1;
  }
  if (direct) return 0;
  if (pthread_create(&w->writer, NULL, writer_main, w) != 0) return NE_ENOMEM;
  w->writer_started = 1;
  if (pthread_create(&w->reader, NULL, reader_main, w) != 0) return NE_ENOMEM;
  w->reader_started = 1;
  return 0;
}

static void thread_free(ne__wthread* th) {
  ne_evaluator_destroy(th->ev);
  ne__wire_task_free(&th->task);
  ne_free(th->res);
  ne_free(th->idx);
  ne_free(th->parts);
  ne_free(th->returns);
  ne_free(th->obs);
  ne_free(th->bc);
  ne_free(th->blobs);
  ne_free(th->held);
}

// Cuts short a claim blocked in Redis (it returns as if it timed out); a no-op when none is.
static void unblock_claim(ne__worker* w, ne__rconn* conn) {
  pthread_mutex_lock(&w->mu);
  long long id = w->rconn_id;
  pthread_mutex_unlock(&w->mu);
  if (id < 0 || !conn->c) return;
  redisReply* r = ne__rconn_command(conn, "CLIENT UNBLOCK %lld", id);  // an ACL without CLIENT: the block times out
  if (r) freeReplyObject(r);
}

void ne__worker_stop_tasks(ne__worker* w, ne__rconn* conn) {
  if (!w->th) return;
  w->ex->leave = 1;
  // the claiming thread may be blocked in Redis, or about to block: unblock it until it has returned
  pthread_mutex_lock(&w->mu);
  while (!w->reader_exited && (w->reader_started || w->threads == 1)) {
    pthread_mutex_unlock(&w->mu);
    unblock_claim(w, conn);
    pthread_mutex_lock(&w->mu);
    if (!w->reader_exited) timed_wait(&w->task_cv, &w->mu);
  }
  pthread_mutex_unlock(&w->mu);
  // the reader first (evaluation threads return once it has and nothing is queued), then the
  // evaluation threads, then the writer (it returns once they all have and everything is sent)
  if (w->reader_started) pthread_join(w->reader, NULL);
  else w->reader_exited = 1;
  pthread_mutex_lock(&w->mu);
  pthread_cond_broadcast(&w->task_cv);
  pthread_mutex_unlock(&w->mu);
  for (int t = 0; t < w->threads; t++)
    if (w->th[t].started) pthread_join(w->th[t].th, NULL);
  if (w->writer_started) pthread_join(w->writer, NULL);
  for (int t = 0; t < w->threads; t++) thread_free(&w->th[t]);
  for (int i = 0; w->slots && i < w->n_slots; i++) {
    ne__buf_free(&w->slots[i].payload);
    ne__buf_free(&w->slots[i].out);
  }
  ne__rconn_close(&w->rconn);
  ne__rconn_close(&w->wconn);
  ne_free(w->th);
  ne_free(w->slots);
  w->th = NULL;
  w->slots = NULL;
  w->reader_started = w->writer_started = 0;
  w->evals_running = 0;
}

int ne__worker_tasks_exited(ne__worker* w) {
  if (!w->th) return 0;
  pthread_mutex_lock(&w->mu);
  int exited = w->reader_exited && w->writer_exited && w->evals_running == 0;
  pthread_mutex_unlock(&w->mu);
  return exited;
}

void ne__worker_touch_tasks(ne__worker* w, ne__rconn* conn) {
  if (!w->ex || !w->slots || !conn->c) return;
  int queued = 0;
  pthread_mutex_lock(&w->mu);
  for (int i = 0; i < w->n_slots; i++) {
    if (w->slots[i].state == NE_SLOT_FREE) continue;
    const char* argv[] = {"XCLAIM", w->ex->k_tasks, NE_GROUP, w->name, "0", w->slots[i].id, "JUSTID"};
    if (ne__rconn_append(conn, 7, argv, NULL) == 0) queued++;
  }
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < queued; i++) {
    redisReply* r = ne__rconn_get_reply(conn);
    if (!r) break;
    freeReplyObject(r);
  }
}
