// SPDX-License-Identifier: MIT
// Flat storage for lists of seed chains (see chains.h). Growth doubles, so building a population of
// N chains of length L costs O(N*L) copies and O(log) allocations.
#include "algos/chains.h"

#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

void ne__chains_init(ne_chains* c) { memset(c, 0, sizeof *c); }

void ne__chains_free(ne_chains* c) {
  ne_free(c->seeds);
  ne_free(c->off);
  ne_free(c->len);
  ne__chains_init(c);
}

void ne__chains_clear(ne_chains* c) {
  c->n = 0;
  c->n_seeds = 0;
}

static int reserve(ne_chains* c, size_t more_seeds) {
  if (c->n == c->cap_n) {
    int cap = c->cap_n ? 2 * c->cap_n : 64;
    size_t* off = ne_realloc(c->off, (size_t)cap * sizeof *off);
    if (!off) return NE_ENOMEM;
    c->off = off;
    uint32_t* len = ne_realloc(c->len, (size_t)cap * sizeof *len);
    if (!len) return NE_ENOMEM;
    c->len = len;
    c->cap_n = cap;
  }
  if (c->n_seeds + more_seeds > c->cap_seeds) {
    size_t cap = c->cap_seeds ? c->cap_seeds : 256;
    while (cap < c->n_seeds + more_seeds) cap *= 2;
    uint64_t* seeds = ne_realloc(c->seeds, cap * sizeof *seeds);
    if (!seeds) return NE_ENOMEM;
    c->seeds = seeds;
    c->cap_seeds = cap;
  }
  return 0;
}

int ne__chains_add(ne_chains* c, const uint64_t* prefix, size_t n, const uint64_t* tail, size_t extra) {
  if (reserve(c, n + extra) != 0) return NE_ENOMEM;
  uint64_t* dst = c->seeds + c->n_seeds;
  // prefix may point into c->seeds itself: reserve() above may have moved it, so callers pass
  // chains from another list (parents -> population), never from the list being appended to
  memcpy(dst, prefix, n * sizeof *dst);
  if (extra) memcpy(dst + n, tail, extra * sizeof *dst);
  c->off[c->n] = c->n_seeds;
  c->len[c->n] = (uint32_t)(n + extra);
  c->n_seeds += n + extra;
  return c->n++;
}

void ne__chains_save(const ne_chains* c, ne_buf* b) {
  ne__buf_u32(b, (uint32_t)c->n);
  for (int i = 0; i < c->n; i++) {
    ne__buf_u32(b, c->len[i]);
    ne__buf_u64s(b, ne__chain(c, i), c->len[i]);
  }
}

int ne__chains_load(ne_chains* c, ne_reader* r) {
  ne__chains_clear(c);
  uint32_t n = ne__reader_u32(r);
  for (uint32_t i = 0; i < n && !r->bad; i++) {
    uint32_t len = ne__reader_u32(r);
    if ((uint64_t)len * 8 > ne__reader_left(r)) return NE_ECORRUPT;
    if (reserve(c, len) != 0) return NE_ENOMEM;
    ne__reader_u64s(r, c->seeds + c->n_seeds, len);
    c->off[c->n] = c->n_seeds;
    c->len[c->n] = len;
    c->n_seeds += len;
    c->n++;
  }
  return r->bad ? NE_ECORRUPT : 0;
}
