// SPDX-License-Identifier: MIT
// libm_bits.h's slow paths, and the sine and cosine of 8 doubles at once with the bits of the C
// library's sin and cos. Gymnasium's classic-control envs call math.sin/math.cos, i.e. libm, and
// our envs need the same bits (CartPole's lanes: 8 angles a step; one libm call an angle was the
// largest part of a CartPole ES run). The kernel table (core/simd.h): libm lane by lane (the
// portable entry, and the reference), and on x86-64 glibc the vector emulations of its FMA sin and
// cos (libm_bits_x86.c), each used only where its self-check against the running libm passed.
#include "core/libm_bits.h"

#include "core/simd.h"

static void sincos8_libm(const double* x, double* s, double* c) {
  for (int k = 0; k < 8; k++) s[k] = sin(x[k]), c[k] = cos(x[k]);
}

static const ne__sincos8_kernels portable = {sincos8_libm};

// by level: libm, then the AVX2 and AVX-512 emulations where their self-checks pass
ne_simd_slot ne__sincos8_slot = {
    .name = "sincos8",
    .portable = &portable,
    .table = {[NE_SIMD_BASE] = &portable,
              NE_ON_X86([NE_SIMD_AVX2] = &ne__sincos8_avx2, [NE_SIMD_AVX512] = &ne__sincos8_avx512)},
    .usable = NE_X86_OR(ne__sincos8_x86_usable, NULL),
};

int ne__sincos8_vectorized(void) { return ne__simd_table(&ne__sincos8_slot) != &portable; }

void ne__sincos8(const double* x, double* s, double* c) {
  const ne__sincos8_kernels* k = ne__simd_table(&ne__sincos8_slot);
  k->sincos8(x, s, c);
}

double ne__pow2_libm(double x) {
  static volatile double two = 2.0;  // GCC would rewrite pow(x, 2.0) as x * x
  return pow(x, two);
}
