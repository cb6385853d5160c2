#!/usr/bin/env bash
# deploy/slurm/neuroevo.sbatch with a fake `scontrol`, `srun` and `scancel` on PATH, for what one
# machine's real Slurm (e2e_slurm_cluster.sh) cannot show: two nodes. The script starts a
# password-protected redis-server, one worker per "node" through srun with the right options, and
# the master; the run equals a local run; the password never appears on a command line; the
# workers leave through scancel's signal; workers, Redis and the runtime directory are gone afterwards.
# usage: e2e_slurm.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
mkdir -p fakebin rt
need_hiredis  # a build without hiredis cannot run this test: say so instead of failing below

# scontrol show hostnames LIST: the "nodes" are loopback addresses
cat > fakebin/scontrol <<'SH'
#!/usr/bin/env bash
[ "$1 $2" = "show hostnames" ] || { echo "fake scontrol: unexpected: $*" >&2; exit 1; }
echo 127.0.0.1
echo 127.0.0.2
SH
# srun --nodes=N ... CMD...: N local copies of CMD; like real srun, SIGTERM kills them (SIGKILL)
cat > fakebin/srun <<'SH'
#!/usr/bin/env bash
echo "srun $*" >> "$SRUN_LOG"
tr '\0' ' ' < /proc/$$/cmdline >> "$SRUN_LOG"; echo >> "$SRUN_LOG"
nodes=1
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
  case $1 in --nodes=*) nodes=${1#--nodes=} ;; esac
  shift
done
pids=()
for i in $(seq 0 $((nodes - 1))); do
  SLURM_PROCID=$i SLURM_NODEID=$i "$@" >> "$SRUN_LOG.task$i" 2>&1 &
  pids+=($!)
  echo $! >> "$SRUN_LOG.pids"
done
trap 'kill -KILL "${pids[@]}" 2>/dev/null' TERM
wait "${pids[@]}" 2>/dev/null || true
wait "${pids[@]}" 2>/dev/null || true
SH
# scancel --signal=SIG JOB.STEP: SIG to the tasks of the (only) step
cat > fakebin/scancel <<'SH'
#!/usr/bin/env bash
echo "scancel $*" >> "$SRUN_LOG"
[ "${1%%=*}" = --signal ] || { echo "fake scancel: unexpected: $*" >&2; exit 1; }
kill -"${1#--signal=}" $(cat "$SRUN_LOG.pids")
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

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export SRUN_LOG=$TMP/srun.log
PATH=$TMP/fakebin:$PATH SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=2 SLURM_JOB_NODELIST='node[1-2]' SLURM_CPUS_PER_TASK=1 \
  NEUROEVO_BIN=$BIN NEUROEVO_CONFIG=det.ini NEUROEVO_OUT=$TMP/S NEUROEVO_REDIS_PORT=$port NEUROEVO_REDIS_BIND=127.0.0.1 \
  NEUROEVO_MASTER_ARGS="--quiet" NEUROEVO_REDIS_PASSWORD= TMPDIR=$TMP/rt \
  bash "$HERE/../deploy/slurm/neuroevo.sbatch" > sbatch.out 2>&1 || fail "sbatch script failed: $(tail -5 sbatch.out)"

diff <(strip_wall L/metrics.csv) <(strip_wall S/metrics.csv) >/dev/null || fail "metrics differ from the local run"
cmp -s L/best.genome S/best.genome || fail "best.genome differs from the local run"
grep -q -- "--nodes=2 --ntasks-per-node=1" srun.log || fail "srun options: $(cat srun.log)"
grep -q "worker --redis redis://127.0.0.1:$port --threads 1" srun.log || fail "worker command: $(cat srun.log)"
[ "$(wc -l < srun.log.pids)" -eq 2 ] || fail "expected 2 workers"
grep -q "following experiment" srun.log.task0 && grep -q "following experiment" srun.log.task1 || fail "workers did not join"
grep -q "scancel --signal=INT 4242.0" srun.log || fail "workers not signalled through scancel: $(cat srun.log)"
grep -q "leaving after" srun.log.task0 && grep -q "leaving after" srun.log.task1 ||
  fail "workers were not stopped through scancel"
! grep -qi "requirepass\|PASSWORD=" srun.log || fail "a password reached a command line"
for p in $(cat srun.log.pids); do ! kill -0 "$p" 2>/dev/null || fail "worker $p still running"; done
ping_out=$(redis-cli -p "$port" ping 2>&1 || true)
echo "$ping_out" | grep -q "Connection refused" || fail "redis-server still running: $ping_out"
[ -z "$(ls rt)" ] || fail "runtime directory left behind: $(ls rt)"

# a master that fails (bad config) still leaves nothing behind
rm -f srun.log.pids
PATH=$TMP/fakebin:$PATH SLURM_JOB_ID=4243 SLURM_JOB_NUM_NODES=1 SLURM_JOB_NODELIST='node1' SLURM_CPUS_PER_TASK=1 \
  NEUROEVO_BIN=$BIN NEUROEVO_CONFIG=det.ini NEUROEVO_OVERRIDES=ga.populaton=5 NEUROEVO_OUT=$TMP/F \
  NEUROEVO_REDIS_PORT=$port NEUROEVO_REDIS_BIND=127.0.0.1 NEUROEVO_REDIS_PASSWORD= TMPDIR=$TMP/rt \
  bash "$HERE/../deploy/slurm/neuroevo.sbatch" > sbatch_fail.out 2>&1 && fail "a bad config did not fail the job"
grep -q "populaton" sbatch_fail.out || fail "the master's error is not in the job output: $(cat sbatch_fail.out)"
for p in $(cat srun.log.pids 2>/dev/null); do ! kill -0 "$p" 2>/dev/null || fail "worker $p still running after a failed master"; done
ping_out=$(redis-cli -p "$port" ping 2>&1 || true)
echo "$ping_out" | grep -q "Connection refused" || fail "redis-server still running after a failed master"
[ -z "$(ls rt)" ] || fail "runtime directory left behind after a failed master: $(ls rt)"
echo "e2e_slurm: all checks passed"
