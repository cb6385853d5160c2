# SPDX-License-Identifier: MIT
# `neuroevo report` of a short real run: one well-formed, self-contained HTML file (balanced tags, no
# reference to anything outside it) with the config, inline SVG curves, the agent GIF embedded as
# base64 (recorded by `neuroevo render`), and the evaluation line, identical to what `neuroevo eval`
# prints for the same episodes and seed. Headless Chromium renders it to
# test-artifacts/report.png. Run by ctest with NEUROEVO_BIN set.
import base64
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

BIN = os.environ.get("NEUROEVO_BIN")
ARTIFACTS = os.path.join(os.path.dirname(BIN or "."), "test-artifacts")
VOID = {"meta", "img", "br", "hr", "input", "link", "area", "base", "col", "source", "wbr"}
SVG_LEAVES = {"line", "rect", "polyline", "path", "circle"}  # self-closed inside <svg>


class Checker(HTMLParser):
    """Balanced elements, and every src/href that leaves the file."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.external, self.tags, self.doctype = [], [], [], {}, None

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith(("data:", "?", "#")):
                self.external.append(value)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag not in VOID | SVG_LEAVES:
            self.errors.append("self-closed <%s/>" % tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
        else:
            self.stack.pop()


def neuroevo(*args):
    if not BIN or not os.access(BIN, os.X_OK):
        pytest.fail("NEUROEVO_BIN must name the built neuroevo CLI (ctest sets it)")
    return subprocess.run([BIN, *args], check=True, timeout=120, capture_output=True, text=True).stdout


def check_html(path):
    text = open(path, encoding="utf-8").read()
    c = Checker()
    c.feed(text)
    c.close()
    assert c.doctype and c.doctype.lower() == "doctype html"
    assert not c.errors and not c.stack, (c.errors, c.stack)
    assert c.tags.get("html") == 1 and c.tags.get("head") == 1 and c.tags.get("body") == 1
    assert not c.external, c.external  # opens without network
    assert "<script" not in text and "<link" not in text
    return text


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("report") / "cartpole")
    neuroevo("run", "cartpole-ga", "run.generations=3", "run.target=none", "--quiet", "--out", d)
    return d


def test_report_is_self_contained_html_with_config_curves_gif_and_evaluation(run_dir):
    neuroevo("render", run_dir, "--out", os.path.join(run_dir, "agent.gif"), "--max-frames", "20",
             "--size", "160x120")
    out = neuroevo("report", run_dir, "--episodes", "20", "--seed", "7")
    path = os.path.join(run_dir, "report.html")
    assert out.strip() == "report:        " + path
    text = check_html(path)
    # the config (comments left out) and the best genome
    config = re.search(r'<pre id="config">(.*?)</pre>', text, re.S).group(1)
    assert "algorithm = ga" in config and "id = CartPole-v1" in config and "generations = 3" in config
    assert "# neuroevo genome v1" in re.search(r'<pre id="genome">(.*?)</pre>', text, re.S).group(1)
    # curves: inline SVG with one point per generation
    svgs = re.findall(r'<svg [^>]*data-points="(\d+)"', text)
    assert svgs and all(int(n) == 3 for n in svgs)
    assert "<polyline" in text
    # the GIF, byte for byte
    gif = re.search(r'<img id="agent" alt="[^"]*" src="data:image/gif;base64,([A-Za-z0-9+/=]+)"', text).group(1)
    assert base64.b64decode(gif) == open(os.path.join(run_dir, "agent.gif"), "rb").read()
    # the evaluation line is what `neuroevo eval` prints for the same episodes and seed
    evaluation = re.search(r'<p class="eval" id="evaluation">(.*?)</p>', text).group(1)
    expected = neuroevo("eval", run_dir, "--episodes", "20", "--seed", "7").strip()
    assert evaluation == expected.replace("&", "&amp;")
    assert re.match(r"CartPole-v1: mean return [\d.]+ ± [\d.]+ over 20 episodes", evaluation)
    # machine and throughput figures
    assert "Machine and throughput" in text and "evaluations/s" in text
    # what a person sees: headless Chromium renders it
    os.makedirs(ARTIFACTS, exist_ok=True)
    shot = os.path.join(ARTIFACTS, "report.png")
    subprocess.run([shutil.which("chromium") or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--window-size=1000,1400", "--screenshot=" + shot, "file://" + path],
                   check=True, timeout=60, capture_output=True)
    assert os.path.getsize(shot) > 10000


def test_report_without_agent_or_evaluation(run_dir, tmp_path):
    out = str(tmp_path / "elsewhere.html")
    neuroevo("report", run_dir, "--episodes", "0", "--out", out)
    text = check_html(out)
    assert "Not evaluated" in text and 'id="evaluation"' not in text
    os.rename(os.path.join(run_dir, "best.genome"), os.path.join(run_dir, "best.genome.away"))
    try:
        neuroevo("report", run_dir, "--out", out)
        assert "nothing to evaluate" in check_html(out)
    finally:
        os.rename(os.path.join(run_dir, "best.genome.away"), os.path.join(run_dir, "best.genome"))


def test_report_of_a_missing_directory_fails_with_its_name(tmp_path):
    p = subprocess.run([BIN, "report", str(tmp_path / "nope")], capture_output=True, text=True)
    assert p.returncode == 2 and "nope: not a run directory" in p.stderr
