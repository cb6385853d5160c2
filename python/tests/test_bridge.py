# SPDX-License-Identifier: MIT
# The Gymnasium bridge (env.id = gym:ID): a GA run on Gymnasium's own CartPole-v1 solves it; a bridged
# env steps exactly like the Gymnasium env it wraps; failures are clean errors naming the env (an
# unknown id, an unsupported space, an exception inside step, a server process that dies); a server
# that dies once is restarted and the evaluation retried; no server outlives its env; the spinning
# handshake (NEUROEVO_GYM_SPIN_US) gives the same results as sleeping on the socket.
import math
import os

import gymnasium as gym
import numpy as np
import pytest

import neuroevo
from conftest import child_pids


def no_servers_left():
    return [p for p in child_pids()]


def test_ga_solves_gymnasium_cartpole_through_the_bridge(tmp_path):
    run = neuroevo.run("cartpole-ga", runs=tmp_path, threads=2, env__id="gym:CartPole-v1")
    m = run.metrics
    assert m.elite_mean[-1] >= 475.0 and run.best_score >= 475.0
    assert run.best.env_id == "gym:CartPole-v1"
    assert no_servers_left() == []


def test_bridged_pendulum_steps_like_gymnasium():
    ours = neuroevo.make("gym:Pendulum-v1")
    theirs = gym.make("Pendulum-v1").unwrapped
    assert ours.action_space == theirs.action_space
    assert ours.max_episode_steps == 200
    obs, _ = ours.reset(seed=4)
    rng = np.random.default_rng(1)
    for t in range(50):
        # put Gymnasium's env in the bridged env's state, then step both with the same action
        theirs.state = np.array([math.atan2(obs[1], obs[0]), obs[2]], dtype=np.float64)
        a = rng.uniform(-2.5, 2.5, size=1).astype(np.float32)  # out of bounds too: both clip
        o1, r1, term1, trunc1, _ = ours.step(a)
        o2, r2, term2, trunc2, _ = theirs.step(np.clip(a, -2, 2))
        np.testing.assert_allclose(o1, o2, rtol=1e-5, atol=1e-5)
        assert r1 == pytest.approx(r2, rel=1e-5, abs=1e-5) and (term1, trunc1) == (term2, trunc2)
        obs = o1
    ours.close()
    assert no_servers_left() == []


def test_bridge_is_deterministic_for_a_seed():
    a, b = neuroevo.make("gym:CartPole-v1"), neuroevo.make("gym:CartPole-v1")
    for seed in (0, 1, 2**40):
        np.testing.assert_array_equal(a.reset(seed=seed)[0], b.reset(seed=seed)[0])
        for t in range(30):
            sa, sb = a.step(t % 2), b.step(t % 2)
            np.testing.assert_array_equal(sa[0], sb[0])
            assert sa[1:4] == sb[1:4]
            if sa[2] or sa[3]:
                break
    a.close()
    b.close()


def cartpole_trajectory(seed, steps):
    env = neuroevo.make("gym:CartPole-v1")
    out = [env.reset(seed=seed)[0]]
    for t in range(steps):
        obs, reward, term, trunc, _ = env.step((t // 3) % 2)
        out += [obs, np.array([reward, term, trunc], dtype=np.float32)]
        if term or trunc:
            out.append(env.reset(seed=seed + t)[0])
    env.close()
    return np.concatenate(out)


@pytest.mark.parametrize("spin_us", ["1", "10000"])
def test_spinning_handshake_matches_the_sleeping_one(monkeypatch, spin_us):
    # NEUROEVO_GYM_SPIN_US: 0 always sleeps on the socket; 1 spins, misses, then sleeps; 10000 (the
    # most taken, 10 ms) catches nearly every reply and request by spinning (doorbells drained in batches)
    monkeypatch.setenv("NEUROEVO_GYM_SPIN_US", "0")
    sleeping = cartpole_trajectory(7, 300)
    monkeypatch.setenv("NEUROEVO_GYM_SPIN_US", spin_us)
    np.testing.assert_array_equal(cartpole_trajectory(7, 300), sleeping)
    assert no_servers_left() == []


def test_unknown_id_names_the_env():
    with pytest.raises(neuroevo.Error, match=r"gym:NoSuchEnv-v0: .*NoSuchEnv"):
        neuroevo.make("gym:NoSuchEnv-v0")
    with pytest.raises(neuroevo.Error, match=r"gym:no_such_module:X-v0: .*no_such_module"):
        neuroevo.make("gym:no_such_module:X-v0")
    with pytest.raises(neuroevo.Error, match="name a Gymnasium env"):
        neuroevo.make("gym:")


def test_unsupported_space_names_the_env():
    with pytest.raises(neuroevo.Error, match=r"gym:bridge_envs:DictObs-v0: observation space Dict.*not supported"):
        neuroevo.make("gym:bridge_envs:DictObs-v0")


def test_exception_inside_the_env_is_reported(tmp_path):
    env = neuroevo.make("gym:bridge_envs:Raises-v0")
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    with pytest.raises(neuroevo.Error, match=r"gym:bridge_envs:Raises-v0: step raised RuntimeError: boom at step 3"):
        env.step(0)
    env.reset(seed=0)  # a fresh server
    assert env.step(0)[0].tolist() == [1.0, 19.0]
    env.close()
    # in a run: retried once, then the run stops with the env's message
    with pytest.raises(neuroevo.Error, match=r"Raises-v0: step raised RuntimeError: boom at step 3 \(at bridge_envs.py"):
        neuroevo.run(None, runs=tmp_path, threads=2, env__id="gym:bridge_envs:Raises-v0", ga__population=8,
                     ga__truncation=2, ga__elite_candidates=2, policy__hidden=4)
    assert no_servers_left() == []


@pytest.mark.parametrize("spin_us", ["0", "10000"])
def test_dead_server_is_reported(tmp_path, monkeypatch, spin_us):
    # also while the C side spins (10 ms) for the reply of a server that is already gone
    monkeypatch.setenv("NEUROEVO_GYM_SPIN_US", spin_us)
    with pytest.raises(neuroevo.Error, match=r"Exits-v0: the env server exited with status 7 during step"):
        neuroevo.run(None, runs=tmp_path, threads=1, env__id="gym:bridge_envs:Exits-v0", ga__population=4,
                     ga__truncation=2, ga__elite_candidates=2, policy__hidden=4)
    assert no_servers_left() == []


def test_server_that_dies_once_is_restarted_and_retried(tmp_path, monkeypatch):
    monkeypatch.setenv("BRIDGE_FLAKY_MARKER", str(tmp_path / "died-once"))
    run = neuroevo.run(None, runs=tmp_path, threads=2, env__id="gym:bridge_envs:Flaky-v0", ga__population=8,
                       ga__truncation=2, ga__elite_candidates=2, ga__elite_episodes=2, policy__hidden=4, run__generations=2,
                       run__target="none")
    assert os.path.exists(tmp_path / "died-once")
    assert run.generations == 2 and np.all(run.metrics.best == 20.0)
    assert no_servers_left() == []


def test_spaces_are_flattened_as_documented():
    env = neuroevo.make("gym:bridge_envs:Shapes-v0")
    assert env.observation_space.shape == (2, 3, 1)  # 2-D observations travel as (H, W, 1) images
    assert env.action_space.shape == (4,)
    assert env.action_space.high.tolist() == [1.0, 2.0, 3.0, 4.0]
    obs, _ = env.reset(seed=0)
    assert obs[..., 0].tolist() == [[0, 1, 2], [1, 2, 3]]
    obs, r, *_ = env.step(np.array([0.5, 5.0, -3.0, 1.0], dtype=np.float32))  # clipped to the bounds
    assert r == pytest.approx(0.5 + 2.0 - 1.0 + 1.0) and obs[..., 0].tolist() == [[1, 2, 3], [2, 3, 4]]
    env.close()
    env = neuroevo.make("gym:bridge_envs:DiscreteObs-v0")
    assert env.observation_space.shape == (5,) and env.action_space.n == 3
    obs, _ = env.reset(seed=0)
    assert obs.tolist() == [1, 0, 0, 0, 0]  # state 1 = the first of Discrete(5, start=1)
    obs, r, *_ = env.step(0)  # action index 0 = the env's action -1
    assert obs.tolist() == [0, 0, 0, 0, 1] and r == -1.0
    env.close()
    assert no_servers_left() == []
