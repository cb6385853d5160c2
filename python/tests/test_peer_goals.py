# SPDX-License-Identifier: MIT
# bench/peers/peer_goals.py (neuroevo's speed against its peers) keeps its promises: the rollout row's two sides run the
# same policy on the same float32 weights (neuroevo's C forward and the peer's NumPy forward earn the
# same return on an env whose episodes start in one fixed state), the ES rows give neuroevo the
# settings the peer gets, and without JAX the script reports the peers' rows as skipped instead of
# failing (the test environment never has JAX).
import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import bridge_envs  # noqa: F401  (registers FixedCartPole-v1)
import neuroevo

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "peers")
sys.path.insert(0, BENCH)
import peer_goals  # noqa: E402


def numpy_return(env_id, theta):
    env = gym.make(env_id)
    layers = peer_goals.numpy_layers(theta)
    obs, _ = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        obs, r, term, trunc, _ = env.step(peer_goals.numpy_act(layers, obs))
        total += float(r)
        done = term or trunc
    return total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rollout_row_runs_the_same_policy_on_both_sides(seed):
    theta, fields = peer_goals.rollout_weights(seed)
    assert theta.dtype == np.float32 and theta.size == 4 * 64 + 64 + 64 * 64 + 64 + 64 * 2 + 2
    header = {**fields, "env.id": "gym:bridge_envs:FixedCartPole-v1"}
    ours = neuroevo.evaluate_policy(neuroevo.Params(theta, header), episodes=1)
    theirs = numpy_return("FixedCartPole-v1", theta)
    assert theirs == pytest.approx(ours, abs=1e-6)
    # a broken layout would not agree: the output layer's columns swapped
    swapped = theta.copy()
    w3 = swapped[-(64 * 2 + 2):-2].reshape(64, 2)
    swapped[-(64 * 2 + 2):-2] = w3[:, ::-1].ravel()
    assert numpy_return("FixedCartPole-v1", swapped) != pytest.approx(ours, abs=1e-6)


def test_ours_side_reports_cpu_and_work():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, os.path.join(BENCH, "peer_goals.py"), "--side", "ours", "--row", "rollout",
                          "--seed", "0"], env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["cpu"] > 0 and got["steps"] > 20000


def test_missing_peers_are_skipped_not_fatal():
    pytest.importorskip("numpy")
    try:
        import jax  # noqa: F401
        pytest.skip("JAX is installed here; this checks the test environment's case")
    except ImportError:
        pass
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, os.path.join(BENCH, "peer_goals.py"), "--rows", "asktell", "--pairs", "1"],
                         env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "skipped" in out.stdout and "not installed" in out.stdout
