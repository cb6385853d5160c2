# SPDX-License-Identifier: MIT
"""Random-policy statistics of the Box2D envs, neuroevo against Gymnasium, each with its own random
streams (neuroevo's reset seeds and actions; Gymnasium's env.reset(seed=e) and a NumPy generator):
episode returns and lengths of both lander variants (5000 episodes a side) and of both walkers over
their first 200 steps (3000 a side for BipedalWalker-v3, 1000 for the hardcore one), compared with a
two-sample Kolmogorov-Smirnov test. tests/py_box2d_compare.py shows step-for-step equality from
Gymnasium's own draws; this is the check that the two sides' own streams give the same
distributions too.

Gymnasium's walker keeps one b2World per env, and the proxy ids a reset leaves change the order of
later contacts: the same episode (seed, actions) then ends differently in a reused env than in a
fresh one (616 of 1000 200-step random-policy episodes here get another return), and the return
distributions of the two differ too (p = 0.016, 0.0002, 0.032 with SEED 20, 21, 22). neuroevo makes a new world at every reset (an episode must be a function of its seed), i.e.
Gymnasium's fresh-env episodes, so the walkers are checked against Gymnasium with a fresh env per
episode; the comparison with one reused env, and Gymnasium's own fresh-vs-reused one, are printed
too. The landers make a new world per reset in both (one reused env is enough).

About 5 minutes of one core, nearly all on Gymnasium's side (its walkers step at ~2000 steps/s);
`make bench-box2d` and `make bench BENCH_LONG=1` run it. Usage: python3 bench/peers/box2d_stats.py
[BUILD_DIR] [SCALE] [SEED] (SCALE multiplies every episode count: 0.1 for a quick look; SEED, 20 by
default, seeds both sides). Exit 1 if a checked returns p-value is at most 0.01.
"""
import math
import os
import subprocess
import sys
import time
import warnings

import gymnasium as gym
import numpy as np

ALPHA = 0.01
# env id, episodes a side, TimeLimit (None: the env's own)
CASES = [("LunarLander-v3", 5000, None), ("LunarLanderContinuous-v3", 5000, None),
         ("BipedalWalker-v3", 3000, 200), ("BipedalWalkerHardcore-v3", 1000, 200)]


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


def ours(build, env_id, n, max_steps, seed=20):
    """(returns, lengths) from `test_box2d returns` (reset seeds hash(seed, e), random actions)."""
    exe = os.path.join(build, "tests", "test_box2d")
    cmd = [exe, "returns", env_id, "random", str(n), str(seed), str(max_steps or 0)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rows = np.array([[float(x) for x in line.split()[:2]] for line in out.stdout.strip().split("\n")])
    return rows[:, 0], rows[:, 1]


def gymnasiums(env_id, n, max_steps, seed=20, fresh=False):
    """(returns, lengths) of Gymnasium's env: one env reset n times, or (fresh) a new env per episode."""
    warnings.simplefilter("ignore")
    make = lambda: gym.make(env_id, max_episode_steps=max_steps) if max_steps else gym.make(env_id)
    env = make()
    rng, space = np.random.default_rng(seed), env.action_space
    returns, lengths = [], []
    for e in range(n):
        if fresh and e:
            env.close()
            env = make()
        env.reset(seed=seed * 1000003 + e)
        total, steps, done = 0.0, 0, False
        while not done:
            if isinstance(space, gym.spaces.Discrete):
                a = int(rng.integers(space.n))
            else:
                a = rng.uniform(space.low, space.high).astype(np.float32)
            _, r, term, trunc, _ = env.step(a)
            total += float(r)
            steps += 1
            done = term or trunc
        returns.append(total)
        lengths.append(steps)
    env.close()
    return np.array(returns), np.array(lengths)


def row(label, n, what, a, b):
    """One table row: a against b; returns the KS p-value."""
    d, p = ks_2samp(a, b)
    print("%-32s %6d %-22s %8.1f ± %6.1f %8.1f ± %6.1f %9.1f %9.1f %7.4f %8.4f" % (
        label, n, what, a.mean(), a.std(), b.mean(), b.std(), np.quantile(a, 0.01), np.quantile(b, 0.01), d, p))
    return p


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    print("%-32s %6s %-22s %17s %17s %9s %9s %7s %8s" % (
        "env", "eps", "what (a vs b)", "a mean±sd", "b mean±sd", "q01 a", "q01 b", "KS D", "p"))
    failed = 0
    for env_id, n, max_steps in CASES:
        n = max(20, int(n * scale))
        label = env_id + (" T=%d" % max_steps if max_steps else "")
        walker = "Walker" in env_id
        r_c, l_c = ours(build, env_id, n, max_steps, seed)
        t0 = time.process_time()
        r_g, l_g = gymnasiums(env_id, n, max_steps, seed, fresh=walker)
        side = "fresh envs" if walker else "one env"
        failed += row(label, n, "returns, ours vs gym", r_c, r_g) <= ALPHA
        row("  (Gymnasium: %s)" % side, n, "lengths, ours vs gym", l_c, l_g)
        if walker:
            r_r, _ = gymnasiums(env_id, n, max_steps, seed)
            row("  (Gymnasium: one env reused)", n, "returns, ours vs gym", r_c, r_r)
            row("", n, "returns, gym fresh/reused", r_g, r_r)
        print("%-32s (Gymnasium's side: %.0f s CPU)" % ("", time.process_time() - t0), flush=True)
    if failed:
        print("box2d_stats: %d returns distribution(s) differ at alpha = %g" % (failed, ALPHA))
        return 1
    print("box2d_stats: every checked returns p-value > %g" % ALPHA)
    return 0


if __name__ == "__main__":
    sys.exit(main())
