# Shared set-up of the Redis end-to-end tests (sourced by tests/e2e_redis*.sh and
# tests/e2e_slurm_cluster.sh, with BIN, TMP and HERE set): a fresh scratch dir as the working directory, every background process the test starts
# (PIDS) and its private redis-server stopped on exit, fail() showing the tails of the logs.
rm -rf "$TMP" && mkdir -p "$TMP"
cd "$TMP"
PIDS=()  # every background process this script started (killed by PID on exit)
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  bash "$HERE/redis_test_server.sh" stop "$TMP/redis" || true
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$TMP"/*.log "$TMP"/*.err; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }; done
  exit 1
}
# a metrics.csv without its wall-clock column (the only one that may differ between runs)
strip_wall() { cut -d, -f1-3,5- "$1"; }
# metric rows a run directory has so far
rows() { if [ -f "$1/metrics.csv" ]; then echo $(($(wc -l < "$1/metrics.csv") - 1)); else echo 0; fi; }
same_as() {  # same_as REF DIR WHAT: metrics (minus wall_s) and best.genome identical
  diff <(strip_wall "$1/metrics.csv") <(strip_wall "$2/metrics.csv") >/dev/null || fail "$3: metrics differ from the local run"
  cmp -s "$1/best.genome" "$2/best.genome" || fail "$3: best.genome differs from the local run"
  echo "ok: $3 identical to the local run ($(($(wc -l < "$2/metrics.csv") - 1)) generations)"
}
wait_rows() {  # wait_rows DIR N: until DIR has N metric rows (60 s at most)
  for _ in $(seq 1 1200); do [ "$(rows "$1")" -ge "$2" ] && return 0; sleep 0.05; done
  fail "$1 never reached $2 generations"
}
