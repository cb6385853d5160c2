#!/usr/bin/env bash
# Keys that outlive their experiment: after back-to-back runs, a master killed mid-run and
# a worker that delivers a result after its run ended (SIGSTOPped with a task in hand during the last
# generation, continued once the master has exited), every ne:exp:* key in a real redis-server
# carries an expiry, and a finished experiment keeps only its description: the heartbeat does not
# re-create the worker hash and the late result does not re-create the result stream.
# usage: e2e_redis_keys.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
RCLI=(redis-cli -p "$port")

declare -A WPID
start_worker() {  # start_worker NAME [env assignments...]
  local name=$1
  shift
  env "$@" "$BIN" worker --redis "$URL" --threads 1 --name "$name" --heartbeat 0.2 >>"$name.log" 2>&1 &
  WPID[$name]=$!
  PIDS+=($!)
}
# every ne:exp:* key with an expiry; the keys of finished experiments limited to their description
check_keys() {  # check_keys WHEN
  local k ttl
  while read -r k; do
    [ -n "$k" ] || continue
    ttl=$("${RCLI[@]}" TTL "$k")
    [ "$ttl" != -1 ] || fail "$1: key $k has no expiry (ttl -1)"
  done < <("${RCLI[@]}" --scan --pattern 'ne:exp:*')
  for id in "${FINISHED[@]}"; do
    for suffix in tasks results workers; do
      [ "$("${RCLI[@]}" EXISTS "ne:exp:$id:$suffix")" = 0 ] || fail "$1: finished experiment $id still has its $suffix key"
    done
  done
  echo "ok: $1: $("${RCLI[@]}" --scan --pattern 'ne:exp:*' | wc -l) ne:exp:* keys, every one with an expiry"
}

GENS=4
cat > keys.ini <<INI
[run]
algorithm = ga
seed = 5
generations = $GENS
target = none
plot_every = 0
[env]
id = CartPole-v1
[policy]
hidden = 8
[ga]
population = 20
truncation = 5
elite_candidates = 2
elite_episodes = 2
INI
"$BIN" run keys.ini --threads 2 --out L --quiet

# --- five back-to-back runs with 3 workers ----------------------------------------------------
FINISHED=()
for k in 1 2 3; do start_worker "w$k"; done
for r in 1 2 3 4 5; do
  "$BIN" run keys.ini --redis "$URL" --out "R$r" --quiet 2>"master$r.log" || fail "run $r: $(tail -3 "master$r.log")"
  FINISHED+=("$(head -n1 "R$r/redis.id")")
done
same_as L R5 "fifth back-to-back run"
sleep 1  # several heartbeats of every worker after the last run ended
check_keys "5 runs with 3 workers, 1 s after the last"

# --- a master killed mid-run: its keys expire (7 days) -----------------------------------------
"$BIN" run keys.ini ga.population=200 --generations 1000 --redis "$URL" --out RK --quiet 2>masterK.log &
mpid=$!
PIDS+=($mpid)
wait_rows RK 2
kill -9 $mpid
wait $mpid 2>/dev/null || true
sleep 0.5
idk=$(head -n1 RK/redis.id)
for suffix in meta tasks results workers; do
  [ "$("${RCLI[@]}" EXISTS "ne:exp:$idk:$suffix")" = 1 ] || fail "killed master: ne:exp:$idk:$suffix missing"
done
check_keys "a master killed mid-run (its tasks, results and worker hash kept for resume)"
for k in 1 2 3; do kill -TERM "${WPID[w$k]}"; wait "${WPID[w$k]}" || fail "worker w$k exited non-zero"; done

# --- a result delivered after its run ended ----------------------------------------------------
# one slow worker runs the whole run; in the last generation it is stopped with a task in hand, a
# second worker finishes the run (the master re-claims the task after 0.5 s), then it continues
start_worker late NEUROEVO_TEST_EVAL_DELAY_MS=30
"$BIN" run keys.ini --redis "$URL" --task-timeout 0.5 --out RL --quiet 2>masterL.log &
mpid=$!
PIDS+=($mpid)
wait_rows RL $((GENS - 1))
kill -STOP "${WPID[late]}"
idl=$(head -n1 RL/redis.id)
held=$("${RCLI[@]}" XPENDING "ne:exp:$idl:tasks" workers - + 10 late | grep -c -- '-' || true)
[ "$held" -ge 1 ] || fail "the stopped worker held no task (the test needs one in hand)"
start_worker rescue
wait $mpid || fail "run with a stopped worker: $(tail -3 masterL.log)"
same_as L RL "run whose worker was stopped in the last generation"
FINISHED+=("$idl")
kill -CONT "${WPID[late]}"
for _ in $(seq 1 200); do grep -q "result discarded" late.log && break; sleep 0.05; done
grep -q "experiment $idl finished or gone; result discarded" late.log || fail "the continued worker never answered its task"
sleep 0.6  # heartbeats of the continued worker
check_keys "a late result and heartbeats after the run"
echo "e2e_redis_keys: all checks passed"
