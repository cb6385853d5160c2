// SPDX-License-Identifier: MIT
// Counter-based Gaussian noise ε(seed) and the shared noise table (noise.h), plus ne_rng_normal.
// Philox4x32-10 (Salmon et al. 2011) keyed by the 64-bit seed turns pair index k into 128 bits;
// Box–Muller with detmath's log/sin/cos turns them into outputs 2k (r cos) and 2k+1 (r sin). Every
// value depends only on (seed, index), so any split of a range gives the same numbers.
//
// Workload: GA mutations and ES perturbations of 10^3..10^7 floats, millions of times per run. Each
// block of NE__NOISE_BLOCK_PAIRS counters goes through stages over small stack arrays: Philox,
// then log, sqrt and sin/cos as fixed-length lane loops that the compiler vectorizes. This file
// holds the portable block and the kernel table (noise_int.h, core/simd.h); noise_x86.c the SSE2
// (the x86-64 baseline), AVX2 and AVX-512 blocks, with intrinsics for Philox since compilers cannot
// vectorize its 32x32->64 products. No stage reassociates anything and nothing contracts into FMA
// (-ffp-contract=off), so the bits are the same on every path and architecture (tests/test_simd.c
// compares each).
#include "neuroevo/noise.h"

#include <assert.h>
#include <math.h>    // sqrt: IEEE correctly rounded everywhere, so deterministic
#include <string.h>  // memcpy

#include "core/detmath.h"
#include "core/noise_int.h"  // the block, its stages and the kernel table
#include "neuroevo/alloc.h"
#include "neuroevo/rng.h"

#define BLOCK_PAIRS NE__NOISE_BLOCK_PAIRS
#define BLOCK_OUT NE__NOISE_BLOCK_OUT
#define PHILOX_M0 NE__PHILOX_M0
#define PHILOX_M1 NE__PHILOX_M1
#define PHILOX_W0 NE__PHILOX_W0
#define PHILOX_W1 NE__PHILOX_W1

// One scalar Philox round on the words x0..x3 in scope, with round key (k0, k1).
#define PHILOX_ROUND(k0, k1)                          \
  do {                                                \
    uint64_t p0_ = (uint64_t)PHILOX_M0 * x0;          \
    uint64_t p1_ = (uint64_t)PHILOX_M1 * x2;          \
    uint32_t y0_ = (uint32_t)(p1_ >> 32) ^ x1 ^ (k0); \
    uint32_t y2_ = (uint32_t)(p0_ >> 32) ^ x3 ^ (k1); \
    x1 = (uint32_t)p1_;                               \
    x3 = (uint32_t)p0_;                               \
    x0 = y0_;                                         \
    x2 = y2_;                                         \
  } while (0)

void ne__philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
  for (uint32_t r = 0; r < 10; r++) PHILOX_ROUND(key[0] + r * PHILOX_W0, key[1] + r * PHILOX_W1);
  out[0] = x0, out[1] = x1, out[2] = x2, out[3] = x3;
}

// The per-block intermediate values, one array per quantity so each stage is a plain lane loop.

// Stage 1: Philox words of counters pair0 + j (counter = {lo, hi, 0, 0}, key = {lo, hi} of seed),
// turned into 52-bit uniforms u1 in (0, 1] and u2 in [0, 1): 52 random bits under the exponent of
// 1.0 give a double in [1, 2) without an integer conversion. One counter at a time, ten rounds
// written out so the state stays in registers.
static void block_uniforms(uint64_t seed, uint64_t pair0, ne__noise_block* b) {
  uint32_t ks0[10], ks1[10];
  for (uint32_t r = 0; r < 10; r++)
    ks0[r] = (uint32_t)seed + r * PHILOX_W0, ks1[r] = (uint32_t)(seed >> 32) + r * PHILOX_W1;
  uint32_t lo = (uint32_t)pair0, hi = (uint32_t)(pair0 >> 32);
  for (uint32_t j = 0; j < BLOCK_PAIRS; j++) {
    // the 64-bit counter pair0 + j in 32-bit lanes (carry into the high word)
    uint32_t x0 = lo + j, x1 = hi + (x0 < lo), x2 = 0, x3 = 0;
    PHILOX_ROUND(ks0[0], ks1[0]);
    PHILOX_ROUND(ks0[1], ks1[1]);
    PHILOX_ROUND(ks0[2], ks1[2]);
    PHILOX_ROUND(ks0[3], ks1[3]);
    PHILOX_ROUND(ks0[4], ks1[4]);
    PHILOX_ROUND(ks0[5], ks1[5]);
    PHILOX_ROUND(ks0[6], ks1[6]);
    PHILOX_ROUND(ks0[7], ks1[7]);
    PHILOX_ROUND(ks0[8], ks1[8]);
    PHILOX_ROUND(ks0[9], ks1[9]);
    // the 52-bit mantissas (x1 << 32 | x0) >> 12 and (x3 << 32 | x2) >> 12
    uint64_t m1 = ((uint64_t)x1 << 20) | (x0 >> 12);
    uint64_t m2 = ((uint64_t)x3 << 20) | (x2 >> 12);
    b->v[j] = 2.0 - ne__bitsd(m1 | 0x3ff0000000000000ull);  // u1 in (0, 1]: log is finite
    b->t[j] = ne__bitsd(m2 | 0x3ff0000000000000ull) - 1.0;
  }
}

// The normals of pairs pair0 .. pair0 + BLOCK_PAIRS into b->z: uniforms, log, sqrt, polar (the
// stages of noise_int.h).
static void block_generate_portable(uint64_t seed, uint64_t pair0, ne__noise_block* b) {
  block_uniforms(seed, pair0, b);
  ne__noise_block_log(b);
  for (int j = 0; j < BLOCK_PAIRS; j++) b->v[j] = sqrt(b->v[j]);
  ne__noise_block_polar(b);
}

void ne__noise_scaled(float* out, const float* base, const float* z, size_t n, float coef) {
  for (size_t i = 0; i < n; i++) out[i] = base[i] + coef * z[i];
}

const ne__noise_kernels ne__noise_portable = {block_generate_portable, ne__noise_scaled};

// by level: the portable kernels, SSE2 for the x86-64 baseline, AVX2, AVX-512 (noise_x86.c)
ne_simd_slot ne__noise_slot = {
    .name = "noise",
    .portable = &ne__noise_portable,
    .table = {[NE_SIMD_BASE] = NE_X86_OR(&ne__noise_sse2, &ne__noise_portable),
              NE_ON_X86([NE_SIMD_AVX2] = &ne__noise_avx2, [NE_SIMD_AVX512] = &ne__noise_avx512)},
};

static const ne__noise_kernels* kernels(void) { return ne__simd_table(&ne__noise_slot); }

void ne_noise_fill(uint64_t seed, uint64_t offset, size_t n, float* out) {
  void (*block_generate)(uint64_t, uint64_t, ne__noise_block*) = kernels()->block;
  ne__noise_block b;
  // each block starts at the pair holding `offset`; only the first can start on an odd index
  while (n > 0) {
    size_t skip = (size_t)(offset & 1);
    size_t take = BLOCK_OUT - skip < n ? BLOCK_OUT - skip : n;
    block_generate(seed, offset >> 1, &b);
    memcpy(out, b.z + skip, take * sizeof *out);
    out += take, offset += take, n -= take;
  }
}

// out[i] += coef * z[i] for one block's worth; the product is rounded to float before the add.
static void add_scaled(float* out, const float* z, size_t n, float coef) {
  size_t i = 0;
  for (; i + BLOCK_OUT <= n; i += BLOCK_OUT)
    for (int j = 0; j < BLOCK_OUT; j++) out[i + j] += coef * z[i + j];
  for (; i < n; i++) out[i] += coef * z[i];
}

void ne_noise_axpy(uint64_t seed, uint64_t offset, size_t n, float coef, float* out) {
  void (*block_generate)(uint64_t, uint64_t, ne__noise_block*) = kernels()->block;
  ne__noise_block b;
  while (n > 0) {
    size_t skip = (size_t)(offset & 1);
    size_t take = BLOCK_OUT - skip < n ? BLOCK_OUT - skip : n;
    block_generate(seed, offset >> 1, &b);
    add_scaled(out, b.z + skip, take, coef);
    out += take, offset += take, n -= take;
  }
}

double ne_rng_normal(ne_rng* rng) {
  // Box–Muller's cosine branch: u1 in (0, 1] keeps the log finite
  double u1 = 1.0 - ne_rng_uniform(rng);
  double u2 = ne_rng_uniform(rng);
  double s, c;
  ne__sincos_turns(u2, &s, &c);
  return sqrt(-2.0 * ne__log(u1)) * c;
}

ne_noise_table* ne_noise_table_create(uint64_t seed, size_t size) {
  if (size == 0 || size > SIZE_MAX / sizeof(float)) return NULL;
  ne_noise_table* t = ne_malloc(sizeof *t);
  if (!t) return NULL;
  t->data = ne_malloc(size * sizeof(float));
  if (!t->data) {
    ne_free(t);
    return NULL;
  }
  t->seed = seed;
  t->size = size;
  ne_noise_fill(seed, 0, size, t->data);
  return t;
}

size_t ne_noise_table_auto_size(size_t n_params) {
  const size_t lo = (size_t)1 << 16, hi = (size_t)1 << 24;
  size_t want = n_params > hi / 1000 ? hi : n_params * 1000;
  if (want < lo) want = lo;
  if (n_params > SIZE_MAX / 4) return n_params;
  return want > 4 * n_params ? want : 4 * n_params;
}

void ne_noise_table_destroy(ne_noise_table* table) {
  if (!table) return;
  ne_free(table->data);
  ne_free(table);
}

size_t ne_noise_table_offset(const ne_noise_table* table, uint64_t seed, size_t n) {
  // uniform over the size - n + 1 valid starts (modulo bias: starts / 2^64, negligible)
  size_t starts = n <= table->size ? table->size - n + 1 : 1;
  return (size_t)(ne_hash2(seed, table->seed) % starts);
}

// ---- perturbations from either source -------------------------------------------------------

void ne_noise_perturb_axpy(const ne_noise_table* table, uint64_t seed, size_t n, float coef, float* out) {
  if (!table) {
    ne_noise_axpy(seed, 0, n, coef, out);
    return;
  }
  assert(n <= table->size);
  kernels()->scaled(out, out, table->data + ne_noise_table_offset(table, seed, n), n, coef);
}

void ne_noise_perturb(const ne_noise_table* table, uint64_t seed, size_t n, const float* base, float coef, float* out) {
  if (table) {
    assert(n <= table->size);
    kernels()->scaled(out, base, table->data + ne_noise_table_offset(table, seed, n), n, coef);
    return;
  }
  // the generator block by block, each block added to its slice of base straight away
  void (*block_generate)(uint64_t, uint64_t, ne__noise_block*) = kernels()->block;
  ne__noise_block b;
  for (uint64_t offset = 0; offset < n; offset += BLOCK_OUT) {
    size_t take = n - offset < BLOCK_OUT ? (size_t)(n - offset) : BLOCK_OUT;
    block_generate(seed, offset >> 1, &b);
    ne__noise_scaled(out + offset, base + offset, b.z, take, coef);
  }
}
