#!/usr/bin/env bash
# End to end through the CLI: every run directory gets run.json with its provenance (command line,
# source config and hash, overrides, the keys that differ from the source and the defaults, build,
# machine, executor, times, status, result, tags, note); a resume adds a session; `neuroevo runs`
# lists runs at any depth (a study's too, and an older run without run.json), filters them by
# status, env, config key, numbers and tags, sorts them and speaks JSON; a killed run shows as
# killed; `neuroevo tag` adds and removes tags and sets the note; bad input exits 2.
# usage: e2e_runs.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

# field FILE PATH: a field of a JSON file by dotted path ("config.source"), as JSON text
field() {
  python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}

# a base config and one that starts from it
cat > base.ini <<'INI'
[run]
algorithm = es
generations = 3
target = none
plot_every = 0
[env]
id = Pendulum-v1
[policy]
hidden = 8
[es]
population = 8
INI
printf '[run]\nbase = base\n[es]\nsigma = 0.05\n' > child.ini

# --- a run: its record ---------------------------------------------------------------------------
"$BIN" run child.ini es.lr=0.02 --threads 1 --quiet --out runs/a --tag first --note "a note" > /dev/null
R=runs/a/run.json
[ -s $R ] || fail "no run.json"
[ "$(field $R format)" = 1 ] || fail "format"
[ "$(field $R status)" = finished ] || fail "status: $(field $R status)"
[ "$(field $R reason)" = "generation budget reached" ] || fail "reason"
[ "$(field $R command)" = '["'"$BIN"'", "run", "child.ini", "es.lr=0.02", "--threads", "1", "--quiet", "--out", "runs/a", "--tag", "first", "--note", "a note"]' ] ||
  fail "command line: $(field $R command)"
[ "$(field $R config.source)" = child.ini ] || fail "source: $(field $R config.source)"
[ "$(field $R config.files.0.path)" = ./base.ini ] || fail "base file: $(field $R config.files)"
[ "$(field $R config.files.1.hash)" = "crc32c:$(python3 -c 'import sys
def crc32c(b):
    c = 0xffffffff
    for x in b:
        c ^= x
        for _ in range(8): c = (c >> 1) ^ (0x82f63b78 & -(c & 1))
    return c ^ 0xffffffff
print("%08x" % crc32c(open("child.ini", "rb").read()))')" ] || fail "hash of child.ini: $(field $R config.files.1.hash)"
[ "$(field $R config.overrides)" = '["es.lr=0.02"]' ] || fail "overrides: $(field $R config.overrides)"
[ "$(field $R config.changed_from_source)" = '{"es.lr": "0.02"}' ] || fail "changed_from_source: $(field $R config.changed_from_source)"
[ "$(field $R config.changed_from_defaults.es.sigma 2>/dev/null || field $R 'config.changed_from_defaults')" != "" ] || true
python3 - "$R" <<'PY' || fail "changed_from_defaults, build, machine, result fields"
import json, sys
r = json.load(open(sys.argv[1]))
d = r["config"]["changed_from_defaults"]
assert d["es.sigma"] == "0.05" and d["es.population"] == "8" and d["es.lr"] == "0.02", d
assert "run.seed" not in d, d
n = r["neuroevo"]
assert n["version"] and n["commit"] and n["compiler"] and n["build"] and n["simd"] in ("base", "avx2", "avx512"), n
m = r["machine"]
assert m["host"] and m["cpu"] and m["cores"] >= 1 and m["os"], m
assert r["executor"] == "local, 1 thread", r["executor"]
assert r["created"].endswith("Z") and r["ended"].endswith("Z"), r
assert r["tags"] == ["first"] and r["note"] == "a note", r
res = r["result"]
assert res["generations"] == 3 and res["evaluations"] > 0 and res["env_steps"] > 0, res
assert res["wall_s"] >= 0 and res["cpu_s"] >= 0 and isinstance(res["best"], float), res
assert len(r["sessions"]) == 1 and r["sessions"][0]["status"] == "finished", r["sessions"]
PY
grep -q "^# set by command line: es.lr=0.02$" runs/a/config.ini || fail "config.ini does not name the override"

# a resume with a new budget is a second session; the record keeps the first command
"$BIN" resume runs/a --generations 5 --quiet > /dev/null
python3 - "$R" <<'PY' || fail "the resumed record"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["sessions"]) == 2 and r["sessions"][1]["command"][1] == "resume", r["sessions"]
assert r["command"][1] == "run" and r["result"]["generations"] == 5 and r["status"] == "finished", r
PY

# --- more runs: a study's, a failed one, a killed one, an older one ------------------------------
"$BIN" run base.ini --threads 1 --quiet --out runs/study-x/arm1/seed0 run.seed=4 > /dev/null
"$BIN" run cartpole-ga ga.population=20 ga.truncation=5 run.generations=2 run.target=none --threads 1 --quiet \
  --out runs/b > /dev/null
# an optimizer that raises in its third generation (tests/opt_classes.py)
printf '[run]\nalgorithm = python\ngenerations = 5\ntarget = none\nplot_every = 0\n[env]\nid = CartPole-v1\n[python]\nclass = opt_classes:Flaky\noptions = x0=x0, seed=seed\n' > flaky.ini
set +e
NE_TEST_RAISE_AT=2 PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" "$BIN" run flaky.ini --threads 1 --quiet --out runs/failed \
  > /dev/null 2>&1
set -e
[ "$(field runs/failed/run.json status)" = failed ] || fail "a failed run's status: $(field runs/failed/run.json status)"
field runs/failed/run.json reason | grep -q "flaky optimizer gave up in generation 2" ||
  fail "a failed run's error: $(field runs/failed/run.json reason)"
# a run killed mid-way: its record says running until its process is gone
"$BIN" run base.ini run.generations=0 --threads 1 --quiet --out runs/killed > /dev/null &
pid=$!
for _ in $(seq 100); do [ -s runs/killed/metrics.csv ] && [ "$(wc -l < runs/killed/metrics.csv)" -gt 2 ] && break; sleep 0.1; done
"$BIN" runs runs --filter status=running | grep -q "runs/killed" || fail "a live run is not listed as running"
kill -9 $pid
wait $pid 2> /dev/null || true
[ "$(field runs/killed/run.json status)" = running ] || fail "the killed run's record changed"
"$BIN" runs runs --filter status=killed > killed.out
grep -q "runs/killed .*killed" killed.out || fail "a killed run is not listed as killed: $(cat killed.out)"
# an older run: no run.json
mkdir -p runs/old && cp runs/b/config.ini runs/b/metrics.csv runs/b/log.txt runs/old/

# --- neuroevo runs ------------------------------------------------------------------------------
"$BIN" runs > all.out 2> all.err
for d in runs/a runs/b runs/study-x/arm1/seed0 runs/killed runs/old; do
  grep -q "^$d " all.out || fail "runs lacks $d: $(cat all.out)"
done
grep -q "^6 runs$" all.err || fail "expected 6 runs: $(cat all.err)"
grep -q "^runs/old .*finished .*CartPole-v1 .*ga " all.out || fail "the older run: $(grep old all.out)"
grep -q "^runs/a .*finished .*Pendulum-v1 .*es  .* 5 " all.out || fail "run a's row: $(grep 'runs/a ' all.out)"
[ "$("$BIN" runs --filter env=Pendulum* --filter status=finished 2>/dev/null | tail -n +2 | wc -l)" -eq 2 ] ||
  fail "filter env glob + status"
[ "$("$BIN" runs --filter es.sigma=0.05 2>/dev/null | tail -n +2 | awk '{print $1}')" = runs/a ] || fail "filter by a config key"
[ "$("$BIN" runs --filter "generations>=5" --filter algorithm=es --filter status=finished 2>/dev/null | tail -n +2 | awk '{print $1}')" = runs/a ] ||
  fail "numeric filter"
[ "$("$BIN" runs --filter status!=finished 2>/dev/null | tail -n +2 | wc -l)" -eq 2 ] || fail "!= filter"
[ "$("$BIN" runs --filter status=failed 2>/dev/null | tail -n +2 | awk '{print $1}')" = runs/failed ] ||
  fail "the failed run: $("$BIN" runs --filter status=failed)"
[ "$("$BIN" runs runs/study-x 2>/dev/null | tail -n +2 | awk '{print $1}')" = runs/study-x/arm1/seed0 ] || fail "runs DIR"
"$BIN" runs --sort -env_steps 2>/dev/null | tail -n +2 | awk '{print $1}' > sorted.out
"$BIN" runs --json > all.json
python3 - all.json sorted.out <<'PY' || fail "--json or --sort"
import json, sys
runs = json.load(open(sys.argv[1]))
assert len(runs) == 6
by = {r["dir"]: r for r in runs}
a = by["runs/a"]
assert a["record"]["config"]["source"] == "child.ini" and a["generations"] == 5 and a["tags"] == ["first"], a
assert by["runs/old"]["record"] is None and by["runs/old"]["env"] == "CartPole-v1"
assert by["runs/failed"]["status"] == "failed" and by["runs/failed"]["reason"], by["runs/failed"]
order = open(sys.argv[2]).read().split()
steps = [by[d]["env_steps"] or 0 for d in order]
assert steps == sorted(steps, reverse=True), (order, steps)
PY

# --- neuroevo tag ---------------------------------------------------------------------------------
"$BIN" tag runs/b good baseline --note "the one"
"$BIN" tag runs/a good
[ "$("$BIN" runs --tag good --tag baseline 2>/dev/null | tail -n +2 | awk '{print $1}')" = runs/b ] || fail "--tag (all given)"
"$BIN" tag runs/b --remove baseline
[ "$(field runs/b/run.json tags)" = '["good"]' ] || fail "--remove: $(field runs/b/run.json tags)"
[ "$(field runs/b/run.json note)" = "the one" ] || fail "--note"
"$BIN" tag runs/old legacy
[ "$(field runs/old/run.json tags)" = '["legacy"]' ] || fail "tagging an older run"

# --- bad input --------------------------------------------------------------------------------------
expect_fail() {  # expect_fail CODE TEXT CMD...: exits CODE and says TEXT
  local code=$1 text=$2
  shift 2
  set +e
  out=$("$@" 2>&1)
  rc=$?
  set -e
  [ $rc -eq "$code" ] && grep -qF -- "$text" <<< "$out" || fail "$*: rc=$rc, expected $code with '$text': $out"
}
expect_fail 2 "no such directory" "$BIN" runs nowhere
expect_fail 2 "expected KEY=VALUE" "$BIN" runs --filter status
expect_fail 2 "unknown option" "$BIN" runs --bogus
expect_fail 2 "not a run directory" "$BIN" tag nowhere x
expect_fail 2 "one word without commas" "$BIN" tag runs/a "a,b"
expect_fail 2 "usage: neuroevo tag" "$BIN" tag runs/a
echo "e2e_runs: all checks passed"
