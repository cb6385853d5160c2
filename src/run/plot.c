// SPDX-License-Identifier: MIT
// Training-curve PNGs: parses metrics.csv of each run directory (plus [env] id from config.ini),
// writes one gnuplot script with the data inlined as datablocks, runs gnuplot on it with
// posix_spawn and renames the finished PNG over the target. Called every plot_every generations
// during training, so it must stay cheap (one pass over the CSV) and never disturb the run: every
// failure is an error code and a message, nothing more.
#include "neuroevo/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>  // PATH_MAX for realpath
#include <math.h>
#include <spawn.h>  // posix_spawn: safe to call from a multi-threaded trainer
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/metrics.h"

extern char** environ;  // handed to gnuplot unchanged (HOME, fonts, locale)

// The series drawn per run, as columns of run_data.rows.
enum { COL_X = 0, COL_BEST = 1, COL_MEAN = 2, COL_ELITE = 3, N_COLS = 4 };

// One run directory's curves.
typedef struct run_data {
  char label[256];  // legend text: the directory's basename
  char env[128];    // [env] id from config.ini ("" if unknown)
  double* rows;     // (n_rows, N_COLS) x, best, mean, elite; NaN = missing
  int n_rows;       // rows read
  int cap_rows;     // rows allocated
  int minimized;    // metrics.csv has the `minimized` column: y is a black-box f, lower is better
} run_data;

// Colours of successive runs (matplotlib's tab10: distinguishable, colour-blind friendlier).
static const char* const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// ---------------------------------------------------------------------------------------------
// reading a run directory

// x-axis title for a metrics column, or NULL if the column cannot be an x axis
static const char* x_title(const char* col) {
  if (strcmp(col, "env_steps") == 0) return "environment steps";
  if (strcmp(col, "evaluations") == 0) return "evaluations";
  if (strcmp(col, "wall_s") == 0) return "wall-clock seconds";
  return NULL;
}

// copies the last path component of dir (resolving "." and trailing slashes) into out
static void dir_label(const char* dir, char* out, size_t cap) {
  char real[PATH_MAX];
  const char* path = realpath(dir, real) ? real : dir;
  size_t len = strlen(path);
  while (len > 1 && path[len - 1] == '/') len--;
  size_t start = len;
  while (start > 0 && path[start - 1] != '/') start--;
  snprintf(out, cap, "%.*s", (int)(len - start), path + start);
}

// appends one row; NE_ENOMEM on failure
static int push_row(run_data* r, const double* row) {
  if (r->n_rows == r->cap_rows) {
    int cap = r->cap_rows ? 2 * r->cap_rows : 256;
    double* grown = ne_realloc(r->rows, (size_t)cap * N_COLS * sizeof(double));
    if (!grown) return NE_ENOMEM;
    r->rows = grown;
    r->cap_rows = cap;
  }
  memcpy(r->rows + (size_t)r->n_rows * N_COLS, row, N_COLS * sizeof(double));
  r->n_rows++;
  return 0;
}

// [env] id from dir/config.ini into env; "" when absent. A plain scan, not the config loader, so
// configs written by newer versions (unknown keys, other algorithms) still label their plots.
static void read_env_id(const char* dir, char* env, size_t cap) {
  char path[PATH_MAX + 32], *text;
  env[0] = '\0';
  snprintf(path, sizeof path, "%s/config.ini", dir);
  if (ne__read_file(path, &text, NULL, NULL) != 0) return;
  if (ne__ini_get(text, "env", "id", env, cap) != 0) env[0] = '\0';
  ne_free(text);
}

// reads dir/metrics.csv (metrics.h) into r: the x column, best, mean and elite of each row with a
// finite x
static int read_metrics(const char* dir, const char* x_column, run_data* r, char* errstr) {
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  ne_metrics m;
  int rc = ne_metrics_read(dir, &m, errstr);
  if (rc == NE_ENOTFOUND) return ne__set_error(errstr, rc, "%s: no metrics.csv (is %s a run directory?)", path, dir);
  if (rc) return rc;
  const int src[N_COLS] = {ne_metrics_column(x_column), NE_M_BEST, NE_M_MEAN, NE_M_ELITE};
  r->minimized = m.minimized;
  for (int c = 0; c < N_COLS && rc == 0; c++)
    if (m.header && (src[c] < 0 || !m.has[src[c]]))
      rc = ne__set_error(errstr, NE_EPARSE,
                         "%s: header has no '%s' column (expected generation,evaluations,"
                         "env_steps,wall_s,best,mean,median,elite_mean)",
                         path, src[c] < 0 ? x_column : ne_metrics_column_name((ne_metrics_col)src[c]));
  for (int i = 0; i < m.n_rows && rc == 0; i++) {
    double row[N_COLS];
    for (int c = 0; c < N_COLS; c++) row[c] = ne_metrics_at(&m, i, (ne_metrics_col)src[c]);
    if (isfinite(row[COL_X]) && push_row(r, row) != 0) rc = ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path);
  }
  if (rc == 0 && !m.header) rc = ne__set_error(errstr, NE_EPARSE, "%s: empty file (no header, no generations)", path);
  if (rc == 0 && r->n_rows == 0)
    rc = ne__set_error(errstr, NE_EPARSE, "%s: no generations recorded yet (only the header): nothing to plot", path);
  ne_metrics_free(&m);
  return rc;
}

// ---------------------------------------------------------------------------------------------
// the gnuplot script

// writes s as a gnuplot double-quoted string (control characters dropped)
static void put_quoted(FILE* f, const char* s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if ((unsigned char)*s >= 0x20) fputc(*s, f);
  }
  fputc('"', f);
}

// number of finite points of column col in run r
static int count_points(const run_data* r, int col) {
  int n = 0;
  for (int i = 0; i < r->n_rows; i++) n += isfinite(r->rows[(size_t)i * N_COLS + col]) != 0;
  return n;
}

// datablock $r<run>c<col> holding the finite (x, y) points of one series
static void put_block(FILE* f, const run_data* r, int run, int col) {
  fprintf(f, "$r%dc%d << EOD\n", run, col);
  for (int i = 0; i < r->n_rows; i++) {
    const double* row = r->rows + (size_t)i * N_COLS;
    if (isfinite(row[col])) fprintf(f, "%.10g %.10g\n", row[COL_X], row[col]);
  }
  fprintf(f, "EOD\n");
}

// title, axes, key and terminal settings
static void put_header(FILE* f, const run_data* runs, int n, const char* x_column, const char* out_tmp) {
  fprintf(f, "set terminal pngcairo size 1000,600 noenhanced font \"sans,11\"\nset output ");
  put_quoted(f, out_tmp);
  // title: the distinct env ids, then the run name (one run) or the run count
  char title[1024] = "";
  size_t used = 0;
  for (int i = 0; i < n && used < sizeof title; i++) {
    const char* env = runs[i].env[0] ? runs[i].env : "unknown env";
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= strcmp(runs[j].env[0] ? runs[j].env : "unknown env", env) == 0;
    if (!seen) used += (size_t)snprintf(title + used, sizeof title - used, "%s%s", used ? ", " : "", env);
  }
  if (used < sizeof title) {
    if (n == 1) snprintf(title + used, sizeof title - used, ": %s", runs[0].label);
    else snprintf(title + used, sizeof title - used, ": %d runs", n);
  }
  fprintf(f, "\nset title ");
  put_quoted(f, title);
  int minimized = 1, positive = 1;
  for (int i = 0; i < n; i++) {
    minimized &= runs[i].minimized;
    for (int k = 0; k < runs[i].n_rows * N_COLS; k++)
      if (k % N_COLS != COL_X && !(runs[i].rows[k] > 0) && !isnan(runs[i].rows[k])) positive = 0;
  }
  fprintf(f, "\nset xlabel ");
  // a black-box run's "env steps" are its evaluations (one step each)
  put_quoted(f, minimized && strcmp(x_column, "env_steps") == 0 ? "evaluations" : x_title(x_column));
  if (minimized) {
    // black-box f falls over decades towards 0: a log axis shows the progress a linear one flattens
    fprintf(f, "\nset ylabel \"f (minimized%s)\"\nset grid\n", positive ? ", log scale" : "");
    if (positive) fprintf(f, "set logscale y\nset format y \"%%.0e\"\n");
    fprintf(f, "set key inside right top opaque box lc rgb \"#bbbbbb\" spacing 1.1\n");
  } else {
    fprintf(f, "\nset ylabel \"return\"\nset grid\n");
    // curves rise, so the lower right corner is the emptiest place for the legend
    fprintf(f, "set key inside right bottom opaque box lc rgb \"#bbbbbb\" spacing 1.1\n");
  }
  // SI prefixes keep step counts short (250.0k, 1.5M); seconds stay plain
  if (strcmp(x_column, "wall_s") != 0) fprintf(f, "set format x \"%%.1s%%c\"\n");
  // one x value (a run's first generation): autoscale would make a zero-width axis whose ticks all
  // read the same, so the point sits in the middle of [0, 2x] (or [-1, 1] at x = 0)
  double x_min = INFINITY, x_max = -INFINITY;
  for (int i = 0; i < n; i++)
    for (int r = 0; r < runs[i].n_rows; r++) {
      double x = runs[i].rows[(size_t)r * N_COLS + COL_X];
      x_min = fmin(x_min, x);
      x_max = fmax(x_max, x);
    }
  if (x_min == x_max)
    fprintf(f, "set xrange [%.10g:%.10g]\n", x_min != 0 ? fmin(0, 2 * x_min) : -1, x_min != 0 ? fmax(0, 2 * x_min) : 1);
  else fprintf(f, "set autoscale xfixmin\nset autoscale xfixmax\n");
}

// one plot clause; *first tracks the comma between clauses
static void put_series(FILE* f, const run_data* runs, int run, int col, const char* colour, const char* dash,
                       double width, const char* title, int* first) {
  // a lone point (first generation of a run) has no line to draw: show it as a dot
  const char* with = count_points(&runs[run], col) > 1 ? "lines" : "linespoints pt 7 ps 1";
  fprintf(f, "%s$r%dc%d using 1:2 with %s lw %.1f lc rgb \"%s\" dt %s ", *first ? "plot " : ", \\\n  ", run, col, with,
          width, colour, dash);
  if (title) {
    fprintf(f, "title ");
    put_quoted(f, title);
  } else {
    fprintf(f, "notitle");
  }
  *first = 0;
}

// the plot command: one run in three colours, several runs one colour each with dash styles
static void put_plot(FILE* f, const run_data* runs, int n) {
  static const int cols[3] = {COL_ELITE, COL_BEST, COL_MEAN};
  static const char* const single_titles[3] = {"elite (re-evaluated mean)", "best", "mean"};
  static const char* const single_colours[3] = {"#1f77b4", "#d62728", "#2ca02c"};
  static const char* const dashes[3] = {"1", "(12,6)", "(2,4)"};
  static const double widths[3] = {2.5, 1.5, 2.0};
  int first = 1;
  for (int r = 0; r < n; r++) {
    int titled = 0;
    for (int s = 0; s < 3; s++) {
      if (count_points(&runs[r], cols[s]) == 0) continue;
      if (n == 1) {
        put_series(f, runs, r, cols[s], single_colours[s], "1", widths[s], single_titles[s], &first);
        continue;
      }
      // the run's first drawn series carries its name; the style legend follows below
      put_series(f, runs, r, cols[s], palette[r % 10], dashes[s], widths[s], titled ? NULL : runs[r].label, &first);
      titled = 1;
    }
  }
  if (n > 1) {
    static const char* const style_titles[3] = {"elite (solid)", "best (dashed)", "mean (dotted)"};
    for (int s = 0; s < 3; s++)
      fprintf(f, ", \\\n  NaN with lines lw %.1f lc rgb \"black\" dt %s title \"%s\"", widths[s], dashes[s],
              style_titles[s]);
  }
  fprintf(f, "\n");
}

// writes the whole script to path
static int write_script(const char* path, const run_data* runs, int n, const char* x_column, const char* out_tmp,
                        char* errstr) {
  FILE* f = fopen(path, "w");
  if (!f) return ne__set_error(errstr, NE_EIO, "%s: cannot create: %s", path, strerror(errno));
  put_header(f, runs, n, x_column, out_tmp);
  for (int r = 0; r < n; r++)
    for (int c = COL_BEST; c < N_COLS; c++)
      if (count_points(&runs[r], c) > 0) put_block(f, &runs[r], r, c);
  put_plot(f, runs, n);
  fprintf(f, "unset output\n");
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) return ne__set_error(errstr, NE_EIO, "%s: write failed", path);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// running gnuplot

// the gnuplot executable from PATH into out; -1 if there is none
static int find_gnuplot(char* out, size_t cap) {
  const char* path = getenv("PATH");
  if (!path || !*path) return -1;
  for (const char* p = path; p;) {
    const char* colon = strchr(p, ':');
    int dlen = colon ? (int)(colon - p) : (int)strlen(p);
    snprintf(out, cap, "%.*s/gnuplot", dlen, dlen ? p : ".");
    if (access(out, X_OK) == 0) return 0;
    p = colon ? colon + 1 : NULL;
  }
  return -1;
}

// the last non-empty line of gnuplot's stderr (its error message) into out
static void last_error_line(const char* path, char* out, size_t cap) {
  char* text;
  out[0] = '\0';
  if (ne__read_file(path, &text, NULL, NULL) != 0) return;
  size_t len = strlen(text);
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\r')) len--;
  size_t start = len;
  while (start > 0 && text[start - 1] != '\n') start--;
  snprintf(out, cap, "%.*s", (int)(len - start), text + start);
  ne_free(text);
}

int ne_plot_gnuplot(const char* script, const char* err_path, char* errstr) {
  char gnuplot[PATH_MAX + 16];
  if (find_gnuplot(gnuplot, sizeof gnuplot) != 0)
    return ne__set_error(errstr, NE_EIO,
                         "gnuplot not found in PATH: install gnuplot-nox (apt-get install gnuplot-nox)");
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) return ne__set_error(errstr, NE_ENOMEM, "gnuplot: out of memory");
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  char* argv[] = {"gnuplot", (char*)script, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, gnuplot, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return ne__set_error(errstr, NE_EIO, "%s: cannot run: %s (install gnuplot-nox)", gnuplot, strerror(rc));
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return ne__set_error(errstr, NE_EIO, "gnuplot: waitpid failed: %s", strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  char why[160];
  last_error_line(err_path, why, sizeof why);
  if (WIFEXITED(status)) return ne__set_error(errstr, NE_EIO, "gnuplot failed (exit %d): %s", WEXITSTATUS(status), why);
  return ne__set_error(errstr, NE_EIO, "gnuplot killed by signal %d", WTERMSIG(status));
}

// writes the script into a private temp directory, runs gnuplot into out_tmp, cleans up
static int render(const run_data* runs, int n, const char* x_column, const char* out_tmp, char* errstr) {
  const char* tmp = getenv("TMPDIR");
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/neuroevo-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return ne__set_error(errstr, NE_EIO, "%s: cannot create temp directory: %s", dir, strerror(errno));
  char script[PATH_MAX + 32], err_path[PATH_MAX + 32];
  snprintf(script, sizeof script, "%s/curves.gp", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  int rc = write_script(script, runs, n, x_column, out_tmp, errstr);
  if (rc == 0) rc = ne_plot_gnuplot(script, err_path, errstr);
  unlink(script);
  unlink(err_path);
  rmdir(dir);
  return rc;
}

// ---------------------------------------------------------------------------------------------
// entry point

// frees the rows of n runs and the array
static void free_runs(run_data* runs, int n) {
  for (int i = 0; runs && i < n; i++) ne_free(runs[i].rows);
  ne_free(runs);
}

// creates the temp output ourselves, so an unwritable destination gets our message, not gnuplot's
static int probe_writable(const char* out_tmp, const char* out_png, char* errstr) {
  int fd = open(out_tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return ne__set_error(errstr, NE_EIO, "%s: cannot write: %s", out_png, strerror(errno));
  close(fd);
  return 0;
}

// gnuplot output goes to a temp name first so that a viewer never sees half a PNG
static int finish_png(const char* out_tmp, const char* out_png, char* errstr) {
  struct stat st;
  if (stat(out_tmp, &st) != 0 || st.st_size == 0) {
    unlink(out_tmp);
    return ne__set_error(errstr, NE_EIO, "%s: gnuplot wrote no image", out_png);
  }
  if (rename(out_tmp, out_png) != 0) {
    int e = errno;
    unlink(out_tmp);
    return ne__set_error(errstr, NE_EIO, "%s: cannot write: %s", out_png, strerror(e));
  }
  return 0;
}

int ne_plot_runs(const char* const* run_dirs, int n, const char* out_png, const char* x_column, char* errstr) {
  if (!run_dirs || n < 1 || !out_png) return ne__set_error(errstr, NE_EINVAL, "ne_plot_runs: no run directories");
  if (!x_column) x_column = "env_steps";
  if (!x_title(x_column))
    return ne__set_error(errstr, NE_EINVAL, "x axis '%s': expected env_steps, evaluations or wall_s", x_column);
  run_data* runs = ne_calloc((size_t)n, sizeof *runs);
  if (!runs) return ne__set_error(errstr, NE_ENOMEM, "plot: out of memory");
  // every run's data first: input errors come before any file is touched
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    rc = read_metrics(run_dirs[i], x_column, &runs[i], errstr);
    read_env_id(run_dirs[i], runs[i].env, sizeof runs[i].env);
    dir_label(run_dirs[i], runs[i].label, sizeof runs[i].label);
  }
  int points = 0;
  for (int i = 0; i < n && rc == 0; i++)
    points += count_points(&runs[i], COL_BEST) + count_points(&runs[i], COL_MEAN) + count_points(&runs[i], COL_ELITE);
  if (rc == 0 && points == 0) rc = ne__set_error(errstr, NE_EPARSE, "%s: no finite values to plot", run_dirs[0]);
  if (rc == 0) {
    char out_tmp[PATH_MAX + 32];
    snprintf(out_tmp, sizeof out_tmp, "%s.tmp.%ld", out_png, (long)getpid());
    rc = probe_writable(out_tmp, out_png, errstr);
    if (rc == 0) rc = render(runs, n, x_column, out_tmp, errstr);
    if (rc == 0) rc = finish_png(out_tmp, out_png, errstr);
    else unlink(out_tmp);
  }
  free_runs(runs, n);
  return rc;
}
