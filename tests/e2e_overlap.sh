#!/usr/bin/env bash
# Overlapped generations (run.overlap, the default): the next generation's candidates that do not
# wait for a generation's last round are evaluated alongside it, and the results stay those of the
# run without overlap (metrics minus wall_s, best.genome / best.params): a Deep GA with elitism on
# 1 and 2 threads; GA-NS; NS-ES with round-robin centres and observation normalization; a GA killed
# with SIGKILL while a round and the candidates asked ahead were in flight, resumed from its
# partial-generation log; over Redis, 2 workers of which one is SIGKILLed mid-run, and a master
# SIGKILLed mid-run and resumed (each master says it evaluated rounds of two batches).
# usage: e2e_overlap.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
need_hiredis

cat > ga.ini <<INI
[run]
algorithm = ga
seed = 5
generations = 14
target = none
plot_every = 0
[env]
id = CartPole-v1
[policy]
hidden = 8
[ga]
population = 48
truncation = 6
sigma = 0.05
elite_candidates = 3
elite_episodes = 6
INI

# --- local threads: the same results with and without overlap -------------------------------------
"$BIN" run ga.ini run.overlap=false --threads 1 --out L --quiet
"$BIN" run ga.ini --threads 2 --out L2 --quiet
same_run L L2 "GA overlapped on 2 threads"
echo "ok: GA overlapped on 2 threads identical to the run without overlap"
NS=(ga.population=40 run.generations=4 run.target=none run.plot_every=0)
"$BIN" run maze-ga-ns "${NS[@]}" run.overlap=false --threads 1 --out N0 --quiet
"$BIN" run maze-ga-ns "${NS[@]}" --threads 2 --out N1 --quiet
same_run N0 N1 "GA-NS overlapped"
NSES=(novelty.selection=round_robin es.obs_norm=true es.population=20 run.generations=5 run.target=none
  run.plot_every=0)
"$BIN" run maze-nsr-es "${NSES[@]}" run.overlap=false --threads 1 --out E0 --quiet
"$BIN" run maze-nsr-es "${NSES[@]}" --threads 2 --out E1 --quiet
diff <(strip_wall E0/metrics.csv) <(strip_wall E1/metrics.csv) >/dev/null || fail "NS-ES overlapped: metrics differ"
cmp -s E0/best.params E1/best.params || fail "NS-ES overlapped: best.params differs"
echo "ok: GA-NS and NS-ES (round robin, observation normalization) overlapped identical"

# --- killed while a round and the next generation's candidates were in flight ---------------------
# (every result reaches partial.log at once; sanitizer builds are ~10x slower, so a smaller
# population lasts as long there)
POP=3000
case "$BIN" in *asan*) POP=400 ;; esac
cat > slow.ini <<INI
[run]
algorithm = ga
seed = 5
generations = 3
target = none
plot_every = 0
[env]
id = CartPole-v1
episodes = 3
[policy]
hidden = 32,32
[ga]
population = $POP
truncation = 6
sigma = 0.05
elite_candidates = 2
elite_episodes = 5
INI
"$BIN" run slow.ini run.overlap=false --threads 1 --out S0 --quiet
NEUROEVO_PARTIAL_FLUSH_S=0 "$BIN" run slow.ini --threads 2 --out SK --quiet &
pid=$!
# until generation 1's log (base checkpoint 1 in its header) holds a result asked ahead (a 57-byte
# RESULT record, its CRC, type 2, round 0x80000000)
GEN1_LOG=4e45504152544c0a0100000001000000
for _ in $(seq 1 3000); do
  [ "$(head -c 16 SK/checkpoints/partial.log 2>/dev/null | od -An -tx1 | tr -d ' \n')" = $GEN1_LOG ] &&
    LC_ALL=C grep -qaP '\x39\x00\x00\x00.{4}\x02\x00\x00\x00\x80' SK/checkpoints/partial.log && break
  sleep 0.005
done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
[ "$(rows SK)" -eq 1 ] || fail "killed after $(rows SK) generations, expected during generation 1"
out=$("$BIN" resume SK --threads 1)
echo "$out" | grep -Eq "^gen +2  [0-9]+/[0-9]+ candidates asked ahead evaluated before the interruption" ||
  fail "resume did not take the candidates asked ahead from partial.log: $(echo "$out" | head -n 3)"
same_run S0 SK "GA killed with a round and candidates asked ahead in flight"
echo "ok: killed mid-round with candidates asked ahead, resumed from partial.log: identical"

# --- Redis: a worker killed, a master killed and resumed --------------------------------------------
port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
declare -A WPID
start_worker() {  # start_worker NAME (2 ms a candidate: the run lasts long enough for the kills)
  NEUROEVO_TEST_EVAL_DELAY_MS=2 "$BIN" worker --redis "$URL" --threads 1 --name "$1" --heartbeat 0.25 \
    >>"$1.log" 2>&1 &
  WPID[$1]=$!
  PIDS+=($!)
}
start_worker w1
start_worker w2
# (no `timeout` around the master: the SIGKILL must reach the master itself)
"$BIN" run ga.ini --redis "$URL" --task-timeout 0.5 --out R 2>master1.log >/dev/null &
mpid=$!
PIDS+=($mpid)
wait_rows R 3
kill -9 "${WPID[w1]}"
wait "${WPID[w1]}" 2>/dev/null || true
wait_rows R 6
kill -9 $mpid
wait $mpid 2>/dev/null || true
[ "$(rows R)" -lt 14 ] || fail "the master finished before the kill"
start_worker w1
timeout 120 "$BIN" resume R --redis "$URL" --task-timeout 0.5 2>master2.log >/dev/null ||
  fail "resume over Redis: $(tail -3 master2.log)"
same_as L R "overlapped over Redis: a worker and the master killed, the master resumed"
together=$(sed -n 's/.*; \([0-9]*\) rounds of several batches.*/\1/p' master2.log | tail -1)
[ "${together:-0}" -ge 6 ] || fail "the resumed master evaluated ${together:-no} rounds of two batches: $(tail -2 master2.log)"
echo "e2e_overlap: all checks passed"
