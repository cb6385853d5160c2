#!/usr/bin/env bash
# scripts/check-format passes on this checkout and fails on a copy where one file's layout was
# disturbed, naming the file and the line. Usage: check_format.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
SRC=$(cd "$1" && pwd)
TMP=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

"$SRC/scripts/check-format" "$SRC" || fail "check-format fails on the checkout (see above)"

rm -rf "$TMP"
mkdir -p "$TMP"
cp -r "$SRC/src" "$SRC/include" "$SRC/.clang-format" "$TMP/"
"$SRC/scripts/check-format" "$TMP" || fail "check-format fails on the unmodified copy"
# two spaces where clang-format writes one, on a line of code
line=$(grep -n '^int ne_pool_threads' "$TMP/src/exec/pool.c" | cut -d: -f1)
[ -n "$line" ] || fail "src/exec/pool.c has no ne_pool_threads line to disturb"
sed -i "${line}s/^int ne_pool_threads/int  ne_pool_threads/" "$TMP/src/exec/pool.c"
out=$("$SRC/scripts/check-format" "$TMP" 2>&1) && fail "a disturbed file passed"
grep -qF "src/exec/pool.c:$line:" <<<"$out" || fail "the disturbed line is not named: $out"
grep -qF "clang-format -i src/exec/pool.c" <<<"$out" || fail "the fix is not named: $out"
rm -rf "$TMP"
echo "check_format: ok"
