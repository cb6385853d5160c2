// SPDX-License-Identifier: MIT
// CartPole's lanes stepped in AVX-512 or AVX2 registers (cartpole_int.h's table at those levels):
// 8 lanes a zmm, or two ymm of 4. The dynamics are not copied here: both steps expand
// cartpole_int.h's CP_DYNAMICS over vector types (mul, add, div: each IEEE-rounded as the scalar
// expression's, no contraction), the free lanes kept by masks, so each lane gets the scalar step's
// bits (tests/test_simd.c, test_env_classic). The hand-vectorized steps exist for speed: gcc had
// built the portable loop's force, mask and angle out of 128-bit pieces and stored the angles as
// halves that ne__sincos8's wide loads could not be forwarded from (a stall every step); here each
// is whole vectors. CartPole's actions: one float each. Three of the step's four divisions are by
// CP_TOTAL_MASS: core/div_const.h's (the division's bits, three FMA-unit operations where a vdivpd
// waits ~23 cycles on AVX-512, ~13-15 on AVX2), so that the chain runs through one division where
// it ran through three one after another.
#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <immintrin.h>

#include "core/div_const.h"
#include "core/libm_bits.h"  // ne__sincos8
#include "envs/classic/cartpole_int.h"

#define DIV_TM8(x) ne__div_const8(x, CP_TOTAL_MASS, 1.0 / CP_TOTAL_MASS)
#define DIV_TM4(x) ne__div_const4(x, CP_TOTAL_MASS, 1.0 / CP_TOTAL_MASS)
#define PD8(v) _mm512_set1_pd(v)
#define PD4(v) _mm256_set1_pd(v)

NE_TARGET_AVX512 static void step_avx512(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts,
                                         float* obs, double* rewards, int* terminated) {
  enum { L = NE_ENV_LANES };
  _Static_assert(L == 8, "a lane per double of a 512-bit vector");
  (void)spec;
  ne__cartpole_lanes* l = lanes;
  __mmask8 on = (__mmask8)mask;
  __mmask8 right = _mm256_cmp_ps_mask(_mm256_loadu_ps(acts), _mm256_set1_ps(1.0f), _CMP_EQ_OQ);
  __m512d force = _mm512_mask_blend_pd(right, PD8(-CP_FORCE_MAG), PD8(CP_FORCE_MAG));
  __m512d x = _mm512_loadu_pd(l->x), x_dot = _mm512_loadu_pd(l->x_dot);
  __m512d theta = _mm512_loadu_pd(l->theta), theta_dot = _mm512_loadu_pd(l->theta_dot);
  double angle[L], sn[L], cs[L];
  _mm512_storeu_pd(angle, _mm512_maskz_mov_pd(on, theta));  // a free lane's angle: 0 (unused)
  ne__sincos8(angle, sn, cs);
  // the Euler update of the lanes in `on`, the others keeping their state
#define EULER8(a, d) _mm512_mask_add_pd(a, on, a, _mm512_mul_pd(PD8(CP_TAU), d))
  CP_DYNAMICS(__m512d, PD8, _mm512_add_pd, _mm512_sub_pd, _mm512_mul_pd, _mm512_div_pd, DIV_TM8, EULER8, force,
              _mm512_loadu_pd(cs), _mm512_loadu_pd(sn), x, x_dot, theta, theta_dot);
#undef EULER8
  _mm512_storeu_pd(l->x, x), _mm512_storeu_pd(l->x_dot, x_dot);
  _mm512_storeu_pd(l->theta, theta), _mm512_storeu_pd(l->theta_dot, theta_dot);
  _mm256_storeu_ps(obs + 0 * L, _mm512_cvtpd_ps(x));
  _mm256_storeu_ps(obs + 1 * L, _mm512_cvtpd_ps(x_dot));
  _mm256_storeu_ps(obs + 2 * L, _mm512_cvtpd_ps(theta));
  _mm256_storeu_ps(obs + 3 * L, _mm512_cvtpd_ps(theta_dot));
  // ne__cartpole_terminated: strict comparisons, false for NaN
  __mmask8 out = _mm512_cmp_pd_mask(x, PD8(-CP_X_THRESHOLD), _CMP_LT_OQ) |
      _mm512_cmp_pd_mask(x, PD8(CP_X_THRESHOLD), _CMP_GT_OQ) |
      _mm512_cmp_pd_mask(theta, PD8(-CP_THETA_THRESHOLD), _CMP_LT_OQ) |
      _mm512_cmp_pd_mask(theta, PD8(CP_THETA_THRESHOLD), _CMP_GT_OQ);
  _mm256_storeu_si256((__m256i*)terminated, _mm256_maskz_mov_epi32(out, _mm256_set1_epi32(1)));
  _mm512_storeu_pd(rewards, PD8(1.0));
}

// The same in two halves of 4 lanes (their chains side by side)
NE_TARGET_AVX2 static void step_avx2(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                                     double* rewards, int* terminated) {
  enum { L = NE_ENV_LANES, H = 4 };
  _Static_assert(L == 2 * H, "two halves of 4 doubles");
  (void)spec;
  ne__cartpole_lanes* l = lanes;
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
    __m256d force = _mm256_blendv_pd(PD4(-CP_FORCE_MAG), PD4(CP_FORCE_MAG),
                                     _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(right))));
    // every lane stepped, then the free lanes' old state blended back
    __m256d nx = x[h], nx_dot = x_dot[h], ntheta = theta[h], ntheta_dot = theta_dot[h];
#define EULER4(a, d) _mm256_add_pd(a, _mm256_mul_pd(PD4(CP_TAU), d))
    CP_DYNAMICS(__m256d, PD4, _mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd, _mm256_div_pd, DIV_TM4, EULER4, force,
                _mm256_loadu_pd(cs + H * h), _mm256_loadu_pd(sn + H * h), nx, nx_dot, ntheta, ntheta_dot);
#undef EULER4
    __m256d vx = _mm256_blendv_pd(x[h], nx, on[h]), vx_dot = _mm256_blendv_pd(x_dot[h], nx_dot, on[h]);
    __m256d vtheta = _mm256_blendv_pd(theta[h], ntheta, on[h]);
    __m256d vtheta_dot = _mm256_blendv_pd(theta_dot[h], ntheta_dot, on[h]);
    _mm256_storeu_pd(l->x + H * h, vx), _mm256_storeu_pd(l->x_dot + H * h, vx_dot);
    _mm256_storeu_pd(l->theta + H * h, vtheta), _mm256_storeu_pd(l->theta_dot + H * h, vtheta_dot);
    _mm_storeu_ps(obs + 0 * L + H * h, _mm256_cvtpd_ps(vx));
    _mm_storeu_ps(obs + 1 * L + H * h, _mm256_cvtpd_ps(vx_dot));
    _mm_storeu_ps(obs + 2 * L + H * h, _mm256_cvtpd_ps(vtheta));
    _mm_storeu_ps(obs + 3 * L + H * h, _mm256_cvtpd_ps(vtheta_dot));
    __m256d out = _mm256_or_pd(_mm256_or_pd(_mm256_cmp_pd(vx, PD4(-CP_X_THRESHOLD), _CMP_LT_OQ),
                                            _mm256_cmp_pd(vx, PD4(CP_X_THRESHOLD), _CMP_GT_OQ)),
                               _mm256_or_pd(_mm256_cmp_pd(vtheta, PD4(-CP_THETA_THRESHOLD), _CMP_LT_OQ),
                                            _mm256_cmp_pd(vtheta, PD4(CP_THETA_THRESHOLD), _CMP_GT_OQ)));
    int ended = _mm256_movemask_pd(out);
    for (int k = 0; k < H; k++) terminated[H * h + k] = (ended >> k) & 1;
    _mm256_storeu_pd(rewards + H * h, PD4(1.0));
  }
}

const ne__classic_kernels ne__cartpole_avx2 = {step_avx2};
const ne__classic_kernels ne__cartpole_avx512 = {step_avx512};
#endif
