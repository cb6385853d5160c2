// SPDX-License-Identifier: MIT
// The policy-gradient estimator of meta-learning's pg inner loop (see pg.h), after MAML's
// (cbfinn/maml_rl: rllab's LinearFeatureBaseline and BaseSampler.process_samples, MAMLNPO's inner
// surrogate -mean(logli * adv)) and ProMP's sample processor (jonasrothfuss/ProMP samplers/base.py:
// the baseline is fitted on the rollouts it then predicts, advantages normalized). Everything runs
// in double in a fixed order, so the gradient is a pure function of the batch.
#include "exec/pg.h"

#include <math.h>  // sqrt (IEEE exact)
#include <string.h>

#include "core/linalg.h"  // ne__cholesky_solve
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

#define FEATURE_CLIP 10.0  // rllab clips observations to [-10, 10] for the features
#define TIME_SCALE 100.0   // and scales the time step by 1/100
#define REG_TRIES 5        // rllab multiplies the ridge coefficient by 10 up to 5 times
#define ADV_EPS 1e-8       // ProMP's normalize_advantages: (adv - mean) / (std + 1e-8)

int ne__pg_batch_init(ne__pg_batch* b, int cap_paths, int cap_steps, int obs_dim, int act_dim) {
  memset(b, 0, sizeof *b);
  b->obs_dim = obs_dim;
  b->act_dim = act_dim;
  b->cap_paths = cap_paths;
  b->cap_steps = cap_steps;
  b->n_feat = 2 * obs_dim + 4;
  size_t steps = (size_t)cap_steps, nf = (size_t)b->n_feat;
  b->start = ne_calloc((size_t)cap_paths + 1, sizeof *b->start);
  b->input = ne_malloc(steps * (size_t)obs_dim * sizeof(float));
  b->raw = ne_malloc(steps * (size_t)obs_dim * sizeof(float));
  b->u = ne_malloc(steps * (size_t)act_dim * sizeof(float));
  b->reward = ne_malloc(steps * sizeof(double));
  b->ret = ne_malloc(steps * sizeof(double));
  b->baseline = ne_malloc(steps * sizeof(double));
  b->adv = ne_malloc(steps * sizeof(double));
  b->ata = ne_malloc(nf * nf * sizeof(double));
  b->atb = ne_malloc(nf * sizeof(double));
  b->feat = ne_malloc(nf * sizeof(double));
  int ok = b->start && b->input && b->raw && b->u && b->reward && b->ret && b->baseline && b->adv && b->ata && b->atb &&
      b->feat;
  return ok ? 0 : NE_ENOMEM;
}

void ne__pg_batch_free(ne__pg_batch* b) {
  if (!b) return;
  ne_free(b->start);
  ne_free(b->input);
  ne_free(b->raw);
  ne_free(b->u);
  ne_free(b->reward);
  ne_free(b->ret);
  ne_free(b->baseline);
  ne_free(b->adv);
  ne_free(b->ata);
  ne_free(b->atb);
  ne_free(b->feat);
  memset(b, 0, sizeof *b);
}

void ne__pg_features(const float* o, int obs_dim, int t, double* f) {
  for (int i = 0; i < obs_dim; i++) {
    double c = o[i] < -FEATURE_CLIP ? -FEATURE_CLIP : o[i] > FEATURE_CLIP ? FEATURE_CLIP : (double)o[i];
    f[i] = c;
    f[obs_dim + i] = c * c;
  }
  double al = t / TIME_SCALE;
  f[2 * obs_dim] = al;
  f[2 * obs_dim + 1] = al * al;
  f[2 * obs_dim + 2] = al * al * al;
  f[2 * obs_dim + 3] = 1.0;
}

// returns-to-go of every path: R_t = r_t + discount * R_{t+1}, backwards from the path's end
static void returns_to_go(ne__pg_batch* b, double discount) {
  for (int p = 0; p < b->n_paths; p++) {
    double r = 0.0;
    for (int s = b->start[p + 1] - 1; s >= b->start[p]; s--) b->ret[s] = r = b->reward[s] + discount * r;
  }
}

// F^T F and F^T R over every step (lower triangle of ata only: the solve reads no more)
static void normal_equations(ne__pg_batch* b) {
  int nf = b->n_feat;
  memset(b->ata, 0, (size_t)nf * (size_t)nf * sizeof(double));
  memset(b->atb, 0, (size_t)nf * sizeof(double));
  for (int p = 0; p < b->n_paths; p++) {
    for (int s = b->start[p]; s < b->start[p + 1]; s++) {
      ne__pg_features(b->raw + (size_t)s * (size_t)b->obs_dim, b->obs_dim, s - b->start[p], b->feat);
      for (int i = 0; i < nf; i++) {
        double fi = b->feat[i];
        double* row = b->ata + (size_t)i * (size_t)nf;
        for (int j = 0; j <= i; j++) row[j] += fi * b->feat[j];
        b->atb[i] += fi * b->ret[s];
      }
    }
  }
}

// The ridge solution into atb (the coefficients), with rllab's retries at 10x the coefficient; 0
// (and zero coefficients) when every try failed. The factorization overwrites the equations, so a
// retry (rare: reg makes F^T F + reg I positive definite) rebuilds them.
static int fit_baseline(ne__pg_batch* b, double reg) {
  int nf = b->n_feat;
  for (int attempt = 0; attempt < REG_TRIES; attempt++, reg *= 10) {
    normal_equations(b);
    for (int i = 0; i < nf; i++) b->ata[(size_t)i * (size_t)nf + i] += reg;
    if (ne__cholesky_solve(b->ata, b->atb, nf) == 0) return 1;
  }
  memset(b->atb, 0, (size_t)nf * sizeof(double));
  return 0;
}

void ne__pg_advantages(ne__pg_batch* b, double discount, double reg, int normalize) {
  returns_to_go(b, discount);
  fit_baseline(b, reg);
  int nf = b->n_feat, n = b->start[b->n_paths];
  // A = R - b (GAE with lambda = 1 telescopes to this), summed for the normalization
  double sum = 0.0;
  for (int p = 0; p < b->n_paths; p++) {
    for (int s = b->start[p]; s < b->start[p + 1]; s++) {
      ne__pg_features(b->raw + (size_t)s * (size_t)b->obs_dim, b->obs_dim, s - b->start[p], b->feat);
      double pred = 0.0;
      for (int i = 0; i < nf; i++) pred += b->feat[i] * b->atb[i];
      b->baseline[s] = pred;
      b->adv[s] = b->ret[s] - pred;
      sum += b->adv[s];
    }
  }
  if (!normalize || n == 0) return;
  double mean = sum / n, var = 0.0;
  for (int s = 0; s < n; s++) var += (b->adv[s] - mean) * (b->adv[s] - mean);
  double scale = 1.0 / (sqrt(var / n) + ADV_EPS);
  for (int s = 0; s < n; s++) b->adv[s] = (b->adv[s] - mean) * scale;
}

void ne__pg_gradient(const ne_policy_spec* policy, const float* params, const ne__pg_batch* b, void* scratch,
                     double* grad) {
  memset(grad, 0, policy->n_params * sizeof(double));
  int n = b->start[b->n_paths];
  if (n == 0) return;
  // each step adds A_t / n times its log-likelihood gradient
  for (int s = 0; s < n; s++)
    ne_policy_logprob_grad(policy, params, b->input + (size_t)s * (size_t)b->obs_dim,
                           b->u + (size_t)s * (size_t)b->act_dim, b->adv[s] / n, scratch, grad);
}
