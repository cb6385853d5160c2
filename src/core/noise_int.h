// SPDX-License-Identifier: MIT
// What noise.c and its vector kernels (noise_x86.c) share: the block of normals every kernel
// fills, the stages that each kernel inlines at its own vector width, and the kernel table
// (core/simd.h). Not public API.
#ifndef NEUROEVO_CORE_NOISE_INT_H
#define NEUROEVO_CORE_NOISE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/detmath.h"  // the log and sincos kernels of the stages
#include "core/simd.h"

#define NE__NOISE_BLOCK_PAIRS 32                         // Philox counters per block (two AVX-512 vectors)
#define NE__NOISE_BLOCK_OUT (2 * NE__NOISE_BLOCK_PAIRS)  // normals per block

// Philox4x32 constants (Random123): round multipliers and the Weyl key increments
#define NE__PHILOX_M0 0xD2511F53u
#define NE__PHILOX_M1 0xCD9E8D57u
#define NE__PHILOX_W0 0x9E3779B9u
#define NE__PHILOX_W1 0xBB67AE85u

// The per-block intermediate values, one array per quantity so each stage is a plain lane loop.
typedef struct ne__noise_block {
  double v[NE__NOISE_BLOCK_PAIRS];  // u1, then -2 log(u1), then the radius sqrt(-2 log u1)
  double t[NE__NOISE_BLOCK_PAIRS];  // angle in turns, u2 in [0, 1)
  float z[NE__NOISE_BLOCK_OUT];     // the normals of pairs pair0 .. pair0 + NE__NOISE_BLOCK_PAIRS
} ne__noise_block;

// Stage 1b: v = -2 log u1. Inlined into each kernel, so the compiler vectorizes it at that
// kernel's width.
static inline __attribute__((always_inline)) void ne__noise_block_log(ne__noise_block* b) {
  for (int j = 0; j < NE__NOISE_BLOCK_PAIRS; j++) b->v[j] = -2.0 * ne__log_kernel(b->v[j]);
}

// Stage 3: z[2j] = r cos(2 pi t), z[2j+1] = r sin(2 pi t), rounded to float.
static inline __attribute__((always_inline)) void ne__noise_block_polar(ne__noise_block* b) {
  for (int j = 0; j < NE__NOISE_BLOCK_PAIRS; j++) {
    double s, c;
    ne__sincos_turns_kernel(b->t[j], &s, &c);
    b->z[2 * j] = (float)(b->v[j] * c);
    b->z[2 * j + 1] = (float)(b->v[j] * s);
  }
}

// The noise kernels of one level; every level's give the portable ones' bits.
typedef struct ne__noise_kernels {
  // the normals of pairs pair0 .. pair0 + NE__NOISE_BLOCK_PAIRS of seed's stream into b->z
  void (*block)(uint64_t seed, uint64_t pair0, ne__noise_block* b);
  // out[i] = base[i] + coef * z[i], the product rounded to float before the add (out may equal base)
  void (*scaled)(float* out, const float* base, const float* z, size_t n, float coef);
} ne__noise_kernels;

// The portable scaled kernel (noise.c), also the SSE2 table's.
void ne__noise_scaled(float* out, const float* base, const float* z, size_t n, float coef);

// The kernels by level (noise.c): portable C, and on x86-64 SSE2 (the base level there), AVX2 and
// AVX-512 (noise_x86.c).
extern ne_simd_slot ne__noise_slot;
extern const ne__noise_kernels ne__noise_portable;
#ifdef NE_SIMD_X86
extern const ne__noise_kernels ne__noise_sse2, ne__noise_avx2, ne__noise_avx512;
#endif

#endif
