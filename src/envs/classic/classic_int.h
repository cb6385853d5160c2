// SPDX-License-Identifier: MIT
// What the classic-control files share: their make functions (listed in classic.c), spec filling,
// and the few arithmetic helpers that reproduce how CPython/NumPy evaluate Gymnasium 1.4.0's
// expressions bit for bit (`x**2` is libm pow, `%` is Python's floored modulo, np.clip keeps NaN).
#ifndef NEUROEVO_ENVS_CLASSIC_INT_H
#define NEUROEVO_ENVS_CLASSIC_INT_H

#include <math.h>

#include "core/libm_bits.h"  // ne__py_sq: x**2 as Python computes it
#include "core/simd.h"
#include "envs/envs_int.h"

// Per-id constructors (envs_int.h's ne_env_entry.make signature).
int ne__cartpole_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);
int ne__acrobot_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);
int ne__mountain_car_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);
int ne__mountain_car_continuous_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);
int ne__pendulum_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);

// Fills what every classic spec shares: id, a flat float vector observation of obs_dim, the
// set_state length, the registered TimeLimit, the family and its hooks. Action space and threshold
// are the caller's.
void ne__classic_spec_init(ne_env_spec* spec, const char* id, const ne_env_family* family, int obs_dim, int state_dim,
                           int max_episode_steps);

// The family's hooks: render draws every classic id after Gymnasium's pictures (render.c).
extern const ne_env_hooks ne__classic_hooks;

// That render hook, for ids with hooks of their own (CartPole's step_many).
int ne__classic_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                       char* errstr);

// The lanes' step of one SIMD level (ne_env_hooks' lanes_step contract): the lanes in mask stepped
// as one instance steps, the others keeping their state. Every level's gives the portable one's
// bits (tests/test_simd.c).
typedef struct ne__classic_kernels {
  void (*lanes_step)(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                     double* rewards, int* terminated);
} ne__classic_kernels;

// The lanes' steps by level (core/simd.h) of the ids that have lanes: the portable loops, and on
// x86-64 the same compiled for AVX2 and AVX-512 (Acrobot, Pendulum) or hand-vectorized
// (CartPole: cartpole_x86.c).
extern ne_simd_slot ne__cartpole_slot, ne__acrobot_slot, ne__pendulum_slot;

// The lanes' step of an id whose portable loop (`lanes_step`, an always-inline function with the
// lanes_step contract) is compiled again for each wider level (core/simd.h's NE_SIMD_EACH_X86),
// where the compiler vectorizes it at that width (the same operations per lane: the same bits):
// the compiled loops and their tables, the slot, and `hook`, which runs the level's.
#define NE__CLASSIC_LANES_LEVEL(level, target)                                                                  \
  target static void lanes_step_##level(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, \
                                        float* obs, double* rewards, int* terminated) {                         \
    lanes_step(spec, lanes, mask, acts, obs, rewards, terminated);                                              \
  }                                                                                                             \
  static const ne__classic_kernels kernels_##level = {lanes_step_##level};
#define NE__CLASSIC_LANES(slot, slot_name, hook)                                                       \
  NE__CLASSIC_LANES_LEVEL(portable, )                                                                  \
  NE_SIMD_EACH_X86(NE__CLASSIC_LANES_LEVEL)                                                            \
  ne_simd_slot slot = {                                                                                \
      .name = slot_name,                                                                               \
      .portable = &kernels_portable,                                                                   \
      .table = {[NE_SIMD_BASE] = &kernels_portable,                                                    \
                NE_ON_X86([NE_SIMD_AVX2] = &kernels_avx2, [NE_SIMD_AVX512] = &kernels_avx512)},        \
  };                                                                                                   \
  static void hook(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs, \
                   double* rewards, int* terminated) {                                                 \
    const ne__classic_kernels* k = ne__simd_table(&slot);                                              \
    k->lanes_step(spec, lanes, mask, acts, obs, rewards, terminated);                                  \
  }

// Sets a Discrete(n) action space.
void ne__classic_discrete(ne_env_spec* spec, int n);

// Sets a 1-D Box(low, high, (1,)) float32 action space.
void ne__classic_box1(ne_env_spec* spec, float low, float high);

// NE_EINVAL naming the expected length and the layout unless n == spec->state_dim. Nullable: errstr.
int ne__classic_check_len(const ne_env_spec* spec, int n, const char* layout, char* errstr);

// np.float32 ** 2: libm powf (GCC would rewrite powf(x, 2.0f) as x * x, which can differ).
static inline float ne__np_sqf(float x) {
  static volatile float two = 2.0f;
  return powf(x, two);
}

// Python/NumPy float modulo: fmod, moved to the sign of b, zero signed like b (npy_divmod).
static inline double ne__py_mod(double a, double b) {
  double m = fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = copysign(0.0, b);
  }
  return m;
}

// np.clip on a float64 scalar: NaN passes through, like np.minimum(np.maximum(x, lo), hi).
static inline double ne__np_clip(double x, double lo, double hi) {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}

// A float32 value held in a double, as numpy's float32 scalars are promoted when mixed with float64.
// The volatile is load-bearing: GCC 12's SLP vectorizer at -O2 drops a bare (double)(float)x pair
// when two adjacent doubles are stored (mcc_step's state), leaving them unrounded.
static inline double ne__f32(double x) {
  volatile float f = (float)x;
  return f;
}

#endif
