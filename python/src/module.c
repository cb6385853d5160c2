// SPDX-License-Identifier: MIT
// The extension module neuroevo._core: module setup, the neuroevo.Error exception, conversions
// every file needs (error codes, genome headers, seed lists) and read-only views of the registries
// (env ids, algorithms, config schema). The Python package (python/neuroevo) builds the public API
// on top; nothing here holds global state beyond the exception type.
#include <stdint.h>
#include <string.h>

#include "neuroevo/algo.h"
#include "neuroevo/config.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/genome.h"
#include "neuroevo/version.h"
#include "pyne.h"

PyObject* pyne_error = NULL;

PyObject* pyne_raise(int code, const char* errstr) {
  const char* msg = errstr && *errstr ? errstr : ne_strerror(code);
  if (code == NE_ENOMEM) return PyErr_NoMemory();
  if (code == NE_EINTR) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    return NULL;
  }
  // neuroevo.Error(message) with .code set, so callers can tell failures apart
  PyObject* exc = PyObject_CallFunction(pyne_error, "s", msg);
  if (!exc) return NULL;
  PyObject* c = PyLong_FromLong(code);
  if (c) PyObject_SetAttrString(exc, "code", c);
  Py_XDECREF(c);
  PyErr_SetObject(pyne_error, exc);
  Py_DECREF(exc);
  return NULL;
}

// ---- conversions ---------------------------------------------------------------------------------

int pyne_header_from_py(PyObject* obj, ne_genome_header* h) {
  memset(h, 0, sizeof *h);
  if (!obj || obj == Py_None) return 0;
  // a dict gives its items; anything else must iterate (key, value) pairs
  PyObject* items = PyDict_Check(obj) ? PyDict_Items(obj) : PySequence_List(obj);
  if (!items) return -1;
  int rc = 0;
  for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(items); i++) {
    PyObject *k, *v;
    PyObject* pair = PyList_GET_ITEM(items, i);
    if (!PyArg_ParseTuple(pair, "OO", &k, &v)) {
      rc = -1;
      break;
    }
    PyObject* ks = PyObject_Str(k);
    PyObject* vs = PyObject_Str(v);
    const char* kc = ks ? PyUnicode_AsUTF8(ks) : NULL;
    const char* vc = vs ? PyUnicode_AsUTF8(vs) : NULL;
    if (!kc || !vc) rc = -1;
    else if (ne_genome_header_set(h, kc, vc) != 0) {
      PyErr_Format(PyExc_ValueError, "genome header field %s = %s: too long or too many fields (at most %d)", kc, vc,
                   NE_GENOME_MAX_HEADER);
      rc = -1;
    }
    Py_XDECREF(ks);
    Py_XDECREF(vs);
  }
  Py_DECREF(items);
  return rc;
}

PyObject* pyne_header_to_py(const ne_genome_header* h) {
  PyObject* list = PyList_New(h->n);
  for (int i = 0; list && i < h->n; i++) {
    PyObject* pair = Py_BuildValue("(ss)", h->key[i], h->value[i]);
    if (!pair) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, pair);
  }
  return list;
}

uint64_t* pyne_seeds_from_py(PyObject* obj, size_t* n) {
  PyObject* seq = PySequence_Fast(obj, "seeds must be a sequence of non-negative integers");
  if (!seq) return NULL;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  if (len < 1) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "a seed chain needs at least one seed (the init seed)");
    return NULL;
  }
  uint64_t* seeds = PyMem_Malloc((size_t)len * sizeof *seeds);
  if (!seeds) {
    Py_DECREF(seq);
    return (uint64_t*)PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < len; i++) {
    // __index__ accepts Python and NumPy integers; negative or > 2**64-1 raise OverflowError
    PyObject* idx = PyNumber_Index(PySequence_Fast_GET_ITEM(seq, i));
    unsigned long long v = idx ? PyLong_AsUnsignedLongLong(idx) : 0;
    Py_XDECREF(idx);
    if (PyErr_Occurred()) {
      PyMem_Free(seeds);
      Py_DECREF(seq);
      return NULL;
    }
    seeds[i] = (uint64_t)v;
  }
  Py_DECREF(seq);
  *n = (size_t)len;
  return seeds;
}

// ---- registries ------------------------------------------------------------------------------------

static PyObject* py_env_ids(PyObject* self, PyObject* noargs) {
  (void)self;
  (void)noargs;
  int n = ne_env_registry_count();
  PyObject* list = PyList_New(0);
  for (int i = 0; list && i < n; i++) {
    PyObject* pair = Py_BuildValue("(ss)", ne_env_registry_id(i), ne_env_registry_summary(i));
    if (!pair || PyList_Append(list, pair) < 0) Py_CLEAR(list);
    Py_XDECREF(pair);
  }
  return list;
}

static PyObject* py_algorithms(PyObject* self, PyObject* noargs) {
  (void)self;
  (void)noargs;
  int n = ne_algo_count();
  PyObject* list = PyList_New(0);
  for (int i = 0; list && i < n; i++) {
    const ne_algo_vt* vt = ne_algo_at(i);
    PyObject* pair = Py_BuildValue("(ss)", vt->name, vt->section ? vt->section : vt->name);
    if (!pair || PyList_Append(list, pair) < 0) Py_CLEAR(list);
    Py_XDECREF(pair);
  }
  return list;
}

static const char* type_name(ne_cfg_type t) {
  switch (t) {
    case NE_CFG_INT: return "int";
    case NE_CFG_FLOAT: return "float";
    case NE_CFG_BOOL: return "bool";
    case NE_CFG_ENUM: return "enum";
    case NE_CFG_INTLIST: return "intlist";
    default: return "str";
  }
}

static PyObject* py_config_keys(PyObject* self, PyObject* noargs) {
  (void)self;
  (void)noargs;
  const ne_config_key* keys = ne_config_schema();
  int n = ne_config_schema_count();
  PyObject* list = PyList_New(0);
  for (int i = 0; list && i < n; i++) {
    const ne_config_key* k = &keys[i];
    PyObject* t =
        Py_BuildValue("(sssszz)", k->section, k->key, type_name(k->type), k->default_value, k->help, k->choices);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

PyMethodDef pyne_registry_methods[] = {
    {"env_ids", py_env_ids, METH_NOARGS, "env_ids() -> list of (id, summary) of the native env registry"},
    {"algorithms", py_algorithms, METH_NOARGS, "algorithms() -> list of (name, config section) registered in C"},
    {"config_keys", py_config_keys, METH_NOARGS,
     "config_keys() -> list of (section, key, type, default, help, choices) of the config schema"},
    {NULL, NULL, 0, NULL},
};

// ---- the module ------------------------------------------------------------------------------------

// clang-format off
static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_core", "neuroevo's C library (the public API is the neuroevo package)", -1, NULL,
    NULL, NULL, NULL, NULL,
};
// clang-format on

PyMODINIT_FUNC PyInit__core(void) {
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return NULL;
  pyne_error = PyErr_NewExceptionWithDoc("neuroevo.Error",
                                         "A failure reported by the neuroevo library; `.code` holds "
                                         "its NE_E* code.",
                                         PyExc_RuntimeError, NULL);
  if (!pyne_error || PyModule_AddObjectRef(m, "Error", pyne_error) < 0) goto fail;
  if (PyType_Ready(&pyne_env_type) < 0 || PyModule_AddObjectRef(m, "Env", (PyObject*)&pyne_env_type) < 0) goto fail;
  if (PyType_Ready(&pyne_algo_type) < 0 || PyModule_AddObjectRef(m, "Algorithm", (PyObject*)&pyne_algo_type) < 0)
    goto fail;
  if (PyType_Ready(&pyne_policy_type) < 0 || PyModule_AddObjectRef(m, "Policy", (PyObject*)&pyne_policy_type) < 0)
    goto fail;
  if (PyModule_AddFunctions(m, pyne_registry_methods) < 0 || PyModule_AddFunctions(m, pyne_run_methods) < 0) goto fail;
  if (PyModule_AddStringConstant(m, "__version__", NE_VERSION_STRING) < 0) goto fail;
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
