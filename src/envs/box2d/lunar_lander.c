// SPDX-License-Identifier: MIT
// LunarLander-v3 and LunarLanderContinuous-v3, following Gymnasium 1.4.0
// box2d/lunar_lander.py (default gravity -10, no wind) over Box2D 2.3 (pybox2d's, the engine of
// Gymnasium's box2d 2.3.10 wheel): the same world, bodies, fixtures, joints, engine impulses with
// their random dispersion, shaping reward and termination, computed in the same order and precision,
// so that from the same random draws and actions an episode is Gymnasium's bit for bit
// (tests/py_box2d_compare.py). Render-only particles are not simulated (in Gymnasium they exist only
// with a render_mode, never touch the lander, and draw nothing from np_random).
//
// Action space: Discrete(4): 0 nothing, 1 left orientation engine, 2 main engine, 3 right
//   orientation engine; continuous: Box(-1, 1, (2,)) float32, clipped: main throttle (off below 0,
//   50%..100% above), lateral (off in [-0.5, 0.5], left below, right above, 50%..100%).
// Observation (8, float32): x and y relative to the pad (scaled by half the viewport), vx, vy
//   (scaled), angle, angular velocity (20 * w / FPS), left and right leg contact (0/1).
//   Gymnasium's bounds: [-2.5, 2.5]^2, [-10, 10]^2, [-2pi, 2pi], [-10, 10], [0, 1]^2.
// Reward: the change of shaping = -100 |(x, y)| - 100 |(vx, vy)| - 100 |angle| + 10 per leg
//   contact, minus 0.3 per frame of main engine (times its throttle) and 0.03 of a side engine;
//   -100 on a crash or leaving the screen, +100 when the lander comes to rest. Threshold 200.
// Start state: terrain of 11 chunks with heights U(0, H/2) (flat pad in the middle), the lander at
//   the top centre pushed by a force U(-1000, 1000)^2; reset runs one no-op step, as Gymnasium's.
// Termination: the body touches the ground (game over) or |x| >= 1 (-100); the body falls
//   asleep (+100). Truncation: the TimeLimit at 1000 steps.
// Random draws, in Gymnasium's order (what `neuroevo trace --draws` / ne_env_reset_draws replay):
//   reset: 12 terrain heights (np_random.uniform(0, H/2, size=12); entries 3..7 are then
//   overwritten by the pad but drawn all the same), the initial force's x then y (uniform(-1000,
//   1000) each), then the reset's no-op step's 2; every step: 2 engine dispersions (uniform(-1, 1)
//   each, drawn whether an engine fires or not). So a reset takes 16 values and each step 2.
//   Gymnasium makes a new b2World at every reset; so does this file (ne__b2_world_reset).
#include <math.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/box2d/box2d_int.h"
#include "envs/raster.h"
#include "neuroevo/error.h"

#define FPS 50
#define SCALE 30.0  // pixels per metre
#define MAIN_ENGINE_POWER 13.0
#define SIDE_ENGINE_POWER 0.6
#define INITIAL_RANDOM 1000.0
#define LEG_AWAY 20
#define LEG_DOWN 18
#define LEG_W 2
#define LEG_H 8
#define LEG_SPRING_TORQUE 40
#define SIDE_ENGINE_HEIGHT 14
#define SIDE_ENGINE_AWAY 12
#define MAIN_ENGINE_Y_LOCATION 4
#define VIEWPORT_W 600
#define VIEWPORT_H 400
#define GRAVITY (-10.0)
#define CHUNKS 11
#define W (VIEWPORT_W / SCALE)  // world width, 20 m
#define H (VIEWPORT_H / SCALE)  // world height, 13.3 m
#define MAX_EPISODE_STEPS 1000
#define REWARD_THRESHOLD 200.0

// body tags for the contact callback
enum { TAG_GROUND = 1, TAG_LANDER = 2, TAG_LEG0 = 3, TAG_LEG1 = 4 };

static const float LANDER_POLY[6][2] = {{-14, 17}, {-17, 0}, {-17, -10}, {17, -10}, {17, 0}, {14, 17}};

// one lander episode: the world and what Gymnasium keeps on `self`
typedef struct lander {
  ne__b2_draws draws;                        // random values (first member: ne__box2d_status reads it)
  ne__b2_world* world;                       // owned (state_init / state_free); emptied at every reset
  ne__b2_body* moon;                         // static terrain
  ne__b2_body* lander;                       // the craft
  ne__b2_body* legs[2];                      // left, right
  int game_over;                             // the craft's body touched something
  int leg_contact[2];                        // legs on the ground
  int has_prev;                              // prev_shaping is set
  double prev_shaping;                       // shaping of the previous step
  double helipad_x1, helipad_x2, helipad_y;  // the pad
  double chunk_x[CHUNKS], smooth_y[CHUNKS];  // terrain outline, for drawing
} lander;

static void on_contact(void* user, int a, int b, int begin) {
  lander* s = user;
  if (begin && (a == TAG_LANDER || b == TAG_LANDER)) s->game_over = 1;
  for (int i = 0; i < 2; i++)
    if (a == TAG_LEG0 + i || b == TAG_LEG0 + i) s->leg_contact[i] = begin;
}

static int ll_state_init(const ne_env_spec* spec, void* impl) {
  (void)spec;
  lander* s = impl;
  s->world = ne__b2_world_create(0.0f, (float)GRAVITY, on_contact, s);
  return s->world ? 0 : NE_ENOMEM;
}

static void ll_state_free(const ne_env_spec* spec, void* impl) {
  (void)spec;
  lander* s = impl;
  ne__b2_world_destroy(s->world);  // frees every body with it
  s->world = NULL;
}

// the terrain: random chunk heights, a flat pad in the middle, smoothed, as edge fixtures
static void make_terrain(lander* s) {
  double height[CHUNKS + 1];
  for (int i = 0; i < CHUNKS + 1; i++) height[i] = ne__b2_uniform(&s->draws, 0.0, H / 2, "a terrain height");
  for (int i = 0; i < CHUNKS; i++) s->chunk_x[i] = W / (CHUNKS - 1) * i;
  s->helipad_x1 = s->chunk_x[CHUNKS / 2 - 1];
  s->helipad_x2 = s->chunk_x[CHUNKS / 2 + 1];
  s->helipad_y = H / 4;
  for (int i = CHUNKS / 2 - 2; i <= CHUNKS / 2 + 2; i++) height[i] = s->helipad_y;
  // height[i - 1] at i = 0 is Python's height[-1], the last entry
  for (int i = 0; i < CHUNKS; i++)
    s->smooth_y[i] = 0.33 * (height[i == 0 ? CHUNKS : i - 1] + height[i] + height[i + 1]);

  s->moon = ne__b2_body_create(s->world, 0, 0.0f, 0.0f, 0.0f, TAG_GROUND);
  const ne__b2_fixture floor = {0.0f, 0.2f, 0.0f, 0x0001, 0xFFFF};  // pybox2d's default fixture
  ne__b2_add_edge(s->moon, 0.0f, 0.0f, (float)W, 0.0f, &floor);
  const ne__b2_fixture ground = {0.0f, 0.1f, 0.0f, 0x0001, 0xFFFF};
  for (int i = 0; i < CHUNKS - 1; i++)
    ne__b2_add_edge(s->moon, (float)s->chunk_x[i], (float)s->smooth_y[i], (float)s->chunk_x[i + 1],
                    (float)s->smooth_y[i + 1], &ground);
}

// the craft and its two spring-loaded legs
static void make_lander(lander* s) {
  const double x = VIEWPORT_W / SCALE / 2, y = VIEWPORT_H / SCALE;
  s->lander = ne__b2_body_create(s->world, 1, (float)x, (float)y, 0.0f, TAG_LANDER);
  float poly[12];
  for (int i = 0; i < 6; i++)
    poly[2 * i] = (float)(LANDER_POLY[i][0] / SCALE), poly[2 * i + 1] = (float)(LANDER_POLY[i][1] / SCALE);
  const ne__b2_fixture body = {5.0f, 0.1f, 0.0f, 0x0010, 0x0001};
  ne__b2_add_polygon(s->lander, poly, 6, &body);
  double fx = ne__b2_uniform(&s->draws, -INITIAL_RANDOM, INITIAL_RANDOM, "the initial force's x");
  double fy = ne__b2_uniform(&s->draws, -INITIAL_RANDOM, INITIAL_RANDOM, "the initial force's y");
  ne__b2_body_force_to_center(s->lander, (float)fx, (float)fy);

  const ne__b2_fixture leg = {1.0f, 0.2f, 0.0f, 0x0020, 0x0001};
  for (int k = 0; k < 2; k++) {
    int i = k == 0 ? -1 : 1;
    s->legs[k] =
        ne__b2_body_create(s->world, 1, (float)(x - i * LEG_AWAY / SCALE), (float)y, (float)(i * 0.05), TAG_LEG0 + k);
    ne__b2_add_box(s->legs[k], (float)(LEG_W / SCALE), (float)(LEG_H / SCALE), &leg);
    // the left leg swings in [0.4, 0.9], the right one in [-0.9, -0.4] (Python computes +0.9 - 0.5
    // in double before pybox2d rounds it to float)
    float lower = (float)(i == -1 ? 0.9 - 0.5 : -0.9), upper = (float)(i == -1 ? 0.9 : -0.9 + 0.5);
    ne__b2_revolute_create(s->world, s->lander, s->legs[k], 0.0f, 0.0f, (float)(i * LEG_AWAY / SCALE),
                           (float)(LEG_DOWN / SCALE), LEG_SPRING_TORQUE, (float)(0.3 * i), lower, upper);
  }
}

// the engines' impulses for this step; returns (m_power, s_power) through the pointers
static void fire_engines(const ne_env_spec* spec, lander* s, const float* act, double* m_power, double* s_power) {
  int continuous = spec->params[0] != 0;
  double a0 = 0, a1 = 0;
  int discrete = 0;
  if (continuous) {
    a0 = ne__b2_clipf(act[0], -1.0f, 1.0f);
    a1 = ne__b2_clipf(act[1], -1.0f, 1.0f);
  } else {
    discrete = (int)act[0];
  }
  double angle = ne__b2_body_angle(s->lander);
  double tip[2] = {sin(angle), cos(angle)}, side[2] = {-tip[1], tip[0]};
  double dispersion[2];
  for (int i = 0; i < 2; i++) dispersion[i] = ne__b2_uniform(&s->draws, -1.0, 1.0, "an engine dispersion") / SCALE;
  float px, py;
  ne__b2_body_position(s->lander, &px, &py);

  *m_power = 0.0;
  if ((continuous && a0 > 0.0) || (!continuous && discrete == 2)) {
    *m_power = continuous ? (fmin(fmax(a0, 0.0), 1.0) + 1.0) * 0.5 : 1.0;
    double ox = tip[0] * (MAIN_ENGINE_Y_LOCATION / SCALE + 2 * dispersion[0]) + side[0] * dispersion[1];
    double oy = -tip[1] * (MAIN_ENGINE_Y_LOCATION / SCALE + 2 * dispersion[0]) - side[1] * dispersion[1];
    ne__b2_body_impulse(s->lander, (float)(-ox * MAIN_ENGINE_POWER * *m_power),
                        (float)(-oy * MAIN_ENGINE_POWER * *m_power), (float)(px + ox), (float)(py + oy));
  }
  *s_power = 0.0;
  if ((continuous && fabs(a1) > 0.5) || (!continuous && (discrete == 1 || discrete == 3))) {
    double direction = continuous ? (a1 > 0) - (a1 < 0) : discrete - 2;
    *s_power = continuous ? fmin(fmax(fabs(a1), 0.5), 1.0) : 1.0;
    double ox = tip[0] * dispersion[0] + side[0] * (3 * dispersion[1] + direction * SIDE_ENGINE_AWAY / SCALE);
    double oy = -tip[1] * dispersion[0] - side[1] * (3 * dispersion[1] + direction * SIDE_ENGINE_AWAY / SCALE);
    double ix = px + ox - tip[0] * 17 / SCALE, iy = py + oy + tip[1] * SIDE_ENGINE_HEIGHT / SCALE;
    ne__b2_body_impulse(s->lander, (float)(-ox * SIDE_ENGINE_POWER * *s_power),
                        (float)(-oy * SIDE_ENGINE_POWER * *s_power), (float)ix, (float)iy);
  }
}

// Gymnasium's `state` list (float64 from Box2D's float32 values)
static void lander_state(const lander* s, double st[8]) {
  float px, py, vx, vy;
  ne__b2_body_position(s->lander, &px, &py);
  ne__b2_body_velocity(s->lander, &vx, &vy);
  st[0] = (px - VIEWPORT_W / SCALE / 2) / (VIEWPORT_W / SCALE / 2);
  st[1] = (py - (s->helipad_y + LEG_DOWN / SCALE)) / (VIEWPORT_H / SCALE / 2);
  st[2] = vx * (VIEWPORT_W / SCALE / 2) / FPS;
  st[3] = vy * (VIEWPORT_H / SCALE / 2) / FPS;
  st[4] = ne__b2_body_angle(s->lander);
  st[5] = 20.0 * ne__b2_body_angular_velocity(s->lander) / FPS;
  st[6] = s->leg_contact[0] ? 1.0 : 0.0;
  st[7] = s->leg_contact[1] ? 1.0 : 0.0;
}

static void ll_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  lander* s = impl;
  double m_power, s_power, st[8];
  fire_engines(spec, s, act, &m_power, &s_power);
  ne__b2_world_step(s->world, 1.0f / FPS, 6 * 30, 2 * 30);
  lander_state(s, st);

  // the shaping difference, then the fuel
  double shaping = -100 * sqrt(st[0] * st[0] + st[1] * st[1]) - 100 * sqrt(st[2] * st[2] + st[3] * st[3]) -
      100 * fabs(st[4]) + 10 * st[6] + 10 * st[7];
  double r = s->has_prev ? shaping - s->prev_shaping : 0.0;
  s->prev_shaping = shaping;
  s->has_prev = 1;
  r -= m_power * 0.3;
  r -= s_power * 0.03;

  *terminated = 0;
  if (s->game_over || fabs(st[0]) >= 1.0) {
    *terminated = 1;
    r = -100;
  }
  if (!ne__b2_body_awake(s->lander)) {
    *terminated = 1;
    r = +100;
  }
  *reward = r;
}

static void ll_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  lander* s = impl;
  ne__b2_draws_begin(&s->draws, spec, rng);
  // a new world, as Gymnasium's reset makes (its contact order and proxy ids start afresh)
  ne__b2_world_reset(s->world);
  s->moon = s->lander = s->legs[0] = s->legs[1] = NULL;
  s->game_over = 0;
  s->leg_contact[0] = s->leg_contact[1] = 0;
  s->has_prev = 0;
  make_terrain(s);
  make_lander(s);
  // Gymnasium's reset returns the observation of a no-op step
  const float noop[2] = {0.0f, 0.0f};
  double r;
  int term;
  ll_step(spec, s, noop, &r, &term);
}

static void ll_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec;
  double st[8];
  lander_state(impl, st);
  for (int i = 0; i < 8; i++) obs[i] = (float)st[i];
}

// draws a body's fixtures filled with `fill`, outlined with `line`
static void draw_body(ne_canvas* c, const ne__b2_body* b, ne_rgb fill, ne_rgb line) {
  ne__b2_shape shapes[4];
  int n = ne__b2_body_shapes(b, shapes, 4);
  for (int i = 0; i < n && i < 4; i++) {
    double xs[8], ys[8];
    for (int k = 0; k < shapes[i].n; k++) xs[k] = shapes[i].x[k], ys[k] = shapes[i].y[k];
    ne__raster_polygon(c, xs, ys, shapes[i].n, fill);
    for (int k = 0; k < shapes[i].n; k++) {
      int j = (k + 1) % shapes[i].n;
      ne__raster_line(c, xs[k], ys[k], xs[j], ys[j], 1.0, line);
    }
  }
}

// Gymnasium's picture: black sky over a white moon, the pad's flags, the purple craft
static int ll_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                     char* errstr) {
  (void)spec, (void)ctx, (void)errstr;
  const lander* s = impl;
  ne_canvas c = {rgb, width, height, 0.0, 0.0, width / W};
  ne__raster_clear(&c, 0xFFFFFF);
  for (int i = 0; i < CHUNKS - 1; i++) {
    double xs[4] = {s->chunk_x[i], s->chunk_x[i + 1], s->chunk_x[i + 1], s->chunk_x[i]};
    double ys[4] = {s->smooth_y[i], s->smooth_y[i + 1], H, H};
    ne__raster_polygon(&c, xs, ys, 4, 0x000000);
  }
  if (s->lander) {
    draw_body(&c, s->lander, 0x8066E6, 0x4D4D80);
    draw_body(&c, s->legs[0], 0x8066E6, 0x4D4D80);
    draw_body(&c, s->legs[1], 0x8066E6, 0x4D4D80);
  }
  for (int k = 0; k < 2; k++) {
    double x = k ? s->helipad_x2 : s->helipad_x1, y1 = s->helipad_y, y2 = y1 + 50 / SCALE;
    ne__raster_line(&c, x, y1, x, y2, 1.0, 0xFFFFFF);
    double fx[3] = {x, x, x + 25 / SCALE}, fy[3] = {y2, y2 - 10 / SCALE, y2 - 5 / SCALE};
    ne__raster_polygon(&c, fx, fy, 3, 0xCCCC00);
  }
  return 0;
}

static const ne_env_family lander_family = {
    "box2d", sizeof(lander), ll_reset, ll_step, ll_observe, ne__box2d_no_set_state, ne__box2d_no_get_state, NULL,
};

static const ne_env_hooks lander_hooks = {.state_init = ll_state_init,
                                          .state_free = ll_state_free,
                                          .render = ll_render,
                                          .replay_draws = ne__box2d_replay_draws};

int ne__lunar_lander_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  (void)errstr;
  int continuous = strcmp(id, "LunarLanderContinuous-v3") == 0;
  ne__box2d_spec_init(spec, id, &lander_family, &lander_hooks, 8, MAX_EPISODE_STEPS, REWARD_THRESHOLD);
  spec->params[0] = continuous;
  if (continuous) {
    spec->act_dim = 2;
    for (int i = 0; i < 2; i++) spec->act_low[i] = -1.0f, spec->act_high[i] = 1.0f;
  } else {
    spec->discrete = 1;
    spec->n_actions = 4;
    spec->act_dim = 1;
  }
  return 0;
}
