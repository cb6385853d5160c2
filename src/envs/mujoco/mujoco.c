// SPDX-License-Identifier: MIT
// The MuJoCo family: Gymnasium v5's MujocoEnv in C over the real MuJoCo library (the one inside
// PyPI's `mujoco` wheel, cmake/physics.cmake). This file holds what every v5 env shares: the
// registry table, a process-wide model cache (one read-only mjModel per XML file, shared by every
// spec and thread), spec filling, reset / step / set_state / get_state, and NumPy-exact helpers.
// Each env's constants, observation and reward live in its own file (hopper.c, ...).
//
// Semantics (gymnasium/envs/mujoco/mujoco_env.py): reset = mj_resetData, reset_model's noise,
// mj_forward; step = ctrl = action (not clipped: MuJoCo clamps ctrl inside, while the control
// cost sees the raw action, as in Gymnasium), frame_skip x mj_step, mj_rnePostConstraint;
// set_state(qpos, qvel) = mj_resetData, qpos/qvel, mj_forward (state_dim = nq + nv).
// No allocation after ne_env_state_create: the mjData is made once per state. Every physics call
// runs inside ne__mj_guard (mj_error.c): a MuJoCo fatal error fails that reset/step with
// NE_EPHYSICS and MuJoCo's message (spec->status) instead of ending the process.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "envs/mujoco/mujoco_int.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

#ifndef NE_MUJOCO_ASSETS
#error "NE_MUJOCO_ASSETS (Gymnasium's MuJoCo model folder) is set by cmake/physics.cmake"
#endif

// ---- the registry table ------------------------------------------------------------------------

static int mj_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);

// every task, in registry order
static const ne_mj_task* const tasks[] = {
    &ne__mj_hopper,   &ne__mj_half_cheetah,  &ne__mj_walker2d,          &ne__mj_ant,
    &ne__mj_humanoid, &ne__mj_swimmer,       &ne__mj_inverted_pendulum, &ne__mj_inverted_double_pendulum,
    &ne__mj_reacher,  &ne__mj_humanoid_trap,
};
#define N_TASKS ((int)(sizeof tasks / sizeof tasks[0]))

// the task families (meta-learning): half_cheetah_tasks.c, ant_tasks.c
static const ne_mj_task_family* const families[] = {
    &ne__mj_half_cheetah_vel, &ne__mj_half_cheetah_dir, &ne__mj_ant_vel, &ne__mj_ant_dir, &ne__mj_ant_goal,
};
#define N_FAMILIES ((int)(sizeof families / sizeof families[0]))

// Summaries repeat the task's (the registry wants a static table of entries).
const ne_env_entry ne__mujoco_envs[] = {
    {"Hopper-v5", "MuJoCo one-legged hopper; obs 11 (qpos[1:], clipped qvel), act Box(-1, 1, (3,))", mj_make},
    {"HalfCheetah-v5", "MuJoCo planar cheetah; obs 17 (qpos[1:], qvel), act Box(-1, 1, (6,))", mj_make},
    {"Walker2d-v5", "MuJoCo planar biped; obs 17 (qpos[1:], clipped qvel), act Box(-1, 1, (6,))", mj_make},
    {"Ant-v5", "MuJoCo quadruped; obs 105 (qpos[2:], qvel, clipped cfrc_ext[1:]), act Box(-1, 1, (8,))", mj_make},
    {"Humanoid-v5",
     "MuJoCo humanoid; obs 348 (qpos[2:], qvel, cinert, cvel, qfrc_actuator, cfrc_ext), act Box(-0.4, 0.4, (17,))",
     mj_make},
    {"Swimmer-v5", "MuJoCo three-link swimmer; obs 8 (qpos[2:], qvel), act Box(-1, 1, (2,))", mj_make},
    {"InvertedPendulum-v5", "MuJoCo cart-pole; obs 4 (qpos, qvel), act Box(-3, 3, (1,))", mj_make},
    {"InvertedDoublePendulum-v5", "MuJoCo cart with two poles; obs 9, act Box(-1, 1, (1,))", mj_make},
    {"Reacher-v5", "MuJoCo two-link arm reaching a target; obs 10, act Box(-1, 1, (2,)); TimeLimit 50", mj_make},
    {"HumanoidTrap-v5",
     "Humanoid-v5 facing a U-shaped wall (Conti et al. 2018's deceptive trap, made from humanoid.xml at load "
     "time); obs 348, act Box(-0.4, 0.4, (17,)); behaviour: final x-y",
     mj_make},
    // task families for meta-learning (MAML / ProMP), TimeLimit 200
    {"HalfCheetahVel-v5", "MAML's half cheetah running at a goal velocity; reward -|v - goal| - 0.05|a|^2; obs 17",
     mj_make},
    {"HalfCheetahDir-v5", "MAML's half cheetah running forward or backward; reward direction * v - 0.05|a|^2; obs 17",
     mj_make},
    {"AntVel-v5", "MAML's ant walking at a goal velocity in [0, 3); reward -|v - goal| + 1.05 - costs; obs 105",
     mj_make},
    {"AntDir-v5", "MAML's ant walking forward or backward; reward direction * v + 0.05 - costs; obs 105", mj_make},
    {"AntGoal-v5", "MAML's ant walking to a goal position; reward -L1 distance - costs; obs 107 (x, y included)",
     mj_make},
    {NULL, NULL, NULL},
};

// ---- the model cache ---------------------------------------------------------------------------

#define CACHE_SLOTS 16

// one loaded model and how many specs use it
typedef struct cached_model {
  char path[512];  // the XML file it was loaded from, "#<task id>" appended for an edited variant
                   // ("" when the slot is free)
  mjModel* m;      // owned by the cache
  int refs;        // specs holding it
} cached_model;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cached_model cache[CACHE_SLOTS];

// Gymnasium's assets folder: NEUROEVO_MUJOCO_ASSETS, or the one found at configure time ("" in a
// wheel, whose Python package sets the variable from the gymnasium it runs with).
static const char* assets_dir(void) {
  const char* env = getenv("NEUROEVO_MUJOCO_ASSETS");
  return env && env[0] ? env : NE_MUJOCO_ASSETS;
}

// a task's variant of its XML file: parsed, edited by the task, compiled (mjSpec, MuJoCo >= 3.2)
static mjModel* load_edited(const char* file, const ne_mj_task* task, char* err, int size, char* errstr, int* rc) {
  mjSpec* spec = mj_parseXML(file, NULL, err, size);
  if (!spec) return NULL;
  mjModel* m = NULL;
  *rc = task->edit(spec, errstr);
  if (*rc == 0 && !(m = mj_compile(spec, NULL))) snprintf(err, (size_t)size, "%s", mjs_getError(spec));
  mj_deleteSpec(spec);
  return m;
}

// loads the task's model into a free slot under `key` (cache_lock held); the slot index or a
// negative NE_E*
static int cache_load(const char* file, const char* key, const ne_mj_task* task, char* errstr) {
  int slot = -1;
  for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
    if (!cache[i].m) slot = i;
  if (slot < 0) return ne__set_error(errstr, NE_ENOMEM, "MuJoCo model cache is full (%d models)", CACHE_SLOTS);
  ne__mj_handlers_install();
  char err[512] = "";
  int rc = 0;
  ne__mj_loading(1);
  mjModel* m = task->edit ? load_edited(file, task, err, (int)sizeof err, errstr, &rc)
                          : mj_loadXML(file, NULL, err, (int)sizeof err);
  ne__mj_loading(0);
  if (rc) return rc;
  if (!m)
    return ne__set_error(errstr, NE_EIO, "cannot load MuJoCo model %s%s: %s", file,
                         task->edit ? " (for its variant)" : "", err);
  snprintf(cache[slot].path, sizeof cache[slot].path, "%s", key);
  cache[slot].m = m;
  cache[slot].refs = 0;
  return slot;
}

// the shared model of a task (its XML file of the assets folder, or its edited variant), loading
// it on first use
static int model_acquire(const ne_mj_task* task, const mjModel** out, char* errstr) {
  char path[512], key[512];
  if (!assets_dir()[0])
    return ne__set_error(errstr, NE_ENOTFOUND,
                         "MuJoCo model folder unknown: set NEUROEVO_MUJOCO_ASSETS to gymnasium's "
                         "envs/mujoco/assets (`import neuroevo` and the `neuroevo` command set it)");
  int len = snprintf(path, sizeof path, "%s/%s", assets_dir(), task->xml);
  int klen = task->edit ? snprintf(key, sizeof key, "%s#%s", path, task->id) : snprintf(key, sizeof key, "%s", path);
  if (len < 0 || len >= (int)sizeof path || klen < 0 || klen >= (int)sizeof key)
    return ne__set_error(errstr, NE_EINVAL, "MuJoCo model path too long");
  pthread_mutex_lock(&cache_lock);
  int slot = -1;
  for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
    if (cache[i].m && strcmp(cache[i].path, key) == 0) slot = i;
  if (slot < 0) slot = cache_load(path, key, task, errstr);
  if (slot >= 0) {
    cache[slot].refs++;
    *out = cache[slot].m;
  }
  pthread_mutex_unlock(&cache_lock);
  return slot < 0 ? slot : 0;
}

// drops one reference; the model is deleted with its last spec
static void model_release(const mjModel* m) {
  pthread_mutex_lock(&cache_lock);
  for (int i = 0; i < CACHE_SLOTS; i++) {
    if (cache[i].m != m) continue;
    if (--cache[i].refs == 0) {
      mj_deleteModel(cache[i].m);
      memset(&cache[i], 0, sizeof cache[i]);
    }
    break;
  }
  pthread_mutex_unlock(&cache_lock);
}

// ---- the family ----------------------------------------------------------------------------------

// One physics call's arguments, for running it inside ne__mj_guard.
typedef struct mj_call {
  const ne_env_spec* spec;  // the env
  ne_mj_state* st;          // its state
  ne_rng* rng;              // reset: the start-state stream
  const float* act;         // step: the action
  double* reward;           // step: out
  int* terminated;          // step: out
  const double* v;          // set_state: qpos then qvel
} mj_call;

// runs fn on call inside a guard; a MuJoCo fatal error is recorded in the state for spec->status
static int guarded(void (*fn)(void*), mj_call* call) {
  char msg[NE_ERRSTR_LEN];
  ne_mj_state* st = call->st;
  st->err = ne__mj_guard(fn, call, msg, sizeof msg);
  st->errmsg[0] = '\0';
  if (!st->err) return 0;
  // MuJoCo's message spans lines (the overflow's figures): one line for logs and the CLI
  for (char* p = msg; *p; p++)
    if (*p == '\n') *p = ' ';
  return ne__set_error(st->errmsg, st->err, "%s: MuJoCo: %s", call->spec->id, msg);
}

static void reset_call(void* arg) {
  mj_call* c = arg;
  const ne_mj_spec* s = c->spec->data;
  mjData* d = c->st->d;
  mj_resetData(s->m, d);
  s->task->reset(s, d, c->rng);
  mj_forward(s->m, d);
}

static void mj_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  mj_call c = {spec, impl, rng, NULL, NULL, NULL, NULL};
  guarded(reset_call, &c);
}

static void step_call(void* arg) {
  mj_call* c = arg;
  const ne_mj_spec* s = c->spec->data;
  mjData* d = c->st->d;
  double before[2] = {0.0, 0.0};
  if (s->task->position) s->task->position(s, d, before);
  // _step_mujoco_simulation: ctrl = action (float32 widened), n frames, then cfrc_ext & co.
  for (int i = 0; i < s->m->nu; i++) d->ctrl[i] = (double)c->act[i];
  for (int k = 0; k < s->task->frame_skip; k++) mj_step(s->m, d);
  mj_rnePostConstraint(s->m, d);
  *c->terminated = 0;
  // task families: the reward of the state's task
  if (s->family) *c->reward = s->family->task_reward(s, d, before, c->act, c->st->task, c->terminated);
  else *c->reward = s->task->reward(s, d, before, c->act, c->terminated);
}

static void mj_env_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  mj_call c = {spec, impl, NULL, act, reward, terminated, NULL};
  if (guarded(step_call, &c)) *reward = 0.0, *terminated = 0;
}

// spec->status: the MuJoCo error that stopped the last reset/step, if any (env.c then marks the
// state as needing a reset; the evaluator reports the message for the candidate)
static int mj_status(const ne_env_spec* spec, const void* impl, char* errstr) {
  (void)spec;
  const ne_mj_state* st = impl;
  if (st->err && errstr) snprintf(errstr, NE_ERRSTR_LEN, "%s", st->errmsg);
  return st->err;
}

static void mj_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  const ne_mj_spec* s = spec->data;
  s->task->observe(s, ((const ne_mj_state*)impl)->d, obs);
}

static void set_state_call(void* arg) {
  mj_call* c = arg;
  const ne_mj_spec* s = c->spec->data;
  mjData* d = c->st->d;
  // MujocoEnv.set_state after a reset: fresh data, then qpos, qvel and mj_forward
  mj_resetData(s->m, d);
  memcpy(d->qpos, c->v, (size_t)s->m->nq * sizeof *c->v);
  memcpy(d->qvel, c->v + s->m->nq, (size_t)s->m->nv * sizeof *c->v);
  mj_forward(s->m, d);
}

static int mj_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  const ne_mj_spec* s = spec->data;
  if (n != spec->state_dim)
    return ne__set_error(errstr, NE_EINVAL, "%s: state needs %d values (qpos[%d], qvel[%d]), got %d", spec->id,
                         spec->state_dim, (int)s->m->nq, (int)s->m->nv, n);
  mj_call c = {spec, impl, NULL, NULL, NULL, NULL, v};
  int rc = guarded(set_state_call, &c);
  if (rc) return ne__set_error(errstr, rc, "%s", ((ne_mj_state*)impl)->errmsg);
  return 0;
}

static void mj_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  const ne_mj_spec* s = spec->data;
  const mjData* d = ((const ne_mj_state*)impl)->d;
  memcpy(v, d->qpos, (size_t)s->m->nq * sizeof *v);
  memcpy(v + s->m->nq, d->qvel, (size_t)s->m->nv * sizeof *v);
}

static void mj_destroy(ne_env_spec* spec) {
  ne_mj_spec* s = spec->data;
  if (!s) return;
  if (s->m) model_release(s->m);
  ne_free(s);
  spec->data = NULL;
}

static void make_data_call(void* arg) {
  mj_call* c = arg;
  c->st->d = mj_makeData(((const ne_mj_spec*)c->spec->data)->m);
}

static int mj_state_init(const ne_env_spec* spec, void* impl) {
  mj_call c = {spec, impl, NULL, NULL, NULL, NULL, NULL};
  int rc = guarded(make_data_call, &c);
  return rc ? rc : c.st->d ? 0 : NE_ENOMEM;
}

static void mj_state_free(const ne_env_spec* spec, void* impl) {
  (void)spec;
  ne_mj_state* st = impl;
  mj_deleteData(st->d);
  st->d = NULL;
}

static const ne_env_family mujoco_family = {
    "mujoco", sizeof(ne_mj_state), mj_reset, mj_env_step, mj_observe, mj_set_state, mj_get_state, mj_destroy,
};

// the behaviour characterization of locomotion tasks: the final position (mass centre or torso,
// whatever the forward reward differentiates), x and y (planar robots: x)
static void mj_behaviour(const ne_env_spec* spec, const void* impl, float* out) {
  const ne_mj_spec* s = spec->data;
  double xy[2] = {0.0, 0.0};
  s->task->position(s, ((const ne_mj_state*)impl)->d, xy);
  for (int i = 0; i < s->task->position_dims; i++) out[i] = (float)xy[i];
}

static const ne_env_hooks mujoco_hooks = {.state_init = mj_state_init,
                                          .state_free = mj_state_free,
                                          .render = ne__mj_render,
                                          .render_free = ne__mj_render_free,
                                          .behaviour = mj_behaviour};

// task families: the distribution and the task of a state's next episodes
static void mj_sample_task(const ne_env_spec* spec, ne_rng* rng, double* task) {
  ((const ne_mj_spec*)spec->data)->family->sample_task(rng, task);
}

static void mj_set_task(const ne_env_spec* spec, void* impl, const double* task) {
  ne_mj_state* st = impl;
  memcpy(st->task, task, (size_t)spec->task_dim * sizeof *task);
}

static const ne_env_hooks mujoco_task_hooks = {
    .state_init = mj_state_init,
    .state_free = mj_state_free,
    .render = ne__mj_render,
    .render_free = ne__mj_render_free,
    .behaviour = mj_behaviour,
    .sample_task = mj_sample_task,
    .set_task = mj_set_task,
};

// fills spec from the task and the loaded model
static int spec_fill(const ne_mj_task* task, ne_mj_spec* s, ne_env_spec* spec, char* errstr) {
  const mjModel* m = s->m;
  int obs_dim = task->obs_dim(m);
  if (m->nu > NE_ENV_MAX_ACT || m->nq + m->nv > NE_ENV_MAX_STATE)
    return ne__set_error(errstr, NE_ERANGE, "%s: model too large (nu %d, nq+nv %d)", task->id, (int)m->nu,
                         (int)(m->nq + m->nv));
  spec->obs_dim = obs_dim;
  spec->obs_rank = 1;
  spec->obs_shape[0] = obs_dim;
  spec->discrete = 0;
  spec->act_dim = m->nu;
  // _set_action_space: the actuators' ctrlrange as float32
  for (int i = 0; i < m->nu; i++) {
    spec->act_low[i] = (float)m->actuator_ctrlrange[2 * i];
    spec->act_high[i] = (float)m->actuator_ctrlrange[2 * i + 1];
  }
  spec->max_episode_steps = task->max_episode_steps;
  spec->has_threshold = task->has_threshold;
  spec->reward_threshold = task->reward_threshold;
  spec->state_dim = m->nq + m->nv;
  // locomotion: the final position is the behaviour (the others: the final observation)
  if (task->position) {
    spec->bc_native = 1;
    spec->bc_dim = task->position_dims;
  }
  s->dt = m->opt.timestep * task->frame_skip;
  // task families: the task vector, its meaning and its hooks
  if (s->family) {
    spec->task_dim = s->family->task_dim;
    spec->task_names = s->family->task_names;
    spec->task_desc = s->family->task_desc;
    spec->hooks = &mujoco_task_hooks;
  }
  return task->prepare ? task->prepare(s, errstr) : 0;
}

static int mj_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  const ne_mj_task* task = NULL;
  const ne_mj_task_family* family = NULL;
  for (int i = 0; i < N_TASKS && !task; i++)
    if (strcmp(tasks[i]->id, id) == 0) task = tasks[i];
  for (int i = 0; i < N_FAMILIES && !task; i++)
    if (strcmp(families[i]->env.id, id) == 0) family = families[i], task = &families[i]->env;
  if (!task) return ne__set_error(errstr, NE_ENOTFOUND, "no MuJoCo task '%s'", id);
  ne_mj_spec* s = ne_calloc(1, sizeof *s);
  if (!s) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", id);
  // from here spec->family->destroy (mj_destroy) releases s and the model on any failure
  snprintf(spec->id, sizeof spec->id, "%s", id);
  spec->family = &mujoco_family;
  spec->hooks = &mujoco_hooks;
  spec->status = mj_status;
  spec->data = s;
  s->task = task;
  s->family = family;
  int rc = model_acquire(task, &s->m, errstr);
  return rc ? rc : spec_fill(task, s, spec, errstr);
}

// ---- helpers the env files share -----------------------------------------------------------------

// numpy's pairwise_sum: blocks of <= 128 elements use 8 interleaved accumulators
#define PW_BLOCK 128
#define PAIRWISE_SUM(T, NAME)                                                    \
  static T NAME(const T* a, int n) {                                             \
    if (n < 8) {                                                                 \
      T res = 0;                                                                 \
      for (int i = 0; i < n; i++) res += a[i];                                   \
      return res;                                                                \
    }                                                                            \
    if (n <= PW_BLOCK) {                                                         \
      T r[8];                                                                    \
      for (int j = 0; j < 8; j++) r[j] = a[j];                                   \
      int i = 8;                                                                 \
      for (; i < n - (n % 8); i += 8)                                            \
        for (int j = 0; j < 8; j++) r[j] += a[i + j];                            \
      T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])); \
      for (; i < n; i++) res += a[i];                                            \
      return res;                                                                \
    }                                                                            \
    int n2 = n / 2;                                                              \
    n2 -= n2 % 8;                                                                \
    return NAME(a, n2) + NAME(a + n2, n - n2);                                   \
  }
PAIRWISE_SUM(float, pairwise_f)
PAIRWISE_SUM(double, pairwise_d)

float ne__mj_pairwise_sumf(const float* a, int n) { return pairwise_f(a, n); }
double ne__mj_pairwise_sum(const double* a, int n) { return pairwise_d(a, n); }

float ne__mj_sumsq_f32(const float* a, int n) {
  float sq[NE_ENV_MAX_ACT];
  assert(n <= NE_ENV_MAX_ACT);
  for (int i = 0; i < n; i++) sq[i] = a[i] * a[i];
  return pairwise_f(sq, n);
}

double ne__mj_sumsq(const double* x, int n) {
  double sq[512];
  assert(n <= 512);
  for (int i = 0; i < n; i++) sq[i] = x[i] * x[i];
  return pairwise_d(sq, n);
}

void ne__mj_noise_uniform(ne_rng* rng, double* x, const double* x0, int n, double scale) {
  for (int i = 0; i < n; i++) x[i] = (x0 ? x0[i] : 0.0) + ne_rng_range(rng, -scale, scale);
}

void ne__mj_noise_normal(ne_rng* rng, double* x, const double* x0, int n, double scale) {
  for (int i = 0; i < n; i++) x[i] = (x0 ? x0[i] : 0.0) + scale * ne_rng_normal(rng);
}

int ne__mj_obs_qpos_qvel(const mjModel* m, const mjData* d, int skip, double vclip, float* obs) {
  int k = 0;
  for (int i = skip; i < m->nq; i++) obs[k++] = (float)d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = (float)(vclip > 0 ? ne__mj_clip(d->qvel[i], -vclip, vclip) : d->qvel[i]);
  return k;
}

int ne__mj_body(const ne_mj_spec* s, const char* name, int* id, char* errstr) {
  *id = mj_name2id(s->m, mjOBJ_BODY, name);
  if (*id < 0) return ne__set_error(errstr, NE_ENOTFOUND, "%s: %s has no body '%s'", s->task->id, s->task->xml, name);
  return 0;
}
