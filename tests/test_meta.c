// SPDX-License-Identifier: MIT
// Unit tests of meta-learning's inner loop (src/exec/pg.c, adapt.c, meta_config.c): the policy-
// gradient estimator against a case with a known gradient (a Gaussian bandit, where grad E[r] is
// closed-form), returns-to-go, rllab's linear baseline and the advantages on batches built here;
// adaptation as a pure function of (parameters, task, seed); each update rule (pg, es, hill)
// improving PointNav2D's return from a fixed start; a meta-evaluation through ne_evaluator equal to
// the adaptations it is made of; and [meta]'s configuration errors naming the key.
#include <stdint.h>

#include "exec/pg.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/meta.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"
#include "test.h"

// ---- the estimator --------------------------------------------------------------------------------

// A one-step Gaussian bandit: the policy is a bias b (linear, its observation always 0) with log-std
// ls; u ~ N(b, s^2) earns r = -(u - c)^2. E[r] = -(s^2 + (b - c)^2), so d/db = -2 (b - c) and
// d/d ls = -2 s^2. The estimator (baseline = the mean return: the features of a zero observation at
// t = 0 are the constant alone; no normalization) must agree within its own standard error.
static void test_pg_known_gradient(void) {
  float lo[1] = {-100}, hi[1] = {100};
  ne_policy_spec spec;
  ASSERT_EQ(ne_policy_spec_init(&spec, 1, NULL, 0, 1, NE_ACT_TANH, NE_HEAD_GAUSSIAN, NE_INIT_NORMC, lo, hi, NULL), 0);
  ASSERT_EQ(spec.n_params, 3u);  // w, b, log-std
  const double b = 0.3, ls = -0.2, c = 1.1, s = exp(ls);
  float params[3] = {0.7f, (float)b, (float)ls};  // w multiplies the observation 0
  const int n = 40000;
  ne__pg_batch batch;
  ASSERT_EQ(ne__pg_batch_init(&batch, n, n, 1, 1), 0);
  ne_rng rng;
  ne_rng_seed(&rng, 2024);
  void* scratch = ne_malloc(ne_policy_grad_scratch_bytes(&spec));
  batch.n_paths = n;
  double rbar = 0;
  for (int i = 0; i < n; i++) {
    float obs = 0, u, act;
    ne_policy_sample(&spec, params, &obs, scratch, &rng, &u, &act);
    batch.start[i] = i;
    batch.input[i] = batch.raw[i] = 0;
    batch.u[i] = u;
    batch.reward[i] = -((double)u - c) * ((double)u - c);
    rbar += batch.reward[i] / n;
  }
  batch.start[n] = n;
  ne__pg_advantages(&batch, 0.99, 1e-5, 0);
  // the baseline is the mean return (to the solve's rounding)
  ASSERT_NEAR(batch.baseline[0], rbar, 1e-6 * fabs(rbar));
  double grad[3];
  ne__pg_gradient(&spec, params, &batch, scratch, grad);
  // the estimator's standard error, from the per-sample terms
  double sb = 0, sls = 0, mb = grad[1], mls = grad[2];
  for (int i = 0; i < n; i++) {
    double z = ((double)batch.u[i] - (float)b) / s, a = batch.adv[i];
    sb += (a * z / s - mb) * (a * z / s - mb);
    sls += (a * (z * z - 1) - mls) * (a * (z * z - 1) - mls);
  }
  double se_b = sqrt(sb / n / n), se_ls = sqrt(sls / n / n);
  ASSERT_NEAR(grad[1], -2 * (b - c), 4 * se_b);
  ASSERT_NEAR(grad[2], -2 * s * s, 4 * se_ls);
  ASSERT(se_b < 0.05 && se_ls < 0.05);  // the check has teeth: 4 se is well below the gradients (1.6, 1.3)
  ASSERT(grad[0] == 0);                 // w sees only zero observations
  ne__pg_batch_free(&batch);
  ne_free(scratch);
}

// returns-to-go (discounted, per path), a baseline that reproduces returns linear in its features,
// advantages R - b, and their normalization to mean 0, std 1
static void test_returns_baseline_and_advantages(void) {
  ne__pg_batch b;
  ASSERT_EQ(ne__pg_batch_init(&b, 4, 40, 1, 1), 0);
  // path 0: rewards 1, 2, 3; path 1: rewards 4, 5
  b.n_paths = 2;
  b.start[0] = 0, b.start[1] = 3, b.start[2] = 5;
  const double r[5] = {1, 2, 3, 4, 5};
  for (int s = 0; s < 5; s++) b.reward[s] = r[s], b.raw[s] = b.input[s] = (float)(s * 0.5), b.u[s] = 0;
  ne__pg_advantages(&b, 0.5, 1e-5, 0);
  ASSERT(b.ret[2] == 3 && b.ret[1] == 2 + 0.5 * 3 && b.ret[0] == 1 + 0.5 * 3.5);
  ASSERT(b.ret[4] == 5 && b.ret[3] == 4 + 0.5 * 5);
  for (int s = 0; s < 5; s++) ASSERT(b.adv[s] == b.ret[s] - b.baseline[s]);
  // returns exactly linear in the features (o, o^2, t/100, ..., 1): a 40-step path with rewards
  // built so that R_t = 2 + 3 o_t - o_t^2 + 50 (t/100): the ridge fit reproduces them
  b.n_paths = 1;
  b.start[0] = 0, b.start[1] = 40;
  double want[40];
  for (int t = 0; t < 40; t++) {
    double o = (float)(0.1 * (t % 7) - 0.3);
    b.raw[t] = b.input[t] = (float)o;
    want[t] = 2 + 3 * o - o * o + 50 * (t / 100.0);
  }
  for (int t = 0; t < 40; t++) b.reward[t] = want[t] - (t + 1 < 40 ? want[t + 1] : 0);  // discount 1
  ne__pg_advantages(&b, 1.0, 1e-8, 0);
  for (int t = 0; t < 40; t++) {
    ASSERT_NEAR(b.ret[t], want[t], 1e-9);
    ASSERT_NEAR(b.baseline[t], want[t], 1e-4);
  }
  // normalized: mean 0, std 1 (population)
  for (int t = 0; t < 40; t++) b.reward[t] = (t % 5) - 1.5 * (t % 3);
  ne__pg_advantages(&b, 0.9, 1e-5, 1);
  double m = 0, v = 0;
  for (int t = 0; t < 40; t++) m += b.adv[t] / 40;
  for (int t = 0; t < 40; t++) v += (b.adv[t] - m) * (b.adv[t] - m) / 40;
  ASSERT_NEAR(m, 0, 1e-12);
  ASSERT_NEAR(v, 1, 1e-6);
  ne__pg_batch_free(&b);
}

// ---- adaptation on PointNav2D -----------------------------------------------------------------------

typedef struct fixture {
  ne_config* cfg;
  ne_env_spec* env;
  ne_policy_spec policy;
  ne_meta_spec meta;
  float* params;
} fixture;

// PointNav2D-v0, a 16-16 tanh gaussian-head MLP from init seed 3, [meta] from the overrides
static fixture make_fixture(const char* const* overrides, int n) {
  fixture f;
  char err[NE_ERRSTR_LEN] = "";
  f.cfg = ne_config_create();
  // set, not overridden: a test's overrides may change them (an override given twice is an error)
  const char* base[][3] = {{"env", "id", "PointNav2D-v0"},
                           {"policy", "hidden", "16,16"},
                           {"policy", "head", "gaussian"},
                           {"meta", "tasks", "1"}};
  for (int i = 0; i < 4; i++) ASSERT_EQ(ne_config_set(f.cfg, base[i][0], base[i][1], base[i][2], "test", err), 0);
  for (int i = 0; i < n; i++)
    if (ne_config_override(f.cfg, overrides[i], "test", err)) TEST_FAIL("%s: %s", overrides[i], err);
  ASSERT_EQ(ne_env_from_config(f.cfg, &f.env, err), 0);
  ASSERT_EQ(ne_policy_from_config(f.cfg, f.env, &f.policy, err), 0);
  if (ne_meta_from_config(f.cfg, f.env, &f.policy, &f.meta, err)) TEST_FAIL("meta: %s", err);
  f.params = ne_malloc(f.policy.n_params * sizeof(float));
  ne_policy_init_params(&f.policy, 3, f.params);
  return f;
}

static void free_fixture(fixture* f) {
  ne_free(f->params);
  ne_env_spec_destroy(f->env);
  ne_config_destroy(f->cfg);
}

// the same (parameters, task, seed) adapt to the same bits; another seed to others
static void test_adaptation_is_a_pure_function(void) {
  const char* o[] = {"meta.inner_steps=2", "meta.inner_episodes=6"};
  fixture f = make_fixture(o, 2);
  ne_adapter* a = ne_adapter_create(&f.meta, f.env, &f.policy);
  ne_adapter* b = ne_adapter_create(&f.meta, f.env, &f.policy);
  size_t n = f.policy.n_params;
  float* pa = ne_malloc(n * sizeof(float));
  float* pb = ne_malloc(n * sizeof(float));
  const double task[2] = {0.3, -0.2};
  ne_adapt_result ra, rb;
  ASSERT_EQ(ne_adapter_run(a, f.params, task, 77, NULL, NULL, &ra, pa), 0);
  ASSERT_EQ(ne_adapter_run(b, f.params, task, 77, NULL, NULL, &rb, pb), 0);
  ASSERT(memcmp(&ra, &rb, sizeof ra) == 0 && memcmp(pa, pb, n * sizeof(float)) == 0);
  // again on the same adapter: no state carries over
  ASSERT_EQ(ne_adapter_run(a, f.params, task, 77, NULL, NULL, &rb, pb), 0);
  ASSERT(memcmp(&ra, &rb, sizeof ra) == 0 && memcmp(pa, pb, n * sizeof(float)) == 0);
  // episodes: (K + 1) measurements of 1 episode and K updates of 6; steps of full 100-step episodes
  ASSERT_EQ(ra.episodes, 3 * 1 + 2 * 6);
  ASSERT(ra.steps <= 15 * 100 && ra.steps > 0);
  // another task seed: other action noise, other parameters
  ASSERT_EQ(ne_adapter_run(b, f.params, task, 78, NULL, NULL, &rb, pb), 0);
  ASSERT(memcmp(pa, pb, n * sizeof(float)) != 0);
  ASSERT(ra.returns[0] == rb.returns[0]);  // theta_0 on the same (deterministic) task
  ne_free(pa);
  ne_free(pb);
  ne_adapter_destroy(a);
  ne_adapter_destroy(b);
  free_fixture(&f);
}

// mean over 8 tasks of the return after 3 steps minus before, for the overrides' update rule
static double mean_improvement(const char* const* o, int n) {
  fixture f = make_fixture(o, n);
  ne_adapter* ad = ne_adapter_create(&f.meta, f.env, &f.policy);
  double gain = 0;
  for (uint32_t t = 0; t < 8; t++) {
    uint64_t seed = ne_meta_task_seed(1234, t);
    double task[2];
    ne_env_sample_task(f.env, seed, task);
    ne_adapt_result r;
    ASSERT_EQ(ne_adapter_run(ad, f.params, task, seed, NULL, NULL, &r, NULL), 0);
    gain += (r.returns[3] - r.returns[0]) / 8;
  }
  ne_adapter_destroy(ad);
  free_fixture(&f);
  return gain;
}

// each update rule moves a fresh policy towards the goal it does not see (a flipped gradient, or a
// hill climb that accepts worse points, fails this)
static void test_updates_improve_point_navigation(void) {
  const char* pg[] = {"meta.update=pg", "meta.inner_steps=3", "meta.inner_episodes=10", "meta.inner_lr=0.1"};
  const char* es[] = {"meta.update=es",      "meta.inner_steps=3",   "meta.inner_episodes=10",
                      "meta.inner_lr=0.005", "meta.inner_sigma=0.1", "policy.hidden="};
  const char* hill[] = {"meta.update=hill", "meta.inner_steps=3", "meta.inner_episodes=5", "meta.inner_sigma=0.1"};
  double g_pg = mean_improvement(pg, 4), g_es = mean_improvement(es, 6), g_hill = mean_improvement(hill, 4);
  fprintf(stderr, "mean gain after 3 steps on 8 tasks: pg %.3f, es %.3f, hill %.3f\n", g_pg, g_es, g_hill);
  ASSERT(g_pg > 1.0);
  ASSERT(g_es > 1.0);
  ASSERT(g_hill > 1.0);
}

// ---- a meta-evaluation ----------------------------------------------------------------------------

// ne_evaluator with [meta]: fitness = mean after-return over tasks * episodes tasks of the
// candidate's seeds, pre_fitness = mean before-return, episodes and steps of every adaptation
static void test_evaluator_meta_fitness(void) {
  const char* o[] = {"meta.tasks=3", "meta.inner_steps=1", "meta.inner_episodes=4", "meta.eval_episodes=2"};
  fixture f = make_fixture(o, 4);
  ne_evaluator* ev = ne_evaluator_create(f.env, &f.policy, NULL);
  ASSERT_EQ(ne_evaluator_set_meta(ev, &f.meta), 0);
  ne_blob blob = {1, f.policy.n_params, f.params};
  ne_candidate c = {.kind = NE_CAND_VECTOR, .episodes = 2, .episode_seed = 99, .blob = 0};
  ne_batch batch = {.n = 1, .cands = &c, .n_blobs = 1, .blobs = &blob};
  ne_result r = {0};
  ASSERT_EQ(ne_evaluator_run(ev, &batch, &c, &r), 0);
  // the same by hand: 3 * 2 tasks
  ne_adapter* ad = ne_adapter_create(&f.meta, f.env, &f.policy);
  double pre = 0, post = 0;
  uint64_t steps = 0;
  for (uint32_t t = 0; t < 6; t++) {
    uint64_t seed = ne_meta_task_seed(99, t);
    double task[2];
    ne_env_sample_task(f.env, seed, task);
    ne_adapt_result ar;
    ASSERT_EQ(ne_adapter_run(ad, f.params, task, seed, NULL, NULL, &ar, NULL), 0);
    pre += ar.returns[0] / 6;
    post += ar.returns[1] / 6;
    steps += ar.steps;
  }
  ASSERT_NEAR(r.fitness, post, 1e-9 * fabs(post));
  ASSERT_NEAR(r.pre_fitness, pre, 1e-9 * fabs(pre));
  ASSERT_EQ(r.episodes, 6 * (2 * 2 + 4));
  ASSERT_U64_EQ(r.steps, steps);
  ASSERT(r.return_std > 0);
  // without meta the same candidate is a plain evaluation: no pre_fitness
  ASSERT_EQ(ne_evaluator_set_meta(ev, NULL), 0);
  ASSERT_EQ(ne_evaluator_run(ev, &batch, &c, &r), 0);
  ASSERT(isnan(r.pre_fitness));
  ASSERT_EQ(r.episodes, 2);
  // a raised stop ends a meta-evaluation between tasks with a partial result the caller drops
  volatile int stop = 1;
  ASSERT_EQ(ne_evaluator_set_meta(ev, &f.meta), 0);
  ne_evaluator_set_stop(ev, &stop);
  ASSERT_EQ(ne_evaluator_run(ev, &batch, &c, &r), NE_EINTR);
  ASSERT_EQ(r.status, NE_EINTR);
  ASSERT_EQ(r.episodes, 0);
  ne_adapter_destroy(ad);
  ne_evaluator_destroy(ev);
  free_fixture(&f);
}

// ---- configuration errors ------------------------------------------------------------------------

// [meta] that cannot run: the message names the key and what would work
static void expect_meta_error(const char* const* o, int n, const char* needle) {
  char err[NE_ERRSTR_LEN] = "";
  ne_config* cfg = ne_config_create();
  for (int i = 0; i < n; i++)
    if (ne_config_override(cfg, o[i], "test", err)) TEST_FAIL("%s: %s", o[i], err);
  ne_env_spec* env = NULL;
  ne_policy_spec policy;
  ASSERT_EQ(ne_env_from_config(cfg, &env, err), 0);
  ASSERT_EQ(ne_policy_from_config(cfg, env, &policy, err), 0);
  ne_meta_spec m;
  ASSERT_EQ(ne_meta_from_config(cfg, env, &policy, &m, err), NE_EINVAL);
  ASSERT_CONTAINS(err, needle);
  ne_env_spec_destroy(env);
  ne_config_destroy(cfg);
}

static void test_meta_config_errors(void) {
  const char* not_family[] = {"env.id=Pendulum-v1", "meta.tasks=2", "meta.update=es"};
  expect_meta_error(not_family, 3, "env.id = Pendulum-v1 is not one (`neuroevo envs tasks`");
  const char* no_head[] = {"env.id=PointNav2D-v0", "meta.tasks=2"};
  expect_meta_error(no_head, 2, "meta.update = pg samples actions and needs policy.head = gaussian (got tanh)");
  const char* odd[] = {"env.id=PointNav2D-v0", "meta.tasks=2", "meta.update=es", "meta.inner_episodes=5"};
  expect_meta_error(odd, 4, "meta.inner_episodes = 5: es evaluates mirrored pairs, so it must be even (try 6)");
  const char* fixed[] = {"env.id=PointNav2D-v0", "meta.tasks=2", "meta.update=hill", "env.task=0.1,0.2"};
  expect_meta_error(fixed, 4, "env.task fixes PointNav2D-v0's task");
  const char* episodes[] = {"env.id=PointNav2D-v0", "meta.tasks=2", "meta.update=hill", "env.episodes=3"};
  expect_meta_error(episodes, 4, "env.episodes = 3 with meta.tasks = 2");
  // meta.tasks = 0: no check (a plain run), the fields still read for `eval --adapt`
  char err[NE_ERRSTR_LEN];
  ne_config* cfg = ne_config_create();
  ne_config_override(cfg, "meta.update=hill", "test", err);
  ne_env_spec* env = NULL;
  ne_policy_spec policy;
  ASSERT_EQ(ne_env_from_config(cfg, &env, err), 0);  // CartPole-v1
  ASSERT_EQ(ne_policy_from_config(cfg, env, &policy, err), 0);
  ne_meta_spec m;
  ASSERT_EQ(ne_meta_from_config(cfg, env, &policy, &m, err), 0);
  ASSERT(m.tasks == 0 && m.update == NE_META_HILL && m.inner_episodes == 20);
  ne_env_spec_destroy(env);
  ne_config_destroy(cfg);
}

int main(int argc, char** argv) {
  static const test_entry tests[] = {
      TEST_ENTRY(test_pg_known_gradient),
      TEST_ENTRY(test_returns_baseline_and_advantages),
      TEST_ENTRY(test_adaptation_is_a_pure_function),
      TEST_ENTRY(test_updates_improve_point_navigation),
      TEST_ENTRY(test_evaluator_meta_fitness),
      TEST_ENTRY(test_meta_config_errors),
  };
  return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
