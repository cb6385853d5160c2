# SPDX-License-Identifier: MIT
"""Ask/tell optimizers for black-box use, over every algorithm registered in the C library.

    es = neuroevo.algorithms.CMAES(x0, sigma0=0.5)
    while es.generations < 200:
        X = es.ask()                      # (n, dim) float64 array
        es.tell([f(x) for x in X])        # minimized (maximize=True to maximize)
    x, fx = es.best

One class per C algorithm (``GA``, ``OpenAIES``, ``ARS``, ``PGPE``, ``SNES``, ``CMAES``, ... whatever
``neuroevo.algorithms.names()`` lists in this build); they are made from the C registry at import, so
an algorithm added in C appears here with no Python code. Settings are the algorithm's config keys
(``neuroevo run``'s ``[section]``), passed as keywords: ``GA(x0, population=50, truncation=10)``.
A generation may take more than one ask/tell round (the GA re-evaluates its elite); every round's
candidates are evaluated the same way.
"""
from __future__ import annotations

import re
from typing import Any, Callable, ClassVar, Iterable, Mapping

import numpy as np

from . import _core

# class names for the registry names this build knows; others become name.upper()
CLASS_NAMES = {"ga": "GA", "es": "OpenAIES", "ars": "ARS", "pgpe": "PGPE", "snes": "SNES", "xnes": "XNES",
               "cmaes": "CMAES", "sepcmaes": "SepCMAES", "novelty": "NoveltySearch",
               "nevergrad": "Nevergrad", "python": "PythonOptimizer"}
# which of an algorithm's keys the generic sigma0= and popsize= arguments set (first one present)
SIGMA_KEYS = ("sigma0", "sigma", "stdev_init", "noise")
POPSIZE_KEYS = ("population", "popsize", "lambda")


def _schema() -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for section, key, *_ in _core.config_keys():
        keys.setdefault(section, []).append(key)
    return keys


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


class AskTell:
    """An ask/tell optimizer over one C algorithm (subclasses fix ``algorithm``).

    Args:
        x0: the starting point (any shape; flattened to ``dim`` float64 values).
        sigma0: initial step size, set on the algorithm's sigma-like key (``sigma0``, ``sigma``,
            ``stdev_init`` or ``noise``, whichever it has).
        popsize: candidates per generation (``population``/``popsize``/``lambda``).
        seed: run seed; the whole optimization is a pure function of it and the told values.
        maximize: maximize the told values instead of minimizing them.
        options: more config keys, ``{"truncation": 10}`` or ``{"ga.truncation": 10}``.
        **kwargs: like ``options``.
    """

    algorithm: ClassVar[str] = ""
    section: ClassVar[str] = ""

    def __init__(self, x0: Iterable[float] | np.ndarray, sigma0: float | None = None, *, popsize: int | None = None,
                 seed: int = 0, maximize: bool = False, options: Mapping[str, Any] | None = None, **kwargs: Any):
        if not self.algorithm:
            raise TypeError("use a concrete class (e.g. neuroevo.algorithms.CMAES) or algorithms.get(name)")
        x = np.ascontiguousarray(np.asarray(x0, dtype=np.float64).reshape(-1))
        if x.size == 0:
            raise ValueError("x0 must have at least one component")
        self.shape = np.shape(x0)
        self.maximize = bool(maximize)
        items = self._overrides(sigma0, popsize, {**(options or {}), **kwargs})
        self._c = _core.Algorithm(self.algorithm, x, items, seed=int(seed), maximize=self.maximize)
        self._asked: np.ndarray | None = None

    def _overrides(self, sigma0: float | None, popsize: int | None, options: Mapping[str, Any]) -> list[str]:
        keys = _schema().get(self.section, [])
        out = []
        for generic, names, value in (("sigma0", SIGMA_KEYS, sigma0), ("popsize", POPSIZE_KEYS, popsize)):
            if value is None:
                continue
            key = next((k for k in names if k in keys), None)
            if key is None:
                raise TypeError(f"{type(self).__name__} has no {generic} setting (its keys: {', '.join(keys)})")
            out.append(f"{self.section}.{key}={_text(value)}")
        for key, value in options.items():
            key = key.replace("__", ".")
            out.append(f"{key if '.' in key else self.section + '.' + key}={_text(value)}")
        return out

    # ---- the loop ------------------------------------------------------------------------------
    def ask(self) -> np.ndarray:
        """The candidates to evaluate next, as an (n, dim) float64 array (a fresh copy each call;
        asking again before ``tell`` returns the same candidates)."""
        buf, n = self._c.ask()
        self._asked = np.frombuffer(buf, dtype=np.float64).reshape(n, self._c.dim)
        return self._asked

    def tell(self, *args: Any) -> bool:
        """``tell(values)`` or ``tell(solutions, values)``: one value per asked candidate, in order
        (NaN or inf marks a failed evaluation). Returns True when a generation completed."""
        if len(args) == 2:
            solutions, values = args
            if self._asked is None or np.shape(solutions) != self._asked.shape:
                raise ValueError("tell(solutions, values): solutions must be the array ask() returned")
        elif len(args) == 1:
            (values,) = args
        else:
            raise TypeError("tell(values) or tell(solutions, values)")
        v = np.ascontiguousarray(np.asarray(values, dtype=np.float64).reshape(-1))
        done = self._c.tell(v)
        self._asked = None
        return done

    def optimize(self, f: Callable[[np.ndarray], float], generations: int = 100, target: float | None = None
                 ) -> tuple[np.ndarray, float]:
        """Runs ``generations`` generations (or until the best value reaches ``target``) of
        ask, ``f`` on each candidate (reshaped like x0), tell. Returns ``best``."""
        start = self.generations
        while self.generations - start < generations:
            X = self.ask()
            if self.tell([float(f(x.reshape(self.shape))) for x in X]) and target is not None:
                value = self.best[1]
                if (value >= target) if self.maximize else (value <= target):
                    break
        return self.best

    # ---- results -------------------------------------------------------------------------------
    @property
    def best(self) -> tuple[np.ndarray, float]:
        """(x, value) of the best solution so far, x shaped like x0 (ValueError before any tell)."""
        got = self._c.best()
        if got is None:
            raise ValueError("no solution yet: tell() at least one generation first")
        buf, value, _ = got
        return np.frombuffer(buf, dtype=np.float64).reshape(self.shape).copy(), value

    @property
    def generations(self) -> int:
        """Generations completed."""
        return self._c.generations

    @property
    def dim(self) -> int:
        """Search dimension."""
        return self._c.dim

    def report(self) -> dict[str, Any] | None:
        """The last completed generation's figures (best, mean, median in the told values' sign;
        ``extra`` holds algorithm-specific numbers such as sigma), or None before any."""
        return self._c.report()

    def save(self) -> bytes:
        """The whole state at a generation boundary (restore with ``load``)."""
        return self._c.save()

    def load(self, state: bytes) -> None:
        """Restores a state written by ``save`` on an optimizer made with the same arguments."""
        self._c.load(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(dim={self.dim}, generations={self.generations})"


def _class_name(name: str) -> str:
    return CLASS_NAMES.get(name) or re.sub(r"\W", "_", name.upper())


_classes: dict[str, type[AskTell]] = {}
for _name, _section in _core.algorithms():
    _cls = type(_class_name(_name), (AskTell,), {
        "algorithm": _name, "section": _section, "__module__": __name__,
        "__doc__": f"Ask/tell over the C algorithm '{_name}' (config section [{_section}]); see AskTell."})
    _classes[_name] = _cls
    globals()[_cls.__name__] = _cls


def names() -> list[str]:
    """Registry names of the algorithms in this build."""
    return list(_classes)


def get(name: str) -> type[AskTell]:
    """The ask/tell class for a registry name (``"cmaes"``, ``"ga"``, ...)."""
    try:
        return _classes[name]
    except KeyError:
        raise ValueError(f"no algorithm {name!r} in this build (available: {', '.join(_classes)})") from None


__all__ = ["AskTell", "get", "names", *(c.__name__ for c in _classes.values())]
