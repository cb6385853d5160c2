#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end test of `neuroevo plot`: fake run directories (config.ini + metrics.csv, NaN elites
# included) are plotted alone and together; the PNGs are checked by signature and size, and every
# error path (missing dir, missing/empty metrics, bad --x, no gnuplot) must fail with a clear message.
# usage: bash tests/e2e_plot.sh PATH/TO/neuroevo SCRATCH_DIR
set -euo pipefail

BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# make_run DIR ENV_ID GENERATIONS: a plausible rising curve, elite re-evaluated every 3rd generation
make_run() {
  mkdir -p "$1"
  printf '[run]\nalgorithm = ga\n\n[env]\n# env id\nid = %s\n' "$2" > "$1/config.ini"
  awk -v n="$3" 'BEGIN {
    print "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean"
    for (g = 1; g <= n; g++) {
      best = 500 * (1 - exp(-g / 15)); mean = best * 0.6; elite = (g % 3 == 0) ? sprintf("%.3f", best * 0.9) : "nan"
      printf "%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%s\n", g, g * 1000, g * 187000, g * 1.5, best, mean, mean, elite
    }
  }' > "$1/metrics.csv"
}

# check_png FILE: PNG signature and a size that a 1000x600 chart with lines plausibly has
check_png() {
  [ -f "$1" ] || fail "$1 was not written"
  sig=$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')
  [ "$sig" = "89504e470d0a1a0a" ] || fail "$1 is not a PNG (signature $sig)"
  size=$(stat -c %s "$1")
  [ "$size" -gt 10000 ] && [ "$size" -lt 2000000 ] || fail "$1 has an implausible size ($size bytes)"
}

# expect_fail CODE PATTERN CMD...: CMD exits with CODE and its stderr contains PATTERN
expect_fail() {
  local code=$1 pattern=$2
  shift 2
  set +e
  "$@" > out.txt 2> err.txt
  local rc=$?
  set -e
  [ "$rc" -eq "$code" ] || fail "'$*' exited $rc, expected $code; stderr: $(cat err.txt)"
  grep -qF -- "$pattern" err.txt || fail "'$*' stderr lacks '$pattern': $(cat err.txt)"
}

make_run run-a CartPole-v1 60
make_run run-b CartPole-v1 40

# --help
"$BIN" plot --help > help.txt
grep -q "usage: neuroevo plot RUN_DIR" help.txt || fail "plot --help lacks the usage line"

# one run: default output inside the run, path printed
out=$("$BIN" plot run-a)
[ "$out" = "run-a/curve.png" ] || fail "one run printed '$out', expected run-a/curve.png"
check_png run-a/curve.png

# two runs: default ./curves.png; --out and --x choose the file and axis
out=$("$BIN" plot run-a run-b)
[ "$out" = "curves.png" ] || fail "two runs printed '$out', expected curves.png"
check_png curves.png
"$BIN" plot run-a run-b --out cmp.png --x evaluations > /dev/null
check_png cmp.png
"$BIN" plot run-b --out=wall.png --x=wall_s > /dev/null
check_png wall.png

# a run still training: torn last line, no config.ini
make_run live Acrobot-v1 10
printf '11,11000,2057' >> live/metrics.csv
rm live/config.ini
"$BIN" plot live > /dev/null
check_png live/curve.png

# a single generation is a point, not an empty chart
make_run first MountainCar-v0 1
"$BIN" plot first --x evaluations > /dev/null
check_png first/curve.png

# a black-box run (metrics with the `minimized` column) gets a log f axis, an RL run a return axis;
# a gnuplot wrapper on PATH keeps the script each plot hands over
REAL_GNUPLOT=$(command -v gnuplot)
mkdir -p wrap
printf '#!/bin/sh\ncp "$1" "%s/last.gp"\nexec "%s" "$@"\n' "$PWD" "$REAL_GNUPLOT" > wrap/gnuplot
chmod +x wrap/gnuplot
mkdir -p bbob
printf '[run]\nalgorithm = cmaes\n\n[env]\nid = bbob/sphere\n' > bbob/config.ini
awk 'BEGIN {
  print "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean,minimized"
  for (g = 0; g < 50; g++) { f = 100 * exp(-g / 3); printf "%d,%d,%d,0.000,%.6g,%.6g,%.6g,%.6g,1\n", g, 10 * g + 10, 10 * g + 10, f, 2 * f, 2 * f, f }
}' > bbob/metrics.csv
PATH=$PWD/wrap:$PATH "$BIN" plot bbob > /dev/null
check_png bbob/curve.png
grep -q 'set logscale y' last.gp || fail "a minimized run's plot has no log y axis"
grep -q 'f (minimized, log scale)' last.gp || fail "a minimized run's y axis is not labelled as f"
grep -q 'set xlabel "evaluations"' last.gp || fail "a minimized run's x axis is not labelled evaluations"
PATH=$PWD/wrap:$PATH "$BIN" plot run-a > /dev/null
grep -q 'set logscale' last.gp && fail "an RL run's plot got a log axis"
grep -q 'set ylabel "return"' last.gp || fail "an RL run's y axis is not labelled return"

# a single generation's x axis is a range around its one point, not a zero-width axis (ticks all
# "1.2M")
PATH=$PWD/wrap:$PATH "$BIN" plot first > /dev/null
x=$(awk -F, 'NR == 2 { print $3 }' first/metrics.csv)
grep -q "set xrange \[0:$((2 * x))\]" last.gp || fail "a one-generation plot's x range is not [0, 2 x $x]"
grep -q 'autoscale xfix' last.gp && fail "a one-generation plot still autoscales x to zero width"

# errors name the path involved
expect_fail 2 "no-such-run" "$BIN" plot run-a no-such-run
mkdir -p empty-dir
expect_fail 2 "empty-dir/metrics.csv" "$BIN" plot empty-dir
mkdir -p header-only
echo "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean" > header-only/metrics.csv
expect_fail 2 "no generations recorded yet" "$BIN" plot header-only
mkdir -p bad-header
printf 'a,b,c\n1,2,3\n' > bad-header/metrics.csv
expect_fail 2 "no 'env_steps' column" "$BIN" plot bad-header
expect_fail 2 "expected env_steps, evaluations or wall_s" "$BIN" plot run-a --x generation
expect_fail 2 "no run directory given" "$BIN" plot
expect_fail 2 "unknown option" "$BIN" plot run-a --bogus
expect_fail 2 "--out needs a value" "$BIN" plot run-a --out
expect_fail 1 "install gnuplot-nox" env PATH=/nonexistent "$BIN" plot run-a --out nognuplot.png
[ ! -e nognuplot.png ] || fail "a failed plot left nognuplot.png behind"
expect_fail 1 "cannot write" "$BIN" plot run-a --out no-such-dir/x.png
ls no-such-dir 2> /dev/null && fail "a failed plot created no-such-dir"
ls ./*.tmp.* 2> /dev/null && fail "temp files left behind"

# a training run redraws curve.png every plot_every generations, but not more often than every
# plot_seconds: a gnuplot on PATH that counts its calls tells how often it ran
mkdir -p counting-bin
real_gnuplot=$(command -v gnuplot)
printf '#!/bin/sh\necho x >> "%s/gnuplot-calls"\nexec "%s" "$@"\n' "$PWD" "$real_gnuplot" > counting-bin/gnuplot
chmod +x counting-bin/gnuplot
calls_of() {  # calls_of PLOT_SECONDS: gnuplot calls of a 12-generation run that plots every generation
  rm -f gnuplot-calls
  PATH="$PWD/counting-bin:$PATH" "$BIN" run cartpole-ga run.generations=12 run.target=none run.plot_every=1 \
    run.plot_seconds="$1" --threads 1 --out "train-$1" --quiet > /dev/null
  wc -l < gnuplot-calls
}
# one redraw after each generation but the last, whose redraw is the final one
[ "$(calls_of 0)" -eq 12 ] || fail "plot_seconds = 0: expected 12 redraws (one per generation)"
[ "$(calls_of 1e6)" -eq 2 ] || fail "plot_seconds = 1e6: expected 2 redraws (the first generation + the end)"
echo "ok: curve.png redrawn every plot_every generations, at most once every plot_seconds"

# a run where gnuplot is missing (a slim container) trains, warns once and names no curve.png at the end
mkdir -p nognuplot-bin
ln -sf "$BIN" nognuplot-bin/neuroevo
out=$(env PATH="$PWD/nognuplot-bin" neuroevo run cartpole-ga run.generations=12 run.target=none --threads 1 \
  --out train-nognuplot 2>&1) || fail "a run without gnuplot failed: $out"
[ "$(grep -c "warning: no curve.png" <<<"$out")" -eq 1 ] || fail "expected one warning without gnuplot: $out"
grep -q "^curve: *none" <<<"$out" || fail "the summary should say there is no curve: $out"
[ ! -e train-nognuplot/curve.png ] || fail "curve.png exists although gnuplot is missing"
out=$("$BIN" run cartpole-ga run.generations=2 --threads 1 --out train-with 2>&1)
grep -q "^curve: *train-with/curve.png" <<<"$out" || fail "a run with gnuplot should name its curve.png: $out"
echo "ok: a run without gnuplot says it has no curve"

# run.plot_every = -1: never drawn (sweeps, benchmarks), and the summary says how to draw it
out=$("$BIN" run cartpole-ga run.generations=12 run.plot_every=-1 --threads 1 --out train-off 2>&1) ||
  fail "a run with plot_every = -1 failed: $out"
[ ! -e train-off/curve.png ] || fail "curve.png drawn although run.plot_every = -1"
grep -q "^curve: *off (run.plot_every = -1; .neuroevo plot train-off. draws it)" <<<"$out" ||
  fail "the summary should say the curve is off: $out"
! grep -q "warning" <<<"$out" || fail "plot_every = -1 warned: $out"
echo "ok: run.plot_every = -1 draws no curve"

echo "e2e_plot: all checks passed"
