// SPDX-License-Identifier: MIT
// The classic-control family's render hook (ne__classic_hooks): pictures after Gymnasium's pygame
// drawings (classic_control/*.py render()): the cart and pole, the two-link acrobot, the car on its
// hill, the pendulum. They read only Gymnasium's state vector (the family's get_state), so the env
// files need no render code of their own. World coordinates are fitted to the frame's width; the
// rasterizer is raster.c.
#include <math.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/classic/classic_int.h"
#include "envs/raster.h"
#include "neuroevo/error.h"

// a canvas whose world spans [x0, x0 + world_w] horizontally, y from y0 up
static ne_canvas canvas(unsigned char* rgb, int width, int height, double x0, double y0, double world_w) {
  ne_canvas c = {rgb, width, height, x0, y0, width / world_w};
  return c;
}

// a rectangle of half sizes (hw, hh) centred at (cx, cy), rotated by a (radians), filled
static void rotated_box(ne_canvas* c, double cx, double cy, double hw, double hh, double a, ne_rgb color) {
  double xs[4], ys[4], ca = cos(a), sa = sin(a);
  const double u[4] = {-hw, hw, hw, -hw}, v[4] = {-hh, -hh, hh, hh};
  for (int i = 0; i < 4; i++) xs[i] = cx + u[i] * ca - v[i] * sa, ys[i] = cy + u[i] * sa + v[i] * ca;
  ne__raster_polygon(c, xs, ys, 4, color);
}

// CartPole-v1: x, x_dot, theta, theta_dot; the world is 4.8 wide (twice x_threshold)
static void cartpole(const double* s, unsigned char* rgb, int w, int h) {
  const double world_w = 4.8, unit = world_w / 600;  // one of Gymnasium's 600 pixels
  ne_canvas c = canvas(rgb, w, h, -world_w / 2, 0.0, world_w);
  ne__raster_clear(&c, 0xFFFFFF);
  double cart_y = 100 * unit;  // the cart's centre line, 100 of Gymnasium's pixels up
  ne__raster_line(&c, -world_w / 2, cart_y, world_w / 2, cart_y, 1.0, 0x000000);
  ne__raster_rect(&c, s[0] - 25 * unit, cart_y - 15 * unit, s[0] + 25 * unit, cart_y + 15 * unit, 0x000000);
  // the pole: 1.0 long (2 * half length), 10 px wide, leaning by theta clockwise
  double len = 1.0;
  double ax = s[0], ay = cart_y + 7.5 * unit, th = s[2];
  rotated_box(&c, ax + sin(th) * len / 2, ay + cos(th) * len / 2, 5 * unit, len / 2, -th, 0xCA9865);
  ne__raster_disc(&c, ax, ay, 5 * unit, 0x8184CB);
}

// Acrobot-v1: theta1, theta2 (from hanging down), velocities; links of length 1, view +-2.2
static void acrobot(const double* s, unsigned char* rgb, int w, int h) {
  const double bound = 2.2;
  ne_canvas c = canvas(rgb, w, h, -bound * w / h, -bound, 2 * bound * w / h);
  ne__raster_clear(&c, 0xFFFFFF);
  ne__raster_line(&c, -2.2 * w / h, 1.0, 2.2 * w / h, 1.0, 1.0, 0x000000);  // the goal height
  double x1 = sin(s[0]), y1 = -cos(s[0]);
  double x2 = x1 + sin(s[0] + s[1]), y2 = y1 - cos(s[0] + s[1]);
  double width = 0.2 * c.scale;
  ne__raster_line(&c, 0, 0, x1, y1, width, 0x00CCCC);
  ne__raster_line(&c, x1, y1, x2, y2, width, 0x00CCCC);
  ne__raster_disc(&c, 0, 0, 0.1, 0xCCCC00);
  ne__raster_disc(&c, x1, y1, 0.1, 0xCCCC00);
}

// MountainCar-v0 / MountainCarContinuous-v0: position, velocity; hill y = 0.45 sin(3x) + 0.55
static void mountain_car(const double* s, unsigned char* rgb, int w, int h) {
  const double min_x = -1.2, max_x = 0.6, world_w = max_x - min_x;
  ne_canvas c = canvas(rgb, w, h, min_x, -0.1, world_w);
  ne__raster_clear(&c, 0xFFFFFF);
  for (int i = 0; i < 100; i++) {
    double xa = min_x + world_w * i / 100, xb = min_x + world_w * (i + 1) / 100;
    ne__raster_line(&c, xa, 0.45 * sin(3 * xa) + 0.55, xb, 0.45 * sin(3 * xb) + 0.55, 2.0, 0x000000);
  }
  // the flag at the goal position 0.5
  double fy = 0.45 * sin(3 * 0.5) + 0.55;
  ne__raster_line(&c, 0.5, fy, 0.5, fy + 0.17, 1.5, 0x000000);
  double fx[3] = {0.5, 0.5, 0.5 + 0.08}, fys[3] = {fy + 0.17, fy + 0.12, fy + 0.145};
  ne__raster_polygon(&c, fx, fys, 3, 0xCCCC00);
  // the car: tilted along the slope, 0.12 x 0.06, on its wheels
  double x = s[0], y = 0.45 * sin(3 * x) + 0.55, a = atan(1.35 * cos(3 * x));
  double ca = cos(a), sa = sin(a), lift = 0.045;
  rotated_box(&c, x - sa * lift, y + ca * lift, 0.06, 0.03, a, 0x000000);
  for (int k = -1; k <= 1; k += 2)
    ne__raster_disc(&c, x + k * 0.04 * ca - sa * 0.012, y + k * 0.04 * sa + ca * 0.012, 0.016, 0x808080);
}

// Pendulum-v1: theta (0 up), theta_dot; a rod of length 1 around the centre, view +-2.2
static void pendulum(const double* s, unsigned char* rgb, int w, int h) {
  const double bound = 2.2;
  ne_canvas c = canvas(rgb, w, h, -bound * w / h, -bound, 2 * bound * w / h);
  ne__raster_clear(&c, 0xFFFFFF);
  double x = sin(s[0]), y = cos(s[0]);
  ne__raster_line(&c, 0, 0, x, y, 0.2 * c.scale, 0xCC4D4D);
  ne__raster_disc(&c, x, y, 0.1, 0xCC4D4D);
  ne__raster_disc(&c, 0, 0, 0.05, 0x000000);
}

typedef void (*drawing)(const double*, unsigned char*, int, int);

// the drawing of a classic id, or NULL
static drawing find(const char* id) {
  if (strcmp(id, "CartPole-v1") == 0) return cartpole;
  if (strcmp(id, "Acrobot-v1") == 0) return acrobot;
  if (strcmp(id, "MountainCar-v0") == 0 || strcmp(id, "MountainCarContinuous-v0") == 0) return mountain_car;
  if (strcmp(id, "Pendulum-v1") == 0) return pendulum;
  return NULL;
}

// the hook: Gymnasium's state vector of impl, then the id's drawing
int ne__classic_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                       char* errstr) {
  (void)ctx;  // nothing kept between frames
  drawing d = find(spec->id);
  if (!d) return ne__set_error(errstr, NE_EUNSUPPORTED, "%s: no drawing for this environment", spec->id);
  double v[NE_ENV_MAX_STATE];
  spec->family->get_state(spec, impl, v);
  d(v, rgb, width, height);
  return 0;
}

const ne_env_hooks ne__classic_hooks = {.render = ne__classic_render};
