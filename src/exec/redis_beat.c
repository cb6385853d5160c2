// SPDX-License-Identifier: MIT
// The master's heartbeat thread (see redis_beat.h). One beat is one script call (~0.1 ms of Redis
// time a period); the thread sleeps on a condition between beats, so stopping it is immediate.
#include "exec/redis_beat.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "exec/redis_scripts.h"
#include "neuroevo/alloc.h"

struct ne__beat {
  ne__rconn conn;  // the thread's own connection (hiredis contexts are not shared)
  char k_meta[NE_KEY_LEN];
  char period_ms[24];  // ARGV of the script
  double period_s;
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;  // signalled by ne__beat_stop
  int leave;          // guarded by mu
};

static void* beat_main(void* arg) {
  ne__beat* b = arg;
  const char* args[] = {b->k_meta, b->period_ms};
  pthread_mutex_lock(&b->mu);
  while (!b->leave) {
    pthread_mutex_unlock(&b->mu);
    // a Redis that is away costs a failed connect (2 s at most) per beat: the next one retries
    if (ne__rconn_ensure(&b->conn) == 0)
      ne__reply_free(ne__rconn_script(&b->conn, ne__master_beat_lua, 1, 2, args, NULL));
    pthread_mutex_lock(&b->mu);
    if (!b->leave) ne__cond_wait_ms(&b->cv, &b->mu, (int)(b->period_s * 1000));
  }
  pthread_mutex_unlock(&b->mu);
  ne__rconn_close(&b->conn);
  return NULL;
}

int ne__beat_start(const ne__redis_url* url, const char* k_meta, double period_s, ne__beat** out) {
  *out = NULL;
  ne__beat* b = ne_calloc(1, sizeof *b);
  if (!b) return NE_ENOMEM;
  b->conn = (ne__rconn){.url = *url, .timeout_s = 2};
  snprintf(b->k_meta, sizeof b->k_meta, "%s", k_meta);
  b->period_s = period_s > 0 ? period_s : 1;
  snprintf(b->period_ms, sizeof b->period_ms, "%.0f", b->period_s * 1000);
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->cv, NULL);
  if (pthread_create(&b->th, NULL, beat_main, b) != 0) {
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
    ne_free(b);
    return NE_ENOMEM;
  }
  *out = b;
  return 0;
}

const char* ne__beat_state(const char* status, long long beat, long long beat_ms, long long now_ms) {
  if (!status || !*status) return "?";
  if (strcmp(status, "done") == 0) return "finished";
  if (strcmp(status, "running") != 0) return status;
  return beat > 0 && beat_ms > 0 && now_ms - beat > 3 * beat_ms + 1000 ? "gone" : "running";
}

void ne__beat_stop(ne__beat* b) {
  if (!b) return;
  pthread_mutex_lock(&b->mu);
  b->leave = 1;
  pthread_cond_signal(&b->cv);
  pthread_mutex_unlock(&b->mu);
  pthread_join(b->th, NULL);
  pthread_cond_destroy(&b->cv);
  pthread_mutex_destroy(&b->mu);
  ne_free(b);
}
