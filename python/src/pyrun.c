// SPDX-License-Identifier: MIT
// Module functions over the library's run, eval and genome code: run() trains in the C thread
// pool on a thread of its own with the GIL released (the calling thread wakes every 100 ms to let
// Python handle Ctrl-C, which stops the run at a checkpoint, and runs the caller's per-generation
// hook on the run's behalf), evaluate() is `neuroevo eval`'s episode loop, and genome_* parse,
// print and materialize the best.genome text format.
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/genome.h"
#include "neuroevo/pool.h"
#include "neuroevo/rng.h"
#include "neuroevo/run.h"
#include "pyne.h"

// ---- run ---------------------------------------------------------------------------------------------

// A training run handed to its own thread.
typedef struct run_job {
  ne_run* run;              // the run (created by the caller)
  volatile int stop;        // raised on Ctrl-C: the loop checkpoints and returns NE_EINTR
  int rc;                   // ne_run_loop's result
  char err[NE_ERRSTR_LEN];  // its message
  int done;                 // 1 once the loop returned (under mu)
  // the per-generation hook: the run thread posts a request and waits; the Python thread calls
  // hook(run_dir, generation) and posts the answer (all under mu)
  PyObject* hook;                    // borrowed callable, or NULL
  int hook_pending;                  // 1: a generation awaits the hook's answer
  int hook_stop;                     // the answer: 1 = end the run
  uint32_t hook_generation;          // the generation just completed
  const char* hook_dir;              // the run directory (owned by the run)
  PyObject *exc, *exc_val, *exc_tb;  // what the hook raised, re-raised once the run has stopped
  pthread_mutex_t mu;
  pthread_cond_t cv;  // signals both ways: a request or the end of the loop, and an answer
} run_job;

static void* run_thread(void* arg) {
  run_job* job = arg;
  int rc = ne_run_loop(job->run, job->err);
  pthread_mutex_lock(&job->mu);
  job->rc = rc;
  job->done = 1;
  pthread_cond_broadcast(&job->cv);
  pthread_mutex_unlock(&job->mu);
  return NULL;
}

// ne_run_options.on_generation, on the run thread: hands the generation to the Python thread and
// waits for its answer (the run is between generations meanwhile: nothing else runs).
static int hook_from_run_thread(void* user, const ne_run* run) {
  run_job* job = user;
  pthread_mutex_lock(&job->mu);
  job->hook_generation = ne_run_generation(run);
  job->hook_dir = ne_run_dir(run);
  job->hook_pending = 1;
  pthread_cond_broadcast(&job->cv);
  while (job->hook_pending) pthread_cond_wait(&job->cv, &job->mu);
  int stop = job->hook_stop;
  pthread_mutex_unlock(&job->mu);
  return stop;
}

// Calls the hook on the Python thread (GIL held); 1 = stop. An exception stops the run and is kept
// for the caller; after Ctrl-C (an exception already set) the hook is not called.
static int call_hook(run_job* job, int interrupted) {
  if (interrupted || job->exc) return 1;
  PyObject* r = PyObject_CallFunction(job->hook, "sI", job->hook_dir, job->hook_generation);
  if (!r) {
    PyErr_Fetch(&job->exc, &job->exc_val, &job->exc_tb);
    return 1;
  }
  int keep_going = PyObject_IsTrue(r);
  Py_DECREF(r);
  if (keep_going < 0) {
    PyErr_Fetch(&job->exc, &job->exc_val, &job->exc_tb);
    return 1;
  }
  return !keep_going;
}

// Runs the loop on its own thread; the GIL is dropped except for a signal check every 100 ms.
// Returns the loop's code; *interrupted = 1 when Python raised (KeyboardInterrupt is then set).
static int loop_releasing_gil(run_job* job, int* interrupted) {
  pthread_t tid;
  *interrupted = 0;
  if (pthread_create(&tid, NULL, run_thread, job) != 0) {
    snprintf(job->err, sizeof job->err, "cannot start the run thread");
    return NE_EIO;
  }
  for (;;) {
    int done, pending;
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&job->mu);
    if (!job->done && !job->hook_pending) {
      struct timespec t;
      clock_gettime(CLOCK_REALTIME, &t);
      t.tv_nsec += 100 * 1000 * 1000;
      if (t.tv_nsec >= 1000000000L) t.tv_sec++, t.tv_nsec -= 1000000000L;
      pthread_cond_timedwait(&job->cv, &job->mu, &t);
    }
    done = job->done;
    pending = job->hook_pending;
    pthread_mutex_unlock(&job->mu);
    Py_END_ALLOW_THREADS if (done) break;
    // a completed generation for the hook: answer it (the run thread waits)
    if (pending) {
      int stop = call_hook(job, *interrupted);
      pthread_mutex_lock(&job->mu);
      job->hook_stop = stop;
      job->hook_pending = 0;
      pthread_cond_broadcast(&job->cv);
      pthread_mutex_unlock(&job->mu);
    }
    // Ctrl-C: ask the loop to stop at the next candidate, then keep waiting for its checkpoint
    if (!*interrupted && PyErr_CheckSignals() < 0) {
      job->stop = 1;
      *interrupted = 1;
    }
  }
  pthread_join(tid, NULL);
  return job->rc;
}

#define PY_ERROR 1  // a Python exception is set (library codes are <= 0)

// Builds the config: a file (or the defaults), then the overrides. 0, an NE_E* code, or PY_ERROR.
static int build_config(const char* path, PyObject* overrides, ne_config** out, char* err) {
  *out = ne_config_create();
  if (!*out) return NE_ENOMEM;
  int rc = path ? ne_config_load_file(*out, path, err) : 0;
  if (rc || !overrides || overrides == Py_None) return rc;
  PyObject* seq = PySequence_Fast(overrides, "overrides must be a list of 'section.key=value' strings");
  if (!seq) return PY_ERROR;
  for (Py_ssize_t i = 0; !rc && i < PySequence_Fast_GET_SIZE(seq); i++) {
    const char* a = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
    rc = a ? ne_config_override(*out, a, "neuroevo.run()", err) : PY_ERROR;
  }
  Py_DECREF(seq);
  return rc;
}

// A sequence of str as C strings for a run's record: pointers into the items of *keep (a
// PySequence_Fast the caller releases after the run was created). 0, or -1 with a Python error.
static int c_strings(PyObject* items, const char* what, PyObject** keep, const char** out, int max, int* n) {
  *n = 0;
  *keep = NULL;
  if (!items || items == Py_None) return 0;
  *keep = PySequence_Fast(items, what);
  if (!*keep) return -1;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(*keep) && *n < max; i++) {
    const char* s = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(*keep, i));
    if (!s) return -1;
    out[(*n)++] = s;
  }
  return 0;
}

enum { MAX_ORIGIN_ITEMS = 256 };

static PyObject* py_run(PyObject* self, PyObject* args, PyObject* kw) {
  (void)self;
  static char* kwlist[] = {"config", "overrides",     "name", "out_dir", "threads", "generations", "quiet",
                           "resume", "on_generation", "argv", "tags",    "note",    NULL};
  const char *config = NULL, *name = NULL, *out_dir = NULL, *resume = NULL, *note = NULL;
  PyObject *overrides = NULL, *hook = NULL, *argv = NULL, *tags = NULL;
  int threads = 0, quiet = 1;
  long long generations = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "z|OzziLpzOOOz", kwlist, &config, &overrides, &name, &out_dir, &threads,
                                   &generations, &quiet, &resume, &hook, &argv, &tags, &note))
    return NULL;
  // the record's origin (run.json): the Python command line, first tags and note
  static const char* argv_c[MAX_ORIGIN_ITEMS];
  static const char* tags_c[MAX_ORIGIN_ITEMS];
  PyObject *argv_keep = NULL, *tags_keep = NULL;
  ne_run_origin origin = {0};
  if (c_strings(argv, "argv must be a sequence of str", &argv_keep, argv_c, MAX_ORIGIN_ITEMS, &origin.argc) ||
      c_strings(tags, "tags must be a sequence of str", &tags_keep, tags_c, MAX_ORIGIN_ITEMS, &origin.n_tags)) {
    Py_XDECREF(argv_keep);
    Py_XDECREF(tags_keep);
    return NULL;
  }
  origin.argv = argv_keep ? argv_c : NULL;
  origin.tags = tags_c;
  origin.note = note;
  if (hook == Py_None) hook = NULL;
  if (hook && !PyCallable_Check(hook)) return PyErr_Format(PyExc_TypeError, "on_generation must be callable");
  if (threads < 0 || generations < 0)
    return PyErr_Format(PyExc_ValueError, "threads and generations must be >= 0 (0: the config's)");
  char err[NE_ERRSTR_LEN] = "";
  ne_config* cfg = NULL;
  int rc = resume ? 0 : build_config(config, overrides, &cfg, err);
  if (rc) {
    ne_config_destroy(cfg);
    Py_XDECREF(argv_keep);
    Py_XDECREF(tags_keep);
    return rc == PY_ERROR ? NULL : pyne_raise(rc, err);
  }
  run_job job;
  memset(&job, 0, sizeof job);
  pthread_mutex_init(&job.mu, NULL);
  pthread_cond_init(&job.cv, NULL);
  ne_run_options opt = {0};
  opt.origin = &origin;
  opt.name = name;
  opt.out_dir = out_dir;
  opt.threads = threads;
  opt.generations = generations;
  opt.quiet = quiet;
  opt.stop = &job.stop;
  job.hook = hook;
  if (hook) opt.on_generation = hook_from_run_thread, opt.user = &job;
  // creating a run makes its env (a gym: probe server) and executor: no GIL needed
  Py_BEGIN_ALLOW_THREADS rc =
      resume ? ne_run_resume(resume, &opt, &job.run, err) : ne_run_create(cfg, &opt, &job.run, err);
  Py_END_ALLOW_THREADS ne_config_destroy(cfg);
  Py_XDECREF(argv_keep);  // run.json has them now
  Py_XDECREF(tags_keep);
  int interrupted = 0;
  if (!rc) rc = loop_releasing_gil(&job, &interrupted);
  if (rc && job.err[0]) snprintf(err, sizeof err, "%s", job.err);  // the loop's message
  PyObject* result = NULL;
  if (!rc) result = Py_BuildValue("(sId)", ne_run_dir(job.run), ne_run_generation(job.run), ne_run_best_score(job.run));
  else if (!interrupted) pyne_raise(rc, err);
  if (interrupted) Py_CLEAR(result);  // KeyboardInterrupt is set: the run stopped at a checkpoint
  if (job.exc && !interrupted) {
    // the hook raised: the run stopped at a checkpoint of that generation; its exception goes up
    Py_CLEAR(result);
    PyErr_Restore(job.exc, job.exc_val, job.exc_tb);
  } else {
    Py_XDECREF(job.exc);
    Py_XDECREF(job.exc_val);
    Py_XDECREF(job.exc_tb);
  }
  ne_run_destroy(job.run);
  pthread_mutex_destroy(&job.mu);
  pthread_cond_destroy(&job.cv);
  return result;
}

// ---- genome text ---------------------------------------------------------------------------------------

static PyObject* seeds_to_list(const ne_genome* g) {
  PyObject* list = PyList_New((Py_ssize_t)g->n_seeds);
  for (size_t i = 0; list && i < g->n_seeds; i++) {
    PyObject* v = PyLong_FromUnsignedLongLong(g->seeds[i]);
    if (!v) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, v);
  }
  return list;
}

static PyObject* py_genome_parse(PyObject* self, PyObject* args) {
  (void)self;
  const char *text, *name = "<genome>";
  if (!PyArg_ParseTuple(args, "s|s", &text, &name)) return NULL;
  ne_genome g;
  ne_genome_header h;
  ne_genome_init(&g);
  char err[NE_ERRSTR_LEN] = "";
  int rc = ne_genome_parse(text, name, &g, &h, err);
  PyObject* result = NULL;
  if (rc) pyne_raise(rc, err);
  else result = Py_BuildValue("(NdN)", seeds_to_list(&g), (double)g.sigma, pyne_header_to_py(&h));
  ne_genome_free(&g);
  return result;
}

static PyObject* py_genome_format(PyObject* self, PyObject* args) {
  (void)self;
  PyObject *seeds_obj, *header_obj;
  double sigma;
  if (!PyArg_ParseTuple(args, "OdO", &seeds_obj, &sigma, &header_obj)) return NULL;
  ne_genome_header h;
  size_t n = 0;
  if (pyne_header_from_py(header_obj, &h)) return NULL;
  uint64_t* seeds = pyne_seeds_from_py(seeds_obj, &n);
  if (!seeds) return NULL;
  ne_genome g;
  ne_genome_init(&g);
  char* text = ne_genome_set(&g, seeds, n, (float)sigma) == 0 ? ne_genome_format(&g, &h) : NULL;
  PyMem_Free(seeds);
  ne_genome_free(&g);
  if (!text) return PyErr_NoMemory();
  PyObject* s = PyUnicode_FromString(text);
  ne_free(text);
  return s;
}

// ---- env + policy from a genome header -----------------------------------------------------------------

// What a genome header rebuilds: the config, the env and the policy (as `neuroevo eval` does).
typedef struct rebuilt {
  ne_config* cfg;
  ne_env_spec* env;
  ne_policy_spec policy;
} rebuilt;

static void rebuilt_free(rebuilt* r) {
  ne_env_spec_destroy(r->env);
  ne_config_destroy(r->cfg);
}

// 0, or -1 with an exception set. Making a gym: env blocks on a probe server: no GIL held then.
static int rebuild(PyObject* header_obj, rebuilt* r) {
  memset(r, 0, sizeof *r);
  ne_genome_header h;
  if (pyne_header_from_py(header_obj, &h)) return -1;
  char err[NE_ERRSTR_LEN] = "";
  r->cfg = ne_config_create();
  if (!r->cfg) return PyErr_NoMemory(), -1;
  int rc = ne_genome_header_to_config(&h, r->cfg, "genome header", err);
  if (!rc) {
    Py_BEGIN_ALLOW_THREADS rc = ne_env_from_config(r->cfg, &r->env, err);
    Py_END_ALLOW_THREADS
  }
  if (!rc) rc = ne_policy_from_config(r->cfg, r->env, &r->policy, err);
  if (rc) {
    rebuilt_free(r);
    pyne_raise(rc, err);
    return -1;
  }
  return 0;
}

// Fills params (rows x n_params floats) from a seed chain (rows = 1) or an explicit float32 buffer;
// 0 or -1.
static int fill_params(const rebuilt* r, PyObject* seeds_obj, double sigma, PyObject* params_obj, int rows,
                       float* params) {
  if (params_obj && params_obj != Py_None) {
    Py_buffer v;
    if (PyObject_GetBuffer(params_obj, &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    size_t want = (size_t)rows * r->policy.n_params * sizeof(float);
    int ok = strcmp(v.format, "f") == 0 && (size_t)v.len == want;
    if (ok) memcpy(params, v.buf, (size_t)v.len);
    PyBuffer_Release(&v);
    if (!ok) PyErr_Format(PyExc_ValueError, "params must be %d x %zu float32 values", rows, r->policy.n_params);
    return ok ? 0 : -1;
  }
  size_t n = 0;
  uint64_t* seeds = pyne_seeds_from_py(seeds_obj, &n);
  if (!seeds) return -1;
  ne_genome_materialize(&r->policy, seeds, n, (float)sigma, params);
  PyMem_Free(seeds);
  return 0;
}

static PyObject* py_genome_params(PyObject* self, PyObject* args) {
  (void)self;
  PyObject *header, *seeds;
  double sigma;
  if (!PyArg_ParseTuple(args, "OOd", &header, &seeds, &sigma)) return NULL;
  rebuilt r;
  if (rebuild(header, &r)) return NULL;
  PyObject* buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(r.policy.n_params * sizeof(float)));
  char spec[256];
  ne_policy_spec_format(&r.policy, spec, sizeof spec);
  if (buf && fill_params(&r, seeds, sigma, NULL, 1, (float*)PyByteArray_AS_STRING(buf))) Py_CLEAR(buf);
  rebuilt_free(&r);
  return buf ? Py_BuildValue("(Ns)", buf, spec) : NULL;
}

// ---- evaluate: `neuroevo eval`'s episodes -------------------------------------------------------------

typedef struct eval_job {
  ne_evaluator** evaluators;  // (threads)
  const float* params;        // (rows x n_params) parameter vectors
  size_t n_params;            // one vector's length
  int episodes;               // episodes per vector
  const ne_batch* norm;       // observation normalization (best.params of the ES family), or NULL
  uint64_t seed;              // base of the episode seeds
  double* returns;            // (rows x episodes)
  uint64_t* steps;            // (rows x episodes)
} eval_job;

// Task t is episode t % episodes of vector t / episodes. Episode e's seed is the same for every
// vector (common random numbers) and the same as src/cli/cmd_eval.c's, so the figures agree with
// `neuroevo eval`. A vector's consecutive tasks run NE_EVALUATOR_EPISODE_BLOCK at a time (in
// lockstep where the env allows it; the same returns).
static void eval_episodes(void* data, int thread, int begin, int end) {
  eval_job* job = data;
  for (int t = begin; t < end;) {
    int row = t / job->episodes, e = t % job->episodes;
    int n = job->episodes - e;  // this vector's tasks left in [t, end), at most a block
    if (n > end - t) n = end - t;
    if (n > NE_EVALUATOR_EPISODE_BLOCK) n = NE_EVALUATOR_EPISODE_BLOCK;
    uint64_t seeds[NE_EVALUATOR_EPISODE_BLOCK];
    for (int k = 0; k < n; k++) seeds[k] = ne_seed_derive(job->seed, 0, (uint64_t)(e + k), NE_PURPOSE_EVAL);
    ne_evaluator_episodes(job->evaluators[thread], job->params + (size_t)row * job->n_params, seeds, n, job->norm,
                          job->returns + t, job->steps + t);
    t += n;
  }
}

// Runs rows x episodes episodes on a pool of `threads`; 0 or an NE_E* code (an env failure's
// message in err).
static int run_episodes(const rebuilt* r, const float* params, int rows, const ne_batch* norm, int episodes,
                        uint64_t seed, int threads, double* returns, uint64_t* steps, char* err) {
  ne_pool* pool = NULL;
  int rc = ne_pool_create(threads, &pool);
  int n = pool ? ne_pool_threads(pool) : 0;
  ne_evaluator** evs = rc ? NULL : ne_calloc((size_t)n, sizeof *evs);
  if (!rc && !evs) rc = NE_ENOMEM;
  for (int t = 0; evs && t < n; t++)
    if (!(evs[t] = ne_evaluator_create(r->env, &r->policy, NULL))) rc = NE_ENOMEM;
  if (!rc) {
    eval_job job = {evs, params, r->policy.n_params, episodes, norm, seed, returns, steps};
    int total = rows * episodes;
    rc = ne_pool_for(pool, total, ne_pool_chunk(pool, total, NE_EVALUATOR_LOCKSTEP, NE_EVALUATOR_EPISODE_BLOCK),
                     eval_episodes, &job, NULL);
  }
  // a gym: env whose server failed: report it rather than a NaN mean
  for (int t = 0; !rc && evs && t < n; t++) {
    const char* why = ne_evaluator_env_error(evs[t]);
    if (why) {
      snprintf(err, NE_ERRSTR_LEN, "%s", why);
      rc = NE_EIO;
    }
  }
  for (int t = 0; evs && t < n; t++) ne_evaluator_destroy(evs[t]);
  ne_free(evs);
  ne_pool_destroy(pool);
  return rc;
}

// Copies n float32 values from a buffer into out; 0, or -1 with an exception set.
static int read_floats(PyObject* obj, float* out, int n, const char* what) {
  Py_buffer v;
  if (!obj || PyObject_GetBuffer(obj, &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s is missing", what);
    return -1;
  }
  int ok = strcmp(v.format, "f") == 0 && v.len == (Py_ssize_t)n * 4;
  if (ok) memcpy(out, v.buf, (size_t)v.len);
  PyBuffer_Release(&v);
  if (!ok) PyErr_Format(PyExc_ValueError, "%s must be %d float32 values", what, n);
  return ok ? 0 : -1;
}

static PyObject* py_evaluate(PyObject* self, PyObject* args, PyObject* kw) {
  (void)self;
  static char* kwlist[] = {"header", "seeds",    "sigma",   "episodes", "seed", "threads",
                           "params", "obs_mean", "obs_std", "obs_clip", "rows", NULL};
  PyObject *header, *seeds, *params_obj = NULL, *mean_obj = NULL, *std_obj = NULL;
  double sigma, obs_clip = 0;
  int episodes = 100, threads = 0, rows = 1;
  unsigned long long seed = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOd|iKiOOOdi", kwlist, &header, &seeds, &sigma, &episodes, &seed,
                                   &threads, &params_obj, &mean_obj, &std_obj, &obs_clip, &rows))
    return NULL;
  if (episodes < 1) return PyErr_Format(PyExc_ValueError, "episodes must be >= 1, got %d", episodes);
  if (rows < 1 || (long long)rows * episodes > (1 << 30))
    return PyErr_Format(PyExc_ValueError, "rows must be >= 1 and rows x episodes <= 2^30, got %d x %d", rows, episodes);
  if (rows > 1 && (!params_obj || params_obj == Py_None))
    return PyErr_Format(PyExc_ValueError, "several rows need explicit params");
  rebuilt r;
  if (rebuild(header, &r)) return NULL;
  int tasks = rows * episodes;
  float* params = PyMem_Malloc((size_t)rows * r.policy.n_params * sizeof(float));
  PyObject* returns = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)tasks * 8);
  uint64_t* steps = PyMem_Calloc((size_t)tasks, sizeof *steps);
  // observation normalization as the ES family trained with it (both arrays, or neither)
  float* norm_mem = PyMem_Malloc(2 * (size_t)r.env->obs_dim * sizeof(float) + 1);
  ne_batch norm;
  memset(&norm, 0, sizeof norm);
  int has_norm = mean_obj && mean_obj != Py_None;
  int rc = -1;
  int ready = params && returns && steps && norm_mem;
  if (!ready) PyErr_NoMemory();
  if (ready && has_norm)
    ready = read_floats(mean_obj, norm_mem, r.env->obs_dim, "obs_mean") == 0 &&
        read_floats(std_obj, norm_mem + r.env->obs_dim, r.env->obs_dim, "obs_std") == 0;
  if (ready && fill_params(&r, seeds, sigma, params_obj, rows, params) == 0) {
    norm.obs_mean = has_norm ? norm_mem : NULL;
    norm.obs_std = has_norm ? norm_mem + r.env->obs_dim : NULL;
    norm.obs_clip = (float)obs_clip;
    double* ret = (double*)PyByteArray_AS_STRING(returns);
    char err[NE_ERRSTR_LEN] = "evaluation failed";
    Py_BEGIN_ALLOW_THREADS rc =
        run_episodes(&r, params, rows, has_norm ? &norm : NULL, episodes, (uint64_t)seed, threads, ret, steps, err);
    Py_END_ALLOW_THREADS if (rc) pyne_raise(rc, err);
  }
  PyMem_Free(norm_mem);
  unsigned long long total = 0;
  for (int t = 0; steps && t < tasks; t++) total += steps[t];
  PyMem_Free(params);
  PyMem_Free(steps);
  rebuilt_free(&r);
  if (rc) {
    Py_XDECREF(returns);
    return NULL;
  }
  return Py_BuildValue("(NK)", returns, total);
}

// ---- Policy: a genome header's policy, acting on observations ----------------------------------------

// neuroevo._core.Policy(header): the env spec and policy a header rebuilds (as `neuroevo eval`
// does), so act() computes exactly the actions the evaluator takes. Stateless between calls.
typedef struct policy_object {
  PyObject_HEAD rebuilt r;
  int ready;  // 1 once r holds a rebuilt env and policy
} policy_object;

static int policy_init(policy_object* self, PyObject* args, PyObject* kw) {
  static char* kwlist[] = {"header", NULL};
  PyObject* header;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &header)) return -1;
  if (self->ready) rebuilt_free(&self->r), self->ready = 0;
  if (rebuild(header, &self->r)) return -1;
  self->ready = 1;
  return 0;
}

static void policy_dealloc(policy_object* self) {
  if (self->ready) rebuilt_free(&self->r);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

// act(params, obs, rows, obs_mean=None, obs_std=None, obs_clip=0) -> rows x act_dim float32 actions
// (argmax heads: the action index as a float). obs holds rows x obs_dim float32 values; the
// observation is normalized as the evaluator does (z = (obs - mean) / std, clipped to +-obs_clip).
static PyObject* policy_act(policy_object* self, PyObject* args, PyObject* kw) {
  static char* kwlist[] = {"params", "obs", "rows", "obs_mean", "obs_std", "obs_clip", NULL};
  PyObject *params_obj, *obs_obj, *mean_obj = NULL, *std_obj = NULL;
  int rows;
  double obs_clip = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|OOd", kwlist, &params_obj, &obs_obj, &rows, &mean_obj, &std_obj,
                                   &obs_clip))
    return NULL;
  if (!self->ready) return PyErr_Format(PyExc_RuntimeError, "Policy not initialized");
  const ne_policy_spec* ps = &self->r.policy;
  int d = self->r.env->obs_dim;
  if (rows < 0 || (size_t)rows > ((size_t)1 << 31) / (size_t)d)
    return PyErr_Format(PyExc_ValueError, "rows must be >= 0, got %d", rows);
  int has_norm = mean_obj && mean_obj != Py_None;
  size_t n_obs = (size_t)rows * (size_t)d;
  float* mem = PyMem_Malloc((ps->n_params + n_obs + 2 * (size_t)d + ps->scratch_floats + 1) * sizeof(float));
  PyObject* actions = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)rows * ps->act_dim * 4);
  if (!mem || !actions) {
    PyMem_Free(mem);
    Py_XDECREF(actions);
    return PyErr_NoMemory();
  }
  float *params = mem, *obs = params + ps->n_params, *mean = obs + n_obs, *sd = mean + d, *scratch = sd + d;
  int ok = read_floats(params_obj, params, (int)ps->n_params, "params") == 0 &&
      read_floats(obs_obj, obs, (int)n_obs, "obs") == 0 &&
      (!has_norm || (read_floats(mean_obj, mean, d, "obs_mean") == 0 && read_floats(std_obj, sd, d, "obs_std") == 0));
  if (ok) {
    float* out = (float*)PyByteArray_AS_STRING(actions);
    float clip = (float)obs_clip;
    Py_BEGIN_ALLOW_THREADS for (int i = 0; i < rows; i++) {
      float* x = obs + (size_t)i * d;
      for (int j = 0; has_norm && j < d; j++) {
        float z = (x[j] - mean[j]) / sd[j];
        if (clip > 0) z = z < -clip ? -clip : (z > clip ? clip : z);
        x[j] = z;
      }
      ne_policy_forward(ps, params, x, scratch, out + (size_t)i * ps->act_dim);
    }
    Py_END_ALLOW_THREADS
  }
  PyMem_Free(mem);
  if (!ok) Py_CLEAR(actions);
  return actions;
}

static PyObject* policy_get_info(policy_object* self, void* closure) {
  (void)closure;
  if (!self->ready) return PyErr_Format(PyExc_RuntimeError, "Policy not initialized");
  const ne_env_spec* e = self->r.env;
  const ne_policy_spec* ps = &self->r.policy;
  char spec[256];
  ne_policy_spec_format(ps, spec, sizeof spec);
  PyObject* shape = PyTuple_New(e->obs_rank);
  for (int i = 0; shape && i < e->obs_rank; i++) PyTuple_SET_ITEM(shape, i, PyLong_FromLong(e->obs_shape[i]));
  if (!shape) return NULL;
  return Py_BuildValue("{s:s,s:n,s:i,s:N,s:i,s:N,s:i,s:s}", "env_id", e->id, "n_params", (Py_ssize_t)ps->n_params,
                       "obs_dim", e->obs_dim, "obs_shape", shape, "act_dim", ps->act_dim, "discrete",
                       PyBool_FromLong(ps->head == NE_HEAD_ARGMAX), "n_actions", e->n_actions, "spec", spec);
}

static PyMethodDef policy_methods[] = {
    {"act", (PyCFunction)(void (*)(void))policy_act, METH_VARARGS | METH_KEYWORDS,
     "act(params, obs, rows, obs_mean=None, obs_std=None, obs_clip=0) -> rows x act_dim float32 bytearray"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef policy_getset[] = {
    {"info", (getter)policy_get_info, NULL, "env_id, n_params, obs_dim, obs_shape, act_dim, discrete, n_actions, spec",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pyne_policy_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "neuroevo._core.Policy",
    .tp_basicsize = sizeof(policy_object),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Policy(header): the policy a genome header describes, acting on observations",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)policy_init,
    .tp_dealloc = (destructor)policy_dealloc,
    .tp_methods = policy_methods,
    .tp_getset = policy_getset,
};

PyMethodDef pyne_run_methods[] = {
    {"run", (PyCFunction)(void (*)(void))py_run, METH_VARARGS | METH_KEYWORDS,
     "run(config, overrides=None, name=None, out_dir=None, threads=0, generations=0, quiet=True, resume=None,"
     " on_generation=None, argv=None, tags=None, note=None) -> (run_dir, generations, best_score)"},
    {"evaluate", (PyCFunction)(void (*)(void))py_evaluate, METH_VARARGS | METH_KEYWORDS,
     "evaluate(header, seeds, sigma, episodes=100, seed=0, threads=0, params=None, obs_mean=None, obs_std=None,"
     " obs_clip=0, rows=1) -> (float64 returns (rows x episodes), steps)"},
    {"genome_parse", py_genome_parse, METH_VARARGS, "genome_parse(text, name='<genome>') -> (seeds, sigma, header)"},
    {"genome_format", py_genome_format, METH_VARARGS, "genome_format(seeds, sigma, header) -> str"},
    {"genome_params", py_genome_params, METH_VARARGS,
     "genome_params(header, seeds, sigma) -> (float32 bytearray, policy description)"},
    {NULL, NULL, 0, NULL},
};
