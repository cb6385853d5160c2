// SPDX-License-Identifier: MIT
// sin and cos of 8 doubles with libm's bits, vectorized where the running libm is glibc's FMA
// variant (sincos8.c): what CartPole's lanes call for their 8 angles a step.
#ifndef NEUROEVO_CORE_SINCOS8_H
#define NEUROEVO_CORE_SINCOS8_H

// s[k] = sin(x[k]) and c[k] = cos(x[k]) for k < 8, each bit for bit what libm's sin and cos return
// (any x: inf and NaN too). Thread-safe; the first call checks the vector kernel against libm.
void ne__sincos8(const double* x, double* s, double* c);

// 1 when ne__sincos8 runs its vector kernel (x86-64 glibc with AVX2 and FMA, the self-check
// passed, the SIMD level at least avx2), 0 when it calls libm for every lane. For tests.
int ne__sincos8_vectorized(void);

#endif
