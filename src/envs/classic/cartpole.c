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
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>  // cp_lanes_step_avx512, cp_lanes_step_avx2
#endif

#include "core/cpu.h"
#include "core/div_const.h"
#include "core/libm_bits.h"
#include "envs/classic/classic_int.h"

// constants of CartPoleEnv.__init__, derived ones computed the same way
#define GRAVITY 9.8
#define MASSCART 1.0
#define MASSPOLE 0.1
#define TOTAL_MASS (MASSPOLE + MASSCART)
#define LENGTH 0.5  // half the pole's length
#define POLEMASS_LENGTH (MASSPOLE * LENGTH)
#define FORCE_MAG 10.0
#define TAU 0.02                               // seconds between state updates
#define THETA_THRESHOLD (12 * 2 * M_PI / 360)  // 12 degrees
#define X_THRESHOLD 2.4
#define RESET_LOW (-0.05)
#define RESET_HIGH 0.05
#define MAX_EPISODE_STEPS 500
#define REWARD_THRESHOLD 475.0

// Gymnasium's `state` layout
typedef struct cartpole {
  double x;          // cart position
  double x_dot;      // cart velocity
  double theta;      // pole angle (0 upright)
  double theta_dot;  // pole angular velocity
} cartpole;

static void cp_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  (void)spec;
  cartpole* s = impl;
  // np_random.uniform(low, high, size=(4,)) draws in this order
  s->x = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
  s->x_dot = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
  s->theta = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
  s->theta_dot = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
}

// The equations of motion and the explicit Euler step of one lane of s (cartpole.py's float64
// expressions term for term, in its order; np.square is x*x), given the force and the angle's
// cosine and sine. Inline in a loop over lanes, gcc keeps every lane's operations (IEEE exact, no
// contraction) and puts the lanes in vector registers: each lane gets the scalar step's bits.
static inline void cp_advance(double* x, double* x_dot, double* theta, double* theta_dot, double force, double costheta,
                              double sintheta) {
  double temp = (force + POLEMASS_LENGTH * (*theta_dot * *theta_dot) * sintheta) / TOTAL_MASS;
  double thetaacc =
      (GRAVITY * sintheta - costheta * temp) / (LENGTH * (4.0 / 3.0 - MASSPOLE * (costheta * costheta) / TOTAL_MASS));
  double xacc = temp - POLEMASS_LENGTH * thetaacc * costheta / TOTAL_MASS;
  // explicit euler: positions advance with the old velocities
  *x = *x + TAU * *x_dot;
  *x_dot = *x_dot + TAU * xacc;
  *theta = *theta + TAU * *theta_dot;
  *theta_dot = *theta_dot + TAU * thetaacc;
}

// | rather than ||: the same flag, without a branch per comparison (the lanes' loop vectorizes)
static inline int cp_terminated(double x, double theta) {
  return (x < -X_THRESHOLD) | (x > X_THRESHOLD) | (theta < -THETA_THRESHOLD) | (theta > THETA_THRESHOLD);
}

static inline double cp_force(const float* act) { return (int)act[0] == 1 ? FORCE_MAG : -FORCE_MAG; }

static void cp_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  cartpole* s = impl;
  cp_advance(&s->x, &s->x_dot, &s->theta, &s->theta_dot, cp_force(act), cos(s->theta), sin(s->theta));
  *terminated = cp_terminated(s->x, s->theta);
  *reward = 1.0;
}

// NE_ENV_LANES instances as a structure of arrays (ne_env_hooks' lanes)
typedef struct cp_lanes {
  double x[NE_ENV_LANES], x_dot[NE_ENV_LANES], theta[NE_ENV_LANES], theta_dot[NE_ENV_LANES];
} cp_lanes;

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
    force[k] = acts[(size_t)k * (size_t)act_dim] == 1.0f ? FORCE_MAG : -FORCE_MAG;
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
    terminated[k] = cp_terminated(l->x[k], l->theta[k]);
    rewards[k] = 1.0;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// cp_lanes_step in AVX-512 or AVX2 registers (8 lanes a zmm, or two ymm of 4): cp_advance's
// operations one by one in its order (mul, add, div: each IEEE-rounded as the scalar expression's,
// no contraction), the free lanes kept by masks. gcc had built the portable loop's force, mask and
// angle out of 128-bit pieces and stored the angles as halves that ne__sincos8's wide loads could
// not be forwarded from (a stall every step); here each is whole vectors. CartPole's actions: one
// float each. Three of the step's four divisions are by TOTAL_MASS: core/div_const.h's (the
// division's bits, three FMA-unit operations where a vdivpd waits ~23 cycles on AVX-512, ~13-15 on
// AVX2), so that the chain runs through one division where it ran through three one after another.

// thetaacc and xacc of cp_advance from force, theta_dot and the angle's sine and cosine, in vectors
// of type V through the ops given (DIV_TM: the division by TOTAL_MASS)
#define CP_ACCELERATIONS(V, SET1, ADD, SUB, MUL, DIV, DIV_TM, force, theta_dot, sintheta, costheta, thetaacc, xacc)   \
  do {                                                                                                                \
    /* temp = (force + POLEMASS_LENGTH * (theta_dot * theta_dot) * sintheta) / TOTAL_MASS */                          \
    V temp_ = DIV_TM(ADD(force, MUL(MUL(SET1(POLEMASS_LENGTH), MUL(theta_dot, theta_dot)), sintheta)));               \
    /* thetaacc = (GRAVITY * sintheta - costheta * temp) / */                                                         \
    /*            (LENGTH * (4.0 / 3.0 - MASSPOLE * (costheta * costheta) / TOTAL_MASS)) */                           \
    V mass_ = DIV_TM(MUL(SET1(MASSPOLE), MUL(costheta, costheta)));                                                   \
    thetaacc =                                                                                                        \
        DIV(SUB(MUL(SET1(GRAVITY), sintheta), MUL(costheta, temp_)), MUL(SET1(LENGTH), SUB(SET1(4.0 / 3.0), mass_))); \
    /* xacc = temp - POLEMASS_LENGTH * thetaacc * costheta / TOTAL_MASS */                                            \
    xacc = SUB(temp_, DIV_TM(MUL(MUL(SET1(POLEMASS_LENGTH), thetaacc), costheta)));                                   \
  } while (0)

#define DIV_TM8(x) ne__div_const8(x, TOTAL_MASS, 1.0 / TOTAL_MASS)
#define DIV_TM4(x) ne__div_const4(x, TOTAL_MASS, 1.0 / TOTAL_MASS)
#define PD8(v) _mm512_set1_pd(v)
#define PD4(v) _mm256_set1_pd(v)

NE_DIV_CONST_AVX512 static void cp_lanes_step_avx512(void* lanes, unsigned mask, const float* acts, float* obs,
                                                     double* rewards, int* terminated) {
  enum { L = NE_ENV_LANES };
  _Static_assert(L == 8, "a lane per double of a 512-bit vector");
  cp_lanes* l = lanes;
  __mmask8 on = (__mmask8)mask;
  __mmask8 right = _mm256_cmp_ps_mask(_mm256_loadu_ps(acts), _mm256_set1_ps(1.0f), _CMP_EQ_OQ);
  __m512d force = _mm512_mask_blend_pd(right, PD8(-FORCE_MAG), PD8(FORCE_MAG));
  __m512d x = _mm512_loadu_pd(l->x), x_dot = _mm512_loadu_pd(l->x_dot);
  __m512d theta = _mm512_loadu_pd(l->theta), theta_dot = _mm512_loadu_pd(l->theta_dot);
  double angle[L], sn[L], cs[L];
  _mm512_storeu_pd(angle, _mm512_maskz_mov_pd(on, theta));  // a free lane's angle: 0 (unused)
  ne__sincos8(angle, sn, cs);
  __m512d thetaacc, xacc;
  CP_ACCELERATIONS(__m512d, PD8, _mm512_add_pd, _mm512_sub_pd, _mm512_mul_pd, _mm512_div_pd, DIV_TM8, force, theta_dot,
                   _mm512_loadu_pd(sn), _mm512_loadu_pd(cs), thetaacc, xacc);
  // explicit euler, the free lanes keeping their state
  x = _mm512_mask_add_pd(x, on, x, _mm512_mul_pd(PD8(TAU), x_dot));
  x_dot = _mm512_mask_add_pd(x_dot, on, x_dot, _mm512_mul_pd(PD8(TAU), xacc));
  theta = _mm512_mask_add_pd(theta, on, theta, _mm512_mul_pd(PD8(TAU), theta_dot));
  theta_dot = _mm512_mask_add_pd(theta_dot, on, theta_dot, _mm512_mul_pd(PD8(TAU), thetaacc));
  _mm512_storeu_pd(l->x, x), _mm512_storeu_pd(l->x_dot, x_dot);
  _mm512_storeu_pd(l->theta, theta), _mm512_storeu_pd(l->theta_dot, theta_dot);
  _mm256_storeu_ps(obs + 0 * L, _mm512_cvtpd_ps(x));
  _mm256_storeu_ps(obs + 1 * L, _mm512_cvtpd_ps(x_dot));
  _mm256_storeu_ps(obs + 2 * L, _mm512_cvtpd_ps(theta));
  _mm256_storeu_ps(obs + 3 * L, _mm512_cvtpd_ps(theta_dot));
  // cp_terminated: strict comparisons, false for NaN
  __mmask8 out = _mm512_cmp_pd_mask(x, PD8(-X_THRESHOLD), _CMP_LT_OQ) |
      _mm512_cmp_pd_mask(x, PD8(X_THRESHOLD), _CMP_GT_OQ) |
      _mm512_cmp_pd_mask(theta, PD8(-THETA_THRESHOLD), _CMP_LT_OQ) |
      _mm512_cmp_pd_mask(theta, PD8(THETA_THRESHOLD), _CMP_GT_OQ);
  _mm256_storeu_si256((__m256i*)terminated, _mm256_maskz_mov_epi32(out, _mm256_set1_epi32(1)));
  _mm512_storeu_pd(rewards, PD8(1.0));
}

// The same in two halves of 4 lanes (their chains side by side)
NE_DIV_CONST_AVX2 static void cp_lanes_step_avx2(void* lanes, unsigned mask, const float* acts, float* obs,
                                                 double* rewards, int* terminated) {
  enum { L = NE_ENV_LANES, H = 4 };
  _Static_assert(L == 2 * H, "two halves of 4 doubles");
  cp_lanes* l = lanes;
  __m256d on[2], x[2], x_dot[2], theta[2], theta_dot[2];
  double angle[L], sn[L], cs[L];
  const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
  for (int h = 0; h < 2; h++) {
    __m256i m = _mm256_and_si256(_mm256_set1_epi64x((long long)(mask >> (H * h))), bit);
    on[h] = _mm256_castsi256_pd(_mm256_cmpeq_epi64(m, bit));
    x[h] = _mm256_loadu_pd(l->x + H * h), x_dot[h] = _mm256_loadu_pd(l->x_dot + H * h);
    theta[h] = _mm256_loadu_pd(l->theta + H * h), theta_dot[h] = _mm256_loadu_pd(l->theta_dot + H * h);
    _mm256_storeu_pd(angle + H * h, _mm256_and_pd(on[h], theta[h]));  // a free lane's angle: 0 (unused)
  }
  ne__sincos8(angle, sn, cs);
  for (int h = 0; h < 2; h++) {
    __m128 right = _mm_cmpeq_ps(_mm_loadu_ps(acts + H * h), _mm_set1_ps(1.0f));
    __m256d force = _mm256_blendv_pd(PD4(-FORCE_MAG), PD4(FORCE_MAG),
                                     _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(right))));
    __m256d thetaacc, xacc;
    CP_ACCELERATIONS(__m256d, PD4, _mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd, _mm256_div_pd, DIV_TM4, force,
                     theta_dot[h], _mm256_loadu_pd(sn + H * h), _mm256_loadu_pd(cs + H * h), thetaacc, xacc);
    __m256d nx = _mm256_add_pd(x[h], _mm256_mul_pd(PD4(TAU), x_dot[h]));
    __m256d nx_dot = _mm256_add_pd(x_dot[h], _mm256_mul_pd(PD4(TAU), xacc));
    __m256d ntheta = _mm256_add_pd(theta[h], _mm256_mul_pd(PD4(TAU), theta_dot[h]));
    __m256d ntheta_dot = _mm256_add_pd(theta_dot[h], _mm256_mul_pd(PD4(TAU), thetaacc));
    __m256d vx = _mm256_blendv_pd(x[h], nx, on[h]), vx_dot = _mm256_blendv_pd(x_dot[h], nx_dot, on[h]);
    __m256d vtheta = _mm256_blendv_pd(theta[h], ntheta, on[h]);
    __m256d vtheta_dot = _mm256_blendv_pd(theta_dot[h], ntheta_dot, on[h]);
    _mm256_storeu_pd(l->x + H * h, vx), _mm256_storeu_pd(l->x_dot + H * h, vx_dot);
    _mm256_storeu_pd(l->theta + H * h, vtheta), _mm256_storeu_pd(l->theta_dot + H * h, vtheta_dot);
    _mm_storeu_ps(obs + 0 * L + H * h, _mm256_cvtpd_ps(vx));
    _mm_storeu_ps(obs + 1 * L + H * h, _mm256_cvtpd_ps(vx_dot));
    _mm_storeu_ps(obs + 2 * L + H * h, _mm256_cvtpd_ps(vtheta));
    _mm_storeu_ps(obs + 3 * L + H * h, _mm256_cvtpd_ps(vtheta_dot));
    __m256d out = _mm256_or_pd(
        _mm256_or_pd(_mm256_cmp_pd(vx, PD4(-X_THRESHOLD), _CMP_LT_OQ), _mm256_cmp_pd(vx, PD4(X_THRESHOLD), _CMP_GT_OQ)),
        _mm256_or_pd(_mm256_cmp_pd(vtheta, PD4(-THETA_THRESHOLD), _CMP_LT_OQ),
                     _mm256_cmp_pd(vtheta, PD4(THETA_THRESHOLD), _CMP_GT_OQ)));
    int ended = _mm256_movemask_pd(out);
    for (int k = 0; k < H; k++) terminated[H * h + k] = (ended >> k) & 1;
    _mm256_storeu_pd(rewards + H * h, PD4(1.0));
  }
}
#undef CP_ACCELERATIONS
#undef DIV_TM8
#undef DIV_TM4
#undef PD8
#undef PD4
#endif

// The AVX-512 or AVX2 form where the CPU has it (and a lane's action is one float), else the
// portable one
static void cp_lanes_step(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                          double* rewards, int* terminated) {
#if defined(__x86_64__) && defined(__GNUC__)
  int level = spec->act_dim == 1 ? ne__simd_level() : NE_SIMD_BASE;
  if (level >= NE_SIMD_AVX512) {
    cp_lanes_step_avx512(lanes, mask, acts, obs, rewards, terminated);
    return;
  }
  if (level == NE_SIMD_AVX2) {
    cp_lanes_step_avx2(lanes, mask, acts, obs, rewards, terminated);
    return;
  }
#endif
  cp_lanes_step_portable(spec, lanes, mask, acts, obs, rewards, terminated);
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
