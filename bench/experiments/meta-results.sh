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
#
# `ant`: MAML's two ant tasks (AntVel-v5, AntDir-v5), one seed per arm: GA-MAML (each candidate on
# its own tasks, and with ga.shared_episodes), the GA on the task mixture and ES-MAML
# (configs/{antvel,antdir}-{ga-maml,ga-maml-shared,ga-mixture,es-maml}.ini), each trained or
# resumed through results.sh (so a run continues from the checkpoint committed in
# docs/results/EXP/, and its CPU time is docs/results/EXP/cost.csv), then adapted to MAML's 40 test
# tasks (ANT_TASKS) as above; rows go to OUT/ant.csv, OUT/meta-ant.png plots them,
# OUT/meta-ant-training.png the training curves, and docs/results/FAMILY-ARM/adapted.gif shows the
# ANT_GIF arm's agent adapted to two tasks side by side. Hours of wall time a run on a loaded machine.
# Usage: bench/experiments/meta-results.sh NEUROEVO_BIN [pointnav|halfcheetahdir|all|ant|plot]  (plot: only redraw)
# Environment: SEEDS (0 1 2), THREADS (1), TASKS (100), ANT_TASKS (40), OUT (a fresh temporary
# folder), ANT_TRAIN (1; 0: adapt the committed agents without training), ANT_ARMS (the arms),
# ANT_GIF (the arm whose agent adapted.gif shows: ga-maml-shared; none: no GIF).
set -u
BIN=${1:?usage: meta-results.sh NEUROEVO_BIN [pointnav|halfcheetahdir|all|ant|plot]}
WHAT=${2:-all}
SEEDS=${SEEDS:-0 1 2}
THREADS=${THREADS:-1}
TASKS=${TASKS:-100}
OUT=${OUT:-$(mktemp -d /tmp/neuroevo-meta-results.XXXXXX)}
CONFIGS="$(cd "$(dirname "$0")/../../configs" && pwd)"
HERE="$(cd "$(dirname "$0")" && pwd)"
DOCS="$(cd "$HERE/../../docs" && pwd)"
ANT_TASKS=${ANT_TASKS:-40}
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

# untrained FAMILY [GENOME CSV TASKS]: the meta config's policy at init (seed chain "1"), adapted
# the same way; its env, policy and meta keys from GENOME (FAMILY's GA-MAML seed 0 by default)
untrained() {
  local family=$1 from=${2:-$OUT/$1-maml-s0/best.genome} csv=${3:-$CSV} tasks=${4:-$TASKS}
  local g="$OUT/$1-untrained.genome" row
  grep -q "^$family,untrained," "$csv" && return 0
  { grep -E '^(env|policy|meta)\.' "$from"; echo "sigma = 0.03"; echo "seeds = 1"; } > "$g"
  row=$(nice -n 10 "$BIN" eval --genome "$g" --adapt 3 --tasks "$tasks" --seed 1000 --threads "$THREADS" | means)
  echo "$family,untrained,-,$row,0,0,0" | tee -a "$csv"
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

# ---- MAML's ant tasks -------------------------------------------------------------------------------

ANT_CSV="$OUT/ant.csv"
ANT_ARMS=${ANT_ARMS:-ga-maml ga-maml-shared ga-mixture es-maml}
ANT_GIF=${ANT_GIF:-ga-maml-shared}

# ant_arm FAMILY ARM: trains or resumes FAMILY-ARM through results.sh (unless ANT_TRAIN=0), adapts
# its committed agent to the ANT_TASKS test tasks and appends a row (CPU: its cost.csv)
ant_arm() {
  local exp=$1-$2 agent row cpu gens
  grep -q "^$1,$2,0," "$ANT_CSV" && return 0
  if [ "${ANT_TRAIN:-1}" = 1 ]; then
    NEUROEVO=$BIN THREADS=$THREADS NICE=10 "$HERE/results.sh" "$exp" || return 1
  fi
  agent=$(ls "$DOCS/results/$exp.genome" "$DOCS/results/$exp.params" 2>/dev/null | head -n 1)
  # without training, an arm that has no agent yet is left out of the table rather than ending it
  if [ -z "$agent" ]; then
    echo "meta-results: no agent docs/results/$exp.{genome,params}" >&2
    [ "${ANT_TRAIN:-1}" = 0 ] && return 0 || return 1
  fi
  row=$(nice -n 10 "$BIN" eval --genome "$agent" --adapt 3 --tasks "$ANT_TASKS" --seed 1000 --threads "$THREADS" | means)
  cpu=$(cat "$DOCS/results/$exp"/cost*.csv 2>/dev/null | awk -F, '$1 != "date" { s += $6 } END { print s + 0 }')
  gens=$(($(wc -l < "$DOCS/results/$exp/metrics.csv") - 1))
  echo "$1,$2,0,$row,$cpu,-,$gens" | tee -a "$ANT_CSV"
}

# ant_gif FAMILY NAME TASK_A TASK_B: the ANT_GIF arm's agent adapted to each task (1 step, as in
# training), side by side and labelled "NAME TASK", into docs/results/FAMILY-ARM/adapted.gif
ant_gif() {
  [ "$ANT_GIF" = none ] && return 0
  local exp=$1-$ANT_GIF a="$OUT/$1-task-a.gif" b="$OUT/$1-task-b.gif" label
  local agent
  agent=$(ls "$DOCS/results/$exp.genome" "$DOCS/results/$exp.params" 2>/dev/null | head -n 1)
  local render=(render --genome "$agent" --adapt 1 --size 240x180 --max-frames 100 --fps 10)
  nice -n 10 "$BIN" "${render[@]}" --task "$3" --out "$a" 2>&1 | tail -n 2 &&
    nice -n 10 "$BIN" "${render[@]}" --task "$4" --out "$b" 2>&1 | tail -n 2 || return 1
  label="x=6:y=6:fontsize=14:fontcolor=black:box=1:boxcolor=white@0.6"
  nice -n 10 ffmpeg -loglevel error -y -i "$a" -i "$b" -filter_complex \
    "[0]drawtext=text='$2 $3':$label[a];[1]drawtext=text='$2 $4':$label[b];[a][b]hstack,split[x][y];[x]palettegen[p];[y][p]paletteuse" \
    "$DOCS/results/$exp/adapted.gif" || echo "meta-results: ffmpeg failed; the two GIFs are $a and $b" >&2
}

ant() {
  [ -f "$ANT_CSV" ] || echo "family,kind,seed,before,step1,step2,step3,cpu_s,wall_s,generations" > "$ANT_CSV"
  for f in antvel antdir; do
    for arm in $ANT_ARMS; do ant_arm "$f" "$arm" || return 1; done
    untrained "$f" "$DOCS/results/$f-ga-maml.genome" "$ANT_CSV" "$ANT_TASKS"
  done
  ant_gif antdir direction -1 1
  ant_gif antvel goal_velocity 0.5 2.5
}

# ant_title ARM: the arm's name in the plots' keys
ant_title() {
  case $1 in
    ga-maml) echo "GA-MAML" ;;
    ga-maml-shared) echo "GA-MAML, shared episodes" ;;
    es-maml) echo "ES-MAML" ;;
    ga-mixture) echo "GA on the task mixture" ;;
    *) echo "$1" ;;
  esac
}

# OUT/meta-ant.png: return after 0..3 inner steps per arm of ANT_ARMS (those with a row in
# ant.csv); OUT/meta-ant-training.png: each arm's training curve from its committed metrics.csv
# (the meta arms' population mean after adaptation, the mixture run's population mean)
ant_plot() {
  local f k plots col
  for f in antvel antdir; do for k in $ANT_ARMS untrained; do
    awk -F, -v f="$f" -v k="$k" '$1 == f && $2 == k { for (s = 0; s < 4; s++) print s, $(4 + s) }' "$ANT_CSV" \
      > "$OUT/$f-$k.dat"
  done; done
  gnuplot <<GP || echo "meta-results: gnuplot failed; the CSV is $ANT_CSV" >&2
set terminal pngcairo size 1100,420 font ",10"
set output "$OUT/meta-ant.png"
set multiplot layout 1,2
set xlabel "inner-loop steps on the test task"
set ylabel "mean return over $ANT_TASKS test tasks"
set xtics 1
set key bottom right
set grid
$(for f in antvel antdir; do
    [ "$f" = antvel ] && echo 'set title "AntVel-v5 (goal velocity; hill-climbing inner loop)"' ||
      echo 'set title "AntDir-v5 (forward/backward; hill-climbing inner loop)"'
    plots=""
    for k in $ANT_ARMS; do
      [ -s "$OUT/$f-$k.dat" ] && plots="$plots \"$OUT/$f-$k.dat\" w lp lw 2 t \"$(ant_title "$k") + the inner loop\","
    done
    [ -s "$OUT/$f-untrained.dat" ] &&
      plots="$plots \"$OUT/$f-untrained.dat\" w lp dt 2 t \"untrained policy + the same inner loop\","
    echo "plot ${plots%,}"
  done)
unset multiplot
GP
  gnuplot <<GP || echo "meta-results: gnuplot failed (training curves)" >&2
set terminal pngcairo size 1100,420 font ",10"
set output "$OUT/meta-ant-training.png"
set datafile separator ","
set multiplot layout 1,2
set xlabel "generation"
set ylabel "population's mean return"
set key bottom right
set grid
$(for f in antvel antdir; do
    [ "$f" = antvel ] && echo 'set title "AntVel-v5"' || echo 'set title "AntDir-v5"'
    plots=""
    for k in $ANT_ARMS; do
      m="$DOCS/results/$f-$k/metrics.csv"
      [ -f "$m" ] || continue
      # the mixture run's mean fitness, the meta arms' mean return after adaptation
      [ "$k" = ga-mixture ] && col=mean || col=post_adapt
      plots="$plots \"$m\" u \"generation\":\"$col\" w l t \"$(ant_title "$k")\","
    done
    echo "plot ${plots%,}"
  done)
unset multiplot
GP
}

case $WHAT in
  pointnav | halfcheetahdir) family "$WHAT" ;;
  all) family pointnav && family halfcheetahdir ;;
  ant) ant; ant_plot; echo "results: $ANT_CSV, $OUT/meta-ant.png"; exit 0 ;;
  plot) ;;
  *) echo "usage: meta-results.sh NEUROEVO_BIN [pointnav|halfcheetahdir|all|ant|plot]" >&2; exit 2 ;;
esac
plot
echo "results: $CSV, $OUT/meta.png"
