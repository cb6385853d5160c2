// SPDX-License-Identifier: MIT
// The live dashboard: a small read-only HTTP server (libmicrohttpd) that shows the training curves
// of one or more run directories as server-drawn SVG, their generation, ETA and throughput, and with
// a Redis URL the cluster's live workers and tasks. The page polls a JSON endpoint; nothing is
// fetched from outside. Only built when libmicrohttpd was found (NE_HAVE_MICROHTTPD).
//
//   GET /                 the page (state rendered in, then refreshed every refresh_s seconds)
//   GET /api/state.json   runs (figures), the chart as SVG text, the tables as HTML, Redis status
//   GET /chart.svg        the chart alone; both take ?x=env_steps|wall_s|evaluations|generation
#ifndef NEUROEVO_DASHBOARD_H
#define NEUROEVO_DASHBOARD_H

#ifdef __cplusplus
extern "C" {
#endif

// What the dashboard shows and where it listens; zero-initialize and set what you need.
typedef struct ne_dashboard_options {
  const char* const* paths;  // (n_paths) run directories, or directories whose subdirectories are runs
  int n_paths;               // 0: "runs"
  const char* redis_url;     // a Redis used by `neuroevo run --redis`; NULL: no cluster panel
  const char* bind;          // IPv4 or IPv6 address to listen on; NULL: "127.0.0.1" (loopback only)
  int port;                  // TCP port; 0: any free port (see ne_dashboard_port)
  int refresh_s;             // seconds between the page's polls; 0: 2
  int max_runs;              // at most this many runs, most recently updated first; 0: 10
} ne_dashboard_options;

typedef struct ne_dashboard ne_dashboard;

// Starts serving on a thread of its own (the options are copied). Caller stops it with
// ne_dashboard_stop. Errors: NE_EINVAL (bad bind address), NE_EIO (cannot listen, the address
// named), NE_EUNSUPPORTED (built without libmicrohttpd), NE_ENOMEM. Nullable: errstr.
int ne_dashboard_start(const ne_dashboard_options* opt, ne_dashboard** out, char* errstr);

// The port it listens on (the one picked when port was 0).
int ne_dashboard_port(const ne_dashboard* d);

// Stops serving and frees d. Nullable: d.
void ne_dashboard_stop(ne_dashboard* d);

#ifdef __cplusplus
}
#endif
#endif
