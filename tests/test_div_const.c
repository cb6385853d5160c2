// SPDX-License-Identifier: MIT
// core/div_const.h: division by a constant in AVX-512 and AVX2 lanes gives the division's bits.
// Each lane the check passes is compared with x / c, and so is the result of every vector; the
// check never passes either neighbour of the rounded quotient. For random bit patterns (every
// exponent, subnormals, infinities, NaN), CartPole-sized values, quotients at and next to powers
// of two, exact multiples and signed zeros, over several divisors; paths the CPU lacks are
// reported, not run.
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cpu.h"
#include "core/div_const.h"  // and core/simd.h: NE_SIMD_X86, the targets
#include "neuroevo/rng.h"
#include "test.h"

#ifdef NE_SIMD_X86
// 8 dividends x, the tried quotients and the final ones of one path, the check's lanes in ok and in
// wrong its verdict on the neighbours up and down of the rounded quotients
typedef void (*path_fn)(const double* x, double c, double r, const double* up, const double* down, double* tried,
                        double* got, unsigned* ok, unsigned* wrong);

NE_TARGET_AVX512 static void path_avx512(const double* x, double c, double r, const double* up, const double* down,
                                         double* tried, double* got, unsigned* ok, unsigned* wrong) {
  __mmask8 m;
  __m512d v = _mm512_loadu_pd(x);
  _mm512_storeu_pd(tried, ne__div_const8_try(v, c, r, &m));
  _mm512_storeu_pd(got, ne__div_const8(v, c, r));
  *ok = m;
  *wrong = ne__div_const8_exact(v, _mm512_loadu_pd(up), c) | ne__div_const8_exact(v, _mm512_loadu_pd(down), c);
}

NE_TARGET_AVX2 static void path_avx2(const double* x, double c, double r, const double* up, const double* down,
                                     double* tried, double* got, unsigned* ok, unsigned* wrong) {
  *ok = *wrong = 0;
  for (int h = 0; h < 2; h++) {
    __m256d m, v = _mm256_loadu_pd(x + 4 * h);
    _mm256_storeu_pd(tried + 4 * h, ne__div_const4_try(v, c, r, &m));
    _mm256_storeu_pd(got + 4 * h, ne__div_const4(v, c, r));
    *ok |= (unsigned)_mm256_movemask_pd(m) << (4 * h);
    __m256d w = _mm256_or_pd(ne__div_const4_exact(v, _mm256_loadu_pd(up + 4 * h), c),
                             ne__div_const4_exact(v, _mm256_loadu_pd(down + 4 * h), c));
    *wrong |= (unsigned)_mm256_movemask_pd(w) << (4 * h);
  }
}

// 8 dividends through one path: returns how many lanes the check passed; fails on any bit that
// differs and on a neighbour the check passed
static int check8(path_fn path, const double* x, double c, double r) {
  double want[8], up[8], down[8], tried[8], got[8];
  for (int k = 0; k < 8; k++) {
    want[k] = x[k] / c;
    up[k] = nextafter(want[k], INFINITY), down[k] = nextafter(want[k], -INFINITY);
  }
  unsigned ok, wrong;
  path(x, c, r, up, down, tried, got, &ok, &wrong);
  for (int k = 0; k < 8; k++) {
    if (memcmp(&got[k], &want[k], sizeof *want) != 0) TEST_FAIL("%a / %a = %a, want %a", x[k], c, got[k], want[k]);
    if ((ok >> k) & 1u && memcmp(&tried[k], &want[k], sizeof *want) != 0)
      TEST_FAIL("%a / %a: the check passed %a, want %a", x[k], c, tried[k], want[k]);
    if ((wrong >> k) & 1u) TEST_FAIL("%a / %a: the check passed a neighbour of %a", x[k], c, want[k]);
  }
  return __builtin_popcount(ok);
}

static void check_path(const char* name, path_fn path) {
  const double divisors[] = {0.1 + 1.0, 3.0, 0.1, 7.0 / 3.0, 1e15, 3e-16, 0x1.fffffffffffffp-1, 4.0};
  enum { VECTORS = 1 << 15 };
  ne_rng rng;
  ne_rng_seed(&rng, 21);
  for (size_t d = 0; d < sizeof divisors / sizeof divisors[0]; d++) {
    double c = divisors[d], r = 1.0 / c;
    long passed_typical = 0;
    for (int i = 0; i < VECTORS; i++) {
      double x[8];
      int kind = i % 4;
      for (int k = 0; k < 8; k++) {
        if (kind == 0) {  // any bit pattern
          uint64_t bits = ne_rng_u64(&rng);
          memcpy(&x[k], &bits, sizeof bits);
        } else if (kind == 1) {  // CartPole's magnitudes
          x[k] = ne_rng_range(&rng, -20, 20);
        } else if (kind == 2) {  // quotients at powers of two and their neighbours
          double q = ldexp(1.0, (int)(ne_rng_u64(&rng) % 200) - 100) * ((k & 1) ? -1 : 1);
          x[k] = q * c;
          for (int step = k / 2 % 4; step > 0; step--) x[k] = nextafter(x[k], (k & 2) ? INFINITY : -INFINITY);
        } else {  // exact multiples
          x[k] = c * (double)(int64_t)(ne_rng_u64(&rng) % 2001 - 1000);
        }
      }
      int passed = check8(path, x, c, r);
      if (kind == 1) passed_typical += passed;
    }
    // the fast path is the rule for ordinary quotients
    ASSERT(passed_typical > (long)(VECTORS / 4) * 8 * 9 / 10);
    const double special[8] = {0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MIN, DBL_TRUE_MIN, DBL_MAX};
    ASSERT_EQ(check8(path, special, c, r) <= 2, 1);  // at most DBL_MIN and DBL_MAX's lanes pass
  }
  printf("  %s: the division's bits\n", name);
}
#endif

static void test_division_by_constant_bits(void) {
#ifdef NE_SIMD_X86
  if (ne__simd_cpu_level() >= NE_SIMD_AVX512) check_path("AVX-512", path_avx512);
  else printf("  (AVX-512: not on this CPU, not run)\n");
  if (ne__simd_cpu_level() >= NE_SIMD_AVX2) check_path("AVX2", path_avx2);
  else printf("  (AVX2: not on this CPU, not run)\n");
#else
  printf("  (not x86-64: AVX-512 and AVX2 have no code in this build, not run)\n");
#endif
}

TEST_MAIN(TEST_ENTRY(test_division_by_constant_bits))
