#!/usr/bin/env bash
# A Redis-mode master keeps what it accepted. Stopped with SIGTERM in the middle of a generation,
# it says what it kept (the checkpoint, and the generation's finished candidates in
# checkpoints/partial.log) and where, and --quiet still prints the run directory; killed with
# SIGKILL, it has every accepted result in partial.log. Either way, with its redis-server restarted
# empty and new workers, `resume --redis` has exactly the missing candidates evaluated (the new
# workers' result counts add up to that) and ends identical to the local run. Liveness: `status`
# shows the master's last heartbeat, says "stopped" after the SIGTERM, "gone" within 5 s of the
# SIGKILL and "finished" at the end; workers say what they wait for (the stopped or gone master,
# or any master on an empty Redis).
# usage: e2e_redis_resume.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
need_hiredis
T0=$(date +%s)
section() { echo "[$(($(date +%s) - T0))s] $*"; }

port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port

declare -A WPID
start_worker() {  # start_worker NAME: one thread, 15 ms a candidate (the test hook: results unaffected)
  NEUROEVO_TEST_EVAL_DELAY_MS=15 "$BIN" worker --redis "$URL" --threads 1 --name "$1" --heartbeat 0.25 \
    >>"$1.log" 2>&1 &
  WPID[$1]=$!
  PIDS+=($!)
}
results_of() {  # results_of NAME...: results the workers reported when they left
  local total=0 n
  for w in "$@"; do
    n=$(sed -n 's/.*leaving after [0-9]* tasks (\([0-9]*\) results.*/\1/p' "$w.log" | tail -n 1)
    [ -n "$n" ] || fail "worker $w did not report leaving"
    total=$((total + n))
  done
  echo "$total"
}
evals_at() {  # evals_at DIR G: the evaluations column after G completed generations
  awk -F, -v g="$1" 'g == 0 && NR == 1 { print 0 } g > 0 && NR == g + 1 { print $2 }' "$2/metrics.csv"
}

# (run.overlap off: the counts below are those of plain rounds; with overlap a generation's
# population comes whole from the previous round's results asked ahead, and the workers also
# evaluate spare candidates. tests/e2e_overlap.sh kills and resumes an overlapped Redis master)
cat > det.ini <<INI
[run]
algorithm = ga
seed = 5
generations = 8
target = none
plot_every = 0
overlap = false
[env]
id = CartPole-v1
[policy]
hidden = 8
[ga]
population = 40
truncation = 6
sigma = 0.05
elite_candidates = 2
elite_episodes = 3
INI
section "local reference"
"$BIN" run det.ini --threads 2 --out L --quiet >/dev/null

# start_mid DIR: a master on two new workers, held in the middle of its fourth generation: once
# at least 5 results of it are on disk (a 49-byte header and round record, 65 bytes a result) its
# workers are frozen (SIGSTOP), so no timing decides how far the generation got
start_mid() {
  for w in "$1"-a "$1"-b; do start_worker "$w"; done
  "$BIN" run det.ini --redis "$URL" --out "$1" --quiet --episodes-per-task off >"$1.out" 2>"$1.err" &
  mpid=$!
  PIDS+=($mpid)
  wait_rows "$1" 3
  for _ in $(seq 1 500); do
    [ "$(stat -c %s "$1/checkpoints/partial.log" 2>/dev/null || echo 0)" -ge 374 ] && break
    sleep 0.01
  done
  for w in "$1"-a "$1"-b; do kill -STOP "${WPID[$w]}"; done
  sleep 0.3  # results already sent reach the master
}
# resume_empty DIR CKPT K WHAT: its workers killed, Redis restarted empty, the run resumed with
# two new workers: it ends identical to the local run, and the new workers evaluated exactly the
# candidates that were missing (all of the run after checkpoint CKPT but the K kept)
resume_empty() {
  for w in "$1"-a "$1"-b; do kill -9 "${WPID[$w]}"; wait "${WPID[$w]}" 2>/dev/null || true; done
  bash "$HERE/redis_test_server.sh" restart "$TMP/redis"
  [ "$(redis-cli -p "$port" DBSIZE)" -eq 0 ] || fail "the restarted redis-server is not empty"
  for w in "$1"-c "$1"-d; do start_worker "$w"; done
  for _ in $(seq 1 100); do grep -q "waiting for a master" "$1-c.log" && break; sleep 0.05; done
  grep -q "waiting for a master: no experiment to follow on redis://127.0.0.1:$port" "$1-c.log" ||
    fail "$4: a worker started on an empty Redis did not say it waits for a master: $(cat "$1-c.log")"
  timeout 120 "$BIN" resume "$1" --redis "$URL" --quiet --episodes-per-task off >"$1-2.out" 2>"$1-2.err" ||
    fail "$4: resume on an empty Redis: $(tail -3 "$1-2.err")"
  grep -q "^gen *$2  $3/40 candidates evaluated before the interruption: taken from checkpoints/partial.log" \
    "$1/log.txt" || fail "$4: the resumed master did not take the $3 finished candidates from partial.log"
  for w in "$1"-c "$1"-d; do
    kill -TERM "${WPID[$w]}"
    wait "${WPID[$w]}" || fail "worker $w exited non-zero after SIGTERM"
  done
  local want got
  want=$(($(evals_at 8 "$1") - $(evals_at "$2" "$1") - $3))
  got=$(results_of "$1"-c "$1"-d)
  [ "$got" -eq "$want" ] || fail "$4: the new workers evaluated $got candidates, the missing ones were $want"
  same_as L "$1" "$4, resumed on an empty Redis with new workers"
  status | grep -q "^master: .*: the run finished" || fail "$4: status of a finished run: $(status)"
  echo "ok: $4: the resumed master had the $want missing candidates evaluated, not the $3 kept ones"
}

status() { "$BIN" status --redis "$URL"; }

section "SIGTERM mid-generation, Redis restarted empty, new workers"
start_mid R
st=$(status)
echo "$st" | grep -q "^experiment: *$(head -n1 R/redis.id) 'det', running," &&
  echo "$st" | grep -Eq "^master: *[^ ]+:$mpid, last beat [0-9.]+s ago$" || fail "status of a running master: $st"
kill -TERM $mpid
set +e; wait $mpid; rc=$?; set -e
[ $rc -eq 143 ] || fail "SIGTERM'd master exited $rc, expected 143: $(cat R.err)"
kept=$(sed -n 's/.*interrupted during generation \([0-9]*\): kept the checkpoint at generation \([0-9]*\) (R\/checkpoints\/) and \([0-9]*\) finished candidates\{0,1\} of generation \1 (R\/checkpoints\/partial.log).*/\2 \3/p' R.err)
[ -n "$kept" ] || fail "the SIGTERM message does not say what was kept and where: $(cat R.err)"
read -r ckpt k <<<"$kept"
[ "$k" -ge 5 ] && [ "$k" -lt 40 ] || fail "stopped at $k finished candidates: not mid-population"
grep -q "experiment $(head -n1 R/redis.id) (R/redis.id) stays in Redis" R.err || fail "no word on the experiment: $(cat R.err)"
grep -q "^run directory: R$" R.out || fail "--quiet hid the run directory: $(cat R.out)"
echo "ok: SIGTERM: the master kept generation $ckpt's checkpoint and $k finished candidates, and said where"
for w in R-a R-b; do kill -CONT "${WPID[$w]}"; done
st=$(status)
echo "$st" | grep -q "^experiment: .* 'det', stopped," &&
  echo "$st" | grep -q "^master: .*: stopped before the run's end" || fail "status after SIGTERM: $st"
for _ in $(seq 1 100); do grep -q "waiting for the master of experiment .*: it stopped" R-a.log && break; sleep 0.05; done
grep -q "waiting for the master of experiment $(head -n1 R/redis.id): it stopped before the run's end" R-a.log ||
  fail "worker R-a did not say it waits for the stopped master: $(tail -3 R-a.log)"
echo "ok: status and the workers say the master stopped"
resume_empty R "$ckpt" "$k" "SIGTERM mid-generation"

section "SIGKILL mid-generation, Redis restarted empty, new workers"
# every result the master accepted is in partial.log before it reads the next: a kill keeps them
start_mid K
kill -9 $mpid
t_kill=$(date +%s.%N)
wait $mpid 2>/dev/null || true
for w in K-a K-b; do kill -CONT "${WPID[$w]}"; done
# `status` says "gone" once the master has missed 3 beats of 1 s and a second more: within 5 s of
# the kill (its last beat was at most a second before it)
for _ in $(seq 1 160); do status | grep -q "^experiment: .* 'det', gone," && break; sleep 0.05; done
t_gone=$(date +%s.%N)
st=$(status)
echo "$st" | grep -q "^experiment: .* 'det', gone," &&
  echo "$st" | grep -q "^master: .*:$mpid, last beat [0-9.]*s ago: gone (no heartbeat for more than 4s" ||
  fail "status 8 s after kill -9 of the master: $st"
after=$(awk -v a="$t_gone" -v b="$t_kill" 'BEGIN { printf "%.1f", a - b }')
awk -v t="$after" 'BEGIN { exit !(t <= 6.5) }' || fail "status said gone $after s after the kill, not within 5 s (and 1.5 s to see it)"
for _ in $(seq 1 60); do grep -q "waiting for the master of experiment" K-a.log && break; sleep 0.05; done
grep -q "waiting for the master of experiment $(head -n1 K/redis.id): no heartbeat" K-a.log ||
  fail "worker K-a did not say it waits for the gone master: $(tail -3 K-a.log)"
echo "ok: status said the killed master is gone $after s after kill -9; its workers said they wait for it"
ckpt=$(rows K)
k=$(( ($(stat -c %s K/checkpoints/partial.log) - 49) / 65 ))
[ "$k" -ge 5 ] && [ "$k" -lt 40 ] || fail "killed at $k finished candidates: not mid-population"
resume_empty K "$ckpt" "$k" "SIGKILL mid-generation"
section "e2e_redis_resume: all checks passed"
