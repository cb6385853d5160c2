// SPDX-License-Identifier: MIT
// Batch digests (see algo.h): a hash of everything a batch's results depend on, so that results
// are only ever used for the exact batch they were computed for, by Redis workers (the task's
// round carries it) and by a resumed run (the partial-generation log, run/partial.c); and
// candidate digests, the same for one candidate wherever it stands (results asked ahead, run/).
#include <string.h>

#include "neuroevo/algo.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

static uint64_t mix_f32(uint64_t h, float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  return ne_hash2(h, bits);
}

uint64_t ne_hash_floats(const float* v, size_t n) {
  uint64_t h = ne_hash2(0x666c6f617473ull, n);
  for (size_t i = 0; i < n; i++) h = mix_f32(h, v[i]);
  return h;
}

static inline uint64_t seed_lane_step(uint64_t lane, uint64_t seed) {
  lane = (lane ^ seed) * 0xff51afd7ed558ccdull;  // both steps are bijections: no two seeds collide in a lane
  return lane ^ (lane >> 32);
}

// A seed chain's share of the digest. Every chain is hashed again each round, so ne_hash2 per seed
// (a serial chain of two splitmix finalizers, ~8 ns a seed) made the digest 85% of the master's CPU
// at 1000-seed chains; four independent lanes of one multiply each run in ~1 ns a seed and are then
// mixed with ne_hash2. Not cryptographic: it tells batches apart, it does not resist forgery.
static uint64_t digest_seeds(uint64_t h, const uint64_t* seeds, uint32_t n) {
  uint64_t l0 = h, l1 = h ^ 0x9e3779b97f4a7c15ull, l2 = h ^ 0xc2b2ae3d27d4eb4full, l3 = h ^ 0x165667b19e3779f9ull;
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    l0 = seed_lane_step(l0, seeds[i]);
    l1 = seed_lane_step(l1, seeds[i + 1]);
    l2 = seed_lane_step(l2, seeds[i + 2]);
    l3 = seed_lane_step(l3, seeds[i + 3]);
  }
  for (; i < n; i++) l0 = seed_lane_step(l0, seeds[i]);
  return ne_hash2(ne_hash2(l0, l1), ne_hash2(l2, l3));
}

// A candidate's share of the digest; its index too when with_index.
static uint64_t digest_fields(uint64_t h, const ne_batch* b, const ne_candidate* c, int with_index) {
  h = ne_hash2(h, (uint64_t)c->kind << 32 | (with_index ? c->index : 0));
  h = ne_hash2(ne_hash2(h, c->episodes), c->episode_seed);
  if (c->kind == NE_CAND_CHAIN) {
    h = digest_seeds(ne_hash2(h, c->n_seeds), c->seeds, c->n_seeds);
    return mix_f32(h, c->sigma);
  }
  uint64_t blob = c->blob < (uint32_t)b->n_blobs ? b->blobs[c->blob].hash : ~0ull;
  h = ne_hash2(h, blob);
  if (c->kind == NE_CAND_PERTURB) h = mix_f32(ne_hash2(h, c->noise_seed), c->coef);
  return h;
}

// The evaluation settings every candidate of the batch shares.
static uint64_t digest_settings(uint64_t h, const ne_batch* b, const uint64_t norm_hash[2], int obs_dim) {
  h = ne_hash2(h, (uint64_t)(b->want_bc ? 2 : 0) | (b->want_obs_stats ? 1 : 0));
  if (b->obs_mean && b->obs_std) {
    h = ne_hash2(ne_hash2(ne_hash2(h, norm_hash[0]), norm_hash[1]), (uint64_t)obs_dim);
    h = mix_f32(h, b->obs_clip);
  }
  if (b->noise_table) h = ne_hash2(ne_hash2(h, b->noise_table->seed), (uint64_t)b->noise_table->size);
  return h;
}

uint64_t ne_batch_digest(const ne_batch* b, const uint64_t norm_hash[2], int obs_dim) {
  uint64_t h = ne_hash2(0x6261746368ull, (uint64_t)b->generation << 32 | b->round);
  h = ne_hash2(h, (uint64_t)(uint32_t)b->n << 2 | (b->want_bc ? 2 : 0) | (b->want_obs_stats ? 1 : 0));
  if (b->obs_mean && b->obs_std) {
    h = ne_hash2(ne_hash2(ne_hash2(h, norm_hash[0]), norm_hash[1]), (uint64_t)obs_dim);
    h = mix_f32(h, b->obs_clip);
  }
  for (int k = 0; k < b->n_blobs; k++) h = ne_hash2(ne_hash2(h, b->blobs[k].hash), b->blobs[k].n);
  if (b->noise_table) h = ne_hash2(ne_hash2(h, b->noise_table->seed), (uint64_t)b->noise_table->size);
  for (int i = 0; i < b->n; i++) h = digest_fields(h, b, &b->cands[i], 1);
  return h;
}

uint64_t ne_candidate_digest(const ne_batch* b, int i, const uint64_t norm_hash[2], int obs_dim) {
  const ne_candidate* c = &b->cands[i];
  uint64_t h = digest_settings(0x63616e646964ull, b, norm_hash, obs_dim);
  if (c->kind != NE_CAND_CHAIN && c->blob < (uint32_t)b->n_blobs) h = ne_hash2(h, b->blobs[c->blob].n);
  return digest_fields(h, b, c, 0);
}
