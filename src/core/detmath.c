// SPDX-License-Identifier: MIT
// Scalar entry points of the deterministic math in detmath.h: special cases (zero, negative,
// subnormal, inf, NaN) and the pi/2 range reduction of sin/cos, around the branch-free kernels.
// Hot loops call the inline kernels directly; these are for everything else and for the tests.
#include "core/detmath.h"

#include <math.h>  // NAN and INFINITY macros only: no libm function is called

#define MAGIC_ROUND 0x1.8p52  // x + MAGIC - MAGIC rounds x to an integer for |x| < 2^51

double ne__log(double x) {
  // NaN, negatives and zero first; the kernel needs a normal positive number
  if (!(x > 0.0)) return x == 0.0 ? -INFINITY : NAN;
  if (x == INFINITY) return x;
  if (x < 0x1.0p-1022) {
    // subnormal: scale into the normal range and take the exponent back out
    const double ln2_54 = 3.74299477502370478214e+01;  // 54 * ln 2
    return ne__log_kernel(x * 0x1.0p54) - ln2_54;
  }
  return ne__log_kernel(x);
}

// Reduces x by the nearest multiple n of pi/2 (Cody-Waite, pi/2 in three 33-bit pieces so each
// n * piece is exact for |n| < 2^20) and returns x - n*pi/2; *q gets n's low bits.
static double reduce_pio2(double x, uint64_t* q) {
  const double two_over_pi = 6.36619772367581382433e-01;
  const double pio2_1 = 1.57079632673412561417e+00;  // first 33 bits of pi/2
  const double pio2_2 = 6.07710050630396597660e-11;  // next 33 bits
  const double pio2_3 = 2.02226624871116645580e-21;  // next 33 bits
  double nm = x * two_over_pi + MAGIC_ROUND;
  double n = nm - MAGIC_ROUND;
  *q = ne__dbits(nm);
  return ((x - n * pio2_1) - n * pio2_2) - n * pio2_3;
}

double ne__sin(double x) {
  if (!(x > -0x1.0p50 && x < 0x1.0p50)) return NAN;
  uint64_t q;
  double a = reduce_pio2(x, &q), s, c;
  ne__sincos_quadrant(a, q, &s, &c);
  return s;
}

double ne__cos(double x) {
  if (!(x > -0x1.0p50 && x < 0x1.0p50)) return NAN;
  uint64_t q;
  double a = reduce_pio2(x, &q), s, c;
  ne__sincos_quadrant(a, q, &s, &c);
  return c;
}

void ne__sincos_turns(double t, double* s, double* c) {
  if (!(t > -0x1.0p49 && t < 0x1.0p49)) {
    *s = *c = NAN;
    return;
  }
  ne__sincos_turns_kernel(t, s, c);
}

float ne__tanhf(float x) { return ne__tanhf_kernel(x); }

void ne__tanhf_inplace(float* x, int n) {
  int i = 0;
  // fixed-size blocks: gcc -O2 vectorizes only loops whose trip count is a multiple of the width
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) x[i + j] = ne__tanhf_kernel(x[i + j]);
  for (; i < n; i++) x[i] = ne__tanhf_kernel(x[i]);
}

float ne__tanhf_float(float x) { return ne__tanhf_float_kernel(x); }

void ne__tanhf_float_inplace(float* x, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) x[i + j] = ne__tanhf_float_kernel(x[i + j]);
  for (; i < n; i++) x[i] = ne__tanhf_float_kernel(x[i]);
}

float ne__tanhf_float_fma(float x) { return ne__tanhf_float_fma_kernel(x); }

// the baseline's loop (mlp_x86.c's vector kernels cover AVX2 and AVX-512): fmaf is a libm call here
void ne__tanhf_float_fma_inplace(float* x, int n) {
  for (int i = 0; i < n; i++) x[i] = ne__tanhf_float_fma_kernel(x[i]);
}
