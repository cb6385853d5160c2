#!/usr/bin/env bash
# End to end through the CLI: a study that survives its failing runs. A compare with a sweep
# (--sweep NAME:es.lr=...), a per-config override (NAME:es.sigma=...) and an arm whose optimizer
# raises in its third generation finishes the other arms, writes summary.md listing the failures
# (exit 3), and the same command then retries only the failed runs, which end as the run alone
# would. A run process killed by a signal, an arm whose config cannot start and an optimizer call
# over its time limit (announced while it waits) are failures of their own runs only; progress
# lines carry an ETA; 5 seeds get a bootstrap CI, fewer the range; bad per-config targets and
# sweeps exit 2.
# usage: e2e_study.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"  # tests/opt_classes.py: Flaky

field() {  # field FILE PATH: a JSON field by dotted path, as text
  python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}

cat > pend-es.ini <<'INI'
[run]
algorithm = es
generations = 4
target = none
plot_every = 0
[env]
id = Pendulum-v1
episodes = 2
[policy]
hidden = 8
[es]
population = 8
INI
# an ask/tell optimizer that raises in generation NE_TEST_RAISE_AT (tests/opt_classes.py)
printf '[run]\nalgorithm = python\ngenerations = 4\ntarget = none\nplot_every = 0\n[env]\nid = CartPole-v1\n[python]\nclass = opt_classes:Flaky\noptions = x0=x0, seed=seed\n' > flaky.ini

# --- the study: 2 swept ES arms with a per-config override, and a failing arm ----------------------
study=(pend-es.ini flaky.ini --seeds 2 --threads 2 --sweep pend-es:es.lr=0.01,0.05 pend-es:es.sigma=0.05 --out S)
set +e
NE_TEST_RAISE_AT=2 "$BIN" compare "${study[@]}" --progress 0.2 > first.out 2> first.err
rc=$?
set -e
[ $rc -eq 3 ] || fail "a study with failed runs: exit $rc, expected 3: $(cat first.err)"
for arm in "pend-es[es.lr=0.01]" "pend-es[es.lr=0.05]"; do
  for s in 0 1; do
    [ "$(field "S/$arm/seed$s/run.json" status)" = finished ] || fail "$arm seed $s did not finish"
    grep -qF "$arm,$s," S/summary.csv || fail "summary.csv lacks $arm seed $s"
  done
  grep -qF "## $arm" S/summary.md || fail "summary.md lacks $arm"
done
# the sweep and the per-config override are in each arm's resolved config, and not in the other arm's
grep -qx "lr = 0.05" "S/pend-es[es.lr=0.05]/seed1/config.ini" || fail "the swept value"
grep -qx "# set by --sweep: es.lr=0.05" "S/pend-es[es.lr=0.05]/seed1/config.ini" || fail "config.ini names the sweep"
grep -qx "sigma = 0.05" "S/pend-es[es.lr=0.01]/seed0/config.ini" || fail "the per-config override"
grep -q "^\[es\]" S/flaky/seed0/config.ini && fail "the per-config override reached another config"
[ "$(field S/study.json arms.1.overrides)" = '["es.sigma=0.05", "es.lr=0.05"]' ] || fail "study.json: $(field S/study.json arms.1.overrides)"
# the failing arm: stopped after its 2 good generations, recorded, listed
for s in 0 1; do
  [ "$(field S/flaky/seed$s/run.json status)" = failed ] || fail "flaky seed $s: $(field S/flaky/seed$s/run.json status)"
  [ "$(($(wc -l < S/flaky/seed$s/metrics.csv) - 1))" -eq 2 ] || fail "flaky seed $s: not 2 generations"
  grep -q "^flaky,$s,,,,,failed$" S/summary.csv || fail "summary.csv: flaky seed $s"
  grep -q "| flaky | $s | failed | .*flaky optimizer gave up in generation 2.* | S/flaky/seed$s |" S/summary.md ||
    fail "summary.md does not list flaky seed $s"
done
[ "$(field S/study.json arms.2.runs.0.status)" = failed ] || fail "study.json: the failed run"
field S/study.json arms.2.runs.0.error | grep -q "flaky optimizer gave up" || fail "study.json: the error"
[ "$(field S/study.json status)" = "finished with failures" ] || fail "study.json status"
grep -q "\*\*2 failed\*\*" S/summary.md || fail "summary.md's header does not count the failures"
grep -q "^\[[1-6]/6\] flaky seed 0: FAILED: .*flaky optimizer gave up in generation 2" first.err || fail "no failure line"
grep -q "2 of 6 runs failed (listed in S/summary.md); the same command retries them" first.err || fail "no closing line"
grep -q "^study: [0-9]/6 done.*; running: .* seed [01] (gen [0-9]/4).*; ETA " first.out || fail "no status line with an ETA: $(cat first.out)"
[ -s S/compare.png ] || fail "no compare.png for the finished arms"
grep -q "range of the final (2 seeds: too few for a CI)" S/summary.md || fail "2 seeds: not called a range"

# --- the same command again retries the failed runs only -------------------------------------------
for arm in "pend-es[es.lr=0.01]" "pend-es[es.lr=0.05]"; do cp "S/$arm/seed0/metrics.csv" "kept-$arm.csv"; done
"$BIN" compare "${study[@]}" > second.out 2> second.err || fail "the rerun failed: $(cat second.err)"
grep -q "^4 of 6 runs finished earlier: kept; training 2$" second.out || fail "the rerun did not keep 4 runs: $(cat second.out)"
for arm in "pend-es[es.lr=0.01]" "pend-es[es.lr=0.05]"; do
  cmp "kept-$arm.csv" "S/$arm/seed0/metrics.csv" || fail "$arm was trained again"
  [ "$(field "S/$arm/seed0/run.json" sessions | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 1 ] ||
    fail "$arm got a second session"
done
for s in 0 1; do
  [ "$(field S/flaky/seed$s/run.json status)" = finished ] || fail "flaky seed $s was not retried"
  [ "$(field S/flaky/seed$s/run.json sessions | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 2 ] ||
    fail "flaky seed $s: not resumed"
done
grep -q "Failed runs" S/summary.md && fail "summary.md still lists failures"
[ "$(grep -c ',finished$' S/summary.csv)" -eq 6 ] || fail "summary.csv: 6 finished runs expected"
# the retried run is the run alone: resumed at its checkpoint, the same bits
"$BIN" run flaky.ini run.seed=1 --threads 1 --out alone --quiet
diff <(strip_wall alone/metrics.csv) <(strip_wall S/flaky/seed1/metrics.csv) || fail "the retried run differs from the run alone"

# --- a run's process killed by a signal fails that run only ----------------------------------------
sed 's/^generations = 4/generations = 0/' pend-es.ini > endless.ini
"$BIN" compare endless.ini pend-es.ini --seeds 1 --threads 2 --out K > k.out 2> k.err &
pid=$!
for _ in $(seq 200); do [ -s K/endless/seed0/run.json ] && [ -s K/endless/seed0/metrics.csv ] && break; sleep 0.05; done
kill -9 "$(field K/endless/seed0/run.json pid)"
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 3 ] || fail "a killed run: exit $rc: $(cat k.err)"
grep -q "endless seed 0: FAILED: its process was killed by signal 9" k.err || fail "the killed run: $(cat k.err)"
[ "$(field K/endless/seed0/run.json status)" = failed ] || fail "the killed run's record"
[ "$(field K/pend-es/seed0/run.json status)" = finished ] || fail "the other arm of the killed run's study"

# --- an arm that cannot start, an optimizer call over its limit --------------------------------------
set +e
"$BIN" compare pend-es.ini flaky.ini es.lr=0.02 --seeds 1 --threads 1 --out C > c.out 2> c.err
rc=$?
NE_TEST_HANG_AT=1 "$BIN" compare flaky.ini pend-es.ini flaky:python.call_timeout=2 --seeds 1 --threads 2 --out H \
  > h.out 2> h.err
rc2=$?
set -e
[ $rc -eq 3 ] || fail "an arm that cannot start: exit $rc"
grep -q "flaky cannot start: .*\[es\]" c.err || fail "the arm's config error: $(cat c.err)"
[ "$(field C/pend-es/seed0/run.json status)" = finished ] || fail "the other arm did not run"
grep -q "| flaky | 0 | failed | .*\[es\]" C/summary.md || fail "summary.md: the arm that cannot start"
[ $rc2 -eq 3 ] || fail "a hanging optimizer: exit $rc2"
grep -q "still waiting for tell: 0.5 s so far (it fails after 2 s" h.err || fail "no notice while waiting: $(cat h.err)"
grep -q "| flaky | 0 | failed | .*no reply from the optimizer server to tell within 2 s" H/summary.md ||
  fail "summary.md: the call over its limit"
[ "$(field H/pend-es/seed0/run.json status)" = finished ] || fail "the other arm of the hanging one"

# --- 5 seeds: a bootstrap CI ------------------------------------------------------------------------
printf '[run]\nalgorithm = cmaes\ngenerations = 30\nplot_every = 0\n[env]\nid = bbob/sphere\ndim = 4\n' > sphere.ini
"$BIN" compare sphere.ini --seeds 5 --threads 2 --out CI --quiet > /dev/null
grep -q "| 95% CI of the mean final |" CI/summary.md || fail "5 seeds: no bootstrap CI"
grep -q "95% CI |" CI/summary.md || fail "5 seeds: the overview's interval"

# --- bad input --------------------------------------------------------------------------------------
expect_fail() {  # expect_fail TEXT CMD...: exits 2 and says TEXT
  local text=$1
  shift
  set +e
  out=$("$@" 2>&1)
  rc=$?
  set -e
  [ $rc -eq 2 ] && grep -qF -- "$text" <<< "$out" || fail "$*: rc=$rc, expected 2 with '$text': $out"
}
expect_fail "no config named 'pend-ess' in this study (did you mean 'pend-es'?)" \
  "$BIN" compare pend-es.ini flaky.ini pend-ess:es.lr=0.1 --out bad
expect_fail "es.lr is overridden twice: 'es.lr=0.1' and 'es.lr=0.2'" \
  "$BIN" compare pend-es.ini es.lr=0.1 pend-es:es.lr=0.2 --out bad
expect_fail "es.lr is overridden twice" "$BIN" compare pend-es.ini es.lr=0.1 --sweep es.lr=0.2,0.3 --out bad
expect_fail "expected [NAME:]section.key=V1,V2" "$BIN" compare pend-es.ini --sweep lr --out bad
expect_fail "value '0.1' given twice" "$BIN" compare pend-es.ini --sweep es.lr=0.1,0.1 --out bad
expect_fail "did you mean es.lr?" "$BIN" compare pend-es.ini lr=0.1 --out bad
[ ! -e bad ] || fail "bad input made the directory"
echo "e2e_study: all checks passed"
