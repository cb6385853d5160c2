# SPDX-License-Identifier: MIT
# MLflow tracking end to end against a real `mlflow server` (MLflow 3 from PyPI, in the virtual
# environment scripts/install-mlflow makes; SQLite backend, artifacts served by the server, a
# loopback port; started and stopped here):
#   - a study (`neuroevo compare --track URL`, 2 swept arms x 2 seeds) is one experiment named after
#     its directory with a run per arm and seed: the resolved config as params, provenance as tags,
#     every generation's metrics.csv row as metrics (step = generation), the artifacts, FINISHED;
#   - MLflow's own UI in headless Chromium shows the study's runs side by side (the compare page:
#     run names, the swept param's values);
#   - a tracker that is down never stops the run: it finishes, says so once, and `neuroevo track`
#     sends everything later; a slow one never slows training (the tracker has its own thread);
#   - `neuroevo track` of a run made without tracking sends it, and a second sync sends nothing.
# About a minute on a quiet machine (the server's start and the UI are most of it).
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

BIN = os.environ.get("NEUROEVO_BIN", "build/neuroevo")
SOURCE = os.environ.get("NEUROEVO_SOURCE_DIR", os.path.join(os.path.dirname(__file__), ".."))
PEND = """[run]
algorithm = es
generations = 5
target = none
plot_every = 0
[env]
id = Pendulum-v1
episodes = 2
[policy]
hidden = 8
[es]
population = 8
"""


def mlflow_executable():
    """The mlflow of scripts/install-mlflow's environment ($NEUROEVO_MLFLOW overrides)."""
    if os.environ.get("NEUROEVO_MLFLOW"):
        return os.environ["NEUROEVO_MLFLOW"]
    version = open(os.path.join(SOURCE, "scripts", "install-mlflow")).read().split("VERSION=")[1].split()[0]
    path = os.path.join(SOURCE, ".deps", f"mlflow-{version}", "bin", "mlflow")
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} missing: run scripts/install-mlflow (make test does)")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(url, endpoint, body=None):
    """An MLflow REST call: GET with a query dict, or POST with a JSON body."""
    if body is None:
        req = urllib.request.Request(f"{url}/api/2.0/mlflow/{endpoint}")
    else:
        req = urllib.request.Request(f"{url}/api/2.0/mlflow/{endpoint}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mlflow")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(tmp / "server.log", "w")
    proc = subprocess.Popen([mlflow_executable(), "server", "--backend-store-uri", f"sqlite:///{tmp}/mlflow.db",
                             "--artifacts-destination", str(tmp / "artifacts"), "--host", "127.0.0.1", "--port",
                             str(port), "--workers", "1"], stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)  # its workers are in its group: stopped together
    try:
        deadline = time.time() + 400  # imports take seconds, minutes on a loaded machine
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=5) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if proc.poll() is not None or time.time() > deadline:
                pytest.fail("mlflow server did not start: " + open(tmp / "server.log").read()[-2000:])
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def neuroevo(*args, cwd, env=None, check=True):
    r = subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                       env={**os.environ, **(env or {})})
    if check:
        assert r.returncode == 0, r.stderr
    return r


def runs_of(url, experiment):
    exp = api(url, "experiments/get-by-name?experiment_name=" + urllib.parse.quote(experiment))["experiment"]
    runs = api(url, "runs/search", {"experiment_ids": [exp["experiment_id"]], "max_results": 100}).get("runs", [])
    return exp, {r["info"]["run_name"]: r for r in runs}


def metric_history(url, run_id, key):
    q = urllib.parse.urlencode({"run_id": run_id, "metric_key": key, "max_results": 10000})
    return sorted((m["step"], m["value"]) for m in api(url, "metrics/get-history?" + q)["metrics"])


def read_metrics(path):
    lines = open(path).read().split()
    names = lines[0].split(",")
    return [dict(zip(names, (float(v) for v in line.split(",")))) for line in lines[1:]]


@pytest.fixture(scope="module")
def study(server, tmp_path_factory):
    work = tmp_path_factory.mktemp("study")
    (work / "pend-es.ini").write_text(PEND)
    neuroevo("compare", "pend-es.ini", "--seeds", "2", "--threads", "2", "--sweep", "es.lr=0.01,0.05", "--out",
             "STUDY", "--track", server, "--note", "tracked study", "--quiet", cwd=work)
    return work


def test_study_is_one_experiment_with_a_run_per_arm_and_seed(server, study):
    exp, runs = runs_of(server, "STUDY")
    names = {f"pend-es[es.lr={lr}] seed {k}" for lr in ("0.01", "0.05") for k in (0, 1)}
    assert set(runs) == names
    for name, r in runs.items():
        arm, seed = name.rsplit(" seed ", 1)
        lr = arm.split("=")[1].rstrip("]")
        params = {p["key"]: p["value"] for p in r["data"]["params"]}
        tags = {t["key"]: t["value"] for t in r["data"]["tags"]}
        assert params["es.lr"] == lr and params["run.seed"] == seed and params["env.id"] == "Pendulum-v1"
        assert params["es.population"] == "8"
        assert tags["arm"] == arm and tags["seed"] == seed and tags["status"] == "finished", tags
        assert tags["neuroevo.commit"] and tags["machine.host"] and tags["config.source"] == "pend-es.ini"
        assert "es.lr=" + lr in tags["config.overrides"] and tags["mlflow.note.content"] == "tracked study"
        assert r["info"]["status"] == "FINISHED"
        # every generation's row, step = generation, the values metrics.csv holds
        run_dir = os.path.join(study, "STUDY", arm, "seed" + seed)
        rows = read_metrics(os.path.join(run_dir, "metrics.csv"))
        assert len(rows) == 5
        assert metric_history(server, r["info"]["run_id"], "best") == [(int(x["generation"]), x["best"]) for x in rows]
        assert [v for _, v in metric_history(server, r["info"]["run_id"], "env_steps")] == [x["env_steps"] for x in rows]
        files = {f["path"] for f in api(server, "artifacts/list?run_id=" + r["info"]["run_id"]).get("files", [])}
        assert {"curve.png", "best.params", "config.ini", "run.json", "metrics.csv"} <= files, files
        assert json.load(open(os.path.join(run_dir, "track.json")))["run_id"] == r["info"]["run_id"]


def test_mlflow_ui_shows_the_study_side_by_side(server, study, tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    exp, runs = runs_of(server, "STUDY")
    ids = json.dumps([r["info"]["run_id"] for r in runs.values()])
    for exe in ("chromium", "chromedriver"):
        if not shutil.which(exe):
            pytest.fail(exe + " missing: scripts/install-deps installs Debian chromium + chromium-driver")
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1600,1100"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=opts)
    try:
        driver.set_page_load_timeout(180)
        driver.get(f"{server}/#/compare-runs?runs={urllib.parse.quote(ids)}&experiments="
                   f"{urllib.parse.quote(json.dumps([exp['experiment_id']]))}")
        deadline, text = time.time() + 180, ""
        while time.time() < deadline:
            text = driver.find_element("tag name", "body").text
            if all(name in text for name in runs) and "es.lr" in text and "0.05" in text:
                break
            time.sleep(1)
        driver.save_screenshot(str(tmp_path / "mlflow-compare.png"))  # for a person to look at
        assert f"Comparing {len(runs)} Runs" in text, text[:2000]
        for name in runs:
            assert name in text, (name, text[:2000])
        assert "es.lr" in text and "0.01" in text and "0.05" in text
    finally:
        driver.quit()


def test_a_down_tracker_never_stops_the_run_and_track_sends_it_later(server, tmp_path):
    (tmp_path / "pend-es.ini").write_text(PEND)
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    r = neuroevo("run", "pend-es.ini", "--track", down, "--out", "down", "--quiet", "--threads", "1", cwd=tmp_path)
    assert r.stderr.count("warning: MLflow tracking") == 1, r.stderr  # said once
    assert "`neuroevo track down` sends" in r.stderr
    assert len(read_metrics(tmp_path / "down" / "metrics.csv")) == 5  # trained in full
    # later, with the server up: everything goes, into the config's experiment
    r = neuroevo("track", "down", "--to", server, cwd=tmp_path)
    assert "5 metric rows" in r.stdout, r.stdout
    exp, runs = runs_of(server, "pend-es")
    run = runs["down"]
    assert run["info"]["status"] == "FINISHED"
    assert len(metric_history(server, run["info"]["run_id"], "best")) == 5
    # a second sync has nothing to send
    r = neuroevo("track", "down", "--to", server, cwd=tmp_path)
    assert "0 metric rows, 0 files sent" in r.stdout, r.stdout


class SlowHandler(BaseHTTPRequestHandler):
    """Answers every request after 3 s with MLflow-shaped replies."""

    def _reply(self):
        time.sleep(3)
        body = json.dumps({"experiment_id": "1", "experiment": {"experiment_id": "1"},
                           "run": {"info": {"run_id": "r1", "artifact_uri": "mlflow-artifacts:/1/r1/artifacts"}}})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def do_GET(self):
        self._reply()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._reply()

    do_PUT = do_POST

    def log_message(self, *args):
        pass


def test_a_slow_tracker_never_slows_training(tmp_path):
    slow = ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
    threading.Thread(target=slow.serve_forever, daemon=True).start()
    try:
        (tmp_path / "pend-es.ini").write_text(PEND.replace("generations = 5", "generations = 20"))
        t0 = time.time()
        neuroevo("run", "pend-es.ini", "--track", f"http://127.0.0.1:{slow.server_address[1]}", "--out", "slow",
                 "--quiet", "--threads", "1", cwd=tmp_path)
        elapsed = time.time() - t0
        rows = read_metrics(tmp_path / "slow" / "metrics.csv")
        # 20 generations; a synchronous tracker would add 3 s to each (60 s)
        assert len(rows) == 20 and rows[-1]["wall_s"] < 15, rows[-1]
        assert elapsed < 60, elapsed  # training + at most the end's bounded wait for the last sync
    finally:
        slow.shutdown()
