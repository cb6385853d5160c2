#!/usr/bin/env bash
# Env failures in a distributed run (real redis-server, real Gymnasium env servers through the gym
# bridge, python/tests/bridge_envs.py): an env that raises on every worker makes the master stop
# within seconds with a non-zero exit and an error naming the env, the candidate, the workers and
# the env's message (each failed attempt is reported by the worker as a failure result; the master
# stops after 3 attempts of one candidate). An env that breaks mid-run leaves the last checkpoint
# intact: once repaired, `resume --redis` finishes the run with the same metrics as a local run.
# usage: e2e_redis_failure.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
T0=$(date +%s)

# the master and the workers import the test envs; the marker breaks FailsWhenMarked-v0 while it exists
export PYTHONPATH="$HERE/../python/tests${PYTHONPATH:+:$PYTHONPATH}"
export BRIDGE_FAIL_MARKER="$TMP/broken"
port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
for name in w1 w2; do
  # 40 ms per candidate (test hook): the mid-run failure below lands after a few generations
  NEUROEVO_TEST_EVAL_DELAY_MS=40 "$BIN" worker --redis "$URL" --threads 1 --name "$name" --heartbeat 0.25 \
    >>"$name.log" 2>&1 &
  PIDS+=($!)
done
small=(ga.population=2 ga.truncation=1 ga.elite_candidates=1 ga.elite_episodes=2 policy.hidden=4 run.target=none
       run.plot_every=0)
GENS=8
# the local reference for the mid-run failure below, meanwhile (the marker does not exist yet)
"$BIN" run cartpole-ga env.id=gym:bridge_envs:FailsWhenMarked-v0 "${small[@]}" run.generations=$GENS --threads 2 \
  --out L --quiet 2>local.err &
lpid=$!
PIDS+=($lpid)

# --- an env that fails everywhere: a clear error within seconds, non-zero exit ------------------
t0=$(date +%s)
set +e
timeout 120 "$BIN" run cartpole-ga env.id=gym:bridge_envs:Raises-v0 "${small[@]}" --redis "$URL" --out F --quiet \
  2>master_f.err
rc=$?
set -e
took=$(($(date +%s) - t0))
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "a failing env: master exited $rc (expected an error, not success or a hang)"
grep -q "env gym:bridge_envs:Raises-v0 failed 3 times on candidate [0-9]* of generation 0" master_f.err ||
  fail "the error does not name the env and the candidate: $(tail -n 2 master_f.err)"
grep -q "step raised RuntimeError: boom at step 3" master_f.err || fail "the error lacks the env's message"
grep -Eq "failed 3 times .*\(workers? 'w[12]'" master_f.err || fail "the error does not name the workers"
grep -q "reported to the master" w1.log w2.log || fail "no worker reported the failure"
[ "$took" -lt 60 ] || fail "the master needed ${took}s to give up"
echo "ok: an env failing on every worker stops the master in ${took}s (exit $rc): $(grep -o 'failed 3 times.*' master_f.err | cut -c1-90)..."

# --- an env that breaks mid-run: the checkpoint stays, resume finishes identically ----------------
wait $lpid || fail "the local reference run failed: $(tail -n 2 local.err)"
"$BIN" run cartpole-ga env.id=gym:bridge_envs:FailsWhenMarked-v0 "${small[@]}" run.generations=$GENS --redis "$URL" \
  --out M --quiet 2>master_m.err &
mpid=$!
PIDS+=($mpid)
for _ in $(seq 1 1200); do [ "$(rows M)" -ge 2 ] && break; sleep 0.05; done
touch "$BRIDGE_FAIL_MARKER"
set +e
wait $mpid
rc=$?
set -e
[ $rc -ne 0 ] || fail "an env broken mid-run: the master exited 0 (the run finished before the env broke?)"
grep -q "env gym:bridge_envs:FailsWhenMarked-v0 failed 3 times" master_m.err || fail "mid-run failure: $(tail -n 2 master_m.err)"
done_rows=$(rows M)
[ "$done_rows" -lt $GENS ] || fail "the run finished before the env broke: the test needs a longer run"
ls M/checkpoints/* >/dev/null 2>&1 || fail "no checkpoint left after the failure"
rm -f "$BRIDGE_FAIL_MARKER"
"$BIN" resume M --redis "$URL" --quiet 2>master_r.err || fail "resume after the repair failed: $(tail -n 2 master_r.err)"
diff <(strip_wall L/metrics.csv) <(strip_wall M/metrics.csv) >/dev/null || fail "failed + resumed run differs from the local run"
cmp -s L/best.genome M/best.genome || fail "best.genome differs from the local run"
echo "ok ($(($(date +%s) - T0))s): an env broken after $done_rows generations stops the run, the checkpoint survives, resume matches the local run"
echo "e2e_redis_failure: all checks passed in $(($(date +%s) - T0))s"
