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
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=e2e_common.sh
source "$HERE/e2e_common.sh"

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

# --- an env without a time limit ------------------------------------------------------------------
# Endless-v0 is registered without max_episode_steps and never ends an episode while ENDLESS=1 (with
# ENDLESS=0 an episode is 5 steps): the run warns, and one SIGTERM stops it within seconds (exit
# 143) though generation 0 never ends; nothing is saved, and resume then starts the run from the
# beginning: the same metrics as a run that was never interrupted.
cat > endless.py <<'PY'
import os
import gymnasium as gym
import numpy as np

class Endless(gym.Env):
    observation_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    action_space = gym.spaces.Discrete(2)
    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(2, np.float32), {}
    def step(self, action):
        self.t += 1
        done = os.environ.get("ENDLESS") == "0" and self.t >= 5
        return np.full(2, self.t % 2, np.float32), float(action), done, False, {}

gym.register("Endless-v0", entry_point=Endless)
PY
endless=(run cartpole-ga env.id=gym:endless:Endless-v0 ga.population=6 ga.truncation=2 ga.elite_candidates=2
         ga.elite_episodes=2 run.target=none --threads 1)
ENDLESS=1 PYTHONPATH=$PWD "$BIN" "${endless[@]}" --out F > F.out 2> F.err &
pid=$!
for _ in $(seq 1 600); do grep -q "run directory" F.out 2>/dev/null && break; sleep 0.05; done
sleep 1
kill -TERM $pid
stopped=0
for _ in $(seq 1 200); do kill -0 $pid 2>/dev/null || { stopped=1; break; }; sleep 0.05; done
[ $stopped = 1 ] || { kill -9 $pid; fail "SIGTERM did not stop a run stuck in an endless episode within 10 s"; }
set +e; wait $pid; rc=$?; set -e
[ $rc -eq 143 ] || fail "SIGTERM exit status $rc, expected 143: $(cat F.err)"
grep -q "warning: gym:endless:Endless-v0 has no time limit and env.max_episode_steps = 0" F.err ||
  fail "no warning about the missing time limit: $(cat F.err)"
grep -q "interrupted during generation 0: nothing finished yet; .neuroevo resume F. starts the run from the beginning" F.out ||
  fail "gen-0 interruption message: $(cat F.out)"
ENDLESS=0 PYTHONPATH=$PWD "$BIN" resume F --generations 2 --quiet 2> /dev/null || fail "resume after a gen-0 stop"
ENDLESS=0 PYTHONPATH=$PWD "$BIN" "${endless[@]}" --generations 2 --out G --quiet 2> /dev/null
diff <(cut -d, -f1-3,5- F/metrics.csv) <(cut -d, -f1-3,5- G/metrics.csv) ||
  fail "resume after a gen-0 stop differs from an uninterrupted run"

# --- no server left behind ------------------------------------------------------------------------
# (orphans are re-parented to PID 1; servers of concurrent tests still have their parents)
if ps -eo ppid=,args= | awk '$1 == 1 && /envserver.py/ && /--env (CartPole-v1|NoSuchEnv-v0|Blackjack-v1|endless)/' |
  grep -q .; then
  fail "an env server outlived the CLI"
fi
echo "e2e_gym: ok"
