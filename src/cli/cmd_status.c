// SPDX-License-Identifier: MIT
// `neuroevo status --redis URL`: what a Redis used by neuroevo is doing -- the current experiment,
// its generation, queued and claimed tasks, waiting results, live workers with throughput and the
// age of their last heartbeat. Read-only.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/cluster.h"
#include "neuroevo/error.h"

static const char USAGE[] =
    "usage: neuroevo status --redis URL [--workers N]\n"
    "\n"
    "Shows the experiment workers follow on that Redis (id, name, state, generation, round), its\n"
    "master and its last heartbeat (state gone: no heartbeat for 4 s; stopped: it left before the\n"
    "run's end; finished), its queued and claimed tasks and waiting results, and the workers and\n"
    "relays that sent a heartbeat in the last minute with their threads, results, results/s and the\n"
    "age of their last heartbeat.\n"
    "\n"
    "options:\n"
    "  --redis URL   redis://[user:password@]host:port[/db] (default: $NEUROEVO_REDIS_URL)\n"
    "  --workers N   list at most N workers, newest heartbeat first (default 50; 0 = all)\n"
    "  -h, --help    this text\n";

int ne_cmd_status(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  const char* url = getenv("NEUROEVO_REDIS_URL");
  long long max_workers = 50;
  for (int i = 1; i < argc; i++) {
    int known = strcmp(argv[i], "--redis") == 0 || strcmp(argv[i], "--workers") == 0;
    if (!known || i + 1 >= argc) {
      fprintf(stderr, "neuroevo status: %s '%s' (see neuroevo status --help)\n",
              known ? "missing value for" : "unexpected argument", argv[i]);
      return 2;
    }
    if (strcmp(argv[i], "--redis") == 0) url = argv[++i];
    else if (ne_cli_parse_int("status", "--workers", argv[++i], 0, 1000000000, &max_workers)) return 2;
  }
  if (!url || !*url) {
    fprintf(stderr, "neuroevo status: no Redis: give --redis URL or set NEUROEVO_REDIS_URL\n");
    return 2;
  }
#ifdef NE_HAVE_HIREDIS
  char err[NE_ERRSTR_LEN];
  int rc = ne_cluster_status(url, stdout, (int)max_workers, err);
  if (rc) {
    fprintf(stderr, "neuroevo status: %s\n", err);
    return rc == NE_EINVAL ? 2 : 1;
  }
  return 0;
#else
  fprintf(stderr, "neuroevo status: this build has no Redis support (install libhiredis-dev and rebuild)\n");
  return 2;
#endif
}
