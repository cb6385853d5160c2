// SPDX-License-Identifier: MIT
// sep-CMA-ES (Ros & Hansen, "A Simple Modification in CMA-ES Achieving Linear Time and Space
// Complexity", PPSN 2008): CMA-ES with a diagonal covariance matrix, whose learning rates c1 and
// cmu are multiplied by (n + 2) / 3. Sampling and every update are O(n) per sample, so it scales to
// neural networks with millions of parameters; it cannot learn correlations between parameters.
// Positive recombination weights only (the paper's setting); IPOP restarts as in cmaes.c.
#include <math.h>
#include <string.h>

#include "algos/cma_int.h"
#include "core/util.h"
#include "neuroevo/alloc.h"

#define SEPCMAES_MAGIC 0x31455343u  // "CSE1"

typedef struct sepcmaes {
  ne_cma c;       // shared state (mean, paths, sigma, restarts, buffers)
  double* cdiag;  // (n) the diagonal covariance matrix C
  double* d;      // (n) sqrt(cdiag): per-coordinate standard deviations before sigma
  double* acc;    // (n) scratch: sum_i w_i z_i^2 of the selected samples
} sepcmaes;

// C = I for a fresh (re)start
static void reset_model(sepcmaes* s) {
  for (int i = 0; i < s->c.n; i++) s->cdiag[i] = s->d[i] = 1;
}

// ---- ask ----------------------------------------------------------------------------------------

// x_k = m + sigma d .* z_k, straight into the candidate row
static void sample(sepcmaes* s, int k) {
  ne_cma* c = &s->c;
  size_t n = (size_t)c->n;
  const float* z = ne__cma_draw(c, k);
  float* x = c->x + (size_t)k * n;
  for (size_t i = 0; i < n; i++) x[i] = (float)(c->m[i] + c->sigma * s->d[i] * z[i]);
}

static int sep_ask(void* self, const ne_batch** batch) {
  sepcmaes* s = self;
  ne_cma* c = &s->c;
  if (c->phase == NE_CMA_IDLE) {
    for (int k = 0; k < c->par.lambda; k++) sample(s, k);
    ne__cma_finish_ask(c);
  }
  *batch = &c->batch;
  return 0;
}

// ---- tell ---------------------------------------------------------------------------------------

// acc_i = sum_{k<mu} w_k z_{k:lambda,i}^2 (the rank-mu term divided by d_i^2)
static void weighted_squares(sepcmaes* s) {
  ne_cma* c = &s->c;
  size_t n = (size_t)c->n;
  memset(s->acc, 0, n * sizeof(double));
  for (int r = 0; r < c->par.mu; r++) {
    double w = c->par.w[r];
    const float* z = c->z + (size_t)c->order[r] * n;
    for (size_t i = 0; i < n; i++) s->acc[i] += w * ((double)z[i] * z[i]);
  }
}

// c_i <- decay c_i + c1 p_c,i^2 + cmu d_i^2 acc_i, then d = sqrt(c)
static void update_covariance(sepcmaes* s, int hsig) {
  ne_cma* c = &s->c;
  double decay = ne__cma_decay(c, hsig), c1 = c->par.c1, cmu = c->par.cmu;
  for (int i = 0; i < c->n; i++) {
    double ci = decay * s->cdiag[i] + c1 * c->pc[i] * c->pc[i] + cmu * s->cdiag[i] * s->acc[i];
    s->cdiag[i] = ci;
    s->d[i] = sqrt(ci);
  }
}

static const char* stop_check(sepcmaes* s) {
  ne_cma* c = &s->c;
  double lo = s->cdiag[0], hi = s->cdiag[0];
  for (int i = 1; i < c->n; i++) {
    if (s->cdiag[i] < lo) lo = s->cdiag[i];
    if (s->cdiag[i] > hi) hi = s->cdiag[i];
  }
  double cond = lo > 0 ? hi / lo : INFINITY;
  c->report.extra[1] = cond;
  // principal axes are the coordinates here, so NoEffectCoord covers NoEffectAxis
  return ne__cma_stop_reason(c, s->cdiag, cond, hi, 0);
}

static int sep_tell(void* self, const ne_batch* batch, const ne_result* results, int* done) {
  sepcmaes* s = self;
  ne_cma* c = &s->c;
  int rc = ne__cma_rank(c, batch, results);
  if (rc) return rc;
  size_t n = (size_t)c->n;
  // <z>_w is C^{-1/2} <y>_w; <y>_w = d .* <z>_w
  double *zw = c->work, *yw = c->work + n;
  ne__cma_weighted_z(c, zw);
  for (size_t i = 0; i < n; i++) yw[i] = s->d[i] * zw[i];
  weighted_squares(s);
  ne__cma_move_mean(c, yw);
  int hsig = ne__cma_step_size(c, zw);
  ne__cma_update_pc(c, yw, hsig);
  update_covariance(s, hsig);
  const char* stop = stop_check(s);
  c->report.extra[0] = c->sigma;
  c->report.extra[2] = c->restart;
  c->report.extra[3] = c->par.lambda;
  int restarted;
  rc = ne__cma_end_generation(c, stop, &restarted);
  if (!rc && restarted) reset_model(s);
  *done = 1;
  return rc;
}

// ---- lifetime, reporting, checkpoints -----------------------------------------------------------

static void sep_destroy(void* self) {
  sepcmaes* s = self;
  if (!s) return;
  ne__cma_free(&s->c);
  ne_free(s->cdiag);
  ne_free(s->d);
  ne_free(s->acc);
  ne_free(s);
}

static int sep_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  sepcmaes* s = ne_calloc(1, sizeof *s);
  *self = s;
  if (!s) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  int rc = ne__cma_init(&s->c, problem, cfg, "sepcmaes", 1, errstr);
  if (rc) return rc;
  size_t n = (size_t)s->c.n;
  s->cdiag = ne_malloc(n * sizeof(double));
  s->d = ne_malloc(n * sizeof(double));
  s->acc = ne_malloc(n * sizeof(double));
  if (!s->cdiag || !s->d || !s->acc) return ne__set_error(errstr, NE_ENOMEM, "sepcmaes: out of memory");
  reset_model(s);
  return 0;
}

static void sep_report(void* self, ne_gen_report* out) { ne__cma_report(&((sepcmaes*)self)->c, out); }

static int sep_best(void* self, ne_best* out) { return ne__cma_best(&((sepcmaes*)self)->c, out); }

static int sep_save(void* self, uint8_t** data, size_t* len) {
  sepcmaes* s = self;
  if (s->c.phase != NE_CMA_IDLE) return NE_ESTATE;
  ne_buf b;
  ne__buf_init(&b);
  ne__cma_save(&s->c, SEPCMAES_MAGIC, &b);
  ne__buf_f64s(&b, s->cdiag, (size_t)s->c.n);
  return ne__buf_take(&b, data, len);
}

static int sep_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  sepcmaes* s = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  int rc = ne__cma_load(&s->c, SEPCMAES_MAGIC, &r, errstr);
  if (rc) return rc;
  ne__reader_f64s(&r, s->cdiag, (size_t)s->c.n);
  if (r.bad || r.pos != r.len)
    return ne__set_error(errstr, NE_ECORRUPT, "sep-CMA-ES state is truncated or has trailing bytes");
  // d is a pure function of C (IEEE sqrt), so recomputing it is bit-exact
  for (int i = 0; i < s->c.n; i++) s->d[i] = sqrt(s->cdiag[i]);
  return 0;
}

const ne_algo_vt ne__algo_sepcmaes = {
    .name = "sepcmaes",
    .section = "sepcmaes",
    .create = sep_create,
    .destroy = sep_destroy,
    .ask = sep_ask,
    .tell = sep_tell,
    .report = sep_report,
    .best = sep_best,
    .save = sep_save,
    .load = sep_load,
};
