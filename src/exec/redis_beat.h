// SPDX-License-Identifier: MIT
// The master's heartbeat (docs/scaling.md "Liveness"): a thread with a connection of its own stamps
// the experiment's description with Redis's clock ("beat", in ms, and the period "beat_ms") once a
// period, whatever the master's own thread is doing (a long tell, a checkpoint, waiting for
// Redis), so that `status` and the workers can tell a master that works from one that was killed.
// It writes only while the description exists: a Redis that restarted empty is noticed by the
// master's own checks, not masked by a heartbeat re-creating the description. Not public API.
#ifndef NEUROEVO_REDIS_BEAT_H
#define NEUROEVO_REDIS_BEAT_H

#include "exec/redis_conn.h"

typedef struct ne__beat ne__beat;

// Starts the heartbeat of description `k_meta` on the Redis at url, one beat every period_s. *out is
// stopped and freed with ne__beat_stop. 0, or NE_ENOMEM (threads or memory exhausted).
int ne__beat_start(const ne__redis_url* url, const char* k_meta, double period_s, ne__beat** out);

// Stops the thread (at once: it waits on a condition) and frees it. Nullable: b.
void ne__beat_stop(ne__beat* b);

// The master's state from its description's fields: "finished" (status done), "stopped" (it left
// without finishing), "gone" (running, but no beat for three periods and a second: killed, or cut
// off from Redis), or "running". beat and beat_ms are 0 for a master that does not beat (an older
// build): its status is taken as it is. now_ms is Redis's clock (ne__rconn_server_ms).
const char* ne__beat_state(const char* status, long long beat, long long beat_ms, long long now_ms);

#endif
