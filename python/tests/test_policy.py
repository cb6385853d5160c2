# SPDX-License-Identifier: MIT
# neuroevo.Policy and neuroevo.evaluate: a parameter vector evaluated on an env
# equals the same vector as a genome under evaluate_policy (= `neuroevo eval`); a population's rows
# equal their single evaluations with 1 and 2 threads; act() is the MLP of the documented layout
# (W (in, out) row-major, then b) with the argmax / tanh-scaled heads; the GIL is released; wrong
# types are TypeErrors naming what is expected (a float vector used to pass as a seed chain).
import threading

import numpy as np
import pytest

import neuroevo

HIDDEN = {"hidden": (8,)}


def _mlp(params, obs, sizes):
    """Reference forward pass: tanh hidden layers, raw outputs."""
    x, k = np.asarray(obs, dtype=np.float64), 0
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = params[k:k + n_in * n_out].reshape(n_in, n_out)
        k += n_in * n_out
        b = params[k:k + n_out]
        k += n_out
        x = x @ w + b
        if i < len(sizes) - 2:
            x = np.tanh(x)
    assert k == len(params)
    return x


def test_evaluate_equals_evaluate_policy_of_the_same_genome():
    g = neuroevo.Genome([11, 5, 9], 0.5, env_id="CartPole-v1", hidden=8)
    x = g.params()
    want = neuroevo.evaluate_policy(g, episodes=6, seed=3)
    assert neuroevo.evaluate("CartPole-v1", x, episodes=6, seed=3, policy=HIDDEN) == want
    assert neuroevo.evaluate("CartPole-v1", x.astype(np.float64).tolist(), 6, seed=3, hidden=8) == want
    p = neuroevo.Policy(g)
    assert p.n_params == x.size and np.array_equal(p.params, x) and p.evaluate(6, seed=3) == want
    eps = neuroevo.evaluate("CartPole-v1", x, episodes=6, seed=3, policy=HIDDEN, return_episodes=True)
    assert eps.shape == (6,) and np.array_equal(eps, neuroevo.evaluate_policy(g, episodes=6, seed=3,
                                                                               return_episodes=True))


def test_population_rows_equal_single_evaluations_with_any_threads():
    n = neuroevo.Policy("CartPole-v1", **HIDDEN).n_params
    pop = np.random.default_rng(0).normal(0, 1, (5, n)).astype(np.float32)
    one = neuroevo.evaluate("CartPole-v1", pop, episodes=3, threads=1, policy=HIDDEN)
    two = neuroevo.evaluate("CartPole-v1", pop, episodes=3, threads=2, policy=HIDDEN)
    assert one.shape == (5,) and np.array_equal(one, two)
    assert len(set(one.tolist())) > 1  # the rows are different policies
    for i in range(5):
        assert neuroevo.evaluate("CartPole-v1", pop[i], episodes=3, policy=HIDDEN) == one[i]
    per = neuroevo.evaluate("CartPole-v1", pop, episodes=3, policy=HIDDEN, return_episodes=True)
    assert per.shape == (5, 3)


def test_act_is_the_documented_mlp():
    rng = np.random.default_rng(1)
    disc = neuroevo.Policy("CartPole-v1", rng.normal(0, 1, 4 * 8 + 8 + 8 * 2 + 2), **HIDDEN)
    obs = rng.normal(0, 1, (20, 4)).astype(np.float32)
    ref = _mlp(disc.params.astype(np.float64), obs, [4, 8, 2]).argmax(axis=1)
    acts = disc.act(obs)
    assert acts.dtype == np.int64 and np.array_equal(acts, ref) and 0 < acts.sum() < 20
    assert disc.act(obs[3]) == ref[3] and isinstance(disc.act(obs[3]), int)
    # continuous: Pendulum's action in [-2, 2]
    cont = neuroevo.Policy("Pendulum-v1", **HIDDEN)
    a = cont.act(np.array([1.0, 0.0, 0.5]))
    assert a.shape == (1,) and a.dtype == np.float32 and -2 <= a[0] <= 2
    assert cont.act(np.ones((4, 3))).shape == (4, 1)
    assert np.array_equal(cont.params, cont.init_params(0)) and not np.array_equal(cont.init_params(1),
                                                                                   cont.init_params(0))


def test_policy_from_a_run_acts_and_evaluates_like_its_params(tmp_path):
    run = neuroevo.run("cartpole-es", runs=tmp_path, generations=2, threads=2, es__population=10,
                       run__target="none")
    pol = neuroevo.Policy.load(run.dir)
    best = neuroevo.Params.load(f"{run.dir}/best.params")
    assert pol.obs_mean is not None and np.array_equal(pol.params, best.params)
    assert pol.evaluate(5, seed=2) == neuroevo.evaluate_policy(best, episodes=5, seed=2)
    # the observation is normalized before the network, as in training
    raw = neuroevo.Policy(best.env_id, best.params, **{k[7:]: v for k, v in best.header.items()
                                                         if k.startswith("policy.")})
    obs = np.random.default_rng(2).normal(0, 3, (50, 4)).astype(np.float32)
    z = np.clip((obs - best.obs_mean) / best.obs_std, -best.obs_clip, best.obs_clip) if best.obs_clip > 0 else (
        (obs - best.obs_mean) / best.obs_std)
    assert np.array_equal(pol.act(obs), raw.act(z.astype(np.float32)))


def test_evaluate_releases_the_gil():
    n = neuroevo.Policy("CartPole-v1", **HIDDEN).n_params
    x = neuroevo.Policy("CartPole-v1", **HIDDEN).params
    assert x.size == n
    ticks, stop = [0], threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        neuroevo.evaluate("Acrobot-v1", np.zeros(neuroevo.Policy("Acrobot-v1").n_params), episodes=40, threads=1)
    finally:
        stop.set()
        t.join()
    assert ticks[0] > 10_000


def test_wrong_types_are_type_errors():
    n = neuroevo.Policy("CartPole-v1", **HIDDEN).n_params
    with pytest.raises(TypeError, match="neuroevo.evaluate"):
        neuroevo.evaluate_policy("CartPole-v1", np.zeros(114))  # a vector is no seed chain
    with pytest.raises(TypeError, match="ints"):
        neuroevo.evaluate_policy("CartPole-v1", [-1.5, 2.0])
    with pytest.raises(ValueError, match="2\\^64"):
        neuroevo.evaluate_policy("CartPole-v1", [-1, 2])
    with pytest.raises(TypeError, match="env_id must be a str"):
        neuroevo.evaluate(3, np.zeros(n))
    with pytest.raises(TypeError, match="float array"):
        neuroevo.evaluate("CartPole-v1", "0 0 0", policy=HIDDEN)
    with pytest.raises(TypeError, match="float array"):
        neuroevo.evaluate("CartPole-v1", [object()] * n, policy=HIDDEN)
    with pytest.raises(ValueError, match=f"{n} values"):
        neuroevo.evaluate("CartPole-v1", np.zeros(n + 1), policy=HIDDEN)
    with pytest.raises(TypeError, match="episodes must be an int"):
        neuroevo.evaluate("CartPole-v1", np.zeros(n), episodes=2.5, policy=HIDDEN)
    with pytest.raises(TypeError, match="policy must be a dict"):
        neuroevo.evaluate("CartPole-v1", np.zeros(n), policy="mlp")
    with pytest.raises(TypeError, match="needs the parameter vector"):
        neuroevo.evaluate("CartPole-v1")
    with pytest.raises(neuroevo.Error, match="hiden"):
        neuroevo.Policy("CartPole-v1", hiden=8)
    p = neuroevo.Policy("CartPole-v1", **HIDDEN)
    with pytest.raises(TypeError, match="obs must be a float array"):
        p.act("left")
    with pytest.raises(ValueError, match="shape \\(4,\\)"):
        p.act(np.zeros(5))
    with pytest.raises(ValueError, match="values"):
        p.params = np.zeros(3)
