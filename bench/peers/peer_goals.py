#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# neuroevo's speed against its peers, side by side: each row runs neuroevo and its peer (evosax
# 0.3.2 + gymnax 1.0.1 on JAX, or Gymnasium + NumPy) as separate processes pinned to the same core
# (taskset), measures each side's process CPU time around the measured work, and interleaves the two
# sides PAIRS times (the order alternating); the table gives the median ratio, its range, and the
# floor the row should reach on a CPU like the one docs/performance.md names ("met"). The JAX
# peers are warmed up as their users would: the jitted rollout and two full ask -> evaluate -> tell
# cycles run on a copy of the state before the clock starts (tell returns a state whose types differ
# from init's, so one cycle is not enough: generation 1 would compile again). The ALE row is
# bench_pixels --ale-ratio with NEUROEVO_SIMD=avx2 (the pixel path of a CPU without AVX-512).
#   PYTHONPATH=build/python build/peers-venv/bin/python bench/peers/peer_goals.py [--pairs 5] [--core 1]
# One side alone (what the parent runs in each pinned process; prints one JSON line):
#   ... bench/peers/peer_goals.py --side ours|peer --row minatar|cartpole|asktell|rollout --seed S
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

HERE = os.path.dirname(os.path.abspath(__file__))

# (row, what is compared, unit of the ratio, the floor the ratio should reach)
ROWS = [
    ("minatar", "OpenAI ES, MinAtar Breakout, MinAtar net, pop 32 vs evosax+gymnax", "env steps / CPU-s", 20.0),
    ("cartpole", "OpenAI ES, CartPole-v1 to 475 vs evosax+gymnax", "CPU-s to 475", 50.0),
    ("asktell", "ES ask+tell, 10k params, pop 100, no env vs evosax", "CPU-s / generation", 5.0),
    ("rollout", "CartPole + 4-64-64-2 tanh MLP vs Gymnasium+NumPy", "env steps / CPU-s", 100.0),
    ("ale", "ALE env / raw emulation, non-AVX-512 path (Frostbite)", "CPU-s per frame", 0.95),
]

MINATAR_GENS = 5         # generations timed per MinAtar measurement (both sides; the peer's take ~3 s each)
MINATAR_STEPS = 1000     # episode cap: gymnax's Breakout-MinAtar default, set on both sides
CARTPOLE = dict(hidden=16, population=50, sigma=0.1, lr=0.03, eval_episodes=10, max_gens=200)  # cartpole-es
ASKTELL = dict(dim=10_000, population=100, gens_ours=200, gens_peer=50)
# episodes per rollout measurement (ours, the peer's): ~1 s of CPU a side (these weights end
# episodes after ~14 steps); at 20000 and 300 (~0.1 s) a pair's ratio ranged 36-78x
ROLLOUT_EPISODES = (200_000, 3_000)


# ---- neuroevo's side ------------------------------------------------------------------------------

def children_cpu():
    """CPU seconds of this process's finished children (a run's helper processes, if any)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def ours(row, seed):
    import numpy as np
    import neuroevo
    if row in ("minatar", "cartpole"):
        if row == "minatar":
            o = {"run.algorithm": "es", "env.id": "MinAtar/Breakout-v1", "env.sticky_prob": -1,
                 "env.max_episode_steps": MINATAR_STEPS, "policy.preset": "minatar", "es.population": 32,
                 "es.sigma": 0.02, "es.lr": 0.01, "es.eval_episodes": 1, "run.generations": MINATAR_GENS,
                 "run.target": "none"}
        else:
            c = CARTPOLE
            o = {"run.algorithm": "es", "env.id": "CartPole-v1", "policy.hidden": c["hidden"],
                 "policy.activation": "tanh", "es.population": c["population"], "es.sigma": c["sigma"],
                 "es.lr": c["lr"], "es.eval_episodes": c["eval_episodes"], "run.generations": c["max_gens"],
                 "run.target": 475}
        # no curve.png (the peer draws nothing): a gnuplot drawing costs ~60 ms of CPU in a child
        # process, more than a whole CartPole run; children's CPU is counted all the same
        o.update({"run.seed": seed, "es.l2coeff": 0, "es.obs_norm": "false", "run.plot_every": -1,
                  "run.checkpoint_every": 1000000})
        with tempfile.TemporaryDirectory() as out:
            t0 = time.process_time() + children_cpu()
            run = neuroevo.run(None, o, runs=out, threads=1)
            cpu = time.process_time() + children_cpu() - t0
            m = run.metrics
            reached = bool(np.any(np.asarray(m.elite_mean) >= 475)) if row == "cartpole" else True
            return {"cpu": cpu, "steps": int(m.env_steps[-1]), "gens": len(m.env_steps), "reached": reached}
    if row == "asktell":
        from neuroevo.algorithms import OpenAIES
        a = ASKTELL
        es = OpenAIES(np.zeros(a["dim"]), popsize=a["population"], sigma0=0.02, seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(2):  # warm-up: first allocations
            X = es.ask()
            es.tell(rng.standard_normal(len(X)))
        t0 = time.process_time()
        for _ in range(a["gens_ours"]):
            X = es.ask()
            es.tell(rng.standard_normal(len(X)))
        return {"cpu": time.process_time() - t0, "gens": a["gens_ours"]}
    if row == "rollout":
        theta, fields = rollout_weights(seed)
        p = neuroevo.Params(theta, fields)
        p.evaluate(episodes=10, seed=seed, threads=1)  # warm-up
        t0 = time.process_time()
        returns = neuroevo.evaluate_policy(p, episodes=ROLLOUT_EPISODES[0], seed=seed, threads=1,
                                           return_episodes=True)
        return {"cpu": time.process_time() - t0, "steps": int(returns.sum())}
    raise ValueError(row)


def rollout_weights(seed):
    """The same float32 weights for both sides: normc init of 4-64-64-2, scaled so that episodes
    last beyond the first few steps. Our side computes tanh in float and fuses its multiply-adds
    (policy.tanh = float, policy.fma = true: the defaults of new runs), as the peer's np.tanh and
    matmul do on float32 arrays; a header without those keys would mean the double-precision tanh
    and separate roundings of agent files written before they existed."""
    import numpy as np
    rng = np.random.default_rng(seed)
    parts = []
    sizes = [(4, 64), (64, 64), (64, 2)]
    for li, (i, o) in enumerate(sizes):
        w = rng.standard_normal((i, o))
        w *= (1.0 if li < 2 else 1.0) / np.sqrt(np.square(w).sum(axis=0, keepdims=True))
        parts += [w.ravel(), np.zeros(o)]
    fields = {"env.id": "CartPole-v1", "policy.type": "mlp", "policy.hidden": "64,64", "policy.activation": "tanh",
              "policy.head": "argmax", "policy.init": "normc", "policy.tanh": "float",
              "policy.fma": "true"}
    return np.concatenate(parts).astype(np.float32), fields


# ---- the peers' side ------------------------------------------------------------------------------

def minatar_net(n_actions):
    """MinAtar's net (Young & Tian 2019) in JAX over a flat vector: 16x3x3 conv, 128 dense, ReLU."""
    import jax
    import jax.numpy as jnp
    shapes = [(3, 3, 4, 16), (16,), (8 * 8 * 16, 128), (128,), (128, n_actions), (n_actions,)]
    sizes = [int(jnp.prod(jnp.array(s))) for s in shapes]

    def forward(theta, obs):
        parts, k = [], 0
        for s, n in zip(shapes, sizes):
            parts.append(theta[k:k + n].reshape(s))
            k += n
        w1, b1, w2, b2, w3, b3 = parts
        x = jax.lax.conv_general_dilated(obs[None].astype(jnp.float32), w1, (1, 1), "VALID",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))[0]
        x = jax.nn.relu(x + b1).reshape(-1)
        x = jax.nn.relu(x @ w2 + b2)
        return x @ w3 + b3
    return forward, sum(sizes)


def mlp_net(obs_dim, hidden, n_out):
    import jax.numpy as jnp
    dims = [obs_dim] + list(hidden) + [n_out]

    def forward(theta, obs):
        x, k = obs, 0
        for li in range(len(dims) - 1):
            i, o = dims[li], dims[li + 1]
            w = theta[k:k + i * o].reshape(i, o)
            b = theta[k + i * o:k + i * o + o]
            k += i * o + o
            x = x @ w + b
            if li < len(dims) - 2:
                x = jnp.tanh(x)
        return x
    return forward, sum(dims[i] * dims[i + 1] + dims[i + 1] for i in range(len(dims) - 1))


def gymnax_rollout(env, env_params, forward, steps):
    """The rollout evosax + gymnax users write (gymnax's RolloutWrapper): lax.scan over a fixed
    number of steps, masks after the first done; returns (return, live steps)."""
    import jax
    import jax.numpy as jnp

    def rollout(theta, key):
        k_reset, k_ep = jax.random.split(key)
        obs, state = env.reset(k_reset, env_params)

        def step(carry, _):
            obs, state, key, done, ret, n = carry
            key, k = jax.random.split(key)
            a = jnp.argmax(forward(theta, obs))
            obs, state, r, term, trunc, _ = env.step(k, state, a, env_params)
            d = jnp.logical_or(term, trunc).astype(jnp.float32)
            live = 1.0 - done
            return (obs, state, key, jnp.maximum(done, d), ret + r * live, n + live), None

        init = (obs, state, k_ep, jnp.float32(0), jnp.float32(0), jnp.float32(0))
        (_, _, _, _, ret, n), _ = jax.lax.scan(step, init, None, length=steps)
        return ret, n
    return rollout


def peer(row, seed):
    import numpy as np
    if row == "rollout":
        return peer_rollout(seed)
    import copy
    import jax
    import jax.numpy as jnp
    import optax
    import gymnax
    from evosax.algorithms import Open_ES
    if row == "asktell":
        a = ASKTELL
        es = Open_ES(population_size=a["population"], solution=jnp.zeros(a["dim"], jnp.float32),
                     optimizer=optax.adam(0.01), std_schedule=optax.constant_schedule(0.02))
        params = es.default_params
        key = jax.random.key(seed)
        state = es.init(key, jnp.zeros(a["dim"], jnp.float32), params)
        ask, tell = jax.jit(es.ask), jax.jit(es.tell)

        def gen(key, state):
            k1, k2, k3 = jax.random.split(key, 3)
            pop, state = ask(k1, state, params)
            fit = jax.random.normal(k3, (a["population"],))
            state, _ = tell(k2, pop, fit, state, params)
            return state
        warm = copy.deepcopy(state)
        for i in range(2):  # two full cycles on a copy: tell's state compiles ask/tell again once
            warm = gen(jax.random.key(1000 + i), warm)
        jax.block_until_ready(warm)
        t0 = time.process_time()
        for g in range(a["gens_peer"]):
            key, k = jax.random.split(key)
            state = gen(k, state)
        jax.block_until_ready(state)
        return {"cpu": time.process_time() - t0, "gens": a["gens_peer"]}

    if row == "minatar":
        env, env_params = gymnax.make("Breakout-MinAtar")
        forward, n = minatar_net(env.num_actions)
        pop, sigma, lr, steps, gens, eval_eps, threshold = 32, 0.02, 0.01, MINATAR_STEPS, MINATAR_GENS, 1, None
        x0 = np.random.default_rng(seed).standard_normal(n).astype(np.float32) * 0.05
    else:
        c = CARTPOLE
        env, env_params = gymnax.make("CartPole-v1")
        forward, n = mlp_net(4, (c["hidden"],), 2)
        pop, sigma, lr, steps, gens, eval_eps, threshold = (c["population"], c["sigma"], c["lr"], 500,
                                                            c["max_gens"], c["eval_episodes"], 475.0)
        x0 = np.random.default_rng(seed).standard_normal(n).astype(np.float32) * 0.1
    rollout = gymnax_rollout(env, env_params, forward, steps)
    evaluate = jax.jit(jax.vmap(rollout))
    es = Open_ES(population_size=pop, solution=jnp.zeros(n, jnp.float32), use_antithetic_sampling=True,
                 optimizer=optax.adam(lr), std_schedule=optax.constant_schedule(sigma))
    params = es.default_params
    key = jax.random.key(seed)
    key, k_init = jax.random.split(key)
    state = es.init(k_init, jnp.asarray(x0), params)
    ask, tell = jax.jit(es.ask), jax.jit(es.tell)

    def generation(key, state):
        k_ask, k_ev, k_c, k_tell = jax.random.split(key, 4)
        population, state_a = ask(k_ask, state, params)
        ret, live = evaluate(population, jax.random.split(k_ev, pop))
        centre_ret, centre_live = evaluate(jnp.broadcast_to(state.mean, (eval_eps, n)),
                                           jax.random.split(k_c, eval_eps))
        state_t, _ = tell(k_tell, population, -ret, state_a, params)
        return state_t, float(jnp.mean(centre_ret)), int(jnp.sum(live) + jnp.sum(centre_live))

    warm = copy.deepcopy(state)
    for i in range(2):  # compile: the rollout and two full ask -> evaluate -> tell cycles
        warm, _, _ = generation(jax.random.key(1000 + i), warm)
    t0 = time.process_time()
    total, reached, g = 0, False, 0
    while g < gens:
        key, k = jax.random.split(key)
        state, centre, live = generation(k, state)
        total += live
        g += 1
        if threshold is not None and centre >= threshold:
            reached = True
            break
    scanned = g * (pop + eval_eps) * steps  # what the fixed-length scans simulate, live or not
    return {"cpu": time.process_time() - t0, "steps": total, "scanned": scanned, "gens": g,
            "reached": reached or threshold is None}


def numpy_layers(theta):
    """Views of the 4-64-64-2 weights as [(W, b), ...] in neuroevo's layout (W input-major)."""
    layers, k = [], 0
    for i, o in [(4, 64), (64, 64), (64, 2)]:
        layers.append((theta[k:k + i * o].reshape(i, o), theta[k + i * o:k + i * o + o]))
        k += i * o + o
    return layers


def numpy_act(layers, obs):
    """The peer's forward: tanh hidden layers, argmax head (ties: the lowest index, as neuroevo)."""
    import numpy as np
    x = np.tanh(obs @ layers[0][0] + layers[0][1])
    x = np.tanh(x @ layers[1][0] + layers[1][1])
    return int(np.argmax(x @ layers[2][0] + layers[2][1]))


def peer_rollout(seed):
    """Gymnasium's CartPole-v1 with a NumPy forward of the same float32 weights."""
    import gymnasium as gym
    import numpy as np
    theta, _ = rollout_weights(seed)
    layers = numpy_layers(theta)
    env = gym.make("CartPole-v1")
    rng = np.random.default_rng(seed)
    t0 = time.process_time()
    steps = 0
    for _ in range(ROLLOUT_EPISODES[1]):
        obs, _ = env.reset(seed=int(rng.integers(2**31)))
        done = False
        while not done:
            obs, _, term, trunc, _ = env.step(numpy_act(layers, obs))
            steps += 1
            done = term or trunc
    return {"cpu": time.process_time() - t0, "steps": steps}


# ---- the table ------------------------------------------------------------------------------------

def one_side(side, row, seed, core):
    cmd = ["taskset", "-c", str(core), sys.executable, os.path.abspath(__file__), "--side", side, "--row", row,
           "--seed", str(seed)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
    if out.returncode != 0:
        raise RuntimeError(f"{side} {row}: {out.stderr.strip()[-600:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def ratio(row, o, p):
    """neuroevo's advantage in one pair (> 1: neuroevo faster)."""
    if row == "cartpole":
        return p["cpu"] / o["cpu"]
    if row == "asktell":
        return (p["cpu"] / p["gens"]) / (o["cpu"] / o["gens"])
    return (o["steps"] / o["cpu"]) / (p["steps"] / p["cpu"])


def ale_row(bench_dir, pairs, core):
    exe = os.path.join(bench_dir, "bench_pixels")
    if not os.access(exe, os.X_OK):
        return None, "bench_pixels not built"
    env = dict(os.environ, NEUROEVO_SIMD="avx2")
    out = subprocess.run(["taskset", "-c", str(core), exe, "--ale-ratio", str(pairs)], capture_output=True, text=True,
                         env=env)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("ale_ratio")]
    if not line or line[0].split()[1] == "n/a":
        return None, (line[0] if line else out.stderr.strip()[-200:])
    f = line[0].split()
    return [float(f[1]), float(f[2]), float(f[3])], f"{f[4]} pixel path"


def main():
    ap = argparse.ArgumentParser(description="neuroevo against its peers: CPU time, one core")
    ap.add_argument("--pairs", type=int, default=5, help="interleaved neuroevo/peer pairs per row")
    ap.add_argument("--core", type=int, default=os.cpu_count() - 1, help="the core both sides are pinned to")
    ap.add_argument("--rows", default="all", help="comma-separated row names (minatar,cartpole,asktell,rollout,ale)")
    ap.add_argument("--bench-dir", default=os.path.join(HERE, "..", "..", "build", "bench"))
    ap.add_argument("--side", help=argparse.SUPPRESS)
    ap.add_argument("--row", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.side:
        try:
            print(json.dumps((ours if a.side == "ours" else peer)(a.row, a.seed)))
        except ImportError as e:  # a peer missing: reported by the table, not a failure
            print(json.dumps({"skipped": f"{e.name} is not installed (scripts/install-deps --bench VENV)"}))
        return 0
    rows = [r for r in ROWS if a.rows == "all" or r[0] in a.rows.split(",")]
    load = os.getloadavg()
    try:
        from importlib.metadata import version
        peers = f"evosax {version('evosax')}, gymnax {version('gymnax')}, jax {version('jax')}"
    except Exception:
        peers = "evosax/gymnax not installed"
    print(f"neuroevo against its peers: both sides pinned to core {a.core}, process CPU time, {a.pairs} interleaved pairs, "
          f"median [range]; {peers}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"{'comparison':58s} {'unit':20s} {'ratio':>8s} {'range':>15s} {'floor':>7s}  met")
    failed = 0
    for name, what, unit, floor in rows:
        if name == "ale":
            r, note = ale_row(a.bench_dir, a.pairs, a.core)
            if r is None:
                print(f"{what:58s} {unit:20s} skipped: {note}")
                continue
            med, lo, hi = r
            print(f"{what:58s} {unit:20s} {med:8.3f} {f'[{lo:.3f}-{hi:.3f}]':>15s} {floor:7.2f}  "
                  f"{'yes' if med >= floor else 'NO'}  ({note})")
            continue
        rs, notes, scans = [], [], []
        try:
            for i in range(a.pairs):
                sides = ("ours", "peer") if i % 2 == 0 else ("peer", "ours")
                got = {s: one_side(s, name, i, a.core) for s in sides}
                skipped = [g["skipped"] for g in got.values() if "skipped" in g]
                if skipped:
                    raise LookupError(skipped[0])
                if name == "cartpole" and not (got["ours"]["reached"] and got["peer"]["reached"]):
                    notes.append(f"seed {i}: threshold not reached (ours {got['ours']['reached']}, "
                                 f"peer {got['peer']['reached']})")
                rs.append(ratio(name, got["ours"], got["peer"]))
                if "scanned" in got["peer"] and name == "minatar":
                    o, p = got["ours"], got["peer"]
                    scans.append((o["steps"] / o["cpu"]) / (p["scanned"] / p["cpu"]))
        except LookupError as e:
            print(f"{what:58s} {unit:20s} skipped: {e}")
            continue
        except (RuntimeError, json.JSONDecodeError) as e:
            failed = 1
            print(f"{what:58s} {unit:20s} failed: {e}")
            continue
        med = statistics.median(rs)
        if scans:
            notes.append(f"against every step the peer's scans simulate, live or masked: "
                         f"{statistics.median(scans):.1f}x")
        print(f"{what:58s} {unit:20s} {med:7.1f}x {f'[{min(rs):.1f}-{max(rs):.1f}]':>15s} "
              f"{floor:6.0f}x  {'yes' if med >= floor else 'NO'}" + (f"  ({'; '.join(notes)})" if notes else ""))
    return failed


if __name__ == "__main__":
    sys.exit(main())
