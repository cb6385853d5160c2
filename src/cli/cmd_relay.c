// SPDX-License-Identifier: MIT
// `neuroevo relay --upstream URL --local URL`: a per-node relay between the master's Redis and a
// node-local redis-server that the node's workers use (docs/scaling.md "Relays"), until
// SIGTERM/Ctrl-C.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/cluster.h"
#include "neuroevo/error.h"

static const char USAGE[] =
    "usage: neuroevo relay --upstream URL --local URL [--name NAME] [options]\n"
    "\n"
    "A per-node relay for large clusters. The node's workers use a node-local redis-server\n"
    "(`neuroevo worker --redis LOCAL_URL`) and cannot tell the relay from a master: it mirrors the\n"
    "master's current experiment there, claims tasks from the master's Redis in batches for them\n"
    "(one consumer for the whole node), copies the broadcast vectors they need once per node, and\n"
    "forwards their results upstream in batches. The master's Redis then serves a few connections\n"
    "per node instead of two or three per worker. A relay killed outright loses nothing: the master\n"
    "re-claims its tasks; a worker behind it that dies has its tasks re-claimed by the relay.\n"
    "\n"
    "options:\n"
    "  --upstream URL    the master's Redis, redis://[user:password@]host:port[/db]; a non-loopback\n"
    "                    Redis without a password is refused ($NEUROEVO_REDIS_PASSWORD is used when\n"
    "                    the URL has none)\n"
    "  --local URL       the node-local Redis (start one per node: redis-server --port P --save '');\n"
    "                    its password comes from the URL or $NEUROEVO_NODE_REDIS_PASSWORD, never from\n"
    "                    $NEUROEVO_REDIS_PASSWORD (the node's workers use it as theirs)\n"
    "  --name NAME       the relay's name upstream, shown by `neuroevo status` (default\n"
    "                    relay-HOSTNAME-PID)\n"
    "  --prefetch N      tasks held beyond one per local worker thread, so that a worker that finishes\n"
    "                    finds its next task on the node (default: as many as the node's workers finish\n"
    "                    in 10 ms at the measured task time, 0 .. threads / 8)\n"
    "  --heartbeat S     heartbeat period upstream in seconds (default 1)\n"
    "  -h, --help        this text\n"
    "\n"
    "exit status: 0 after SIGTERM/Ctrl-C, 2 for bad usage, refused credentials or a master of another\n"
    "neuroevo version, 1 for other failures.\n";

int ne_cmd_relay(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(USAGE, stdout);
    return 0;
  }
  ne_cluster_relay_options o;
  memset(&o, 0, sizeof o);
  long long v;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (a[0] != '-') {
      fprintf(stderr, "neuroevo relay: unexpected argument '%s'\n", a);
      return 2;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "neuroevo relay: %s needs a value\n", a);
      return 2;
    }
    const char* value = argv[++i];
    if (strcmp(a, "--upstream") == 0) o.upstream = value;
    else if (strcmp(a, "--local") == 0) o.local = value;
    else if (strcmp(a, "--name") == 0) o.name = value;
    else if (strcmp(a, "--prefetch") == 0) {
      if (ne_cli_parse_int("relay", a, value, 1, 1000000, &v)) return 2;
      o.prefetch = (int)v;
    } else if (strcmp(a, "--heartbeat") == 0) {
      if (ne_cli_parse_double("relay", a, value, 0.05, 3600, "seconds", &o.heartbeat_s)) return 2;
    } else {
      fprintf(stderr, "neuroevo relay: unknown option %s (see neuroevo relay --help)\n", a);
      return 2;
    }
  }
  if (!o.upstream || !o.local) {
    fprintf(stderr, "neuroevo relay: give both --upstream URL (the master's Redis) and --local URL (this node's)\n");
    return 2;
  }
#ifdef NE_HAVE_HIREDIS
  ne_cli_install_stop_handler("stopping: forwarding the results of the tasks in hand (10 s at most)");
  o.stop = &ne_cli_stop;
  char err[NE_ERRSTR_LEN];
  int rc = ne_cluster_relay_run(&o, err);
  if (rc) {
    fprintf(stderr, "neuroevo relay: %s\n", err);
    return rc == NE_EINVAL || rc == NE_EVERSION ? 2 : 1;
  }
  return 0;
#else
  fprintf(stderr, "neuroevo relay: this build has no Redis support (install libhiredis-dev and rebuild)\n");
  return 2;
#endif
}
