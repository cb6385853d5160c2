// SPDX-License-Identifier: MIT
// A study's summary files (compare_int.h): summary.csv (one row per run, its status included),
// summary.md (per arm: mean, median and an interval of the final score over its finished runs,
// runs reaching the threshold; then every run that failed, with its error) and compare.png (each
// arm's mean curve with its band). Statistics use finished runs only: a failed run's partial curve
// would drag an arm's mean towards its early generations. With fewer than MIN_CI_SEEDS finished
// runs the interval shown is the seeds' min-max range and says so: a bootstrap over 2-4 values is
// not a confidence interval. Everything is computed from the runs' metrics.csv, so the summary is
// what the run directories show, also after a study was continued.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/metrics.h"  // reading each run's metrics.csv
#include "neuroevo/plot.h"     // ne_plot_gnuplot: compare.png
#include "neuroevo/rng.h"
#include "report/compare_int.h"
#include "report/html.h"  // ne__html_printf: text into a buffer

#define CI_RESAMPLES 10000    // bootstrap resamples of the final score
#define BAND_RESAMPLES 1000   // per curve point
#define BAND_POINTS 200       // curve points per arm
#define BOOTSTRAP_SEED 12345  // fixed: the same runs always give the same intervals
#define MIN_CI_SEEDS 5        // fewer finished runs: the min-max range instead of a bootstrap CI

void ne__cmp_run_dir(char* buf, size_t size, const char* out, const char* arm, int seed) {
  snprintf(buf, size, "%s/%s/seed%d", out, arm, seed);
}

// writes b atomically to dir/name and frees it
static int save(ne_buf* b, const char* dir, const char* name, char* errstr) {
  char path[NE__CMP_PATH + 64];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = b->oom ? ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path)
                  : ne__write_file_atomic(path, b->data ? (const char*)b->data : "", b->len, errstr);
  ne__buf_free(b);
  return rc;
}

// ---- bootstrap ----------------------------------------------------------------------------------

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// the interval from `resamples` bootstrap means written into `means` (resamples doubles)
static void bootstrap_into(const double* x, int n, int resamples, uint64_t seed, double* means, double* lo,
                           double* hi) {
  ne_rng rng;
  ne_rng_seed(&rng, seed);
  for (int b = 0; b < resamples; b++) {
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[ne_rng_below(&rng, (uint64_t)n)];
    means[b] = sum / n;
  }
  qsort(means, (size_t)resamples, sizeof *means, cmp_double);
  *lo = means[(int)(0.025 * resamples)];
  *hi = means[(int)ceil(0.975 * resamples) - 1];
}

void ne_compare_bootstrap(const double* x, int n, int resamples, uint64_t seed, double* lo, double* hi) {
  *lo = *hi = NAN;
  if (n <= 0 || resamples <= 0) return;
  if (n == 1) {
    *lo = *hi = x[0];
    return;
  }
  double* means = ne_malloc((size_t)resamples * sizeof(double));
  if (!means) return;
  bootstrap_into(x, n, resamples, seed, means, lo, hi);
  ne_free(means);
}

// [min, max] of x[0..n)
static void range_of(const double* x, int n, double* lo, double* hi) {
  *lo = *hi = n ? x[0] : NAN;
  for (int i = 1; i < n; i++) *lo = fmin(*lo, x[i]), *hi = fmax(*hi, x[i]);
}

static double mean_of(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  return n ? s / n : NAN;
}

// median of x[0..n) (sorts a copy in scratch)
static double median_of(const double* x, int n, double* scratch) {
  if (n == 0) return NAN;
  memcpy(scratch, x, (size_t)n * sizeof(double));
  qsort(scratch, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

// ---- reading a run ------------------------------------------------------------------------------

static int curve_push(ne__cmp_curve* c, double x, double s) {
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 256;
    double* nx = ne_realloc(c->x, (size_t)cap * sizeof(double));
    if (nx) c->x = nx;
    double* ns = nx ? ne_realloc(c->score, (size_t)cap * sizeof(double)) : NULL;
    if (!nx || !ns) return NE_ENOMEM;
    c->score = ns;
    c->cap = cap;
  }
  c->x[c->n] = x;
  c->score[c->n] = s;
  c->n++;
  return 0;
}

// A generation's score: for black-box tasks the lowest f evaluated (best or the mean's f), for MDPs
// the elite / mean evaluation when the algorithm has one, else the population's best.
static double row_score(double best, double elite, int minimize) {
  if (minimize) return isfinite(elite) && elite < best ? elite : best;
  return isfinite(elite) ? elite : best;
}

// final / best / threshold figures of one curve
static ne__cmp_stats curve_stats(const ne__cmp_curve* c, const ne__cmp_arm* a) {
  ne__cmp_stats s = {NAN, NAN, INFINITY, c->wall_s};
  double sign = a->minimize ? -1.0 : 1.0;  // compare as "higher is better"
  for (int i = 0; i < c->n; i++) {
    double v = c->score[i];
    if (isnan(s.best_score) || sign * v > sign * s.best_score) s.best_score = v;
    if (a->has_threshold && isinf(s.to_threshold) && sign * v >= sign * a->threshold) s.to_threshold = c->x[i];
  }
  if (c->n) s.final_score = c->score[c->n - 1];
  return s;
}

int ne__cmp_read_run(const char* dir, const ne__cmp_arm* a, ne__cmp_run* r, char* errstr) {
  ne_metrics m;
  int rc = ne_metrics_read(dir, &m, errstr);
  if (rc) return rc;
  if (m.header && (!m.has[NE_M_STEPS] || !m.has[NE_M_BEST] || !m.has[NE_M_ELITE] || !m.has[NE_M_WALL]))
    rc = ne__set_error(errstr, NE_EPARSE, "%s/metrics.csv: unexpected header", dir);
  ne__cmp_curve* c = &r->curve;
  c->n = 0;
  c->wall_s = NAN;
  for (int i = 0; i < m.n_rows && !rc; i++) {
    double x = ne_metrics_at(&m, i, NE_M_STEPS);
    double s = row_score(ne_metrics_at(&m, i, NE_M_BEST), ne_metrics_at(&m, i, NE_M_ELITE), a->minimize);
    if (isfinite(x) && !isnan(s) && curve_push(c, x, s)) rc = ne__set_error(errstr, NE_ENOMEM, "out of memory");
    c->wall_s = ne_metrics_at(&m, i, NE_M_WALL);
  }
  ne_metrics_free(&m);
  if (!rc) r->stats = curve_stats(c, a);
  return rc;
}

void ne__cmp_free_curve(ne__cmp_curve* c) {
  ne_free(c->x);
  ne_free(c->score);
  memset(c, 0, sizeof *c);
}

// ---- the statistics of an arm ---------------------------------------------------------------------

// what the summary says about one arm, over its finished runs
typedef struct arm_stats {
  int n;                // finished runs
  double mean, median;  // of the final score
  double lo, hi;        // interval of the mean final: bootstrap (ci = 1) or the min-max range
  int ci;               // 1: [lo, hi] is a 95% bootstrap CI; 0: the seeds' range (n < MIN_CI_SEEDS)
  double best_mean;     // mean of the best scores
  double median_to_threshold;
  int reached;  // runs that reached the threshold
} arm_stats;

static arm_stats stats_of(const ne__cmp_arm* a, int seeds, double* x, double* scratch) {
  arm_stats f = {0};
  for (int k = 0; k < seeds; k++)
    if (a->runs[k].state == NE__CMP_FINISHED) x[f.n++] = a->runs[k].stats.final_score;
  f.mean = mean_of(x, f.n);
  f.median = median_of(x, f.n, scratch);
  f.ci = f.n >= MIN_CI_SEEDS;
  if (f.ci) ne_compare_bootstrap(x, f.n, CI_RESAMPLES, BOOTSTRAP_SEED, &f.lo, &f.hi);
  else range_of(x, f.n, &f.lo, &f.hi);
  int n = 0;
  for (int k = 0; k < seeds; k++)
    if (a->runs[k].state == NE__CMP_FINISHED) x[n++] = a->runs[k].stats.best_score;
  f.best_mean = mean_of(x, n);
  n = 0;
  for (int k = 0; k < seeds; k++)
    if (a->runs[k].state == NE__CMP_FINISHED) {
      x[n] = a->runs[k].stats.to_threshold;
      f.reached += isfinite(x[n++]) != 0;
    }
  f.median_to_threshold = median_of(x, n, scratch);  // inf while more than half never reached it
  return f;
}

static const char* state_name(ne__cmp_state s) {
  static const char* const names[] = {"pending", "running", "finished", "failed", "stopped"};
  return names[s];
}

// ---- summary.csv --------------------------------------------------------------------------------

static void fmt_x(char* buf, size_t size, double x) {
  if (isfinite(x)) snprintf(buf, size, "%.0f", x);
  else snprintf(buf, size, "inf");
}

static int write_csv(const ne__cmp_arm* arms, int n, int seeds, const char* out, char* errstr) {
  ne_buf b;
  ne__buf_init(&b);
  ne__html_printf(&b, "config,seed,final_score,best_score,steps_to_threshold,wall_s,status\n");
  for (int i = 0; i < n; i++)
    for (int k = 0; k < seeds; k++) {
      const ne__cmp_run* r = &arms[i].runs[k];
      if (r->state != NE__CMP_FINISHED) {
        ne__html_printf(&b, "%s,%d,,,,,%s\n", arms[i].name, k, state_name(r->state));
        continue;
      }
      char x[32];
      fmt_x(x, sizeof x, r->stats.to_threshold);
      ne__html_printf(&b, "%s,%d,%.10g,%.10g,%s,%.3f,finished\n", arms[i].name, k, r->stats.final_score,
                      r->stats.best_score, x, r->stats.wall_s);
    }
  return save(&b, out, "summary.csv", errstr);
}

// ---- summary.md ---------------------------------------------------------------------------------

// "[lo, hi]" with what it is
static void interval(ne_buf* b, const arm_stats* f) {
  if (f->n == 0) ne__html_printf(b, "-");
  else ne__html_printf(b, "[%.6g, %.6g] %s", f->lo, f->hi, f->ci ? "95% CI" : "range");
}

static void md_header(ne_buf* b, int n, int seeds, int finished, int failed) {
  ne__html_printf(b, "# neuroevo compare\n\n%d arm%s x %d seed%s (run.seed = 0..%d): %d run%s finished", n,
                  n == 1 ? "" : "s", seeds, seeds == 1 ? "" : "s", seeds - 1, finished, finished == 1 ? "" : "s");
  if (failed) ne__html_printf(b, ", **%d failed** (listed under [Failed runs](#failed-runs))", failed);
  ne__html_printf(b, ".\n\n");
  ne__html_printf(b,
                  "- **final**: the score of the last generation: the evaluation of the mean / elite where the "
                  "algorithm makes one, else the population's best; for black-box functions (bbob/*) the lowest "
                  "f of that generation (lower is better). Statistics cover finished runs only.\n");
  ne__html_printf(b, "- **best**: the best such score over all generations.\n");
  ne__html_printf(b,
                  "- **interval**: with %d or more finished seeds, the 95%% CI of the mean final score (percentile "
                  "bootstrap, %d resamples, fixed seed %d, so the same runs always give the same interval); with "
                  "fewer, the range (min-max) of the seeds' final scores, marked `range`: a bootstrap over so few "
                  "values is not a confidence interval.\n",
                  MIN_CI_SEEDS, CI_RESAMPLES, BOOTSTRAP_SEED);
  ne__html_printf(b,
                  "- **to threshold**: env steps (evaluations for black-box functions) until the score first "
                  "reached the threshold; inf = never.\n\n");
}

static void md_arm(ne_buf* b, const ne__cmp_arm* a, int seeds, const arm_stats* f, const char* out) {
  char thr[64] = "none", med[32];
  if (a->has_threshold) snprintf(thr, sizeof thr, "%s %.6g", a->minimize ? "f <=" : "score >=", a->threshold);
  fmt_x(med, sizeof med, f->median_to_threshold);
  ne__html_printf(b, "## %s\n\n`%s` on `%s`, threshold %s.\n\n", a->name, a->algo, a->env_id, thr);
  if (a->error[0]) ne__html_printf(b, "**Could not start:** %s\n\n", a->error);
  if (f->n == 0) {
    ne__html_printf(b, "No run of this arm finished: see [Failed runs](#failed-runs).\n\n");
    return;
  }
  ne__html_printf(b, "| statistic | value |\n|---|---|\n");
  ne__html_printf(b, "| finished runs | %d / %d |\n| mean final | %.6g |\n| median final | %.6g |\n", f->n, seeds,
                  f->mean, f->median);
  if (f->ci) ne__html_printf(b, "| 95%% CI of the mean final | [%.6g, %.6g] |\n", f->lo, f->hi);
  else ne__html_printf(b, "| range of the final (%d seeds: too few for a CI) | [%.6g, %.6g] |\n", f->n, f->lo, f->hi);
  ne__html_printf(
      b, "| mean best | %.6g |\n| runs reaching the threshold | %d / %d |\n| median %s to threshold | %s |\n\n",
      f->best_mean, f->reached, f->n, a->minimize ? "evaluations" : "env steps", med);
  ne__html_printf(
      b, "| seed | status | final | best | to threshold | wall s | run directory |\n|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < seeds; k++) {
    const ne__cmp_run* r = &a->runs[k];
    char dir[NE__CMP_PATH + 300];
    ne__cmp_run_dir(dir, sizeof dir, out, a->name, k);
    if (r->state != NE__CMP_FINISHED) {
      ne__html_printf(b, "| %d | %s | - | - | - | - | %s |\n", k, state_name(r->state), dir);
      continue;
    }
    char x[32];
    fmt_x(x, sizeof x, r->stats.to_threshold);
    ne__html_printf(b, "| %d | finished | %.6g | %.6g | %s | %.1f | %s |\n", k, r->stats.final_score,
                    r->stats.best_score, x, r->stats.wall_s, dir);
  }
  ne__html_printf(b, "\n");
}

// every run that did not finish, with its error
static void md_failures(ne_buf* b, const ne__cmp_arm* arms, int n, int seeds, const char* out) {
  ne__html_printf(b, "## Failed runs\n\n");
  ne__html_printf(
      b,
      "Running the same command again retries these (finished runs are kept); each run's `run.json` "
      "and `log.txt` say more.\n\n| arm | seed | status | error | run directory |\n|---|---|---|---|---|\n");
  for (int i = 0; i < n; i++)
    for (int k = 0; k < seeds; k++) {
      const ne__cmp_run* r = &arms[i].runs[k];
      if (r->state == NE__CMP_FINISHED) continue;
      char dir[NE__CMP_PATH + 300];
      ne__cmp_run_dir(dir, sizeof dir, out, arms[i].name, k);
      // a '|' in the message would end its table cell
      char err[NE_ERRSTR_LEN];
      snprintf(err, sizeof err, "%s", r->error[0] ? r->error : state_name(r->state));
      for (char* p = err; *p; p++)
        if (*p == '|' || *p == '\n') *p = *p == '|' ? '/' : ' ';
      ne__html_printf(b, "| %s | %d | %s | %s | %s |\n", arms[i].name, k, state_name(r->state), err, dir);
    }
  ne__html_printf(b, "\n");
}

static int write_md(const ne__cmp_arm* arms, int n, int seeds, const char* out, char* errstr) {
  double* x = ne_malloc(2 * (size_t)seeds * sizeof(double));
  if (!x) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  int finished = 0, failed = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < seeds; k++) {
      finished += arms[i].runs[k].state == NE__CMP_FINISHED;
      failed += arms[i].runs[k].state != NE__CMP_FINISHED;
    }
  ne_buf b;
  ne__buf_init(&b);
  md_header(&b, n, seeds, finished, failed);
  // overview: one row per arm
  ne__html_printf(&b,
                  "| arm | algorithm | env | finished | mean final | median final | interval | reached |\n"
                  "|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < n; i++) {
    arm_stats f = stats_of(&arms[i], seeds, x, x + seeds);
    ne__html_printf(&b, "| %s | %s | %s | %d / %d | ", arms[i].name, arms[i].algo, arms[i].env_id, f.n, seeds);
    if (f.n) ne__html_printf(&b, "%.6g | %.6g | ", f.mean, f.median);
    else ne__html_printf(&b, "- | - | ");
    interval(&b, &f);
    ne__html_printf(&b, " | %d / %d |\n", f.reached, f.n);
  }
  ne__html_printf(&b, "\n");
  for (int i = 0; i < n; i++) {
    arm_stats f = stats_of(&arms[i], seeds, x, x + seeds);
    md_arm(&b, &arms[i], seeds, &f, out);
  }
  if (failed) md_failures(&b, arms, n, seeds, out);
  ne_free(x);
  return save(&b, out, "summary.md", errstr);
}

// ---- compare.png --------------------------------------------------------------------------------

// score of run c at x: the last row at or before x (a run that stopped early keeps its last value)
static double value_at(const ne__cmp_curve* c, double x) {
  double v = NAN;
  for (int i = 0; i < c->n && c->x[i] <= x; i++) v = c->score[i];
  return v;
}

// the finished runs of arm a with rows into idx; their count
static int drawn_runs(const ne__cmp_arm* a, int seeds, int* idx) {
  int n = 0;
  for (int k = 0; k < seeds; k++)
    if (a->runs[k].state == NE__CMP_FINISHED && a->runs[k].curve.n > 0) idx[n++] = k;
  return n;
}

// one datablock: x, mean, lo, hi on BAND_POINTS points where every drawn run has a value; the
// band is a bootstrap interval with MIN_CI_SEEDS runs or more, the runs' range below that
static void put_band(ne_buf* b, const ne__cmp_arm* a, int seeds, int idx, double* vals, double* means, int* runs) {
  int n = drawn_runs(a, seeds, runs);
  if (n == 0) return;
  double x_lo = -INFINITY, x_hi = -INFINITY;
  for (int j = 0; j < n; j++) {
    const ne__cmp_curve* c = &a->runs[runs[j]].curve;
    if (c->x[0] > x_lo) x_lo = c->x[0];
    if (c->x[c->n - 1] > x_hi) x_hi = c->x[c->n - 1];
  }
  ne__html_printf(b, "$c%d << EOD\n", idx);
  for (int p = 0; p < BAND_POINTS; p++) {
    double x = x_lo + (x_hi - x_lo) * p / (BAND_POINTS - 1.0);
    for (int j = 0; j < n; j++) vals[j] = value_at(&a->runs[runs[j]].curve, x);
    double lo, hi;
    if (n >= MIN_CI_SEEDS) bootstrap_into(vals, n, BAND_RESAMPLES, BOOTSTRAP_SEED, means, &lo, &hi);
    else range_of(vals, n, &lo, &hi);
    double m = mean_of(vals, n);
    if (a->minimize) {  // log axis: keep the band above zero
      lo = lo > 1e-300 ? lo : 1e-300;
      m = m > 1e-300 ? m : 1e-300;
    }
    ne__html_printf(b, "%.10g %.10g %.10g %.10g\n", x, m, lo, hi);
    if (x_hi == x_lo) break;
  }
  ne__html_printf(b, "EOD\n");
}

static void put_plot_header(ne_buf* b, const ne__cmp_arm* arms, int n, int all_min, const char* png_tmp) {
  ne__html_printf(b, "set terminal pngcairo size 1100,650 noenhanced font \"sans,11\"\nset output \"%s\"\n", png_tmp);
  char envs[512] = "";
  size_t used = 0;
  for (int i = 0; i < n && used < sizeof envs; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= strcmp(arms[j].env_id, arms[i].env_id) == 0;
    if (!seen) used += (size_t)snprintf(envs + used, sizeof envs - used, "%s%s", used ? ", " : "", arms[i].env_id);
  }
  ne__html_printf(b,
                  "set title \"%s: mean of the finished seeds; band: 95%% bootstrap interval (%d+ seeds) or "
                  "min-max range\"\n",
                  envs, MIN_CI_SEEDS);
  ne__html_printf(b, "set xlabel \"%s\"\n", all_min ? "function evaluations" : "environment steps");
  ne__html_printf(b, "set ylabel \"%s\"\n",
                  all_min ? "f (lowest of the generation, log scale)" : "score (elite / mean evaluation)");
  ne__html_printf(b, "set grid\nset key outside right top\nset style fill transparent solid 0.2 noborder\n");
  ne__html_printf(b, "set format x \"%%.1s%%c\"\n");  // 250.0k, 1.5M
  if (all_min) ne__html_printf(b, "set logscale y\nset format y \"%%.0e\"\n");
}

static const char* const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

static void put_plot_command(ne_buf* b, const ne__cmp_arm* arms, int n, int seeds, int* runs) {
  int first = 1;
  for (int i = 0; i < n; i++) {
    int drawn = drawn_runs(&arms[i], seeds, runs);
    if (drawn == 0) continue;
    const char* col = palette[i % 10];
    ne__html_printf(b, "%s$c%d using 1:3:4 with filledcurves lc rgb \"%s\" notitle", first ? "plot " : ", \\\n  ", i,
                    col);
    ne__html_printf(b, ", \\\n  $c%d using 1:2 with lines lw 2.5 lc rgb \"%s\" title \"%s (%d seed%s%s)\"", i, col,
                    arms[i].name, drawn, drawn == 1 ? "" : "s", drawn < MIN_CI_SEEDS ? ", range" : "");
    first = 0;
  }
  ne__html_printf(b, "\nunset output\n");
}

// writes DIR/compare.gp (kept, so the plot can be restyled by hand) and renders DIR/compare.png
static int write_plot(const ne__cmp_arm* arms, int n, int seeds, const char* out, char* errstr) {
  double* scratch = ne_malloc(((size_t)seeds + BAND_RESAMPLES) * sizeof(double));
  int* runs = ne_malloc((size_t)seeds * sizeof(int));
  if (!scratch || !runs) {
    ne_free(scratch);
    ne_free(runs);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  }
  int all_min = 1, any = 0;
  for (int i = 0; i < n; i++) {
    all_min &= arms[i].minimize;
    any |= drawn_runs(&arms[i], seeds, runs) > 0;
  }
  char png[NE__CMP_PATH + 32], tmp[NE__CMP_PATH + 32], script[NE__CMP_PATH + 32], err_path[NE__CMP_PATH + 32];
  snprintf(png, sizeof png, "%s/compare.png", out);
  snprintf(tmp, sizeof tmp, "%s/compare.png.tmp", out);
  snprintf(script, sizeof script, "%s/compare.gp", out);
  snprintf(err_path, sizeof err_path, "%s/compare.gp.log", out);
  ne_buf b;
  ne__buf_init(&b);
  put_plot_header(&b, arms, n, all_min, tmp);
  for (int i = 0; i < n; i++) put_band(&b, &arms[i], seeds, i, scratch, scratch + seeds, runs);
  put_plot_command(&b, arms, n, seeds, runs);
  ne_free(scratch);
  ne_free(runs);
  if (!any) {
    ne__buf_free(&b);
    return ne__set_error(errstr, NE_EINVAL, "no finished run to draw");
  }
  int rc = save(&b, out, "compare.gp", errstr);
  if (!rc) rc = ne_plot_gnuplot(script, err_path, errstr);
  if (!rc && rename(tmp, png) != 0) rc = ne__set_error(errstr, NE_EIO, "%s: %s", png, strerror(errno));
  if (!rc) unlink(err_path);
  else unlink(tmp);
  return rc;
}

int ne__cmp_write_summary(const ne__cmp_arm* arms, int n, int seeds, const char* out, char* errstr) {
  int rc = write_csv(arms, n, seeds, out, errstr);
  if (!rc) rc = write_md(arms, n, seeds, out, errstr);
  if (!rc) {
    char why[NE_ERRSTR_LEN];
    if (write_plot(arms, n, seeds, out, why) != 0) fprintf(stderr, "neuroevo: warning: no compare.png: %s\n", why);
  }
  return rc;
}
