// SPDX-License-Identifier: MIT
// MinAtar Breakout (Young & Tian 2019; PyPI minatar 1.0.15, minatar/environments/breakout.py),
// rule for rule. The family wrapper (minatar.c) adds sticky actions and the action sets.
//
// Action space: full set (noop, left, up, right, down, fire) or the minimal one (noop, left,
//   right); only left/right move the paddle along row 9.
// Observation: 10x10x4 binary (HWC): 0 paddle, 1 ball, 2 trail (the ball's previous cell),
//   3 bricks.
// Reward: +1 per brick broken (at most one per step: a ball that struck a brick last step passes
//   through the next one). When the ball reaches row 9 with no bricks left, rows 1-3 refill.
// Start state: bricks in rows 1-3, paddle at column 4, ball at row 3 in column 0 moving
//   down-right or column 9 moving down-left (equal odds).
// Termination: the ball reaches row 9 past the paddle. No truncation of its own (MinAtar sets no
//   episode limit: a config's env.max_episode_steps caps a paddle that never misses).
#include <string.h>

#include "envs/minatar/minatar_int.h"

// direction after a bounce, indexed by the current direction (breakout.py's lists)
static const int FLIP_X[4] = {1, 0, 3, 2};       // a side wall
static const int FLIP_Y[4] = {3, 2, 1, 0};       // ceiling, brick, paddle centre
static const int PADDLE_EDGE[4] = {2, 3, 0, 1};  // the paddle's edge: back the way it came

void ne__mt_breakout_reset(mt_breakout* g, ne_rng* rng) {
  memset(g, 0, sizeof *g);
  g->ball_y = 3;
  int left = ne_rng_below(rng, 2) == 0;  // random.randint(2)
  g->ball_x = left ? 0 : 9;
  g->ball_dir = left ? 2 : 3;
  g->pos = 4;
  for (int y = 1; y < 4; y++) memset(g->brick[y], 1, MT_SIZE);
  g->last_x = g->ball_x;
  g->last_y = g->ball_y;
}

static int bricks_left(const mt_breakout* g) {
  for (int y = 0; y < MT_SIZE; y++)
    for (int x = 0; x < MT_SIZE; x++)
      if (g->brick[y][x]) return 1;
  return 0;
}

int ne__mt_breakout_act(mt_breakout* g, int a, int* terminal) {
  int r = 0;
  // the paddle
  if (a == MT_LEFT) g->pos = g->pos > 0 ? g->pos - 1 : 0;
  else if (a == MT_RIGHT) g->pos = g->pos < 9 ? g->pos + 1 : 9;

  // the ball moves one cell diagonally
  g->last_x = g->ball_x;
  g->last_y = g->ball_y;
  int nx = g->ball_x + (g->ball_dir == 1 || g->ball_dir == 2 ? 1 : -1);
  int ny = g->ball_y + (g->ball_dir >= 2 ? 1 : -1);

  // walls, ceiling, bricks, paddle, in breakout.py's order
  int strike_toggle = 0;
  if (nx < 0 || nx > 9) {
    nx = nx < 0 ? 0 : 9;
    g->ball_dir = FLIP_X[g->ball_dir];
  }
  if (ny < 0) {
    ny = 0;
    g->ball_dir = FLIP_Y[g->ball_dir];
  } else if (g->brick[ny][nx]) {
    strike_toggle = 1;
    if (!g->strike) {
      r += 1;
      g->strike = 1;
      g->brick[ny][nx] = 0;
      ny = g->last_y;
      g->ball_dir = FLIP_Y[g->ball_dir];
    }
  } else if (ny == 9) {
    if (!bricks_left(g))
      for (int y = 1; y < 4; y++) memset(g->brick[y], 1, MT_SIZE);
    if (g->ball_x == g->pos) {
      g->ball_dir = FLIP_Y[g->ball_dir];
      ny = g->last_y;
    } else if (nx == g->pos) {
      g->ball_dir = PADDLE_EDGE[g->ball_dir];
      ny = g->last_y;
    } else {
      *terminal = 1;
    }
  }
  if (!strike_toggle) g->strike = 0;
  g->ball_x = nx;
  g->ball_y = ny;
  return r;
}

void ne__mt_breakout_observe(const mt_breakout* g, float* obs) {
  mt_set(obs, 4, g->ball_y, g->ball_x, 1);
  mt_set(obs, 4, 9, g->pos, 0);
  mt_set(obs, 4, g->last_y, g->last_x, 2);
  for (int y = 0; y < MT_SIZE; y++)
    for (int x = 0; x < MT_SIZE; x++)
      if (g->brick[y][x]) mt_set(obs, 4, y, x, 3);
}
