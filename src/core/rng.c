// SPDX-License-Identifier: MIT
// Seed derivation and the counter-based stream used for env resets and algorithm draws. The stream
// is splitmix64 (Steele et al. 2014) started from a mixed key: the n-th word is mix(key' + n*gamma),
// a pure function of (key, n), so streams can be copied, skipped and reproduced anywhere.
// ne_rng_normal lives in noise.c beside the deterministic log/sin/cos it needs.
#include "neuroevo/rng.h"

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ull

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t ne_hash2(uint64_t a, uint64_t b) { return mix64(mix64(a + GOLDEN_GAMMA) ^ (b + 0x632BE59BD9B4E019ull)); }

uint64_t ne_seed_derive(uint64_t run_seed, uint64_t generation, uint64_t index, ne_purpose purpose) {
  return ne_hash2(ne_hash2(ne_hash2(run_seed, (uint64_t)purpose), generation), index);
}

void ne_rng_seed(ne_rng* rng, uint64_t seed) {
  rng->key = mix64(seed ^ 0x2545F4914F6CDD1Dull);
  rng->counter = 0;
}

uint64_t ne_rng_u64(ne_rng* rng) {
  rng->counter++;
  return mix64(rng->key + rng->counter * GOLDEN_GAMMA);
}

double ne_rng_uniform(ne_rng* rng) { return (double)(ne_rng_u64(rng) >> 11) * 0x1.0p-53; }

double ne_rng_range(ne_rng* rng, double low, double high) { return low + (high - low) * ne_rng_uniform(rng); }

uint64_t ne_rng_below(ne_rng* rng, uint64_t n) {
  // rejection from the largest multiple of n keeps every value equally likely
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do x = ne_rng_u64(rng);
  while (x >= limit);
  return x % n;
}
