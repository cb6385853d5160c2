// SPDX-License-Identifier: MIT
// Tests of the noise generator (noise.h), ne_rng_normal and the deterministic math under it
// (core/detmath.h): Philox against Random123's published vectors, our own known answers, the
// statistics of the normals, split invariance, axpy == fill + add bit for bit, detmath vs libm.
// Sample counts: 10^7 normals for the moments when NDEBUG is defined (Release), 10^6 otherwise
// (Debug/ASan), so the executable stays under ~10 s Release and ~60 s under ASan.
#include <float.h>
#include <math.h>

#include "core/cpu.h"
#include "core/detmath.h"
#include "core/libm_bits.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"
#include "test.h"

#ifdef NDEBUG
#define N_MOMENTS 10000000
#define N_KS 1000000
#else
#define N_MOMENTS 1000000
#define N_KS 200000
#endif

static float* alloc_floats(size_t n) {
  float* p = malloc(n * sizeof *p);
  ASSERT(p != NULL);
  return p;
}

static int same_bits(const float* a, const float* b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

// ---- Philox and the reference pipeline -----------------------------------------------------------

// Random123 kat_vectors, "philox4x32 10" lines: counter (4 words), key (2 words), expected output.
static void test_philox_random123_vectors(void) {
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
       0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
       0x24126ea1},
  };
  for (int v = 0; v < 3; v++) {
    uint32_t out[4];
    ne__philox4x32_10(kat[v], kat[v] + 4, out);
    for (int i = 0; i < 4; i++) ASSERT_U64_EQ(out[i], kat[v][6 + i]);
  }
}

// The documented pipeline for pair k, from the known-answer-tested Philox and the scalar detmath
// entry points: counter {lo(k), hi(k), 0, 0}, key {lo(seed), hi(seed)}, 52-bit uniforms.
static void reference_pair(uint64_t seed, uint64_t k, double* u1, double* t) {
  uint32_t ctr[4] = {(uint32_t)k, (uint32_t)(k >> 32), 0, 0}, key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)}, w[4];
  ne__philox4x32_10(ctr, key, w);
  uint64_t m1 = ((uint64_t)w[1] << 20) | (w[0] >> 12), m2 = ((uint64_t)w[3] << 20) | (w[2] >> 12);
  *u1 = 2.0 - ne__bitsd(m1 | 0x3ff0000000000000ull);
  *t = ne__bitsd(m2 | 0x3ff0000000000000ull) - 1.0;
}

static void reference_normals(uint64_t seed, uint64_t k, float z[2]) {
  double u1, t, s, c;
  reference_pair(seed, k, &u1, &t);
  double r = sqrt(-2.0 * ne__log(u1));
  ne__sincos_turns(t, &s, &c);
  z[0] = (float)(r * c);
  z[1] = (float)(r * s);
}

// The block generator (SIMD or portable path) equals the scalar reference bit for bit, including
// where the 64-bit pair counter carries into its high word.
static void test_fill_matches_scalar_reference(void) {
  const uint64_t seeds[] = {0, 1, 42, 0xdeadbeef12345678ull, UINT64_MAX};
  const uint64_t starts[] = {0, 1, 77, (1ull << 33) - 40, (1ull << 33) - 41, UINT64_MAX - 300};
  float got[200];
  for (size_t si = 0; si < sizeof seeds / sizeof *seeds; si++)
    for (size_t oi = 0; oi < sizeof starts / sizeof *starts; oi++) {
      uint64_t off = starts[oi];
      ne_noise_fill(seeds[si], off, 200, got);
      for (int i = 0; i < 200; i++) {
        float z[2];
        reference_normals(seeds[si], (off + (uint64_t)i) >> 1, z);
        if (memcmp(&got[i], &z[(off + (uint64_t)i) & 1], sizeof(float)) != 0)
          TEST_FAIL("seed %" PRIu64 " index %" PRIu64 ": %a vs reference %a", seeds[si], off + (uint64_t)i, got[i],
                    z[(off + (uint64_t)i) & 1]);
      }
    }
}

static void known_answers(void);

// Every SIMD path of the generator (baseline, AVX2, AVX-512: core/cpu.h) gives the same bits as the
// baseline, and the known answers hold on each; paths the CPU lacks are reported, not run.
static void test_simd_paths_same_bits(void) {
  const uint64_t seeds[] = {0, 7, 0xdeadbeef12345678ull, UINT64_MAX};
  const uint64_t starts[] = {0, 1, 63, 1000001, (1ull << 33) - 40, (1ull << 33) - 41, UINT64_MAX - 3000};
  enum { N = 2500 };
  float* want = alloc_floats(N);
  float* got = alloc_floats(N);
  int cpu = ne__simd_cpu_level();
  for (int level = NE_SIMD_AVX2; level <= NE_SIMD_AVX512; level++) {
    if (level > cpu) {
      printf("  (SIMD path %s: not on this CPU, not run)\n", ne__simd_name(level));
      continue;
    }
    for (size_t si = 0; si < sizeof seeds / sizeof *seeds; si++)
      for (size_t oi = 0; oi < sizeof starts / sizeof *starts; oi++) {
        ASSERT_EQ(ne__simd_force(NE_SIMD_BASE), NE_SIMD_BASE);
        ne_noise_fill(seeds[si], starts[oi], N, want);
        ASSERT_EQ(ne__simd_force(level), level);
        ne_noise_fill(seeds[si], starts[oi], N, got);
        for (int i = 0; i < N; i++)
          if (memcmp(&got[i], &want[i], sizeof *got) != 0)
            TEST_FAIL("%s path, seed %" PRIu64 " index %" PRIu64 ": %a vs baseline %a", ne__simd_name(level), seeds[si],
                      starts[oi] + (uint64_t)i, got[i], want[i]);
        // axpy and perturb take the same blocks
        for (int i = 0; i < N; i++) got[i] = want[i] = 0.25f * (float)i;
        ne_noise_axpy(seeds[si], starts[oi], N, 0.5f, got);
        ne__simd_force(NE_SIMD_BASE);
        ne_noise_axpy(seeds[si], starts[oi], N, 0.5f, want);
        ASSERT(same_bits(got, want, N));
      }
    ne__simd_force(level);
    known_answers();  // on this path
  }
  ne__simd_force(0);
  free(want);
  free(got);
}

// Independent of detmath: the same uniforms through libm's long-double log/sin/cos agree to float
// rounding, so the outputs really are Box–Muller normals of the documented uniforms.
static void test_fill_is_box_muller_of_uniforms(void) {
  float got[1000];
  ne_noise_fill(99, 0, 1000, got);
  for (int k = 0; k < 500; k++) {
    double u1, t;
    reference_pair(99, (uint64_t)k, &u1, &t);
    long double r = sqrtl(-2.0L * logl((long double)u1)), a = 2.0L * 3.14159265358979323846264338327950288L * t;
    ASSERT_NEAR(got[2 * k], (double)(r * cosl(a)), 1e-6 * (1.0 + fabs(got[2 * k])));
    ASSERT_NEAR(got[2 * k + 1], (double)(r * sinl(a)), 1e-6 * (1.0 + fabs(got[2 * k + 1])));
  }
}

// Values generated once by this implementation; any change to them changes every run's results.
static void known_answers(void) {
  static const struct {
    uint64_t seed, offset;
    float z[8];
  } kat[] = {
      {0,
       0,
       {-0x1.9ffd9ap+0f, -0x1.44b288p+0f, 0x1.d85c96p-1f, 0x1.c085bcp-3f, -0x1.e97e1ap-4f, 0x1.bd00a8p-1f,
        -0x1.db2282p-1f, 0x1.d6e61ap-2f}},
      {42,
       0,
       {-0x1.371e0ap-1f, 0x1.e46d16p-1f, -0x1.b510d6p-1f, 0x1.020a4p-2f, 0x1.bb237ep-3f, -0x1.730f68p+0f,
        -0x1.14b054p+0f, 0x1.06b3b6p+0f}},
      {0xdeadbeef12345678ull,
       1000001,
       {-0x1.069fbep+0f, -0x1.5f826p-1f, -0x1.689412p-3f, 0x1.c65c3p-1f, 0x1.30fd04p+1f, 0x1.f72c8ep-3f, 0x1.31f3dap-3f,
        -0x1.866c34p-2f}},
  };
  for (size_t v = 0; v < sizeof kat / sizeof *kat; v++) {
    float got[8];
    ne_noise_fill(kat[v].seed, kat[v].offset, 8, got);
    for (int i = 0; i < 8; i++)
      if (got[i] != kat[v].z[i])
        TEST_FAIL("seed %" PRIu64 " value %d: %a, expected %a", kat[v].seed, i, got[i], kat[v].z[i]);
  }
  // ne_rng_normal's first draws for seed 7
  static const double rn[4] = {-0x1.afc32a198fa42p-3, -0x1.929e6d130a939p-2, 0x1.b80e3b19db01cp-1,
                               -0x1.22b5799d7542cp-2};
  ne_rng r;
  ne_rng_seed(&r, 7);
  for (int i = 0; i < 4; i++) {
    double x = ne_rng_normal(&r);
    if (x != rn[i]) TEST_FAIL("ne_rng_normal draw %d: %a, expected %a", i, x, rn[i]);
  }
}

// ---- statistics ----------------------------------------------------------------------------------

// Mean, variance, skewness and excess kurtosis within 5 standard errors of N(0, 1)'s; the fraction
// within 1, 2, 3 sigma within 5 binomial standard errors; the 4-sigma tail count plausible.
static void test_moments_and_sigma_fractions(void) {
  const size_t chunk = 1 << 20;
  float* z = alloc_floats(chunk);
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  size_t within[4] = {0}, n = 0;
  for (uint64_t off = 0; n < N_MOMENTS; off += chunk) {
    size_t m = N_MOMENTS - n < chunk ? N_MOMENTS - n : chunk;
    ne_noise_fill(2024, off, m, z);
    for (size_t i = 0; i < m; i++) {
      double x = z[i], x2 = x * x;
      s1 += x, s2 += x2, s3 += x2 * x, s4 += x2 * x2;
      double a = fabs(x);
      within[0] += a < 1.0, within[1] += a < 2.0, within[2] += a < 3.0, within[3] += a >= 4.0;
    }
    n += m;
  }
  double N = (double)n, mean = s1 / N, var = s2 / N - mean * mean;
  double skew = s3 / N, kurt = s4 / N - 3.0;
  ASSERT_NEAR(mean, 0.0, 5.0 / sqrt(N));
  ASSERT_NEAR(var, 1.0, 5.0 * sqrt(2.0 / N));
  ASSERT_NEAR(skew, 0.0, 5.0 * sqrt(6.0 / N));
  ASSERT_NEAR(kurt, 0.0, 5.0 * sqrt(24.0 / N));
  const double p[3] = {0.682689492137086, 0.954499736103642, 0.997300203936740};
  for (int k = 0; k < 3; k++) ASSERT_NEAR((double)within[k] / N, p[k], 5.0 * sqrt(p[k] * (1 - p[k]) / N));
  double p4 = 6.334248366623996e-05;  // P(|z| >= 4)
  ASSERT_NEAR((double)within[3], p4 * N, 6.0 * sqrt(p4 * N) + 2.0);
  free(z);
}

static int cmp_float(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

// Kolmogorov–Smirnov distance to the normal CDF, below the 1% critical value 1.63/sqrt(n).
static void test_kolmogorov_smirnov(void) {
  float* z = alloc_floats(N_KS);
  ne_noise_fill(31337, 12345, N_KS, z);
  qsort(z, N_KS, sizeof *z, cmp_float);
  double d = 0;
  for (size_t i = 0; i < N_KS; i++) {
    double cdf = 0.5 * erfc(-(double)z[i] / sqrt(2.0));
    double lo = cdf - (double)i / N_KS, hi = (double)(i + 1) / N_KS - cdf;
    d = fmax(d, fmax(lo, hi));
  }
  ASSERT_LT(d * 1e6, 1.63 / sqrt((double)N_KS) * 1e6);
  free(z);
}

static double correlation(const float* a, const float* b, size_t n) {
  double sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; i++)
    sa += a[i], sb += b[i], sab += (double)a[i] * b[i], saa += (double)a[i] * a[i], sbb += (double)b[i] * b[i];
  double N = (double)n, cov = sab / N - sa / N * sb / N;
  return cov / sqrt((saa / N - sa / N * sa / N) * (sbb / N - sb / N * sb / N));
}

// Neighbouring seeds, seeds one high bit apart, lag-1 within a stream and the two outputs of a
// Box–Muller pair are all uncorrelated (|r| < 5/sqrt(n)).
static void test_correlations(void) {
  const size_t n = 200000;
  float *a = alloc_floats(n + 1), *b = alloc_floats(n);
  double bound = 5.0 / sqrt((double)n);
  ne_noise_fill(1000, 0, n + 1, a);
  for (uint64_t s = 1001; s < 1004; s++) {
    ne_noise_fill(s, 0, n, b);
    ASSERT_NEAR(correlation(a, b, n), 0.0, bound);
  }
  ne_noise_fill(1000 ^ (1ull << 40), 0, n, b);
  ASSERT_NEAR(correlation(a, b, n), 0.0, bound);
  ASSERT_NEAR(correlation(a, a + 1, n), 0.0, bound);
  // cos and sin halves of each pair
  for (size_t i = 0; i < n / 2; i++) b[i] = a[2 * i], b[n / 2 + i] = a[2 * i + 1];
  ASSERT_NEAR(correlation(b, b + n / 2, n / 2), 0.0, 5.0 / sqrt(n / 2.0));
  free(a);
  free(b);
}

// ---- splits, axpy, table ---------------------------------------------------------------------------

// Any split of [offset, offset+n) into pieces, odd starts and lengths included, gives the same values.
static void test_split_invariance(void) {
  const size_t n = 301;
  float* whole = alloc_floats(n);
  float* parts = alloc_floats(n);
  const uint64_t offsets[] = {0, 1, 2, 31, 32, 33, 1000001};
  const size_t cuts[][4] = {{1, 2, 3, 0}, {31, 32, 33, 0}, {7, 64, 65, 100}, {0, 0, 150, 151}, {299, 1, 0, 0}};
  for (size_t oi = 0; oi < sizeof offsets / sizeof *offsets; oi++) {
    ne_noise_fill(77, offsets[oi], n, whole);
    for (size_t ci = 0; ci < sizeof cuts / sizeof *cuts; ci++) {
      size_t pos = 0;
      for (int k = 0; k < 4 && pos < n; k++) {
        size_t len = cuts[ci][k] < n - pos ? cuts[ci][k] : n - pos;
        ne_noise_fill(77, offsets[oi] + pos, len, parts + pos);
        pos += len;
      }
      ne_noise_fill(77, offsets[oi] + pos, n - pos, parts + pos);
      ASSERT(same_bits(whole, parts, n));
    }
    // one value at a time
    for (size_t i = 0; i < n; i++) ne_noise_fill(77, offsets[oi] + i, 1, parts + i);
    ASSERT(same_bits(whole, parts, n));
  }
  free(whole);
  free(parts);
}

// axpy equals fill into a buffer then out[i] += coef * tmp[i] (product rounded to float), bit for
// bit, for odd and even offsets and lengths; n = 0 touches nothing.
static void test_axpy_equals_fill_then_add(void) {
  const size_t n = 1037;
  float *base = alloc_floats(n), *expect = alloc_floats(n), *got = alloc_floats(n), *tmp = alloc_floats(n);
  ne_noise_fill(5, 0, n, base);
  const float coefs[] = {0.02f, -1.0f, 3.0e-3f, 0.0f};
  const uint64_t offsets[] = {0, 1, 17, 4097};
  const size_t lens[] = {0, 1, 2, 33, 64, 1037};
  for (int c = 0; c < 4; c++)
    for (int o = 0; o < 4; o++)
      for (int l = 0; l < 6; l++) {
        size_t m = lens[l];
        memcpy(expect, base, n * sizeof *base);
        memcpy(got, base, n * sizeof *base);
        ne_noise_fill(1234, offsets[o], m, tmp);
        for (size_t i = 0; i < m; i++) {
          float prod = coefs[c] * tmp[i];
          expect[i] = expect[i] + prod;
        }
        ne_noise_axpy(1234, offsets[o], m, coefs[c], got);
        ASSERT(same_bits(expect, got, n));
      }
  free(base);
  free(expect);
  free(got);
  free(tmp);
}

static void test_noise_table(void) {
  ne_noise_table* t = ne_noise_table_create(8, 5000);
  ASSERT(t != NULL);
  float* ref = alloc_floats(5000);
  ne_noise_fill(8, 0, 5000, ref);
  ASSERT(same_bits(t->data, ref, 5000));
  // offsets are deterministic, vary with the seed and leave room for n values
  size_t seen_distinct = 0, last = (size_t)-1;
  for (uint64_t s = 0; s < 100; s++) {
    size_t off = ne_noise_table_offset(t, s, 1000);
    ASSERT_LE(off + 1000, 5000);
    ASSERT_EQ(off, ne_noise_table_offset(t, s, 1000));
    seen_distinct += off != last;
    last = off;
  }
  ASSERT_GT(seen_distinct, 90);
  ASSERT_EQ(ne_noise_table_offset(t, 3, 5000), 0);
  ne_noise_table_destroy(t);
  ne_noise_table_destroy(NULL);
  ASSERT(ne_noise_table_create(1, 0) == NULL);
  free(ref);
}

// The table is a pure function of its seed: two builds agree bit for bit, another seed differs.
static void test_noise_table_is_a_function_of_its_seed(void) {
  ne_noise_table *a = ne_noise_table_create(77, 3001), *b = ne_noise_table_create(77, 3001);
  ne_noise_table* c = ne_noise_table_create(78, 3001);
  ASSERT(a && b && c);
  ASSERT(same_bits(a->data, b->data, 3001));
  size_t differ = 0;
  for (size_t i = 0; i < 3001; i++) differ += a->data[i] != c->data[i];
  ASSERT_GT(differ, 2990);
  ne_noise_table_destroy(a);
  ne_noise_table_destroy(b);
  ne_noise_table_destroy(c);
}

// Offsets stay in range for every slice length up to the table size, and reach both ends.
static void test_noise_table_offsets_in_range(void) {
  ne_noise_table* t = ne_noise_table_create(5, 1000);
  ASSERT(t);
  const size_t lengths[] = {1, 2, 499, 990, 999, 1000};
  for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
    size_t n = lengths[l], lowest = (size_t)-1, highest = 0;
    for (uint64_t s = 0; s < 2000; s++) {
      size_t off = ne_noise_table_offset(t, ne_hash2(s, 99), n);
      ASSERT_LE(off + n, 1000);
      lowest = off < lowest ? off : lowest;
      highest = off > highest ? off : highest;
    }
    // few starts (n near the size): every one of them is drawn
    if (1000 - n < 20) {
      ASSERT_EQ(lowest, 0);
      ASSERT_EQ(highest, 1000 - n);
    }
  }
  ne_noise_table_destroy(t);
}

// ne_noise_perturb / _axpy: with a table, base + coef * the seed's slice; without, the generator
// (fill-then-add exactly); in place (out == base) the same bits.
static void noise_perturb_slices(void) {
  ne_noise_table* t = ne_noise_table_create(21, 4096);
  ASSERT(t);
  const size_t lengths[] = {1, 31, 32, 33, 1000, 4096};
  float* base = alloc_floats(4096);
  float* expect = alloc_floats(4096);
  float* got = alloc_floats(4096);
  for (size_t i = 0; i < 4096; i++) base[i] = 0.001f * (float)i - 1.0f;
  for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
    size_t n = lengths[l];
    uint64_t seed = ne_hash2(3, n);
    // table: the slice at the seed's offset
    const float* slice = t->data + ne_noise_table_offset(t, seed, n);
    for (size_t i = 0; i < n; i++) expect[i] = base[i] + -0.25f * slice[i];
    ne_noise_perturb(t, seed, n, base, -0.25f, got);
    ASSERT(same_bits(expect, got, n));
    memcpy(got, base, n * sizeof(float));
    ne_noise_perturb_axpy(t, seed, n, -0.25f, got);
    ASSERT(same_bits(expect, got, n));
    memcpy(got, base, n * sizeof(float));
    ne_noise_perturb(t, seed, n, got, -0.25f, got);
    ASSERT(same_bits(expect, got, n));
    // generator: copy + ne_noise_axpy, the same bits
    memcpy(expect, base, n * sizeof(float));
    ne_noise_axpy(seed, 0, n, 0.5f, expect);
    ne_noise_perturb(NULL, seed, n, base, 0.5f, got);
    ASSERT(same_bits(expect, got, n));
    memcpy(got, base, n * sizeof(float));
    ne_noise_perturb_axpy(NULL, seed, n, 0.5f, got);
    ASSERT(same_bits(expect, got, n));
  }
  free(base);
  free(expect);
  free(got);
  ne_noise_table_destroy(t);
}

static void test_rng_normal_stream(void) {
  ne_rng a, b;
  ne_rng_seed(&a, 99);
  ne_rng_seed(&b, 99);
  double s1 = 0, s2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; i++) {
    double x = ne_rng_normal(&a);
    ASSERT_EQ(x, ne_rng_normal(&b));  // a pure function of (seed, position)
    s1 += x, s2 += x * x;
  }
  ASSERT_EQ(a.counter, 2 * n);  // two uniforms per draw
  ASSERT_NEAR(s1 / n, 0.0, 5.0 / sqrt(n));
  ASSERT_NEAR(s2 / n, 1.0, 5.0 * sqrt(2.0 / n));
}

// ---- detmath vs libm -------------------------------------------------------------------------------

// |a - ref| <= tol * |ref| (relative), with ref computed in long double.
static void assert_rel(const char* what, double x, double got, long double ref, double tol) {
  long double err = fabsl((long double)got - ref);
  if (!(err <= (long double)tol * fabsl(ref)) && !(ref == 0 && got == 0))
    TEST_FAIL("%s(%.17g) = %.17g, libm %.17Lg (relative error %Lg)", what, x, got, ref, err / fabsl(ref));
}

static void test_detmath_log_vs_libm(void) {
  ne_rng r;
  ne_rng_seed(&r, 1);
  for (int i = 0; i < 400000; i++) {
    // uniforms in (0, 1] as the noise draws them, and magnitudes across the whole exponent range
    double u = 1.0 - ne_rng_uniform(&r);
    assert_rel("log", u, ne__log(u), logl((long double)u), 1e-13);
    double x = ldexp(1.0 + ne_rng_uniform(&r), (int)ne_rng_below(&r, 2098) - 1074);
    if (x > 0 && isfinite(x)) assert_rel("log", x, ne__log(x), logl((long double)x), 1e-13);
  }
  // exact and special values
  ASSERT_EQ(ne__log(1.0), 0.0);
  ASSERT_EQ(ne__log(0.0), -INFINITY);
  ASSERT(isnan(ne__log(-1.0)) && isnan(ne__log(NAN)));
  ASSERT_EQ(ne__log(INFINITY), INFINITY);
  assert_rel("log", DBL_MIN / 8, ne__log(DBL_MIN / 8), logl((long double)(DBL_MIN / 8)), 1e-13);
  assert_rel("log", DBL_MAX, ne__log(DBL_MAX), logl((long double)DBL_MAX), 1e-13);
}

// sin and cos of 2 pi t in long double. Reduced exactly first (4t minus its nearest integer q):
// long double 2 pi t near a zero of the result would carry a relative error of ~1e-12.
static void sincos_turns_ref(double t, long double* s, long double* c) {
  const long double pio2 = 1.570796326794896619231321691639751442L;
  double q = nearbyint(4.0 * t), y = 4.0 * t - q;
  long double sy = sinl(pio2 * y), cy = cosl(pio2 * y);
  int quad = (int)fmod(q, 4.0);
  quad = quad < 0 ? quad + 4 : quad;
  long double sv[4] = {sy, cy, -sy, -cy}, cv[4] = {cy, -sy, -cy, sy};
  *s = sv[quad], *c = cv[quad];
}

static void test_detmath_sincos_vs_libm(void) {
  ne_rng r;
  ne_rng_seed(&r, 2);
  for (int i = 0; i < 400000; i++) {
    double x = ne_rng_range(&r, -100.0, 100.0);
    assert_rel("sin", x, ne__sin(x), sinl((long double)x), 1e-13);
    assert_rel("cos", x, ne__cos(x), cosl((long double)x), 1e-13);
    double t = ne_rng_uniform(&r), s, c;
    long double rs, rc;
    if (i % 8 == 0) t = 0.25 * (double)(i % 5) + ldexp(ne_rng_range(&r, -1.0, 1.0), -20 - i % 30);  // near axes
    ne__sincos_turns(t, &s, &c);
    sincos_turns_ref(t, &rs, &rc);
    assert_rel("sin2pi", t, s, rs, 1e-13);
    assert_rel("cos2pi", t, c, rc, 1e-13);
  }
  // quadrant boundaries are exact in turns
  double s, c;
  ne__sincos_turns(0.25, &s, &c);
  ASSERT_EQ(s, 1.0);
  ASSERT_EQ(c, 0.0);
  ne__sincos_turns(0.5, &s, &c);
  ASSERT_EQ(s, 0.0);
  ASSERT_EQ(c, -1.0);
  ASSERT_EQ(ne__sin(0.0), 0.0);
  ASSERT_EQ(ne__cos(0.0), 1.0);
  ASSERT(isnan(ne__sin(INFINITY)) && isnan(ne__cos(NAN)));
}

static void test_detmath_tanhf(void) {
  ne_rng r;
  ne_rng_seed(&r, 3);
  for (int i = 0; i < 400000; i++) {
    float x = (float)ne_rng_range(&r, -10.0, 10.0);
    if (i % 4 == 0) x = (float)ldexp(ne_rng_range(&r, -1.0, 1.0), -(int)ne_rng_below(&r, 30));  // small
    double ref = tanh((double)x);
    float got = ne__tanhf(x);
    if (!(fabs((double)got - ref) <= 1e-7 * fabs(ref)) && !(ref == 0 && got == 0))
      TEST_FAIL("tanhf(%a) = %a, libm %a", x, got, ref);
  }
  // odd, saturating, special values; the array form equals the scalar one
  ASSERT_EQ(ne__tanhf(0.0f), 0.0f);
  ASSERT(signbit(ne__tanhf(-0.0f)));
  ASSERT_EQ(ne__tanhf(9.1f), 1.0f);
  ASSERT_EQ(ne__tanhf(-50.0f), -1.0f);
  ASSERT_EQ(ne__tanhf(INFINITY), 1.0f);
  ASSERT_EQ(ne__tanhf(1e-30f), 1e-30f);
  ASSERT(isnan(ne__tanhf(NAN)));
  float v[37], w[37];
  for (int i = 0; i < 37; i++) v[i] = w[i] = (float)(i - 18) * 0.37f;
  ne__tanhf_inplace(v, 37);
  for (int i = 0; i < 37; i++) ASSERT_EQ(v[i], ne__tanhf(w[i]));
}

// ne__sincos8 against libm bit for bit on every SIMD level: the vector kernel's paths and their
// edges (|x| at 0.126, at k/128 + 1/256, at 2^-27, 0.855, 2.426, 105414350; pi/2 multiples), and
// the lanes it leaves to libm
static void test_sincos8_equals_libm(void) {
#if defined(NE_SIMD_X86) && defined(__GLIBC__)
  if (ne__simd_cpu_level() >= NE_SIMD_AVX2)
    ASSERT(ne__sincos8_vectorized());  // else the comparisons below would be libm against itself
#else
  printf("  (no vector kernel for sincos8 in this build: libm against itself)\n");
#endif
  // clang-format off
  const double edges[] = {
      0.0, -0.0, 0x1p-27, 0x1.fffffffffffffp-28, 0.126, 0x1.020c49ba5e353p-3, 0x1.020c49ba5e355p-3,
      0x1.b6p-1, 0x1.b5fffffffffffp-1, 0.5 / 128, 1.5 / 128, 109.5 / 128 - 0x1p-53, INFINITY, NAN, 1e300,
      3.0, -2.0, 0.2094395, 0x1.368fdp1, 0x1.368fcffffffffp1, 0x1.921fbp26, 0x1.921faffffffffp26,
      0x1.921fb54442d18p0, 0x1.921fb54442d18p1, 0x1.2d97c7f3321d2p2, 0x1.921fb54442d18p2, 1e6, 4.71238898038469};
  // clang-format on
  for (int level = NE_SIMD_BASE; level <= ne__simd_cpu_level(); level++) {
    ASSERT_EQ(ne__simd_force(level), level);
    ne_rng r;
    ne_rng_seed(&r, 4);
    for (int i = 0; i < 40000; i++) {
      double x[8], s[8], c[8];
      for (int k = 0; k < 8; k++) {
        int kind = (int)ne_rng_below(&r, 9);
        double sign = ne_rng_below(&r, 2) ? -1.0 : 1.0, m = ne_rng_range(&r, 0.5, 1.0);
        switch (kind) {
          case 0: x[k] = ne_rng_range(&r, -0.86, 0.86); break;
          case 1: x[k] = ne_rng_range(&r, -0.25, 0.25); break;  // CartPole's angles
          case 2: x[k] = sign * ldexp(m, -(int)ne_rng_below(&r, 32)); break;
          case 3: x[k] = sign * 0.126 * (1.0 + ne_rng_range(&r, -1e-6, 1e-6)); break;
          case 4: x[k] = sign * ((double)ne_rng_below(&r, 110) + 0.5) / 128.0 * (1.0 + 1e-9 * (m - 0.75)); break;
          case 5: x[k] = ne_rng_range(&r, -2.5, 2.5); break;    // the middle range (Acrobot's wrapped angles)
          case 6: x[k] = ne_rng_range(&r, -40.0, 40.0); break;  // reduced by multiples of pi/2
          case 7: x[k] = sign * ldexp(m, (int)ne_rng_below(&r, 28)); break;  // up to the reduction's end
          default: x[k] = edges[ne_rng_below(&r, sizeof edges / sizeof edges[0])] * sign;
        }
      }
      ne__sincos8(x, s, c);
      for (int k = 0; k < 8; k++) {
        double ls = sin(x[k]), lc = cos(x[k]);
        if (memcmp(&s[k], &ls, sizeof ls) || memcmp(&c[k], &lc, sizeof lc))
          TEST_FAIL("%s: sincos8(%a) = %a, %a; libm %a, %a", ne__simd_name(level), x[k], s[k], c[k], ls, lc);
      }
    }
  }
  ne__simd_force(0);
}

// ne__py_sq against libm's pow(x, 2) bit for bit: random mantissas, short ones (exact ties, where
// pow and x*x differ most), neighbours of powers of two, the split's range edges, specials
static void test_py_sq_equals_pow(void) {
  double (*volatile libm_pow)(double, double) = pow;  // the call itself, not GCC's x*x
  ne_rng r;
  ne_rng_seed(&r, 5);
  const double edges[] = {0.0,
                          -0.0,
                          1.0,
                          0x1p-450,
                          0x1.fffffffffffffp-451,
                          0x1p500,
                          0x1.0000000000001p500,
                          0x1p-1074,
                          DBL_MAX,
                          INFINITY,
                          -INFINITY,
                          NAN,
                          0x1.6a09e667f3bcdp0,
                          0x1.6a09e667f3bccp0};
  for (int i = 0; i < 1500000; i++) {
    int kind = i % 4;
    double sign = ne_rng_below(&r, 2) ? -1.0 : 1.0, x;
    if (kind == 0) x = sign * ldexp(1.0 + ne_rng_uniform(&r), (int)ne_rng_below(&r, 80) - 40);
    else if (kind == 1) x = sign * ldexp((double)(ne_rng_below(&r, 1u << 27) | 1u), -(int)ne_rng_below(&r, 60));
    else if (kind == 2) x = sign * nextafter(ldexp(1.0, (int)ne_rng_below(&r, 40) - 20), ne_rng_below(&r, 2) ? 0 : 9);
    else x = edges[ne_rng_below(&r, sizeof edges / sizeof edges[0])] * sign;
    double got = ne__py_sq(x), want = libm_pow(x, 2.0);
    if (memcmp(&got, &want, sizeof got) && !(isnan(got) && isnan(want)))
      TEST_FAIL("py_sq(%a) = %a, libm pow %a", x, got, want);
  }
  for (int j = -451; j <= 501; j++)  // every power of two in the fast path's range, and beyond its ends
    for (int sign = -1; sign <= 1; sign += 2) {
      double x = sign * ldexp(1.0, j), got = ne__py_sq(x), want = libm_pow(x, 2.0);
      if (memcmp(&got, &want, sizeof got)) TEST_FAIL("py_sq(%a) = %a, libm pow %a", x, got, want);
    }
}

static void test_known_answers(void) { known_answers(); }

// the table's slices (ne_noise_perturb, ne_noise_perturb_axpy) on every SIMD path the CPU has
static void test_noise_perturb_slices_every_simd_path(void) {
  for (int level = NE_SIMD_BASE; level <= ne__simd_cpu_level(); level++) {
    ASSERT_EQ(ne__simd_force(level), level);
    noise_perturb_slices();
  }
  ne__simd_force(0);
}

TEST_MAIN(TEST_ENTRY(test_philox_random123_vectors), TEST_ENTRY(test_simd_paths_same_bits),
          TEST_ENTRY(test_fill_matches_scalar_reference), TEST_ENTRY(test_fill_is_box_muller_of_uniforms),
          TEST_ENTRY(test_known_answers), TEST_ENTRY(test_moments_and_sigma_fractions),
          TEST_ENTRY(test_kolmogorov_smirnov), TEST_ENTRY(test_correlations), TEST_ENTRY(test_split_invariance),
          TEST_ENTRY(test_axpy_equals_fill_then_add), TEST_ENTRY(test_noise_table),
          TEST_ENTRY(test_noise_table_is_a_function_of_its_seed), TEST_ENTRY(test_noise_table_offsets_in_range),
          TEST_ENTRY(test_noise_perturb_slices_every_simd_path), TEST_ENTRY(test_rng_normal_stream),
          TEST_ENTRY(test_detmath_log_vs_libm), TEST_ENTRY(test_detmath_sincos_vs_libm), TEST_ENTRY(test_detmath_tanhf),
          TEST_ENTRY(test_sincos8_equals_libm), TEST_ENTRY(test_py_sq_equals_pow))
