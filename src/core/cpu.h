// SPDX-License-Identifier: MIT
// Which SIMD kernels the hot loops run (noise generation, MLP and conv forwards, classic control's
// lanes, ALE's pixel work): the widest level the CPU has, capped by the NEUROEVO_SIMD environment
// variable (base, avx2 or avx512; read once) or by a test. Every level gives the same bits: the
// kernels differ only in vector width, never in the order or rounding of an operation, so the
// level is a speed knob and nothing else (tests run each path and compare). Modules pick their
// kernels through core/simd.h's slots, which follow this level.
#ifndef NEUROEVO_CORE_CPU_H
#define NEUROEVO_CORE_CPU_H

// SIMD levels, in increasing width.
enum {
  NE_SIMD_BASE = 1,    // the build's baseline: SSE2 on x86-64, portable C elsewhere
  NE_SIMD_AVX2 = 2,    // AVX2 and FMA (256-bit integer and float vectors, fused multiply-add)
  NE_SIMD_AVX512 = 3,  // AVX-512 F + BW + DQ + VL (512-bit vectors)
};

// Extensions beyond a level that some kernels need (bits of ne__simd_cpu_extras).
enum {
  NE_SIMD_EXTRA_VBMI = 1,  // AVX-512 VBMI (byte permutes: ALE's palette lookup)
};

// The level in use: the CPU's widest, capped by NEUROEVO_SIMD and ne__simd_force. Cheap (an atomic
// load once the CPU was probed); thread-safe.
int ne__simd_level(void);

// The widest level the CPU itself supports (NE_SIMD_BASE off x86-64).
int ne__simd_cpu_level(void);

// The NE_SIMD_EXTRA_* bits the CPU has (0 off x86-64).
int ne__simd_cpu_extras(void);

// Caps the level at `level` (0 = no cap but NEUROEVO_SIMD's) and chooses every module's kernels
// again (core/simd.h), for their next calls; returns the level now in use. For tests and
// benchmarks that compare the paths; not while other threads run kernels.
int ne__simd_force(int level);

// "base", "avx2" or "avx512".
const char* ne__simd_name(int level);

#endif
