// SPDX-License-Identifier: MIT
// `neuroevo cluster --workers K [--threads-per-worker N] CONFIG [overrides...]`: a whole cluster on
// this machine -- a private redis-server on a free loopback port (temp dir, no persistence), K
// worker processes and the master (this process, through `run --redis`), stopped and cleaned up at
// the end. Children get their own process group (Ctrl-C reaches only the master, which then stops
// them) and die with this process.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>  // PR_SET_PDEATHSIG: children die with the cluster process
#endif

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"
#include "neuroevo/error.h"

// ---- the cluster command ------------------------------------------------------------------

static const char USAGE[] =
    "usage: neuroevo cluster [--workers K] [--threads-per-worker N] CONFIG [section.key=value ...] [run options]\n"
    "\n"
    "Runs a whole cluster on this machine: a private redis-server on a free loopback port (temporary\n"
    "directory, no persistence), K worker processes and the master, until the run ends; then stops them\n"
    "all. The results are identical to `neuroevo run CONFIG` with the same overrides.\n"
    "\n"
    "options:\n"
    "  --workers K              worker processes (default 2)\n"
    "  --threads-per-worker N   evaluation threads per worker (default 1)\n"
    "  --redis-server PATH      the redis-server binary (default: redis-server on PATH)\n"
    "  -h, --help               this text\n"
    "Every other option goes to `neuroevo run` (--out, --generations, --quiet, --task-timeout, --chunk,\n"
    "--episodes-per-task).\n"
    "Worker logs are kept in the temporary directory only while the cluster runs.\n";

#ifdef NE_HAVE_HIREDIS  // the cluster needs Redis support; without it the command only explains
typedef struct cluster {
  char dir[4096];  // temporary directory
  char url[64];    // redis://127.0.0.1:PORT
  pid_t redis;     // redis-server
  pid_t* workers;  // (n_workers)
  int n_workers;
  int threads;         // per worker
  const char* server;  // redis-server binary
} cluster;

// A port that was free a moment ago (redis-server may still lose the race; the caller retries).
static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = -1;
  if (bind(fd, (struct sockaddr*)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr*)&a, &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

// Starts argv with stdout/stderr to log (NULL: inherited) in its own process group.
static pid_t spawn(char* const argv[], const char* log) {
  pid_t pid = fork();
  if (pid != 0) return pid;
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
  setpgid(0, 0);
  if (log) {
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
  }
  execvp(argv[0], argv);
  fprintf(stderr, "neuroevo cluster: cannot start %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}

// 1 once something answers +PONG on 127.0.0.1:port.
static int pong(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  char buf[16] = "";
  int ok = connect(fd, (struct sockaddr*)&a, sizeof a) == 0 && write(fd, "PING\r\n", 6) == 6 &&
      read(fd, buf, sizeof buf - 1) >= 5 && strncmp(buf, "+PONG", 5) == 0;
  close(fd);
  return ok;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

// Waits up to ms for pid to exit; 1 if it did.
static int reap(pid_t pid, int ms) {
  for (int t = 0; t <= ms; t += 20) {
    if (waitpid(pid, NULL, WNOHANG) == pid) return 1;
    sleep_ms(20);
  }
  return 0;
}

static void stop_child(pid_t pid, int grace_ms) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  if (!reap(pid, grace_ms)) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  }
}

static int start_redis(cluster* c) {
  char log[4200];
  snprintf(log, sizeof log, "%s/redis.log", c->dir);
  for (int attempt = 0; attempt < 5; attempt++) {
    int port = free_port();
    if (port <= 0) continue;
    char port_s[16];
    snprintf(port_s, sizeof port_s, "%d", port);
    char* argv[] = {(char*)c->server, "--port", port_s,  "--bind", "127.0.0.1",        "--save", "",
                    "--appendonly",   "no",     "--dir", c->dir,   "--protected-mode", "yes",    NULL};
    c->redis = spawn(argv, log);
    for (int t = 0; t < 250 && c->redis > 0; t++) {
      if (pong(port)) {
        snprintf(c->url, sizeof c->url, "redis://127.0.0.1:%d", port);
        return 0;
      }
      if (waitpid(c->redis, NULL, WNOHANG) == c->redis) break;  // lost the port race: try another
      sleep_ms(20);
    }
    stop_child(c->redis, 1000);
    c->redis = 0;
  }
  fprintf(stderr, "neuroevo cluster: could not start %s (see %s)\n", c->server, log);
  return 1;
}

static int start_workers(cluster* c) {
  char exe[4096], threads[16];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    fprintf(stderr, "neuroevo cluster: cannot find this program's path: %s\n", strerror(errno));
    return 1;
  }
  exe[n] = '\0';
  snprintf(threads, sizeof threads, "%d", c->threads);
  for (int k = 0; k < c->n_workers; k++) {
    char name[32], log[4200];
    snprintf(name, sizeof name, "cluster-%d", k);
    snprintf(log, sizeof log, "%s/worker-%d.log", c->dir, k);
    char* argv[] = {exe, "worker", "--redis", c->url, "--threads", threads, "--name", name, NULL};
    c->workers[k] = spawn(argv, log);
    if (c->workers[k] < 0) return 1;
  }
  return 0;
}

// Removes the temporary directory; redis-server and the workers write only plain files into it.
static void remove_dir(const char* dir) {
  DIR* d = opendir(dir);
  struct dirent* e;
  while (d && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    remove(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

static void teardown(cluster* c) {
  for (int k = 0; k < c->n_workers; k++) stop_child(c->workers[k], 10000);
  stop_child(c->redis, 5000);
  if (c->dir[0]) remove_dir(c->dir);
}

// Splits argv into the cluster's own options and the `run` arguments (run_argv[0] = "run").
static int parse(cluster* c, int argc, char** argv, char** run_argv, int* run_argc) {
  long long v;
  *run_argc = 0;
  run_argv[(*run_argc)++] = "run";
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    int own = strcmp(a, "--workers") == 0 || strcmp(a, "--threads-per-worker") == 0 || strcmp(a, "--redis-server") == 0;
    if (!own) {
      run_argv[(*run_argc)++] = argv[i];
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "neuroevo cluster: %s needs a value\n", a);
      return 2;
    }
    const char* value = argv[++i];
    if (strcmp(a, "--redis-server") == 0) c->server = value;
    else if (ne_cli_parse_int("cluster", a, value, 1, 4096, &v)) return 2;
    else if (strcmp(a, "--workers") == 0) c->n_workers = (int)v;
    else c->threads = (int)v;
  }
  return 0;
}

#endif

int ne_cmd_cluster(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
#ifndef NE_HAVE_HIREDIS
  fprintf(stderr, "neuroevo cluster: this build has no Redis support (install libhiredis-dev and rebuild)\n");
  return 2;
#else
  cluster c;
  memset(&c, 0, sizeof c);
  c.n_workers = 2;
  c.threads = 1;
  c.server = getenv("NEUROEVO_REDIS_SERVER") ? getenv("NEUROEVO_REDIS_SERVER") : "redis-server";
  char** run_argv = ne_malloc(((size_t)argc + 4) * sizeof *run_argv);
  int run_argc, rc = run_argv ? parse(&c, argc, argv, run_argv, &run_argc) : 1;
  if (!rc && run_argc < 2) {
    fputs(USAGE, stderr);
    rc = 2;
  }
  c.workers = rc ? NULL : ne_calloc((size_t)c.n_workers, sizeof *c.workers);
  const char* tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(c.dir, sizeof c.dir, "%s/neuroevo-cluster-XXXXXX", tmp);
  if (!rc && (!c.workers || !mkdtemp(c.dir))) {
    fprintf(stderr, "neuroevo cluster: cannot create a temporary directory in %s: %s\n", tmp, strerror(errno));
    c.dir[0] = '\0';
    rc = 1;
  }
  if (!rc) rc = start_redis(&c);
  if (!rc) rc = start_workers(&c);
  if (!rc) {
    run_argv[run_argc++] = "--redis";
    run_argv[run_argc++] = c.url;
    run_argv[run_argc] = NULL;
    rc = ne_cmd_run(run_argc, run_argv);
  }
  teardown(&c);
  ne_free(c.workers);
  ne_free(run_argv);
  return rc;
#endif
}
