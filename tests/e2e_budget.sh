#!/usr/bin/env bash
# End to end through the CLI: what a run's budget and options mean. --generations is the
# run's budget from then on: config.ini holds it, so resume, the dashboard and the report use it, and
# resume --generations G rewrites it; --generations 0 and --threads 0 mean what run.generations = 0
# and run.threads = 0 mean (no limit, all cores); an override of run.algorithm switches algorithms
# with a note instead of failing on the file's section; SIGTERM exits 143, Ctrl-C 130.
# usage: e2e_budget.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
small=(cartpole-ga run.target=none ga.population=10 ga.truncation=3 ga.elite_candidates=2 ga.elite_episodes=2)

# --- --generations is saved in config.ini, and resume keeps it ----------------------------------
"$BIN" run "${small[@]}" --generations 3 --out A --quiet
grep -qx "generations = 3" A/config.ini || fail "config.ini lacks the --generations budget: $(grep ^generations A/config.ini)"
"$BIN" resume A --quiet
[ "$(rows A)" -eq 3 ] || fail "resume without --generations went past the run's budget: $(rows A) rows"
# a new budget on resume is written too, and the run equals one started with that budget
"$BIN" resume A --generations 5 --quiet
grep -qx "generations = 5" A/config.ini || fail "resume --generations 5 not in config.ini"
"$BIN" run "${small[@]}" --generations 5 --out B --quiet
diff <(strip_wall A/metrics.csv) <(strip_wall B/metrics.csv) || fail "resume --generations 5 differs from a 5-generation run"

# --- 0 means what the config's 0 means ----------------------------------------------------------
"$BIN" run "${small[@]}" run.max_env_steps=300 --generations 0 --threads 0 --out C > C.out
grep -qx "generations = 0" C/config.ini || fail "--generations 0 not saved as no limit"
grep -q "env-step budget reached" C.out || fail "--generations 0 did not run to the env-step budget: $(tail -n 3 C.out)"
grep -q "\[$(nproc) thread" C.out || fail "--threads 0 did not use all $(nproc) cores: $(head -n 2 C.out)"
set +e
out=$("$BIN" run "${small[@]}" --generations -1 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q "expects an integer in \[0," || fail "--generations -1: rc=$rc $out"

# --- run.algorithm by override: the file's [es] is ignored with a note ---------------------------
"$BIN" run cartpole-es run.algorithm=ga ga.population=10 ga.truncation=3 ga.elite_candidates=2 \
  --generations 1 --out D --quiet 2> D.err || fail "run.algorithm=ga on an ES config: $(cat D.err)"
grep -q "note: command line: run.algorithm = ga: ignoring \[es\] (.* first at .*cartpole-es.ini:" D.err ||
  fail "no note about the ignored [es]: $(cat D.err)"
grep -qx "\[ga\]" D/config.ini && ! grep -qx "\[es\]" D/config.ini || fail "config.ini of the switched run"
"$BIN" resume D --generations 2 --quiet || fail "the switched run does not resume"

# the GA config shipped for MuJoCo loads and trains (a tiny population here)
"$BIN" run hopper-ga ga.population=6 ga.truncation=2 ga.elite_candidates=2 ga.elite_episodes=2 --generations 1 \
  --out H --quiet || fail "hopper-ga does not run"
grep -qx "id = Hopper-v5" H/config.ini && grep -qx "algorithm = ga" H/config.ini || fail "hopper-ga's config.ini"

# --- the progress line's throughput counts all work ---------------------------------------------
# Here the elite's re-evaluation (3 x 100 episodes) is most of each generation's env steps. The
# line's steps/s is the generation's steps over its own time, which is less than the whole
# command's: rate x command time >= the generation's steps. (A rate of evaluations, the population
# without re-evaluation episodes, falls short by a factor of thousands.)
t0=$(date +%s.%N)
"$BIN" run cartpole-ga run.target=none ga.population=10 ga.truncation=3 ga.elite_candidates=3 ga.elite_episodes=100 \
  --generations 4 --threads 2 --out P > P.out
t1=$(date +%s.%N)
grep -q "steps/s" P.out || fail "the progress line shows no steps/s: $(sed -n 2p P.out)"
awk -v t0="$t0" -v t1="$t1" '
  BEGIN { wall = t1 - t0 }
  function num(s) { m = 1; if (s ~ /k$/) m = 1e3; if (s ~ /M$/) m = 1e6; if (s ~ /G$/) m = 1e9; return s * m }
  FNR == NR && FNR > 1 { split($0, f, ","); steps[f[1]] = f[3]; next }
  /^gen / { for (i = 1; i < NF; i++) if ($(i + 1) == "steps/s") rate = num($i)
            g = $2; done = steps[g] - (g > 0 ? steps[g - 1] : 0)
            if (rate * wall < 0.98 * done) { print "gen " g ": " rate " steps/s x " wall " s < " done " steps"; bad = 1 } }
  END { exit bad }' P/metrics.csv P.out || fail "the progress line's rate does not count the generation's steps"

# --- signals: Ctrl-C exits 130, SIGTERM 143, each after a checkpoint -----------------------------
for sig in INT TERM; do
  "$BIN" run "${small[@]}" --generations 0 --out "S$sig" --quiet &
  pid=$!
  for _ in $(seq 1 2000); do [ -s "S$sig/metrics.csv" ] && [ "$(rows "S$sig")" -ge 2 ] && break; sleep 0.01; done
  kill -$sig $pid
  set +e; wait $pid; rc=$?; set -e
  want=$([ $sig = INT ] && echo 130 || echo 143)
  [ $rc -eq "$want" ] || fail "SIG$sig exit status $rc, expected $want"
  grep -q "interrupted during generation [0-9]*: kept the checkpoint at generation" "S$sig/log.txt" || fail "SIG$sig: no checkpoint message"
done
echo "e2e_budget: ok"
