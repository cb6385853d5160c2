// SPDX-License-Identifier: MIT
// What the Atari family shares with the rest of the library (not public API): the option setter
// ne_env_set_pixel_options routes to (src/envs/pixels.c), and the preprocessing helpers that
// tests/ale/test_ale.c checks against their definitions. Built only with -DNE_ALE=ON.
#ifndef NEUROEVO_ENVS_ALE_INT_H
#define NEUROEVO_ENVS_ALE_INT_H

#include <stdint.h>

#include "envs/envs_int.h"

#define NE_ALE_OUT 84  // preprocessed frame side (84x84, Mnih et al. 2015)

// Sets an ALE spec's per-frame sticky-action probability (0 or < 0: off, the default); a no-op
// for other specs.
void ne__ale_set_options(ne_env_spec* spec, double sticky_prob);

// The number of no-op frames that started the episode of an ALE state's impl (tests/ale).
int ne__ale_noops(const void* impl);

// The ROM file an ALE spec loads (bench/bench_pixels.c times raw ALE on it), or NULL.
const char* ne__ale_rom_path(const ne_env_spec* spec);

// An area resize from (in_h, in_w) to (out_h, out_w) as OpenCV's INTER_AREA computes it: each
// output pixel is the mean of the input area it covers, fractional pixels weighted by their
// overlap, rounded to the nearest byte. Tables are built once per spec.
// Every output pixel reads NE_AREA_TAPS consecutive inputs per axis; a pixel that covers fewer
// has zero weights at the end (x + 0*y == x, so the sums are those of the exact tap lists), which
// keeps the loops branch-free.
#define NE_AREA_TAPS 3
typedef struct ne_area_resize {
  int in_h, in_w, out_h, out_w;
  int x0[NE_ALE_OUT];                       // first input column of each output column
  float wx[NE_ALE_OUT][NE_AREA_TAPS];       // (out_w, taps) column weights
  int y0[NE_ALE_OUT];                       // first input row of each output row
  float wy[NE_ALE_OUT][NE_AREA_TAPS];       // (out_h, taps) row weights
} ne_area_resize;

// Fills the tables (out sides at most NE_ALE_OUT, scale factors in [1, 2.5] so that no output
// pixel spans more than 3 inputs per axis); 0 or NE_EINVAL.
int ne__area_resize_init(ne_area_resize* r, int in_h, int in_w, int out_h, int out_w);

// Resizes the (in_h, in_w) bytes at in into (out_h, out_w) bytes at out, using tmp
// (in_h * out_w floats) for the horizontal pass and row (in_w floats) for one input row.
void ne__area_resize(const ne_area_resize* r, const uint8_t* in, float* tmp, float* row, uint8_t* out);

#endif
