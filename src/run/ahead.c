// SPDX-License-Identifier: MIT
// The store of results asked ahead (see ahead.h): one entry per candidate, sorted by candidate
// digest and found by binary search; observation sums and behaviours copied into arrays of their
// own. A Deep GA generation keeps ~1,000 entries once per generation: nothing here is hot.
#include "run/ahead.h"

#include <stdlib.h>  // qsort
#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

typedef struct entry {
  uint64_t digest;  // ne_candidate_digest
  ne_result r;      // its result, pointers cleared
  int row;          // its row of sums / bcs (-1: none kept)
} entry;

struct ne__ahead {
  int obs_dim, bc_dim;  // the env's
  entry* entries;       // (cap) n of them, sorted by digest
  int n, cap;
  double* sums;  // (cap * 2 * obs_dim) observation sums and sums of squares, when the batch wanted them
  float* bcs;    // (cap * bc_dim) behaviours, when the batch wanted them
  int with_sums, with_bcs;
};

int ne__ahead_create(int obs_dim, int bc_dim, ne__ahead** out) {
  *out = ne_calloc(1, sizeof **out);
  if (!*out) return NE_ENOMEM;
  (*out)->obs_dim = obs_dim;
  (*out)->bc_dim = bc_dim;
  return 0;
}

void ne__ahead_destroy(ne__ahead* a) {
  if (!a) return;
  ne_free(a->entries);
  ne_free(a->sums);
  ne_free(a->bcs);
  ne_free(a);
}

int ne__ahead_count(const ne__ahead* a) { return a->n; }

static int by_digest(const void* x, const void* y) {
  uint64_t a = ((const entry*)x)->digest, b = ((const entry*)y)->digest;
  return a < b ? -1 : a > b;
}

// Room for n entries and their arrays. 0 or NE_ENOMEM.
static int reserve(ne__ahead* a, int n) {
  if (n <= a->cap) return 0;
  ne_free(a->entries);
  ne_free(a->sums);
  ne_free(a->bcs);
  a->entries = ne_malloc((size_t)n * sizeof *a->entries);
  a->sums = ne_malloc((size_t)n * 2 * (size_t)(a->obs_dim > 0 ? a->obs_dim : 1) * sizeof(double));
  a->bcs = ne_malloc((size_t)n * (size_t)(a->bc_dim > 0 ? a->bc_dim : 1) * sizeof(float));
  a->cap = a->entries && a->sums && a->bcs ? n : 0;
  return a->cap ? 0 : NE_ENOMEM;
}

int ne__ahead_keep(ne__ahead* a, const ne_batch* b, const uint64_t norm_hash[2], const ne_result* results) {
  a->n = 0;
  if (reserve(a, b->n)) return NE_ENOMEM;
  size_t d = (size_t)a->obs_dim, bd = (size_t)a->bc_dim;
  a->with_sums = b->want_obs_stats && d > 0;
  a->with_bcs = b->want_bc && bd > 0;
  for (int i = 0; i < b->n; i++) {
    entry* e = &a->entries[i];
    const ne_result* r = &results[i];
    e->digest = ne_candidate_digest(b, i, norm_hash, a->obs_dim);
    e->r = *r;
    e->r.obs_sum = e->r.obs_sumsq = NULL;
    e->r.bc = NULL;
    e->row = i;
    if (a->with_sums && r->obs_sum && r->obs_sumsq) {
      memcpy(a->sums + (size_t)i * 2 * d, r->obs_sum, d * sizeof(double));
      memcpy(a->sums + (size_t)i * 2 * d + d, r->obs_sumsq, d * sizeof(double));
    }
    if (a->with_bcs && r->bc) memcpy(a->bcs + (size_t)i * bd, r->bc, bd * sizeof(float));
  }
  a->n = b->n;
  qsort(a->entries, (size_t)a->n, sizeof *a->entries, by_digest);
  return 0;
}

// The entry of a digest, or NULL.
static const entry* find(const ne__ahead* a, uint64_t digest) {
  int lo = 0, hi = a->n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (a->entries[mid].digest < digest) lo = mid + 1;
    else hi = mid;
  }
  return lo < a->n && a->entries[lo].digest == digest ? &a->entries[lo] : NULL;
}

int ne__ahead_take(ne__ahead* a, const ne_batch* b, const uint64_t norm_hash[2], ne_result* results, uint8_t* have) {
  int count = 0;
  size_t d = (size_t)a->obs_dim, bd = (size_t)a->bc_dim;
  // a digest covers the batch's settings: kept sums and behaviours are there whenever b wants them
  for (int i = 0; a->n > 0 && i < b->n; i++) {
    if (have[i]) continue;
    const entry* e = find(a, ne_candidate_digest(b, i, norm_hash, a->obs_dim));
    if (!e) continue;
    ne_result* r = &results[i];
    double* sum = r->obs_sum;
    double* sumsq = r->obs_sumsq;
    float* bc = r->bc;
    *r = e->r;
    r->obs_sum = sum, r->obs_sumsq = sumsq, r->bc = bc;
    if (a->with_sums && sum && sumsq) {
      memcpy(sum, a->sums + (size_t)e->row * 2 * d, d * sizeof(double));
      memcpy(sumsq, a->sums + (size_t)e->row * 2 * d + d, d * sizeof(double));
    }
    if (a->with_bcs && bc) memcpy(bc, a->bcs + (size_t)e->row * bd, bd * sizeof(float));
    have[i] = NE__AHEAD_TAKEN;
    count++;
  }
  a->n = 0;
  return count;
}
