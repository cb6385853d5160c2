// SPDX-License-Identifier: MIT
// `neuroevo status`: a read-only report of a Redis used by neuroevo (cluster.h) -- the experiment
// workers follow, its generation and round, queued and claimed tasks, waiting results, and the
// workers that heartbeat, with throughput and the age of their last beat. Never writes to Redis.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "exec/redis_beat.h"  // ne__beat_state
#include "exec/redis_conn.h"
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"

#define LIST_WINDOW_MS 60000  // workers silent longer than this are not listed

static const char* str_of(const redisReply* r, const char* name, const char* fallback) {
  return ne__reply_str(r, name, fallback);
}

static long long int_of(const redisReply* r, const char* name, long long fallback) {
  const redisReply* v = ne__reply_field(r, name);
  if (!v) return fallback;
  if (v->type == REDIS_REPLY_INTEGER) return v->integer;
  return v->type == REDIS_REPLY_STRING ? strtoll(v->str, NULL, 10) : fallback;
}

static void print_server(ne__rconn* c, FILE* out) {
  redisReply* r = ne__rconn_command(c, "INFO");
  char version[32] = "?", memory[32] = "?";
  if (r && r->type == REDIS_REPLY_STRING) {
    const char* v = strstr(r->str, "redis_version:");
    const char* m = strstr(r->str, "used_memory_human:");
    if (v) sscanf(v, "redis_version:%31s", version);
    if (m) sscanf(m, "used_memory_human:%31s", memory);
  }
  if (r) freeReplyObject(r);
  fprintf(out, "redis:       %s (server %s, memory used %s)\n", c->url.shown, version, memory);
}

// The master's line: where it runs, its last heartbeat, and what its state means.
static void print_master(FILE* out, const redisReply* meta, const char* state, long long beat, long long beat_ms,
                         long long now) {
  fprintf(out, "master:      %s", str_of(meta, "master", "?"));
  if (beat > 0) fprintf(out, ", last beat %.1fs ago", (double)(now - beat) / 1000);
  if (strcmp(state, "gone") == 0)
    fprintf(out,
            ": gone (no heartbeat for more than %.0fs: killed, or cut off from Redis; `neuroevo resume RUN_DIR "
            "--redis URL` continues the run)",
            (double)(3 * beat_ms + 1000) / 1000);
  else if (strcmp(state, "stopped") == 0)
    fprintf(out, ": stopped before the run's end (`neuroevo resume RUN_DIR --redis URL` continues it)");
  else if (strcmp(state, "finished") == 0) fprintf(out, ": the run finished");
  fprintf(out, "\n");
}

// Generation, round and task/result queue figures of experiment id.
static void print_experiment(ne__rconn* c, FILE* out, const char* id) {
  char key[NE_KEY_LEN];
  ne__key_exp(key, id, "meta");
  redisReply* meta = ne__rconn_command(c, "HGETALL %s", key);
  if (!meta || meta->type != REDIS_REPLY_ARRAY || meta->elements == 0) {
    fprintf(out, "experiment:  %s (description missing: Redis restarted? the master re-creates it)\n", id);
    if (meta) freeReplyObject(meta);
    return;
  }
  time_t created = (time_t)int_of(meta, "created", 0);
  char when[32] = "?";
  struct tm tm;
  if (created && localtime_r(&created, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  long long now = 0, beat = int_of(meta, "beat", 0), beat_ms = int_of(meta, "beat_ms", 0);
  if (ne__rconn_server_ms(c, &now)) beat = 0;
  const char* state = ne__beat_state(str_of(meta, "status", ""), beat, beat_ms, now);
  fprintf(out, "experiment:  %s '%s', %s, started %s (wire v%s)\n", id, str_of(meta, "name", "?"), state, when,
          str_of(meta, "wire", "?"));
  print_master(out, meta, state, beat, beat_ms, now);
  fprintf(out, "generation:  %s, round %s: %s candidates\n", str_of(meta, "generation", "-"),
          str_of(meta, "round", "-"), str_of(meta, "candidates", "-"));
  int done = strcmp(state, "finished") == 0;
  freeReplyObject(meta);
  // a finished run deleted its task and result streams: nothing is queued
  if (done) {
    fprintf(out, "tasks:       none (the run finished)\n");
    return;
  }
  // tasks: queued (not yet delivered) and claimed (delivered, not acknowledged)
  ne__key_exp(key, id, "tasks");
  redisReply* groups = ne__rconn_command(c, "XINFO GROUPS %s", key);
  long long pending = -1, lag = -1;
  for (size_t g = 0; groups && groups->type == REDIS_REPLY_ARRAY && g < groups->elements; g++)
    if (strcmp(str_of(groups->element[g], "name", ""), NE_GROUP) == 0) {
      pending = int_of(groups->element[g], "pending", -1);
      lag = int_of(groups->element[g], "lag", -1);
    }
  if (groups) freeReplyObject(groups);
  char queued[32];
  if (lag >= 0) snprintf(queued, sizeof queued, "%lld", lag);
  else snprintf(queued, sizeof queued, "?");
  fprintf(out, "tasks:       %s queued, %lld claimed by workers\n", queued, pending < 0 ? 0 : pending);
  ne__key_exp(key, id, "results");
  redisReply* len = ne__rconn_command(c, "XLEN %s", key);
  fprintf(out, "results:     %lld entries in the result stream\n",
          len && len->type == REDIS_REPLY_INTEGER ? len->integer : 0);
  if (len) freeReplyObject(len);
}

// One worker's line. beat: its last heartbeat (the zset's score, which outlives its hash). A worker
// whose hash expired (no heartbeat for 3 periods: killed, or cut off) is "gone"; one that refused
// the current experiment says so, with its reason on the next line.
static void print_worker(FILE* out, const char* name, const redisReply* h, long long beat, long long now,
                         const char* current) {
  int gone = !h || h->type != REDIS_REPLY_ARRAY || h->elements == 0;
  double age = (double)(now - beat) / 1000;
  if (gone) {
    fprintf(out, "  %-24.24s %7s %10s %9s %8.1fs  %-7s %s\n", name, "-", "-", "-", age, "gone", "-");
    return;
  }
  long long interval = int_of(h, "interval_ms", 1000);
  const char* exp = str_of(h, "experiment", "-");
  const char* refused = str_of(h, "refused", "-");
  int is_refused = strcmp(exp, "-") == 0 && strcmp(refused, "-") != 0 && (!current || strcmp(refused, current) == 0);
  const char* state = is_refused ? "refused" : now - beat <= 3 * interval + 1000 ? "live" : "silent";
  // a relay beats as one worker with its node's threads; its results and results/s are the node's
  char relay[96] = "";
  if (int_of(h, "relay", 0))
    snprintf(relay, sizeof relay, " (relay: %lld workers on its node, %lld tasks held)", int_of(h, "node_workers", 0),
             int_of(h, "held", 0));
  fprintf(out, "  %-24.24s %7lld %10lld %9s %8.1fs  %-7s %s%s%s\n", name, int_of(h, "threads", 0),
          int_of(h, "results", 0), str_of(h, "rate", "0"), age, state, is_refused ? refused : exp,
          current && strcmp(exp, current) != 0 && strcmp(exp, "-") != 0 ? " (other)" : "", relay);
  if (is_refused) fprintf(out, "    refused: %s\n", str_of(h, "refused_why", "?"));
}

// Workers that beat within the last minute, newest first, with their figures.
static int print_workers(ne__rconn* c, FILE* out, int max_workers, const char* current) {
  long long now;
  int rc = ne__rconn_server_ms(c, &now);
  if (rc) return rc;
  char min[32], limit[16];
  snprintf(min, sizeof min, "%lld", now - LIST_WINDOW_MS);
  snprintf(limit, sizeof limit, "%d", max_workers > 0 ? max_workers : 1000000);
  redisReply* names =
      ne__rconn_command(c, "ZREVRANGEBYSCORE %s +inf %s WITHSCORES LIMIT 0 %s", NE_KEY_WORKERS, min, limit);
  if (!names) return NE_ENET;
  redisReply* total = ne__rconn_command(c, "ZCOUNT %s %s +inf", NE_KEY_WORKERS, min);
  long long n_total = total && total->type == REDIS_REPLY_INTEGER ? total->integer : 0;
  if (total) freeReplyObject(total);
  // name, score pairs; pipeline one HGETALL per listed worker
  size_t n = names->type == REDIS_REPLY_ARRAY ? names->elements / 2 : 0;
  for (size_t i = 0; i < n; i++) {
    char key[NE_KEY_LEN];
    snprintf(key, sizeof key, NE_KEY_WORKER_FMT, names->element[2 * i]->str);
    const char* argv[] = {"HGETALL", key};
    if (ne__rconn_append(c, 2, argv, NULL)) break;
  }
  redisReply** hashes = ne_calloc(n ? n : 1, sizeof *hashes);
  long long threads = 0, live = 0, gone = 0, refused = 0, relays = 0;
  double rate = 0;
  for (size_t i = 0; i < n && hashes; i++) {
    hashes[i] = ne__rconn_get_reply(c);
    if (!hashes[i]) break;
    long long beat = strtoll(names->element[2 * i + 1]->str, NULL, 10);
    long long interval = int_of(hashes[i], "interval_ms", 1000);
    if (hashes[i]->type != REDIS_REPLY_ARRAY || hashes[i]->elements == 0) {  // its hash expired: not live
      gone++;
      continue;
    }
    if (current && strcmp(str_of(hashes[i], "refused", "-"), current) == 0 &&
        strcmp(str_of(hashes[i], "experiment", "-"), "-") == 0)
      refused++;
    if (now - beat > 3 * interval + 1000) continue;
    live++;
    relays += int_of(hashes[i], "relay", 0) != 0;
    threads += int_of(hashes[i], "threads", 0);
    rate += atof(str_of(hashes[i], "rate", "0"));
  }
  fprintf(out, "workers:     %lld live, %lld threads, %.1f results/s (%lld beat within %ds", live, threads, rate,
          n_total, LIST_WINDOW_MS / 1000);
  if (relays) fprintf(out, ", %lld of them relays", relays);
  if (gone) fprintf(out, ", %lld gone", gone);
  if (refused) fprintf(out, ", %lld refused the experiment", refused);
  fprintf(out, ")\n");
  if (n)
    fprintf(out, "  %-24s %7s %10s %9s %9s  %-7s %s\n", "NAME", "THREADS", "RESULTS", "RES/S", "LAST BEAT", "STATE",
            "EXPERIMENT");
  for (size_t i = 0; i < n && hashes && hashes[i]; i++)
    print_worker(out, names->element[2 * i]->str, hashes[i], strtoll(names->element[2 * i + 1]->str, NULL, 10), now,
                 current);
  if ((long long)n < n_total) fprintf(out, "  ... %lld more (use --workers 0 to list all)\n", n_total - (long long)n);
  for (size_t i = 0; i < n && hashes; i++)
    if (hashes[i]) freeReplyObject(hashes[i]);
  ne_free(hashes);
  freeReplyObject(names);
  return c->c ? 0 : NE_ENET;
}

int ne_cluster_status(const char* url, FILE* out, int max_workers, char* errstr) {
  ne__redis_url u;
  int rc = ne__redis_url_parse(url, &u, errstr);
  if (!rc) rc = ne__redis_url_check_auth(&u, "status", errstr);
  if (rc) return rc;
  ne__rconn c = {0};
  rc = ne__rconn_open(&c, &u, 2.0);
  if (rc) return ne__set_error(errstr, rc, "%s", c.errstr);
  print_server(&c, out);
  char current[64] = "";
  redisReply* r = ne__rconn_command(&c, "GET %s", NE_KEY_CURRENT);
  if (r && r->type == REDIS_REPLY_STRING) snprintf(current, sizeof current, "%s", r->str);
  if (r) freeReplyObject(r);
  if (current[0]) print_experiment(&c, out, current);
  else fprintf(out, "experiment:  none (no master has started on this Redis)\n");
  rc = print_workers(&c, out, max_workers, current[0] ? current : NULL);
  if (rc) rc = ne__set_error(errstr, rc, "%s", c.errstr);
  ne__rconn_close(&c);
  return rc;
}
