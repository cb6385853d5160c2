// SPDX-License-Identifier: MIT
// The hard maze (src/envs/maze): spaces, limit and threshold; the start's sensors; a trajectory
// against the Deep GA paper's reference implementation (uber-research/deep-neuroevolution
// gpu_implementation/gym_tensorflow/maze/maze.h, stepped with the same actions by a throwaway
// harness: positions, headings and all eleven inputs at 22 steps of 400, within 1e-3 since the
// reference computes in float with libm); collisions, the telescoping return, the final position
// as behaviour, set/get_state, and the drawings (maze, behaviours).
#include <math.h>
#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "test.h"

static ne_env_spec* make(void) {
  ne_env_spec* spec = NULL;
  char err[NE_ERRSTR_LEN];
  if (ne_env_make("HardMaze-v0", NULL, &spec, err)) TEST_FAIL("%s", err);
  return spec;
}

static void test_spaces_limit_threshold(void) {
  ne_env_spec* spec = make();
  ASSERT_EQ(spec->obs_dim, 11);
  ASSERT_EQ(spec->discrete, 0);
  ASSERT_EQ(spec->act_dim, 2);
  ASSERT(spec->act_low[0] == -1 && spec->act_high[1] == 1);
  ASSERT_EQ(spec->max_episode_steps, 400);
  ASSERT_EQ(spec->has_threshold, 1);
  ASSERT_NEAR(spec->reward_threshold, sqrt(5.0 * 5.0 + 164.0 * 164.0) - 10.0, 1e-12);  // within 10 of (31, 20)
  ASSERT_EQ(spec->bc_dim, 2);
  ASSERT_EQ(spec->bc_native, 1);
  ASSERT_EQ(spec->state_dim, 5);
  ne_env_spec_destroy(spec);
}

// the reference's trajectory: step t, x, y, heading, inputs 1..10 (rangefinders, radars)
static const struct {
  int t;
  double x, y, heading;
  double in[10];
} GOLDEN[] = {
    {0,
     36.200001,
     184.000000,
     359.850006,
     {1.000000, 0.813943, 0.551644, 0.241258, 0.173778, 0.295515, 0.000000, 0.000000, 0.000000, 1.000000}},
    {1,
     36.599998,
     183.998947,
     359.722046,
     {1.000000, 0.811405, 0.548678, 0.241675, 0.173697, 0.299505, 0.000000, 0.000000, 0.000000, 1.000000}},
    {2,
     37.199993,
     183.996033,
     359.616119,
     {1.000000, 0.807937, 0.543529, 0.241971, 0.173593, 0.305497, 0.000000, 0.000000, 0.000000, 1.000000}},
    {24,
     79.797287,
     184.067871,
     2.720437,
     {0.638202, 0.604149, 0.109654, 0.088107, 0.144270, 0.732997, 0.000000, 0.000000, 0.000000, 1.000000}},
    {49,
     79.797287,
     184.067871,
     17.165144,
     {0.584650, 0.230974, 0.094694, 0.094294, 0.172605, 0.770255, 0.000000, 0.000000, 0.000000, 1.000000}},
    {74,
     79.797287,
     184.067871,
     38.433357,
     {0.580042, 0.126880, 0.087331, 0.120303, 0.212740, 0.948577, 0.000000, 0.000000, 1.000000, 0.000000}},
    {99,
     79.797287,
     184.067871,
     59.786366,
     {0.257361, 0.096459, 0.092802, 0.170401, 0.337911, 0.472895, 0.000000, 0.000000, 1.000000, 0.000000}},
    {124,
     79.797287,
     184.067871,
     74.462631,
     {0.154109, 0.088785, 0.105936, 0.190456, 0.662303, 0.802858, 0.000000, 0.000000, 1.000000, 0.000000}},
    {149,
     79.797287,
     184.067871,
     77.498978,
     {0.143271, 0.088045, 0.110100, 0.196921, 0.746009, 0.764097, 0.000000, 0.000000, 1.000000, 0.000000}},
    {174,
     79.797287,
     184.067871,
     67.067505,
     {0.191573, 0.091735, 0.098075, 0.178321, 0.442729, 0.610741, 0.000000, 0.000000, 1.000000, 0.000000}},
    {199,
     79.797287,
     184.067871,
     44.967892,
     {0.595154, 0.113944, 0.087635, 0.135844, 0.236593, 1.000000, 0.000000, 0.000000, 1.000000, 0.000000}},
    {224,
     79.797287,
     184.067871,
     16.142618,
     {0.586940, 0.241572, 0.095425, 0.093627, 0.171614, 0.765860, 0.000000, 0.000000, 0.000000, 1.000000}},
    {249,
     79.797287,
     184.067871,
     347.345764,
     {0.765912, 0.573182, 0.143771, 0.088076, 0.109875, 0.746413, 0.000000, 0.000000, 0.000000, 1.000000}},
    {274,
     79.797287,
     184.067871,
     325.323792,
     {0.418276, 0.604037, 0.329448, 0.100436, 0.090536, 0.297099, 0.000000, 0.000000, 0.000000, 1.000000}},
    {299,
     82.122208,
     182.419464,
     314.998291,
     {0.369413, 0.624913, 0.568520, 0.104455, 0.080376, 0.259827, 0.000000, 0.000000, 0.000000, 1.000000}},
    {324,
     82.122208,
     182.419464,
     318.140381,
     {0.391457, 0.607367, 0.578477, 0.100012, 0.080889, 0.276029, 0.000000, 0.000000, 0.000000, 1.000000}},
    {349,
     82.122208,
     182.419464,
     332.893646,
     {0.573303, 0.556962, 0.205451, 0.086392, 0.086938, 0.411771, 0.000000, 0.000000, 0.000000, 1.000000}},
    {374,
     82.122208,
     182.419464,
     354.274170,
     {0.665007, 0.555413, 0.114604, 0.080071, 0.111902, 0.757359, 0.000000, 0.000000, 0.000000, 1.000000}},
    {399,
     82.122208,
     182.419464,
     15.513086,
     {0.562033, 0.228031, 0.087949, 0.085509, 0.187729, 0.787897, 0.000000, 0.000000, 0.000000, 1.000000}},
};

static void actions(int t, float* a) {
  a[0] = 0.35f * sinf(0.021f * (float)t) - 0.05f;
  a[1] = 0.95f;
}

static void test_matches_reference_trajectory(void) {
  ne_env_spec* spec = make();
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 123), 0);
  ASSERT(st->obs[0] == 1.0f);
  size_t g = 0;
  ne_step_out so;
  double v[5];
  for (int t = 0; t < 400; t++) {
    float a[2];
    actions(t, a);
    ASSERT_EQ(ne_env_step(spec, st, a, &so), 0);
    ASSERT_EQ(so.terminated, 0);
    ASSERT_EQ(so.truncated, t == 399);
    if (g < sizeof GOLDEN / sizeof GOLDEN[0] && GOLDEN[g].t == t) {
      ne_env_get_state(spec, st, v);
      ASSERT_NEAR(v[0], GOLDEN[g].x, 1e-3);
      ASSERT_NEAR(v[1], GOLDEN[g].y, 1e-3);
      ASSERT_NEAR(fmod(v[2] - GOLDEN[g].heading + 540.0, 360.0) - 180.0, 0.0, 1e-3);
      for (int i = 0; i < 10; i++) ASSERT_NEAR(st->obs[1 + i], GOLDEN[g].in[i], 1e-3);
      g++;
    }
  }
  ASSERT_EQ(g, sizeof GOLDEN / sizeof GOLDEN[0]);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// the return telescopes to start distance - final distance; the behaviour is the final position;
// every reset starts the same episode
static void test_return_behaviour_and_resets(void) {
  ne_env_spec* spec = make();
  ne_env_state* st = ne_env_state_create(spec);
  double ret[2] = {0, 0}, v[5];
  float bc[2];
  for (int e = 0; e < 2; e++) {
    ASSERT_EQ(ne_env_reset(spec, st, (uint64_t)e * 77), 0);
    ne_step_out so = {0};
    for (int t = 0; !so.truncated; t++) {
      float a[2] = {0.2f * (float)((t / 40) % 3) - 0.2f, 1.0f};
      ASSERT_EQ(ne_env_step(spec, st, a, &so), 0);
      ret[e] += so.reward;
    }
    ne_env_get_state(spec, st, v);
    ASSERT_EQ(ne_env_behaviour(spec, st, bc), 0);
    ASSERT(bc[0] == (float)v[0] && bc[1] == (float)v[1]);
  }
  ASSERT(ret[0] == ret[1]);  // no randomness in the maze
  double d0 = hypot(36 - 31, 184 - 20), d1 = hypot(v[0] - 31, v[1] - 20);
  ASSERT_NEAR(ret[0], d0 - d1, 1e-9);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// driving into a wall: the move is refused, the robot stays; the state round-trips
static void test_walls_stop_the_robot(void) {
  ne_env_spec* spec = make();
  ne_env_state* st = ne_env_state_create(spec);
  char err[NE_ERRSTR_LEN];
  // 9 units left of the inner wall x = 56 (radius 8), heading east at full speed
  double s[5] = {47.0, 120.0, 0.0, 3.0, 0.0}, v[5];
  ASSERT_EQ(ne_env_set_state(spec, st, s, 5, err), 0);
  ASSERT(st->obs[3] < 0.1f);  // the front rangefinder sees the wall 9 units away
  ne_step_out so;
  float a[2] = {0.0f, 1.0f};
  ASSERT_EQ(ne_env_step(spec, st, a, &so), 0);
  ne_env_get_state(spec, st, v);
  ASSERT(v[0] == 47.0 && v[1] == 120.0);  // 3 units on would be 6 from the wall: refused
  ASSERT(so.reward == 0);
  ASSERT_EQ(ne_env_set_state(spec, st, s, 4, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "5 values");
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

static int count_color(const unsigned char* rgb, int n, unsigned char r, unsigned char g, unsigned char b) {
  int c = 0;
  for (int i = 0; i < n; i++) c += rgb[3 * i] == r && rgb[3 * i + 1] == g && rgb[3 * i + 2] == b;
  return c;
}

// the frame shows walls, goal and robot; behaviours add orange dots; bad dimensions are refused
static void test_drawings(void) {
  ne_env_spec* spec = make();
  ne_env_state* st = ne_env_state_create(spec);
  ASSERT_EQ(ne_env_reset(spec, st, 0), 0);
  enum { W = 220, H = 230 };
  static unsigned char rgb[W * H * 3];
  void* ctx = NULL;
  char err[NE_ERRSTR_LEN];
  ASSERT(ne_env_can_render(spec) && ne_env_can_draw_behaviours(spec));
  ASSERT_EQ(ne_env_render(spec, st, &ctx, rgb, W, H, err), 0);
  ASSERT_GT(count_color(rgb, W * H, 0x20, 0x20, 0x20), 500);  // walls
  ASSERT_GT(count_color(rgb, W * H, 0x7F, 0xD3, 0x7F), 200);  // the goal disc
  ASSERT_GT(count_color(rgb, W * H, 0x30, 0x60, 0xD0), 100);  // the robot
  ASSERT_EQ(count_color(rgb, W * H, 0xE0, 0x70, 0x20), 0);
  const float pts[6] = {100, 100, 150, 30, 20, 190};
  ASSERT_EQ(ne_env_draw_behaviours(spec, pts, 3, 2, rgb, W, H, err), 0);
  ASSERT_GE(count_color(rgb, W * H, 0xE0, 0x70, 0x20), 3);
  ASSERT_EQ(ne_env_draw_behaviours(spec, pts, 2, 3, rgb, W, H, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "not (x, y)");
  // other envs have no drawing of behaviours
  ne_env_spec* cp = NULL;
  ASSERT_EQ(ne_env_make("CartPole-v1", NULL, &cp, err), 0);
  ASSERT_EQ(ne_env_draw_behaviours(cp, pts, 3, 2, rgb, W, H, err), NE_EUNSUPPORTED);
  ne_env_spec_destroy(cp);
  ne_env_render_free(spec, ctx);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

TEST_MAIN(TEST_ENTRY(test_spaces_limit_threshold), TEST_ENTRY(test_matches_reference_trajectory),
          TEST_ENTRY(test_return_behaviour_and_resets), TEST_ENTRY(test_walls_stop_the_robot),
          TEST_ENTRY(test_drawings))
