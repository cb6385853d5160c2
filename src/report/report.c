// SPDX-License-Identifier: MIT
// The run report (see report.h): reads the run directory (rundata.h), evaluates the best agent
// (agent.h), draws the curves as inline SVG (svgchart.h), embeds agent.gif as base64 and writes one
// HTML file. Every section degrades to a sentence when its input is missing, so a report of a run in
// progress or of a run without a best agent still opens.
#include "neuroevo/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>  // uname: the machine section
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "neuroevo/agent.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/version.h"
#include "report/html.h"
#include "report/rundata.h"
#include "report/svgchart.h"

enum { MAX_SHOWN_BYTES = 64 * 1024, MAX_GIF_BYTES = 32 * 1024 * 1024, LAST_ROWS = 20 };

static const char STYLE[] =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}"
    "h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #ddd}"
    ".sub{color:#666}table{border-collapse:collapse}td,th{padding:.2em .8em;text-align:right}"
    "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
    "pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:.85em;max-height:30em}"
    ".eval{font-size:1.1em;font-weight:600}svg{max-width:100%;height:auto}";

// What the sections need, gathered once.
typedef struct report_ctx {
  const char* run_dir;    // the run directory
  ne__rundata run;        // metrics, config keys, state
  char agent_path[4096];  // best.genome / best.params ("" if none)
  int evaluated;          // 1 if eval holds a final evaluation
  ne_agent_eval eval;     // the final evaluation
  uint64_t seed;          // its seed
} report_ctx;

// ---- sections ------------------------------------------------------------------------------

static void section_header(ne_buf* b, const report_ctx* c) {
  char when[64];
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  ne__html_puts(b, "<h1>");
  ne__html_text(b, c->run.name);
  ne__html_puts(b, "</h1>\n<p class=\"sub\">");
  ne__html_text(b, c->run.env[0] ? c->run.env : "?");
  ne__html_puts(b, " &middot; ");
  ne__html_text(b, c->run.algorithm[0] ? c->run.algorithm : "?");
  ne__html_printf(b, " &middot; %s &middot; report made %s by neuroevo %s</p>\n", c->run.state, when,
                  NE_VERSION_STRING);
}

// the best elite score over all generations (lowest f for minimized runs); NaN if none
static double best_elite(const ne__rundata* d) {
  double best = NAN;
  for (int r = 0; r < d->n_rows; r++) {
    double v = ne__rundata_at(d, r, NE__RD_ELITE);
    if (!isnan(v) && (isnan(best) || (d->minimized ? v < best : v > best))) best = v;
  }
  return best;
}

static void section_summary(ne_buf* b, const report_ctx* c) {
  const ne__rundata* d = &c->run;
  ne__html_puts(b, "<h2>Summary</h2>\n");
  if (d->n_rows == 0) {
    ne__html_puts(b, "<p>No generation completed yet (metrics.csv has no rows).</p>\n");
    return;
  }
  int last = d->n_rows - 1;
  char steps[32], evals[32], wall[32];
  ne__fmt_count(ne__rundata_at(d, last, NE__RD_STEPS), steps, sizeof steps);
  ne__fmt_count(ne__rundata_at(d, last, NE__RD_EVALS), evals, sizeof evals);
  ne__fmt_duration(ne__rundata_at(d, last, NE__RD_WALL), wall, sizeof wall);
  ne__html_printf(b, "<table><tr><td>generations</td><td>%d</td></tr>\n", (int)ne__rundata_at(d, last, NE__RD_GEN) + 1);
  ne__html_printf(b, "<tr><td>evaluations</td><td>%s</td></tr><tr><td>env steps</td><td>%s</td></tr>\n", evals, steps);
  ne__html_printf(b, "<tr><td>training time</td><td>%s</td></tr>\n", wall);
  ne__html_printf(b, "<tr><td>best elite %s</td><td>%.6g</td></tr>\n", d->minimized ? "f" : "score", best_elite(d));
  ne__html_printf(b, "<tr><td>last generation: best / mean / median</td><td>%.6g / %.6g / %.6g</td></tr></table>\n",
                  ne__rundata_at(d, last, NE__RD_BEST), ne__rundata_at(d, last, NE__RD_MEAN),
                  ne__rundata_at(d, last, NE__RD_MEDIAN));
}

static void section_eval(ne_buf* b, const report_ctx* c) {
  ne__html_puts(b, "<h2>Final evaluation</h2>\n");
  if (!c->agent_path[0]) {
    ne__html_puts(b, "<p>No best.genome or best.params in the run directory: nothing to evaluate.</p>\n");
    return;
  }
  if (!c->evaluated) {
    ne__html_puts(b, "<p>Not evaluated (--episodes 0 / no evaluation asked for).</p>\n");
    return;
  }
  char line[256];
  ne_agent_eval_line(&c->eval, line, sizeof line);
  ne__html_puts(b, "<p class=\"eval\" id=\"evaluation\">");
  ne__html_text(b, line);
  ne__html_printf(b, "</p>\n<p class=\"sub\">episode seeds from %llu (as <code>neuroevo eval ",
                  (unsigned long long)c->seed);
  ne__html_text(b, c->run_dir);
  char rate[32];
  ne__fmt_count(c->eval.seconds > 0 ? (double)c->eval.steps / c->eval.seconds : 0, rate, sizeof rate);
  ne__html_printf(b, " --episodes %d --seed %llu</code>), %.2f s, %s env steps/s.</p>\n", c->eval.episodes,
                  (unsigned long long)c->seed, c->eval.seconds, rate);
}

static void section_curves(ne_buf* b, const report_ctx* c) {
  ne__html_puts(b, "<h2>Training curves</h2>\n");
  ne__svg_curves(b, &c->run, 1, "env_steps", 960, 400);
  ne__svg_curves(b, &c->run, 1, "wall_s", 960, 400);
}

// The last LAST_ROWS rows of metrics.csv as a table.
static void section_generations(ne_buf* b, const report_ctx* c) {
  const ne__rundata* d = &c->run;
  if (d->n_rows == 0) return;
  ne__html_printf(b, "<details><summary>last %d generations</summary><table>\n", LAST_ROWS);
  ne__html_puts(b,
                "<tr><th>generation</th><th>evaluations</th><th>env steps</th><th>wall s</th><th>best</th>"
                "<th>mean</th><th>median</th><th>elite</th></tr>\n");
  for (int r = d->n_rows > LAST_ROWS ? d->n_rows - LAST_ROWS : 0; r < d->n_rows; r++) {
    ne__html_puts(b, "<tr>");
    for (int col = 0; col < NE__RD_COLS; col++) ne__html_printf(b, "<td>%.6g</td>", ne__rundata_at(d, r, col));
    ne__html_puts(b, "</tr>\n");
  }
  ne__html_puts(b, "</table></details>\n");
}

static void section_gif(ne_buf* b, const report_ctx* c) {
  char path[4096], *data;
  size_t len;
  snprintf(path, sizeof path, "%s/agent.gif", c->run_dir);
  ne__html_puts(b, "<h2>The agent</h2>\n");
  if (ne__read_file(path, &data, &len, NULL) != 0) {
    ne__html_puts(b,
                  "<p>No agent.gif in the run directory (<code>neuroevo render RUN_DIR</code> records one "
                  "for envs that can be drawn).</p>\n");
    return;
  }
  if (len <= MAX_GIF_BYTES) {
    ne__html_puts(b, "<img id=\"agent\" alt=\"the best agent\" src=\"data:image/gif;base64,");
    ne__html_base64(b, data, len);
    ne__html_puts(b, "\">\n");
  } else {
    ne__html_printf(b, "<p>agent.gif is %zu MB: too large to embed.</p>\n", len >> 20);
  }
  ne_free(data);
}

// A text file shown in <pre>, comment lines left out when skip_comments, cut at MAX_SHOWN_BYTES.
static void pre_file(ne_buf* b, const char* path, int skip_comments, const char* id) {
  char* text;
  size_t len;
  if (ne__read_file(path, &text, &len, NULL) != 0) {
    ne__html_puts(b, "<p>(missing)</p>\n");
    return;
  }
  // copy line by line: drop comments (and the blank lines they leave in pairs) when asked
  ne_buf shown;
  ne__buf_init(&shown);
  for (char* line = text; line && *line && shown.len < MAX_SHOWN_BYTES;) {
    char* nl = strchr(line, '\n');
    size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
    if (!(skip_comments && (line[0] == '#' || (line[0] == '\n' && shown.len && shown.data[shown.len - 1] == '\n'))))
      ne__buf_bytes(&shown, line, n);
    line = nl ? nl + 1 : NULL;
  }
  // then escaped into the page, with a note when it was cut
  ne__html_terminate(&shown);
  ne__html_printf(b, "<pre id=\"%s\">", id);
  ne__html_text(b, shown.data ? (const char*)shown.data : "");
  if (shown.len >= MAX_SHOWN_BYTES) ne__html_printf(b, "\n... (%zu bytes in all; cut)", len);
  ne__html_puts(b, "</pre>\n");
  ne__buf_free(&shown);
  ne_free(text);
}

static void section_genome(ne_buf* b, const report_ctx* c) {
  ne__html_puts(b, "<h2>Best genome</h2>\n");
  if (!c->agent_path[0]) {
    ne__html_puts(b, "<p>None yet.</p>\n");
    return;
  }
  ne__html_puts(b, "<p class=\"sub\">");
  ne__html_text(b, c->agent_path);
  ne__html_puts(b, " (self-contained: names its env and policy)</p>\n");
  pre_file(b, c->agent_path, 0, "genome");
}

// The value after "key" in a /proc file (e.g. "model name\t: ..."), trimmed.
static void proc_value(const char* path, const char* key, char* out, size_t size) {
  char* text;
  snprintf(out, size, "?");
  if (ne__read_file(path, &text, NULL, NULL) != 0) return;
  char* at = strstr(text, key);
  char* colon = at ? strchr(at, ':') : NULL;
  if (colon) {
    colon++;
    while (*colon == ' ' || *colon == '\t') colon++;
    size_t n = strcspn(colon, "\n");
    snprintf(out, size, "%.*s", (int)n, colon);
  }
  ne_free(text);
}

static void section_machine(ne_buf* b, const report_ctx* c) {
  const ne__rundata* d = &c->run;
  char host[256] = "?", cpu[128], mem[64], rate_e[32], rate_s[32], all_s[32];
  gethostname(host, sizeof host - 1);
  struct utsname u;
  int have_uname = uname(&u) == 0;
  proc_value("/proc/cpuinfo", "model name", cpu, sizeof cpu);
  proc_value("/proc/meminfo", "MemTotal", mem, sizeof mem);
  double kb = strtod(mem, NULL);  // "24684092 kB"
  if (kb > 0) snprintf(mem, sizeof mem, "%.1f GiB", kb / (1024.0 * 1024.0));
  ne__html_puts(b, "<h2>Machine and throughput</h2>\n<table><tr><td>host</td><td>");
  ne__html_text(b, host);
  ne__html_puts(b, "</td></tr>\n<tr><td>CPU</td><td>");
  ne__html_text(b, cpu);
  ne__html_printf(b, " &times; %ld online</td></tr>\n<tr><td>memory</td><td>", sysconf(_SC_NPROCESSORS_ONLN));
  ne__html_text(b, mem);
  ne__html_printf(b, "</td></tr>\n<tr><td>system</td><td>%s %s</td></tr>\n", have_uname ? u.sysname : "?",
                  have_uname ? u.release : "");
  ne__html_printf(b, "<tr><td>run.threads</td><td>%d%s</td></tr>\n", d->threads, d->threads ? "" : " (all cores)");
  // throughput: over the whole run, and over the last generations (what a longer run would see)
  if (d->n_rows > 0) {
    int last = d->n_rows - 1;
    double wall = ne__rundata_at(d, last, NE__RD_WALL), e, s;
    ne__fmt_count(wall > 0 ? ne__rundata_at(d, last, NE__RD_EVALS) / wall : 0, rate_e, sizeof rate_e);
    ne__fmt_count(wall > 0 ? ne__rundata_at(d, last, NE__RD_STEPS) / wall : 0, all_s, sizeof all_s);
    ne__html_printf(b, "<tr><td>whole run</td><td>%s evaluations/s, %s env steps/s</td></tr>\n", rate_e, all_s);
    ne__rundata_rate(d, &e, &s);
    ne__fmt_count(e, rate_e, sizeof rate_e);
    ne__fmt_count(s, rate_s, sizeof rate_s);
    ne__html_printf(b, "<tr><td>last generations</td><td>%s evaluations/s, %s env steps/s</td></tr>\n", rate_e, rate_s);
  }
  ne__html_puts(b, "</table>\n");
}

static void section_config(ne_buf* b, const report_ctx* c) {
  char path[4096];
  snprintf(path, sizeof path, "%s/config.ini", c->run_dir);
  ne__html_puts(b, "<h2>Config</h2>\n<p class=\"sub\">the resolved config.ini, comments left out</p>\n");
  pre_file(b, path, 1, "config");
}

// ---- assembly ------------------------------------------------------------------------------

static void build_page(ne_buf* b, const report_ctx* c) {
  ne__html_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>neuroevo report: ");
  ne__html_text(b, c->run.name);
  ne__html_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", STYLE);
  section_header(b, c);
  section_summary(b, c);
  section_eval(b, c);
  section_curves(b, c);
  section_generations(b, c);
  section_gif(b, c);
  section_genome(b, c);
  section_machine(b, c);
  section_config(b, c);
  ne__html_puts(b, "</body>\n</html>\n");
}

// Evaluates the run's agent when there is one and episodes were not turned off.
static int evaluate(report_ctx* c, const ne_report_options* opt, char* errstr) {
  if (ne_agent_path(c->run_dir, c->agent_path, sizeof c->agent_path) != 0) {
    c->agent_path[0] = '\0';
    return 0;
  }
  int episodes = opt->episodes ? opt->episodes : c->run.eval_episodes > 0 ? c->run.eval_episodes : 100;
  if (episodes < 0) return 0;
  c->seed = opt->seed;
  int rc = ne_agent_evaluate(c->agent_path, episodes, opt->seed, opt->threads, &c->eval, NULL, errstr);
  c->evaluated = rc == 0;
  return rc;
}

int ne_report_write(const char* run_dir, const ne_report_options* opt, char* path, size_t path_size, char* errstr) {
  ne_report_options defaults = {0};
  if (!opt) opt = &defaults;
  report_ctx c = {.run_dir = run_dir};
  int rc = ne__rundata_load(run_dir, &c.run, errstr);
  if (rc) return rc;
  rc = evaluate(&c, opt, errstr);
  char out[4096];
  if (opt->out) snprintf(out, sizeof out, "%s", opt->out);
  else {
    size_t n = strlen(run_dir);
    while (n > 1 && run_dir[n - 1] == '/') n--;  // "runs/x/" (as a shell glob gives it) -> "runs/x"
    snprintf(out, sizeof out, "%.*s/report.html", (int)n, run_dir);
  }
  // the page is built in memory, then replaces any older report in one rename
  ne_buf page;
  ne__buf_init(&page);
  if (!rc) build_page(&page, &c);
  if (!rc && page.oom) rc = ne__set_error(errstr, NE_ENOMEM, "out of memory for the report of %s", run_dir);
  if (!rc) rc = ne__write_file_atomic(out, page.data, page.len, errstr);
  if (!rc && path) snprintf(path, path_size, "%s", out);
  ne__buf_free(&page);
  ne__rundata_free(&c.run);
  return rc;
}
