#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Redis benchmarks end to end (bench_redis runs this when started without a URL, so `make bench`
# covers it): a private redis-server on a free loopback port, then
#  1. master throughput: results/s accepted and bytes per result with 2 synthetic workers
#     (`neuroevo worker --synthetic`), for 1-seed and 1000-seed (GA generation 1000) candidates;
#  2. parallel efficiency: training wall time (metrics.csv wall_s) of `run --threads 2` against
#     `run --redis` with 2 workers x 1 thread, on CartPole and Acrobot (and the runs must be identical),
#     with the tasks per generation the master published (Redis's own XADD count: load-independent).
# usage: bench/cluster/bench_redis.sh BUILD_DIR   (BUILD_DIR holds neuroevo and bench/bench_redis)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=$BUILD/neuroevo
# the benchmarks are outside `cmake --build`'s default target (a new library removes them)
for exe in "$BUILD/bench/bench_redis" "$BIN"; do
  if [ "$exe" -ot "$BUILD/libneuroevo.a" ]; then  # (also true when exe is missing)
    echo "bench_redis.sh: $exe is missing or older than $BUILD/libneuroevo.a;" \
      "run 'cmake --build $BUILD --target benchmarks neuroevo_cli' (or 'make bench') first" >&2
    exit 2
  fi
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench_redis.XXXXXX")
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  bash "$SRC/tests/redis_test_server.sh" stop "$TMP/redis" || true
  rm -rf "$TMP"
}
trap cleanup EXIT
port=$(bash "$SRC/tests/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
workers() {  # workers K [options]: start K workers of 1 thread
  local k=$1
  shift
  for i in $(seq 1 "$k"); do
    "$BIN" worker --redis "$URL" --threads 1 --name "bench-$i" "$@" >>"$TMP/workers.log" 2>&1 &
    PIDS+=($!)
  done
  sleep 0.5
}
stop_workers() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}

echo "== master throughput (synthetic workers, loopback, $(nproc) cores) =="
workers 2 --synthetic
"$BUILD/bench/bench_redis" "$URL" --candidates 100000 --rounds 5
"$BUILD/bench/bench_redis" "$URL" --candidates 10000 --rounds 3 --chain 1000 --latency 0
stop_workers

echo "== parallel efficiency: 2 workers x 1 thread vs local 2 threads =="
echo "   wall: training wall_s of metrics.csv (best of 3); cpu: CPU seconds of the local run over those of"
echo "   master + workers + redis-server for the same run (insensitive to other load on the machine)"
last_wall() { tail -n 1 "$1/metrics.csv" | cut -d, -f4; }
ticks() {  # CPU clock ticks (user + system) of the given PIDs so far
  local t=0
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done
  echo "$t"
}
cpu_of() {  # cpu_of COMMAND...: runs it, prints its user + system CPU seconds
  local TIMEFORMAT='%U %S'
  { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}'
}
efficiency() {  # efficiency CONFIG GENERATIONS
  local cfg=$1 gens=$2 best_l=999999 best_r=999999 cpu_l=0 cpu_r=0 hz
  hz=$(getconf CLK_TCK)
  workers 2
  local redis_pid xadds
  redis_pid=$(cat "$TMP/redis/redis.pid")
  redis-cli -p "$port" CONFIG RESETSTAT >/dev/null
  for rep in 1 2 3; do
    cpu_l=$(awk -v a="$cpu_l" -v b="$(cpu_of "$BIN" run "$cfg" run.target=none --generations "$gens" --threads 2 --out "$TMP/L-$cfg-$rep" --quiet)" 'BEGIN { print a + b }')
    local t0 t1 m
    t0=$(ticks "${PIDS[@]}" "$redis_pid")
    m=$(cpu_of "$BIN" run "$cfg" run.target=none --generations "$gens" --redis "$URL" --out "$TMP/R-$cfg-$rep" --quiet)
    t1=$(ticks "${PIDS[@]}" "$redis_pid")
    cpu_r=$(awk -v a="$cpu_r" -v m="$m" -v d="$((t1 - t0))" -v hz="$hz" 'BEGIN { print a + m + d / hz }')
    diff <(cut -d, -f1-3,5- "$TMP/L-$cfg-$rep/metrics.csv") <(cut -d, -f1-3,5- "$TMP/R-$cfg-$rep/metrics.csv") >/dev/null ||
      { echo "bench_redis: $cfg: distributed metrics differ from the local run" >&2; exit 1; }
    best_l=$(awk -v a="$best_l" -v b="$(last_wall "$TMP/L-$cfg-$rep")" 'BEGIN { print (b < a ? b : a) }')
    best_r=$(awk -v a="$best_r" -v b="$(last_wall "$TMP/R-$cfg-$rep")" 'BEGIN { print (b < a ? b : a) }')
  done
  # every task is one XADD to the task stream and one to the result stream (no re-claims here)
  xadds=$(redis-cli -p "$port" INFO commandstats | sed -n 's/^cmdstat_xadd:calls=\([0-9]*\),.*/\1/p')
  stop_workers
  awk -v c="$cfg" -v g="$gens" -v l="$best_l" -v r="$best_r" -v cl="$cpu_l" -v cr="$cpu_r" -v x="${xadds:-0}" \
    'BEGIN { printf "%-12s %3d generations: wall local %6.2f s, redis %6.2f s, efficiency %.3f; cpu %6.2f s vs %6.2f s, efficiency %.3f; %.1f tasks/generation (identical metrics)\n", c, g, l, r, l / r, cl, cr, cl / cr, x / (2 * 3 * g) }'
}
efficiency cartpole-ga 100
efficiency acrobot-ga 150
