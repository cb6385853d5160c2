// SPDX-License-Identifier: MIT
// Counter-based Gaussian noise ε(seed): the perturbations of GA mutations and ES samples. The value
// at (seed, i) is a pure function, bit-identical on every machine running the same build: Philox4x32
// gives the bits, Box–Muller with our own log/sin/cos (no libm, no fast-math, no FMA contraction)
// gives the normals. Any split of [offset, offset+n) yields the same numbers.
#ifndef NEUROEVO_NOISE_H
#define NEUROEVO_NOISE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Writes ε(seed)[offset .. offset+n) to out (n floats, standard normal).
void ne_noise_fill(uint64_t seed, uint64_t offset, size_t n, float* out);

// out[i] += coef * ε(seed)[offset + i] for i < n, without a temporary buffer. The product is
// rounded to float before the add, so the result equals fill-then-add exactly.
void ne_noise_axpy(uint64_t seed, uint64_t offset, size_t n, float coef, float* out);

// An OpenAI-ES-style shared noise table (Salimans et al. 2017): `size` floats of ε(seed) built once
// per process and shared read-only by every thread; the perturbation of seed s is the slice that
// starts at ne_noise_table_offset(table, s, n). Trades memory (4 bytes a float) for perturbations
// that cost a read instead of Philox + Box–Muller per parameter.
typedef struct ne_noise_table {
  uint64_t seed;  // seed the table was filled from
  size_t size;    // number of floats
  float* data;    // (size) owned; freed by ne_noise_table_destroy
} ne_noise_table;

// Allocates and fills a table of `size` floats. Caller frees with ne_noise_table_destroy.
// Returns NULL on allocation failure.
ne_noise_table* ne_noise_table_create(uint64_t seed, size_t size);

// The table size (floats) chosen for n parameters when the config says auto (noise_table_mb = 0):
// 1000 floats per parameter, so that two perturbations rarely share a stretch (OpenAI used 250M
// floats for 10^5..10^6 parameters), clamped to [2^16, 2^24] floats (256 KiB..64 MiB: a small policy's
// run should not pay for a large table; filling 64 MiB
// takes 0.05-0.15 s of one core, AVX-512 to baseline), and never less than 4 n.
size_t ne_noise_table_auto_size(size_t n_params);

// Frees the table. Nullable: table.
void ne_noise_table_destroy(ne_noise_table* table);

// Offset into the table for a perturbation seed such that [offset, offset+n) fits; requires n <= size.
// A pure function of (seed, table->seed, table->size, n), uniform over the size - n + 1 starts.
size_t ne_noise_table_offset(const ne_noise_table* table, uint64_t seed, size_t n);

// ---- perturbations from either source -------------------------------------------------------
// The ES family's perturbation e(seed) is ε(seed)[0 .. n) of the generator when table is NULL, or
// table->data[off .. off + n) with off = ne_noise_table_offset(table, seed, n) otherwise (n <= size).
// Workers, the evaluator and the algorithms' gradient estimates all go through these two functions.

// out[i] += coef * e(seed)[i] for i < n (the product rounded to float before the add).
// Nullable: table (the generator).
void ne_noise_perturb_axpy(const ne_noise_table* table, uint64_t seed, size_t n, float coef, float* out);

// out[i] = base[i] + coef * e(seed)[i] for i < n in one pass, bit-identical to copying base to out
// and calling ne_noise_perturb_axpy. out may equal base. Nullable: table (the generator).
void ne_noise_perturb(const ne_noise_table* table, uint64_t seed, size_t n, const float* base, float coef, float* out);

#ifdef __cplusplus
}
#endif
#endif
