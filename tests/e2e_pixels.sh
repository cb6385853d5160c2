#!/usr/bin/env bash
# End to end through the CLI for pixels: a Deep GA run with a conv policy (the MinAtar preset) on
# MinAtar Breakout gives identical metrics and best.genome with 1 and 2 threads (the conv kernel
# and the lockstep re-evaluation are deterministic); the genome records the conv keys, so eval
# rebuilds the same net and reproduces its figure; `rollouts` prints its CSV and refuses bad input.
# usage: e2e_pixels.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# sanitizer builds run ~10x slower: fewer genomes, the same checks
POP=40
case "$BIN" in *asan*) POP=12 ;; esac

cat > px.ini <<INI
[run]
algorithm = ga
seed = 7
generations = 3
target = none
plot_every = 0

[env]
id = MinAtar/Breakout-v1
max_episode_steps = 300

[policy]
preset = minatar
init = xavier

[ga]
population = $POP
truncation = 5
sigma = 0.05
elite_candidates = 2
elite_episodes = 10
INI

# --- 1 thread == 2 threads, conv keys in the genome --------------------------------------------
"$BIN" run px.ini --threads 1 --out A --quiet
"$BIN" run px.ini --threads 2 --out B --quiet
diff <(strip_wall A/metrics.csv) <(strip_wall B/metrics.csv) || fail "metrics differ between 1 and 2 threads"
cmp A/best.genome B/best.genome || fail "best.genome differs between 1 and 2 threads"
grep -q '^policy.preset = minatar' A/best.genome || fail "genome lacks policy.preset"
grep -q '^env.sticky_prob = ' A/best.genome || fail "genome lacks env.sticky_prob"

# --- eval rebuilds the conv net from the genome alone ----------------------------------------
e1=$("$BIN" eval A --episodes 5 --seed 3)
e2=$("$BIN" eval --genome A/best.genome --episodes 5 --seed 3 --threads 1)
[ "$e1" = "$e2" ] || fail "eval differs: '$e1' vs '$e2'"
echo "$e1" | grep -q "MinAtar/Breakout-v1: mean return" || fail "eval output: $e1"

# --- rollouts ------------------------------------------------------------------------------
out=$("$BIN" rollouts MinAtar/Freeway-v1 --policy scripted --episodes 2 --seed 1)
[ "$(echo "$out" | head -1)" = "episode,return,length" ] || fail "rollouts header: $out"
[ "$(echo "$out" | wc -l)" -eq 3 ] || fail "rollouts rows: $out"
echo "$out" | tail -1 | grep -q ',2501$' || fail "Freeway episodes last 2501 steps: $out"
r1=$("$BIN" rollouts MinAtar/Asterix-v0 --episodes 3 --seed 5)
r2=$("$BIN" rollouts MinAtar/Asterix-v0 --episodes 3 --seed 5)
[ "$r1" = "$r2" ] || fail "rollouts not reproducible"
set +e
out=$("$BIN" rollouts CartPole-v1 --policy scripted 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "MinAtar" || fail "scripted on a non-MinAtar env: rc=$rc $out"
out=$("$BIN" rollouts MinAtar/Breakout-v1 --sticky 2 2>&1); rc=$?
[ $rc -eq 2 ] || fail "--sticky 2 accepted: $out"
out=$("$BIN" rollouts MinAtar/Breakout-v9 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "did you mean 'MinAtar/Breakout-v" || fail "unknown id should suggest: $out"
out=$("$BIN" run px.ini policy.preset=nature 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -qi "kernel" || fail "nature net on 10x10: rc=$rc $out"
set -e
"$BIN" rollouts --help >/dev/null || fail "rollouts --help"
echo "e2e_pixels: all checks passed"
