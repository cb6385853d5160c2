// SPDX-License-Identifier: MIT
// Redis connections for the master, the workers and `status`: URL parsing
// (redis://[user:password@]host:port[/db]), credentials (URL or NEUROEVO_REDIS_PASSWORD), the
// loopback rule (no credentials, no remote Redis), connect/auth/select with timeouts, reconnects,
// and the key names of the protocol. One ne__rconn per thread: hiredis contexts do no locking.
// Not public API.
#ifndef NEUROEVO_REDIS_CONN_H
#define NEUROEVO_REDIS_CONN_H

#include <hiredis/hiredis.h>  // redisContext, redisReply
#include <stddef.h>
#include <stdint.h>

#include "neuroevo/error.h"

// A parsed Redis URL.
typedef struct ne__redis_url {
  char host[256];         // host name or address (IPv6 without brackets)
  int port;               // TCP port (default 6379)
  int db;                 // database number (default 0)
  char user[128];         // ACL user ("" = default user)
  char password[256];     // password ("" = none)
  int has_password;       // 1 if a password came from the URL or the environment
  char password_env[40];  // the environment variable a password missing from the URL comes from
  char shown[480];        // the URL for messages, password masked
} ne__redis_url;

// Parses url; a password missing from the URL is taken from NEUROEVO_REDIS_PASSWORD. NE_EINVAL with
// a message naming the URL and the expected form.
int ne__redis_url_parse(const char* url, ne__redis_url* out, char* errstr);

// ne__redis_url_parse with the password taken from the environment variable password_env (a relay's
// node-local Redis: NEUROEVO_NODE_REDIS_PASSWORD, a credential apart from the master's Redis).
int ne__redis_url_parse_env(const char* url, const char* password_env, ne__redis_url* out, char* errstr);

// 1 if the host is a loopback address (127.0.0.0/8, ::1, or a name that resolves only to those).
int ne__redis_url_is_loopback(const ne__redis_url* url);

// The credentials rule: a non-loopback Redis without a password is refused (anyone who can reach it
// could inject tasks and results). `who` names the refusing side in the message ("master").
int ne__redis_url_check_auth(const ne__redis_url* url, const char* who, char* errstr);

#define NE_RCONN_SCRIPTS 4  // Lua scripts one connection remembers as loaded

// One connection. Errors are recorded in err/errstr by ne__rconn_set_error only.
typedef struct ne__rconn {
  redisContext* c;             // NULL while disconnected
  ne__redis_url url;           // where to (re)connect
  double timeout_s;            // connect timeout; commands time out after max(timeout_s, 5) s
  int err;                     // last error code (0: none)
  char errstr[NE_ERRSTR_LEN];  // its message
  unsigned long opens;         // successful (re)connections so far: tells a new connection from the old
  struct {                     // scripts loaded through this connection (forgotten when it closes:
    const char* body;          // the next one may reach a restarted, empty server)
    char sha[41];
  } scripts[NE_RCONN_SCRIPTS];
  int n_scripts;
} ne__rconn;

// Records an error on the connection and returns code.
int ne__rconn_set_error(ne__rconn* rc, int code, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// Connects, authenticates, selects the database and checks the server speaks streams (>= 6.2).
// Returns 0 or NE_ENET/NE_EINVAL/NE_EUNSUPPORTED with rc->errstr. rc is usable for retries after failure.
int ne__rconn_open(ne__rconn* rc, const ne__redis_url* url, double timeout_s);

// Reconnects if the connection was dropped; 0 when connected.
int ne__rconn_ensure(ne__rconn* rc);

// Reconnects with backoff until it succeeds, *stop is raised (NE_EINTR) or max_s pass (NE_ENET).
// Nullable: stop. max_s <= 0: no limit.
int ne__rconn_wait(ne__rconn* rc, const volatile int* stop, double max_s);

// Closes the connection (rc stays reusable). Nullable: rc.
void ne__rconn_close(ne__rconn* rc);

// Runs one command (printf-style, hiredis %s/%b). Returns the reply (caller frees with
// freeReplyObject; an error reply is returned as is) or NULL after an I/O error, which drops the
// connection and records NE_ENET.
redisReply* ne__rconn_command(ne__rconn* rc, const char* fmt, ...);

// Runs one command from an argument vector (binary-safe). Same contract as ne__rconn_command.
redisReply* ne__rconn_argv(ne__rconn* rc, int argc, const char** argv, const size_t* lens);

// Pipelining: queue commands, then read their replies in order. append returns 0, or NE_ENET when
// disconnected (it never reconnects: call ne__rconn_ensure before a pipeline); get_reply returns
// NULL after an I/O error (connection dropped).
int ne__rconn_append(ne__rconn* rc, int argc, const char** argv, const size_t* lens);
redisReply* ne__rconn_get_reply(ne__rconn* rc);
// Writes the queued commands out, then busy-waits (yielding the CPU to anything runnable) until a
// reply arrives or spin_s passes; ne__rconn_get_reply then reads without sleeping in the common
// case. A sleeping reader is woken on whatever CPU Linux picks, an idle virtual CPU first has to be
// woken itself: on 2 cores that cost 0.1-0.3 ms per round trip and a few ms stalls. NE_ENET when
// disconnected.
int ne__rconn_spin(ne__rconn* rc, double spin_s);

// Lua scripts run with EVALSHA, so that each call sends the script's SHA-1 instead of its text.
// A script is identified by its body pointer (a static string). ne__rconn_script_load loads it
// (SCRIPT LOAD) unless this connection already did; call it before a pipeline, since it runs a
// command of its own. 0, NE_ENET (connection dropped) or NE_EIO (error reply, in rc->errstr).
int ne__rconn_script_load(ne__rconn* rc, const char* body);

// Queues EVALSHA of a loaded script with nkeys keys followed by the other arguments (args[0..n)).
// NE_EINVAL if the script was not loaded on this connection, NE_ENET when disconnected.
int ne__rconn_append_script(ne__rconn* rc, const char* body, int nkeys, int n, const char** args, const size_t* lens);

// Runs a script and returns its reply (loads it first, and once more after a NOSCRIPT reply: a
// restarted Redis or SCRIPT FLUSH). Same contract as ne__rconn_command, except that NULL also
// means the script could not be loaded (rc->err NE_EIO; the connection stays open).
redisReply* ne__rconn_script(ne__rconn* rc, const char* body, int nkeys, int n, const char** args, const size_t* lens);

// Forgets which scripts this connection loaded (after a NOSCRIPT reply in a pipeline).
void ne__rconn_scripts_lost(ne__rconn* rc);

// 1 if reply is an error reply whose text starts with prefix (e.g. "NOGROUP").
int ne__reply_error_is(const redisReply* reply, const char* prefix);

// The value of field `name` in a flat name/value array reply (HGETALL, XINFO, a stream entry's
// fields), or NULL. Owned by the reply. Nullable: fields.
const redisReply* ne__reply_field(const redisReply* fields, const char* name);

// The string value of field `name`, or fallback when it is missing or not a string. Nullable: fields.
const char* ne__reply_str(const redisReply* fields, const char* name, const char* fallback);

// freeReplyObject that accepts NULL (a command that failed on I/O returned no reply).
void ne__reply_free(redisReply* reply);

// Redis's own clock in ms (TIME): heartbeats are stamped and judged with it, so the clocks of the
// machines involved do not matter. 0, NE_ENET (connection dropped) or NE_EIO.
int ne__rconn_server_ms(ne__rconn* rc, long long* now_ms);

// Parses a stream id "ms-seq" into two numbers (0 on success).
int ne__stream_id_parse(const char* text, uint64_t* ms, uint64_t* seq);

// Compares two stream ids (-1, 0, 1); unparsable ids compare as 0-0.
int ne__stream_id_cmp(const char* a, const char* b);

// ---- key names (every key of an experiment starts with ne:exp:<id>:) ------------------------

#define NE_KEY_CURRENT "ne:current"       // string: the experiment workers should follow
#define NE_KEY_WORKERS "ne:workers"       // zset: worker name -> last heartbeat (server ms)
#define NE_KEY_WORKER_FMT "ne:worker:%s"  // hash: one worker's figures (expires without beats)
#define NE_KEY_ANNOUNCE "ne:announce"     // stream: experiment ids as masters start (idle workers block on it)
#define NE_GROUP "workers"                // the consumer group of every task stream
#define NE_KEY_LEN 160                    // room for any key name

// Fills key with "ne:exp:<id>:<suffix>" (suffix "meta", "tasks", "results", "workers", "blob:<hash>").
void ne__key_exp(char key[NE_KEY_LEN], const char* id_hex, const char* suffix);

#endif
