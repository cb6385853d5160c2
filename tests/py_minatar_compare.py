# SPDX-License-Identifier: MIT
# The native MinAtar games (src/envs/minatar) against the reference implementation, PyPI minatar
# (written against 1.0.15). Both sides use their own random streams, so the comparison is
# statistical: for each game (the -v1 ids, minimal action sets, sticky actions 0.1, difficulty
# ramping on) the distributions of episode returns and lengths must agree under a two-sample
# Kolmogorov-Smirnov test, for a uniform random policy (1000 episodes per side; 300 for Freeway,
# whose episodes are always 2501 steps) and for a scripted policy per game (300 episodes; 100 for
# Freeway), which reaches deep into each game (ramping, surfacing, new waves). Our side runs
# through `neuroevo rollouts`; the scripted policies below mirror src/envs/minatar/minatar.c.
#
# Alignment of the reference: minatar's Environment keeps the sticky action of the previous
# episode across reset(); neuroevo restarts it at noop so that an episode depends on its seed
# alone, and so does this test's driver (env.last_action = 0 at every reset). Seeds are fixed, so
# the test is deterministic; alpha = 0.001 per comparison (20 comparisons).
#
# Run by ctest with NEUROEVO_BIN (the CLI) set; `pytest -s` prints the table of means and p-values.
import math
import os
import subprocess

import numpy as np
import pytest
from minatar import Environment  # a missing minatar is an error, never a skip (scripts/install-deps)

BIN = os.environ.get("NEUROEVO_BIN")
ALPHA = 1e-3
GAMES = {  # id name -> (minatar module name, minimal action set as minatar lists it)
    "Asterix": ("asterix", [0, 1, 2, 3, 4]),
    "Breakout": ("breakout", [0, 1, 3]),
    "Freeway": ("freeway", [0, 2, 4]),
    "Seaquest": ("seaquest", [0, 1, 2, 3, 4, 5]),
    "SpaceInvaders": ("space_invaders", [0, 1, 3, 5]),
}
EPISODES = {"random": 1000, "scripted": 300}
FREEWAY_EPISODES = {"random": 300, "scripted": 100}
MAX_STEPS = 3000  # a scripted Breakout paddle can keep the ball up for long; both sides cap here
NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)


# ---- two-sample Kolmogorov-Smirnov ------------------------------------------------------------

def ks_2samp(a, b):
    """Statistic D and the asymptotic p-value (Kolmogorov's series with Stephens' correction)."""
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    grid = np.concatenate([a, b])
    d = np.max(np.abs(np.searchsorted(a, grid, side="right") / len(a) -
                      np.searchsorted(b, grid, side="right") / len(b)))
    if d == 0:
        return 0.0, 1.0
    n = len(a) * len(b) / (len(a) + len(b))
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return float(d), min(1.0, max(0.0, p))


# ---- scripted policies: src/envs/minatar/minatar.c, on minatar's state() ---------------------------

def first(state, c):
    cells = np.argwhere(state[:, :, c])  # row-major order, like the C scan
    return (int(cells[0][0]), int(cells[0][1])) if len(cells) else None


def toward(x, target, same):
    return LEFT if target < x else RIGHT if target > x else same


def scripted_breakout(s):
    ball, paddle = first(s, 1), first(s, 0)
    if ball is None or paddle is None:
        return NOOP
    return toward(paddle[1], ball[1], NOOP)


def scripted_asterix(s):
    player = first(s, 0)
    if player is None:
        return NOOP
    py, px = player
    gold = np.argwhere(s[:, :, 3])
    best, best_score = 0, -1000
    for m, (dx, dy) in enumerate([(0, 0), (-1, 0), (0, -1), (1, 0), (0, 1)]):
        y, x = min(8, max(1, py + dy)), min(9, max(0, px + dx))
        score = -100 if any(0 <= x + k <= 9 and s[y, x + k, 1] for k in (-1, 0, 1)) else 0
        nearest = int(np.min(np.abs(gold[:, 0] - y) + np.abs(gold[:, 1] - x))) if len(gold) else 100
        score -= min(nearest, 100)
        if score > best_score:
            best, best_score = m, score
    return best


def scripted_freeway(s):
    chicken = first(s, 0)
    if chicken is None:
        return UP
    y = chicken[0] - 1
    if y >= 0 and s[y, 3:6, 1].any():
        return NOOP
    return UP


def scripted_seaquest(s):
    sub = first(s, 0)
    if sub is None:
        return NOOP
    sy, sx = sub
    oxygen = int(s[9, :, 7].sum())
    if oxygen <= 2 and sy > 0:
        return UP
    if sy == 0:
        return DOWN
    for d in range(1, 10):
        for side in (-1, 1):
            x = sx + side * d
            if 0 <= x <= 9 and (s[sy, x, 5] or s[sy, x, 6]):
                facing_right = sx > 0 and bool(s[sy, sx - 1, 1])
                return FIRE if (side > 0) == facing_right else (RIGHT if side > 0 else LEFT)
    return DOWN if sy < 5 else FIRE


def scripted_invaders(s):
    cannon = first(s, 0)
    if cannon is None:
        return NOOP
    px = cannon[1]
    if s[5:9, px, 5].any():
        return LEFT if px > 0 else RIGHT
    for d in range(10):
        for side in (-1, 1):
            x = px + side * d
            if 0 <= x <= 9 and s[:, x, 1].any():
                return toward(px, x, FIRE)
    return FIRE


SCRIPTED = {"Asterix": scripted_asterix, "Breakout": scripted_breakout, "Freeway": scripted_freeway,
            "Seaquest": scripted_seaquest, "SpaceInvaders": scripted_invaders}


# ---- the two sides -------------------------------------------------------------------------------

def reference(game, policy, episodes, seed):
    module, actions = GAMES[game]
    env = Environment(module)  # sticky_action_prob=0.1, difficulty_ramping=True
    env.seed(seed)
    pick = np.random.RandomState(seed + 1)
    returns, lengths = [], []
    for _ in range(episodes):
        env.reset()
        env.last_action = 0  # see the alignment note at the top
        ret, n, done = 0, 0, False
        while not done and n < MAX_STEPS:
            if policy == "random":
                a = actions[pick.randint(len(actions))]
            else:
                a = SCRIPTED[game](env.state())
            r, done = env.act(a)
            ret += r
            n += 1
        returns.append(ret)
        lengths.append(n)
    return np.array(returns), np.array(lengths)


def ours(game, policy, episodes, seed):
    if not BIN or not os.access(BIN, os.X_OK):
        pytest.fail("NEUROEVO_BIN must name the built neuroevo CLI (ctest sets it)")
    cmd = [BIN, "rollouts", "MinAtar/%s-v1" % game, "--policy", policy, "--episodes", str(episodes),
           "--seed", str(seed), "--max-steps", str(MAX_STEPS)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, "%s failed (%d): %s" % (" ".join(cmd), out.returncode, out.stderr)
    lines = out.stdout.strip().split("\n")
    assert lines[0] == "episode,return,length", lines[0]
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    assert len(rows) == episodes and (rows[:, 0] == np.arange(episodes)).all()
    return rows[:, 1], rows[:, 2]


@pytest.mark.parametrize("policy", ["random", "scripted"])
@pytest.mark.parametrize("game", list(GAMES))
def test_distributions_agree(game, policy):
    episodes = (FREEWAY_EPISODES if game == "Freeway" else EPISODES)[policy]
    r_ref, l_ref = reference(game, policy, episodes, seed=1234)
    r_our, l_our = ours(game, policy, episodes, seed=1234)
    lines = []
    for what, a, b in (("return", r_ref, r_our), ("length", l_ref, l_our)):
        d, p = ks_2samp(a, b)
        lines.append("%-13s %-8s %-6s ref mean %8.2f  ours %8.2f  KS D %.3f p %.3f" %
                     (game, policy, what, a.mean(), b.mean(), d, p))
        assert p > ALPHA, "%s %s: %s distributions differ: %s" % (game, policy, what, lines[-1])
    print("\n" + "\n".join(lines))
