# SPDX-License-Identifier: MIT
"""neuroevo envs with Gymnasium's API (``neuroevo.make``, ``gymnasium.make("neuroevo/...")``).

The dynamics run in C (the same code the trainer uses). The C state's observation buffer is
exported through the buffer protocol and wrapped once as a read-only float32 NumPy view. By default
each reset/step returns a copy of it (one small memcpy), because Gymnasium's contract, which
``check_env`` enforces (``check_returned_data_not_reused``), is that returned observations are new
objects that users may keep. ``make(id, copy=False)`` returns the view itself instead: no copy at all,
read-only, and overwritten by the next reset/step of the same env — for tight loops that use each
observation once.
"""
from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import _core

NAMESPACE = "neuroevo"


class NeuroevoEnv(gym.Env):
    """A neuroevo env (any registered id, or ``gym:ID`` through the bridge) as a ``gymnasium.Env``.

    Args:
        env_id: a neuroevo env id, e.g. ``"CartPole-v1"``.
        max_episode_steps: TimeLimit override (``None``: the registered limit). The limit is applied
            once, in C: ``truncated`` is True only when the episode did not also terminate.
        copy: return a fresh array per reset/step (Gymnasium's contract); False returns the
            read-only view of the C buffer, valid until the next reset/step.
        render_mode: ``None`` or ``"rgb_array"``: ``render()`` returns the current frame as a
            (height, width, 3) uint8 array, drawn by the renderer ``neuroevo render`` uses (MuJoCo's
            offscreen OpenGL, with ``MUJOCO_GL=egl`` or ``osmesa``; the Box2D and classic-control
            drawings). Envs without a drawing (bbob, gym: ids) refuse it.
        width, height: frame size (default 480 x 480 for MuJoCo, as Gymnasium's; 600 x 400 otherwise).
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, env_id: str = "CartPole-v1", max_episode_steps: int | None = None, copy: bool = True,
                 render_mode: str | None = None, width: int | None = None, height: int | None = None):
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"{env_id}: render_mode={render_mode!r} is not supported: neuroevo envs draw "
                             "off screen only (render_mode='rgb_array', or None)")
        self._core = _core.Env(env_id, int(max_episode_steps or 0))
        spec = self._core.spec
        self.env_id: str = spec["id"]
        self.max_episode_steps: int = spec["max_episode_steps"]
        self.reward_threshold: float | None = spec["reward_threshold"]
        if render_mode is not None and not spec["can_render"]:
            self._core.close()
            raise ValueError(f"{self.env_id}: no drawing for this environment, so render_mode='rgb_array' "
                             "is not available (MuJoCo, Box2D and classic-control envs have one)")
        self.render_mode = render_mode
        mujoco = spec["family"] == "mujoco"
        self.width = int(width if width is not None else 480 if mujoco else 600)
        self.height = int(height if height is not None else 480 if mujoco else 400)
        self._copy = copy
        self._discrete = spec["discrete"]
        # the C spec carries shapes, not observation bounds: the Box is unbounded
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=spec["obs_shape"], dtype=np.float32)
        if self._discrete:
            self.action_space = spaces.Discrete(spec["n_actions"])
        else:
            self.action_space = spaces.Box(np.array(spec["act_low"], dtype=np.float32),
                                           np.array(spec["act_high"], dtype=np.float32), dtype=np.float32)
        # the zero-copy view: NumPy over the C buffer (read-only, shape from the buffer protocol)
        self._obs: np.ndarray = np.asarray(self._core)

    def _observation(self) -> np.ndarray:
        return self._obs.copy() if self._copy else self._obs

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts an episode. ``seed`` seeds both ``np_random`` and the C env (reset(seed=s) here
        equals the C library's ``ne_env_reset(s)``); without one, a seed is drawn from ``np_random``."""
        super().reset(seed=seed)
        c_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63 - 1))
        self._core.reset(c_seed)
        return self._observation(), {}

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Advances one step; the observation view now shows the new observation."""
        if self._core.needs_reset:
            raise gym.error.ResetNeeded(f"{self.env_id}: call reset() before step() (the episode ended)")
        if not self._discrete:
            action = np.asarray(action, dtype=np.float32).reshape(-1)
        reward, terminated, truncated = self._core.step(action)
        return self._observation(), reward, terminated, truncated, {}

    def render(self) -> np.ndarray | None:  # type: ignore[override]
        """The current frame as a (height, width, 3) uint8 array (``render_mode="rgb_array"``);
        None without a render mode, as Gymnasium's envs do."""
        if self.render_mode is None:
            gym.logger.warn(f"{self.env_id}: render() without a render_mode: make the env with "
                            "render_mode='rgb_array'")
            return None
        frame = self._core.render(self.width, self.height)
        return np.frombuffer(frame, dtype=np.uint8).reshape(self.height, self.width, 3)

    def close(self) -> None:
        """Releases the C state (and stops a gym: env server)."""
        core = getattr(self, "_core", None)
        if core is not None:
            self._obs = np.empty(0, dtype=np.float32)  # drop the view so the state can go at once
            core.close()
        super().close()


def make(env_id: str, *, max_episode_steps: int | None = None, copy: bool = True, render_mode: str | None = None,
         width: int | None = None, height: int | None = None) -> NeuroevoEnv:
    """A neuroevo env with Gymnasium's API: ``reset(seed=...)`` -> (obs, info) and
    ``step(action)`` -> (obs, reward, terminated, truncated, info).

    ``env_id`` is a native id (``neuroevo.env_ids()``) or ``gym:ID`` / ``gym:module:ID`` (an installed
    Gymnasium env through the bridge). Each observation is a fresh float32 array; ``copy=False``
    returns a read-only view of the C buffer instead, valid until the next reset/step (no copy).
    ``render_mode="rgb_array"``: ``render()`` returns frames (see ``NeuroevoEnv``).
    """
    return NeuroevoEnv(env_id, max_episode_steps=max_episode_steps, copy=copy, render_mode=render_mode, width=width,
                       height=height)


def register_envs() -> None:
    """Registers every native MDP id as ``neuroevo/<id>`` with Gymnasium (done on import; idempotent).

    The TimeLimit is neuroevo's own (applied in C), so the registrations carry no
    ``max_episode_steps`` and ``gymnasium.make`` adds no second TimeLimit; passing
    ``max_episode_steps=`` to ``gymnasium.make`` still adds Gymnasium's.
    """
    for env_id, _ in _core.env_ids():
        if "/" in env_id:
            continue  # black-box functions (bbob/...) are not MDPs, and Gymnasium ids allow one '/'
        full = f"{NAMESPACE}/{env_id}"
        if full not in gym.registry:
            gym.register(id=full, entry_point=f"{__name__}:NeuroevoEnv", kwargs={"env_id": env_id})
