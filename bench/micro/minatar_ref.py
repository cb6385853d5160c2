# SPDX-License-Identifier: MIT
# Steps per second of the reference MinAtar (PyPI minatar) per game on one core, with random
# actions and the observation (state()) read every step, as an agent does. Prints
# "Game steps_per_second" lines; bench/micro/bench_pixels.c runs it and prints the ratio to the native
# games. Takes about 5 s (1 s per game).
import time

import numpy as np
from minatar import Environment

GAMES = {"Asterix": "asterix", "Breakout": "breakout", "Freeway": "freeway", "Seaquest": "seaquest",
         "SpaceInvaders": "space_invaders"}

for name, module in GAMES.items():
    env = Environment(module)
    env.seed(1)
    pick = np.random.RandomState(0)
    env.reset()
    # process CPU time, like bench_pixels' thread CPU time: other load on the machine does not count
    n, t0 = 0, time.process_time()
    while time.process_time() - t0 < 1.0:
        for _ in range(100):
            _, done = env.act(pick.randint(6))
            env.state()
            n += 1
            if done:
                env.reset()
    print(name, n / (time.process_time() - t0), flush=True)
