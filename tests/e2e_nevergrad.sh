#!/usr/bin/env bash
# End to end through the CLI with optimizers in a server process (src/algos/pyopt.c,
# python/neuroevo/optserver.py): Nevergrad from PyPI reaches a bbob target; a run is identical on 1
# and 2 threads, on 1 and 2 Redis workers (neuroevo cluster) and after kill -9 + resume, both from
# the optimizer's pickle and by replaying the told losses; any ask/tell class (pycma, a test class)
# runs as run.algorithm = python; a bad optimizer name lists the nearest names; an optimizer that
# raises or hangs, a missing nevergrad and a missing Python stop the run with a clear message, a
# non-zero exit and the last checkpoint intact (resuming it gives the uninterrupted run); no server
# outlives its run. Also run under ASan+UBSan by `make test` (the C side).
# usage: e2e_nevergrad.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"  # tests/opt_classes.py
same() {  # same A B WHAT: metrics (minus wall_s) and best.params identical
  diff <(strip_wall "$1/metrics.csv") <(strip_wall "$2/metrics.csv") >/dev/null || fail "$3: metrics differ ($1 vs $2)"
  cmp -s "$1/best.params" "$2/best.params" || fail "$3: best.params differ"
  echo "ok: $3 ($(($(wc -l < "$2/metrics.csv") - 1)) generations)"
}
last_ckpt() { ls "$1"/checkpoints/ckpt-*.bin 2>/dev/null | tail -n 1; }

# --- Nevergrad on a black-box function reaches its target ------------------------------------------
cat > sphere.ini <<'INI'
[run]
algorithm = nevergrad
generations = 300
target = 1e-6
[env]
id = bbob/sphere
dim = 6
shift_seed = 5
[nevergrad]
optimizer = CMA
population = 8
sigma = 1
INI
"$BIN" run sphere.ini --out sphere --quiet
tail -n 1 sphere/log.txt
grep -q "target reached" sphere/log.txt || fail "sphere: target not reached: $(tail -n 2 sphere/log.txt)"

# --- a policy on CartPole: 1 vs 2 threads, Redis workers --------------------------------------------
cat > pole.ini <<'INI'
[run]
algorithm = nevergrad
generations = 8
target = none
[env]
id = CartPole-v1
[policy]
hidden = 8
[nevergrad]
optimizer = TwoPointsDE
population = 12
eval_episodes = 3
INI
"$BIN" run pole.ini --threads 1 --out t1 --quiet
"$BIN" run pole.ini --threads 2 --out t2 --quiet
same t1 t2 "1 vs 2 threads"
"$BIN" cluster --workers 1 pole.ini --out w1 --quiet >/dev/null
same t1 w1 "1 Redis worker vs local"
"$BIN" cluster --workers 2 pole.ini --out w2 --quiet >/dev/null
same t1 w2 "2 Redis workers vs local"

# --- kill -9 + resume: from the pickle (default) and by replay (snapshot_mb = 0) ----------------------
for snap in 16 0; do
  ref="ref$snap" cut="cut$snap"
  "$BIN" run pole.ini run.generations=14 nevergrad.snapshot_mb=$snap --out "$ref" --quiet
  "$BIN" run pole.ini run.generations=14 nevergrad.snapshot_mb=$snap --out "$cut" --quiet &
  pid=$!
  for _ in $(seq 1 1200); do [ -n "$(ls "$cut"/checkpoints/ckpt-0000000[4-9].bin 2>/dev/null)" ] && break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -n "$(last_ckpt "$cut")" ] || fail "no checkpoint before the kill"
  "$BIN" resume "$cut" --quiet
  same "$ref" "$cut" "kill -9 + resume (snapshot_mb = $snap)"
done
echo "checkpoint bytes: with the pickle $(stat -c %s "$(last_ckpt cut16)"), with the replay log instead $(stat -c %s "$(last_ckpt cut0)")"

# --- any ask/tell class: pycma, and a one-candidate-per-ask class ------------------------------------
sed -e 's/^algorithm = nevergrad/algorithm = python/' -e '/^\[nevergrad\]/,$d' pole.ini > pypole.ini
pycma=(pypole.ini python.class=cma:CMAEvolutionStrategy python.eval_episodes=3
       "python.options=x0=x0, sigma0=0.5, inopts={'seed': seed, 'popsize': 10, 'verbose': -9}")
"$BIN" run "${pycma[@]}" --out cma --quiet
[ "$(wc -l < cma/metrics.csv)" = 9 ] || fail "pycma as run.algorithm = python: 8 generations expected"
"$BIN" run pypole.ini python.class=opt_classes:OnePerAsk python.population=6 python.options=x0=x0 --out one --quiet
[ "$(sed -n 2p one/metrics.csv | cut -d, -f2)" = 7 ] || fail "one-per-ask: 6 candidates + the recommendation expected"

# --- errors ---------------------------------------------------------------------------------------
if "$BIN" run pole.ini nevergrad.optimizer=TwoPointDE --out bad --quiet 2>err.txt; then fail "bad name accepted"; fi
grep -q "no optimizer 'TwoPointDE' in Nevergrad .*nearest: TwoPointsDE" err.txt || fail "bad name: $(cat err.txt)"
if "$BIN" run pypole.ini python.class=no_such_module:Opt --out nomod --quiet 2>err.txt; then
  fail "missing module accepted"; fi
grep -q "cannot import 'no_such_module'" err.txt || fail "missing module: $(cat err.txt)"
mkdir -p fake/nevergrad && echo 'raise ImportError("No module named nevergrad (planted by the test)")' > fake/nevergrad/__init__.py
if PYTHONPATH="$PWD/fake:$PYTHONPATH" "$BIN" run pole.ini --out nong --quiet 2>err.txt; then fail "missing nevergrad accepted"; fi
grep -q "No module named nevergrad.*pip install nevergrad" err.txt || fail "missing nevergrad: $(cat err.txt)"
if NEUROEVO_PYTHON=/nonexistent/python3 "$BIN" run pole.ini --out nopy --quiet 2>err.txt; then fail "missing Python accepted"; fi
grep -q "cannot start the optimizer server with '/nonexistent/python3'" err.txt || fail "missing Python: $(cat err.txt)"

# an optimizer that raises in generation 5: the run stops with its message, non-zero, the checkpoint
# of generation 5 intact; resuming it (without the fault) ends as the uninterrupted run does
flaky=(pypole.ini python.class=opt_classes:Flaky "python.options=x0=x0, seed=seed" run.generations=10)
"$BIN" run "${flaky[@]}" --out flaky_ref --quiet
set +e
NE_TEST_RAISE_AT=5 "$BIN" run "${flaky[@]}" --out flaky --quiet 2>err.txt
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a raising optimizer did not fail the run"
grep -q "tell raised RuntimeError: flaky optimizer gave up in generation 5 (at opt_classes.py:" err.txt ||
  fail "raise: $(cat err.txt)"
[ "$(basename "$(last_ckpt flaky)")" = ckpt-00000005.bin ] || fail "raise: last checkpoint $(last_ckpt flaky)"
"$BIN" resume flaky --quiet
same flaky_ref flaky "resume after the optimizer raised"
# one that hangs: NEUROEVO_OPT_TIMEOUT ends the call
set +e
NE_TEST_HANG_AT=2 NEUROEVO_OPT_TIMEOUT=2 "$BIN" run "${flaky[@]}" --out hang --quiet 2>err.txt
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a hanging optimizer did not fail the run"
grep -q "no reply from the optimizer server to tell within 2 s (call_timeout in the config, or NEUROEVO_OPT_TIMEOUT" err.txt || fail "hang: $(cat err.txt)"
[ "$(basename "$(last_ckpt hang)")" = ckpt-00000002.bin ] || fail "hang: last checkpoint $(last_ckpt hang)"
# the wait is announced while it lasts (every 30 s, at most a quarter of the limit: 0.5 s here)
grep -q "still waiting for tell: 0.5 s so far (it fails after 2 s" err.txt || fail "no notice while waiting: $(cat err.txt)"
# [python] call_timeout sets the limit of one run
set +e
NE_TEST_HANG_AT=1 "$BIN" run "${flaky[@]}" python.call_timeout=1 --out hang_key --quiet 2>err.txt
set -e
grep -q "to tell within 1 s" err.txt || fail "call_timeout: $(cat err.txt)"

# --- no server left behind ----------------------------------------------------------------------------
sleep 0.5
if ps -eo ppid=,args= | awk '$1 == 1 && /optserver.py/' | grep -q .; then fail "an optimizer server outlived its run"; fi
echo "e2e_nevergrad: ok"
