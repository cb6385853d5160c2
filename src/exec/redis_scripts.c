// SPDX-License-Identifier: MIT
// The protocol's Lua scripts (redis_scripts.h). A script runs atomically in Redis, so a result is
// never stored without its acknowledgement (nor the other way round), and the existence check and
// the write cannot be separated by the master deleting the experiment.
#include "exec/redis_scripts.h"

#include <string.h>

#include "exec/redis_conn.h"

// KEYS: tasks, results. ARGV: group, entry, message.
const char ne__answer_lua[] =
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
    "redis.call('XADD', KEYS[2], '*', 'r', ARGV[3], 't', ARGV[2])\n"
    "if redis.call('PTTL', KEYS[2]) < 0 then\n"
    "  local ttl = redis.call('PTTL', KEYS[1])\n"
    "  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end\n"
    "end\n"
    "redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])\n"
    "return 1\n";

// KEYS: ne:workers, ne:worker:<name>, the experiment's worker hash, its task stream.
// ARGV: name, ttl of the worker's hash (ms), "threads period_ms" ('' without an experiment), then
// field/value pairs for the worker's hash.
const char ne__heartbeat_lua[] =
    "local t = redis.call('TIME')\n"
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    "redis.call('ZADD', KEYS[1], now, ARGV[1])\n"
    "redis.call('HSET', KEYS[2], 'beat', now, unpack(ARGV, 4))\n"
    "redis.call('PEXPIRE', KEYS[2], ARGV[2])\n"
    "if ARGV[3] ~= '' and redis.call('EXISTS', KEYS[4]) == 1 then\n"
    "  redis.call('HSET', KEYS[3], ARGV[1], now .. ' ' .. ARGV[3])\n"
    "  local ttl = redis.call('PTTL', KEYS[4])\n"
    "  if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end\n"
    "end\n"
    "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 3600000)\n"
    "return now\n";

// KEYS: the experiment's description. ARGV: the beat period (ms).
const char ne__master_beat_lua[] =
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
    "local t = redis.call('TIME')\n"
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    "redis.call('HSET', KEYS[1], 'beat', now, 'beat_ms', ARGV[1])\n"
    "return now\n";

int ne__answer_load(ne__rconn* conn) { return ne__rconn_script_load(conn, ne__answer_lua); }

int ne__answer_append(ne__rconn* conn, const char* k_tasks, const char* k_results, const char* entry, const void* msg,
                      size_t len) {
  const char* args[] = {k_tasks, k_results, NE_GROUP, entry, (const char*)msg};
  size_t lens[] = {strlen(k_tasks), strlen(k_results), strlen(NE_GROUP), strlen(entry), len};
  return ne__rconn_append_script(conn, ne__answer_lua, 2, 5, args, lens);
}

int ne__drop_append(ne__rconn* conn, const char* k_tasks, const char* entry) {
  const char* ack[] = {"XACK", k_tasks, NE_GROUP, entry};
  const char* del[] = {"XDEL", k_tasks, entry};
  int rc = ne__rconn_append(conn, 4, ack, NULL);
  return rc ? rc : ne__rconn_append(conn, 3, del, NULL);
}
