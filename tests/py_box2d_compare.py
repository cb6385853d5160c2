# SPDX-License-Identifier: MIT
# The Box2D envs (src/envs/box2d, Box2D 2.4.1) against Gymnasium's (pybox2d 2.3.10) in
# distribution: the two engines differ in the last bits, so trajectories diverge and only
# statistics can agree. Checks:
#   - Gymnasium's heuristic lander controller (lunar_lander.heuristic; re-implemented in C in
#     tests/test_box2d.c) scores >= 200 on average over 100 episodes in both implementations,
#     discrete and continuous;
#   - random-policy episode returns of both lander variants (1000 episodes each side) come from
#     the same distribution: two-sample Kolmogorov-Smirnov test, not rejected at alpha = 0.01;
#   - the same for both walkers over 200 episodes each side, with a TimeLimit of 150 steps on both
#     sides (pybox2d steps a walker at ~2000 steps/s; full episodes would take minutes).
# The C side is `test_box2d returns ...` next to the CLI (ctest sets NEUROEVO_BIN).
import math
import os
import subprocess
import warnings

import gymnasium as gym  # a missing Gymnasium or Box2D is an error, never a skip
import Box2D  # noqa: F401  (pip box2d==2.3.10, gymnasium[box2d])
import numpy as np
import pytest
from gymnasium.envs.box2d.lunar_lander import heuristic

BIN = os.environ.get("NEUROEVO_BIN")
ALPHA = 0.01
SUMMARY = []


def c_returns(env_id, policy, n, seed, max_steps=0):
    if not BIN:
        pytest.fail("NEUROEVO_BIN must name the built neuroevo CLI (ctest sets it)")
    exe = os.path.join(os.path.dirname(BIN), "tests", "test_box2d")
    cmd = [exe, "returns", env_id, policy, str(n), str(seed), str(max_steps)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, "%s failed: %s" % (" ".join(cmd), out.stderr)
    return np.array([float(line.split()[0]) for line in out.stdout.strip().split("\n")])


def gym_returns(env_id, policy, n, seed, max_steps=None):
    warnings.simplefilter("ignore")
    env = gym.make(env_id, max_episode_steps=max_steps) if max_steps else gym.make(env_id)
    rng = np.random.default_rng(seed)
    out = []
    for e in range(n):
        s, _ = env.reset(seed=seed * 100003 + e)
        total, done = 0.0, False
        while not done:
            if policy == "heuristic":
                a = heuristic(env, s)
            elif isinstance(env.action_space, gym.spaces.Discrete):
                a = int(rng.integers(env.action_space.n))
            else:
                sp = env.action_space
                a = rng.uniform(sp.low, sp.high).astype(np.float32)
            s, r, term, trunc, _ = env.step(a)
            total += float(r)
            done = term or trunc
        out.append(total)
    env.close()
    return np.array(out)


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


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
def test_heuristic_lander_scores_200(env_id):
    ours = c_returns(env_id, "heuristic", 100, 1)
    ref = gym_returns(env_id, "heuristic", 100, 1)
    SUMMARY.append((env_id, "heuristic, 100 eps", ours.mean(), ref.mean(), float("nan"), float("nan")))
    assert ours.mean() >= 200, "neuroevo %s: heuristic mean %.1f" % (env_id, ours.mean())
    assert ref.mean() >= 200, "Gymnasium %s: heuristic mean %.1f" % (env_id, ref.mean())


@pytest.mark.parametrize("env_id,n,max_steps", [
    ("LunarLander-v3", 1000, 0), ("LunarLanderContinuous-v3", 1000, 0),
    ("BipedalWalker-v3", 200, 150), ("BipedalWalkerHardcore-v3", 200, 150)])
def test_random_returns_same_distribution(env_id, n, max_steps):
    ours = c_returns(env_id, "random", n, 2, max_steps)
    ref = gym_returns(env_id, "random", n, 2, max_steps or None)
    d, p = ks_2samp(ours, ref)
    SUMMARY.append((env_id, "random, %d eps%s" % (n, ", T=%d" % max_steps if max_steps else ""), ours.mean(),
                    ref.mean(), d, p))
    assert p > ALPHA, "%s: KS D=%.3f p=%.4f (means %.2f vs %.2f)" % (env_id, d, p, ours.mean(), ref.mean())


def test_zz_summary(capsys):
    with capsys.disabled():
        print("\nenv                        episodes                  mean ours  mean gym     KS D    p")
        for env_id, what, mo, mg, d, p in SUMMARY:
            print("%-26s %-24s %9.2f %9.2f %8.3f %6.3f" % (env_id, what, mo, mg, d, p))
