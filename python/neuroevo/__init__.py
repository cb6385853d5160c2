# SPDX-License-Identifier: MIT
"""neuroevo: distributed neuroevolution in C, from Python.

The package is a thin layer over the C library (the extension module ``neuroevo._core``):

- ``make(id)``: a neuroevo env with Gymnasium's API; also registered as ``neuroevo/<id>`` for
  ``gymnasium.make`` once neuroevo is imported.
- ``run(config, **overrides)``: trains in the C thread pool (GIL released) and returns a ``Run``.
- ``Genome``, ``Params``, ``evaluate_policy``: best.genome seed chains and best.params vectors.
- ``neuroevo.algorithms``: ask/tell classes over every algorithm registered in C.
- ``env.id = gym:ID`` in a config makes any installed Gymnasium env a neuroevo task through an env
  server process (``neuroevo.envserver``).
- ``run.algorithm = nevergrad`` (any optimizer of Nevergrad's registry) or ``python`` (any ask/tell
  class, ``neuroevo.adapters`` shows the shape) runs the optimizer in a server process
  (``neuroevo.optserver``) while the C executors evaluate its candidates.
"""
from __future__ import annotations

import os
import sys

from . import _core
from ._core import Error
from ._env import NeuroevoEnv, make, register_envs
from ._genome import Genome, Params, evaluate_policy
from ._run import Run, find_config, resume, run
from . import algorithms

__version__: str = _core.__version__

__all__ = [
    "Error",
    "Genome",
    "NeuroevoEnv",
    "Params",
    "Run",
    "algorithms",
    "env_ids",
    "evaluate_policy",
    "find_config",
    "make",
    "register_envs",
    "resume",
    "run",
]

# The C library starts gym: env servers as `$NEUROEVO_PYTHON $NEUROEVO_ENVSERVER ...`: this very
# interpreter and this package's server script, unless the user chose others.
os.environ.setdefault("NEUROEVO_PYTHON", sys.executable)
os.environ.setdefault("NEUROEVO_ENVSERVER", os.path.join(os.path.dirname(os.path.abspath(__file__)), "envserver.py"))
# ... and run.algorithm = nevergrad | python their optimizer server likewise
os.environ.setdefault("NEUROEVO_OPTSERVER", os.path.join(os.path.dirname(os.path.abspath(__file__)), "optserver.py"))


def env_ids() -> list[str]:
    """The ids of the native env registry (``gym:ID`` ids are accepted on top of these)."""
    return [env_id for env_id, _ in _core.env_ids()]


register_envs()
