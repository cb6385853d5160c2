#!/usr/bin/env bash
# End to end through the CLI for the ES family (es, ars, pgpe, snes): each algorithm gives identical
# metrics (all but wall_s) and best.params with 1 and 2 threads, ES and ARS also with the shared
# noise table (es.noise / ars.noise_source = table); ES's 2-thread run, killed with SIGKILL and
# resumed, ends identical to the 1-thread run, with either noise source; best.params is written (no
# best.genome) and `neuroevo eval` reads it from the run directory and through --genome alike; a
# section of another algorithm, an odd mirrored population and bad noise keys are errors naming the
# section / key (exit 2).
# usage: e2e_es.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# Pendulum with observation normalization on, so the obs statistics path is part of the comparison
cat > es.ini <<'INI'
[run]
algorithm = es
seed = 7
generations = 120
target = none
plot_every = 0
[env]
id = Pendulum-v1
[policy]
hidden = 16
tanh = double
fma = false
[es]
population = 100
sigma = 0.1
lr = 0.1
l2coeff = 0
eval_episodes = 20
noise = generator
INI

cat > ars.ini <<'INI'
[run]
algorithm = ars
seed = 3
generations = 15
target = none
plot_every = 0
[env]
id = MountainCarContinuous-v0
episodes = 2
[policy]
hidden =
head = clip
[ars]
directions = 8
top = 4
step_size = 0.1
noise = 0.3
version = v2
noise_source = generator
INI

cat > pgpe.ini <<'INI'
[run]
algorithm = pgpe
seed = 5
generations = 15
target = none
plot_every = 0
[env]
id = CartPole-v1
[policy]
hidden = 8
[pgpe]
population = 40
obs_norm = true
INI

cat > snes.ini <<'INI'
[run]
algorithm = snes
seed = 9
generations = 15
target = none
plot_every = 0
[env]
id = Acrobot-v1
[policy]
hidden = 8
[snes]
obs_norm = true
INI

# the same with a shared noise table, tanh in float and fused multiply-adds (the defaults of new
# runs; [es] and [ars] are the last sections); ES with a smaller population (its kill test needs
# the 120 generations, not their size)
{ sed -e 's/^population = 100$/population = 40/' -e 's/^eval_episodes = 20$/eval_episodes = 10/' \
    -e '/^noise = generator$/d' -e '/^tanh = double$/d' -e '/^fma = false$/d' es.ini
  printf 'noise_table_mb = 2\n'; } > estable.ini
{ sed -e '/^noise_source = generator$/d' ars.ini; printf 'noise_table_mb = 1\n'; } > arstable.ini

# --- every algorithm: 1 thread == 2 threads --------------------------------------------------
# (ES's 2-thread run is the one killed and resumed below: one run checks both)
for algo in es ars pgpe snes estable arstable; do
  "$BIN" run $algo.ini --threads 1 --out ${algo}1 --quiet
  for f in config.ini metrics.csv best.params log.txt; do [ -s "${algo}1/$f" ] || fail "${algo}1/$f missing or empty"; done
  [ ! -e "${algo}1/best.genome" ] || fail "$algo wrote a best.genome (vector solutions go to best.params)"
  [ "$(head -1 ${algo}1/best.params)" = "# neuroevo params v1" ] || fail "$algo: best.params header"
  grep -q '^params = ' ${algo}1/best.params || fail "$algo: best.params lacks params"
  case $algo in es | estable) continue ;; esac
  "$BIN" run $algo.ini --threads 2 --out ${algo}2 --quiet
  diff <(strip_wall ${algo}1/metrics.csv) <(strip_wall ${algo}2/metrics.csv) || fail "$algo: metrics differ between 1 and 2 threads"
  cmp ${algo}1/best.params ${algo}2/best.params || fail "$algo: best.params differs between 1 and 2 threads"
done
grep -q '^obs_mean = ' es1/best.params || fail "es: best.params lacks the observation normalization"
[ "$(rows es1)" -eq 120 ] || fail "es: expected 120 metric rows"

# the table is in effect: other perturbations, another run
! diff -q <(strip_wall es1/metrics.csv) <(strip_wall estable1/metrics.csv) >/dev/null ||
  fail "es.noise = table gave the generator's metrics"
! diff -q <(strip_wall ars1/metrics.csv) <(strip_wall arstable1/metrics.csv) >/dev/null ||
  fail "ars.noise_source = table gave the generator's metrics"

# --- a resolved config written before es.noise, policy.tanh and policy.fma existed -----------------
# (what a run directory of an older build holds: its config.ini lacks those keys, so it must
# resume with the noise, tanh and rounding it started with, while new runs get the table, float
# and fused multiply-adds)
grep -q '^noise = table$' estable1/config.ini || fail "a new ES run's config.ini does not record noise = table"
grep -q '^tanh = float$' estable1/config.ini || fail "a new ES run's config.ini does not record tanh = float"
grep -q '^fma = true$' estable1/config.ini || fail "a new ES run's config.ini does not record fma = true"
sed -e '/^noise = /d' -e '/^noise_table_mb = /d' -e '/^tanh = /d' -e '/^fma = /d' es1/config.ini > old-config.ini
"$BIN" run old-config.ini --threads 2 --out old --quiet
grep -q '^noise = generator$' old/config.ini || fail "an old resolved config did not resolve to noise = generator"
grep -q '^tanh = double$' old/config.ini || fail "an old resolved config did not resolve to tanh = double"
grep -q '^fma = false$' old/config.ini || fail "an old resolved config did not resolve to fma = false"
diff <(strip_wall es1/metrics.csv) <(strip_wall old/metrics.csv) || fail "an old resolved config's run differs"
# an agent file of an older build: its header lacks policy.tanh and policy.fma, so it is evaluated
# in double with separate roundings
grep -q '^policy.tanh = double$' es1/best.params || fail "best.params does not record policy.tanh"
grep -q '^policy.fma = false$' es1/best.params || fail "best.params does not record policy.fma"
sed -e '/^policy.tanh = /d' -e '/^policy.fma = /d' es1/best.params > old.params
[ "$("$BIN" eval --genome old.params --episodes 3)" = "$("$BIN" eval --genome es1/best.params --episodes 3)" ] ||
  fail "an agent file without policy.tanh and policy.fma is not evaluated as it was trained"
{ sed -e '/^noise_source = /d' -e '/^noise_table_mb = /d' ars1/config.ini; } > old-ars.ini
"$BIN" run old-ars.ini --threads 2 --out oldars --quiet
diff <(strip_wall ars1/metrics.csv) <(strip_wall oldars/metrics.csv) || fail "an old resolved ARS config's run differs"

# --- ES: SIGKILL mid-run, then resume, on 2 threads (generator and table noise) ---------------
kill_resume() {  # NAME: runs NAME.ini into K-NAME, kills it after 4 generations, resumes, compares with NAME1
  local name=$1 total
  total=$(rows ${name}1)
  "$BIN" run $name.ini --threads 2 --out K-$name --quiet &
  pid=$!
  for _ in $(seq 1 2000); do
    r=$(($(wc -l 2>/dev/null < K-$name/metrics.csv || echo 1) - 1))
    [ "$r" -ge 4 ] && break
    sleep 0.01
  done
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  [ "$(rows K-$name)" -lt "$total" ] || fail "$name run finished before the kill: the test needs a longer run"
  "$BIN" resume K-$name --quiet
  diff <(strip_wall ${name}1/metrics.csv) <(strip_wall K-$name/metrics.csv) ||
    fail "$name: metrics of 2 threads, killed and resumed, differ from 1 thread's"
  cmp ${name}1/best.params K-$name/best.params || fail "$name: best.params of 2 threads, killed and resumed, differs"
}
kill_resume es
kill_resume estable

# --- eval reads best.params, from the run directory or as --genome ---------------------------
e1=$("$BIN" eval es1 --episodes 10 --seed 3)
e2=$("$BIN" eval --genome es1/best.params --episodes 10 --seed 3 --threads 1)
[ "$e1" = "$e2" ] || fail "eval differs: '$e1' vs '$e2'"
echo "$e1" | grep -q "Pendulum-v1: mean return .* over 10 episodes" || fail "eval output: $e1"

# --- bad input: clear errors, exit 2 -----------------------------------------------------------
set +e
printf '[run]\nalgorithm = es\n[env]\nid = Pendulum-v1\n[ars]\ndirections = 4\n' > mixed.ini
out=$("$BIN" run mixed.ini 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "\[ars\]" || fail "a section of another algorithm: rc=$rc out=$out"
out=$("$BIN" run es.ini es.population=101 --out odd 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "es.population" || fail "odd ES population: rc=$rc out=$out"
out=$("$BIN" run es.ini es.noise=tabel --out typo 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "\[es\] noise = .tabel.*did you mean .table." || fail "es.noise typo: rc=$rc out=$out"
out=$("$BIN" run es.ini es.noise=table es.noise_table_mb=1 policy.hidden=600,600 --out small 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "noise_table_mb = 1 holds 262144 floats" ||
  fail "a table smaller than the policy: rc=$rc out=$out"
printf '# neuroevo params v1\nenv.id = Pendulum-v1\nparams = 1 2 x\n' > bad.params
out=$("$BIN" eval --genome bad.params 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "bad.params:3" || fail "a malformed params file: rc=$rc out=$out"
set -e
echo "e2e_es: all checks passed"
