#!/usr/bin/env bash
# deploy/slurm/neuroevo.sbatch with a fake `scontrol`, `srun` and `scancel` on PATH, for what one
# machine's real Slurm (e2e_slurm_cluster.sh) cannot show: two nodes. The script starts a
# password-protected redis-server, one worker per "node" through srun with the right options, and
# the master; the run equals a local run; the password never appears on a command line; the
# workers leave through scancel's signal; workers, Redis and the runtime directory are gone afterwards.
# The same in relay mode (NEUROEVO_RELAYS=1): each node runs its own Redis with the nodes' password,
# a relay and two workers.
# usage: e2e_slurm.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
mkdir -p fakebin rt
# gone PID: the process has ended within 5 s (a task SIGKILLed as its step ended is an orphan for
# the moment until init reaps it, and kill -0 still finds it)
gone() {
  for _ in $(seq 1 50); do
    kill -0 "$1" 2>/dev/null || return 0
    case $(ps -o stat= -p "$1" 2>/dev/null) in Z*) return 0 ;; esac
    sleep 0.1
  done
  return 1
}
need_hiredis  # a build without hiredis cannot run this test: say so instead of failing below

# scontrol show hostnames LIST: the "nodes" are loopback addresses
cat > fakebin/scontrol <<'SH'
#!/usr/bin/env bash
[ "$1 $2" = "show hostnames" ] || { echo "fake scontrol: unexpected: $*" >&2; exit 1; }
echo 127.0.0.1
echo 127.0.0.2
SH
# srun --nodes=N [--ntasks-per-node=K] ... CMD...: N x K local copies of CMD, the tasks of job step
# S (the steps are numbered as srun is called: $SRUN_LOG.steps); like real srun, SIGTERM kills them
# (SIGKILL). Their output goes to $SRUN_LOG.stepS.nodeI, their PIDs to $SRUN_LOG.stepS.pids. Each
# "node" gets its name in SLURMD_NODENAME, as real tasks do; since all of them run on this machine,
# node I's loopback port P (relay mode: the node's Redis, NODE_PORT) becomes P + I, in the
# environment and on the command line.
cat > fakebin/srun <<'SH'
#!/usr/bin/env bash
exec 9>>"$SRUN_LOG.lock"
flock 9
step=$(cat "$SRUN_LOG.steps" 2>/dev/null || echo 0)
echo $((step + 1)) > "$SRUN_LOG.steps"
flock -u 9
echo "srun $*" >> "$SRUN_LOG"
tr '\0' ' ' < /proc/$$/cmdline >> "$SRUN_LOG"; echo >> "$SRUN_LOG"
nodes=1 per_node=1
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
  case $1 in --nodes=*) nodes=${1#--nodes=} ;; --ntasks-per-node=*) per_node=${1#--ntasks-per-node=} ;; esac
  shift
done
pids=()
# as srun answers SIGTERM at any moment: the tasks started so far are killed, no more are started
# (set before the first task, so that a step stopped while it starts leaves no task behind)
trap 'kill -KILL "${pids[@]}" 2>/dev/null; exit 143' TERM
for i in $(seq 0 $((nodes - 1))); do
  args=()
  for a in "$@"; do args+=("${a//127.0.0.1:${NODE_PORT:-x}/127.0.0.1:$((${NODE_PORT:-0} + i))}"); done
  for k in $(seq 1 "$per_node"); do
    # a background job of a script ignores SIGINT, and a shell cannot trap what it was started
    # ignoring: the task gets SIGINT's default back, as slurmstepd's tasks have it
    SLURM_PROCID=$i SLURM_NODEID=$i SLURMD_NODENAME=node$((i + 1)) NODE_PORT=$((${NODE_PORT:-0} + i)) \
      env --default-signal=INT "${args[@]}" >> "$SRUN_LOG.step$step.node$i" 2>&1 &
    pids+=($!)
    echo $! >> "$SRUN_LOG.step$step.pids"
  done
done
wait "${pids[@]}" 2>/dev/null || true
wait "${pids[@]}" 2>/dev/null || true
SH
# scancel --signal=SIG JOB.STEP: SIG to every process of the step's tasks, as slurmstepd sends it
# (each task and what it started), once each is its program and catches it (a process a moment old
# may still be srun's forked shell, or not have its handler yet: slurmstepd's would die of the
# signal then, these would lose it)
cat > fakebin/scancel <<'SH'
#!/usr/bin/env bash
echo "scancel $*" >> "$SRUN_LOG"
[ "${1%%=*}" = --signal ] || { echo "fake scancel: unexpected: $*" >&2; exit 1; }
sig=${1#--signal=}
bit=$(kill -l "$sig")
tree() { echo "$1"; for c in $(pgrep -P "$1"); do tree "$c"; done; }
# a step that does not run yet is an error, as it is for scancel
pids=$(cat "$SRUN_LOG.step${2#*.}.pids" 2>/dev/null) || { echo "fake scancel: no step $2" >&2; exit 1; }
for t in $pids; do
  for p in $(tree "$t"); do
    for _ in $(seq 1 250); do
      caught=$(sed -n 's/^SigCgt:\s*//p' "/proc/$p/status" 2>/dev/null) || break
      ! tr '\0' ' ' < "/proc/$p/cmdline" | grep -q fakebin/srun && [ -n "$caught" ] &&
        (((0x$caught >> (bit - 1)) & 1)) && break
      sleep 0.02
    done
    kill -"$sig" "$p" 2>/dev/null
  done
done
SH
chmod +x fakebin/*

cat > det.ini <<'INI'
[run]
algorithm = ga
seed = 11
generations = 12
target = none
plot_every = 0
[env]
id = CartPole-v1
[policy]
hidden = 16
[ga]
population = 40
truncation = 6
sigma = 0.05
elite_candidates = 2
elite_episodes = 3
INI
"$BIN" run det.ini --threads 2 --out L --quiet

port=$(free_port)
export SRUN_LOG=$TMP/srun.log
PATH=$TMP/fakebin:$PATH SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=2 SLURM_JOB_NODELIST='node[1-2]' SLURM_CPUS_PER_TASK=1 \
  NEUROEVO_BIN=$BIN NEUROEVO_CONFIG=det.ini NEUROEVO_OUT=$TMP/S NEUROEVO_REDIS_PORT=$port NEUROEVO_REDIS_BIND=127.0.0.1 \
  NEUROEVO_MASTER_ARGS="--quiet" NEUROEVO_REDIS_PASSWORD= TMPDIR=$TMP/rt \
  bash "$HERE/../deploy/slurm/neuroevo.sbatch" > sbatch.out 2>&1 || fail "sbatch script failed: $(tail -5 sbatch.out)"

diff <(strip_wall L/metrics.csv) <(strip_wall S/metrics.csv) >/dev/null || fail "metrics differ from the local run"
cmp -s L/best.genome S/best.genome || fail "best.genome differs from the local run"
grep -q -- "--nodes=2 --ntasks-per-node=1" srun.log || fail "srun options: $(cat srun.log)"
grep -q "worker --redis redis://127.0.0.1:$port --threads 1" srun.log || fail "worker command: $(cat srun.log)"
[ "$(wc -l < srun.log.step0.pids)" -eq 2 ] || fail "expected 2 workers"
grep -q "following experiment" srun.log.step0.node0 && grep -q "following experiment" srun.log.step0.node1 ||
  fail "workers did not join"
grep -q "scancel --signal=INT 4242.0" srun.log || fail "workers not signalled through scancel: $(cat srun.log)"
grep -q "leaving after" srun.log.step0.node0 && grep -q "leaving after" srun.log.step0.node1 ||
  fail "workers were not stopped through scancel"
! grep -qi "requirepass\|PASSWORD=" srun.log || fail "a password reached a command line"
for p in $(cat srun.log.step0.pids); do gone "$p" || fail "worker $p still running"; done
ping_out=$(redis-cli -p "$port" ping 2>&1 || true)
echo "$ping_out" | grep -q "Connection refused" || fail "redis-server still running: $ping_out"
[ -z "$(ls rt)" ] || fail "runtime directory left behind: $(ls rt)"

# relay mode: on each "node" a redis-server with the nodes' password (not the master's) and a relay
# (step 0), and 2 one-thread workers on it (step 1); the same results, no password on a command
# line, the workers stopped before the relays, nothing left
rm -f srun.log srun.log.*
# node I's Redis listens on node_port + I: both ports must be free (a port taken by another test's
# connection made node2's redis-server fail with "Address already in use")
node_port=$(free_port 2)
PATH=$TMP/fakebin:$PATH SLURM_JOB_ID=4244 SLURM_JOB_NUM_NODES=2 SLURM_JOB_NODELIST='node[1-2]' SLURM_CPUS_PER_TASK=2 \
  NEUROEVO_BIN=$BIN NEUROEVO_CONFIG=det.ini NEUROEVO_OUT=$TMP/SR NEUROEVO_REDIS_PORT=$port NEUROEVO_REDIS_BIND=127.0.0.1 \
  NEUROEVO_MASTER_ARGS="--quiet" NEUROEVO_REDIS_PASSWORD=master-secret NEUROEVO_NODE_REDIS_PASSWORD=node-secret \
  NEUROEVO_NODE_REDIS_PORT=$node_port NEUROEVO_RELAYS=1 NEUROEVO_WORKERS_PER_NODE=2 TMPDIR=$TMP/rt \
  bash "$HERE/../deploy/slurm/neuroevo.sbatch" > sbatch_relay.out 2>&1 || fail "relay mode failed: $(tail -5 sbatch_relay.out)"
same_run L SR "relay mode on 2 nodes x 2 workers"
grep -q -- "--overlap --nodes=2 --ntasks=4 --ntasks-per-node=2 --cpus-per-task=1 .*worker --redis redis://127.0.0.1:$node_port --threads 1" \
  srun.log || fail "relay mode's worker step: $(cat srun.log)"
for t in 0 1; do
  n=node$((t + 1)) services=srun.log.step0.node$t workers=srun.log.step1.node$t
  grep -q "neuroevo relay relay-$n: following experiment" $services || fail "$n: no relay: $(cat $services)"
  [ "$(grep -c "Redis at redis://:\*\*\*@127.0.0.1:$((node_port + t))/0" $workers)" -eq 2 ] &&
    [ "$(grep -c "following experiment" $workers)" -eq 2 ] && [ "$(grep -c "leaving after" $workers)" -eq 2 ] ||
    fail "$n: its 2 workers: $(cat $workers)"
  grep -q "neuroevo relay relay-$n: leaving after" $services || fail "$n: the relay did not leave: $(cat $services)"
  ! grep -qi "auth\|password\|results not sent" $services $workers ||
    fail "$n: credentials refused or results lost: $(grep -i "auth\|password\|results not sent" $services $workers)"
done
[ "$(grep -n "scancel" srun.log | cut -d' ' -f3 | tr '\n' ' ')" = "4244.1 4244.0 " ] ||
  fail "the workers' step should stop before the relays': $(grep scancel srun.log)"
! grep -q "secret" srun.log || fail "a password reached a command line: $(grep secret srun.log)"
for p in $(cat srun.log.step*.pids); do gone "$p" || fail "node task $p still running"; done
for p in $port $node_port $((node_port + 1)); do
  ping_out=$(redis-cli -p "$p" ping 2>&1 || true)
  echo "$ping_out" | grep -q "Connection refused" || fail "a redis-server (port $p) still running: $ping_out"
done
[ -z "$(ls rt)" ] || fail "runtime directory left behind in relay mode: $(ls rt)"
echo "ok: relay mode: 2 nodes, each its Redis, relay and 2 workers, identical to the local run"

# a master that fails (bad config) still leaves nothing behind
rm -f srun.log srun.log.*
PATH=$TMP/fakebin:$PATH SLURM_JOB_ID=4243 SLURM_JOB_NUM_NODES=1 SLURM_JOB_NODELIST='node1' SLURM_CPUS_PER_TASK=1 \
  NEUROEVO_BIN=$BIN NEUROEVO_CONFIG=det.ini NEUROEVO_OVERRIDES=ga.populaton=5 NEUROEVO_OUT=$TMP/F \
  NEUROEVO_REDIS_PORT=$port NEUROEVO_REDIS_BIND=127.0.0.1 NEUROEVO_REDIS_PASSWORD= TMPDIR=$TMP/rt \
  bash "$HERE/../deploy/slurm/neuroevo.sbatch" > sbatch_fail.out 2>&1 && fail "a bad config did not fail the job"
grep -q "populaton" sbatch_fail.out || fail "the master's error is not in the job output: $(cat sbatch_fail.out)"
for p in $(cat srun.log.step0.pids 2>/dev/null); do
  gone "$p" || fail "worker $p still running after a failed master"
done
ping_out=$(redis-cli -p "$port" ping 2>&1 || true)
echo "$ping_out" | grep -q "Connection refused" || fail "redis-server still running after a failed master"
[ -z "$(ls rt)" ] || fail "runtime directory left behind after a failed master: $(ls rt)"
echo "e2e_slurm: all checks passed"
