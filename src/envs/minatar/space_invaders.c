// SPDX-License-Identifier: MIT
// MinAtar SpaceInvaders (Young & Tian 2019; PyPI minatar 1.0.15,
// minatar/environments/space_invaders.py), rule for rule, np.roll included. The family wrapper
// (minatar.c) adds sticky actions and the action sets.
//
// Action space: full set or the minimal one (noop, left, right, fire); the cannon moves along
//   row 9 and fires at most every 5 steps.
// Observation: 10x10x6 binary (HWC): 0 cannon, 1 alien, 2 alien moving left, 3 alien moving
//   right (one of the two, at every alien), 4 friendly bullet, 5 enemy bullet.
// Reward: +1 per alien shot.
// Start state: a 4x6 block of aliens in rows 0-3, columns 2-7, moving left; cannon at column 5.
//   Aliens move every min(aliens left, 12) steps, stepping down and turning at a wall; the alien
//   nearest the cannon (by column) shoots every 11 steps.
// Difficulty ramp (on by default): each cleared wave respawns with the move interval one lower,
//   down to 6.
// Termination: an alien or an enemy bullet reaches the cannon, or aliens reach row 9 as they
//   turn. No episode limit of its own.
#include <string.h>

#include "envs/minatar/minatar_int.h"

#define SHOT_COOL_DOWN 5
#define ENEMY_MOVE_INTERVAL 12
#define ENEMY_SHOT_INTERVAL 10

typedef uint8_t grid[MT_SIZE][MT_SIZE];

static void spawn_wave(grid alien) {
  for (int y = 0; y < 4; y++)
    for (int x = 2; x < 8; x++) alien[y][x] = 1;
}

void ne__mt_invaders_reset(mt_invaders* g) {
  memset(g, 0, sizeof *g);
  g->pos = 5;
  spawn_wave(g->alien);
  g->alien_dir = -1;
  g->enemy_move_interval = ENEMY_MOVE_INTERVAL;
  g->alien_move_timer = g->enemy_move_interval;
  g->alien_shot_timer = ENEMY_SHOT_INTERVAL;
}

// np.roll(m, shift, axis=0) for shift = +-1: rows move down (+1) or up (-1), wrapping around
static void roll_rows(grid m, int shift) {
  uint8_t keep[MT_SIZE];
  if (shift > 0) {
    memcpy(keep, m[9], MT_SIZE);
    memmove(m[1], m[0], 9 * MT_SIZE);
    memcpy(m[0], keep, MT_SIZE);
  } else {
    memcpy(keep, m[0], MT_SIZE);
    memmove(m[0], m[1], 9 * MT_SIZE);
    memcpy(m[9], keep, MT_SIZE);
  }
}

// np.roll(m, shift, axis=1) for shift = +-1: columns move right (+1) or left (-1), wrapping
static void roll_cols(grid m, int shift) {
  for (int y = 0; y < MT_SIZE; y++) {
    uint8_t row[MT_SIZE];
    for (int x = 0; x < MT_SIZE; x++) row[(x + shift + MT_SIZE) % MT_SIZE] = m[y][x];
    memcpy(m[y], row, MT_SIZE);
  }
}

static int count(const grid m) {
  int n = 0;
  for (int y = 0; y < MT_SIZE; y++)
    for (int x = 0; x < MT_SIZE; x++) n += m[y][x] != 0;
  return n;
}

static int column_has(const grid m, int x) {
  for (int y = 0; y < MT_SIZE; y++)
    if (m[y][x]) return 1;
  return 0;
}

// _nearest_alien: columns by distance to the cannon (ties: the lower column, a stable sort), the
// lowest alien of the first non-empty one. 0 if there is no alien.
static int nearest_alien(const mt_invaders* g, int* ay, int* ax) {
  for (int d = 0; d < MT_SIZE; d++) {
    for (int side = -1; side <= 1; side += 2) {
      int x = g->pos + side * d;
      if (x < 0 || x > 9 || (d == 0 && side > 0) || !column_has(g->alien, x)) continue;
      for (int y = 9; y >= 0; y--)
        if (g->alien[y][x]) return *ay = y, *ax = x, 1;
    }
  }
  return 0;
}

// the aliens' move on move steps: turn and step down at a wall, else one column sideways
static void move_aliens(mt_invaders* g, int* terminal) {
  g->alien_move_timer = count(g->alien) < g->enemy_move_interval ? count(g->alien) : g->enemy_move_interval;
  if ((column_has(g->alien, 0) && g->alien_dir < 0) || (column_has(g->alien, 9) && g->alien_dir > 0)) {
    g->alien_dir = -g->alien_dir;
    for (int x = 0; x < MT_SIZE; x++)
      if (g->alien[9][x]) *terminal = 1;
    roll_rows(g->alien, 1);
  } else {
    roll_cols(g->alien, g->alien_dir);
  }
  if (g->alien[9][g->pos]) *terminal = 1;
}

int ne__mt_invaders_act(mt_invaders* g, int a, int ramping, int* terminal) {
  int r = 0;
  // the cannon
  if (a == MT_FIRE && g->shot_timer == 0) {
    g->f_bullet[9][g->pos] = 1;
    g->shot_timer = SHOT_COOL_DOWN;
  } else if (a == MT_LEFT) {
    g->pos = g->pos > 0 ? g->pos - 1 : 0;
  } else if (a == MT_RIGHT) {
    g->pos = g->pos < 9 ? g->pos + 1 : 9;
  }
  // bullets: friendly ones up (leaving the top), enemy ones down (leaving the bottom)
  roll_rows(g->f_bullet, -1);
  memset(g->f_bullet[9], 0, MT_SIZE);
  roll_rows(g->e_bullet, 1);
  memset(g->e_bullet[0], 0, MT_SIZE);
  if (g->e_bullet[9][g->pos]) *terminal = 1;

  // aliens
  if (g->alien[9][g->pos]) *terminal = 1;
  if (g->alien_move_timer == 0) move_aliens(g, terminal);
  int ay, ax;
  if (g->alien_shot_timer == 0) {
    g->alien_shot_timer = ENEMY_SHOT_INTERVAL;
    if (nearest_alien(g, &ay, &ax)) g->e_bullet[ay][ax] = 1;
  }
  // hits: an alien and a friendly bullet on the same cell both go
  for (int y = 0; y < MT_SIZE; y++)
    for (int x = 0; x < MT_SIZE; x++)
      if (g->alien[y][x] && g->f_bullet[y][x]) {
        r += 1;
        g->alien[y][x] = g->f_bullet[y][x] = 0;
      }

  // timers, and a new wave when the last alien is gone
  g->shot_timer -= g->shot_timer > 0;
  g->alien_move_timer -= 1;
  g->alien_shot_timer -= 1;
  if (count(g->alien) == 0) {
    if (g->enemy_move_interval > 6 && ramping) {
      g->enemy_move_interval -= 1;
      g->ramp_index += 1;
    }
    spawn_wave(g->alien);
  }
  return r;
}

void ne__mt_invaders_observe(const mt_invaders* g, float* obs) {
  mt_set(obs, 6, 9, g->pos, 0);
  for (int y = 0; y < MT_SIZE; y++)
    for (int x = 0; x < MT_SIZE; x++) {
      if (g->alien[y][x]) {
        mt_set(obs, 6, y, x, 1);
        mt_set(obs, 6, y, x, g->alien_dir < 0 ? 2 : 3);
      }
      if (g->f_bullet[y][x]) mt_set(obs, 6, y, x, 4);
      if (g->e_bullet[y][x]) mt_set(obs, 6, y, x, 5);
    }
}
