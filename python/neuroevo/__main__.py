# SPDX-License-Identifier: MIT
"""The ``neuroevo`` command of a pip install: ``neuroevo ARGS`` (the console script) and
``python -m neuroevo ARGS`` run the C command-line tool shipped in the package
(``neuroevo/bin/neuroevo``: run, resume, eval, render, report, compare, dashboard, worker, ...), the
same program ``make`` builds, not a Python copy of it.

The process is replaced by the tool (``os.execv``), so signals, exit codes and output are the
tool's own. Before that, the environment it reads is set up as ``import neuroevo`` does for the
library (gym: env servers on this interpreter, MuJoCo's model folder from this gymnasium), named
configs are looked up in ``$NEUROEVO_CONFIG_PATH``, ``./configs`` and then the package's configs,
and MuJoCo's library is put on the loader path when the ``mujoco`` package is not beside this one.
"""
from __future__ import annotations

import os
import sys

from . import _PACKAGE_DIR, _mujoco_library_dir


def cli_path() -> str:
    """Path of the packaged C command-line tool."""
    return os.path.join(_PACKAGE_DIR, "bin", "neuroevo")


def _prepend(name: str, entries: list[str]) -> None:
    old = [p for p in os.environ.get(name, "").split(os.pathsep) if p]
    os.environ[name] = os.pathsep.join(dict.fromkeys(entries + old))


def main(argv: list[str] | None = None) -> int:
    """Runs the C tool with ``argv`` (default: this process's arguments); returns only on failure."""
    args = sys.argv[1:] if argv is None else list(argv)
    exe = cli_path()
    if not os.access(exe, os.X_OK):
        print(f"neuroevo: the command-line tool is missing from this installation ({exe}); "
              "reinstall the package (pip install .) or build it with `make`", file=sys.stderr)
        return 2
    # configs: the user's path first, then ./configs, then the ones installed with the package
    user = [p for p in os.environ.get("NEUROEVO_CONFIG_PATH", "").split(os.pathsep) if p]
    os.environ["NEUROEVO_CONFIG_PATH"] = os.pathsep.join(
        dict.fromkeys(user + ["configs", os.path.join(_PACKAGE_DIR, "configs")]))
    # MuJoCo's library: the rpath finds it beside this package; anywhere else, the loader path does
    lib_dir = _mujoco_library_dir()
    if lib_dir and os.path.dirname(lib_dir) != os.path.dirname(_PACKAGE_DIR):
        _prepend("LD_LIBRARY_PATH", [lib_dir])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, ["neuroevo", *args])
    return 127  # not reached: execv replaces the process or raises


if __name__ == "__main__":
    sys.exit(main())
