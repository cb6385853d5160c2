#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hard-maze comparison of docs/novelty.md: reward-only GA and ES
# against GA-NS and NS-ES on HardMaze-v0, 5 seeds each (`neuroevo compare`: summary.md and
# compare.png in OUT), then a table of the runs that reached the goal. "Reached" = some policy
# evaluated in a generation ended within 10 units of the goal (max(best, elite_mean) >= 154.076,
# the env's reward threshold: the papers' criterion); "agent" = the run's saved agent did (the
# elite column, else the best: the best genome for the GA without re-evaluation, an updated centre
# for the ES family; what best.genome / best.params hold, and what compare's summary counts). Rerunning continues
# where it stopped (compare resumes).
# usage: bench/experiments/maze-novelty.sh [NEUROEVO_BINARY] [OUT] [SEEDS]   (default build/neuroevo, maze-novelty, 5)
set -euo pipefail
BIN=${1:-build/neuroevo}
OUT=${2:-maze-novelty}
SEEDS=${3:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CONFIGS=(maze-ga maze-ga-ns maze-es maze-ns-es)
THRESHOLD=154.076  # HardMaze-v0's reward threshold: start distance 164.076 - 10

args=()
for c in "${CONFIGS[@]}"; do args+=("$HERE/configs/$c.ini"); done
"$BIN" compare "${args[@]}" --seeds "$SEEDS" --threads 1 --out "$OUT"

# first generation (and its evaluations) whose best or elite reached the threshold; the elite's too
first_hit() {  # first_hit METRICS_CSV -> "gen evals agent_gen" (- when never)
  awk -F, -v t="$THRESHOLD" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { b = $col["best"] + 0; has_e = $col["elite_mean"] != "nan"; e = has_e ? $col["elite_mean"] + 0 : -1e300
      if (g == "" && (b >= t || e >= t)) { g = $1; ev = $col["evaluations"] }
      if (a == "" && (has_e ? e : b) >= t) a = $1 }
    END { print (g == "" ? "-" : g), (ev == "" ? "-" : ev), (a == "" ? "-" : a) }' "$1"
}

echo
echo "| config | reached the goal | evaluations to reach it (median; per seed) | saved agent reached it |"
echo "| --- | --- | --- | --- |"
for c in "${CONFIGS[@]}"; do
  reached=0 agents=0 evals=()
  per_seed=""
  for ((s = 0; s < SEEDS; s++)); do
    read -r g ev a <<<"$(first_hit "$OUT/$c/seed$s/metrics.csv")"
    [ "$g" != "-" ] && reached=$((reached + 1)) && evals+=("$ev")
    [ "$a" != "-" ] && agents=$((agents + 1))
    per_seed+="${per_seed:+, }$ev"
  done
  median="-"
  if [ "${#evals[@]}" -gt 0 ]; then
    median=$(printf '%s\n' "${evals[@]}" | sort -n | awk '{v[NR] = $1} END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
  fi
  echo "| $c | $reached / $SEEDS | $median; $per_seed | $agents / $SEEDS |"
done
