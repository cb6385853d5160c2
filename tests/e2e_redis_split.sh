#!/usr/bin/env bash
# A candidate's episodes split over several tasks (the GA's elite re-evaluation, 30 episodes of
# each of 10 candidates, is a straggler round when hundreds of workers are idle): the
# master cuts such candidates into parts, workers return per-episode returns, and the master folds
# them in episode order with the local evaluator's arithmetic. Checked against a local run (metrics
# minus wall_s, best.genome): 1 worker x 2 threads and parts of 1 episode; 3 workers killed with
# SIGKILL about every 0.4 s and parts of 2; a master killed mid-run and resumed with another cut
# (parts the new master did not cut are re-evaluated); the automatic cut with 4 workers.
# usage: e2e_redis_split.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
declare -A WPID
start_worker() {  # start_worker NAME THREADS (5 ms a candidate or part)
  NEUROEVO_TEST_EVAL_DELAY_MS=5 "$BIN" worker --redis "$URL" --threads "$2" --name "$1" --heartbeat 0.25 \
    >>"$1.log" 2>&1 &
  WPID[$1]=$!
  PIDS+=($!)
}
stop_workers() {
  for w in "${!WPID[@]}"; do kill -9 "${WPID[$w]}" 2>/dev/null || true; wait "${WPID[$w]}" 2>/dev/null || true; done
  WPID=()
}
parts_used() {  # parts_used LOG: the master's count of parts of split candidates
  sed -n 's/.*; \([0-9]*\) parts of candidates whose episodes were split.*/\1/p' "$1" | tail -1
}
cat > split.ini <<INI
[run]
algorithm = ga
seed = 13
generations = 24
target = none
plot_every = 0
[env]
id = CartPole-v1
[policy]
hidden = 8
[ga]
population = 24
truncation = 5
sigma = 0.05
elite_candidates = 3
elite_episodes = 6
INI
"$BIN" run split.ini --threads 2 --out L --quiet

# 1 worker x 2 threads, every elite candidate in parts of one episode
start_worker w1 2
timeout 120 "$BIN" run split.ini --redis "$URL" --episodes-per-task 1 --out R1 2>master1.log >/dev/null
same_as L R1 "1 worker x 2 threads, parts of 1 episode"
[ "$(parts_used master1.log)" -eq $((24 * 3 * 6)) ] || fail "expected $((24 * 18)) parts: $(tail -2 master1.log)"
stop_workers

# 3 workers, parts of 2 episodes, a worker killed with SIGKILL about every 0.4 s
for k in 1 2 3; do start_worker "w$k" 1; done
timeout 120 "$BIN" run split.ini --redis "$URL" --episodes-per-task 2 --task-timeout 0.5 --out RK 2>masterK.log \
  >/dev/null &
mpid=$!
PIDS+=($mpid)
kills=0
while kill -0 $mpid 2>/dev/null; do
  sleep 0.4
  kill -0 $mpid 2>/dev/null || break
  victim=w$((RANDOM % 3 + 1))
  kill -9 "${WPID[$victim]}" 2>/dev/null && kills=$((kills + 1))
  wait "${WPID[$victim]}" 2>/dev/null || true
  start_worker "$victim" 1
done
wait $mpid || fail "run with parts and killed workers: $(tail -3 masterK.log)"
[ $kills -ge 3 ] || fail "only $kills kills: the test needs a longer run"
same_as L RK "3 workers, parts of 2 episodes, $kills workers killed with SIGKILL"

# the master killed mid-run, resumed with parts of 3 episodes (those of 2 in Redis do not fit)
# (no `timeout` around it: the SIGKILL must reach the master itself)
"$BIN" run split.ini --redis "$URL" --episodes-per-task 2 --out RM --quiet 2>masterM.log &
mpid=$!
PIDS+=($mpid)
wait_rows RM 4
kill -9 $mpid
wait $mpid 2>/dev/null || true
[ "$(rows RM)" -lt 24 ] || fail "the master finished before the kill"
sleep 0.3
timeout 120 "$BIN" resume RM --redis "$URL" --episodes-per-task 3 2>masterM2.log >/dev/null ||
  fail "resume with another cut: $(tail -3 masterM2.log)"
same_as L RM "master killed mid-run and resumed with parts of 3 episodes"
stop_workers

# the automatic cut: 4 workers, 18 elite episodes in a round, 6 per candidate > 18 / 4
for k in 1 2 3 4; do start_worker "w$k" 1; done
sleep 0.6  # every worker heartbeating: the cut follows the live threads
timeout 120 "$BIN" run split.ini --redis "$URL" --out RA 2>masterA.log >/dev/null
same_as L RA "4 workers, automatic cut"
[ "$(parts_used masterA.log)" -gt 0 ] || fail "the automatic cut split nothing: $(tail -2 masterA.log)"
set +e
out=$("$BIN" run split.ini --redis "$URL" --episodes-per-task 0 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q -- "--episodes-per-task" || fail "--episodes-per-task 0: rc=$rc out=$out"
set +e
out=$("$BIN" run split.ini --redis "$URL" --episodes-per-task sometimes 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q -- "--episodes-per-task expects a number of episodes, auto or off" ||
  fail "--episodes-per-task sometimes: rc=$rc out=$out"
echo "e2e_redis_split: all checks passed"
