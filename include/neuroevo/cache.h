// SPDX-License-Identifier: MIT
// Per-process parameter cache: materialized parameter vectors keyed by chain hash, LRU-evicted
// under a byte budget, shared by all threads (one mutex; the O(P) copies happen outside it). A GA
// child is its cached parent plus one perturbation, O(P), never O(generations * P): materializing a
// chain inserts its parent prefix, so the next generation finds its parents one step away.
#ifndef NEUROEVO_CACHE_H
#define NEUROEVO_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ne_param_cache ne_param_cache;

// Counters since creation; read with ne_cache_get_stats.
typedef struct ne_cache_stats {
  uint64_t hits;       // lookups answered from the cache
  uint64_t misses;     // lookups not found
  uint64_t inserts;    // vectors stored
  uint64_t evictions;  // vectors dropped for the budget
  uint64_t axpys;      // noise perturbations applied while materializing (O(P) each)
  size_t entries;      // vectors held now
  size_t bytes;        // bytes held now
} ne_cache_stats;

// Creates a cache for vectors of n_params floats holding at most budget_bytes of vectors (at least
// one vector is always kept). Caller frees with ne_cache_destroy. NULL on allocation failure.
ne_param_cache* ne_cache_create(size_t n_params, size_t budget_bytes);

// Frees the cache and every vector. Nullable: cache.
void ne_cache_destroy(ne_param_cache* cache);

// Copies the vector stored under key into out; returns 1 if found, 0 if not. Thread-safe.
int ne_cache_lookup(ne_param_cache* cache, uint64_t key, float* out);

// Stores a copy of vec under key (no-op if present). Returns 0 or NE_ENOMEM. Thread-safe.
int ne_cache_insert(ne_param_cache* cache, uint64_t key, const float* vec);

// Writes the parameters of chain seeds[0..n) into out (n_params floats), from the longest cached
// prefix, and caches the parent prefix (seeds[0..n-1)) when it had to be built. Bit-identical to
// ne_genome_materialize. Returns 0 or NE_ENOMEM. Thread-safe. Nullable: cache (plain replay).
int ne_cache_materialize(ne_param_cache* cache, const ne_policy_spec* spec, const uint64_t* seeds, size_t n,
                         float sigma, float* out);

// Copies the counters. Thread-safe.
void ne_cache_get_stats(ne_param_cache* cache, ne_cache_stats* out);

#ifdef __cplusplus
}
#endif
#endif
