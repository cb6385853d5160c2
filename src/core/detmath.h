// SPDX-License-Identifier: MIT
// Deterministic elementary functions: log, sin/cos and a float tanh built only from + - * /, fused
// multiply-add and IEEE sqrt (all exactly rounded), so that noise and policy outputs are
// bit-identical whatever libm the machine has (DESIGN.md §3). The branch-free kernels are static
// inline so that the noise and MLP loops can inline and vectorize them; detmath.c adds the scalar
// entry points with their special cases.
#ifndef NEUROEVO_DETMATH_H
#define NEUROEVO_DETMATH_H

#include <math.h>  // fmaf: exactly rounded (IEEE 754), so it keeps the bits machine-independent
#include <stdint.h>
#include <string.h>  // memcpy: bit casts the optimizer turns into register moves

// Natural logarithm: < 1 ulp for finite x > 0 (subnormals included); -inf at 0, NaN below 0,
// +inf at +inf, NaN for NaN.
double ne__log(double x);

// sin / cos: < 2.5 ulp for |x| <= 2^20 * pi/2 (about 1.6e6). Larger arguments are reduced with a
// 99-bit pi/2 and lose accuracy gradually (still deterministic); |x| >= 2^50, inf and NaN give NaN.
double ne__sin(double x);
double ne__cos(double x);

// sin(2*pi*t) and cos(2*pi*t) for |t| < 2^49 ("turns"); exact range reduction, < 2 ulp.
void ne__sincos_turns(double t, double* s, double* c);

// Hyperbolic tangent of a float, within 0.53 ulp of the exact value (relative error < 1e-7);
// odd, saturates at exactly +-1 for |x| >= 9.02, NaN for NaN.
float ne__tanhf(float x);

// x[i] = ne__tanhf(x[i]) for i < n; the vectorizable form the MLP uses on whole layers.
void ne__tanhf_inplace(float* x, int n);

// The same function evaluated in float (ne__tanhf_float_kernel): within 6.3 ulp of the exact
// value (relative error < 3.5e-7), |result| <= 1, odd, exactly +-1 for |x| >= 9.1, NaN for NaN.
// 1.7-1.9x faster per element than ne__tanhf (single-precision vectors, one float division);
// policies choose between the two (policy.tanh).
float ne__tanhf_float(float x);
void ne__tanhf_float_inplace(float* x, int n);

// The float tanh with fused multiply-adds (ne__tanhf_float_fma_kernel; policies with policy.fma):
// within 4.9 ulp (the separate form: 6.3), exactly +-1 for |x| >= 9.09, the same properties
// otherwise; bit-identical wherever fmaf is exactly rounded (an FMA instruction, or libm's emulation).
float ne__tanhf_float_fma(float x);
void ne__tanhf_float_fma_inplace(float* x, int n);

// Philox4x32-10 (Random123) of one 128-bit counter under one 64-bit key: the bit source of the
// noise, defined in noise.c and exposed for the known-answer test against Random123's vectors.
void ne__philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

// ---- inline kernels -----------------------------------------------------------------------------

static inline uint64_t ne__dbits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline double ne__bitsd(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

// log(x) for normal finite x > 0, without branches (fdlibm's e_log.c method and minimax
// coefficients, Sun Microsystems 1993, freely usable). x = 2^k * m with m in [sqrt(2)/2, sqrt(2)),
// f = m - 1, s = f / (2 + f), log(m) = f - f^2/2 + s (f^2/2 + R(s^2)).
static inline double ne__log_kernel(double x) {
  const double ln2_hi = 6.93147180369123816490e-01;  // high 32 bits of ln 2: k * ln2_hi is exact
  const double ln2_lo = 1.90821492927058770002e-10;
  const double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01;
  const double lg3 = 2.857142874366239149e-01, lg4 = 2.222219843214978396e-01;
  const double lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01;
  const double lg7 = 1.479819860511658591e-01;
  // shift the exponent so that mantissas >= sqrt(2)/2 round up into the next binade, then rebuild m
  uint64_t ix = ne__dbits(x) + (0x3ff0000000000000ull - 0x3fe6a09e00000000ull);
  uint64_t e = ix >> 52;  // biased exponent of the rounded binade, 1..2046
  double m = ne__bitsd((ix & 0x000fffffffffffffull) + 0x3fe6a09e00000000ull);
  // exact int -> double through the 2^52 magic (SSE2 has no packed int64 conversion)
  double k = ne__bitsd(e | 0x4330000000000000ull) - 0x1.0p52 - 1023.0;
  double f = m - 1.0;
  double s = f / (2.0 + f);
  double z = s * s;
  double w = z * z;
  double t1 = w * (lg2 + w * (lg4 + w * lg6));
  double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
  double r = t2 + t1;
  double hfsq = 0.5 * f * f;
  return k * ln2_hi - ((hfsq - (s * (hfsq + r) + k * ln2_lo)) - f);
}

// sin(a) for |a| <= pi/4 (fdlibm k_sin.c minimax coefficients).
static inline double ne__sin_poly(double a) {
  const double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03;
  const double s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06;
  const double s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  double z = a * a;
  double w = z * z;
  double r = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6);
  return a + (z * a) * (s1 + z * r);
}

// cos(a) for |a| <= pi/4 (fdlibm k_cos.c minimax coefficients, FreeBSD's rounding of 1 - z/2).
static inline double ne__cos_poly(double a) {
  const double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03;
  const double c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07;
  const double c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  double z = a * a;
  double w = z * z;
  double r = z * (c1 + z * (c2 + z * c3)) + w * w * (c4 + z * (c5 + z * c6));
  double hz = 0.5 * z;
  double one_hz = 1.0 - hz;
  return one_hz + (((1.0 - one_hz) - hz) + z * r);
}

// Given a = theta - q*pi/2 with |a| <= pi/4 and the quadrant bits q, writes sin and cos of theta.
// Branch-free (masks), so it vectorizes.
static inline void ne__sincos_quadrant(double a, uint64_t q, double* s_out, double* c_out) {
  uint64_t sb = ne__dbits(ne__sin_poly(a)), cb = ne__dbits(ne__cos_poly(a));
  uint64_t swap = 0 - (q & 1);           // odd quadrants exchange sin and cos
  uint64_t neg_s = (q & 2) << 62;        // quadrants 2, 3: sin < 0
  uint64_t neg_c = ((q + 1) & 2) << 62;  // quadrants 1, 2: cos < 0
  uint64_t s = (sb & ~swap) | (cb & swap);
  uint64_t c = (cb & ~swap) | (sb & swap);
  *s_out = ne__bitsd(s ^ neg_s);
  *c_out = ne__bitsd(c ^ neg_c);
}

// sin and cos of 2*pi*t for |t| < 2^49, branch-free. 4t minus its nearest integer q is exact, so
// the only rounding before the polynomials is the final multiplication by pi/2.
static inline void ne__sincos_turns_kernel(double t, double* s, double* c) {
  const double pio2 = 1.57079632679489655800e+00;
  const double magic = 0x1.8p52;  // adding it rounds to an integer held in the low mantissa bits
  double t4 = 4.0 * t;
  double qm = t4 + magic;
  double y = t4 - (qm - magic);  // in [-0.5, 0.5], exact
  ne__sincos_quadrant(y * pio2, ne__dbits(qm), s, c);
}

// |x| clamped to 9.1 on the float's bits (sign-magnitude order is numeric order); NaN keeps its bits.
// Integer selects keep gcc from threading the saturated path into a branch, which would stop
// vectorization.
static inline float ne__tanhf_clamp(float xf) {
  uint32_t bits;
  memcpy(&bits, &xf, sizeof bits);
  int32_t mag = (int32_t)(bits & 0x7fffffffu);
  int32_t clamped = mag > 0x4111999a ? 0x4111999a : mag;  // 0x4111999a = 9.1f
  mag = mag > 0x7f800000 ? mag : clamped;
  bits = (bits & 0x80000000u) | (uint32_t)mag;
  memcpy(&xf, &bits, sizeof xf);
  return xf;
}

// tanh(x)/x ~ P(x^2)/Q(x^2) on |x| <= 9.1, relative error 1.1e-9 (our own weighted least-squares
// minimax fit; every coefficient and term is positive, so the evaluation has no cancellation).
static inline float ne__tanhf_kernel(float xf) {
  const double p0 = 0.99999999896637062909, p1 = 0.13781557108328823369;
  const double p2 = 0.0040036554634321676417, p3 = 0.000031483406428897143408;
  const double p4 = 5.0390489438686044002e-8;
  const double q1 = 0.47114889428382536168, q2 = 0.027719970015593808671;
  const double q3 = 0.00041986277494077707727, q4 = 1.6092888030783556572e-6;
  const double q5 = 7.2995637758416281131e-10;
  // beyond 9.1 the result is exactly +-1; NaN comes out as NaN
  double x = (double)ne__tanhf_clamp(xf);
  // Estrin's scheme: short dependency chains, so independent elements overlap in the pipeline
  double z = x * x, z2 = z * z, z4 = z2 * z2;
  double p = (p0 + p1 * z) + z2 * (p2 + p3 * z) + z4 * p4;
  double q = (1.0 + q1 * z) + z2 * (q2 + q3 * z) + z4 * (q4 + q5 * z);
  return (float)(x * p / q);
}

// The float tanh's coefficients: P = 1 + P1 z + P2 z^2 + P3 z^3 + P4 z^4, Q likewise (z = x^2). One
// copy for ne__tanhf_float_kernel and mlp_x86.c's vector kernels, which must give its bits.
#define NE__TANHF_P1 0.13374441862106323f
#define NE__TANHF_P2 0.0034877725411206484f
#define NE__TANHF_P3 2.0480620150920004e-05f
#define NE__TANHF_P4 1.3176857827090771e-08f
#define NE__TANHF_Q1 0.4670775532722473f
#define NE__TANHF_Q2 0.025847237557172775f
#define NE__TANHF_Q3 0.0003272860194556415f
#define NE__TANHF_Q4 7.703748678977718e-07f
// The float kernel's floor on z = x^2. Below it (|x| < 2^-12) P and Q round to exactly 1 either
// way (P1 z and Q1 z < 2^-25, under half an ulp of 1), so x p / q = x; without it z^4 P4 and z^4 Q4
// are subnormal for |x| < ~2e-4, and each such vector costs a microcode assist (~150 cycles on
// Intel cores, ~7% of a 4-64-64-2 CartPole rollout whose first layer sees observations near 0).
// With it the smallest product is 2^-96 P4 ~ 1.7e-37, a normal float. Same bits for all 2^32
// inputs (compared once).
#define NE__TANHF_Z_FLOOR 0x1p-24f

// tanh(x)/x ~ P(x^2)/Q(x^2) on |x| <= 9.1 with (4, 4) float coefficients (our own iteratively
// reweighted least-squares fit, then rounded to float; every coefficient positive), evaluated in
// float with Estrin's scheme. The rational overshoots 1 by an ulp near saturation: the final
// clamp keeps |tanh| <= 1 (and passes NaN, for which both comparisons are false).
static inline float ne__tanhf_float_kernel(float xf) {
  const float p1 = NE__TANHF_P1, p2 = NE__TANHF_P2, p3 = NE__TANHF_P3, p4 = NE__TANHF_P4;
  const float q1 = NE__TANHF_Q1, q2 = NE__TANHF_Q2, q3 = NE__TANHF_Q3, q4 = NE__TANHF_Q4;
  float x = ne__tanhf_clamp(xf);
  float z = x * x;
  z = z < NE__TANHF_Z_FLOOR ? NE__TANHF_Z_FLOOR : z;  // NaN stays NaN
  float z2 = z * z, z4 = z2 * z2;
  float p = (1.0f + p1 * z) + z2 * (p2 + p3 * z) + z4 * p4;
  float q = (1.0f + q1 * z) + z2 * (q2 + q3 * z) + z4 * q4;
  float y = x * p / q;
  y = y > 1.0f ? 1.0f : y;
  return y < -1.0f ? -1.0f : y;
}

// The float tanh of policy.fma: the same rational by Horner's rule in fused multiply-adds, P =
// fma(fma(fma(fma(P4, z, P3), z, P2), z, P1), z, 1), Q likewise: 8 FMAs where Estrin's form takes
// 8 multiplies and 6 adds, and no z^4 (so no floor: only a subnormal z = x^2, |x| < 2^-63, is a
// subnormal operand). The input clamp is at NE__TANHF_FMA_BOUND, where this rational rounds to
// exactly 1 (at 9.1 it gives 1 - 2^-24), so the result is +-1 from there on. Below |x| = 2^-12
// each fma adds less than half an ulp to 1, so P = Q = 1 and the result is x.
#define NE__TANHF_FMA_BOUND 9.09f
static inline float ne__tanhf_float_fma_kernel(float xf) {
  float x = NE__TANHF_FMA_BOUND < xf ? NE__TANHF_FMA_BOUND : xf;  // NaN passes both
  x = -NE__TANHF_FMA_BOUND > x ? -NE__TANHF_FMA_BOUND : x;
  float z = x * x;
  float p = fmaf(fmaf(fmaf(fmaf(NE__TANHF_P4, z, NE__TANHF_P3), z, NE__TANHF_P2), z, NE__TANHF_P1), z, 1.0f);
  float q = fmaf(fmaf(fmaf(fmaf(NE__TANHF_Q4, z, NE__TANHF_Q3), z, NE__TANHF_Q2), z, NE__TANHF_Q1), z, 1.0f);
  float y = x * p / q;
  y = y > 1.0f ? 1.0f : y;
  return y < -1.0f ? -1.0f : y;
}

#endif
