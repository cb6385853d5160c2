# SPDX-License-Identifier: MIT
"""Ask/tell classes for the optimizer-server tests (tests/e2e_nevergrad.sh, python/tests/test_optserver.py):
run.algorithm = python with [python] class = opt_classes:NAME (this folder on PYTHONPATH)."""
import os
import time

import numpy as np


class RandomSearch:
    """(1, lambda) random search around the best point so far: small, deterministic from its seed,
    batch-shaped like pycma (ask() returns every candidate, tell(candidates, losses))."""

    def __init__(self, x0, sigma=0.1, popsize=8, seed=1):
        self.rng = np.random.RandomState(seed)
        self.mean = np.array(x0, dtype=np.float64)
        self.sigma, self.popsize = sigma, popsize
        self.best = np.inf
        self.generation = 0

    def ask(self):
        return [self.mean + self.sigma * self.rng.randn(self.mean.size) for _ in range(self.popsize)]

    def tell(self, candidates, losses):
        i = int(np.argmin(losses))
        if losses[i] < self.best:
            self.best, self.mean = losses[i], np.array(candidates[i])
        self.generation += 1


class Flaky(RandomSearch):
    """RandomSearch whose tell raises (NE_TEST_RAISE_AT=G) or hangs (NE_TEST_HANG_AT=G) in
    generation G, so the tests can watch a failing optimizer stop the run."""

    def tell(self, candidates, losses):
        if self.generation == int(os.environ.get("NE_TEST_RAISE_AT", -1)):
            raise RuntimeError(f"flaky optimizer gave up in generation {self.generation}")
        if self.generation == int(os.environ.get("NE_TEST_HANG_AT", -1)):
            time.sleep(3600)
        super().tell(candidates, losses)


class OnePerAsk(RandomSearch):
    """Nevergrad-shaped: ask() returns one candidate, tell(candidate, loss) one at a time."""

    def __init__(self, x0, sigma=0.1, seed=1):
        super().__init__(x0, sigma, 1, seed)
        self.told = []

    def ask(self):
        return self.mean + self.sigma * self.rng.randn(self.mean.size)

    def tell(self, candidate, loss):
        if loss < self.best:
            self.best, self.mean = loss, np.array(candidate)

    def recommend(self):
        return self.mean
