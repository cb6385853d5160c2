# SPDX-License-Identifier: MIT
"""Random-policy statistics of the Box2D envs, neuroevo against Gymnasium, each with its own random
streams (neuroevo's reset seeds and actions; Gymnasium's env.reset(seed=...) and a NumPy generator),
compared with two-sample Kolmogorov-Smirnov tests: episode returns and lengths of both lander
variants (5000 episodes a side), and of both walkers over their first 200 steps (3000 a side for
BipedalWalker-v3, 1000 for the hardcore one) also the state at a fall (the final step of an
episode that ended with -100): the hull's angle, its angular and horizontal speed, the step.
Checked (exit 1 when a p-value is at most 0.01): the returns, and the walkers' hull angle at a fall.

Gymnasium's side also records the values its np_random returns, and every one of its episodes is
replayed through neuroevo (`test_box2d replay`) from those draws and actions: all of them must be
equal step for step (observations, rewards, flags). tests/py_box2d_compare.py does this for a few
dozen episodes inside `make test`; here it covers every episode of the statistics.

Gymnasium's walker keeps one b2World per env and destroys its bodies at each reset. The broad
phase's tree then recycles its freed nodes, so each episode's fixtures get other proxy ids than in
a new world; Box2D creates new contacts in the order of those ids (b2BroadPhase::UpdatePairs sorts
the pairs) and the order its solver visits them follows from that, so the same episode (seed,
actions) ends otherwise in a reused env than in a fresh one, depending on every episode the env ran
before (a walker that keeps its world the same way replays a reused Gymnasium env's episodes bit
for bit). Over many episodes the change does not average out: the walkers fall with another lean
(the hull angle at a fall differs between Gymnasium's own fresh and reused envs, printed below).
neuroevo makes a new world at every reset (an episode must be a function of its seed), i.e.
Gymnasium's fresh-env episodes, so the walkers are checked against Gymnasium with a fresh env per
episode; the comparison with one reused env, and Gymnasium's own fresh-vs-reused one, are printed
too. The landers make a new world per reset in both (one reused env is enough).

About 6 minutes of one core, nearly all on Gymnasium's side (its walkers step at ~2000 steps/s);
`make bench-box2d` and `make bench BENCH_LONG=1` run it. Usage: python3 bench/peers/box2d_stats.py
[BUILD_DIR] [SCALE] [SEED] (SCALE multiplies every episode count: 0.1 for a quick look; SEED, 20 by
default, seeds both sides).
"""
import math
import os
import subprocess
import sys
import time
import warnings

import gymnasium as gym
import numpy as np

# Gymnasium's draws recorded in call order, as the trace tests record them (one copy of the class)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
from py_box2d_compare import Recorder  # noqa: E402

ALPHA = 0.01
# env id, episodes a side, TimeLimit (None: the env's own)
CASES = [("LunarLander-v3", 5000, None), ("LunarLanderContinuous-v3", 5000, None),
         ("BipedalWalker-v3", 3000, 200), ("BipedalWalkerHardcore-v3", 1000, 200)]
# the state at a fall: (what, observation index or "step", scale to readable units, checked)
FALL_STATE = [("hull angle (rad)", 0, 1.0, True), ("hull angular speed (rad/s)", 1, 50 / 2.0, False),
              ("hull x speed (m/s)", 2, 50 / (0.3 * 20), False), ("step of the fall", "step", 1.0, False)]


def ks_2samp(a, b):
    """Two-sample KS statistic and its asymptotic p-value (scipy's 'asymp' method)."""
    a, b = np.sort(a), np.sort(b)
    both = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, both, side="right") / len(a)
    cdf_b = np.searchsorted(b, both, side="right") / len(b)
    d = float(np.max(np.abs(cdf_a - cdf_b)))
    en = math.sqrt(len(a) * len(b) / (len(a) + len(b)))
    lam = (en + 0.12 + 0.11 / en) * d  # Stephens' correction
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return d, min(max(p, 0.0), 1.0)


class Episodes:
    """One side's episodes: returns, lengths, and the final step's reward and observation."""

    def __init__(self):
        self.returns, self.lengths, self.last_reward, self.last_obs, self.terminated = [], [], [], [], []

    def add(self, ret, length, terminated, last_reward, last_obs):
        self.returns.append(ret)
        self.lengths.append(length)
        self.terminated.append(terminated)
        self.last_reward.append(last_reward)
        self.last_obs.append(np.asarray(last_obs, dtype=np.float64))

    def fall_state(self, index, scale):
        """index (an observation index, or "step") at the final step of each episode that fell."""
        fell = [t and r == -100 for t, r in zip(self.terminated, self.last_reward)]
        if index == "step":
            return np.array([n for n, f in zip(self.lengths, fell) if f], dtype=np.float64)
        return np.array([o[index] * scale for o, f in zip(self.last_obs, fell) if f])


def ours(build, env_id, n, max_steps, seed):
    """neuroevo's episodes from `test_box2d returns` (reset seeds hash(seed, e), random actions)."""
    exe = os.path.join(build, "tests", "test_box2d")
    cmd = [exe, "returns", env_id, "random", str(n), str(seed), str(max_steps or 0)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    eps = Episodes()
    for line in out.stdout.strip().split("\n"):
        v = line.split()
        eps.add(float(v[0]), int(v[1]), v[2] == "1", float(v[3]), [float(x) for x in v[4:]])
    return eps


def gymnasiums(env_id, n, max_steps, seed, fresh):
    """Gymnasium's episodes: one env reset n times, or (fresh) a new env per episode. Episode e's
    np_random is default_rng(seed * 1000003 + e), as env.reset(seed=...) would make it; returns the
    episodes and, for a replay, the draws/actions lines and every step's (obs, reward, flags)."""
    warnings.simplefilter("ignore")
    make = lambda: gym.make(env_id, max_episode_steps=max_steps) if max_steps else gym.make(env_id)
    env = make()
    rng, space = np.random.default_rng(seed), env.action_space
    eps, lines, rows = Episodes(), [], []
    for e in range(n):
        if fresh and e:
            env.close()
            env = make()
        rec = Recorder(seed * 1000003 + e)
        env.unwrapped._np_random = rec  # env.reset() keeps it
        obs, _ = env.reset()
        rows.append((obs, 0.0, False, False))
        actions, total, done = [], 0.0, False
        while not done:
            if isinstance(space, gym.spaces.Discrete):
                a = int(rng.integers(space.n))
            else:
                a = rng.uniform(space.low, space.high).astype(np.float32)
            obs, r, term, trunc, _ = env.step(a)
            actions.append(a)
            rows.append((obs, float(r), bool(term), bool(trunc)))
            total += float(r)
            done = term or trunc
        eps.add(total, len(actions), bool(term), float(r), obs)
        lines.append("reset " + " ".join(repr(float(v)) for v in rec.values))
        lines.extend("step " + " ".join(repr(float(x)) for x in np.ravel(a)) for a in actions)
    env.close()
    return eps, lines, rows


def replayed_equal(build, env_id, max_steps, eps, lines, rows):
    """How many of Gymnasium's episodes neuroevo replays equal step for step (one env state)."""
    exe = os.path.join(build, "tests", "test_box2d")
    out = subprocess.run([exe, "replay", env_id, str(max_steps or 0)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True)
    if out.returncode:
        print("test_box2d replay %s: %s" % (env_id, out.stderr.strip()))
        return 0
    ours = out.stdout.strip().split("\n")
    equal, k = 0, 0
    for length in eps.lengths:
        same = True
        for t in range(length + 1):
            obs, r, term, trunc = rows[k]
            v = [float(x) for x in ours[k].split(",")]
            n = len(np.ravel(obs))
            # neuroevo's truncated means "the TimeLimit ran out and the episode did not terminate";
            # Gymnasium's TimeLimit also sets it on a terminating step (a fall at the limit's step)
            same = same and np.array_equal(np.array(v[:n], dtype=np.float32), np.ravel(obs)) and (
                t == 0 or (v[n] == r and bool(v[n + 1]) == term and bool(v[n + 2]) == (trunc and not term)))
            k += 1
        equal += same
    return equal


def row(label, n, what, a, b):
    """One table row: a against b; returns the KS p-value."""
    d, p = ks_2samp(a, b)
    print("%-32s %6s %-36s %8.3f ± %7.3f %8.3f ± %7.3f %9.3f %9.3f %7.4f %8.4f" % (
        label, n, what, a.mean(), a.std(), b.mean(), b.std(), np.quantile(a, 0.01), np.quantile(b, 0.01), d, p))
    return p


def compare(label, n, against, a, b, walker):
    """The rows of a against b (returns, lengths, and a walker's state at a fall); returns how many
    checked p-values are at most ALPHA."""
    failed = row(label, n, "returns, " + against, np.array(a.returns), np.array(b.returns)) <= ALPHA
    row("", n, "lengths, " + against, np.array(a.lengths, float), np.array(b.lengths, float))
    if not walker:
        return failed
    for what, index, scale, checked in FALL_STATE:
        fa, fb = a.fall_state(index, scale), b.fall_state(index, scale)
        p = row("", "%d/%d" % (len(fa), len(fb)), "at a fall: " + what, fa, fb)
        failed += checked and p <= ALPHA
    return failed


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    print("%-32s %6s %-36s %18s %18s %9s %9s %7s %8s" % (
        "env", "eps", "what (a vs b)", "a mean±sd", "b mean±sd", "q01 a", "q01 b", "KS D", "p"))
    failed = 0
    for env_id, n, max_steps in CASES:
        n = max(20, int(n * scale))
        label = env_id + (" T=%d" % max_steps if max_steps else "")
        walker = "Walker" in env_id
        c = ours(build, env_id, n, max_steps, seed)
        t0 = time.process_time()
        g, lines, rows = gymnasiums(env_id, n, max_steps, seed, fresh=walker)
        side = "fresh envs" if walker else "one env"
        failed += compare(label, n, "ours vs gym (%s)" % side, c, g, walker)
        equal = replayed_equal(build, env_id, max_steps, g, lines, rows)
        print("%-32s Gymnasium's %d episodes replayed by neuroevo from their draws: %d equal step for step" % (
            "", n, equal))
        failed += equal != n
        if walker:
            r, _, _ = gymnasiums(env_id, n, max_steps, seed, fresh=False)
            compare("  (Gymnasium: one env reused)", n, "ours vs gym (reused)", c, r, walker)
            compare("", n, "gym fresh vs reused", g, r, walker)
        print("%-32s (Gymnasium's side: %.0f s CPU)" % ("", time.process_time() - t0), flush=True)
    if failed:
        print("box2d_stats: %d check(s) failed (a p-value at most %g, or a replay that differs)" % (failed, ALPHA))
        return 1
    print("box2d_stats: every checked p-value > %g, every replayed episode equal" % ALPHA)
    return 0


if __name__ == "__main__":
    sys.exit(main())
