// SPDX-License-Identifier: MIT
// `neuroevo worker --redis URL [--threads N] [--name NAME]`: evaluates the tasks of whatever
// experiment the newest master published on that Redis, until SIGTERM/Ctrl-C (which lets the task
// in hand finish). Start any number, on any machine, before or after the master. `--simulate` and
// `--count` make one process a simulated cluster for benchmarks (bench/cluster/bench_scale.sh).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/cluster.h"
#include "neuroevo/error.h"

static const char USAGE[] =
    "usage: neuroevo worker --redis URL [--threads N] [--name NAME] [options]\n"
    "\n"
    "Evaluates candidates for the experiment the newest master published on that Redis: reads the\n"
    "config from Redis, builds the env and policy, and re-initializes when a new experiment starts.\n"
    "Start it before or after the master; it waits for Redis and for work. SIGTERM or Ctrl-C finishes\n"
    "the task in hand and leaves; a worker killed outright loses nothing (its tasks are re-claimed).\n"
    "\n"
    "options:\n"
    "  --redis URL       redis://[user:password@]host:port[/db] (default: $NEUROEVO_REDIS_URL); the\n"
    "                    password may also come from $NEUROEVO_REDIS_PASSWORD. A non-loopback Redis\n"
    "                    without a password is refused.\n"
    "  --threads N       evaluation threads (default: all cores); one reader claims tasks for all\n"
    "                    (a single thread claims and answers its tasks itself)\n"
    "  --name NAME       unique worker name shown by `neuroevo status` (default: HOSTNAME-PID-XXXX,\n"
    "                    XXXX random)\n"
    "  --heartbeat S     heartbeat period in seconds (default 1)\n"
    "  --spin-ms MS      with one thread: busy-wait up to MS for Redis's reply before sleeping, so the\n"
    "                    next task starts without a wake-up's delay (default 3; 0: never)\n"
    "  --synthetic       benchmark mode: return a synthetic fitness without running an env\n"
    "                    (joins only experiments started for benchmarking)\n"
    "  --simulate MEAN_MS[:JITTER]\n"
    "                    benchmark mode with simulated evaluations: --synthetic, and each episode\n"
    "                    sleeps MEAN_MS times a factor uniform in [1-JITTER, 1+JITTER] (default\n"
    "                    JITTER 0) drawn from the episode's seed; e.g. 3000:0.5 (Atari-like),\n"
    "                    35:0.2 (MuJoCo-like). No CPU is spent evaluating; --threads defaults to 1\n"
    "                    (one simulated core) and --spin-ms to 0\n"
    "  --count N         host N workers in this process (names NAME-0 .. NAME-N-1), each with its\n"
    "                    own threads and connections: a simulated cluster of thousands of workers\n"
    "                    without thousands of processes (default 1)\n"
    "  --max-tasks N     leave after N tasks (testing)\n"
    "  -h, --help        this text\n"
    "\n"
    "exit status: 0 after SIGTERM/Ctrl-C or --max-tasks, 2 for bad usage, refused credentials or a\n"
    "master of another neuroevo version, 1 for other failures.\n";

// Parses one option; returns 0 or an exit code.
// Parses --simulate MEAN_MS[:JITTER].
static int parse_simulate(const char* value, ne_cluster_worker_options* o) {
  char* end;
  double ms = strtod(value, &end), jitter = 0;
  if (end != value && *end == ':') {
    const char* j = end + 1;
    jitter = strtod(j, &end);
    if (end == j) end = (char*)j - 1;  // "35:" is malformed
  }
  if (end == value || *end || !(ms > 0 && ms <= 3.6e6) || !(jitter >= 0 && jitter <= 1)) {
    fprintf(stderr,
            "neuroevo worker: --simulate '%s': expected MEAN_MS[:JITTER] with 0 < MEAN_MS <= 3600000 and "
            "0 <= JITTER <= 1 (e.g. 3000:0.5 or 35:0.2)\n",
            value);
    return 2;
  }
  o->synthetic = 1;
  o->simulate_s = ms / 1000;
  o->simulate_jitter = jitter;
  return 0;
}

static int parse_option(int argc, char** argv, int* i, ne_cluster_worker_options* o, int* spin_given) {
  const char* a = argv[*i];
  long long v;
  int rc;
  if (strcmp(a, "--synthetic") == 0) {
    o->synthetic = 1;
    return 0;
  }
  if (strcmp(a, "--spin-ms") == 0) *spin_given = 1;
  if (*i + 1 >= argc) {
    fprintf(stderr, "neuroevo worker: %s needs a value\n", a);
    return 2;
  }
  const char* value = argv[++*i];
  if (strcmp(a, "--redis") == 0) o->url = value;
  else if (strcmp(a, "--name") == 0) o->name = value;
  else if (strcmp(a, "--simulate") == 0) return parse_simulate(value, o);
  else if (strcmp(a, "--count") == 0) {
    if ((rc = ne_cli_parse_int("worker", a, value, 1, 100000, &v))) return rc;
    o->count = (int)v;
  } else if (strcmp(a, "--threads") == 0) {
    if ((rc = ne_cli_parse_int("worker", a, value, 1, 4096, &v))) return rc;
    o->threads = (int)v;
  } else if (strcmp(a, "--max-tasks") == 0) {
    if ((rc = ne_cli_parse_int("worker", a, value, 1, 1000000000, &v))) return rc;
    o->max_tasks = (long)v;
  } else if (strcmp(a, "--spin-ms") == 0) {
    double ms;
    if ((rc = ne_cli_parse_double("worker", a, value, 0, 1000, "milliseconds", &ms))) return rc;
    o->spin_s = ms / 1000;
  } else if (strcmp(a, "--heartbeat") == 0) {
    if ((rc = ne_cli_parse_double("worker", a, value, 0.05, 3600, "seconds", &o->heartbeat_s))) return rc;
  } else {
    fprintf(stderr, "neuroevo worker: unknown option %s (see neuroevo worker --help)\n", a);
    return 2;
  }
  return 0;
}

int ne_cmd_worker(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  ne_cluster_worker_options o;
  memset(&o, 0, sizeof o);
  o.url = getenv("NEUROEVO_REDIS_URL");
  o.spin_s = 0.003;
  int rc = 0, spin_given = 0;
  for (int i = 1; i < argc && !rc; i++) {
    if (argv[i][0] == '-') rc = parse_option(argc, argv, &i, &o, &spin_given);
    else {
      fprintf(stderr, "neuroevo worker: unexpected argument '%s'\n", argv[i]);
      rc = 2;
    }
  }
  if (!rc && (!o.url || !*o.url)) {
    fprintf(stderr, "neuroevo worker: no Redis: give --redis URL or set NEUROEVO_REDIS_URL\n");
    rc = 2;
  }
  if (rc) return rc;
  if (o.simulate_s > 0 && !spin_given) o.spin_s = 0;      // a simulated worker must not burn the CPU it simulates
  if (o.simulate_s > 0 && o.threads == 0) o.threads = 1;  // one simulated core per worker
#ifdef NE_HAVE_HIREDIS
  ne_cli_install_stop_handler("stopping after the tasks in hand");
  o.stop = &ne_cli_stop;
  char err[NE_ERRSTR_LEN];
  int wrc = ne_cluster_worker_run(&o, err);
  if (wrc) {
    fprintf(stderr, "neuroevo worker: %s\n", err);
    return wrc == NE_EINVAL || wrc == NE_EVERSION ? 2 : 1;
  }
  return 0;
#else
  fprintf(stderr, "neuroevo worker: this build has no Redis support (install libhiredis-dev and rebuild)\n");
  return 2;
#endif
}
