# Shared set-up of the Redis end-to-end tests (sourced by tests/e2e_redis*.sh, with BIN, TMP and
# HERE set): a fresh scratch dir as the working directory, every background process the test starts
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
