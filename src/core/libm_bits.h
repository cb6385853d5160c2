// SPDX-License-Identifier: MIT
// libm's results bit for bit, faster: the sin, cos and x**2 of Gymnasium's envs (Python's math.sin,
// math.cos and float ** 2 call libm's sin, cos and pow) where our envs need Gymnasium's bits.
#ifndef NEUROEVO_CORE_LIBM_BITS_H
#define NEUROEVO_CORE_LIBM_BITS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/simd.h"

// s[k] = sin(x[k]) and c[k] = cos(x[k]) for k < 8, each bit for bit what libm's sin and cos return
// (any x: inf and NaN too), in vectors where the running libm is glibc's FMA variant and
// |x| < 105414350 (libm_bits.c). Thread-safe; the first call checks the vector kernel against libm.
void ne__sincos8(const double* x, double* s, double* c);

// 1 when ne__sincos8 runs its vector kernel (x86-64 glibc with AVX2 and FMA, the self-check
// passed, the SIMD level at least avx2), 0 when it calls libm for every lane. For tests.
int ne__sincos8_vectorized(void);

// ne__sincos8's kernel table (core/simd.h): libm lane by lane, and on x86-64 the AVX2 and AVX-512
// emulations of glibc's FMA sin and cos (libm_bits_x86.c), usable where ne__sincos8_x86_usable
// says (their self-check against the running libm).
typedef struct ne__sincos8_kernels {
  void (*sincos8)(const double* x, double* s, double* c);  // ne__sincos8's contract
} ne__sincos8_kernels;
extern ne_simd_slot ne__sincos8_slot;
#ifdef NE_SIMD_X86
extern const ne__sincos8_kernels ne__sincos8_avx2, ne__sincos8_avx512;
int ne__sincos8_x86_usable(int level, const char** why);
#endif

// libm's pow(x, 2), the slow path of ne__py_sq.
double ne__pow2_libm(double x);

// x**2 as CPython and NumPy float64 scalars compute it: libm's pow(x, 2), which is not always x*x
// (glibc's pow is within 0.54 ulp of the exact square, not correctly rounded: ~7% of short
// mantissas, whose squares are exact ties, and ~1 random input in 1000 differ). x*x is the
// correctly rounded square; pow returns it whenever the exact square lies within 0.45 ulp of it,
// since the other neighbour is then more than 0.54 ulp away. The rounding error of x*x (Dekker's
// exact product, no FMA needed) tells which case this is; the rest (~10% of inputs, and 0, inf,
// NaN, tiny and huge x) call pow. ne__py_sq_fast returns x*x and sets *is_pow when that is pow's
// result.
static inline double ne__py_sq_fast(double x, int* is_pow) {
  double hi = x * x;
  double split = 0x1.0000002p27 * x;  // 2^27 + 1: x = xh + xl, 26 bits each
  double xh = split - (split - x), xl = x - xh;
  double lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl;  // x*x - hi, exactly within the range below
  uint64_t bits, x_bits;
  memcpy(&bits, &hi, sizeof bits);
  memcpy(&x_bits, &x, sizeof x_bits);
  uint64_t ulp_bits = (bits & 0x7ff0000000000000ull) - (52ull << 52);  // hi's ulp, a power of two
  double ulp;
  memcpy(&ulp, &ulp_bits, sizeof ulp);
  double ax = fabs(x);
  int in_range = (ax >= 0x1p-450) & (ax <= 0x1p500);  // Dekker's split: no underflow, no overflow
  // a power of two's lower neighbour is half an ulp away: left to pow, but for x = +-2^j itself,
  // whose square pow returns exactly (test_py_sq_equals_pow tries every such x in range)
  int near_hi = ((bits & 0x000fffffffffffffull) != 0) & (fabs(lo) < 0.45 * ulp);
  *is_pow = in_range & (near_hi | ((x_bits & 0x000fffffffffffffull) == 0));
  return hi;
}

static inline double ne__py_sq(double x) {
  int is_pow;
  double hi = ne__py_sq_fast(x, &is_pow);
  return is_pow ? hi : ne__pow2_libm(x);
}

// ne__py_sq of 8 values: the arithmetic without branches (a loop that vectorizes where it is
// inlined into vector code), pow afterwards for the few that need it
static inline void ne__py_sq8(const double* restrict x, double* restrict out) {
  int is_pow[8];
  for (int k = 0; k < 8; k++) out[k] = ne__py_sq_fast(x[k], &is_pow[k]);
  for (int k = 0; k < 8; k++)
    if (!is_pow[k]) out[k] = ne__pow2_libm(x[k]);
}

#endif
