// SPDX-License-Identifier: MIT
// What the files of the extension module neuroevo._core share: the exception type, error
// conversion, and each file's type/method tables that module.c puts together. The extension is a
// thin layer over the C library (no copy of its logic); NumPy arrays are made on the Python side
// from buffers these functions return, so no NumPy C API is needed.
#ifndef NEUROEVO_PYNE_H
#define NEUROEVO_PYNE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

// neuroevo.Error: every library failure, with the NE_E* code in `.code`.
extern PyObject* pyne_error;

// Sets the Python exception for a library error code and message and returns NULL
// (NE_ENOMEM -> MemoryError, NE_EINTR -> KeyboardInterrupt, everything else -> neuroevo.Error).
PyObject* pyne_raise(int code, const char* errstr);

// A list of (key, value) string pairs from a Python dict or iterable of pairs into the genome
// header form; 0, or -1 with an exception set.
struct ne_genome_header;
int pyne_header_from_py(PyObject* obj, struct ne_genome_header* h);

// The header as a list of (key, value) tuples; NULL with an exception set.
PyObject* pyne_header_to_py(const struct ne_genome_header* h);

// A seed list (any iterable of non-negative ints) into a new uint64 array (*n items); the caller
// frees with PyMem_Free. NULL with an exception set.
uint64_t* pyne_seeds_from_py(PyObject* obj, size_t* n);

// Types and module-level functions defined per file.
extern PyTypeObject pyne_env_type;           // pyenv.c: neuroevo._core.Env
extern PyTypeObject pyne_algo_type;          // pyalgo.c: neuroevo._core.Algorithm
extern PyTypeObject pyne_policy_type;        // pyrun.c: neuroevo._core.Policy
extern PyMethodDef pyne_run_methods[];       // pyrun.c: run, evaluate, genome_*
extern PyMethodDef pyne_registry_methods[];  // module.c: env_ids, algorithms, config_keys

#endif
