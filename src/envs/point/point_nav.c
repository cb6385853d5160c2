// SPDX-License-Identifier: MIT
// PointNav2D-v0: the 2-D point navigation task family of MAML's first RL benchmark (Finn, Abbeel
// and Levine 2017, "Model-Agnostic Meta-Learning for Fast Adaptation of Deep Networks", §5.3;
// cbfinn/maml_rl maml_examples/point_env_randgoal.py, run there as normalize(PointEnvRandGoal())
// with max_path_length 100; ProMP's point envs follow the same pattern). A point moves in the plane
// from the origin towards a goal it does not observe; the goal is the task.
//
// Action space: Box(-0.1, 0.1, (2,)) float32: the displacement of one step, clipped to the box.
// Observation (2, unbounded): the position (x, y) as float32.
// Reward: -||position - goal||_2 after the move.
// Start state: the origin, always (no randomness: an episode is a function of policy and task).
// Termination: |x - goal_x| < 0.01 and |y - goal_y| < 0.01 (strict). Truncation: the TimeLimit at
//   100 steps.
// Tasks: goal (goal_x, goal_y) uniform in [-0.5, 0.5]^2, drawn x first.
// set_state / get_state layout: x, y (the goal is the task: ne_env_set_task / env.task).
#include <math.h>   // sqrt (IEEE exact), fabs
#include <stdio.h>  // snprintf

#include "core/util.h"  // ne__set_error
#include "envs/envs_int.h"
#include "envs/raster.h"  // the render hook's drawing
#include "neuroevo/error.h"

#define ACT_BOUND 0.1    // the action box is [-0.1, 0.1]^2
#define GOAL_LOW (-0.5)  // goals are uniform in [GOAL_LOW, GOAL_HIGH)^2
#define GOAL_HIGH 0.5
#define DONE_DIST 0.01  // per-coordinate distance that ends the episode
#define MAX_EPISODE_STEPS 100

// the family's per-state impl
typedef struct point_nav {
  double x, y;     // position
  double goal[2];  // the task: the goal position
} point_nav;

static void pn_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  (void)spec, (void)rng;
  point_nav* s = impl;
  s->x = 0.0;
  s->y = 0.0;
}

// np.clip of a float32 action component, widened to float64 as NumPy adds it to the float64 state
static double clip_action(float a) {
  double v = (double)a;
  return v < -ACT_BOUND ? -ACT_BOUND : v > ACT_BOUND ? ACT_BOUND : v;
}

static void pn_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  point_nav* s = impl;
  s->x += clip_action(act[0]);
  s->y += clip_action(act[1]);
  double dx = s->x - s->goal[0], dy = s->y - s->goal[1];
  *reward = -sqrt(dx * dx + dy * dy);
  *terminated = fabs(dx) < DONE_DIST && fabs(dy) < DONE_DIST;
}

static void pn_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec;
  const point_nav* s = impl;
  obs[0] = (float)s->x;
  obs[1] = (float)s->y;
}

static int pn_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  if (n != spec->state_dim)
    return ne__set_error(errstr, NE_EINVAL, "%s: state needs %d values (x, y), got %d", spec->id, spec->state_dim, n);
  point_nav* s = impl;
  s->x = v[0];
  s->y = v[1];
  return 0;
}

static void pn_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  const point_nav* s = impl;
  v[0] = s->x;
  v[1] = s->y;
}

static void pn_sample_task(const ne_env_spec* spec, ne_rng* rng, double* task) {
  (void)spec;
  task[0] = ne_rng_range(rng, GOAL_LOW, GOAL_HIGH);
  task[1] = ne_rng_range(rng, GOAL_LOW, GOAL_HIGH);
}

static void pn_set_task(const ne_env_spec* spec, void* impl, const double* task) {
  (void)spec;
  point_nav* s = impl;
  s->goal[0] = task[0];
  s->goal[1] = task[1];
}

// the goal region (grey square), the goal (green disc) and the point (blue disc); the view spans
// [-0.7, 0.7] vertically, centred on the origin
static int pn_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                     char* errstr) {
  (void)spec, (void)ctx, (void)errstr;
  const point_nav* s = impl;
  double half_h = 0.7, half_w = half_h * width / height;
  ne_canvas c = {rgb, width, height, -half_w, -half_h, height / (2 * half_h)};
  ne__raster_clear(&c, 0xFFFFFF);
  ne__raster_rect(&c, GOAL_LOW, GOAL_LOW, GOAL_HIGH, GOAL_HIGH, 0xEEEEEE);
  ne__raster_line(&c, -half_w, 0, half_w, 0, 1.0, 0xCCCCCC);
  ne__raster_line(&c, 0, -half_h, 0, half_h, 1.0, 0xCCCCCC);
  ne__raster_disc(&c, s->goal[0], s->goal[1], 0.03, 0x2CA02C);
  ne__raster_disc(&c, s->x, s->y, 0.02, 0x1F77B4);
  return 0;
}

static const ne_env_family point_family = {
    "point", sizeof(point_nav), pn_reset, pn_step, pn_observe, pn_set_state, pn_get_state, NULL,
};

static const ne_env_hooks point_hooks = {
    .render = pn_render,
    .sample_task = pn_sample_task,
    .set_task = pn_set_task,
};

static int pn_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options, (void)errstr;
  snprintf(spec->id, sizeof spec->id, "%s", id);
  spec->family = &point_family;
  spec->hooks = &point_hooks;
  spec->obs_dim = 2;
  spec->obs_rank = 1;
  spec->obs_shape[0] = 2;
  spec->discrete = 0;
  spec->act_dim = 2;
  for (int i = 0; i < 2; i++) spec->act_low[i] = (float)-ACT_BOUND, spec->act_high[i] = (float)ACT_BOUND;
  spec->max_episode_steps = MAX_EPISODE_STEPS;
  spec->state_dim = 2;
  spec->task_dim = 2;
  spec->task_names = "goal_x,goal_y";
  spec->task_desc = "goal (goal_x, goal_y) uniform in [-0.5, 0.5]^2 (MAML's 2-D navigation)";
  return 0;
}

const ne_env_entry ne__point_envs[] = {
    {"PointNav2D-v0",
     "MAML's 2-D navigation: a point steps from the origin towards an unseen goal; reward -distance; obs 2 "
     "(position), act Box(-0.1, 0.1, (2,))",
     pn_make},
    {NULL, NULL, NULL},
};
