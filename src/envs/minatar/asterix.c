// SPDX-License-Identifier: MIT
// MinAtar Asterix (Young & Tian 2019; PyPI minatar 1.0.15, minatar/environments/asterix.py), rule
// for rule. The family wrapper (minatar.c) adds sticky actions and the action sets.
//
// Action space: full set or the minimal one (noop, left, up, right, down); the player moves one
//   cell in rows 1-8, columns 0-9.
// Observation: 10x10x4 binary (HWC): 0 player, 1 enemy, 2 trail (the cell an entity came from),
//   3 gold.
// Reward: +1 per gold picked up.
// Start state: player at (5, 5), no entities; an entity spawns every spawn_speed steps (10 at
//   first) in a free row 1-8 at a random side, gold with probability 1/3.
// Difficulty ramp (on by default): every 101 steps the spawn interval drops by 1, and every other
//   ramp the move interval (5 at first) too, down to 1.
// Termination: touching an enemy. No episode limit of its own.
#include <string.h>

#include "envs/minatar/minatar_int.h"

#define RAMP_INTERVAL 100
#define INIT_SPAWN_SPEED 10
#define INIT_MOVE_INTERVAL 5

void ne__mt_asterix_reset(mt_asterix* g, ne_rng* rng) {
  (void)rng;  // the start state is fixed; spawns draw from the game's stream
  memset(g, 0, sizeof *g);
  g->player_x = 5;
  g->player_y = 5;
  g->spawn_speed = INIT_SPAWN_SPEED;
  g->spawn_timer = g->spawn_speed;
  g->move_speed = INIT_MOVE_INTERVAL;
  g->move_timer = g->move_speed;
  g->ramp_timer = RAMP_INTERVAL;
}

// _spawn_entity: side and kind are drawn first, then a uniformly chosen empty slot (if any)
static void spawn_entity(mt_asterix* g, ne_rng* rng) {
  int lr = ne_rng_uniform(rng) < 0.5;
  int gold = ne_rng_uniform(rng) < 1.0 / 3.0;
  int free[MT_ASTERIX_SLOTS], n = 0;
  for (int i = 0; i < MT_ASTERIX_SLOTS; i++)
    if (!g->entities[i].alive) free[n++] = i;
  if (n == 0) return;
  int slot = free[ne_rng_below(rng, (uint64_t)n)];
  g->entities[slot] = (mt_entity){.x = lr ? 0 : 9, .y = slot + 1, .right = lr, .gold = gold, .alive = 1};
}

// an entity on the player's cell: gold is collected (+1), an enemy ends the game
static int touch(mt_asterix* g, mt_entity* e, int* terminal) {
  if (e->x != g->player_x || e->y != g->player_y) return 0;
  if (e->gold) {
    e->alive = 0;
    return 1;
  }
  *terminal = 1;
  return 0;
}

int ne__mt_asterix_act(mt_asterix* g, int a, ne_rng* rng, int ramping, int* terminal) {
  int r = 0;
  if (g->spawn_timer == 0) {
    spawn_entity(g, rng);
    g->spawn_timer = g->spawn_speed;
  }
  // the player
  if (a == MT_LEFT) g->player_x = g->player_x > 0 ? g->player_x - 1 : 0;
  else if (a == MT_RIGHT) g->player_x = g->player_x < 9 ? g->player_x + 1 : 9;
  else if (a == MT_UP) g->player_y = g->player_y > 1 ? g->player_y - 1 : 1;
  else if (a == MT_DOWN) g->player_y = g->player_y < 8 ? g->player_y + 1 : 8;

  // entities: contact after the player's move, then (on move steps) after theirs
  for (int i = 0; i < MT_ASTERIX_SLOTS; i++)
    if (g->entities[i].alive) r += touch(g, &g->entities[i], terminal);
  if (g->move_timer == 0) {
    g->move_timer = g->move_speed;
    for (int i = 0; i < MT_ASTERIX_SLOTS; i++) {
      mt_entity* e = &g->entities[i];
      if (!e->alive) continue;
      e->x += e->right ? 1 : -1;
      if (e->x < 0 || e->x > 9) e->alive = 0;  // off the board (cannot touch the player)
      else r += touch(g, e, terminal);
    }
  }
  g->spawn_timer -= 1;
  g->move_timer -= 1;

  // the difficulty ramp
  if (ramping && (g->spawn_speed > 1 || g->move_speed > 1)) {
    if (g->ramp_timer >= 0) {
      g->ramp_timer -= 1;
    } else {
      if (g->move_speed > 1 && g->ramp_index % 2) g->move_speed -= 1;
      if (g->spawn_speed > 1) g->spawn_speed -= 1;
      g->ramp_index += 1;
      g->ramp_timer = RAMP_INTERVAL;
    }
  }
  return r;
}

void ne__mt_asterix_observe(const mt_asterix* g, float* obs) {
  mt_set(obs, 4, g->player_y, g->player_x, 0);
  for (int i = 0; i < MT_ASTERIX_SLOTS; i++) {
    const mt_entity* e = &g->entities[i];
    if (!e->alive) continue;
    mt_set(obs, 4, e->y, e->x, e->gold ? 3 : 1);
    int back_x = e->right ? e->x - 1 : e->x + 1;
    if (back_x >= 0 && back_x <= 9) mt_set(obs, 4, e->y, back_x, 2);
  }
}
