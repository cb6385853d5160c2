// SPDX-License-Identifier: MIT
// Which SIMD kernels the hot loops run (noise generation, MLP forwards, ALE's pixel work): the
// widest level the CPU has, capped by the NEUROEVO_SIMD environment variable (base, avx2 or
// avx512; read once) or by a test. Every level gives the same bits: the kernels differ only in
// vector width, never in the order or rounding of an operation, so the level is a speed knob and
// nothing else (tests run each path and compare). Not for conv.c, which keeps its own selector.
#ifndef NEUROEVO_CORE_CPU_H
#define NEUROEVO_CORE_CPU_H

// SIMD levels, in increasing width.
enum {
  NE_SIMD_BASE = 1,    // the build's baseline: SSE2 on x86-64, portable C elsewhere
  NE_SIMD_AVX2 = 2,    // AVX2 and FMA (256-bit integer and float vectors, fused multiply-add)
  NE_SIMD_AVX512 = 3,  // AVX-512 F + BW + DQ + VL (512-bit vectors)
};

// The level in use: the CPU's widest, capped by NEUROEVO_SIMD and ne__simd_force. Cheap (an atomic
// load once the CPU was probed); thread-safe.
int ne__simd_level(void);

// The widest level the CPU itself supports (NE_SIMD_BASE off x86-64).
int ne__simd_cpu_level(void);

// Caps the level at `level` (0 = no cap but NEUROEVO_SIMD's) for the kernels' next calls and
// returns the level now in use. For tests and benchmarks that compare the paths.
int ne__simd_force(int level);

// "base", "avx2" or "avx512".
const char* ne__simd_name(int level);

#endif
