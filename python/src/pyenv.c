// SPDX-License-Identifier: MIT
// neuroevo._core.Env: one env spec + one env state of the C library (any registered id, gym: ids
// included). The observation is exported through the buffer protocol as a read-only float32 view
// of the state's own buffer: the Python wrapper (neuroevo/_env.py) wraps it once as a NumPy array,
// so reset and step copy nothing; the view is overwritten by the next reset/step. render() draws
// the current frame through the family's renderer (ne_env_render: MuJoCo's offscreen OpenGL, the
// Box2D and classic-control drawings), keeping the renderer for later frames until close.
#include <math.h>
#include <string.h>

#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "pyne.h"

typedef struct env_object {
  PyObject_HEAD ne_env_spec* spec;  // owned
  ne_env_state* state;              // owned; NULL after close when no view is exported
  int blocking;                     // 1: reset/step wait on another process (gym:), so the GIL is released
  int closed;                       // 1 after close()
  int busy;                         // 1 while a reset/step runs without the GIL (an env belongs to one thread)
  Py_ssize_t exports;               // buffer views handed out and not yet released
  Py_ssize_t shape[3];              // (obs_rank) observation shape for the buffer protocol
  Py_ssize_t strides[3];            // (obs_rank) C-order strides in bytes
  void* render_ctx;                 // the family's renderer (an OpenGL context for MuJoCo), or NULL
} env_object;

static int env_init(env_object* self, PyObject* args, PyObject* kw) {
  static char* kwlist[] = {"id", "max_episode_steps", NULL};
  const char* id;
  int max_steps = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|i", kwlist, &id, &max_steps)) return -1;
  if (self->spec) {
    PyErr_SetString(PyExc_RuntimeError, "Env.__init__ called twice");
    return -1;
  }
  ne_env_options opt = {0};
  opt.max_episode_steps = max_steps;
  char err[NE_ERRSTR_LEN] = "";
  int rc;
  // a gym: id starts a probe server: let other Python threads run meanwhile
  Py_BEGIN_ALLOW_THREADS rc = ne_env_make(id, &opt, &self->spec, err);
  Py_END_ALLOW_THREADS if (rc) return pyne_raise(rc, err), -1;
  self->state = ne_env_state_create(self->spec);
  if (!self->state) return PyErr_NoMemory(), -1;
  self->blocking = strncmp(id, "gym:", 4) == 0;
  // the buffer's shape: (obs_dim,) or (H, W, C)
  int rank = self->spec->obs_rank == 3 ? 3 : 1;
  Py_ssize_t stride = (Py_ssize_t)sizeof(float);
  if (rank == 1) self->shape[0] = self->spec->obs_dim;
  for (int i = 0; rank == 3 && i < 3; i++) self->shape[i] = self->spec->obs_shape[i];
  for (int i = rank - 1; i >= 0; i--) {
    self->strides[i] = stride;
    stride *= self->shape[i];
  }
  return 0;
}

static void env_dealloc(env_object* self) {
  ne_env_render_free(self->spec, self->render_ctx);
  ne_env_state_destroy(self->state);
  ne_env_spec_destroy(self->spec);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

// Returns 0 when the env can be used; raises otherwise.
static int check_open(env_object* self) {
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "the env is in use by another thread (an env belongs to one thread)");
    return -1;
  }
  if (self->state && !self->closed) return 0;
  PyErr_SetString(PyExc_RuntimeError, self->spec ? "the env is closed" : "the env is not initialized");
  return -1;
}

// the failure of a reset/step: the family's own message when it has one (e.g. a crashed env server)
static PyObject* env_failure(env_object* self, int rc, const char* what) {
  char err[NE_ERRSTR_LEN] = "";
  if (self->spec->status) self->spec->status(self->spec, self->state->impl, err);
  if (!*err && rc == NE_ESTATE)
    snprintf(err, sizeof err, "%s: %s after the episode ended: call reset() first", self->spec->id, what);
  return pyne_raise(rc, err);
}

static PyObject* env_reset(env_object* self, PyObject* arg) {
  if (check_open(self)) return NULL;
  unsigned long long seed = PyLong_AsUnsignedLongLong(arg);
  if (seed == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  int rc;
  if (self->blocking) {
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS rc = ne_env_reset(self->spec, self->state, (uint64_t)seed);
    Py_END_ALLOW_THREADS self->busy = 0;
  } else {
    rc = ne_env_reset(self->spec, self->state, (uint64_t)seed);
  }
  if (rc) return env_failure(self, rc, "reset");
  Py_RETURN_NONE;
}

// Reads an action: an integer for Discrete, a float32/float64 buffer or a sequence for Box.
static int read_action(env_object* self, PyObject* obj, float* act) {
  const ne_env_spec* spec = self->spec;
  if (spec->discrete) {
    PyObject* idx = PyNumber_Index(obj);
    long long a = idx ? PyLong_AsLongLong(idx) : -1;
    Py_XDECREF(idx);
    if (PyErr_Occurred()) return -1;
    act[0] = (float)a;
    char err[NE_ERRSTR_LEN];
    // out-of-range floats would round into range; check the integer itself
    if (a < 0 || a >= spec->n_actions || ne_env_check_action(spec, act, err)) {
      PyErr_Format(PyExc_ValueError, "%s: action %lld is outside Discrete(%d)", spec->id, a, spec->n_actions);
      return -1;
    }
    return 0;
  }
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0) {
    Py_ssize_t n = view.itemsize ? view.len / view.itemsize : 0;
    int ok = n == spec->act_dim && (strcmp(view.format, "f") == 0 || strcmp(view.format, "d") == 0);
    for (Py_ssize_t i = 0; ok && i < n; i++)
      act[i] = view.itemsize == 4 ? ((const float*)view.buf)[i] : (float)((const double*)view.buf)[i];
    PyBuffer_Release(&view);
    if (ok) return 0;
    PyErr_Format(PyExc_ValueError, "%s: expected a float action of shape (%d,)", spec->id, spec->act_dim);
    return -1;
  }
  PyErr_Clear();
  PyObject* seq = PySequence_Fast(obj, "a Box action must be an array or a sequence of floats");
  if (!seq) return -1;
  int ok = PySequence_Fast_GET_SIZE(seq) == spec->act_dim;
  for (int i = 0; ok && i < spec->act_dim; i++) {
    act[i] = (float)PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
    ok = !PyErr_Occurred();
  }
  Py_DECREF(seq);
  if (!ok && !PyErr_Occurred())
    PyErr_Format(PyExc_ValueError, "%s: expected %d action components", spec->id, spec->act_dim);
  return ok ? 0 : -1;
}

static PyObject* env_step(env_object* self, PyObject* action) {
  if (check_open(self)) return NULL;
  float act[NE_ENV_MAX_ACT];
  if (read_action(self, action, act)) return NULL;
  ne_step_out out;
  int rc;
  if (self->blocking) {
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS rc = ne_env_step(self->spec, self->state, act, &out);
    Py_END_ALLOW_THREADS self->busy = 0;
  } else {
    rc = ne_env_step(self->spec, self->state, act, &out);
  }
  if (rc) return env_failure(self, rc, "step");
  return Py_BuildValue("(dNN)", out.reward, PyBool_FromLong(out.terminated), PyBool_FromLong(out.truncated));
}

static PyObject* env_close(env_object* self, PyObject* noargs) {
  (void)noargs;
  if (self->busy) return PyErr_Format(PyExc_RuntimeError, "the env is in use by another thread");
  // the renderer and the state (and a gym: server) go now, the state unless a view points into it
  ne_env_render_free(self->spec, self->render_ctx);
  self->render_ctx = NULL;
  self->closed = 1;
  if (self->exports == 0) {
    ne_env_state_destroy(self->state);
    self->state = NULL;
  }
  Py_RETURN_NONE;
}

// render(width, height) -> bytes of height rows of width RGB pixels, top row first. Drawing may take
// milliseconds (MuJoCo's offscreen OpenGL): the GIL is released meanwhile.
static PyObject* env_render(env_object* self, PyObject* args) {
  int width, height;
  if (!PyArg_ParseTuple(args, "ii", &width, &height)) return NULL;
  if (check_open(self)) return NULL;
  if (width < 1 || height < 1 || width > NE_ENV_MAX_RENDER_SIDE || height > NE_ENV_MAX_RENDER_SIDE)
    return PyErr_Format(PyExc_ValueError, "%s: frame size %dx%d outside 1..%d", self->spec->id, width, height,
                        NE_ENV_MAX_RENDER_SIDE);
  PyObject* rgb = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)width * height * 3);
  if (!rgb) return NULL;
  char err[NE_ERRSTR_LEN] = "";
  unsigned char* px = (unsigned char*)PyBytes_AS_STRING(rgb);
  int rc;
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS rc = ne_env_render(self->spec, self->state, &self->render_ctx, px, width, height, err);
  Py_END_ALLOW_THREADS self->busy = 0;
  if (rc) {
    Py_DECREF(rgb);
    return pyne_raise(rc, err);
  }
  return rgb;
}

// spec as a dict for the Python wrapper's spaces
static PyObject* env_get_spec(env_object* self, void* closure) {
  (void)closure;
  const ne_env_spec* s = self->spec;
  if (!s) return PyErr_Format(PyExc_RuntimeError, "the env is not initialized");
  int rank = s->obs_rank == 3 ? 3 : 1;
  PyObject* shape = rank == 3 ? Py_BuildValue("(iii)", s->obs_shape[0], s->obs_shape[1], s->obs_shape[2])
                              : Py_BuildValue("(i)", s->obs_dim);
  PyObject* low = PyTuple_New(s->discrete ? 0 : s->act_dim);
  PyObject* high = PyTuple_New(s->discrete ? 0 : s->act_dim);
  for (int i = 0; low && high && !s->discrete && i < s->act_dim; i++) {
    PyTuple_SET_ITEM(low, i, PyFloat_FromDouble(s->act_low[i]));
    PyTuple_SET_ITEM(high, i, PyFloat_FromDouble(s->act_high[i]));
  }
  PyObject* threshold = s->has_threshold ? PyFloat_FromDouble(s->reward_threshold) : Py_NewRef(Py_None);
  if (!shape || !low || !high || !threshold) {
    Py_XDECREF(shape);
    Py_XDECREF(low);
    Py_XDECREF(high);
    Py_XDECREF(threshold);
    return NULL;
  }
  return Py_BuildValue("{s:s,s:i,s:N,s:N,s:i,s:i,s:N,s:N,s:i,s:N,s:s,s:N}", "id", s->id, "obs_dim", s->obs_dim,
                       "obs_shape", shape, "discrete", PyBool_FromLong(s->discrete), "n_actions", s->n_actions,
                       "act_dim", s->act_dim, "act_low", low, "act_high", high, "max_episode_steps",
                       s->max_episode_steps, "reward_threshold", threshold, "family", s->family->name, "can_render",
                       PyBool_FromLong(ne_env_can_render(s)));
}

static PyObject* env_get_needs_reset(env_object* self, void* closure) {
  (void)closure;
  return PyBool_FromLong(!self->state || self->state->needs_reset);
}

static PyObject* env_get_steps(env_object* self, void* closure) {
  (void)closure;
  return PyLong_FromLong(self->state ? self->state->t : 0);
}

// ---- buffer protocol: the observation, read-only -----------------------------------------------------

static int env_getbuffer(env_object* self, Py_buffer* view, int flags) {
  if (!self->state) {
    PyErr_SetString(PyExc_BufferError, "the env is closed");
    return -1;
  }
  if (flags & PyBUF_WRITABLE) {
    PyErr_SetString(PyExc_BufferError, "the observation is read-only (copy it to modify it)");
    return -1;
  }
  int rank = self->spec->obs_rank == 3 ? 3 : 1;
  view->buf = self->state->obs;
  view->obj = Py_NewRef((PyObject*)self);
  view->len = (Py_ssize_t)self->spec->obs_dim * (Py_ssize_t)sizeof(float);
  view->readonly = 1;
  view->itemsize = sizeof(float);
  view->format = (flags & PyBUF_FORMAT) ? "f" : NULL;
  view->ndim = rank;
  view->shape = (flags & PyBUF_ND) ? self->shape : NULL;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
  view->suboffsets = NULL;
  view->internal = NULL;
  self->exports++;
  return 0;
}

static void env_releasebuffer(env_object* self, Py_buffer* view) {
  (void)view;
  // the last view of a closed env lets the state go
  if (--self->exports == 0 && self->closed) {
    ne_env_state_destroy(self->state);
    self->state = NULL;
  }
}

static PyBufferProcs env_as_buffer = {(getbufferproc)env_getbuffer, (releasebufferproc)env_releasebuffer};

static PyMethodDef env_methods[] = {
    {"reset", (PyCFunction)env_reset, METH_O, "reset(seed: int) -> None; the observation is in the buffer"},
    {"step", (PyCFunction)env_step, METH_O, "step(action) -> (reward, terminated, truncated)"},
    {"close", (PyCFunction)env_close, METH_NOARGS, "close() -> None; stops a gym: env server"},
    {"render", (PyCFunction)env_render, METH_VARARGS,
     "render(width, height) -> bytes: the current frame, height x width x 3 RGB, top row first"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef env_getset[] = {
    {"spec", (getter)env_get_spec, NULL, "the env's spaces, limits and threshold as a dict", NULL},
    {"needs_reset", (getter)env_get_needs_reset, NULL, "True before the first reset and after an episode ended", NULL},
    {"elapsed_steps", (getter)env_get_steps, NULL, "steps since the last reset", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pyne_env_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "neuroevo._core.Env",
    .tp_basicsize = sizeof(env_object),
    .tp_dealloc = (destructor)env_dealloc,
    .tp_as_buffer = &env_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Env(id, max_episode_steps=0): a neuroevo env (spec + state); the observation is its buffer",
    .tp_methods = env_methods,
    .tp_getset = env_getset,
    .tp_init = (initproc)env_init,
    .tp_new = PyType_GenericNew,
};
