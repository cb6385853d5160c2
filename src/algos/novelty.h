// SPDX-License-Identifier: MIT
// Novelty search's two pieces, shared by GA-NS (ga.c with ga.novelty) and the NS-ES family
// (nses.c): an archive of behaviour characterizations with a bounded size, and k-nearest-neighbour
// novelty (Lehman & Stanley 2011: the mean Euclidean distance from a behaviour to its k nearest
// neighbours among the archive and, for the GA, the current population). Deterministic: distances
// in double, the k nearest found as a multiset (so ties and scan order cannot change them) and
// summed in ascending order; archive insertions and replacements draw from caller-given seeds.
// Not public API.
#ifndef NEUROEVO_ALGOS_NOVELTY_H
#define NEUROEVO_ALGOS_NOVELTY_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "neuroevo/config.h"

// ---- the archive --------------------------------------------------------------------------------

// Behaviours in one flat block, at most `cap` of them. Past cap, reservoir sampling (Vitter's
// algorithm R) keeps a uniform sample of every behaviour ever inserted: the t-th insertion (t >
// cap) replaces a uniformly drawn entry with probability cap / t, else is dropped. Memory is
// bounded by cap * dim floats; the block grows geometrically up to that.
typedef struct ne__archive {
  int dim;           // floats per behaviour
  int cap;           // most behaviours held (novelty.archive_max)
  int n;             // behaviours held
  int alloc;         // entries allocated in data (n <= alloc <= cap)
  uint64_t offered;  // insertions so far (reservoir sampling's t)
  float* data;       // (alloc, dim) row-major
} ne__archive;

// An empty archive of dim-float behaviours holding at most cap. 0, or NE_EINVAL (dim or cap < 1).
// Free with ne__archive_free.
int ne__archive_init(ne__archive* a, int dim, int cap);

// Frees the block. Nullable: a.
void ne__archive_free(ne__archive* a);

// Inserts bc (dim floats); `draw` seeds the reservoir draw once the archive is full (the caller
// derives it from (run seed, generation, index)). 0, or NE_ENOMEM (the archive is unchanged).
int ne__archive_insert(ne__archive* a, const float* bc, uint64_t draw);

// Entry i (i < n).
static inline const float* ne__archive_at(const ne__archive* a, int i) { return a->data + (size_t)i * (size_t)a->dim; }

// Serialization: dim, cap, offered, n, then the behaviours. load checks dim and cap against the
// archive's own (NE_ECORRUPT on a mismatch or truncation; NE_ENOMEM).
void ne__archive_save(const ne__archive* a, ne_buf* b);
int ne__archive_load(ne__archive* a, ne_reader* r);

// ---- k-nearest-neighbour novelty ------------------------------------------------------------

// Scratch for ne__novelty: a max-heap of the k smallest squared distances seen.
typedef struct ne__knn {
  int k;         // neighbours
  int n;         // heap entries in use
  double* heap;  // (k)
} ne__knn;

int ne__knn_init(ne__knn* s, int k);
void ne__knn_free(ne__knn* s);

// The novelty of behaviour q (dim floats): the mean Euclidean distance to its k nearest points
// among the archive's entries and pop[0..n_pop) (pop[j] at pop + j * archive->dim; entry `skip` of
// pop, the query itself, is left out; -1: none). Fewer than k points: the mean over all of them;
// none: 0. Nullable: pop (n_pop 0).
double ne__novelty(ne__knn* s, const float* q, const ne__archive* archive, const float* pop, int n_pop, int skip);

// The k a config asks for: novelty.k, or the paper's default for the algorithm when it is 0
// (Conti et al. 2018: 10 for the ES family; Such et al. 2017: 25 for the GA).
int ne__novelty_k(const ne_config* cfg, int ga);

// A seed for archive draws of (generation, index): decorrelated from every other purpose.
uint64_t ne__novelty_seed(uint64_t run_seed, uint32_t generation, uint64_t index);

#endif
