#!/usr/bin/env bash
# End to end through the CLI: `neuroevo compare` of two configs x 2 seeds writes summary.csv,
# summary.md and compare.png plus every run directory, and running the same command again keeps
# the finished runs; runs trained side by side equal the run alone; without --out the same command
# finds its directory again after an interrupt (--generations is each run's budget); CMA-ES and sep-CMA-ES runs are identical with 1 and 2 threads (all metrics but
# wall_s, and best.params) and after a resume; black-box metrics carry the `minimized` column;
# bad input exits 2.
# usage: e2e_compare.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# two small black-box configs: full CMA-ES and sep-CMA-ES on the 6-D ellipsoid
for algo in cmaes sepcmaes; do
  cat > "elli-$algo.ini" <<INI
[run]
algorithm = $algo
generations = 600
plot_every = 0
checkpoint_every = 50

[env]
id = bbob/ellipsoid
dim = 6

[$algo]
sigma0 = 0.5
x0_range = 1
INI
done

# a small network task for the thread-count checks
for algo in cmaes sepcmaes; do
  cat > "pend-$algo.ini" <<INI
[run]
algorithm = $algo
seed = 7
generations = 12
target = none
plot_every = 0

[env]
id = Pendulum-v1
episodes = 2

[policy]
hidden = 8

[$algo]
sigma0 = 0.3
popsize = 8
mean_episodes = 3
INI
done

# --- compare: 2 configs x 2 seeds ---------------------------------------------------------------
"$BIN" compare elli-cmaes.ini elli-sepcmaes.ini --seeds 2 --threads 2 --out CMP > compare.out
for f in summary.csv summary.md compare.png compare.gp; do [ -s "CMP/$f" ] || fail "CMP/$f missing or empty"; done
[ "$(head -c 4 CMP/compare.png | od -An -c | tr -d ' ')" = "211PNG" ] || fail "compare.png is not a PNG"
[ "$(head -1 CMP/summary.csv)" = "config,seed,final_score,best_score,steps_to_threshold,wall_s,status" ] || fail "summary.csv header"
[ "$(($(wc -l < CMP/summary.csv) - 1))" -eq 4 ] || fail "summary.csv: expected 4 runs"
for c in elli-cmaes elli-sepcmaes; do
  for s in 0 1; do
    [ -s "CMP/$c/seed$s/metrics.csv" ] || fail "run directory CMP/$c/seed$s"
    grep -q "^seed = $s" "CMP/$c/seed$s/config.ini" || fail "CMP/$c/seed$s does not use run.seed = $s"
    grep -q "^$c,$s," CMP/summary.csv || fail "summary.csv lacks $c seed $s"
  done
  grep -q "^## $c" CMP/summary.md || fail "summary.md lacks a section for $c"
done
# 2 seeds are too few for a bootstrap CI: the interval is the seeds' range, and says so
grep -q "range of the final (2 seeds: too few for a CI)" CMP/summary.md || fail "summary.md lacks the seeds' range"
grep -q "| 95% CI of the mean final |" CMP/summary.md && fail "summary.md calls the range of 2 seeds a 95% CI"
grep -q "median final" CMP/summary.md || fail "summary.md lacks the median"
# every run reaches f <= 1e-8 (run.target = auto) on the 6-D ellipsoid: a finite count, not inf
awk -F, 'NR > 1 && $5 == "inf" { bad = 1 } END { exit bad }' CMP/summary.csv || fail "a run never reached f <= 1e-8"
# black-box metrics: f values and the minimized column
[ "$(head -1 CMP/elli-cmaes/seed0/metrics.csv)" = "generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean,minimized" ] \
  || fail "black-box metrics header"
awk -F, 'NR > 1 && ($5 < 0 || $9 != 1) { bad = 1 } END { exit bad }' CMP/elli-cmaes/seed0/metrics.csv || fail "f must be >= 0, minimized = 1"
grep -q "^\[[1-4]/4\] elli-cmaes seed 0: final" compare.out || fail "no progress line"

# the same command again continues: finished runs stay, the summary is the same (but wall_s)
cp CMP/summary.csv first.csv
cp CMP/elli-cmaes/seed0/metrics.csv first-metrics.csv
"$BIN" compare elli-cmaes.ini elli-sepcmaes.ini --seeds 2 --threads 1 --out CMP --quiet
diff <(cut -d, -f1-5 first.csv) <(cut -d, -f1-5 CMP/summary.csv) || fail "re-running the compare changed the summary"
cmp first-metrics.csv CMP/elli-cmaes/seed0/metrics.csv || fail "a finished run was changed"

# runs train two at a time here (--threads 2, one thread each): each is the run alone
"$BIN" run elli-cmaes.ini run.seed=1 --threads 1 --out ALONE --quiet
diff <(strip_wall ALONE/metrics.csv) <(strip_wall CMP/elli-cmaes/seed1/metrics.csv) || fail "a compare run differs from the run alone"
cmp ALONE/best.params CMP/elli-cmaes/seed1/best.params || fail "a compare run's best.params differs from the run alone"

# --- without --out: the same command finds its directory again -----------------------------------
# --generations is each run's budget; an interrupted compare says where it continues, and the same
# command then finishes it with the summary of an uninterrupted one
mkdir -p D && cd D
"$BIN" compare ../pend-cmaes.ini ../pend-sepcmaes.ini --seeds 2 --generations 40 --threads 2 > c1.out 2> c1.err &
pid=$!
for _ in $(seq 1 2000); do
  ls runs/compare-*/pend-*/seed*/metrics.csv > /dev/null 2>&1 && break
  kill -0 $pid 2> /dev/null || break
  sleep 0.01
done
sleep 0.2
kill -INT $pid 2> /dev/null || true
set +e; wait $pid; rc=$?; set -e
dir=$(sed -n 's/^compare directory: //p' c1.out)
[ -n "$dir" ] && [ -d "$dir" ] || fail "no compare directory printed: $(cat c1.out)"
case "$dir" in runs/compare-pend-cmaes-pend-sepcmaes-*) ;; *) fail "default directory name: $dir" ;; esac
if [ $rc -eq 130 ]; then
  grep -q "interrupted: the same command continues in $dir" c1.err || fail "interruption message: $(cat c1.err)"
else
  [ $rc -eq 0 ] || fail "interrupted compare: rc=$rc $(cat c1.err)"  # it finished before the signal
fi
"$BIN" compare ../pend-cmaes.ini ../pend-sepcmaes.ini --seeds 2 --generations 40 --threads 2 > c2.out
grep -qx "compare directory: $dir (continuing)" c2.out || fail "the same command did not continue: $(head -1 c2.out)"
[ "$(ls -d runs/compare-* | wc -l)" -eq 1 ] || fail "the same command made a second directory: $(ls runs)"
"$BIN" compare ../pend-cmaes.ini ../pend-sepcmaes.ini --seeds 2 --generations 40 --threads 1 --out ../U --quiet
diff <(cut -d, -f1-5 ../U/summary.csv) <(cut -d, -f1-5 "$dir/summary.csv") ||
  fail "interrupted + continued compare differs from an uninterrupted one"
for c in pend-cmaes pend-sepcmaes; do
  [ "$(($(wc -l < "$dir/$c/seed1/metrics.csv") - 1))" -eq 40 ] || fail "--generations 40 not each run's budget"
done
# another seed count is the same comparison, continued: the finished runs stay
cp "$dir/pend-cmaes/seed0/metrics.csv" m0.csv
"$BIN" compare ../pend-cmaes.ini ../pend-sepcmaes.ini --seeds 3 --generations 40 --threads 2 --quiet
cmp m0.csv "$dir/pend-cmaes/seed0/metrics.csv" || fail "--seeds 3 retrained a finished run"
[ -s "$dir/pend-cmaes/seed2/metrics.csv" ] || fail "--seeds 3 did not add seed 2"
cd ..

# --- 1 thread == 2 threads, uninterrupted == resumed ----------------------------------------------
for algo in cmaes sepcmaes; do
  "$BIN" run "pend-$algo.ini" --threads 1 --out "T1-$algo" --quiet
  "$BIN" run "pend-$algo.ini" --threads 2 --out "T2-$algo" --quiet
  diff <(strip_wall "T1-$algo/metrics.csv") <(strip_wall "T2-$algo/metrics.csv") || fail "$algo: metrics differ between 1 and 2 threads"
  [ -s "T1-$algo/best.params" ] || fail "$algo: no best.params"
  cmp "T1-$algo/best.params" "T2-$algo/best.params" || fail "$algo: best.params differs between 1 and 2 threads"
  # 5 generations, then resume to 12: identical to the uninterrupted run
  "$BIN" run "pend-$algo.ini" --threads 2 --out "R-$algo" --generations 5 --quiet
  "$BIN" resume "R-$algo" --generations 12 --quiet
  diff <(strip_wall "T1-$algo/metrics.csv") <(strip_wall "R-$algo/metrics.csv") || fail "$algo: metrics differ after resume"
  cmp "T1-$algo/best.params" "R-$algo/best.params" || fail "$algo: best.params differs after resume"
done

# --- bad input: clear errors, exit 2 ---------------------------------------------------------------
set +e
out=$("$BIN" compare 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "usage" || fail "compare without configs: rc=$rc"
out=$("$BIN" compare elli-cmaes.ini --seeds 0 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "seeds" || fail "--seeds 0: rc=$rc out=$out"
out=$("$BIN" compare elli-cmaes.ini cmaes.sigma=1 --out BAD 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "sigma" || fail "misspelled override: rc=$rc out=$out"
out=$("$BIN" compare no-such-config 2>&1); rc=$?
[ $rc -eq 2 ] || fail "unknown config: rc=$rc"
out=$("$BIN" run elli-cmaes.ini env.dim=1 env.id=bbob/rosenbrock --out BAD2 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "dim >= 2" || fail "rosenbrock dim 1: rc=$rc out=$out"
set -e
"$BIN" compare --help | grep -q "summary.md" || fail "compare --help"
echo "e2e_compare: all checks passed"
