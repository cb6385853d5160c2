// SPDX-License-Identifier: MIT
// Black-box test functions as an env family (bbob/sphere, bbob/rosenbrock, ...): the registry table
// and two accessors the tests use to check optima and rotations. The functions are minimized; the
// evaluator turns f(x) into the fitness -f(x). Not public API.
#ifndef NEUROEVO_ENVS_BBOB_H
#define NEUROEVO_ENVS_BBOB_H

#include "envs/envs_int.h"

// Registry table, terminated by an entry with id == NULL.
extern const ne_env_entry ne__bbob_envs[];

// Writes the global minimizer x* (spec->dim values) of a bbob spec: the shifted, rotated image of
// z* (0, or 1 for Rosenbrock). Returns NE_EINVAL for specs of other families.
int ne__bbob_optimum(const ne_env_spec* spec, double* x_opt);

// The rotation matrix (dim, dim) row-major of a bbob spec, or NULL when it has none.
const double* ne__bbob_rotation(const ne_env_spec* spec);

#endif
