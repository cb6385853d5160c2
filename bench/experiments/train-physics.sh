#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The physics training benchmarks, long (about 10 minutes each part on 2 cores), so
# never part of `make test` and only part of `make bench` with BENCH_LONG=1; `make bench-train`
# runs them alone.
#   lander:  lander-es with seeds 0 1 2 on --threads 2; for each, the wall time (metrics.csv's wall_s)
#            of the first generation whose centre mean over 20 episodes (elite_mean) reached
#            Gymnasium's threshold 200 (run.target = auto); prints the median (goal: <= 600 s).
#   cheetah: halfcheetah-es on --threads 2 for a 10-minute budget (run.max_seconds); prints the
#            centre's return (elite_mean) of the last generation and the best one.
# Usage: bench/experiments/train-physics.sh NEUROEVO_BIN [lander|cheetah|all]
# Environment: SEEDS (0 1 2), THREADS (2), LANDER_MAX_S (1200: a seed that has not reached the
# target by then counts as not reached), LANDER_TARGET (200, what run.target = auto stops at; lower
# only to check the script quickly), CHEETAH_S (600), OUT (a fresh temporary folder).
set -u
BIN=${1:?usage: train-physics.sh NEUROEVO_BIN [lander|cheetah|all]}
WHAT=${2:-all}
SEEDS=${SEEDS:-0 1 2}
THREADS=${THREADS:-2}
LANDER_MAX_S=${LANDER_MAX_S:-1200}
LANDER_TARGET=${LANDER_TARGET:-200}
CHEETAH_S=${CHEETAH_S:-600}
OUT=${OUT:-$(mktemp -d /tmp/neuroevo-train-physics.XXXXXX)}
CONFIGS="$(cd "$(dirname "$0")/../../configs" && pwd)"
mkdir -p "$OUT"

# run LABEL CONFIG [overrides...]: trains quietly with OUT/LABEL as its run directory; prints it
run() {
  local label=$1
  shift
  "$BIN" run "$@" --threads "$THREADS" --out "$OUT/$label" --quiet >"$OUT/$label.log" 2>&1 ||
    { echo "train-physics: $label failed (see $OUT/$label.log)" >&2; return 1; }
  echo "$OUT/$label"
}

# column NAME of metrics.csv FILE, found by its header (the column order is not assumed)
col() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$2"; }

# "wall_s generation" of the first row whose elite_mean >= TARGET, or nothing
time_to_target() {
  awk -F, -v target="$2" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "wall_s") w = i; if ($i == "elite_mean") e = i }; next }
    $e >= target { print $w, $1; exit }' "$1/metrics.csv"
}

lander() {
  echo "lander-es to $LANDER_TARGET (centre mean over es.eval_episodes = 100 episodes), --threads $THREADS, seeds: $SEEDS"
  local times=() dir t gen
  for s in $SEEDS; do
    dir=$(run "lander-seed$s" "$CONFIGS/lander-es.ini" run.seed="$s" run.generations=0 \
      run.max_seconds="$LANDER_MAX_S") || return 1
    read -r t gen < <(time_to_target "$dir" "$LANDER_TARGET")
    if [ -n "$t" ]; then
      printf '  seed %s: %8.1f s  (generation %s)\n' "$s" "$t" "$gen"
      times+=("$t")
    else
      printf '  seed %s: not reached in %s s (best centre %s)\n' "$s" "$LANDER_MAX_S" \
        "$(col elite_mean "$dir/metrics.csv" | sort -g | tail -1)"
      times+=("inf")
    fi
  done
  # the median of the times (a seed that never reached the target sorts last as inf)
  printf '%s\n' "${times[@]}" | sort -g | awk -v target="$LANDER_TARGET" '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "lander-es median time to %s: %s s over %d seeds (goal <= 600 s)\n", target, m, NR }'
}

cheetah() {
  echo "halfcheetah-es for $CHEETAH_S s of wall time, --threads $THREADS"
  local dir
  dir=$(run cheetah "$CONFIGS/halfcheetah-es.ini" run.max_seconds="$CHEETAH_S") || return 1
  local m="$dir/metrics.csv"
  printf '  generations %s, env steps %s, wall %s s\n' "$(col generation "$m" | tail -1)" \
    "$(col env_steps "$m" | tail -1)" "$(col wall_s "$m" | tail -1)"
  printf 'halfcheetah-es centre return after %s s: %s (best centre %s)\n' "$CHEETAH_S" \
    "$(col elite_mean "$m" | tail -1)" "$(col elite_mean "$m" | sort -g | tail -1)"
}

status=0
case "$WHAT" in
  lander) lander || status=1 ;;
  cheetah) cheetah || status=1 ;;
  all) { lander || status=1; }; { cheetah || status=1; } ;;
  *) echo "train-physics: unknown part '$WHAT' (lander, cheetah or all)" >&2; exit 2 ;;
esac
echo "runs: $OUT"
exit $status
