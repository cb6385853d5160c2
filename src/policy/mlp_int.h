// SPDX-License-Identifier: MIT
// What mlp.c and its vector kernels (mlp_x86.c) share: the kernel table of the dense layers and
// activations (core/simd.h), and the portable pieces the vector tables reuse. Not public API.
#ifndef NEUROEVO_POLICY_MLP_INT_H
#define NEUROEVO_POLICY_MLP_INT_H

#include <string.h>  // memcpy

#include "core/simd.h"
#include "neuroevo/policy.h"

typedef void (*ne__dense_fn)(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                             float* restrict y);
typedef int (*ne__blocks_rows_fn)(const float* restrict x, int n, int in, const float* restrict w,
                                  const float* restrict b, int out, float* restrict y);
typedef void (*ne__activate_fn)(const ne_policy_spec* spec, float* y, int n);
typedef void (*ne__tail_rows_fn)(const float* restrict x, int in, const float* restrict w, const float* restrict b,
                                 int out, int o, float* restrict y);
typedef void (*ne__tanh_rows8_fn)(const float* restrict x, int in, const float* restrict w, const float* restrict b,
                                  int out, float* restrict y);

// An MLP's kernels for one rounding (fused multiply-adds or not): the dense layer, its outputs but
// the last few (batched forwards do those rows together: blocks_rows returns where they start),
// the activation, and those last outputs of 8 rows, of 4 and of one; and, for the float tanh with
// fused multiply-adds on AVX-512, a small output layer (up to 8 outputs) of 8 rows that takes the
// tanh of its inputs on the way. Every entry gives the portable entry's bits: each output sums b,
// x0*w0, x1*w1, ... in that order, the same rounding a term.
typedef struct ne__mlp_kernels {
  ne__dense_fn dense;
  ne__blocks_rows_fn blocks_rows;
  ne__activate_fn activate;
  ne__tail_rows_fn tail_rows8;         // NULL: none
  ne__tail_rows_fn tail_rows4;         // NULL: none
  ne__tail_rows_fn tail_row;           // NULL when blocks_rows leaves no tail
  ne__tanh_rows8_fn tanh_dense_rows8;  // NULL: none
} ne__mlp_kernels;

// One level's table: the kernels by policy.fma (0: separate roundings, 1: fused).
typedef struct ne__mlp_table {
  ne__mlp_kernels by_fma[2];
} ne__mlp_table;

// The tables by level (mlp.c): the portable one, and on x86-64 AVX2 and AVX-512 (mlp_x86.c).
extern ne_simd_slot ne__mlp_slot;
#ifdef NE_SIMD_X86
extern const ne__mlp_table ne__mlp_avx2, ne__mlp_avx512;
#endif

// ---- the portable pieces the vector tables reuse (mlp.c) ----

// The last 1-3 outputs from o of y = b + x W, their addition chains side by side (dense_tail).
void ne__mlp_dense_tail(const float* restrict x, int in, const float* restrict w, const float* restrict b, int out,
                        int o, float* restrict y);

// The same for 4 rows of x (in floats apart) into 4 rows of y (out floats apart).
void ne__mlp_dense_tail_rows4(const float* restrict x, int in, const float* restrict w, const float* restrict b,
                              int out, int o, float* restrict y);

// Four floats as one GNU C vector (gcc and clang; the codebase already relies on GNU attributes).
// Written out explicitly because plain loops vectorize at -O2 but not at -O3, where gcc unrolls the
// short inner loops first; element-wise * and + round exactly like the scalar operations.
typedef float ne__f4 __attribute__((vector_size(16)));

static inline ne__f4 ne__load4(const float* p) {
  ne__f4 v;
  memcpy(&v, p, sizeof v);  // unaligned load
  return v;
}

static inline void ne__store4(float* p, ne__f4 v) { memcpy(p, &v, sizeof v); }

static inline ne__f4 ne__splat4(float x) { return (ne__f4){x, x, x, x}; }

// y[o .. o+4) = b + x W for one block of 4 outputs, products and sums rounded separately.
static inline void ne__mlp_dense_block4(const float* restrict x, int in, const float* restrict w,
                                        const float* restrict b, int out, int o, float* restrict y) {
  ne__f4 a0 = ne__load4(b + o);
  for (int i = 0; i < in; i++) a0 += ne__splat4(x[i]) * ne__load4(w + (size_t)i * (size_t)out + (size_t)o);
  ne__store4(y + o, a0);
}

#endif
