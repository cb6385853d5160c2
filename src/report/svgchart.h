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

#endif
