# SPDX-License-Identifier: MIT
# neuroevo.make and the Gymnasium registration: Gymnasium's check_env passes for every native MDP
# env (with no warning beyond the unbounded observation Box, since the C spec carries no bounds),
# `gymnasium.make("neuroevo/...")` works, seeded resets are deterministic, the zero-copy view
# behaves as documented, and bad actions / stepping after the end are clean errors.
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import neuroevo

CLASSIC = ["CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"]
UNBOUNDED = "observation space m"  # "...maximum/minimum value is (-)infinity": the only extra warning


def check_env_warnings(env):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    return {str(w.message) for w in caught}


def mdp_ids():
    return [i for i in neuroevo.env_ids() if "/" not in i]


@pytest.mark.parametrize("env_id", mdp_ids())
def test_check_env_passes(env_id):
    env = neuroevo.make(env_id)
    ours = check_env_warnings(env)
    env.close()
    extra = {w for w in ours if UNBOUNDED not in w}
    # what is left must be a warning Gymnasium's own env of that id gets too
    if extra and env_id in gym.registry:
        theirs = check_env_warnings(gym.make(env_id).unwrapped)
        extra -= theirs
    assert not extra, f"{env_id}: check_env warnings beyond the unbounded Box: {extra}"


def test_gymnasium_make_finds_registered_envs():
    for env_id in mdp_ids():
        assert f"neuroevo/{env_id}" in gym.registry
    env = gym.make("neuroevo/CartPole-v1")
    obs, info = env.reset(seed=3)
    assert obs.shape == (4,) and obs.dtype == np.float32 and info == {}
    assert isinstance(env.unwrapped, neuroevo.NeuroevoEnv)
    # gymnasium.make's own TimeLimit still works on top
    env = gym.make("neuroevo/CartPole-v1", max_episode_steps=5)
    env.reset(seed=0)
    flags = [env.step(0)[2:4] for _ in range(5)]
    assert flags[-1][0] or flags[-1][1]


def test_spaces_follow_the_c_spec():
    cart = neuroevo.make("CartPole-v1")
    assert cart.action_space == gym.spaces.Discrete(2)
    assert cart.observation_space.shape == (4,) and cart.max_episode_steps == 500
    assert cart.reward_threshold == 475.0
    pend = neuroevo.make("Pendulum-v1")
    assert isinstance(pend.action_space, gym.spaces.Box)
    assert pend.action_space.low.tolist() == [-2.0] and pend.action_space.high.tolist() == [2.0]


def rollout(env, seed, n=300):
    obs, _ = env.reset(seed=seed)
    out, rng = [obs.copy()], np.random.default_rng(0)
    for _ in range(n):
        obs, r, term, trunc, _ = env.step(env.action_space.sample() if False else int(rng.integers(2)))
        out.append(np.append(obs, [r, term, trunc]))
        if term or trunc:
            obs, _ = env.reset()
            out.append(obs.copy())
    return out


def test_seeded_resets_are_deterministic():
    a, b = neuroevo.make("CartPole-v1"), neuroevo.make("CartPole-v1")
    for x, y in zip(rollout(a, 11), rollout(b, 11)):
        np.testing.assert_array_equal(x, y)
    c = neuroevo.make("CartPole-v1")
    assert not np.array_equal(c.reset(seed=12)[0], a.reset(seed=11)[0])


def test_copy_is_default_and_the_view_is_zero_copy():
    env = neuroevo.make("CartPole-v1")
    o1, _ = env.reset(seed=1)
    o2, *_ = env.step(1)
    assert not np.shares_memory(o1, o2) and o1.flags.writeable
    view_env = neuroevo.make("CartPole-v1", copy=False)
    v1, _ = view_env.reset(seed=1)
    np.testing.assert_array_equal(v1, o1)
    assert not v1.flags.writeable
    with pytest.raises(ValueError):
        v1[0] = 0.0
    v2, *_ = view_env.step(1)
    assert v2 is v1  # the same buffer, now holding the new observation
    np.testing.assert_array_equal(v2, o2)
    view_env.close()
    np.testing.assert_array_equal(v1, o2)  # a view that outlives close() stays valid


def test_bad_action_and_step_after_end_are_errors():
    env = neuroevo.make("CartPole-v1")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside Discrete"):
        env.step(2)
    with pytest.raises(ValueError):
        env.step(-1)
    while True:
        _, _, term, trunc, _ = env.step(0)
        if term or trunc:
            break
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    with pytest.raises(neuroevo.Error, match="unknown environment id"):
        neuroevo.make("CartPool-v1")


def test_truncation_comes_from_the_c_time_limit():
    env = neuroevo.make("Pendulum-v1", max_episode_steps=7)
    env.reset(seed=0)
    flags = [env.step(np.array([0.0]))[2:4] for _ in range(7)]
    assert flags[-1] == (False, True) and all(f == (False, False) for f in flags[:-1])
