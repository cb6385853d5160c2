#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end checks of `neuroevo trace` and `neuroevo envs`: exit codes, the error messages a user
# sees (unknown id with the valid ids, wrong state length, unparsable numbers, actions outside the
# space), the CSV shape, stopping at terminated/truncated, Box2D traces from a reset seed, and
# Box2D traces from replayed draws (--draws: counts, ranges, left-overs; tests/py_box2d_compare.py
# compares such traces with Gymnasium). Usage: e2e_trace.sh NEUROEVO_BIN SCRATCH_DIR
set -u
BIN=${1:?usage: e2e_trace.sh NEUROEVO_BIN SCRATCH_DIR}
TMP=${2:?usage: e2e_trace.sh NEUROEVO_BIN SCRATCH_DIR}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
E2E_KEEP_GOING=1  # every failed check is reported, then the script fails
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# run CMD...: captures exit code, stdout, stderr
run() {
  "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
}

# expect_fail CODE NEEDLE CMD...: exit code CODE, stderr contains NEEDLE, nothing on stdout
expect_fail() {
  local code=$1 needle=$2
  shift 2
  run "$@"
  [ "$RC" -eq "$code" ] || fail "'$*' exited $RC, expected $code (stderr: $(cat "$TMP/err"))"
  grep -qF -- "$needle" "$TMP/err" || fail "'$*' stderr lacks '$needle': $(cat "$TMP/err")"
  [ ! -s "$TMP/out" ] || fail "'$*' printed to stdout on error: $(head -3 "$TMP/out")"
}

# --help exits 0 and shows the usage
run "$BIN" trace --help
[ "$RC" -eq 0 ] || fail "trace --help exited $RC"
grep -q "usage: neuroevo trace ENV_ID" "$TMP/out" || fail "trace --help shows no usage"
run "$BIN" envs --help
[ "$RC" -eq 0 ] || fail "envs --help exited $RC"

# unknown env id: exit 2, a suggestion and every valid id
expect_fail 2 "unknown environment id 'CartPole-v9'" "$BIN" trace CartPole-v9 --state 0,0,0,0 --actions 1
for id in CartPole-v1 Acrobot-v1 MountainCar-v0 MountainCarContinuous-v0 Pendulum-v1; do
  grep -qF "$id" "$TMP/err" || fail "unknown-id message does not list $id"
done
grep -qF "did you mean 'CartPole-v1'?" "$TMP/err" || fail "unknown-id message has no suggestion"

# state of the wrong length names the expected length
expect_fail 2 "needs 4 values" "$BIN" trace CartPole-v1 --state 0,0,0 --actions 1
expect_fail 2 "got 3" "$BIN" trace Pendulum-v1 --state 1,2,3 --actions 0
# unparsable numbers are named
expect_fail 2 "'abc'" "$BIN" trace CartPole-v1 --state 0,abc,0,0 --actions 1
expect_fail 2 "'x1'" "$BIN" trace MountainCar-v0 --state -0.5,0 --actions 1,x1
# actions outside the space are named with the space
expect_fail 2 "action 3 " "$BIN" trace CartPole-v1 --state 0,0,0,0 --actions 1,3
grep -qF "Discrete(2)" "$TMP/err" || fail "out-of-space message does not name Discrete(2)"
expect_fail 2 "2.5" "$BIN" trace Pendulum-v1 --state 0,0 --actions 0.5,2.5
grep -qF "Box(-2, 2, (1,))" "$TMP/err" || fail "out-of-space message does not name the Box"
expect_fail 2 "'1.5' is not an integer" "$BIN" trace Acrobot-v1 --state 0,0,0,0 --actions 1.5
expect_fail 2 "nan" "$BIN" trace MountainCarContinuous-v0 --state -0.5,0 --actions nan
# usage errors
expect_fail 2 "exactly one of --actions and --actions-file" "$BIN" trace CartPole-v1 --state 0,0,0,0
expect_fail 2 "missing --state, --seed or --draws" "$BIN" trace CartPole-v1 --actions 1
expect_fail 2 "unknown option '--bogus'" "$BIN" trace CartPole-v1 --state 0,0,0,0 --actions 1 --bogus
expect_fail 2 "cannot open" "$BIN" trace CartPole-v1 --state 0,0,0,0 --actions-file "$TMP/missing.txt"

# the CSV: header, row 0 with the given state's observation, one row per step
run "$BIN" trace CartPole-v1 --state 0.01,0.02,0.03,0.04 --actions 1,0,1
[ "$RC" -eq 0 ] || fail "trace exited $RC: $(cat "$TMP/err")"
[ "$(head -1 "$TMP/out")" = "step,obs_0,obs_1,obs_2,obs_3,reward,terminated,truncated" ] || fail "bad header: $(head -1 "$TMP/out")"
[ "$(wc -l <"$TMP/out")" -eq 5 ] || fail "expected 5 lines, got $(wc -l <"$TMP/out")"
[ "$(sed -n 2p "$TMP/out")" = "0,0.0099999997764825821,0.019999999552965164,0.029999999329447746,0.039999999105930328,0,0,0" ] ||
  fail "bad row 0: $(sed -n 2p "$TMP/out")"
[ "$(sed -n 3p "$TMP/out" | cut -d, -f1,6-)" = "1,1,0,0" ] || fail "bad row 1: $(sed -n 3p "$TMP/out")"

# stops at the first terminated step (the pole is already past 12 degrees after one step)
run "$BIN" trace CartPole-v1 --state 0,0,0.2,1 --actions 0,0,0,0
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 3 ] || fail "did not stop at termination: $(cat "$TMP/out")"
[ "$(tail -1 "$TMP/out" | cut -d, -f6-)" = "1,1,0" ] || fail "terminating row: $(tail -1 "$TMP/out")"

# stops at the TimeLimit (Pendulum: 200) with an actions file longer than that
for i in $(seq 1 250); do echo "0.5"; done >"$TMP/pendulum.actions"
run "$BIN" trace Pendulum-v1 --state 1,0 --actions-file "$TMP/pendulum.actions"
[ "$RC" -eq 0 ] || fail "trace --actions-file exited $RC: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/out")" -eq 202 ] || fail "expected 202 lines at the TimeLimit, got $(wc -l <"$TMP/out")"
[ "$(tail -1 "$TMP/out" | cut -d, -f1,6-)" = "200,0,1" ] || fail "truncating row: $(tail -1 "$TMP/out")"

# Box2D from a reset seed: LunarLander-v3 with an all-noop actions file falls and crashes. Two runs
# are byte-identical; the last row terminates with the crash's -100; and the episode is the one
# `neuroevo eval --seed 3` runs for an agent that always picks noop (a linear policy with zero
# parameters: argmax of equal logits is action 0): same length and return
for i in $(seq 1 1000); do echo 0; done >"$TMP/noop.actions"
run "$BIN" trace LunarLander-v3 --seed 3 --actions-file "$TMP/noop.actions"
[ "$RC" -eq 0 ] || fail "trace LunarLander-v3 --seed exited $RC: $(cat "$TMP/err")"
cp "$TMP/out" "$TMP/lander1.csv"
run "$BIN" trace LunarLander-v3 --seed 3 --actions-file "$TMP/noop.actions"
cmp -s "$TMP/out" "$TMP/lander1.csv" || fail "two LunarLander traces from seed 3 differ"
[ "$(tail -1 "$TMP/out" | cut -d, -f10-)" = "-100,1,0" ] || fail "LunarLander crash row: $(tail -1 "$TMP/out")"
steps=$(($(wc -l <"$TMP/out") - 2))
ret=$(awk -F, 'NR > 2 { s += $10 } END { printf "%.2f", s }' "$TMP/out")
{ echo "# neuroevo params v1"; echo "env.id = LunarLander-v3"; echo "policy.hidden = "
  echo "params = $(for i in $(seq 1 36); do printf '0 '; done)"; } >"$TMP/noop.params"
run "$BIN" eval --genome "$TMP/noop.params" --episodes 1 --seed 3
grep -qF "mean return $ret " "$TMP/out" && grep -qF ", $steps steps)" "$TMP/out" ||
  fail "eval of the noop agent ($(cat "$TMP/out" "$TMP/err")) is not the trace's $steps steps, return $ret"
# BipedalWalker too (4-component actions); --state is refused for Box2D, naming --seed
run "$BIN" trace BipedalWalker-v3 --seed 1 --actions "0,0,0,0;1,-1,0.5,0"
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 4 ] || fail "BipedalWalker trace: $RC $(cat "$TMP/err")"
expect_fail 2 "cannot be set from a flat state vector" "$BIN" trace LunarLander-v3 --state 0,0 --actions 0
grep -qF -- "--seed S" "$TMP/err" || fail "the Box2D --state message does not point to --seed"
expect_fail 2 "one of --state, --seed, --draws and --draws-file" \
  "$BIN" trace CartPole-v1 --state 0,0,0,0 --seed 1 --actions 1
expect_fail 2 "not several" "$BIN" trace LunarLander-v3 --seed 1 --draws 1 --actions 0
expect_fail 2 "--seed: 'x1'" "$BIN" trace CartPole-v1 --seed x1 --actions 1

# Box2D from replayed draws (Gymnasium's np_random values): LunarLander takes 12 terrain heights,
# the force's x and y and 2 dispersions for the reset's no-op step, then 2 per step
heights="1,2,3,4,5,6,6.5,5,4,3,2,1"
run "$BIN" trace LunarLander-v3 --draws "$heights,0,0,0,0,0.5,-0.5" --actions 2
[ "$RC" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 3 ] || fail "LunarLander --draws trace: $RC $(cat "$TMP/err")"
# the values come in order: a different force gives a different first observation
sed -n 2p "$TMP/out" >"$TMP/row0"
run "$BIN" trace LunarLander-v3 --draws "$heights,500,0,0,0,0.5,-0.5" --actions 2
[ "$(sed -n 2p "$TMP/out")" != "$(cat "$TMP/row0")" ] || fail "the force draws did not reach the lander"
# too few for the steps (checked before any row is printed), one outside its range, left-overs
expect_fail 2 "ran out: value 17 (an engine dispersion) was needed and 16 were given" \
  "$BIN" trace LunarLander-v3 --draws "$heights,0,0,0,0" --actions 0
expect_fail 2 "value 3 = 7 is not what a terrain height draws" \
  "$BIN" trace LunarLander-v3 --draws "1,2,7,4,5,6,6.5,5,4,3,2,1,0,0,0,0" --actions 0
expect_fail 2 "2 of the 20 values are left after the last action" \
  "$BIN" trace LunarLander-v3 --draws "$heights,0,0,0,0,0,0,0,0" --actions 0
# a file with comments and mixed separators; an episode that ends (the all-noop lander crashes)
# before its actions run out may leave the draws of the steps it never took
{ echo "# terrain"; echo "$heights" | tr , ' '; echo "0, 0 # force"
  for i in $(seq 0 1000); do echo "0.1 -0.1"; done; } >"$TMP/noop.draws"
run "$BIN" trace LunarLander-v3 --draws-file "$TMP/noop.draws" --actions-file "$TMP/noop.actions"
[ "$RC" -eq 0 ] && [ "$(tail -1 "$TMP/out" | cut -d, -f10-)" = "-100,1,0" ] ||
  fail "noop lander from --draws-file: $RC $(tail -1 "$TMP/out") $(cat "$TMP/err")"
echo "0.1 zero 0.2" >"$TMP/bad.draws"
expect_fail 2 "bad.draws:1: cannot parse 'zero'" "$BIN" trace LunarLander-v3 --draws-file "$TMP/bad.draws" --actions 0
# the walker's first draw is a run length, integers(5, 10); other families have no replay
expect_fail 2 "value 1 = 5.5 is not what a run's length draws (an integer in [5, 10))" \
  "$BIN" trace BipedalWalker-v3 --draws 5.5 --actions "0,0,0,0"
expect_fail 2 "only the Box2D envs replay" "$BIN" trace CartPole-v1 --draws 0.5 --actions 1

# envs shows each id with its spaces (filtered to the classic ids: other families load models)
run "$BIN" envs CartPole-v1
[ "$RC" -eq 0 ] || fail "envs exited $RC"
grep -q "^CartPole-v1 .*Discrete(2) .* 500 .*475.0" "$TMP/out" || fail "envs row for CartPole-v1: $(cat "$TMP/out")"
run "$BIN" envs Pendulum-v1
grep -q "^Pendulum-v1 .*Box(-2.0, 2.0, (1,)) .* 200 .* -$" "$TMP/out" || fail "envs row for Pendulum-v1: $(cat "$TMP/out")"
expect_fail 2 "no environment id contains" "$BIN" envs NoSuchEnv

e2e_finish e2e_trace
