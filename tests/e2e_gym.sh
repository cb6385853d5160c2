#!/usr/bin/env bash
# End to end through the CLI with the Gymnasium bridge (src/envs/gym, python/neuroevo/envserver.py):
# a Deep GA run on gym:CartPole-v1 (Gymnasium's own CartPole in env server processes) reaches the
# target and writes a genome that `neuroevo eval` replays, with the same figure on 1 and 2 threads;
# an unknown Gymnasium id and an unsupported space are clean errors naming the env, and an id only
# Gymnasium has is answered with its gym: spelling; no server
# process outlives the CLI. Also run under ASan+UBSan by `make test` (the C side of the bridge).
# usage: e2e_gym.sh NEUROEVO_BINARY SCRATCH_DIR
set -euo pipefail
BIN=$1
TMP=$2
rm -rf "$TMP" && mkdir -p "$TMP"
cd "$TMP"
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- a run through the bridge -------------------------------------------------------------------
"$BIN" run cartpole-ga env.id=gym:CartPole-v1 ga.elite_episodes=20 --threads 2 --out A --quiet
grep -q "^env.id = gym:CartPole-v1" A/best.genome || fail "best.genome does not name gym:CartPole-v1"
tail -n 1 A/metrics.csv | awk -F, '{ exit !($8 >= 475) }' || fail "target not reached: $(tail -n 1 A/metrics.csv)"
one=$("$BIN" eval A --episodes 6 --seed 3 --threads 1)
two=$("$BIN" eval A --episodes 6 --seed 3 --threads 2)
echo "$one"
[ "$one" = "$two" ] || fail "eval differs between 1 and 2 threads: '$one' vs '$two'"
echo "$one" | grep -q "^gym:CartPole-v1: mean return" || fail "eval output: $one"

# --- errors name the env ---------------------------------------------------------------------------
if "$BIN" run cartpole-ga env.id=gym:NoSuchEnv-v0 --out B --quiet 2>err.txt; then fail "unknown id accepted"; fi
grep -q "gym:NoSuchEnv-v0" err.txt || fail "unknown id: $(cat err.txt)"
if "$BIN" run cartpole-ga env.id=gym:Blackjack-v1 --out C --quiet 2>err.txt; then fail "Tuple space accepted"; fi
grep -q "gym:Blackjack-v1: observation space Tuple.*not supported" err.txt || fail "unsupported space: $(cat err.txt)"

# an id Gymnasium has but neuroevo has not natively: the error says to write gym:ID
if "$BIN" run cartpole-ga env.id=FrozenLake-v1 --out D --quiet 2>err.txt; then fail "FrozenLake-v1 accepted"; fi
grep -q "unknown environment id 'FrozenLake-v1': Gymnasium has it, so env.id = gym:FrozenLake-v1" err.txt ||
  fail "no gym: suggestion: $(cat err.txt)"
# a typo of a native id still gets the native suggestion (no Gymnasium look-up)
if "$BIN" run cartpole-ga env.id=CartPol-v1 --out E --quiet 2>err.txt; then fail "CartPol-v1 accepted"; fi
grep -q "did you mean 'CartPole-v1'" err.txt || fail "typo: $(cat err.txt)"

# --- no server left behind ------------------------------------------------------------------------
# (orphans are re-parented to PID 1; servers of concurrent tests still have their parents)
if ps -eo ppid=,args= | awk '$1 == 1 && /envserver.py/ && /--env (CartPole-v1|NoSuchEnv-v0|Blackjack-v1)/' | grep -q .; then
  fail "an env server outlived the CLI"
fi
echo "e2e_gym: ok"
