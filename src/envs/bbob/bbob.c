// SPDX-License-Identifier: MIT
// Black-box test functions (the classic CMA-ES / BBOB set) as an env family, so that every
// algorithm, the runner and `neuroevo compare` work on them unchanged. A spec's `evaluate` maps a
// candidate x (dim floats) to f(x), minimized; the evaluator reports -f(x) as fitness and counts one
// step per evaluation. With [env] shift_seed != 0 the function is evaluated at z = R (x - o): o
// uniform in [-4, 4]^dim and R a random orthogonal matrix (Gram-Schmidt of Gaussian noise), both
// from the seed. The MDP half of the family (reset/step) is a one-step stub for listings and tools.
//
// Functions of z (dim n), all with minimum 0, at z* = 0 except Rosenbrock (z* = 1):
//   sphere      sum z_i^2                          ellipsoid   sum 10^(6 i / (n-1)) z_i^2
//   rosenbrock  sum_{i<n-1} 100 (z_i^2 - z_{i+1})^2 + (1 - z_i)^2
//   rastrigin   10 n + sum (z_i^2 - 10 cos(2 pi z_i))
//   ackley      20 (1 - exp(-0.2 sqrt(mean z_i^2))) + e - exp(mean cos(2 pi z_i))
//   griewank    1 + sum z_i^2 / 4000 - prod cos(z_i / sqrt(i + 1))
//   schwefel12  sum_i (sum_{j<=i} z_j)^2           cigar   z_0^2 + 1e6 sum_{i>0} z_i^2
//   discus      1e6 z_0^2 + sum_{i>0} z_i^2
#include "envs/bbob/bbob.h"

#include <math.h>  // sqrt (IEEE exact)
#include <stdio.h>
#include <string.h>

#include "core/detmath.h"  // ne__cos, ne__sincos_turns, ne__log: deterministic trigonometry
#include "core/linalg.h"   // ne__exp, ne__orthonormalize_rows
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/rng.h"

#define BBOB_DEFAULT_DIM 10
#define BBOB_MAX_DIM 10000000      // sep-CMA-ES scale
#define BBOB_MAX_ROTATED_DIM 2000  // a rotation costs 8 n^2 bytes and O(n^2) per evaluation
#define BBOB_SHIFT_RANGE 4.0       // optimum shift o in [-4, 4]^n, as in BBOB
#define BBOB_TARGET 1e-8           // f below this counts as solved (reward threshold -1e-8)

typedef enum bbob_fn {
  FN_SPHERE,
  FN_ELLIPSOID,
  FN_ROSENBROCK,
  FN_RASTRIGIN,
  FN_ACKLEY,
  FN_GRIEWANK,
  FN_SCHWEFEL12,
  FN_CIGAR,
  FN_DISCUS
} bbob_fn;

// Immutable per-spec data (spec->data).
typedef struct bbob_data {
  bbob_fn fn;     // which function
  int n;          // dimension
  double* shift;  // (n) o, or NULL
  double* rot;    // (n, n) R row-major, or NULL
  double* coef;   // (n) ellipsoid coefficients 10^(6 i / (n - 1)), or NULL
} bbob_data;

// ---- the transform z = R (x - o) ----------------------------------------------------------------

// z_i for candidate x: O(1) unrotated, O(n) rotated (so a whole evaluation is O(n) or O(n^2))
static inline double z_at(const bbob_data* b, const float* x, int i) {
  if (b->rot) {
    const double* r = b->rot + (size_t)i * (size_t)b->n;
    double acc = 0;
    for (int j = 0; j < b->n; j++) acc += r[j] * ((double)x[j] - b->shift[j]);
    return acc;
  }
  return b->shift ? (double)x[i] - b->shift[i] : (double)x[i];
}

// ---- the functions ------------------------------------------------------------------------------

static double f_weighted(const bbob_data* b, const float* x) {
  double s = 0;
  for (int i = 0; i < b->n; i++) {
    double z = z_at(b, x, i);
    double w = b->fn == FN_SPHERE ? 1.0
        : b->fn == FN_ELLIPSOID   ? b->coef[i]
        : b->fn == FN_CIGAR       ? (i ? 1e6 : 1.0)
                                  : (i ? 1.0 : 1e6);  // discus
    s += w * z * z;
  }
  return s;
}

static double f_rosenbrock(const bbob_data* b, const float* x) {
  double s = 0, prev = z_at(b, x, 0);
  for (int i = 1; i < b->n; i++) {
    double z = z_at(b, x, i);
    double a = prev * prev - z, c = 1.0 - prev;
    s += 100.0 * a * a + c * c;
    prev = z;
  }
  return s;
}

static double f_rastrigin(const bbob_data* b, const float* x) {
  double s = 10.0 * b->n;
  for (int i = 0; i < b->n; i++) {
    double z = z_at(b, x, i), sn, cs;
    ne__sincos_turns(z, &sn, &cs);  // cos(2 pi z) with exact range reduction
    s += z * z - 10.0 * cs;
  }
  return s;
}

static double f_ackley(const bbob_data* b, const float* x) {
  double sq = 0, cs_sum = 0;
  for (int i = 0; i < b->n; i++) {
    double z = z_at(b, x, i), sn, cs;
    ne__sincos_turns(z, &sn, &cs);
    sq += z * z;
    cs_sum += cs;
  }
  // grouped so that z = 0 gives exactly 0
  double e = ne__exp(1.0);
  return 20.0 * (1.0 - ne__exp(-0.2 * sqrt(sq / b->n))) + (e - ne__exp(cs_sum / b->n));
}

static double f_griewank(const bbob_data* b, const float* x) {
  double s = 0, p = 1;
  for (int i = 0; i < b->n; i++) {
    double z = z_at(b, x, i);
    s += z * z / 4000.0;
    p *= ne__cos(z / sqrt(i + 1.0));
  }
  return (1.0 - p) + s;
}

static double f_schwefel12(const bbob_data* b, const float* x) {
  double s = 0, run = 0;
  for (int i = 0; i < b->n; i++) {
    run += z_at(b, x, i);
    s += run * run;
  }
  return s;
}

static double bbob_evaluate(const ne_env_spec* spec, const float* x, size_t n) {
  const bbob_data* b = spec->data;
  if (n != (size_t)b->n) return NAN;
  switch (b->fn) {
    case FN_ROSENBROCK: return f_rosenbrock(b, x);
    case FN_RASTRIGIN: return f_rastrigin(b, x);
    case FN_ACKLEY: return f_ackley(b, x);
    case FN_GRIEWANK: return f_griewank(b, x);
    case FN_SCHWEFEL12: return f_schwefel12(b, x);
    default: return f_weighted(b, x);
  }
}

// ---- the one-step MDP stub ----------------------------------------------------------------------
// Black-box specs are evaluated through spec->evaluate; reset/step exist so that generic tools
// (`neuroevo envs`, state creation) work: an episode is a single step with reward 0.

static void bb_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) { (void)spec, (void)impl, (void)rng; }

static void bb_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec, (void)impl, (void)act;
  *reward = 0;
  *terminated = 1;
}

static void bb_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec, (void)impl;
  obs[0] = 0;
}

static int bb_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  (void)impl, (void)v;
  if (n == 0) return 0;
  return ne__set_error(errstr, NE_EINVAL, "%s: a black-box function has no state (got %d values)", spec->id, n);
}

static void bb_get_state(const ne_env_spec* spec, const void* impl, double* v) { (void)spec, (void)impl, (void)v; }

static void bb_destroy(ne_env_spec* spec) {
  bbob_data* b = spec->data;
  if (!b) return;
  ne_free(b->shift);
  ne_free(b->rot);
  ne_free(b->coef);
  ne_free(b);
  spec->data = NULL;
}

static const ne_env_family bbob_family = {
    "bbob", sizeof(double), bb_reset, bb_step, bb_observe, bb_set_state, bb_get_state, bb_destroy,
};

// ---- make ---------------------------------------------------------------------------------------

// o uniform in [-4, 4]^n and R orthonormalized Gaussian rows, from the shift seed
static int make_transform(bbob_data* b, uint64_t seed, const char* id, char* errstr) {
  size_t n = (size_t)b->n;
  if (b->n > BBOB_MAX_ROTATED_DIM)
    return ne__set_error(errstr, NE_ERANGE, "%s: env.shift_seed rotates the function, which needs dim <= %d (got %d)",
                         id, BBOB_MAX_ROTATED_DIM, b->n);
  b->shift = ne_malloc(n * sizeof(double));
  b->rot = ne_malloc(n * n * sizeof(double));
  if (!b->shift || !b->rot) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory for a %d-D rotation", id, b->n);
  ne_rng rng;
  ne_rng_seed(&rng, ne_hash2(seed, 1));
  for (size_t i = 0; i < n; i++) b->shift[i] = ne_rng_range(&rng, -BBOB_SHIFT_RANGE, BBOB_SHIFT_RANGE);
  ne_rng_seed(&rng, ne_hash2(seed, 2));
  for (size_t i = 0; i < n * n; i++) b->rot[i] = ne_rng_normal(&rng);
  if (ne__orthonormalize_rows(b->rot, b->n))
    return ne__set_error(errstr, NE_ERANGE, "%s: degenerate random rotation for shift_seed %llu", id,
                         (unsigned long long)seed);
  return 0;
}

static int ellipsoid_coefs(bbob_data* b, char* errstr) {
  b->coef = ne_malloc((size_t)b->n * sizeof(double));
  if (!b->coef) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  // 10^(6 i / (n - 1)) through the deterministic exp; conditioning 1e6 between the first and last axis
  for (int i = 0; i < b->n; i++) b->coef[i] = b->n > 1 ? ne__exp(6.0 * i / (b->n - 1.0) * ne__log(10.0)) : 1.0;
  return 0;
}

// fills the spec fields every bbob function shares
static void spec_fields(ne_env_spec* spec, bbob_data* b) {
  spec->obs_dim = 1;
  spec->obs_rank = 1;
  spec->obs_shape[0] = 1;
  spec->discrete = 0;
  spec->act_dim = 1;
  spec->act_low[0] = (float)-5.0;  // the usual search box, for listings only
  spec->act_high[0] = (float)5.0;
  spec->max_episode_steps = 1;
  spec->has_threshold = 1;
  spec->reward_threshold = -BBOB_TARGET;
  spec->state_dim = 0;
  spec->family = &bbob_family;
  spec->data = b;
  spec->evaluate = bbob_evaluate;
  spec->dim = b->n;
}

static int bbob_make(bbob_fn fn, const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  int n = options && options->dim > 0 ? options->dim : BBOB_DEFAULT_DIM;
  uint64_t seed = options ? options->shift_seed : 0;
  if (n > BBOB_MAX_DIM) return ne__set_error(errstr, NE_ERANGE, "%s: dim = %d, at most %d", id, n, BBOB_MAX_DIM);
  if (fn == FN_ROSENBROCK && n < 2) return ne__set_error(errstr, NE_ERANGE, "%s: needs dim >= 2 (got %d)", id, n);
  bbob_data* b = ne_calloc(1, sizeof *b);
  if (!b) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", id);
  b->fn = fn;
  b->n = n;
  spec_fields(spec, b);  // from here on the spec owns b: ne_env_spec_destroy frees it on failure
  snprintf(spec->id, sizeof spec->id, "%s", id);
  if (fn == FN_ELLIPSOID) {
    int rc = ellipsoid_coefs(b, errstr);
    if (rc) return rc;
  }
  return seed ? make_transform(b, seed, id, errstr) : 0;
}

#define BBOB_MAKER(name, fn)                                                                      \
  static int make_##name(const char* id, const ne_env_options* o, ne_env_spec* s, char* errstr) { \
    return bbob_make(fn, id, o, s, errstr);                                                       \
  }
BBOB_MAKER(sphere, FN_SPHERE)
BBOB_MAKER(ellipsoid, FN_ELLIPSOID)
BBOB_MAKER(rosenbrock, FN_ROSENBROCK)
BBOB_MAKER(rastrigin, FN_RASTRIGIN)
BBOB_MAKER(ackley, FN_ACKLEY)
BBOB_MAKER(griewank, FN_GRIEWANK)
BBOB_MAKER(schwefel12, FN_SCHWEFEL12)
BBOB_MAKER(cigar, FN_CIGAR)
BBOB_MAKER(discus, FN_DISCUS)

const ne_env_entry ne__bbob_envs[] = {
    {"bbob/sphere", "black-box: minimize sum z_i^2 over [env] dim parameters (f* = 0 at z = 0)", make_sphere},
    {"bbob/ellipsoid", "black-box: sum 10^(6i/(n-1)) z_i^2, condition 1e6 (f* = 0 at z = 0)", make_ellipsoid},
    {"bbob/rosenbrock", "black-box: sum 100 (z_i^2 - z_i+1)^2 + (1 - z_i)^2 (f* = 0 at z = 1)", make_rosenbrock},
    {"bbob/rastrigin", "black-box: 10n + sum z_i^2 - 10 cos(2 pi z_i), multimodal (f* = 0 at z = 0)", make_rastrigin},
    {"bbob/ackley", "black-box: Ackley's function, multimodal (f* = 0 at z = 0)", make_ackley},
    {"bbob/griewank", "black-box: 1 + sum z_i^2/4000 - prod cos(z_i/sqrt(i+1)) (f* = 0 at z = 0)", make_griewank},
    {"bbob/schwefel12", "black-box: sum_i (sum_j<=i z_j)^2, Schwefel 1.2 (f* = 0 at z = 0)", make_schwefel12},
    {"bbob/cigar", "black-box: z_0^2 + 1e6 sum_i>0 z_i^2 (f* = 0 at z = 0)", make_cigar},
    {"bbob/discus", "black-box: 1e6 z_0^2 + sum_i>0 z_i^2 (f* = 0 at z = 0)", make_discus},
    {NULL, NULL, NULL},
};

// ---- accessors for tests ------------------------------------------------------------------------

int ne__bbob_optimum(const ne_env_spec* spec, double* x_opt) {
  if (!spec || spec->family != &bbob_family) return NE_EINVAL;
  const bbob_data* b = spec->data;
  double zstar = b->fn == FN_ROSENBROCK ? 1.0 : 0.0;
  // x* = o + R^T z* (R orthogonal)
  for (int j = 0; j < b->n; j++) {
    double acc = 0;
    if (b->rot)
      for (int i = 0; i < b->n; i++) acc += b->rot[(size_t)i * (size_t)b->n + j] * zstar;
    else acc = zstar;
    x_opt[j] = (b->shift ? b->shift[j] : 0.0) + acc;
  }
  return 0;
}

const double* ne__bbob_rotation(const ne_env_spec* spec) {
  if (!spec || spec->family != &bbob_family) return NULL;
  return ((const bbob_data*)spec->data)->rot;
}
