#!/usr/bin/env bash
# The public C API as a user's program drives it (examples/train.c, built next to the CLI): a run
# trains and its best agent is evaluated from its file; the same command on the same directory
# resumes it to a larger budget with the same result as one uninterrupted run; a misspelled key is
# named with its near miss and fails; the umbrella header compiles and links as C++.
# usage: e2e_example.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
EX=$(dirname "$BIN")/examples
[ -x "$EX/train" ] || fail "$EX/train not built"

out=$("$EX/train" A ga.population=60 run.generations=3 run.target=none)
echo "$out" | grep -Eq "^CartPole-v1: A/best.genome scores [0-9.]+ \+- [0-9.]+ over 20 episodes" ||
  fail "train did not evaluate its agent: $out"
[ "$(rows A)" -eq 3 ] || fail "expected 3 generations, got $(rows A)"
# the full budget in one go, and the same program resuming A to it
"$EX/train" B ga.population=60 run.generations=5 run.target=none >/dev/null
sed -i 's/^generations = 3$/generations = 5/' A/config.ini
again=$("$EX/train" A)
same_run B A "resumed by the example program"
echo "$again" | grep -q "scores" || fail "resume did not evaluate: $again"

set +e
err=$("$EX/train" C ga.populaton=60 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] && echo "$err" | grep -q "population" || fail "misspelled key: rc=$rc: $err"
[ ! -e C ] || fail "a rejected config left a run directory"

if [ -x "$EX/cpp_header" ]; then
  "$EX/cpp_header" | grep -q "from C++: default config valid" || fail "cpp_header: $("$EX/cpp_header" 2>&1)"
fi
echo "e2e_example: all checks passed"
