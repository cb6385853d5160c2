# SPDX-License-Identifier: MIT
# Gymnasium envs for the bridge tests, registered on import so that `gym:bridge_envs:NAME-v0`
# makes them in an env server: one that raises inside step, one whose process dies, one that dies
# once and then works (the restart-and-retry path), one with an unsupported observation space.
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


class DictObs(Countdown):
    def __init__(self):
        super().__init__()
        self.observation_space = spaces.Dict({"a": spaces.Box(0, 1, shape=(2,))})


for _name, _cls in [("Countdown", Countdown), ("Raises", Raises), ("Exits", Exits), ("Flaky", Flaky),
                    ("DictObs", DictObs)]:
    if f"{_name}-v0" not in gym.registry:
        gym.register(id=f"{_name}-v0", entry_point=_cls, max_episode_steps=50)
