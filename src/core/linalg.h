// SPDX-License-Identifier: MIT
// Small dense linear algebra for CMA-ES, the black-box test functions and meta-learning's linear
// baseline: a symmetric eigendecomposition (Householder tridiagonalization + implicit QL),
// Gram-Schmidt orthonormalization, a Cholesky solve and a deterministic exp. Plain double loops in a fixed order and no libm calls except IEEE sqrt,
// so results are bit-identical on every machine running the same build. Not public API; not a BLAS.
#ifndef NEUROEVO_LINALG_H
#define NEUROEVO_LINALG_H

#include <stddef.h>

// Eigendecomposition of the symmetric matrix a (n, n), row-major: on return a holds the
// orthonormal eigenvectors as columns (a[i*n + j] = component i of eigenvector j) and w (n) the
// eigenvalues in ascending order. `work` holds n doubles. Only the lower triangle of a is read.
// Returns 0, or NE_ERANGE when the QL iteration did not converge (a and w are then unspecified).
int ne__eigen_sym(double* a, double* w, double* work, int n);

// Orthonormalizes the rows of a (n, n) in place by modified Gram-Schmidt (twice, for accuracy);
// returns 0, or NE_ERANGE when the rows are linearly dependent.
int ne__orthonormalize_rows(double* a, int n);

// e^x, within 1 ulp for finite x; +inf above 709.78, 0 below -745.2, NaN for NaN. Built from
// + - * / and exact power-of-two scaling only, so every libc gives the same bits.
double ne__exp(double x);

// sum_i a[i] b[i] with four interleaved partial sums ((s0 + s1) + (s2 + s3) at the end): a fixed
// order, so bit-identical everywhere, and about 4x faster than one serial sum (no FP reassociation
// needed). The O(n^2) kernels of CMA-ES are built on it.
double ne__dot(const double* a, const double* b, size_t n);

// Solves a x = b for a symmetric positive definite a (n, n), row-major, by Cholesky: a is
// overwritten by its factor (lower triangle), b by x. Only the lower triangle of a is read.
// Returns 0, or NE_ERANGE when a is not (numerically) positive definite or a value is not finite.
int ne__cholesky_solve(double* a, double* b, int n);

// sqrt(a^2 + b^2) without intermediate overflow (a deterministic hypot).
double ne__pythag(double a, double b);

#endif
