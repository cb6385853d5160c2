#!/usr/bin/env bash
# End to end through the CLI for meta-learning (GA-MAML, ES-MAML; [meta], task families): a GA-MAML
# run on PointNav2D-v0 (pg inner loop) gives identical metrics (all but wall_s, with the pre_adapt
# and post_adapt columns) and best.genome with 1 and 2 threads, after SIGKILL + resume, and through
# 2 Redis workers (also with --episodes-per-task 1: never split); an ES-MAML run (es outer and inner loop, observation normalization on) and a
# hill-climbing run are identical on 1 and 2 threads; a short GA-MAML run on HalfCheetahDir-v5 runs
# the MuJoCo path; `neuroevo eval --adapt` prints every task's stages, the same on any thread count;
# `neuroevo render --task --adapt` records the adapted agent; `neuroevo envs tasks` lists the
# families; [meta] that cannot run is an error naming the key (exit 2).
# usage: e2e_meta.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/redis_e2e_common.sh"  # scratch dir, fail, strip_wall, rows, same_as, private Redis clean-up

# GA-MAML on MAML's 2-D navigation: 30 generations of 16 + 2 candidates, 2 tasks each
cat > nav.ini <<'INI'
[run]
algorithm = ga
seed = 11
generations = 30
target = none
plot_every = 0
[env]
id = PointNav2D-v0
[policy]
hidden = 8
head = gaussian
[meta]
tasks = 2
update = pg
inner_steps = 1
inner_episodes = 4
[ga]
population = 16
truncation = 4
sigma = 0.05
elite_candidates = 2
elite_episodes = 1
INI

# --- 1 thread == 2 threads; the metrics carry the returns before and after adaptation ----------
"$BIN" run nav.ini --threads 1 --out N1 --quiet
"$BIN" run nav.ini --threads 2 --out N2 --quiet
same_as N1 N2 "GA-MAML (pg) on 2 threads"
head -1 N1/metrics.csv | grep -q ",elite_mean,pre_adapt,post_adapt$" || fail "metrics header: $(head -1 N1/metrics.csv)"
[ "$(rows N1)" -eq 30 ] || fail "expected 30 metric rows"
# post_adapt is the population's mean fitness (the mean column); pre_adapt another figure
awk -F, 'NR > 1 && ($10 != $6 || $9 == $10) { bad = 1 } END { exit bad }' N1/metrics.csv ||
  fail "post_adapt must equal mean and differ from pre_adapt: $(sed -n 2p N1/metrics.csv)"
grep -q "^meta.update = pg$" N1/best.genome || fail "best.genome lacks the [meta] keys"
grep -q "adapt -" N1/log.txt || fail "the progress line lacks the adaptation figures"

# --- novelty search cannot use a meta-evaluation's results (no behaviours): a clear error ------
for algo in "run.algorithm=ns-es" "ga.novelty=true"; do
  if "$BIN" run nav.ini $algo --generations 1 --out NS --quiet 2>ns.err; then fail "$algo with meta.tasks = 2 ran"; fi
  grep -q "measures no behaviour characterizations for novelty search" ns.err || fail "$algo: $(cat ns.err)"
done

# --- SIGKILL mid-run, resume: identical ---------------------------------------------------------
"$BIN" run nav.ini --threads 2 --out K --quiet &
pid=$!
PIDS+=($pid)
for _ in $(seq 1 3000); do [ "$(rows K)" -ge 4 ] && break; sleep 0.01; done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
killed_at=$(rows K)
[ "$killed_at" -lt 30 ] || fail "the run finished before the kill: the test needs a longer run"
"$BIN" resume K --quiet
same_as N1 K "GA-MAML killed after $killed_at generations and resumed"

# --- 2 Redis workers ------------------------------------------------------------------------------
if { "$BIN" status --redis redis://127.0.0.1:1 2>&1 || true; } | grep -q "no Redis support"; then
  fail "$BIN was built without hiredis: install libhiredis-dev (scripts/install-deps) and rebuild"
fi
port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
URL=redis://127.0.0.1:$port
WORKERS=()
for k in 1 2; do
  "$BIN" worker --redis "$URL" --threads 1 --name w$k --heartbeat 0.25 >>w$k.log 2>&1 &
  PIDS+=($!)
  WORKERS+=($!)
done
"$BIN" run nav.ini --redis "$URL" --out R --quiet 2>master.log || fail "GA-MAML through Redis: $(tail -3 master.log)"
same_as N1 R "GA-MAML through 2 Redis workers"
# --episodes-per-task 1 would split a candidate's episodes over workers; a meta-learning candidate's
# episodes are tasks with their own inner loops: the master sends it whole (3 elite episodes here)
"$BIN" run nav.ini run.generations=8 ga.elite_episodes=3 --threads 1 --out S1 --quiet
"$BIN" run nav.ini run.generations=8 ga.elite_episodes=3 --redis "$URL" --episodes-per-task 1 --out RS --quiet \
  2>master-split.log || fail "GA-MAML through Redis with --episodes-per-task 1: $(tail -3 master-split.log)"
same_as S1 RS "GA-MAML through 2 Redis workers with --episodes-per-task 1 (not split)"
# SIGINT: the workers leave cleanly (SIGKILL at exit would be reported by bash)
for p in "${WORKERS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
for p in "${WORKERS[@]}"; do wait "$p" 2>/dev/null || true; done

# --- ES-MAML (es outer loop, es inner loop, observation normalization) and hill climbing ---------
cat > es.ini <<'INI'
[run]
algorithm = es
seed = 5
generations = 6
target = none
plot_every = 0
[env]
id = PointNav2D-v0
[policy]
hidden = 8
[meta]
tasks = 2
update = es
inner_steps = 2
inner_episodes = 4
inner_lr = 0.005
[es]
population = 10
sigma = 0.05
eval_episodes = 2
INI
{ sed -e 's/^update = es$/update = hill/' -e 's/^algorithm = es$/algorithm = ga/' -e '/^\[es\]$/,$d' es.ini
  printf '[ga]\npopulation = 12\ntruncation = 3\nelite_candidates = 2\nelite_episodes = 1\n'; } > hill.ini
for c in es hill; do
  "$BIN" run $c.ini --threads 1 --out ${c}1 --quiet
  "$BIN" run $c.ini --threads 2 --out ${c}2 --quiet
  diff <(strip_wall ${c}1/metrics.csv) <(strip_wall ${c}2/metrics.csv) || fail "$c: metrics differ between 1 and 2 threads"
  head -1 ${c}1/metrics.csv | grep -q ",pre_adapt,post_adapt$" || fail "$c: metrics header"
done
cmp es1/best.params es2/best.params || fail "ES-MAML: best.params differs between 1 and 2 threads"
grep -q '^obs_mean = ' es1/best.params || fail "ES-MAML: best.params lacks the observation normalization"
cmp hill1/best.genome hill2/best.genome || fail "hill: best.genome differs between 1 and 2 threads"
echo "ok: ES-MAML and hill climbing identical on 1 and 2 threads"

# --- HalfCheetahDir (MuJoCo): two short generations -------------------------------------------------
"$BIN" run nav.ini env.id=HalfCheetahDir-v5 run.generations=2 ga.population=4 ga.truncation=2 \
  meta.inner_episodes=2 policy.hidden=4 --threads 2 --out C --quiet
[ "$(rows C)" -eq 2 ] || fail "HalfCheetahDir: expected 2 metric rows"
# 4 + 2 candidates x 2 tasks x (2 measurements + 2 rollouts) x 200 steps a generation
[ "$(sed -n 2p C/metrics.csv | cut -d, -f3)" -eq $((6 * 2 * 4 * 200)) ] || fail "HalfCheetahDir: steps $(sed -n 2p C/metrics.csv)"

# --- eval --adapt: every task's stages, thread-independent ------------------------------------------
e1=$("$BIN" eval N1 --adapt 2 --tasks 3 --seed 4 --threads 1)
e2=$("$BIN" eval N1 --adapt 2 --tasks 3 --seed 4 --threads 2)
[ "$e1" = "$e2" ] || fail "eval --adapt differs between 1 and 2 threads"
echo "$e1" | head -1 | grep -q "^PointNav2D-v0: pg inner loop, 2 steps of 4 episodes; each stage measured on 1 episode$" ||
  fail "eval --adapt header: $e1"
[ "$(echo "$e1" | grep -c '^task  *[123] (goal_x=.*, goal_y=.*): before .* step 1 .* step 2 ')" -eq 3 ] ||
  fail "eval --adapt task lines: $e1"
echo "$e1" | tail -1 | grep -q "^mean over 3 tasks: before .* step 2 " || fail "eval --adapt summary: $e1"
e3=$("$BIN" eval N1 --adapt 1 --task 0.25,-0.4)
echo "$e3" | grep -q "^task   1 (goal_x=0.25, goal_y=-0.4): before" || fail "eval --adapt --task: $e3"
"$BIN" eval C --adapt 1 --tasks 2 | grep -q "^task   2 (direction=[-1]*): before" || fail "eval --adapt on HalfCheetahDir"
echo "ok: eval --adapt"

# --- render of the adapted agent on a given task -------------------------------------------------------
out=$("$BIN" render N1 --task 0.25,-0.4 --adapt 1 --out adapted.gif)
echo "$out" | grep -q "adapted to the task in 1 step: return before" || fail "render --adapt: $out"
[ -s adapted.gif ] || fail "render --adapt wrote no GIF"

# --- envs lists the families with their tasks ------------------------------------------------------------
"$BIN" envs tasks > envs.txt
for id in PointNav2D-v0 HalfCheetahVel-v5 HalfCheetahDir-v5 AntVel-v5 AntDir-v5 AntGoal-v5; do
  grep -q "^$id " envs.txt || fail "envs tasks lacks $id"
done
[ "$(grep -c '^  tasks (' envs.txt)" -eq 6 ] || fail "envs tasks: $(cat envs.txt)"
! grep -q "^CartPole-v1" envs.txt || fail "envs tasks lists a plain env"

# --- the shipped configs load and run (one small generation each) ------------------------------------
CFG="$HERE/../configs"
small="run.generations=1 meta.inner_episodes=2"
"$BIN" run "$CFG/pointnav-ga-maml.ini" $small ga.population=3 ga.truncation=1 ga.elite_candidates=1 --out c1 --quiet
"$BIN" run "$CFG/pointnav-ga-mixture.ini" $small ga.population=3 ga.truncation=1 ga.elite_candidates=1 --out c2 --quiet
"$BIN" run "$CFG/pointnav-es-maml.ini" $small es.population=2 --out c3 --quiet
for c in halfcheetahdir-ga-maml halfcheetahdir-ga-mixture antgoal-ga-maml antvel-ga-maml antvel-ga-mixture \
  antdir-ga-maml antdir-ga-mixture antvel-ga-maml-shared antdir-ga-maml-shared; do
  "$BIN" run "$CFG/$c.ini" $small meta.inner_steps=1 ga.population=2 ga.truncation=1 ga.elite_candidates=0 \
    env.max_episode_steps=20 --out $c --quiet
done
for c in antvel-es-maml antdir-es-maml; do
  "$BIN" run "$CFG/$c.ini" $small es.population=2 env.max_episode_steps=20 --out $c --quiet
done
echo "ok: the meta-learning configs run"

# --- bad input: clear errors, exit 2 ----------------------------------------------------------------------
set +e
out=$("$BIN" run nav.ini policy.head=tanh --out bad1 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "needs policy.head = gaussian" || fail "pg without the gaussian head: rc=$rc out=$out"
out=$("$BIN" run nav.ini env.id=Pendulum-v1 --out bad2 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "not one (\`neuroevo envs tasks\`" || fail "meta on a plain env: rc=$rc out=$out"
out=$("$BIN" run nav.ini meta.update=hil --out bad3 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "did you mean 'hill'" || fail "meta.update typo: rc=$rc out=$out"
out=$("$BIN" eval N1 --tasks 3 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "go with --adapt" || fail "--tasks without --adapt: rc=$rc out=$out"
out=$("$BIN" render N1 --adapt 1 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "give it with --task" || fail "render --adapt without --task: rc=$rc out=$out"
out=$("$BIN" eval N1 --adapt 1 --task 0.1 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "expected 2 comma-separated numbers" || fail "a bad --task: rc=$rc out=$out"
set -e
echo "e2e_meta: all checks passed"
