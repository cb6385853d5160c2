// SPDX-License-Identifier: MIT
// Initial parameters of one dense layer (policy_int.h's ne__policy_init_layer), shared by MLPs
// (mlp.c) and the dense layers and filters of conv policies (conv.c): normc / Xavier / He scaling
// of counter-based noise, zero biases. Runs once per materialized chain root, never per step.
#include <math.h>    // sqrt (IEEE exact); no other libm call
#include <string.h>  // memset

#include "neuroevo/noise.h"
#include "neuroevo/rng.h"
#include "policy/policy_int.h"

// Scales each column W[:, j] of an (in, out) matrix to L2 norm `norm` (OpenAI ES normc_initializer).
// Sums run in double over i ascending; columns go in chunks so the sums live on the stack.
static void normalize_columns(float* w, int in, int out, double norm) {
  for (int j0 = 0; j0 < out; j0 += 64) {
    int cols = out - j0 < 64 ? out - j0 : 64;
    double sq[64] = {0};
    for (int i = 0; i < in; i++)
      for (int j = 0; j < cols; j++) {
        double v = w[(size_t)i * (size_t)out + (size_t)(j0 + j)];
        sq[j] += v * v;
      }
    for (int j = 0; j < cols; j++) sq[j] = sq[j] > 0.0 ? norm / sqrt(sq[j]) : 0.0;  // now the scale
    for (int i = 0; i < in; i++)
      for (int j = 0; j < cols; j++) {
        float* p = &w[(size_t)i * (size_t)out + (size_t)(j0 + j)];
        *p = (float)((double)*p * sq[j]);
      }
  }
}

// Multiplies n floats by s (rounded once, in double).
static void scale(float* w, size_t n, double s) {
  for (size_t i = 0; i < n; i++) w[i] = (float)((double)w[i] * s);
}

// weights: ε of a per-layer seed, so layers do not share noise; biases start at zero
void ne__policy_init_layer(ne_init init, uint64_t seed, int index, int in, int o, int is_output, float* p) {
  size_t nw = (size_t)in * (size_t)o;
  if (init == NE_INIT_ZEROS) {
    memset(p, 0, (nw + (size_t)o) * sizeof *p);
    return;
  }
  ne_noise_fill(ne_hash2(seed, (uint64_t)index), 0, nw, p);
  if (init == NE_INIT_NORMC) normalize_columns(p, in, o, is_output ? 0.01 : 1.0);
  else if (init == NE_INIT_XAVIER) scale(p, nw, sqrt(2.0 / (double)(in + o)));
  else scale(p, nw, sqrt(2.0 / (double)in));
  memset(p + nw, 0, (size_t)o * sizeof *p);
}
