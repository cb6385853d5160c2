// SPDX-License-Identifier: MIT
// Pendulum-v1, matching Gymnasium 1.4.0 classic_control/pendulum.py (PendulumEnv, g=10.0) bit for
// bit. The state is float64; the torque u stays an np.float32 after np.clip, so the terms that
// involve it (0.001 * u**2 and 3.0 * u) are float32 under NumPy 2's promotion rules.
//
// Action space: Box(-2, 2, (1,)) torque, clipped to +-2 inside step.
// Observation (float32): cos(theta), sin(theta) in [-1, 1], theta_dot in [-8, 8].
// Reward: -(angle_normalize(theta)^2 + 0.1 theta_dot^2 + 0.001 u^2) on the pre-step state, where
//   angle_normalize maps to [-pi, pi) with Python's floored modulo. No reward threshold.
// Start state: theta uniform in [-pi, pi), theta_dot uniform in [-1, 1).
// Termination: never.
// Truncation: the TimeLimit at 200 steps (applied by ne_env_step).
#include "envs/classic/classic_int.h"

// constants of PendulumEnv, in one place
#define MAX_SPEED 8
#define MAX_TORQUE 2.0
#define DT 0.05
#define GRAV 10.0            // g
#define MASS 1.0             // m
#define LEN 1.0              // l
#define RESET_THETA M_PI     // DEFAULT_X
#define RESET_THETA_DOT 1.0  // DEFAULT_Y
#define MAX_EPISODE_STEPS 200

// Gymnasium's `state` layout
typedef struct pendulum {
  double theta;      // 0 is upright
  double theta_dot;  // angular velocity
} pendulum;

// ((x + pi) % (2 * pi)) - pi, in float64
static double angle_normalize(double x) { return ne__py_mod(x + M_PI, 2 * M_PI) - M_PI; }

static void pd_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  (void)spec;
  pendulum* s = impl;
  // uniform(low=-high, high=high) with high = [pi, 1]
  s->theta = ne_rng_range(rng, -RESET_THETA, RESET_THETA);
  s->theta_dot = ne_rng_range(rng, -RESET_THETA_DOT, RESET_THETA_DOT);
}

// u = np.clip(u, -max_torque, max_torque)[0]: still float32, NaN kept
static inline float pd_torque(float u) {
  u = u < (float)-MAX_TORQUE ? (float)-MAX_TORQUE : u;
  return u > (float)MAX_TORQUE ? (float)MAX_TORQUE : u;
}

// The step after the libm calls: the cost of the pre-step state from sq_normalized =
// angle_normalize(th)**2, sq_thdot = thdot**2 and u_cost = 0.001 * (u**2) (float32 * Python float
// -> float32), the new theta_dot and theta from sin(th). 3 * g / (2 * l) * sin(th) is float64,
// 3.0 / (m * l**2) * u float32.
static inline void pd_advance(double* th, double* thdot, float u, double sin_th, double sq_normalized, double sq_thdot,
                              float u_cost, double* reward) {
  double costs = sq_normalized + 0.1 * sq_thdot + (double)u_cost;
  float u_acc = (float)(3.0 / (MASS * ne__py_sq(LEN))) * u;
  double newthdot = *thdot + (3 * GRAV / (2 * LEN) * sin_th + (double)u_acc) * DT;
  newthdot = ne__np_clip(newthdot, -MAX_SPEED, MAX_SPEED);
  *th = *th + newthdot * DT;
  *thdot = newthdot;
  *reward = -costs;
}

static void pd_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  pendulum* s = impl;
  float u = pd_torque(act[0]);
  pd_advance(&s->theta, &s->theta_dot, u, sin(s->theta), ne__py_sq(angle_normalize(s->theta)), ne__py_sq(s->theta_dot),
             (float)0.001 * ne__np_sqf(u), reward);
  *terminated = 0;
}

// ---- lanes: NE_ENV_LANES instances stepped together (ne_env_hooks' lanes) ----------------------

enum { L = NE_ENV_LANES };
_Static_assert(L == 8, "ne__sincos8 and ne__py_sq8 take 8 values");

typedef struct pd_lanes {
  double theta[NE_ENV_LANES], theta_dot[NE_ENV_LANES];
} pd_lanes;

static void pd_lanes_load(const ne_env_spec* spec, void* lanes, int k, const void* impl) {
  (void)spec;
  pd_lanes* l = lanes;
  const pendulum* s = impl;
  l->theta[k] = s->theta, l->theta_dot[k] = s->theta_dot;
}

static void pd_lanes_store(const ne_env_spec* spec, const void* lanes, int k, void* impl) {
  (void)spec;
  const pd_lanes* l = lanes;
  *(pendulum*)impl = (pendulum){l->theta[k], l->theta_dot[k]};
}

// The lanes in mask stepped as pd_step steps each (pd_advance lane by lane in a loop gcc
// vectorizes; sin and cos from ne__sincos8, x**2 from ne__py_sq8, libm's bits; fmod and powf per
// lane), with pd_observe's observation; a free lane computes from a state of zeros and keeps its
// state and observation.
static inline __attribute__((always_inline)) void lanes_step(const ne_env_spec* spec, void* lanes, unsigned mask,
                                                             const float* acts, float* obs, double* rewards,
                                                             int* terminated) {
  pd_lanes* l = lanes;
  double th[L], thdot[L], normalized[L], sq_normalized[L], sq_thdot[L], sin_th[L], cos_th[L];
  float u[L], u_cost[L];
  int on[L], act_dim = spec->act_dim;
  for (int k = 0; k < L; k++) {
    on[k] = (mask >> k) & 1u;
    th[k] = on[k] ? l->theta[k] : 0.0;
    thdot[k] = on[k] ? l->theta_dot[k] : 0.0;
    u[k] = pd_torque(on[k] ? acts[(size_t)k * (size_t)act_dim] : 0.0f);
  }
  for (int k = 0; k < L; k++) normalized[k] = angle_normalize(th[k]), u_cost[k] = (float)0.001 * ne__np_sqf(u[k]);
  ne__py_sq8(normalized, sq_normalized);
  ne__py_sq8(thdot, sq_thdot);
  ne__sincos8(th, sin_th, cos_th);
  for (int k = 0; k < L; k++) {
    pd_advance(&th[k], &thdot[k], u[k], sin_th[k], sq_normalized[k], sq_thdot[k], u_cost[k], &rewards[k]);
    terminated[k] = 0;
  }
  ne__sincos8(th, sin_th, cos_th);
  for (int k = 0; k < L; k++) {
    if (!on[k]) continue;
    l->theta[k] = th[k], l->theta_dot[k] = thdot[k];
    obs[0 * L + k] = (float)cos_th[k];
    obs[1 * L + k] = (float)sin_th[k];
    obs[2 * L + k] = (float)thdot[k];
  }
}

// the loop above compiled for each level, its table and pd_lanes_step, the hook that runs the level's
NE__CLASSIC_LANES(ne__pendulum_slot, "pendulum", pd_lanes_step)

// the classic family's render and the lanes a lockstep keeps
static const ne_env_hooks pendulum_hooks = {.render = ne__classic_render,
                                            .lanes_bytes = sizeof(pd_lanes),
                                            .lanes_load = pd_lanes_load,
                                            .lanes_store = pd_lanes_store,
                                            .lanes_step = pd_lanes_step};

static void pd_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec;
  const pendulum* s = impl;
  obs[0] = (float)cos(s->theta);
  obs[1] = (float)sin(s->theta);
  obs[2] = (float)s->theta_dot;
}

static int pd_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  int rc = ne__classic_check_len(spec, n, "theta, theta_dot", errstr);
  if (rc) return rc;
  pendulum* s = impl;
  s->theta = v[0];
  s->theta_dot = v[1];
  return 0;
}

static void pd_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  const pendulum* s = impl;
  v[0] = s->theta;
  v[1] = s->theta_dot;
}

static const ne_env_family pendulum_family = {
    "classic", sizeof(pendulum), pd_reset, pd_step, pd_observe, pd_set_state, pd_get_state, NULL,
};

int ne__pendulum_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  (void)errstr;
  ne__classic_spec_init(spec, id, &pendulum_family, 3, 2, MAX_EPISODE_STEPS);
  spec->hooks = &pendulum_hooks;
  ne__classic_box1(spec, (float)-MAX_TORQUE, (float)MAX_TORQUE);
  spec->has_threshold = 0;
  return 0;
}
