#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The meta-learning results of docs/meta-learning.md: GA-MAML against the same GA trained on
# the task mixture (no inner loop), on PointNav2D-v0 and HalfCheetahDir-v5, seeds 0 1 2. Each run
# is trained on THREADS threads under `nice -n 10` and timed (user + system CPU, wall); each best
# agent is then adapted to 100 test tasks (`neuroevo eval RUN --adapt 3 --tasks 100 --seed 1000`:
# the same tasks for every run) and the mean returns before and after 1, 2, 3 inner steps go to
# OUT/results.csv; OUT/meta.png plots them (mean and range over the seeds), OUT/meta-training.png
# the population's mean return before and after adaptation per generation. An untrained policy
# (the init of seed chain "1") adapted the same way shows what the inner loop does without
# meta-training. "matched" is the mixture baseline given as many environment steps as GA-MAML took
# (run.max_env_steps) rather than as many generations. Long (~30 minutes of CPU, hours of wall time
# on a loaded 2-core machine): never part of `make test`.
# Usage: bench/experiments/meta-results.sh NEUROEVO_BIN [pointnav|halfcheetahdir|all|plot]  (plot: only redraw)
# Environment: SEEDS (0 1 2), THREADS (1), TASKS (100), OUT (a fresh temporary folder).
set -u
BIN=${1:?usage: meta-results.sh NEUROEVO_BIN [pointnav|halfcheetahdir|all]}
WHAT=${2:-all}
SEEDS=${SEEDS:-0 1 2}
THREADS=${THREADS:-1}
TASKS=${TASKS:-100}
OUT=${OUT:-$(mktemp -d /tmp/neuroevo-meta-results.XXXXXX)}
CONFIGS="$(cd "$(dirname "$0")/../../configs" && pwd)"
mkdir -p "$OUT"
CSV="$OUT/results.csv"
[ -f "$CSV" ] || echo "family,kind,seed,before,step1,step2,step3,cpu_s,wall_s,generations" > "$CSV"

# the "mean over N tasks: before B ± s  step 1 X ± s ..." line of eval --adapt as "B,X1,X2,X3"
means() { sed -n 's/^mean over [0-9]* tasks\{0,1\}: //p' | sed 's/ ± [0-9.]*//g; s/ *([0-9]* env steps)//' |
  awk '{ printf "%s,%s,%s,%s", $2, $5, $8, $11 }'; }

# train FAMILY KIND SEED [CONFIG_KIND OVERRIDE...]: runs configs/FAMILY-ga-CONFIG_KIND.ini (KIND's
# by default) with the overrides, adapts its best agent, appends a row
train() {
  local family=$1 kind=$2 seed=$3 dir="$OUT/$1-$2-s$3" cfg=${4:-$2}
  shift 3; [ $# -gt 0 ] && shift
  grep -q "^$family,$kind,$seed," "$CSV" && return 0  # done in an earlier invocation
  # a finished run is kept: rerunning the script only evaluates it again
  if [ ! -f "$dir.time" ]; then
    rm -rf "$dir"
    /usr/bin/time -o "$dir.time.tmp" -f "%U %S %e" nice -n 10 "$BIN" run "$CONFIGS/$family-ga-$cfg.ini" \
      run.seed="$seed" "$@" --threads "$THREADS" --out "$dir" --quiet >"$dir.log" 2>&1 ||
      { echo "meta-results: $dir failed (see $dir.log)" >&2; return 1; }
    mv "$dir.time.tmp" "$dir.time"
  fi
  read -r user sys wall < "$dir.time"
  local row
  row=$(nice -n 10 "$BIN" eval "$dir" --adapt 3 --tasks "$TASKS" --seed 1000 --threads "$THREADS" | means)
  echo "$family,$kind,$seed,$row,$(echo "$user + $sys" | bc),$wall,$(($(wc -l < "$dir/metrics.csv") - 1))" | tee -a "$CSV"
}

# untrained FAMILY: the meta config's policy at init (seed chain "1"), adapted the same way
untrained() {
  local family=$1 g="$OUT/$1-untrained.genome" row
  grep -q "^$family,untrained," "$CSV" && return 0
  { grep -E '^(env|policy|meta)\.' "$OUT/$family-maml-s0/best.genome"; echo "sigma = 0.03"; echo "seeds = 1"; } > "$g"
  row=$(nice -n 10 "$BIN" eval --genome "$g" --adapt 3 --tasks "$TASKS" --seed 1000 --threads "$THREADS" | means)
  echo "$family,untrained,-,$row,0,0,0" | tee -a "$CSV"
}

# the mean env_steps of FAMILY's GA-MAML runs (metrics.csv's last row)
maml_steps() {
  for s in $SEEDS; do tail -n 1 "$OUT/$1-maml-s$s/metrics.csv" | cut -d, -f3; done |
    awk '{ sum += $1 } END { printf "%d", sum / NR }'
}

# "matched": the mixture baseline again, given as many environment steps as GA-MAML took
# (the inner loop's rollouts included) instead of the same number of generations
family() {
  for s in $SEEDS; do train "$1" maml "$s" || return 1; done
  for s in $SEEDS; do train "$1" mixture "$s" || return 1; done
  untrained "$1"
  local steps; steps=$(maml_steps "$1")
  for s in $SEEDS; do
    train "$1" matched "$s" mixture run.generations=0 run.max_env_steps="$steps" || return 1
  done
}

# OUT/FAMILY-KIND.dat: per inner step 0..3, the mean, min and max over the seeds of KIND's rows
series() {
  awk -F, -v f="$1" -v k="$2" '$1 == f && $2 == k {
      n++; for (s = 0; s < 4; s++) { v = $(4 + s); sum[s] += v; if (n == 1 || v < lo[s]) lo[s] = v; if (n == 1 || v > hi[s]) hi[s] = v } }
    END { for (s = 0; s < 4 && n; s++) printf "%d %g %g %g\n", s, sum[s] / n, lo[s], hi[s] }' "$CSV" > "$OUT/$1-$2.dat"
}

# OUT/meta.png: return after 0..3 inner steps, one panel per family
plot() {
  for f in pointnav halfcheetahdir; do for k in maml mixture matched untrained; do series $f $k; done; done
  gnuplot <<GP || echo "meta-results: gnuplot failed; the CSV is $CSV" >&2
set terminal pngcairo size 1100,420 font ",10"
set output "$OUT/meta.png"
set multiplot layout 1,2
set xlabel "inner-loop steps on the test task"
set ylabel "mean return over $TASKS test tasks"
set xtics 1
set key bottom right
set grid
set title "PointNav2D-v0 (pg inner loop)"
plot "$OUT/pointnav-maml.dat" u 1:2:3:4 w yerrorlines lw 2 t "GA-MAML (3 seeds: mean, min-max)", \
     "$OUT/pointnav-mixture.dat" u 1:2:3:4 w yerrorlines lw 2 t "GA on the task mixture + the same inner loop", \
     "$OUT/pointnav-matched.dat" u 1:2:3:4 w yerrorlines lw 2 t "the same, given GA-MAML's env steps", \
     "$OUT/pointnav-untrained.dat" u 1:2 w linespoints dt 2 t "untrained policy + the same inner loop"
set title "HalfCheetahDir-v5 (hill-climbing inner loop)"
plot "$OUT/halfcheetahdir-maml.dat" u 1:2:3:4 w yerrorlines lw 2 t "GA-MAML (3 seeds: mean, min-max)", \
     "$OUT/halfcheetahdir-mixture.dat" u 1:2:3:4 w yerrorlines lw 2 t "GA on the task mixture + the same inner loop", \
     "$OUT/halfcheetahdir-matched.dat" u 1:2:3:4 w yerrorlines lw 2 t "the same, given GA-MAML's env steps", \
     "$OUT/halfcheetahdir-untrained.dat" u 1:2 w linespoints dt 2 t "untrained policy + the same inner loop"
unset multiplot
GP
  # OUT/meta-training.png: the population's mean return before and after adaptation per generation
  # (metrics.csv's pre_adapt, post_adapt) of the GA-MAML runs, and the mixture runs' mean fitness
  local plots f k s title
  gnuplot <<GP || echo "meta-results: gnuplot failed (training curves)" >&2
set terminal pngcairo size 1100,420 font ",10"
set output "$OUT/meta-training.png"
set datafile separator ","
set multiplot layout 1,2
set xlabel "generation"
set ylabel "population's mean return"
set key bottom right
set grid
$(for f in pointnav halfcheetahdir; do
    [ "$f" = pointnav ] && title="PointNav2D-v0" || title="HalfCheetahDir-v5"
    plots=""
    for s in $SEEDS; do
      plots="$plots \"$OUT/$f-maml-s$s/metrics.csv\" u 1:10 every ::1 w l lc 1 $( [ "$s" = "${SEEDS%% *}" ] && echo 't "GA-MAML after adaptation"' || echo 'notitle'),"
      plots="$plots \"$OUT/$f-maml-s$s/metrics.csv\" u 1:9 every ::1 w l lc 1 dt 2 $( [ "$s" = "${SEEDS%% *}" ] && echo 't "GA-MAML before adaptation"' || echo 'notitle'),"
      plots="$plots \"$OUT/$f-mixture-s$s/metrics.csv\" u 1:6 every ::1 w l lc 2 $( [ "$s" = "${SEEDS%% *}" ] && echo 't "GA on the task mixture (no inner loop)"' || echo 'notitle'),"
    done
    echo "set title \"$title (3 seeds each)\""
    echo "plot ${plots%,}"
  done)
unset multiplot
GP
}

case $WHAT in
  pointnav | halfcheetahdir) family "$WHAT" ;;
  all) family pointnav && family halfcheetahdir ;;
  plot) ;;
  *) echo "usage: meta-results.sh NEUROEVO_BIN [pointnav|halfcheetahdir|all|plot]" >&2; exit 2 ;;
esac
plot
echo "results: $CSV, $OUT/meta.png"
