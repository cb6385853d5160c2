// SPDX-License-Identifier: MIT
// Simulated evaluation (simulate.h): hashes of the candidate's seeds, nothing else.
#include <math.h>  // NAN

#include "exec/simulate.h"

#include "neuroevo/rng.h"

static uint64_t tail_seed(const ne_candidate* c) {
  return c->kind == NE_CAND_CHAIN && c->n_seeds > 0 ? c->seeds[c->n_seeds - 1] : c->noise_seed;
}

void ne__synthetic_result(const ne_candidate* c, ne_result* out) {
  out->fitness = (double)(ne_hash2(c->episode_seed, tail_seed(c)) >> 11) * 0x1p-53;
  out->return_std = 0;
  out->episodes = c->episodes;
  out->steps = c->episodes;
  out->status = 0;
  out->obs_count = 0;
  out->pre_fitness = NAN;  // no inner loop
}

double ne__simulated_eval_s(const ne_candidate* c, double mean_s, double jitter) {
  return ne__simulated_episodes_s(c, 0, c->episodes, mean_s, jitter);
}

double ne__simulated_episodes_s(const ne_candidate* c, uint32_t first, uint32_t n, double mean_s, double jitter) {
  double total = 0;
  uint64_t key = ne_hash2(tail_seed(c), 0x73696dull);  // "sim": apart from the fitness hash
  for (uint32_t e = first; e < first + n; e++) {
    double u = (double)(ne_hash2(key, c->episode_seed + e) >> 11) * 0x1p-53;
    total += mean_s * (1 + jitter * (2 * u - 1));
  }
  return total;
}
