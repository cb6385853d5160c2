// SPDX-License-Identifier: MIT
// Training curves as SVG (see svgchart.h): data ranges over every run, "nice" 1-2-5 ticks, one
// polyline per (run, series) with NaN points skipped, a legend of runs and a key of line styles.
// Coordinates are printed with one decimal: a chart of 800 vertices per line stays a few tens of KB.
#include "report/svgchart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/html.h"

enum { MAX_VERTICES = 800, MARGIN_L = 64, MARGIN_R = 18, MARGIN_T = 40, MARGIN_B = 42 };

// Colours of successive runs (matplotlib's tab10, as curve.png).
static const char* const PALETTE[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// The drawn series: column, label, stroke width, dash pattern ("" = solid).
typedef struct series {
  int col;
  const char* label;
  const char* width;
  const char* dash;
} series;
static const series SERIES[] = {
    {NE__RD_ELITE, "elite", "2.2", ""}, {NE__RD_BEST, "best", "1.4", "6 4"}, {NE__RD_MEAN, "mean", "1.4", "1.5 3"}};
enum { N_SERIES = 3 };

// The plot's data window and pixel box.
typedef struct frame {
  double x0, x1, y0, y1;  // data range
  double px0, px1;        // pixel x of x0 and x1
  double py0, py1;        // pixel y of y0 (bottom) and y1 (top)
} frame;

int ne__svg_valid_x(const char* x) {
  return strcmp(x, "env_steps") == 0 || strcmp(x, "wall_s") == 0 || strcmp(x, "evaluations") == 0 ||
      strcmp(x, "generation") == 0;
}

static int x_column(const char* x) {
  if (strcmp(x, "wall_s") == 0) return NE__RD_WALL;
  if (strcmp(x, "evaluations") == 0) return NE__RD_EVALS;
  if (strcmp(x, "generation") == 0) return NE__RD_GEN;
  return NE__RD_STEPS;
}

static const char* x_title(const char* x) {
  if (strcmp(x, "wall_s") == 0) return "wall-clock seconds";
  if (strcmp(x, "evaluations") == 0) return "evaluations";
  if (strcmp(x, "generation") == 0) return "generation";
  return "environment steps";
}

// ---- scales --------------------------------------------------------------------------------

// A 1, 2 or 5 times a power of ten near span / target.
static double nice_step(double span, int target) {
  double raw = span / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

// The data range of every run's x column and series; 0 if no finite point.
static int data_range(const ne__rundata* runs, int n, int xc, frame* f) {
  f->x0 = INFINITY, f->x1 = -INFINITY, f->y0 = INFINITY, f->y1 = -INFINITY;
  for (int i = 0; i < n; i++)
    for (int r = 0; r < runs[i].n_rows; r++)
      for (int s = 0; s < N_SERIES; s++) {
        double x = ne__rundata_at(&runs[i], r, xc), y = ne__rundata_at(&runs[i], r, SERIES[s].col);
        if (isnan(x) || isnan(y)) continue;
        f->x0 = fmin(f->x0, x), f->x1 = fmax(f->x1, x);
        f->y0 = fmin(f->y0, y), f->y1 = fmax(f->y1, y);
      }
  return isfinite(f->x0) && isfinite(f->y0);
}

// Widens the range to start x at 0 when data is non-negative and gives flat data some height.
static void pad_range(frame* f) {
  if (f->x0 >= 0) f->x0 = 0;
  if (f->x1 <= f->x0) f->x1 = f->x0 + 1;
  double h = f->y1 - f->y0, pad = h > 0 ? 0.05 * h : fmax(1, fabs(f->y0) * 0.1);
  f->y0 -= pad, f->y1 += pad;
}

static double px(const frame* f, double x) { return f->px0 + (x - f->x0) / (f->x1 - f->x0) * (f->px1 - f->px0); }
static double py(const frame* f, double y) { return f->py0 + (y - f->y0) / (f->y1 - f->y0) * (f->py1 - f->py0); }

// a tick label: short, with k/M/G for large numbers ("250k", "1.5M"); ticks are multiples of step
static void tick_label(double v, double step, char* buf, size_t size) {
  static const struct {
    double scale;
    const char* suffix;
  } UNITS[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  if (fabs(v) < step * 1e-6) v = 0;
  for (int i = 0; i < 3; i++)
    if (fabs(v) >= 10 * UNITS[i].scale || (fabs(v) >= UNITS[i].scale && step >= UNITS[i].scale)) {
      snprintf(buf, size, "%.4g%s", v / UNITS[i].scale, UNITS[i].suffix);
      return;
    }
  snprintf(buf, size, "%.*f", step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9), v);
}

// ---- drawing -------------------------------------------------------------------------------

// One run: a colour per series (elite, best, mean), so overlapping lines stay apart. Several runs:
// a colour per run, the series told apart by their dashes.
static const char* colour(int n_runs, int run, int s) { return PALETTE[(n_runs == 1 ? s : run) % 10]; }

static void draw_axes(ne_buf* b, const frame* f, const char* x, int minimized) {
  double sx = nice_step(f->x1 - f->x0, 6), sy = nice_step(f->y1 - f->y0, 5);
  char label[32];
  ne__html_puts(b, "<g class=\"axes\" font-size=\"11\" fill=\"#444\">\n");
  for (double v = ceil(f->y0 / sy) * sy; v <= f->y1 + sy * 1e-9; v += sy) {
    tick_label(v, sy, label, sizeof label);
    ne__html_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>", f->px0, f->px1,
                    py(f, v), py(f, v));
    ne__html_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", f->px0 - 6, py(f, v) + 4, label);
  }
  for (double v = ceil(f->x0 / sx) * sx; v <= f->x1 + sx * 1e-9; v += sx) {
    tick_label(v, sx, label, sizeof label);
    ne__html_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>", px(f, v), px(f, v),
                    f->py0, f->py1);
    ne__html_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", px(f, v), f->py0 + 15, label);
  }
  ne__html_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n",
                  f->px0, f->py1, f->px1 - f->px0, f->py0 - f->py1);
  ne__html_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", (f->px0 + f->px1) / 2,
                  f->py0 + 33, x_title(x));
  ne__html_printf(b, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
                  (f->py0 + f->py1) / 2, minimized ? "f (lower is better)" : "episode return");
  ne__html_puts(b, "</g>\n");
}

// One polyline of a run's series; NaN points are skipped, long runs thinned to MAX_VERTICES.
static void draw_series(ne_buf* b, const frame* f, const ne__rundata* d, int xc, const series* s, const char* colour) {
  int stride = d->n_rows > MAX_VERTICES ? (d->n_rows + MAX_VERTICES - 1) / MAX_VERTICES : 1, n = 0;
  for (int r = 0; r < d->n_rows; r++)
    n += (r % stride == 0 || r == d->n_rows - 1) && !isnan(ne__rundata_at(d, r, xc)) &&
        !isnan(ne__rundata_at(d, r, s->col));
  if (n == 0) return;
  ne__html_printf(
      b, "<polyline class=\"%s\" data-n=\"%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s%s%s points=\"",
      s->label, n, colour, s->width, *s->dash ? " stroke-dasharray=\"" : "", s->dash, *s->dash ? "\"" : "");
  for (int r = 0; r < d->n_rows; r++) {
    double x = ne__rundata_at(d, r, xc), y = ne__rundata_at(d, r, s->col);
    if ((r % stride == 0 || r == d->n_rows - 1) && !isnan(x) && !isnan(y))
      ne__html_printf(b, "%.1f,%.1f ", px(f, x), py(f, y));
  }
  ne__html_puts(b, "\"/>\n");
}

// Run names with their colours (several runs), then the line-style key, above the plot.
static void draw_legend(ne_buf* b, const ne__rundata* runs, int n, int width) {
  double x = MARGIN_L;
  ne__html_puts(b, "<g class=\"legend\" font-size=\"11\" fill=\"#222\">\n");
  for (int i = 0; i < n && n > 1 && x < width - 120; i++) {
    ne__html_printf(b, "<rect x=\"%.1f\" y=\"8\" width=\"12\" height=\"4\" fill=\"%s\"/>", x, PALETTE[i % 10]);
    ne__html_printf(b, "<text x=\"%.1f\" y=\"14\">", x + 16);
    ne__html_text(b, runs[i].name);
    ne__html_puts(b, "</text>\n");
    x += 28 + 6.2 * (double)strlen(runs[i].name);
  }
  int key_y = n > 1 ? 27 : 14;  // the style key gets the first line when there is no run list
  for (int s = 0; s < N_SERIES; s++) {
    double sx = MARGIN_L + 70.0 * s;
    ne__html_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%s\"%s%s%s/>",
                    sx, sx + 22, key_y, key_y, n == 1 ? colour(1, 0, s) : "#333", SERIES[s].width,
                    *SERIES[s].dash ? " stroke-dasharray=\"" : "", SERIES[s].dash, *SERIES[s].dash ? "\"" : "");
    ne__html_printf(b, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", sx + 26, key_y + 4, SERIES[s].label);
  }
  ne__html_puts(b, "</g>\n");
}

void ne__svg_curves(ne_buf* b, const ne__rundata* runs, int n, const char* x, int width, int height) {
  int xc = x_column(x), points = 0, minimized = 0;
  for (int i = 0; i < n; i++) points += runs[i].n_rows, minimized |= runs[i].minimized;
  ne__html_printf(b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"curves\" width=\"%d\" height=\"%d\" "
                  "viewBox=\"0 0 %d %d\" data-points=\"%d\" data-x=\"%s\" font-family=\"sans-serif\" role=\"img\">\n",
                  width, height, width, height, points, x);
  ne__html_puts(b, "<title>training curves</title>\n");
  frame f = {0};
  if (!data_range(runs, n, xc, &f)) {
    ne__html_printf(b,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">waiting for the first "
                    "generation</text>\n</svg>\n",
                    width / 2, height / 2);
    return;
  }
  pad_range(&f);
  f.px0 = MARGIN_L, f.px1 = width - MARGIN_R, f.py0 = height - MARGIN_B, f.py1 = MARGIN_T;
  draw_legend(b, runs, n, width);
  draw_axes(b, &f, x, minimized);
  // mean first, elite last: the line that matters most is drawn on top
  for (int s = N_SERIES - 1; s >= 0; s--)
    for (int i = 0; i < n; i++) draw_series(b, &f, &runs[i], xc, &SERIES[s], colour(n, i, s));
  ne__html_puts(b, "</svg>\n");
}

// ---- a study: each arm's mean curve with its band ------------------------------------------------

enum { BAND_POINTS = 120, MAX_ARMS = 64 };

// a run's score at row r: its elite where it has one, else its best
static double row_score(const ne__rundata* d, int r) {
  double e = ne__rundata_at(d, r, NE__RD_ELITE);
  return isnan(e) ? ne__rundata_at(d, r, NE__RD_BEST) : e;
}

// the score of run d at x: its last row at or before x (NaN before its first)
static double score_at(const ne__rundata* d, int xc, double x) {
  double v = NAN;
  for (int r = 0; r < d->n_rows; r++) {
    double rx = ne__rundata_at(d, r, xc);
    if (isnan(rx)) continue;
    if (rx > x) break;
    double s = row_score(d, r);
    if (!isnan(s)) v = s;
  }
  return v;
}

// one arm's curve: x, mean, min, max on BAND_POINTS points over the range where every run with rows
// has a value; the count of points (0: no run has rows)
typedef struct arm_curve {
  double x[BAND_POINTS], mean[BAND_POINTS], lo[BAND_POINTS], hi[BAND_POINTS];
  int n;      // points
  int seeds;  // runs drawn
} arm_curve;

static void arm_curve_of(const ne__rundata* runs, int n, const char* arm, int xc, arm_curve* c) {
  double x_lo = -INFINITY, x_hi = -INFINITY;
  c->n = c->seeds = 0;
  for (int i = 0; i < n; i++) {
    if (strcmp(runs[i].arm, arm) != 0 || runs[i].n_rows == 0) continue;
    c->seeds++;
    x_lo = fmax(x_lo, ne__rundata_at(&runs[i], 0, xc));
    x_hi = fmax(x_hi, ne__rundata_at(&runs[i], runs[i].n_rows - 1, xc));
  }
  if (!c->seeds || !isfinite(x_lo) || !isfinite(x_hi)) return;
  for (int p = 0; p < BAND_POINTS; p++) {
    double x = x_hi > x_lo ? x_lo + (x_hi - x_lo) * p / (BAND_POINTS - 1.0) : x_lo;
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (strcmp(runs[i].arm, arm) != 0 || runs[i].n_rows == 0) continue;
      double v = score_at(&runs[i], xc, x);
      if (isnan(v)) continue;
      sum += v, k++, lo = fmin(lo, v), hi = fmax(hi, v);
    }
    if (!k) continue;
    c->x[c->n] = x, c->mean[c->n] = sum / k, c->lo[c->n] = lo, c->hi[c->n] = hi;
    c->n++;
    if (x_hi <= x_lo) break;
  }
}

void ne__svg_arms(ne_buf* b, const ne__rundata* runs, int n, const char* x, int width, int height) {
  int xc = x_column(x), minimized = 0, n_arms = 0;
  const char* arms[MAX_ARMS];
  for (int i = 0; i < n; i++) {
    minimized |= runs[i].minimized;
    int seen = !runs[i].arm[0];
    for (int a = 0; a < n_arms && !seen; a++) seen = strcmp(arms[a], runs[i].arm) == 0;
    if (!seen && n_arms < MAX_ARMS) arms[n_arms++] = runs[i].arm;
  }
  static arm_curve curves[MAX_ARMS];  // the dashboard serves one request at a time
  frame f = {INFINITY, -INFINITY, INFINITY, -INFINITY, 0, 0, 0, 0};
  for (int a = 0; a < n_arms; a++) {
    arm_curve_of(runs, n, arms[a], xc, &curves[a]);
    for (int p = 0; p < curves[a].n; p++) {
      f.x0 = fmin(f.x0, curves[a].x[p]), f.x1 = fmax(f.x1, curves[a].x[p]);
      f.y0 = fmin(f.y0, curves[a].lo[p]), f.y1 = fmax(f.y1, curves[a].hi[p]);
    }
  }
  ne__html_printf(b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"arms\" width=\"%d\" height=\"%d\" "
                  "viewBox=\"0 0 %d %d\" data-arms=\"%d\" data-x=\"%s\" font-family=\"sans-serif\" role=\"img\">\n",
                  width, height, width, height, n_arms, x);
  ne__html_puts(b, "<title>each arm: mean of its seeds, band from the lowest to the highest</title>\n");
  if (!isfinite(f.x0) || !isfinite(f.y0)) {
    ne__html_printf(b,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">waiting for the first "
                    "generation</text>\n</svg>\n",
                    width / 2, height / 2);
    return;
  }
  pad_range(&f);
  f.px0 = MARGIN_L, f.px1 = width - MARGIN_R, f.py0 = height - MARGIN_B, f.py1 = MARGIN_T;
  draw_axes(b, &f, x, minimized);
  double lx = MARGIN_L;
  ne__html_puts(b, "<g class=\"legend\" font-size=\"11\" fill=\"#222\">\n");
  for (int a = 0; a < n_arms && lx < width - 120; a++) {
    char label[300];
    snprintf(label, sizeof label, "%s (%d seed%s)", arms[a], curves[a].seeds, curves[a].seeds == 1 ? "" : "s");
    ne__html_printf(b, "<rect x=\"%.1f\" y=\"8\" width=\"12\" height=\"6\" fill=\"%s\"/><text x=\"%.1f\" y=\"15\">", lx,
                    PALETTE[a % 10], lx + 16);
    ne__html_text(b, label);
    ne__html_puts(b, "</text>\n");
    lx += 28 + 6.2 * (double)strlen(label);
  }
  ne__html_puts(b, "</g>\n");
  for (int a = 0; a < n_arms; a++) {
    const arm_curve* c = &curves[a];
    if (c->n == 0) continue;
    // the band: along the highest values, back along the lowest
    ne__html_printf(b, "<polygon class=\"band\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" points=\"",
                    PALETTE[a % 10]);
    for (int p = 0; p < c->n; p++) ne__html_printf(b, "%.1f,%.1f ", px(&f, c->x[p]), py(&f, c->hi[p]));
    for (int p = c->n - 1; p >= 0; p--) ne__html_printf(b, "%.1f,%.1f ", px(&f, c->x[p]), py(&f, c->lo[p]));
    ne__html_puts(b, "\"/>\n");
    ne__html_printf(b, "<polyline class=\"mean\" data-arm=\"");
    ne__html_text(b, arms[a]);
    ne__html_printf(b, "\" data-n=\"%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.2\" points=\"", c->n,
                    PALETTE[a % 10]);
    for (int p = 0; p < c->n; p++) ne__html_printf(b, "%.1f,%.1f ", px(&f, c->x[p]), py(&f, c->mean[p]));
    ne__html_puts(b, "\"/>\n");
  }
  ne__html_puts(b, "</svg>\n");
}
