// SPDX-License-Identifier: MIT
// MinAtar Freeway (Young & Tian 2019; PyPI minatar 1.0.15, minatar/environments/freeway.py), rule
// for rule. The family wrapper (minatar.c) adds sticky actions and the action sets.
//
// Action space: full set or the minimal one (noop, up, down); the chicken moves at most once
//   every 3 steps, in column 4.
// Observation: 10x10x7 binary (HWC): 0 chicken, 1 car, 2-6 the car's trail cell (behind it,
//   wrapping) in the channel of its speed (moves every 1..5 steps).
// Reward: +1 each time the chicken reaches row 0; it then restarts in row 9 and the car speeds
//   and directions are redrawn. A car hitting the chicken sends it back to row 9 (no penalty).
// Start state: 8 cars in rows 1-8 at column 0, speeds uniform in 1..5, random directions; the
//   chicken in row 9.
// Termination: after 2500 steps have elapsed (the step on which the timer drops below 0, i.e. the
//   2501st); MinAtar reports it as terminal, not truncated.
#include <string.h>

#include "envs/minatar/minatar_int.h"

#define PLAYER_SPEED 3   // steps between chicken moves
#define TIME_LIMIT 2500  // steps before termination

// freeway.py's _randomize_cars: speeds randint(1, 6, 8), directions sign(rand(8) - 0.5); all
// speeds are drawn before the directions, as numpy does
static void randomize_cars(mt_freeway* g, ne_rng* rng, int initialize) {
  int speeds[8];
  for (int i = 0; i < 8; i++) speeds[i] = 1 + (int)ne_rng_below(rng, 5);
  for (int i = 0; i < 8; i++) {
    double u = ne_rng_uniform(rng) - 0.5;
    speeds[i] *= u > 0 ? 1 : u < 0 ? -1 : 0;
  }
  for (int i = 0; i < 8; i++) {
    if (initialize) g->cars[i].x = 0, g->cars[i].y = i + 1;
    g->cars[i].timer = speeds[i] < 0 ? -speeds[i] : speeds[i];
    g->cars[i].speed = speeds[i];
  }
}

void ne__mt_freeway_reset(mt_freeway* g, ne_rng* rng) {
  memset(g, 0, sizeof *g);
  randomize_cars(g, rng, 1);
  g->pos = 9;
  g->move_timer = PLAYER_SPEED;
  g->terminate_timer = TIME_LIMIT;
}

int ne__mt_freeway_act(mt_freeway* g, int a, ne_rng* rng, int* terminal) {
  int r = 0;
  // the chicken
  if (a == MT_UP && g->move_timer == 0) {
    g->move_timer = PLAYER_SPEED;
    g->pos = g->pos > 0 ? g->pos - 1 : 0;
  } else if (a == MT_DOWN && g->move_timer == 0) {
    g->move_timer = PLAYER_SPEED;
    g->pos = g->pos < 9 ? g->pos + 1 : 9;
  }
  // the win condition
  if (g->pos == 0) {
    r += 1;
    randomize_cars(g, rng, 0);
    g->pos = 9;
  }
  // cars: a hit before and after each car's move sends the chicken back
  for (int i = 0; i < 8; i++) {
    mt_car* c = &g->cars[i];
    if (c->x == 4 && c->y == g->pos) g->pos = 9;
    if (c->timer == 0) {
      c->timer = c->speed < 0 ? -c->speed : c->speed;
      c->x += c->speed > 0 ? 1 : -1;
      if (c->x < 0) c->x = 9;
      else if (c->x > 9) c->x = 0;
      if (c->x == 4 && c->y == g->pos) g->pos = 9;
    } else {
      c->timer -= 1;
    }
  }
  // timers
  g->move_timer -= g->move_timer > 0;
  g->terminate_timer -= 1;
  if (g->terminate_timer < 0) *terminal = 1;
  return r;
}

void ne__mt_freeway_observe(const mt_freeway* g, float* obs) {
  mt_set(obs, 7, g->pos, 4, 0);
  for (int i = 0; i < 8; i++) {
    const mt_car* c = &g->cars[i];
    mt_set(obs, 7, c->y, c->x, 1);
    int back_x = c->speed > 0 ? c->x - 1 : c->x + 1;
    back_x = back_x < 0 ? 9 : back_x > 9 ? 0 : back_x;
    int s = c->speed < 0 ? -c->speed : c->speed;
    // speed 0 (a sign(0) draw, probability ~2^-53) has no trail channel in freeway.py either
    if (s >= 1 && s <= 5) mt_set(obs, 7, c->y, back_x, 1 + s);
  }
}
