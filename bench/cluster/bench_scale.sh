#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A simulated cluster on this machine (the figures of docs/scaling.md): the master
# and its redis-server in one network namespace, "nodes" of up to 64 simulated workers each in
# namespaces of their own joined to it by veth pairs (addresses only inside those namespaces), each
# node's workers hosted by one `neuroevo worker --simulate MEAN_MS:JITTER --count N` process, either
# connected to the master's Redis directly or through a `neuroevo relay` and a redis-server of the
# node. Network latency: this kernel has no netem qdisc, so a delay proxy in each node's namespace
# (bench/cluster/delay_proxy.c) holds every byte DELAY_US in each direction. The master is bench_scale (a
# real GA or ES, synthetic results); it prints each cell's figures, this script adds the CPU of the
# rest (worker hosts, relays, node Redis, proxies) and prints the table. Everything it creates is
# removed on any exit (a trap), namespaces included.
#
# usage: bench/cluster/bench_scale.sh BUILD_DIR [CELL ...]
#   CELL = WORKERS:EVAL:MODE:DELAY_US[:GENERATIONS[:SPLIT[:OVERLAP]]]   EVAL atari (GA, population
#          1000, the top 10 re-evaluated on 30 episodes; 3 s +-50% per episode) or mujoco (ES,
#          population 10000 and the centre on 5 episodes; 35 ms +-20%); MODE direct or relay; SPLIT
#          auto (default: the master splits a straggler candidate's episodes over tasks) or off;
#          OVERLAP on (default: run.overlap, the next generation's candidates asked ahead travel with
#          a generation's last round) or off. Figures over generations 1..G-2 (G >= 3)
#   no CELL: the small sweep `make bench` runs (~3 minutes); BENCH_SCALE_FULL=1: the full sweep
#   (hours: see docs/scaling.md for the figures and the machine's load when they were taken)
# Needs root (ip netns, iproute2), redis-server, and `cmake --build BUILD --target benchmarks`.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
shift || true
BIN=$BUILD/neuroevo
MASTER=$BUILD/bench/bench_scale
PROXY=$BUILD/bench/delay_proxy
PER_NODE=${BENCH_SCALE_PER_NODE:-64}
for exe in "$BIN" "$MASTER" "$PROXY"; do
  [ -x "$exe" ] || { echo "bench_scale.sh: $exe missing: run 'cmake --build $BUILD --target benchmarks neuroevo_cli'" >&2; exit 2; }
done
command -v redis-server >/dev/null || { echo "bench_scale.sh: redis-server not found (scripts/install-deps)" >&2; exit 2; }

TAG=nes$$  # every namespace and link name this run creates starts with it
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench_scale.XXXXXX")
# the sweep runs for hours: copies of the programs, so that a rebuild meanwhile changes nothing
mkdir "$TMP/bin"
cp "$BIN" "$MASTER" "$PROXY" "$TMP/bin/"
BIN=$TMP/bin/neuroevo MASTER=$TMP/bin/bench_scale PROXY=$TMP/bin/delay_proxy
PW=$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')
PIDS=()
NODES=0
teardown_cell() {
  local p
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  PIDS=()
  for ns in $(ip netns list | awk '{print $1}' | grep "^$TAG" || true); do ip netns del "$ns" 2>/dev/null || true; done
}
trap 'teardown_cell; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

if ! ip netns add "${TAG}probe" 2>/dev/null; then
  echo "bench_scale.sh: cannot create network namespaces here (needs root and CONFIG_NET_NS): no figures" >&2
  exit 2
fi
ip netns del "${TAG}probe"
# the namespaces of a run that was killed outright (no trap ran: SIGKILL, a machine reset) hold
# no process but keep their names and veth pairs: remove those whose run (nesPID...) is gone
for ns in $(ip netns list | awk '{print $1}' | grep -E '^nes[0-9]+[a-z]' || true); do
  pid=${ns#nes}
  pid=${pid%%[a-z]*}
  [ -d "/proc/$pid" ] && continue
  ip netns del "$ns" 2>/dev/null && echo "bench_scale.sh: removed namespace $ns, left by a run that was killed" >&2
done

ticks() {  # CPU clock ticks (user + system) of the given PIDs so far
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done
  echo "$t"
}
# Node k's addresses: a /30 out of 10.201.0.0/16 (master side .1, node side .2)
node_addr() {  # node_addr K SIDE(1|2)
  local b=$((4 * $1))
  echo "10.201.$((b / 256)).$((b % 256 + $2))"
}

# start_master_ns: the master's namespace and redis-server (password, every client allowed)
start_master_ns() {
  ip netns add "${TAG}m"
  ip -n "${TAG}m" link set lo up
  ip netns exec "${TAG}m" redis-server --port 6379 --bind 0.0.0.0 --requirepass "$PW" --save "" --appendonly no \
    --maxclients 19000 --dir "$TMP" --logfile "$TMP/redis-master.log" --daemonize no >/dev/null 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    ip netns exec "${TAG}m" redis-cli -a "$PW" --no-auth-warning ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.05
  done
  echo "bench_scale.sh: the master's redis-server did not start (see $TMP/redis-master.log)" >&2
  exit 1
}

# start_node K WORKERS MODE DELAY_US MEAN_MS JITTER HEARTBEAT
start_node() {
  local k=$1 n=$2 mode=$3 delay=$4 mean=$5 jitter=$6 hb=$7
  local ns=${TAG}n$k up_addr
  up_addr=$(node_addr "$k" 1)
  ip netns add "$ns"
  ip link add "${TAG}v$k" type veth peer name "${TAG}w$k"
  ip link set "${TAG}w$k" netns "$ns"
  ip link set "${TAG}v$k" netns "${TAG}m"
  ip -n "${TAG}m" addr add "$up_addr/30" dev "${TAG}v$k"
  ip -n "${TAG}m" link set "${TAG}v$k" up
  ip -n "$ns" addr add "$(node_addr "$k" 2)/30" dev "${TAG}w$k"
  ip -n "$ns" link set "${TAG}w$k" up
  ip -n "$ns" link set lo up
  # the node's way to the master's Redis: direct across the veth, or through the delay proxy
  local upstream="redis://:$PW@$up_addr:6379"
  if [ "$delay" != 0 ]; then
    ip netns exec "$ns" "$PROXY" 127.0.0.1:7000 "$up_addr:6379" "$delay" 2>>"$TMP/proxy.log" &
    PIDS+=($!)
    upstream="redis://:$PW@127.0.0.1:7000"
  fi
  local url=$upstream
  if [ "$mode" = relay ]; then
    ip netns exec "$ns" redis-server --port 6380 --bind 127.0.0.1 --save "" --appendonly no --maxclients 4000 \
      --dir "$TMP" --logfile "$TMP/redis-n$k.log" --daemonize no >/dev/null 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 100); do ip netns exec "$ns" redis-cli -p 6380 ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
    ip netns exec "$ns" "$BIN" relay --upstream "$upstream" --local redis://127.0.0.1:6380 --name "relay-$k" \
      >>"$TMP/relay-$k.log" 2>&1 &
    PIDS+=($!)
    url=redis://127.0.0.1:6380
  fi
  ip netns exec "$ns" "$BIN" worker --redis "$url" --simulate "$mean:$jitter" --count "$n" --name "n$k" \
    --heartbeat "$hb" >>"$TMP/workers-$k.log" 2>&1 &
  PIDS+=($!)
}

RESULTS=()
# run_cell WORKERS EVAL MODE DELAY_US [GENERATIONS [SPLIT [OVERLAP]]]
run_cell() {
  local w=$1 eval=$2 mode=$3 delay=$4 gens=${5:-} split=${6:-auto} overlap=${7:-on}
  local mean jitter algo pop hb
  case $eval in
    atari) mean=3000 jitter=0.5 algo=ga pop=1000 gens=${gens:-5} ;;
    mujoco) mean=35 jitter=0.2 algo=es pop=10000 gens=${gens:-6} ;;
    *) echo "bench_scale.sh: EVAL is atari or mujoco, not '$eval'" >&2; exit 2 ;;
  esac
  # thousands of direct heartbeats are Redis load of their own (docs/scaling.md): 5 s past 1000 workers
  hb=1
  [ "$mode" = direct ] && [ "$w" -gt 1000 ] && hb=5
  local load0 nodes=$(((w + PER_NODE - 1) / PER_NODE)) left=$w k
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  start_master_ns
  for ((k = 0; k < nodes; k++)); do
    local n=$((left < PER_NODE ? left : PER_NODE))
    left=$((left - n))
    start_node "$k" "$n" "$mode" "$delay" "$mean" "$jitter" "$hb"
  done
  # every simulated worker heartbeating (on the master's Redis, or on its node's)
  local want=$w seen=0
  [ "$mode" = relay ] && want=$nodes
  for _ in $(seq 1 600); do
    seen=$(ip netns exec "${TAG}m" redis-cli -a "$PW" --no-auth-warning ZCARD ne:workers 2>/dev/null || echo 0)
    [ "$seen" -ge "$want" ] && break
    sleep 0.1
  done
  [ "$seen" -ge "$want" ] || echo "bench_scale.sh: only $seen of $want heartbeating after 60 s" >&2
  local others=("${PIDS[@]:1}") t0 t1 line
  t0=$(ticks "${others[@]}")
  local s0
  s0=$(date +%s.%N)
  local extra=()
  [ "$algo" = es ] && extra=(es.noise=table)
  [ "$split" = off ] && extra+=(--episodes-per-task off)
  [ "$overlap" = off ] && extra+=(run.overlap=false)
  # in the background, so that a signal reaches this script's trap at once (bash defers traps
  # until a foreground command ends)
  ip netns exec "${TAG}m" "$MASTER" "redis://:$PW@127.0.0.1:6379" --algo "$algo" --population "$pop" \
    --workers "$w" --simulate "$mean:$jitter" --generations "$gens" --label "$eval/$mode/${delay}us/$split/$overlap" "${extra[@]}" \
    >"$TMP/master.out" 2>"$TMP/master.err" &
  PIDS+=($!)
  wait $! || true
  line=$(grep '^cell' "$TMP/master.out" || true)
  t1=$(ticks "${others[@]}")
  local wall
  wall=$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN { print a - b }')
  if [ -z "$line" ]; then
    echo "bench_scale.sh: cell $w:$eval:$mode:$delay failed: $(tail -3 "$TMP/master.err")" >&2
    teardown_cell
    return 1
  fi
  local harness
  harness=$(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v w="$wall" 'BEGIN { printf "%.3f", t / hz / w }')
  line="$line mode=$mode delay_us=$delay harness_cpu=$harness load=\"$load0 -> $(cut -d' ' -f1-3 /proc/loadavg)\""
  echo "$line"
  RESULTS+=("$line")
  teardown_cell
}

get() {  # get LINE KEY
  echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}
# What a billion Atari frames cost in CPU on the machine docs/results.md measured (AMD EPYC, Zen 4:
# the Deep GA on Frostbite, 0.99 ms of CPU per agent step of 4 frames): 69 core-hours. A cluster
# bills every worker's core all the time, so a user pays that / the useful ratio (the workers' core
# hours only; the master's core and Redis add one or two cores per cluster).
ATARI_CORE_H_PER_GFRAME=69
billed() {  # billed LINE: cluster-billed core-hours per 1e9 Atari frames, or - for other cells
  [ "$(get "$1" label | cut -d/ -f1)" = atari ] || { echo -; return; }
  awk -v r="$(get "$1" ratio_ideal)" -v c=$ATARI_CORE_H_PER_GFRAME 'BEGIN { printf "%.0f", (r > 0 ? c / r : 0) }'
}
print_table() {
  echo
  echo "cells: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; figures over generations 1..G-2."
  echo "ratio: achieved / ideal (workers / mean episode time); util: busy worker-time / worker-time (spare"
  echo "evaluations included); bound_c, bound_e: the bound of these rounds / ideal with candidates indivisible /"
  echo "with episodes as the unit (straggler tail); vs_c, vs_e: achieved / those bounds; billed: cluster-billed"
  echo "core-hours per 1e9 Atari frames ($ATARI_CORE_H_PER_GFRAME CPU core-hours / ratio); master: CPU us per result (cores);"
  echo "redis: cores, MB; others: cores of worker hosts, relays, node Redis, proxies; gap: last result -> next"
  echo "generation's first task, ms (runner part in parentheses)"
  printf '%-7s %-6s %-6s %-6s %-5s %-4s %-3s %8s %7s %6s %6s %7s %7s %6s %6s %6s %13s %6s %6s %7s %6s %13s\n' workers \
    eval mode delay split ovl gen evals/s ideal ratio util bound_c bound_e vs_c vs_e billed master redis MB clients \
    others gap
  local l
  for l in "${RESULTS[@]}"; do
    printf '%-7s %-6s %-6s %-6s %-5s %-4s %-3s %8s %7s %6s %6s %7s %7s %6s %6s %6s %13s %6s %6s %7s %6s %13s\n' \
      "$(get "$l" workers)" "$(get "$l" label | cut -d/ -f1)" "$(get "$l" mode)" "$(get "$l" delay_us)us" \
      "$(get "$l" label | cut -d/ -f4)" "$(get "$l" label | cut -d/ -f5)" "$(get "$l" generations)" \
      "$(get "$l" evals_s)" "$(get "$l" ideal_s)" "$(get "$l" ratio_ideal)" "$(get "$l" util)" "$(get "$l" bound_ideal)" \
      "$(get "$l" bound_ep_ideal)" "$(get "$l" ratio_bound)" "$(get "$l" ratio_bound_ep)" "$(billed "$l")" \
      "$(get "$l" master_us) ($(get "$l" master_cpu))" "$(get "$l" redis_cpu)" "$(get "$l" redis_mb)" \
      "$(get "$l" clients)" "$(get "$l" harness_cpu)" "$(get "$l" gap_ms) ($(get "$l" runner_ms))"
  done
}

CELLS=("$@")
if [ ${#CELLS[@]} -eq 0 ]; then
  if [ "${BENCH_SCALE_FULL:-0}" = 1 ]; then
    for w in 100 720 2000 5000; do
      for mode in direct relay; do
        for d in 0 1000; do CELLS+=("$w:mujoco:$mode:$d" "$w:atari:$mode:$d:5:auto:off" "$w:atari:$mode:$d:5:auto:on"); done
      done
    done
  else
    CELLS=(100:mujoco:direct:0:3 100:mujoco:relay:0:3 100:mujoco:relay:1000:3 720:mujoco:direct:0:3 720:mujoco:relay:0:3
      720:atari:relay:0:4)
  fi
fi
echo "== bench_scale: simulated workers in network namespaces, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) =="
for c in "${CELLS[@]}"; do
  IFS=: read -r w eval mode delay gens split overlap <<<"$c"
  run_cell "$w" "$eval" "$mode" "$delay" "$gens" "$split" "$overlap" || true
done
print_table
