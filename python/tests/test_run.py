# SPDX-License-Identifier: MIT
# neuroevo.run and genomes: a GA run from Python solves CartPole and leaves the same run directory
# as the CLI; its metrics are a record array; the best genome round-trips through save/load and
# its evaluate_policy figure equals `neuroevo eval`'s; overrides in every accepted form; resume;
# configuration errors surface as neuroevo.Error naming the key.
import os
import re
import subprocess

import numpy as np
import pytest

import neuroevo


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    return neuroevo.run("cartpole-ga", runs=out, threads=2)


def test_ga_from_python_solves_cartpole(solved):
    assert os.path.isdir(solved.dir) and os.path.basename(solved.dir).startswith("cartpole-ga-")
    m = solved.metrics
    assert m.dtype.names[:4] == ("generation", "evaluations", "env_steps", "wall_s")
    assert len(m) == solved.generations >= 1
    assert m.elite_mean[-1] >= 475.0 and solved.best_score >= 475.0
    assert np.all(np.diff(m.env_steps) > 0)
    for name in ("config.ini", "metrics.csv", "best.genome", "log.txt"):
        assert os.path.exists(os.path.join(solved.dir, name)), name
    assert "[ga]" in solved.config


def test_genome_round_trip(solved, tmp_path):
    g = solved.best
    assert g.env_id == "CartPole-v1" and len(g.seeds) >= 1 and g.sigma == pytest.approx(0.1)
    path = tmp_path / "copy.genome"
    g.save(path)
    back = neuroevo.Genome.load(path)
    assert back == g and back.to_text() == g.to_text()
    with open(os.path.join(solved.dir, "best.genome")) as f:
        assert f.read() == g.to_text()  # the same text format the run wrote
    params = g.params()
    assert params.dtype == np.float32 and params.shape == (4 * 16 + 16 + 16 * 2 + 2,)
    np.testing.assert_array_equal(params, back.params())
    assert g.policy_spec().startswith("mlp 4-16-2 tanh argmax")


def test_evaluate_policy_matches_the_cli(solved, cli):
    g = solved.best
    ours = neuroevo.evaluate_policy(g, episodes=30, seed=5)
    assert ours == neuroevo.evaluate_policy("CartPole-v1", g.seeds, 30, sigma=g.sigma, seed=5, hidden=(16,),
                                            threads=1)
    out = subprocess.run([cli, "eval", solved.dir, "--episodes", "30", "--seed", "5"], capture_output=True,
                         text=True, check=True).stdout
    cli_mean = float(re.search(r"mean return (-?[\d.]+)", out).group(1))
    assert f"{ours:.2f}" == f"{cli_mean:.2f}", out
    returns = neuroevo.evaluate_policy(g, episodes=30, seed=5, return_episodes=True)
    assert returns.shape == (30,) and returns.dtype == np.float64
    assert neuroevo.evaluate_policy(g, episodes=30, seed=6) != ours or np.all(returns == returns[0])


def test_overrides_in_every_form(tmp_path):
    a = neuroevo.run("cartpole-ga", {"ga.population": 20}, runs=tmp_path, generations=2, ga__truncation=5,
                     threads=1, run__target="none")
    b = neuroevo.run("cartpole-ga", {"ga": {"population": 20, "truncation": 5}, "run.target": "none"},
                     runs=tmp_path, generations=2, threads=2)
    assert "population = 20" in a.config and "truncation = 5" in a.config
    assert a.generations == b.generations == 2
    # a run is a pure function of (config, seed): thread count changes nothing but wall time
    for col in ("evaluations", "env_steps", "best", "mean", "median", "elite_mean"):
        np.testing.assert_array_equal(a.metrics[col], b.metrics[col])


def test_resume_continues_to_the_same_result(tmp_path):
    full = neuroevo.run("cartpole-ga", runs=tmp_path / "a", generations=3, ga__population=30, run__target="none")
    part = neuroevo.run("cartpole-ga", runs=tmp_path / "b", generations=2, ga__population=30, run__target="none")
    resumed = neuroevo.resume(part.dir, generations=3)
    assert resumed.generations == 3
    np.testing.assert_array_equal(full.metrics.best, resumed.metrics.best)


def test_config_errors_are_neuroevo_errors(tmp_path):
    with pytest.raises(neuroevo.Error, match="populaton"):
        neuroevo.run("cartpole-ga", runs=tmp_path, ga__populaton=5)
    with pytest.raises(FileNotFoundError, match="cartpole-ga"):
        neuroevo.run("no-such-config", runs=tmp_path)
    with pytest.raises(TypeError, match="section__key"):
        neuroevo.run("cartpole-ga", runs=tmp_path, population=5)


def test_run_releases_the_gil(tmp_path):
    import threading

    ticks, stop = [0], threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        run = neuroevo.run("cartpole-ga", runs=tmp_path, generations=15, threads=1, ga__population=200,
                           run__target="none")
    finally:
        stop.set()
        t.join()
    assert run.generations == 15
    assert ticks[0] > 10_000  # the Python thread ran throughout the C run


def test_ctrl_c_stops_at_a_checkpoint_and_resume_continues(tmp_path):
    import signal
    import threading

    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        neuroevo.run("cartpole-ga", out_dir=tmp_path / "r", generations=100000, threads=1, ga__population=200,
                     run__target="none")
    timer.join()
    done = len(neuroevo.Run(tmp_path / "r").metrics)
    assert done >= 1 and os.listdir(tmp_path / "r" / "checkpoints")
    resumed = neuroevo.resume(tmp_path / "r", generations=done + 2)
    assert resumed.generations == done + 2 and len(resumed.metrics) == done + 2


def test_es_run_best_is_params_and_evaluates_like_the_cli(tmp_path, cli):
    run = neuroevo.run("cartpole-es", runs=tmp_path, generations=3, threads=2)
    best = run.best
    assert isinstance(best, neuroevo.Params) and best.env_id == "CartPole-v1"
    assert best.params.dtype == np.float32 and best.obs_mean is not None and best.obs_std.shape == (4,)
    ours = best.evaluate(12, seed=4)
    out = subprocess.run([cli, "eval", run.dir, "--episodes", "12", "--seed", "4"], capture_output=True, text=True,
                         check=True).stdout
    assert f"{ours:.2f}" == f"{float(re.search(r'mean return (-?[0-9.]+)', out).group(1)):.2f}", out
