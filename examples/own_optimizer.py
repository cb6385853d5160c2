# SPDX-License-Identifier: MIT
"""Your own ask/tell optimizer, driven by neuroevo: the class below is ten lines; neuroevo runs it in
an optimizer server and evaluates its candidates in C threads (CartPole policies here).

    python3 examples/own_optimizer.py
"""
import numpy as np

import neuroevo
from neuroevo.algorithms import PythonOptimizer


class RandomSearch:
    """Keeps the best candidate and samples around it: ask() returns a batch, tell() takes losses."""

    def __init__(self, x0, sigma=0.1, popsize=16, seed=0):
        self.rng, self.mean, self.sigma, self.n = np.random.default_rng(seed), np.asarray(x0), sigma, popsize
        self.best = np.inf

    def ask(self):
        return self.mean + self.sigma * self.rng.standard_normal((self.n, self.mean.size))

    def tell(self, candidates, losses):
        i = int(np.argmin(losses))
        if losses[i] < self.best:
            self.best, self.mean = losses[i], np.asarray(candidates[i])


if __name__ == "__main__":  # the optimizer server imports this file for the class: keep the rest here
    policy = neuroevo.Policy("CartPole-v1", hidden=(8,))
    opt = PythonOptimizer(RandomSearch, policy.init_params(seed=0), sigma=0.5, popsize=16)
    x, loss = opt.optimize(lambda p: -neuroevo.evaluate("CartPole-v1", p, episodes=3, hidden=(8,)), generations=15)
    print(f"best CartPole return {-loss:.1f} after {opt.generations} generations")
