# SPDX-License-Identifier: MIT
# Shared fixtures of the Python package's tests: which neuroevo is under test (ctest puts the staged
# build on PYTHONPATH and says so in NEUROEVO_REQUIRE_STAGE; a stale installed copy must not be
# picked up instead), the CLI for cross-checks, and the helper Gymnasium envs the bridge tests use.
import os
import sys

import pytest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def pytest_configure(config):
    # the env servers import the helper envs (bridge_envs.py) from here
    paths = [TESTS_DIR] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    if TESTS_DIR not in sys.path:
        sys.path.insert(0, TESTS_DIR)


@pytest.fixture(scope="session", autouse=True)
def package_under_test():
    import neuroevo

    stage = os.environ.get("NEUROEVO_REQUIRE_STAGE")
    if stage:
        assert os.path.realpath(neuroevo.__file__).startswith(os.path.realpath(stage)), (
            f"testing {neuroevo.__file__}, not the staged build in {stage}")
    return neuroevo


@pytest.fixture(scope="session")
def cli():
    """The neuroevo CLI (ctest sets NEUROEVO_BIN); a missing CLI is a failure, never a skip."""
    path = os.environ.get("NEUROEVO_BIN") or os.path.join(TESTS_DIR, "..", "..", "build", "neuroevo")
    if not os.access(path, os.X_OK):
        pytest.fail(f"the neuroevo CLI is needed for this test: set NEUROEVO_BIN (tried {path})")
    return path


def child_pids():
    """Live (non-zombie) child processes of this test process."""
    me, out = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            out.append((int(entry), fields[0]))
    return out
