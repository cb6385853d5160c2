// SPDX-License-Identifier: MIT
// CMA-ES with a full covariance matrix (Hansen, "The CMA Evolution Strategy: A Tutorial", 2016),
// active (negative) recombination weights of the 2016 tutorial by default ([cmaes] active), and
// IPOP restarts (Auger & Hansen 2005). C = B D^2 B^T is decomposed lazily, every
// max(1, floor(1 / (10 n (c1 + cmu)))) generations, so a generation costs O(lambda n^2) and the
// O(n^3) eigendecomposition is amortized. For a few thousand parameters at most; larger networks
// use sep-CMA-ES. Samples are explicit vectors (NE_CAND_VECTOR) drawn from counter-based noise.
#include <math.h>
#include <string.h>

#include "algos/cma_int.h"
#include "core/linalg.h"
#include "core/util.h"
#include "neuroevo/alloc.h"

#define CMAES_MAGIC 0x31414d43u  // "CMA1"
#define CMAES_MAX_N 5000         // C and B take 16 n^2 bytes

typedef struct cmaes {
  ne_cma c;          // shared state (mean, paths, sigma, restarts, buffers)
  double* C;         // (n, n) covariance matrix, both triangles kept
  double* B;         // (n, n) eigenvectors of C as columns (from the last decomposition)
  double* d;         // (n) axis lengths: square roots of C's eigenvalues
  double* eig_work;  // (n) eigendecomposition scratch
  double* y;         // (y_cap, n) y_k = B D z_k of the batch in flight
  int y_cap;         // rows allocated in y
  double* whitened;  // (n) B <z>_w = C^{-1/2} <y>_w
  uint32_t eigen_g;  // c.g at the last decomposition
  int eigen_failed;  // 1 if the last decomposition did not converge (forces a restart)
} cmaes;

// ---- the covariance model -----------------------------------------------------------------------

// C = B = I, D = I: the model of a fresh (re)start
static void reset_model(cmaes* s) {
  size_t n = (size_t)s->c.n;
  memset(s->C, 0, n * n * sizeof(double));
  memset(s->B, 0, n * n * sizeof(double));
  for (size_t i = 0; i < n; i++) {
    s->C[i * n + i] = 1;
    s->B[i * n + i] = 1;
    s->d[i] = 1;
  }
  s->eigen_g = 0;
  s->eigen_failed = 0;
}

// rows for the batch's y vectors (grown after an IPOP restart)
static int reserve_y(cmaes* s) {
  if (s->y_cap >= s->c.cap) return 0;
  ne_free(s->y);
  s->y = ne_malloc((size_t)s->c.cap * (size_t)s->c.n * sizeof(double));
  s->y_cap = s->y ? s->c.cap : 0;
  return s->y ? 0 : NE_ENOMEM;
}

// generations between eigendecompositions (tutorial B.2: O(n^2) per evaluation on average)
static uint32_t eigen_gap(const cmaes* s) {
  double gap = 1.0 / (10.0 * s->c.n * (s->c.par.c1 + s->c.par.cmu));
  return gap < 1 ? 1u : (uint32_t)gap;
}

// B, D from C. Eigenvalues are floored at 1e-20 of the largest: active updates can leave tiny
// negative ones from rounding, and sampling needs real axis lengths.
static void decompose(cmaes* s) {
  size_t n = (size_t)s->c.n;
  memcpy(s->B, s->C, n * n * sizeof(double));
  if (ne__eigen_sym(s->B, s->d, s->eig_work, (int)n) != 0 || !(s->d[n - 1] > 0) || !isfinite(s->d[n - 1])) {
    s->eigen_failed = 1;
    return;
  }
  double floor_ev = s->d[n - 1] * 1e-20;
  for (size_t i = 0; i < n; i++) s->d[i] = sqrt(s->d[i] > floor_ev ? s->d[i] : floor_ev);
  s->eigen_g = s->c.g;
}

// y = B (d .* z) and the candidate x = m + sigma y (as floats)
static void sample(cmaes* s, int k) {
  ne_cma* c = &s->c;
  size_t n = (size_t)c->n;
  const float* z = ne__cma_draw(c, k);
  double* dz = c->work;
  for (size_t j = 0; j < n; j++) dz[j] = s->d[j] * z[j];
  double* y = s->y + (size_t)k * n;
  float* x = c->x + (size_t)k * n;
  for (size_t i = 0; i < n; i++) {
    y[i] = ne__dot(s->B + i * n, dz, n);
    x[i] = (float)(c->m[i] + c->sigma * y[i]);
  }
}

// C <- decay C + c1 p_c p_c^T + cmu sum_i w_i° y_i y_i^T over all lambda (eq. 47), on the upper
// triangle, then mirrored. Negative weights are rescaled by n / ||C^{-1/2} y_i||^2 = n / ||z_i||^2.
static void update_covariance(cmaes* s, int hsig) {
  ne_cma* c = &s->c;
  size_t n = (size_t)c->n;
  double decay = ne__cma_decay(c, hsig), c1 = c->par.c1;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i; j < n; j++) s->C[i * n + j] = decay * s->C[i * n + j] + c1 * c->pc[i] * c->pc[j];
  for (int r = 0; r < c->par.lambda; r++) {
    double w = c->par.w[r];
    if (w == 0) continue;
    int k = c->order[r];
    if (w < 0) {
      const float* z = c->z + (size_t)k * n;
      double z2 = 0;
      for (size_t j = 0; j < n; j++) z2 += (double)z[j] * z[j];
      w *= z2 > 0 ? (double)n / z2 : 0;
    }
    const double* y = s->y + (size_t)k * n;
    double coef = c->par.cmu * w;
    for (size_t i = 0; i < n; i++) {
      double a = coef * y[i];
      double* ci = s->C + i * n;
      for (size_t j = i; j < n; j++) ci[j] += a * y[j];
    }
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) s->C[j * n + i] = s->C[i * n + j];
}

// NoEffectAxis: adding 0.1 sigma along principal axis g mod n leaves the mean unchanged
static int axis_no_effect(const cmaes* s) {
  const ne_cma* c = &s->c;
  size_t n = (size_t)c->n, k = (size_t)(c->g % (uint32_t)c->n);
  double step = 0.1 * c->sigma * s->d[k];
  for (size_t i = 0; i < n; i++)
    if (c->m[i] + step * s->B[i * n + k] != c->m[i]) return 0;
  return 1;
}

// ---- ask / tell ---------------------------------------------------------------------------------

static int cmaes_ask(void* self, const ne_batch** batch) {
  cmaes* s = self;
  ne_cma* c = &s->c;
  if (c->phase == NE_CMA_IDLE) {
    if (c->g - s->eigen_g >= eigen_gap(s)) decompose(s);
    for (int k = 0; k < c->par.lambda; k++) sample(s, k);
    ne__cma_finish_ask(c);
  }
  *batch = &c->batch;
  return 0;
}

// the restart criteria, from the current eigensystem and diag(C)
static const char* stop_check(cmaes* s) {
  ne_cma* c = &s->c;
  size_t n = (size_t)c->n;
  double* diag = c->work;
  for (size_t i = 0; i < n; i++) diag[i] = s->C[i * n + i];
  double dmin = s->d[0], dmax = s->d[n - 1];
  double cond = s->eigen_failed ? INFINITY : (dmax / dmin) * (dmax / dmin);
  c->report.extra[1] = cond;
  return ne__cma_stop_reason(c, diag, cond, dmax * dmax, axis_no_effect(s));
}

static int cmaes_tell(void* self, const ne_batch* batch, const ne_result* results, int* done) {
  cmaes* s = self;
  ne_cma* c = &s->c;
  int rc = ne__cma_rank(c, batch, results);
  if (rc) return rc;
  size_t n = (size_t)c->n;
  double* yw = c->work + n;
  ne__cma_weighted_rows(c, s->y, yw);
  // C^{-1/2} <y>_w = B D^-1 B^T B D <z>_w = B <z>_w with the B, D the samples were drawn with
  double* zw = c->work;
  ne__cma_weighted_z(c, zw);
  for (size_t i = 0; i < n; i++) s->whitened[i] = ne__dot(s->B + i * n, zw, n);
  ne__cma_move_mean(c, yw);
  int hsig = ne__cma_step_size(c, s->whitened);
  ne__cma_update_pc(c, yw, hsig);
  update_covariance(s, hsig);
  const char* stop = stop_check(s);
  c->report.extra[0] = c->sigma;
  c->report.extra[2] = c->restart;
  c->report.extra[3] = c->par.lambda;
  int restarted;
  rc = ne__cma_end_generation(c, stop, &restarted);
  if (!rc && restarted) {
    reset_model(s);
    rc = reserve_y(s);
  }
  *done = 1;
  return rc;
}

// ---- lifetime, reporting, checkpoints -----------------------------------------------------------

static void cmaes_destroy(void* self) {
  cmaes* s = self;
  if (!s) return;
  ne__cma_free(&s->c);
  ne_free(s->C);
  ne_free(s->B);
  ne_free(s->d);
  ne_free(s->eig_work);
  ne_free(s->y);
  ne_free(s->whitened);
  ne_free(s);
}

static int cmaes_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  *self = NULL;
  if (problem->n_params > CMAES_MAX_N)
    return ne__set_error(errstr, NE_ERANGE,
                         "cmaes: %zu parameters need a %zu x %zu covariance matrix; use run.algorithm = sepcmaes "
                         "(diagonal, O(n)) above %d",
                         problem->n_params, problem->n_params, problem->n_params, CMAES_MAX_N);
  cmaes* s = ne_calloc(1, sizeof *s);
  if (!s) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  *self = s;
  int rc = ne__cma_init(&s->c, problem, cfg, "cmaes", 0, errstr);
  if (rc) return rc;
  size_t n = (size_t)s->c.n;
  s->C = ne_malloc(n * n * sizeof(double));
  s->B = ne_malloc(n * n * sizeof(double));
  s->d = ne_malloc(n * sizeof(double));
  s->eig_work = ne_malloc(n * sizeof(double));
  s->whitened = ne_malloc(n * sizeof(double));
  if (!s->C || !s->B || !s->d || !s->eig_work || !s->whitened || reserve_y(s))
    return ne__set_error(errstr, NE_ENOMEM, "cmaes: out of memory for a %zu x %zu covariance matrix", n, n);
  reset_model(s);
  return 0;
}

static void cmaes_report(void* self, ne_gen_report* out) { ne__cma_report(&((cmaes*)self)->c, out); }

static int cmaes_best(void* self, ne_best* out) { return ne__cma_best(&((cmaes*)self)->c, out); }

static int cmaes_save(void* self, uint8_t** data, size_t* len) {
  cmaes* s = self;
  if (s->c.phase != NE_CMA_IDLE) return NE_ESTATE;
  size_t n = (size_t)s->c.n;
  ne_buf b;
  ne__buf_init(&b);
  ne__cma_save(&s->c, CMAES_MAGIC, &b);
  // the eigensystem is saved, not recomputed: it is refreshed lazily, so it may be older than C
  ne__buf_u32(&b, s->eigen_g);
  ne__buf_u32(&b, (uint32_t)s->eigen_failed);
  ne__buf_f64s(&b, s->C, n * n);
  ne__buf_f64s(&b, s->B, n * n);
  ne__buf_f64s(&b, s->d, n);
  return ne__buf_take(&b, data, len);
}

static int cmaes_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  cmaes* s = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  int rc = ne__cma_load(&s->c, CMAES_MAGIC, &r, errstr);
  if (rc) return rc;
  if (reserve_y(s)) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  size_t n = (size_t)s->c.n;
  s->eigen_g = ne__reader_u32(&r);
  s->eigen_failed = (int)ne__reader_u32(&r);
  ne__reader_f64s(&r, s->C, n * n);
  ne__reader_f64s(&r, s->B, n * n);
  ne__reader_f64s(&r, s->d, n);
  if (r.bad || r.pos != r.len)
    return ne__set_error(errstr, NE_ECORRUPT, "CMA-ES state is truncated or has trailing bytes");
  return 0;
}

const ne_algo_vt ne__algo_cmaes = {
    .name = "cmaes",
    .section = "cmaes",
    .create = cmaes_create,
    .destroy = cmaes_destroy,
    .ask = cmaes_ask,
    .tell = cmaes_tell,
    .report = cmaes_report,
    .best = cmaes_best,
    .save = cmaes_save,
    .load = cmaes_load,
};
