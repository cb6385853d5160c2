// SPDX-License-Identifier: MIT
// The 2-D rasterizer of raster.h: a scanline polygon filler (edge crossings per pixel row, sorted,
// filled in pairs — the even-odd rule) that lines, rectangles and discs reuse. Coordinates are
// converted to pixels once per vertex; rows and columns are clipped to the frame, so shapes may
// lie partly or wholly outside it.
#include "envs/raster.h"

#include <math.h>
#include <stddef.h>

#define MAX_VERTS 64  // polygons with more vertices are drawn with their first MAX_VERTS

// writes one pixel run [xa, xb) of row y (already clipped)
static void span(ne_canvas* c, int y, int xa, int xb, ne_rgb color) {
  unsigned char* p = c->rgb + ((size_t)y * (size_t)c->width + (size_t)xa) * 3;
  for (int x = xa; x < xb; x++, p += 3) {
    p[0] = (unsigned char)(color >> 16);
    p[1] = (unsigned char)(color >> 8);
    p[2] = (unsigned char)color;
  }
}

void ne__raster_clear(ne_canvas* c, ne_rgb color) {
  for (int y = 0; y < c->height; y++) span(c, y, 0, c->width, color);
}

// fills a polygon given in pixel coordinates (x right, y down)
static void fill_pixels(ne_canvas* c, const double* px, const double* py, int n, ne_rgb color) {
  double ymin = py[0], ymax = py[0];
  for (int i = 1; i < n; i++) ymin = fmin(ymin, py[i]), ymax = fmax(ymax, py[i]);
  int y0 = (int)fmax(0.0, ceil(ymin - 0.5)), y1 = (int)fmin((double)c->height - 1, floor(ymax - 0.5));
  for (int y = y0; y <= y1; y++) {
    // crossings of the row's centre line with the edges, sorted (n is small: insertion sort)
    double yc = y + 0.5, xs[MAX_VERTS];
    int k = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
      if ((py[i] <= yc) == (py[j] <= yc)) continue;
      double x = px[j] + (yc - py[j]) * (px[i] - px[j]) / (py[i] - py[j]);
      int m = k++;
      while (m > 0 && xs[m - 1] > x) xs[m] = xs[m - 1], m--;
      xs[m] = x;
    }
    for (int i = 0; i + 1 < k; i += 2) {
      int xa = (int)fmax(0.0, ceil(xs[i] - 0.5)), xb = (int)fmin((double)c->width, ceil(xs[i + 1] - 0.5));
      if (xa < xb) span(c, y, xa, xb, color);
    }
  }
}

void ne__raster_polygon(ne_canvas* c, const double* xs, const double* ys, int n, ne_rgb color) {
  double px[MAX_VERTS], py[MAX_VERTS];
  if (n > MAX_VERTS) n = MAX_VERTS;
  if (n < 3) return;
  for (int i = 0; i < n; i++) {
    px[i] = (xs[i] - c->x0) * c->scale;
    py[i] = c->height - (ys[i] - c->y0) * c->scale;
  }
  fill_pixels(c, px, py, n, color);
}

void ne__raster_line(ne_canvas* c, double x1, double y1, double x2, double y2, double width_px, ne_rgb color) {
  double ax = (x1 - c->x0) * c->scale, ay = c->height - (y1 - c->y0) * c->scale;
  double bx = (x2 - c->x0) * c->scale, by = c->height - (y2 - c->y0) * c->scale;
  double dx = bx - ax, dy = by - ay, len = sqrt(dx * dx + dy * dy);
  double h = 0.5 * fmax(width_px, 1.0);
  // a quad around the segment, extended by h at both ends so that joints look closed
  double ux = len > 0 ? dx / len : 1.0, uy = len > 0 ? dy / len : 0.0;
  double nx = -uy * h, ny = ux * h;
  ax -= ux * h, ay -= uy * h, bx += ux * h, by += uy * h;
  double px[4] = {ax + nx, bx + nx, bx - nx, ax - nx}, py[4] = {ay + ny, by + ny, by - ny, ay - ny};
  fill_pixels(c, px, py, 4, color);
}

void ne__raster_disc(ne_canvas* c, double x, double y, double r, ne_rgb color) {
  double cx = (x - c->x0) * c->scale, cy = c->height - (y - c->y0) * c->scale, rp = r * c->scale;
  int y0 = (int)fmax(0.0, floor(cy - rp)), y1 = (int)fmin((double)c->height - 1, ceil(cy + rp));
  for (int py = y0; py <= y1; py++) {
    double dy = py + 0.5 - cy;
    if (dy * dy > rp * rp) continue;
    double hw = sqrt(rp * rp - dy * dy);
    int xa = (int)fmax(0.0, ceil(cx - hw - 0.5)), xb = (int)fmin((double)c->width, ceil(cx + hw - 0.5));
    if (xa < xb) span(c, py, xa, xb, color);
  }
}

void ne__raster_rect(ne_canvas* c, double x1, double y1, double x2, double y2, ne_rgb color) {
  double xs[4] = {x1, x2, x2, x1}, ys[4] = {y1, y1, y2, y2};
  ne__raster_polygon(c, xs, ys, 4, color);
}
