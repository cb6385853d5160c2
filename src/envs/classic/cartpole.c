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

static void cp_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  cartpole* s = impl;
  double force = (int)act[0] == 1 ? FORCE_MAG : -FORCE_MAG;
  double costheta = cos(s->theta);
  double sintheta = sin(s->theta);

  // the equations of motion, term for term as cartpole.py writes them (np.square is x*x)
  double temp = (force + POLEMASS_LENGTH * (s->theta_dot * s->theta_dot) * sintheta) / TOTAL_MASS;
  double thetaacc =
      (GRAVITY * sintheta - costheta * temp) / (LENGTH * (4.0 / 3.0 - MASSPOLE * (costheta * costheta) / TOTAL_MASS));
  double xacc = temp - POLEMASS_LENGTH * thetaacc * costheta / TOTAL_MASS;

  // explicit euler: positions advance with the old velocities
  s->x = s->x + TAU * s->x_dot;
  s->x_dot = s->x_dot + TAU * xacc;
  s->theta = s->theta + TAU * s->theta_dot;
  s->theta_dot = s->theta_dot + TAU * thetaacc;

  *terminated = s->x < -X_THRESHOLD || s->x > X_THRESHOLD || s->theta < -THETA_THRESHOLD || s->theta > THETA_THRESHOLD;
  *reward = 1.0;
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

static const ne_env_family cartpole_family = {
    "classic", sizeof(cartpole), cp_reset, cp_step, cp_observe, cp_set_state, cp_get_state, NULL,
};

int ne__cartpole_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  (void)errstr;
  ne__classic_spec_init(spec, id, &cartpole_family, 4, 4, MAX_EPISODE_STEPS);
  ne__classic_discrete(spec, 2);
  spec->has_threshold = 1;
  spec->reward_threshold = REWARD_THRESHOLD;
  return 0;
}
