// SPDX-License-Identifier: MIT
// MAML's inner policy-gradient step, the estimator part (src/exec/pg.c): a batch of stored
// rollouts, discounted returns-to-go, rllab's linear feature baseline fitted on them by ridge
// regression, advantages, and the REINFORCE gradient mean_t(grad log pi(u_t | s_t) * A_t). The
// adapter (adapt.c) fills the batch; tests check the estimator on batches they build themselves.
// Not public API.
#ifndef NEUROEVO_EXEC_PG_H
#define NEUROEVO_EXEC_PG_H

#include <stddef.h>

#include "neuroevo/policy.h"

// Rollouts stored back to back: path p holds steps [start[p], start[p + 1]).
typedef struct ne__pg_batch {
  int obs_dim, act_dim;  // sizes of one step's observation and action
  int cap_paths;         // paths the buffers hold
  int cap_steps;         // steps the buffers hold
  int n_paths;           // paths stored
  int* start;            // (cap_paths + 1) first step of each path; start[n_paths] = steps stored
  float* input;          // (cap_steps, obs_dim) what the policy saw (normalized when normalizing)
  float* raw;            // (cap_steps, obs_dim) the env's observation (the baseline's features)
  float* u;              // (cap_steps, act_dim) the gaussian head's sampled raw outputs
  double* reward;        // (cap_steps) rewards
  double* ret;           // (cap_steps) discounted returns-to-go (ne__pg_advantages)
  double* baseline;      // (cap_steps) the fitted baseline's predictions
  double* adv;           // (cap_steps) advantages
  int n_feat;            // baseline features per step: 2 * obs_dim + 4
  double* ata;           // (n_feat, n_feat) normal equations
  double* atb;           // (n_feat) right-hand side, then the coefficients
  double* feat;          // (n_feat) one step's features
} ne__pg_batch;

// Allocates a batch for cap_paths paths and cap_steps steps in all; 0 or NE_ENOMEM (then free it).
int ne__pg_batch_init(ne__pg_batch* b, int cap_paths, int cap_steps, int obs_dim, int act_dim);

// Frees a batch's buffers. Nullable: b.
void ne__pg_batch_free(ne__pg_batch* b);

// rllab's LinearFeatureBaseline features of step t of a path with raw observation o:
// clip(o, -10, 10), its square, t/100, (t/100)^2, (t/100)^3, 1 (n_feat values into f).
void ne__pg_features(const float* o, int obs_dim, int t, double* f);

// Returns-to-go with `discount`, the baseline fitted to them on this batch (ridge regression
// (F^T F + reg I) c = F^T R, reg x10 up to 5 times if the solve fails, as rllab; 0 when it never
// succeeds), advantages R - b (GAE with lambda 1), normalized to mean 0 and std 1 (+1e-8) when
// `normalize`. Allocates nothing.
void ne__pg_advantages(ne__pg_batch* b, double discount, double reg, int normalize);

// grad (n_params doubles, overwritten) = mean over every stored step t of A_t * grad log pi(u_t | s_t)
// (the gradient of MAML's surrogate mean(log pi * A), to be ascended). scratch: ne_policy_grad_scratch_bytes.
void ne__pg_gradient(const ne_policy_spec* policy, const float* params, const ne__pg_batch* b, void* scratch,
                     double* grad);

#endif
