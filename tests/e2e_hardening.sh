#!/usr/bin/env bash
# Bad input never costs work, end to end through the CLI: corrupt, truncated and foreign checkpoint
# files are named with what is wrong and `resume` falls back to an older one (the last 3 are kept)
# and still ends identical to an uninterrupted run; a disk that fills up mid-run (a small tmpfs
# when this test may mount one, and always a per-file size limit: `ulimit -f` with SIGXFSZ ignored,
# so writes fail with EFBIG) stops the run with a clear error and an intact last checkpoint, and a
# resume once there is room again ends identical too. Workers of another build: tests/e2e_redis.sh.
# usage: e2e_hardening.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MNT=""
cleanup() { if [ -n "$MNT" ]; then umount "$MNT" 2>/dev/null || true; fi; }
trap cleanup EXIT
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
same_as_ref() { same_run ref "$1" "$2 (ref: the uninterrupted run)"; }  # same_as_ref DIR WHAT

# GA state grows every generation (each parent's seed chain gets one seed longer: ~1.6 KB per
# generation with 200 parents), so checkpoints grow from ~13 KB to ~20 KB: the limits below are
# reached at different writes
cat > det.ini <<'INI'
[run]
algorithm = ga
seed = 42
generations = 12
target = none
plot_every = 0
checkpoint_every = 1
keep_checkpoints = 3

[env]
id = CartPole-v1

[policy]
hidden = 8

[ga]
population = 300
truncation = 200
sigma = 0.05
elite_candidates = 2
elite_episodes = 2
INI

# the uninterrupted reference, and the same run stopped after 8 generations (checkpoints 6, 7, 8)
"$BIN" run det.ini --threads 1 --out ref --quiet
"$BIN" run det.ini run.generations=8 --threads 1 --out half --quiet
ls half/checkpoints/ckpt-0000000{6,7,8}.bin >/dev/null || fail "expected checkpoints 6, 7 and 8: $(ls half/checkpoints)"
fresh() { rm -rf "$1" && cp -a half "$1"; }  # fresh DIR: a copy of the 8-generation run

# --- a bit flip in the newest checkpoint, the next one truncated: resume falls back to the third
fresh C
printf '\xff' | dd of=C/checkpoints/ckpt-00000008.bin bs=1 seek=100 conv=notrunc 2>/dev/null
truncate -s 50 C/checkpoints/ckpt-00000007.bin
"$BIN" resume C --generations 12 --quiet 2>C.err || fail "resume over two bad checkpoints failed: $(cat C.err)"
grep -q "ckpt-00000008.bin: checksum mismatch" C.err || fail "bit flip not named: $(cat C.err)"
grep -q "ckpt-00000007.bin: truncated: header says .* payload bytes, file has 26" C.err || fail "truncation not named: $(cat C.err)"
same_as_ref C "resume after a corrupt and a truncated checkpoint"
echo "ok: corrupt + truncated checkpoints named, resume fell back to generation 6 and ended identical"

# --- a file that is not a checkpoint at all, and an empty one -------------------------------
fresh G
head -c 900 /dev/urandom > G/checkpoints/ckpt-00000008.bin
: > G/checkpoints/ckpt-00000007.bin
"$BIN" resume G --generations 12 --quiet 2>G.err || fail "resume over garbage failed: $(cat G.err)"
grep -q "ckpt-00000008.bin: not a neuroevo checkpoint" G.err || fail "garbage not named: $(cat G.err)"
grep -q "ckpt-00000007.bin: not a neuroevo checkpoint" G.err || fail "empty file not named: $(cat G.err)"
same_as_ref G "resume after garbage and an empty checkpoint"
echo "ok: garbage and empty checkpoint files named, resume ended identical"

# --- metrics.csv's header lost (a new run writes it without an fsync), a torn last row ---------
fresh H
sed -i 1d H/metrics.csv
printf '8,2700,9' >> H/metrics.csv
"$BIN" resume H --generations 12 --quiet 2>H.err || fail "resume without metrics.csv's header failed: $(cat H.err)"
same_as_ref H "resume after metrics.csv lost its header and tore its last row"
echo "ok: metrics.csv's header written back, its torn row dropped, resume ended identical"

# --- every checkpoint bad: a clear error naming the directory, exit 1 or 2, no crash ------------
fresh N
for f in N/checkpoints/*.bin; do truncate -s 30 "$f"; done
rc=0
"$BIN" resume N --generations 12 --quiet 2>N.err || rc=$?
[ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "resume with no readable checkpoint: rc=$rc $(cat N.err)"
grep -q "N/checkpoints: no readable checkpoint (3 files tried)" N.err || fail "no-checkpoint error unclear: $(cat N.err)"
[ "$(grep -c "skipping checkpoint" N.err)" -eq 3 ] || fail "each bad file should be named: $(cat N.err)"
echo "ok: no readable checkpoint is a clear error (rc=$rc), each file named"

# --- the disk fills up: stop cleanly, last checkpoint intact, resume with room ends identical ----
# check_stopped DIR ERRFILE WHAT: the failed run said why, left no temp files, and its newest
# checkpoint verifies (a resume with room again warns about none and ends identical)
check_stopped() {
  local dir=$1 err=$2 what=$3
  grep -Eq "write failed: (No space left on device|File too large)|fsync failed" "$err" || fail "$what: unclear error: $(cat "$err")"
  ! ls "$dir"/checkpoints/*.tmp.* >/dev/null 2>&1 || fail "$what: temp files left: $(ls "$dir/checkpoints")"
  "$BIN" resume "$dir" --generations 12 --quiet 2>"$err.resume" || fail "$what: resume with room failed: $(cat "$err.resume")"
  ! grep -q "skipping checkpoint" "$err.resume" || fail "$what: the last checkpoint was damaged: $(cat "$err.resume")"
  same_as_ref "$dir" "$what"
}

# (a) a per-file size limit: works without privileges; writes past it fail with EFBIG
stopped=0
for kb in 1 14 16 18; do
  fresh F$kb
  rc=0
  (trap '' XFSZ; ulimit -f $kb; exec "$BIN" resume F$kb --generations 12 --quiet) 2>F$kb.err || rc=$?
  [ $rc -le 1 ] || fail "ulimit -f $kb: rc=$rc (a signal or a crash, not a clean stop): $(cat F$kb.err)"
  if [ $rc -eq 1 ]; then
    check_stopped F$kb F$kb.err "ulimit -f $kb"
    stopped=$((stopped + 1))
  else
    same_as_ref F$kb "ulimit -f $kb (finished within the limit)"
  fi
done
[ $stopped -ge 1 ] || fail "no size limit stopped the run: the test no longer exercises a failing write"
echo "ok: file size limit (EFBIG): run stopped cleanly $stopped time(s), resume ended identical"

# (b) a full filesystem (ENOSPC): a 256 KiB tmpfs, filled up to `left` free pages before resuming
if [ "$(id -u)" -eq 0 ] && mkdir -p mnt && mount -t tmpfs -o size=256k tmpfs mnt 2>/dev/null; then
  MNT=$TMP/mnt
  stopped=0
  for left in 0 1 2 3 4 6; do
    rm -rf mnt/*
    cp -a half mnt/D
    # fill all but `left` 4 KiB pages (dd stops at ENOSPC), then give `left` pages back
    dd if=/dev/zero of=mnt/filler bs=4k 2>/dev/null || true
    [ $left -eq 0 ] || truncate -s $(( $(stat -c %s mnt/filler) - left * 4096 )) mnt/filler
    rc=0
    "$BIN" resume mnt/D --generations 12 --quiet 2>full$left.err || rc=$?
    [ $rc -le 1 ] || fail "tmpfs, $left pages free: rc=$rc: $(cat full$left.err)"
    rm -f mnt/filler  # free the space again
    if [ $rc -eq 1 ]; then
      check_stopped mnt/D full$left.err "tmpfs full ($left pages free)"
      stopped=$((stopped + 1))
    else
      same_as_ref mnt/D "tmpfs ($left pages free, finished)"
    fi
  done
  [ $stopped -ge 1 ] || fail "the full tmpfs never stopped the run"
  echo "ok: full tmpfs (ENOSPC): run stopped cleanly $stopped time(s), resume ended identical"
else
  echo "note: no tmpfs (not root or mount not permitted): ENOSPC checked only through the size limit"
fi
# --- a result from a worker of another wire version: named, dropped, the run goes on ---------
# (a worker of another build or policy spec, i.e. another fingerprint: tests/e2e_redis.sh)
if "$BIN" run --help | grep -q -- "--redis URL"; then
  port=$(bash "$HERE/redis_test_server.sh" start "$TMP/redis")
  stop_redis() { bash "$HERE/redis_test_server.sh" stop "$TMP/redis" >/dev/null 2>&1 || true; }
  trap 'cleanup; [ -n "${WPID:-}" ] && kill -9 "$WPID" 2>/dev/null; stop_redis' EXIT
  URL=redis://127.0.0.1:$port
  # a worker slowed by the test hook (results unaffected), so the injections land mid-run
  NEUROEVO_TEST_EVAL_DELAY_MS=1 "$BIN" worker --redis "$URL" --threads 1 --name w1 --heartbeat 0.25 >w1.log 2>&1 &
  WPID=$!
  "$BIN" run det.ini --redis "$URL" --out RV --quiet 2>RV.err &
  mpid=$!
  for _ in $(seq 1 200); do [ -s RV/redis.id ] && break; sleep 0.05; done
  id=$(head -n1 RV/redis.id)
  # magic "NErs", wire version 99, sender "old-build" (length-prefixed), then bytes it cannot parse
  for i in 1 2 3; do
    printf 'NErs\x63\x09old-build%s' "payload-of-version-99-$i" | redis-cli -p "$port" -x XADD "ne:exp:$id:results" '*' r >/dev/null
    sleep 0.2
  done
  wait $mpid || fail "master with a version-99 result failed: $(tail -3 RV.err)"
  grep -q "from 'old-build' uses wire version 99, this build speaks version" RV.err || fail "old-build not named: $(cat RV.err)"
  same_as_ref RV "run with results of another wire version injected"
  kill -TERM $WPID && wait $WPID || fail "worker did not leave cleanly"
  WPID=""
  echo "ok: a result of wire version 99 names its worker ('old-build'), the run ended identical"
else
  echo "note: built without hiredis: the wire-version check runs only in Redis builds"
fi
echo "PASS"
