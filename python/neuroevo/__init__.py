# SPDX-License-Identifier: MIT
"""neuroevo: distributed neuroevolution in C, from Python.

The package is a thin layer over the C library (the extension module ``neuroevo._core``):

- ``make(id)``: a neuroevo env with Gymnasium's API; also registered as ``neuroevo/<id>`` for
  ``gymnasium.make`` once neuroevo is imported.
- ``run(config, **overrides)``: trains in the C thread pool (GIL released) and returns a ``Run``.
- ``Genome``, ``Params``, ``evaluate_policy``: best.genome seed chains and best.params vectors.
- ``Policy``, ``evaluate``: act with a parameter vector; the mean return of a vector or a
  population (the fitness function for pycma, Nevergrad, evosax), in C threads without the GIL.
- ``neuroevo.algorithms``: ask/tell classes over every algorithm registered in C.
- ``env.id = gym:ID`` in a config makes any installed Gymnasium env a neuroevo task through an env
  server process (``neuroevo.envserver``).
- ``run.algorithm = nevergrad`` (any optimizer of Nevergrad's registry) or ``python`` (any ask/tell
  class, ``neuroevo.adapters`` shows the shape) runs the optimizer in a server process
  (``neuroevo.optserver``) while the C executors evaluate its candidates.
- ``neuroevo`` / ``python -m neuroevo``: the C command-line tool shipped in the package
  (``neuroevo/bin/neuroevo``; see ``neuroevo.__main__``).
"""
from __future__ import annotations

import glob
import importlib.util
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _package_dir(name: str) -> str | None:
    """The folder of an installed top-level package, found without importing it."""
    spec = importlib.util.find_spec(name)
    return os.path.dirname(spec.origin) if spec and spec.origin else None


def _set_environment() -> None:
    """What the C library reads from the environment, for this process and the ``neuroevo`` command:
    gym: env servers and optimizer servers run as ``$NEUROEVO_PYTHON $NEUROEVO_ENVSERVER`` /
    ``$NEUROEVO_OPTSERVER`` (this interpreter, this package's servers), MuJoCo models come from
    ``$NEUROEVO_MUJOCO_ASSETS`` (the gymnasium this interpreter has: a wheel compiles in no model
    folder). A user's own values win."""
    os.environ.setdefault("NEUROEVO_PYTHON", sys.executable)
    os.environ.setdefault("NEUROEVO_ENVSERVER", os.path.join(_PACKAGE_DIR, "envserver.py"))
    os.environ.setdefault("NEUROEVO_OPTSERVER", os.path.join(_PACKAGE_DIR, "optserver.py"))
    gym_dir = _package_dir("gymnasium")
    assets = os.path.join(gym_dir, "envs", "mujoco", "assets") if gym_dir else ""
    if os.path.isfile(os.path.join(assets, "hopper.xml")):
        os.environ.setdefault("NEUROEVO_MUJOCO_ASSETS", assets)


def _mujoco_library_dir() -> str | None:
    """The folder of the runtime ``mujoco`` package's C library (libmujoco.so.*), or None."""
    mj_dir = _package_dir("mujoco")
    return mj_dir if mj_dir and glob.glob(os.path.join(mj_dir, "libmujoco.so*")) else None


def _load_core():  # type: ignore[no-untyped-def]
    """Imports the extension. Its MuJoCo library is found through the rpath beside the package;
    when ``mujoco`` lives elsewhere (a venv with --system-site-packages, a --user install) the
    library is loaded from there first, so the extension's dependency is already satisfied."""
    try:
        from . import _core as core
    except ImportError as e:
        lib_dir = _mujoco_library_dir()
        if "libmujoco" not in str(e) or lib_dir is None:
            raise
        import ctypes

        for lib in sorted(glob.glob(os.path.join(lib_dir, "libmujoco.so*"))):
            ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
        from . import _core as core
    return core


_set_environment()
_core = _load_core()

from ._core import Error  # noqa: E402
from ._env import NeuroevoEnv, make, register_envs  # noqa: E402
from ._genome import Genome, Params, evaluate_policy  # noqa: E402
from ._policy import Policy, evaluate  # noqa: E402
from ._run import Run, find_config, resume, run  # noqa: E402
from . import algorithms  # noqa: E402

__version__: str = _core.__version__

__all__ = [
    "Error",
    "Genome",
    "NeuroevoEnv",
    "Params",
    "Policy",
    "Run",
    "algorithms",
    "env_ids",
    "evaluate",
    "evaluate_policy",
    "find_config",
    "make",
    "register_envs",
    "resume",
    "run",
]


def env_ids() -> list[str]:
    """The ids of the native env registry (``gym:ID`` ids are accepted on top of these)."""
    return [env_id for env_id, _ in _core.env_ids()]


register_envs()
