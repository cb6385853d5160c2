# SPDX-License-Identifier: MIT
# What a new Python user trips over: the CLI ships with the package (`python -m neuroevo`,
# configs found along NEUROEVO_CONFIG_PATH); run() takes a per-generation callback whose False ends
# the run at a checkpoint that resumes to the uninterrupted result; bad budgets are TypeError /
# ValueError instead of silently accepted; gymnasium.make(..., render_mode="rgb_array") draws frames.
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import neuroevo

SMALL = dict(ga__population=20, ga__elite_candidates=2, run__target="none")


def _python_m(args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "neuroevo", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_python_m_neuroevo_is_the_cli(tmp_path, cli):
    r = _python_m(["envs"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ref = subprocess.run([cli, "envs"], capture_output=True, text=True, timeout=60)
    assert r.stdout == ref.stdout and "CartPole-v1" in r.stdout
    r = _python_m(["render", "--help"], cwd=tmp_path)
    assert r.returncode == 0 and "render" in r.stdout
    # exit codes are the tool's own
    assert _python_m(["no-such-command"], cwd=tmp_path).returncode != 0


def test_python_m_neuroevo_finds_configs_along_the_config_path(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "tiny.ini").write_text("[run]\nalgorithm = ga\n[env]\nid = CartPole-v1\n")
    work = tmp_path / "cwd"
    work.mkdir()
    env = dict(os.environ, NEUROEVO_CONFIG_PATH=f"{tmp_path / 'nothing'}{os.pathsep}{mine}")
    small = ["--generations", "1", "--threads", "1", "ga.population=10", "ga.truncation=5", "ga.elite_candidates=2",
             "run.target=none"]
    r = _python_m(["run", "tiny", "--out", "a", *small], cwd=work, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "id = CartPole-v1" in (work / "a" / "config.ini").read_text()
    # and a config shipped with the package, from a directory with none of its own
    r = _python_m(["run", "cartpole-ga", "--out", "b", *small], cwd=work, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (work / "b" / "metrics.csv").exists()


def test_callback_gets_every_row_and_false_stops_at_a_checkpoint(tmp_path):
    rows = []

    def log(row):
        rows.append(row)
        return row["generation"] < 2  # False after generation 2

    part = neuroevo.run("cartpole-ga", out_dir=tmp_path / "part", generations=6, threads=1, callback=log, **SMALL)
    assert [r["generation"] for r in rows] == [0, 1, 2]
    assert part.generations == 3 and len(part.metrics) == 3
    assert isinstance(rows[0]["evaluations"], int) and rows[2]["best"] == part.metrics.best[2]
    assert os.listdir(tmp_path / "part" / "checkpoints")
    # the stopped run resumes (the callback sees the new rows only) to the uninterrupted result
    later = []
    resumed = neuroevo.resume(part.dir, callback=lambda row: later.append(row["generation"]))
    assert later == [3, 4, 5] and resumed.generations == 6
    full = neuroevo.run("cartpole-ga", out_dir=tmp_path / "full", generations=6, threads=2, **SMALL)
    np.testing.assert_array_equal(full.metrics.best, resumed.metrics.best)


def test_callback_exception_ends_the_run_and_is_raised(tmp_path):
    def boom(row):
        if row["generation"] == 1:
            raise RuntimeError("logger down")

    with pytest.raises(RuntimeError, match="logger down"):
        neuroevo.run("cartpole-ga", out_dir=tmp_path / "r", generations=10, threads=1, callback=boom, **SMALL)
    assert len(neuroevo.Run(tmp_path / "r").metrics) == 2
    with pytest.raises(TypeError, match="callable"):
        neuroevo.run("cartpole-ga", out_dir=tmp_path / "s", generations=1, callback=42, **SMALL)


def test_bad_budgets_are_errors(tmp_path):
    with pytest.raises(ValueError, match="generations"):
        neuroevo.run("cartpole-ga", out=tmp_path, generations=-2)
    with pytest.raises(ValueError, match="threads"):
        neuroevo.run("cartpole-ga", out=tmp_path, threads=-1)
    with pytest.raises(TypeError, match="threads"):
        neuroevo.run("cartpole-ga", out=tmp_path, threads=2.0)
    with pytest.raises(TypeError, match="overrides"):
        neuroevo.run("cartpole-ga", ["ga.population=5"], out=tmp_path)
    assert not os.listdir(tmp_path)  # nothing started
    # threads=0 is all cores and generations=0 no limit, as on the command line
    r = neuroevo.run("cartpole-ga", out_dir=tmp_path / "z", threads=0, generations=0, run__target="none",
                     run__max_env_steps=500, ga__population=20, ga__elite_candidates=2)
    assert "generations = 0" in r.config and r.generations >= 1


@pytest.mark.parametrize("env_id, shape", [("CartPole-v1", (400, 600, 3)), ("LunarLander-v3", (400, 600, 3))])
def test_gymnasium_make_rgb_array(env_id, shape):
    env = gym.make(f"neuroevo/{env_id}", render_mode="rgb_array")
    env.reset(seed=0)
    a = env.render()
    assert a.shape == shape and a.dtype == np.uint8 and a.std() > 0
    for _ in range(5):
        env.step(env.action_space.sample())
    assert not np.array_equal(a, env.render())  # the frame follows the state
    env.close()
    small = neuroevo.make(env_id, render_mode="rgb_array", width=64, height=48)
    small.reset(seed=0)
    assert small.render().shape == (48, 64, 3)
    with pytest.raises(ValueError, match="rgb_array"):
        neuroevo.make(env_id, render_mode="human")


@pytest.mark.skipif("InvertedPendulum-v5" not in neuroevo.env_ids(), reason="built without MuJoCo")
def test_mujoco_rgb_array_offscreen(monkeypatch):
    monkeypatch.setenv("MUJOCO_GL", "osmesa")  # software OpenGL: no display or GPU needed
    env = gym.make("neuroevo/InvertedPendulum-v5", render_mode="rgb_array", width=64, height=48)
    env.reset(seed=0)
    a = env.render()
    assert a.shape == (48, 64, 3) and a.dtype == np.uint8 and a.std() > 0
    env.close()
    with pytest.raises(ValueError, match="no drawing"):
        neuroevo.make("bbob/sphere", render_mode="rgb_array")
