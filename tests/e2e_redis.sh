#!/usr/bin/env bash
# Distributed runs over a real redis-server (private, 127.0.0.1, free port; started and stopped
# here): 1 worker and 3 workers give the same metrics (all but wall_s) and best.genome as a local
# run (1 worker also for ES with a shared noise table); so do a run whose workers are killed with
# SIGKILL about every second (>= 10 kills, each restarted), a master killed mid-run and resumed, a
# run with garbage injected into both streams and a worker of "another build" (both reported, the
# run finishes), a run whose Redis restarts empty, and `neuroevo cluster`. Also: SIGTERM'd workers
# exit 0, status shows the cluster, a master of another wire version is a clear error on the worker,
# credentials (password, ACL user) and the no-credentials-no-remote rule.
# usage: e2e_redis.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
# Run lengths must not depend on the machine (or on ASan): fault-injection runs use workers with the
# NEUROEVO_TEST_EVAL_DELAY_MS test hook (a sleep per candidate; results are unaffected).
T0=$(date +%s)
# a build without hiredis cannot run this test: say so instead of failing somewhere below
need_hiredis
section() { echo "[$(($(date +%s) - T0))s] $*"; }

port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
RCLI=(redis-cli -p "$port")

# workers: start_worker NAME THREADS [env assignments...]; their logs are NAME.log
declare -A WPID
start_worker() {
  local name=$1 threads=$2
  shift 2
  env "$@" "$BIN" worker --redis "$URL" --threads "$threads" --name "$name" --heartbeat 0.25 >>"$name.log" 2>&1 &
  WPID[$name]=$!
  PIDS+=($!)
}
stop_worker() {  # SIGTERM: finishes the task in hand, exits 0
  local name=$1 rc=0 caught
  # a worker started a moment ago may not catch SIGTERM yet (ASan start-up): wait until it does
  for _ in $(seq 1 250); do
    caught=$(sed -n 's/^SigCgt:\s*//p' "/proc/${WPID[$name]}/status" 2>/dev/null) || break
    [ -z "$caught" ] || (((0x$caught >> 14) & 1)) && break
    sleep 0.02
  done
  kill -TERM "${WPID[$name]}" 2>/dev/null || true
  wait "${WPID[$name]}" || rc=$?
  [ "$rc" -eq 0 ] || fail "worker $name exited $rc after SIGTERM"
  grep -q "leaving after" "$name.log" || fail "worker $name did not report leaving"
  unset "WPID[$name]"
}

# one config for every comparison: 30 generations of 60 + 3 candidates
GENS=30
cat > det.ini <<INI
[run]
algorithm = ga
seed = 7
generations = $GENS
target = none
plot_every = 0

[env]
id = CartPole-v1

[policy]
hidden = 16

[ga]
population = 60
truncation = 8
sigma = 0.05
elite_candidates = 3
elite_episodes = 4
INI

# --- usage ----------------------------------------------------------------------------------
for cmd in worker status cluster; do "$BIN" $cmd --help | grep -q "usage: neuroevo $cmd" || fail "$cmd --help"; done
"$BIN" run --help | grep -q -- "--redis URL" || fail "run --help lacks --redis"

# --- local references -----------------------------------------------------------------------
section "local reference runs"
"$BIN" run det.ini --threads 2 --out L --quiet

# --- 1 worker, started before the master; SIGTERM ends it cleanly ---------------------------
section "1 worker"
start_worker w1 2
"$BIN" run det.ini --redis "$URL" --out R1 --quiet 2>master1.log
same_as L R1 "1 worker x 2 threads"
[ -s R1/redis.id ] || fail "R1/redis.id missing"
# ES with a shared noise table: the worker builds its twin from the stored config, same results
printf '[run]\nalgorithm = es\nseed = 3\ngenerations = 8\ntarget = none\nplot_every = 0\n[policy]\nhidden = 8\n[es]\npopulation = 20\nnoise = table\nnoise_table_mb = 1\n' > estable.ini
"$BIN" run estable.ini --threads 2 --out LE --quiet
"$BIN" run estable.ini --redis "$URL" --out RE --quiet 2>mastere.log || fail "ES (table) through Redis: $(tail -3 mastere.log)"
diff <(strip_wall LE/metrics.csv) <(strip_wall RE/metrics.csv) >/dev/null || fail "ES (table): metrics differ from the local run"
cmp -s LE/best.params RE/best.params || fail "ES (table): best.params differs from the local run"
echo "ok: ES with es.noise = table through 1 worker identical to the local run"
stop_worker w1
echo "ok: SIGTERM'd worker exited 0"

# --- 3 workers, started after the master ----------------------------------------------------
section "3 workers"
"$BIN" run det.ini --redis "$URL" --out R3 --quiet 2>master3.log &
mpid=$!
PIDS+=($mpid)
sleep 0.3
for k in 1 2 3; do start_worker w$k 1; done
wait $mpid || fail "master with 3 workers failed: $(tail -3 master3.log)"
same_as L R3 "3 workers x 1 thread (started after the master)"

# --- status ---------------------------------------------------------------------------------
"$BIN" status --redis "$URL" > status.txt || fail "status failed"
grep -q "^experiment: .*, finished," status.txt || fail "status: no finished experiment: $(cat status.txt)"
grep -q "3 live" status.txt || fail "status: expected 3 live workers: $(cat status.txt)"
grep -q "w2 .* live" status.txt || fail "status: worker lines: $(cat status.txt)"
echo "ok: status lists the experiment and 3 live workers"

# --- kill -9 a random worker about every second, restarting it each time --------------------
# 12 ms per candidate on 3 workers: ~8 s of evaluation, plus a 0.5 s re-claim for each task lost
section "kill -9 workers"
for k in 1 2 3; do stop_worker w$k; done
for k in 1 2 3; do start_worker w$k 1 NEUROEVO_TEST_EVAL_DELAY_MS=12; done
"$BIN" run det.ini --redis "$URL" --task-timeout 0.5 --out RK --quiet 2>masterK.log &
mpid=$!
PIDS+=($mpid)
kills=0
while kill -0 $mpid 2>/dev/null; do
  sleep 0.8
  kill -0 $mpid 2>/dev/null || break
  victim=w$((RANDOM % 3 + 1))
  kill -9 "${WPID[$victim]}" 2>/dev/null && kills=$((kills + 1))
  wait "${WPID[$victim]}" 2>/dev/null || true
  start_worker "$victim" 1 NEUROEVO_TEST_EVAL_DELAY_MS=12
  [ $kills -eq 3 ] && "$BIN" status --redis "$URL" > status_k.txt
done
wait $mpid || fail "master under kills failed: $(tail -3 masterK.log)"
[ $kills -ge 10 ] || fail "only $kills kills before the run ended: the kill test needs a longer run"
grep -q "generation:" status_k.txt || fail "status during the run: $(cat status_k.txt)"
same_as L RK "run with $kills workers killed by SIGKILL"
grep -q "re-published .* idle" masterK.log || fail "the master never re-claimed a killed worker's task"
# the remaining fault tests need runs that last a few seconds too
for k in 1 2 3; do stop_worker w$k; done
for k in 1 2 3; do start_worker w$k 1 NEUROEVO_TEST_EVAL_DELAY_MS=3; done

# --- kill -9 the master mid-run, resume ------------------------------------------------------
section "kill -9 master + resume"
"$BIN" run det.ini --redis "$URL" --out RM --quiet 2>masterM.log &
mpid=$!
PIDS+=($mpid)
wait_rows RM 3
kill -9 $mpid
wait $mpid 2>/dev/null || true
[ "$(rows RM)" -lt "$GENS" ] || fail "the master finished before the kill: the test needs a longer run"
sleep 0.5  # the workers finish the round in hand: its results wait in Redis
"$BIN" resume RM --redis "$URL" --quiet 2>masterM2.log || fail "resume --redis failed: $(tail -3 masterM2.log)"
same_as L RM "master killed mid-run and resumed"
grep -q "continuing experiment $(head -n1 RM/redis.id)" masterM2.log || fail "resume did not continue the experiment"
"$BIN" status --redis "$URL" | grep -q "^experiment: *$(head -n1 RM/redis.id) 'det'" ||
  fail "the resumed experiment lost its name: $("$BIN" status --redis "$URL" | head -3)"
grep "reused" masterM2.log || echo "note: no results were waiting in Redis at the resume"

# --- garbage in both streams and a worker of another build ----------------------------------
section "garbage + foreign build"
start_worker evil 1 NEUROEVO_TEST_FINGERPRINT_SALT=another-build NEUROEVO_TEST_EVAL_DELAY_MS=3
"$BIN" run det.ini --redis "$URL" --out RG --quiet 2>masterG.log &
mpid=$!
PIDS+=($mpid)
for _ in $(seq 1 200); do [ -s RG/redis.id ] && break; sleep 0.05; done
id=$(head -n1 RG/redis.id)
for i in 1 2 3; do
  "${RCLI[@]}" XADD "ne:exp:$id:results" '*' r "garbage $i" >/dev/null
  "${RCLI[@]}" XADD "ne:exp:$id:results" '*' unexpected field >/dev/null
  "${RCLI[@]}" XADD "ne:exp:$id:tasks" '*' m "NEtk garbage $i" >/dev/null
  "${RCLI[@]}" XADD "ne:exp:$id:tasks" '*' no payload >/dev/null
  sleep 0.2
done
wait $mpid || fail "master with garbage failed: $(tail -3 masterG.log)"
same_as L RG "run with garbage in both streams and a foreign-build worker"
grep -q "dropped malformed result entry" masterG.log || fail "master did not report the garbage results"
grep -q "rejected .* from worker 'evil'" masterG.log || fail "master did not name the foreign-build worker"
# grep reads the files itself: `cat ... | grep -q` under pipefail fails whenever grep exits at its
# match before cat has written the next file (cat dies of SIGPIPE: ~2% of runs on 2 busy cores)
grep -q "dropped malformed task" w?.log evil.log || fail "no worker reported the garbage tasks"
stop_worker evil

# --- Redis restarts empty mid-run ------------------------------------------------------------
section "redis restart"
"$BIN" run det.ini --redis "$URL" --out RR --quiet 2>masterR.log &
mpid=$!
PIDS+=($mpid)
wait_rows RR 3
bash "$HERE/redis_test_server.sh" restart "$TMP/redis"
wait $mpid || fail "master across a Redis restart failed: $(tail -3 masterR.log)"
same_as L RR "run across a Redis restart (data lost)"
grep -q "vanished from Redis" masterR.log || echo "note: the run finished before the restart was noticed"
for k in 1 2 3; do stop_worker w$k; done

# --- neuroevo cluster -------------------------------------------------------------------------
section "cluster"
"$BIN" cluster --workers 2 det.ini --out RC --quiet 2>cluster.log || fail "cluster failed: $(tail -3 cluster.log)"
same_as L RC "neuroevo cluster --workers 2"

# --- version mismatch, credentials --------------------------------------------------------------
section "errors"
"${RCLI[@]}" SET ne:current 00000000000000ff >/dev/null
"${RCLI[@]}" HSET ne:exp:00000000000000ff:meta wire 99 config x fingerprint 0 status running >/dev/null
set +e
out=$(timeout 20 "$BIN" worker --redis "$URL" --name old 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "wire version 99" || fail "version mismatch: rc=$rc out=$out"
out=$(NEUROEVO_REDIS_PASSWORD= timeout 20 "$BIN" worker --redis redis://10.255.255.1:6379 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "without credentials" || fail "remote without credentials: rc=$rc out=$out"
out=$(timeout 20 "$BIN" run det.ini --redis redis://192.0.2.1:6379 --quiet 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "refuses" || fail "master, remote without credentials: rc=$rc out=$out"
"${RCLI[@]}" ACL SETUSER alice on '>alicepw' '~*' '&*' '+@all' >/dev/null
"${RCLI[@]}" CONFIG SET requirepass s3cret >/dev/null
out=$("$BIN" status --redis "$URL" 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "needs a password" || fail "no password: rc=$rc out=$out"
"$BIN" status --redis "redis://:s3cret@127.0.0.1:$port" >/dev/null || fail "status with a password"
NEUROEVO_REDIS_PASSWORD=s3cret "$BIN" status --redis "$URL" >/dev/null || fail "status with NEUROEVO_REDIS_PASSWORD"
"$BIN" status --redis "redis://alice:alicepw@127.0.0.1:$port" >/dev/null || fail "status as ACL user alice"
out=$("$BIN" status --redis "redis://alice:wrong@127.0.0.1:$port" 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "refused the credentials" || fail "wrong password: rc=$rc out=$out"
set -e
echo "ok: version mismatch and credential errors are clear"
section "e2e_redis: all checks passed"
