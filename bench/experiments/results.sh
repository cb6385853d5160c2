#!/usr/bin/env bash
# bench/experiments/results.sh EXP: runs or resumes one of docs/results.md's experiments and regenerates its
# figures there, so that anyone can reproduce a row. One command per experiment:
#
#   bench/experiments/results.sh frostbite        # Deep GA, ALE/Frostbite-v5 (configs/frostbite-ga.ini)
#   bench/experiments/results.sh icehockey        # Deep GA, ALE/IceHockey-v5 (configs/icehockey-ga.ini)
#   bench/experiments/results.sh humanoid         # OpenAI ES, Humanoid-v5 (configs/humanoid-es.ini)
#   bench/experiments/results.sh lander           # OpenAI ES, LunarLander-v3 (configs/lander-es.ini)
#   bench/experiments/results.sh humanoid-ars     # ARS V2-t, Humanoid-v5 (configs/humanoid-ars.ini)
#   bench/experiments/results.sh humanoid-ars-s1  # the same with run.seed = 1 (any EXP-sN: seed N)
#   bench/experiments/results.sh antdir-ga-maml   # GA-MAML, AntDir-v5; also antdir-ga-maml-shared,
#                                                 # antdir-ga-mixture, antdir-es-maml and the antvel-* four
#                                                 # (bench/experiments/meta-results.sh ant adapts them to
#                                                 # MAML's 40 test tasks)
#   bench/experiments/results.sh list             # the experiments and where each one stands
#
# The run lives in $RESULTS_RUNS/EXP (default runs/results/EXP, outside git). It continues from
# that directory's newest checkpoint; a fresh clone has none, so it starts from the checkpoint
# committed in docs/results/EXP/ (config.ini, metrics.csv, ckpt-*.bin, partial.log with the
# finished candidates of the generation in progress, and docs/results/EXP.genome or .params as the
# best agent so far): the run goes on where the last machine left it, with the same results as if
# it had never stopped. Without either it starts the config from scratch. Ctrl-C stops the run (keeping the checkpoint and the finished candidates
# of the generation in progress); the figures are then redrawn from what is there.
#
# Each training segment's process CPU time (user + system, all threads) is appended to
# docs/results/EXP/cost.csv: that is the run's cost in core-hours, whatever else the machine did.
# Then docs/results/EXP/ gets: curve.png (`neuroevo plot`), eval.txt (`neuroevo eval` over
# EVAL_EPISODES fresh episodes), agent.gif (`neuroevo render`), the newest checkpoint with the
# run's config.ini and metrics.csv; and docs/results/EXP.genome (or .params for the ES family) is
# the best agent, which `neuroevo eval --genome docs/results/EXP.genome` replays.
#
# A long run can be committed while it trains: `bench/results.sh --snapshot EXP` (from another shell)
# copies its newest checkpoint, config.ini, metrics.csv, partial.log and best agent into
# docs/results/EXP/ without stopping it or drawing figures, and writes the segment's CPU time so far
# to docs/results/EXP/cost-running.csv (folded into cost.csv when the segment ends, or by the next
# segment if this one was killed: its CPU after the last snapshot is then not counted).
#
# Options: --no-train (figures only), --snapshot (the checkpoint only, see above), --steps N (stop
# at N env steps in all: run.max_env_steps).
# Environment: NEUROEVO (the CLI, default build/neuroevo), THREADS (default: all cores), NICE (a
# nice level for training, default 0), RESULTS_RUNS.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin=${NEUROEVO:-$root/build/neuroevo}
runs=${RESULTS_RUNS:-$root/runs/results}

# experiment -> config, evaluation episodes, render size
declare -A CONFIG=([frostbite]=frostbite-ga [icehockey]=icehockey-ga [humanoid]=humanoid-es
                   [humanoid-ars]=humanoid-ars [lander]=lander-es)
declare -A EPISODES=([frostbite]=30 [icehockey]=30 [humanoid]=30 [humanoid-ars]=100 [lander]=100)
declare -A SIZE=([frostbite]=320x420 [icehockey]=320x420 [humanoid]=400x300 [humanoid-ars]=400x300
                 [lander]=400x300)
# MAML's ant tasks: GA-MAML, the GA on the task mixture and ES-MAML (eval: episodes of the task mixture;
# a small GIF, every other step: the checkered floor makes a 400x300 one ~4.7 MB)
declare -A FRAMES=()
for e in antvel-ga-maml antvel-ga-maml-shared antvel-ga-mixture antvel-es-maml antdir-ga-maml antdir-ga-maml-shared \
  antdir-ga-mixture antdir-es-maml; do
  CONFIG[$e]=$e EPISODES[$e]=40 SIZE[$e]=160x120 FRAMES[$e]=100
done

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit "${1:-2}"; }
die() { echo "results.sh: $*" >&2; exit 1; }

train=1 snapshot=0 steps=""
args=()
while (($#)); do
  case $1 in
    -h|--help) usage 0 ;;
    --no-train) train=0 ;;
    --snapshot) train=0 snapshot=1 ;;
    --steps) steps=${2:?--steps needs a number}; shift ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) args+=("$1") ;;
  esac
  shift
done
((${#args[@]} == 1)) || usage
exp=${args[0]}

# last metrics.csv field of column NAME in the last row (empty when there is no row yet)
last_metric() {
  [ -f "$1" ] || return 0
  awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next } { v = $c } END { print v }' "$1"
}

# core-hours of an experiment's committed segments (cost.csv) and of a running one (cost-running.csv)
cpu_hours() {
  local f files=()
  for f in "$1/cost.csv" "$1/cost-running.csv"; do [ -f "$f" ] && files+=("$f"); done
  ((${#files[@]})) || { echo 0.00; return; }
  awk -F, '$1 != "date" { s += $6 } END { printf "%.2f", s / 3600 }' "${files[@]}"
}

if [ "$exp" = list ]; then
  printf '%-16s %-14s %12s %10s  %s\n' experiment config env_steps cpu_hours state
  # the configured experiments, and the EXP-sN seeds that have a run here or a committed checkpoint
  seeded=$(for d in docs/results/*-s[0-9]*/ "$runs"/*-s[0-9]*/; do [ -d "$d" ] && basename "$d"; done || true)
  for e in $( (printf '%s\n' "${!CONFIG[@]}"; printf '%s\n' $seeded) | sort -u); do
    d=$runs/$e state="not started"
    [ -d "$d/checkpoints" ] && state="local run $d"
    [ "$state" = "not started" ] && ls docs/results/"$e"/ckpt-*.bin >/dev/null 2>&1 && state="committed checkpoint"
    cpu=$(cpu_hours "docs/results/$e")
    steps_now=$(last_metric "$d/metrics.csv" env_steps)
    [ -n "$steps_now" ] || steps_now=$(last_metric "docs/results/$e/metrics.csv" env_steps)
    printf '%-16s %-14s %12s %10s  %s\n' "$e" "${CONFIG[$e]:-${CONFIG[${e%-s*}]:-?}}" "${steps_now:-0}" "$cpu" "$state"
  done
  exit 0
fi
# EXP-sN: experiment EXP with run.seed = N, in its own run directory and docs/results/EXP-sN/
seed=""
if [[ -z "${CONFIG[$exp]:-}" && $exp =~ ^(.+)-s([0-9]+)$ && -n "${CONFIG[${BASH_REMATCH[1]}]:-}" ]]; then
  base=${BASH_REMATCH[1]} seed=${BASH_REMATCH[2]}
  CONFIG[$exp]=${CONFIG[$base]} EPISODES[$exp]=${EPISODES[$base]} SIZE[$exp]=${SIZE[$base]}
fi
[ -n "${CONFIG[$exp]:-}" ] || die "unknown experiment '$exp' (one of: $(printf '%s ' "${!CONFIG[@]}"); see --help)"
((snapshot)) || [ -x "$bin" ] || die "no CLI at $bin: build it first (make build; Atari needs make ale)"

out=$root/docs/results/$exp
dir=$runs/$exp
mkdir -p "$out" "$runs"

# the run directory: this machine's, else one rebuilt from the committed checkpoint
if [ ! -d "$dir/checkpoints" ] && ls "$out"/ckpt-*.bin >/dev/null 2>&1; then
  echo "results.sh: $exp continues from the committed checkpoint $(ls "$out"/ckpt-*.bin)"
  mkdir -p "$dir/checkpoints"
  cp "$out/config.ini" "$out/metrics.csv" "$dir/"
  cp "$out"/ckpt-*.bin "$dir/checkpoints/"
  # the candidates the last machine finished of the generation in progress
  [ -f "$out/partial.log" ] && cp "$out/partial.log" "$dir/checkpoints/"
  # the best agent so far (a resumed run rewrites it only when a better one appears)
  for ext in genome params; do
    [ -f "docs/results/$exp.$ext" ] && cp "docs/results/$exp.$ext" "$dir/best.$ext"
  done
fi

# cost.csv's row of a training segment: CPU_S WALL_S THREADS FROM TO
COST_HEADER="date,host,cpu,threads,wall_s,cpu_s,env_steps_from,env_steps_to"
cost_row() {
  local model
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1 | tr ',' ' ')
  echo "$(date -u +%FT%TZ),$(hostname),$model,$3,$2,$1,$4,$5"
}

# the newest checkpoint and what resume needs with it (the finished candidates of the generation
# in progress too, and the best agent so far) into docs/results/EXP/; older committed checkpoints go
keep_checkpoint() {
  ckpt=$(ls "$dir"/checkpoints/ckpt-*.bin 2>/dev/null | tail -n 1)
  [ -n "$ckpt" ] || die "$dir has no checkpoint yet"
  rm -f "$out"/ckpt-*.bin "$out/partial.log"
  cp "$ckpt" "$dir/config.ini" "$dir/metrics.csv" "$out/"
  # (the ES family's log holds each candidate's observation sums: Humanoid's reaches ~50 MB, too
  # much for git, so a log over 2 MiB stays in the run directory)
  local partial=$dir/checkpoints/partial.log
  if [ -f "$partial" ] && [ "$(stat -c %s "$partial")" -le $((2 << 20)) ]; then
    cp "$partial" "$out/"
  elif [ -f "$partial" ]; then
    echo "results.sh: $partial ($(($(stat -c %s "$partial") >> 20)) MiB) not copied: a run elsewhere redoes those candidates"
  fi
  for ext in genome params; do
    [ -f "$dir/best.$ext" ] && cp "$dir/best.$ext" "docs/results/$exp.$ext"
  done
  return 0
}

# one training segment, its CPU time appended to cost.csv
if ((train)); then
  overrides=()
  [ -n "$steps" ] && overrides+=("run.max_env_steps=$steps")
  [ -n "$seed" ] && overrides+=("run.seed=$seed")
  threads=${THREADS:-$(nproc)}
  before=$(last_metric "$dir/metrics.csv" env_steps)
  start=$(date +%s)
  if [ -d "$dir/checkpoints" ]; then
    cmd=(resume "$dir")
    [ -z "$steps" ] || die "--steps applies to a new run only: set run.max_env_steps in $dir/config.ini"
  else
    cmd=(run "${CONFIG[$exp]}" "${overrides[@]}" --out "$dir")
  fi
  [ -f "$out/cost.csv" ] || echo "$COST_HEADER" > "$out/cost.csv"
  # a segment that was killed after a snapshot: what the snapshot measured joins cost.csv
  if [ -f "$out/cost-running.csv" ]; then
    tail -n +2 "$out/cost-running.csv" >> "$out/cost.csv"
    rm -f "$out/cost-running.csv"
  fi
  echo "results.sh: neuroevo ${cmd[*]} --threads $threads"
  echo "$start $threads ${before:-0}" > "$runs/$exp.segment"
  set +e
  # the subshell writes its pid, then becomes the training process (nice and neuroevo exec), so
  # that --snapshot can read the segment's CPU time from /proc; it stays in the foreground for ^C
  (echo "$BASHPID" > "$runs/$exp.segment.pid" && exec nice -n "${NICE:-0}" "$bin" "${cmd[@]}" --threads "$threads")
  rc=$?
  set -e
  # the children's user and system time, as bash's `times` reports them (second line); `times`
  # runs in this shell, not in a command substitution's subshell, which has no children
  times > "$dir/.times"
  cpu=$(sed -n 2p "$dir/.times" | awk '{ for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } print s }')
  rm -f "$dir/.times" "$runs/$exp.segment" "$runs/$exp.segment.pid" "$out/cost-running.csv"
  after=$(last_metric "$dir/metrics.csv" env_steps)
  cost_row "$cpu" $(($(date +%s) - start)) "$threads" "${before:-0}" "${after:-0}" >> "$out/cost.csv"
  ((rc == 0 || rc == 130)) || die "training exited with status $rc (the run directory $dir keeps its checkpoints)"
fi
[ -f "$dir/metrics.csv" ] || die "no run in $dir yet: run without --no-train first"

# --snapshot: the checkpoint and the running segment's CPU time so far, no figures
if ((snapshot)); then
  keep_checkpoint
  pid=$(cat "$runs/$exp.segment.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] && grep -q neuroevo "/proc/$pid/cmdline" 2>/dev/null; then
    read -r start threads before < "$runs/$exp.segment"
    # utime and stime (fields 14 and 15 after the parenthesized name) in clock ticks
    cpu=$(sed 's/.*) //' "/proc/$pid/stat" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($12 + $13) / hz }')
    { echo "$COST_HEADER"
      cost_row "$cpu" $(($(date +%s) - start)) "$threads" "$before" "$(last_metric "$dir/metrics.csv" env_steps)"
    } > "$out/cost-running.csv.tmp" && mv "$out/cost-running.csv.tmp" "$out/cost-running.csv"
  fi
  echo "results.sh: $exp: $(last_metric "$dir/metrics.csv" env_steps) env steps, $(cpu_hours "$out") core-hours" \
       "so far, checkpoint $(basename "$ckpt") in docs/results/$exp/"
  exit 0
fi

# figures, evaluation and video of the best agent so far
echo "results.sh: figures into docs/results/$exp/"
"$bin" plot "$dir" --out "$out/curve.png" >/dev/null
best=$dir/best.genome ext=genome
[ -f "$best" ] || best=$dir/best.params ext=params
[ -f "$best" ] || die "$dir has no best.genome or best.params yet"
cp "$best" "docs/results/$exp.$ext"
"$bin" eval --genome "docs/results/$exp.$ext" --episodes "${EPISODES[$exp]}" | tee "$out/eval.txt"
"$bin" render --genome "docs/results/$exp.$ext" --out "$out/agent.gif" --size "${SIZE[$exp]}" \
  --max-frames "${FRAMES[$exp]:-500}" >/dev/null
keep_checkpoint
cpu_h=$(cpu_hours "$out")
echo "results.sh: $exp: $(last_metric "$dir/metrics.csv" env_steps) env steps, $cpu_h core-hours so far," \
     "checkpoint $(basename "$ckpt") in docs/results/$exp/"
