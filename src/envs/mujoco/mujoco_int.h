// SPDX-License-Identifier: MIT
// What the MuJoCo env files share: the per-id task table (one `ne_mj_task` per Gymnasium v5 env,
// defined in that env's file), the spec data (a shared read-only mjModel plus the ids and constants
// a task looks up once) and the NumPy-exact reductions the reward terms need. Not public API.
//
// Threading: the mjModel is loaded once per process per XML file and shared by every spec and
// thread (mujoco.c keeps the cache); each env state owns one mjData.
#ifndef NEUROEVO_ENVS_MUJOCO_INT_H
#define NEUROEVO_ENVS_MUJOCO_INT_H

#include <math.h>

#include <mujoco/mujoco.h>  // mjModel, mjData, mj_step

#include "envs/envs_int.h"
#include "neuroevo/error.h"  // NE_ERRSTR_LEN

typedef struct ne_mj_task ne_mj_task;
typedef struct ne_mj_task_family ne_mj_task_family;

// spec->data of every MuJoCo env: immutable after make.
typedef struct ne_mj_spec {
  const ne_mj_task* task;           // the env's constants and hooks
  const ne_mj_task_family* family;  // task families: the task part (NULL for the plain v5 envs)
  const mjModel* m;                 // the shared model (mujoco.c's cache holds the reference)
  double dt;                        // m->opt.timestep * frame_skip (Gymnasium's `self.dt`)
  int body[2];                      // bodies a task names (Ant: main body; Reacher: fingertip, target)
  double total_mass;                // sum of model->body_mass (Humanoid's mass_center denominator)
} ne_mj_spec;

// The per-state impl (family->state_bytes); `d` is made by the state_init hook.
typedef struct ne_mj_state {
  mjData* d;                     // this env's simulation data, owned (mj_deleteData in state_free)
  int err;                       // 0, or NE_EPHYSICS when MuJoCo stopped the last reset/step
  char errmsg[NE_ERRSTR_LEN];    // "<env id>: MuJoCo: <its message>" when err is set
  double task[NE_ENV_MAX_TASK];  // task families: the task of the current episode (set_task hook)
} ne_mj_state;

// One Gymnasium v5 MuJoCo env: what differs from env to env. The shared step (mujoco.c) records
// `position` before the frames, writes ctrl = action, runs frame_skip mj_step calls and
// mj_rnePostConstraint (as MujocoEnv._step_mujoco_simulation), then asks `reward`.
struct ne_mj_task {
  const char* id;           // registry id, e.g. "Hopper-v5"
  const char* xml;          // model file inside Gymnasium's assets folder
  int frame_skip;           // mj_step calls per env step
  int max_episode_steps;    // registered TimeLimit
  int has_threshold;        // 1 if Gymnasium registers a reward_threshold
  double reward_threshold;  // that threshold
  // observation length for the loaded model
  int (*obs_dim)(const mjModel* m);
  // finds body ids and constants in the model; NE_E* with errstr if the model lacks one. Nullable
  int (*prepare)(ne_mj_spec* s, char* errstr);
  // draws qpos/qvel into d (reset_model's noise; d was just mj_resetData'd, qpos = qpos0)
  void (*reset)(const ne_mj_spec* s, mjData* d, ne_rng* rng);
  // writes the observation (obs_dim floats)
  void (*observe)(const ne_mj_spec* s, const mjData* d, float* obs);
  // the position whose finite difference is the forward velocity (x or xy). Nullable
  void (*position)(const ne_mj_spec* s, const mjData* d, double xy[2]);
  // the reward of the step just simulated and whether it terminated (NULL for task families)
  double (*reward)(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act, int* terminated);
  // coordinates of `position` that are meaningful: 1 (planar robots: x), 2 (x and y); they are
  // also the env's behaviour characterization, its final position (Conti et al. 2018)
  int position_dims;
  // a variant of `xml` made at load time (HumanoidTrap-v5 adds walls to humanoid.xml): edits the
  // parsed model before it is compiled; NE_E* with errstr on failure. Nullable: the file as it is
  int (*edit)(mjSpec* spec, char* errstr);
};

// A task family over a v5 env's model (meta-learning; half_cheetah_tasks.c, ant_tasks.c): the env
// part (`env`, whose reward is unused) plus the task's distribution and the reward that reads it.
struct ne_mj_task_family {
  ne_mj_task env;          // model, frame skip, TimeLimit, reset and observation
  int task_dim;            // length of a task vector
  const char* task_names;  // the values' names, comma-separated
  const char* task_desc;   // the task distribution, for `neuroevo envs`
  // draws a task from the family's distribution
  void (*sample_task)(ne_rng* rng, double* task);
  // the reward of the step just simulated for task, and whether it terminated
  double (*task_reward)(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act,
                        const double* task, int* terminated);
};

// The tasks, one per file (hopper.c, ...).
extern const ne_mj_task ne__mj_hopper, ne__mj_half_cheetah, ne__mj_walker2d, ne__mj_ant, ne__mj_humanoid,
    ne__mj_swimmer, ne__mj_inverted_pendulum, ne__mj_inverted_double_pendulum, ne__mj_reacher;
// novelty search's deceptive humanoid (humanoid.c): Humanoid-v5 inside a U-shaped wall
extern const ne_mj_task ne__mj_humanoid_trap;

// Task families over the same models (meta-learning): half_cheetah_tasks.c and ant_tasks.c.
extern const ne_mj_task_family ne__mj_half_cheetah_vel, ne__mj_half_cheetah_dir, ne__mj_ant_vel, ne__mj_ant_dir,
    ne__mj_ant_goal;

// What the task families reuse of the v5 envs' physics code: HalfCheetah-v5's start-state noise,
// observation and x position (half_cheetah.c); Ant-v5's start-state noise, observation, torso xy,
// health check, contact cost and model check (ant.c).
void ne__mj_half_cheetah_reset(const ne_mj_spec* s, mjData* d, ne_rng* rng);
void ne__mj_half_cheetah_observe(const ne_mj_spec* s, const mjData* d, float* obs);
void ne__mj_half_cheetah_position(const ne_mj_spec* s, const mjData* d, double xy[2]);
int ne__mj_half_cheetah_obs_dim(const mjModel* m);
void ne__mj_ant_reset(const ne_mj_spec* s, mjData* d, ne_rng* rng);
void ne__mj_ant_observe(const ne_mj_spec* s, const mjData* d, float* obs);
void ne__mj_ant_position(const ne_mj_spec* s, const mjData* d, double xy[2]);
int ne__mj_ant_obs_dim(const mjModel* m);
int ne__mj_ant_finite(const mjModel* m, const mjData* d);              // qpos and qvel all finite
double ne__mj_ant_contact_cost(const ne_mj_spec* s, const mjData* d);  // 5e-4 * sum(clip(cfrc_ext)^2)
int ne__mj_ant_prepare(ne_mj_spec* s, char* errstr);

// The render hook (mj_render.c): MuJoCo's own offscreen renderer in an EGL or OSMesa context.
int ne__mj_render(const ne_env_spec* spec, const void* impl, void** ctx, unsigned char* rgb, int width, int height,
                  char* errstr);
void ne__mj_render_free(const ne_env_spec* spec, void* ctx);

// ---- MuJoCo's fatal errors and warnings (mj_error.c) ----------------------------------------------

// Installs the process-wide mju_user_error / mju_user_warning handlers (once; thread-safe).
void ne__mj_handlers_install(void);

// Marks model loading on (1) or off (0): warnings while loading are not printed.
void ne__mj_loading(int on);

// Runs fn(arg); a MuJoCo fatal error inside it returns NE_EPHYSICS with MuJoCo's message copied to
// msg (size bytes) instead of ending the process. Thread-safe (the jump target is thread-local).
int ne__mj_guard(void (*fn)(void* arg), void* arg, char* msg, size_t size);

// Calls mju_error(text) inside ne__mj_guard: the handler alone, for tests.
int ne__mj_guard_selftest(const char* text, char* msg, size_t size);

// ---- reductions as NumPy computes them ----------------------------------------------------------

// np.sum over a contiguous float32 array: pairwise summation with 8 accumulators per block of up
// to 128 elements (numpy's pairwise_sum), in float32. Checked against NumPy 2 for n <= 33.
float ne__mj_pairwise_sumf(const float* a, int n);

// The same for float64 arrays.
double ne__mj_pairwise_sum(const double* a, int n);

// np.sum(np.square(action)) over a float32 action: squares and sum in float32, as NumPy does.
float ne__mj_sumsq_f32(const float* a, int n);

// np.sum(np.square(x)) over a float64 array (n <= 512).
double ne__mj_sumsq(const double* x, int n);

// np.clip on a float64 scalar: NaN passes through.
static inline double ne__mj_clip(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

// ---- reset noise, as reset_model draws it ----------------------------------------------------------

// x[i] = x0[i] + uniform(-scale, scale) for i < n (x0 NULL: zeros, Gymnasium's init_qvel). Nullable: x0
void ne__mj_noise_uniform(ne_rng* rng, double* x, const double* x0, int n, double scale);

// x[i] = x0[i] + scale * standard_normal() for i < n. Nullable: x0
void ne__mj_noise_normal(ne_rng* rng, double* x, const double* x0, int n, double scale);

// The obs for the common "qpos[skip:], qvel" layout; qvel clipped to [-vclip, vclip] when vclip > 0.
// Returns the number of floats written.
int ne__mj_obs_qpos_qvel(const mjModel* m, const mjData* d, int skip, double vclip, float* obs);

// Body id by name, or NE_ENOTFOUND naming the model file. Nullable: errstr.
int ne__mj_body(const ne_mj_spec* s, const char* name, int* id, char* errstr);

#endif
