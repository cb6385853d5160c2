#!/usr/bin/env bash
# End to end through the CLI: the partial-generation log (checkpoints/partial.log). A run killed
# with SIGKILL in the middle of a generation keeps the candidates it finished, a resume evaluates
# only the others (it says how many it kept) and ends identical to the uninterrupted run — for the
# GA (seed chains, the elite's re-evaluation round), and for ES with observation normalization (the
# results carry observation sums). A Ctrl-C in generation 0 keeps its candidates too. A round that
# runs long prints progress lines (run.progress_seconds).
# usage: e2e_partial.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# Every result goes to the file at once (not a second later), and a GA generation lasts ~0.3 s on
# 2 threads in either build, so a kill, a Ctrl-C or a progress line aimed at "mid-generation" by
# polling every 10 ms lands there (with hidden 32,32 a release build finished generation 0 in
# 40 ms); sanitizer builds are ~10x slower, so smaller populations and policies last as long there.
export NEUROEVO_PARTIAL_FLUSH_S=0
GA_POP=3000 GA_HIDDEN=128,128 ES_POP=300
case "$BIN" in *asan*) GA_POP=400 GA_HIDDEN=64,64 ES_POP=60 ;; esac

# (run.overlap off: with it, generation 1's population would come whole from the results asked
# ahead in generation 0, leaving its short re-evaluation as the only round for a kill to land in;
# tests/e2e_overlap.sh kills a run while a round and the candidates asked ahead are in flight)
cat > ga.ini <<INI
[run]
algorithm = ga
seed = 7
generations = 2
target = none
plot_every = 0
overlap = false
[env]
id = CartPole-v1
episodes = 3
[policy]
hidden = $GA_HIDDEN
[ga]
population = $GA_POP
truncation = 20
sigma = 0.05
elite_candidates = 3
elite_episodes = 5
INI

cat > es.ini <<INI
[run]
algorithm = es
seed = 3
generations = 2
target = none
plot_every = 0
[env]
id = LunarLander-v3
[policy]
hidden = 32,32
[es]
population = $ES_POP
sigma = 0.05
obs_norm = true
eval_episodes = 5
INI

# log_bytes DIR: the size of DIR's partial.log (a 16-byte header and a 33-byte ROUND record, then
# ~90 bytes a result): above 400 it holds results, so a kill lands mid-generation
log_bytes() { stat -c %s "$1/checkpoints/partial.log" 2>/dev/null || echo 0; }
# log_base DIR: the generation whose checkpoint DIR's partial.log continues (its header's u32 at
# byte 12); the log holds generation 0's results for a moment after ckpt-00000001.bin is written
log_base() { od -An -t u4 -j 12 -N 4 "$1/checkpoints/partial.log" 2>/dev/null | tr -d ' '; }

# kill_mid_generation INI DIR GEN: starts INI into DIR, waits until the log holds results of
# generation GEN (its header names GEN's checkpoint), then SIGKILL
kill_mid_generation() {
  "$BIN" run "$1" --threads 2 --out "$2" --quiet &
  local pid=$! ckpt=1
  for _ in $(seq 1 3000); do
    [ "$(log_base "$2")" = "$3" ] && [ "$(log_bytes "$2")" -gt 400 ] && break
    sleep 0.01
  done
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  [ "$(rows "$2")" -eq "$3" ] || fail "$2: killed after $(rows "$2") generations, expected during generation $3"
  [ -f "$2/checkpoints/ckpt-00000002.bin" ] && ckpt=0
  [ "$ckpt" -eq 1 ] || fail "$2: the run finished before the kill"
}

# resume_kept DIR: resumes DIR and checks it reused finished candidates
resume_kept() {
  local out
  out=$("$BIN" resume "$1" --threads 1)
  grep -Eq "^gen +[01]  [0-9]+/[0-9]+ candidates( of the re-evaluation)? evaluated before the interruption" <<<"$out" ||
    fail "$1: resume did not take finished candidates from partial.log: $(echo "$out" | head -n 2)"
}

# --- GA: killed in generation 1 and in generation 0 ----------------------------------------------
"$BIN" run ga.ini --threads 1 --out ga-ref --quiet
kill_mid_generation ga.ini ga-k1 1
resume_kept ga-k1
same_run ga-ref ga-k1 "GA killed in generation 1"
kill_mid_generation ga.ini ga-k0 0
resume_kept ga-k0
same_run ga-ref ga-k0 "GA killed in generation 0"

# --- ES with observation normalization ----------------------------------------------------------
"$BIN" run es.ini --threads 1 --out es-ref --quiet
kill_mid_generation es.ini es-k1 1
resume_kept es-k1
diff <(strip_wall es-ref/metrics.csv) <(strip_wall es-k1/metrics.csv) >/dev/null || fail "ES: metrics differ after kill"
cmp -s es-ref/best.params es-k1/best.params || fail "ES: best.params differs after kill"

# --- Ctrl-C in generation 0 keeps what it finished ------------------------------------------------
"$BIN" run ga.ini --threads 2 --out ga-int --quiet &
pid=$!
for _ in $(seq 1 3000); do
  [ "$(log_bytes ga-int)" -gt 400 ] && break
  sleep 0.01
done
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" -eq 130 ] || fail "SIGINT exit code $rc, expected 130"
grep -Eq "interrupted during generation 0: kept [0-9]+ finished candidates of generation 0 \(ga-int/checkpoints/partial.log\); .neuroevo resume ga-int. evaluates only the rest" \
  ga-int/log.txt || fail "no kept-candidates message: $(tail -n 2 ga-int/log.txt)"
resume_kept ga-int
same_run ga-ref ga-int "GA interrupted in generation 0"

# --- a long round says how far it is (run.progress_seconds) ------------------------------------------
out=$("$BIN" run ga.ini run.progress_seconds=0.02 --generations 1 --threads 2 --out ga-progress)
grep -Eq "^gen +0  [0-9]+/$GA_POP candidates done  steps .* steps/s  \(.* in\)" <<<"$out" ||
  fail "no progress line within the generation: $(echo "$out" | head -n 3)"

# --- a log of other batches (here: another seed's run) is not used --------------------------------
sed 's/^seed = 7/seed = 8/' ga.ini > ga8.ini
kill_mid_generation ga8.ini ga-other 1
cp ga-other/checkpoints/partial.log ga-k1-copy.log
"$BIN" run ga.ini --threads 2 --out ga-swap --generations 1 --quiet
cp ga-k1-copy.log ga-swap/checkpoints/partial.log
out=$("$BIN" resume ga-swap --generations 2 --threads 1)
echo "$out" | grep -q "before the interruption" && fail "another run's log was used: $(echo "$out" | head -n 2)"
same_run ga-ref ga-swap "GA with another run's partial.log"
echo "e2e_partial: all checks passed"
