// SPDX-License-Identifier: MIT
// A Python child process served through a shared-memory block: what the Gymnasium bridge
// (envs/gym/gym.c + python/neuroevo/envserver.py) and the optimizer server (algos/pyopt.c +
// python/neuroevo/optserver.py) share; python/neuroevo/_pyproc.py is the Python half and repeats the
// header layout below (bump the protocol's version on any change).
//
// Data travels in one memfd block that both sides map. Each message (request or reply) is published
// by bumping a sequence word in the block, then announced by a one-byte doorbell on a socketpair. The
// receiver first spins a bounded, adaptive time on the sequence word (no syscall: the common case
// when both processes have a core; x86 only, where plain stores stay ordered) and only then sleeps
// in poll/read on the socket, where the doorbell, or the socket closing when the other side dies,
// wakes it. The block can grow: a side that needs more room ftruncates the memfd, remaps and writes
// the new size into the header; the other side remaps when it sees a larger size. A server that
// raises answers with an error reply (code + message); one that dies or hangs is killed and the
// failure described ("was killed by signal 9 during tell", "no reply ... within 60 s"). The process
// gets its own process group, so a terminal's Ctrl-C reaches only the trainer. A call that runs long
// says so on stderr while it waits (every notice_s, at most a quarter of its limit), so a slow
// server never means silent minutes. Not public API.
#ifndef NEUROEVO_PYPROC_H
#define NEUROEVO_PYPROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "neuroevo/error.h"

// ---- the common header of the block (byte offsets; native byte order) --------------------------
#define NE_PYPROC_OFF_MAGIC 0     // uint32 the protocol's magic, written by the server once it has mapped the block
#define NE_PYPROC_OFF_VERSION 4   // uint32 the protocol's version
#define NE_PYPROC_OFF_CODE 8      // int32  NE_E* code of the last error reply
#define NE_PYPROC_OFF_BYTES 16    // uint64 the block's current size (the side that grew it writes it)
#define NE_PYPROC_OFF_REQ_SEQ 64  // uint32 request number: the client writes the command, then stores n+1 (release)
#define NE_PYPROC_OFF_REQ_CMD 68  // uint32 the command byte of request REQ_SEQ
// uint32 reply number (own cache line): request n is answered with n; the startup reply (hello or
// error) is number 1
#define NE_PYPROC_OFF_REP_SEQ 128
#define NE_PYPROC_OFF_REP_BYTE 132  // uint32 the reply byte of reply REP_SEQ
#define NE_PYPROC_OFF_ERRMSG 1024   // char[1024] NUL-terminated UTF-8 message of an error reply
#define NE_PYPROC_ERRMSG_LEN 1024
#define NE_PYPROC_OFF_USER 2048  // the protocol's own fields start here

// command and reply bytes every protocol shares (its own commands are other letters)
#define NE_PYPROC_CMD_QUIT 'Q'     // clean up and exit
#define NE_PYPROC_REPLY_HELLO 'H'  // startup done
#define NE_PYPROC_REPLY_OK 'K'     // command done
#define NE_PYPROC_REPLY_ERROR 'E'  // command failed: code at OFF_CODE, message at OFF_ERRMSG

// How to start one kind of server. Static data of the protocol's module.
typedef struct ne__pyproc_kind {
  const char* module;             // "envserver": python/neuroevo/<module>.py, or python -m neuroevo.<module>
  const char* script_env;         // variable naming the script instead (e.g. NEUROEVO_ENVSERVER)
  const char* what;               // "env server", for messages
  const char* python_hint;        // what the interpreter needs, for messages ("gymnasium")
  uint32_t magic;                 // NE_PYPROC_OFF_MAGIC's value
  uint32_t version;               // NE_PYPROC_OFF_VERSION's value
  const char* timeout_env;        // variable overriding call_timeout_s (seconds)
  double call_timeout_s;          // how long one call may take
  const char* timeout_key;        // the config key that sets the limit too, for messages (NULL: none)
  double notice_s;                // a call still waiting is announced on stderr this often (0: never)
  const char* start_timeout_env;  // variable overriding start_timeout_s
  double start_timeout_s;         // Python start + imports + the server's own set-up
} ne__pyproc_kind;

// One server process. Zero it before the first start; owned by one thread at a time.
typedef struct ne__pyproc {
  const ne__pyproc_kind* kind;  // set by start
  int running;                  // 1 while pid, sock, memfd and mem are valid
  pid_t pid;                    // the server process (0: none to reap)
  int sock;                     // our end of the socketpair
  int memfd;                    // the block's file (kept open so that it can grow)
  unsigned char* mem;           // (mem_bytes) the shared block
  size_t mem_bytes;             // size of our mapping
  uint32_t seq;                 // number of the last request sent (1: the startup reply awaited)
  unsigned undrained;           // doorbells received by spinning and not yet read from the socket
  double spin_max_s;            // the spin budget (NEUROEVO_GYM_SPIN_US)
  double spin_s;                // the adaptive budget: spin_max_s after a caught reply, quartered after a miss
  unsigned since_probe;         // calls since spinning was given up (spin_s = 0)
  double call_timeout_s;        // how long one call may take
  int err;                      // 0, or the NE_E* code of the last failure
  char errstr[NE_ERRSTR_LEN];   // its message, prefixed with the `who` of the failing call
} ne__pyproc;

// Starts `python <script> --sock 3 --shm 4 --shm-bytes N [args...]` with a block of shm_bytes and waits
// for its startup reply, returned in *reply (hello, or an error reply: see ne__pyproc_error). `who`
// prefixes every message ("gym:CartPole-v1"). The interpreter is $NEUROEVO_PYTHON or python3; the
// script is $<kind->script_env>, this source tree's python/neuroevo/<module>.py, or the installed
// module. On failure the process is gone and p->errstr says why. args: NULL-terminated, nullable.
int ne__pyproc_start(ne__pyproc* p, const ne__pyproc_kind* kind, const char* who, size_t shm_bytes,
                     const char* const* args, char* reply);

// Sends command cmd and waits for its reply byte (*reply): OK, ERROR or the protocol's own. `what`
// names the call in messages ("reset"). A dead or silent server is killed and NE_EIO returned.
int ne__pyproc_call(ne__pyproc* p, const char* who, char cmd, const char* what, char* reply);

// Turns an error reply into a failure: p->err and p->errstr get the server's code and message
// (prefixed with who); the server is killed. Returns the code.
int ne__pyproc_error(ne__pyproc* p, const char* who);

// Records a failure, kills the server at once and returns code.
int ne__pyproc_fail(ne__pyproc* p, const char* who, int code, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

// Grows the block to at least `bytes` (rounded up to a power of two) before this side writes that far.
// NE_EIO (with p->errstr) when the memfd cannot grow.
int ne__pyproc_reserve(ne__pyproc* p, const char* who, size_t bytes);

// Ends the server: politely (the quit command, then up to 2 s to exit) or at once; releases
// everything. Safe on a stopped or zeroed p.
void ne__pyproc_stop(ne__pyproc* p, int polite);

// Little helpers for the block's fields (offsets are multiples of their size from a page-aligned map).
int32_t ne__pyproc_i32(const ne__pyproc* p, size_t off);
uint32_t ne__pyproc_u32(const ne__pyproc* p, size_t off);
uint64_t ne__pyproc_u64(const ne__pyproc* p, size_t off);
double ne__pyproc_f64(const ne__pyproc* p, size_t off);
void ne__pyproc_put(ne__pyproc* p, size_t off, const void* data, size_t len);

#endif
