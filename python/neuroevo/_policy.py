# SPDX-License-Identifier: MIT
"""Policies as parameter vectors: ``Policy`` acts with a trained (or any) parameter vector, and
``evaluate`` is the fitness function a Python optimizer (pycma, Nevergrad, evosax) needs: the mean
return of one vector, or of each row of a population, on a neuroevo env, run in the C thread pool
with the GIL released.

Both go through the C library's policy (``neuroevo._core.Policy``) and evaluator, so a vector means
exactly what it means to a run and to ``neuroevo eval``: the same flat layout, the same action
heads, the same episode seeds (episode ``e`` of seed ``s`` is the CLI's, and every row of a
population gets the same episodes).
"""
from __future__ import annotations

import os
from typing import Any, Mapping

import numpy as np

from . import _core
from ._genome import Genome, Params, _mean_or_all, _policy_fields


def _count(name: str, value: Any, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int >= {least}, got {type(value).__name__} {value!r}")
    if value < least:
        raise ValueError(f"{name} must be >= {least}, got {value}")
    return int(value)


def _header(env_id: Any, policy: Mapping[str, Any] | None, fields: Mapping[str, Any]) -> dict[str, str]:
    if not isinstance(env_id, str):
        raise TypeError(f"env_id must be a str such as 'CartPole-v1' (or a neuroevo.Policy, Genome or Params), "
                        f"got {type(env_id).__name__}")
    if policy is not None and not isinstance(policy, Mapping):
        raise TypeError(f"policy must be a dict of policy fields such as {{'hidden': (64, 64)}} or a "
                        f"neuroevo.Policy, got {type(policy).__name__}")
    header = {"env.id": env_id}
    header.update(_policy_fields(dict(policy or {}, **fields)))
    return header


def _floats(name: str, value: Any, n: int, *, rows: bool = False) -> np.ndarray:
    """``value`` as a C-contiguous float32 array of n values, or of (m, n) with ``rows``."""
    want = f"a float array of {n} values" + (f" or a (population, {n}) array" if rows else "")
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be {want}, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be {want}, got an array of {arr.dtype}")
    if arr.ndim == 1 and arr.shape[0] == n or rows and arr.ndim == 2 and arr.shape[1] == n and arr.shape[0] >= 1:
        return np.ascontiguousarray(arr, dtype=np.float32)
    raise ValueError(f"{name} must be {want}, got shape {arr.shape}")


class Policy:
    """A policy network of the C library and its parameters.

    ``Policy("CartPole-v1", params, hidden=(64, 64))`` (policy fields as in a config's ``[policy]``
    section, or ``policy={...}``), ``Policy(genome)``, ``Policy(best_params)`` or
    ``Policy.load(path)`` (a best.genome or best.params file, or a run directory). Without
    ``params`` the policy's initialization for init seed 0 is used (see ``init_params``).

    ``act(obs)`` returns the action the evaluator would take: an ``int`` for a discrete env, a
    float32 array of ``act_dim`` for a continuous one; a batch of observations gives an array of
    actions. The observation is normalized as the policy was trained with (``obs_mean``,
    ``obs_std``, ``obs_clip`` of the ES family's best.params).
    """

    def __init__(self, env_id: str | Genome | Params, params: Any = None, *, policy: Mapping[str, Any] | None = None,
                 obs_mean: Any = None, obs_std: Any = None, obs_clip: float = 0.0, **fields: Any):
        if isinstance(env_id, (Genome, Params)):
            if params is not None or policy is not None or fields:
                raise TypeError(f"Policy({type(env_id).__name__}) takes no params or policy fields: they are "
                                "the genome's")
            src = env_id
            header = dict(src.header)
            if isinstance(src, Params):
                params, obs_mean, obs_std, obs_clip = src.params, src.obs_mean, src.obs_std, src.obs_clip
            else:
                params = src.params()
        else:
            header = _header(env_id, policy, fields)
        self._core = _core.Policy(list(header.items()))
        self.header: dict[str, str] = header
        info = self._core.info
        self.env_id: str = info["env_id"]
        self.n_params: int = info["n_params"]
        self.obs_shape: tuple[int, ...] = tuple(info["obs_shape"])
        self.act_dim: int = info["act_dim"]
        self.discrete: bool = info["discrete"]
        self.spec: str = info["spec"]
        self._params = self.init_params(0) if params is None else _floats("params", params, self.n_params)
        self._params.flags.writeable = False
        if (obs_mean is None) != (obs_std is None):
            raise ValueError("obs_mean and obs_std go together (both or neither)")
        d = int(np.prod(self.obs_shape))
        self.obs_mean = None if obs_mean is None else _floats("obs_mean", obs_mean, d)
        self.obs_std = None if obs_std is None else _floats("obs_std", obs_std, d)
        self.obs_clip = float(obs_clip)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Policy:
        """A best.genome or best.params file, or a run directory (its best.params, else best.genome)."""
        path = os.fspath(path)
        if os.path.isdir(path):
            for name in ("best.params", "best.genome"):
                if os.path.exists(os.path.join(path, name)):
                    path = os.path.join(path, name)
                    break
            else:
                raise FileNotFoundError(f"{path}: no best.params or best.genome in this run directory")
        if path.endswith(".params"):
            return cls(Params.load(path))
        return cls(Genome.load(path))

    def init_params(self, seed: int = 0) -> np.ndarray:
        """The policy's initial parameters for init seed ``seed`` (as a run's first generation draws them)."""
        buf, _ = _core.genome_params(list(self.header.items()), [_count("seed", seed, 0)], 1.0)
        return np.frombuffer(buf, dtype=np.float32).copy()

    @property
    def params(self) -> np.ndarray:
        """The flat float32 parameter vector (read-only; assign a new vector to change it)."""
        return self._params

    @params.setter
    def params(self, value: Any) -> None:
        p = _floats("params", value, self.n_params)
        p.flags.writeable = False
        self._params = p

    def _norm(self) -> dict[str, Any]:
        return {"obs_mean": self.obs_mean, "obs_std": self.obs_std, "obs_clip": self.obs_clip}

    def act(self, obs: Any) -> Any:
        """The action for one observation, or the actions for a batch (leading axis)."""
        if isinstance(obs, (str, bytes)) or obs is None:
            raise TypeError(f"obs must be a float array of shape {self.obs_shape}, got {type(obs).__name__}")
        x = np.asarray(obs)
        if x.dtype.kind not in "fiub":
            raise TypeError(f"obs must be a float array of shape {self.obs_shape}, got an array of {x.dtype}")
        single = x.shape == self.obs_shape
        if not single and x.shape[1:] != self.obs_shape:
            raise ValueError(f"obs must have shape {self.obs_shape} (one observation) or (n, "
                             f"{', '.join(map(str, self.obs_shape))}) (a batch), got {x.shape}")
        x = np.ascontiguousarray(x, dtype=np.float32)
        rows = 1 if single else x.shape[0]
        out = np.frombuffer(self._core.act(self._params, x, rows, **self._norm()), dtype=np.float32)
        out = out.reshape(rows, self.act_dim)
        if self.discrete:
            idx = out[:, 0].astype(np.int64)
            return int(idx[0]) if single else idx
        return out[0].copy() if single else out

    def __call__(self, obs: Any) -> Any:
        return self.act(obs)

    def evaluate(self, episodes: int = 10, *, seed: int = 0, threads: int = 0,
                 return_episodes: bool = False) -> float | np.ndarray:
        """Mean return over ``episodes`` episodes with these parameters (see ``neuroevo.evaluate``)."""
        return evaluate(self, None, episodes, seed=seed, threads=threads, return_episodes=return_episodes)

    def __repr__(self) -> str:
        return f"Policy(env_id={self.env_id!r}, spec={self.spec!r}, n_params={self.n_params})"


def evaluate(env_id: str | Policy | Genome | Params, params: Any = None, episodes: int = 10, *,
             policy: Mapping[str, Any] | None = None, seed: int = 0, threads: int = 0,
             return_episodes: bool = False, **fields: Any) -> float | np.ndarray:
    """Mean return of a parameter vector (or of each row of a population) on an env.

    ``evaluate("CartPole-v1", x, episodes=5, policy={"hidden": (16,)})`` -> float;
    ``evaluate("Hopper-v5", X)`` with X of shape (population, n_params) -> float64 array of
    population means, every row on the same episodes; ``evaluate(policy_obj)`` uses its own
    parameters and observation normalization. The episodes run in the C thread pool (``threads``;
    0 = all cores) with the GIL released. Episode seeds derive from ``seed`` as in ``neuroevo
    eval``: vary ``seed`` (e.g. per generation) to draw new episodes. ``return_episodes=True``
    gives the per-episode returns instead (shape (episodes,) or (population, episodes)). The vector
    length for a policy is ``neuroevo.Policy(env_id, **fields).n_params``.

    Raises TypeError for arguments of the wrong type (naming the expected one), ValueError for a
    wrong length, ``neuroevo.Error`` for an unknown env or policy field.
    """
    episodes = _count("episodes", episodes, 1)
    seed = _count("seed", seed, 0)
    threads = _count("threads", threads, 0)
    if isinstance(env_id, (Genome, Params)):
        if params is not None or policy is not None or fields:
            raise TypeError(f"evaluate({type(env_id).__name__}) takes no params or policy fields")
        env_id = Policy(env_id)
    if isinstance(env_id, Policy):
        if policy is not None or fields:
            raise TypeError("evaluate(Policy, ...) takes no policy fields: they are the Policy's")
        pol = env_id
    else:
        if params is None:
            raise TypeError("evaluate(env_id, params, ...) needs the parameter vector (see neuroevo.Policy for "
                            "its length)")
        pol = Policy(env_id, policy=policy, **fields)
    x = pol.params if params is None else _floats("params", params, pol.n_params, rows=True)
    rows = 1 if x.ndim == 1 else x.shape[0]
    buf, _ = _core.evaluate(list(pol.header.items()), None, 0.0, episodes=episodes, seed=seed, threads=threads,
                            params=x, rows=rows, **pol._norm())
    returns = np.frombuffer(buf, dtype=np.float64).reshape(rows, episodes)
    if x.ndim == 1:
        return _mean_or_all(returns[0], return_episodes)
    if return_episodes:
        return returns
    return np.array([_mean_or_all(r, False) for r in returns])
