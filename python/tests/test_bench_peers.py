# SPDX-License-Identifier: MIT
# bench/peers/bench_peers.py (neuroevo vs evosax / pycma) keeps its promise of the same task on both sides:
# the peers' NumPy policy has exactly the parameters of the policy neuroevo builds from the same
# overrides, and with neuroevo's parameters its forward pass earns what neuroevo's C forward earns;
# the script runs without the peers installed (the test environment never has JAX) and says so.
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import bridge_envs  # noqa: F401  (registers FixedCartPole-v1 and FixedPendulum-v1)
import neuroevo

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "peers")
sys.path.insert(0, BENCH)
import bench_peers  # noqa: E402


def peer_return(env_id, hidden, theta):
    """One episode of the peer's policy (NumPy forward) on theta in Gymnasium's env_id."""
    env = gym.make(env_id)
    policy = bench_peers.NumpyPolicy(env, hidden)
    layers, total, done = policy.layers(theta), 0.0, False
    obs, _ = env.reset(seed=0)
    while not done:
        obs, r, term, trunc, _ = env.step(policy.act(layers, obs))
        total += float(r)
        done = term or trunc
    return total


@pytest.mark.parametrize("task", bench_peers.TASKS, ids=lambda t: f"{t.algorithm}-{t.env_id}")
def test_peer_policy_is_the_policy_neuroevo_trains(tmp_path, task):
    overrides = {**task.overrides(0), "run.generations": 3, "run.target": "none"}
    run = neuroevo.run(bench_peers.config_for(task), overrides, runs=tmp_path, threads=2)
    best = neuroevo.Params.load(os.path.join(run.dir, "best.params"))
    policy = bench_peers.NumpyPolicy(gym.make(task.env_id), task.hidden)
    assert policy.n_params == best.params.size
    # same layout, activations and head: on an env whose episodes start in one fixed state (the
    # rollout then depends on the policy alone), neuroevo's C forward and the peer's NumPy forward
    # earn the same return with neuroevo's parameters (float32 rounding differs: a tolerance)
    fixed = "bridge_envs:Fixed" + task.env_id
    header = {**best.header, "env.id": "gym:" + fixed}
    ours = neuroevo.evaluate_policy(neuroevo.Params(best.params, header), episodes=1)
    theirs = peer_return(fixed.split(":")[1], task.hidden, best.params)
    assert theirs == pytest.approx(ours, rel=1e-3, abs=1e-3)
    # and a broken forward would not: the same check with the output layer negated fails
    flipped = best.params.copy()
    last = policy.sizes[-1][0] * policy.sizes[-1][1] + policy.sizes[-1][1]
    flipped[-last:] *= -1
    assert peer_return(fixed.split(":")[1], task.hidden, flipped) != pytest.approx(ours, rel=1e-3, abs=1e-3)


def test_missing_peer_is_reported_not_fatal():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, os.path.join(BENCH, "bench_peers.py"), "--tasks", "1", "--budget", "20"],
                         env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    row = [line for line in out.stdout.splitlines() if line.startswith("ES CartPole-v1")]
    assert row, out.stdout
    try:
        import evosax  # noqa: F401
        assert "evosax" in row[0] and "skipped" not in row[0]
    except ImportError:
        assert "skipped: " in row[0] and "install-deps --bench" in row[0]
