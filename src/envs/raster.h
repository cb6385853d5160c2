// SPDX-License-Identifier: MIT
// A small 2-D rasterizer for the env render hooks that have no renderer of their own (classic
// control, Box2D): filled polygons (any simple polygon, even-odd rule), thick lines and discs, in
// world coordinates mapped to pixels by a scale and an offset, y up. No anti-aliasing, no
// allocation; a 600x400 frame of a few dozen shapes takes well under a millisecond. Not public API.
#ifndef NEUROEVO_ENVS_RASTER_H
#define NEUROEVO_ENVS_RASTER_H

#include <stdint.h>

// An RGB frame and the world-to-pixel map: px = (x - x0) * scale, py = height - (y - y0) * scale.
typedef struct ne_canvas {
  unsigned char* rgb;  // (height, width, 3), top row first; not owned
  int width, height;   // pixels
  double x0, y0;       // world point at the bottom-left corner
  double scale;        // pixels per world unit
} ne_canvas;

// A colour as 0xRRGGBB.
typedef uint32_t ne_rgb;

// Fills the whole frame.
void ne__raster_clear(ne_canvas* c, ne_rgb color);

// Fills the polygon (n >= 3 vertices, world coordinates) by the even-odd rule at pixel centres.
void ne__raster_polygon(ne_canvas* c, const double* xs, const double* ys, int n, ne_rgb color);

// Draws a segment `width_px` pixels thick (at least 1).
void ne__raster_line(ne_canvas* c, double x1, double y1, double x2, double y2, double width_px, ne_rgb color);

// Fills a disc of world radius r.
void ne__raster_disc(ne_canvas* c, double x, double y, double r, ne_rgb color);

// Fills a world-axis-aligned rectangle.
void ne__raster_rect(ne_canvas* c, double x1, double y1, double x2, double y2, ne_rgb color);

#endif
