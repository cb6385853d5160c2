#!/usr/bin/env bash
# Redis runs as a new user meets them, over a private redis-server: workers that cannot
# build the experiment's env (a gym: module only the master has) refuse it, and the refusal reaches
# the master (which prints each worker's reason and stops after --join-timeout instead of waiting
# forever) and `status` (state "refused" and the reason); --min-workers starts once the workers asked
# for joined, or after the join timeout with those there are; `compare --redis` spreads its runs over
# the workers with the same results as a local compare; a worker killed with SIGKILL is no longer
# shown live after its heartbeat period, and `status` after a run ends shows no "?".
# usage: e2e_redis_ux.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
start_worker() {  # start_worker NAME: one thread, quick heartbeats; log NAME.log
  "$BIN" worker --redis "$URL" --threads 1 --name "$1" --heartbeat 0.25 >> "$1.log" 2>&1 &
  PIDS+=($!)
  eval "PID_$1=$!"
}

# --- workers that refuse: the master says why and stops ------------------------------------------
# the module is on the master's PYTHONPATH only; the workers fail to import it
mkdir -p mods
cat > mods/onlymaster.py <<'PY'
import gymnasium as gym
gym.register("OnlyMaster-v0", entry_point="gymnasium.envs.classic_control:CartPoleEnv", max_episode_steps=50)
PY
start_worker r1
start_worker r2
t0=$(date +%s)
set +e
PYTHONPATH=$PWD/mods "$BIN" run cartpole-ga env.id=gym:onlymaster:OnlyMaster-v0 ga.population=6 ga.truncation=2 \
  --redis "$URL" --join-timeout 3 --out REF --quiet > ref.out 2> ref.err &
mpid=$!
PIDS+=($mpid)
refused=0
for _ in $(seq 1 400); do
  "$BIN" status --redis "$URL" > status.txt 2>&1 || true
  grep -q "r1 .* refused" status.txt && grep -q "refused: .*onlymaster" status.txt && { refused=1; break; }
  sleep 0.05
done
for _ in $(seq 1 900); do kill -0 $mpid 2> /dev/null || break; sleep 0.1; done
kill -9 $mpid 2> /dev/null && { set -e; fail "the master still waits after 90 s though every worker refused"; }
wait $mpid; rc=$?
set -e
t1=$(date +%s)
[ $refused = 1 ] || fail "status never showed the refusal: $(cat status.txt)"
[ $rc -ne 0 ] || fail "the master succeeded though every worker refused"
[ $((t1 - t0)) -lt 60 ] || fail "the master took $((t1 - t0)) s to give up (join timeout 3 s)"
grep -q "worker 'r[12]' refused experiment [0-9a-f]*: .*onlymaster" ref.err || fail "the master did not print a refusal: $(cat ref.err)"
grep -q "no worker joined experiment .* 2 refused it" ref.err || fail "the master's final error: $(cat ref.err)"
echo "ok: refusals reach status and the master, which stops after $((t1 - t0)) s"
kill -TERM "$PID_r1" "$PID_r2"
wait "$PID_r1" "$PID_r2" || true

# --- compare over the workers = compare on local threads -------------------------------------------
start_worker w1
start_worker w2
for algo in cmaes sepcmaes; do
  cat > "pend-$algo.ini" <<INI
[run]
algorithm = $algo
target = none
plot_every = 0
[env]
id = Pendulum-v1
[policy]
hidden = 4
[$algo]
popsize = 6
INI
done
"$BIN" compare pend-cmaes.ini pend-sepcmaes.ini --seeds 2 --generations 4 --redis "$URL" --out RC --quiet 2> rc.err ||
  fail "compare --redis: $(cat rc.err)"
"$BIN" compare pend-cmaes.ini pend-sepcmaes.ini --seeds 2 --generations 4 --threads 2 --out LC --quiet
diff <(cut -d, -f1-5 LC/summary.csv) <(cut -d, -f1-5 RC/summary.csv) || fail "compare --redis differs from local"
for r in pend-cmaes/seed0 pend-cmaes/seed1 pend-sepcmaes/seed0 pend-sepcmaes/seed1; do
  diff <(strip_wall "LC/$r/metrics.csv") <(strip_wall "RC/$r/metrics.csv") > /dev/null || fail "$r differs over Redis"
  [ -s "RC/$r/redis.id" ] || fail "$r has no redis.id"
done
echo "ok: compare --redis = local compare (4 runs)"

# --- --min-workers: the first round waits for that many, at most the join timeout -----------------
"$BIN" run pend-cmaes.ini --generations 2 --redis "$URL" --min-workers 2 --join-timeout 30 --out MW2 --quiet 2> mw2.err ||
  fail "--min-workers 2 with 2 workers: $(cat mw2.err)"
! grep -q "starting with" mw2.err || fail "--min-workers 2 with 2 workers live did not start with both: $(cat mw2.err)"
"$BIN" run pend-cmaes.ini --generations 2 --redis "$URL" --min-workers 3 --join-timeout 1 --out MW3 --quiet 2> mw3.err ||
  fail "--min-workers 3 with 2 workers: $(cat mw3.err)"
grep -q "starting with 2 of the 3 workers asked for (--min-workers): no more joined in 1 s" mw3.err ||
  fail "--min-workers 3 with 2 workers: $(cat mw3.err)"
diff <(strip_wall MW2/metrics.csv) <(strip_wall MW3/metrics.csv) > /dev/null || fail "--min-workers changed the results"
echo "ok: --min-workers waits for the workers asked for, then starts with those there are"

# --- after the run: status has nothing unknown -------------------------------------------------
"$BIN" status --redis "$URL" > status.txt
grep -q "tasks:       none (the run finished)" status.txt || fail "status after the run: $(cat status.txt)"
! grep -q "?" status.txt || fail "status after the run shows '?': $(cat status.txt)"

# --- a killed worker stops being live within its heartbeat period ---------------------------------
kill -9 "$PID_w1"
sleep 2  # 3 heartbeats of 0.25 s + 1 s, and its hash's expiry
"$BIN" status --redis "$URL" > status.txt
grep -q "^  w1 .* gone" status.txt || fail "a killed worker: $(cat status.txt)"
grep -q "workers:     1 live" status.txt || fail "live count after a kill: $(cat status.txt)"
age=$(awk '$1 == "w1" { sub("s", "", $5); print $5 }' status.txt)
awk -v a="$age" 'BEGIN { exit !(a >= 1 && a < 60) }' || fail "a killed worker's last beat age: '$age'"
echo "ok: a killed worker is gone after 2 s (last beat ${age} s ago)"
echo "e2e_redis_ux: ok"
