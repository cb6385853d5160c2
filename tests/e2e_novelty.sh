#!/usr/bin/env bash
# Novelty search end to end on HardMaze-v0: NSRA-ES (the NS-ES family's machinery plus the adaptive
# weight) and GA-NS give identical metrics (all but wall_s), best agent and archive.csv with 1 and
# 2 threads, after a SIGKILL and `neuroevo resume`, and through Redis with 1 and 3 workers
# (`neuroevo cluster`: a private redis-server on a free loopback port, stopped at the end); the
# archive is drawn by `neuroevo render`; clear errors for [novelty] under a plain GA, novelty search
# on a black-box function and a bad env.behaviour (exit 2).
# usage: e2e_novelty.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
same() {  # same REF DIR WHAT: metrics (minus wall_s), the best agent and archive.csv identical
  diff <(strip_wall "$1/metrics.csv") <(strip_wall "$2/metrics.csv") >/dev/null || fail "$3: metrics differ"
  local agent
  for agent in best.genome best.params; do
    [ -f "$1/$agent" ] || continue
    cmp -s "$1/$agent" "$2/$agent" || fail "$3: $agent differs"
  done
  cmp -s "$1/archive.csv" "$2/archive.csv" || fail "$3: archive.csv differs"
  echo "ok: $3 identical ($(rows "$2") generations, $(($(wc -l < "$2/archive.csv") - 1)) archived behaviours)"
}

# NSRA-ES with a short patience, so the weight moves within the run; observation normalization and
# the shared noise table (es.noise's default) on
cat > nsra.ini <<'INI'
[run]
algorithm = nsra-es
seed = 4
generations = 40
target = none
plot_every = 0
[env]
id = HardMaze-v0
[policy]
hidden = 8
[es]
population = 24
sigma = 0.1
lr = 0.05
eval_episodes = 1
[novelty]
meta_population = 3
weight_patience = 2
INI

# GA-NS with a small archive cap, so reservoir replacement happens within the run
cat > gans.ini <<'INI'
[run]
algorithm = ga
seed = 6
generations = 25
target = none
plot_every = 0
[env]
id = HardMaze-v0
[policy]
hidden = 8
[ga]
population = 40
truncation = 8
sigma = 0.1
elite_candidates = 3
elite_episodes = 1
novelty = true
[novelty]
archive_prob = 0.1
archive_max = 60
INI

kill_resume() {  # NAME: runs NAME.ini on 2 threads into K-NAME, kills it after 5 generations, resumes
  local name=$1 pid
  "$BIN" run $name.ini --threads 2 --out K-$name --quiet &
  pid=$!
  for _ in $(seq 1 3000); do
    [ "$(rows K-$name)" -ge 5 ] && break
    sleep 0.01
  done
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  [ "$(rows K-$name)" -lt "$(rows ${name}1)" ] || fail "$name finished before the kill: the test needs a longer run"
  "$BIN" resume K-$name --quiet
  same ${name}1 K-$name "$name killed with SIGKILL and resumed"
}

for name in nsra gans; do
  "$BIN" run $name.ini --threads 1 --out ${name}1 --quiet
  [ -s ${name}1/archive.csv ] || fail "$name: no archive.csv"
  "$BIN" run $name.ini --threads 2 --out ${name}2 --quiet
  same ${name}1 ${name}2 "$name, 1 vs 2 threads"
  kill_resume $name
done
# the GA-NS archive hit its cap (reservoir sampling), the NSRA weight moved
[ "$(($(wc -l < gans1/archive.csv) - 1))" -eq 60 ] || fail "GA-NS archive not at its cap of 60"
grep -q '^\[novelty\]' nsra1/config.ini || fail "nsra: config.ini lacks [novelty]"

# --- Redis: 1 and 3 workers ---------------------------------------------------------------------
need_hiredis
for name in nsra gans; do
  for k in 1 3; do
    "$BIN" cluster --workers $k --threads-per-worker 1 $name.ini --out C$k-$name --quiet 2>cluster-$name-$k.log ||
      fail "$name: cluster with $k workers failed: $(tail -3 cluster-$name-$k.log)"
    same ${name}1 C$k-$name "$name through Redis with $k worker(s)"
  done
done

# --- the archive over the maze ---------------------------------------------------------------------
out=$("$BIN" render gans1 --out maze.gif --size 120x120 --max-frames 3)
echo "$out" | grep -q "60 archived behaviours drawn" || fail "render did not draw the archive: $out"
out=$("$BIN" render gans1 --out maze2.gif --size 120x120 --max-frames 3 --archive none)
! echo "$out" | grep -q "archived" || fail "--archive none drew the archive: $out"

# --- bad input: clear errors, exit 2 -------------------------------------------------------------
set +e
printf '[run]\nalgorithm = ga\n[env]\nid = HardMaze-v0\n[novelty]\nk = 5\n' > off.ini
out=$("$BIN" run off.ini --out off 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "section \[novelty\] has no effect while ga.novelty = false" ||
  fail "[novelty] under a plain GA: rc=$rc out=$out"
out=$("$BIN" run nsra.ini env.id=bbob/sphere --out bbob 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "needs behaviour characterizations" || fail "novelty search on bbob: rc=$rc out=$out"
out=$("$BIN" run nsra.ini env.behaviour=obs:11 --out badbc 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "env.behaviour = 'obs:11'" || fail "env.behaviour out of range: rc=$rc out=$out"
set -e
echo "e2e_novelty: all checks passed"
