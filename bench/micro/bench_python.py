#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Python package benchmarks: (1) the Gymnasium bridge's overhead: env steps/s of Gymnasium's own
# CartPole-v1 driven by the C evaluator through the bridge (gym:CartPole-v1), against the same env in
# a plain Python loop and against neuroevo's native C CartPole, with the handshake's spin phase and
# without it (NEUROEVO_GYM_SPIN_US=0); (2) the Deep GA on CartPole from
# Python (neuroevo.run, native env and through the bridge) against the same GA written as a
# pure-Python NumPy + Gymnasium loop: wall time to the same threshold (elite mean >= 475 over 100
# episodes), median over seeds; (3) CMA-ES through neuroevo.algorithms against pycma on the same
# Python-defined Rosenbrock (when `cma` is installed). `bench/run-all` runs it with the build's
# staged package on PYTHONPATH; by hand: PYTHONPATH=build/python python3 bench/micro/bench_python.py
import argparse
import os
import statistics
import sys
import tempfile
import time

import gymnasium as gym
import numpy as np

try:
    import neuroevo
except ImportError:  # run from the source tree: use build/python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "python"))
    import neuroevo

THREADS = 2


# ---- (1) bridge overhead -------------------------------------------------------------------------

def python_loop_steps_per_s(n_steps):
    """Gymnasium's CartPole in a plain Python loop, actions alternating (no policy cost)."""
    env = gym.make("CartPole-v1")
    env.reset(seed=0)
    t0 = time.perf_counter()
    for i in range(n_steps):
        _, _, term, trunc, _ = env.step(i & 1)
        if term or trunc:
            env.reset()
    return n_steps / (time.perf_counter() - t0)


def c_driven_steps_per_s(env_id, episodes, threads):
    """Steps/s of a 4-16-2 policy evaluated by the C evaluator (neuroevo eval's loop) on env_id.
    The genome is a good CartPole policy, so episodes run their full 500 steps."""
    genome = good_cartpole_genome()
    genome = neuroevo.Genome(genome.seeds, genome.sigma, {**genome.header, "env.id": env_id})
    neuroevo.evaluate_policy(genome, episodes=threads, threads=threads)  # start the servers (gym:)
    t0 = time.perf_counter()
    returns = neuroevo.evaluate_policy(genome, episodes=episodes, threads=threads, return_episodes=True)
    seconds = time.perf_counter() - t0
    steps = float(np.sum(returns))  # reward 1 per step
    return steps / seconds


_GOOD = None


def good_cartpole_genome():
    global _GOOD
    if _GOOD is None:
        with tempfile.TemporaryDirectory() as out:
            _GOOD = neuroevo.run("cartpole-ga", runs=out, threads=THREADS).best
    return _GOOD


# ---- (2) the Deep GA in pure Python --------------------------------------------------------------

# configs/cartpole-ga.ini now has population 20 (make run's demo); both sides of (2) use these
GA_POPULATION, GA_TRUNCATION = 100, 10


class PurePythonGA:
    """The Deep GA of configs/cartpole-ga.ini with GA_POPULATION and GA_TRUNCATION (sigma 0.1, top 3 +
    the elite re-evaluated on 100 episodes, elitism) on a 4-16-2 tanh MLP with normc init, written the
    way a Python user would: NumPy parameter vectors and gymnasium.make("CartPole-v1")."""

    def __init__(self, seed, population=GA_POPULATION, truncation=GA_TRUNCATION, sigma=0.1, elite_candidates=3, elite_episodes=100):
        self.rng = np.random.default_rng(seed)
        self.env = gym.make("CartPole-v1")
        self.n, self.t, self.sigma = population, truncation, sigma
        self.c, self.e = elite_candidates, elite_episodes
        self.sizes = [(4, 16), (16, 2)]
        self.n_params = sum(i * o + o for i, o in self.sizes)
        self.steps = 0

    def init(self):
        theta = []
        for li, (i, o) in enumerate(self.sizes):
            w = self.rng.standard_normal((i, o))
            w *= (1.0 if li < len(self.sizes) - 1 else 0.01) / np.sqrt(np.square(w).sum(axis=0, keepdims=True))
            theta += [w.ravel(), np.zeros(o)]
        return np.concatenate(theta).astype(np.float32)

    def act(self, theta, obs):
        w1 = theta[:64].reshape(4, 16)
        b1 = theta[64:80]
        w2 = theta[80:112].reshape(16, 2)
        b2 = theta[112:114]
        return int(np.argmax(np.tanh(obs @ w1 + b1) @ w2 + b2))

    def episode(self, theta):
        obs, _ = self.env.reset(seed=int(self.rng.integers(2**31)))
        total, done = 0.0, False
        while not done:
            obs, r, term, trunc, _ = self.env.step(self.act(theta, obs))
            total += r
            self.steps += 1
            done = term or trunc
        return total

    def solve(self, threshold=475.0, max_generations=100):
        pop = [self.init() for _ in range(self.n)]
        elite = None
        for gen in range(max_generations):
            fitness = np.array([self.episode(p) for p in pop])
            order = np.argsort(-fitness, kind="stable")
            parents = [pop[i] for i in order[: self.t]]
            candidates = [pop[i] for i in order[: self.c]] + ([elite] if elite is not None else [])
            scores = [np.mean([self.episode(c) for _ in range(self.e)]) for c in candidates]
            best = int(np.argmax(scores))
            elite = candidates[best]
            if scores[best] >= threshold:
                return gen + 1
            pop = [elite] + [parents[self.rng.integers(self.t)] + self.sigma *
                             self.rng.standard_normal(self.n_params).astype(np.float32) for _ in range(self.n - 1)]
        return None


def time_to_solve_python(seed):
    """-> (wall s, generations or None, env steps, training-loop s)"""
    ga = PurePythonGA(seed)
    t0 = time.perf_counter()
    gens = ga.solve()
    seconds = time.perf_counter() - t0
    return seconds, gens, ga.steps, seconds


def time_to_solve_neuroevo(seed, env_id):
    """-> (wall s of neuroevo.run, generations or None, env steps, training-loop s from metrics.csv,
    which leaves out run-directory setup, the env servers' start and the final plot)"""
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        run = neuroevo.run("cartpole-ga", runs=out, threads=THREADS, run__seed=seed, env__id=env_id,
                           ga__population=GA_POPULATION, ga__truncation=GA_TRUNCATION)
        seconds = time.perf_counter() - t0
        m = run.metrics
        solved = run.best_score is not None and run.best_score >= 475.0
        return seconds, run.generations if solved else None, int(m.env_steps[-1]), float(m.wall_s[-1])


# ---- (3) CMA-ES: neuroevo vs pycma ---------------------------------------------------------------

def rosenbrock(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


def cma_neuroevo(dim, seed, target):
    es = neuroevo.algorithms.CMAES(np.zeros(dim), 0.5, seed=seed)
    evals, t0 = 0, time.perf_counter()
    while es.generations < 20000:
        X = es.ask()
        evals += len(X)
        if es.tell([rosenbrock(x) for x in X]) and es.best[1] <= target:
            break
    return time.perf_counter() - t0, es.best[1], evals


def cma_pycma(dim, seed, target):
    import cma
    es = cma.CMAEvolutionStrategy(np.zeros(dim), 0.5, {"seed": seed + 1, "verbose": -9, "ftarget": target,
                                                        "maxfevals": 10**7, "tolfun": 0, "tolx": 0})
    t0 = time.perf_counter()
    while not es.stop():
        X = es.ask()
        es.tell(X, [rosenbrock(x) for x in X])
    return time.perf_counter() - t0, es.result.fbest, es.countevals


# ---- report ----------------------------------------------------------------------------------------

def median_run(fn, seeds):
    """Medians of every field of fn(seed) over seeds, except the second, which is listed per seed."""
    runs = [fn(s) for s in seeds]
    return tuple([r[1] for r in runs] if i == 1 else statistics.median(r[i] for r in runs)
                 for i in range(len(runs[0])))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seeds", type=int, default=3, help="seeds per GA comparison (median reported)")
    p.add_argument("--quick", action="store_true", help="fewer steps and one seed (smoke test)")
    a = p.parse_args()
    seeds = list(range(1 if a.quick else a.seeds))
    print(f"neuroevo {neuroevo.__version__}, gymnasium {gym.__version__}, numpy {np.__version__}, "
          f"{os.cpu_count()} cores, {THREADS} threads where parallel")

    print("\n(1) Gymnasium bridge overhead: CartPole-v1 env steps/s (policy 4-16-2 evaluated in C)")
    n = 50_000 if a.quick else 200_000
    plain = python_loop_steps_per_s(n)
    rows = [("Gymnasium CartPole, plain Python loop (no policy)", plain, 1)]
    eps = 40 if a.quick else 200
    for threads in (1, THREADS):
        rows.append((f"gym:CartPole-v1 through the bridge, {threads} thread(s)", c_driven_steps_per_s(
            "gym:CartPole-v1", eps * threads, threads), threads))
    # the handshake without its spin phase: every message wakes a sleeping process
    os.environ["NEUROEVO_GYM_SPIN_US"] = "0"
    rows.append(("gym:CartPole-v1 bridge, 1 thread, no spin (SPIN_US=0)", c_driven_steps_per_s(
        "gym:CartPole-v1", eps, 1), 1))
    del os.environ["NEUROEVO_GYM_SPIN_US"]
    native = c_driven_steps_per_s("CartPole-v1", 2000 if a.quick else 20000, 1)
    rows.append(("native C CartPole-v1, 1 thread", native, 1))
    print(f"{'':58s} {'steps/s':>12s} {'/ plain Py':>11s} {'/ native C':>11s}")
    for name, rate, _ in rows:
        print(f"{name:58s} {rate:12,.0f} {rate / plain:10.2f}x {rate / native:10.4f}x")
    bridge1 = rows[1][1]
    print(f"bridge cost per step (1 thread): {1e6 / bridge1 - 1e6 / plain:.1f} us over the plain loop's "
          f"{1e6 / plain:.1f} us")

    print(f"\n(2) Deep GA on CartPole-v1 to elite mean >= 475 (configs/cartpole-ga.ini), median of {len(seeds)} seed(s)")
    print(f"{'':44s} {'wall s':>8s} {'speed-up':>9s} {'loop s':>8s} {'speed-up':>9s} {'env steps':>10s} "
          f"{'steps/s':>11s}  generations")
    py = median_run(time_to_solve_python, seeds)
    results = [("pure Python loop (NumPy + Gymnasium, 1 core)", py)]
    results.append((f"neuroevo.run, native CartPole, {THREADS} threads", median_run(
        lambda s: time_to_solve_neuroevo(s, "CartPole-v1"), seeds)))
    results.append((f"neuroevo.run, gym:CartPole-v1 bridge, {THREADS} thr", median_run(
        lambda s: time_to_solve_neuroevo(s, "gym:CartPole-v1"), seeds)))
    for name, (sec, gens, steps, loop) in results:
        print(f"{name:44s} {sec:8.3f} {py[0] / sec:8.1f}x {loop:8.3f} {py[3] / loop:8.1f}x {steps:10,.0f} "
              f"{steps / loop:11,.0f}  {gens}")
    wall_x, loop_x = py[0] / results[1][1][0], py[3] / results[1][1][3]
    print("wall s: neuroevo.run() end to end (run directory, checkpoints, final curve.png included); loop s: "
          "the training loop (metrics.csv wall_s)")
    print(f"goal: >= 50x faster than the pure-Python loop (native env): {wall_x:.0f}x end to end, {loop_x:.0f}x "
          f"in the loop {'(met)' if min(wall_x, loop_x) >= 50 else '(met in the loop)' if loop_x >= 50 else '(NOT met)'}")

    print("\n(3) CMA-ES on a Python-defined Rosenbrock (x0 = 0, sigma0 = 0.5) to f <= 1e-8, median of 3 seeds")
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "could not import matplotlib": plotting is not used
            import cma
        have_cma = True
    except ImportError:
        have_cma = False
    for dim in (10, 30):
        ours = median_run(lambda s: cma_neuroevo(dim, s, 1e-8), range(3))
        line = f"dim {dim:3d}  neuroevo.algorithms.CMAES {ours[0]:7.3f} s {ours[2]:8.0f} evals"
        if have_cma:
            theirs = median_run(lambda s: cma_pycma(dim, s, 1e-8), range(3))
            line += (f"   pycma {cma.__version__} {theirs[0]:7.3f} s {theirs[2]:8.0f} evals   "
                     f"neuroevo {theirs[0] / ours[0]:.1f}x faster")
        print(line)
    if not have_cma:
        print("pycma is not installed (pip install cma): no peer comparison")


if __name__ == "__main__":
    main()
