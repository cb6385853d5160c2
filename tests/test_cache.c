// SPDX-License-Identifier: MIT
// Tests of the parameter cache (cache.h): materialize == replay bit for bit for chains of length
// 1..50 with random prefixes cached; O(P) cost checked through the axpy counter (a child of a
// cached parent costs exactly one); walking back to the longest cached prefix; LRU eviction under
// a tiny budget; 4 threads hammering one small cache get identical vectors; stats; OOM paths.
#include <pthread.h>

#include "neuroevo/alloc.h"
#include "neuroevo/cache.h"
#include "neuroevo/error.h"
#include "neuroevo/genome.h"
#include "neuroevo/rng.h"
#include "test.h"

static ne_policy_spec small_spec(void) {
  const int h[2] = {16, 16};
  ne_policy_spec s;
  ASSERT_EQ(ne_policy_spec_init(&s, 4, h, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL), 0);
  return s;
}

static float* alloc_floats(size_t n) {
  float* p = malloc(n * sizeof *p);
  ASSERT(p != NULL);
  return p;
}

static ne_cache_stats stats_of(ne_param_cache* c) {
  ne_cache_stats s;
  ne_cache_get_stats(c, &s);
  return s;
}

// Checks cache materialization of seeds[0..n) against replay, bit for bit.
static void assert_matches_replay(ne_param_cache* c, const ne_policy_spec* s, const uint64_t* seeds, size_t n,
                                  float sigma) {
  float *got = alloc_floats(s->n_params), *want = alloc_floats(s->n_params);
  ASSERT_EQ(ne_cache_materialize(c, s, seeds, n, sigma, got), 0);
  ne_genome_materialize(s, seeds, n, sigma, want);
  if (memcmp(got, want, s->n_params * sizeof *got) != 0) TEST_FAIL("chain of %zu seeds differs from replay", n);
  free(got);
  free(want);
}

// ---- correctness ---------------------------------------------------------------------------------

// Chains of length 1..50; for each, a random subset of its prefixes is cached first.
static void test_materialize_equals_replay_with_random_prefixes(void) {
  const int h[2] = {64, 64};
  ne_policy_spec s;
  ASSERT_EQ(ne_policy_spec_init(&s, 4, h, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL), 0);
  ne_rng r;
  ne_rng_seed(&r, 17);
  float* vec = alloc_floats(s.n_params);
  uint64_t seeds[50];
  for (size_t n = 1; n <= 50; n++) {
    ne_param_cache* c = ne_cache_create(s.n_params, 64 * s.n_params * sizeof(float));
    ASSERT(c != NULL);
    for (size_t i = 0; i < n; i++) seeds[i] = ne_rng_u64(&r);
    for (size_t k = 1; k <= n; k++)
      if (ne_rng_below(&r, 4) == 0) {
        ne_genome_materialize(&s, seeds, k, 0.02f, vec);
        ASSERT_EQ(ne_cache_insert(c, ne_chain_hash(&s, seeds, k, 0.02f), vec), 0);
      }
    assert_matches_replay(c, &s, seeds, n, 0.02f);
    assert_matches_replay(c, &s, seeds, n, 0.02f);  // again, now with the parent cached
    ne_cache_destroy(c);
  }
  assert_matches_replay(NULL, &s, seeds, 50, 0.02f);  // no cache: plain replay
  free(vec);
}

// ---- cost accounting -----------------------------------------------------------------------------

static void test_child_of_cached_parent_costs_one_axpy(void) {
  ne_policy_spec s = small_spec();
  ne_param_cache* c = ne_cache_create(s.n_params, 100 * s.n_params * sizeof(float));
  float* out = alloc_floats(s.n_params);
  uint64_t chain[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  // cold: replay 10 seeds of the parent (9 axpys), cache it, then 1 more
  ASSERT_EQ(ne_cache_materialize(c, &s, chain, 11, 0.1f, out), 0);
  ne_cache_stats st = stats_of(c);
  ASSERT_EQ(st.axpys, 10);
  ASSERT_EQ(st.misses, 1);
  ASSERT_EQ(st.inserts, 1);
  // a sibling: parent cached, exactly one axpy
  chain[10] = 999;
  ASSERT_EQ(ne_cache_materialize(c, &s, chain, 11, 0.1f, out), 0);
  ASSERT_EQ(stats_of(c).axpys, 11);
  ASSERT_EQ(stats_of(c).hits, 1);
  ASSERT_EQ(stats_of(c).inserts, 1);
  // a grandchild: its parent (the sibling) is not cached, its grandparent is: 2 axpys, parent cached
  ASSERT_EQ(ne_cache_materialize(c, &s, chain, 12, 0.1f, out), 0);
  ASSERT_EQ(stats_of(c).axpys, 13);
  ASSERT_EQ(stats_of(c).inserts, 2);
  // the full chain cached: a copy, no axpy
  ASSERT_EQ(ne_cache_insert(c, ne_chain_hash(&s, chain, 12, 0.1f), out), 0);
  ASSERT_EQ(ne_cache_materialize(c, &s, chain, 12, 0.1f, out), 0);
  ASSERT_EQ(stats_of(c).axpys, 13);
  assert_matches_replay(c, &s, chain, 12, 0.1f);
  free(out);
  ne_cache_destroy(c);
}

// With only prefix 5 cached, a chain of 40 applies seeds 5..38 to it (34 axpys) plus the last.
static void test_walk_back_to_longest_cached_prefix(void) {
  ne_policy_spec s = small_spec();
  ne_param_cache* c = ne_cache_create(s.n_params, 100 * s.n_params * sizeof(float));
  float* out = alloc_floats(s.n_params);
  uint64_t chain[300];
  for (int i = 0; i < 300; i++) chain[i] = (uint64_t)i * 7919u + 3u;
  ne_genome_materialize(&s, chain, 5, 0.1f, out);
  ASSERT_EQ(ne_cache_insert(c, ne_chain_hash(&s, chain, 5, 0.1f), out), 0);
  ASSERT_EQ(ne_cache_materialize(c, &s, chain, 40, 0.1f, out), 0);
  ASSERT_EQ(stats_of(c).axpys, 35);
  ASSERT_EQ(stats_of(c).hits, 1);
  assert_matches_replay(c, &s, chain, 40, 0.1f);
  // chains longer than the on-stack hash buffer walk back the same way
  ne_genome_materialize(&s, chain, 290, 0.1f, out);
  ASSERT_EQ(ne_cache_insert(c, ne_chain_hash(&s, chain, 290, 0.1f), out), 0);
  uint64_t before = stats_of(c).axpys;
  assert_matches_replay(c, &s, chain, 300, 0.1f);
  ASSERT_EQ(stats_of(c).axpys - before, 10);
  free(out);
  ne_cache_destroy(c);
}

// ---- lookup, insert, eviction --------------------------------------------------------------------

static void test_lookup_insert_and_stats(void) {
  ne_param_cache* c = ne_cache_create(10, 1 << 20);
  float v[10], w[10];
  for (int i = 0; i < 10; i++) v[i] = (float)i;
  ASSERT_EQ(ne_cache_lookup(c, 42, w), 0);
  ASSERT_EQ(ne_cache_insert(c, 42, v), 0);
  ASSERT_EQ(ne_cache_insert(c, 42, v), 0);  // present: no-op
  memset(w, 0, sizeof w);
  ASSERT_EQ(ne_cache_lookup(c, 42, w), 1);
  ASSERT(memcmp(v, w, sizeof v) == 0);
  ne_cache_stats st = stats_of(c);
  ASSERT_EQ(st.hits, 1);
  ASSERT_EQ(st.misses, 1);
  ASSERT_EQ(st.inserts, 1);
  ASSERT_EQ(st.entries, 1);
  ASSERT_EQ(st.bytes, sizeof v);
  // many keys: the table grows and every key stays reachable
  for (uint64_t k = 0; k < 5000; k++) {
    v[0] = (float)k;
    ASSERT_EQ(ne_cache_insert(c, k * 0x9E3779B97F4A7C15ull, v), 0);
  }
  for (uint64_t k = 0; k < 5000; k++) {
    ASSERT_EQ(ne_cache_lookup(c, k * 0x9E3779B97F4A7C15ull, w), 1);
    ASSERT_EQ(w[0], (float)k);
  }
  ASSERT_EQ(stats_of(c).entries, 5001);
  ne_cache_destroy(c);
  ne_cache_destroy(NULL);
  ASSERT(ne_cache_create(0, 100) == NULL);
}

// Budget of two vectors: the least recently used one goes; a budget below one vector keeps one.
static void test_lru_eviction_under_tiny_budget(void) {
  float a[8] = {1}, b[8] = {2}, cv[8] = {3}, out[8];
  ne_param_cache* c = ne_cache_create(8, 2 * sizeof a);
  ASSERT_EQ(ne_cache_insert(c, 1, a), 0);
  ASSERT_EQ(ne_cache_insert(c, 2, b), 0);
  ASSERT_EQ(ne_cache_lookup(c, 1, out), 1);  // 1 is now the most recent
  ASSERT_EQ(ne_cache_insert(c, 3, cv), 0);   // evicts 2
  ASSERT_EQ(ne_cache_lookup(c, 2, out), 0);
  ASSERT_EQ(ne_cache_lookup(c, 1, out), 1);
  ASSERT_EQ(out[0], 1.0f);
  ASSERT_EQ(ne_cache_lookup(c, 3, out), 1);
  ASSERT_EQ(out[0], 3.0f);
  ne_cache_stats st = stats_of(c);
  ASSERT_EQ(st.evictions, 1);
  ASSERT_EQ(st.entries, 2);
  ASSERT_EQ(st.bytes, 2 * sizeof a);
  ne_cache_destroy(c);
  // budget 1 byte: one vector is always kept, the newest
  c = ne_cache_create(8, 1);
  ASSERT_EQ(ne_cache_insert(c, 1, a), 0);
  ASSERT_EQ(ne_cache_insert(c, 2, b), 0);
  ASSERT_EQ(ne_cache_lookup(c, 1, out), 0);
  ASSERT_EQ(ne_cache_lookup(c, 2, out), 1);
  ASSERT_EQ(stats_of(c).entries, 1);
  // materializing with room for one vector still matches replay
  ne_cache_destroy(c);
  ne_policy_spec s = small_spec();
  c = ne_cache_create(s.n_params, 1);
  uint64_t chain[6] = {6, 5, 4, 3, 2, 1};
  for (size_t n = 1; n <= 6; n++) assert_matches_replay(c, &s, chain, n, 0.3f);
  ne_cache_destroy(c);
}

// A cache whose vectors do not match the policy refuses; allocation failures still give the
// right vector (caching is best effort) and leak nothing.
static void test_mismatch_and_allocation_failure(void) {
  ne_policy_spec s = small_spec();
  ne_param_cache* c = ne_cache_create(s.n_params + 1, 1 << 20);
  float* out = alloc_floats(s.n_params + 1);
  uint64_t chain[4] = {1, 2, 3, 4};
  ASSERT_EQ(ne_cache_materialize(c, &s, chain, 4, 0.1f, out), NE_EINVAL);
  ne_cache_destroy(c);
  c = ne_cache_create(s.n_params, 1 << 20);
  ne_alloc_fail_after(0);
  assert_matches_replay(c, &s, chain, 4, 0.1f);
  ASSERT(ne_cache_create(10, 100) == NULL);
  ne_alloc_fail_after(-1);
  ASSERT_EQ(stats_of(c).entries, 0);
  free(out);
  ne_cache_destroy(c);
}

// ---- threads -------------------------------------------------------------------------------------

#define POP 12
#define GENS 6
#define THREADS 4

// A GA-like family: generation g has POP chains of length g + 1, each a random parent plus a seed.
typedef struct family {
  ne_policy_spec spec;
  uint64_t chains[GENS][POP][GENS];
  float* want[GENS][POP];  // replay result of each chain
  ne_param_cache* cache;
} family;

typedef struct worker {
  family* fam;
  int id;
  int mismatches;
} worker;

static void* hammer(void* arg) {
  worker* w = arg;
  family* f = w->fam;
  float* out = alloc_floats(f->spec.n_params);
  ne_rng r;
  ne_rng_seed(&r, (uint64_t)w->id);
  // each thread visits every chain several times in its own random order
  for (int round = 0; round < 3 * GENS * POP; round++) {
    int g = (int)ne_rng_below(&r, GENS), i = (int)ne_rng_below(&r, POP);
    if (ne_cache_materialize(f->cache, &f->spec, f->chains[g][i], (size_t)g + 1, 0.05f, out) != 0 ||
        memcmp(out, f->want[g][i], f->spec.n_params * sizeof *out) != 0)
      w->mismatches++;
  }
  free(out);
  return NULL;
}

static void test_four_threads_hammering_get_identical_vectors(void) {
  static family f;
  const int h[2] = {64, 64};
  ASSERT_EQ(ne_policy_spec_init(&f.spec, 8, h, 2, 4, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL), 0);
  ne_rng r;
  ne_rng_seed(&r, 4);
  for (int g = 0; g < GENS; g++)
    for (int i = 0; i < POP; i++) {
      if (g > 0) memcpy(f.chains[g][i], f.chains[g - 1][ne_rng_below(&r, POP)], (size_t)g * sizeof(uint64_t));
      f.chains[g][i][g] = ne_rng_u64(&r);
      f.want[g][i] = alloc_floats(f.spec.n_params);
      ne_genome_materialize(&f.spec, f.chains[g][i], (size_t)g + 1, 0.05f, f.want[g][i]);
    }
  // room for 5 vectors: constant eviction, often of entries another thread is copying
  f.cache = ne_cache_create(f.spec.n_params, 5 * f.spec.n_params * sizeof(float));
  pthread_t tid[THREADS];
  worker w[THREADS];
  for (int t = 0; t < THREADS; t++) {
    w[t] = (worker){&f, t, 0};
    ASSERT_EQ(pthread_create(&tid[t], NULL, hammer, &w[t]), 0);
  }
  for (int t = 0; t < THREADS; t++) {
    pthread_join(tid[t], NULL);
    ASSERT_EQ(w[t].mismatches, 0);
  }
  ne_cache_stats st = stats_of(f.cache);
  ASSERT_EQ(st.hits + st.misses, (uint64_t)THREADS * 3 * GENS * POP);
  ASSERT_LE(st.entries, 5);
  ASSERT_GT(st.evictions, 0);
  ne_cache_destroy(f.cache);
  for (int g = 0; g < GENS; g++)
    for (int i = 0; i < POP; i++) free(f.want[g][i]);
}

TEST_MAIN(TEST_ENTRY(test_materialize_equals_replay_with_random_prefixes),
          TEST_ENTRY(test_child_of_cached_parent_costs_one_axpy), TEST_ENTRY(test_walk_back_to_longest_cached_prefix),
          TEST_ENTRY(test_lookup_insert_and_stats), TEST_ENTRY(test_lru_eviction_under_tiny_budget),
          TEST_ENTRY(test_mismatch_and_allocation_failure),
          TEST_ENTRY(test_four_threads_hammering_get_identical_vectors))
