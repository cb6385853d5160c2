#!/usr/bin/env bash
# `pip install .` as a new user runs it: into a fresh virtualenv (no system site-packages), with
# pip's isolated build environment, from the checkout. The installed package must have the MuJoCo
# envs (the build found MuJoCo through its build requirement, not through this machine's
# site-packages) with their model files, run a MuJoCo config shipped with the package, and ship the
# C command-line tool as the `neuroevo` console script and `python -m neuroevo`, working from a
# directory with no configs of its own. A configuration that cannot find MuJoCo fails and says why.
#
# Lean: the wheels come from scripts/pip-wheelhouse's cache (--no-index --find-links: no PyPI
# resolution), and the CMake build dir is kept in BUILD_KEEP (pip -C build-dir=...), so a second
# run recompiles only what changed. Prints the time of each step.
# Usage: tests/pip_install.sh SOURCE_DIR WORK_DIR BUILD_KEEP
set -euo pipefail
SRC=$(cd "$1" && pwd)
WORK=$(realpath -m "$2")
KEEP=$(realpath -m "$3")
PY=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK"
mkdir -p "$WORK/cwd" "$KEEP"
fail() { echo "FAIL: $*" >&2; exit 1; }
step_start=$(date +%s)
step() { local now; now=$(date +%s); echo "[$((now - step_start)) s] $*"; step_start=$now; }

# 1. no MuJoCo where one is required (as pyproject.toml requires it): a configure error naming the fix
if cmake -S "$SRC" -B "$WORK/no-mujoco" -DNE_REQUIRE_MUJOCO=ON -DNE_MUJOCO_DIR=/nonexistent -DNE_PYTHON=OFF \
     >"$WORK/no-mujoco.log" 2>&1; then
  fail "configuring with NE_REQUIRE_MUJOCO=ON and no MuJoCo succeeded"
fi
grep -q "MuJoCo not found, and NE_REQUIRE_MUJOCO is on" "$WORK/no-mujoco.log" || { cat "$WORK/no-mujoco.log"; fail "no MuJoCo message"; }
grep -q "NE_REQUIRE_MUJOCO=OFF" "$WORK/no-mujoco.log" || fail "the message does not say how to build without MuJoCo"
step "a configuration without MuJoCo fails loudly"

# 2. the fresh virtualenv and the install
wheels=$(PYTHON=$PY "$here/../scripts/pip-wheelhouse")
# no pip inside the venv (ensurepip's copy takes a minute on a loaded machine): this interpreter's
# pip installs into it with --python, running under the venv's interpreter as the venv's pip would
"$PY" -m venv --without-pip "$WORK/venv"
V=$WORK/venv/bin
step "wheel cache $wheels, fresh venv"
if ! "$PY" -m pip --python "$V/python" install --disable-pip-version-check --no-index --find-links "$wheels" \
     -C build-dir="$KEEP" "$SRC" >"$WORK/pip.log" 2>&1; then
  tail -n 40 "$WORK/pip.log"
  fail "pip install failed (log: $WORK/pip.log)"
fi
step "pip install (build dir kept in $KEEP)"

# 3. the package: MuJoCo built in, its models found, a shipped MuJoCo config runs
cd "$WORK/cwd"
"$V/python" - "$WORK" <<'PYEOF'
import os, sys
import numpy as np
import neuroevo

work = sys.argv[1]
assert os.path.realpath(neuroevo.__file__).startswith(os.path.realpath(work + "/venv")), neuroevo.__file__
ids = neuroevo.env_ids()
for env_id in ("HalfCheetah-v5", "Hopper-v5", "Humanoid-v5", "CartPole-v1"):
    assert env_id in ids, f"{env_id} missing from the installed build: {ids}"
env = neuroevo.make("Hopper-v5")
obs, _ = env.reset(seed=1)
obs, reward, terminated, truncated, _ = env.step(np.zeros(3, dtype=np.float32))
assert obs.shape == (11,) and np.isfinite(reward), (obs, reward)
run = neuroevo.run("halfcheetah-es", out=os.path.join(work, "runs"), generations=1, threads=1,
                   es__population=4, es__eval_episodes=1, env__max_episode_steps=50, run__target="none")
assert run.generations == 1 and len(run.metrics) == 1, run
print(f"{len(ids)} env ids; halfcheetah-es ran: {run.dir}")
PYEOF
step "import, MuJoCo env, halfcheetah-es from the installed package"

# 4. the CLI: console script and python -m, configs from the package, render and report
[ -x "$V/neuroevo" ] || fail "no neuroevo console script in $V"
"$V/neuroevo" --help | grep -q "usage: neuroevo COMMAND" || fail "neuroevo --help"
"$V/neuroevo" envs >envs.txt
grep -q "^HalfCheetah-v5 " envs.txt || fail "neuroevo envs lists no HalfCheetah-v5"
"$V/python" -m neuroevo envs | cmp -s - envs.txt || fail "python -m neuroevo envs differs from neuroevo envs"
for cmd in render report compare dashboard worker; do
  "$V/neuroevo" $cmd --help >/dev/null || fail "neuroevo $cmd --help"
done
rundir=runs/cartpole
"$V/neuroevo" run cartpole-ga --generations 1 --out $rundir ga.population=20 ga.elite_candidates=2 run.target=none \
  >run.log 2>&1 || { cat run.log; fail "neuroevo run cartpole-ga (a config shipped with the package)"; }
"$V/neuroevo" render "$rundir" --out "$rundir/agent.gif" --episodes 1 >/dev/null || fail "neuroevo render"
[ -s "$rundir/agent.gif" ] || fail "no agent.gif"
"$V/neuroevo" report "$rundir" >/dev/null || fail "neuroevo report"
[ -s "$rundir/report.html" ] || fail "no report.html"
step "the neuroevo command: envs, run, render, report, --help of compare/dashboard/worker"
echo "pip install test passed"
