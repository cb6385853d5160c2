#!/usr/bin/env bash
# End to end through the CLI: a Deep GA run on CartPole produces a complete run directory; the same
# config and seed with 1 and 2 threads give identical metrics (all but wall_s) and best.genome;
# a run killed with SIGKILL mid-run and resumed, and a run stopped with SIGINT and resumed, both
# end identical to the uninterrupted run; eval reproduces the same figure twice; bad input exits 2.
# usage: e2e_ga.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# Sanitizer builds run ~10x slower: a smaller population keeps the same checks affordable while
# a generation still lasts long enough for the kill tests to land mid-run.
POP=600
case "$BIN" in *asan*) POP=150 ;; esac

cat > det.ini <<INI
[run]
algorithm = ga
seed = 42
generations = 40
target = none
plot_every = 0

[env]
id = CartPole-v1

[policy]
hidden = 32,32

[ga]
population = $POP
truncation = 20
sigma = 0.05
elite_candidates = 3
elite_episodes = 5
INI

# --- a complete run directory -------------------------------------------------------------
"$BIN" run det.ini --threads 1 --out A --quiet >A.out
[ "$(cat A.out)" = "run directory: A" ] || fail "--quiet should print the run directory alone: $(cat A.out)"
for f in config.ini metrics.csv best.genome log.txt; do [ -s "A/$f" ] || fail "A/$f missing or empty"; done
ls A/checkpoints/ckpt-*.bin >/dev/null || fail "no checkpoints"
[ "$(ls A/checkpoints/ckpt-*.bin | wc -l)" -eq 3 ] || fail "expected the last 3 checkpoints, got $(ls A/checkpoints)"
[ "$(head -1 A/metrics.csv)" = "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean" ] || fail "metrics header"
[ "$(($(wc -l < A/metrics.csv) - 1))" -eq 40 ] || fail "expected 40 metric rows"
grep -q '^env.id = CartPole-v1' A/best.genome || fail "genome lacks env.id"
grep -q '^seeds = ' A/best.genome || fail "genome lacks seeds"

# --- 1 thread == 2 threads ------------------------------------------------------------------
"$BIN" run det.ini --threads 2 --out B --quiet
diff <(strip_wall A/metrics.csv) <(strip_wall B/metrics.csv) || fail "metrics differ between 1 and 2 threads"
cmp A/best.genome B/best.genome || fail "best.genome differs between 1 and 2 threads"

# --- SIGKILL mid-run, then resume -----------------------------------------------------------
"$BIN" run det.ini --threads 2 --out C --quiet &
pid=$!
for _ in $(seq 1 2000); do
  rows=$(($(wc -l < C/metrics.csv 2>/dev/null || echo 1) - 1))
  [ "$rows" -ge 4 ] && break
  sleep 0.01
done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
rows=$(($(wc -l < C/metrics.csv) - 1))
[ "$rows" -lt 40 ] || fail "run finished before the kill (rows=$rows): the test needs a longer run"
"$BIN" resume C --quiet
diff <(strip_wall A/metrics.csv) <(strip_wall C/metrics.csv) || fail "metrics differ after kill -9 + resume"
cmp A/best.genome C/best.genome || fail "best.genome differs after kill -9 + resume"

# --- SIGINT writes a checkpoint and exits 130; resume completes identically ------------------
"$BIN" run det.ini --threads 2 --out D --quiet >D.out 2>D.err &
pid=$!
for _ in $(seq 1 2000); do
  rows=$(($(wc -l < D/metrics.csv 2>/dev/null || echo 1) - 1))
  [ "$rows" -ge 3 ] && break
  sleep 0.01
done
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" -eq 130 ] || fail "SIGINT exit code $rc, expected 130"
grep -q "interrupted during generation [0-9]*: kept the checkpoint at generation [0-9]* (D/checkpoints/)" D/log.txt || fail "no interruption message in log.txt"
grep -q "^neuroevo: interrupted during generation [0-9]*: kept .*; .neuroevo resume D. continues" D.err ||
  fail "--quiet hid what the stopped run kept: $(cat D.err)"
"$BIN" resume D --quiet
diff <(strip_wall A/metrics.csv) <(strip_wall D/metrics.csv) || fail "metrics differ after SIGINT + resume"

# --- resume with a larger budget continues ---------------------------------------------------
"$BIN" resume B --generations 42 --quiet
[ "$(($(wc -l < B/metrics.csv) - 1))" -eq 42 ] || fail "resume --generations 42 did not add 2 rows"

# --- eval is reproducible ---------------------------------------------------------------------
e1=$("$BIN" eval A --episodes 20 --seed 3)
e2=$("$BIN" eval --genome A/best.genome --episodes 20 --seed 3 --threads 1)
[ "$e1" = "$e2" ] || fail "eval differs: '$e1' vs '$e2'"
echo "$e1" | grep -q "CartPole-v1: mean return .* over 20 episodes" || fail "eval output: $e1"

# --- bad input: clear errors, exit 2 ---------------------------------------------------------
set +e
out=$("$BIN" run det.ini ga.populaton=5 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "population" || fail "misspelled override: rc=$rc out=$out"
out=$("$BIN" run no-such-config 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "cartpole-ga" || fail "unknown config should list named configs: $out"
out=$("$BIN" run cartpol-ga 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "did you mean 'cartpole-ga'" || fail "a misspelt config name: $out"
out=$("$BIN" run cartpole-ga populaton=5 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "did you mean ga.population" || fail "a bare misspelt key: $out"
out=$("$BIN" run cartpole-ga ga.population=5 ga.population=6 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "overridden twice: 'ga.population=5' and 'ga.population=6'" ||
  fail "a key overridden twice: $out"
out=$("$BIN" resume /nonexistent 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "/nonexistent" || fail "resume of a missing dir: $out"
out=$("$BIN" eval --genome /nonexistent.genome 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "nonexistent.genome" || fail "eval of a missing genome: $out"
out=$("$BIN" run det.ini --threads zero 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "threads" || fail "bad --threads: $out"
# the config reference: one section (brackets allowed), an unknown one names the nearest
out=$("$BIN" config '[ga]' 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^| `population` |' && ! echo "$out" | grep -q '## \[es\]' ||
  fail "config [ga]: $out"
out=$("$BIN" config gaa 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -qF "did you mean [ga]?" || fail "config gaa: $out"
set -e
for cmd in run resume eval plot envs trace config; do "$BIN" $cmd --help >/dev/null || fail "$cmd --help"; done
echo "e2e_ga: all checks passed"
