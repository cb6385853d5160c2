// SPDX-License-Identifier: MIT
// What conv.c and its vector kernels (conv_x86.c) share: the matrix product every conv and dense
// layer of a conv policy is, its kernel written once as a macro that each file stamps out at its
// vector width, and the kernel table (core/simd.h). Not public API.
#ifndef NEUROEVO_POLICY_CONV_INT_H
#define NEUROEVO_POLICY_CONV_INT_H

#include <stddef.h>
#include <string.h>  // memcpy

#include "core/simd.h"

// One layer as Y (rows, F) = b + X W. Row r of X is `nseg` runs of `seg` floats, run i at
// ne__gemm_row_base(r) + i * seg_stride (a conv patch: one run per kernel row; a dense row: one run of K).
typedef struct ne__gemm_job {
  const float* in;    // input of the whole batch
  size_t img_floats;  // floats per observation of the input
  int out_w, out_hw;  // output pixels per row / per observation (1 and 1 for dense layers)
  size_t step_x;      // floats between horizontally adjacent windows (stride * C)
  size_t step_y;      // floats between vertically adjacent windows (stride * W * C)
  int nseg, seg;      // runs per row and floats per run (K = nseg * seg)
  size_t seg_stride;  // floats between runs (W * C)
  const float* w;     // (K, F) weights, row-major
  const float* b;     // (F) biases
  int F;              // output columns
  int rows;           // output rows (batch * out_hw)
  float* y;           // (rows, F) output
} ne__gemm_job;

// Where row r of X starts: observation r / out_hw, window (r % out_hw) in row-major order.
static inline const float* ne__gemm_row_base(const ne__gemm_job* g, int r) {
  int img = r / g->out_hw, q = r % g->out_hw;
  return g->in + (size_t)img * g->img_floats + (size_t)(q / g->out_w) * g->step_y + (size_t)(q % g->out_w) * g->step_x;
}

// The kernel is written once as a macro and stamped out per instruction set with that set's native
// vector width (GNU C vectors: element-wise * and + round exactly like the scalar operations),
// because gcc lowers vectors wider than the target's registers through the stack.
//   NE__GEMM_KERNEL(name, attr, vec, VL, R, NV, SPLAT): vec holds VL floats; R rows x NV vectors of
//   accumulators; SPLAT(x) broadcasts x to all lanes (not x + (vector){0}: that is an add, -0
//   becoming +0, on the add ports the kernel is bound by).
// micro: Y[r0 .. r0+Rn, f0 .. f0+NVn*VL) with the accumulators held across the whole K loop (Rn
// and NVn are constants after inlining, so the loops over them unroll into registers).
// tail: the last F % VL columns, one output at a time in the same k order.
// body: column panels of NV*VL (then VL) outer, so a panel of W stays in cache while every row
// block streams past it; R rows per block, leftover rows one at a time.
#define NE__GEMM_KERNEL(name, attr, vec, VL, R, NV, SPLAT)                                                       \
  typedef float name##_v __attribute__((vector_size(VL * 4)));                                                   \
  attr static inline __attribute__((always_inline)) name##_v name##_load(const float* p) {                       \
    name##_v v;                                                                                                  \
    memcpy(&v, p, sizeof v); /* unaligned load */                                                                \
    return v;                                                                                                    \
  }                                                                                                              \
  attr static inline                                                                                             \
      __attribute__((always_inline)) void name##_micro(const ne__gemm_job* g, int r0, int Rn, int NVn, int f0) { \
    name##_v acc[R][NV];                                                                                         \
    const float* x[R];                                                                                           \
    for (int r = 0; r < Rn; r++) {                                                                               \
      x[r] = ne__gemm_row_base(g, r0 + r);                                                                       \
      for (int v = 0; v < NVn; v++) acc[r][v] = name##_load(g->b + f0 + v * VL);                                 \
    }                                                                                                            \
    const float* wk = g->w + f0;                                                                                 \
    size_t F = (size_t)g->F;                                                                                     \
    for (int i = 0; i < g->nseg; i++) {                                                                          \
      size_t off = (size_t)i * g->seg_stride;                                                                    \
      for (int k = 0; k < g->seg; k++, wk += F) {                                                                \
        name##_v wv[NV];                                                                                         \
        for (int v = 0; v < NVn; v++) wv[v] = name##_load(wk + v * VL);                                          \
        for (int r = 0; r < Rn; r++) {                                                                           \
          name##_v xv = (name##_v)SPLAT(x[r][off + (size_t)k]);                                                  \
          for (int v = 0; v < NVn; v++) acc[r][v] += xv * wv[v];                                                 \
        }                                                                                                        \
      }                                                                                                          \
    }                                                                                                            \
    for (int r = 0; r < Rn; r++)                                                                                 \
      for (int v = 0; v < NVn; v++)                                                                              \
        memcpy(g->y + (size_t)(r0 + r) * F + (size_t)(f0 + v * VL), &acc[r][v], sizeof acc[r][v]);               \
  }                                                                                                              \
  attr static void name(const ne__gemm_job* g) {                                                                 \
    int f0 = 0;                                                                                                  \
    for (; f0 + NV * VL <= g->F; f0 += NV * VL) {                                                                \
      int r = 0;                                                                                                 \
      for (; r + R <= g->rows; r += R) name##_micro(g, r, R, NV, f0);                                            \
      for (; r < g->rows; r++) name##_micro(g, r, 1, NV, f0);                                                    \
    }                                                                                                            \
    for (; f0 + VL <= g->F; f0 += VL) {                                                                          \
      int r = 0;                                                                                                 \
      for (; r + R <= g->rows; r += R) name##_micro(g, r, R, 1, f0);                                             \
      for (; r < g->rows; r++) name##_micro(g, r, 1, 1, f0);                                                     \
    }                                                                                                            \
    if (f0 < g->F) ne__gemm_tail_columns(g, f0);                                                                 \
  }

// The last columns from f0 on, one output at a time in the kernels' k order (conv.c).
void ne__gemm_tail_columns(const ne__gemm_job* g, int f0);

// One level's matrix kernel; every level's gives the portable one's bits.
typedef struct ne__conv_kernels {
  void (*gemm)(const ne__gemm_job* g);  // Y = b + X W for the whole job
} ne__conv_kernels;

// The kernels by level (conv.c): the portable one (4 x 8 blocks: SSE2 on x86-64), and on x86-64
// AVX2 and AVX-512 (conv_x86.c).
extern ne_simd_slot ne__conv_slot;
#ifdef NE_SIMD_X86
extern const ne__conv_kernels ne__conv_avx2, ne__conv_avx512;
#endif

#endif
