// SPDX-License-Identifier: MIT
// BipedalWalker-v3 and BipedalWalkerHardcore-v3, following Gymnasium 1.4.0
// box2d/bipedal_walker.py over Box2D 2.3 (pybox2d's, the engine of Gymnasium's box2d 2.3.10
// wheel): the same terrain generator (grass, and in hardcore stumps, pits and stairs), decorative
// clouds, hull, legs, motors, lidar, shaping reward and termination, computed in the same order and
// precision, so that from the same random draws and actions an episode is Gymnasium's bit for bit
// (tests/py_box2d_compare.py).
//
// Action space: Box(-1, 1, (4,)) float32: hip and knee motors of both legs; the sign chooses the
//   motor speed direction (hip 4, knee 6 rad/s), |a| clipped to 1 the torque (times 80).
// Observation (24, float32): hull angle, angular velocity (2w/FPS), vx, vy (scaled), then per
//   leg hip angle, hip speed / 4, knee angle + 1, knee speed / 6, ground contact (0/1), then 10
//   lidar fractions in [0, 1] (rays from the hull down and forward, 160/30 m long, ground only).
// Reward: the change of shaping = 130 x / 30 - 5 |hull angle|, minus 0.00035 * 80 * min(|a|, 1)
//   per motor (float32 arithmetic, as NumPy's weak scalars make it in Gymnasium); -100 when the
//   hull touches the ground or x < 0. Threshold 300.
// Start state: random terrain of 200 steps of 14/30 m; the walker on the start pad pushed by a
//   horizontal force U(-5, 5); reset runs one no-op step, as Gymnasium's.
// Termination: the hull touches the ground or x < 0 (-100), or the walker passes the end of the
//   terrain. Truncation: the TimeLimit at 1600 steps (hardcore: 2000).
// Random draws, in Gymnasium's order (what `neuroevo trace --draws` / ne_env_reset_draws replay),
//   all in reset, none in steps. The terrain, step i = 0..199 of _generate_terrain: on grass past
//   the start pad (i > 20) a slope change uniform(-1, 1), except on a run's first step; in
//   hardcore, when an obstacle starts, a pit's width integers(3, 5), a stump's size
//   integers(1, 3), or the stairs' direction random(), width integers(4, 5) and step count
//   integers(3, 5); whenever the counter runs out, the next run's length integers(5, 10), then in
//   hardcore after grass the next state integers(1, 5). Then 10 clouds, each a position
//   uniform(0, 200) then 5 points of two uniform(0, 70/30) (x, y); then the initial force
//   uniform(-5, 5). So a plain walker's reset takes about 160 slope changes, a run length per
//   ended run, 110 cloud values and the force.
// A new world at every reset, where Gymnasium keeps one b2World per env and destroys the bodies:
//   there, the broad phase's tree recycles the freed nodes, so a reset leaves other proxy ids than
//   a new world's, and those decide the order in which Box2D creates and solves later contacts: an
//   episode depends on the episodes before it in the same env (a world kept that way here replays
//   a reused Gymnasium env's episodes bit for bit). It shows in distributions, not only in single
//   episodes: BipedalWalker-v3 under random actions, the first 200 steps, reset seed and actions'
//   default_rng both S = 100001..103000, Gymnasium in fresh envs against one reused env (2105 of
//   the 3000 episodes end with another return): the hull angle at a fall, mean 0.104 vs -0.047
//   rad, KS D = 0.064, p = 0.0006 (1990 and 2022 falls); returns p = 0.03 (and 0.016, 0.0002 with
//   bench/peers/box2d_stats.py's seeds 20 and 21). Here an episode must be a pure function of its
//   seed, whichever thread's env state runs it, so every episode is Gymnasium's episode in a fresh
//   env, and statistics are to be compared with Gymnasium's fresh envs.
#include <math.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/box2d/box2d_int.h"
#include "envs/raster.h"
#include "neuroevo/error.h"

#define FPS 50
#define SCALE 30.0
#define MOTORS_TORQUE 80
#define SPEED_HIP 4
#define SPEED_KNEE 6
#define LIDAR_RANGE (160 / SCALE)
#define INITIAL_RANDOM 5
#define LEG_DOWN (-8 / SCALE)
#define LEG_W (8 / SCALE)
#define LEG_H (34 / SCALE)
#define VIEWPORT_W 600
#define VIEWPORT_H 400
#define TERRAIN_STEP (14 / SCALE)
#define TERRAIN_LENGTH 200
#define TERRAIN_HEIGHT (VIEWPORT_H / SCALE / 4)
#define TERRAIN_GRASS 10
#define TERRAIN_STARTPAD 20
#define FRICTION 2.5
#define MAX_TERRAIN_BODIES 512  // 199 edges + the obstacles of hardcore terrain (about 100 at most)
#define N_CLOUDS (TERRAIN_LENGTH / 20)
#define REWARD_THRESHOLD 300.0

enum { TAG_GROUND = 1, TAG_HULL = 2, TAG_LEG = 3 };  // legs are TAG_LEG + 0..3
enum { GRASS, STUMP, STAIRS, PIT, N_STATES };        // terrain generator states

static const float HULL_POLY[5][2] = {{-30, 9}, {6, 9}, {34, 1}, {34, -8}, {-30, -8}};

typedef struct walker {
  ne__b2_draws draws;                        // random values (first member: ne__box2d_status)
  ne__b2_world* world;                       // owned (state_init / state_free); emptied at every reset
  ne__b2_body* terrain[MAX_TERRAIN_BODIES];  // static bodies of this episode
  int n_terrain;                             // used entries of terrain
  ne__b2_body* hull;                         // the body
  ne__b2_body* legs[4];                      // upper left, lower left, upper right, lower right
  ne__b2_joint* joints[4];                   // hip, knee, hip, knee
  int game_over;                             // the hull touched something
  int ground_contact[4];                     // per leg (only the lower legs are observed)
  int has_prev;                              // prev_shaping is set
  double prev_shaping;                       // shaping of the previous step
  float lidar[10];                           // fractions of the last step
  double terrain_x[TERRAIN_LENGTH], terrain_y[TERRAIN_LENGTH];  // the ground line, for drawing
  double cloud_x[N_CLOUDS][5], cloud_y[N_CLOUDS][5];            // decorative clouds, for drawing
} walker;

static void on_contact(void* user, int a, int b, int begin) {
  walker* s = user;
  if (begin && (a == TAG_HULL || b == TAG_HULL)) s->game_over = 1;
  // Gymnasium tracks the lower legs (legs[1], legs[3]) only
  for (int i = 1; i < 4; i += 2)
    if (a == TAG_LEG + i || b == TAG_LEG + i) s->ground_contact[i] = begin;
}

static int bw_state_init(const ne_env_spec* spec, void* impl) {
  (void)spec;
  walker* s = impl;
  s->world = ne__b2_world_create(0.0f, -10.0f, on_contact, s);
  return s->world ? 0 : NE_ENOMEM;
}

static void bw_state_free(const ne_env_spec* spec, void* impl) {
  (void)spec;
  walker* s = impl;
  ne__b2_world_destroy(s->world);
  s->world = NULL;
}

// a static quad of terrain (fd_polygon: friction 2.5, category 1)
static void add_block(walker* s, const double* xs, const double* ys) {
  if (s->n_terrain >= MAX_TERRAIN_BODIES) return;
  float poly[8];
  for (int i = 0; i < 4; i++) poly[2 * i] = (float)xs[i], poly[2 * i + 1] = (float)ys[i];
  ne__b2_body* b = ne__b2_body_create(s->world, 0, 0.0f, 0.0f, 0.0f, TAG_GROUND);
  const ne__b2_fixture fd = {0.0f, (float)FRICTION, 0.0f, 0x0001, 0xFFFF};
  ne__b2_add_polygon(b, poly, 4, &fd);
  s->terrain[s->n_terrain++] = b;
}

// the obstacles one generator state places when it starts (oneshot); updates counter/original_y
static void obstacle(walker* s, int state, double x, double y, int* counter, double* original_y, int* stair_steps,
                     int* stair_width, int* stair_height) {
  const double T = TERRAIN_STEP;
  ne__b2_draws* d = &s->draws;
  if (state == PIT) {
    *counter = ne__b2_integers(d, 3, 5, "a pit's width");
    double xs[4] = {x, x + T, x + T, x}, ys[4] = {y, y, y - 4 * T, y - 4 * T};
    add_block(s, xs, ys);
    for (int i = 0; i < 4; i++) xs[i] += T * *counter;
    add_block(s, xs, ys);
    *counter += 2;
    *original_y = y;
  } else if (state == STUMP) {
    *counter = ne__b2_integers(d, 1, 3, "a stump's size");
    double c = *counter;
    double xs[4] = {x, x + c * T, x + c * T, x}, ys[4] = {y, y, y + c * T, y + c * T};
    add_block(s, xs, ys);
  } else if (state == STAIRS) {
    *stair_height = ne__b2_random(d, "the stairs' direction") > 0.5 ? 1 : -1;
    *stair_width = ne__b2_integers(d, 4, 5, "the stairs' width");
    *stair_steps = ne__b2_integers(d, 3, 5, "the stairs' step count");
    *original_y = y;
    for (int k = 0; k < *stair_steps; k++) {
      double xa = x + k * *stair_width * T, xb = x + (1 + k) * *stair_width * T;
      double ya = y + k * *stair_height * T, yb = y + (-1 + k * *stair_height) * T;
      double xs[4] = {xa, xb, xb, xa}, ys[4] = {ya, ya, yb, yb};
      add_block(s, xs, ys);
    }
    *counter = *stair_steps * *stair_width;
  }
}

// _generate_terrain: the ground line and the obstacles, state machine as in Gymnasium
static void make_terrain(walker* s, int hardcore) {
  int state = GRASS, oneshot = 0, counter = TERRAIN_STARTPAD;
  int stair_steps = 0, stair_width = 0, stair_height = 0;
  double velocity = 0.0, y = TERRAIN_HEIGHT, original_y = 0.0;
  for (int i = 0; i < TERRAIN_LENGTH; i++) {
    double x = i * TERRAIN_STEP;
    s->terrain_x[i] = x;
    if (state == GRASS && !oneshot) {
      velocity = 0.8 * velocity + 0.01 * ((TERRAIN_HEIGHT > y) - (TERRAIN_HEIGHT < y));
      if (i > TERRAIN_STARTPAD) velocity += ne__b2_uniform(&s->draws, -1.0, 1.0, "a slope change") / SCALE;
      y += velocity;
    } else if (oneshot && state != GRASS) {
      obstacle(s, state, x, y, &counter, &original_y, &stair_steps, &stair_width, &stair_height);
    } else if (state == PIT && !oneshot) {
      y = original_y;
      if (counter > 1) y -= 4 * TERRAIN_STEP;
    } else if (state == STAIRS && !oneshot) {
      int k = stair_steps * stair_width - counter - stair_height;
      double n = (double)k / stair_width;
      y = original_y + n * stair_height * TERRAIN_STEP;
    }
    oneshot = 0;
    s->terrain_y[i] = y;
    counter -= 1;
    if (counter == 0) {
      counter = ne__b2_integers(&s->draws, TERRAIN_GRASS / 2, TERRAIN_GRASS, "a run's length");
      state = state == GRASS && hardcore ? ne__b2_integers(&s->draws, 1, N_STATES, "the next terrain state") : GRASS;
      oneshot = 1;
    }
  }
  // the ground line: one static edge body per step (fd_edge: friction 2.5, category 1)
  const ne__b2_fixture edge = {0.0f, (float)FRICTION, 0.0f, 0x0001, 0xFFFF};
  for (int i = 0; i < TERRAIN_LENGTH - 1 && s->n_terrain < MAX_TERRAIN_BODIES; i++) {
    ne__b2_body* b = ne__b2_body_create(s->world, 0, 0.0f, 0.0f, 0.0f, TAG_GROUND);
    ne__b2_add_edge(b, (float)s->terrain_x[i], (float)s->terrain_y[i], (float)s->terrain_x[i + 1],
                    (float)s->terrain_y[i + 1], &edge);
    s->terrain[s->n_terrain++] = b;
  }
}

// _generate_clouds: decoration only, but their draws come before the walker's
static void make_clouds(walker* s) {
  for (int c = 0; c < N_CLOUDS; c++) {
    double x = ne__b2_uniform(&s->draws, 0.0, TERRAIN_LENGTH, "a cloud's position") * TERRAIN_STEP;
    double y = VIEWPORT_H / SCALE * 3 / 4;
    for (int a = 0; a < 5; a++) {
      s->cloud_x[c][a] = x + 15 * TERRAIN_STEP * sin(3.14 * 2 * a / 5) +
          ne__b2_uniform(&s->draws, 0.0, 5 * TERRAIN_STEP, "a cloud point's x");
      s->cloud_y[c][a] = y + 5 * TERRAIN_STEP * cos(3.14 * 2 * a / 5) +
          ne__b2_uniform(&s->draws, 0.0, 5 * TERRAIN_STEP, "a cloud point's y");
    }
  }
}

// the hull and the four leg segments with their motors
static void make_walker(walker* s) {
  const double init_x = TERRAIN_STEP * TERRAIN_STARTPAD / 2, init_y = TERRAIN_HEIGHT + 2 * LEG_H;
  s->hull = ne__b2_body_create(s->world, 1, (float)init_x, (float)init_y, 0.0f, TAG_HULL);
  float poly[10];
  for (int i = 0; i < 5; i++)
    poly[2 * i] = (float)(HULL_POLY[i][0] / SCALE), poly[2 * i + 1] = (float)(HULL_POLY[i][1] / SCALE);
  const ne__b2_fixture hull_fd = {5.0f, 0.1f, 0.0f, 0x0020, 0x0001};
  ne__b2_add_polygon(s->hull, poly, 5, &hull_fd);
  double force = ne__b2_uniform(&s->draws, -INITIAL_RANDOM, INITIAL_RANDOM, "the initial force");
  ne__b2_body_force_to_center(s->hull, (float)force, 0.0f);

  const ne__b2_fixture leg_fd = {1.0f, 0.2f, 0.0f, 0x0020, 0x0001};
  for (int k = 0; k < 2; k++) {
    int i = k == 0 ? -1 : 1;
    ne__b2_body* leg = ne__b2_body_create(s->world, 1, (float)init_x, (float)(init_y - LEG_H / 2 - LEG_DOWN),
                                          (float)(i * 0.05), TAG_LEG + 2 * k);
    ne__b2_add_box(leg, (float)(LEG_W / 2), (float)(LEG_H / 2), &leg_fd);
    s->joints[2 * k] = ne__b2_revolute_create(s->world, s->hull, leg, 0.0f, (float)LEG_DOWN, 0.0f, (float)(LEG_H / 2),
                                              MOTORS_TORQUE, (float)i, -0.8f, 1.1f);
    ne__b2_body* lower = ne__b2_body_create(s->world, 1, (float)init_x, (float)(init_y - LEG_H * 3 / 2 - LEG_DOWN),
                                            (float)(i * 0.05), TAG_LEG + 2 * k + 1);
    ne__b2_add_box(lower, (float)(0.8 * LEG_W / 2), (float)(LEG_H / 2), &leg_fd);
    s->joints[2 * k + 1] = ne__b2_revolute_create(s->world, leg, lower, 0.0f, (float)(-LEG_H / 2), 0.0f,
                                                  (float)(LEG_H / 2), MOTORS_TORQUE, 1.0f, -1.6f, -0.1f);
    s->legs[2 * k] = leg;
    s->legs[2 * k + 1] = lower;
  }
}

static void bw_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  walker* s = impl;
  // torque control: the sign picks the speed's direction, |a| the torque
  for (int j = 0; j < 4; j++) {
    float a = act[j];
    int speed = j % 2 == 0 ? SPEED_HIP : SPEED_KNEE;
    float sign = (float)((a > 0) - (a < 0));
    ne__b2_joint_set_motor(s->joints[j], (float)speed * sign,
                           (float)(MOTORS_TORQUE * ne__b2_clipf(fabsf(a), 0.0f, 1.0f)));
  }
  ne__b2_world_step(s->world, 1.0f / FPS, 6 * 30, 2 * 30);

  float px, py;
  ne__b2_body_position(s->hull, &px, &py);
  for (int i = 0; i < 10; i++) {
    double x2 = px + sin(1.5 * i / 10.0) * LIDAR_RANGE, y2 = py - cos(1.5 * i / 10.0) * LIDAR_RANGE;
    s->lidar[i] = ne__b2_world_raycast(s->world, px, py, (float)x2, (float)y2, 0x0001);
  }
  double angle = ne__b2_body_angle(s->hull);
  double shaping = 130 * (double)px / SCALE - 5.0 * fabs(angle);
  // Python float minus np.float32 is float32 under NumPy 2, so the costs are taken in float32
  float r = (float)(s->has_prev ? shaping - s->prev_shaping : 0.0);
  s->prev_shaping = shaping;
  s->has_prev = 1;
  for (int j = 0; j < 4; j++) r -= (float)(0.00035 * MOTORS_TORQUE) * ne__b2_clipf(fabsf(act[j]), 0.0f, 1.0f);

  *reward = r;
  *terminated = 0;
  if (s->game_over || px < 0) {
    *reward = -100;
    *terminated = 1;
  }
  if (px > (TERRAIN_LENGTH - TERRAIN_GRASS) * TERRAIN_STEP) *terminated = 1;
}

static void bw_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  walker* s = impl;
  ne__b2_draws_begin(&s->draws, spec, rng);
  // a new world (see the top comment): the previous episode's bodies and joints go with the old one
  ne__b2_world_reset(s->world);
  s->n_terrain = 0;
  s->hull = NULL;
  memset(s->legs, 0, sizeof s->legs);
  s->game_over = 0;
  memset(s->ground_contact, 0, sizeof s->ground_contact);
  s->has_prev = 0;
  make_terrain(s, spec->params[0] != 0);
  make_clouds(s);
  make_walker(s);
  const float noop[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  double r;
  int term;
  bw_step(spec, s, noop, &r, &term);
}

static void bw_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec;
  const walker* s = impl;
  float vx, vy;
  ne__b2_body_velocity(s->hull, &vx, &vy);
  double st[14] = {
      ne__b2_body_angle(s->hull),
      2.0 * ne__b2_body_angular_velocity(s->hull) / FPS,
      0.3 * vx * (VIEWPORT_W / SCALE) / FPS,
      0.3 * vy * (VIEWPORT_H / SCALE) / FPS,
      ne__b2_joint_angle(s->joints[0]),
      (double)ne__b2_joint_speed(s->joints[0]) / SPEED_HIP,
      ne__b2_joint_angle(s->joints[1]) + 1.0,
      (double)ne__b2_joint_speed(s->joints[1]) / SPEED_KNEE,
      s->ground_contact[1] ? 1.0 : 0.0,
      ne__b2_joint_angle(s->joints[2]),
      (double)ne__b2_joint_speed(s->joints[2]) / SPEED_HIP,
      ne__b2_joint_angle(s->joints[3]) + 1.0,
      (double)ne__b2_joint_speed(s->joints[3]) / SPEED_KNEE,
      s->ground_contact[3] ? 1.0 : 0.0,
  };
  for (int i = 0; i < 14; i++) obs[i] = (float)st[i];
  for (int i = 0; i < 10; i++) obs[14 + i] = s->lidar[i];
}

// fills every polygon fixture of b
static void draw_body(ne_canvas* c, const ne__b2_body* b, ne_rgb fill, ne_rgb line) {
  ne__b2_shape sh[2];
  int n = ne__b2_body_shapes(b, sh, 2);
  for (int i = 0; i < n && i < 2; i++) {
    double xs[8], ys[8];
    for (int k = 0; k < sh[i].n; k++) xs[k] = sh[i].x[k], ys[k] = sh[i].y[k];
    if (sh[i].kind == 0) ne__raster_polygon(c, xs, ys, sh[i].n, fill);
    for (int k = 0; k + 1 < sh[i].n || (sh[i].kind == 0 && k < sh[i].n); k++) {
      int j = (k + 1) % sh[i].n;
      ne__raster_line(c, xs[k], ys[k], xs[j], ys[j], 1.0, line);
    }
  }
}

// Gymnasium's picture, scrolled with the hull: sky, green ground, obstacles, lidar, the walker
static int bw_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                     char* errstr) {
  (void)spec, (void)ctx, (void)errstr;
  const walker* s = impl;
  float px = 0, py = 0;
  if (s->hull) ne__b2_body_position(s->hull, &px, &py);
  double scroll = px - VIEWPORT_W / SCALE / 5;
  ne_canvas c = {rgb, width, height, scroll, 0.0, width / (VIEWPORT_W / SCALE)};
  ne__raster_clear(&c, 0xD7D7FF);
  // the clouds scroll at half speed (Gymnasium shifts them by scroll / 2)
  for (int k = 0; k < N_CLOUDS; k++) {
    double xs[5], ys[5];
    for (int a = 0; a < 5; a++) xs[a] = s->cloud_x[k][a] + scroll / 2, ys[a] = s->cloud_y[k][a];
    ne__raster_polygon(&c, xs, ys, 5, 0xFFFFFF);
  }
  for (int i = 0; i + 1 < TERRAIN_LENGTH; i++) {
    double xs[4] = {s->terrain_x[i], s->terrain_x[i + 1], s->terrain_x[i + 1], s->terrain_x[i]};
    double ys[4] = {s->terrain_y[i], s->terrain_y[i + 1], 0.0, 0.0};
    ne__raster_polygon(&c, xs, ys, 4, 0x66994C);
  }
  for (int i = 0; i < s->n_terrain; i++) draw_body(&c, s->terrain[i], 0xFFFFFF, 0x4CFF4C);
  if (!s->hull) return 0;
  for (int i = 0; i < 10; i++) {
    double f = s->lidar[i] * LIDAR_RANGE;
    ne__raster_line(&c, px, py, px + sin(1.5 * i / 10.0) * f, py - cos(1.5 * i / 10.0) * f, 1.0, 0xFF0000);
  }
  static const ne_rgb leg_fill[4] = {0xB2659E, 0xB2659E, 0x80334D, 0x80334D};
  for (int i = 0; i < 4; i++) draw_body(&c, s->legs[i], leg_fill[i], 0x4D3333);
  draw_body(&c, s->hull, 0x7F33E5, 0x4C4C7F);
  return 0;
}

static const ne_env_family walker_family = {
    "box2d", sizeof(walker), bw_reset, bw_step, bw_observe, ne__box2d_no_set_state, ne__box2d_no_get_state, NULL,
};

static const ne_env_hooks walker_hooks = {.state_init = bw_state_init,
                                          .state_free = bw_state_free,
                                          .render = bw_render,
                                          .replay_draws = ne__box2d_replay_draws};

int ne__bipedal_walker_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  (void)errstr;
  int hardcore = strcmp(id, "BipedalWalkerHardcore-v3") == 0;
  ne__box2d_spec_init(spec, id, &walker_family, &walker_hooks, 24, hardcore ? 2000 : 1600, REWARD_THRESHOLD);
  spec->params[0] = hardcore;
  spec->act_dim = 4;
  for (int i = 0; i < 4; i++) spec->act_low[i] = -1.0f, spec->act_high[i] = 1.0f;
  return 0;
}
