#!/usr/bin/env bash
# scripts/check-layers passes on this checkout and fails, naming the file, the line and both
# layers, on each kind of violation planted into a copy of the tree: an upward include, a sideways
# one, another layer's internal header, another module's private *_int.h, a folder and a public
# header that are in no layer. Usage: check_layers.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
SRC=$(cd "$1" && pwd)
TMP=$2
CHECK=$SRC/scripts/check-layers
fail() { echo "FAIL: $*" >&2; exit 1; }

# the tree as it is
"$CHECK" "$SRC" || fail "check-layers fails on the checkout (see above)"

# a copy to plant violations in
rm -rf "$TMP"
mkdir -p "$TMP/python"
cp -r "$SRC/src" "$SRC/include" "$TMP/"
cp -r "$SRC/python/src" "$TMP/python/"
"$CHECK" "$TMP" || fail "check-layers fails on the unmodified copy"

# plant FILE LINE EXPECTED...: appends LINE to FILE, expects a failure whose output holds each
# EXPECTED string, then restores FILE
plant() {
  local file=$1 line=$2
  shift 2
  cp "$TMP/$file" "$TMP/plant.bak"
  echo "$line" >>"$TMP/$file"
  local n out rc=0
  n=$(wc -l <"$TMP/$file")
  out=$("$CHECK" "$TMP" 2>&1) || rc=$?
  mv "$TMP/plant.bak" "$TMP/$file"
  [ "$rc" = 1 ] || fail "$file + '$line': exit $rc, expected 1; output: $out"
  for want in "$file:$n:" "$@"; do
    grep -qF -- "$want" <<<"$out" || fail "$file + '$line': output lacks '$want': $out"
  done
  echo "caught: $file + $line"
}

plant src/core/rng.c '#include "neuroevo/run.h"' 'core (layer 0) may not include run (layer 7): the include goes up'
plant src/algos/ga.c '#include "neuroevo/executor.h"' 'algos (layer 5) may not include exec (layer 6)'
plant src/envs/env.c '#include "neuroevo/policy.h"' 'envs (layer 2) may not include policy (layer 3)'
plant include/neuroevo/env.h '#include "neuroevo/genome.h"' 'envs (layer 2) may not include params (layer 4)'
plant src/cli/cmd_envs.c '#include "../../python/src/pyne.h"' 'cli (layer 9) may not include python (layer 9): the include goes sideways'
plant src/report/report.c '#include "exec/redis_wire.h"' 'src/exec/redis_wire.h is internal to exec'
plant src/cli/cmd_rollouts.c '#include "envs/minatar/minatar_int.h"' 'src/envs/minatar/minatar_int.h is private to src/envs/minatar/'
plant src/envs/pixels.c '#include "envs/ale/ale_int.h"' 'src/envs/ale/ale_int.h is private to src/envs/ale/'

# a folder and a public header outside the table
mkdir -p "$TMP/src/misc"
echo 'int ne__misc;' >"$TMP/src/misc/misc.c"
out=$("$CHECK" "$TMP" 2>&1) && fail "a folder outside the table passed"
grep -qF 'src/misc/misc.c: in no layer' <<<"$out" || fail "src/misc/misc.c not named: $out"
rm -r "$TMP/src/misc"
echo '#define NE_STRAY 1' >"$TMP/include/neuroevo/stray.h"
out=$("$CHECK" "$TMP" 2>&1) && fail "a public header outside the table passed"
grep -qF 'include/neuroevo/stray.h: in no layer' <<<"$out" || fail "stray.h not named: $out"
rm "$TMP/include/neuroevo/stray.h"

# and the copy passes again once the plants are gone
"$CHECK" "$TMP" || fail "check-layers fails after the plants were removed"
rm -rf "$TMP"
echo "check_layers: ok"
