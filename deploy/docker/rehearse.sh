#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs deploy/docker/Dockerfile's steps on this machine, without a container engine: the build
# context as `docker build` sends it (the checkout's files minus .dockerignore's), the build stage
# (image.sh build, with the Dockerfile's environment: ALE and Box2D built from scratch in the
# context's own .deps, neuroevo configured with ALE, MuJoCo and Box2D required), the runtime stage
# (image.sh runtime into a directory standing for the image's /) and the image's check (image.sh
# check: the Atari, MuJoCo and Box2D envs listed and run for a generation). What it cannot show: the
# base image's package set (this machine has more installed) and the container itself.
# About 6 minutes on 2 cores (ALE is most of it). Usage: deploy/docker/rehearse.sh [WORKDIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${1:-$(mktemp -d "${TMPDIR:-/tmp}/neuroevo-image.XXXXXX")}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
echo "rehearse: working in $WORK"

# the build context: tracked and untracked files, without what .dockerignore leaves out
rm -rf "$WORK/src" "$WORK/stage" "$WORK/root"
mkdir -p "$WORK/src"
(cd "$ROOT" && git ls-files -co --exclude-standard -z) |
  python3 -c '
import fnmatch, os, sys
pats = [l.strip() for l in open(os.path.join(sys.argv[1], ".dockerignore")) if l.strip() and not l.startswith("#")]
# as Docker reads it: a pattern names a path from the context root (a folder takes its contents
# along); "**/" matches any number of folders
def ignored(path):
    parts = path.split("/")
    prefixes = ["/".join(parts[:i + 1]) for i in range(len(parts))]
    for p in pats:
        if p.startswith("**/"):
            tails = ["/".join(parts[j:i + 1]) for i in range(len(parts)) for j in range(i + 1)]
            if any(fnmatch.fnmatch(t, p[3:]) for t in tails):
                return True
        elif any(fnmatch.fnmatch(x, p) for x in prefixes):
            return True
    return False
names = [n for n in sys.stdin.read().split("\0") if n]
sys.stdout.write("\0".join(n for n in names if not ignored(n) and os.path.lexists(os.path.join(sys.argv[1], n))))
' "$ROOT" | (cd "$ROOT" && tar --null -T - -cf -) | tar -xf - -C "$WORK/src"
echo "rehearse: build context of $(find "$WORK/src" -type f | wc -l) files"

# FROM debian:bookworm-slim AS build; ENV ...; RUN deploy/docker/image.sh build /src /stage
PIP_BREAK_SYSTEM_PACKAGES=1 NEUROEVO_DEPS=image "$WORK/src/deploy/docker/image.sh" build "$WORK/src" "$WORK/stage"
# FROM debian:bookworm-slim; RUN image.sh runtime /stage /; RUN image.sh check /usr/local
"$WORK/src/deploy/docker/image.sh" runtime "$WORK/stage" "$WORK/root"
"$WORK/src/deploy/docker/image.sh" check "$WORK/root/usr/local"
echo "rehearse: every step of the Dockerfile passed (the image itself was not built)"
