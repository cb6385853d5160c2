// SPDX-License-Identifier: MIT
// Reading a run directory for humans (see rundata.h): metrics.csv by column name (a torn last line
// from a run mid-write is skipped), config.ini by a plain key scan, log.txt's last lines for the
// state. One pass over each file per call; the dashboard calls it every few seconds per run.
#include "report/rundata.h"

#include <errno.h>
#include <limits.h>  // PATH_MAX for realpath
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/runinfo.h"  // the record: status, a study's arm and seed

enum { PACE_ROWS = 10 };  // generations the pace (ETA, throughput) is measured over

// ---- files ---------------------------------------------------------------------------------

int ne__rundata_is_run(const char* dir) {
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  if (access(path, R_OK) == 0) return 1;
  snprintf(path, sizeof path, "%s/config.ini", dir);
  return access(path, R_OK) == 0;
}

// the last path component of dir (after resolving ".", "..", trailing slashes)
static void base_name(const char* dir, char* out, size_t size) {
  char real[PATH_MAX];
  const char* path = realpath(dir, real) ? real : dir;
  const char* slash = strrchr(path, '/');
  const char* base = slash && slash[1] ? slash + 1 : path;
  size_t n = strlen(base) < size - 1 ? strlen(base) : size - 1;  // a long name is cut, never overrun
  memcpy(out, base, n);
  out[n] = '\0';
}

static int64_t ini_int(const char* text, const char* section, const char* key) {
  char v[64];
  return ne__ini_get(text, section, key, v, sizeof v) == 0 ? strtoll(v, NULL, 10) : 0;
}

static void read_config(ne__rundata* d) {
  char path[PATH_MAX + 32], *text, v[64];
  snprintf(path, sizeof path, "%s/config.ini", d->dir);
  if (ne__read_file(path, &text, NULL, NULL) != 0) return;
  ne__ini_get(text, "env", "id", d->env, sizeof d->env);
  ne__ini_get(text, "run", "algorithm", d->algorithm, sizeof d->algorithm);
  d->max_generations = ini_int(text, "run", "generations");
  d->threads = (int)ini_int(text, "run", "threads");
  d->eval_episodes = (int)ini_int(text, "run", "eval_episodes");
  if (ne__ini_get(text, "run", "max_env_steps", v, sizeof v) == 0) d->max_env_steps = strtod(v, NULL);
  if (ne__ini_get(text, "run", "max_seconds", v, sizeof v) == 0) d->max_seconds = strtod(v, NULL);
  ne_free(text);
}

// the state the newest telling line of log.txt gives, and that line
static void read_log(ne__rundata* d) {
  char path[PATH_MAX + 32], *text;
  snprintf(path, sizeof path, "%s/log.txt", d->dir);
  snprintf(d->state, sizeof d->state, "starting");
  if (ne__read_file(path, &text, NULL, NULL) != 0) return;
  for (char* line = text; line && *line;) {
    char* nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (strncmp(line, "gen ", 4) == 0) snprintf(d->state, sizeof d->state, "running");
    else if (strstr(line, " reached after ")) snprintf(d->state, sizeof d->state, "finished");
    else if (strncmp(line, "interrupted", 11) == 0) snprintf(d->state, sizeof d->state, "stopped");
    if (*line) snprintf(d->last_line, sizeof d->last_line, "%s", line);
    line = nl ? nl + 1 : NULL;
  }
  ne_free(text);
}

static int read_metrics(ne__rundata* d, char* errstr) {
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/metrics.csv", d->dir);
  int rc = ne_metrics_read(d->dir, &d->metrics, errstr);
  if (rc == NE_ENOTFOUND) return 0;  // a run that has not finished a generation yet
  if (rc) return rc;
  struct stat st;
  if (stat(path, &st) == 0) d->metrics_age_s = difftime(time(NULL), st.st_mtime);
  d->minimized = d->metrics.minimized;
  if (d->metrics.header && !d->metrics.has[NE_M_GEN])
    return ne__set_error(errstr, NE_EPARSE, "%s: no generation column", path);
  // rows without a generation are not rows of this run
  int kept = 0;
  for (int r = 0; r < d->metrics.n_rows; r++)
    if (!isnan(ne_metrics_at(&d->metrics, r, NE_M_GEN)))
      memmove(d->metrics.rows + (size_t)kept++ * NE_M_COLS, d->metrics.rows + (size_t)r * NE_M_COLS,
              NE_M_COLS * sizeof(double));
  d->metrics.n_rows = d->n_rows = kept;
  return 0;
}

// A run without a record whose log says "running" but whose metrics stopped changing for much
// longer than its generations take (a killed process, a lost machine) is "killed".
static void mark_killed(ne__rundata* d) {
  if (strcmp(d->state, "running") != 0 || d->n_rows < 2) return;
  double wall = ne__rundata_at(d, d->n_rows - 1, NE__RD_WALL) - ne__rundata_at(d, 0, NE__RD_WALL);
  double per_gen = wall / (d->n_rows - 1);
  if (d->metrics_age_s > 60 + 20 * per_gen) snprintf(d->state, sizeof d->state, "killed");
}

// The run's record (run.json, runinfo.h): its status (a killed process seen as such) and, for a
// study's run, its arm and seed as the name ("lander-es seed 2": every run of a study is "seedK")
static int read_record(ne__rundata* d) {
  ne_runinfo r;
  if (ne_runinfo_load(d->dir, &r, NULL) != 0) return 0;
  int has = r.has_record;
  if (has) {
    snprintf(d->state, sizeof d->state, "%s", r.status);
    snprintf(d->reason, sizeof d->reason, "%s", r.reason);
    if (r.arm[0]) snprintf(d->name, sizeof d->name, "%.200s seed %d", r.arm, r.seed);
    snprintf(d->arm, sizeof d->arm, "%s", r.arm);
    d->seed = r.seed;
  }
  ne_runinfo_free(&r);
  return has;
}

int ne__rundata_load(const char* dir, ne__rundata* out, char* errstr) {
  memset(out, 0, sizeof *out);
  if (!ne__rundata_is_run(dir)) return ne__set_error(errstr, NE_ENOTFOUND, "%s: not a run directory", dir);
  snprintf(out->dir, sizeof out->dir, "%s", dir);
  base_name(dir, out->name, sizeof out->name);
  read_config(out);
  read_log(out);
  int recorded = read_record(out);
  int rc = read_metrics(out, errstr);
  if (!rc && !recorded) mark_killed(out);
  if (rc) ne__rundata_free(out);
  return rc;
}

void ne__rundata_free(ne__rundata* d) {
  if (!d) return;
  ne_metrics_free(&d->metrics);
  d->n_rows = 0;
}

double ne__rundata_at(const ne__rundata* d, int r, int c) { return ne_metrics_at(&d->metrics, r, (ne_metrics_col)c); }

// ---- derived figures -----------------------------------------------------------------------

// the last row and the one PACE_ROWS before it (or the first); 0 if fewer than 2 rows
static int pace_rows(const ne__rundata* d, int* a, int* b) {
  if (d->n_rows < 2) return 0;
  *b = d->n_rows - 1;
  *a = *b > PACE_ROWS ? *b - PACE_ROWS : 0;
  return 1;
}

void ne__rundata_rate(const ne__rundata* d, double* evals_per_s, double* steps_per_s) {
  int a, b;
  *evals_per_s = *steps_per_s = 0;
  if (!pace_rows(d, &a, &b)) return;
  double dt = ne__rundata_at(d, b, NE__RD_WALL) - ne__rundata_at(d, a, NE__RD_WALL);
  if (!(dt > 0)) return;
  *evals_per_s = (ne__rundata_at(d, b, NE__RD_EVALS) - ne__rundata_at(d, a, NE__RD_EVALS)) / dt;
  *steps_per_s = (ne__rundata_at(d, b, NE__RD_STEPS) - ne__rundata_at(d, a, NE__RD_STEPS)) / dt;
}

double ne__rundata_eta(const ne__rundata* d) {
  int a, b;
  if (!pace_rows(d, &a, &b)) return NAN;
  double wall = ne__rundata_at(d, b, NE__RD_WALL), dt = wall - ne__rundata_at(d, a, NE__RD_WALL);
  double s_per_gen = dt / (b - a), eta = INFINITY;
  double evals_per_s, steps_per_s;
  ne__rundata_rate(d, &evals_per_s, &steps_per_s);
  // the nearest of the budgets that are set
  double gens_done = ne__rundata_at(d, b, NE__RD_GEN) + 1;
  if (d->max_generations > 0) eta = fmin(eta, fmax(0, (double)d->max_generations - gens_done) * s_per_gen);
  if (d->max_env_steps > 0 && steps_per_s > 0)
    eta = fmin(eta, fmax(0, d->max_env_steps - ne__rundata_at(d, b, NE__RD_STEPS)) / steps_per_s);
  if (d->max_seconds > 0) eta = fmin(eta, fmax(0, d->max_seconds - wall));
  return isfinite(eta) ? eta : NAN;
}
