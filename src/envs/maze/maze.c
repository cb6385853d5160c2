// SPDX-License-Identifier: MIT
// HardMaze-v0: the deceptive "hard maze" of Lehman & Stanley 2011 ("Abandoning objectives:
// evolution through the search for novelty alone", Evol. Comput. 19(2)), a point robot with six
// rangefinders and four pie-slice goal radars, as the Deep GA paper's reference implementation
// runs it (Such et al. 2017; uber-research/deep-neuroevolution, gpu_implementation/gym_tensorflow/
// maze: hard_maze.txt, maze.h, tf_maze.cpp). Geometry, sensors, speed limits and the 400-step
// episode are that implementation's numbers; the code is written here. The maze is in image
// coordinates (y grows downwards), 200 x 210 units.
//
// Action space: Box(-1, 1, (2,)): a[0] turns, a[1] drives. As the reference's outputs o = (a + 1)/2
//   in [0, 1] (clipped): the angular velocity and the speed move towards (o - 0.5) * 6 by at most
//   0.2 per step and are kept within +-3 (degrees per step, units per step).
// Observation (11): 1 (the reference's bias input), the six rangefinders (-90, -45, 0, 45, 90 and
//   180 degrees from the heading, range 100) divided by 100, and four radars (1 in the 90-degree
//   pie slice, front / +90 / back / -90, that holds the goal's direction, else 0).
// Dynamics: the robot moves by speed along its heading (taken before the turn), then turns by the
//   angular velocity; a move that would bring its centre within 8 units (its radius) of a wall is
//   not made. No randomness: every episode starts at (36, 184) heading 0 (east).
// Reward: the decrease of the distance to the goal (31, 20) at each step, so the return is the
//   start distance minus the final one (164.08 - d_final): the reference's fitness, -d_final, up
//   to a constant, hence the same ranking and the same deception (the straight way up ends in a
//   dead end under the goal). Reaching the goal is ending within 10 units of it: return >= 154.08,
//   the reward threshold.
// Termination: none. Truncation: the TimeLimit at 400 steps.
// Behaviour characterization: the final (x, y) position (Lehman & Stanley's and the Deep GA
//   paper's). Rendering draws the walls, the goal, the robot and its rangefinders; behaviours
//   (e.g. a run's archive, `neuroevo render`) are drawn as dots.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/detmath.h"  // ne__sincos_turns: sin/cos without libm, bit-identical everywhere
#include "core/util.h"     // ne__set_error
#include "envs/envs_int.h"
#include "envs/raster.h"
#include "neuroevo/error.h"

// the hard maze (the reference's hard_maze.txt): walls as segments (x1, y1, x2, y2)
static const double WALLS[][4] = {
    {41, 5, 3, 8},      {3, 8, 4, 49},      {4, 49, 57, 53},   {4, 49, 7, 202},     {7, 202, 195, 198},
    {195, 198, 186, 8}, {186, 8, 39, 5},    {56, 54, 56, 157}, {57, 106, 158, 162}, {77, 201, 108, 164},
    {6, 80, 33, 121},   {192, 146, 87, 91}, {56, 55, 133, 30},
};
#define N_WALLS ((int)(sizeof WALLS / sizeof WALLS[0]))
#define START_X 36.0
#define START_Y 184.0
#define START_HEADING 0.0  // degrees, 0 = +x (east)
#define GOAL_X 31.0
#define GOAL_Y 20.0
#define GOAL_RADIUS 10.0  // ending this close to the goal reaches it (the reference's test)
#define ROBOT_RADIUS 8.0
#define RANGE 100.0     // rangefinder reach
#define MAX_SPEED 3.0   // units per step
#define MAX_TURN 3.0    // degrees per step
#define MAX_CHANGE 0.2  // largest change of speed and turn rate per step
#define GAIN 6.0        // (o - 0.5) * GAIN is the speed or turn rate the robot moves towards
#define MAX_EPISODE_STEPS 400
#define MAZE_W 200.0  // drawing extent
#define MAZE_H 210.0
#define N_RANGE 6
#define N_RADAR 4
#define OBS_DIM (1 + N_RANGE + N_RADAR)
#define STATE_DIM 5  // x, y, heading, speed, turn rate

static const double RANGE_ANGLES[N_RANGE] = {-90, -45, 0, 45, 90, -180};  // degrees from the heading

// The robot (Gymnasium-style `state`: x, y, heading in degrees [0, 360], speed, turn rate).
typedef struct maze {
  double x, y;         // centre
  double heading;      // degrees
  double speed;        // units per step
  double turn;         // degrees per step
  double goal_dist;    // distance to the goal after the last step (the next reward's reference)
  float obs[OBS_DIM];  // sensors after the last step
} maze;

// ---- geometry ---------------------------------------------------------------------------------

static double dist(double ax, double ay, double bx, double by) {
  return sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay));
}

// distance from point (px, py) to wall w (the nearer end when the projection falls outside it)
static double wall_distance(const double* w, double px, double py) {
  double dx = w[2] - w[0], dy = w[3] - w[1];
  double len2 = dx * dx + dy * dy;
  if (len2 == 0) return 0;
  double u = ((px - w[0]) * dx + (py - w[1]) * dy) / len2;
  if (u < 0 || u > 1) {
    double d1 = dist(w[0], w[1], px, py), d2 = dist(w[2], w[3], px, py);
    return d1 < d2 ? d1 : d2;
  }
  return dist(w[0] + u * dx, w[1] + u * dy, px, py);
}

static int collides(double x, double y) {
  for (int i = 0; i < N_WALLS; i++)
    if (wall_distance(WALLS[i], x, y) < ROBOT_RADIUS) return 1;
  return 0;
}

// where the ray from (x, y) to (x + rx, y + ry) first crosses wall w, as a fraction of the ray
// (strictly inside both segments, as the reference's intersection test); 2 when it does not
static double ray_hit(const double* w, double x, double y, double rx, double ry) {
  double cx = w[0], cy = w[1], ex = w[2] - w[0], ey = w[3] - w[1];
  double bot = rx * ey - ry * ex;
  if (bot == 0) return 2;  // parallel
  double r = ((y - cy) * ex - (x - cx) * ey) / bot;
  double s = ((y - cy) * rx - (x - cx) * ry) / bot;
  return r > 0 && r < 1 && s > 0 && s < 1 ? r : 2;
}

// the rangefinder at `angle` degrees from the heading: distance to the nearest wall, at most RANGE
static double rangefinder(const maze* m, double angle) {
  double s, c;
  ne__sincos_turns((m->heading + angle) / 360.0, &s, &c);
  double rx = c * RANGE, ry = s * RANGE, best = 2;
  for (int i = 0; i < N_WALLS; i++) {
    double r = ray_hit(WALLS[i], m->x, m->y, rx, ry);
    if (r < best) best = r;
  }
  return best <= 1 ? best * RANGE : RANGE;
}

// which 90-degree slice around the heading holds the goal: 0 ahead [-45, 45), 1 [45, 135), 2
// behind [135, 225), 3 [225, 315); the goal vector is rotated into the robot's frame
static int radar_slice(const maze* m) {
  double s, c;
  ne__sincos_turns(-m->heading / 360.0, &s, &c);
  double gx = GOAL_X - m->x, gy = GOAL_Y - m->y;
  double tx = c * gx - s * gy, ty = s * gx + c * gy;
  if (tx > 0 && -tx <= ty && ty < tx) return 0;
  if (ty > 0 && -ty < tx && tx <= ty) return 1;
  if (tx < 0 && ty <= -tx && ty > tx) return 2;
  return 3;  // [225, 315), and the goal's own position (the reference's angle of (0, 0) is 270)
}

static void sense(maze* m) {
  m->obs[0] = 1.0f;
  for (int i = 0; i < N_RANGE; i++) m->obs[1 + i] = (float)(rangefinder(m, RANGE_ANGLES[i]) / RANGE);
  int slice = radar_slice(m);
  for (int i = 0; i < N_RADAR; i++) m->obs[1 + N_RANGE + i] = i == slice ? 1.0f : 0.0f;
  m->goal_dist = dist(m->x, m->y, GOAL_X, GOAL_Y);
}

// ---- the family ---------------------------------------------------------------------------------

static void maze_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  (void)spec, (void)rng;  // a fixed start, as the reference's
  maze* m = impl;
  m->x = START_X, m->y = START_Y, m->heading = START_HEADING, m->speed = 0, m->turn = 0;
  sense(m);
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

// moves v towards target by at most MAX_CHANGE, then keeps it within +-limit
static double approach(double v, double target, double limit) {
  v += clampd(target - v, -MAX_CHANGE, MAX_CHANGE);
  return clampd(v, -limit, limit);
}

static void maze_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  maze* m = impl;
  // the reference's outputs in [0, 1] (NaN counts as 0.5: no change asked)
  double o[2];
  for (int i = 0; i < 2; i++) o[i] = isnan(act[i]) ? 0.5 : clampd(((double)act[i] + 1.0) * 0.5, 0, 1);
  m->turn = approach(m->turn, (o[0] - 0.5) * GAIN, MAX_TURN);
  m->speed = approach(m->speed, (o[1] - 0.5) * GAIN, MAX_SPEED);
  // move along the heading before the turn, unless a wall is in the way
  double s, c;
  ne__sincos_turns(m->heading / 360.0, &s, &c);
  double nx = m->x + c * m->speed, ny = m->y + s * m->speed;
  m->heading += m->turn;
  if (m->heading > 360) m->heading -= 360;
  if (m->heading < 0) m->heading += 360;
  if (!collides(nx, ny)) m->x = nx, m->y = ny;
  double before = m->goal_dist;
  sense(m);
  *reward = before - m->goal_dist;
  *terminated = 0;
}

static void maze_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec;
  memcpy(obs, ((const maze*)impl)->obs, sizeof((const maze*)impl)->obs);
}

static int maze_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  if (n != STATE_DIM)
    return ne__set_error(errstr, NE_EINVAL, "%s: state needs %d values (x, y, heading, speed, turn), got %d", spec->id,
                         STATE_DIM, n);
  maze* m = impl;
  m->x = v[0], m->y = v[1], m->heading = v[2], m->speed = v[3], m->turn = v[4];
  sense(m);
  return 0;
}

static void maze_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  const maze* m = impl;
  v[0] = m->x, v[1] = m->y, v[2] = m->heading, v[3] = m->speed, v[4] = m->turn;
}

// the behaviour characterization: the final position
static void maze_behaviour(const ne_env_spec* spec, const void* impl, float* out) {
  (void)spec;
  const maze* m = impl;
  out[0] = (float)m->x;
  out[1] = (float)m->y;
}

// ---- drawing ------------------------------------------------------------------------------------

// the maze fitted into the frame with a margin, y downwards as in the maze's coordinates
static ne_canvas canvas(unsigned char* rgb, int width, int height) {
  double scale = fmin(width / (MAZE_W + 10), height / (MAZE_H + 10));
  double x0 = -(width / scale - MAZE_W) / 2, y0 = -(height / scale - MAZE_H) / 2;
  ne_canvas cv = {rgb, width, height, x0, y0, scale};
  return cv;
}

// maze y (downwards) as the rasterizer's y (upwards)
static double up(const ne_canvas* cv, double y) { return cv->height / cv->scale + 2 * cv->y0 - y; }

static int maze_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                       char* errstr) {
  (void)spec, (void)ctx, (void)errstr;
  const maze* m = impl;
  ne_canvas cv = canvas(rgb, width, height);
  ne__raster_clear(&cv, 0xFFFFFF);
  double px = fmax(1.0, 1.5 * cv.scale);
  for (int i = 0; i < N_WALLS; i++)
    ne__raster_line(&cv, WALLS[i][0], up(&cv, WALLS[i][1]), WALLS[i][2], up(&cv, WALLS[i][3]), px, 0x202020);
  ne__raster_disc(&cv, GOAL_X, up(&cv, GOAL_Y), GOAL_RADIUS, 0x7FD37F);
  ne__raster_disc(&cv, START_X, up(&cv, START_Y), 2.5, 0x9090C0);
  // the rangefinders as thin rays, then the robot and its heading
  for (int i = 0; i < N_RANGE; i++) {
    double s, c, r = m->obs[1 + i] * RANGE;
    ne__sincos_turns((m->heading + RANGE_ANGLES[i]) / 360.0, &s, &c);
    ne__raster_line(&cv, m->x, up(&cv, m->y), m->x + c * r, up(&cv, m->y + s * r), 1.0, 0xF0B0B0);
  }
  double s, c;
  ne__sincos_turns(m->heading / 360.0, &s, &c);
  ne__raster_disc(&cv, m->x, up(&cv, m->y), ROBOT_RADIUS, 0x3060D0);
  ne__raster_line(&cv, m->x, up(&cv, m->y), m->x + c * ROBOT_RADIUS, up(&cv, m->y + s * ROBOT_RADIUS),
                  fmax(1.0, cv.scale), 0xFFFFFF);
  return 0;
}

// behaviours (final positions) as dots over a frame render drew
static int maze_draw_behaviours(const ne_env_spec* spec, const float* points, int n, int dim, unsigned char* rgb,
                                int width, int height, char* errstr) {
  if (dim != 2)
    return ne__set_error(errstr, NE_EINVAL, "%s: behaviours of %d floats are not (x, y) positions", spec->id, dim);
  ne_canvas cv = canvas(rgb, width, height);
  double r = fmax(0.6, 1.2 / cv.scale);
  for (int i = 0; i < n; i++) {
    double x = points[2 * i], y = points[2 * i + 1];
    if (isfinite(x) && isfinite(y)) ne__raster_disc(&cv, x, up(&cv, y), r, 0xE07020);
  }
  return 0;
}

static const ne_env_family maze_family = {
    "maze", sizeof(maze), maze_reset, maze_step, maze_observe, maze_set_state, maze_get_state, NULL,
};

static const ne_env_hooks maze_hooks = {
    .render = maze_render, .behaviour = maze_behaviour, .draw_behaviours = maze_draw_behaviours};

static int maze_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options, (void)errstr;
  snprintf(spec->id, sizeof spec->id, "%s", id);
  spec->obs_dim = OBS_DIM;
  spec->obs_rank = 1;
  spec->obs_shape[0] = OBS_DIM;
  spec->discrete = 0;
  spec->act_dim = 2;
  for (int i = 0; i < 2; i++) spec->act_low[i] = -1.0f, spec->act_high[i] = 1.0f;
  spec->max_episode_steps = MAX_EPISODE_STEPS;
  spec->has_threshold = 1;
  spec->reward_threshold = dist(START_X, START_Y, GOAL_X, GOAL_Y) - GOAL_RADIUS;
  spec->state_dim = STATE_DIM;
  spec->obs_always_finite = 1;
  spec->family = &maze_family;
  spec->hooks = &maze_hooks;
  spec->bc_native = 1;  // the final (x, y)
  spec->bc_dim = 2;
  return 0;
}

// The registry reads this table (src/envs/registry.c).
const ne_env_entry ne__maze_envs[] = {
    {"HardMaze-v0",
     "deceptive hard maze (Lehman & Stanley 2011): point robot, obs 11 (bias, 6 rangefinders, 4 goal radars), "
     "act Box(-1, 1, (2,)); return = start distance - final distance to the goal",
     maze_make},
    {NULL, NULL, NULL},
};
