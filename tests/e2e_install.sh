#!/usr/bin/env bash
# The C library as a user installs it: `cmake --install` of the build folder into a fresh prefix
# gives the CLI, libneuroevo.so, the headers and neuroevo.pc; examples/train.c compiled from
# outside the source tree with `pkg-config --cflags --libs neuroevo` (strict warnings, as C11)
# trains, and its run matches the build tree's CLI on the same config; the installed CLI runs.
# Skipped in sanitizer builds (a plain program cannot link an instrumented library).
# usage: e2e_install.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
case "$BIN" in *asan*) echo "e2e_install: skipped in a sanitizer build"; exit 0 ;; esac
BUILD=$(dirname "$BIN")
PREFIX=$TMP/prefix

cmake --install "$BUILD" --prefix "$PREFIX" >install.log || fail "cmake --install failed: $(tail -n 5 install.log)"
for f in bin/neuroevo lib/libneuroevo.so lib/pkgconfig/neuroevo.pc include/neuroevo/neuroevo.h include/neuroevo/run.h; do
  [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
flags=$(pkg-config --cflags --libs neuroevo) || fail "pkg-config does not know neuroevo"
cp "$HERE/../examples/train.c" .
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror train.c $flags -o train ||
  fail "examples/train.c does not build against the installed library"
out=$(LD_LIBRARY_PATH=$PREFIX/lib ./train A ga.population=40 run.generations=2 run.target=none) ||
  fail "the installed program failed: $out"
echo "$out" | grep -q "scores" || fail "no evaluation line: $out"
# (ldd's whole output first: grep -q stops reading at the match, and under pipefail the SIGPIPE
# ldd then gets failed the check at random)
libs=$(LD_LIBRARY_PATH=$PREFIX/lib ldd ./train)
echo "$libs" | grep -q "$PREFIX/lib/libneuroevo.so" || fail "train did not use the installed library: $libs"
# the same config through the CLI of the build tree: the same run
cat > same.ini <<INI
[run]
algorithm = ga
seed = 1
generations = 2
target = none
[env]
id = CartPole-v1
[policy]
hidden = 32,32
[ga]
population = 40
truncation = 20
sigma = 0.05
INI
"$BIN" run same.ini --out B --quiet
same_run B A "the installed library vs the build tree's CLI"
envs=$("$PREFIX/bin/neuroevo" envs) || fail "the installed CLI does not run"
grep -q "CartPole-v1" <<<"$envs" || fail "the installed CLI lists no CartPole-v1: $envs"
echo "e2e_install: all checks passed"
