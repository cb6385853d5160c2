// SPDX-License-Identifier: MIT
// A helper of tests/ale/py_ale_compare.py (not a test itself): plays an ALE/* env with random
// actions and writes, to the file OUT, the episode's no-op count and per step the action, reward,
// terminated flag and newest preprocessed frame, so the Python side can replay the same no-ops and
// actions through Gymnasium and compare. Usage: ale_trace ENV_ID SEED STEPS OUT
// Format (little-endian): int32 noops, int32 n; the reset frame (84*84 bytes); then n records of
// int32 action, float64 reward, int32 terminated, 84*84 bytes frame.
#include <stdio.h>
#include <stdlib.h>

#include "envs/ale/ale_int.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/rng.h"

// the newest stacked frame back as bytes (obs holds byte / 255)
static void newest(const float* obs, unsigned char* out) {
  for (int i = 0; i < NE_ALE_OUT * NE_ALE_OUT; i++) out[i] = (unsigned char)(obs[i * 4 + 3] * 255.0f + 0.5f);
}

int main(int argc, char** argv) {
  if (argc != 5) return fprintf(stderr, "usage: ale_trace ENV_ID SEED STEPS OUT\n"), 2;
  char err[NE_ERRSTR_LEN];
  ne_env_spec* spec;
  if (ne_env_make(argv[1], NULL, &spec, err)) return fprintf(stderr, "ale_trace: %s\n", err), 1;
  ne_env_state* st = ne_env_state_create(spec);
  FILE* f = fopen(argv[4], "wb");
  if (!st || !f) return fprintf(stderr, "ale_trace: cannot start\n"), 1;
  uint64_t seed = strtoull(argv[2], NULL, 10);
  int steps = atoi(argv[3]);
  ne_env_reset(spec, st, seed);
  int32_t head[2] = {ne__ale_noops(st->impl), 0};
  static unsigned char frame[NE_ALE_OUT * NE_ALE_OUT];
  // the record count is patched in at the end
  fwrite(head, sizeof head, 1, f);
  newest(st->obs, frame);
  fwrite(frame, sizeof frame, 1, f);
  ne_rng rng;
  ne_rng_seed(&rng, seed + 1);
  ne_step_out so = {0};
  while (head[1] < steps && !so.terminated && !so.truncated) {
    int32_t a = (int32_t)ne_rng_below(&rng, (uint64_t)spec->n_actions);
    float act = (float)a;
    if (ne_env_step(spec, st, &act, &so)) return fprintf(stderr, "ale_trace: step failed\n"), 1;
    int32_t term = so.terminated;
    fwrite(&a, sizeof a, 1, f);
    fwrite(&so.reward, sizeof so.reward, 1, f);
    fwrite(&term, sizeof term, 1, f);
    newest(st->obs, frame);
    fwrite(frame, sizeof frame, 1, f);
    head[1]++;
  }
  fseek(f, 0, SEEK_SET);
  fwrite(head, sizeof head, 1, f);
  fclose(f);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  return 0;
}
