// SPDX-License-Identifier: MIT
// The Gymnasium bridge: `env.id = gym:ID` (or gym:module:ID, which imports `module` first, as
// gymnasium.make does) makes any installed Gymnasium env a neuroevo env. Each env state owns one
// server process (python/neuroevo/envserver.py), started by its first reset, that holds the Python
// env; they exchange actions and observations through a shared-memory block (gym_proto.h) and
// one-byte doorbells on a socketpair (the process, the block and the adaptive spin are
// core/pyproc.c's, shared with the optimizer server), so no Python interpreter ever runs inside a C
// worker. A server that raises, crashes or hangs is killed and the failure is reported through the
// family's status hook with the env id in the message; the next reset starts a fresh server (the
// evaluator retries a candidate once). Steps allocate nothing; a server start costs one Python start
// (~0.5 s). ne__gym_lookup asks Gymnasium's registry about an id neuroevo does not know, so that the
// error can suggest its gym: spelling.
#define _GNU_SOURCE  // pipe2

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/pyproc.h"         // the server process and its block
#include "core/util.h"           // ne__set_error
#include "envs/envs_int.h"       // ne_env_entry
#include "envs/gym/gym_proto.h"  // the env protocol's fields
#include "neuroevo/error.h"

#define PREFIX "gym:"
#define SHM_BYTES ((size_t)16 << 20)  // header + up to ~4M float observations; tmpfs pages are touched only as used

// how the env server is started (core/pyproc.h)
static const ne__pyproc_kind env_server = {
    .module = "envserver",
    .script_env = "NEUROEVO_ENVSERVER",
    .what = "env server",
    .python_hint = "gymnasium",
    .magic = NE_GYM_MAGIC,
    .version = NE_GYM_VERSION,
    .timeout_env = "NEUROEVO_GYM_TIMEOUT",
    .call_timeout_s = 60.0,  // one reset or step
    .notice_s = 30.0,
    .start_timeout_env = "NEUROEVO_GYM_START_TIMEOUT",
    .start_timeout_s = 120.0,  // Python start + imports + gymnasium.make (MuJoCo models load slowly)
};

// Sends one command and checks its reply.
static int call(ne__pyproc* s, const char* id, char cmd, const char* what) {
  char reply;
  int rc = ne__pyproc_call(s, id, cmd, what, &reply);
  if (rc) return rc;
  if (reply == NE_PYPROC_REPLY_OK) return 0;
  if (reply == NE_PYPROC_REPLY_ERROR) return ne__pyproc_error(s, id);
  return ne__pyproc_fail(s, id, NE_ECORRUPT, "unexpected reply byte 0x%02x from the env server to %s",
                         (unsigned char)reply, what);
}

// Copies the spaces the server found into spec.
static void read_spec(const ne__pyproc* s, ne_env_spec* spec) {
  spec->obs_dim = ne__pyproc_i32(s, NE_GYM_OFF_OBS_DIM);
  spec->obs_rank = ne__pyproc_i32(s, NE_GYM_OFF_OBS_RANK);
  for (int i = 0; i < 3; i++) spec->obs_shape[i] = ne__pyproc_i32(s, NE_GYM_OFF_OBS_SHAPE + 4 * i);
  spec->discrete = ne__pyproc_i32(s, NE_GYM_OFF_DISCRETE);
  spec->n_actions = ne__pyproc_i32(s, NE_GYM_OFF_N_ACTIONS);
  spec->act_dim = ne__pyproc_i32(s, NE_GYM_OFF_ACT_DIM);
  for (int i = 0; i < spec->act_dim && i < NE_ENV_MAX_ACT; i++) {
    spec->act_low[i] = (float)ne__pyproc_f64(s, NE_GYM_OFF_ACT_LOW + 8 * i);
    spec->act_high[i] = (float)ne__pyproc_f64(s, NE_GYM_OFF_ACT_HIGH + 8 * i);
  }
  spec->max_episode_steps = ne__pyproc_i32(s, NE_GYM_OFF_MAX_STEPS);
  spec->has_threshold = ne__pyproc_i32(s, NE_GYM_OFF_HAS_THRESHOLD);
  spec->reward_threshold = ne__pyproc_f64(s, NE_GYM_OFF_THRESHOLD);
  spec->state_dim = 0;  // Gymnasium envs have no common state layout: no set_state/get_state
}

// Starts a server (`--env ID`) and waits for its hello. With `fill`, the spec is read from it
// (make); otherwise the server's spaces must match spec (a state's server).
static int start(ne__pyproc* s, const ne_env_spec* spec, ne_env_spec* fill) {
  const char* id = fill ? fill->id : spec->id;
  const char* args[] = {"--env", id + strlen(PREFIX), NULL};
  char reply;
  int rc = ne__pyproc_start(s, &env_server, id, SHM_BYTES, args, &reply);
  if (rc) return rc;
  if (reply == NE_PYPROC_REPLY_ERROR) return ne__pyproc_error(s, id);
  if (reply != NE_PYPROC_REPLY_HELLO)
    return ne__pyproc_fail(s, id, NE_ECORRUPT, "unexpected reply byte 0x%02x from the env server at startup",
                           (unsigned char)reply);
  ne_env_spec seen;
  memset(&seen, 0, sizeof seen);
  read_spec(s, &seen);
  if (seen.obs_dim < 1 || (size_t)seen.obs_dim > (SHM_BYTES - NE_GYM_OFF_OBS) / sizeof(float) || seen.act_dim < 1 ||
      seen.act_dim > NE_ENV_MAX_ACT)
    return ne__pyproc_fail(s, id, NE_EUNSUPPORTED,
                           "observation length %d / action length %d outside what the bridge carries", seen.obs_dim,
                           seen.act_dim);
  if (fill) {
    read_spec(s, fill);
    return 0;
  }
  if (seen.obs_dim != spec->obs_dim || seen.discrete != spec->discrete || seen.n_actions != spec->n_actions ||
      seen.act_dim != spec->act_dim)
    return ne__pyproc_fail(s, id, NE_ESTATE,
                           "the env's spaces changed between two servers (obs %d -> %d, actions %d -> %d)",
                           spec->obs_dim, seen.obs_dim, spec->discrete ? spec->n_actions : spec->act_dim,
                           seen.discrete ? seen.n_actions : seen.act_dim);
  return 0;
}

// ---- family hooks ---------------------------------------------------------------------------------

static void gym_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  ne__pyproc* s = impl;
  uint64_t seed = ne_rng_u64(rng);  // Gymnasium's reset(seed=...) takes any non-negative int
  // a failed server was killed when it failed; this reset starts a fresh one
  s->err = 0;
  s->errstr[0] = '\0';
  if (!s->running && start(s, spec, NULL) != 0) return;
  ne__pyproc_put(s, NE_GYM_OFF_SEED, &seed, sizeof seed);
  call(s, spec->id, NE_GYM_CMD_RESET, "reset");
}

static void gym_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  ne__pyproc* s = impl;
  *reward = NAN;
  *terminated = 1;
  if (!s->running) {
    if (!s->err) ne__pyproc_fail(s, spec->id, NE_ESTATE, "step without a running env server");
    return;
  }
  // Box actions are clipped to the bounds, as neuroevo's own continuous envs do
  float a[NE_GYM_MAX_ACT];
  for (int i = 0; i < spec->act_dim; i++) {
    a[i] = act[i];
    if (!spec->discrete && a[i] < spec->act_low[i]) a[i] = spec->act_low[i];
    if (!spec->discrete && a[i] > spec->act_high[i]) a[i] = spec->act_high[i];
  }
  ne__pyproc_put(s, NE_GYM_OFF_ACT, a, (size_t)spec->act_dim * sizeof(float));
  if (call(s, spec->id, NE_GYM_CMD_STEP, "step")) return;
  *reward = ne__pyproc_f64(s, NE_GYM_OFF_REWARD);
  // the env's own truncation (not the TimeLimit, which ne_env_step applies) also ends the episode
  *terminated = ne__pyproc_i32(s, NE_GYM_OFF_TERMINATED) || ne__pyproc_i32(s, NE_GYM_OFF_TRUNCATED);
}

static void gym_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  const ne__pyproc* s = impl;
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
  ne__pyproc_stop(impl, 1);
}

static int gym_status(const ne_env_spec* spec, const void* impl, char* errstr) {
  (void)spec;
  const ne__pyproc* s = impl;
  if (s->err && errstr) snprintf(errstr, NE_ERRSTR_LEN, "%s", s->errstr);
  return s->err;
}

static const ne_env_family gym_family = {
    .name = "gym",
    .state_bytes = sizeof(ne__pyproc),
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
  ne__pyproc probe;
  memset(&probe, 0, sizeof probe);
  int rc = start(&probe, spec, spec);
  if (rc) return ne__set_error(errstr, rc, "%s", probe.errstr);
  ne__pyproc_stop(&probe, 1);
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
