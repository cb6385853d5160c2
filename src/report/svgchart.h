// SPDX-License-Identifier: MIT
// Training curves as inline SVG, drawn on the server (dashboard) or into a file (report): no
// scripts, no fonts to fetch, no network. One colour per run; elite solid, best dashed, mean dotted
// (the convention of curve.png). Internal; not public API.
#ifndef NEUROEVO_SVGCHART_H
#define NEUROEVO_SVGCHART_H

#include "core/buf.h"
#include "report/rundata.h"

// x axes a chart can use: metrics.csv column names.
// Returns 1 if x is "env_steps", "wall_s", "evaluations" or "generation".
int ne__svg_valid_x(const char* x);

// Appends an <svg> element with the curves of n runs against column x (see ne__svg_valid_x) to b,
// width x height pixels. The element carries data-points = the number of metrics rows drawn (all
// runs) and each <polyline> data-n = its vertex count (at most 800: long runs are thinned evenly,
// the last point always kept). Runs without rows draw nothing; no rows at all gives a notice.
void ne__svg_curves(ne_buf* b, const ne__rundata* runs, int n, const char* x, int width, int height);

// Appends an <svg> element with one curve per study arm (runs grouped by their `arm`; runs without
// one are left out): the mean over its seeds of each row's score (the elite where the run has
// one, else the best) against column x, with a band from the lowest to the highest seed, on points
// where every seed with rows has a value. The element carries data-arms = the number of arms;
// each mean polyline data-arm = its arm and data-n = its points.
void ne__svg_arms(ne_buf* b, const ne__rundata* runs, int n, const char* x, int width, int height);

#endif
