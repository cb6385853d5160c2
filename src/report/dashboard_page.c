// SPDX-License-Identifier: MIT
// The dashboard's content (see dashboard_page.h): on every request the paths are scanned again (new
// runs appear, finished ones stay), the most recently updated runs are read (rundata.h), and the page,
// JSON state or chart is built from them. The Redis panel reuses `neuroevo status` (ne_cluster_status)
// through a memory stream, cached for a second so that several open pages cost one query.
#include "report/dashboard_page.h"

#include <cjson/cJSON.h>  // a study's study.json
#include <dirent.h>       // study folders inside a path
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>  // access

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/runinfo.h"  // ne_runinfo_scan: runs at any depth (a study's arms and seeds)
#include "report/html.h"
#include "report/rundata.h"
#include "report/svgchart.h"
#ifdef NE_HAVE_HIREDIS
#include "neuroevo/cluster.h"  // ne_cluster_status: the text of `neuroevo status`
#endif

enum { CHART_W = 960, CHART_H = 420, MAX_CANDIDATES = 4096, MAX_STUDIES = 8, MAX_STUDY_RUNS = 256 };

static const char STYLE[] =
    "body{font-family:system-ui,sans-serif;margin:1.2em auto;max-width:1000px;color:#222;padding:0 1em}"
    "h1{font-size:1.35em;margin:0}h2{font-size:1.05em;margin:1.4em 0 .4em}"
    ".bar{display:flex;gap:1.5em;align-items:baseline;flex-wrap:wrap}.sub{color:#666;font-size:.9em}"
    "table{border-collapse:collapse;font-size:.9em;width:100%}td,th{padding:.2em .4em;text-align:right;"
    "white-space:nowrap}th{background:#f3f3f3}td:nth-child(-n+4),th:nth-child(-n+4){text-align:left}"
    // long run names and env ids wrap instead of pushing the last columns out of view; a table still
    // wider than the page scrolls inside its box
    "td:nth-child(-n+2){white-space:normal;overflow-wrap:anywhere;min-width:8em}.scroll{overflow-x:auto}"
    ".running{color:#1a7f37;font-weight:600}.stopped{color:#b35900}.failed,.killed{color:#c62828;font-weight:600}"
    "td.cell{text-align:center}h3{font-size:1em;margin:1em 0 .3em}"
    "pre{background:#f7f7f7;padding:.7em;overflow-x:auto;font-size:.85em}svg{max-width:100%;height:auto}";

// A directory that may hold a run, with the time its metrics last changed (for "most recent").
typedef struct candidate {
  char path[1024];
  double mtime;  // metrics.csv (else config.ini) modification time; 0 if neither
  int study;     // index of the study it belongs to, or -1
} candidate;

// A study (a `neuroevo compare` directory) among the paths: its study.json.
typedef struct study {
  char dir[1024];
  cJSON* json;  // study.json (arms, each run's status and error); owned
} study;

typedef struct run_list {
  candidate* cands;  // (n_cands) directories found
  int n_cands;
  ne__rundata* runs;  // (n_runs) loaded: every run of the studies, then the most recent others; by name
  int n_runs;
  study studies[MAX_STUDIES];
  int n_studies;
} run_list;

// ---- finding and loading runs --------------------------------------------------------------

static double file_mtime(const char* dir, const char* name) {
  char path[1200];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 ? (double)st.st_mtime : 0;
}

// the study a run directory belongs to (DIR/ARM/seedK with DIR/study.json), loaded once; -1: none
static int study_of(run_list* l, const char* run_dir) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", run_dir);
  for (int up = 0; up < 2; up++) {  // seedK, then ARM
    char* slash = strrchr(dir, '/');
    if (!slash) return -1;
    *slash = '\0';
  }
  for (int i = 0; i < l->n_studies; i++)
    if (strcmp(l->studies[i].dir, dir) == 0) return i;
  char path[1100], *text = NULL;
  snprintf(path, sizeof path, "%s/study.json", dir);
  if (l->n_studies == MAX_STUDIES || ne__read_file(path, &text, NULL, NULL) != 0) return -1;
  cJSON* j = cJSON_Parse(text);
  ne_free(text);
  if (!cJSON_IsObject(j)) {
    cJSON_Delete(j);
    return -1;
  }
  study* st = &l->studies[l->n_studies];
  snprintf(st->dir, sizeof st->dir, "%s", dir);
  st->json = j;
  return l->n_studies++;
}

// ne_runinfo_scan's callback: every run directory under the paths, at any depth
static int add_candidate(void* user, const char* dir) {
  run_list* l = user;
  if (l->n_cands >= MAX_CANDIDATES) return 1;
  candidate* c = &l->cands[l->n_cands++];
  snprintf(c->path, sizeof c->path, "%s", dir);
  c->mtime = fmax(file_mtime(dir, "metrics.csv"), file_mtime(dir, "config.ini"));
  c->study = study_of(l, c->path);
  return 0;
}

// A study directory (a path, or a folder right inside one) shows before its first run directory
// exists: its study.json says what is to come.
static void add_study_dir(run_list* l, const char* dir) {
  char probe[1200], fake[1200];
  if (snprintf(probe, sizeof probe, "%s/study.json", dir) >= (int)sizeof probe || access(probe, F_OK) != 0) return;
  // study_of walks up from a run directory two levels below
  if (snprintf(fake, sizeof fake, "%s/arm/seed0", dir) < (int)sizeof fake) study_of(l, fake);
}

static void add_empty_studies(run_list* l, const char* path) {
  add_study_dir(l, path);
  DIR* d = opendir(path);
  if (!d) return;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    char sub[1100];
    if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < (int)sizeof sub) add_study_dir(l, sub);
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

// Every run of the studies the paths hold (at most MAX_STUDY_RUNS), and the max_runs most recently
// updated other runs, sorted by name (stable colours).
static void load_runs(const ne__dash* d, run_list* l) {
  memset(l, 0, sizeof *l);
  l->cands = ne_calloc(MAX_CANDIDATES, sizeof *l->cands);
  l->runs = ne_calloc((size_t)d->max_runs + MAX_STUDY_RUNS, sizeof *l->runs);
  if (!l->cands || !l->runs) return;
  for (int i = 0; i < d->n_paths; i++) {
    add_empty_studies(l, d->paths[i]);
    const char* one[1] = {d->paths[i]};
    ne_runinfo_scan(one, 1, add_candidate, l, NULL);
  }
  // stat every candidate, read the studies' runs and the newest max_runs others
  qsort(l->cands, (size_t)l->n_cands, sizeof *l->cands, newest_first);
  int in_studies = 0, others = 0;
  for (int i = 0; i < l->n_cands; i++) {
    int of_study = l->cands[i].study >= 0;
    if (of_study ? in_studies >= MAX_STUDY_RUNS : others >= d->max_runs) continue;
    if (ne__rundata_load(l->cands[i].path, &l->runs[l->n_runs], NULL) != 0) continue;
    l->n_runs++;
    in_studies += of_study, others += !of_study;
  }
  qsort(l->runs, (size_t)l->n_runs, sizeof *l->runs, by_name);
}

static void free_runs(run_list* l) {
  for (int i = 0; i < l->n_runs; i++) ne__rundata_free(&l->runs[i]);
  for (int i = 0; i < l->n_studies; i++) cJSON_Delete(l->studies[i].json);
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

// ---- studies --------------------------------------------------------------------------------------

// a study.json field, "" or 0 when missing (the file is read as it is, never trusted)
static const char* str_of(const cJSON* o, const char* key) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static int int_of(const cJSON* o, const char* key) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? (int)v->valuedouble : 0;
}

// the loaded run DIR/ARM/seedK of a study, or NULL (not started, or not loaded)
static const ne__rundata* study_run(const run_list* l, const study* st, const char* arm, int seed) {
  char dir[1400];
  snprintf(dir, sizeof dir, "%s/%s/seed%d", st->dir, arm, seed);
  for (int i = 0; i < l->n_runs; i++)
    if (strcmp(l->runs[i].dir, dir) == 0) return &l->runs[i];
  return NULL;
}

// One run of a study as the page shows it: the live state of its directory, else study.json's.
typedef struct study_cell {
  const char* status;  // running, finished, failed, stopped, killed, pending, starting
  const char* error;   // why it failed ("" when it did not)
  int generations;     // completed (0 without a directory)
  double score;        // the last row's elite, else its best (NaN: none)
} study_cell;

static study_cell cell_of(const run_list* l, const study* st, const char* arm, const cJSON* run) {
  study_cell c = {str_of(run, "status")[0] ? str_of(run, "status") : "pending", str_of(run, "error"), 0, NAN};
  const ne__rundata* r = study_run(l, st, arm, int_of(run, "seed"));
  if (!r) return c;
  c.status = r->state;
  if (r->reason[0] && (strcmp(r->state, "failed") == 0 || strcmp(r->state, "killed") == 0)) c.error = r->reason;
  c.generations = generations_done(r);
  double e = last_value(r, NE__RD_ELITE);
  c.score = isnan(e) ? last_value(r, NE__RD_BEST) : e;
  return c;
}

static const char* base_of(const char* dir) {
  const char* slash = strrchr(dir, '/');
  return slash && slash[1] ? slash + 1 : dir;
}

// a study: its counts, the arms x seeds grid, what failed, and each arm's mean curve with its band
static void study_block(ne_buf* b, const run_list* l, const study* st, const char* x) {
  const cJSON* arms = cJSON_GetObjectItemCaseSensitive(st->json, "arms");
  int seeds = int_of(st->json, "seeds"), counts[4] = {0};  // finished, running, failed, other
  const cJSON *arm, *run;
  cJSON_ArrayForEach(arm, arms) cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(arm, "runs")) {
    study_cell c = cell_of(l, st, str_of(arm, "name"), run);
    counts[strcmp(c.status, "finished") == 0                                        ? 0
               : strcmp(c.status, "running") == 0                                   ? 1
               : strcmp(c.status, "failed") == 0 || strcmp(c.status, "killed") == 0 ? 2
                                                                                    : 3]++;
  }
  ne__html_puts(b, "<h3>");
  ne__html_text(b, base_of(st->dir));
  ne__html_printf(b, "</h3>\n<p class=\"sub\">%d arm%s x %d seed%s: %d finished, %d running, %d failed, %d to go</p>\n",
                  cJSON_GetArraySize(arms), cJSON_GetArraySize(arms) == 1 ? "" : "s", seeds, seeds == 1 ? "" : "s",
                  counts[0], counts[1], counts[2], counts[3]);
  // the grid: an arm per row, a seed per column
  ne__html_puts(b, "<div class=\"scroll\"><table class=\"study\"><tr><th>arm</th>");
  for (int k = 0; k < seeds; k++) ne__html_printf(b, "<th>seed %d</th>", k);
  ne__html_puts(b, "</tr>\n");
  cJSON_ArrayForEach(arm, arms) {
    const char* name = str_of(arm, "name");
    ne__html_puts(b, "<tr><td>");
    ne__html_text(b, name);
    ne__html_puts(b, "</td>");
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(arm, "runs")) {
      study_cell c = cell_of(l, st, name, run);
      ne__html_printf(b, "<td class=\"cell %s\" title=\"", c.status);
      ne__html_text(b, c.error);
      ne__html_printf(b, "\">%s", c.status);
      if (c.generations) ne__html_printf(b, " &middot; gen %d", c.generations);
      if (!isnan(c.score)) ne__html_printf(b, " &middot; %.4g", c.score);
      ne__html_puts(b, "</td>");
    }
    ne__html_puts(b, "</tr>\n");
  }
  ne__html_puts(b, "</table></div>\n");
  // what failed, with why
  if (counts[2]) {
    ne__html_puts(b, "<ul class=\"failures\">\n");
    cJSON_ArrayForEach(arm, arms) {
      const char* name = str_of(arm, "name");
      cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(arm, "runs")) {
        study_cell c = cell_of(l, st, name, run);
        if (strcmp(c.status, "failed") != 0 && strcmp(c.status, "killed") != 0) continue;
        ne__html_printf(b, "<li class=\"%s\">", c.status);
        ne__html_text(b, name);
        ne__html_printf(b, " seed %d: %s: ", int_of(run, "seed"), c.status);
        ne__html_text(b, c.error);
        ne__html_puts(b, "</li>\n");
      }
    }
    ne__html_puts(b, "</ul>\n");
  }
  // the study's runs alone for the chart
  ne__rundata* mine = ne_calloc((size_t)(l->n_runs ? l->n_runs : 1), sizeof *mine);
  int n = 0;
  size_t len = strlen(st->dir);
  for (int i = 0; mine && i < l->n_runs; i++)
    if (strncmp(l->runs[i].dir, st->dir, len) == 0 && l->runs[i].dir[len] == '/') mine[n++] = l->runs[i];
  if (mine) ne__svg_arms(b, mine, n, x, CHART_W, CHART_H);
  ne_free(mine);  // a shallow copy: the rows stay the list's
}

static void studies_part(ne_buf* b, const run_list* l, const char* x) {
  for (int i = 0; i < l->n_studies; i++) study_block(b, l, &l->studies[i], x);
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
                  "   var st=document.getElementById(\"studies\"); if(st) st.innerHTML=s.studies_html;\n"
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
  if (l.n_studies) {
    ne__html_puts(b, "<h2>Studies</h2>\n<div id=\"studies\">");
    studies_part(b, &l, x);
    ne__html_puts(b, "</div>\n");
  }
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

// a study for scripts: {"dir", "arms": [{"name", "runs": [{"seed", "status", "generations", "score", "error"}]}]}
static void json_study(ne_buf* b, const run_list* l, const study* st) {
  ne__html_puts(b, "{\"dir\":");
  ne__html_json_str(b, st->dir);
  ne__html_puts(b, ",\"arms\":[");
  const cJSON *arm, *run;
  int first_arm = 1;
  cJSON_ArrayForEach(arm, cJSON_GetObjectItemCaseSensitive(st->json, "arms")) {
    const char* name = str_of(arm, "name");
    ne__html_puts(b, first_arm ? "{\"name\":" : ",{\"name\":");
    first_arm = 0;
    ne__html_json_str(b, name);
    ne__html_puts(b, ",\"runs\":[");
    int first = 1;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(arm, "runs")) {
      study_cell c = cell_of(l, st, name, run);
      ne__html_printf(b, "%s{\"seed\":%d,\"status\":", first ? "" : ",", int_of(run, "seed"));
      first = 0;
      ne__html_json_str(b, c.status);
      ne__html_printf(b, ",\"generations\":%d,", c.generations);
      json_num(b, "score", c.score);
      ne__html_puts(b, ",\"error\":");
      ne__html_json_str(b, c.error);
      ne__html_puts(b, "}");
    }
    ne__html_puts(b, "]}");
  }
  ne__html_puts(b, "]}");
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
  studies_part(&part, &l, x);
  ne__html_terminate(&part);
  ne__html_puts(b, ",\"studies_html\":");
  json_html(b, &part);
  ne__html_puts(b, ",\"studies\":[");
  for (int i = 0; i < l.n_studies; i++) {
    if (i) ne__html_puts(b, ",");
    json_study(b, &l, &l.studies[i]);
  }
  ne__html_puts(b, "]");
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
