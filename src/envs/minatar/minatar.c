// SPDX-License-Identifier: MIT
// The MinAtar family (Young & Tian 2019; PyPI minatar 1.0.15): the registry table of the five
// games under MinAtar/<Game>-v0 (full action set) and -v1 (minimal action set), as minatar/gym.py
// registers them, and the wrapper of minatar/environment.py around the per-game files: sticky
// actions (probability 0.1 by default: the previous action is repeated), the action set mapping,
// the difficulty ramp switch, and the game's own random stream.
//
// Observation: 10x10xC floats in {0, 1} (obs_rank 3, HWC), C per game (4, 4, 7, 10, 6).
// Reward, termination: the game's (see each file). MinAtar sets no episode limit of its own
// (Freeway ends itself after 2500 steps); env.max_episode_steps adds one.
// Differences from the reference, by design: the random stream is ours (the same distributions,
// not numpy's bits), and the sticky-action memory restarts at noop on every reset (the reference
// keeps the previous episode's last action), so an episode is a pure function of its seed.
#include <stdio.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/minatar/minatar_int.h"
#include "neuroevo/error.h"

#define DEFAULT_STICKY 0.1  // Environment(sticky_action_prob=0.1)

// spec->params layout
enum { P_STICKY = 0, P_RAMPING = 1, P_GAME = 2, P_MINIMAL = 3 };

// One row per game: its name in ids, channels and minimal action set (full-set actions).
typedef struct mt_game {
  const char* name;  // as in MinAtar/<name>-v1
  int channels;      // C of the 10x10xC observation
  int minimal[MT_N_ACTIONS];
  int n_minimal;
} mt_game;

enum { G_ASTERIX, G_BREAKOUT, G_FREEWAY, G_SEAQUEST, G_INVADERS, N_GAMES };
static const mt_game GAMES[N_GAMES] = {
    [G_ASTERIX] = {"Asterix", 4, {MT_NOOP, MT_LEFT, MT_UP, MT_RIGHT, MT_DOWN}, 5},
    [G_BREAKOUT] = {"Breakout", 4, {MT_NOOP, MT_LEFT, MT_RIGHT}, 3},
    [G_FREEWAY] = {"Freeway", 7, {MT_NOOP, MT_UP, MT_DOWN}, 3},
    [G_SEAQUEST] = {"Seaquest", 10, {MT_NOOP, MT_LEFT, MT_UP, MT_RIGHT, MT_DOWN, MT_FIRE}, 6},
    [G_INVADERS] = {"SpaceInvaders", 6, {MT_NOOP, MT_LEFT, MT_RIGHT, MT_FIRE}, 4},
};

static void mt_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  mt_state* s = impl;
  s->game = (int)spec->params[P_GAME];
  // the game draws from its own stream, split off the reset stream
  ne_rng_seed(&s->rng, ne_rng_u64(rng));
  s->last_action = MT_NOOP;
  s->terminal = 0;
  switch (s->game) {
    case G_ASTERIX: ne__mt_asterix_reset(&s->g.asterix, &s->rng); break;
    case G_BREAKOUT: ne__mt_breakout_reset(&s->g.breakout, &s->rng); break;
    case G_FREEWAY: ne__mt_freeway_reset(&s->g.freeway, &s->rng); break;
    case G_SEAQUEST: ne__mt_seaquest_reset(&s->g.seaquest); break;
    default: ne__mt_invaders_reset(&s->g.invaders); break;
  }
}

static void mt_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  mt_state* s = impl;
  int ramping = spec->params[P_RAMPING] != 0;
  // the action set, then sticky actions over full-set actions (Environment.act)
  int a = (int)act[0];
  if (spec->params[P_MINIMAL] != 0) a = GAMES[s->game].minimal[a];
  if (spec->params[P_STICKY] > 0 && ne_rng_uniform(&s->rng) < spec->params[P_STICKY]) a = s->last_action;
  s->last_action = a;
  int r = 0, term = 0;
  switch (s->game) {
    case G_ASTERIX: r = ne__mt_asterix_act(&s->g.asterix, a, &s->rng, ramping, &term); break;
    case G_BREAKOUT: r = ne__mt_breakout_act(&s->g.breakout, a, &term); break;
    case G_FREEWAY: r = ne__mt_freeway_act(&s->g.freeway, a, &s->rng, &term); break;
    case G_SEAQUEST: r = ne__mt_seaquest_act(&s->g.seaquest, a, &s->rng, ramping, &term); break;
    default: r = ne__mt_invaders_act(&s->g.invaders, a, ramping, &term); break;
  }
  s->terminal |= term;
  *reward = r;
  *terminated = s->terminal;
}

static void mt_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  const mt_state* s = impl;
  memset(obs, 0, (size_t)spec->obs_dim * sizeof *obs);
  switch (s->game) {
    case G_ASTERIX: ne__mt_asterix_observe(&s->g.asterix, obs); break;
    case G_BREAKOUT: ne__mt_breakout_observe(&s->g.breakout, obs); break;
    case G_FREEWAY: ne__mt_freeway_observe(&s->g.freeway, obs); break;
    case G_SEAQUEST: ne__mt_seaquest_observe(&s->g.seaquest, obs); break;
    default: ne__mt_invaders_observe(&s->g.invaders, obs); break;
  }
}

// MinAtar has no flat state vector to set (entity lists); tests set up positions through
// minatar_int.h instead
static int mt_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  (void)impl, (void)v, (void)n;
  return ne__set_error(errstr, NE_EINVAL, "%s: MinAtar games have no settable state vector", spec->id);
}

static void mt_get_state(const ne_env_spec* spec, const void* impl, double* v) { (void)spec, (void)impl, (void)v; }

static const ne_env_family minatar_family = {
    "minatar", sizeof(mt_state), mt_reset, mt_step, mt_observe, mt_set_state, mt_get_state, NULL,
};

static void mt_set_pixel_options(ne_env_spec* spec, double sticky_prob, int ramping);
static int mt_scripted_action(const ne_env_spec* spec, const float* obs);

// the pixel options (ne_env_set_pixel_options) and the scripted policies (ne_env_scripted_action)
static const ne_env_hooks minatar_hooks = {.set_pixel_options = mt_set_pixel_options,
                                           .scripted_action = mt_scripted_action};

int ne__mt_game_of(const ne_env_spec* spec) {
  return spec && spec->family == &minatar_family ? (int)spec->params[P_GAME] : -1;
}

// the game and action set named by an id "MinAtar/<Game>-v0|v1"
static int parse_id(const char* id, int* game, int* minimal) {
  const char* name = id + strlen("MinAtar/");
  for (int g = 0; g < N_GAMES; g++) {
    size_t n = strlen(GAMES[g].name);
    if (strncmp(name, GAMES[g].name, n) != 0 || strncmp(name + n, "-v", 2) != 0) continue;
    if (name[n + 2] != '0' && name[n + 2] != '1') continue;
    *game = g;
    *minimal = name[n + 2] == '1';
    return 0;
  }
  return -1;
}

static int mt_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  int game, minimal;
  if (parse_id(id, &game, &minimal)) return ne__set_error(errstr, NE_ENOTFOUND, "%s: not a MinAtar id", id);
  (void)options;  // the TimeLimit override is env.c's; sticky/ramping: mt_set_pixel_options
  const mt_game* g = &GAMES[game];
  snprintf(spec->id, sizeof spec->id, "%s", id);
  spec->obs_dim = MT_SIZE * MT_SIZE * g->channels;
  spec->obs_rank = 3;
  spec->obs_shape[0] = MT_SIZE, spec->obs_shape[1] = MT_SIZE, spec->obs_shape[2] = g->channels;
  spec->discrete = 1;
  spec->n_actions = minimal ? g->n_minimal : MT_N_ACTIONS;
  spec->act_dim = 1;
  spec->max_episode_steps = 0;  // MinAtar registers no TimeLimit
  spec->family = &minatar_family;
  spec->hooks = &minatar_hooks;
  spec->params[P_STICKY] = DEFAULT_STICKY;
  spec->params[P_RAMPING] = 1;
  spec->params[P_GAME] = game;
  spec->params[P_MINIMAL] = minimal;
  return 0;
}

// The registry reads this table (src/envs/registry.c): v0 the full action set, v1 the minimal one.
const ne_env_entry ne__minatar_envs[] = {
    {"MinAtar/Asterix-v0", "MinAtar Asterix 10x10x4, full action set (6); dodge enemies, pick up gold", mt_make},
    {"MinAtar/Asterix-v1", "MinAtar Asterix 10x10x4, minimal action set (5)", mt_make},
    {"MinAtar/Breakout-v0", "MinAtar Breakout 10x10x4, full action set (6); +1 per brick", mt_make},
    {"MinAtar/Breakout-v1", "MinAtar Breakout 10x10x4, minimal action set (3)", mt_make},
    {"MinAtar/Freeway-v0", "MinAtar Freeway 10x10x7, full action set (6); +1 per crossing, 2500 steps", mt_make},
    {"MinAtar/Freeway-v1", "MinAtar Freeway 10x10x7, minimal action set (3)", mt_make},
    {"MinAtar/Seaquest-v0", "MinAtar Seaquest 10x10x10, full action set (6); shoot, rescue divers, surface", mt_make},
    {"MinAtar/Seaquest-v1", "MinAtar Seaquest 10x10x10, minimal action set (6)", mt_make},
    {"MinAtar/SpaceInvaders-v0", "MinAtar SpaceInvaders 10x10x6, full action set (6); +1 per alien", mt_make},
    {"MinAtar/SpaceInvaders-v1", "MinAtar SpaceInvaders 10x10x6, minimal action set (4)", mt_make},
    {NULL, NULL, NULL},
};

// the set_pixel_options hook: sticky-action probability (0: the default 0.1, < 0: off) and ramp
static void mt_set_pixel_options(ne_env_spec* spec, double sticky_prob, int ramping) {
  spec->params[P_STICKY] = sticky_prob == 0 ? DEFAULT_STICKY : sticky_prob < 0 ? 0 : sticky_prob;
  spec->params[P_RAMPING] = ramping != 0;
}

int ne__mt_action_index(const ne_env_spec* spec, int full_action) {
  int game = ne__mt_game_of(spec);
  if (game < 0) return -1;
  if (spec->params[P_MINIMAL] == 0) return full_action;
  for (int i = 0; i < GAMES[game].n_minimal; i++)
    if (GAMES[game].minimal[i] == full_action) return i;
  return -1;
}

// ---- scripted policies (tests/py_minatar_compare.py mirrors them line for line) -----------------

// cell (y, x) of channel c
static int at(const float* obs, int n_ch, int y, int x, int c) { return obs[(y * MT_SIZE + x) * n_ch + c] != 0; }

// the first cell of channel c in row-major order; 0 if none
static int find(const float* obs, int n_ch, int c, int* y, int* x) {
  for (int i = 0; i < MT_SIZE * MT_SIZE; i++)
    if (obs[i * n_ch + c] != 0) return *y = i / MT_SIZE, *x = i % MT_SIZE, 1;
  return 0;
}

// toward column target from column x: left, right, or `same`
static int toward(int x, int target, int same) { return target < x ? MT_LEFT : target > x ? MT_RIGHT : same; }

// Breakout: keep the paddle under the ball
static int scripted_breakout(const float* obs) {
  int by, bx, py, px;
  if (!find(obs, 4, 1, &by, &bx) || !find(obs, 4, 0, &py, &px)) return MT_NOOP;
  return toward(px, bx, MT_NOOP);
}

// Asterix: of noop/left/up/right/down, the move whose cell has no enemy on or beside it in its
// row and lies nearest (Manhattan) to a gold; the first such move on ties
static int scripted_asterix(const float* obs) {
  static const int DX[5] = {0, -1, 0, 1, 0}, DY[5] = {0, 0, -1, 0, 1};
  int py, px;
  if (!find(obs, 4, 0, &py, &px)) return MT_NOOP;
  int best = 0, best_score = -1000;
  for (int m = 0; m < 5; m++) {
    int y = py + DY[m], x = px + DX[m];
    y = y < 1 ? 1 : y > 8 ? 8 : y;
    x = x < 0 ? 0 : x > 9 ? 9 : x;
    int score = 0;
    for (int dx = -1; dx <= 1; dx++)
      if (x + dx >= 0 && x + dx <= 9 && at(obs, 4, y, x + dx, 1)) score = -100;
    int nearest = 100;
    for (int gy = 0; gy < MT_SIZE; gy++)
      for (int gx = 0; gx < MT_SIZE; gx++)
        if (at(obs, 4, gy, gx, 3)) {
          int d = (gy > y ? gy - y : y - gy) + (gx > x ? gx - x : x - gx);
          if (d < nearest) nearest = d;
        }
    score -= nearest;
    if (score > best_score) best = m, best_score = score;
  }
  return best;  // moves 0-4 are MT_NOOP..MT_DOWN
}

// Freeway: up, waiting while a car is on the chicken's column or one beside it in the row above
static int scripted_freeway(const float* obs) {
  int cy, cx;
  if (!find(obs, 7, 0, &cy, &cx)) return MT_UP;
  int y = cy - 1;
  if (y >= 0)
    for (int x = 3; x <= 5; x++)
      if (at(obs, 7, y, x, 1)) return MT_NOOP;
  return MT_UP;
}

// Seaquest: surface when the oxygen gauge is down to 2 cells, dive from the surface, otherwise
// face the nearest enemy in the sub's row and fire, or patrol down to row 5
static int scripted_seaquest(const float* obs) {
  int sy, sx;
  if (!find(obs, 10, 0, &sy, &sx)) return MT_NOOP;
  int oxygen = 0;
  for (int x = 0; x < MT_SIZE; x++) oxygen += at(obs, 10, 9, x, 7);
  if (oxygen <= 2 && sy > 0) return MT_UP;
  if (sy == 0) return MT_DOWN;
  for (int d = 1; d < MT_SIZE; d++)
    for (int side = -1; side <= 1; side += 2) {
      int x = sx + side * d;
      if (x >= 0 && x <= 9 && (at(obs, 10, sy, x, 5) || at(obs, 10, sy, x, 6))) {
        int facing_right = sx > 0 && at(obs, 10, sy, sx - 1, 1);
        return (side > 0) == facing_right ? MT_FIRE : (side > 0 ? MT_RIGHT : MT_LEFT);
      }
    }
  return sy < 5 ? MT_DOWN : MT_FIRE;
}

// SpaceInvaders: step aside from an enemy bullet in the cannon's column (rows 5-8), else get under
// the nearest column holding an alien (lower column on ties) and fire
static int scripted_invaders(const float* obs) {
  int py, px;
  if (!find(obs, 6, 0, &py, &px)) return MT_NOOP;
  for (int y = 5; y <= 8; y++)
    if (at(obs, 6, y, px, 5)) return px > 0 ? MT_LEFT : MT_RIGHT;
  for (int d = 0; d < MT_SIZE; d++)
    for (int side = -1; side <= 1; side += 2) {
      int x = px + side * d;
      if (x < 0 || x > 9) continue;
      for (int y = 0; y < MT_SIZE; y++)
        if (at(obs, 6, y, x, 1)) return toward(px, x, MT_FIRE);
    }
  return MT_FIRE;
}

int ne__mt_scripted_action(int game, const float* obs, int n_ch) {
  (void)n_ch;  // each game knows its channel count
  switch (game) {
    case G_ASTERIX: return scripted_asterix(obs);
    case G_BREAKOUT: return scripted_breakout(obs);
    case G_FREEWAY: return scripted_freeway(obs);
    case G_SEAQUEST: return scripted_seaquest(obs);
    default: return scripted_invaders(obs);
  }
}

// the scripted_action hook: the game's scripted action, as an index into the spec's action set (a
// full-set action the minimal set lacks plays noop, index 0)
static int mt_scripted_action(const ne_env_spec* spec, const float* obs) {
  int idx = ne__mt_action_index(spec, ne__mt_scripted_action(ne__mt_game_of(spec), obs, spec->obs_shape[2]));
  return idx < 0 ? 0 : idx;
}
