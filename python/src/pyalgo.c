// SPDX-License-Identifier: MIT
// neuroevo._core.Algorithm: any registered ask/tell algorithm (include/neuroevo/algo.h) driven by
// a user's own fitness function, generically over the vtable, so an algorithm added to the C
// registry appears in Python with no code here. The search vector x has `dim` components and is
// x0 + theta[:dim], where theta is the parameter vector of a linear (dim-1 -> 1) policy: its
// parameter count is exactly dim and its init is zeros, so the vector algorithms (ES, ARS, PGPE,
// SNES, CMA-ES) start exactly at x0. A seed chain (GA) [s0, s1, ...] is x0 + sigma * (eps(s0) +
// eps(s1) + ...): its init seed counts as a first mutation, so the GA's first generation is
// x0 + sigma * N(0, I) as a pycma user expects of sigma0 (rather than all at x0). Other candidates
// are materialized exactly as the evaluator does (ne_evaluator_params over a stand-in env that is
// never stepped). The centre evaluation some algorithms append (ES, ARS, PGPE, SNES, CMA-ES's
// eval_mean, an optimizer server's recommendation) is pointed out by ask() so the Python class can
// keep it out of the population.
#include <math.h>
#include <string.h>

#include "core/simd.h"  // NE_TARGET_CLONES
#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"  // ne_free of save()'s buffer
#include "neuroevo/cache.h"
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/genome.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "pyne.h"

#define CACHE_BYTES ((size_t)64 << 20)  // GA parents: a child is its cached parent + one perturbation

typedef struct algo_object {
  PyObject_HEAD const ne_algo_vt* vt;  // the algorithm
  void* algo;                          // its state, owned
  ne_config* cfg;                      // its config (defaults + the caller's overrides), owned
  ne_policy_spec policy;               // the linear stand-in policy whose parameters are searched
  ne_env_spec env;                     // stand-in env the evaluator needs (obs length = policy input)
  ne_param_cache* cache;               // owned
  ne_evaluator* ev;                    // materializes candidates, owned
  Py_ssize_t dim;                      // search dimension
  double* x0;                          // (dim) centre offset
  uint64_t seed;                       // the run seed (to recognize centre candidates)
  float* theta;                        // (n_params) scratch for chains
  uint64_t* chain;                     // (chain_cap) scratch: a chain with its init seed repeated
  size_t chain_cap;
  int maximize;           // 1: tell() values are maximized; 0: minimized (negated for C)
  const ne_batch* batch;  // the asked batch awaiting tell, or NULL
  ne_result* results;     // (results_cap)
  int results_cap;
  double* obs_stats;     // (2 * results_cap * obs_dim) zeros, for algorithms that want obs sums
  uint32_t generations;  // generations completed
  ne_gen_report report;  // the last completed generation's figures
} algo_object;

// ---- the stand-in env: evaluators need one; it is never reset or stepped -----------------------------

static void null_reset(const ne_env_spec* s, void* impl, ne_rng* rng) { (void)s, (void)impl, (void)rng; }
static void null_step(const ne_env_spec* s, void* impl, const float* a, double* r, int* t) {
  (void)s, (void)impl, (void)a;
  *r = 0;
  *t = 1;
}
static void null_observe(const ne_env_spec* s, const void* impl, float* obs) {
  (void)impl;
  memset(obs, 0, (size_t)s->obs_dim * sizeof(float));
}
static int null_set_state(const ne_env_spec* s, void* impl, const double* v, int n, char* e) {
  (void)s, (void)impl, (void)v, (void)n, (void)e;
  return NE_EUNSUPPORTED;
}
static void null_get_state(const ne_env_spec* s, const void* impl, double* v) { (void)s, (void)impl, (void)v; }
static const ne_env_family null_family = {"blackbox",     1,   null_reset, null_step, null_observe, null_set_state,
                                          null_get_state, NULL};

// The algorithm's own message for its last failure (an optimizer server's), else fallback.
static const char* algo_message(const algo_object* self, const char* fallback) {
  const char* msg = self->vt->last_error ? self->vt->last_error(self->algo) : NULL;
  return msg ? msg : fallback;
}

// ---- lifetime ----------------------------------------------------------------------------------------

// Applies `section.key=value` strings (Python str items) to cfg; 0 or -1 with an exception set.
static int apply_overrides(ne_config* cfg, PyObject* overrides) {
  if (!overrides || overrides == Py_None) return 0;
  PyObject* seq = PySequence_Fast(overrides, "overrides must be a sequence of 'section.key=value' strings");
  if (!seq) return -1;
  int rc = 0;
  for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Fast_GET_SIZE(seq); i++) {
    const char* a = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
    char err[NE_ERRSTR_LEN] = "";
    if (!a) rc = -1;
    else if ((rc = ne_config_override(cfg, a, "override", err)) != 0) pyne_raise(rc, err), rc = -1;
  }
  Py_DECREF(seq);
  return rc;
}

// The linear policy with exactly dim parameters (dim - 1 inputs, 1 output + bias); dim == 1 uses a
// 1 -> 1 layer and ignores its bias.
static int stand_in_policy(algo_object* self, char* err) {
  float low = -1, high = 1;
  int inputs = self->dim >= 2 ? (int)self->dim - 1 : 1;
  int rc = ne_policy_spec_init(&self->policy, inputs, NULL, 0, 1, NE_ACT_TANH, NE_HEAD_CLIP, NE_INIT_ZEROS, &low, &high,
                               err);
  if (rc) return rc;
  memset(&self->env, 0, sizeof self->env);
  snprintf(self->env.id, sizeof self->env.id, "blackbox-%zd", self->dim);
  self->env.obs_dim = inputs;
  self->env.obs_rank = 1;
  self->env.obs_shape[0] = inputs;
  self->env.act_dim = 1;
  self->env.act_low[0] = low;
  self->env.act_high[0] = high;
  self->env.family = &null_family;
  return 0;
}

static int algo_init(algo_object* self, PyObject* args, PyObject* kw) {
  static char* kwlist[] = {"name", "x0", "overrides", "seed", "maximize", NULL};
  const char* name;
  PyObject *x0, *overrides = NULL;
  unsigned long long seed = 0;
  int maximize = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|OKp", kwlist, &name, &x0, &overrides, &seed, &maximize)) return -1;
  if (self->algo) {
    PyErr_SetString(PyExc_RuntimeError, "Algorithm.__init__ called twice");
    return -1;
  }
  self->vt = ne_algo_find(name);
  if (!self->vt) {
    PyErr_Format(PyExc_ValueError, "no algorithm named '%s' in this build", name);
    return -1;
  }
  // x0 as float64
  Py_buffer view;
  if (PyObject_GetBuffer(x0, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
  int ok = strcmp(view.format, "d") == 0 && view.itemsize == 8 && view.len >= 8;
  self->dim = ok ? view.len / 8 : 0;
  self->x0 = ok ? PyMem_Malloc((size_t)view.len) : NULL;
  if (self->x0) memcpy(self->x0, view.buf, (size_t)view.len);
  PyBuffer_Release(&view);
  if (!ok) return PyErr_SetString(PyExc_ValueError, "x0 must be a non-empty contiguous float64 array"), -1;
  if (!self->x0) return PyErr_NoMemory(), -1;
  self->maximize = maximize;
  // config: the algorithm's defaults, then the caller's keys
  char err[NE_ERRSTR_LEN] = "";
  self->cfg = ne_config_create();
  if (!self->cfg) return PyErr_NoMemory(), -1;
  int rc = ne_config_set(self->cfg, "run", "algorithm", name, "Algorithm()", err);
  if (!rc) rc = ne_config_set(self->cfg, "env", "episodes", "1", "Algorithm()", err);
  if (rc) return pyne_raise(rc, err), -1;
  if (apply_overrides(self->cfg, overrides)) return -1;
  rc = ne_config_validate(self->cfg, err);
  if (!rc) rc = stand_in_policy(self, err);
  if (rc) return pyne_raise(rc, err), -1;
  // the evaluator that materializes candidates, then the algorithm itself
  self->cache = ne_cache_create(self->policy.n_params, CACHE_BYTES);
  self->ev = self->cache ? ne_evaluator_create(&self->env, &self->policy, self->cache) : NULL;
  if (!self->ev) return PyErr_NoMemory(), -1;
  self->seed = (uint64_t)seed;
  self->theta = PyMem_Malloc(self->policy.n_params * sizeof(float));
  if (!self->theta) return PyErr_NoMemory(), -1;
  ne_problem prob = {&self->policy, self->policy.n_params, (uint64_t)seed, 1, self->env.obs_dim, 0};
  rc = self->vt->create(&prob, self->cfg, &self->algo, err);
  if (rc) {
    self->algo = NULL;
    return pyne_raise(rc, err), -1;
  }
  return 0;
}

static void algo_dealloc(algo_object* self) {
  if (self->algo) self->vt->destroy(self->algo);
  ne_evaluator_destroy(self->ev);
  ne_cache_destroy(self->cache);
  ne_config_destroy(self->cfg);
  PyMem_Free(self->x0);
  PyMem_Free(self->theta);
  PyMem_Free(self->chain);
  PyMem_Free(self->results);
  PyMem_Free(self->obs_stats);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static int check_ready(algo_object* self) {
  if (self->algo) return 0;
  PyErr_SetString(PyExc_RuntimeError, "the algorithm is not initialized");
  return -1;
}

// ---- ask / tell ------------------------------------------------------------------------------------

// theta of a seed chain [s0, s1, ...] with s0 counted as a mutation too: the chain [s0, s0, s1, ...]
// over the zero init, i.e. sigma * (eps(s0) + eps(s1) + ...). NULL when out of memory.
static const float* chain_theta(algo_object* self, const uint64_t* seeds, size_t n, float sigma) {
  if (n + 1 > self->chain_cap) {
    uint64_t* grown = PyMem_Realloc(self->chain, (n + 1) * sizeof *grown);
    if (!grown) return NULL;
    self->chain = grown;
    self->chain_cap = n + 1;
  }
  self->chain[0] = seeds[0];
  memcpy(self->chain + 1, seeds, n * sizeof *seeds);
  ne_genome_materialize(&self->policy, self->chain, n + 1, sigma, self->theta);
  return self->theta;
}

// The centre evaluation an ES-family algorithm or CMA-ES appends: the last candidate, an explicit
// vector on the re-evaluation episodes of its generation (ne__centre_candidate, CMA-ES's mean).
static int is_centre(const algo_object* self, const ne_batch* b, int i) {
  const ne_candidate* c = &b->cands[i];
  return i == b->n - 1 && b->n > 1 && c->kind == NE_CAND_VECTOR &&
      c->episode_seed == ne_seed_derive(self->seed, b->generation, 0, NE_PURPOSE_REEVAL);
}

// x[j] = x0[j] + theta[j], the float widened exactly: a clone per vector width (the 8 bytes a
// parameter that Python gets are most of an ask's time: 10k parameters x 100 candidates is 8 MB);
// restrict, because with -fno-strict-aliasing a store through x could change a struct's x0 or dim
// and gcc kept the loop scalar
NE_TARGET_CLONES static void shifted_row(double* restrict x, const double* restrict x0, const float* restrict theta,
                                         Py_ssize_t n) {
  for (Py_ssize_t j = 0; j < n; j++) x[j] = x0[j] + (double)theta[j];
}

// Writes x0 + theta[:dim] for every candidate of the pending batch into out (n * dim doubles).
static int materialize(algo_object* self, double* out) {
  const ne_batch* b = self->batch;
  for (int i = 0; i < b->n; i++) {
    int status = 0;
    const ne_candidate* c = &b->cands[i];
    const float* theta = c->kind == NE_CAND_CHAIN ? chain_theta(self, c->seeds, c->n_seeds, c->sigma)
                                                  : ne_evaluator_params(self->ev, b, c, &status);
    if (!theta && c->kind == NE_CAND_CHAIN) return PyErr_NoMemory(), -1;
    if (!theta) {
      pyne_raise(status ? status : NE_EINVAL, "a candidate could not be materialized");
      return -1;
    }
    shifted_row(out + (size_t)i * (size_t)self->dim, self->x0, theta, self->dim);
  }
  return 0;
}

static PyObject* algo_ask(algo_object* self, PyObject* noargs) {
  (void)noargs;
  if (check_ready(self)) return NULL;
  // asking again before tell returns the same batch
  if (!self->batch) {
    int rc = self->vt->ask(self->algo, &self->batch);
    if (rc) {
      self->batch = NULL;
      return pyne_raise(rc, algo_message(self, "ask failed"));
    }
  }
  PyObject* buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)self->batch->n * self->dim * 8);
  if (!buf) return NULL;
  if (materialize(self, (double*)PyByteArray_AS_STRING(buf))) {
    Py_DECREF(buf);
    return NULL;
  }
  int centre = is_centre(self, self->batch, self->batch->n - 1) ? self->batch->n - 1 : -1;
  return Py_BuildValue("(Nii)", buf, self->batch->n, centre);
}

// Grows the result buffers to the pending batch.
static int reserve_results(algo_object* self) {
  const ne_batch* b = self->batch;
  size_t d = (size_t)self->env.obs_dim;
  if (b->n > self->results_cap) {
    PyMem_Free(self->results);
    PyMem_Free(self->obs_stats);
    self->results = PyMem_Calloc((size_t)b->n, sizeof *self->results);
    self->obs_stats = PyMem_Calloc((size_t)b->n * 2 * d, sizeof(double));
    self->results_cap = self->results && self->obs_stats ? b->n : 0;
    if (!self->results_cap) return PyErr_NoMemory(), -1;
  }
  // the observation sums stay the zeros of their allocation (no observations exist here, and the
  // algorithms only read them): zeroing n * 2 * obs_dim doubles per tell cost more than the tell
  memset(self->results, 0, (size_t)b->n * sizeof *self->results);
  return 0;
}

static PyObject* algo_tell(algo_object* self, PyObject* values) {
  if (check_ready(self)) return NULL;
  if (!self->batch) return PyErr_Format(PyExc_RuntimeError, "tell() without a pending ask()");
  Py_buffer view;
  if (PyObject_GetBuffer(values, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
  int ok = strcmp(view.format, "d") == 0 && view.len == (Py_ssize_t)self->batch->n * 8;
  if (!ok || reserve_results(self)) {
    PyBuffer_Release(&view);
    if (!ok) PyErr_Format(PyExc_ValueError, "tell() needs %d float64 values, one per asked candidate", self->batch->n);
    return NULL;
  }
  // C maximizes; NaN and inf values count as failed evaluations (ranked last)
  size_t d = (size_t)self->env.obs_dim;
  for (int i = 0; i < self->batch->n; i++) {
    double v = ((const double*)view.buf)[i];
    ne_result* r = &self->results[i];
    r->fitness = self->maximize ? v : -v;
    r->status = isfinite(v) ? 0 : NE_ERANGE;
    r->episodes = 1;
    // no observations exist in black-box use: empty sums, which normalizing algorithms skip
    r->obs_sum = self->obs_stats + (size_t)i * 2 * d;
    r->obs_sumsq = r->obs_sum + d;
  }
  PyBuffer_Release(&view);
  int done = 0;
  int rc = self->vt->tell(self->algo, self->batch, self->results, &done);
  self->batch = NULL;
  if (rc) return pyne_raise(rc, algo_message(self, "tell failed"));
  if (done) {
    self->vt->report(self->algo, &self->report);
    self->generations++;
  }
  return PyBool_FromLong(done);
}

// ---- results ---------------------------------------------------------------------------------------

// the sign the user sees: minimized values are the negated C fitness
static double user_value(const algo_object* self, double fitness) { return self->maximize ? fitness : -fitness; }

static PyObject* algo_best(algo_object* self, PyObject* noargs) {
  (void)noargs;
  if (check_ready(self)) return NULL;
  ne_best best;
  if (self->vt->best(self->algo, &best) != 0) Py_RETURN_NONE;
  PyObject* buf = PyByteArray_FromStringAndSize(NULL, self->dim * 8);
  float* theta = PyMem_Malloc(self->policy.n_params * sizeof(float));
  if (!buf || !theta) {
    Py_XDECREF(buf);
    PyMem_Free(theta);
    return PyErr_NoMemory();
  }
  // a chain is replayed (as ask() made it); explicit parameters are copied
  const float* chain = best.seeds ? chain_theta(self, best.seeds, best.n_seeds, best.sigma) : NULL;
  if (best.seeds && !chain) {
    Py_DECREF(buf);
    PyMem_Free(theta);
    return PyErr_NoMemory();
  }
  if (chain) memcpy(theta, chain, self->policy.n_params * sizeof(float));
  else if (best.params && best.n_params == self->policy.n_params)
    memcpy(theta, best.params, best.n_params * sizeof(float));
  else memset(theta, 0, self->policy.n_params * sizeof(float));
  shifted_row((double*)PyByteArray_AS_STRING(buf), self->x0, theta, self->dim);
  PyMem_Free(theta);
  return Py_BuildValue("(NdI)", buf, user_value(self, best.score), best.generation);
}

static PyObject* algo_report(algo_object* self, PyObject* noargs) {
  (void)noargs;
  if (check_ready(self)) return NULL;
  if (!self->generations) Py_RETURN_NONE;
  const ne_gen_report* r = &self->report;
  // best/mean/median in the user's sign; for minimization "best" is the smallest value
  return Py_BuildValue("{s:I,s:d,s:d,s:d,s:d,s:(dddd)}", "generation", r->generation, "best", user_value(self, r->best),
                       "mean", user_value(self, r->mean), "median", user_value(self, r->median), "elite_mean",
                       isnan(r->elite_mean) ? NAN : user_value(self, r->elite_mean), "extra", r->extra[0], r->extra[1],
                       r->extra[2], r->extra[3]);
}

static PyObject* algo_save(algo_object* self, PyObject* noargs) {
  (void)noargs;
  if (check_ready(self)) return NULL;
  uint8_t* data = NULL;
  size_t len = 0;
  int rc = self->vt->save(self->algo, &data, &len);
  if (rc) return pyne_raise(rc, algo_message(self, "cannot serialize the algorithm's state"));
  PyObject* bytes = PyBytes_FromStringAndSize((const char*)data, (Py_ssize_t)len);
  ne_free(data);
  return bytes;
}

static PyObject* algo_load(algo_object* self, PyObject* arg) {
  if (check_ready(self)) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
  char err[NE_ERRSTR_LEN] = "";
  int rc = self->vt->load(self->algo, view.buf, (size_t)view.len, err);
  PyBuffer_Release(&view);
  if (rc) return pyne_raise(rc, err);
  self->batch = NULL;
  Py_RETURN_NONE;
}

static PyObject* algo_get_name(algo_object* self, void* c) {
  (void)c;
  return self->vt ? PyUnicode_FromString(self->vt->name) : Py_NewRef(Py_None);
}
static PyObject* algo_get_dim(algo_object* self, void* c) {
  (void)c;
  return PyLong_FromSsize_t(self->dim);
}
static PyObject* algo_get_generations(algo_object* self, void* c) {
  (void)c;
  return PyLong_FromUnsignedLong(self->generations);
}
static PyObject* algo_get_round(algo_object* self, void* c) {
  (void)c;
  return self->batch ? PyLong_FromUnsignedLong(self->batch->round) : Py_NewRef(Py_None);
}

static PyMethodDef algo_methods[] = {
    {"ask", (PyCFunction)algo_ask, METH_NOARGS,
     "ask() -> (bytearray of n*dim float64, n, index of the appended centre evaluation or -1)"},
    {"tell", (PyCFunction)algo_tell, METH_O, "tell(values: float64 buffer of n) -> True when a generation completed"},
    {"best", (PyCFunction)algo_best, METH_NOARGS, "best() -> (bytearray of dim float64, value, generation) or None"},
    {"report", (PyCFunction)algo_report, METH_NOARGS, "report() -> dict of the last generation's figures, or None"},
    {"save", (PyCFunction)algo_save, METH_NOARGS, "save() -> bytes: the whole state at a generation boundary"},
    {"load", (PyCFunction)algo_load, METH_O, "load(bytes) -> None: restores a state written by save()"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef algo_getset[] = {
    {"name", (getter)algo_get_name, NULL, "the algorithm's registry name", NULL},
    {"dim", (getter)algo_get_dim, NULL, "search dimension", NULL},
    {"generations", (getter)algo_get_generations, NULL, "generations completed", NULL},
    {"round", (getter)algo_get_round, NULL, "round of the pending batch within its generation, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pyne_algo_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "neuroevo._core.Algorithm",
    .tp_basicsize = sizeof(algo_object),
    .tp_dealloc = (destructor)algo_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Algorithm(name, x0, overrides=(), seed=0, maximize=False): a registered ask/tell algorithm",
    .tp_methods = algo_methods,
    .tp_getset = algo_getset,
    .tp_init = (initproc)algo_init,
    .tp_new = PyType_GenericNew,
};
