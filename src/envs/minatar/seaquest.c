// SPDX-License-Identifier: MIT
// MinAtar Seaquest (Young & Tian 2019; PyPI minatar 1.0.15, minatar/environments/seaquest.py),
// rule for rule, quirks included: entity lists are updated newest first (Python's reversed());
// an enemy sub removed during its update may still fire that step; surfacing with 6 divers leaves
// the diver count at -1 (the reference sets it to 0 and then subtracts one). The family wrapper
// (minatar.c) adds sticky actions and the action sets.
//
// Action space: 6 actions (noop, left, up, right, down, fire) in both sets; the sub moves one cell
//   in rows 0-8 and fires at most every 5 steps, forward.
// Observation: 10x10x10 binary (HWC): 0 sub front, 1 sub back, 2 friendly bullet, 3 trail,
//   4 enemy bullet, 5 enemy fish, 6 enemy sub, 7 oxygen gauge, 8 diver gauge (row 9), 9 diver.
// Reward: +1 per enemy shot; surfacing with 6 divers adds oxygen * 10 // 200.
// Start state: sub at (0, 5) facing left with full oxygen (200); an enemy spawns every 20 steps
//   (a sub with probability 1/3) in rows 1-8 unless a row holds one going the other way; a diver
//   every 30 steps.
// Difficulty ramp (on by default): each surfacing lowers the spawn interval by 1 and, every other
//   time, the enemy move interval (5 at first) by 1, down to 1 and 2.
// Termination: contact with an enemy fish, sub or bullet; oxygen at 0; surfacing with no diver.
//   No episode limit of its own.
#include <string.h>

#include "envs/minatar/minatar_int.h"

#define MAX_OXYGEN 200
#define INIT_SPAWN_SPEED 20
#define DIVER_SPAWN_SPEED 30
#define INIT_MOVE_INTERVAL 5
#define SHOT_COOL_DOWN 5
#define ENEMY_SHOT_INTERVAL 10
#define DIVER_MOVE_INTERVAL 5

// ---- entity lists (Python lists: append at the end, remove keeping the order) ----

static void push(mt_seaquest* g, mt_sq_list* l, mt_sq_obj o) {
  if (l->n >= MT_SQ_CAP) {
    g->n_dropped++;
    return;
  }
  l->v[l->n++] = o;
}

static void remove_at(mt_sq_list* l, int i) {
  memmove(&l->v[i], &l->v[i + 1], (size_t)(l->n - i - 1) * sizeof l->v[0]);
  l->n--;
}

// index of the first element of l on cell (x, y), or -1
static int find_at(const mt_sq_list* l, int x, int y) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i].x == x && l->v[i].y == y) return i;
  return -1;
}

static int on_sub(const mt_seaquest* g, const mt_sq_obj* o) { return o->x == g->sub_x && o->y == g->sub_y; }

void ne__mt_seaquest_reset(mt_seaquest* g) {
  memset(g, 0, sizeof *g);
  g->oxygen = MAX_OXYGEN;
  g->sub_x = 5;
  g->e_spawn_speed = INIT_SPAWN_SPEED;
  g->e_spawn_timer = g->e_spawn_speed;
  g->d_spawn_timer = DIVER_SPAWN_SPEED;
  g->move_speed = INIT_MOVE_INTERVAL;
  g->surface = 1;
}

// ---- spawns ----

static void spawn_enemy(mt_seaquest* g, ne_rng* rng) {
  int lr = ne_rng_uniform(rng) < 0.5;
  int is_sub = ne_rng_uniform(rng) < 1.0 / 3.0;
  int y = 1 + (int)ne_rng_below(rng, 8);  // randint(low=1, high=9)
  // not in a row that holds an enemy going the other way
  for (int i = 0; i < g->e_subs.n; i++)
    if (g->e_subs.v[i].y == y && g->e_subs.v[i].right != lr) return;
  for (int i = 0; i < g->e_fish.n; i++)
    if (g->e_fish.v[i].y == y && g->e_fish.v[i].right != lr) return;
  mt_sq_obj o = {.x = lr ? 0 : 9, .y = y, .right = lr, .timer = g->move_speed, .shot = ENEMY_SHOT_INTERVAL};
  push(g, is_sub ? &g->e_subs : &g->e_fish, o);
}

static void spawn_diver(mt_seaquest* g, ne_rng* rng) {
  int lr = ne_rng_uniform(rng) < 0.5;
  int y = 1 + (int)ne_rng_below(rng, 8);
  push(g, &g->divers, (mt_sq_obj){.x = lr ? 0 : 9, .y = y, .right = lr, .timer = DIVER_MOVE_INTERVAL});
}

// ---- updates, in seaquest.py's order ----

// friendly bullets fly one cell; one that meets a fish (first) or a sub takes it out
static int update_f_bullets(mt_seaquest* g) {
  int r = 0;
  for (int i = g->f_bullets.n - 1; i >= 0; i--) {
    mt_sq_obj* b = &g->f_bullets.v[i];
    b->x += b->right ? 1 : -1;
    if (b->x < 0 || b->x > 9) {
      remove_at(&g->f_bullets, i);
      continue;
    }
    int j = find_at(&g->e_fish, b->x, b->y);
    mt_sq_list* hit = &g->e_fish;
    if (j < 0) j = find_at(&g->e_subs, b->x, b->y), hit = &g->e_subs;
    if (j >= 0) {
      remove_at(hit, j);
      remove_at(&g->f_bullets, i);
      r += 1;
    }
  }
  return r;
}

// divers drift every 5 steps; the sub picks up one it touches while it holds fewer than 6
static void update_divers(mt_seaquest* g) {
  for (int i = g->divers.n - 1; i >= 0; i--) {
    mt_sq_obj* d = &g->divers.v[i];
    if (on_sub(g, d) && g->diver_count < 6) {
      remove_at(&g->divers, i);
      g->diver_count += 1;
    } else if (d->timer == 0) {
      d->timer = DIVER_MOVE_INTERVAL;
      d->x += d->right ? 1 : -1;
      if (d->x < 0 || d->x > 9) {
        remove_at(&g->divers, i);
      } else if (on_sub(g, d) && g->diver_count < 6) {
        remove_at(&g->divers, i);
        g->diver_count += 1;
      }
    } else {
      d->timer -= 1;
    }
  }
}

// an enemy (fish or sub) moves on its timer; contact ends the game, a friendly bullet on its new
// cell takes both out. Returns the reward; *removed says whether the enemy left its list.
static int move_enemy(mt_seaquest* g, mt_sq_list* list, int i, mt_sq_obj* e, int* terminal, int* removed) {
  *removed = 0;
  if (on_sub(g, e)) *terminal = 1;
  if (e->timer != 0) {
    e->timer -= 1;
    return 0;
  }
  e->timer = g->move_speed;
  e->x += e->right ? 1 : -1;
  if (e->x < 0 || e->x > 9) {
    *removed = 1;
  } else if (on_sub(g, e)) {
    *terminal = 1;
  } else {
    int j = find_at(&g->f_bullets, e->x, e->y);
    if (j >= 0) {
      remove_at(&g->f_bullets, j);
      remove_at(list, i);
      *removed = 1;
      return 1;
    }
  }
  if (*removed) remove_at(list, i);
  return 0;
}

// enemy subs: move as above, then fire on their own timer (even a sub just removed, as in
// seaquest.py, whose loop keeps using the removed list element)
static int update_e_subs(mt_seaquest* g, int* terminal) {
  int r = 0;
  for (int i = g->e_subs.n - 1; i >= 0; i--) {
    mt_sq_obj s = g->e_subs.v[i];
    int removed;
    r += move_enemy(g, &g->e_subs, i, &s, terminal, &removed);
    if (s.shot == 0) {
      s.shot = ENEMY_SHOT_INTERVAL;
      push(g, &g->e_bullets, (mt_sq_obj){.x = s.x, .y = s.y, .right = s.right});
    } else {
      s.shot -= 1;
    }
    if (!removed) g->e_subs.v[i] = s;
  }
  return r;
}

static int update_e_fish(mt_seaquest* g, int* terminal) {
  int r = 0;
  for (int i = g->e_fish.n - 1; i >= 0; i--) {
    mt_sq_obj f = g->e_fish.v[i];
    int removed;
    r += move_enemy(g, &g->e_fish, i, &f, terminal, &removed);
    if (!removed) g->e_fish.v[i] = f;
  }
  return r;
}

// enemy bullets fly one cell per step; contact before or after ends the game
static void update_e_bullets(mt_seaquest* g, int* terminal) {
  for (int i = g->e_bullets.n - 1; i >= 0; i--) {
    mt_sq_obj* b = &g->e_bullets.v[i];
    if (on_sub(g, b)) *terminal = 1;
    b->x += b->right ? 1 : -1;
    if (b->x < 0 || b->x > 9) remove_at(&g->e_bullets, i);
    else if (on_sub(g, b)) *terminal = 1;
  }
}

// _surface: 6 divers pay out the oxygen and leave; otherwise one diver is used up; oxygen refills
static int surface(mt_seaquest* g, int ramping) {
  int r = 0;
  g->surface = 1;
  if (g->diver_count == 6) {
    g->diver_count = 0;
    r = g->oxygen * 10 / MAX_OXYGEN;
  }
  g->oxygen = MAX_OXYGEN;
  g->diver_count -= 1;
  if (ramping && (g->e_spawn_speed > 1 || g->move_speed > 2)) {
    if (g->move_speed > 2 && g->ramp_index % 2) g->move_speed -= 1;
    if (g->e_spawn_speed > 1) g->e_spawn_speed -= 1;
    g->ramp_index += 1;
  }
  return r;
}

int ne__mt_seaquest_act(mt_seaquest* g, int a, ne_rng* rng, int ramping, int* terminal) {
  int r = 0;
  if (g->e_spawn_timer == 0) {
    spawn_enemy(g, rng);
    g->e_spawn_timer = g->e_spawn_speed;
  }
  if (g->d_spawn_timer == 0) {
    spawn_diver(g, rng);
    g->d_spawn_timer = DIVER_SPAWN_SPEED;
  }
  // the player
  if (a == MT_FIRE && g->shot_timer == 0) {
    push(g, &g->f_bullets, (mt_sq_obj){.x = g->sub_x, .y = g->sub_y, .right = g->sub_or});
    g->shot_timer = SHOT_COOL_DOWN;
  } else if (a == MT_LEFT) {
    g->sub_x = g->sub_x > 0 ? g->sub_x - 1 : 0;
    g->sub_or = 0;
  } else if (a == MT_RIGHT) {
    g->sub_x = g->sub_x < 9 ? g->sub_x + 1 : 9;
    g->sub_or = 1;
  } else if (a == MT_UP) {
    g->sub_y = g->sub_y > 0 ? g->sub_y - 1 : 0;
  } else if (a == MT_DOWN) {
    g->sub_y = g->sub_y < 8 ? g->sub_y + 1 : 8;
  }
  r += update_f_bullets(g);
  update_divers(g);
  r += update_e_subs(g, terminal);
  update_e_bullets(g, terminal);
  r += update_e_fish(g, terminal);

  // timers, oxygen and surfacing
  g->e_spawn_timer -= g->e_spawn_timer > 0;
  g->d_spawn_timer -= g->d_spawn_timer > 0;
  g->shot_timer -= g->shot_timer > 0;
  if (g->oxygen <= 0) *terminal = 1;
  if (g->sub_y > 0) {
    g->oxygen -= 1;
    g->surface = 0;
  } else if (!g->surface) {
    if (g->diver_count == 0) *terminal = 1;
    else r += surface(g, ramping);
  }
  return r;
}

// the trail cell behind a moving object, if on the board
static void trail(float* obs, const mt_sq_obj* o) {
  int back_x = o->right ? o->x - 1 : o->x + 1;
  if (back_x >= 0 && back_x <= 9) mt_set(obs, 10, o->y, back_x, 3);
}

void ne__mt_seaquest_observe(const mt_seaquest* g, float* obs) {
  mt_set(obs, 10, g->sub_y, g->sub_x, 0);
  // the back is always on the board: the sub cannot face away from a wall it stands at
  int back_x = g->sub_or ? g->sub_x - 1 : g->sub_x + 1;
  if (back_x >= 0 && back_x <= 9) mt_set(obs, 10, g->sub_y, back_x, 1);
  int oxy = (g->oxygen > 0 ? g->oxygen : 0) * 10 / MAX_OXYGEN;
  for (int x = 0; x < oxy; x++) mt_set(obs, 10, 9, x, 7);
  // state[9, 9-diver_count:9]: empty for a count <= 0 (the -1 after a full surfacing included)
  for (int x = 9 - g->diver_count; x < 9; x++)
    if (x >= 0 && x <= 9) mt_set(obs, 10, 9, x, 8);
  for (int i = 0; i < g->f_bullets.n; i++) mt_set(obs, 10, g->f_bullets.v[i].y, g->f_bullets.v[i].x, 2);
  for (int i = 0; i < g->e_bullets.n; i++) mt_set(obs, 10, g->e_bullets.v[i].y, g->e_bullets.v[i].x, 4);
  for (int i = 0; i < g->e_fish.n; i++)
    mt_set(obs, 10, g->e_fish.v[i].y, g->e_fish.v[i].x, 5), trail(obs, &g->e_fish.v[i]);
  for (int i = 0; i < g->e_subs.n; i++)
    mt_set(obs, 10, g->e_subs.v[i].y, g->e_subs.v[i].x, 6), trail(obs, &g->e_subs.v[i]);
  for (int i = 0; i < g->divers.n; i++)
    mt_set(obs, 10, g->divers.v[i].y, g->divers.v[i].x, 9), trail(obs, &g->divers.v[i]);
}
