// SPDX-License-Identifier: MIT
// The Gymnasium bridge: `env.id = gym:ID` (or gym:module:ID, which imports `module` first, as
// gymnasium.make does) makes any installed Gymnasium env a neuroevo env. Each env state owns one
// server process (python/neuroevo/envserver.py), started by its first reset, that holds the Python
// env; they exchange actions and observations through a shared-memory block (gym_proto.h) and
// one-byte doorbells on a socketpair, so no Python interpreter ever runs inside a C worker. A reply is
// first awaited by spinning on the block's reply number for NEUROEVO_GYM_SPIN_US (x86 only, where
// the server's plain stores are ordered), then by sleeping on the socket: the spin saves the two
// process wake-ups per step that dominate the bridge's cost when both processes have a core. A server
// that raises, crashes or hangs is killed and the failure is reported through the family's status
// hook with the env id in the message; the next reset starts a fresh server (the evaluator retries
// a candidate once). Steps allocate nothing; a server start costs one Python start (~0.5 s).
#define _GNU_SOURCE  // memfd_create, MSG_NOSIGNAL

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"           // ne__set_error, ne__now
#include "envs/envs_int.h"       // ne_env_entry
#include "envs/gym/gym_proto.h"  // the shared block's layout
#include "neuroevo/error.h"

extern char** environ;  // handed to the server unchanged (PYTHONPATH, virtualenvs, ...)

#define PREFIX "gym:"
#define SHM_BYTES ((size_t)16 << 20)  // header + up to ~4M float observations; tmpfs pages are touched only as used
#define START_TIMEOUT_S 120.0         // Python start + imports + gymnasium.make (MuJoCo models load slowly)
#define CALL_TIMEOUT_S 60.0           // one reset or step (NEUROEVO_GYM_TIMEOUT overrides)
#define QUIT_WAIT_MS 2000             // how long a quitting server may take to close its env
// (a #define whose comment goes on over the next line: left as written)
// clang-format off
#define SPIN_US 50.0                  // spin before sleeping on a reply (NEUROEVO_GYM_SPIN_US; 0: never spin):
                                      // covers a small env's step; a longer step costs one sleep as before
// clang-format on
#define SPIN_MAX_US 10000.0  // the largest NEUROEVO_GYM_SPIN_US taken: a probe costs the whole budget
#define DRAIN_EVERY 32       // unread doorbells (replies caught by spinning) drained per batch
#define PROBE_EVERY 128      // after spinning was given up, calls between two full-budget tries
#if defined(__x86_64__) || defined(__i386__)
#define SPIN_OK 1  // x86 keeps the server's stores in order: a seen reply number means its data is there
#define cpu_relax() __builtin_ia32_pause()
#else
#define SPIN_OK 0  // elsewhere only the socket's syscalls order the block's contents
#define cpu_relax() ((void)0)
#endif

// One server process, owned by one env state (the family's impl; zeroed by ne_env_state_create).
typedef struct gym_server {
  int running;                 // 1 while pid, sock and mem are valid
  pid_t pid;                   // the server process (0: none to reap)
  int sock;                    // our end of the socketpair
  unsigned char* mem;          // (SHM_BYTES) the shared block
  uint32_t seq;                // number of the last request sent (1: the startup reply awaited)
  unsigned undrained;          // doorbells received by spinning and not yet read from the socket
  double spin_max_s;           // the spin budget (NEUROEVO_GYM_SPIN_US)
  double spin_s;               // the adaptive budget: spin_max_s after a caught reply, quartered after a miss
  unsigned since_probe;        // calls since spinning was given up (spin_s = 0)
  double call_timeout_s;       // how long one reset or step may take (NEUROEVO_GYM_TIMEOUT)
  int err;                     // 0, or the NE_E* code of the last failed reset/step
  char errstr[NE_ERRSTR_LEN];  // its message, naming the env id
} gym_server;

// ---- small helpers -----------------------------------------------------------------------------

static int32_t rd_i32(const unsigned char* m, int off) {
  int32_t v;
  memcpy(&v, m + off, sizeof v);
  return v;
}

static double rd_f64(const unsigned char* m, int off) {
  double v;
  memcpy(&v, m + off, sizeof v);
  return v;
}

// a 32-bit word of the shared block (offsets are multiples of 4 from a page-aligned mapping)
static uint32_t* word(const gym_server* s, int off) { return (uint32_t*)(void*)(s->mem + off); }

// seconds from an environment variable, or dflt when unset or not a positive number
static double env_seconds(const char* name, double dflt) {
  const char* s = getenv(name);
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
static int reap(gym_server* s, int ms) {
  int status = 0;
  for (int waited = 0; s->pid > 0; waited += 10) {
    pid_t r = waitpid(s->pid, &status, WNOHANG);
    if (r == s->pid || (r < 0 && errno != EINTR)) break;
    if (waited >= ms) {
      kill(s->pid, SIGKILL);
      while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
  }
  s->pid = 0;
  return status;
}

// Publishes the next request (the block's contents are written before its number) and rings the
// doorbell; returns -1 when the socket is gone.
static int post(gym_server* s, char cmd) {
  s->seq++;
  __atomic_store_n(word(s, NE_GYM_OFF_REQ_CMD), (uint32_t)(unsigned char)cmd, __ATOMIC_RELAXED);
  __atomic_store_n(word(s, NE_GYM_OFF_REQ_SEQ), s->seq, __ATOMIC_RELEASE);
  return send(s->sock, &cmd, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

// Ends the server: politely (quit command, time to close its env) or at once; releases everything.
static void stop(gym_server* s, int polite) {
  if (s->running && polite && post(s, NE_GYM_CMD_QUIT) != 0) polite = 0;
  if (s->running) {
    close(s->sock);
    munmap(s->mem, SHM_BYTES);
  }
  reap(s, polite ? QUIT_WAIT_MS : 0);
  s->running = 0;
  s->sock = -1;
  s->mem = NULL;
}

// Records a failure (the status hook reports it), stops the server at once and returns code.
static int fail(gym_server* s, const char* id, int code, const char* fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(gym_server* s, const char* id, int code, const char* fmt, ...) {
  char msg[NE_ERRSTR_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  stop(s, 0);
  s->err = code;
  ne__set_error(s->errstr, code, "%s: %s", id, msg);
  return code;
}

// ---- the server process --------------------------------------------------------------------------

static const char* python_path(void);

// Starts `python envserver.py --sock 3 --shm 4 --shm-bytes N --env ID`. The interpreter is
// $NEUROEVO_PYTHON (the Python package sets it to its own sys.executable) or python3; the script is
// $NEUROEVO_ENVSERVER, this source tree's copy, or the installed module.
static int spawn(gym_server* s, const char* id) {
  int sv[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return fail(s, id, NE_EIO, "socketpair: %s", strerror(errno));
  int memfd = memfd_create("neuroevo-gym", MFD_CLOEXEC);
  if (memfd < 0 || ftruncate(memfd, (off_t)SHM_BYTES) != 0) {
    int e = errno;
    close(sv[0]);
    close(sv[1]);
    if (memfd >= 0) close(memfd);
    return fail(s, id, NE_EIO, "cannot create the shared block: %s", strerror(e));
  }
  void* mem = mmap(NULL, SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
  // the child's copies sit above 9, so that dup2 onto 3 and 4 cannot overwrite each other's source
  int child_sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
  int child_mem = fcntl(memfd, F_DUPFD_CLOEXEC, 10);
  close(sv[1]);
  close(memfd);
  if (mem == MAP_FAILED || child_sock < 0 || child_mem < 0) {
    int e = errno;
    if (mem != MAP_FAILED) munmap(mem, SHM_BYTES);
    close(sv[0]);
    if (child_sock >= 0) close(child_sock);
    if (child_mem >= 0) close(child_mem);
    return fail(s, id, NE_EIO, "cannot map the shared block: %s", strerror(e));
  }

  // argv
  const char* python = python_path();
  const char* script = getenv("NEUROEVO_ENVSERVER");
#ifdef NE_SOURCE_DIR
  static const char tree_script[] = NE_SOURCE_DIR "/python/neuroevo/envserver.py";
  if ((!script || !*script) && access(tree_script, R_OK) == 0) script = tree_script;
#endif
  char shm_bytes[32];
  snprintf(shm_bytes, sizeof shm_bytes, "%zu", SHM_BYTES);
  const char* gym_id = id + strlen(PREFIX);
  const char* argv_script[] = {python,        script,    "--sock", "3",    "--shm", "4",
                               "--shm-bytes", shm_bytes, "--env",  gym_id, NULL};
  const char* argv_module[] = {
      python, "-m", "neuroevo.envserver", "--sock", "3", "--shm", "4", "--shm-bytes", shm_bytes, "--env", gym_id, NULL};
  const char* const* argv = script && *script ? argv_script : argv_module;

  // own process group (a terminal's Ctrl-C goes to the trainer, which stops cleanly, not to the
  // servers), no blocked signals, default dispositions
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
  pid_t pid;
  int rc = posix_spawnp(&pid, python, &fa, &at, (char* const*)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(child_sock);
  close(child_mem);
  if (rc != 0) {
    munmap(mem, SHM_BYTES);
    close(sv[0]);
    return fail(s, id, NE_EIO,
                "cannot start the env server with '%s': %s (set NEUROEVO_PYTHON to a Python that has gymnasium)",
                python, strerror(rc));
  }
  s->pid = pid;
  s->sock = sv[0];
  s->mem = mem;
  s->seq = 1;  // the startup reply's number
  s->undrained = 0;
  s->spin_max_s = s->spin_s = spin_seconds();
  s->since_probe = 0;
  s->call_timeout_s = env_seconds("NEUROEVO_GYM_TIMEOUT", CALL_TIMEOUT_S);
  s->running = 1;
  return 0;
}

// 1 once reply number s->seq is published; its data may then be read (acquire).
static int replied(const gym_server* s) {
  return __atomic_load_n(word(s, NE_GYM_OFF_REP_SEQ), __ATOMIC_ACQUIRE) == s->seq;
}

// Spins up to spin_s for the reply: 0 missed, 1 caught in time, 2 caught late (the spinner lost its
// core meanwhile, which says the machine is oversubscribed). It never yields: on a busy core a yield
// gives the core away for a whole time slice, where a sleep on the socket gets it back at the doorbell.
static int spin_for_reply(const gym_server* s, double spin_s) {
  double end = ne__now() + spin_s;
  for (unsigned i = 1;; i++) {
    if (replied(s)) return ne__now() <= end ? 1 : 2;
    cpu_relax();
    if (i % 64 == 0 && ne__now() > end) return 0;
  }
}

// Spins for the reply with the adaptive budget, which it updates (glibc's adaptive mutexes do the
// like): a spin pays only while the server runs on another core; on an oversubscribed machine it
// steals the server's time, so misses (late catches too) quarter the budget down to 0, and a full
// spin is tried again every PROBE_EVERY calls to notice when cores free up.
static int spin_adaptive(gym_server* s) {
  if (!SPIN_OK || s->spin_max_s <= 0) return 0;
  double budget = s->spin_s;
  if (budget <= 0) {
    if (++s->since_probe < PROBE_EVERY) return 0;
    s->since_probe = 0;
    budget = s->spin_max_s;
  }
  int caught = spin_for_reply(s, budget);
  s->spin_s = caught == 1 ? s->spin_max_s : budget / 4 < 1e-6 ? 0 : budget / 4;
  return caught != 0;
}

// Sleeps on the socket until the reply is published (a doorbell wakes us), the server dies (the
// socket closes: it is reaped and its exit described) or timeout_s passes.
static int sleep_for_reply(gym_server* s, const char* id, double timeout_s, const char* what) {
  double deadline = ne__now() + timeout_s;
  for (;;) {
    if (replied(s)) return 0;
    double left = deadline - ne__now();
    if (left <= 0)
      return fail(s, id, NE_EIO,
                  "no reply from the env server to %s within %.0f s (NEUROEVO_GYM_TIMEOUT sets the limit)", what,
                  timeout_s);
    struct pollfd p = {s->sock, POLLIN, 0};
    int r = poll(&p, 1, left < 2e6 ? (int)ceil(left * 1000) : 2000000000);  // an int of milliseconds
    if (r < 0 && errno != EINTR) return fail(s, id, NE_EIO, "poll on the env server's socket: %s", strerror(errno));
    if (r <= 0) continue;
    char bells[256];
    ssize_t n = recv(s->sock, bells, sizeof bells, MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN))) {
      s->undrained = 0;
      continue;
    }
    if (replied(s)) return 0;  // it answered, then exited
    char how[96];
    describe_exit(reap(s, QUIT_WAIT_MS), how, sizeof how);
    return fail(s, id, NE_EIO, "the env server %s during %s%s", how, what,
                strcmp(what, "startup") == 0 ? " (its own message is on stderr)" : "");
  }
}

// Waits for the reply to request s->seq within timeout_s and returns its byte in *reply.
static int wait_reply(gym_server* s, const char* id, double timeout_s, const char* what, char* reply) {
  if (spin_adaptive(s)) {
    // the doorbell that came with it is still in the socket: read them in batches
    if (++s->undrained >= DRAIN_EVERY) {
      char bells[256];
      while (recv(s->sock, bells, sizeof bells, MSG_DONTWAIT) == (ssize_t)sizeof bells) {
      }
      s->undrained = 0;
    }
  } else {
    int rc = sleep_for_reply(s, id, timeout_s, what);
    if (rc) return rc;
  }
  *reply = (char)__atomic_load_n(word(s, NE_GYM_OFF_REP_BYTE), __ATOMIC_RELAXED);
  return 0;
}

// Turns an error reply into a failure carrying the server's code and message.
static int server_error(gym_server* s, const char* id) {
  char msg[NE_GYM_ERRMSG_LEN];
  memcpy(msg, s->mem + NE_GYM_OFF_ERRMSG, sizeof msg);
  msg[sizeof msg - 1] = '\0';
  int code = rd_i32(s->mem, NE_GYM_OFF_CODE);
  if (code >= 0 || code < NE_EUNSUPPORTED) code = NE_EIO;
  return fail(s, id, code, "%s", msg);
}

// Sends one command and waits for its reply.
static int call(gym_server* s, const char* id, char cmd, const char* what) {
  if (post(s, cmd) != 0) {
    char how[96];
    describe_exit(reap(s, QUIT_WAIT_MS), how, sizeof how);
    return fail(s, id, NE_EIO, "the env server %s before %s", how, what);
  }
  char reply;
  int rc = wait_reply(s, id, s->call_timeout_s, what, &reply);
  if (rc) return rc;
  if (reply == NE_GYM_REPLY_OK) return 0;
  if (reply == NE_GYM_REPLY_ERROR) return server_error(s, id);
  return fail(s, id, NE_ECORRUPT, "unexpected reply byte 0x%02x from the env server to %s", (unsigned char)reply, what);
}

// Copies the spaces the server found into spec.
static void read_spec(const unsigned char* m, ne_env_spec* spec) {
  spec->obs_dim = rd_i32(m, NE_GYM_OFF_OBS_DIM);
  spec->obs_rank = rd_i32(m, NE_GYM_OFF_OBS_RANK);
  for (int i = 0; i < 3; i++) spec->obs_shape[i] = rd_i32(m, NE_GYM_OFF_OBS_SHAPE + 4 * i);
  spec->discrete = rd_i32(m, NE_GYM_OFF_DISCRETE);
  spec->n_actions = rd_i32(m, NE_GYM_OFF_N_ACTIONS);
  spec->act_dim = rd_i32(m, NE_GYM_OFF_ACT_DIM);
  for (int i = 0; i < spec->act_dim && i < NE_ENV_MAX_ACT; i++) {
    spec->act_low[i] = (float)rd_f64(m, NE_GYM_OFF_ACT_LOW + 8 * i);
    spec->act_high[i] = (float)rd_f64(m, NE_GYM_OFF_ACT_HIGH + 8 * i);
  }
  spec->max_episode_steps = rd_i32(m, NE_GYM_OFF_MAX_STEPS);
  spec->has_threshold = rd_i32(m, NE_GYM_OFF_HAS_THRESHOLD);
  spec->reward_threshold = rd_f64(m, NE_GYM_OFF_THRESHOLD);
  spec->state_dim = 0;  // Gymnasium envs have no common state layout: no set_state/get_state
}

// Starts a server and waits for its hello. With `fill`, the spec is read from it (make); otherwise
// the server's spaces must match spec (a state's server).
static int start(gym_server* s, const ne_env_spec* spec, ne_env_spec* fill) {
  const char* id = fill ? fill->id : spec->id;
  int rc = spawn(s, id);
  char reply;
  if (!rc) rc = wait_reply(s, id, env_seconds("NEUROEVO_GYM_START_TIMEOUT", START_TIMEOUT_S), "startup", &reply);
  if (rc) return rc;
  uint32_t magic, version;
  memcpy(&magic, s->mem + NE_GYM_OFF_MAGIC, 4);
  memcpy(&version, s->mem + NE_GYM_OFF_VERSION, 4);
  if (magic != NE_GYM_MAGIC || version != NE_GYM_VERSION)
    return fail(s, id, NE_EVERSION, "the env server speaks protocol %u, this library %d (mixed installations?)",
                magic == NE_GYM_MAGIC ? version : 0u, NE_GYM_VERSION);
  if (reply == NE_GYM_REPLY_ERROR) return server_error(s, id);
  if (reply != NE_GYM_REPLY_HELLO)
    return fail(s, id, NE_ECORRUPT, "unexpected reply byte 0x%02x from the env server at startup",
                (unsigned char)reply);
  ne_env_spec seen;
  memset(&seen, 0, sizeof seen);
  read_spec(s->mem, &seen);
  if (seen.obs_dim < 1 || (size_t)seen.obs_dim > (SHM_BYTES - NE_GYM_OFF_OBS) / sizeof(float) || seen.act_dim < 1 ||
      seen.act_dim > NE_ENV_MAX_ACT)
    return fail(s, id, NE_EUNSUPPORTED, "observation length %d / action length %d outside what the bridge carries",
                seen.obs_dim, seen.act_dim);
  if (fill) {
    read_spec(s->mem, fill);
    return 0;
  }
  if (seen.obs_dim != spec->obs_dim || seen.discrete != spec->discrete || seen.n_actions != spec->n_actions ||
      seen.act_dim != spec->act_dim)
    return fail(s, id, NE_ESTATE, "the env's spaces changed between two servers (obs %d -> %d, actions %d -> %d)",
                spec->obs_dim, seen.obs_dim, spec->discrete ? spec->n_actions : spec->act_dim,
                seen.discrete ? seen.n_actions : seen.act_dim);
  return 0;
}

// ---- family hooks ---------------------------------------------------------------------------------

static void gym_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  gym_server* s = impl;
  uint64_t seed = ne_rng_u64(rng);  // Gymnasium's reset(seed=...) takes any non-negative int
  // a failed server was killed when it failed; this reset starts a fresh one
  s->err = 0;
  s->errstr[0] = '\0';
  if (!s->running && start(s, spec, NULL) != 0) return;
  memcpy(s->mem + NE_GYM_OFF_SEED, &seed, sizeof seed);
  call(s, spec->id, NE_GYM_CMD_RESET, "reset");
}

static void gym_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  gym_server* s = impl;
  *reward = NAN;
  *terminated = 1;
  if (!s->running) {
    if (!s->err) fail(s, spec->id, NE_ESTATE, "step without a running env server");
    return;
  }
  // Box actions are clipped to the bounds, as neuroevo's own continuous envs do
  float a[NE_GYM_MAX_ACT];
  for (int i = 0; i < spec->act_dim; i++) {
    a[i] = act[i];
    if (!spec->discrete && a[i] < spec->act_low[i]) a[i] = spec->act_low[i];
    if (!spec->discrete && a[i] > spec->act_high[i]) a[i] = spec->act_high[i];
  }
  memcpy(s->mem + NE_GYM_OFF_ACT, a, (size_t)spec->act_dim * sizeof(float));
  if (call(s, spec->id, NE_GYM_CMD_STEP, "step")) return;
  *reward = rd_f64(s->mem, NE_GYM_OFF_REWARD);
  // the env's own truncation (not the TimeLimit, which ne_env_step applies) also ends the episode
  *terminated = rd_i32(s->mem, NE_GYM_OFF_TERMINATED) || rd_i32(s->mem, NE_GYM_OFF_TRUNCATED);
}

static void gym_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  const gym_server* s = impl;
  if (s->running) memcpy(obs, s->mem + NE_GYM_OFF_OBS, (size_t)spec->obs_dim * sizeof(float));
  else memset(obs, 0, (size_t)spec->obs_dim * sizeof(float));
}

static int gym_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  (void)impl;
  (void)v;
  (void)n;
  return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: set_state is not available through the Gymnasium bridge",
                       spec->id);
}

static void gym_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  (void)impl;
  (void)v;
}

static void gym_state_free(const ne_env_spec* spec, void* impl) {
  (void)spec;
  stop(impl, 1);
}

static int gym_status(const ne_env_spec* spec, const void* impl, char* errstr) {
  (void)spec;
  const gym_server* s = impl;
  if (s->err && errstr) snprintf(errstr, NE_ERRSTR_LEN, "%s", s->errstr);
  return s->err;
}

static const ne_env_family gym_family = {
    .name = "gym",
    .state_bytes = sizeof(gym_server),
    .reset = gym_reset,
    .step = gym_step,
    .observe = gym_observe,
    .set_state = gym_set_state,
    .get_state = gym_get_state,
    .destroy = NULL,
};

// the server is started lazily by the first reset; only its end needs a hook
static const ne_env_hooks gym_hooks = {.state_free = gym_state_free};

// Fills the spec from a short-lived probe server (each state later starts its own).
static int gym_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;  // the TimeLimit override is applied by ne_env_make
  if (strncmp(id, PREFIX, strlen(PREFIX)) != 0 || !id[strlen(PREFIX)])
    return ne__set_error(errstr, NE_EINVAL,
                         "'%s': name a Gymnasium env after gym:, e.g. gym:CartPole-v1 or "
                         "gym:my_package:MyEnv-v0",
                         id);
  if (strlen(id) >= sizeof spec->id)
    return ne__set_error(errstr, NE_ERANGE, "'%s': env ids are limited to %zu characters", id, sizeof spec->id - 1);
  snprintf(spec->id, sizeof spec->id, "%s", id);
  spec->family = &gym_family;
  spec->hooks = &gym_hooks;
  spec->status = gym_status;
  gym_server probe;
  memset(&probe, 0, sizeof probe);
  int rc = start(&probe, spec, spec);
  if (rc) return ne__set_error(errstr, rc, "%s", probe.errstr);
  stop(&probe, 1);
  return 0;
}

// The interpreter the env servers run on: $NEUROEVO_PYTHON or python3.
static const char* python_path(void) {
  const char* python = getenv("NEUROEVO_PYTHON");
  return python && *python ? python : "python3";
}

int ne__gym_lookup(const char* id, double timeout_s, char* out, size_t size) {
  // gymnasium.spec raises for an id its registry lacks, or has only in another version; the import
  // is what takes the time (~0.5 s). Prints the id to use.
  static const char code[] =
      "import sys, gymnasium\n"
      "from gymnasium.envs.registration import parse_env_id, find_highest_version\n"
      "i = sys.argv[1]\n"
      "try:\n    gymnasium.spec(i)\nexcept Exception:\n"
      "    ns, name, _ = parse_env_id(i)\n    v = find_highest_version(ns, name)\n"
      "    if v is None: sys.exit(1)\n    i = (ns + '/' if ns else '') + name + '-v' + str(v)\n"
      "print(i)\n";
  out[0] = '\0';
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return 0;
  const char* python = python_path();
  const char* argv[] = {python, "-c", code, id, NULL};
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_init(&at);
  posix_spawnattr_setpgroup(&at, 0);  // a terminal's Ctrl-C goes to us, not to the probe
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
  pid_t pid;
  int rc = posix_spawnp(&pid, python, &fa, &at, (char* const*)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return 0;
  }
  // read its one line until it exits; a probe that takes too long is no answer
  size_t got = 0;
  double end = ne__now() + timeout_s;
  for (;;) {
    double left = end - ne__now();
    struct pollfd p = {fds[0], POLLIN, 0};
    if (left <= 0 || (poll(&p, 1, (int)ceil(left * 1000)) < 0 && errno != EINTR)) break;
    ssize_t n = read(fds[0], out + got, size - 1 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
    if (got == size - 1) break;
  }
  close(fds[0]);
  out[got] = '\0';
  // its output ends when it exits (or out of time): reap it, killing it at the deadline
  int status = 0;
  for (pid_t r; (r = waitpid(pid, &status, WNOHANG)) != pid;) {
    if (r < 0 && errno != EINTR) break;
    if (ne__now() > end) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      got = 0;
      break;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  char* nl = strchr(out, '\n');
  if (nl) *nl = '\0';
  int ok = got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out[0];
  if (!ok) out[0] = '\0';
  return ok;
}

// The registry's prefix table (envs_int.h): every id that starts with "gym:".
const ne_env_entry ne__gym_envs[] = {
    {PREFIX, "any installed Gymnasium env through an env server process: gym:ID or gym:module:ID", gym_make},
    {NULL, NULL, NULL},
};
