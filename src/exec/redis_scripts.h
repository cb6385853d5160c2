// SPDX-License-Identifier: MIT
// The Lua scripts of the Redis protocol: answering a task (its result and its acknowledgement in one
// atomic step) and the heartbeats of workers, relays and the master. They write experiment keys only
// while the experiment runs (its task stream exists) and give what they create the experiment's
// expiry, so a finished or abandoned experiment leaves no key behind without one. Not public API.
#ifndef NEUROEVO_REDIS_SCRIPTS_H
#define NEUROEVO_REDIS_SCRIPTS_H

#include <stddef.h>

#include "exec/redis_conn.h"

// Answers one task: XADD results * r MSG t ENTRY (the task it answers, for relays), then XACK the
// task, in one script, only while the experiment's task stream exists; a result stream it creates
// gets the task stream's expiry. Reply: 1 stored, 0 discarded (the experiment is finished or gone).
extern const char ne__answer_lua[];

// The heartbeat: the worker's figures in ne:worker:<name> (expires after three missed beats), its
// last beat in ne:workers, and "beat threads period" in the experiment's worker hash (only while the
// experiment runs, with its expiry). Reply: the server's time in ms.
extern const char ne__heartbeat_lua[];

// The master's heartbeat: "beat" (the server's time in ms) and "beat_ms" (ARGV[1], its period) in
// the experiment's description KEYS[1], only while it exists. Reply: the time, or 0 (no description).
extern const char ne__master_beat_lua[];

// Loads the answer script on conn (before a pipeline of answers). 0, NE_ENET or NE_EIO.
int ne__answer_load(ne__rconn* conn);

// Queues the answer of task `entry` (a stream id) of the experiment's streams k_tasks/k_results
// with the result message msg[0..len). One reply (ne__answer_lua). 0 or NE_ENET / NE_EINVAL.
int ne__answer_append(ne__rconn* conn, const char* k_tasks, const char* k_results, const char* entry, const void* msg,
                      size_t len);

// Queues XACK + XDEL of task `entry` (garbage that must not circulate). Two replies.
int ne__drop_append(ne__rconn* conn, const char* k_tasks, const char* entry);

#endif
