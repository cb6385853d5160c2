# SPDX-License-Identifier: MIT
# Gymnasium envs for the bridge tests, registered on import so that `gym:bridge_envs:NAME-v0`
# makes them in an env server: one that raises inside step, one whose process dies, one that dies
# once and then works (the restart-and-retry path), one that raises once a marker file exists (a run
# that breaks mid-way, tests/e2e_redis_failure.sh), one with an unsupported observation space;
# Gymnasium's CartPole and Pendulum with a fixed start state (FixedCartPole-v1, FixedPendulum-v1).
import os

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class Countdown(gym.Env):
    """obs = [t, remaining]; reward 1 per step; terminates after `length` steps."""

    def __init__(self, length=20):
        self.observation_space = spaces.Box(-1e6, 1e6, shape=(2,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.length = length
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def _obs(self):
        return np.array([self.t, self.length - self.t], dtype=np.float32)

    def step(self, action):
        self.t += 1
        self.fail_maybe()
        return self._obs(), 1.0, self.t >= self.length, False, {}

    def fail_maybe(self):
        pass


class Raises(Countdown):
    def fail_maybe(self):
        if self.t == 3:
            raise RuntimeError("boom at step 3")


class Exits(Countdown):
    def fail_maybe(self):
        if self.t == 2:
            os._exit(7)


class Flaky(Countdown):
    """Dies once (the first time any server reaches step 5), then behaves."""

    def fail_maybe(self):
        marker = os.environ["BRIDGE_FLAKY_MARKER"]
        if self.t == 5 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(9)


class FailsWhenMarked(Countdown):
    """Raises in step while the file named by BRIDGE_FAIL_MARKER exists (a run that breaks mid-way)."""

    def fail_maybe(self):
        marker = os.environ.get("BRIDGE_FAIL_MARKER", "")
        if marker and os.path.exists(marker):
            raise RuntimeError("marked broken")


class DictObs(Countdown):
    def __init__(self):
        super().__init__()
        self.observation_space = spaces.Dict({"a": spaces.Box(0, 1, shape=(2,))})


class Shapes(gym.Env):
    """2-D uint8 observations and a (2, 2) Box action: obs[i, j] = t + i + j, reward = sum(action)."""

    def __init__(self):
        self.observation_space = spaces.Box(0, 255, shape=(2, 3), dtype=np.uint8)
        self.action_space = spaces.Box(-1.0, np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32), dtype=np.float32)
        self.t = 0

    def _obs(self):
        return (self.t + np.add.outer(np.arange(2), np.arange(3))).astype(np.uint8)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        assert action.shape == (2, 2) and action.dtype == np.float32
        self.t += 1
        return self._obs(), float(action.sum()), False, False, {}


class DiscreteObs(gym.Env):
    """Discrete(5, start=1) observations (one-hot on the C side), Discrete(3, start=-1) actions:
    the next observation is 1 + (obs - 1 + action) mod 5."""

    def __init__(self):
        self.observation_space = spaces.Discrete(5, start=1)
        self.action_space = spaces.Discrete(3, start=-1)
        self.s = 1

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.s = 1
        return self.s, {}

    def step(self, action):
        assert action in (-1, 0, 1)
        self.s = 1 + (self.s - 1 + int(action)) % 5
        return self.s, float(action), False, False, {}


def fixed_start(base, state):
    """Gymnasium's `base` env that starts every episode in `state`, whatever the seed: a rollout is
    then a function of the policy alone, and two implementations of a policy can be compared by
    their returns (tests/test_bench_peers.py)."""

    class FixedStart(base):
        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.state = np.array(state, dtype=np.float64)
            self.steps_beyond_terminated = None
            return self._get_obs() if hasattr(self, "_get_obs") else np.array(self.state, dtype=np.float32), {}

    return FixedStart


from gymnasium.envs.classic_control import CartPoleEnv, PendulumEnv  # noqa: E402

for _id, _cls, _steps in [("FixedCartPole-v1", fixed_start(CartPoleEnv, [0.02, -0.01, 0.03, 0.02]), 500),
                          ("FixedPendulum-v1", fixed_start(PendulumEnv, [2.5, 0.5]), 200)]:
    if _id not in gym.registry:
        gym.register(id=_id, entry_point=_cls, max_episode_steps=_steps)

for _name, _cls in [("Countdown", Countdown), ("Raises", Raises), ("Exits", Exits), ("Flaky", Flaky),
                    ("FailsWhenMarked", FailsWhenMarked), ("DictObs", DictObs), ("Shapes", Shapes),
                    ("DiscreteObs", DiscreteObs)]:
    if f"{_name}-v0" not in gym.registry:
        gym.register(id=f"{_name}-v0", entry_point=_cls, max_episode_steps=50)
