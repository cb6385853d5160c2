#!/usr/bin/env bash
# A private redis-server for tests (hiredis test.sh style): a free loopback port, its own directory,
# no persistence, only 127.0.0.1. Used by tests/e2e_redis.sh and bench/cluster/bench_redis.sh.
#   redis_test_server.sh start DIR     starts it, prints the port (DIR/redis.port, DIR/redis.pid)
#   redis_test_server.sh stop DIR      stops it (and waits until it is gone)
#   redis_test_server.sh restart DIR   stops it and starts an empty one on the same port (data lost)
set -euo pipefail
cmd=${1:?usage: redis_test_server.sh start|stop|restart DIR}
dir=${2:?usage: redis_test_server.sh start|stop|restart DIR}
SERVER=${NEUROEVO_REDIS_SERVER:-redis-server}
mkdir -p "$dir"

# Starts redis-server on port $1; 0 once it answers PING, 1 if it exited (port taken).
launch() {
  local port=$1
  "$SERVER" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --protected-mode yes \
    --daemonize no --logfile "$dir/redis.log" </dev/null >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 200); do
    if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
      echo "$pid" > "$dir/redis.pid"
      echo "$port" > "$dir/redis.port"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  kill "$pid" 2>/dev/null || true
  return 1
}

# A port nobody listens on now (python picks one the kernel considers free).
pick_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 30000))
}

stop() {
  [ -f "$dir/redis.pid" ] || return 0
  local pid
  pid=$(cat "$dir/redis.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/redis.pid"
}

case $cmd in
  start)
    for _ in 1 2 3 4 5; do
      port=$(pick_port)
      if launch "$port"; then echo "$port"; exit 0; fi
    done
    echo "redis_test_server.sh: could not start $SERVER (see $dir/redis.log)" >&2
    exit 1 ;;
  stop) stop ;;
  restart)
    port=$(cat "$dir/redis.port")
    stop
    for _ in $(seq 1 50); do launch "$port" && exit 0; sleep 0.1; done
    echo "redis_test_server.sh: could not restart on port $port" >&2
    exit 1 ;;
  *) echo "usage: redis_test_server.sh start|stop|restart DIR" >&2; exit 2 ;;
esac
