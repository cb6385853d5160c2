// SPDX-License-Identifier: MIT
// What the dashboard serves, built without any HTTP: the runs its paths name, the page, the JSON
// state and the chart (dashboard_page.c). The server (dashboard.c) only routes requests here.
// Internal; not public API.
#ifndef NEUROEVO_DASHBOARD_PAGE_H
#define NEUROEVO_DASHBOARD_PAGE_H

#include "core/buf.h"

// The dashboard's settings and its one piece of mutable state (the Redis status cache). Used by one
// thread at a time: the server handles requests one after another.
typedef struct ne__dash {
  char** paths;  // (n_paths) owned copies
  int n_paths;
  char* redis_url;         // owned copy, or NULL
  int refresh_s;           // seconds between the page's polls
  int max_runs;            // runs shown at most
  char redis_text[16384];  // the last `neuroevo status` text (or error)
  int redis_ok;            // 1 if redis_text is a status, 0 if an error message
  double redis_at;         // ne__now() when redis_text was fetched (0: never)
} ne__dash;

// Appends the whole page for x axis x (an invalid x means env_steps).
void ne__dash_page(ne_buf* b, ne__dash* d, const char* x);

// Appends the JSON state: {"time", "x", "points", "runs": [...], "svg", "table", "redis"}.
void ne__dash_state_json(ne_buf* b, ne__dash* d, const char* x);

// Appends the chart alone (an SVG document).
void ne__dash_chart(ne_buf* b, ne__dash* d, const char* x);

#endif
