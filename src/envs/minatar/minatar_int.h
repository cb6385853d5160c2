// SPDX-License-Identifier: MIT
// What the MinAtar files share (not public API): each game's state struct and its reset / act /
// observe, written once per game file (asterix.c, breakout.c, freeway.c, seaquest.c,
// space_invaders.c), and the family wrapper's per-instance state (minatar.c), which adds sticky
// actions, the action sets and the game's own random stream. Tests include this header to set up
// positions directly.
#ifndef NEUROEVO_ENVS_MINATAR_INT_H
#define NEUROEVO_ENVS_MINATAR_INT_H

#include <stdint.h>

#include "envs/envs_int.h"
#include "neuroevo/rng.h"

#define MT_SIZE 10  // the board is MT_SIZE x MT_SIZE cells

// MinAtar's full action set, in its action_map order ['n','l','u','r','d','f'].
enum { MT_NOOP = 0, MT_LEFT = 1, MT_UP = 2, MT_RIGHT = 3, MT_DOWN = 4, MT_FIRE = 5, MT_N_ACTIONS = 6 };

// Sets cell (y, x) of channel c in an HWC observation of n_ch channels.
static inline void mt_set(float* obs, int n_ch, int y, int x, int c) { obs[(y * MT_SIZE + x) * n_ch + c] = 1.0f; }

// ---- Asterix (4 channels: player, enemy, trail, gold) ----
#define MT_ASTERIX_SLOTS 8  // one entity per row 1..8
typedef struct mt_entity {
  int x, y;   // position
  int right;  // 1: moves right (spawned on the left)
  int gold;   // 1: treasure (+1 when touched), 0: enemy (terminal when touched)
  int alive;  // 0: the slot is empty (Python's None)
} mt_entity;
typedef struct mt_asterix {
  int player_x, player_y;
  mt_entity entities[MT_ASTERIX_SLOTS];  // slot i lives in row i + 1
  int spawn_speed, spawn_timer;          // steps between spawns, and until the next
  int move_speed, move_timer;            // steps between entity moves, and until the next
  int ramp_timer, ramp_index;            // difficulty ramp
} mt_asterix;

// ---- Breakout (4 channels: paddle, ball, trail, brick) ----
typedef struct mt_breakout {
  int ball_x, ball_y, ball_dir;     // dir 0: up-left, 1: up-right, 2: down-right, 3: down-left
  int pos;                          // paddle column (row 9)
  uint8_t brick[MT_SIZE][MT_SIZE];  // (y, x) brick map
  int strike;                       // a brick was hit last step (no second hit in a row)
  int last_x, last_y;               // previous ball position (the trail)
} mt_breakout;

// ---- Freeway (7 channels: chicken, car, speed1..speed5 trails) ----
typedef struct mt_car {
  int x, y;   // position (row y = car index + 1)
  int timer;  // steps until the next move
  int speed;  // signed: direction, and |speed| = steps between moves (0 only on a sign(0) draw)
} mt_car;
typedef struct mt_freeway {
  mt_car cars[8];
  int pos;              // chicken row (column 4)
  int move_timer;       // steps until the chicken may move again
  int terminate_timer;  // steps left (terminal when it drops below 0)
} mt_freeway;

// ---- Seaquest (10 channels) ----
#define MT_SQ_CAP 64  // capacity of each entity list (far above what the spawn rates allow)
typedef struct mt_sq_obj {
  int x, y;   // position
  int right;  // direction (1: moving right)
  int timer;  // steps until the next move (fish, subs, divers)
  int shot;   // steps until the next shot (enemy subs)
} mt_sq_obj;
typedef struct mt_sq_list {
  mt_sq_obj v[MT_SQ_CAP];
  int n;
} mt_sq_list;
typedef struct mt_seaquest {
  int oxygen, diver_count;
  int sub_x, sub_y, sub_or;  // player position; sub_or 1 = facing right
  mt_sq_list f_bullets, e_bullets, e_fish, e_subs, divers;
  int e_spawn_speed, e_spawn_timer, d_spawn_timer;
  int move_speed, ramp_index, shot_timer;
  int surface;         // 1 while at the surface after surfacing (no second surfacing)
  uint64_t n_dropped;  // spawns dropped because a list was full (never in practice)
} mt_seaquest;

// ---- SpaceInvaders (6 channels) ----
typedef struct mt_invaders {
  int pos;                             // cannon column (row 9)
  uint8_t f_bullet[MT_SIZE][MT_SIZE];  // (y, x) friendly bullets
  uint8_t e_bullet[MT_SIZE][MT_SIZE];  // (y, x) enemy bullets
  uint8_t alien[MT_SIZE][MT_SIZE];     // (y, x) aliens
  int alien_dir;                       // -1 left, +1 right
  int enemy_move_interval, alien_move_timer, alien_shot_timer;
  int ramp_index, shot_timer;
} mt_invaders;

// The family wrapper's state: the Environment class of minatar/environment.py around one game.
typedef struct mt_state {
  ne_rng rng;       // the game's own stream, seeded from the reset stream
  int last_action;  // sticky actions: the previous full-set action (0 after reset)
  int terminal;     // the game ended (MinAtar's env.terminal)
  int game;         // index into the game table (minatar.c)
  union {
    mt_asterix asterix;
    mt_breakout breakout;
    mt_freeway freeway;
    mt_seaquest seaquest;
    mt_invaders invaders;
  } g;
} mt_state;

// Per-game entry points: reset to the start state; act with a full-set action (returns the
// reward, sets *terminal); observe into a zeroed 10x10xC observation.
void ne__mt_asterix_reset(mt_asterix* g, ne_rng* rng);
int ne__mt_asterix_act(mt_asterix* g, int a, ne_rng* rng, int ramping, int* terminal);
void ne__mt_asterix_observe(const mt_asterix* g, float* obs);
void ne__mt_breakout_reset(mt_breakout* g, ne_rng* rng);
int ne__mt_breakout_act(mt_breakout* g, int a, int* terminal);
void ne__mt_breakout_observe(const mt_breakout* g, float* obs);
void ne__mt_freeway_reset(mt_freeway* g, ne_rng* rng);
int ne__mt_freeway_act(mt_freeway* g, int a, ne_rng* rng, int* terminal);
void ne__mt_freeway_observe(const mt_freeway* g, float* obs);
void ne__mt_seaquest_reset(mt_seaquest* g);
int ne__mt_seaquest_act(mt_seaquest* g, int a, ne_rng* rng, int ramping, int* terminal);
void ne__mt_seaquest_observe(const mt_seaquest* g, float* obs);
void ne__mt_invaders_reset(mt_invaders* g);
int ne__mt_invaders_act(mt_invaders* g, int a, int ramping, int* terminal);
void ne__mt_invaders_observe(const mt_invaders* g, float* obs);

// A scripted policy per game for the reference comparison (tests/py_minatar_compare.py and
// `neuroevo rollouts --policy scripted`): a full-set action from the observation alone, mirrored
// line for line by the Python side. game is the table index; n_ch its channel count.
int ne__mt_scripted_action(int game, const float* obs, int n_ch);

// The game index of a MinAtar spec (params[2]), or -1 for any other env.
int ne__mt_game_of(const ne_env_spec* spec);

// The env action (index into the spec's action set) of a full-set action, or -1 when the set
// lacks it (or spec is not MinAtar).
int ne__mt_action_index(const ne_env_spec* spec, int full_action);

#endif
