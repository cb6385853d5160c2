# SPDX-License-Identifier: MIT
"""Training runs from Python: ``neuroevo.run(config, **overrides)`` -> ``Run``.

The run is the C library's (``ne_run_create`` + ``ne_run_loop``): it trains in the C thread pool on a
thread of its own while the GIL is released, writes the same run directory as ``neuroevo run``, and
Ctrl-C stops it at a checkpoint (``neuroevo.resume(run.dir)`` continues it).
"""
from __future__ import annotations

import difflib
import glob
import math
import os
import sys
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from . import _core
from ._genome import Genome, Params

_INT_COLUMNS = {"generation", "evaluations", "env_steps"}


def _config_dirs() -> list[str]:
    dirs = [d for d in os.environ.get("NEUROEVO_CONFIG_PATH", "").split(os.pathsep) if d]
    dirs.append(os.path.join(os.getcwd(), "configs"))
    dirs.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs"))
    return dirs


def find_config(config: str | os.PathLike[str]) -> str:
    """The path of a config: an existing file, or NAME looked up as NAME.ini in $NEUROEVO_CONFIG_PATH,
    ./configs and the configs shipped with the package."""
    path = os.fspath(config)
    if os.path.isfile(path):
        return path
    for d in _config_dirs():
        for candidate in (os.path.join(d, path), os.path.join(d, path + ".ini")):
            if os.path.isfile(candidate):
                return candidate
    names = sorted({os.path.splitext(os.path.basename(p))[0] for d in _config_dirs()
                    for p in glob.glob(os.path.join(d, "*.ini"))})
    near = difflib.get_close_matches(path, names, n=1, cutoff=0.75)
    if near:
        raise FileNotFoundError(f"no config named {path!r} (did you mean {near[0]!r}?)")
    raise FileNotFoundError(f"no config named {path!r} (available: {', '.join(names) or 'none'}; "
                            "a path to an .ini file works too)")


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def overrides_list(overrides: Mapping[str, Any] | None = None, **kwargs: Any) -> list[str]:
    """``{"ga.population": 500}``, ``{"ga": {"population": 500}}`` and ``ga__population=500`` ->
    ``["ga.population=500"]``."""
    out = []
    for key, value in (overrides or {}).items():
        if isinstance(value, Mapping):
            out += [f"{key}.{k}={_value_text(v)}" for k, v in value.items()]
        else:
            out.append(f"{key}={_value_text(value)}")
    for key, value in kwargs.items():
        section, sep, name = key.partition("__")
        if not sep or not section or not name:
            keys = [(sec, k) for sec, k, *_ in _core.config_keys()]
            near = [f"{sec}__{k}" for sec, k in keys if k == key] or [
                f"{sec}__{k}" for sec, k in keys if k in difflib.get_close_matches(key, [k for _, k in keys], n=1)]
            hint = f"did you mean {' or '.join(near[:3])}?" if near else "e.g. ga__population=500"
            raise TypeError(f"unexpected keyword {key!r}: config overrides are written section__key=value ({hint})")
        out.append(f"{section}.{name}={_value_text(value)}")
    return out


def read_metrics(path: str) -> np.ndarray:
    """metrics.csv as a NumPy record array (one row per generation; empty before the first)."""
    with open(path, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()]
    names = lines[0].split(",") if lines else []
    dtype = [(n, np.int64 if n in _INT_COLUMNS else np.float64) for n in names]
    rows = [tuple(int(v) if n in _INT_COLUMNS else float(v) for n, v in zip(names, line.split(",")))
            for line in lines[1:]]
    return np.rec.array(np.array(rows, dtype=dtype)) if dtype else np.rec.array(np.zeros(0, dtype=[("generation", np.int64)]))


class Run:
    """A run directory: ``config.ini``, ``metrics.csv``, ``best.genome``, ``checkpoints/``, ``curve.png``."""

    def __init__(self, directory: str | os.PathLike[str], generations: int | None = None,
                 best_score: float | None = None):
        self.dir: str = os.fspath(directory)
        self.generations: int | None = generations
        self.best_score: float | None = None if best_score is None or math.isnan(best_score) else best_score

    def __repr__(self) -> str:
        return f"Run({self.dir!r}, generations={self.generations}, best_score={self.best_score})"

    @property
    def metrics(self) -> np.ndarray:
        """metrics.csv as a record array: ``run.metrics.best``, ``run.metrics["env_steps"]``, ..."""
        return read_metrics(os.path.join(self.dir, "metrics.csv"))

    @property
    def best(self) -> Genome | Params | None:
        """The best solution: a Genome (best.genome, the GA) or Params (best.params: the ES family's
        vector solutions with their observation normalization); None before the first."""
        path = os.path.join(self.dir, "best.genome")
        if os.path.exists(path):
            return Genome.load(path)
        path = os.path.join(self.dir, "best.params")
        return Params.load(path) if os.path.exists(path) else None

    @property
    def config(self) -> str:
        """The resolved config (config.ini text)."""
        with open(os.path.join(self.dir, "config.ini"), encoding="utf-8") as f:
            return f.read()

    @property
    def curve(self) -> str:
        """Path of the training-curve plot."""
        return os.path.join(self.dir, "curve.png")

    def resume(self, *, generations: int | None = None, threads: int | None = None, quiet: bool = True,
               callback: Callable[[dict[str, Any]], Any] | None = None) -> Run:
        """Continues this run from its newest checkpoint (see ``neuroevo.resume``)."""
        return resume(self.dir, generations=generations, threads=threads, quiet=quiet, callback=callback)


def _count(name: str, value: Any, meaning_of_zero: str) -> int | None:
    """None, or a non-negative int (``bool`` and floats are refused: ``threads=2.0`` is a slip)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int >= 0 ({meaning_of_zero}) or None (the config's), "
                        f"got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0 ({meaning_of_zero}) or None (the config's), got {value}")
    return int(value)


def _budget(threads: Any, generations: Any) -> tuple[int, int, list[str]]:
    """The C run's threads and generations (0 there: the config's), and overrides for what the C
    options cannot say: threads=0 is all cores and generations=0 no limit, as on the command line."""
    t = _count("threads", threads, "0 = all cores")
    g = _count("generations", generations, "0 = no limit")
    if t == 0:
        t = os.cpu_count() or 1  # what ne_cpu_count() and the CLI's --threads 0 use
    items = ["run.generations=0"] if g == 0 else []
    return t or 0, g or 0, items


class _MetricsHook:
    """The C run's per-generation hook: reads the rows metrics.csv gained and hands each to the
    user's callback as a dict; the callback returning ``False`` ends the run at that generation."""

    def __init__(self, callback: Callable[[dict[str, Any]], Any]):
        if not callable(callback):
            raise TypeError(f"callback must be callable (it gets each generation's metrics row as a dict), "
                            f"got {type(callback).__name__}")
        self.callback = callback
        self.offset = 0
        self.names: list[str] = []

    def __call__(self, run_dir: str, generation: int) -> bool:
        # the hook comes once per generation, right after its row: the file's last line (the first
        # call reads the rows of earlier sessions too, and skips them)
        with open(os.path.join(run_dir, "metrics.csv"), "rb") as f:
            if not self.names:
                self.names = f.readline().decode("utf-8").strip().split(",")
                self.offset = f.tell()
            f.seek(self.offset)
            text = f.read()
        self.offset += len(text)
        lines = text.decode("utf-8").splitlines()
        row = {n: int(v) if n in _INT_COLUMNS else float(v) for n, v in zip(self.names, lines[-1].split(","))}
        return self.callback(row) is not False


def _start(config_path: str | None, items: list[str] | None, *, resume_dir: str | None = None, name: str | None = None,
           out_dir: str | None = None, threads: Any = None, generations: Any = None, quiet: bool = True,
           callback: Callable[[dict[str, Any]], Any] | None = None, tags: Sequence[str] | None = None,
           note: str | None = None) -> Run:
    t, g, budget_items = _budget(threads, generations)
    hook = _MetricsHook(callback) if callback is not None else None
    argv = [sys.executable, *sys.argv]  # the command line the run's record (run.json) keeps
    if isinstance(tags, str):
        tags = [tags]
    if resume_dir is not None:
        if budget_items:
            raise ValueError("resume(generations=0): a resumed run keeps its config's budget or takes a new "
                             "total > 0 (run.generations = 0 in its config.ini means no limit)")
        directory, gens, best = _core.run(None, None, resume=resume_dir, threads=t, generations=g,
                                          quiet=bool(quiet), on_generation=hook, argv=argv)
    else:
        directory, gens, best = _core.run(config_path, (items or []) + budget_items, name=name, out_dir=out_dir,
                                          threads=t, generations=g, quiet=bool(quiet), on_generation=hook,
                                          argv=argv, tags=list(tags) if tags else None, note=note)
    return Run(directory, gens, best)


def _run_dir(out: Any, out_dir: Any) -> str | None:
    """The run directory of ``out=`` (or its other name ``out_dir=``): new, or an empty folder."""
    if out is not None and out_dir is not None:
        raise TypeError("give out= (the run directory) or out_dir= (the same), not both")
    path = out if out is not None else out_dir
    if path is None:
        return None
    path = os.fspath(path)
    if os.path.isdir(path) and os.listdir(path) and not os.path.exists(os.path.join(path, "config.ini")):
        raise ValueError(f"out={path!r} is the run directory itself (as the CLI's --out) and that folder already "
                         f"holds other files; for a folder of runs give runs={path!r} (each run gets "
                         "<config>-<timestamp> inside, as run.out)")
    return path


def run(config: str | os.PathLike[str] | None = "cartpole-ga", overrides: Mapping[str, Any] | None = None, *,
        threads: int | None = None, generations: int | None = None, out: str | os.PathLike[str] | None = None,
        runs: str | os.PathLike[str] | None = None, out_dir: str | os.PathLike[str] | None = None,
        name: str | None = None, quiet: bool = True, callback: Callable[[dict[str, Any]], Any] | None = None,
        tags: Sequence[str] | None = None, note: str | None = None, **kwargs: Any) -> Run:
    """Trains with the C library and returns the ``Run``.

    Args:
        config: a config name (``"cartpole-ga"``), a path, or None for the defaults.
        overrides: ``{"ga.population": 500}`` or ``{"ga": {"population": 500}}``.
        threads: evaluation threads; 0 = all cores, None = ``run.threads`` (as ``--threads``).
        generations: generation budget in all; 0 = no limit, None = ``run.generations``.
        out: the run directory itself, as the CLI's ``--out`` (new, or an empty folder).
        runs: a folder of runs instead, as ``run.out``: the run gets ``<name>-<timestamp>`` inside it
            (default: ``run.out``, ``runs``).
        out_dir: another name for ``out``.
        name: prefix of the run directory in ``runs`` (default: the config's name).
        quiet: no progress lines on stdout (log.txt gets them either way).
        callback: called on this thread after each generation with its metrics.csv row as a dict
            (``generation``, ``evaluations``, ``env_steps``, ``wall_s``, ``best``, ``mean``,
            ``median``, ``elite_mean``, ...), e.g. to log to W&B or MLflow; returning ``False`` ends
            the run there (checkpointed, as a budget would); an exception ends it the same way and
            is raised from ``run``.
        tags, note: the run's first tags and note in its record (run.json; ``neuroevo runs --tag``).
        **kwargs: more overrides as ``section__key=value``, e.g. ``ga__population=500``.

    Raises ``neuroevo.Error`` with the library's message (unknown key, env failure, ...),
    ``TypeError``/``ValueError`` for bad arguments, and ``KeyboardInterrupt`` after Ctrl-C once a
    checkpoint of the last completed generation is written.
    """
    if overrides is not None and not isinstance(overrides, Mapping):
        raise TypeError(f"overrides must be a mapping such as {{'ga.population': 500}}, got {type(overrides).__name__}")
    path = find_config(config) if config is not None else None
    items = overrides_list(overrides, **kwargs)
    run_dir = _run_dir(out, out_dir)
    if runs is not None:
        if run_dir is not None:
            raise TypeError("give out= (the run directory) or runs= (a folder of runs), not both")
        items.append(f"run.out={os.fspath(runs)}")
    if name is None:
        name = os.path.splitext(os.path.basename(path))[0] if path else "run"
    return _start(path, items, name=name, out_dir=run_dir, threads=threads, generations=generations, quiet=quiet,
                  callback=callback, tags=tags, note=note)


def resume(run_dir: str | os.PathLike[str], *, generations: int | None = None, threads: int | None = None,
           quiet: bool = True, callback: Callable[[dict[str, Any]], Any] | None = None) -> Run:
    """Continues a run from its newest valid checkpoint; the result equals an uninterrupted run.
    ``generations``: a new total budget (None keeps the run's); ``threads`` and ``callback`` as in
    ``run``."""
    return _start(None, None, resume_dir=os.fspath(run_dir), threads=threads, generations=generations, quiet=quiet,
                  callback=callback)
