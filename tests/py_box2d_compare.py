# SPDX-License-Identifier: MIT
# The Box2D envs (src/envs/box2d: Box2D 2.3 built from pybox2d's sdist by scripts/build-box2d)
# against Gymnasium's (the pybox2d 2.3.10 wheel), step for step. Gymnasium's env.unwrapped.np_random
# is replaced by a recorder around the same generator, so every value that reset and step draw
# (terrain, forces, engine dispersion, clouds) is kept in call order; `neuroevo trace ENV
# --draws-file D --actions-file A` replays them with the same float32 actions, and every
# observation (float32), reward (float64) and terminated/truncated flag must be equal, for whole
# episodes: the same engine built with the same float semantics gives the same bits, so nothing is
# allowed to drift (not even after contact, where Box2D 2.4 and 2.3 parted).
#   - LunarLander-v3 and LunarLanderContinuous-v3: random actions (crashes, flights off the
#     screen) and Gymnasium's heuristic (leg contacts, landings that end at rest with +100);
#   - BipedalWalker-v3 and BipedalWalkerHardcore-v3: random actions and Gymnasium's
#     BipedalWalkerHardcore heuristic gait (leg contacts, a walk to the terrain's end, a 1600-step
#     truncation), through falls of every kind: the hull on the ground, a walker on its back, knees
#     and thighs on the ground and shins upside down (contacts Gymnasium's ground_contact flags do
#     not track, which still push the walker), and hardcore falls at a stump, in a pit and on stairs;
#   - consecutive episodes of one env state (test_box2d replay) against Gymnasium's episodes in
#     fresh envs, among them 40 random walkers' first 200 steps (22 of them fall): neuroevo starts
#     every episode from a new b2World, so an episode does not depend on the ones before it (a
#     result must not depend on which thread's env ran what before). Gymnasium's walker keeps its
#     world, and there it does: its hardcore episode of seed 200 differs after the one of seed 100
#     in the same env, which these cases include (keeping the world here, as Gymnasium does, fails
#     them; so does keeping the lander's).
# A coverage check asserts that these cases reached every kind of event named above.
# Random-policy statistics with independent streams (5000 lander and 3000 walker episodes a side,
# Kolmogorov-Smirnov) are bench/peers/box2d_stats.py's, outside `make test`.
import math
import os
import subprocess
import warnings

import gymnasium as gym  # a missing Gymnasium or Box2D is an error, never a skip
import Box2D  # noqa: F401  (pip box2d==2.3.10, gymnasium[box2d])
import numpy as np
import pytest
from gymnasium.envs.box2d.bipedal_walker import TERRAIN_STEP, BipedalWalkerHeuristics
from gymnasium.envs.box2d.lunar_lander import heuristic as lander_heuristic

BIN = os.environ.get("NEUROEVO_BIN")
SEEN = set()  # kinds of events the traces went through (test_zz_coverage)


class Recorder:
    """np_random stand-in: the real generator's values, kept in call order."""

    def __init__(self, seed):
        self.rng, self.values = np.random.default_rng(seed), []

    def _keep(self, v):
        self.values.extend(np.ravel(v).tolist())
        return v

    def uniform(self, *a, **k):
        return self._keep(self.rng.uniform(*a, **k))

    def integers(self, *a, **k):
        return self._keep(self.rng.integers(*a, **k))

    def random(self, *a, **k):
        return self._keep(self.rng.random(*a, **k))


def make_policy(env, policy, seed):
    """float32 actions (the action space's dtype, and what neuroevo's policies emit)."""
    space, rng = env.action_space, np.random.default_rng(seed + 7919)
    walker = BipedalWalkerHeuristics()
    action = np.zeros(4)

    def act(obs):
        nonlocal action
        if policy == "random" and isinstance(space, gym.spaces.Discrete):
            return int(rng.integers(space.n))
        if policy == "random":
            return rng.uniform(space.low, space.high).astype(np.float32)
        if policy == "heuristic" and "Lunar" in env.spec.id:
            a = lander_heuristic(env.unwrapped, obs)
            return a if isinstance(space, gym.spaces.Discrete) else np.asarray(a, np.float32)
        action = walker.step_heuristic(obs)
        return np.asarray(action, np.float32)

    return act


def gym_episode(env, policy, seed):
    """One Gymnasium episode: (draws, actions, rows of (obs, reward, terminated, truncated))."""
    rec = Recorder(seed)
    env.unwrapped._np_random = rec  # reset(seed=None) keeps it
    obs, _ = env.reset()
    act = make_policy(env, policy, seed)
    rows, actions, done = [(obs, 0.0, False, False)], [], False
    while not done:
        a = act(obs)
        obs, r, term, trunc, _ = env.step(a)
        actions.append(a)
        rows.append((obs, float(r), bool(term), bool(trunc)))
        done = term or trunc
        if "Walker" in env.spec.id:
            note_walker_contacts(env.unwrapped, fell=term and r == -100)
    note_events(env, rows)
    return rec.values, actions, rows


def obstacle_kind(body):
    """'stump', 'pit' or 'stairs' for one of hardcore's terrain blocks (by its size: a stump is 1 or 2
    steps square, a pit wall 1 wide and 4 deep, a stair 4 wide and 1 high), None for a ground edge."""
    shape = body.fixtures[0].shape
    if not isinstance(shape, Box2D.b2PolygonShape):
        return None
    xs, ys = [v[0] for v in shape.vertices], [v[1] for v in shape.vertices]
    w, h = (max(xs) - min(xs)) / TERRAIN_STEP, (max(ys) - min(ys)) / TERRAIN_STEP
    return "pit" if round(h) == 4 and round(w) == 1 else "stairs" if round(h) == 1 and w > 3 else "stump"


def note_walker_contacts(walker, fell):
    """The odd contacts of this step, and where a fall happened (for the coverage check)."""
    def ground_of(body):
        return [edge.other for edge in body.contacts if edge.contact.touching]

    for i, leg in enumerate(walker.legs):
        if ground_of(leg) and i % 2 == 0:
            SEEN.add("walker upper leg on the ground")  # a knee or thigh down: no ground_contact flag
        if ground_of(leg) and i % 2 == 1 and abs(leg.angle) > math.pi / 2:
            SEEN.add("walker lower leg upside down on the ground")  # kneeling, the shin raised
    if not fell:
        return
    if walker.game_over:
        SEEN.add("walker hull on the ground")
    if abs(walker.hull.angle) > math.pi / 2:
        SEEN.add("walker fell upside down")
    walls = sorted(min(v[0] for v in b.fixtures[0].shape.vertices) for b in walker.terrain if obstacle_kind(b) == "pit")
    pits = [(walls[i] + TERRAIN_STEP, walls[i + 1]) for i in range(0, len(walls) - 1, 2)]
    for body in [walker.hull] + walker.legs:
        for ground in ground_of(body):
            kind = obstacle_kind(ground)
            x = ground.fixtures[0].shape.vertices[0][0]
            if kind or any(lo - 1e-6 <= x <= hi for lo, hi in pits):
                where = {"stump": "at a stump", "stairs": "on stairs"}.get(kind, "in a pit")
                SEEN.add("walker fall " + where)


def note_events(env, rows):
    """What happened in this episode, for the coverage check."""
    lander, last = "Lunar" in env.spec.id, rows[-1]
    obs = np.array([r[0] for r in rows])
    legs = obs[:, [6, 7]] if lander else obs[:, [8, 13]]
    kind = "lander" if lander else "walker"
    if legs.max() == 1:
        SEEN.add(kind + " leg contact")
    if last[2] and last[1] == -100:
        SEEN.add(kind + (" off screen" if lander and abs(last[0][0]) >= 1 else " crash" if lander else " fall"))
    if lander and last[2] and last[1] == 100:
        SEEN.add("lander at rest")
    if not lander and last[2] and last[1] != -100:
        SEEN.add("walker reached the end")
    if last[3]:
        SEEN.add(kind + " truncated")
    if not lander and len(env.unwrapped.terrain) > 199:  # 199 edges + stumps, pits and stairs
        SEEN.add("walker obstacles")


def write_lines(path, values):
    with open(path, "w") as f:
        f.write("\n".join(values) + "\n")


def action_text(a):
    return ",".join(repr(float(x)) for x in np.ravel(a))


def trace(env_id, draws, actions, tmp_path):
    if not BIN:
        pytest.fail("NEUROEVO_BIN must name the built neuroevo CLI (ctest sets it)")
    write_lines(tmp_path / "draws", [repr(float(v)) for v in draws])
    write_lines(tmp_path / "actions", [action_text(a) for a in actions])
    cmd = [BIN, "trace", env_id, "--draws-file", str(tmp_path / "draws"), "--actions-file", str(tmp_path / "actions")]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, "%s failed: %s" % (" ".join(cmd), out.stderr)
    lines = out.stdout.strip().split("\n")
    assert lines[0].startswith("step,obs_0,")
    return [[float(x) for x in line.split(",")[1:]] for line in lines[1:]]


def assert_rows_equal(what, gym_rows, c_rows):
    """Gymnasium's (obs, reward, terminated, truncated) rows against neuroevo's obs...,r,term,trunc."""
    assert len(c_rows) == len(gym_rows), "%s: %d rows from neuroevo, %d from Gymnasium" % (
        what, len(c_rows), len(gym_rows))
    for t, ((obs, r, term, trunc), row) in enumerate(zip(gym_rows, c_rows)):
        n = len(obs)
        ours = np.array(row[:n], dtype=np.float32)
        # truncated is neuroevo's "the TimeLimit ran out and the episode did not terminate", where
        # Gymnasium's TimeLimit sets it on a terminating step too
        if not np.array_equal(ours, obs) or (t > 0 and (row[n] != r or row[n + 1] != term or
                                                        row[n + 2] != (trunc and not term))):
            pytest.fail("%s: step %d differs\n  Gymnasium %s r=%r term=%s trunc=%s\n  neuroevo  %s r=%r term=%d "
                        "trunc=%d" % (what, t, obs.tolist(), r, term, trunc, ours.tolist(), *row[n:n + 3]))


CASES = ([("LunarLander-v3", "random", s) for s in range(4)] +
         [("LunarLander-v3", "heuristic", s) for s in range(2)] +
         [("LunarLanderContinuous-v3", "random", s) for s in range(4)] +
         [("LunarLanderContinuous-v3", "heuristic", s) for s in range(2)] +
         [("BipedalWalker-v3", "random", s) for s in range(3)] +
         [("BipedalWalker-v3", "heuristic", s) for s in (0, 1, 6)] +  # truncated, falls, reaches the end
         [("BipedalWalkerHardcore-v3", "random", s) for s in range(2)] +
         [("BipedalWalkerHardcore-v3", "heuristic", s) for s in (0, 1, 2, 16)])  # falls in a pit, at a stump, on stairs


@pytest.mark.parametrize("env_id,policy,seed", CASES)
def test_trace_is_gymnasiums(env_id, policy, seed, tmp_path):
    warnings.simplefilter("ignore")
    env = gym.make(env_id)
    draws, actions, rows = gym_episode(env, policy, seed)
    env.close()
    assert_rows_equal("%s %s seed %d" % (env_id, policy, seed), rows, trace(env_id, draws, actions, tmp_path))


@pytest.mark.parametrize("env_id,policy,seeds,max_steps", [
    ("BipedalWalker-v3", "heuristic", [1, 3, 4], None), ("BipedalWalkerHardcore-v3", "heuristic", [100, 200, 5], None),
    ("LunarLander-v3", "random", list(range(8, 28)), None),
    # the first 200 steps of random walkers, where most episodes end in a fall (hull down, on its back,
    # kneeling): the case whose statistics bench/peers/box2d_stats.py compares over 3000 a side
    ("BipedalWalker-v3", "random", list(range(100, 130)), 200),
    ("BipedalWalkerHardcore-v3", "random", list(range(100, 110)), 200)])
def test_consecutive_episodes(env_id, policy, seeds, max_steps):
    """Episodes 2, 3, ... of one env state are Gymnasium's in fresh envs."""
    warnings.simplefilter("ignore")
    lines, gym_rows = [], []
    for seed in seeds:
        env = gym.make(env_id, max_episode_steps=max_steps) if max_steps else gym.make(env_id)
        draws, actions, rows = gym_episode(env, policy, seed)
        env.close()
        lines.append("reset " + " ".join(repr(float(v)) for v in draws))
        lines.extend("step " + action_text(a).replace(",", " ") for a in actions)
        gym_rows.extend(rows)
    exe = os.path.join(os.path.dirname(BIN), "tests", "test_box2d")
    out = subprocess.run([exe, "replay", env_id, str(max_steps or 0)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, "test_box2d replay %s: %s" % (env_id, out.stderr)
    c_rows = [[float(x) for x in line.split(",")] for line in out.stdout.strip().split("\n")]
    assert_rows_equal("%s episodes %s" % (env_id, seeds), gym_rows, c_rows)


def test_zz_coverage():
    """The traces above went through every kind of event the comparison is meant to cover."""
    wanted = {"lander leg contact", "lander crash", "lander off screen", "lander at rest", "walker leg contact",
              "walker fall", "walker reached the end", "walker truncated", "walker obstacles",
              "walker hull on the ground", "walker fell upside down", "walker upper leg on the ground",
              "walker lower leg upside down on the ground", "walker fall at a stump", "walker fall in a pit",
              "walker fall on stairs"}
    assert wanted <= SEEN, "no trace reached: %s" % sorted(wanted - SEEN)
