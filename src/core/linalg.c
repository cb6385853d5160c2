// SPDX-License-Identifier: MIT
// Dense symmetric eigendecomposition (Householder reduction to tridiagonal form, then the implicit
// QL method with Wilkinson-style shifts, as in EISPACK's tred2/tql2), Gram-Schmidt, a Cholesky solve and a
// deterministic exp. CMA-ES calls the eigendecomposition lazily (every O(1/(n (c1 + cmu)))
// generations), so it is O(n^3) but rare. The working copy keeps eigenvectors as ROWS so that every
// O(n^3) loop walks memory contiguously; the result is transposed once at the end.
#include "core/linalg.h"

#include <math.h>  // fabs, sqrt, ldexp, floor: exact IEEE operations, identical in every libc
#include <string.h>

#include "neuroevo/error.h"

#define QL_MAX_ITER 60  // per eigenvalue; convergence is cubic, 2-3 are typical

double ne__dot(const double* a, const double* b, size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; i++) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

double ne__pythag(double a, double b) {
  double x = fabs(a), y = fabs(b);
  double big = x > y ? x : y, small = x > y ? y : x;
  if (big == 0) return 0;
  double r = small / big;
  return big * sqrt(1.0 + r * r);
}

// ---- Householder tridiagonalization -------------------------------------------------------------

// One Householder step for row i: annihilates a[i][0..i-2] (rows of w are the working vectors).
// d holds row i on entry; on exit d[i] = h and e[i] the off-diagonal element.
static void householder_step(double* w, double* d, double* e, int n, int i) {
  double scale = 0, h = 0;
  for (int k = 0; k < i; k++) scale += fabs(d[k]);
  if (scale == 0) {
    // already reduced: copy the next row, clear row/column i
    e[i] = d[i - 1];
    for (int j = 0; j < i; j++) {
      d[j] = w[(size_t)j * n + (i - 1)];
      w[(size_t)j * n + i] = 0;
      w[(size_t)i * n + j] = 0;
    }
    d[i] = 0;
    return;
  }
  // the Householder vector u = x - alpha e_{i-1}, scaled to avoid under/overflow
  for (int k = 0; k < i; k++) {
    d[k] /= scale;
    h += d[k] * d[k];
  }
  double f = d[i - 1];
  double g = f > 0 ? -sqrt(h) : sqrt(h);
  e[i] = scale * g;
  h -= f * g;
  d[i - 1] = f - g;
  for (int j = 0; j < i; j++) e[j] = 0;
  // p = A u / h (into e), using the lower triangle held in rows j of w
  for (int j = 0; j < i; j++) {
    double* wj = w + (size_t)j * n;
    f = d[j];
    w[(size_t)i * n + j] = f;
    g = e[j] + wj[j] * f;
    for (int k = j + 1; k <= i - 1; k++) {
      g += wj[k] * d[k];
      e[k] += wj[k] * f;
    }
    e[j] = g;
  }
  f = 0;
  for (int j = 0; j < i; j++) {
    e[j] /= h;
    f += e[j] * d[j];
  }
  double hh = f / (h + h);
  for (int j = 0; j < i; j++) e[j] -= hh * d[j];
  // A = A - u q^T - q u^T on the lower triangle
  for (int j = 0; j < i; j++) {
    double* wj = w + (size_t)j * n;
    f = d[j];
    g = e[j];
    for (int k = j; k <= i - 1; k++) wj[k] -= f * e[k] + g * d[k];
    d[j] = wj[i - 1];
    wj[i] = 0;
  }
  d[i] = h;
}

// Accumulates the Householder reflections into w, whose rows become the basis of the tridiagonal
// form; d gets the diagonal.
static void accumulate(double* w, double* d, int n) {
  for (int i = 0; i < n - 1; i++) {
    double* wi = w + (size_t)i * n;
    double* wi1 = w + (size_t)(i + 1) * n;
    w[(size_t)i * n + (n - 1)] = wi[i];
    wi[i] = 1;
    double h = d[i + 1];
    if (h != 0) {
      for (int k = 0; k <= i; k++) d[k] = wi1[k] / h;
      for (int j = 0; j <= i; j++) {
        double* wj = w + (size_t)j * n;
        double g = ne__dot(wi1, wj, (size_t)i + 1);
        for (int k = 0; k <= i; k++) wj[k] -= g * d[k];
      }
    }
    for (int k = 0; k <= i; k++) wi1[k] = 0;
  }
  for (int j = 0; j < n; j++) {
    d[j] = w[(size_t)j * n + (n - 1)];
    w[(size_t)j * n + (n - 1)] = 0;
  }
  w[(size_t)(n - 1) * n + (n - 1)] = 1;
}

// Reduces the symmetric w to tridiagonal form: diagonal d, sub-diagonal e (e[0] = 0).
static void tridiagonalize(double* w, double* d, double* e, int n) {
  for (int j = 0; j < n; j++) d[j] = w[(size_t)j * n + (n - 1)];
  for (int i = n - 1; i > 0; i--) householder_step(w, d, e, n, i);
  accumulate(w, d, n);
  e[0] = 0;
}

// ---- implicit QL ----------------------------------------------------------------------------------

// Applies the plane rotation (c, s) to working rows i and i+1 (eigenvector rows).
static void rotate_rows(double* w, int n, int i, double c, double s) {
  double* a = w + (size_t)i * n;
  double* b = w + (size_t)(i + 1) * n;
  for (int k = 0; k < n; k++) {
    double h = b[k];
    b[k] = s * a[k] + c * h;
    a[k] = c * a[k] - s * h;
  }
}

// One implicit QL sweep on the unreduced block [l, m]; f accumulates the shifts.
static void ql_sweep(double* w, double* d, double* e, int n, int l, int m, double* f) {
  double g = d[l];
  double p = (d[l + 1] - g) / (2.0 * e[l]);
  double r = ne__pythag(p, 1.0);
  if (p < 0) r = -r;
  d[l] = e[l] / (p + r);
  d[l + 1] = e[l] * (p + r);
  double dl1 = d[l + 1];
  double h = g - d[l];
  for (int i = l + 2; i < n; i++) d[i] -= h;
  *f += h;
  // chase the bulge from m - 1 up to l
  p = d[m];
  double c = 1, c2 = 1, c3 = 1, el1 = e[l + 1], s = 0, s2 = 0;
  for (int i = m - 1; i >= l; i--) {
    c3 = c2;
    c2 = c;
    s2 = s;
    g = c * e[i];
    h = c * p;
    r = ne__pythag(p, e[i]);
    e[i + 1] = s * r;
    s = e[i] / r;
    c = p / r;
    p = c * d[i] - s * g;
    d[i + 1] = h + s * (c * g + s * d[i]);
    rotate_rows(w, n, i, c, s);
  }
  p = -s * s2 * c3 * el1 * e[l] / dl1;
  e[l] = s * p;
  d[l] = c * p;
}

// Diagonalizes the tridiagonal (d, e) and rotates the rows of w along; NE_ERANGE if stuck.
static int ql_implicit(double* w, double* d, double* e, int n) {
  for (int i = 1; i < n; i++) e[i - 1] = e[i];
  e[n - 1] = 0;
  double f = 0, tst1 = 0;
  const double eps = 0x1.0p-52;
  for (int l = 0; l < n; l++) {
    // find a negligible sub-diagonal element
    double t = fabs(d[l]) + fabs(e[l]);
    if (t > tst1) tst1 = t;
    int m = l;
    while (m < n - 1 && fabs(e[m]) > eps * tst1) m++;
    if (m > l) {
      int iter = 0;
      do {
        if (++iter > QL_MAX_ITER) return NE_ERANGE;
        ql_sweep(w, d, e, n, l, m, &f);
      } while (fabs(e[l]) > eps * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
  return 0;
}

// Sorts eigenvalues ascending, moving the eigenvector rows along (selection sort: n swaps at most).
static void sort_rows(double* w, double* d, int n) {
  for (int i = 0; i < n - 1; i++) {
    int k = i;
    for (int j = i + 1; j < n; j++)
      if (d[j] < d[k]) k = j;
    if (k == i) continue;
    double t = d[k];
    d[k] = d[i];
    d[i] = t;
    double* a = w + (size_t)i * n;
    double* b = w + (size_t)k * n;
    for (int j = 0; j < n; j++) {
      t = a[j];
      a[j] = b[j];
      b[j] = t;
    }
  }
}

static void transpose(double* a, int n) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double t = a[(size_t)i * n + j];
      a[(size_t)i * n + j] = a[(size_t)j * n + i];
      a[(size_t)j * n + i] = t;
    }
}

int ne__eigen_sym(double* a, double* w, double* work, int n) {
  if (n <= 0) return 0;
  if (n == 1) {
    w[0] = a[0];
    a[0] = 1;
    return 0;
  }
  // a is symmetric, so it is its own transpose: the row-wise algorithm can start on it directly
  tridiagonalize(a, w, work, n);
  int rc = ql_implicit(a, w, work, n);
  if (rc) return rc;
  sort_rows(a, w, n);
  transpose(a, n);
  return 0;
}

// ---- Gram-Schmidt ---------------------------------------------------------------------------------

int ne__orthonormalize_rows(double* a, int n) {
  // two passes of modified Gram-Schmidt give orthogonality to machine precision ("twice is enough")
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      double* ai = a + (size_t)i * n;
      for (int j = 0; j < i; j++) {
        const double* aj = a + (size_t)j * n;
        double dot = 0;
        for (int k = 0; k < n; k++) dot += ai[k] * aj[k];
        for (int k = 0; k < n; k++) ai[k] -= dot * aj[k];
      }
      double norm = 0;
      for (int k = 0; k < n; k++) norm += ai[k] * ai[k];
      norm = sqrt(norm);
      if (!(norm > 1e-12)) return NE_ERANGE;
      for (int k = 0; k < n; k++) ai[k] /= norm;
    }
  }
  return 0;
}

// ---- Cholesky -------------------------------------------------------------------------------------

int ne__cholesky_solve(double* a, double* b, int n) {
  // a = L L^T, L in the lower triangle (column by column, fixed order)
  for (int j = 0; j < n; j++) {
    double d = a[(size_t)j * n + j];
    for (int k = 0; k < j; k++) d -= a[(size_t)j * n + k] * a[(size_t)j * n + k];
    if (!(d > 0.0) || !isfinite(d)) return NE_ERANGE;  // NaN fails too
    double ljj = sqrt(d);
    a[(size_t)j * n + j] = ljj;
    for (int i = j + 1; i < n; i++) {
      double s = a[(size_t)i * n + j];
      for (int k = 0; k < j; k++) s -= a[(size_t)i * n + k] * a[(size_t)j * n + k];
      a[(size_t)i * n + j] = s / ljj;
    }
  }
  // L y = b, then L^T x = y
  for (int i = 0; i < n; i++) {
    double s = b[i];
    for (int k = 0; k < i; k++) s -= a[(size_t)i * n + k] * b[k];
    b[i] = s / a[(size_t)i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int k = i + 1; k < n; k++) s -= a[(size_t)k * n + i] * b[k];
    b[i] = s / a[(size_t)i * n + i];
  }
  for (int i = 0; i < n; i++)
    if (!isfinite(b[i])) return NE_ERANGE;
  return 0;
}

// ---- exp ------------------------------------------------------------------------------------------

double ne__exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return INFINITY;
  if (x < -745.2) return 0.0;
  // x = k ln2 + r with |r| <= ln2/2; ln2_hi has 32 trailing zero bits, so k * ln2_hi is exact
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double inv_ln2 = 1.44269504088896338700e+00;
  double k = floor(x * inv_ln2 + 0.5);
  double r = (x - k * ln2_hi) - k * ln2_lo;
  // Taylor series to r^14/14!: the truncation error is below 2^-60 for |r| <= 0.347
  double p = 1.0;
  for (int i = 14; i >= 1; i--) p = 1.0 + p * r / (double)i;
  return ldexp(p, (int)k);
}
