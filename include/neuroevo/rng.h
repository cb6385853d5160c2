// SPDX-License-Identifier: MIT
// Seed derivation and a small counter-based random stream for environment resets and algorithm
// choices. Every random choice in neuroevo derives from hash(run seed, generation, index, purpose)
// (DESIGN.md §3), never from time, thread id or arrival order.
#ifndef NEUROEVO_RNG_H
#define NEUROEVO_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// What a derived seed is for; keeps streams of different purposes independent.
typedef enum ne_purpose {
  NE_PURPOSE_INIT = 1,         // initial parameters of a genome
  NE_PURPOSE_MUTATION = 2,     // a GA mutation seed / an ES perturbation seed
  NE_PURPOSE_EPISODE = 3,      // environment reset seeds of an evaluation
  NE_PURPOSE_SELECTION = 4,    // parent choice in the GA
  NE_PURPOSE_REEVAL = 5,       // episodes of an elite re-evaluation
  NE_PURPOSE_EVAL = 6,         // `neuroevo eval` episodes
  NE_PURPOSE_ALGO = 7,         // any other algorithm-internal draw
  NE_PURPOSE_NOISE_TABLE = 8,  // the seed a shared noise table is filled from (ES family, es.noise = table)
  NE_PURPOSE_TASK = 9,         // meta-learning: the tasks of a meta-evaluation
  NE_PURPOSE_ADAPT = 10,       // meta-learning: inner-loop episodes, action noise and perturbations
} ne_purpose;

// A 64-bit mix of two words (splitmix64 finalizer over a combination); pure function.
uint64_t ne_hash2(uint64_t a, uint64_t b);

// Seed for (run seed, generation, index, purpose); pure function.
uint64_t ne_seed_derive(uint64_t run_seed, uint64_t generation, uint64_t index, ne_purpose purpose);

// A counter-based stream: the n-th draw is a pure function of (key, n). Copyable by value.
typedef struct ne_rng {
  uint64_t key;      // the stream's seed
  uint64_t counter;  // number of 64-bit words drawn so far
} ne_rng;

// Starts a stream at its first word.
void ne_rng_seed(ne_rng* rng, uint64_t seed);

// Next 64 random bits.
uint64_t ne_rng_u64(ne_rng* rng);

// Uniform double in [0, 1) with 53 random bits.
double ne_rng_uniform(ne_rng* rng);

// Uniform double in [low, high).
double ne_rng_range(ne_rng* rng, double low, double high);

// Uniform integer in [0, n) without modulo bias; n > 0.
uint64_t ne_rng_below(ne_rng* rng, uint64_t n);

// Standard normal draw (deterministic: no libm calls whose last bit may vary between libcs).
double ne_rng_normal(ne_rng* rng);

#ifdef __cplusplus
}
#endif
#endif
