// SPDX-License-Identifier: MIT
// MountainCar-v0 and MountainCarContinuous-v0, matching Gymnasium 1.4.0 classic_control/
// mountain_car.py and continuous_mountain_car.py bit for bit, including the continuous env's
// float32 state: after each step Gymnasium stores np.array(..., dtype=np.float32), and NumPy 2's
// promotion rules (NEP 50) then make several of the next step's operations float32 (see mcc_step).
//
// Action space: v0 Discrete(3): push left, none, right (force 0.001). Continuous: Box(-1, 1, (1,)),
//   the force clamped to [-1, 1] inside step, power 0.0015.
// Observation (float32): position in [-1.2, 0.6], velocity in [-0.07, 0.07].
// Reward: v0 -1 per step (threshold -110). Continuous: -0.1 * action^2 with the unclamped action,
//   plus 100 on reaching the goal (threshold 90).
// Start state: position uniform in [-0.6, -0.4), velocity 0.
// Dynamics: velocity += force term - 0.0025 cos(3 position), clipped to +-0.07; position +=
//   velocity, clipped to [-1.2, 0.6]; at the left wall a negative velocity becomes 0.
// Termination: position >= goal (0.5 for v0, 0.45 continuous) and velocity >= 0.
// Truncation: the TimeLimit at 200 (v0) and 999 (continuous) steps (applied by ne_env_step).
#include "envs/classic/classic_int.h"

// constants of MountainCarEnv / Continuous_MountainCarEnv, in one place
#define MIN_POSITION (-1.2)
#define MAX_POSITION 0.6
#define MAX_SPEED 0.07
#define GOAL_VELOCITY 0
#define FORCE 0.001        // v0 force per action step
#define GRAVITY 0.0025     // v0 gravity term (the continuous env writes the literal 0.0025)
#define GOAL_POSITION 0.5  // v0
#define CONT_GOAL_POSITION 0.45
#define CONT_POWER 0.0015
#define CONT_MIN_ACTION (-1.0)
#define CONT_MAX_ACTION 1.0
#define RESET_LOW (-0.6)
#define RESET_HIGH (-0.4)
#define MAX_EPISODE_STEPS 200
#define CONT_MAX_EPISODE_STEPS 999
#define REWARD_THRESHOLD (-110.0)
#define CONT_REWARD_THRESHOLD 90.0

// Gymnasium's `state` layout (both envs)
typedef struct mountain_car {
  double position;
  double velocity;
  int f32;  // continuous only: 1 once the state is float32 (after a step), 0 after reset/set_state
} mountain_car;

static void mc_reset(const ne_env_spec* spec, void* impl, ne_rng* rng) {
  (void)spec;
  mountain_car* s = impl;
  // np.array([uniform(low, high), 0]): float64 in both envs
  s->position = ne_rng_range(rng, RESET_LOW, RESET_HIGH);
  s->velocity = 0.0;
  s->f32 = 0;
}

// v0's step given cos_3p = math.cos(3 * position)
static void mc_advance(mountain_car* s, int action, double cos_3p, double* reward, int* terminated) {
  // float64 throughout: np.float64 scalars and math.cos
  double velocity = s->velocity + ((action - 1) * FORCE + cos_3p * (-GRAVITY));
  velocity = ne__np_clip(velocity, -MAX_SPEED, MAX_SPEED);
  double position = ne__np_clip(s->position + velocity, MIN_POSITION, MAX_POSITION);
  if (position == MIN_POSITION && velocity < 0) velocity = 0;
  *terminated = position >= GOAL_POSITION && velocity >= GOAL_VELOCITY;
  *reward = -1.0;
  s->position = position;
  s->velocity = velocity;
}

static void mc_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  mountain_car* s = impl;
  mc_advance(s, (int)act[0], cos(3 * s->position), reward, terminated);
}

// The continuous step tracks which values are np.float32 (k32 = 1) and which are float64 or Python
// floats. NumPy 2 computes float32 (op) Python-float in float32, the Python float rounded first;
// float32 (op) float64 in float64; comparisons with a Python float happen in float32 too.
static double cmp_bound(double bound, int k32) { return k32 ? ne__f32(bound) : bound; }

// force = min(max(action[0], -1.0), 1.0): the float32 action unless clamped to a Python float
static double mcc_force(float a, int* force32) {
  *force32 = 0;
  if (CONT_MIN_ACTION > a) return CONT_MIN_ACTION;
  if (CONT_MAX_ACTION < a) return CONT_MAX_ACTION;
  *force32 = 1;
  return a;
}

// the argument of math.cos(3 * position): float32 once the state is
static double mcc_cos_arg(const mountain_car* s) {
  return s->f32 ? (double)(3.0f * (float)s->position) : 3 * s->position;
}

// velocity += force * power - 0.0025 * math.cos(3 * position), given that cosine
static double mcc_velocity(const mountain_car* s, double force, int force32, double cos_3p) {
  double c = 0.0025 * cos_3p;
  double term = force32 ? (double)((float)force * (float)CONT_POWER - (float)c) : force * CONT_POWER - c;
  if (s->f32) return (double)((float)s->velocity + (float)term);
  return s->velocity + term;
}

// the velocity clip, position update, position clip and the left wall; *p32 says whether the new
// position is still an np.float32 (it becomes a Python float when clamped)
static void mcc_move(const mountain_car* s, double velocity, double* pos_out, double* vel_out, int* p32) {
  int v32 = s->f32;
  if (velocity > cmp_bound(MAX_SPEED, v32)) velocity = MAX_SPEED, v32 = 0;
  if (velocity < cmp_bound(-MAX_SPEED, v32)) velocity = -MAX_SPEED, v32 = 0;
  *p32 = s->f32;
  double position = *p32 ? (double)((float)s->position + (float)velocity) : s->position + velocity;
  if (position > cmp_bound(MAX_POSITION, *p32)) position = MAX_POSITION, *p32 = 0;
  if (position < cmp_bound(MIN_POSITION, *p32)) position = MIN_POSITION, *p32 = 0;
  if (position == cmp_bound(MIN_POSITION, *p32) && velocity < 0) velocity = 0;
  *pos_out = position;
  *vel_out = velocity;
}

// the continuous step given cos_3p = math.cos(mcc_cos_arg(s))
static void mcc_advance(mountain_car* s, float act, double cos_3p, double* reward, int* terminated) {
  int force32, p32;
  double force = mcc_force(act, &force32);
  double position, velocity;
  mcc_move(s, mcc_velocity(s, force, force32, cos_3p), &position, &velocity, &p32);
  *terminated = position >= cmp_bound(CONT_GOAL_POSITION, p32) && velocity >= GOAL_VELOCITY;
  // reward = 0; +100.0 at the goal; -= math.pow(action[0], 2) * 0.1 (the unclamped action)
  double r = *terminated ? 100.0 : 0.0;
  *reward = r - ne__py_sq((double)act) * 0.1;
  // self.state = np.array([position, velocity], dtype=np.float32)
  s->position = ne__f32(position);
  s->velocity = ne__f32(velocity);
  s->f32 = 1;
}

static void mcc_step(const ne_env_spec* spec, void* impl, const float* act, double* reward, int* terminated) {
  (void)spec;
  mountain_car* s = impl;
  mcc_advance(s, act[0], cos(mcc_cos_arg(s)), reward, terminated);
}

static void mc_observe(const ne_env_spec* spec, const void* impl, float* obs) {
  (void)spec;
  const mountain_car* s = impl;
  obs[0] = (float)s->position;
  obs[1] = (float)s->velocity;
}

// ---- lanes: NE_ENV_LANES instances stepped together (ne_env_hooks' lanes) ----------------------
// The cosines of 8 lanes in one ne__sincos8 call (libm's bits), the rest of each step lane by lane
// through mc_advance / mcc_advance: the state's float32 tracking keeps it scalar.

enum { L = NE_ENV_LANES };
_Static_assert(L == 8, "ne__sincos8 takes 8 values");

typedef struct mc_lanes {
  mountain_car car[NE_ENV_LANES];
} mc_lanes;

static void mc_lanes_load(const ne_env_spec* spec, void* lanes, int k, const void* impl) {
  (void)spec;
  ((mc_lanes*)lanes)->car[k] = *(const mountain_car*)impl;
}

static void mc_lanes_store(const ne_env_spec* spec, const void* lanes, int k, void* impl) {
  (void)spec;
  *(mountain_car*)impl = ((const mc_lanes*)lanes)->car[k];
}

// The lanes in mask stepped as mc_step or mcc_step (continuous) steps each, with mc_observe's
// observation; the other lanes keep their state and observation.
static void mc_lanes_step_either(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                                 double* rewards, int* terminated, int continuous) {
  mc_lanes* l = lanes;
  double arg[L], cos_3p[L], unused[L];
  for (int k = 0; k < L; k++) {
    const mountain_car* car = &l->car[k];
    arg[k] = !((mask >> k) & 1u) ? 0.0 : continuous ? mcc_cos_arg(car) : 3 * car->position;
  }
  ne__sincos8(arg, unused, cos_3p);
  for (int k = 0; k < L; k++) {
    if (!((mask >> k) & 1u)) continue;
    mountain_car* car = &l->car[k];
    const float* act = acts + (size_t)k * (size_t)spec->act_dim;
    if (continuous) mcc_advance(car, act[0], cos_3p[k], &rewards[k], &terminated[k]);
    else mc_advance(car, (int)act[0], cos_3p[k], &rewards[k], &terminated[k]);
    obs[0 * L + k] = (float)car->position;
    obs[1 * L + k] = (float)car->velocity;
  }
}

static void mc_lanes_step(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                          double* rewards, int* terminated) {
  mc_lanes_step_either(spec, lanes, mask, acts, obs, rewards, terminated, 0);
}

static void mcc_lanes_step(const ne_env_spec* spec, void* lanes, unsigned mask, const float* acts, float* obs,
                           double* rewards, int* terminated) {
  mc_lanes_step_either(spec, lanes, mask, acts, obs, rewards, terminated, 1);
}

// the classic family's render and the lanes a lockstep keeps, for each env
static const ne_env_hooks mountain_car_hooks = {.render = ne__classic_render,
                                                .lanes_bytes = sizeof(mc_lanes),
                                                .lanes_load = mc_lanes_load,
                                                .lanes_store = mc_lanes_store,
                                                .lanes_step = mc_lanes_step};
static const ne_env_hooks mountain_car_continuous_hooks = {.render = ne__classic_render,
                                                           .lanes_bytes = sizeof(mc_lanes),
                                                           .lanes_load = mc_lanes_load,
                                                           .lanes_store = mc_lanes_store,
                                                           .lanes_step = mcc_lanes_step};

static int mc_set_state(const ne_env_spec* spec, void* impl, const double* v, int n, char* errstr) {
  int rc = ne__classic_check_len(spec, n, "position, velocity", errstr);
  if (rc) return rc;
  mountain_car* s = impl;
  s->position = v[0];
  s->velocity = v[1];
  s->f32 = 0;  // like assigning a float64 np.array to env.unwrapped.state
  return 0;
}

static void mc_get_state(const ne_env_spec* spec, const void* impl, double* v) {
  (void)spec;
  const mountain_car* s = impl;
  v[0] = s->position;
  v[1] = s->velocity;
}

static const ne_env_family mountain_car_family = {
    "classic", sizeof(mountain_car), mc_reset, mc_step, mc_observe, mc_set_state, mc_get_state, NULL,
};

static const ne_env_family mountain_car_continuous_family = {
    "classic", sizeof(mountain_car), mc_reset, mcc_step, mc_observe, mc_set_state, mc_get_state, NULL,
};

int ne__mountain_car_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  (void)errstr;
  ne__classic_spec_init(spec, id, &mountain_car_family, 2, 2, MAX_EPISODE_STEPS);
  spec->hooks = &mountain_car_hooks;
  ne__classic_discrete(spec, 3);
  spec->has_threshold = 1;
  spec->reward_threshold = REWARD_THRESHOLD;
  return 0;
}

int ne__mountain_car_continuous_make(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr) {
  (void)options;
  (void)errstr;
  ne__classic_spec_init(spec, id, &mountain_car_continuous_family, 2, 2, CONT_MAX_EPISODE_STEPS);
  spec->hooks = &mountain_car_continuous_hooks;
  ne__classic_box1(spec, (float)CONT_MIN_ACTION, (float)CONT_MAX_ACTION);
  spec->has_threshold = 1;
  spec->reward_threshold = CONT_REWARD_THRESHOLD;
  return 0;
}
