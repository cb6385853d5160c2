// SPDX-License-Identifier: MIT
// Acrobot-v1, matching Gymnasium 1.4.0 classic_control/acrobot.py (AcrobotEnv with the default
// book_or_nips="book", dt=0.2, torque_noise_max=0) bit for bit: one rk4 step over [0, dt] on the
// state augmented with the torque, then wrap() of the angles and bound() of the velocities.
//
// Action space: Discrete(3): torque -1, 0, +1 on the joint between the links.
// Observation (float32): cos(theta1), sin(theta1), cos(theta2), sin(theta2) in [-1, 1],
//   dtheta1 in [-4pi, 4pi], dtheta2 in [-9pi, 9pi]. theta2 is relative to link 1.
// Reward: -1 per step, 0 on the terminating step. Threshold -100.
// Start state: all four uniform in [-0.1, 0.1), rounded to float32 as Gymnasium's reset does (its
//   reset observation then takes cos/sin in float32; here in float64, so that one observation may
//   differ by 1 float32 ulp; every later step is float64 in both).
// Termination: -cos(theta1) - cos(theta1 + theta2) > 1 (the tip above the bar).
// Truncation: the TimeLimit at 500 steps (applied by ne_env_step).
#include "envs/classic/classic_int.h"

// constants of AcrobotEnv, in one place
#define DT 0.2   // integration step [s]
#define L1 1.0   // LINK_LENGTH_1 [m]
#define M1 1.0   // LINK_MASS_1 [kg]
#define M2 1.0   // LINK_MASS_2 [kg]
#define LC1 0.5  // LINK_COM_POS_1 [m]
#define LC2 0.5  // LINK_COM_POS_2 [m]
#define I1 1.0   // LINK_MOI
#define I2 1.0   // LINK_MOI
#define G 9.8    // gravity in _dsdt
#define MAX_VEL_1 (4 * M_PI)
#define MAX_VEL_2 (9 * M_PI)
#define RESET_LOW (-0.1)
#define RESET_HIGH 0.1
#define MAX_EPISODE_STEPS 500
#define REWARD_THRESHOLD (-100.0)
// |angle| beyond which wrap() reduces with fmod instead of Gymnasium's subtract loop, which would
// run for seconds (or forever, once 2pi is below half an ulp); results match below this bound
#define WRAP_LOOP_LIMIT 1e6

static const double avail_torque[3] = {-1.0, 0.0, 1.0};

// Gymnasium's `state` layout
typedef struct acrobot {
  double s[4];  // theta1, theta2, dtheta1, dtheta2
} acrobot;

// _dsdt: derivative of y = (theta1, theta2, dtheta1, dtheta2, torque); the torque's is 0
static void dsdt(const double y[5], double dy[5]) {
  double theta1 = y[0], theta2 = y[1], dtheta1 = y[2], dtheta2 = y[3], a = y[4];
  // the "book" equations, operand for operand as acrobot.py writes them
  double d1 = M1 * ne__py_sq(LC1) + M2 * (ne__py_sq(L1) + ne__py_sq(LC2) + 2 * L1 * LC2 * cos(theta2)) + I1 + I2;
  double d2 = M2 * (ne__py_sq(LC2) + L1 * LC2 * cos(theta2)) + I2;
  double phi2 = M2 * LC2 * G * cos(theta1 + theta2 - M_PI / 2.0);
  double phi1 = -M2 * L1 * LC2 * ne__py_sq(dtheta2) * sin(theta2) -
      2 * M2 * L1 * LC2 * dtheta2 * dtheta1 * sin(theta2) + (M1 * LC1 + M2 * L1) * G * cos(theta1 - M_PI / 2) + phi2;
  double ddtheta2 = (a + d2 / d1 * phi1 - M2 * L1 * LC2 * ne__py_sq(dtheta1) * sin(theta2) - phi2) /
      (M2 * ne__py_sq(LC2) + I2 - ne__py_sq(d2) / d1);
  double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
  dy[0] = dtheta1;
  dy[1] = dtheta2;
  dy[2] = ddtheta1;
  dy[3] = ddtheta2;
  dy[4] = 0.0;
}

// y = y0 + h * k, elementwise
static void axpy5(const double y0[5], double h, const double k[5], double y[5]) {
  for (int i = 0; i < 5; i++) y[i] = y0[i] + h * k[i];
}

// rk4(derivs, y0, [0, DT]) with its book-keeping: dt = t[1] - t[0], dt2 = dt / 2.0
static void rk4(const double y0[5], double y[5]) {
  const double dt = DT - 0;
  const double dt2 = dt / 2.0;
  double k1[5], k2[5], k3[5], k4[5], tmp[5];
  dsdt(y0, k1);
  axpy5(y0, dt2, k1, tmp);
  dsdt(tmp, k2);
  axpy5(y0, dt2, k2, tmp);
  dsdt(tmp, k3);
  axpy5(y0, dt, k3, tmp);
  dsdt(tmp, k4);
  for (int i = 0; i < 5; i++) y[i] = y0[i] + dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

// wrap(x, m, M): Gymnasium's subtract/add loop, exact up to WRAP_LOOP_LIMIT
static double wrap(double x, double m, double M) {
  double diff = M - m;
  if (!isfinite(x)) return x;  // NaN passes the loops untouched; inf would never leave them
  if (fabs(x) > WRAP_LOOP_LIMIT) x = ne__py_mod(x - m, diff) + m;
  while (x > M) x = x - diff;
  while (x < m) x = x + diff;
  return x;
}

// bound(x, m, M) = min(max(x, m), M) with Python's builtins: NaN passes through
static double bound(double x, double m, double M) {
  double y = m > x ? m : x;
  return M < y ? M : y;
}

static void ac_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  (void)spec;
  acrobot* st = impl;
  // uniform(low, high, size=(4,)).astype(np.float32)
  for (int i = 0; i < 4; i++) st->s[i] = ne__f32(ne_rng_range(rng, RESET_LOW, RESET_HIGH));
}

static void ac_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  acrobot* st = impl;
  double y0[5] = {st->s[0], st->s[1], st->s[2], st->s[3], avail_torque[(int)act[0]]};
  double ns[5];
  rk4(y0, ns);
  st->s[0] = wrap(ns[0], -M_PI, M_PI);
  st->s[1] = wrap(ns[1], -M_PI, M_PI);
  st->s[2] = bound(ns[2], -MAX_VEL_1, MAX_VEL_1);
  st->s[3] = bound(ns[3], -MAX_VEL_2, MAX_VEL_2);
  *terminated = -cos(st->s[0]) - cos(st->s[1] + st->s[0]) > 1.0;
  *reward = *terminated ? 0.0 : -1.0;
}

// ---- lanes: NE_ENV_LANES instances stepped together (ne_env_hooks' lanes) ----------------------
// The same float64 expressions as dsdt, rk4, wrap and bound above, lane by lane in loops that gcc
// vectorizes (no contraction: each lane gets the scalar step's bits); sin and cos of 8 angles at a
// time from ne__sincos8 and x**2 from ne__py_sq8, both libm's bits.

enum { L = NE_ENV_LANES };
_Static_assert(L == 8, "ne__sincos8 and ne__py_sq8 take 8 values");

typedef struct ac_lanes {
  double s[4][NE_ENV_LANES];  // theta1, theta2, dtheta1, dtheta2 of each lane
} ac_lanes;

static void ac_lanes_load(const ne_env_spec* spec, void* lanes, int k, const void* impl) {
  (void)spec;
  ac_lanes* l = lanes;
  const acrobot* st = impl;
  for (int i = 0; i < 4; i++) l->s[i][k] = st->s[i];
}

static void ac_lanes_store(const ne_env_spec* spec, const void* lanes, int k, void* impl) {
  (void)spec;
  const ac_lanes* l = lanes;
  acrobot* st = impl;
  for (int i = 0; i < 4; i++) st->s[i] = l->s[i][k];
}

// dsdt of 8 lanes: y[i][k] is component i of lane k
static inline void dsdt_lanes(const double y[5][L], double dy[5][L]) {
  double s2[L], c2[L], cphi2[L], cphi1[L], unused[L], arg[L], sq_dtheta1[L], sq_dtheta2[L], d1[L], d2[L], sq_d2[L];
  const double sq_lc1 = ne__py_sq(LC1), sq_l1 = ne__py_sq(L1), sq_lc2 = ne__py_sq(LC2);
  ne__sincos8(y[1], s2, c2);
  for (int k = 0; k < L; k++) arg[k] = y[0][k] + y[1][k] - M_PI / 2.0;
  ne__sincos8(arg, unused, cphi2);
  for (int k = 0; k < L; k++) arg[k] = y[0][k] - M_PI / 2;
  ne__sincos8(arg, unused, cphi1);
  ne__py_sq8(y[2], sq_dtheta1);
  ne__py_sq8(y[3], sq_dtheta2);
  for (int k = 0; k < L; k++) {
    d1[k] = M1 * sq_lc1 + M2 * (sq_l1 + sq_lc2 + 2 * L1 * LC2 * c2[k]) + I1 + I2;
    d2[k] = M2 * (sq_lc2 + L1 * LC2 * c2[k]) + I2;
  }
  ne__py_sq8(d2, sq_d2);
  for (int k = 0; k < L; k++) {
    double dtheta1 = y[2][k], dtheta2 = y[3][k], a = y[4][k];  // the angles enter through their cos and sin
    double phi2 = M2 * LC2 * G * cphi2[k];
    double phi1 = -M2 * L1 * LC2 * sq_dtheta2[k] * s2[k] - 2 * M2 * L1 * LC2 * dtheta2 * dtheta1 * s2[k] +
        (M1 * LC1 + M2 * L1) * G * cphi1[k] + phi2;
    double ddtheta2 = (a + d2[k] / d1[k] * phi1 - M2 * L1 * LC2 * sq_dtheta1[k] * s2[k] - phi2) /
        (M2 * sq_lc2 + I2 - sq_d2[k] / d1[k]);
    double ddtheta1 = -(d2[k] * ddtheta2 + phi1) / d1[k];
    dy[0][k] = dtheta1;
    dy[1][k] = dtheta2;
    dy[2][k] = ddtheta1;
    dy[3][k] = ddtheta2;
    dy[4][k] = 0.0;
  }
}

// y = y0 + h * k of 8 lanes
static inline void axpy5_lanes(const double y0[5][L], double h, const double k[5][L], double y[5][L]) {
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < L; j++) y[i][j] = y0[i][j] + h * k[i][j];
}

static inline void rk4_lanes(const double y0[5][L], double y[5][L]) {
  const double dt = DT - 0;
  const double dt2 = dt / 2.0;
  double k1[5][L], k2[5][L], k3[5][L], k4[5][L], tmp[5][L];
  dsdt_lanes(y0, k1);
  axpy5_lanes(y0, dt2, k1, tmp);
  dsdt_lanes(tmp, k2);
  axpy5_lanes(y0, dt2, k2, tmp);
  dsdt_lanes(tmp, k3);
  axpy5_lanes(y0, dt, k3, tmp);
  dsdt_lanes(tmp, k4);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < L; j++) y[i][j] = y0[i][j] + dt / 6.0 * (k1[i][j] + 2 * k2[i][j] + 2 * k3[i][j] + k4[i][j]);
}

// The lanes in mask stepped as ac_step steps each, with ac_observe's observation; a free lane
// computes from a state of zeros and keeps its state and observation. The torque avail_torque[a]
// of an action a in {0, 1, 2} is a - 1.
__attribute__((target_clones("avx512f", "avx2", "default"))) static void ac_lanes_step(const ne_env_spec* spec,
                                                                                       void* lanes, unsigned mask,
                                                                                       const float* acts, float* obs,
                                                                                       double* rewards,
                                                                                       int* terminated) {
  ac_lanes* l = lanes;
  double y0[5][L], ns[5][L], c0[L], s0[L], c1[L], s1[L], c01[L], unused[L], sum[L];
  int on[L], act_dim = spec->act_dim;
  for (int k = 0; k < L; k++) {
    on[k] = (mask >> k) & 1u;
    for (int i = 0; i < 4; i++) y0[i][k] = on[k] ? l->s[i][k] : 0.0;
    y0[4][k] = on[k] ? (double)acts[(size_t)k * (size_t)act_dim] - 1.0 : 0.0;
  }
  rk4_lanes(y0, ns);
  for (int k = 0; k < L; k++) {
    if (!on[k]) continue;
    l->s[0][k] = wrap(ns[0][k], -M_PI, M_PI);
    l->s[1][k] = wrap(ns[1][k], -M_PI, M_PI);
    l->s[2][k] = bound(ns[2][k], -MAX_VEL_1, MAX_VEL_1);
    l->s[3][k] = bound(ns[3][k], -MAX_VEL_2, MAX_VEL_2);
  }
  ne__sincos8(l->s[0], s0, c0);
  ne__sincos8(l->s[1], s1, c1);
  for (int k = 0; k < L; k++) sum[k] = l->s[1][k] + l->s[0][k];
  ne__sincos8(sum, unused, c01);
  for (int k = 0; k < L; k++) {
    terminated[k] = -c0[k] - c01[k] > 1.0;
    rewards[k] = terminated[k] ? 0.0 : -1.0;
    if (!on[k]) continue;
    obs[0 * L + k] = (float)c0[k];
    obs[1 * L + k] = (float)s0[k];
    obs[2 * L + k] = (float)c1[k];
    obs[3 * L + k] = (float)s1[k];
    obs[4 * L + k] = (float)l->s[2][k];
    obs[5 * L + k] = (float)l->s[3][k];
  }
}

// the classic family's render and the lanes a lockstep keeps
static const ne_env_hooks acrobot_hooks = {.render = ne__classic_render,
                                           .lanes_bytes = sizeof(ac_lanes),
                                           .lanes_load = ac_lanes_load,
                                           .lanes_store = ac_lanes_store,
                                           .lanes_step = ac_lanes_step};

static void ac_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec;
  const acrobot* st = impl;
  obs[0] = (float)cos(st->s[0]);
  obs[1] = (float)sin(st->s[0]);
  obs[2] = (float)cos(st->s[1]);
  obs[3] = (float)sin(st->s[1]);
  obs[4] = (float)st->s[2];
  obs[5] = (float)st->s[3];
}

static int ac_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  int rc = ne__classic_check_len(spec, n, "theta1, theta2, dtheta1, dtheta2", errstr);
  if (rc) return rc;
  acrobot* st = impl;
  for (int i = 0; i < 4; i++) st->s[i] = v[i];
  return 0;
}

static void ac_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  const acrobot* st = impl;
  for (int i = 0; i < 4; i++) v[i] = st->s[i];
}

static const ne_env_family acrobot_family = {
    "classic", sizeof(acrobot), ac_reset, ac_step, ac_observe, ac_set_state, ac_get_state, NULL,
};

int ne__acrobot_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  (void)errstr;
  ne__classic_spec_init(spec, id, &acrobot_family, 6, 4, MAX_EPISODE_STEPS);
  spec->hooks = &acrobot_hooks;
  ne__classic_discrete(spec, 3);
  spec->has_threshold = 1;
  spec->reward_threshold = REWARD_THRESHOLD;
  return 0;
}
