// SPDX-License-Identifier: MIT
// `neuroevo dashboard [RUN_DIR ...] [--redis URL] [--port P] [--bind ADDR] [--refresh S]`: serves
// the live dashboard (dashboard.h) until Ctrl-C. Binds to loopback unless --bind says otherwise, and
// warns when it does: the page has no authentication (it is read-only).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>  // sleep: wait for the stop signal

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/alloc.h"
#include "neuroevo/dashboard.h"
#include "neuroevo/error.h"

static const char USAGE[] =
    "usage: neuroevo dashboard [RUN_DIR ...] [--redis URL] [--port P] [--bind ADDR] [--refresh S]\n"
    "\n"
    "Serves a live, read-only page with the training curves of the runs (best, mean, elite against env\n"
    "steps, wall time, evaluations or generation; several runs overlaid), their generation, ETA and\n"
    "throughput. A RUN_DIR may also be a directory of runs (default: runs): the 10 most recently\n"
    "updated are shown, and new ones appear. With --redis, the cluster's live workers and queued and\n"
    "claimed tasks (as `neuroevo status`). The page polls every S seconds (default 2) and needs no\n"
    "network beyond this server.\n"
    "\n"
    "options:\n"
    "  --port P      TCP port (default 8765; 0 = any free port, printed)\n"
    "  --bind ADDR   address to listen on (default 127.0.0.1: this machine only)\n"
    "  --redis URL   redis://[user:password@]host:port[/db] (default: $NEUROEVO_REDIS_URL if set)\n"
    "  --refresh S   seconds between page updates (default 2)\n"
    "  -h, --help    this text\n";

// Parses the options into opt; RUN_DIRs go into paths (caller frees). Returns 0 or the exit code.
static int parse_args(int argc, char** argv, ne_dashboard_options* opt, const char** paths) {
  long long v;
  opt->port = 8765;
  opt->redis_url = getenv("NEUROEVO_REDIS_URL");
  if (opt->redis_url && !*opt->redis_url) opt->redis_url = NULL;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (a[0] != '-') {
      paths[opt->n_paths++] = a;
      continue;
    }
    int known = !strcmp(a, "--redis") || !strcmp(a, "--port") || !strcmp(a, "--bind") || !strcmp(a, "--refresh");
    if (!known || i + 1 >= argc) {
      fprintf(stderr, "neuroevo dashboard: %s '%s' (see neuroevo dashboard --help)\n",
              known ? "missing value for" : "unknown option", a);
      return 2;
    }
    const char* value = argv[++i];
    if (!strcmp(a, "--redis")) opt->redis_url = value;
    else if (!strcmp(a, "--bind")) opt->bind = value;
    else if (ne_cli_parse_int("dashboard", a, value, !strcmp(a, "--port") ? 0 : 1, 65535, &v)) return 2;
    else if (!strcmp(a, "--port")) opt->port = (int)v;
    else opt->refresh_s = (int)v;
  }
  opt->paths = paths;
  return 0;
}

int ne_cmd_dashboard(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  ne_dashboard_options opt = {0};
  const char** paths = ne_calloc((size_t)argc, sizeof *paths);
  if (!paths) return 1;
  int rc = parse_args(argc, argv, &opt, paths);
  char err[NE_ERRSTR_LEN];
  ne_dashboard* d = NULL;
  // before the server starts: an early Ctrl-C still stops it cleanly
  ne_cli_install_stop_handler("stopping the dashboard");
  if (!rc && ne_dashboard_start(&opt, &d, err) != 0) {
    fprintf(stderr, "neuroevo dashboard: %s\n", err);
    rc = 1;
  }
  if (!rc) {
    const char* bind = opt.bind ? opt.bind : "127.0.0.1";
    int v6 = strchr(bind, ':') != NULL;
    if (strcmp(bind, "127.0.0.1") != 0 && strcmp(bind, "::1") != 0)
      fprintf(stderr,
              "neuroevo dashboard: warning: listening on %s: anyone who can reach it can read the runs "
              "(no authentication)\n",
              bind);
    printf("dashboard: http://%s%s%s:%d/  (Ctrl-C stops)\n", v6 ? "[" : "", bind, v6 ? "]" : "", ne_dashboard_port(d));
    fflush(stdout);
    // serve until SIGINT/SIGTERM: the server runs on its own thread; the sleep only bounds how late
    // a signal that lands between the check and the sleep is noticed
    while (!ne_cli_stop) sleep(1);
    ne_dashboard_stop(d);
  }
  ne_free(paths);
  return rc;
}
