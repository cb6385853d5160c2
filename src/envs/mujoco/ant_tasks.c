// SPDX-License-Identifier: MIT
// AntVel-v5, AntDir-v5 and AntGoal-v5: the ant task families of MAML (Finn, Abbeel and Levine
// 2017, §5.3; cbfinn/maml_rl rllab/envs/mujoco/ant_env_rand.py, ant_env_rand_direc.py and
// ant_env_rand_goal.py, max_path_length 200 in maml_examples/cluster_maml_trpo_ant.py). AntVel and
// AntDir have MAML's task distributions, reward terms and termination; AntGoal has ProMP's
// (Rothfuss et al. 2019; jonasrothfuss/ProMP meta_policy_search/envs/mujoco_envs/ant_rand_goal.py).
// The physics, start state and observation are Ant-v5's (ant.c, Gymnasium's ant.xml), so returns
// are not rllab's. What differs from MAML's rllab envs:
//   model: Gymnasium's ant.xml: timestep 0.01 x frame_skip 5 (dt 0.05 s, so 200 steps are 10 s;
//     rllab's ant.xml: timestep 0.02, one frame per step, 200 steps are 4 s); motors of gear 150
//     with ctrlrange [-1, 1] (rllab: gear 1, ctrlrange [-150, 150]: the same torques, and rllab's
//     action / scaling is the action here); MuJoCo's default contact solver parameters (rllab's
//     geoms: solref 0.02 1, solimp 0.8 0.8 0.01); MuJoCo 3 instead of MuJoCo 1.31.
//   start state: Ant-v5's qpos0 (torso at z 0.75, every joint at 0) + U(-0.1, 0.1), qvel
//     0.1 N(0, 1); rllab starts from the file's init_qpos (z 0.55, legs bent) + 0.01 N(0, 1).
//   observation: Ant-v5's 105 values (qpos[2:], qvel, cfrc_ext[1:] clipped to [-1, 1]); rllab's
//     has 125 (qpos with x and y, qvel, all 14 bodies' clipped cfrc_ext, the torso's rotation
//     matrix and its subtree's centre of mass).
//   velocity: v_x = (x_after - x_before) / dt of the torso body, as Ant-v5; rllab's
//     get_body_comvel("torso")[0] is the instantaneous x velocity of the whole robot's centre of
//     mass (the torso's subtree) at the end of the step.
//
// Action space: Box(-1, 1, (8,)) float32, as Ant-v5.
// AntVel-v5 and AntDir-v5 (MAML's "goal velocity" and "forward/backward"), observation (105) as Ant-v5:
//   ctrl = 0.5 * 1e-2 * sum(action^2), contact = 0.5 * 1e-3 * sum(clip(cfrc_ext, -1, 1)^2) (all
//   bodies, the world included), survive = 0.05 on every step
//   AntVel reward: -|v_x - goal_velocity| + 1 - ctrl - contact + survive
//     task goal_velocity uniform in [0, 3)
//   AntDir reward: direction * v_x - ctrl - contact + survive
//     task u uniform in [0, 3), direction -1 (backward) if u < 1.5 else +1 (forward): 1/2 each
//   termination: qpos or qvel not finite, or the torso's z outside [0.2, 1.0]
// AntGoal-v5 observation (107): qpos (x and y included), qvel, clipped cfrc_ext[1:] (a goal cannot
//   be reached without x and y; ProMP observes the whole qpos too).
//   reward: -(|x - goal_x| + |y - goal_y|) of the torso - 0.1 * sum(action^2)
//           - 5e-4 * sum(clip(cfrc_ext, -1, 1)^2)   (no survive bonus, ProMP's "happy, not suicidal")
//   termination: never (ProMP)
//   task goal uniform in the disc of radius 3: angle uniform in [0, 2 pi), radius 3 * sqrt(U[0, 1)).
// Truncation: the TimeLimit at 200 (MAML's horizon).
#include "core/detmath.h"  // ne__sincos_turns: the goal's angle, the same bits everywhere
#include "envs/mujoco/mujoco_int.h"

#define FRAME_SKIP 5
#define HORIZON 200            // MAML's max_path_length
#define MAML_CTRL_COST 0.5e-2  // AntVel, AntDir: 0.5 * 1e-2 * sum((action / scaling)^2), scaling 1
#define MAML_SURVIVE 0.05      // AntVel, AntDir: on every step
#define VEL_BONUS 1.0          // AntVel: "make it happy, not suicidal"
#define TASK_HIGH 3.0          // AntVel, AntDir: the task's draw is uniform in [0, TASK_HIGH)
#define DIR_SPLIT 1.5          // AntDir: backward below, forward above
#define GOAL_CTRL_COST 0.1     // AntGoal: 0.1 * sum(action^2)
#define GOAL_RADIUS 3.0        // AntGoal: goals in the disc of this radius
#define Z_MIN 0.2              // AntVel, AntDir are healthy for torso z in [Z_MIN, Z_MAX]
#define Z_MAX 1.0

// sum(action^2) in float64, index order
static double sumsq(const float* act, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; i++) sum += (double)act[i] * (double)act[i];
  return sum;
}

// the torso (Ant-v5's main body), and the contact cost's buffer bound
static int ant_prepare(ne_mj_spec* s, char* errstr) {
  int rc = ne__mj_body(s, "torso", &s->body[0], errstr);
  return rc ? rc : ne__mj_ant_prepare(s, errstr);
}

// ---- AntVel-v5 and AntDir-v5: MAML's terms ----

// the torso's x velocity over the step, as Ant-v5's
static double torso_vx(const ne_mj_spec* s, const mjData* d, const double before[2]) {
  return (d->xpos[3 * s->body[0]] - before[0]) / s->dt;
}

// -ctrl - contact + survive, and MAML's termination (rllab's state is qpos, qvel; z is qpos[2])
static double maml_terms(const ne_mj_spec* s, const mjData* d, const float* act, int* terminated) {
  double z = d->qpos[2];
  *terminated = !(ne__mj_ant_finite(s->m, d) && Z_MIN <= z && z <= Z_MAX);
  return -MAML_CTRL_COST * sumsq(act, s->m->nu) - ne__mj_ant_contact_cost(s, d) + MAML_SURVIVE;
}

static void vel_sample(ne_rng* rng, double* task) { task[0] = ne_rng_range(rng, 0.0, TASK_HIGH); }

static double vel_reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act,
                         const double* task, int* terminated) {
  double forward = -fabs(torso_vx(s, d, before) - task[0]) + VEL_BONUS;
  return forward + maml_terms(s, d, act, terminated);
}

const ne_mj_task_family ne__mj_ant_vel = {
    .env.id = "AntVel-v5",
    .env.xml = "ant.xml",
    .env.frame_skip = FRAME_SKIP,
    .env.max_episode_steps = HORIZON,
    .env.obs_dim = ne__mj_ant_obs_dim,
    .env.prepare = ant_prepare,
    .env.reset = ne__mj_ant_reset,
    .env.observe = ne__mj_ant_observe,
    .env.position = ne__mj_ant_position,
    .env.position_dims = 2,
    .task_dim = 1,
    .task_names = "goal_velocity",
    .task_desc = "goal_velocity uniform in [0, 3) (MAML's ant goal velocities)",
    .sample_task = vel_sample,
    .task_reward = vel_reward,
};

// MAML draws the goal velocity's range and splits it at its middle
static void dir_sample(ne_rng* rng, double* task) {
  task[0] = ne_rng_range(rng, 0.0, TASK_HIGH) < DIR_SPLIT ? -1.0 : 1.0;
}

static double dir_reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act,
                         const double* task, int* terminated) {
  return task[0] * torso_vx(s, d, before) + maml_terms(s, d, act, terminated);
}

const ne_mj_task_family ne__mj_ant_dir = {
    .env.id = "AntDir-v5",
    .env.xml = "ant.xml",
    .env.frame_skip = FRAME_SKIP,
    .env.max_episode_steps = HORIZON,
    .env.obs_dim = ne__mj_ant_obs_dim,
    .env.prepare = ant_prepare,
    .env.reset = ne__mj_ant_reset,
    .env.observe = ne__mj_ant_observe,
    .env.position = ne__mj_ant_position,
    .env.position_dims = 2,
    .task_dim = 1,
    .task_names = "direction",
    .task_desc = "direction -1 (backward) or +1 (forward), each with probability 1/2",
    .sample_task = dir_sample,
    .task_reward = dir_reward,
};

// ---- AntGoal-v5 ----

// qpos whole, then Ant-v5's qvel and contact forces
static int goal_obs_dim(const mjModel* m) { return ne__mj_ant_obs_dim(m) + 2; }

static void goal_observe(const ne_mj_spec* s, const mjData* d, float* obs) {
  obs[0] = (float)d->qpos[0];
  obs[1] = (float)d->qpos[1];
  ne__mj_ant_observe(s, d, obs + 2);
}

// ProMP draws the angle first, then the radius
static void goal_sample(ne_rng* rng, double* task) {
  double turns = ne_rng_uniform(rng);  // angle / (2 pi)
  double r = GOAL_RADIUS * sqrt(ne_rng_uniform(rng));
  double sn, cs;
  ne__sincos_turns(turns, &sn, &cs);
  task[0] = r * cs;
  task[1] = r * sn;
}

static double goal_reward(const ne_mj_spec* s, const mjData* d, const double before[2], const float* act,
                          const double* task, int* terminated) {
  (void)before;
  const double* torso = &d->xpos[3 * s->body[0]];
  double dist = fabs(torso[0] - task[0]) + fabs(torso[1] - task[1]);
  *terminated = 0;
  return -dist - GOAL_CTRL_COST * sumsq(act, s->m->nu) - ne__mj_ant_contact_cost(s, d);
}

const ne_mj_task_family ne__mj_ant_goal = {
    .env.id = "AntGoal-v5",
    .env.xml = "ant.xml",
    .env.frame_skip = FRAME_SKIP,
    .env.max_episode_steps = HORIZON,
    .env.obs_dim = goal_obs_dim,
    .env.prepare = ant_prepare,
    .env.reset = ne__mj_ant_reset,
    .env.observe = goal_observe,
    .env.position = ne__mj_ant_position,
    .env.position_dims = 2,
    .task_dim = 2,
    .task_names = "goal_x,goal_y",
    .task_desc = "goal uniform in the disc of radius 3 around the start (ProMP's AntRandGoal)",
    .sample_task = goal_sample,
    .task_reward = goal_reward,
};
