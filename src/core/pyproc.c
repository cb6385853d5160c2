// SPDX-License-Identifier: MIT
// A Python child process served through a shared-memory block and one-byte doorbells (pyproc.h): the
// process start, the block (which can grow), request/reply publication, the adaptive spin before
// sleeping on the socket, and the description of a server that raised, died or hung. Used by the
// Gymnasium bridge (one server per env state, a call per env step: the spin matters there) and the
// optimizer server (one per run, a call per ask or tell). Calls allocate nothing; a start costs one
// Python start (~0.5 s).
#define _GNU_SOURCE  // memfd_create, MSG_NOSIGNAL

#include "core/pyproc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"  // ne__set_error, ne__now

extern char** environ;  // handed to the server unchanged (PYTHONPATH, virtualenvs, ...)

#define QUIT_WAIT_MS 2000  // how long a quitting server may take to clean up
// spin before sleeping on a reply (NEUROEVO_GYM_SPIN_US; 0: never spin): covers a small env's step;
// a longer call costs one sleep as before
#define SPIN_US 50.0
#define SPIN_MAX_US 10000.0  // the largest NEUROEVO_GYM_SPIN_US taken: a probe costs the whole budget
#define DRAIN_EVERY 32       // unread doorbells (replies caught by spinning) drained per batch
#define PROBE_EVERY 128      // after spinning was given up, calls between two full-budget tries
#define MAX_ARGS 32          // extra arguments a server may get
#if defined(__x86_64__) || defined(__i386__)
#define SPIN_OK 1  // x86 keeps the server's stores in order: a seen reply number means its data is there
#define cpu_relax() __builtin_ia32_pause()
#else
#define SPIN_OK 0  // elsewhere only the socket's syscalls order the block's contents
#define cpu_relax() ((void)0)
#endif

// ---- small helpers -----------------------------------------------------------------------------

int32_t ne__pyproc_i32(const ne__pyproc* p, size_t off) {
  int32_t v;
  memcpy(&v, p->mem + off, sizeof v);
  return v;
}

uint32_t ne__pyproc_u32(const ne__pyproc* p, size_t off) {
  uint32_t v;
  memcpy(&v, p->mem + off, sizeof v);
  return v;
}

uint64_t ne__pyproc_u64(const ne__pyproc* p, size_t off) {
  uint64_t v;
  memcpy(&v, p->mem + off, sizeof v);
  return v;
}

double ne__pyproc_f64(const ne__pyproc* p, size_t off) {
  double v;
  memcpy(&v, p->mem + off, sizeof v);
  return v;
}

void ne__pyproc_put(ne__pyproc* p, size_t off, const void* data, size_t len) { memcpy(p->mem + off, data, len); }

// a 32-bit word of the shared block
static uint32_t* word(const ne__pyproc* p, size_t off) { return (uint32_t*)(void*)(p->mem + off); }

// seconds from an environment variable, or dflt when unset or not a positive number
static double env_seconds(const char* name, double dflt) {
  const char* s = name ? getenv(name) : NULL;
  char* end;
  double v = s ? strtod(s, &end) : 0;
  return s && end != s && v > 0 ? v : dflt;
}

// the spin budget in seconds: NEUROEVO_GYM_SPIN_US microseconds (0 turns spinning off; at most
// SPIN_MAX_US), else SPIN_US
static double spin_seconds(void) {
  const char* s = getenv("NEUROEVO_GYM_SPIN_US");
  char* end;
  double v = s ? strtod(s, &end) : 0;
  if (!s || end == s || !(v >= 0)) v = SPIN_US;
  return (v < SPIN_MAX_US ? v : SPIN_MAX_US) * 1e-6;
}

// how a reaped process ended, as "exited with status 1" / "was killed by signal 11 (SIGSEGV)"
static void describe_exit(int status, char* buf, size_t size) {
  if (WIFEXITED(status)) {
    snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
    return;
  }
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  const char* name = sig == SIGSEGV ? " (SIGSEGV)"
      : sig == SIGABRT              ? " (SIGABRT)"
      : sig == SIGKILL              ? " (SIGKILL)"
      : sig == SIGBUS               ? " (SIGBUS)"
      : sig == SIGFPE               ? " (SIGFPE)"
      : sig == SIGTERM              ? " (SIGTERM)"
                                    : "";
  snprintf(buf, size, "was killed by signal %d%s", sig, name);
}

// Waits up to ms for the server to exit (then kills it) and reaps it; returns its wait status.
static int reap(ne__pyproc* p, int ms) {
  int status = 0;
  for (int waited = 0; p->pid > 0; waited += 10) {
    pid_t r = waitpid(p->pid, &status, WNOHANG);
    if (r == p->pid || (r < 0 && errno != EINTR)) break;
    if (waited >= ms) {
      kill(p->pid, SIGKILL);
      while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
  }
  p->pid = 0;
  return status;
}

// Publishes the next request (the block's contents are written before its number) and rings the
// doorbell; returns -1 when the socket is gone.
static int post(ne__pyproc* p, char cmd) {
  p->seq++;
  __atomic_store_n(word(p, NE_PYPROC_OFF_REQ_CMD), (uint32_t)(unsigned char)cmd, __ATOMIC_RELAXED);
  __atomic_store_n(word(p, NE_PYPROC_OFF_REQ_SEQ), p->seq, __ATOMIC_RELEASE);
  return send(p->sock, &cmd, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

void ne__pyproc_stop(ne__pyproc* p, int polite) {
  if (p->running && polite && post(p, NE_PYPROC_CMD_QUIT) != 0) polite = 0;
  if (p->running) {
    close(p->sock);
    close(p->memfd);
    munmap(p->mem, p->mem_bytes);
  }
  reap(p, polite ? QUIT_WAIT_MS : 0);
  p->running = 0;
  p->sock = p->memfd = -1;
  p->mem = NULL;
  p->mem_bytes = 0;
}

int ne__pyproc_fail(ne__pyproc* p, const char* who, int code, const char* fmt, ...) {
  char msg[NE_ERRSTR_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ne__pyproc_stop(p, 0);
  p->err = code;
  ne__set_error(p->errstr, code, "%s: %s", who, msg);
  return code;
}

// ---- the block -----------------------------------------------------------------------------------

// Maps the block's current size (the header says it; never less than what we map now).
static int remap(ne__pyproc* p, size_t bytes) {
  void* mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd, 0);
  if (mem == MAP_FAILED) return -1;
  munmap(p->mem, p->mem_bytes);
  p->mem = mem;
  p->mem_bytes = bytes;
  return 0;
}

int ne__pyproc_reserve(ne__pyproc* p, const char* who, size_t bytes) {
  if (!p->running) return ne__pyproc_fail(p, who, NE_ESTATE, "the %s is not running", p->kind->what);
  if (bytes <= p->mem_bytes) return 0;
  size_t size = p->mem_bytes;
  while (size < bytes) size *= 2;
  if (ftruncate(p->memfd, (off_t)size) != 0 || remap(p, size) != 0)
    return ne__pyproc_fail(p, who, NE_EIO, "cannot grow the shared block to %zu bytes: %s", size, strerror(errno));
  uint64_t v = size;
  memcpy(p->mem + NE_PYPROC_OFF_BYTES, &v, sizeof v);
  return 0;
}

// Follows a block the server grew: maps its new size.
static int follow(ne__pyproc* p, const char* who) {
  uint64_t size = ne__pyproc_u64(p, NE_PYPROC_OFF_BYTES);
  if (size <= p->mem_bytes) return 0;
  off_t real = lseek(p->memfd, 0, SEEK_END);
  if (real < 0 || (uint64_t)real < size)
    return ne__pyproc_fail(p, who, NE_ECORRUPT, "the %s says the block has %llu bytes, the file %lld", p->kind->what,
                           (unsigned long long)size, (long long)real);
  if (remap(p, (size_t)size) != 0)
    return ne__pyproc_fail(p, who, NE_EIO, "cannot map the grown block (%llu bytes): %s", (unsigned long long)size,
                           strerror(errno));
  return 0;
}

// ---- the process --------------------------------------------------------------------------------

// the script's path: $<script_env>, this source tree's copy, or NULL for `python -m neuroevo.<module>`
static const char* script_path(const ne__pyproc_kind* k, char* buf, size_t size) {
  const char* script = getenv(k->script_env);
  if (script && *script) return script;
#ifdef NE_SOURCE_DIR
  snprintf(buf, size, "%s/python/neuroevo/%s.py", NE_SOURCE_DIR, k->module);
  if (access(buf, R_OK) == 0) return buf;
#else
  (void)buf;
  (void)size;
#endif
  return NULL;
}

// posix_spawn with fds 3 (socket) and 4 (block), its own process group, no blocked signals and
// default dispositions; 0 or an errno value
static int spawn_child(pid_t* pid, const char* python, const char* const* argv, int child_sock, int child_mem) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, child_sock, 3);
  posix_spawn_file_actions_adddup2(&fa, child_mem, 4);
  posix_spawnattr_init(&at);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &defaults);
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  int rc = posix_spawnp(pid, python, &fa, &at, (char* const*)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  return rc;
}

// Creates the socketpair and the block, and starts the interpreter on the server script.
static int spawn(ne__pyproc* p, const char* who, size_t shm_bytes, const char* const* args) {
  int sv[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return ne__pyproc_fail(p, who, NE_EIO, "socketpair: %s", strerror(errno));
  int memfd = memfd_create(p->kind->module, MFD_CLOEXEC);
  void* mem = MAP_FAILED;
  if (memfd >= 0 && ftruncate(memfd, (off_t)shm_bytes) == 0)
    mem = mmap(NULL, shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
  // the child's copies sit above 9, so that dup2 onto 3 and 4 cannot overwrite each other's source
  int child_sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
  int child_mem = memfd >= 0 ? fcntl(memfd, F_DUPFD_CLOEXEC, 10) : -1;
  int e = errno;
  close(sv[1]);
  if (mem == MAP_FAILED || child_sock < 0 || child_mem < 0) {
    if (mem != MAP_FAILED) munmap(mem, shm_bytes);
    if (memfd >= 0) close(memfd);
    close(sv[0]);
    if (child_sock >= 0) close(child_sock);
    if (child_mem >= 0) close(child_mem);
    return ne__pyproc_fail(p, who, NE_EIO, "cannot create the shared block: %s", strerror(e));
  }
  uint64_t size = shm_bytes;
  memcpy((unsigned char*)mem + NE_PYPROC_OFF_BYTES, &size, sizeof size);

  // argv: python SCRIPT|-m neuroevo.MODULE --sock 3 --shm 4 --shm-bytes N ARGS...
  const char* python = getenv("NEUROEVO_PYTHON");
  if (!python || !*python) python = "python3";
  char path[4096], module[64], bytes[32];
  const char* script = script_path(p->kind, path, sizeof path);
  snprintf(module, sizeof module, "neuroevo.%s", p->kind->module);
  snprintf(bytes, sizeof bytes, "%zu", shm_bytes);
  const char* argv[MAX_ARGS + 12];
  int n = 0;
  argv[n++] = python;
  if (!script) argv[n++] = "-m";
  argv[n++] = script ? script : module;
  const char* fixed[] = {"--sock", "3", "--shm", "4", "--shm-bytes", bytes};
  for (int i = 0; i < 6; i++) argv[n++] = fixed[i];
  for (int i = 0; args && args[i] && i < MAX_ARGS; i++) argv[n++] = args[i];
  argv[n] = NULL;

  pid_t pid;
  int rc = spawn_child(&pid, python, argv, child_sock, child_mem);
  close(child_sock);
  close(child_mem);
  if (rc != 0) {
    munmap(mem, shm_bytes);
    close(memfd);
    close(sv[0]);
    return ne__pyproc_fail(p, who, NE_EIO,
                           "cannot start the %s with '%s': %s (set NEUROEVO_PYTHON to a Python that has %s)",
                           p->kind->what, python, strerror(rc), p->kind->python_hint);
  }
  p->pid = pid;
  p->sock = sv[0];
  p->memfd = memfd;
  p->mem = mem;
  p->mem_bytes = shm_bytes;
  p->seq = 1;  // the startup reply's number
  p->undrained = 0;
  p->spin_max_s = p->spin_s = spin_seconds();
  p->since_probe = 0;
  p->call_timeout_s = env_seconds(p->kind->timeout_env, p->kind->call_timeout_s);
  p->running = 1;
  return 0;
}

// ---- waiting for a reply -----------------------------------------------------------------------

// 1 once reply number p->seq is published; its data may then be read (acquire).
static int replied(const ne__pyproc* p) {
  return __atomic_load_n(word(p, NE_PYPROC_OFF_REP_SEQ), __ATOMIC_ACQUIRE) == p->seq;
}

// Spins up to spin_s for the reply: 0 missed, 1 caught in time, 2 caught late (the spinner lost its
// core meanwhile, which says the machine is oversubscribed). It never yields: on a busy core a yield
// gives the core away for a whole time slice, where a sleep on the socket gets it back at the doorbell.
static int spin_for_reply(const ne__pyproc* p, double spin_s) {
  double end = ne__now() + spin_s;
  for (unsigned i = 1;; i++) {
    if (replied(p)) return ne__now() <= end ? 1 : 2;
    cpu_relax();
    if (i % 64 == 0 && ne__now() > end) return 0;
  }
}

// Spins for the reply with the adaptive budget, which it updates (glibc's adaptive mutexes do the
// like): a spin pays only while the server runs on another core; on an oversubscribed machine it
// steals the server's time, so misses (late catches too) quarter the budget down to 0, and a full
// spin is tried again every PROBE_EVERY calls to notice when cores free up.
static int spin_adaptive(ne__pyproc* p) {
  if (!SPIN_OK || p->spin_max_s <= 0) return 0;
  double budget = p->spin_s;
  if (budget <= 0) {
    if (++p->since_probe < PROBE_EVERY) return 0;
    p->since_probe = 0;
    budget = p->spin_max_s;
  }
  int caught = spin_for_reply(p, budget);
  p->spin_s = caught == 1 ? p->spin_max_s : budget / 4 < 1e-6 ? 0 : budget / 4;
  return caught != 0;
}

// "(call_timeout in the config, or NEUROEVO_OPT_TIMEOUT, sets the limit)"-style hint into buf
static void limit_hint(const ne__pyproc* p, char* buf, size_t size) {
  if (p->kind->timeout_key)
    snprintf(buf, size, "%s in the config, or %s, sets the limit", p->kind->timeout_key, p->kind->timeout_env);
  else snprintf(buf, size, "%s sets the limit", p->kind->timeout_env);
}

// Sleeps on the socket until the reply is published (a doorbell wakes us), the server dies (the
// socket closes: it is reaped and its exit described) or timeout_s passes; says so while it waits.
static int sleep_for_reply(ne__pyproc* p, const char* who, double timeout_s, const char* what) {
  double start = ne__now(), deadline = start + timeout_s;
  double every = p->kind->notice_s > 0 ? fmin(p->kind->notice_s, timeout_s / 4) : 0;
  double notice_at = every > 0 ? start + every : INFINITY;
  char hint[160];
  for (;;) {
    if (replied(p)) return 0;
    double now = ne__now(), left = deadline - now;
    if (left <= 0) {
      limit_hint(p, hint, sizeof hint);
      return ne__pyproc_fail(p, who, NE_EIO, "no reply from the %s to %s within %.0f s (%s)", p->kind->what, what,
                             timeout_s, hint);
    }
    if (now >= notice_at) {
      limit_hint(p, hint, sizeof hint);
      double waited = now - start;
      fprintf(stderr, "neuroevo: %s: still waiting for %s: %.*f s so far (it fails after %.0f s; %s)\n", who, what,
              waited < 10 ? 1 : 0, waited, timeout_s, hint);
      notice_at += every;
    }
    double wait = fmin(left, notice_at - now);
    struct pollfd pfd = {p->sock, POLLIN, 0};
    int r = poll(&pfd, 1, wait < 2e6 ? (int)ceil(wait * 1000) : 2000000000);  // an int of milliseconds
    if (r < 0 && errno != EINTR)
      return ne__pyproc_fail(p, who, NE_EIO, "poll on the %s's socket: %s", p->kind->what, strerror(errno));
    if (r <= 0) continue;
    char bells[256];
    ssize_t n = recv(p->sock, bells, sizeof bells, MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN))) {
      p->undrained = 0;
      continue;
    }
    if (replied(p)) return 0;  // it answered, then exited
    char how[96];
    describe_exit(reap(p, QUIT_WAIT_MS), how, sizeof how);
    return ne__pyproc_fail(p, who, NE_EIO, "the %s %s during %s%s", p->kind->what, how, what,
                           strcmp(what, "startup") == 0 ? " (its own message is on stderr)" : "");
  }
}

// Waits for the reply to request p->seq within timeout_s and returns its byte in *reply.
static int wait_reply(ne__pyproc* p, const char* who, double timeout_s, const char* what, char* reply) {
  if (spin_adaptive(p)) {
    // the doorbell that came with it is still in the socket: read them in batches
    if (++p->undrained >= DRAIN_EVERY) {
      char bells[256];
      while (recv(p->sock, bells, sizeof bells, MSG_DONTWAIT) == (ssize_t)sizeof bells) {
      }
      p->undrained = 0;
    }
  } else {
    int rc = sleep_for_reply(p, who, timeout_s, what);
    if (rc) return rc;
  }
  *reply = (char)__atomic_load_n(word(p, NE_PYPROC_OFF_REP_BYTE), __ATOMIC_RELAXED);
  return follow(p, who);
}

int ne__pyproc_error(ne__pyproc* p, const char* who) {
  char msg[NE_PYPROC_ERRMSG_LEN];
  memcpy(msg, p->mem + NE_PYPROC_OFF_ERRMSG, sizeof msg);
  msg[sizeof msg - 1] = '\0';
  int code = ne__pyproc_i32(p, NE_PYPROC_OFF_CODE);
  if (code >= 0 || code < NE_EPHYSICS) code = NE_EIO;
  return ne__pyproc_fail(p, who, code, "%s", msg);
}

int ne__pyproc_call(ne__pyproc* p, const char* who, char cmd, const char* what, char* reply) {
  if (!p->running) return ne__pyproc_fail(p, who, NE_ESTATE, "%s without a running %s", what, p->kind->what);
  if (post(p, cmd) != 0) {
    char how[96];
    describe_exit(reap(p, QUIT_WAIT_MS), how, sizeof how);
    return ne__pyproc_fail(p, who, NE_EIO, "the %s %s before %s", p->kind->what, how, what);
  }
  return wait_reply(p, who, p->call_timeout_s, what, reply);
}

int ne__pyproc_start(ne__pyproc* p, const ne__pyproc_kind* kind, const char* who, size_t shm_bytes,
                     const char* const* args, char* reply) {
  if (p->running) ne__pyproc_stop(p, 0);
  p->kind = kind;
  p->err = 0;
  p->errstr[0] = '\0';
  int rc = spawn(p, who, shm_bytes, args);
  if (!rc) rc = wait_reply(p, who, env_seconds(kind->start_timeout_env, kind->start_timeout_s), "startup", reply);
  if (rc) return rc;
  uint32_t magic = ne__pyproc_u32(p, NE_PYPROC_OFF_MAGIC), version = ne__pyproc_u32(p, NE_PYPROC_OFF_VERSION);
  if (magic != kind->magic || version != kind->version)
    return ne__pyproc_fail(p, who, NE_EVERSION, "the %s speaks protocol %u, this library %u (mixed installations?)",
                           kind->what, magic == kind->magic ? version : 0u, kind->version);
  return 0;
}
