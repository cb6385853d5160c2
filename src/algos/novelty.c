// SPDX-License-Identifier: MIT
// The behaviour archive and k-nearest-neighbour novelty (novelty.h), after Lehman & Stanley 2011
// ("Abandoning objectives: evolution through the search for novelty alone"): novelty is the mean
// distance to the k nearest behaviours seen. Brute force: one pass over the archive (and
// population) per query with a k-entry max-heap of squared distances, O(N d + N log k) a query and
// no allocation per query; `make bench` (bench/micro/bench_novelty.c) measures it against the archive
// size. A spatial index would pay off only for low-dimensional behaviours and archives of 10^5+,
// which novelty.archive_max keeps away by default.
#include "algos/novelty.h"

#include <math.h>
#include <stdlib.h>  // qsort
#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/rng.h"

#define ARCHIVE_MAGIC 0x31524341u        // "ACR1"
#define ARCHIVE_TAG 0x61726368697665ull  // decorrelates archive draws from other NE_PURPOSE_ALGO uses

// ---- the archive --------------------------------------------------------------------------------

int ne__archive_init(ne__archive* a, int dim, int cap) {
  memset(a, 0, sizeof *a);
  if (dim < 1 || cap < 1) return NE_EINVAL;
  a->dim = dim;
  a->cap = cap;
  return 0;
}

void ne__archive_free(ne__archive* a) {
  if (!a) return;
  ne_free(a->data);
  a->data = NULL;
  a->n = a->alloc = 0;
}

// room for `need` entries (need <= cap): doubling, at least 64, at most cap
static int reserve(ne__archive* a, int need) {
  if (need <= a->alloc) return 0;
  int grown = a->alloc ? a->alloc : 64;
  while (grown < need) grown = grown > a->cap / 2 ? a->cap : 2 * grown;
  if (grown > a->cap) grown = a->cap;
  float* data = ne_realloc(a->data, (size_t)grown * (size_t)a->dim * sizeof(float));
  if (!data) return NE_ENOMEM;
  a->data = data;
  a->alloc = grown;
  return 0;
}

int ne__archive_insert(ne__archive* a, const float* bc, uint64_t draw) {
  size_t row = (size_t)a->dim * sizeof(float);
  if (a->n < a->cap) {
    if (reserve(a, a->n + 1)) return NE_ENOMEM;
    memcpy(a->data + (size_t)a->n * (size_t)a->dim, bc, row);
    a->n++;
    a->offered++;
    return 0;
  }
  // full: the t-th behaviour replaces entry j ~ U[0, t) when j < cap (Vitter's algorithm R)
  a->offered++;
  ne_rng rng;
  ne_rng_seed(&rng, draw);
  uint64_t j = ne_rng_below(&rng, a->offered);
  if (j < (uint64_t)a->cap) memcpy(a->data + (size_t)j * (size_t)a->dim, bc, row);
  return 0;
}

void ne__archive_save(const ne__archive* a, ne_buf* b) {
  ne__buf_u32(b, ARCHIVE_MAGIC);
  ne__buf_u32(b, (uint32_t)a->dim);
  ne__buf_u32(b, (uint32_t)a->cap);
  ne__buf_u64(b, a->offered);
  ne__buf_u32(b, (uint32_t)a->n);
  ne__buf_f32s(b, a->data, (size_t)a->n * (size_t)a->dim);
}

int ne__archive_load(ne__archive* a, ne_reader* r) {
  uint32_t magic = ne__reader_u32(r), dim = ne__reader_u32(r), cap = ne__reader_u32(r);
  uint64_t offered = ne__reader_u64(r);
  uint32_t n = ne__reader_u32(r);
  if (r->bad || magic != ARCHIVE_MAGIC || dim != (uint32_t)a->dim || cap != (uint32_t)a->cap || n > cap ||
      offered < n || (size_t)n * dim > ne__reader_left(r) / sizeof(float))
    return NE_ECORRUPT;
  if (reserve(a, (int)n)) return NE_ENOMEM;
  ne__reader_f32s(r, a->data, (size_t)n * dim);
  a->n = (int)n;
  a->offered = offered;
  // a successful evaluation's behaviour is finite (the wire and the evaluator see to it)
  for (size_t i = 0; i < (size_t)n * dim; i++)
    if (!isfinite(a->data[i])) return NE_ECORRUPT;
  return r->bad ? NE_ECORRUPT : 0;
}

// ---- k-nearest-neighbour novelty ------------------------------------------------------------

int ne__knn_init(ne__knn* s, int k) {
  s->k = k;
  s->n = 0;
  s->heap = ne_malloc((size_t)(k > 0 ? k : 1) * sizeof(double));
  return s->heap ? 0 : NE_ENOMEM;
}

void ne__knn_free(ne__knn* s) {
  if (!s) return;
  ne_free(s->heap);
  s->heap = NULL;
}

// squared Euclidean distance in double: four partial sums over components i mod 4, then added in
// a fixed order (independent chains for long behaviours such as Atari's 128 bytes of RAM)
static inline double dist2(const float* a, const float* b, int dim) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = 0;
  for (; i + 4 <= dim; i += 4) {
    double d0 = (double)a[i] - (double)b[i], d1 = (double)a[i + 1] - (double)b[i + 1];
    double d2 = (double)a[i + 2] - (double)b[i + 2], d3 = (double)a[i + 3] - (double)b[i + 3];
    s0 += d0 * d0, s1 += d1 * d1, s2 += d2 * d2, s3 += d3 * d3;
  }
  for (; i < dim; i++) {
    double d = (double)a[i] - (double)b[i];
    s0 += d * d;
  }
  return (s0 + s1) + (s2 + s3);
}

// keeps the k smallest distances: a max-heap whose root is the largest kept
static void heap_offer(ne__knn* s, double d2) {
  double* h = s->heap;
  if (s->n < s->k) {
    int i = s->n++;
    while (i > 0 && h[(i - 1) / 2] < d2) h[i] = h[(i - 1) / 2], i = (i - 1) / 2;  // sift up
    h[i] = d2;
    return;
  }
  if (!(d2 < h[0])) return;
  int i = 0;
  for (;;) {  // sift the new value down from the root
    int c = 2 * i + 1;
    if (c >= s->n) break;
    if (c + 1 < s->n && h[c + 1] > h[c]) c++;
    if (!(h[c] > d2)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = d2;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

double ne__novelty(ne__knn* s, const float* q, const ne__archive* archive, const float* pop, int n_pop, int skip) {
  s->n = 0;
  if (s->k < 1) return 0;
  int dim = archive->dim;
  for (int i = 0; i < archive->n; i++) heap_offer(s, dist2(q, ne__archive_at(archive, i), dim));
  for (int j = 0; pop && j < n_pop; j++)
    if (j != skip) heap_offer(s, dist2(q, pop + (size_t)j * (size_t)dim, dim));
  if (s->n == 0) return 0;
  // the k smallest as a sorted multiset, so the sum has one order whatever the scan order was
  qsort(s->heap, (size_t)s->n, sizeof(double), cmp_double);
  double sum = 0;
  for (int i = 0; i < s->n; i++) sum += sqrt(s->heap[i]);
  return sum / (double)s->n;
}

int ne__novelty_k(const ne_config* cfg, int ga) {
  int k = (int)ne_config_int(cfg, "novelty", "k");
  return k > 0 ? k : (ga ? 25 : 10);
}

uint64_t ne__novelty_seed(uint64_t run_seed, uint32_t generation, uint64_t index) {
  return ne_hash2(ne_seed_derive(run_seed, generation, index, NE_PURPOSE_ALGO), ARCHIVE_TAG);
}
