// SPDX-License-Identifier: MIT
// The per-process parameter cache (cache.h): a chained hash map from chain hash to vector, an
// intrusive LRU list, a byte budget and one mutex. O(P) copies run outside the lock: a reader pins
// the entry (refcount) while it copies, and an entry evicted while pinned is unlinked at once but
// freed by its last reader. Inserts allocate and fill the new entry before taking the lock.
//
// Workload: one lookup (usually of a GA child's parent) per candidate evaluation, from every pool
// thread. Two threads that miss on the same parent both build it; the second insert is a no-op.
// Counters: `hits` counts lookups and materializations served from a cached vector (the full chain
// or any prefix), `misses` lookups not found and materializations replayed from the init seed.
#include "neuroevo/cache.h"

#include <pthread.h>
#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/genome.h"
#include "neuroevo/noise.h"

#define MIN_BUCKETS 64
#define STACK_HASHES 256  // prefix hashes kept on the stack when walking back a chain

// One cached vector; header and floats in a single allocation.
typedef struct entry {
  uint64_t key;                  // chain hash
  struct entry* next_in_bucket;  // hash chain
  struct entry* newer;           // LRU neighbours (head = most recently used)
  struct entry* older;
  int pins;     // readers copying out of vec right now
  int evicted;  // unlinked while pinned: the last reader frees it
  float vec[];  // (n_params)
} entry;

struct ne_param_cache {
  pthread_mutex_t mu;    // guards everything below except n_params and vec_bytes
  size_t n_params;       // floats per vector
  size_t vec_bytes;      // n_params * sizeof(float)
  size_t max_entries;    // budget / vec_bytes, at least 1
  entry** buckets;       // (n_buckets) hash chains
  size_t n_buckets;      // power of two
  entry* newest;         // LRU head
  entry* oldest;         // LRU tail
  ne_cache_stats stats;  // counters; entries and bytes kept current
};

// ---- map and list (caller holds the lock) --------------------------------------------------------

// a chain hash's last step is a multiply, whose high bits are its best mixed: fold them down
static size_t bucket_index(uint64_t key, size_t n_buckets) { return (size_t)(key ^ (key >> 32)) & (n_buckets - 1); }

static entry** bucket_of(ne_param_cache* c, uint64_t key) { return &c->buckets[bucket_index(key, c->n_buckets)]; }

static entry* find(ne_param_cache* c, uint64_t key) {
  entry* e = *bucket_of(c, key);
  while (e && e->key != key) e = e->next_in_bucket;
  return e;
}

static void lru_unlink(ne_param_cache* c, entry* e) {
  if (e->newer) e->newer->older = e->older;
  else c->newest = e->older;
  if (e->older) e->older->newer = e->newer;
  else c->oldest = e->newer;
  e->newer = e->older = NULL;
}

static void lru_push_newest(ne_param_cache* c, entry* e) {
  e->older = c->newest;
  e->newer = NULL;
  if (c->newest) c->newest->newer = e;
  c->newest = e;
  if (!c->oldest) c->oldest = e;
}

static void touch(ne_param_cache* c, entry* e) {
  if (c->newest == e) return;
  lru_unlink(c, e);
  lru_push_newest(c, e);
}

// Doubles the bucket array when the load passes 1; on allocation failure chains just get longer.
static void maybe_grow(ne_param_cache* c) {
  if (c->stats.entries < c->n_buckets) return;
  size_t nb = c->n_buckets * 2;
  entry** b = ne_calloc(nb, sizeof *b);
  if (!b) return;
  for (size_t i = 0; i < c->n_buckets; i++)
    for (entry *e = c->buckets[i], *next; e; e = next) {
      next = e->next_in_bucket;
      e->next_in_bucket = b[bucket_index(e->key, nb)];
      b[bucket_index(e->key, nb)] = e;
    }
  ne_free(c->buckets);
  c->buckets = b;
  c->n_buckets = nb;
}

static void map_insert(ne_param_cache* c, entry* e) {
  entry** b = bucket_of(c, e->key);
  e->next_in_bucket = *b;
  *b = e;
  lru_push_newest(c, e);
  c->stats.entries++;
  c->stats.bytes += c->vec_bytes;
  c->stats.inserts++;
  maybe_grow(c);
}

static void map_remove(ne_param_cache* c, entry* e) {
  entry** p = bucket_of(c, e->key);
  while (*p != e) p = &(*p)->next_in_bucket;
  *p = e->next_in_bucket;
  lru_unlink(c, e);
  c->stats.entries--;
  c->stats.bytes -= c->vec_bytes;
}

// Evicts least recently used entries down to the budget. Unpinned victims are chained through
// next_in_bucket into *to_free for the caller to release after unlocking; pinned ones are marked.
static void evict_to_budget(ne_param_cache* c, entry** to_free) {
  while (c->stats.entries > c->max_entries) {
    entry* v = c->oldest;
    map_remove(c, v);
    c->stats.evictions++;
    if (v->pins > 0) {
      v->evicted = 1;
      continue;
    }
    v->next_in_bucket = *to_free;
    *to_free = v;
  }
}

static void free_list(entry* e) {
  for (entry* next; e; e = next) {
    next = e->next_in_bucket;
    ne_free(e);
  }
}

// ---- pinned access -------------------------------------------------------------------------------

// Finds key, pins and touches it; NULL if absent. Counts nothing.
static entry* pin(ne_param_cache* c, uint64_t key) {
  pthread_mutex_lock(&c->mu);
  entry* e = find(c, key);
  if (e) {
    e->pins++;
    touch(c, e);
  }
  pthread_mutex_unlock(&c->mu);
  return e;
}

// Releases a pin; frees the entry if it was evicted meanwhile and this was its last reader.
static void unpin(ne_param_cache* c, entry* e) {
  pthread_mutex_lock(&c->mu);
  int dead = --e->pins == 0 && e->evicted;
  pthread_mutex_unlock(&c->mu);
  if (dead) ne_free(e);
}

// Copies a pinned entry's vector into out (no lock held), then unpins.
static void copy_out(ne_param_cache* c, entry* e, float* out) {
  memcpy(out, e->vec, c->vec_bytes);
  unpin(c, e);
}

static void count(ne_param_cache* c, uint64_t* counter, uint64_t by) {
  pthread_mutex_lock(&c->mu);
  *counter += by;
  pthread_mutex_unlock(&c->mu);
}

// ---- public --------------------------------------------------------------------------------------

ne_param_cache* ne_cache_create(size_t n_params, size_t budget_bytes) {
  if (n_params == 0 || n_params > (SIZE_MAX - sizeof(entry)) / sizeof(float)) return NULL;
  ne_param_cache* c = ne_calloc(1, sizeof *c);
  if (!c) return NULL;
  c->n_params = n_params;
  c->vec_bytes = n_params * sizeof(float);
  c->max_entries = budget_bytes / c->vec_bytes ? budget_bytes / c->vec_bytes : 1;
  c->n_buckets = MIN_BUCKETS;
  c->buckets = ne_calloc(c->n_buckets, sizeof *c->buckets);
  if (!c->buckets || pthread_mutex_init(&c->mu, NULL) != 0) {
    ne_free(c->buckets);
    ne_free(c);
    return NULL;
  }
  return c;
}

void ne_cache_destroy(ne_param_cache* cache) {
  if (!cache) return;
  // every entry is on the LRU list (pinned-and-evicted ones cannot exist once readers are gone)
  for (entry *e = cache->newest, *next; e; e = next) {
    next = e->older;
    ne_free(e);
  }
  pthread_mutex_destroy(&cache->mu);
  ne_free(cache->buckets);
  ne_free(cache);
}

int ne_cache_lookup(ne_param_cache* cache, uint64_t key, float* out) {
  entry* e = pin(cache, key);
  count(cache, e ? &cache->stats.hits : &cache->stats.misses, 1);
  if (e) copy_out(cache, e, out);
  return e != NULL;
}

int ne_cache_insert(ne_param_cache* cache, uint64_t key, const float* vec) {
  // cheap check first, so a present key costs no allocation or copy
  pthread_mutex_lock(&cache->mu);
  entry* old = find(cache, key);
  if (old) touch(cache, old);
  pthread_mutex_unlock(&cache->mu);
  if (old) return 0;
  // build the entry outside the lock
  entry* e = ne_malloc(sizeof *e + cache->vec_bytes);
  if (!e) return NE_ENOMEM;
  memset(e, 0, sizeof *e);
  e->key = key;
  memcpy(e->vec, vec, cache->vec_bytes);
  // link it unless another thread won the race, then trim to the budget
  entry* to_free = NULL;
  pthread_mutex_lock(&cache->mu);
  if (find(cache, key)) {
    e->next_in_bucket = to_free;
    to_free = e;
  } else {
    map_insert(cache, e);
    evict_to_budget(cache, &to_free);
  }
  pthread_mutex_unlock(&cache->mu);
  free_list(to_free);
  return 0;
}

// Applies seeds[from .. to) to out with coefficient sigma; counts the axpys.
static void apply_seeds(ne_param_cache* c, const uint64_t* seeds, size_t from, size_t to, float sigma, float* out) {
  for (size_t i = from; i < to; i++) ne_noise_axpy(seeds[i], 0, c->n_params, sigma, out);
  if (to > from) count(c, &c->stats.axpys, to - from);
}

// Writes the parent prefix seeds[0..n-1) into out from the longest cached prefix shorter than
// n - 1 (or from init), walking back over the prefix hashes. n >= 2. Returns 1 if a cached
// prefix was used, 0 if it replayed from the init seed.
static int build_parent(ne_param_cache* c, const ne_policy_spec* spec, const uint64_t* seeds, size_t n, float sigma,
                        float* out) {
  // hashes[k] = hash of seeds[0..k) for k = 1 .. n-2
  uint64_t stack_hashes[STACK_HASHES];
  uint64_t* hashes = n <= STACK_HASHES ? stack_hashes : ne_malloc(n * sizeof *hashes);
  entry* e = NULL;
  size_t k = 0;
  if (hashes) {
    for (size_t i = 1; i + 1 < n; i++)
      hashes[i] = i == 1 ? ne_chain_root(spec, seeds[0]) : ne_chain_extend(hashes[i - 1], sigma, seeds[i - 1]);
    for (k = n - 2; k >= 1 && !(e = pin(c, hashes[k])); k--) {
    }
  }
  // without memory for the hashes, replay from init: slower, same result
  if (hashes != stack_hashes) ne_free(hashes);
  if (e) {
    copy_out(c, e, out);
  } else {
    ne_policy_init_params(spec, seeds[0], out);
    k = 1;
  }
  apply_seeds(c, seeds, k, n - 1, sigma, out);
  return e != NULL;
}

int ne_cache_materialize(ne_param_cache* cache, const ne_policy_spec* spec, const uint64_t* seeds, size_t n,
                         float sigma, float* out) {
  if (!cache || n == 0) {
    ne_genome_materialize(spec, seeds, n, sigma, out);
    return 0;
  }
  if (spec->n_params != cache->n_params) return NE_EINVAL;
  // hashes of the full chain and of its parent prefix, in one pass
  uint64_t full = ne_chain_root(spec, seeds[0]), parent = 0;
  for (size_t i = 1; i < n; i++) parent = full, full = ne_chain_extend(full, sigma, seeds[i]);
  // the chain itself (nothing to apply), else its parent plus one perturbation
  size_t applied = n;
  entry* e = pin(cache, full);
  if (!e && n >= 2 && (e = pin(cache, parent)) != NULL) applied = n - 1;
  if (e) {
    copy_out(cache, e, out);
    count(cache, &cache->stats.hits, 1);
    apply_seeds(cache, seeds, applied, n, sigma, out);
    return 0;
  }
  if (n == 1) {
    ne_policy_init_params(spec, seeds[0], out);
    count(cache, &cache->stats.misses, 1);
    return 0;
  }
  // build the parent from the longest cached prefix, keep it for the siblings, add the last seed
  int from_cache = build_parent(cache, spec, seeds, n, sigma, out);
  count(cache, from_cache ? &cache->stats.hits : &cache->stats.misses, 1);
  ne_cache_insert(cache, parent, out);  // best effort: without memory the result is still right
  apply_seeds(cache, seeds, n - 1, n, sigma, out);
  return 0;
}

void ne_cache_get_stats(ne_param_cache* cache, ne_cache_stats* out) {
  pthread_mutex_lock(&cache->mu);
  *out = cache->stats;
  pthread_mutex_unlock(&cache->mu);
}
