# SPDX-License-Identifier: MIT
"""Ask/tell optimizers for black-box use, over every algorithm registered in the C library.

    es = neuroevo.algorithms.CMAES(x0, sigma0=0.5, popsize=16)
    while es.generations < 200:
        X = es.ask()                      # (16, dim) float64 array around x0
        es.tell([f(x) for x in X])        # minimized (maximize=True to maximize)
    x, fx = es.best                       # the best point told so far

As in pycma and evosax: the search starts exactly at ``x0`` (the ES family's centre is x0; the GA's
first generation is x0 + sigma0 * N(0, I)), ``ask()`` returns exactly the population (``popsize``
rows), and ``sigma0`` / ``popsize`` work for every algorithm. Algorithms that also evaluate their
centre (OpenAI ES, ARS, PGPE, SNES; CMA-ES with ``eval_mean``; a Nevergrad or Python optimizer's
recommendation) keep that point out of ``ask()``:
it is ``centre`` until ``tell``, and ``tell(values, centre_value=f(centre))`` reports it (it only
feeds ``report()``'s ``elite_mean`` and the algorithm's own best; without it the update is the
same). The GA re-evaluates its elite in a second round of each generation: that ``ask()`` returns
the ``elite_candidates`` rows to evaluate again (``round`` says which; ``elite_candidates=0`` turns
it off).

One class per C algorithm (``GA``, ``OpenAIES``, ``ARS``, ``PGPE``, ``SNES``, ``CMAES``, ... whatever
``neuroevo.algorithms.names()`` lists in this build); they are made from the C registry at import, so
an algorithm added in C appears here with no Python code. Settings are the algorithm's config keys
(``neuroevo run``'s ``[section]``), passed as keywords: ``GA(x0, population=50, truncation=10)``.
A generation may take more than one ask/tell round (the GA re-evaluates its elite); every round's
candidates are evaluated the same way.
"""
from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib
import inspect
import os
import re
import sys
import tempfile
from typing import Any, Callable, ClassVar, Iterable, Iterator, Mapping

import numpy as np

from . import _core

# class names for the registry names this build knows; others become name.upper()
CLASS_NAMES = {"ga": "GA", "es": "OpenAIES", "ars": "ARS", "pgpe": "PGPE", "snes": "SNES", "xnes": "XNES",
               "cmaes": "CMAES", "sepcmaes": "SepCMAES", "novelty": "NoveltySearch",
               "nevergrad": "Nevergrad", "python": "PythonOptimizer"}
# which of an algorithm's keys the generic sigma0= and popsize= arguments set (first one present)
SIGMA_KEYS = ("sigma0", "sigma", "stdev_init", "noise")
POPSIZE_KEYS = ("population", "popsize", "lambda", "directions")
# candidates per unit of the population key: ARS evaluates each direction twice (+ and -)
POPSIZE_PER_UNIT = {"directions": 2}
# sections whose population is mirrored pairs: popsize must be even
MIRRORED = {"es", "pgpe"}


def _schema() -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for section, key, *_ in _core.config_keys():
        keys.setdefault(section, []).append(key)
    return keys


def _defaults(section: str) -> dict[str, str]:
    return {key: default for sec, key, _, default, *_ in _core.config_keys() if sec == section}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


class AskTell:
    """An ask/tell optimizer over one C algorithm (subclasses fix ``algorithm``).

    Args:
        x0: the starting point (any shape; flattened to ``dim`` float64 values): the centre of the
            first generation, exactly (positional: ``x0=`` keywords are the algorithm's own setting,
            e.g. CMA-ES's ``x0='zeros'``).
        sigma0: initial step size, set on the algorithm's sigma-like key (``sigma0``, ``sigma``,
            ``stdev_init`` or ``noise``, whichever it has).
        popsize: rows of ``ask()`` per generation (``population``/``popsize``/``lambda``; ARS's
            ``directions`` = popsize / 2; mirrored ES and PGPE need an even popsize).
        seed: run seed; the whole optimization is a pure function of it and the told values.
        maximize: maximize the told values instead of minimizing them.
        options: more config keys, ``{"truncation": 10}`` or ``{"ga.truncation": 10}``.
        **kwargs: like ``options``.
    """

    algorithm: ClassVar[str] = ""
    section: ClassVar[str] = ""

    def __init__(self, x0: Iterable[float] | np.ndarray, /, sigma0: float | None = None, *, popsize: int | None = None,
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
        self._asked: np.ndarray | None = None  # the population of the pending ask
        self._centre: np.ndarray | None = None  # its centre evaluation, if the algorithm appends one
        self._best: tuple[np.ndarray, float] | None = None  # the best told point

    def _overrides(self, sigma0: float | None, popsize: int | None, options: Mapping[str, Any]) -> list[str]:
        keys = _schema().get(self.section, [])
        out = []
        for generic, names, value in (("sigma0", SIGMA_KEYS, sigma0), ("popsize", POPSIZE_KEYS, popsize)):
            if value is None:
                continue
            key = next((k for k in names if k in keys), None)
            if key is None:
                raise TypeError(f"{type(self).__name__} has no {generic} setting (its keys: {', '.join(keys)})")
            if generic == "popsize":
                value = self._population(key, value)
            out.append(f"{self.section}.{key}={_text(value)}")
        given = set()
        for key, value in options.items():
            key = key.replace("__", ".")
            key = key if "." in key else self.section + "." + key
            given.add(key)
            out.append(f"{key}={_text(value)}")
        # a small popsize for the GA: its default truncation (20 parents) cannot exceed the
        # population, so it becomes half the population unless set
        defaults = _defaults(self.section)
        if popsize is not None and "truncation" in defaults and f"{self.section}.truncation" not in given:
            n = self._population("population", popsize)
            if n < int(defaults["truncation"]):
                out.insert(0, f"{self.section}.truncation={max(1, n // 2)}")
        return out

    def _population(self, key: str, popsize: Any) -> int:
        """The population key's value for ``popsize`` rows of ask()."""
        if isinstance(popsize, bool) or not isinstance(popsize, (int, np.integer)) or popsize < 1:
            raise TypeError(f"popsize must be an int >= 1, got {popsize!r}")
        per = POPSIZE_PER_UNIT.get(key, 1)
        if per > 1 or self.section in MIRRORED:
            if popsize % 2:
                raise ValueError(f"{type(self).__name__} evaluates mirrored pairs: popsize must be even, got "
                                 f"{popsize}")
        return int(popsize) // per

    # ---- the loop ------------------------------------------------------------------------------
    def ask(self) -> np.ndarray:
        """The population to evaluate next, as a (popsize, dim) float64 array (asking again before
        ``tell`` returns the same candidates). A centre evaluation the algorithm appends is not in
        it: see ``centre``."""
        buf, n, centre = self._c.ask()
        rows = np.frombuffer(buf, dtype=np.float64).reshape(n, self._c.dim)
        self._centre = rows[centre].reshape(self.shape).copy() if centre >= 0 else None
        self._asked = rows[:centre] if centre >= 0 else rows
        return self._asked

    @property
    def centre(self) -> np.ndarray | None:
        """The centre point of the pending ``ask()`` (shaped like x0) when the algorithm also
        evaluates its centre (OpenAI ES, ARS, PGPE, SNES; CMA-ES's mean; an optimizer server's
        recommendation), else None. Its value
        goes to ``tell(values, centre_value=...)``; it is optional."""
        if self._asked is None:
            self.ask()
        return self._centre

    def tell(self, *args: Any, centre_value: float | None = None) -> bool:
        """``tell(values)`` or ``tell(solutions, values)``: one value per asked candidate, in order
        (NaN or inf marks a failed evaluation); ``centre_value``: the value of ``centre``, if
        evaluated. Returns True when a generation completed."""
        if len(args) == 2:
            solutions, values = args
            if self._asked is None or np.shape(solutions) != self._asked.shape:
                raise ValueError("tell(solutions, values): solutions must be the array ask() returned")
        elif len(args) == 1:
            (values,) = args
        else:
            raise TypeError("tell(values) or tell(solutions, values)")
        if self._asked is None:
            raise RuntimeError("tell() without a pending ask()")
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        if v.size != len(self._asked):
            raise ValueError(f"tell() needs {len(self._asked)} values, one per asked candidate; got {v.size}")
        if centre_value is not None and self._centre is None:
            raise ValueError(f"{type(self).__name__} asked for no centre evaluation: centre_value has no place")
        self._offer(self._asked, v)
        if self._centre is not None:
            c = np.nan if centre_value is None else float(centre_value)
            if centre_value is not None:
                self._offer(self._centre.reshape(1, -1), np.array([c]))
            v = np.append(v, c)
        done = self._c.tell(np.ascontiguousarray(v))
        self._asked = self._centre = None
        return done

    def _offer(self, X: np.ndarray, values: np.ndarray) -> None:
        """Keeps the best finite told point."""
        finite = np.isfinite(values)
        if not finite.any():
            return
        i = int(np.nanargmax(np.where(finite, values, -np.inf)) if self.maximize else
                np.nanargmin(np.where(finite, values, np.inf)))
        value = float(values[i])
        if self._best is None or (value > self._best[1] if self.maximize else value < self._best[1]):
            self._best = (X[i].reshape(self.shape).copy(), value)

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
        """(x, value) of the best point told so far, x shaped like x0 (ValueError before any tell);
        after ``load``, the algorithm's own best until more values are told."""
        if self._best is not None:
            return self._best[0].copy(), self._best[1]
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

    @property
    def round(self) -> int | None:
        """Round of the pending ``ask()`` within its generation (0: the population; 1: the GA's
        elite re-evaluation), or None when nothing is asked."""
        return self._c.round

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
        self._asked = self._centre = self._best = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(dim={self.dim}, generations={self.generations})"


# ---- your own ask/tell class ------------------------------------------------------------------------

def _class_spec(cls: Any) -> str:
    """The optimizer server's name for a class (``python.class``): ``module:Qual.Name`` for an
    importable class, ``/path/script.py:Name`` for one defined in the running script,
    ``pickle:/tmp/neuroevo-opt-HASH.pkl`` (the class by value) for a notebook's or a function's."""
    module, qualname = getattr(cls, "__module__", None), getattr(cls, "__qualname__", None)
    if not isinstance(cls, type) or not module or not qualname:
        raise TypeError(f"PythonOptimizer needs a class or 'module:Class', got {cls!r}")
    if module != "__main__" and "<locals>" not in qualname:
        return f"{module}:{qualname}"
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if module == "__main__" and main_file and "<locals>" not in qualname:
        return f"{os.path.abspath(main_file)}:{qualname}"  # imported there with its main guard intact
    # a notebook's or a function's own class: by value
    try:
        import cloudpickle
    except ImportError:
        raise TypeError(f"{qualname} is defined in a notebook or a function: define it in a module (a .py file "
                        "next to it) or install cloudpickle so that the optimizer server can get it") from None
    data = cloudpickle.dumps(cls)
    # named by its content: the same class is the same setting (a saved state loads into an optimizer
    # made again from it), and it stays for any optimizer made from it later
    path = os.path.join(tempfile.gettempdir(), f"neuroevo-opt-{hashlib.sha256(data).hexdigest()[:20]}.pkl")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return "pickle:" + path


def _option_text(value: Any) -> str:
    """A Python expression for a keyword argument's value (the server evaluates ``python.options``)."""
    if isinstance(value, np.ndarray):
        return f"np.asarray({value.tolist()!r}, dtype={str(value.dtype)!r})"
    text = repr(value)
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise TypeError(f"option value {value!r} has no literal form to send to the optimizer server: use numbers, "
                        "strings, lists, tuples, dicts or NumPy arrays") from None
    return text


@contextlib.contextmanager
def _caller_path() -> Iterator[None]:
    """The optimizer server sees the caller's sys.path (its modules, a notebook's folder) while it is
    started here."""
    old = os.environ.get("PYTHONPATH")
    paths = [p or os.getcwd() for p in sys.path] + ([old] if old else [])
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    try:
        yield
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old


class PythonOptimizer(AskTell):
    """Your own ask/tell optimizer driven like every other algorithm: its candidates are asked in an
    optimizer server process, evaluated wherever you evaluate, told back in order.

        class RandomSearch:
            def __init__(self, x0, sigma=0.1, popsize=8, seed=0):
                self.rng, self.mean, self.sigma, self.n = np.random.default_rng(seed), x0, sigma, popsize
            def ask(self):
                return self.mean + self.sigma * self.rng.standard_normal((self.n, len(self.mean)))
            def tell(self, candidates, losses):
                self.mean = candidates[int(np.argmin(losses))]

        opt = PythonOptimizer(RandomSearch, x0, sigma=0.3)   # **options go to RandomSearch(...)
        x, fx = opt.optimize(f, generations=50)

    Args:
        cls_or_path: the class (defined anywhere: a module, your script, a notebook) or
            ``"module:Class"``. ``ask()`` returns the batch (or one candidate, with ``popsize``),
            ``tell(candidates, losses)`` takes losses to minimize; ``recommend()`` (or ``mean``) is
            its current best guess, evaluated as ``centre``.
        x0: the start point (the class gets it as ``x0`` when its ``__init__`` has that argument,
            likewise ``dim`` and ``seed``).
        population: for a class whose ask() returns one candidate: it is called this many times a
            generation (and tell(candidate, loss) once per candidate), as Nevergrad's are.
        config: more ``[python]`` keys (``{"eval_recommendation": False}``).
        **options: the class's own keyword arguments (numbers, strings, lists, NumPy arrays).
    """

    algorithm: ClassVar[str] = "python"
    section: ClassVar[str] = "python"

    def __init__(self, cls_or_path: Any, x0: Iterable[float] | np.ndarray, /, *, population: int | None = None,
                 seed: int = 0, maximize: bool = False, config: Mapping[str, Any] | None = None, **options: Any):
        if os.environ.get("NEUROEVO_IN_OPTIMIZER_SERVER"):
            raise RuntimeError("a PythonOptimizer made while the optimizer server imports the script that defines "
                               "its class: put the script's own work under `if __name__ == \"__main__\":`")
        if isinstance(cls_or_path, str):
            spec, names = cls_or_path, set()
            module, _, qualname = cls_or_path.rpartition(":")
            try:  # the class's arguments, when it imports here too
                obj: Any = importlib.import_module(module)
                for part in qualname.split("."):
                    obj = getattr(obj, part)
                names = set(inspect.signature(obj).parameters)
            except Exception:
                pass
        else:
            spec = _class_spec(cls_or_path)
            try:
                names = set(inspect.signature(cls_or_path).parameters)
            except (TypeError, ValueError):
                names = set()
        given = dict(options)
        for name in ("x0", "dim", "seed"):  # what the server knows, for a class that asks for it
            if name in names and name not in given:
                given[name] = _Raw(name)
        text = ", ".join(f"{k}={v.text if isinstance(v, _Raw) else _option_text(v)}" for k, v in given.items())
        settings = {**(config or {}), "class": spec, "options": text}
        if population is not None:
            settings["population"] = population
        with _caller_path():
            super().__init__(x0, popsize=None, seed=seed, maximize=maximize, options=settings)


class _Raw:
    """An option's value the server fills in (x0, dim, seed): its name as the expression."""

    def __init__(self, text: str):
        self.text = text


def _class_name(name: str) -> str:
    return CLASS_NAMES.get(name) or re.sub(r"\W", "_", name.upper())


_classes: dict[str, type[AskTell]] = {}
for _name, _section in _core.algorithms():
    if _name == "python":
        _cls: type[AskTell] = PythonOptimizer
    else:
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
