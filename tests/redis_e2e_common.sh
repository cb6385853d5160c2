# Shared set-up of the Redis end-to-end tests (sourced by tests/e2e_redis*.sh and
# tests/e2e_slurm_cluster.sh, with BIN, TMP and HERE set): e2e_common.sh (a fresh scratch dir as the
# working directory, fail, strip_wall, rows, same_run) with fail() showing the tails of the logs,
# and every background process the test starts (PIDS) and its private redis-server stopped on exit.
E2E_TAIL_LOGS=1  # fail() shows the tails of the workers' and masters' logs
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"
PIDS=()  # every background process this script started (killed by PID on exit)
cleanup() {
  # their children first: a master started through `timeout` outlives timeout's SIGKILL and, with
  # its Redis gone, would wait for it with the test's output open (ctest then waits for it)
  for p in "${PIDS[@]}"; do pkill -9 -P "$p" 2>/dev/null || true; kill -9 "$p" 2>/dev/null || true; done
  bash "$HERE/redis_test_server.sh" stop "$TMP/redis" || true
}
trap cleanup EXIT
same_as() {  # same_as REF DIR WHAT: metrics (minus wall_s) and best.genome identical to the local run REF
  same_run "$1" "$2" "$3 (vs the local run)"
  echo "ok: $3 identical to the local run ($(rows "$2") generations)"
}
wait_rows() {  # wait_rows DIR N: until DIR has N metric rows (60 s at most)
  for _ in $(seq 1 1200); do [ "$(rows "$1")" -ge "$2" ] && return 0; sleep 0.05; done
  fail "$1 never reached $2 generations"
}
