// SPDX-License-Identifier: MIT
// Unit tests of the Box2D family (src/envs/box2d): the four ids and their spaces, seeded
// determinism, terminated vs truncated, no set_state, rendering, and Gymnasium's heuristic lander
// controller (lunar_lander.py `heuristic`, re-implemented here) landing both lander variants.
//
// `test_box2d returns ENV_ID POLICY EPISODES SEED [MAX_STEPS]` prints one line per episode instead:
// its return, length, terminated flag, last reward and final observation (POLICY: heuristic or
// random; bench/peers/box2d_stats.py compares those with Gymnasium's), and
// `test_box2d replay ENV_ID [MAX_STEPS]` runs the lines of stdin in one env state ("reset V..."
// resets from those replayed draws, "step A..." steps), printing "obs...,reward,terminated,truncated"
// per line: tests/py_box2d_compare.py and the bench compare consecutive episodes of one env with
// Gymnasium's.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/rng.h"
#include "test.h"

#ifndef NE_HAVE_BOX2D
// CI installs Box2D through scripts/install-deps: a build without it fails here instead of skipping
int main(void) {
  fprintf(stderr, "Box2D was not found at configure time: run scripts/install-deps and reconfigure\n");
  return 1;
}
#else

static ne_env_spec* make_env(const char* id, int max_steps) {
  char err[NE_ERRSTR_LEN] = "";
  ne_env_spec* spec = NULL;
  ne_env_options opt = {max_steps, 0, 0};
  int rc = ne_env_make(id, &opt, &spec, err);
  if (rc) TEST_FAIL("ne_env_make(%s): %d %s", id, rc, err);
  return spec;
}

// Gymnasium's heuristic(env, s) for LunarLander, discrete and continuous
static void lander_heuristic(const ne_env_spec* spec, const float* s, float* a) {
  double angle_targ = s[0] * 0.5 + s[2] * 1.0;
  if (angle_targ > 0.4) angle_targ = 0.4;
  if (angle_targ < -0.4) angle_targ = -0.4;
  double hover_targ = 0.55 * fabs(s[0]);
  double angle_todo = (angle_targ - s[4]) * 0.5 - s[5] * 1.0;
  double hover_todo = (hover_targ - s[1]) * 0.5 - s[3] * 0.5;
  if (s[6] != 0 || s[7] != 0) {
    angle_todo = 0;
    hover_todo = -s[3] * 0.5;
  }
  if (!spec->discrete) {
    a[0] = (float)fmin(fmax(hover_todo * 20 - 1, -1.0), 1.0);
    a[1] = (float)fmin(fmax(-angle_todo * 20, -1.0), 1.0);
    return;
  }
  a[0] = 0;
  if (hover_todo > fabs(angle_todo) && hover_todo > 0.05) a[0] = 2;
  else if (angle_todo < -0.05) a[0] = 3;
  else if (angle_todo > +0.05) a[0] = 1;
}

// a uniform action of the space from rng
static void random_action(const ne_env_spec* spec, ne_rng* rng, float* a) {
  if (spec->discrete) {
    a[0] = (float)ne_rng_below(rng, (uint64_t)spec->n_actions);
    return;
  }
  for (int i = 0; i < spec->act_dim; i++) a[i] = (float)ne_rng_range(rng, spec->act_low[i], spec->act_high[i]);
}

// one episode's return; *steps gets its length, *last_term whether it terminated, *last_reward the
// final step's reward (Nullable; the episode's final observation stays in st->obs)
static double episode(const ne_env_spec* spec, ne_env_state* st, uint64_t seed, int heuristic, ne_rng* rng, int* steps,
                      int* last_term, double* last_reward) {
  ASSERT_EQ(ne_env_reset(spec, st, seed), 0);
  double ret = 0;
  ne_step_out out = {0, 0, 0};
  float a[NE_ENV_MAX_ACT];
  *steps = 0;
  while (!out.terminated && !out.truncated) {
    if (heuristic) lander_heuristic(spec, st->obs, a);
    else random_action(spec, rng, a);
    ASSERT_EQ(ne_env_step(spec, st, a, &out), 0);
    ret += out.reward;
    (*steps)++;
  }
  *last_term = out.terminated;
  if (last_reward) *last_reward = out.reward;
  return ret;
}

static void test_ids_and_spaces(void) {
  static const char* ids[4] = {"LunarLander-v3", "LunarLanderContinuous-v3", "BipedalWalker-v3",
                               "BipedalWalkerHardcore-v3"};
  static const int obs[4] = {8, 8, 24, 24}, limit[4] = {1000, 1000, 1600, 2000}, act[4] = {1, 2, 4, 4};
  for (int i = 0; i < 4; i++) {
    ne_env_spec* spec = make_env(ids[i], 0);
    ASSERT_EQ(spec->obs_dim, obs[i]);
    ASSERT_EQ(spec->max_episode_steps, limit[i]);
    ASSERT_EQ(spec->act_dim, act[i]);
    ASSERT_EQ(spec->discrete, i == 0);
    ASSERT(spec->has_threshold);
    ne_env_spec_destroy(spec);
  }
}

// the same seed gives the same episode, another seed another terrain
static void test_reset_is_seeded(void) {
  const char* ids[2] = {"LunarLander-v3", "BipedalWalkerHardcore-v3"};
  for (int k = 0; k < 2; k++) {
    ne_env_spec* spec = make_env(ids[k], 60);
    ne_env_state* a = ne_env_state_create(spec);
    ne_env_state* b = ne_env_state_create(spec);
    ASSERT(a && b);
    ne_rng ra, rb;
    ne_rng_seed(&ra, 5);
    ne_rng_seed(&rb, 5);
    int na, nb, ta, tb;
    double ea = episode(spec, a, 17, 0, &ra, &na, &ta, NULL);
    double eb = episode(spec, b, 17, 0, &rb, &nb, &tb, NULL);
    ASSERT_EQ(na, nb);
    ASSERT_EQ(ea, eb);
    for (int i = 0; i < spec->obs_dim; i++) ASSERT_EQ(a->obs[i], b->obs[i]);
    ASSERT_EQ(ne_env_reset(spec, a, 17), 0);
    ASSERT_EQ(ne_env_reset(spec, b, 18), 0);
    int same = 1;
    for (int i = 0; i < spec->obs_dim; i++) same &= a->obs[i] == b->obs[i];
    ASSERT(!same);
    ne_env_state_destroy(a);
    ne_env_state_destroy(b);
    ne_env_spec_destroy(spec);
  }
}

// observations stay inside Gymnasium's documented bounds where they are hard (contacts, lidar)
static void test_walker_observation_ranges(void) {
  ne_env_spec* spec = make_env("BipedalWalker-v3", 80);
  ne_env_state* st = ne_env_state_create(spec);
  ne_rng rng;
  ne_rng_seed(&rng, 1);
  ASSERT_EQ(ne_env_reset(spec, st, 3), 0);
  ne_step_out out = {0, 0, 0};
  float a[4];
  for (int t = 0; t < 80 && !out.terminated && !out.truncated; t++) {
    random_action(spec, &rng, a);
    ASSERT_EQ(ne_env_step(spec, st, a, &out), 0);
    ASSERT(st->obs[8] == 0 || st->obs[8] == 1);
    ASSERT(st->obs[13] == 0 || st->obs[13] == 1);
    for (int i = 14; i < 24; i++) ASSERT(st->obs[i] >= 0 && st->obs[i] <= 1);
    ASSERT(isfinite(out.reward));
  }
  // the lidar sees the ground below the hull
  ASSERT_LT(st->obs[14], 1);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// Gymnasium's heuristic lands (few episodes: ASan runs this too; tests/py_box2d_compare.py checks its
// landings against Gymnasium's step for step)
static void test_heuristic_lands(void) {
  const char* ids[2] = {"LunarLander-v3", "LunarLanderContinuous-v3"};
  for (int k = 0; k < 2; k++) {
    ne_env_spec* spec = make_env(ids[k], 0);
    ne_env_state* st = ne_env_state_create(spec);
    double sum = 0;
    int landed = 0;
    for (int e = 0; e < 5; e++) {
      int n, term;
      double r = episode(spec, st, 100 + (uint64_t)e, 1, NULL, &n, &term, NULL);
      sum += r;
      landed += term && r > 100;
    }
    if (sum / 5 < 150 || landed < 4) TEST_FAIL("%s: heuristic mean %.1f, %d/5 landed", ids[k], sum / 5, landed);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

// a random lander ends by crashing (terminated, -100) long before the TimeLimit
static void test_random_lander_crashes(void) {
  ne_env_spec* spec = make_env("LunarLander-v3", 0);
  ne_env_state* st = ne_env_state_create(spec);
  ne_rng rng;
  ne_rng_seed(&rng, 9);
  int n, term;
  episode(spec, st, 1, 0, &rng, &n, &term, NULL);
  ASSERT(term);
  ASSERT_LT(n, 1000);
  // a truncated walker: the TimeLimit override ends a standing walker without terminating it
  ne_env_spec* w = make_env("BipedalWalker-v3", 3);
  ne_env_state* ws = ne_env_state_create(w);
  ASSERT_EQ(ne_env_reset(w, ws, 1), 0);
  float zero[4] = {0, 0, 0, 0};
  ne_step_out out;
  for (int t = 0; t < 3; t++) ASSERT_EQ(ne_env_step(w, ws, zero, &out), 0);
  ASSERT(out.truncated && !out.terminated);
  ASSERT_EQ(ne_env_step(w, ws, zero, &out), NE_ESTATE);
  ne_env_state_destroy(ws);
  ne_env_spec_destroy(w);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

static void test_no_set_state(void) {
  ne_env_spec* spec = make_env("LunarLander-v3", 0);
  ne_env_state* st = ne_env_state_create(spec);
  char err[NE_ERRSTR_LEN] = "";
  double v[1] = {0};
  ASSERT_EQ(ne_env_set_state(spec, st, v, 1, err), NE_EUNSUPPORTED);
  ASSERT_CONTAINS(err, "LunarLander-v3");
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
}

// ne_env_reset_draws: a LunarLander reset takes 16 values (12 heights, the force, the no-op step's
// 2 dispersions) and each step 2; running out, a value out of range and a family without replays
// are errors naming the draw; the same draws give the same episode; a plain reset afterwards is the
// env's own stream again
static void test_replay_draws(void) {
  ne_env_spec* spec = make_env("LunarLander-v3", 0);
  ne_env_state* st = ne_env_state_create(spec);
  ne_env_state* st2 = ne_env_state_create(spec);
  char err[NE_ERRSTR_LEN] = "";
  double v[24];
  for (int i = 0; i < 12; i++) v[i] = 0.5 * i;
  v[12] = 800, v[13] = -300;
  for (int i = 14; i < 24; i++) v[i] = i % 2 ? 0.75 : -0.25;
  ne_env_draws d = {v, 16, 0};
  ASSERT_EQ(ne_env_reset_draws(spec, st, &d, err), 0);
  ASSERT_EQ(d.used, 16);
  float obs0[8];
  memcpy(obs0, st->obs, sizeof obs0);
  float main_engine = 2;
  ne_step_out out;
  ASSERT_EQ(ne_env_step(spec, st, &main_engine, &out), NE_EINVAL);
  ASSERT(spec->status && spec->status(spec, st->impl, err) == NE_EINVAL);
  ASSERT_CONTAINS(err, "ran out: value 17 (an engine dispersion) was needed and 16 were given");
  ASSERT_EQ(ne_env_step(spec, st, &main_engine, &out), NE_ESTATE);
  // enough for 4 steps: twice the same episode; other draws (the force) another one
  ne_env_draws d1 = {v, 24, 0}, d2 = {v, 24, 0};
  ASSERT_EQ(ne_env_reset_draws(spec, st, &d1, err), 0);
  ASSERT_EQ(ne_env_reset_draws(spec, st2, &d2, err), 0);
  for (int i = 0; i < 8; i++) ASSERT(st->obs[i] == obs0[i] && st2->obs[i] == obs0[i]);
  for (int t = 0; t < 4; t++) {
    ne_step_out o2;
    ASSERT_EQ(ne_env_step(spec, st, &main_engine, &out), 0);
    ASSERT_EQ(ne_env_step(spec, st2, &main_engine, &o2), 0);
    ASSERT(out.reward == o2.reward);
    for (int i = 0; i < 8; i++) ASSERT(st->obs[i] == st2->obs[i]);
  }
  ASSERT_EQ(d1.used, 24);
  v[12] = -800;
  ne_env_draws d3 = {v, 24, 0};
  ASSERT_EQ(ne_env_reset_draws(spec, st2, &d3, err), 0);
  ASSERT(st2->obs[2] != obs0[2]);  // pushed the other way: another x velocity
  // a height above H/2 (20/3): refused at the reset, naming the value and the draw
  v[3] = 7;
  ne_env_draws d4 = {v, 24, 0};
  ASSERT_EQ(ne_env_reset_draws(spec, st, &d4, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "value 4 = 7 is not what a terrain height draws");
  ASSERT_EQ(ne_env_step(spec, st, &main_engine, &out), NE_ESTATE);
  // a seeded reset after a replay: the env's own stream, as in a state that never replayed
  ASSERT_EQ(ne_env_reset(spec, st, 11), 0);
  ASSERT_EQ(ne_env_reset(spec, st2, 11), 0);
  for (int i = 0; i < 8; i++) ASSERT(st->obs[i] == st2->obs[i]);
  ASSERT_EQ(ne_env_step(spec, st, &main_engine, &out), 0);
  ne_env_state_destroy(st2);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  // classic control has no replay
  ne_env_spec* cp = make_env("CartPole-v1", 0);
  ne_env_state* cs = ne_env_state_create(cp);
  ne_env_draws dc = {v, 1, 0};
  ASSERT_EQ(ne_env_reset_draws(cp, cs, &dc, err), NE_EUNSUPPORTED);
  ASSERT_CONTAINS(err, "CartPole-v1");
  ne_env_state_destroy(cs);
  ne_env_spec_destroy(cp);
}

// an episode is a function of its seed alone: after other episodes in the same env state it is the
// episode a fresh state runs (every reset starts a new b2World; Gymnasium's walker keeps its world,
// where later contacts depend on the proxy ids earlier episodes left). Whatever ran before on a
// worker thread's env state, a rollout gives the same result
static void test_episodes_independent_of_history(void) {
  const char* ids[2] = {"BipedalWalkerHardcore-v3", "LunarLander-v3"};
  for (int k = 0; k < 2; k++) {
    ne_env_spec* spec = make_env(ids[k], 250);
    ne_env_state* used = ne_env_state_create(spec);
    // (a state that keeps its world, as Gymnasium's walker does, first differs at e = 8 here)
    for (int e = 0; e < 10; e++) {
      ne_env_state* fresh = ne_env_state_create(spec);
      ne_rng ra, rb;
      ne_rng_seed(&ra, 50 + (uint64_t)e);
      ne_rng_seed(&rb, 50 + (uint64_t)e);
      ASSERT_EQ(ne_env_reset(spec, used, 900 + (uint64_t)e), 0);
      ASSERT_EQ(ne_env_reset(spec, fresh, 900 + (uint64_t)e), 0);
      ne_step_out ou = {0, 0, 0}, of = {0, 0, 0};
      float a[NE_ENV_MAX_ACT];
      for (int t = 0; !ou.terminated && !ou.truncated; t++) {
        random_action(spec, &ra, a);
        random_action(spec, &rb, a);
        ASSERT_EQ(ne_env_step(spec, used, a, &ou), 0);
        ASSERT_EQ(ne_env_step(spec, fresh, a, &of), 0);
        for (int i = 0; i < spec->obs_dim; i++)
          if (used->obs[i] != fresh->obs[i])
            TEST_FAIL("%s episode %d step %d: obs[%d] %.9g after earlier episodes, %.9g in a fresh state", ids[k], e,
                      t + 1, i, used->obs[i], fresh->obs[i]);
        ASSERT(ou.reward == of.reward && ou.terminated == of.terminated);
      }
      ne_env_state_destroy(fresh);
    }
    ne_env_state_destroy(used);
    ne_env_spec_destroy(spec);
  }
}

// the render hook draws something other than one colour, and the lander moves between frames
static void test_render_hook(void) {
  const char* ids[2] = {"LunarLander-v3", "BipedalWalker-v3"};
  static unsigned char f1[120 * 80 * 3], f2[120 * 80 * 3];
  for (int k = 0; k < 2; k++) {
    ne_env_spec* spec = make_env(ids[k], 0);
    ne_env_state* st = ne_env_state_create(spec);
    ASSERT(spec->hooks && spec->hooks->render);
    ASSERT_EQ(ne_env_reset(spec, st, 2), 0);
    void* ctx = NULL;
    ASSERT_EQ(spec->hooks->render(spec, st->impl, &ctx, f1, 120, 80, NULL), 0);
    float a[4] = {2, 0, 0, 0};
    if (!spec->discrete) a[0] = 1, a[1] = -1, a[2] = 1, a[3] = -1;
    ne_step_out out;
    for (int t = 0; t < 20; t++) ASSERT_EQ(ne_env_step(spec, st, a, &out), 0);
    ASSERT_EQ(spec->hooks->render(spec, st->impl, &ctx, f2, 120, 80, NULL), 0);
    int colours = 0, differ = 0;
    for (int i = 3; i < (int)sizeof f1; i++) colours |= f1[i] != f1[i % 3], differ |= f1[i] != f2[i];
    ASSERT(colours);
    ASSERT(differ);
    ne_env_state_destroy(st);
    ne_env_spec_destroy(spec);
  }
}

// `returns` mode: "return steps terminated last_reward obs..." per episode for the Python comparison
static int print_returns(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: test_box2d returns ENV_ID heuristic|random EPISODES SEED [MAX_STEPS]\n");
    return 2;
  }
  ne_env_spec* spec = make_env(argv[2], argc > 6 ? atoi(argv[6]) : 0);
  ne_env_state* st = ne_env_state_create(spec);
  int heuristic = strcmp(argv[3], "heuristic") == 0, n = atoi(argv[4]);
  uint64_t seed = strtoull(argv[5], NULL, 10);
  for (int e = 0; e < n; e++) {
    // each episode's actions from its own stream: an episode is a function of (SEED, e) alone
    ne_rng rng;
    ne_rng_seed(&rng, ne_hash2(seed ^ 0x9E3779B97F4A7C15ull, (uint64_t)e));
    int steps, term;
    double last;
    double r = episode(spec, st, ne_hash2(seed, (uint64_t)e), heuristic, &rng, &steps, &term, &last);
    printf("%.17g %d %d %.17g", r, steps, term, last);
    for (int i = 0; i < spec->obs_dim; i++) printf(" %.9g", (double)st->obs[i]);
    printf("\n");
  }
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  return 0;
}

// the numbers after the first word of line into v (at most cap); returns how many
static int line_numbers(char* line, double* v, int cap) {
  int n = 0;
  char* p = line + strcspn(line, " ");
  while (n < cap) {
    char* end;
    double x = strtod(p, &end);
    if (end == p) break;
    v[n++] = x;
    p = end;
  }
  return n;
}

// `replay` mode: "reset V..." (the episode's draws, its steps' included) / "step A..." lines from
// stdin in one env state; one CSV row per line. Exit 1 at the first failure, or when an episode
// leaves some of its draws unused
static int replay_lines(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_box2d replay ENV_ID [MAX_STEPS] < lines of 'reset V...' and 'step A...'\n");
    return 2;
  }
  ne_env_spec* spec = make_env(argv[2], argc > 3 ? atoi(argv[3]) : 0);
  ne_env_state* st = ne_env_state_create(spec);
  enum { CAP = 8192 };
  static double draws[CAP];
  static char line[1 << 18];
  ne_env_draws d = {draws, 0, 0};
  char err[NE_ERRSTR_LEN] = "";
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, stdin)) {
    ne_step_out out = {0, 0, 0};
    if (strncmp(line, "reset", 5) == 0) {
      if (d.used != d.n) rc = ne__set_error(err, NE_EINVAL, "the episode left %d of %d draws", d.n - d.used, d.n);
      d.n = line_numbers(line, draws, CAP);
      if (!rc) rc = ne_env_reset_draws(spec, st, &d, err);
    } else {
      double v[NE_ENV_MAX_ACT];
      float a[NE_ENV_MAX_ACT];
      int n = line_numbers(line, v, spec->act_dim);
      for (int i = 0; i < n; i++) a[i] = (float)v[i];
      rc = ne_env_step(spec, st, a, &out);
      if (rc && spec->status) spec->status(spec, st->impl, err);
    }
    if (rc) break;
    for (int i = 0; i < spec->obs_dim; i++) printf("%.9g,", (double)st->obs[i]);
    printf("%.17g,%d,%d\n", out.reward, out.terminated, out.truncated);
  }
  if (!rc && d.used != d.n) rc = ne__set_error(err, NE_EINVAL, "the episode left %d of %d draws", d.n - d.used, d.n);
  if (rc) fprintf(stderr, "test_box2d replay: %s (%d)\n", err, rc);
  ne_env_state_destroy(st);
  ne_env_spec_destroy(spec);
  return rc ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "returns") == 0) return print_returns(argc, argv);
  if (argc > 1 && strcmp(argv[1], "replay") == 0) return replay_lines(argc, argv);
  static const test_entry tests[] = {
      TEST_ENTRY(test_ids_and_spaces),
      TEST_ENTRY(test_reset_is_seeded),
      TEST_ENTRY(test_walker_observation_ranges),
      TEST_ENTRY(test_heuristic_lands),
      TEST_ENTRY(test_random_lander_crashes),
      TEST_ENTRY(test_no_set_state),
      TEST_ENTRY(test_render_hook),
      TEST_ENTRY(test_replay_draws),
      TEST_ENTRY(test_episodes_independent_of_history),
  };
  return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
#endif
