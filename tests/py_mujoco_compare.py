# SPDX-License-Identifier: MIT
# The MuJoCo envs (src/envs/mujoco) against Gymnasium's v5 MuJoCo envs. Both sides step the same
# MuJoCo binary: the C code links the libmujoco.so inside the pip `mujoco` package that Gymnasium's
# Python envs import (cmake/physics.cmake). For every env, trajectories from set states
# (`neuroevo trace ENV --state qpos...,qvel... --actions-file F` against env.reset() then
# env.unwrapped.set_state(qpos, qvel)) with random float32 actions inside the action space; every
# step's observation, reward, terminated and truncated must agree within 1e-6, over at least
# MIN_STEPS steps per env; the envs that random actions do not topple (HalfCheetah, Swimmer,
# Reacher, ...) also run one trajectory of >= 100 steps (Reacher: to its TimeLimit of 50), while
# the balancing ones and Humanoid fall within tens of steps, so their steps come from many
# episodes, each ending in a compared termination.
# Run by ctest with NEUROEVO_BIN and NEUROEVO_SOURCE_DIR set; prints the max differences per env.
#
# Observations are float32 in neuroevo and float64 in Gymnasium: the Gymnasium side is rounded to
# float32 before comparing (that rounding is the only expected difference, and it is the same on
# both sides, so the differences seen are 0). Truncation: Gymnasium's TimeLimit may report
# truncated=True on a terminating step; neuroevo reports truncated only when not terminated (env.h).
import os
import subprocess
import warnings

import gymnasium as gym  # a missing Gymnasium or MuJoCo is an error, never a skip
import mujoco  # noqa: F401  (the failure message names the missing package)
import numpy as np
import pytest

BIN = os.environ.get("NEUROEVO_BIN")
TOL = 1e-6
MIN_STEPS = 200  # compared steps per env, over all its trajectories
LONG = 100       # the length one trajectory must reach where the env allows it
# the envs whose random-action episodes terminate early: no LONG trajectory required
FALLS = {"Humanoid-v5", "InvertedPendulum-v5", "InvertedDoublePendulum-v5"}
ENV_IDS = ["Hopper-v5", "HalfCheetah-v5", "Walker2d-v5", "Ant-v5", "Humanoid-v5", "Swimmer-v5",
           "InvertedPendulum-v5", "InvertedDoublePendulum-v5", "Reacher-v5"]
SUMMARY = {}  # env id -> (trajectories, steps, terminated seen, max |obs diff|, max |reward diff|)


def require_bin():
    if not BIN or not os.access(BIN, os.X_OK):
        pytest.fail("NEUROEVO_BIN must name the built neuroevo CLI (ctest sets it)")


def run_trace(env_id, qpos, qvel, actions, path):
    path.write_text("\n".join(",".join("%.9g" % float(x) for x in a) for a in actions) + "\n")
    state = ",".join(repr(float(v)) for v in np.concatenate([qpos, qvel]))
    cmd = [BIN, "trace", env_id, "--state", state, "--actions-file", str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, "%s failed (%d): %s" % (env_id, out.returncode, out.stderr)
    rows = []
    for i, line in enumerate(out.stdout.strip().split("\n")[1:]):
        f = line.split(",")
        assert int(f[0]) == i, line
        rows.append((np.array([float(x) for x in f[1:-3]]), float(f[-3]), int(f[-2]), int(f[-1])))
    return rows


def run_gym(env, qpos, qvel, actions):
    env.reset(seed=0)  # zeroes the TimeLimit counter and the data, as neuroevo's set_state does
    u = env.unwrapped
    u.set_state(qpos, qvel)
    rows = [(np.asarray(u._get_obs(), dtype=np.float64), 0.0, 0, 0)]
    for a in actions:
        obs, reward, term, trunc, _ = env.step(a)
        rows.append((np.asarray(obs, dtype=np.float64), float(reward), int(term), int(trunc and not term)))
        if term or trunc:
            break
    return rows


def start_states(env, rng, k):
    """Near the reset distribution, a wider spread, and (every 4th) a disturbed one."""
    u = env.unwrapped
    scale = [0.01, 0.1, 0.3, 0.05][k % 4]
    qpos = u.init_qpos + rng.uniform(-scale, scale, u.model.nq)
    qvel = u.init_qvel + rng.normal(0.0, 3 * scale, u.model.nv)
    if u.spec.id == "Reacher-v5":  # a reachable target, as reset_model draws it
        qpos[-2:] = rng.uniform(-0.2, 0.2, 2)
        qvel[-2:] = 0
    return qpos, qvel


def random_actions(env, rng, n, gain):
    sp = env.action_space
    a = (gain * rng.uniform(sp.low, sp.high, size=(n,) + sp.shape)).astype(np.float32)
    edge = rng.random(n) < 0.05  # the exact bounds are inside the space
    a[edge] = sp.high
    return np.clip(a, sp.low, sp.high)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_matches_gymnasium(env_id, tmp_path, monkeypatch):
    require_bin()
    monkeypatch.chdir(tmp_path)  # MuJoCo's Python log handler writes MUJOCO_LOG.TXT into the cwd
    warnings.simplefilter("ignore")
    env = gym.make(env_id)
    rng = np.random.default_rng(sum(map(ord, env_id)))  # fixed per env (str hash is salted)
    steps = trajs = terms = 0
    longest = 0
    max_obs = max_rew = 0.0
    k = 0
    long_needed = 0 if env_id in FALLS else min(LONG, env.spec.max_episode_steps)
    while (steps < MIN_STEPS or longest < long_needed) and k < 40:
        qpos, qvel = start_states(env, rng, k)
        gain = [1.0, 0.3, 0.05, 1.0][k % 4]  # small actions keep the walkers up for longer
        acts = random_actions(env, rng, 160, gain)
        ours = run_trace(env_id, qpos, qvel, acts, tmp_path / ("%d.actions" % k))
        ref = run_gym(env, qpos, qvel, acts)
        assert len(ours) == len(ref), "%s traj %d: %d rows vs Gymnasium's %d" % (env_id, k, len(ours), len(ref))
        for i, (a, b) in enumerate(zip(ours, ref)):
            where = "%s traj %d step %d" % (env_id, k, i)
            d_obs = float(np.max(np.abs(a[0] - b[0].astype(np.float32).astype(np.float64))))
            d_rew = abs(a[1] - b[1])
            assert a[0].shape == b[0].shape, where
            assert d_obs <= TOL, "%s: obs differ by %g\n ours %s\n gym  %s" % (where, d_obs, a[0], b[0])
            assert d_rew <= TOL, "%s: reward %r vs Gymnasium's %r" % (where, a[1], b[1])
            assert (a[2], a[3]) == (b[2], b[3]), "%s: (terminated, truncated) %s vs %s" % (where, a[2:], b[2:])
            max_obs, max_rew = max(max_obs, d_obs), max(max_rew, d_rew)
        steps += len(ours) - 1
        longest = max(longest, len(ours) - 1)
        terms += ours[-1][2]
        trajs += 1
        k += 1
    env.close()
    assert steps >= MIN_STEPS and longest >= long_needed, (env_id, steps, longest)
    SUMMARY[env_id] = (trajs, steps, longest, terms, max_obs, max_rew)


def test_zz_summary(capsys):
    # prints the per-env table (pytest -s, or ctest --verbose, shows it)
    with capsys.disabled():
        print("\nenv                          trajs  steps  longest  terminated  max|d obs|  max|d reward|")
        for env_id, (t, s, l, term, do, dr) in SUMMARY.items():
            print("%-28s %5d  %5d  %7d  %10d  %10.3g  %13.3g" % (env_id, t, s, l, term, do, dr))
