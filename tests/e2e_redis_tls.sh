#!/usr/bin/env bash
# Encrypted Redis through a tunnel, as docs/deploy.md "Encrypted Redis" describes it: redis-server
# serves TLS only (its own TLS port, client certificates required, a password), and the master and
# the workers reach it through stunnel in client mode on loopback (the server's certificate checked
# against a CA and a host name, a client certificate presented). A run through the tunnel equals a
# local run; the TLS port refuses a plain connection, a tunnel without a client certificate and a
# tunnel that trusts another CA; `rediss://` is refused with a pointer to the tunnel.
# usage: e2e_redis_tls.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=redis_e2e_common.sh
source "$HERE/redis_e2e_common.sh"
need_hiredis
command -v stunnel4 >/dev/null || command -v stunnel >/dev/null ||
  fail "stunnel not found: install Debian's stunnel4 (scripts/install-deps)"
STUNNEL=$(command -v stunnel4 || command -v stunnel)

# ---- certificates: a CA, the server's (localhost, 127.0.0.1), a client's; another CA ------------
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
for ca in ca other-ca; do
  key $ca.key
  openssl req -x509 -new -key $ca.key -out $ca.crt -days 2 -subj "/CN=neuroevo test $ca" 2>/dev/null
done
sign() {  # sign NAME SUBJECT [EXTENSIONS]
  key "$1.key"
  openssl req -new -key "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 2 \
    ${3:+-extfile <(printf '%s\n' "$3")} 2>/dev/null
}
sign server /CN=localhost "subjectAltName=DNS:localhost,IP:127.0.0.1"
sign client /CN=neuroevo-worker
chmod 600 ./*.key

# ---- redis-server with TLS only -------------------------------------------------------------
tls_port=$(free_port)
export NEUROEVO_REDIS_PASSWORD=tls-test-secret
redis-server --port 0 --tls-port "$tls_port" --bind 127.0.0.1 --tls-cert-file server.crt --tls-key-file server.key \
  --tls-ca-cert-file ca.crt --tls-auth-clients yes --requirepass "$NEUROEVO_REDIS_PASSWORD" --save "" \
  --appendonly no --dir "$TMP" --logfile "$TMP/redis.log" </dev/null >/dev/null 2>&1 &
PIDS+=($!)
# tunnel NAME CA [CERT]: stunnel in client mode on a free loopback port (TUNNEL_PORT): TLS to the
# server, whose certificate must chain to CA and name localhost; CERT is presented when given.
# Called in this shell, not in $(...), so that its stunnel joins PIDS and is stopped on exit.
tunnel() {
  local port
  port=$(free_port)
  {
    printf 'foreground = yes\npid =\noutput = %s/%s.log\n[redis]\nclient = yes\n' "$TMP" "$1"
    printf 'accept = 127.0.0.1:%s\nconnect = 127.0.0.1:%s\n' "$port" "$tls_port"
    printf 'CAfile = %s\nverifyChain = yes\ncheckHost = localhost\nsslVersionMin = TLSv1.2\n' "$TMP/$2"
    [ -z "${3:-}" ] || printf 'cert = %s/%s.crt\nkey = %s/%s.key\n' "$TMP" "$3" "$TMP" "$3"
  } > "$1.conf"
  "$STUNNEL" "$TMP/$1.conf" </dev/null >/dev/null 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
    sleep 0.05
  done
  TUNNEL_PORT=$port
}
tunnel tunnel ca.crt client
port=$TUNNEL_PORT
URL=redis://127.0.0.1:$port
for _ in $(seq 1 100); do "$BIN" status --redis "$URL" >/dev/null 2>&1 && break; sleep 0.1; done
"$BIN" status --redis "$URL" >status.txt 2>&1 || fail "status through the tunnel: $(cat status.txt)"
echo "ok: neuroevo reaches a TLS-only Redis through stunnel (CA checked, client certificate)"

# ---- a run through the tunnel equals a local run --------------------------------------------
cat > det.ini <<'INI'
[run]
algorithm = ga
seed = 9
generations = 8
target = none
plot_every = 0
[env]
id = CartPole-v1
[policy]
hidden = 8
[ga]
population = 30
truncation = 5
sigma = 0.05
elite_candidates = 2
elite_episodes = 3
INI
"$BIN" run det.ini --threads 2 --out L --quiet >/dev/null
for w in w1 w2; do
  "$BIN" worker --redis "$URL" --threads 1 --name $w --heartbeat 0.25 >>$w.log 2>&1 &
  PIDS+=($!)
done
timeout 120 "$BIN" run det.ini --redis "$URL" --out R --quiet >/dev/null 2>master.log || fail "run through the tunnel: $(tail -3 master.log)"
same_as L R "run through a TLS tunnel"

# ---- what the TLS port refuses --------------------------------------------------------------
refused() {  # refused URL WHAT: neuroevo cannot use URL
  local out
  if out=$(timeout 20 "$BIN" status --redis "$1" 2>&1); then fail "$2 was accepted: $out"; fi
}
refused "redis://127.0.0.1:$tls_port" "a plain connection to the TLS port"
tunnel nocert ca.crt
refused "redis://127.0.0.1:$TUNNEL_PORT" "a tunnel without a client certificate"
tunnel otherca other-ca.crt client
refused "redis://127.0.0.1:$TUNNEL_PORT" "a tunnel that trusts another CA"
grep -qi "certificate verify failed\|verify" otherca.log || fail "stunnel did not fail the server's certificate: $(cat otherca.log)"
echo "ok: the TLS port refuses plain clients, clients without a certificate, and a server of another CA is refused"
out=$("$BIN" status --redis "rediss://:$NEUROEVO_REDIS_PASSWORD@127.0.0.1:$tls_port" 2>&1) && fail "rediss:// accepted: $out"
echo "$out" | grep -q "rediss:// (TLS) is not built in: run a TLS tunnel (stunnel) .*docs/deploy.md, \"Encrypted Redis\"" ||
  fail "rediss:// refusal: $out"
! echo "$out" | grep -q "$NEUROEVO_REDIS_PASSWORD" || fail "the rediss:// refusal shows the password: $out"
echo "ok: rediss:// is refused with a pointer to the tunnel (and without the URL's password)"
echo "e2e_redis_tls: all checks passed"
