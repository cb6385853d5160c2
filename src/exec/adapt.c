// SPDX-License-Identifier: MIT
// The meta-learning inner loop (see meta.h): measure theta_0 on the task, then K times update and
// measure again, with MAML's policy gradient (pg.c's estimator over rollouts of the gaussian
// head), ES-MAML's ES-gradient step or its hill climbing. One adapter per evaluation thread; every
// buffer is made at creation (pg's rollout store for inner_episodes x the TimeLimit steps), so an
// adaptation allocates nothing. Seeds: every episode's reset seed, the action noise of a pg
// rollout and every perturbation derive from (task seed, stage k, index, what) through
// NE_PURPOSE_ADAPT, so an adaptation is a pure function of (parameters, task, task seed).
#include <assert.h>
#include <math.h>  // sqrt (IEEE exact), isfinite
#include <string.h>

#include "exec/pg.h"
#include "neuroevo/alloc.h"
#include "neuroevo/episode.h"
#include "neuroevo/error.h"
#include "neuroevo/meta.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

// what a derived seed within stage k is for
enum { SEED_MEASURE = 1, SEED_ROLLOUT = 2, SEED_NOISE = 3, SEED_PERTURB = 4 };

struct ne_adapter {
  const ne_meta_spec* meta;      // shared, read-only
  const ne_env_spec* env;        // shared, read-only
  const ne_policy_spec* policy;  // shared, read-only
  ne_env_state* state;           // this adapter's environment
  float* theta;                  // (n_params) the current stage's parameters
  float* trial;                  // (n_params) a perturbed copy (es, hill)
  float* eps;                    // (n_params) one perturbation (es, hill)
  double* grad;                  // (n_params) the update direction
  float* scratch;                // (policy->scratch_floats + 1) forward scratch
  void* gscratch;                // (ne_policy_grad_scratch_bytes) gradient / sampling scratch (pg)
  float* input;                  // (obs_dim) the normalized observation
  float action[NE_ENV_MAX_ACT];  // the action of the current step
  float u[NE_ENV_MAX_ACT];       // pg: the sampled raw output of the current step
  ne__pg_batch pg;               // pg: the rollouts of one update
};

// seed of item i of kind `what` in stage k of the task with seed `seed`
static uint64_t sub_seed(uint64_t seed, int k, int what, int i) {
  return ne_hash2(ne_seed_derive(seed, (uint64_t)k, (uint64_t)i, NE_PURPOSE_ADAPT), (uint64_t)what);
}

void ne_adapter_destroy(ne_adapter* ad) {
  if (!ad) return;
  ne_env_state_destroy(ad->state);
  ne_free(ad->theta);
  ne_free(ad->trial);
  ne_free(ad->eps);
  ne_free(ad->grad);
  ne_free(ad->scratch);
  ne_free(ad->gscratch);
  ne_free(ad->input);
  ne__pg_batch_free(&ad->pg);
  ne_free(ad);
}

ne_adapter* ne_adapter_create(const ne_meta_spec* meta, const ne_env_spec* env, const ne_policy_spec* policy) {
  ne_adapter* ad = ne_calloc(1, sizeof *ad);
  if (!ad) return NULL;
  ad->meta = meta;
  ad->env = env;
  ad->policy = policy;
  size_t n = policy->n_params;
  ad->state = ne_env_state_create(env);
  ad->theta = ne_malloc(n * sizeof(float));
  ad->trial = ne_malloc(n * sizeof(float));
  ad->eps = ne_malloc(n * sizeof(float));
  ad->grad = ne_malloc(n * sizeof(double));
  ad->scratch = ne_malloc((policy->scratch_floats + 1) * sizeof(float));
  ad->input = ne_malloc((size_t)env->obs_dim * sizeof(float));
  int ok = ad->state && ad->theta && ad->trial && ad->eps && ad->grad && ad->scratch && ad->input;
  // pg: the gradient scratch and a store for inner_episodes full-length rollouts
  if (ok && meta->update == NE_META_PG) {
    ad->gscratch = ne_malloc(ne_policy_grad_scratch_bytes(policy));
    int steps = meta->inner_episodes * (env->max_episode_steps > 0 ? env->max_episode_steps : 1);
    ok = ad->gscratch && ne__pg_batch_init(&ad->pg, meta->inner_episodes, steps, env->obs_dim, env->act_dim) == 0;
  }
  if (!ok) {
    ne_adapter_destroy(ad);
    return NULL;
  }
  return ad;
}

// ---- one episode -------------------------------------------------------------------------------------

// How an episode acts and what it keeps.
typedef struct rollout_opts {
  ne_obs_norm norm;     // observation normalization (all NULL: raw observations)
  ne_result* stats;     // observation sums (NULL: none)
  ne_rng* noise;        // pg: sample actions from this stream (NULL: the mean action)
  ne__pg_batch* store;  // pg: append the steps as a new path (NULL: keep nothing)
} rollout_opts;

// appends the current step's input, raw observation and sampled output to the store
static void store_step(ne__pg_batch* b, const float* input, const float* raw, const float* u) {
  int s = b->start[b->n_paths + 1]++;
  assert(s < b->cap_steps);  // inner_episodes x the TimeLimit: a rollout is truncated before
  memcpy(b->input + (size_t)s * (size_t)b->obs_dim, input, (size_t)b->obs_dim * sizeof(float));
  memcpy(b->raw + (size_t)s * (size_t)b->obs_dim, raw, (size_t)b->obs_dim * sizeof(float));
  memcpy(b->u + (size_t)s * (size_t)b->act_dim, u, (size_t)b->act_dim * sizeof(float));
}

// One episode of params from reset seed `seed` (an ne_episode: the evaluator's order of sums,
// input, action and step); its return into *ret, its steps added to *steps. Returns 0 or the env's
// NE_E* failure.
static int rollout(ne_adapter* ad, const float* params, uint64_t seed, const rollout_opts* o, double* ret,
                   uint64_t* steps) {
  ne__pg_batch* b = o->store;
  ne_episode ep = {.env = ad->env,
                   .state = ad->state,
                   .policy = ad->policy,
                   .params = params,
                   .norm = o->norm,
                   .stats = o->stats,
                   .input = ad->input,
                   .scratch = ad->scratch};
  int rc = ne_episode_begin(&ep, seed);
  if (b) b->start[b->n_paths + 1] = b->start[b->n_paths];
  while (!ep.done) {
    const float* in = ne_episode_input(&ep);
    // the mean action, or a sample of the gaussian head kept with its input for the gradient
    if (o->noise) ne_policy_sample(ad->policy, params, in, ad->gscratch, o->noise, ad->u, ad->action);
    else ne_policy_forward(ad->policy, params, in, ad->scratch, ad->action);
    if (b) store_step(b, in, ad->state->obs, ad->u);
    if ((rc = ne_episode_act(&ep, ad->action)) != 0) break;
    if (b) b->reward[b->start[b->n_paths + 1] - 1] = ep.last.reward;
  }
  *steps += ep.steps;
  if (rc) return rc;
  if (b) b->n_paths++;
  *ret = ep.ret;
  return 0;
}

// the mean return of params over `n` episodes with the reset seeds of (k, what, 0..n)
static int mean_return(ne_adapter* ad, const float* params, uint64_t seed, int k, int what, int n,
                       const rollout_opts* o, double* mean, ne_adapt_result* out) {
  double sum = 0.0;
  for (int e = 0; e < n; e++) {
    double r = 0.0;
    int rc = rollout(ad, params, sub_seed(seed, k, what, e), o, &r, &out->steps);
    if (rc) return rc;
    sum += r;
    out->episodes++;
  }
  *mean = sum / n;
  return 0;
}

// ---- the updates ---------------------------------------------------------------------------------------

// out = base + coef * eps, eps the perturbation held in ad->eps; out may be base (locals: with
// -fno-strict-aliasing a store to out could change ad's fields, and gcc kept the loop scalar)
static void apply_eps(ne_adapter* ad, const float* base, float coef, float* out) {
  const float* eps = ad->eps;
  size_t n = ad->policy->n_params;
  for (size_t i = 0; i < n; i++) out[i] = base[i] + coef * eps[i];
}

// out = base + coef * eps(pseed) (the generator: the same floats every time it is asked)
static void perturb(ne_adapter* ad, const float* base, uint64_t pseed, float coef, float* out) {
  ne_noise_fill(pseed, 0, ad->policy->n_params, ad->eps);
  apply_eps(ad, base, coef, out);
}

// MAML's step: inner_episodes sampled rollouts, advantages over a fitted baseline, theta += lr * g
static int pg_step(ne_adapter* ad, uint64_t seed, int k, const rollout_opts* base, ne_adapt_result* out) {
  const ne_meta_spec* m = ad->meta;
  ne__pg_batch* b = &ad->pg;
  b->n_paths = 0;
  b->start[0] = 0;
  for (int i = 0; i < m->inner_episodes; i++) {
    ne_rng noise;
    ne_rng_seed(&noise, sub_seed(seed, k, SEED_NOISE, i));
    rollout_opts o = {base->norm, base->stats, &noise, b};
    double r;
    int rc = rollout(ad, ad->theta, sub_seed(seed, k, SEED_ROLLOUT, i), &o, &r, &out->steps);
    if (rc) return rc;
    out->episodes++;
  }
  ne__pg_advantages(b, m->discount, m->baseline_reg, m->normalize_adv);
  ne__pg_gradient(ad->policy, ad->theta, b, ad->gscratch, ad->grad);
  for (size_t i = 0; i < ad->policy->n_params; i++) ad->theta[i] = (float)((double)ad->theta[i] + m->lr * ad->grad[i]);
  return 0;
}

// ES-MAML's ES-gradient step: pairs theta +- sigma eps_j on a shared reset seed, returns normalized
// by their standard deviation; no step when they are all equal (ES-MAML's BlackboxAdaptation)
static int es_step(ne_adapter* ad, uint64_t seed, int k, const rollout_opts* o, ne_adapt_result* out) {
  const ne_meta_spec* m = ad->meta;
  size_t n = ad->policy->n_params;
  int pairs = m->inner_episodes / 2;
  float sigma = (float)m->sigma;
  double sum = 0.0, sumsq = 0.0;
  memset(ad->grad, 0, n * sizeof(double));
  for (int j = 0; j < pairs; j++) {
    uint64_t rseed = sub_seed(seed, k, SEED_ROLLOUT, j);
    ne_noise_fill(sub_seed(seed, k, SEED_PERTURB, j), 0, n, ad->eps);
    double f[2];
    for (int side = 0; side < 2; side++) {
      apply_eps(ad, ad->theta, side ? -sigma : sigma, ad->trial);
      int rc = rollout(ad, ad->trial, rseed, o, &f[side], &out->steps);
      if (rc) return rc;
      out->episodes++;
      sum += f[side];
      sumsq += f[side] * f[side];
    }
    // sum_j (f+ - f-) eps_j
    double diff = f[0] - f[1];
    for (size_t i = 0; i < n; i++) ad->grad[i] += diff * ad->eps[i];
  }
  double cnt = 2.0 * pairs, mean = sum / cnt, var = sumsq / cnt - mean * mean;
  double std = var > 0 ? sqrt(var) : 0.0;
  if (!(std > 0) || !isfinite(std)) return 0;
  double scale = m->lr / (cnt * m->sigma * std);
  for (size_t i = 0; i < n; i++) ad->theta[i] = (float)((double)ad->theta[i] + scale * ad->grad[i]);
  return 0;
}

// ES-MAML's hill climbing ("batch"): inner_episodes perturbations of theta, each measured on the
// episodes that measured theta (pivot); the best replaces theta if it beats the pivot
static int hill_step(ne_adapter* ad, uint64_t seed, int k, double pivot, const rollout_opts* o, ne_adapt_result* out) {
  const ne_meta_spec* m = ad->meta;
  float sigma = (float)m->sigma;
  int best = -1;
  double best_value = pivot;
  for (int j = 0; j < m->inner_episodes; j++) {
    perturb(ad, ad->theta, sub_seed(seed, k, SEED_PERTURB, j), sigma, ad->trial);
    double v;
    int rc = mean_return(ad, ad->trial, seed, k, SEED_MEASURE, m->eval_episodes, o, &v, out);
    if (rc) return rc;
    if (v > best_value) best_value = v, best = j;
  }
  if (best >= 0) perturb(ad, ad->theta, sub_seed(seed, k, SEED_PERTURB, best), sigma, ad->theta);
  return 0;
}

// ---- one task --------------------------------------------------------------------------------------------

int ne_adapter_run(ne_adapter* ad, const float* params, const double* task, uint64_t seed, const ne_batch* norm,
                   ne_result* stats, ne_adapt_result* out, float* adapted) {
  const ne_meta_spec* m = ad->meta;
  memset(out, 0, sizeof *out);
  int rc = ne_env_set_task(ad->env, ad->state, task, ad->env->task_dim, NULL);
  if (rc) return rc;
  memcpy(ad->theta, params, ad->policy->n_params * sizeof(float));
  rollout_opts measure = {ne_episode_norm(norm), stats, NULL, NULL};
  // stage k: measure theta_k, then update it (the last stage is only measured)
  for (int k = 0; !rc && k <= m->inner_steps; k++) {
    rc = mean_return(ad, ad->theta, seed, k, SEED_MEASURE, m->eval_episodes, &measure, &out->returns[k], out);
    if (rc || k == m->inner_steps) break;
    if (m->update == NE_META_PG) rc = pg_step(ad, seed, k, &measure, out);
    else if (m->update == NE_META_ES) rc = es_step(ad, seed, k, &measure, out);
    else rc = hill_step(ad, seed, k, out->returns[k], &measure, out);
  }
  if (!rc && adapted) memcpy(adapted, ad->theta, ad->policy->n_params * sizeof(float));
  return rc;
}
