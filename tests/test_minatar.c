// SPDX-License-Identifier: MIT
// MinAtar rules that can be checked deterministically (src/envs/minatar): spaces and channels of
// every id, the start observation, paddle and brick bounces, Freeway's 2501-step clock and
// crossings, SpaceInvaders' hits and ramped waves, Seaquest's surfacing (quirk included) and
// oxygen, Asterix's gold and enemies, sticky actions, options and reproducibility from a seed.
// The statistical comparison with the reference is tests/py_minatar_compare.py.
#include <string.h>

#include "envs/minatar/minatar_int.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "test.h"

// an env with sticky actions off (unless sticky says otherwise), reset with seed 1
typedef struct fixture {
  ne_env_spec* spec;
  ne_env_state* st;
  mt_state* s;  // the family state, for setting positions
} fixture;

static fixture make(const char* id, double sticky) {
  fixture f;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make(id, NULL, &f.spec, err) != 0) TEST_FAIL("%s", err);
  ASSERT_EQ(ne_env_set_pixel_options(f.spec, sticky, 1, err), 0);
  f.st = ne_env_state_create(f.spec);
  ASSERT(f.st != NULL);
  ASSERT_EQ(ne_env_reset(f.spec, f.st, 1), 0);
  f.s = f.st->impl;
  return f;
}

static void done(fixture* f) {
  ne_env_state_destroy(f->st);
  ne_env_spec_destroy(f->spec);
}

// steps with an action index of the spec's set; returns the reward
static double step(fixture* f, int a, int* terminated) {
  float act = (float)a;
  ne_step_out so;
  ASSERT_EQ(ne_env_step(f->spec, f->st, &act, &so), 0);
  if (terminated) *terminated = so.terminated;
  return so.reward;
}

static float cell(const fixture* f, int y, int x, int c) {
  return f->st->obs[(y * 10 + x) * f->spec->obs_shape[2] + c];
}

static void test_spaces_of_every_id(void) {
  static const struct {
    const char* game;
    int channels, minimal;
  } g[] = {{"Asterix", 4, 5}, {"Breakout", 4, 3}, {"Freeway", 7, 3}, {"Seaquest", 10, 6}, {"SpaceInvaders", 6, 4}};
  for (int i = 0; i < 5; i++)
    for (int v = 0; v < 2; v++) {
      char id[64], err[NE_ERRSTR_LEN];
      snprintf(id, sizeof id, "MinAtar/%s-v%d", g[i].game, v);
      ne_env_spec* spec;
      if (ne_env_make(id, NULL, &spec, err)) TEST_FAIL("%s", err);
      ASSERT_EQ(spec->obs_rank, 3);
      ASSERT_EQ(spec->obs_shape[0], 10);
      ASSERT_EQ(spec->obs_shape[2], g[i].channels);
      ASSERT_EQ(spec->obs_dim, 100 * g[i].channels);
      ASSERT_EQ(spec->n_actions, v ? g[i].minimal : 6);
      ASSERT_EQ(spec->max_episode_steps, 0);  // MinAtar registers no limit
      ne_env_spec_destroy(spec);
    }
}

static void test_breakout_start_observation(void) {
  fixture f = make("MinAtar/Breakout-v1", -1);
  for (int x = 0; x < 10; x++) {
    ASSERT_EQ(cell(&f, 0, x, 3), 0.0f);
    for (int y = 1; y < 4; y++) ASSERT_EQ(cell(&f, y, x, 3), 1.0f);
  }
  ASSERT_EQ(cell(&f, 9, 4, 0), 1.0f);  // paddle
  mt_breakout* b = &f.s->g.breakout;
  ASSERT_EQ(b->ball_y, 3);
  ASSERT(b->ball_x == 0 || b->ball_x == 9);
  ASSERT_EQ(cell(&f, 3, b->ball_x, 1), 1.0f);
  ASSERT_EQ(cell(&f, 3, b->ball_x, 2), 1.0f);  // ball and trail
  done(&f);
}

static void test_breakout_paddle_and_brick_bounces(void) {
  fixture f = make("MinAtar/Breakout-v1", -1);
  mt_breakout* b = &f.s->g.breakout;
  int term;
  // down-left onto the paddle's cell: straight back up-left from the row above
  b->ball_x = 4, b->ball_y = 8, b->ball_dir = 3, b->pos = 4;
  ASSERT_EQ(step(&f, 0, &term), 0.0);
  ASSERT(!term);
  ASSERT_EQ(b->ball_x, 3);
  ASSERT_EQ(b->ball_y, 8);
  ASSERT_EQ(b->ball_dir, 0);
  // down-right past the paddle: terminal
  b->ball_x = 5, b->ball_y = 8, b->ball_dir = 2, b->pos = 0;
  step(&f, 0, &term);
  ASSERT(term);
  // a brick: +1, gone, the ball reflects and stays in its row
  ASSERT_EQ(ne_env_reset(f.spec, f.st, 2), 0);
  b->ball_x = 5, b->ball_y = 4, b->ball_dir = 0;
  ASSERT_EQ(step(&f, 0, &term), 1.0);
  ASSERT_EQ(b->brick[3][4], 0);
  ASSERT_EQ(b->ball_y, 4);
  ASSERT_EQ(b->ball_x, 4);
  ASSERT_EQ(b->ball_dir, 3);
  // no bricks left when the ball reaches row 9: rows 1-3 refill
  memset(b->brick, 0, sizeof b->brick);
  b->ball_x = 4, b->ball_y = 8, b->ball_dir = 3, b->pos = 4;
  step(&f, 0, &term);
  ASSERT(!term && b->brick[1][0] && b->brick[3][9]);
  done(&f);
}

static void test_freeway_clock_and_crossing(void) {
  fixture f = make("MinAtar/Freeway-v1", -1);
  mt_freeway* g = &f.s->g.freeway;
  // one cell from the top, allowed to move, no car in column 4: up crosses (+1, back to row 9)
  g->pos = 1, g->move_timer = 0;
  for (int i = 0; i < 8; i++) g->cars[i].x = 0, g->cars[i].timer = 5;
  int term;
  ASSERT_EQ(step(&f, 1, &term), 1.0);  // minimal set: 1 = up
  ASSERT_EQ(g->pos, 9);
  ASSERT_EQ(g->move_timer, 2);  // set to 3, then this step's countdown
  // the episode ends on its 2501st step, terminated (not truncated)
  ASSERT_EQ(ne_env_reset(f.spec, f.st, 3), 0);
  int n = 0;
  term = 0;
  while (!term) step(&f, 0, &term), n++;
  ASSERT_EQ(n, 2501);
  done(&f);
}

static void test_invaders_hit_and_ramped_wave(void) {
  fixture f = make("MinAtar/SpaceInvaders-v1", -1);
  mt_invaders* g = &f.s->g.invaders;
  int term;
  // a lone alien with a bullet just below it: the bullet rises into it (+1) and a faster wave spawns
  memset(g->alien, 0, sizeof g->alien);
  g->alien[3][2] = 1;
  g->f_bullet[4][2] = 1;
  g->alien_move_timer = 5, g->alien_shot_timer = 5;
  ASSERT_EQ(step(&f, 0, &term), 1.0);
  ASSERT(!term);
  ASSERT_EQ(g->enemy_move_interval, 11);
  ASSERT_EQ(g->ramp_index, 1);
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 10; x++) ASSERT_EQ(g->alien[y][x], x >= 2 && x < 8);
  // an enemy bullet reaching the cannon's cell ends the game
  g->e_bullet[8][g->pos] = 1;
  step(&f, 0, &term);
  ASSERT(term);
  done(&f);
  // without ramping the wave keeps its speed
  f = make("MinAtar/SpaceInvaders-v1", -1);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_env_set_pixel_options(f.spec, -1, 0, err), 0);
  g = &f.s->g.invaders;
  memset(g->alien, 0, sizeof g->alien);
  g->alien[3][2] = 1;
  g->f_bullet[4][2] = 1;
  step(&f, 0, &term);
  ASSERT_EQ(g->enemy_move_interval, 12);
  done(&f);
}

static void test_seaquest_surfacing_and_oxygen(void) {
  fixture f = make("MinAtar/Seaquest-v1", -1);
  mt_seaquest* g = &f.s->g.seaquest;
  int term;
  // up to the surface with 6 divers: oxygen * 10 // 200 reward, refill, and the count left at -1
  g->sub_y = 1, g->diver_count = 6, g->oxygen = 150, g->surface = 0;
  g->e_spawn_timer = g->d_spawn_timer = 10;
  ASSERT_EQ(step(&f, 2, &term), 7.0);
  ASSERT(!term);  // 2 = up
  ASSERT_EQ(g->diver_count, -1);
  ASSERT_EQ(g->oxygen, 200);
  ASSERT_EQ(g->ramp_index, 1);
  ASSERT_EQ(g->e_spawn_speed, 19);
  // surfacing without divers ends the game
  ASSERT_EQ(ne_env_reset(f.spec, f.st, 4), 0);
  g->sub_y = 1, g->surface = 0;
  step(&f, 2, &term);
  ASSERT(term);
  // so does running out of oxygen
  ASSERT_EQ(ne_env_reset(f.spec, f.st, 5), 0);
  g->sub_y = 4, g->oxygen = 0;
  step(&f, 0, &term);
  ASSERT(term);
  done(&f);
}

static void test_asterix_gold_and_enemy(void) {
  fixture f = make("MinAtar/Asterix-v1", -1);
  mt_asterix* g = &f.s->g.asterix;
  int term;
  g->spawn_timer = 5, g->move_timer = 5;
  g->entities[4] = (mt_entity){.x = 6, .y = 5, .right = 0, .gold = 1, .alive = 1};
  ASSERT_EQ(step(&f, 3, &term), 1.0);
  ASSERT(!term);  // 3 = right, onto the gold
  ASSERT_EQ(g->entities[4].alive, 0);
  g->entities[4] = (mt_entity){.x = 7, .y = 5, .right = 0, .gold = 0, .alive = 1};
  step(&f, 3, &term);
  ASSERT(term);
  done(&f);
}

static void test_sticky_actions_repeat_the_previous_action(void) {
  // probability 1: every action is replaced by the previous one, noop since the reset
  fixture f = make("MinAtar/Breakout-v1", 1.0);
  for (int i = 0; i < 3; i++) step(&f, 1, NULL);  // 1 = left
  ASSERT_EQ(f.s->g.breakout.pos, 4);
  done(&f);
  // the default probability is MinAtar's 0.1; a probability above 1 is refused
  ne_env_spec* spec;
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_env_make("MinAtar/Breakout-v1", NULL, &spec, err), 0);
  ASSERT_EQ(spec->params[0], 0.1);
  ASSERT_EQ(ne_env_set_pixel_options(spec, 1.5, 1, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "1.5");
  ne_env_spec_destroy(spec);
}

// the sum of observation hashes and rewards of a random-action episode
static uint64_t episode_digest(const char* id, uint64_t seed) {
  fixture f = make(id, 0);
  ASSERT_EQ(ne_env_reset(f.spec, f.st, seed), 0);
  ne_rng rng;
  ne_rng_seed(&rng, 99);
  uint64_t h = 0;
  int term = 0;
  for (int t = 0; t < 3000 && !term; t++) {
    double r = step(&f, (int)ne_rng_below(&rng, (uint64_t)f.spec->n_actions), &term);
    for (int i = 0; i < f.spec->obs_dim; i++) h = ne_hash2(h, (uint64_t)(f.st->obs[i] != 0) + (uint64_t)r);
  }
  done(&f);
  return h;
}

static void test_episodes_are_reproducible_from_their_seed(void) {
  const char* ids[] = {"MinAtar/Asterix-v0", "MinAtar/Breakout-v0", "MinAtar/Freeway-v0", "MinAtar/Seaquest-v0",
                       "MinAtar/SpaceInvaders-v0"};
  for (int i = 0; i < 5; i++) {
    ASSERT_U64_EQ(episode_digest(ids[i], 7), episode_digest(ids[i], 7));
    ASSERT_NE(episode_digest(ids[i], 7), episode_digest(ids[i], 8));
  }
}

TEST_MAIN(TEST_ENTRY(test_spaces_of_every_id), TEST_ENTRY(test_breakout_start_observation),
          TEST_ENTRY(test_breakout_paddle_and_brick_bounces), TEST_ENTRY(test_freeway_clock_and_crossing),
          TEST_ENTRY(test_invaders_hit_and_ramped_wave), TEST_ENTRY(test_seaquest_surfacing_and_oxygen),
          TEST_ENTRY(test_asterix_gold_and_enemy), TEST_ENTRY(test_sticky_actions_repeat_the_previous_action),
          TEST_ENTRY(test_episodes_are_reproducible_from_their_seed))
