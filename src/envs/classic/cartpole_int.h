// SPDX-License-Identifier: MIT
// What cartpole.c and its vector steps (cartpole_x86.c) share: CartPole's constants, its state as
// one instance and as lanes, its dynamics written once (CP_DYNAMICS, over any value type), the
// termination test, and the kernel table of the lanes' step (core/simd.h). Not public API.
#ifndef NEUROEVO_ENVS_CLASSIC_CARTPOLE_INT_H
#define NEUROEVO_ENVS_CLASSIC_CARTPOLE_INT_H

#include "core/simd.h"
#include "envs/classic/classic_int.h"  // and the lanes' kernel table

// constants of CartPoleEnv.__init__, derived ones computed the same way
#define CP_GRAVITY 9.8
#define CP_MASSCART 1.0
#define CP_MASSPOLE 0.1
#define CP_TOTAL_MASS (CP_MASSPOLE + CP_MASSCART)
#define CP_LENGTH 0.5  // half the pole's length
#define CP_POLEMASS_LENGTH (CP_MASSPOLE * CP_LENGTH)
#define CP_FORCE_MAG 10.0
#define CP_TAU 0.02                               // seconds between state updates
#define CP_THETA_THRESHOLD (12 * 2 * M_PI / 360)  // 12 degrees
#define CP_X_THRESHOLD 2.4

// Gymnasium's `state` layout
typedef struct ne__cartpole {
  double x;          // cart position
  double x_dot;      // cart velocity
  double theta;      // pole angle (0 upright)
  double theta_dot;  // pole angular velocity
} ne__cartpole;

// NE_ENV_LANES instances as a structure of arrays (ne_env_hooks' lanes)
typedef struct ne__cartpole_lanes {
  double x[NE_ENV_LANES], x_dot[NE_ENV_LANES], theta[NE_ENV_LANES], theta_dot[NE_ENV_LANES];
} ne__cartpole_lanes;

// CartPole's step, the one place it is written: cartpole.py's float64 expressions term for term,
// in its order (np.square is x*x), then the explicit Euler update, positions advancing with the old
// velocities. Over values of type V through the ops given, so that the scalar step, the portable
// lanes' loop and the vector steps all run these same operations: SET1(c) a constant, ADD, SUB,
// MUL, DIV the IEEE operations, DIV_TM(v) v / CP_TOTAL_MASS (a division's bits: core/div_const.h in
// vectors), EULER(a, d) a + CP_TAU * d (the vector steps leave a free lane's a as it was). x,
// x_dot, theta and theta_dot are lvalues, updated in place; force, costheta and sintheta values.
#define CP_DYNAMICS(V, SET1, ADD, SUB, MUL, DIV, DIV_TM, EULER, force, costheta, sintheta, x, x_dot, theta, theta_dot) \
  do {                                                                                                                 \
    /* temp = (force + polemass_length * np.square(theta_dot) * sintheta) / total_mass */                              \
    V temp_ = DIV_TM(ADD(force, MUL(MUL(SET1(CP_POLEMASS_LENGTH), MUL(theta_dot, theta_dot)), sintheta)));             \
    /* thetaacc = (gravity * sintheta - costheta * temp) / */                                                          \
    /*            (length * (4.0 / 3.0 - masspole * np.square(costheta) / total_mass)) */                              \
    V mass_ = DIV_TM(MUL(SET1(CP_MASSPOLE), MUL(costheta, costheta)));                                                 \
    V thetaacc_ = DIV(SUB(MUL(SET1(CP_GRAVITY), sintheta), MUL(costheta, temp_)),                                      \
                      MUL(SET1(CP_LENGTH), SUB(SET1(4.0 / 3.0), mass_)));                                              \
    /* xacc = temp - polemass_length * thetaacc * costheta / total_mass */                                             \
    V xacc_ = SUB(temp_, DIV_TM(MUL(MUL(SET1(CP_POLEMASS_LENGTH), thetaacc_), costheta)));                             \
    /* explicit euler: positions advance with the old velocities */                                                    \
    x = EULER(x, x_dot);                                                                                               \
    x_dot = EULER(x_dot, xacc_);                                                                                       \
    theta = EULER(theta, theta_dot);                                                                                   \
    theta_dot = EULER(theta_dot, thetaacc_);                                                                           \
  } while (0)

// |x| > 2.4 or |theta| > 12 degrees, strict comparisons (NaN never terminates); | rather than ||:
// the same flag, without a branch per comparison (the lanes' loop vectorizes)
static inline int ne__cartpole_terminated(double x, double theta) {
  return (x < -CP_X_THRESHOLD) | (x > CP_X_THRESHOLD) | (theta < -CP_THETA_THRESHOLD) | (theta > CP_THETA_THRESHOLD);
}

// The vector steps of ne__cartpole_slot's table (classic_int.h) on x86-64, which need one float per
// lane's action (CartPole's).
#ifdef NE_SIMD_X86
extern const ne__classic_kernels ne__cartpole_avx2, ne__cartpole_avx512;
#endif

#endif
