#!/usr/bin/env bash
# scripts/check-commits passes on this checkout's history and, in a scratch repository, passes the
# messages the convention allows (subject only; subject, blank line, wrapped body; an unwrappable
# URL line; git's Revert subject) and fails, naming the commit and the rule, on each kind it
# forbids: a subject over 72 characters, one without a subsystem prefix, a body that does not
# follow a blank line, a body line over 72; and it fails when the starting commit is not in the
# history. Usage: check_commits.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
SRC=$(cd "$1" && pwd)
TMP=$2
CHECK=$SRC/scripts/check-commits
fail() { echo "FAIL: $*" >&2; exit 1; }

# the history as it is
"$CHECK" --repo "$SRC" || fail "check-commits fails on the checkout (see above)"

# a scratch repository: one base commit, then one commit a message
rm -rf "$TMP"
mkdir -p "$TMP"
cd "$TMP"
git init -q .
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
git commit -q --allow-empty -m "base commit before the convention, any form"
BASE=$(git rev-parse HEAD)
commit() { git commit -q --allow-empty --cleanup=verbatim -m "$1"; }
long=$(printf 'x%.0s' $(seq 80))

# allowed messages pass
commit "lockstep: park finished envs"
commit "docs, bench: group the benchmarks by role

The body says why and what was measured, wrapped at 72 columns so
that it reads in a terminal."
commit "envs/box2d: name the shim's functions ne__b2_*

See https://github.com/libuv/libuv/blob/v1.x/CONTRIBUTING.md#commit-message-guidelines-for-the-commit
https://example.org/a/path/that/is/long/enough/to/pass/seventy/two/columns/on/its/own/line"
commit 'Revert "lockstep: park finished envs"'
"$CHECK" --repo . "$BASE" || fail "allowed messages fail"

# expect SUBJECT_SHOWN RULE MESSAGE: one commit with MESSAGE fails, the output names it and RULE
expect() {
  local shown=$1 rule=$2 msg=$3 out rc=0
  commit "$msg"
  out=$("$CHECK" --repo . "$BASE" 2>&1) || rc=$?
  git reset -q --hard HEAD~1
  [ "$rc" = 1 ] || fail "'$msg': exit $rc, expected 1; output: $out"
  for want in "$shown" "$rule" "1 of"; do
    grep -qF -- "$want" <<<"$out" || fail "'$msg': output lacks '$want': $out"
  done
  echo "caught: $rule"
}
expect "exec: xxxxxxxxxx" "subject is 86 characters" "exec: $long"
expect "Fix the thing" "subject does not start with a subsystem prefix" "Fix the thing"
expect "review mend: x" "subject does not start with a subsystem prefix" "review mend: x"
expect "exec: a subject" "line 2 is not blank" "exec: a subject
glued body"
expect "exec: wrapped?" "body line 4 is 79 characters" "exec: wrapped?

a first line that is fine
a second line that is far too long for the convention's seventy-two columns, so"

# a starting commit the history lacks
out=$("$CHECK" --repo . 0123456789abcdef0123456789abcdef01234567 2>&1) && fail "an unknown start passed"
grep -qF "not in this clone's history" <<<"$out" || fail "unknown start not named: $out"

# and the good history passes again once the plants are gone
"$CHECK" --repo . "$BASE" || fail "check-commits fails after the plants were removed"
cd /
rm -rf "$TMP"
echo "check_commits: ok"
