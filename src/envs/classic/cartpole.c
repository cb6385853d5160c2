// SPDX-License-Identifier: MIT
// CartPole-v1, matching Gymnasium 1.4.0 classic_control/cartpole.py (CartPoleEnv, the default
// sutton_barto_reward=False and kinematics_integrator="euler") bit for bit: the same float64
// expressions in the same order, obs cast to float32 from the float64 state.
//
// Action space: Discrete(2): 0 pushes the cart left with 10 N, 1 pushes it right.
// Observation (float32): x in [-4.8, 4.8], x_dot unbounded, theta in [-0.419, 0.419] rad,
//   theta_dot unbounded (the space is twice the termination thresholds).
// Reward: +1 for every step, the terminating step included. Threshold 475.
// Start state: x, x_dot, theta, theta_dot each uniform in [-0.05, 0.05).
// Termination: |x| > 2.4 or |theta| > 12 degrees (strict comparisons; NaN never terminates).
// Truncation: the TimeLimit at 500 steps (applied by ne_env_step).
#ifdef __SSE2__
#include <emmintrin.h>  // cp_observe's one 16-byte store (the x86-64 baseline)
#endif

#include "core/libm_bits.h"
#include "envs/classic/cartpole_int.h"  // the constants, the state, CP_DYNAMICS, the kernel table

#define RESET_LOW (-0.05)
#define RESET_HIGH 0.05
#define MAX_EPISODE_STEPS 500
#define REWARD_THRESHOLD 475.0

typedef ne__cartpole cartpole;
typedef ne__cartpole_lanes cp_lanes;

static void cp_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  (void)spec;
  cartpole* s = impl;
  // np_random.uniform(low, high, size=(4,)) draws in this order
  s->x = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
  s->x_dot = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
  s->theta = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
  s->theta_dot = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
}

// CP_DYNAMICS on doubles: the C operators (IEEE exact, no contraction). Inline in a loop over
// lanes, gcc keeps every lane's operations and puts the lanes in vector registers: each lane gets
// the scalar step's bits.
#define SCALAR(v) (v)
#define ADD(a, b) ((a) + (b))
#define SUB(a, b) ((a) - (b))
#define MUL(a, b) ((a) * (b))
#define DIV(a, b) ((a) / (b))
#define DIV_TM(a) ((a) / CP_TOTAL_MASS)
#define EULER(a, d) ((a) + CP_TAU * (d))
static inline void cp_advance(double* x, double* x_dot, double* theta, double* theta_dot, double force, double costheta,
                              double sintheta) {
  CP_DYNAMICS(double, SCALAR, ADD, SUB, MUL, DIV, DIV_TM, EULER, force, costheta, sintheta, *x, *x_dot, *theta,
              *theta_dot);
}
#undef SCALAR
#undef ADD
#undef SUB
#undef MUL
#undef DIV
#undef DIV_TM
#undef EULER

static inline double cp_force(const float* act) { return (int)act[0] == 1 ? CP_FORCE_MAG : -CP_FORCE_MAG; }

static void cp_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  cartpole* s = impl;
  cp_advance(&s->x, &s->x_dot, &s->theta, &s->theta_dot, cp_force(act), cos(s->theta), sin(s->theta));
  *terminated = ne__cartpole_terminated(s->x, s->theta);
  *reward = 1.0;
}

static void cp_lanes_load(const ne_env_spec* spec, void* lanes, int k, const void* impl) {
  (void)spec;
  cp_lanes* l = lanes;
  const cartpole* s = impl;
  l->x[k] = s->x, l->x_dot[k] = s->x_dot, l->theta[k] = s->theta, l->theta_dot[k] = s->theta_dot;
}

static void cp_lanes_store(const ne_env_spec* spec, const void* lanes, int k, void* impl) {
  (void)spec;
  const cp_lanes* l = lanes;
  *(cartpole*)impl = (cartpole){l->x[k], l->x_dot[k], l->theta[k], l->theta_dot[k]};
}

// The lanes in mask, each stepped as cp_step steps one (libm's cos and sin of each lane's angle,
// from ne__sincos8; the arithmetic of all lanes in vectors), with cp_observe's casts; the other
// lanes keep their state and rewrite the observation they had. The force compares the action
// with 1 where cp_force converts it to int: the same for the actions of the space, and defined for
// whatever a free lane holds.
static void cp_lanes_step_portable(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                                   double* rewards, int* terminated) {
  enum { L = NE_ENV_LANES };
  _Static_assert(L == 8, "ne__sincos8 takes 8 angles");
  cp_lanes* l = lanes;
  cp_lanes n = *l;  // the next states, computed for every lane in local arrays (vectorized)
  double force[L], theta[L], c[L], sn[L];
  int on[L], act_dim = spec->act_dim;
  for (int k = 0; k < L; k++) {
    force[k] = acts[(size_t)k * (size_t)act_dim] == 1.0f ? CP_FORCE_MAG : -CP_FORCE_MAG;
    on[k] = (mask >> k) & 1u;
    theta[k] = on[k] ? l->theta[k] : 0.0;  // a free lane's angle may be anything: its results go unused
  }
  ne__sincos8(theta, sn, c);
  for (int k = 0; k < L; k++) cp_advance(&n.x[k], &n.x_dot[k], &n.theta[k], &n.theta_dot[k], force[k], c[k], sn[k]);
  for (int k = 0; k < L; k++) {
    l->x[k] = on[k] ? n.x[k] : l->x[k];
    l->x_dot[k] = on[k] ? n.x_dot[k] : l->x_dot[k];
    l->theta[k] = on[k] ? n.theta[k] : l->theta[k];
    l->theta_dot[k] = on[k] ? n.theta_dot[k] : l->theta_dot[k];
  }
  for (int k = 0; k < L; k++) {
    obs[0 * L + k] = (float)l->x[k];
    obs[1 * L + k] = (float)l->x_dot[k];
    obs[2 * L + k] = (float)l->theta[k];
    obs[3 * L + k] = (float)l->theta_dot[k];
    terminated[k] = ne__cartpole_terminated(l->x[k], l->theta[k]);
    rewards[k] = 1.0;
  }
}

static const ne__classic_kernels portable = {cp_lanes_step_portable};

// by level: the portable loop, AVX2 and AVX-512 (cartpole_x86.c)
ne_simd_slot ne__cartpole_slot = {
    .name = "cartpole",
    .portable = &portable,
    .table = {[NE_SIMD_BASE] = &portable,
              NE_ON_X86([NE_SIMD_AVX2] = &ne__cartpole_avx2, [NE_SIMD_AVX512] = &ne__cartpole_avx512)},
};

// The level's step where a lane's action is one float (CartPole's), else the portable one
static void cp_lanes_step(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                          double* rewards, int* terminated) {
  const ne__classic_kernels* k = spec->act_dim == 1 ? ne__simd_table(&ne__cartpole_slot) : &portable;
  k->lanes_step(spec, lanes, mask, acts, obs, rewards, terminated);
}

// n <= 8 instances at once (ne_env_hooks.step_many): loaded into lanes, stepped as the lockstep
// steps them, stored back (the observations cp_lanes_step also writes go unused: step_finish
// observes each instance)
static void cp_step_many(const ne_env_spec* spec, void* const* impls, const float* const* acts, int n, double* rewards,
                         int* terminated) {
  cp_lanes lanes = {0};  // unused lanes: at rest
  float lane_acts[NE_ENV_LANES] = {0}, obs[4 * NE_ENV_LANES];
  double lane_rewards[NE_ENV_LANES];
  int lane_terminated[NE_ENV_LANES];
  for (int k = 0; k < n; k++) cp_lanes_load(spec, &lanes, k, impls[k]), lane_acts[k] = acts[k][0];
  cp_lanes_step(spec, &lanes, (1u << n) - 1u, lane_acts, obs, lane_rewards, lane_terminated);
  for (int k = 0; k < n; k++) {
    cp_lanes_store(spec, &lanes, k, impls[k]);
    rewards[k] = lane_rewards[k];
    terminated[k] = lane_terminated[k];
  }
}

static void cp_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec;
  const cartpole* s = impl;
#ifdef __SSE2__
  // four scalar loads of the state (cp_step has just stored it double by double: a wider load could
  // not be forwarded from those stores), one 16-byte store of the observation (so a reader's wider
  // load can); the same roundings as the casts below
  __m128 x = _mm_cvtsd_ss(_mm_setzero_ps(), _mm_load_sd(&s->x));
  __m128 x_dot = _mm_cvtsd_ss(_mm_setzero_ps(), _mm_load_sd(&s->x_dot));
  __m128 theta = _mm_cvtsd_ss(_mm_setzero_ps(), _mm_load_sd(&s->theta));
  __m128 theta_dot = _mm_cvtsd_ss(_mm_setzero_ps(), _mm_load_sd(&s->theta_dot));
  _mm_storeu_ps(obs, _mm_movelh_ps(_mm_unpacklo_ps(x, x_dot), _mm_unpacklo_ps(theta, theta_dot)));
#else
  obs[0] = (float)s->x;
  obs[1] = (float)s->x_dot;
  obs[2] = (float)s->theta;
  obs[3] = (float)s->theta_dot;
#endif
}

static int cp_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  int rc = ne__classic_check_len(spec, n, "x, x_dot, theta, theta_dot", errstr);
  if (rc) return rc;
  cartpole* s = impl;
  s->x = v[0];
  s->x_dot = v[1];
  s->theta = v[2];
  s->theta_dot = v[3];
  return 0;
}

static void cp_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  const cartpole* s = impl;
  v[0] = s->x;
  v[1] = s->x_dot;
  v[2] = s->theta;
  v[3] = s->theta_dot;
}

// the classic family's render, cp_step_many, and the lanes a lockstep keeps
static const ne_env_hooks cartpole_hooks = {.render = ne__classic_render,
                                            .step_many = cp_step_many,
                                            .lanes_bytes = sizeof(cp_lanes),
                                            .lanes_load = cp_lanes_load,
                                            .lanes_store = cp_lanes_store,
                                            .lanes_step = cp_lanes_step};

static const ne_env_family cartpole_family = {
    "classic", sizeof(cartpole), cp_reset, cp_step, cp_observe, cp_set_state, cp_get_state, NULL,
};

int ne__cartpole_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  (void)errstr;
  ne__classic_spec_init(spec, id, &cartpole_family, 4, 4, MAX_EPISODE_STEPS);
  ne__classic_discrete(spec, 2);
  spec->hooks = &cartpole_hooks;
  spec->has_threshold = 1;
  spec->reward_threshold = REWARD_THRESHOLD;
  return 0;
}
