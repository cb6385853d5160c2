// SPDX-License-Identifier: MIT
// A list of seed chains in one flat array (offsets + lengths): the GA's population, parents and
// elite live here, so a generation costs a few allocations, not one per genome. Not public API.
#ifndef NEUROEVO_CHAINS_H
#define NEUROEVO_CHAINS_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

typedef struct ne_chains {
  int n;             // number of chains
  int cap_n;         // allocated entries of off/len
  uint64_t* seeds;   // (cap_seeds) all chains back to back
  size_t n_seeds;    // seeds used
  size_t cap_seeds;  // seeds allocated
  size_t* off;       // (cap_n) start of chain i in seeds
  uint32_t* len;     // (cap_n) length of chain i
} ne_chains;

void ne__chains_init(ne_chains* c);
void ne__chains_free(ne_chains* c);
void ne__chains_clear(ne_chains* c);
// Appends prefix[0..n) followed by `extra` seeds from tail (tail may be NULL when extra == 0).
// Returns the new chain's index, or NE_ENOMEM.
int ne__chains_add(ne_chains* c, const uint64_t* prefix, size_t n, const uint64_t* tail, size_t extra);
static inline const uint64_t* ne__chain(const ne_chains* c, int i) { return c->seeds + c->off[i]; }
// Serialization: count, then each chain as length + seeds.
void ne__chains_save(const ne_chains* c, ne_buf* b);
int ne__chains_load(ne_chains* c, ne_reader* r);

#endif
