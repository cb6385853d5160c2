# SPDX-License-Identifier: MIT
# Your own ask/tell class through neuroevo.algorithms.PythonOptimizer(cls_or_path, x0, **options):
# a class from the caller's module (the optimizer server sees the caller's sys.path), one defined in
# a function (sent by value), one defined in the running script (examples/own_optimizer.py, run as
# a program), the "module:Class" form; the options go to the class as its keyword arguments, x0 /
# dim / seed when it asks for them; save/load round-trips; options without a literal form and a
# script that makes optimizers while the server imports it are refused with a message.
import os
import subprocess
import sys

import numpy as np
import pytest

from neuroevo.algorithms import PythonOptimizer

SOURCE = os.environ.get("NEUROEVO_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")


def sphere(x):
    return float(np.sum((x - 0.5) ** 2))


class GreedySearch:
    """The smallest ask/tell optimizer: samples around the best candidate so far."""

    def __init__(self, x0, sigma, popsize=8, seed=0, shift=None):
        self.rng, self.mean, self.sigma, self.n, self.best = np.random.default_rng(seed), np.array(x0), sigma, popsize, 1e300
        self.shift = np.zeros_like(self.mean) if shift is None else np.asarray(shift)

    def ask(self):
        return self.mean + self.shift + self.sigma * self.rng.standard_normal((self.n, self.mean.size))

    def tell(self, candidates, losses):
        i = int(np.argmin(losses))
        if losses[i] < self.best:
            self.best, self.mean = losses[i], np.asarray(candidates[i])

    def recommend(self):
        return self.mean


def test_a_class_of_the_callers_module_with_its_options():
    opt = PythonOptimizer(GreedySearch, np.zeros(4), sigma=0.2, popsize=6, seed=3)
    X = opt.ask()
    assert X.shape == (6, 4)  # popsize went to the class; x0 and seed were filled in
    x, fx = opt.optimize(sphere, generations=40)
    assert fx < 0.05 and opt.generations == 40


def test_a_class_defined_in_a_function_is_sent_by_value_and_state_round_trips():
    class Local(GreedySearch):
        pass

    a = PythonOptimizer(Local, np.zeros(3), sigma=0.3, shift=np.array([0.01, 0.0, -0.01]))
    a.optimize(sphere, generations=5)
    state = a.save()
    b = PythonOptimizer(Local, np.zeros(3), sigma=0.3, shift=np.array([0.01, 0.0, -0.01]))
    b.load(state)
    np.testing.assert_array_equal(a.ask(), b.ask())


def test_module_colon_class_form():
    opt = PythonOptimizer(f"{__name__}:GreedySearch", np.zeros(2), sigma=0.1)
    assert opt.ask().shape == (8, 2)


def test_the_example_script_defines_its_class_in_main():
    r = subprocess.run([sys.executable, os.path.join(SOURCE, "examples", "own_optimizer.py")], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "best CartPole return" in r.stdout


def test_refusals(monkeypatch):
    with pytest.raises(TypeError, match="no literal form"):
        PythonOptimizer(GreedySearch, np.zeros(2), sigma=object())
    with pytest.raises(TypeError, match="needs a class"):
        PythonOptimizer(42, np.zeros(2))
    monkeypatch.setenv("NEUROEVO_IN_OPTIMIZER_SERVER", "1")
    with pytest.raises(RuntimeError, match='if __name__ == "__main__"'):
        PythonOptimizer(GreedySearch, np.zeros(2), sigma=0.1)
