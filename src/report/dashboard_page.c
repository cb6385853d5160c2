// SPDX-License-Identifier: MIT
// The dashboard's content (see dashboard_page.h): on every request the paths are scanned again (new
// runs appear, finished ones stay), the most recently updated runs are read (rundata.h), and the page,
// JSON state or chart is built from them. The Redis panel reuses `neuroevo status` (ne_cluster_status)
// through a memory stream, cached for a second so that several open pages cost one query.
#include "report/dashboard_page.h"

#include <dirent.h>  // scanning a parent directory for runs
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "report/html.h"
#include "report/rundata.h"
#include "report/svgchart.h"
#ifdef NE_HAVE_HIREDIS
#include "neuroevo/cluster.h"  // ne_cluster_status: the text of `neuroevo status`
#endif

enum { CHART_W = 960, CHART_H = 420, MAX_CANDIDATES = 4096 };

static const char STYLE[] =
    "body{font-family:system-ui,sans-serif;margin:1.2em auto;max-width:1000px;color:#222;padding:0 1em}"
    "h1{font-size:1.35em;margin:0}h2{font-size:1.05em;margin:1.4em 0 .4em}"
    ".bar{display:flex;gap:1.5em;align-items:baseline;flex-wrap:wrap}.sub{color:#666;font-size:.9em}"
    "table{border-collapse:collapse;font-size:.9em;width:100%}td,th{padding:.2em .4em;text-align:right;"
    "white-space:nowrap}th{background:#f3f3f3}td:nth-child(-n+4),th:nth-child(-n+4){text-align:left}"
    // long run names and env ids wrap instead of pushing the last columns out of view; a table still
    // wider than the page scrolls inside its box
    "td:nth-child(-n+2){white-space:normal;overflow-wrap:anywhere;min-width:8em}.scroll{overflow-x:auto}"
    ".running{color:#1a7f37;font-weight:600}.interrupted,.stopped{color:#b35900}"
    "pre{background:#f7f7f7;padding:.7em;overflow-x:auto;font-size:.85em}svg{max-width:100%;height:auto}";

// A directory that may hold a run, with the time its metrics last changed (for "most recent").
typedef struct candidate {
  char path[1024];
  double mtime;  // metrics.csv (else config.ini) modification time; 0 if neither
} candidate;

typedef struct run_list {
  candidate* cands;  // (n_cands) directories found
  int n_cands;
  ne__rundata* runs;  // (n_runs) loaded, sorted by name
  int n_runs;
} run_list;

// ---- finding and loading runs --------------------------------------------------------------

static double file_mtime(const char* dir, const char* name) {
  char path[1200];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 ? (double)st.st_mtime : 0;
}

static void add_candidate(run_list* l, const char* dir) {
  if (l->n_cands >= MAX_CANDIDATES || !ne__rundata_is_run(dir)) return;
  candidate* c = &l->cands[l->n_cands++];
  snprintf(c->path, sizeof c->path, "%s", dir);
  c->mtime = fmax(file_mtime(dir, "metrics.csv"), file_mtime(dir, "config.ini"));
}

// A run directory, or every run directory directly inside path.
static void scan_path(run_list* l, const char* path) {
  if (ne__rundata_is_run(path)) {
    add_candidate(l, path);
    return;
  }
  DIR* d = opendir(path);
  if (!d) return;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    add_candidate(l, sub);
  }
  closedir(d);
}

static int newest_first(const void* a, const void* b) {
  double ma = ((const candidate*)a)->mtime, mb = ((const candidate*)b)->mtime;
  return ma > mb ? -1 : ma < mb;
}

static int by_name(const void* a, const void* b) {
  return strcmp(((const ne__rundata*)a)->name, ((const ne__rundata*)b)->name);
}

// The max_runs most recently updated runs of the paths, sorted by name (stable colours).
static void load_runs(const ne__dash* d, run_list* l) {
  memset(l, 0, sizeof *l);
  l->cands = ne_calloc(MAX_CANDIDATES, sizeof *l->cands);
  l->runs = ne_calloc((size_t)d->max_runs, sizeof *l->runs);
  if (!l->cands || !l->runs) return;
  // stat every candidate, read only the newest max_runs
  for (int i = 0; i < d->n_paths; i++) scan_path(l, d->paths[i]);
  qsort(l->cands, (size_t)l->n_cands, sizeof *l->cands, newest_first);
  for (int i = 0; i < l->n_cands && l->n_runs < d->max_runs; i++)
    if (ne__rundata_load(l->cands[i].path, &l->runs[l->n_runs], NULL) == 0) l->n_runs++;
  qsort(l->runs, (size_t)l->n_runs, sizeof *l->runs, by_name);
}

static void free_runs(run_list* l) {
  for (int i = 0; i < l->n_runs; i++) ne__rundata_free(&l->runs[i]);
  ne_free(l->runs);
  ne_free(l->cands);
}

// ---- figures -------------------------------------------------------------------------------

// the last finite value of column c; NaN if none
static double last_value(const ne__rundata* r, int c) {
  for (int i = r->n_rows - 1; i >= 0; i--)
    if (!isnan(ne__rundata_at(r, i, c))) return ne__rundata_at(r, i, c);
  return NAN;
}

static int generations_done(const ne__rundata* r) {
  return r->n_rows ? (int)ne__rundata_at(r, r->n_rows - 1, NE__RD_GEN) + 1 : 0;
}

static void number_cell(ne_buf* b, double v) {
  if (isnan(v)) ne__html_puts(b, "<td>-</td>");
  else ne__html_printf(b, "<td>%.2f</td>", v);
}

static void run_row(ne_buf* b, const ne__rundata* r) {
  char eta[32], elapsed[32], rate_s[32], budget[32] = "";
  double e, s;
  ne__rundata_rate(r, &e, &s);
  ne__fmt_count(s, rate_s, sizeof rate_s);
  ne__fmt_duration(strcmp(r->state, "running") == 0 ? ne__rundata_eta(r) : NAN, eta, sizeof eta);
  ne__fmt_duration(r->n_rows ? ne__rundata_at(r, r->n_rows - 1, NE__RD_WALL) : 0, elapsed, sizeof elapsed);
  if (r->max_generations > 0) snprintf(budget, sizeof budget, " / %lld", (long long)r->max_generations);
  ne__html_puts(b, "<tr><td>");
  ne__html_text(b, r->name);
  ne__html_puts(b, "</td><td>");
  ne__html_text(b, r->env);
  ne__html_puts(b, "</td><td>");
  ne__html_text(b, r->algorithm);
  ne__html_printf(b, "</td><td class=\"%s\">%s</td><td class=\"gen\">%d%s</td><td>%s</td><td>%s</td>", r->state,
                  r->state, generations_done(r), budget, eta, elapsed);
  ne__html_printf(b, "<td>%s</td>", rate_s);
  number_cell(b, last_value(r, NE__RD_BEST));
  number_cell(b, last_value(r, NE__RD_MEAN));
  number_cell(b, last_value(r, NE__RD_ELITE));
  ne__html_puts(b, "</tr>\n");
}

static void runs_table(ne_buf* b, const run_list* l) {
  if (l->n_runs == 0) {
    ne__html_puts(b, "<p>No run directories found yet (they appear once `neuroevo run` creates them).</p>\n");
    return;
  }
  // steps/s counts all work (re-evaluation episodes too); evaluations/s is in the JSON state
  ne__html_puts(b,
                "<div class=\"scroll\"><table><tr><th>run</th><th>env</th><th>algorithm</th><th>state</th>"
                "<th>generation</th><th>ETA</th><th>elapsed</th><th>steps/s</th><th>best</th><th>mean</th>"
                "<th>elite</th></tr>\n");
  for (int i = 0; i < l->n_runs; i++) run_row(b, &l->runs[i]);
  ne__html_puts(b, "</table></div>\n");
}

// ---- the Redis panel -----------------------------------------------------------------------

// Fetches `neuroevo status` text into d->redis_text, at most once a second.
static void redis_refresh(ne__dash* d) {
  if (!d->redis_url || (d->redis_at > 0 && ne__now() - d->redis_at < 1.0)) return;
  d->redis_at = ne__now();
#ifdef NE_HAVE_HIREDIS
  char err[NE_ERRSTR_LEN], *text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  int rc = f ? ne_cluster_status(d->redis_url, f, 50, err) : NE_ENOMEM;
  if (f) fclose(f);
  d->redis_ok = rc == 0;
  snprintf(d->redis_text, sizeof d->redis_text, "%s", rc ? (f ? err : "out of memory") : text ? text : "");
  free(text);  // open_memstream's buffer comes from malloc
#else
  d->redis_ok = 0;
  snprintf(d->redis_text, sizeof d->redis_text, "this build has no Redis support (libhiredis-dev missing)");
#endif
}

static void redis_panel(ne_buf* b, ne__dash* d) {
  redis_refresh(d);
  ne__html_printf(b, "<pre class=\"%s\">", d->redis_ok ? "status" : "error");
  ne__html_text(b, d->redis_text);
  ne__html_puts(b, "</pre>\n");
}

// ---- the three resources -------------------------------------------------------------------

static const char* valid_x(const char* x) { return x && ne__svg_valid_x(x) ? x : "env_steps"; }

static void axis_links(ne_buf* b, const char* x) {
  static const char* const AXES[][2] = {{"env_steps", "env steps"},
                                        {"wall_s", "wall time"},
                                        {"evaluations", "evaluations"},
                                        {"generation", "generation"}};
  ne__html_puts(b, "<span class=\"sub\">x axis:");
  for (int i = 0; i < 4; i++)
    if (strcmp(x, AXES[i][0]) == 0) ne__html_printf(b, " <b>%s</b>", AXES[i][1]);
    else ne__html_printf(b, " <a href=\"?x=%s\">%s</a>", AXES[i][0], AXES[i][1]);
  ne__html_puts(b, "</span>");
}

// The polling script: swaps in the server-rendered chart and tables every refresh_s seconds.
static void script(ne_buf* b, const char* x, int refresh_s) {
  ne__html_printf(b,
                  "<script>\n(function(){\n var x=\"%s\", n=0;\n function poll(){\n"
                  "  fetch(\"api/state.json?x=\"+x,{cache:\"no-store\"}).then(function(r){return r.json();})\n"
                  "  .then(function(s){\n   document.getElementById(\"chart\").innerHTML=s.svg;\n"
                  "   document.getElementById(\"runs\").innerHTML=s.table;\n"
                  "   var p=document.getElementById(\"redis\"); if(p&&s.redis!==null) p.innerHTML=s.redis;\n"
                  "   document.getElementById(\"updated\").textContent=\"updated \"+new Date(s.time*1000)"
                  ".toLocaleTimeString();\n   document.body.setAttribute(\"data-polls\", ++n);\n"
                  "  }).catch(function(){document.getElementById(\"updated\").textContent=\"dashboard "
                  "unreachable, retrying\";});\n }\n setInterval(poll,%d);\n})();\n</script>\n",
                  x, refresh_s * 1000);
}

void ne__dash_page(ne_buf* b, ne__dash* d, const char* x) {
  x = valid_x(x);
  run_list l;
  load_runs(d, &l);
  ne__html_printf(b,
                  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<title>neuroevo dashboard</title>\n<style>%s</style>\n"
                  "<noscript><meta http-equiv=\"refresh\" content=\"%d\"></noscript>\n</head>\n<body>\n",
                  STYLE, d->refresh_s + 3);
  // title bar, runs table, chart, cluster panel: each in an element the script refreshes by id
  ne__html_puts(b, "<div class=\"bar\"><h1>neuroevo dashboard</h1>");
  axis_links(b, x);
  ne__html_printf(b, "<span class=\"sub\" id=\"updated\">polling every %d s</span></div>\n", d->refresh_s);
  ne__html_puts(b, "<h2>Runs</h2>\n<div id=\"runs\">");
  runs_table(b, &l);
  ne__html_puts(b, "</div>\n<h2>Training curves</h2>\n<div id=\"chart\">");
  ne__svg_curves(b, l.runs, l.n_runs, x, CHART_W, CHART_H);
  ne__html_puts(b, "</div>\n");
  if (d->redis_url) {
    ne__html_puts(b, "<h2>Cluster (Redis)</h2>\n<div id=\"redis\">");
    redis_panel(b, d);
    ne__html_puts(b, "</div>\n");
  }
  ne__html_puts(b, "<p class=\"sub\">Read-only view of run directories; nothing here changes a run.</p>\n");
  script(b, x, d->refresh_s);
  ne__html_puts(b, "</body>\n</html>\n");
  free_runs(&l);
}

static void json_num(ne_buf* b, const char* key, double v) {
  if (isfinite(v)) ne__html_printf(b, "\"%s\":%.10g", key, v);
  else ne__html_printf(b, "\"%s\":null", key);
}

static void json_run(ne_buf* b, const ne__rundata* r) {
  double e, s;
  ne__rundata_rate(r, &e, &s);
  ne__html_puts(b, "{\"name\":");
  ne__html_json_str(b, r->name);
  ne__html_puts(b, ",\"env\":");
  ne__html_json_str(b, r->env);
  ne__html_puts(b, ",\"algorithm\":");
  ne__html_json_str(b, r->algorithm);
  ne__html_printf(b, ",\"state\":\"%s\",\"generations\":%d,\"rows\":%d,", r->state, generations_done(r), r->n_rows);
  json_num(b, "max_generations", r->max_generations > 0 ? (double)r->max_generations : NAN);
  ne__html_puts(b, ",");
  json_num(b, "eta_s", strcmp(r->state, "running") == 0 ? ne__rundata_eta(r) : NAN);
  ne__html_puts(b, ",");
  json_num(b, "evals_per_s", e);
  ne__html_puts(b, ",");
  json_num(b, "env_steps_per_s", s);
  ne__html_puts(b, ",");
  json_num(b, "best", last_value(r, NE__RD_BEST));
  ne__html_puts(b, ",");
  json_num(b, "mean", last_value(r, NE__RD_MEAN));
  ne__html_puts(b, ",");
  json_num(b, "elite", last_value(r, NE__RD_ELITE));
  ne__html_puts(b, "}");
}

// A part of the page as a JSON string: built in a scratch buffer, then escaped.
static void json_html(ne_buf* b, const ne_buf* part) {
  if (part->oom || !part->data) {
    ne__html_puts(b, "\"\"");
    return;
  }
  ne__html_json_str(b, (const char*)part->data);
}

void ne__dash_state_json(ne_buf* b, ne__dash* d, const char* x) {
  x = valid_x(x);
  run_list l;
  load_runs(d, &l);
  int points = 0;
  for (int i = 0; i < l.n_runs; i++) points += l.runs[i].n_rows;
  // figures per run for scripts, then the server-rendered parts the page swaps in
  ne__html_printf(b, "{\"time\":%.3f,\"x\":\"%s\",\"points\":%d,\"runs\":[", (double)time(NULL), x, points);
  for (int i = 0; i < l.n_runs; i++) {
    if (i) ne__html_puts(b, ",");
    json_run(b, &l.runs[i]);
  }
  ne_buf part;
  ne__buf_init(&part);
  ne__svg_curves(&part, l.runs, l.n_runs, x, CHART_W, CHART_H);
  ne__html_terminate(&part);
  ne__html_puts(b, "],\"svg\":");
  json_html(b, &part);
  part.len = 0;
  runs_table(&part, &l);
  ne__html_terminate(&part);
  ne__html_puts(b, ",\"table\":");
  json_html(b, &part);
  part.len = 0;
  if (d->redis_url) redis_panel(&part, d);
  ne__html_terminate(&part);
  ne__html_puts(b, ",\"redis\":");
  if (d->redis_url) json_html(b, &part);
  else ne__html_puts(b, "null");
  ne__html_puts(b, "}\n");
  ne__buf_free(&part);
  free_runs(&l);
}

void ne__dash_chart(ne_buf* b, ne__dash* d, const char* x) {
  run_list l;
  load_runs(d, &l);
  ne__html_puts(b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
  ne__svg_curves(b, l.runs, l.n_runs, valid_x(x), CHART_W, CHART_H);
  free_runs(&l);
}
