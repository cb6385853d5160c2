# SPDX-License-Identifier: MIT
# `neuroevo dashboard` in a real browser: headless Chromium (Debian chromium + chromium-driver,
# driven by Selenium) loads the page while a short run trains; the curve's data points grow between
# two loads and, within one load, through the page's own polling. The screenshot is kept in the
# build tree (test-artifacts/dashboard.png). Also: the JSON endpoint, loopback-only binding,
# read-only routes, the Redis panel against a private redis-server, and a study (`neuroevo compare`)
# shown live: its arms x seeds by arm and seed, each arm's mean curve with its band, and what failed.
# Run by ctest with NEUROEVO_BIN set; everything talks to 127.0.0.1 only.
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest
# a missing selenium is an error, never a skip (scripts/install-deps installs it)
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BIN = os.environ.get("NEUROEVO_BIN")
SOURCE = os.environ.get("NEUROEVO_SOURCE_DIR", os.path.join(os.path.dirname(__file__), ".."))
ARTIFACTS = os.path.join(os.path.dirname(BIN or "."), "test-artifacts")


def require_bin():
    if not BIN or not os.access(BIN, os.X_OK):
        pytest.fail("NEUROEVO_BIN must name the built neuroevo CLI (ctest sets it)")


def stop(proc):
    """SIGINT (what Ctrl-C sends), then wait; kill only if it does not exit."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def metrics_rows(run_dir):
    try:
        with open(os.path.join(run_dir, "metrics.csv")) as f:
            return sum(1 for line in f if line.endswith("\n")) - 1
    except FileNotFoundError:
        return 0


def wait_for(cond, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return
        time.sleep(0.1)
    pytest.fail("timed out waiting for " + what)


@pytest.fixture
def training(tmp_path):
    """A run that keeps training (stopped at the end), inside tmp_path/runs."""
    require_bin()
    run_dir = tmp_path / "runs" / "cartpole-ga-live"
    proc = subprocess.Popen([BIN, "run", "cartpole-ga", "run.generations=1000000", "run.target=none",
                             "ga.population=50", "ga.elite_episodes=20", "--threads", "1", "--quiet",
                             "--out", str(run_dir)], stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: metrics_rows(run_dir) >= 2, 60, "the first generations")
        yield run_dir
    finally:
        stop(proc)


def start_dashboard(*args):
    proc = subprocess.Popen([BIN, "dashboard", "--port", "0", *args], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # "dashboard: http://127.0.0.1:PORT/  (Ctrl-C stops)"
    if not line.startswith("dashboard: http://127.0.0.1:"):
        stop(proc)
        pytest.fail("dashboard did not start: " + repr(line))
    return proc, line.split()[1]


def listening_addresses(port):
    """IPv4 addresses with a listening TCP socket on port, from /proc/net/tcp (no tools needed)."""
    found = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, p = local.split(":")
            if state == "0A" and int(p, 16) == port:  # 0A = LISTEN; the address is little-endian hex
                found.append(".".join(str(int(addr[i:i + 2], 16)) for i in (6, 4, 2, 0)))
    return found


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def browser(size="1100,900"):
    for exe in ("chromium", "chromedriver"):
        if not shutil.which(exe):
            pytest.fail(exe + " missing: scripts/install-deps installs Debian chromium + chromium-driver")
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=" + size, "--hide-scrollbars"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=opts)


def chart_points(driver):
    """(data-points of the chart, vertices of its polylines) as the page shows them now."""
    svg = driver.find_element(By.CSS_SELECTOR, "#chart svg")
    vertices = sum(len(p.get_attribute("points").split()) for p in svg.find_elements(By.TAG_NAME, "polyline"))
    return int(svg.get_attribute("data-points")), vertices


def test_dashboard_in_chromium_grows_while_training(training):
    dash, url = start_dashboard(str(training.parent), "--refresh", "1")
    driver = None
    try:
        driver = browser()
        driver.get(url)
        first, first_vertices = chart_points(driver)
        assert first >= 2 and first_vertices >= 2
        assert "cartpole-ga-live" in driver.find_element(By.ID, "runs").text
        assert "running" in driver.find_element(By.ID, "runs").text
        # the page's own polling swaps in a newer chart without a reload
        WebDriverWait(driver, 30, 0.2).until(
            lambda d: int(d.find_element(By.TAG_NAME, "body").get_attribute("data-polls") or 0) >= 2
            and chart_points(d)[0] > first)
        # a second load shows more points again
        time.sleep(1.5)
        driver.get(url)
        second, second_vertices = chart_points(driver)
        assert second > first and second_vertices > first_vertices, (first, second)
        os.makedirs(ARTIFACTS, exist_ok=True)
        assert driver.save_screenshot(os.path.join(ARTIFACTS, "dashboard.png"))
    finally:
        if driver:
            driver.quit()
        stop(dash)
    assert dash.returncode == 0  # Ctrl-C stops it cleanly (and, under ASan, without leaks)


def test_runs_table_fits_a_1200px_window(tmp_path):
    """Long run names and env ids wrap: every column, elite last, stays inside the page's box."""
    require_bin()
    run_dir = tmp_path / "runs" / "minatar-spaceinvaders-ga-20261124-043512-2"
    subprocess.run([BIN, "run", "cartpole-ga", "env.id=MinAtar/SpaceInvaders-v1", "policy.hidden=8",
                    "ga.population=4", "ga.truncation=2", "ga.elite_candidates=2", "ga.elite_episodes=1",
                    "env.max_episode_steps=20", "--generations", "1", "--quiet", "--out", str(run_dir)],
                   check=True, stdout=subprocess.DEVNULL)
    dash, url = start_dashboard(str(run_dir.parent))
    driver = None
    try:
        driver = browser("1200,900")
        driver.get(url)
        box, table, elite = driver.execute_script(
            "var t = document.querySelector('#runs table'), th = t.querySelectorAll('th');"
            "return [document.getElementById('runs').getBoundingClientRect().right,"
            "        t.getBoundingClientRect().right, th[th.length - 1].getBoundingClientRect().right];")
        assert driver.find_elements(By.TAG_NAME, "th")[-1].text == "elite"
        assert table <= box + 0.5 and elite <= box + 0.5, (box, table, elite)
    finally:
        if driver:
            driver.quit()
        stop(dash)


def test_json_state_routes_and_loopback(training):
    dash, url = start_dashboard(str(training.parent))
    try:
        status, ctype, body = get(url + "api/state.json?x=wall_s")
        state = json.loads(body)
        assert status == 200 and ctype == "application/json"
        assert state["x"] == "wall_s" and state["redis"] is None
        (run,) = state["runs"]
        assert run["name"] == "cartpole-ga-live" and run["state"] == "running" and run["env"] == "CartPole-v1"
        assert run["generations"] >= 2 and run["max_generations"] == 1000000
        assert run["evals_per_s"] > 0 and run["eta_s"] > 0
        assert state["svg"].startswith("<svg") and 'data-x="wall_s"' in state["svg"]
        status, ctype, body = get(url + "chart.svg")
        assert ctype == "image/svg+xml" and "<polyline" in body
        # libmicrohttpd (and GnuTLS behind it) is loaded by the dashboard, not by every process
        # (src/report/mhd_api.h): the binary does not link it, the serving process maps it
        linked = subprocess.run(["ldd", BIN], capture_output=True, text=True, check=True).stdout
        assert "libmicrohttpd" not in linked
        with open(f"/proc/{dash.pid}/maps", encoding="utf-8") as maps:
            assert "libmicrohttpd" in maps.read()
        # read-only: unknown routes 404, other methods 405
        with pytest.raises(urllib.error.HTTPError) as e:
            get(url + "../../etc/passwd")
        assert e.value.code == 404
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(urllib.request.Request(url, data=b"x", method="POST"), timeout=10)
        assert e.value.code == 405
        # default bind is loopback only: the listening socket is 127.0.0.1:PORT
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        assert listening_addresses(port) == ["127.0.0.1"]
    finally:
        stop(dash)
    assert dash.returncode == 0


def test_redis_panel_shows_workers_and_tasks(tmp_path):
    require_bin()
    server = os.path.join(SOURCE, "tests", "redis_test_server.sh")
    port = subprocess.run(["bash", server, "start", str(tmp_path / "redis")], capture_output=True, text=True,
                          check=True).stdout.strip().splitlines()[-1]
    dash = None
    try:
        dash, url = start_dashboard(str(tmp_path), "--redis", "redis://127.0.0.1:" + port)
        state = json.loads(get(url + "api/state.json")[2])
        assert "workers:" in state["redis"] and "experiment:" in state["redis"], state["redis"]
        assert "Cluster (Redis)" in get(url)[2]
    finally:
        if dash:
            stop(dash)
        subprocess.run(["bash", server, "stop", str(tmp_path / "redis")], check=False)


STUDY_ES = """[run]
algorithm = es
generations = 300
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
STUDY_FLAKY = """[run]
algorithm = python
generations = 4
target = none
plot_every = 0
[env]
id = CartPole-v1
[python]
class = opt_classes:Flaky
options = x0=x0, seed=seed
"""


def study_state(url):
    studies = json.loads(get(url + "api/state.json")[2])["studies"]
    assert len(studies) <= 1, studies
    return {(a["name"], r["seed"]): r for st in studies for a in st["arms"] for r in a["runs"]}


def test_dashboard_shows_a_study_live_with_arms_seeds_and_failures(tmp_path):
    require_bin()
    (tmp_path / "pend.ini").write_text(STUDY_ES)
    (tmp_path / "flaky.ini").write_text(STUDY_FLAKY)
    env = {**os.environ, "NE_TEST_RAISE_AT": "1",
           "PYTHONPATH": os.path.join(SOURCE, "tests") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    study = tmp_path / "runs" / "STUDY"
    proc = subprocess.Popen([BIN, "compare", "pend.ini", "flaky.ini", "--seeds", "2", "--threads", "2", "--sweep",
                             "pend:es.lr=0.01,0.05", "--out", str(study), "--quiet"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # pointed at the folder above the study: it is found, not "0 runs"
    dash, url = start_dashboard(str(tmp_path / "runs"), "--refresh", "1")
    driver = None
    try:
        # live: a run of the study trains, its generation grows while the page is watched
        wait_for(lambda: (study / "study.json").exists(), 120, "study.json")
        wait_for(lambda: len(study_state(url)) == 6, 30, "the study on the page, its 6 runs to come")
        wait_for(lambda: any(r["status"] == "running" and r["generations"] > 0 for r in study_state(url).values()),
                 120, "a running run of the study")
        assert proc.wait(timeout=600) == 3  # the flaky arm failed, the rest finished
        cells = study_state(url)
        arms = ["pend[es.lr=0.01]", "pend[es.lr=0.05]", "flaky"]
        assert set(cells) == {(a, k) for a in arms for k in (0, 1)}
        for arm in arms[:2]:
            for k in (0, 1):
                assert cells[(arm, k)]["status"] == "finished" and cells[(arm, k)]["generations"] == 300
        for k in (0, 1):
            assert cells[("flaky", k)]["status"] == "failed"
            assert "flaky optimizer gave up in generation 1" in cells[("flaky", k)]["error"]
        # the page: the grid by arm and seed, what failed, each arm's mean curve with its band
        driver = browser("1200,1400")
        driver.get(url)
        studies = driver.find_element(By.ID, "studies")
        assert "STUDY" in studies.text and "seed 1" in studies.text
        assert "3 arms x 2 seeds: 4 finished, 0 running, 2 failed" in studies.text, studies.text
        assert "flaky seed 0: failed: " in studies.text
        chart = studies.find_element(By.CSS_SELECTOR, "svg.arms")
        assert chart.get_attribute("data-arms") == "3"
        means = chart.find_elements(By.CSS_SELECTOR, "polyline.mean")
        assert sorted(m.get_attribute("data-arm") for m in means) == sorted(arms)
        assert len(chart.find_elements(By.CSS_SELECTOR, "polygon.band")) == 3
        # the runs table labels a study's runs by arm and seed
        assert "pend[es.lr=0.05] seed 1" in driver.find_element(By.ID, "runs").text
        os.makedirs(ARTIFACTS, exist_ok=True)
        assert driver.save_screenshot(os.path.join(ARTIFACTS, "dashboard-study.png"))
    finally:
        if driver:
            driver.quit()
        stop(dash)
        stop(proc)
