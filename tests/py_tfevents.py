# SPDX-License-Identifier: MIT
# The TensorBoard event file of real runs, read by TensorBoard's own EventAccumulator: every scalar
# is there at every generation with the metrics.csv value (simple_value is a float32, hence the
# relative tolerance), throughput agrees with the CSV's counters, a resumed run repeats no step and
# matches its truncated-then-continued metrics.csv, and an ES run logs its update norm and sigma.
# Run by ctest with NEUROEVO_BIN (the CLI) set.
import csv
import glob
import math
import os
import subprocess

import pytest
# a missing tensorboard is an error, never a skip (scripts/install-deps installs it)
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.proto import event_pb2

BIN = os.environ.get("NEUROEVO_BIN")
RETURNS = {"return/best": "best", "return/mean": "mean", "return/median": "median", "return/elite": "elite_mean"}
COUNTERS = {"progress/evaluations": "evaluations", "progress/env_steps": "env_steps"}


def neuroevo(*args):
    if not BIN or not os.access(BIN, os.X_OK):
        pytest.fail("NEUROEVO_BIN must name the built neuroevo CLI (ctest sets it)")
    subprocess.run([BIN, *args, "--quiet"], check=True, timeout=120)


def metrics(run_dir):
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        return list(csv.DictReader(f))


def scalars(run_dir):
    """tag -> [(step, value)] as TensorBoard's accumulator loads the directory."""
    acc = EventAccumulator(run_dir, size_guidance={"scalars": 0})  # 0: keep every event
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def raw_steps(run_dir):
    """Steps of the summary events in every event file of run_dir, in file order (no purging)."""
    steps = []
    for path in sorted(glob.glob(os.path.join(run_dir, "events.out.tfevents.*"))):
        for record in event_file_loader.RawEventFileLoader(path).Load():
            event = event_pb2.Event.FromString(record)
            if event.HasField("summary"):
                steps.append(event.step)
    return steps


def check_against_metrics(run_dir):
    rows, sc = metrics(run_dir), scalars(run_dir)
    gens = [int(r["generation"]) for r in rows]
    assert gens == list(range(len(rows)))
    for tag, col in {**RETURNS, **COUNTERS}.items():
        expect = [(int(r["generation"]), float(r[col])) for r in rows if not math.isnan(float(r[col]))]
        got = sc[tag]
        assert [s for s, _ in got] == [s for s, _ in expect], tag
        for (s, v), (_, want) in zip(got, expect):
            assert v == pytest.approx(want, rel=1e-6, abs=1e-6), f"{tag} at step {s}"
    # throughput of a generation = its evaluations / its seconds (wall_s has 3 decimals in the CSV)
    prev_e, prev_t = 0, 0.0
    for (s, v), r in zip(sc["throughput/evals_per_s"], rows):
        e, t = int(r["evaluations"]), float(r["wall_s"])
        if t - prev_t > 0.02:  # long enough for the CSV's millisecond rounding not to matter
            assert v == pytest.approx((e - prev_e) / (t - prev_t), rel=0.15), f"evals/s at step {s}"
        prev_e, prev_t = e, t
    return rows


def test_scalars_match_metrics_csv(tmp_path):
    run_dir = str(tmp_path / "ga")
    neuroevo("run", "cartpole-ga", "run.generations=6", "run.target=none", "--out", run_dir)
    files = glob.glob(os.path.join(run_dir, "events.out.tfevents.*"))
    assert len(files) == 1, files
    rows = check_against_metrics(run_dir)
    assert len(rows) == 6
    assert raw_steps(run_dir) == list(range(6))
    assert set(scalars(run_dir)) >= set(RETURNS) | set(COUNTERS) | {"throughput/evals_per_s",
                                                                     "throughput/env_steps_per_s"}


def test_resume_repeats_no_step(tmp_path):
    # checkpoints at 4, 8 and 10; without the last one, resume replays generations 8 and 9
    run_dir = str(tmp_path / "resumed")
    neuroevo("run", "cartpole-ga", "run.generations=10", "run.target=none", "run.checkpoint_every=4",
             "--out", run_dir)
    os.remove(os.path.join(run_dir, "checkpoints", "ckpt-00000010.bin"))
    neuroevo("resume", run_dir)
    assert raw_steps(run_dir) == list(range(10))  # no duplicates, in order, in any reader
    assert len(check_against_metrics(run_dir)) == 10


def test_es_logs_update_norm_and_sigma(tmp_path):
    run_dir = str(tmp_path / "es")
    neuroevo("run", "cartpole-es", "run.generations=3", "run.target=none", "--out", run_dir)
    sc = scalars(run_dir)
    for tag in ("es/update_norm", "es/sigma"):
        assert [s for s, _ in sc[tag]] == [0, 1, 2], tag
        assert all(math.isfinite(v) and v > 0 for _, v in sc[tag]), sc[tag]
    assert sc["es/sigma"][0][1] == pytest.approx(0.1)  # configs/cartpole-es.ini: es.sigma = 0.1
    check_against_metrics(run_dir)
