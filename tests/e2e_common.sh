# What every tests/e2e_*.sh shares; sourced right after `BIN=$1 TMP=$2` (the binary and the scratch
# directory ctest passes):
#   - BIN made absolute, TMP emptied and made the working directory;
#   - fail MSG: "FAIL: MSG" on stderr and exit 1. Scripts that report every failed check before
#     failing set E2E_KEEP_GOING=1 before sourcing: fail then counts into FAILS and the script ends
#     with `e2e_finish NAME`. E2E_TAIL_LOGS=1 (the Redis tests) also prints the last lines of the
#     scratch directory's *.log and *.err files;
#   - strip_wall FILE: a metrics.csv without its wall_s column (the only one that may differ between
#     runs); rows DIR: the metric rows a run directory has so far; same_run REF DIR WHAT: metrics
#     (minus wall_s) and best.genome of DIR identical to REF's; need_hiredis: fails unless BIN was
#     built with Redis support; free_port [N]: a loopback port P with P .. P+N-1 free (N = 1).
# shellcheck shell=bash
: "${BIN:?e2e_common.sh: set BIN before sourcing}" "${TMP:?e2e_common.sh: set TMP before sourcing}"
case "$BIN" in /*) ;; *) BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") ;; esac
rm -rf "$TMP" && mkdir -p "$TMP"
cd "$TMP" || exit 1
FAILS=0

fail() {
  echo "FAIL: $*" >&2
  if [ "${E2E_TAIL_LOGS:-0}" = 1 ]; then
    for f in "$TMP"/*.log "$TMP"/*.err; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }; done
  fi
  if [ "${E2E_KEEP_GOING:-0}" = 1 ]; then
    FAILS=$((FAILS + 1))
    return 0
  fi
  exit 1
}

# e2e_finish NAME: with E2E_KEEP_GOING, the verdict over every check (exit 1 if any failed)
e2e_finish() {
  if [ "$FAILS" -ne 0 ]; then
    echo "$1: $FAILS check(s) failed" >&2
    exit 1
  fi
  echo "$1: all checks passed"
}

strip_wall() { cut -d, -f1-3,5- "$1"; }

rows() { if [ -f "$1/metrics.csv" ]; then echo $(($(wc -l <"$1/metrics.csv") - 1)); else echo 0; fi; }

same_run() {
  diff <(strip_wall "$1/metrics.csv") <(strip_wall "$2/metrics.csv") >/dev/null || fail "$3: metrics differ from $1"
  cmp -s "$1/best.genome" "$2/best.genome" || fail "$3: best.genome differs from $1"
}

free_port() {
  python3 - "${1:-1}" <<'PY' || fail "no ${1:-1} consecutive free loopback ports"
import socket, sys
n = int(sys.argv[1])
for _ in range(100):
    held = [socket.socket()]
    held[0].bind(("127.0.0.1", 0))
    p = held[0].getsockname()[1]
    try:
        for k in range(1, n):
            held.append(socket.socket())
            held[-1].bind(("127.0.0.1", p + k))
    except OSError:
        continue
    print(p)
    sys.exit(0)
sys.exit(1)
PY
}

need_hiredis() {
  if { "$BIN" status --redis redis://127.0.0.1:1 2>&1 || true; } | grep -q "no Redis support"; then
    fail "$BIN was built without hiredis: install libhiredis-dev (scripts/install-deps) and rebuild"
  fi
}
