#!/usr/bin/env bash
# Relays: two "nodes", each a real redis-server of its own with `neuroevo relay` between
# it and the master's redis-server and two workers that only know their node's Redis (node a: one
# process hosting both, `worker --count 2`; node b: two processes). Checked: a GA
# and an ES run with observation normalization and a shared noise table (blobs copied per node) give
# the local run's metrics and best genome/params; so does a run whose relay is killed with SIGKILL
# mid-run (and restarted), and one whose worker behind a relay is killed with SIGKILL (the relay
# re-claims its task locally), and one whose node Redis is killed for 2 s twice while its relay
# stays (the relay sets it up again; a worker started during the outage joins); workers behind the relays that refuse an experiment are reported to
# the master, which stops; the master's Redis sees one heartbeat per node, and `status` shows each
# relay with its node's workers and throughput; no key of either Redis is
# left without an expiry; a relay facing a master of another wire version exits 2.
# usage: e2e_relay.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
cleanup_nodes() {
  for n in a b; do bash "$HERE/redis_test_server.sh" stop "$TMP/node-$n" || true; done
}
trap 'cleanup; cleanup_nodes' EXIT
T0=$(date +%s)
section() { echo "[$(($(date +%s) - T0))s] $*"; }

port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
declare -A NODE
for n in a b; do NODE[$n]=$(bash "$HERE/redis_test_server.sh" start "$TMP/node-$n"); done

declare -A PID
start_relay() {  # start_relay NODE
  "$BIN" relay --upstream "$URL" --local "redis://127.0.0.1:${NODE[$1]}" --name "relay-$1" --heartbeat 0.25 \
    >>"relay-$1.log" 2>&1 &
  PID[relay-$1]=$!
  PIDS+=($!)
}
start_worker() {  # start_worker NODE K: worker NODE-K on that node's Redis (sleeps 4 ms a candidate)
  NEUROEVO_TEST_EVAL_DELAY_MS=4 "$BIN" worker --redis "redis://127.0.0.1:${NODE[$1]}" --threads 1 --name "$1-$2" \
    --heartbeat 0.25 >>"$1-$2.log" 2>&1 &
  PID[$1-$2]=$!
  PIDS+=($!)
}
kill9() {  # kill9 NAME
  kill -9 "${PID[$1]}" 2>/dev/null || true
  wait "${PID[$1]}" 2>/dev/null || true
}

cat > det.ini <<INI
[run]
algorithm = ga
seed = 11
generations = 12
target = none
plot_every = 0
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
printf '[run]\nalgorithm = es\nseed = 3\ngenerations = 6\ntarget = none\nplot_every = 0\n[policy]\nhidden = 8\n[es]\npopulation = 20\nobs_norm = true\nnoise = table\nnoise_table_mb = 1\n' > es.ini
section "local references"
"$BIN" run det.ini --threads 2 --out L --quiet
"$BIN" run es.ini --threads 2 --out LE --quiet

for n in a b; do start_relay $n; done
NEUROEVO_TEST_EVAL_DELAY_MS=4 "$BIN" worker --redis "redis://127.0.0.1:${NODE[a]}" --count 2 --threads 1 --name a \
  --heartbeat 0.25 >>a.log 2>&1 &
PID[a]=$!
PIDS+=($!)
for k in 1 2; do start_worker b $k; done

section "GA and ES through two relays"
timeout 120 "$BIN" run det.ini --redis "$URL" --out R --quiet 2>master.log || fail "GA through relays: $(tail -3 master.log)"
same_as L R "GA through 2 relays x 2 workers"
timeout 120 "$BIN" run es.ini --redis "$URL" --out RE --quiet 2>mastere.log || fail "ES through relays: $(tail -3 mastere.log)"
diff <(strip_wall LE/metrics.csv) <(strip_wall RE/metrics.csv) >/dev/null || fail "ES through relays: metrics differ"
cmp -s LE/best.params RE/best.params || fail "ES through relays: best.params differs"
echo "ok: ES (observation normalization, shared noise table) through 2 relays identical to the local run"
for n in a b; do
  grep -q "relay-$n .* live" <("$BIN" status --redis "$URL") || fail "status upstream does not list relay-$n"
done
[ "$("$BIN" status --redis "$URL" | grep -c ' live ')" -eq 2 ] || fail "upstream should see 2 live clients (the relays)"
node_a=$("$BIN" status --redis "redis://127.0.0.1:${NODE[a]}")
echo "$node_a" | grep -q "a-0 .* live" && echo "$node_a" | grep -q "a-1 .* live" || fail "node a's status: $node_a"
echo "ok: the master's Redis sees the 2 relays, each node's Redis its workers (node a's in one process)"

section "kill -9 a relay mid-run"
timeout 120 "$BIN" run det.ini --redis "$URL" --task-timeout 0.5 --out RK --quiet 2>masterK.log &
mpid=$!
PIDS+=($mpid)
wait_rows RK 3
idk=$(head -n1 RK/redis.id)
held_upstream() {  # how many tasks relay-a holds upstream (read, not yet answered)
  redis-cli -p "$port" XPENDING "ne:exp:$idk:tasks" workers - + 5 relay-a | grep -c -- '-' || true
}
died_holding=0
for attempt in 1 2 3 4 5; do  # kill it while it holds tasks upstream
  for _ in $(seq 1 300); do
    n=$(held_upstream)
    [ "$n" -ge 1 ] && break
    sleep 0.01
  done
  [ "$n" -ge 1 ] || fail "relay-a never held a task upstream"
  kill9 relay-a
  # between the check and the kill relay-a may have answered what it held: then nothing is left
  # for the master to re-claim, and the kill is tried again
  [ "$(held_upstream)" -ge 1 ] && died_holding=1 && break
  start_relay a
done
[ $died_holding -eq 1 ] || fail "relay-a never died holding a task upstream (5 tries)"
for _ in $(seq 1 100); do  # the master re-claims what relay-a held; node b's workers take it
  grep -q "re-published .* idle" masterK.log && break
  sleep 0.1
done
start_relay a
wait $mpid || fail "run with a relay killed: $(tail -3 masterK.log)"
[ "$(rows RK)" -eq 12 ] || fail "run with a relay killed did not finish"
same_as L RK "run whose relay was killed with SIGKILL and restarted"
grep -q "re-published .* idle" masterK.log || fail "the master never re-claimed the killed relay's tasks"

section "kill -9 a worker behind a relay mid-run"
timeout 120 "$BIN" run det.ini --redis "$URL" --task-timeout 0.5 --out RW --quiet 2>masterW.log &
mpid=$!
PIDS+=($mpid)
wait_rows RW 3
idw=$(head -n1 RW/redis.id)
# mid-run, the master's Redis shows each relay with its node's workers and results/s (status is a
# snapshot of heartbeats: a node whose workers' beats were late under load is asked again)
relays_shown() {
  for n in a b; do
    echo "$st" | awk -v n="relay-$n" '$1 == n && $4 + 0 > 0 && / live .*\(relay: 2 workers on its node, / { ok = 1 }
      END { exit !ok }' || return 1
  done
  echo "$st" | grep -q "^workers: *2 live, .*, 2 of them relays"
}
for _ in $(seq 1 20); do
  st=$("$BIN" status --redis "$URL")
  relays_shown && break
  sleep 0.1
done
echo "$st" > status-relays.txt
relays_shown || fail "status does not show both relays, each with its node's 2 workers and results/s: $st"
held=0
holds() {  # holds VICTIM: how many tasks of node b's stream the worker has claimed, not answered
  redis-cli -p "${NODE[b]}" XPENDING "ne:exp:$idw:tasks" workers - + 5 "$1" | grep -c -- '-' || true
}
for victim in b-1 b-2 b-1 b-2 b-1; do
  # kill it while it holds a task of node b's stream (its claim is pending there)
  for _ in $(seq 1 300); do
    n=$(holds "$victim")
    [ "$n" -ge 1 ] && break
    sleep 0.01
  done
  kill9 "$victim"
  # counted only if the claim outlived the kill (it may have answered between the check and the kill)
  [ "$n" -ge 1 ] && [ "$(holds "$victim")" -ge 1 ] && held=$((held + 1))
  start_worker b "${victim#b-}"
  sleep 0.4
  [ $held -ge 2 ] && break
done
wait $mpid || fail "run with workers killed behind a relay: $(tail -3 masterW.log)"
[ $held -ge 1 ] || fail "no killed worker held a task: the test needs one"
same_as L RW "run whose workers behind a relay were killed with SIGKILL ($held holding a task)"
grep -q "re-added .* local task" relay-b.log || fail "relay-b never re-claimed a killed worker's task"

section "the node's Redis killed for 2 s, twice (one node)"
# node b alone (relay-a stopped): the run can only go on if relay-b sets node b's Redis up again
# each time; before the second outage node b's workers leave, and a worker started during it
# must join, or the run stands still
kill -TERM "${PID[relay-a]}"
wait "${PID[relay-a]}" || fail "relay-a exited non-zero after SIGTERM"
seen=$(wc -l < relay-b.log)
node_b_down() {  # kills node b's redis-server (its data is lost: no persistence)
  kill -9 "$(cat "$TMP/node-b/redis.pid")"
  rm -f "$TMP/node-b/redis.pid"
}
node_b_up() { bash "$HERE/redis_test_server.sh" restart "$TMP/node-b" >/dev/null; }
timeout 120 "$BIN" run det.ini --redis "$URL" --out RN --quiet 2>masterN.log &
mpid=$!
PIDS+=($mpid)
wait_rows RN 2
node_b_down
sleep 2
node_b_up
wait_rows RN 5
for k in 1 2; do kill -TERM "${PID[b-$k]}"; wait "${PID[b-$k]}" || fail "worker b-$k exited non-zero after SIGTERM"; done
node_b_down
start_worker b 3
sleep 2
node_b_up
wait $mpid || fail "run across node b's Redis restarts: $(tail -3 masterN.log)"
same_as L RN "run whose node Redis was killed for 2 s twice (a worker joining during the outage)"
idn=$(head -n1 RN/redis.id)
tail -n +$((seen + 1)) relay-b.log > relay-b.section
[ "$(grep -c "node's Redis lost experiment $idn" relay-b.section)" -eq 2 ] ||
  fail "relay-b did not set node b's Redis up again twice: $(cat relay-b.section)"
! grep -q "left to the master\|dropped task" relay-b.section || fail "relay-b gave up tasks: $(cat relay-b.section)"
grep -q "following experiment $idn" b-3.log || fail "worker b-3, started during the outage, never joined"
kill -TERM "${PID[b-3]}"
wait "${PID[b-3]}" || fail "worker b-3 exited non-zero after SIGTERM"
grep -q "leaving after [1-9][0-9]* tasks" b-3.log || fail "worker b-3 evaluated nothing: $(tail -2 b-3.log)"
echo "ok: relay-b set its node's Redis up again after each outage; b-3, started during one, did the rest"
start_relay a
for k in 1 2; do start_worker b $k; done

section "workers behind relays that refuse the experiment"
# the env's module is on the master's PYTHONPATH only: every worker of both nodes refuses; the
# relays pass the refusals on, and the master prints them and stops after --join-timeout
mkdir -p mods
cat > mods/onlymaster.py <<'PY'
import gymnasium as gym
gym.register("OnlyMaster-v0", entry_point="gymnasium.envs.classic_control:CartPoleEnv", max_episode_steps=50)
PY
set +e
PYTHONPATH=$PWD/mods timeout 90 "$BIN" run cartpole-ga env.id=gym:onlymaster:OnlyMaster-v0 ga.population=6 \
  ga.truncation=2 --redis "$URL" --join-timeout 3 --out RREF --quiet >/dev/null 2>refused.err
rc=$?
set -e
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "master whose workers behind relays all refused: rc=$rc $(tail -3 refused.err)"
grep -q "worker '[ab]-[0-9]' refused experiment [0-9a-f]*: .*onlymaster" refused.err ||
  fail "the master did not print a refusal from behind a relay: $(cat refused.err)"
grep -q "no worker joined experiment .* [1-4] refused it" refused.err || fail "the master's final error: $(cat refused.err)"
echo "ok: refusals of workers behind relays reach the master, which stops"

section "keys, versions, usage"
sleep 1
for p in "$port" "${NODE[a]}" "${NODE[b]}"; do
  while read -r k; do
    [ -n "$k" ] || continue
    [ "$(redis-cli -p "$p" TTL "$k")" != -1 ] || fail "Redis :$p: key $k has no expiry"
  done < <(redis-cli -p "$p" --scan --pattern 'ne:exp:*')
done
echo "ok: every ne:exp:* key of the master's and the nodes' Redis has an expiry"
for n in a b; do kill -TERM "${PID[relay-$n]}"; wait "${PID[relay-$n]}" || fail "relay-$n exited non-zero after SIGTERM"; done
grep -q "leaving after" relay-a.log || fail "relay-a did not report leaving"
kill -TERM "${PID[a]}"
wait "${PID[a]}" || fail "the process hosting node a's workers exited non-zero after SIGTERM"
[ "$(grep -c "leaving after" a.log)" -eq 2 ] || fail "node a's hosted workers did not both leave"
echo "ok: relays and a process hosting 2 workers exit 0 after SIGTERM"
redis-cli -p "$port" SET ne:current 00000000000000ff >/dev/null
redis-cli -p "$port" HSET ne:exp:00000000000000ff:meta wire 99 config x fingerprint 0 status running >/dev/null
set +e
out=$(timeout 20 "$BIN" relay --upstream "$URL" --local "redis://127.0.0.1:${NODE[a]}" --name old 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q "wire version 99" || fail "relay, version mismatch: rc=$rc out=$out"
echo "ok: a relay facing a master of another wire version exits 2"
for bad in "35:" "0" "35:2" "x"; do
  set +e
  out=$("$BIN" worker --redis "$URL" --simulate "$bad" 2>&1); rc=$?
  set -e
  [ $rc -eq 2 ] && echo "$out" | grep -q "expected MEAN_MS\[:JITTER\]" || fail "worker --simulate '$bad': rc=$rc out=$out"
done
set +e
out=$("$BIN" relay --upstream "$URL" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q -- "--local URL" || fail "relay without --local: rc=$rc out=$out"
"$BIN" relay --help | grep -q "usage: neuroevo relay" || fail "relay --help"
echo "ok: bad --simulate values and a relay without --local are clear errors"
section "e2e_relay: all checks passed"
