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

enum { L = NE_ENV_LANES };  // instances in ac_lanes_step
_Static_assert(L == 8, "ne__sincos8 and ne__py_sq8 take 8 values");

// _dsdt's "book" equations, operand for operand as acrobot.py writes them, in two parts around
// d2**2: d1 and d2 from cos(theta2), then the accelerations from the sines, cosines and squares
static inline void ac_masses(double cos_theta2, double* d1, double* d2) {
  *d1 = M1 * ne__py_sq(LC1) + M2 * (ne__py_sq(L1) + ne__py_sq(LC2) + 2 * L1 * LC2 * cos_theta2) + I1 + I2;
  *d2 = M2 * (ne__py_sq(LC2) + L1 * LC2 * cos_theta2) + I2;
}

// cos_phi2 = cos(theta1 + theta2 - pi / 2.0), cos_phi1 = cos(theta1 - pi / 2), sq_x = x**2
static inline void ac_accelerations(double dtheta1, double dtheta2, double a, double d1, double d2, double sin_theta2,
                                    double cos_phi2, double cos_phi1, double sq_dtheta1, double sq_dtheta2,
                                    double sq_d2, double* ddtheta1, double* ddtheta2) {
  double phi2 = M2 * LC2 * G * cos_phi2;
  double phi1 = -M2 * L1 * LC2 * sq_dtheta2 * sin_theta2 - 2 * M2 * L1 * LC2 * dtheta2 * dtheta1 * sin_theta2 +
      (M1 * LC1 + M2 * L1) * G * cos_phi1 + phi2;
  *ddtheta2 =
      (a + d2 / d1 * phi1 - M2 * L1 * LC2 * sq_dtheta1 * sin_theta2 - phi2) / (M2 * ne__py_sq(LC2) + I2 - sq_d2 / d1);
  *ddtheta1 = -(d2 * *ddtheta2 + phi1) / d1;
}

// _dsdt of one instance: the derivative of y = (theta1, theta2, dtheta1, dtheta2, torque); the
// torque's is 0
static void dsdt(const double* y, double* dy) {
  double theta1 = y[0], theta2 = y[1], dtheta1 = y[2], dtheta2 = y[3], a = y[4], d1, d2;
  ac_masses(cos(theta2), &d1, &d2);
  ac_accelerations(dtheta1, dtheta2, a, d1, d2, sin(theta2), cos(theta1 + theta2 - M_PI / 2.0), cos(theta1 - M_PI / 2),
                   ne__py_sq(dtheta1), ne__py_sq(dtheta2), ne__py_sq(d2), &dy[2], &dy[3]);
  dy[0] = dtheta1;
  dy[1] = dtheta2;
  dy[4] = 0.0;
}

// _dsdt of 8 instances (component i of instance k at y[i * L + k]): the sines and cosines of 8
// angles at a time from ne__sincos8 and x**2 from ne__py_sq8 (libm's bits), the arithmetic in
// loops gcc vectorizes (no contraction: each lane gets dsdt's bits)
static inline void dsdt_lanes(const double* y, double* dy) {
  const double *theta1 = y, *theta2 = y + L, *dtheta1 = y + 2 * L, *dtheta2 = y + 3 * L, *a = y + 4 * L;
  double sin2[L], cos2[L], cos_phi2[L], cos_phi1[L], unused[L], arg[L], sq_dtheta1[L], sq_dtheta2[L], d1[L], d2[L],
      sq_d2[L];
  ne__sincos8(theta2, sin2, cos2);
  for (int k = 0; k < L; k++) arg[k] = theta1[k] + theta2[k] - M_PI / 2.0;
  ne__sincos8(arg, unused, cos_phi2);
  for (int k = 0; k < L; k++) arg[k] = theta1[k] - M_PI / 2;
  ne__sincos8(arg, unused, cos_phi1);
  ne__py_sq8(dtheta1, sq_dtheta1);
  ne__py_sq8(dtheta2, sq_dtheta2);
  for (int k = 0; k < L; k++) ac_masses(cos2[k], &d1[k], &d2[k]);
  ne__py_sq8(d2, sq_d2);
  for (int k = 0; k < L; k++) {
    ac_accelerations(dtheta1[k], dtheta2[k], a[k], d1[k], d2[k], sin2[k], cos_phi2[k], cos_phi1[k], sq_dtheta1[k],
                     sq_dtheta2[k], sq_d2[k], &dy[2 * L + k], &dy[3 * L + k]);
    dy[k] = dtheta1[k];
    dy[L + k] = dtheta2[k];
    dy[4 * L + k] = 0.0;
  }
}

// rk4(derivs, y0, [0, DT]) with its book-keeping (dt = t[1] - t[0], dt2 = dt / 2.0) of n instances,
// n a constant after inlining (1 or L): component i of instance k at y[i * n + k]
static inline __attribute__((always_inline)) void rk4(const double* y0, double* y, int n,
                                                      void (*derivs)(const double*, double*)) {
  const double dt = DT - 0;
  const double dt2 = dt / 2.0;
  double k1[5 * L], k2[5 * L], k3[5 * L], k4[5 * L], tmp[5 * L];
  derivs(y0, k1);
  for (int j = 0; j < 5 * n; j++) tmp[j] = y0[j] + dt2 * k1[j];
  derivs(tmp, k2);
  for (int j = 0; j < 5 * n; j++) tmp[j] = y0[j] + dt2 * k2[j];
  derivs(tmp, k3);
  for (int j = 0; j < 5 * n; j++) tmp[j] = y0[j] + dt * k3[j];
  derivs(tmp, k4);
  for (int j = 0; j < 5 * n; j++) y[j] = y0[j] + dt / 6.0 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
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
  rk4(y0, ns, 1, dsdt);
  st->s[0] = wrap(ns[0], -M_PI, M_PI);
  st->s[1] = wrap(ns[1], -M_PI, M_PI);
  st->s[2] = bound(ns[2], -MAX_VEL_1, MAX_VEL_1);
  st->s[3] = bound(ns[3], -MAX_VEL_2, MAX_VEL_2);
  *terminated = -cos(st->s[0]) - cos(st->s[1] + st->s[0]) > 1.0;
  *reward = *terminated ? 0.0 : -1.0;
}

// ---- lanes: NE_ENV_LANES instances stepped together (ne_env_hooks' lanes) ----------------------

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

// The lanes in mask stepped as ac_step steps each, with ac_observe's observation; a free lane
// computes from a state of zeros and keeps its state and observation. The torque avail_torque[a]
// of an action a in {0, 1, 2} is a - 1.
static inline __attribute__((always_inline)) void lanes_step(const ne_env_spec* spec, void* lanes, unsigned mask,
                                                             const float* acts, float* obs, double* rewards,
                                                             int* terminated) {
  ac_lanes* l = lanes;
  double y0[5 * L], ns[5 * L], c0[L], s0[L], c1[L], s1[L], c01[L], unused[L], sum[L];
  int on[L], act_dim = spec->act_dim;
  for (int k = 0; k < L; k++) {
    on[k] = (mask >> k) & 1u;
    for (int i = 0; i < 4; i++) y0[i * L + k] = on[k] ? l->s[i][k] : 0.0;
    y0[4 * L + k] = on[k] ? (double)acts[(size_t)k * (size_t)act_dim] - 1.0 : 0.0;
  }
  rk4(y0, ns, L, dsdt_lanes);
  for (int k = 0; k < L; k++) {
    if (!on[k]) continue;
    l->s[0][k] = wrap(ns[k], -M_PI, M_PI);
    l->s[1][k] = wrap(ns[L + k], -M_PI, M_PI);
    l->s[2][k] = bound(ns[2 * L + k], -MAX_VEL_1, MAX_VEL_1);
    l->s[3][k] = bound(ns[3 * L + k], -MAX_VEL_2, MAX_VEL_2);
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

// the loop above compiled for each level, its table and ac_lanes_step, the hook that runs the level's
NE__CLASSIC_LANES(ne__acrobot_slot, "acrobot", ac_lanes_step)

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
