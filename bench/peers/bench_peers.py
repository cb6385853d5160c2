#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# neuroevo against Python peers installed from PyPI, side by side on one machine: the same task, policy,
# population, hyperparameters and threshold, wall time until the centre's (or mean's) evaluation first
# reaches the threshold. OpenAI ES: evosax's Open_ES (JAX on CPU) on CartPole-v1 and Pendulum-v1;
# CMA-ES: pycma on Pendulum-v1. The peers evaluate fitness as their users do, Gymnasium envs in a
# Python loop on one core with a NumPy policy forward; neuroevo.run uses native C envs on 2 threads.
# `bench/run-all` runs it with the interpreter `scripts/install-deps --bench VENV` prepared (evosax and
# jax live only there, never in the test environment); a missing peer is reported and skipped. By hand:
#   scripts/install-deps --bench build/peers-venv
#   PYTHONPATH=build/python build/peers-venv/bin/python bench/peers/bench_peers.py [--seeds N] [--budget S]
import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # the peer runs on CPU, as neuroevo does

import gymnasium as gym  # noqa: E402  (JAX_PLATFORMS must be set before jax is imported)
import numpy as np  # noqa: E402

try:
    import neuroevo
except ImportError:  # run from the source tree: use build/python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "python"))
    import neuroevo

THREADS = 2


@dataclasses.dataclass(frozen=True)
class Task:
    """One comparison: what both sides run, written once so that they cannot drift apart."""
    algorithm: str        # "es" (evosax Open_ES) or "cmaes" (pycma)
    env_id: str
    hidden: tuple         # hidden layer widths of the tanh MLP (normc init, output layer scaled 0.01)
    population: int
    sigma: float
    lr: float             # Adam step size (ES only)
    episodes: int         # episodes per population member's fitness
    eval_episodes: int    # episodes of the centre / mean evaluation tested against the threshold
    threshold: float
    max_generations: int

    def overrides(self, seed):
        """neuroevo config keys for the same settings: weight decay and observation normalization
        off, as Open_ES and pycma have neither; no checkpoint but the last, as the peers keep none
        (an fsync'd checkpoint per generation costs more than a CartPole generation's compute)."""
        o = {"run.seed": seed, "run.target": self.threshold, "run.generations": self.max_generations,
             "run.plot_every": 0, "run.checkpoint_every": self.max_generations, "env.id": self.env_id, "env.episodes": self.episodes,
             "policy.hidden": ",".join(map(str, self.hidden)), "policy.activation": "tanh"}
        if self.algorithm == "es":
            o.update({"es.population": self.population, "es.sigma": self.sigma, "es.optimizer": "adam",
                      "es.lr": self.lr, "es.l2coeff": 0, "es.obs_norm": "false",
                      "es.eval_episodes": self.eval_episodes})
        else:
            o.update({"cmaes.popsize": self.population, "cmaes.sigma0": self.sigma,
                      "cmaes.mean_episodes": self.eval_episodes})
        return o


# configs/cartpole-es.ini, configs/pendulum-es.ini and configs/pendulum-cmaes.ini
TASKS = [
    Task("es", "CartPole-v1", (16,), 50, 0.1, 0.03, 1, 10, 475.0, 200),
    Task("es", "Pendulum-v1", (32, 32), 100, 0.1, 0.1, 1, 20, -200.0, 400),
    Task("cmaes", "Pendulum-v1", (16,), 32, 0.2, 0.0, 5, 10, -200.0, 400),
]


# ---- the peers' fitness: Gymnasium in a Python loop, NumPy policy ---------------------------------

class NumpyPolicy:
    """The MLP neuroevo uses (tanh hidden layers; argmax head for discrete actions, tanh rescaled onto
    the Box bounds for continuous ones) over a flat float32 vector laid out W1, b1, W2, b2, ...
    NumPy per step rather than a jitted JAX call, which costs more per call at this size on CPU."""

    def __init__(self, env, hidden):
        obs_dim = int(np.prod(env.observation_space.shape))
        space = env.action_space
        self.discrete = isinstance(space, gym.spaces.Discrete)
        out = int(space.n) if self.discrete else int(np.prod(space.shape))
        self.sizes = list(zip((obs_dim,) + tuple(hidden), tuple(hidden) + (out,)))
        self.n_params = sum(i * o + o for i, o in self.sizes)
        if not self.discrete:
            self.low, self.high = space.low.astype(np.float32), space.high.astype(np.float32)

    def init(self, rng):
        """normc: each weight column has L2 norm 1 (0.01 in the output layer), biases zero."""
        parts = []
        for li, (i, o) in enumerate(self.sizes):
            w = rng.standard_normal((i, o))
            w *= (0.01 if li == len(self.sizes) - 1 else 1.0) / np.sqrt(np.square(w).sum(axis=0, keepdims=True))
            parts += [w.ravel(), np.zeros(o)]
        return np.concatenate(parts).astype(np.float32)

    def layers(self, theta):
        """Views of theta as [(W, b), ...], made once per candidate."""
        out, k = [], 0
        for i, o in self.sizes:
            out.append((theta[k:k + i * o].reshape(i, o), theta[k + i * o:k + i * o + o]))
            k += i * o + o
        return out

    def act(self, layers, obs):
        x = obs
        for w, b in layers[:-1]:
            x = np.tanh(x @ w + b)
        y = x @ layers[-1][0] + layers[-1][1]
        if self.discrete:
            return int(np.argmax(y))
        return self.low + (np.tanh(y) + 1.0) * 0.5 * (self.high - self.low)


class Evaluator:
    """Mean return over episodes, episode seeds from the run's generator; counts env steps."""

    def __init__(self, task, seed):
        self.env = gym.make(task.env_id)
        self.policy = NumpyPolicy(self.env, task.hidden)
        self.rng = np.random.default_rng(seed)
        self.steps = 0

    def __call__(self, theta, episodes):
        layers = self.policy.layers(np.asarray(theta, dtype=np.float32))
        total = 0.0
        for _ in range(episodes):
            obs, _ = self.env.reset(seed=int(self.rng.integers(2**31)))
            done = False
            while not done:
                obs, r, term, trunc, _ = self.env.step(self.policy.act(layers, obs))
                total += float(r)
                self.steps += 1
                done = term or trunc
        return total / episodes


@dataclasses.dataclass
class Outcome:
    seconds: float            # wall time until the threshold (or the budget / generation limit)
    generations: int          # generations run
    steps: int                # env steps taken
    reached: bool


# ---- peer: evosax Open_ES -------------------------------------------------------------------------

def evosax_es(task, seed, budget_s):
    """Open_ES with the same sampling (mirrored), shaping (centered ranks), Adam and sigma. Its
    gradient is neuroevo's divided by sigma, which Adam's normalization cancels. evosax minimizes, so
    it is told the negated returns. Two full ask -> tell cycles run on a copy of the state before the
    clock starts: tell returns a state whose leaves have other types than init's, so after a single
    cycle generations 1 and 2 would still compile (2.6 s of CPU here, more than a whole CartPole run)."""
    import copy

    import jax
    import jax.numpy as jnp
    import optax
    from evosax.algorithms import Open_ES

    ev = Evaluator(task, seed)
    x0 = ev.policy.init(ev.rng)
    es = Open_ES(population_size=task.population, solution=jnp.zeros(ev.policy.n_params, jnp.float32),
                 use_antithetic_sampling=True, optimizer=optax.adam(task.lr),
                 std_schedule=optax.constant_schedule(task.sigma))
    params = es.default_params
    key = jax.random.key(seed)
    key, k_init = jax.random.split(key)
    state = es.init(k_init, jnp.asarray(x0), params)
    warm = copy.deepcopy(state)
    for i in range(2):  # compile ask and tell for every state type the loop will see
        k = jax.random.key(10_000 + i)
        population, warm = es.ask(k, warm, params)
        warm, _ = es.tell(k, population, jnp.zeros(task.population), warm, params)
    jax.block_until_ready(warm)

    t0, gen = time.perf_counter(), 0
    while gen < task.max_generations and time.perf_counter() - t0 < budget_s:
        key, k_ask, k_tell = jax.random.split(key, 3)
        population, state = es.ask(k_ask, state, params)
        pop = np.asarray(population)
        returns = np.array([ev(x, task.episodes) for x in pop])
        centre = ev(np.asarray(state.mean), task.eval_episodes)  # before the update, as neuroevo
        gen += 1
        if centre >= task.threshold:
            return Outcome(time.perf_counter() - t0, gen, ev.steps, True)
        state, _ = es.tell(k_tell, population, jnp.asarray(-returns), state, params)
    return Outcome(time.perf_counter() - t0, gen, ev.steps, False)


# ---- peer: pycma ------------------------------------------------------------------------------------

def pycma_cmaes(task, seed, budget_s):
    """pycma's defaults (active CMA) with the same population, sigma0 and start; the mean is
    evaluated on eval_episodes each generation, as neuroevo's cmaes.mean_episodes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "could not import matplotlib": plotting is not used
        import cma
    ev = Evaluator(task, seed)
    x0 = ev.policy.init(ev.rng).astype(np.float64)
    es = cma.CMAEvolutionStrategy(x0, task.sigma, {"seed": seed + 1, "popsize": task.population,
                                                   "verbose": -9, "tolfun": 0, "tolx": 0})
    t0, gen = time.perf_counter(), 0
    while gen < task.max_generations and time.perf_counter() - t0 < budget_s:
        X = es.ask()
        returns = [ev(x, task.episodes) for x in X]
        mean = ev(es.mean, task.eval_episodes)
        gen += 1
        if mean >= task.threshold:
            return Outcome(time.perf_counter() - t0, gen, ev.steps, True)
        es.tell(X, [-r for r in returns])
    return Outcome(time.perf_counter() - t0, gen, ev.steps, False)


# ---- neuroevo ------------------------------------------------------------------------------------

def neuroevo_run(task, seed):
    """-> (end-to-end Outcome of neuroevo.run, training-loop seconds from metrics.csv)"""
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        run = neuroevo.run(config_for(task), task.overrides(seed), runs=out, threads=THREADS)
        seconds = time.perf_counter() - t0
        m = run.metrics
        hit = np.nonzero(np.asarray(m.elite_mean) >= task.threshold)[0]
        reached = len(hit) > 0
        gens = int(hit[0]) + 1 if reached else len(m.elite_mean)
        return Outcome(seconds, gens, int(m.env_steps[-1]), reached), float(m.wall_s[-1])


def config_for(task):
    """The checked-in config the task's settings come from (cartpole-es, pendulum-cmaes, ...)."""
    name = task.env_id.split("-")[0].lower()
    return f"{name}-{task.algorithm}"


# ---- report ----------------------------------------------------------------------------------------

def peer_for(task):
    """-> (label, function) or (label, None, why) when the package is missing."""
    if task.algorithm == "es":
        try:
            import evosax  # noqa: F401  (has no __version__)
            import jax
            from importlib.metadata import version
            return f"evosax {version('evosax')} Open_ES (jax {jax.__version__})", evosax_es
        except ImportError as e:
            return "evosax Open_ES", None, f"{e.name} is not installed (scripts/install-deps --bench VENV)"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import cma
        return f"pycma {cma.__version__}", pycma_cmaes
    except ImportError:
        return "pycma", None, "cma is not installed (pip install cma)"


def fmt(o):
    return f"{o.seconds:8.2f} s" if o.reached else f"not reached in {o.seconds:.0f} s"


def main():
    p = argparse.ArgumentParser(description="neuroevo vs evosax / pycma: wall time to the same threshold")
    p.add_argument("--seeds", type=int, default=1, help="seeds per task (medians reported)")
    p.add_argument("--budget", type=float, default=150.0, help="seconds a peer run may take before it is stopped")
    p.add_argument("--tasks", default="all", help="comma-separated row numbers (1-based) or all")
    a = p.parse_args()
    rows = TASKS if a.tasks == "all" else [TASKS[int(i) - 1] for i in a.tasks.split(",")]
    seeds = range(a.seeds)
    print(f"neuroevo {neuroevo.__version__}, gymnasium {gym.__version__}, numpy {np.__version__}, "
          f"python {sys.version.split()[0]}, {os.cpu_count()} cores; peer: Gymnasium env + NumPy policy in a "
          f"Python loop (1 core); neuroevo.run: native C env, {THREADS} threads; median of {len(seeds)} seed(s)")
    header = (f"{'task':28s} {'peer':34s} {'peer s':>20s} {'gens':>5s} {'neuroevo s':>11s} {'loop s':>8s} "
              f"{'gens':>5s} {'x wall':>7s} {'x loop':>7s} {'x steps/s':>10s}")
    print(header)
    for task in rows:
        name = f"{task.algorithm.upper()} {task.env_id} >= {task.threshold:g}"
        ours = [neuroevo_run(task, s) for s in seeds]
        ne_s = statistics.median(o.seconds for o, _ in ours)
        ne_loop = statistics.median(loop for _, loop in ours)
        ne_gens = statistics.median(o.generations for o, _ in ours)
        ne_rate = statistics.median(o.steps / loop for o, loop in ours)
        peer = peer_for(task)
        if peer[1] is None:
            print(f"{name:28s} {peer[0]:34s} {'skipped: ' + peer[2]}")
            print(f"{'':28s} {'':34s} {'':>20s} {'':>5s} {ne_s:9.2f} s {ne_loop:8.3f} {ne_gens:5.0f}")
            continue
        theirs = [peer[1](task, s, a.budget) for s in seeds]
        t = sorted(theirs, key=lambda o: (not o.reached, o.seconds))[len(theirs) // 2]
        ok = all(o.reached for o, _ in ours)
        ratio = lambda d: f"{t.seconds / d:6.0f}x" if ok else "    n/a"  # noqa: E731
        lower = "" if t.reached else ">"
        print(f"{name:28s} {peer[0]:34s} {fmt(t):>20s} {t.generations:5d} {ne_s:9.2f} s {ne_loop:8.3f} "
              f"{ne_gens:5.0f} {lower + ratio(ne_s).strip():>7s} {lower + ratio(ne_loop).strip():>7s} "
              f"{ne_rate / (t.steps / t.seconds):9.0f}x")
    print("peer s: the peer's loop until its centre (ES) / mean (CMA-ES) evaluation reaches the threshold "
          "(JIT compilation before the clock); neuroevo s: neuroevo.run end to end (run directory, "
          "final checkpoint and curve.png); loop s: its training loop (metrics.csv wall_s); x: peer s / neuroevo s; '>' when "
          "the peer stopped at its budget first; x steps/s: neuroevo's env steps per second of its loop over "
          "the peer's")


if __name__ == "__main__":
    main()
