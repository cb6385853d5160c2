# SPDX-License-Identifier: MIT
# The Atari family (src/envs/ale; ctest -L ale, part of `make test`) against the reference pipeline:
# ale-py 0.12.1's ALE/<Game>-v5 with frameskip=1 and no sticky actions, wrapped in Gymnasium 1.x's
# AtariPreprocessing(noop_max=30, frame_skip=4, screen_size=84, grayscale, terminal_on_life_loss
# False). For each game and seed, tests/ale/ale_trace plays up to 400 random steps through
# neuroevo and records its no-op count, actions, rewards, terminations and newest frames; the
# reference replays the same no-ops and actions from the same console state (a fresh loadROM with
# random_seed 0, which is where neuroevo's emulator starts every episode) and must give the same
# rewards and terminations exactly and the same frames up to OpenCV's rounding: every pixel within
# 1 grey level, and at least 99% of them equal.
import os
import subprocess

import gymnasium as gym
import numpy as np
import pytest
import ale_py  # a missing ale-py is an error, never a skip (scripts/build-ale installs it)
from ale_py import roms

gym.register_envs(ale_py)
TRACE = os.environ.get("NEUROEVO_ALE_TRACE")
GAMES = ["Breakout", "Pong", "Frostbite", "SpaceInvaders", "Venture"]
SEEDS = [0, 1]
STEPS = 400
SIDE = 84


class FixedNoops:
    """Stands in for the env's np_random so AtariPreprocessing draws our episode's no-op count."""

    def __init__(self, k):
        self.k = k

    def integers(self, low, high):
        assert low <= self.k < high
        return self.k


def read_trace(path):
    raw = open(path, "rb").read()
    noops, n = np.frombuffer(raw[:8], dtype="<i4")
    frames = [np.frombuffer(raw[8:8 + SIDE * SIDE], dtype=np.uint8).reshape(SIDE, SIDE)]
    steps, off = [], 8 + SIDE * SIDE
    for _ in range(n):
        a = int(np.frombuffer(raw[off:off + 4], dtype="<i4")[0])
        r = float(np.frombuffer(raw[off + 4:off + 12], dtype="<f8")[0])
        term = bool(np.frombuffer(raw[off + 12:off + 16], dtype="<i4")[0])
        frames.append(np.frombuffer(raw[off + 16:off + 16 + SIDE * SIDE], dtype=np.uint8).reshape(SIDE, SIDE))
        steps.append((a, r, term))
        off += 16 + SIDE * SIDE
    return int(noops), steps, frames


def reference_env(game, noops):
    env = gym.make("ALE/%s-v5" % game, frameskip=1, repeat_action_probability=0.0, full_action_space=False)
    ale = env.unwrapped.ale
    ale.setInt("random_seed", 0)
    ale.loadROM(roms.get_rom_path(env.unwrapped._game))
    env = gym.wrappers.AtariPreprocessing(env, noop_max=30, frame_skip=4, screen_size=84,
                                          terminal_on_life_loss=False, grayscale_obs=True, scale_obs=False)
    env.unwrapped._np_random = FixedNoops(noops)
    return env


def check_frame(ours, ref, where):
    diff = np.abs(ours.astype(int) - ref.astype(int))
    assert diff.max() <= 1, "%s: frames differ by %d grey levels" % (where, diff.max())
    assert (diff == 0).mean() >= 0.99, "%s: only %.3f of the pixels equal" % (where, (diff == 0).mean())
    return int((diff != 0).sum())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", GAMES)
def test_frames_rewards_and_ends_match_gymnasium(game, seed, tmp_path):
    if not TRACE or not os.access(TRACE, os.X_OK):
        pytest.fail("NEUROEVO_ALE_TRACE must name the built tests/ale/ale_trace helper (ctest sets it)")
    path = tmp_path / "trace.bin"
    out = subprocess.run([TRACE, "ALE/%s-v5" % game, str(seed), str(STEPS), str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    noops, steps, frames = read_trace(path)
    env = reference_env(game, noops)
    obs, _ = env.reset()
    off = check_frame(frames[0], obs, "%s seed %d reset" % (game, seed))
    for t, (a, r, term) in enumerate(steps):
        obs, r_ref, term_ref, trunc_ref, _ = env.step(a)
        where = "%s seed %d step %d" % (game, seed, t + 1)
        assert r == r_ref, "%s: reward %g, Gymnasium %g" % (where, r, r_ref)
        assert term == term_ref, "%s: terminated %s, Gymnasium %s" % (where, term, term_ref)
        off += check_frame(frames[t + 1], obs, where)
    print("\n%s seed %d: %d steps, %d no-ops, %d pixels off by 1 of %d" %
          (game, seed, len(steps), noops, off, (len(steps) + 1) * SIDE * SIDE))
    env.close()
