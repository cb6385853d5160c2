# SPDX-License-Identifier: MIT
"""Ask/tell adapters that neuroevo's optimizer server (optserver.py) drives.

``run.algorithm = nevergrad`` is this module's ``Nevergrad`` adapter; ``run.algorithm = python``
takes any class with the same shape (``[python] class = neuroevo.adapters:Nevergrad`` is the
Nevergrad algorithm again):

- ``ask()`` returns the generation's candidates, a sequence of vectors of length dim;
- ``tell(candidates, losses)`` gets back what ``ask`` returned and one loss per candidate, in order
  (minimized);
- optionally ``recommend()`` returns the point the optimizer would bet on now.

Only the standard library is imported at module load; NumPy and Nevergrad when the adapter is made,
so that a missing package is a clear error.
"""
from __future__ import annotations

import difflib
import sys
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import numpy as np


class OptimizerError(Exception):
    """A setting the optimizer cannot take (unknown name, missing package): no traceback needed."""

    def __init__(self, message: str, missing: bool = False):
        super().__init__(message)
        self.missing = missing


def random_state(seed: int) -> np.random.RandomState:
    """A legacy NumPy generator from a 64-bit seed (RandomState takes 32-bit words)."""
    import numpy as np

    return np.random.RandomState([seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF])


def nearest(name: str, names: Sequence[str], n: int = 6) -> list[str]:
    """Registry names a misspelt one probably meant: case-insensitive matches, then close ones."""
    lower = {k.lower(): k for k in names}
    out = [lower[name.lower()]] if name.lower() in lower else []
    out += [lower[k] for k in difflib.get_close_matches(name.lower(), list(lower), n=n, cutoff=0.6)]
    out += [k for k in names if name.lower() in k.lower()]
    return list(dict.fromkeys(out))[:n]


class Nevergrad:
    """One optimizer of Nevergrad's registry over a flat vector: ``population`` asks per generation
    (its ``num_workers``), told in order, the parametrization seeded from ``seed``.

    Args:
        x0: the start point (the parametrization's init).
        optimizer: a name in ``nevergrad.optimizers.registry``.
        population: candidates asked per generation.
        budget: Nevergrad's budget in evaluations (None or 0: unknown).
        sigma: the mutation sigma of the parametrization.
        seed: seeds the parametrization's random state.
    """

    def __init__(self, x0: Any, optimizer: str = "NGOpt", population: int = 16, budget: int | None = None,
                 sigma: float = 1.0, seed: int = 0):
        import numpy as np

        try:
            import nevergrad as ng
        except ImportError as e:
            raise OptimizerError(f"{e} in {sys.executable}: pip install nevergrad (scripts/install-deps does)",
                                 missing=True) from e
        registry = ng.optimizers.registry
        if optimizer not in registry:
            near = nearest(optimizer, sorted(registry))
            raise OptimizerError(f"no optimizer '{optimizer}' in Nevergrad {ng.__version__}'s registry of "
                                 f"{len(registry)}; nearest: {', '.join(near) or '(none)'}", missing=True)
        param = ng.p.Array(init=np.asarray(x0, dtype=np.float64).copy()).set_mutation(sigma=float(sigma))
        param.random_state = random_state(int(seed))
        self.population = int(population)
        self.optimizer = registry[optimizer](parametrization=param, budget=int(budget) if budget else None,
                                             num_workers=self.population)
        self.asked: list[Any] = []

    def ask(self) -> list[np.ndarray]:
        try:
            self.asked = [self.optimizer.ask() for _ in range(self.population)]
        except AssertionError as e:
            if self.optimizer.budget is None:  # NGOpt and its kin choose their algorithm from the budget
                raise OptimizerError(f"{type(self.optimizer).__name__} failed without a budget ({e}): set "
                                     "nevergrad.budget, or run.generations for the automatic one") from e
            raise
        return [c.value for c in self.asked]

    def tell(self, candidates: Sequence[Any], losses: Sequence[float]) -> None:
        for c, loss in zip(self.asked, losses):
            self.optimizer.tell(c, float(loss))
        self.asked = []

    def recommend(self) -> np.ndarray:
        return self.optimizer.provide_recommendation().value
