// SPDX-License-Identifier: MIT
// The Atari family (src/envs/ale; ctest -L ale): the INTER_AREA resize against its definition, the
// AVX-512 kernels against the portable ones, spaces and limits, reproducible resets, the frame
// stack's shift, an episode ending, the sticky-action option, and the listed action sets against the
// ROMs', and colour frames for videos. tests/ale/py_ale_compare.py checks frames and rewards against
// Gymnasium's AtariPreprocessing on the same ROM.
#include <stdio.h>
#include <string.h>

#include <stdlib.h>  // setenv: a folder of stand-in ROMs
#include <unistd.h>

#include "envs/ale/ale_int.h"
#include "envs/ale/ale_shim.h"  // the emulator: each ROM's own minimal action set
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/rng.h"
#include "test.h"

// the resize of a random image against a double-precision area average: within rounding
static void test_area_resize_matches_its_definition(void) {
  ne_area_resize r;
  ASSERT_EQ(ne__area_resize_init(&r, 210, 160, 84, 84), 0);
  // weights of every output pixel sum to 1
  for (int i = 0; i < 84; i++) {
    double sx = 0, sy = 0;
    for (int k = 0; k < NE_AREA_TAPS; k++) sx += r.wx[i][k], sy += r.wy[i][k];
    ASSERT_NEAR(sx, 1.0, 1e-6);
    ASSERT_NEAR(sy, 1.0, 1e-6);
  }
  static uint8_t in[210 * 160], out[84 * 84];
  static float tmp[(210 + NE_AREA_TAPS - 1) * 84], row[160 + NE_AREA_TAPS - 1];
  ne_rng rng;
  ne_rng_seed(&rng, 5);
  for (int i = 0; i < 210 * 160; i++) in[i] = (uint8_t)ne_rng_below(&rng, 256);
  ne__area_resize(&r, in, tmp, row, out);
  for (int oy = 0; oy < 84; oy++)
    for (int ox = 0; ox < 84; ox++) {
      // the exact mean over [oy*2.5, (oy+1)*2.5) x [ox*160/84, (ox+1)*160/84)
      double y0 = oy * 2.5, y1 = y0 + 2.5, x0 = ox * 160.0 / 84, x1 = (ox + 1) * 160.0 / 84, sum = 0;
      for (int y = (int)y0; y < y1; y++)
        for (int x = (int)x0; x < x1 && x < 160; x++) {
          double wy = (y + 1 < y1 ? y + 1 : y1) - (y > y0 ? y : y0);
          double wx = (x + 1 < x1 ? x + 1 : x1) - (x > x0 ? x : x0);
          sum += wy * wx * in[y * 160 + x];
        }
      double mean = sum / (2.5 * 160.0 / 84);
      ASSERT_NEAR(out[oy * 84 + ox], mean, 0.5 + 1e-3);
    }
}

// One level's kernels (ale_int.h's table: AVX-512's or AVX2's) give the portable kernels' bytes:
// random screens (palette indices), a random table, the pooled and plain lookups (odd lengths too:
// the tails), the resize of the result, the HWC stack, and exact ties.
static void kernels_match_portable(const char* name, const ne__ale_kernels* k) {
  ne_area_resize r;
  ASSERT_EQ(ne__area_resize_init(&r, 210, 160, 84, 84), 0);
  ASSERT_EQ(r.grouped, 1);
  ASSERT_EQ(r.quad, 1);
  ne_area_resize bands;
  ASSERT_EQ(ne__area_resize_init(&bands, NE_AREA_BAND_IN, 160, NE_AREA_BAND_OUT, 84), 0);
  ASSERT_EQ(ne__area_bands_match(&r, &bands), 1);
  static uint8_t src[210 * 160], prev[210 * 160], lut[256], a[210 * 160], b[210 * 160], oa[84 * 84], ob[84 * 84];
  static float tmp_a[(210 + NE_AREA_TAPS - 1) * 84], tmp_b[(210 + NE_AREA_TAPS - 1) * 84], row[160 + NE_AREA_TAPS - 1];
  ne_rng rng;
  ne_rng_seed(&rng, 9);
  for (int trial = 0; trial < 20; trial++) {
    for (int i = 0; i < 256; i++) lut[i] = (uint8_t)ne_rng_below(&rng, 256);
    // screens of even indices only, as the TIA makes them (the AVX2 lookup's 8-table path), or
    // odd ones too; tables that repeat each colour at the odd index (that path again)
    int even = trial % 8 == 5;  // (the other odd trials: all 256 indices, the 16-table path)
    if (trial % 4 == 3)
      for (int i = 0; i < 256; i += 2) lut[i + 1] = lut[i];
    // a few colours in runs, as screens have, and every value in some trials
    int colours = trial % 2 ? 256 : 8;
    for (int i = 0; i < 210 * 160; i++) src[i] = (uint8_t)(ne_rng_below(&rng, (uint64_t)colours) * (256 / colours));
    if (even)
      for (int i = 0; i < 210 * 160; i++) src[i] &= 0xfe;
    for (int i = 0; i < 210 * 160; i++) prev[i] = (uint8_t)ne_rng_below(&rng, 256);
    // plain lookup, pooled lookup (an odd length too: the tail)
    ne__ale_luma(src, lut, NULL, NULL, a, 210 * 160);
    k->luma(src, lut, NULL, NULL, b, 210 * 160);
    ASSERT_EQ(memcmp(a, b, sizeof a), 0);
    ne__ale_luma(src, lut, prev, NULL, a, 210 * 160 - 7);
    k->luma(src, lut, prev, NULL, b, 210 * 160 - 7);
    ASSERT_EQ(memcmp(a, b, 210 * 160 - 7), 0);
    // pooled with the pool's indices: a frame equal to them but for a few bytes (a tail byte too)
    // gives the lookup's bytes, the copied blocks included, with and without dst == pool
    static uint8_t next[210 * 160], pool_a[210 * 160], pool_b[210 * 160];
    memcpy(next, src, sizeof next);
    for (int c = 0; c < 40; c++) next[ne_rng_below(&rng, sizeof next)] ^= 2;
    next[210 * 160 - 8] ^= 4;
    ne__ale_luma(src, lut, NULL, NULL, pool_a, 210 * 160);
    memcpy(pool_b, pool_a, sizeof pool_b);
    for (int i = 0; i < 210 * 160 - 7; i++) a[i] = lut[next[i]] > pool_a[i] ? lut[next[i]] : pool_a[i];
    ne__ale_luma(next, lut, pool_a, src, pool_a, 210 * 160 - 7);
    k->luma(next, lut, pool_b, src, b, 210 * 160 - 7);
    ASSERT_EQ(memcmp(a, pool_a, 210 * 160 - 7), 0);
    ASSERT_EQ(memcmp(a, b, 210 * 160 - 7), 0);
    // without pool, pool_src the indices dst holds the lookup of: the lookup of next (the blocks
    // equal to src's left as they were, the others looked up; the tail too)
    static uint8_t want[210 * 160];
    for (int i = 0; i < 210 * 160 - 7; i++) want[i] = lut[next[i]];
    ne__ale_luma(src, lut, NULL, NULL, a, 210 * 160);
    memcpy(b, a, sizeof b);
    ne__ale_luma(next, lut, NULL, src, a, 210 * 160 - 7);
    k->luma(next, lut, NULL, src, b, 210 * 160 - 7);
    ASSERT_EQ(memcmp(a, want, 210 * 160 - 7), 0);
    ASSERT_EQ(memcmp(b, want, 210 * 160 - 7), 0);
    // the resize, with stale garbage in the scratch buffers
    memset(tmp_a, 0x7f, sizeof tmp_a), memset(tmp_b, 0x7f, sizeof tmp_b);
    ne__area_resize(&r, a, tmp_a, row, oa);
    k->resize(&r, a, tmp_b, row, ob);
    ASSERT_EQ(memcmp(oa, ob, sizeof oa), 0);
    // band by band (the env's resize of a frame whose rows partly changed): the same bytes
    memset(ob, 0, sizeof ob);
    for (int band = 0; band < 210 / NE_AREA_BAND_IN; band++)
      k->resize(&bands, a + band * NE_AREA_BAND_IN * 160, tmp_b, row, ob + band * NE_AREA_BAND_OUT * 84);
    ASSERT_EQ(memcmp(oa, ob, sizeof oa), 0);
    memset(ob, 0, sizeof ob);
    for (int band = 0; band < 210 / NE_AREA_BAND_IN; band++)
      ne__area_resize(&bands, a + band * NE_AREA_BAND_IN * 160, tmp_b, row, ob + band * NE_AREA_BAND_OUT * 84);
    ASSERT_EQ(memcmp(oa, ob, sizeof oa), 0);
  }
  // the observation: four frames interleaved as HWC floats
  static uint8_t frames[4][84 * 84];
  static float obs_a[84 * 84 * 4], obs_b[84 * 84 * 4];
  for (int f = 0; f < 4; f++)
    for (int i = 0; i < 84 * 84; i++) frames[f][i] = (uint8_t)ne_rng_below(&rng, 256);
  const uint8_t* f[4] = {frames[2], frames[3], frames[0], frames[1]};
  ne__ale_stack(f, 84 * 84, obs_a);
  k->stack(f, 84 * 84, obs_b);
  ASSERT_EQ(memcmp(obs_a, obs_b, sizeof obs_a), 0);
  // exact ties: constant images whose area means end in .5 before rounding
  for (int v = 0; v < 256; v += 51) {
    memset(a, v, sizeof a);
    ne__area_resize(&r, a, tmp_a, row, oa);
    k->resize(&r, a, tmp_b, row, ob);
    ASSERT_EQ(memcmp(oa, ob, sizeof oa), 0);
  }
  ASSERT(k->fits(&r, 84 * 84));
  printf("  %s kernels: the portable kernels' bytes\n", name);
}

// on a CPU without them the env runs the portable code alone, and the test says so
static void test_simd_kernels_match_portable(void) {
  for (int level = NE_SIMD_AVX2; level <= NE_SIMD_AVX512; level++) {
    const char* why;
    const ne__ale_kernels* k = ne__simd_table_at(&ne__ale_slot, level, &why);
    if (k) kernels_match_portable(ne__simd_name(level), k);
    else printf("  (%s kernels: %s; not run)\n", ne__simd_name(level), why);
  }
}

static void test_spaces_and_limits(void) {
  ne_env_spec* spec;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("ALE/Breakout-v5", NULL, &spec, err)) TEST_FAIL("%s", err);
  ASSERT_EQ(spec->obs_rank, 3);
  ASSERT_EQ(spec->obs_shape[0], 84);
  ASSERT_EQ(spec->obs_shape[2], 4);
  ASSERT_EQ(spec->n_actions, 4);  // Breakout's minimal set: noop, fire, right, left
  ASSERT_EQ(spec->max_episode_steps, 4500);
  ne_env_spec_destroy(spec);
  if (ne_env_make("ALE/Frostbite-v5", NULL, &spec, err)) TEST_FAIL("%s", err);
  ASSERT_EQ(spec->n_actions, 18);
  ne_env_spec_destroy(spec);
  ASSERT_EQ(ne_env_make("ALE/NoSuchGame-v5", NULL, &spec, err), NE_ENOTFOUND);
}

// The behaviour characterization is the console's 128 bytes of RAM (Conti et al. 2018), one float
// per byte; playing changes it, the same reset gives the same one.
static void test_behaviour_is_ram(void) {
  ne_env_spec* spec;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("ALE/Pong-v5", NULL, &spec, err)) TEST_FAIL("%s", err);
  ASSERT_EQ(spec->bc_dim, 128);
  ASSERT_EQ(spec->bc_native, 1);
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT(st);
  float a[128], b[128];
  ASSERT_EQ(ne_env_reset(spec, st, 4), 0);
  ASSERT_EQ(ne_env_behaviour(spec, st, a), 0);
  for (int i = 0; i < 128; i++) ASSERT(a[i] >= 0 && a[i] <= 255 && a[i] == (float)(int)a[i]);
  ne_step_out so;
  float act = 2;
  for (int t = 0; t < 40; t++) ASSERT_EQ(ne_env_step(spec, st, &act, &so), 0);
  ASSERT_EQ(ne_env_behaviour(spec, st, b), 0);
  ASSERT(memcmp(a, b, sizeof a) != 0);
  ASSERT_EQ(ne_env_reset(spec, st, 4), 0);
  ASSERT_EQ(ne_env_behaviour(spec, st, b), 0);
  ASSERT(memcmp(a, b, sizeof a) == 0);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// every game's listed minimal action set is the one ALE gives for its ROM (making a spec loads no
// ROM: the set comes from the table in ale.c)
static void test_action_tables_match_roms(void) {
  int games = 0;
  for (int i = 0; i < ne_env_registry_count(); i++) {
    const char* id = ne_env_registry_id(i);
    if (strncmp(id, "ALE/", 4) != 0) continue;
    ne_env_spec* spec;
    char err[NE_ERRSTR_LEN];
    if (ne_env_make(id, NULL, &spec, err)) TEST_FAIL("%s", err);
    const int* listed = NULL;
    int n = ne__ale_spec_actions(spec, &listed);
    ASSERT_EQ(n, spec->n_actions);
    ne_ale* ale = ne__ale_create(ne__ale_rom_path(spec), err, sizeof err);
    if (!ale) TEST_FAIL("%s", err);
    int rom[18];
    ASSERT_EQ(ne__ale_minimal_actions(ale, rom, 18), n);
    for (int k = 0; k < n; k++)
      if (rom[k] != listed[k])
        TEST_FAIL("%s: action %d is %d in the ROM's minimal set, %d in ale.c", id, k, rom[k], listed[k]);
    ne__ale_destroy(ale);
    ne_env_spec_destroy(spec);
    games++;
  }
  ASSERT_GE(games, 20);
}

// making a spec only checks that the ROM file is there: empty files stand in for the ROMs (loading
// one would fail), and a missing one is an error naming the folder
static void test_make_loads_no_rom(void) {
  char dir[] = "/tmp/test_ale_roms_XXXXXX";
  ASSERT(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/pong.bin", dir);
  FILE* f = fopen(path, "w");
  ASSERT(f != NULL);
  fclose(f);
  setenv("NEUROEVO_ALE_ROMS", dir, 1);
  ne_env_spec* spec;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("ALE/Pong-v5", NULL, &spec, err)) TEST_FAIL("%s", err);
  ASSERT_EQ(spec->n_actions, 6);
  ne_env_spec_destroy(spec);
  ASSERT_EQ(ne_env_make("ALE/Breakout-v5", NULL, &spec, err), NE_EIO);
  ASSERT_CONTAINS(err, "NEUROEVO_ALE_ROMS");
  unsetenv("NEUROEVO_ALE_ROMS");
  unlink(path);
  rmdir(dir);
}

static void test_resets_reproducible_and_stack_shifts(void) {
  ne_env_spec* spec;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("ALE/Pong-v5", NULL, &spec, err)) TEST_FAIL("%s", err);
  ne_env_state* a = ne_env_state_create(spec);
  ne_env_state* b = ne_env_state_create(spec);
  ASSERT(a && b);
  // the same seed, on two emulators and after other episodes, gives the same start
  ASSERT_EQ(ne_env_reset(spec, a, 11), 0);
  ASSERT_EQ(ne_env_reset(spec, b, 12), 0);
  ASSERT_EQ(ne_env_reset(spec, b, 11), 0);
  ASSERT_EQ(memcmp(a->obs, b->obs, (size_t)spec->obs_dim * sizeof(float)), 0);
  ASSERT_EQ(ne__ale_noops(a->impl), ne__ale_noops(b->impl));
  // the reset frame fills the stack; a step shifts it by one
  for (int i = 0; i < 84 * 84; i++)
    for (int k = 1; k < 4; k++) ASSERT_EQ(a->obs[i * 4 + k], a->obs[i * 4]);
  static float before[84 * 84 * 4];
  memcpy(before, a->obs, sizeof before);
  ne_step_out so;
  float act = 1;
  ASSERT_EQ(ne_env_step(spec, a, &act, &so), 0);
  for (int i = 0; i < 84 * 84; i++)
    for (int k = 0; k < 3; k++) ASSERT_EQ(a->obs[i * 4 + k], before[i * 4 + k + 1]);
  // steps after an episode of other frames give a fresh emulator's observations (the buffers a
  // step keeps for the next are dropped at a reset)
  for (int t = 0; t < 40; t++) {
    float other = (float)(t % 6);
    ASSERT_EQ(ne_env_step(spec, b, &other, &so), 0);
  }
  ASSERT_EQ(ne_env_reset(spec, a, 11), 0);
  ASSERT_EQ(ne_env_reset(spec, b, 11), 0);
  for (int t = 0; t < 5; t++) {
    float same = (float)(t % 3);
    ASSERT_EQ(ne_env_step(spec, a, &same, &so), 0);
    ASSERT_EQ(ne_env_step(spec, b, &same, &so), 0);
    ASSERT_EQ(memcmp(a->obs, b->obs, (size_t)spec->obs_dim * sizeof(float)), 0);
  }
  ne_env_state_destroy(a);
  ne_env_state_destroy(b);
  ne_env_spec_destroy(spec);
}

static void test_episode_ends_and_sticky_option(void) {
  ne_env_spec* spec;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("ALE/Breakout-v5", NULL, &spec, err)) TEST_FAIL("%s", err);
  ASSERT_EQ(spec->params[0], 0.0);  // no sticky actions by default (the Deep GA paper's setting)
  ASSERT_EQ(ne_env_set_pixel_options(spec, 0.25, 1, err), 0);
  ASSERT_EQ(spec->params[0], 0.25);
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 3), 0);
  ne_rng rng;
  ne_rng_seed(&rng, 4);
  ne_step_out so = {0};
  int n = 0;
  double ret = 0;
  while (!so.terminated && !so.truncated) {
    float act = (float)ne_rng_below(&rng, 4);
    ASSERT_EQ(ne_env_step(spec, st, &act, &so), 0);
    ret += so.reward;
    n++;
  }
  // random Breakout loses its 5 lives well before the 4500-step cap
  ASSERT(so.terminated);
  ASSERT_LT(n, 4500);
  ASSERT_GE(ret, 0);
  ASSERT_LT(ret, 50);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// the render hook draws the emulator's colour frame: several colours, nearest-neighbour scaling
// (a 2x frame is the 1x frame with every pixel doubled), a new picture after some steps
static void test_render_colour_frames(void) {
  ne_env_spec* spec;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("ALE/IceHockey-v5", NULL, &spec, err)) TEST_FAIL("%s", err);
  ASSERT(ne_env_can_render(spec));
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 2), 0);
  static unsigned char one[210 * 160 * 3], two[420 * 320 * 3], later[210 * 160 * 3];
  void* ctx = NULL;
  ASSERT_EQ(ne_env_render(spec, st, &ctx, one, 160, 210, err), 0);
  ASSERT_EQ(ne_env_render(spec, st, &ctx, two, 320, 420, err), 0);
  for (int y = 0; y < 420; y++)
    for (int x = 0; x < 320; x++)
      ASSERT_EQ(memcmp(two + ((size_t)y * 320 + x) * 3, one + ((size_t)(y / 2) * 160 + x / 2) * 3, 3), 0);
  int colours = 0;
  for (int i = 1; i < 210 * 160 && colours < 4; i++)
    if (memcmp(one + i * 3, one, 3) && memcmp(one + i * 3, one + (i - 1) * 3, 3)) colours++;
  ASSERT_EQ(colours, 4);
  ne_step_out so;
  float act = 3;
  for (int t = 0; t < 30; t++) ASSERT_EQ(ne_env_step(spec, st, &act, &so), 0);
  ASSERT_EQ(ne_env_render(spec, st, &ctx, later, 160, 210, err), 0);
  ASSERT(memcmp(one, later, sizeof one) != 0);
  ne_env_render_free(spec, ctx);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

TEST_MAIN(TEST_ENTRY(test_area_resize_matches_its_definition), TEST_ENTRY(test_simd_kernels_match_portable),
          TEST_ENTRY(test_spaces_and_limits), TEST_ENTRY(test_action_tables_match_roms),
          TEST_ENTRY(test_make_loads_no_rom), TEST_ENTRY(test_resets_reproducible_and_stack_shifts),
          TEST_ENTRY(test_behaviour_is_ram), TEST_ENTRY(test_episode_ends_and_sticky_option),
          TEST_ENTRY(test_render_colour_frames))
