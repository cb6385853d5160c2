# SPDX-License-Identifier: MIT
# Optimizers in a server process from Python: neuroevo.run with run.algorithm = nevergrad (Nevergrad
# from PyPI) and with python (any ask/tell class: tests/opt_classes.py) trains a CartPole policy and
# writes best.params; 1 vs 2 threads identical; neuroevo.resume continues to the uninterrupted run;
# a bad optimizer name and an optimizer that raises surface as neuroevo.Error with the optimizer's
# message; neuroevo.algorithms (the C registry) drives Nevergrad through the same bridge.
import os

import numpy as np
import pytest

import neuroevo

SOURCE = os.environ.get("NEUROEVO_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
CARTPOLE = """[run]
algorithm = {algo}
generations = 6
target = none
[env]
id = CartPole-v1
[policy]
hidden = 8
"""


@pytest.fixture(autouse=True)
def opt_classes_on_path(monkeypatch):
    # the server inherits the environment: tests/opt_classes.py must be importable there
    path = os.path.join(os.path.abspath(SOURCE), "tests")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([path, os.environ.get("PYTHONPATH", "")]))


def config(tmp_path, algo, extra=""):
    path = tmp_path / f"{algo}.ini"
    path.write_text(CARTPOLE.format(algo=algo) + extra)
    return str(path)


def rows(run):
    m = run.metrics
    return [tuple(r) for r in np.lib.recfunctions.drop_fields(m, "wall_s", usemask=False)]


def test_nevergrad_run_from_python(tmp_path):
    import numpy.lib.recfunctions  # noqa: F401  (rows)

    ini = config(tmp_path, "nevergrad", "[nevergrad]\noptimizer = TwoPointsDE\npopulation = 12\neval_episodes = 5\n")
    one = neuroevo.run(ini, runs=tmp_path / "one", threads=1, quiet=True)
    two = neuroevo.run(ini, runs=tmp_path / "two", threads=2, quiet=True)
    assert one.generations == 6 and len(one.metrics) == 6
    assert np.all(one.metrics.evaluations == 13 * np.arange(1, 7))  # 12 candidates + the recommendation
    assert np.all(np.isfinite(one.metrics.elite_mean))
    assert rows(one) == rows(two)
    assert isinstance(one.best, neuroevo.Params) and one.best.params.shape == (4 * 8 + 8 + 8 * 2 + 2,)
    assert os.path.exists(os.path.join(one.dir, "best.params"))


def test_resume_continues_to_the_uninterrupted_run(tmp_path):
    import numpy.lib.recfunctions  # noqa: F401

    # an explicit budget: the default (run.generations x population) is fixed when a run starts, so
    # the 3-generation run's optimizer would have half the full run's budget
    ini = config(tmp_path, "nevergrad",
                 "[nevergrad]\noptimizer = OnePlusOne\npopulation = 8\nbudget = 48\nsnapshot_mb = 0\n")
    full = neuroevo.run(ini, runs=tmp_path / "full", quiet=True)
    part = neuroevo.run(ini, runs=tmp_path / "part", generations=3, quiet=True)
    assert part.generations == 3
    done = neuroevo.resume(part.dir, generations=6, quiet=True)
    assert rows(done) == rows(full)
    # an auto budget is written into the run's config.ini at the start and kept by resume
    auto = config(tmp_path, "nevergrad", "[nevergrad]\noptimizer = OnePlusOne\npopulation = 8\nsnapshot_mb = 0\n")
    short = neuroevo.run(auto, runs=tmp_path / "short", generations=2, quiet=True)
    longer = neuroevo.resume(short.dir, generations=4, quiet=True)
    assert longer.generations == 4
    assert "budget = 16" in open(os.path.join(short.dir, "config.ini")).read()


def test_any_ask_tell_class(tmp_path):
    extra = "[python]\nclass = opt_classes:RandomSearch\noptions = x0=x0, popsize=10, seed=seed\n"
    run = neuroevo.run(config(tmp_path, "python", extra), runs=tmp_path / "py", quiet=True)
    assert np.all(run.metrics.evaluations == 11 * np.arange(1, 7))
    assert run.best_score > 9  # better than the ~9-step episodes of a random CartPole policy


def test_bad_optimizer_name_lists_the_nearest(tmp_path):
    ini = config(tmp_path, "nevergrad", "[nevergrad]\noptimizer = OnePlusOn\n")
    with pytest.raises(neuroevo.Error, match=r"no optimizer 'OnePlusOn' in Nevergrad .*nearest: OnePlusOne"):
        neuroevo.run(ini, runs=tmp_path / "bad", quiet=True)


def test_an_optimizer_that_raises_stops_the_run(tmp_path, monkeypatch):
    monkeypatch.setenv("NE_TEST_RAISE_AT", "2")
    extra = "[python]\nclass = opt_classes:Flaky\noptions = x0=x0, seed=seed\n"
    with pytest.raises(neuroevo.Error, match=r"tell raised RuntimeError: flaky optimizer gave up in generation 2"):
        neuroevo.run(config(tmp_path, "python", extra), runs=tmp_path / "flaky", quiet=True)
    (run_dir,) = os.listdir(tmp_path / "flaky")  # the run's directory, left with its checkpoints
    ckpts = sorted(f for f in os.listdir(tmp_path / "flaky" / run_dir / "checkpoints") if f.startswith("ckpt-"))
    assert ckpts[-1] == "ckpt-00000002.bin"


def test_algorithms_module_drives_nevergrad():
    es = neuroevo.algorithms.Nevergrad(np.full(5, 3.0), sigma0=1.0, popsize=8, optimizer="OnePlusOne",
                                       eval_recommendation=False, seed=1)
    assert "nevergrad" in neuroevo.algorithms.names()
    x, fx = es.optimize(lambda x: float(np.sum((x - 1.0) ** 2)), generations=60)
    assert fx < 0.5 and x.shape == (5,)
