# SPDX-License-Identifier: MIT
"""Seed-chain genomes (Such et al. 2017) in best.genome's text format, vector solutions in
best.params' (the ES family), and their evaluation.

A genome is ``theta = init(seeds[0]) + sigma * sum(eps(s) for s in seeds[1:])`` plus a header of the
config keys that rebuild its policy (``env.id``, ``policy.*``). Parsing, printing, materializing and
evaluating all call the C library, so a genome means exactly what it means to ``neuroevo eval``.
"""
from __future__ import annotations

import os
import tempfile
from typing import Iterable, Mapping

import numpy as np

from . import _core


def _default_sigma() -> float:
    for section, key, _, default, _, _ in _core.config_keys():
        if (section, key) == ("ga", "sigma"):
            return float(default)
    return 0.002


def _policy_fields(policy: Mapping[str, object]) -> dict[str, str]:
    """``hidden=(16,)`` -> ``{"policy.hidden": "16"}`` (lists become comma-separated)."""
    out = {}
    for key, value in policy.items():
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        out[f"policy.{key}"] = str(value)
    return out


def _seed(value: object) -> int:
    """A seed of a chain: an int in [0, 2^64). A float is refused (a parameter vector passed where
    a seed chain belongs is the usual cause)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"genome seeds must be ints in [0, 2^64), got {type(value).__name__} {value!r}; to evaluate "
                        "a parameter vector use neuroevo.evaluate(env_id, params) or neuroevo.Policy")
    if not 0 <= int(value) < 2**64:
        raise ValueError(f"genome seeds must be ints in [0, 2^64), got {value}")
    return int(value)


class Genome:
    """A seed chain with its sigma and header.

    Args:
        seeds: the init seed, then mutation seeds, oldest first.
        sigma: mutation power (default: the config schema's ``ga.sigma``).
        header: ``{"env.id": ..., "policy.hidden": ..., ...}`` as written by a run.
        env_id: shorthand for ``header["env.id"]``.
        **policy: shorthand for ``policy.*`` header fields, e.g. ``hidden=(16,)``.
    """

    def __init__(self, seeds: Iterable[int], sigma: float | None = None, header: Mapping[str, str] | None = None,
                 *, env_id: str | None = None, **policy: object):
        self.seeds: list[int] = [_seed(s) for s in seeds]
        if not self.seeds:
            raise ValueError("a genome needs at least its init seed")
        self.sigma: float = float(_default_sigma() if sigma is None else sigma)
        self.header: dict[str, str] = dict(header or {})
        if env_id is not None:
            self.header["env.id"] = env_id
        self.header.update(_policy_fields(policy))

    # ---- identity ----------------------------------------------------------------------------
    @property
    def env_id(self) -> str | None:
        """The env this genome was trained on (``header["env.id"]``)."""
        return self.header.get("env.id")

    def __repr__(self) -> str:
        shown = ", ".join(str(s) for s in self.seeds) if len(self.seeds) <= 4 else (
            f"{self.seeds[0]}, {self.seeds[1]}, ..., {self.seeds[-1]}")
        return f"Genome(env_id={self.env_id!r}, sigma={self.sigma:g}, seeds=[{shown}] ({len(self.seeds)}))"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Genome):
            return NotImplemented
        return (self.seeds, np.float32(self.sigma), self.header) == (other.seeds, np.float32(other.sigma), other.header)

    # ---- text form ---------------------------------------------------------------------------
    def to_text(self) -> str:
        """The best.genome text (header lines, sigma, seeds)."""
        return _core.genome_format(self.seeds, self.sigma, list(self.header.items()))

    @classmethod
    def from_text(cls, text: str, name: str = "<genome>") -> Genome:
        """Parses a genome text; errors name ``name`` and the line."""
        seeds, sigma, header = _core.genome_parse(text, name)
        return cls(seeds, sigma, dict(header))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the genome file atomically (temp file, fsync, rename)."""
        path = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".genome-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_text())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Genome:
        """Reads a genome file (e.g. a run's best.genome)."""
        path = os.fspath(path)
        with open(path, encoding="utf-8") as f:
            return cls.from_text(f.read(), path)

    # ---- parameters and evaluation -------------------------------------------------------------
    def params(self) -> np.ndarray:
        """The materialized parameter vector (float32, the policy's flat layout)."""
        buf, _ = _core.genome_params(list(self.header.items()), self.seeds, self.sigma)
        return np.frombuffer(buf, dtype=np.float32)

    def policy_spec(self) -> str:
        """The policy the header describes, e.g. ``"mlp 4-16-2 tanh argmax normc"``."""
        return _core.genome_params(list(self.header.items()), self.seeds[:1], self.sigma)[1]

    def evaluate(self, episodes: int = 100, *, seed: int = 0, threads: int = 0) -> float:
        """Mean return over ``episodes`` episodes, exactly as ``neuroevo eval --seed SEED``."""
        return float(evaluate_policy(self, episodes=episodes, seed=seed, threads=threads))


class Params:
    """A vector solution as the ES family writes it (best.params): explicit float32 parameters, the
    header that rebuilds the policy, and the observation normalization they were trained with."""

    def __init__(self, params: np.ndarray, header: Mapping[str, str], obs_mean: np.ndarray | None = None,
                 obs_std: np.ndarray | None = None, obs_clip: float = 0.0, score: float = float("nan"),
                 generation: int = 0):
        self.params = np.ascontiguousarray(params, dtype=np.float32)
        self.header = dict(header)
        self.obs_mean = None if obs_mean is None else np.ascontiguousarray(obs_mean, dtype=np.float32)
        self.obs_std = None if obs_std is None else np.ascontiguousarray(obs_std, dtype=np.float32)
        self.obs_clip = float(obs_clip)
        self.score = float(score)
        self.generation = int(generation)

    @property
    def env_id(self) -> str | None:
        return self.header.get("env.id")

    def __repr__(self) -> str:
        return (f"Params(env_id={self.env_id!r}, n_params={self.params.size}, score={self.score:g}, "
                f"normalized={self.obs_mean is not None})")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Params:
        """Reads a best.params file (``# neuroevo params v1``)."""
        fields: dict[str, str] = {}
        with open(os.fspath(path), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                key, sep, value = line.partition("=")
                if not sep:
                    raise ValueError(f"{os.fspath(path)}:{n}: expected 'key = value'")
                fields[key.strip()] = value.strip()

        def floats(key: str) -> np.ndarray | None:
            return np.array(fields[key].split(), dtype=np.float32) if key in fields else None

        params = floats("params")
        if params is None:
            raise ValueError(f"{os.fspath(path)}: no params line")
        header = {k: v for k, v in fields.items() if "." in k}
        return cls(params, header, floats("obs_mean"), floats("obs_std"), float(fields.get("obs_clip", 0)),
                   float(fields.get("score", "nan")), int(fields.get("generation", 0)))

    def evaluate(self, episodes: int = 100, *, seed: int = 0, threads: int = 0) -> float:
        """Mean return over ``episodes`` episodes, exactly as ``neuroevo eval`` on the run."""
        return float(evaluate_policy(self, episodes=episodes, seed=seed, threads=threads))


def evaluate_policy(env_id: str | Genome | Params, seeds: Iterable[int] | None = None, episodes: int = 100, *,
                    sigma: float | None = None, seed: int = 0, threads: int = 0, return_episodes: bool = False,
                    **policy: object) -> float | np.ndarray:
    """Mean return of a seed-chain policy over ``episodes`` episodes, as in the Deep GA replications.

    ``evaluate_policy(genome, episodes=100)``, ``evaluate_policy(params, episodes=100)`` (a vector
    solution, ``Run.best`` of an ES run) or ``evaluate_policy("CartPole-v1", seeds, 100, sigma=0.1,
    hidden=(16,))``. Episode seeds derive from ``seed`` exactly as in ``neuroevo eval``, so
    the figure is deterministic and equals the CLI's. Runs on the C thread pool (GIL released).
    With ``return_episodes=True`` the per-episode returns (float64 array) are returned instead.
    """
    if isinstance(env_id, Params):
        p = env_id
        if seeds is not None or sigma is not None or policy:
            raise TypeError("evaluate_policy(params, ...) takes no seeds, sigma or policy fields")
        buf, _ = _core.evaluate(list(p.header.items()), None, 0.0, episodes=int(episodes), seed=int(seed),
                                threads=int(threads), params=p.params, obs_mean=p.obs_mean, obs_std=p.obs_std,
                                obs_clip=p.obs_clip)
        return _mean_or_all(np.frombuffer(buf, dtype=np.float64), return_episodes)
    if isinstance(env_id, Genome):
        genome = env_id
        if seeds is not None or sigma is not None or policy:
            raise TypeError("evaluate_policy(genome, ...) takes no seeds, sigma or policy fields")
    else:
        if seeds is None:
            raise TypeError("evaluate_policy(env_id, seeds, ...) needs the seed chain")
        if not isinstance(env_id, str):
            raise TypeError(f"evaluate_policy's first argument must be an env id (str), a Genome or Params, got "
                            f"{type(env_id).__name__}")
        if isinstance(seeds, np.ndarray) and seeds.dtype.kind not in "iu":
            raise TypeError(f"evaluate_policy(env_id, seeds): seeds is a seed chain of ints, got an array of "
                            f"{seeds.dtype}; to evaluate a parameter vector use neuroevo.evaluate(env_id, params)")
        genome = Genome(seeds, sigma, env_id=env_id)
        genome.header.update(_policy_fields(policy))
    buf, _ = _core.evaluate(list(genome.header.items()), genome.seeds, genome.sigma, episodes=int(episodes),
                            seed=int(seed), threads=int(threads))
    return _mean_or_all(np.frombuffer(buf, dtype=np.float64), return_episodes)


def _mean_or_all(returns: np.ndarray, return_episodes: bool) -> float | np.ndarray:
    if return_episodes:
        return returns
    # the same summation as `neuroevo eval`: sum of r / n in episode order
    mean = 0.0
    for r in returns.tolist():
        mean += r / len(returns)
    return mean
