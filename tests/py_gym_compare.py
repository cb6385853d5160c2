# SPDX-License-Identifier: MIT
# The classic-control envs against the real Gymnasium (written against 1.4.0, NumPy 2.x): for each
# env, 30 trajectories from random states (inside, slightly outside and at the edges of the usual
# ranges) with random or controller-chosen actions run through `neuroevo trace` and through
# gymnasium.make(id) after reset() with env.unwrapped.state set; obs, reward and flags must be equal
# at every step. Run by ctest with NEUROEVO_BIN (the CLI) and NEUROEVO_SOURCE_DIR set.
#
# Tolerance: none. Observations are compared as float32 and rewards as float64 bit for bit, since
# the C code repeats Gymnasium's expressions operation for operation (libm pow for `**2`, NumPy 2's
# float32 promotion in MountainCarContinuous and Pendulum) and NumPy's float64 sin/cos are libm's on
# this platform. One documented difference: on a step that both terminates and hits the TimeLimit,
# Gymnasium's TimeLimit reports truncated=True as well; neuroevo's contract (env.h) reports
# truncated only when not terminated, so the expected flag is `truncated and not terminated`.
import os
import subprocess
import warnings

import gymnasium as gym  # a missing Gymnasium is an error, never a skip
import numpy as np
import pytest

BIN = os.environ.get("NEUROEVO_BIN")
N_TRAJ = int(os.environ.get("NEUROEVO_GYM_TRAJ", "30"))  # per env; raise it for a longer soak
ENV_IDS = ["CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"]
# where a terminated episode is reachable (Pendulum never terminates)
TERMINATES = {"CartPole-v1": True, "Acrobot-v1": True, "MountainCar-v0": True,
              "MountainCarContinuous-v0": True, "Pendulum-v1": False}
DISCRETE = {"CartPole-v1", "Acrobot-v1", "MountainCar-v0"}
SUMMARY = {}  # env id -> (trajectories, steps compared, max |obs diff|, max |reward diff|)


def require_bin():
    if not BIN or not os.access(BIN, os.X_OK):
        pytest.fail("NEUROEVO_BIN must name the built neuroevo CLI (ctest sets it)")
    # the C code reproduces these versions' arithmetic: Gymnasium 1.x classic_control and NumPy 2's
    # promotion of float32 scalars with Python floats (NEP 50); other versions compute differently
    assert gym.__version__.split(".")[0] == "1", "Gymnasium 1.x expected, found " + gym.__version__
    assert int(np.__version__.split(".")[0]) >= 2, "NumPy >= 2 expected, found " + np.__version__


# ---- the two sides -------------------------------------------------------------------------------

def fmt_action(env_id, a):
    # %.9g round-trips a float32 through strtof exactly
    return "%d" % a if env_id in DISCRETE else "%.9g" % float(np.float32(a))


def run_trace(env_id, state, actions, tmp_path, k):
    path = tmp_path / ("%s-%d.actions" % (env_id, k))
    path.write_text("\n".join(fmt_action(env_id, a) for a in actions) + "\n")
    cmd = [BIN, "trace", env_id, "--state", ",".join(repr(float(v)) for v in state), "--actions-file", str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, "%s failed (%d): %s" % (" ".join(cmd), out.returncode, out.stderr)
    lines = out.stdout.strip().split("\n")
    header = lines[0].split(",")
    assert header[0] == "step" and header[-3:] == ["reward", "terminated", "truncated"], header
    rows = []
    for i, line in enumerate(lines[1:]):
        f = line.split(",")
        assert int(f[0]) == i, line
        obs = np.array([float(x) for x in f[1:-3]], dtype=np.float64)
        assert np.array_equal(obs.astype(np.float32).astype(np.float64), obs), "obs not float32: " + line
        rows.append((obs.astype(np.float32), float(f[-3]), int(f[-2]), int(f[-1])))
    return rows


def initial_obs(env, env_id):
    u = env.unwrapped
    if env_id == "Acrobot-v1":
        return u._get_ob()
    if env_id == "Pendulum-v1":
        return u._get_obs()
    return np.array(u.state, dtype=np.float32)


def gym_action(env_id, a):
    return int(a) if env_id in DISCRETE else np.array([a], dtype=np.float32)


def set_gym_state(env, state):
    # reset() zeroes the TimeLimit counter (and CartPole's steps_beyond_terminated); then the state
    env.reset(seed=0)
    env.unwrapped.state = np.array(state, dtype=np.float64)


def run_gym(env, env_id, state, actions):
    set_gym_state(env, state)
    rows = [(initial_obs(env, env_id), 0.0, 0, 0)]
    for a in actions:
        obs, reward, term, trunc, _ = env.step(gym_action(env_id, a))
        rows.append((np.asarray(obs, dtype=np.float32).copy(), float(reward), int(term), int(trunc and not term)))
        if term or trunc:
            break
    return rows


# ---- trajectories ----------------------------------------------------------------------------------

def controller_actions(env, env_id, state, policy, n, rng):
    """Actions a controller picks in Gymnasium from state, padded with random ones to n."""
    set_gym_state(env, state)
    obs, acts = initial_obs(env, env_id), []
    while len(acts) < n:
        a = policy(obs)
        acts.append(a)
        obs, _, term, trunc, _ = env.step(gym_action(env_id, a))
        if term or trunc:
            break
    return acts + list(random_actions(env_id, n - len(acts), rng))


def random_actions(env_id, n, rng):
    if env_id in DISCRETE:
        return rng.integers(0, {"CartPole-v1": 2}.get(env_id, 3), size=n)
    hi = 2.0 if env_id == "Pendulum-v1" else 1.0
    a = rng.uniform(-hi, hi, size=n).astype(np.float32)
    a[rng.random(n) < 0.1] = hi  # the exact bounds are inside the space
    a[rng.random(n) < 0.1] = -hi
    return a


def cartpole_cases(env, rng):
    cases = []
    for k in range(N_TRAJ):
        kind = k % 4
        if kind == 0:  # the reset range and a little beyond
            s = rng.uniform(-0.1, 0.1, 4)
        elif kind == 1:  # next to the termination thresholds (and some already past them)
            s = np.array([rng.choice([-1, 1]) * rng.uniform(2.3, 2.45), rng.uniform(-1, 1),
                          rng.choice([-1, 1]) * rng.uniform(0.17, 0.215), rng.uniform(-1, 1)])
        elif kind == 2:  # far outside the usual states
            s = rng.uniform(-3, 3, 4) * np.array([1.0, 3.0, 0.3, 3.0])
        if kind == 3:  # a balancing controller, to reach the TimeLimit
            s = rng.uniform(-0.05, 0.05, 4)
            acts = controller_actions(env, "CartPole-v1", s,
                                      lambda o: int(0.5 * o[0] + 1.0 * o[1] + 15 * o[2] + 2 * o[3] > 0), 520, rng)
        else:
            acts = random_actions("CartPole-v1", 300, rng)
        cases.append((s, acts))
    return cases


def acrobot_cases(env, rng):
    cases = []
    vmax = np.array([4 * np.pi, 9 * np.pi])
    for k in range(N_TRAJ):
        kind = k % 4
        if kind == 0:  # anywhere, angles past +-pi, velocities past their bounds
            s = np.concatenate([rng.uniform(-1.2 * np.pi, 1.2 * np.pi, 2), rng.uniform(-1.2, 1.2, 2) * vmax])
            acts = random_actions("Acrobot-v1", 520, rng)
        elif kind == 1:  # energy pumping, to terminate
            s = rng.uniform(-0.1, 0.1, 4)
            acts = controller_actions(env, "Acrobot-v1", s, lambda o: 2 if o[5] > 0 else 0, 520, rng)
        elif kind == 2:  # hanging with no or random torque, to reach the TimeLimit
            s = rng.uniform(-0.1, 0.1, 4)
            acts = [1] * 520 if k % 8 == 2 else list(random_actions("Acrobot-v1", 520, rng))
        else:  # near the goal height and near the +-pi wrap
            s = np.array([rng.choice([-1, 1]) * rng.uniform(2.2, np.pi), rng.uniform(-0.5, 0.5),
                          rng.uniform(-3, 3), rng.uniform(-5, 5)])
            acts = random_actions("Acrobot-v1", 520, rng)
        cases.append((s, acts))
    return cases


def mountain_car_cases(env, rng, env_id):
    cases = []
    push = (lambda o: 2 if o[1] >= 0 else 0) if env_id in DISCRETE else \
        (lambda o: np.float32(1.0) if o[1] >= 0 else np.float32(-1.0))
    for k in range(N_TRAJ):
        kind = k % 4
        if kind == 0:  # anywhere, slightly past the position and speed bounds
            s = np.array([rng.uniform(-1.25, 0.65), rng.uniform(-0.08, 0.08)])
            acts = random_actions(env_id, 1020, rng)
        elif kind == 1:  # at the left wall moving left
            s = np.array([rng.uniform(-1.2, -1.12), rng.uniform(-0.08, -0.02)])
            acts = random_actions(env_id, 1020, rng)
            acts[:10] = 0 if env_id in DISCRETE else -1.0
        elif kind == 2:  # pushing along the velocity, to reach the goal
            s = np.array([rng.uniform(-0.6, -0.4), 0.0])
            acts = controller_actions(env, env_id, s, push, 1020, rng)
        else:  # near the goal, both directions
            s = np.array([rng.uniform(0.4, 0.55), rng.uniform(-0.03, 0.03)])
            acts = random_actions(env_id, 1020, rng)
        cases.append((s, acts))
    return cases


def pendulum_cases(env, rng):
    cases = []
    for k in range(N_TRAJ):
        if k < 4:  # the angle_normalize edges
            s = np.array([[np.pi, -np.pi, 3 * np.pi, -2 * np.pi][k], rng.uniform(-1, 1)])
        else:  # angles well past +-pi (the wrap matters), speeds past the clip
            s = np.array([rng.uniform(-3 * np.pi, 3 * np.pi), rng.uniform(-10, 10)])
        cases.append((s, random_actions("Pendulum-v1", 210, rng)))
    return cases


def make_cases(env, env_id, rng):
    if env_id == "CartPole-v1":
        return cartpole_cases(env, rng)
    if env_id == "Acrobot-v1":
        return acrobot_cases(env, rng)
    if env_id == "Pendulum-v1":
        return pendulum_cases(env, rng)
    return mountain_car_cases(env, rng, env_id)


# ---- the tests ---------------------------------------------------------------------------------------

def compare(env_id, k, state, ours, theirs):
    """Asserts the two traces are identical; returns (steps, max obs diff, max reward diff)."""
    where = "%s trajectory %d from state %r" % (env_id, k, list(state))
    assert len(ours) == len(theirs), "%s: neuroevo stopped after %d steps, Gymnasium after %d" % (
        where, len(ours) - 1, len(theirs) - 1)
    dobs = drew = 0.0
    for t, (a, b) in enumerate(zip(ours, theirs)):
        dobs = max(dobs, float(np.max(np.abs(a[0].astype(np.float64) - b[0].astype(np.float64)))))
        drew = max(drew, abs(a[1] - b[1]))
        assert np.array_equal(a[0], b[0]), "%s, step %d: obs %r vs Gymnasium %r" % (
            where, t, a[0].tolist(), b[0].tolist())
        assert a[1] == b[1], "%s, step %d: reward %.17g vs Gymnasium %.17g" % (where, t, a[1], b[1])
        assert a[2:] == b[2:], "%s, step %d: (terminated, truncated) %r vs Gymnasium %r" % (where, t, a[2:], b[2:])
    return len(ours) - 1, dobs, drew


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_trajectories_match_gymnasium(env_id, tmp_path):
    require_bin()
    warnings.simplefilter("ignore")  # out-of-bounds observations are intended here
    env = gym.make(env_id)
    rng = np.random.default_rng(20240611 + ENV_IDS.index(env_id))
    n_term = n_trunc = steps = 0
    max_dobs = max_drew = 0.0
    for k, (state, actions) in enumerate(make_cases(env, env_id, rng)):
        ours = run_trace(env_id, state, actions, tmp_path, k)
        theirs = run_gym(env, env_id, state, actions)
        n, dobs, drew = compare(env_id, k, state, ours, theirs)
        steps += n
        max_dobs, max_drew = max(max_dobs, dobs), max(max_drew, drew)
        n_term += ours[-1][2]
        n_trunc += ours[-1][3]
    SUMMARY[env_id] = (N_TRAJ, steps, max_dobs, max_drew)
    print("%s: %d trajectories, %d steps, %d terminated, %d truncated, max |obs diff| %g, max |reward diff| %g"
          % (env_id, N_TRAJ, steps, n_term, n_trunc, max_dobs, max_drew))
    # the comparison cannot pass vacuously: both episode ends were exercised where reachable
    assert n_trunc > 0, "%s: no trajectory reached the TimeLimit" % env_id
    if TERMINATES[env_id]:
        assert n_term > 0, "%s: no trajectory terminated" % env_id


def test_envs_table_matches_gymnasium_specs():
    """`neuroevo envs` shows Gymnasium's spaces, TimeLimits and reward thresholds."""
    require_bin()
    for env_id in ENV_IDS:
        # filtered by id: only this env's spec is made
        out = subprocess.run([BIN, "envs", env_id], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        rows = {line.split()[0]: line for line in out.stdout.splitlines() if line and not line.startswith(" ")}
        spec = gym.spec(env_id)
        env = gym.make(env_id)
        line = rows[env_id]
        assert "Box(%d,)" % env.observation_space.shape[0] in line, line
        space = env.action_space
        if env_id in DISCRETE:
            assert "Discrete(%d)" % space.n in line, line
        else:
            assert "Box(%r, %r, (1,))" % (float(space.low[0]), float(space.high[0])) in line, line
        fields = line.split()
        assert int(fields[-2]) == spec.max_episode_steps, line
        if spec.reward_threshold is None:
            assert fields[-1] == "-", line
        else:
            assert float(fields[-1]) == spec.reward_threshold, line
