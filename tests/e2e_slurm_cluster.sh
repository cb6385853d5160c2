#!/usr/bin/env bash
# deploy/slurm/neuroevo.sbatch on a real Slurm: a private one-node cluster (Debian's munged,
# slurmctld and slurmd with their own directory, key and free loopback ports; the node is named
# localhost) runs the script through sbatch, as a user's job would run.
#  1. A job: the run equals a local run (metrics and best genome); the worker joins and
#     leaves after the task in hand (scancel --signal=INT: srun would SIGKILL it); Redis, the workers
#     and the runtime directory are gone afterwards.
#  2. A job cancelled mid-run (scancel: what a time limit does) leaves a checkpoint; a second job
#     with NEUROEVO_RESUME=1 continues it and ends identical to the uninterrupted local run.
#  3. Relay mode (NEUROEVO_RELAYS=1): the node's own redis-server, a relay and two workers on it
#     give the local run's results, and all of them leave with the job.
# usage: e2e_slurm_cluster.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SCRIPT=$HERE/../deploy/slurm/neuroevo.sbatch
PATH=$PATH:/usr/sbin:/sbin  # the daemons live in sbin, off a normal user's PATH
# scratch directory as the working directory, fail(), same_as, wait_rows
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
for exe in munged slurmctld slurmd sbatch scontrol squeue sinfo scancel; do
  command -v "$exe" >/dev/null ||
    fail "$exe not found: install Debian's munge, slurmctld, slurmd and slurm-client (scripts/install-deps)"
done
mkdir -p munge state spool log rt

# ---- the cluster ----------------------------------------------------------------------------
DAEMONS=()
stop_cluster() {
  if [ "${SLURM_CONF:-}" = "$TMP/slurm.conf" ]; then  # this cluster's jobs, never a real cluster's
    scancel --quiet --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 1 100); do
      [ -z "$(squeue -h 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  for p in "${DAEMONS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${DAEMONS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'stop_cluster; cleanup' EXIT
chmod 700 munge
head -c 1024 /dev/urandom > munge/munge.key
chmod 600 munge/munge.key
munged --force --foreground --socket="$TMP/munge/socket" --key-file="$TMP/munge/munge.key" \
  --log-file="$TMP/log/munged.log" --pid-file="$TMP/munge/munged.pid" --seed-file="$TMP/munge/seed" \
  >log/munged.out 2>&1 &
DAEMONS+=($!)
CPUS=$(nproc)
# NoInAddrAny, NoCtldInAddrAny: the daemons and srun listen on loopback, not on every interface
cat > slurm.conf <<CONF
ClusterName=neuroevo-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$TMP/munge/socket
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
ReturnToService=2
KillWait=10
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$TMP/slurm.conf
for _ in $(seq 1 100); do [ -S munge/socket ] && break; sleep 0.05; done
slurmctld -D -i >log/slurmctld.out 2>&1 &
DAEMONS+=($!)
slurmd -D -N localhost >log/slurmd.out 2>&1 &
DAEMONS+=($!)
state=""
for _ in $(seq 1 200); do
  state=$(sinfo -h -N -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.1
done
[ "$state" = idle ] || fail "the test cluster did not come up (node: '$state'): $(tail -n 5 log/*.log)"

# submit [sbatch options] -- [--export variables]: the deploy script as a job of this cluster,
# its Redis on $port
submit() {
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  local vars="ALL,NEUROEVO_BIN=$BIN,NEUROEVO_REDIS_PORT=$port,NEUROEVO_REDIS_BIND=127.0.0.1,TMPDIR=$TMP/rt"
  sbatch --parsable --nodes=1 --cpus-per-task="$CPUS" "${opts[@]}" --export="$vars$(printf ',%s' "$@")" "$SCRIPT"
}
# job_end JOB: waits until the job and its processes have ended (squeue lists it while it is
# pending, running or completing; sbatch --wait would poll every 10 s), then prints its state
job_end() {
  for _ in $(seq 1 1200); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && break
    sleep 0.1
  done
  scontrol show job -o "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'
}
no_leftovers() {  # no_leftovers WHAT
  [ -z "$(ls rt)" ] || fail "$1: runtime directory left behind: $(ls rt)"
  ! pgrep -f "worker --redis redis://localhost:$port" >/dev/null || fail "$1: a worker is still running"
  local ping
  ping=$(redis-cli -p "$port" ping 2>&1 || true)
  echo "$ping" | grep -q "Connection refused" || fail "$1: redis-server still running: $ping"
}

# ---- 1. a run ------------------------------------------------------------------------------
# the shipped configs with overrides, as NEUROEVO_OVERRIDES hands them to the master
RUN1="run.seed=11 run.generations=12 run.target=none run.plot_every=0"
"$BIN" run cartpole-ga $RUN1 --threads 2 --out L --quiet
port=$(free_port)
job=$(submit --output="$TMP/job1.out" -- NEUROEVO_CONFIG=cartpole-ga NEUROEVO_OVERRIDES="$RUN1" NEUROEVO_OUT="$TMP/S")
[ "$(job_end "$job")" = COMPLETED ] || fail "job 1 failed: $(tail -n 5 job1.out)"
same_as L S "job 1"
grep -q "following experiment" job1.out || fail "the worker did not join: $(cat job1.out)"
grep -q "leaving after" job1.out || fail "the worker was not stopped gracefully: $(tail -n 5 job1.out)"
! grep -q "Killed\|CANCELLED" job1.out || fail "a job step was killed: $(grep "Killed\|CANCELLED" job1.out)"
no_leftovers "job 1"

# ---- 2. cancelled mid-run, then resumed ------------------------------------------------------
RUN2="run.seed=5 run.generations=250 run.target=none run.plot_every=0"
"$BIN" run acrobot-ga $RUN2 --threads 2 --out L2 --quiet
port=$(free_port)
job=$(submit --output="$TMP/job2.out" -- NEUROEVO_CONFIG=acrobot-ga NEUROEVO_OVERRIDES="$RUN2" NEUROEVO_OUT="$TMP/S2")
wait_rows S2 20
scancel "$job"
state=$(job_end "$job")
[ "$state" = CANCELLED ] || fail "job 2 ended $state, not CANCELLED"
grep -q "interrupted during generation [0-9]*: kept the checkpoint at generation" job2.out || fail "job 2 left no checkpoint: $(tail -n 5 job2.out)"
! grep -q "generation budget reached" job2.out || fail "job 2 finished before it was cancelled (make it longer)"
no_leftovers "cancelled job 2"
port=$(free_port)
job=$(submit --output="$TMP/job3.out" -- NEUROEVO_RESUME=1 NEUROEVO_OUT="$TMP/S2")
[ "$(job_end "$job")" = COMPLETED ] || fail "job 3 (resume) failed: $(tail -n 5 job3.out)"
grep -q "generation budget reached after 250 generations" job3.out || fail "job 3 did not finish: $(tail -n 5 job3.out)"
same_as L2 S2 "jobs 2 (cancelled) and 3 (resumed)"
no_leftovers "job 3"

# ---- 4. relay mode -------------------------------------------------------------------------
# NEUROEVO_RELAYS=1: the node runs its own redis-server (the nodes' password, not the master's), a
# relay and 2 workers on it; the run equals the local one, and everything leaves as in job 1
port=$(free_port)
node_port=$(free_port)
job=$(submit --output="$TMP/job4.out" -- NEUROEVO_CONFIG=cartpole-ga NEUROEVO_OVERRIDES="$RUN1" NEUROEVO_OUT="$TMP/S4" \
  NEUROEVO_RELAYS=1 NEUROEVO_WORKERS_PER_NODE=2 NEUROEVO_NODE_REDIS_PORT="$node_port")
[ "$(job_end "$job")" = COMPLETED ] || fail "job 4 (relay mode) failed: $(tail -n 5 job4.out)"
same_as L S4 "job 4 (relay mode)"
grep -q "neuroevo relay relay-localhost: following experiment" job4.out || fail "no relay in job 4: $(cat job4.out)"
[ "$(grep -c "neuroevo worker .*: following experiment" job4.out)" -eq 2 ] &&
  [ "$(grep -c "neuroevo worker .*: leaving after" job4.out)" -eq 2 ] || fail "job 4: its 2 workers: $(cat job4.out)"
grep -q "neuroevo relay relay-localhost: leaving after" job4.out || fail "job 4: the relay did not leave: $(tail -n 5 job4.out)"
! grep -q "Killed\|CANCELLED" job4.out || fail "a job step was killed: $(grep "Killed\|CANCELLED" job4.out)"
no_leftovers "job 4"
! pgrep -f "relay --upstream redis://localhost:$port" >/dev/null || fail "job 4: the relay is still running"
ping=$(redis-cli -p "$node_port" ping 2>&1 || true)
echo "$ping" | grep -q "Connection refused" || fail "job 4: the node's redis-server still running: $ping"
echo "e2e_slurm_cluster: all checks passed ($(grep -o 'checkpoint at generation [0-9]*' job2.out))"
