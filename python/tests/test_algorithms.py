# SPDX-License-Identifier: MIT
# neuroevo.algorithms: ask/tell over the C vtables with NumPy arrays and Python fitness functions.
# CMA-ES minimizes a Python-defined Rosenbrock; every registered algorithm gets a class and (but
# novelty search, which needs behaviour characterizations a fitness function does not give and
# says so) improves on a sphere from x0; tell() validates its input; save/load restores a state exactly;
# the same seed gives the same candidates.
import numpy as np
import pytest

import neuroevo
from neuroevo import _core, algorithms


def rosenbrock(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


def sphere(x):
    return float(np.sum((x - 0.5) ** 2))


def test_every_registered_algorithm_has_a_class():
    names = [n for n, _ in _core.algorithms()]
    assert names == algorithms.names() and "ga" in names
    for name in names:
        cls = algorithms.get(name)
        assert issubclass(cls, algorithms.AskTell) and cls.algorithm == name
        assert getattr(algorithms, cls.__name__) is cls
    with pytest.raises(ValueError, match="available"):
        algorithms.get("nope")


def test_cmaes_minimizes_rosenbrock():
    es = algorithms.CMAES(np.zeros(6), 0.5, seed=3)
    x, fx = es.optimize(rosenbrock, generations=2000, target=1e-8)
    assert fx <= 1e-8, (fx, x)
    np.testing.assert_allclose(x, np.ones(6), atol=1e-3)
    assert x.shape == (6,) and es.report()["best"] >= 0


# novelty search compares behaviour characterizations, which a fitness function does not give
NOVELTY = {"ns-es", "nsr-es", "nsra-es"}


@pytest.mark.parametrize("name", [n for n in algorithms.names() if n not in NOVELTY])
def test_algorithm_improves_on_a_sphere(name):
    cls = algorithms.get(name)
    x0 = np.full(8, 2.0)
    if name == "python":  # any ask/tell class in the optimizer server: pycma here (x0 filled in)
        opt = cls("cma:CMAEvolutionStrategy", x0, seed=1, sigma0=0.3, inopts={"seed": 2, "verbose": -9})
    else:
        opt = cls(x0, 0.05 if name == "ga" else 0.3, seed=1, **({"population": 50} if name == "ga" else {}))
    X = opt.ask()
    assert X.shape[1] == 8 and X.dtype == np.float64
    np.testing.assert_allclose(X.mean(axis=0), x0, atol=1.0)  # candidates start around x0
    x, fx = opt.optimize(sphere, generations=60)
    assert opt.generations == 60
    assert fx < 0.5 * sphere(x0), (name, fx)
    assert sphere(x) == pytest.approx(fx, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("name", sorted(NOVELTY & set(algorithms.names())))
def test_novelty_search_needs_behaviours(name):
    with pytest.raises(neuroevo.Error, match="needs behaviour characterizations"):
        algorithms.get(name)(np.zeros(4), 0.3)


def test_ask_is_idempotent_and_tell_checks_its_input():
    opt = algorithms.get("ga")(np.zeros(3), 0.1, population=10, truncation=3)
    X = opt.ask()
    np.testing.assert_array_equal(opt.ask(), X)
    with pytest.raises(ValueError, match="values"):
        opt.tell(np.zeros(len(X) + 1))
    with pytest.raises(ValueError, match="solutions"):
        opt.tell(np.zeros((2, 3)), np.zeros(len(X)))
    opt.tell(X, [sphere(x) for x in X])
    with pytest.raises(RuntimeError, match="without a pending ask"):
        opt._c.tell(np.zeros(len(X)))


def test_maximize_and_nan_as_failed():
    opt = algorithms.get("ga")(np.zeros(2), 0.1, population=20, truncation=5, maximize=True, seed=2)
    for _ in range(30):
        X = opt.ask()
        values = [-sphere(x) for x in X]
        values[0] = float("nan")  # a failed evaluation is ranked last, never an error
        opt.tell(values)
    x, value = opt.best
    assert value <= 0 and value > -sphere(np.zeros(2))


def test_save_load_and_seed_determinism():
    name = "cmaes" if "cmaes" in algorithms.names() else "ga"
    cls = algorithms.get(name)
    a, b = cls(np.ones(4), 0.3, seed=9), cls(np.ones(4), 0.3, seed=9)
    for _ in range(5):
        Xa, Xb = a.ask(), b.ask()
        np.testing.assert_array_equal(Xa, Xb)
        a.tell([rosenbrock(x) for x in Xa])
        b.tell([rosenbrock(x) for x in Xb])
    state = a.save()
    c = cls(np.ones(4), 0.3, seed=9)
    c.load(state)
    np.testing.assert_array_equal(a.ask(), c.ask())


def test_unknown_setting_names_the_key():
    with pytest.raises(neuroevo.Error, match="populaton"):
        algorithms.get("ga")(np.zeros(2), populaton=5)
    with pytest.raises(TypeError, match="popsize"):
        type("X", (algorithms.AskTell,), {"algorithm": "ga", "section": "nosuch"})(np.zeros(2), popsize=4)


# ---- as evosax / pycma users expect -----------------------------------------------------------------

VECTOR_ALGOS = [n for n in ("es", "ars", "pgpe", "snes", "cmaes", "sepcmaes") if n in algorithms.names()]


@pytest.mark.parametrize("name", VECTOR_ALGOS)
def test_ask_is_exactly_the_population_around_exactly_x0(name):
    x0 = np.array([3.0, -1.0, 0.5, 2.0])
    opt = algorithms.get(name)(x0, 0.2, popsize=12, seed=4)
    X = opt.ask()
    assert X.shape == (12, 4)  # no centre row appended
    # the first generation is centred on x0 itself (no hidden init offset): mirrored pairs average
    # to it exactly, sampled populations within their spread
    if name in ("es", "ars", "pgpe"):
        np.testing.assert_allclose(X.mean(axis=0), x0, atol=1e-6)
    else:
        np.testing.assert_allclose(X.mean(axis=0), x0, atol=3 * 0.2 / np.sqrt(12) * 3)
    spread = X.std(axis=0).mean()
    assert 0.1 < spread < 0.4, spread  # sigma0 sets it
    if opt.centre is not None:
        np.testing.assert_array_equal(opt.centre, x0)
        assert opt.tell([sphere(x) for x in X], centre_value=sphere(opt.centre))
        assert opt.report()["elite_mean"] == sphere(x0)
    else:
        with pytest.raises(ValueError, match="centre_value"):
            opt.tell([sphere(x) for x in X], centre_value=1.0)


def test_ga_first_generation_is_x0_plus_sigma0_noise():
    x0 = np.full(5, 7.0)
    for sigma0 in (0.01, 1.0):
        X = algorithms.GA(x0, sigma0, popsize=400, seed=1, elite_candidates=0).ask()
        assert X.shape == (400, 5)
        np.testing.assert_allclose(X.mean(axis=0), x0, atol=4 * sigma0 / 20)
        np.testing.assert_allclose(X.std(axis=0), sigma0, rtol=0.15)


def test_ga_elite_round_is_marked():
    opt = algorithms.GA(np.zeros(2), 0.1, popsize=10, elite_candidates=3, seed=2)
    assert opt.round is None
    X = opt.ask()
    assert opt.round == 0 and X.shape == (10, 2)
    assert not opt.tell([sphere(x) for x in X])  # the generation goes on: its elite round
    E = opt.ask()
    assert opt.round == 1 and E.shape == (3, 2) and set(map(tuple, E)) <= set(map(tuple, X))
    assert opt.tell([sphere(x) for x in E]) and opt.generations == 1


def test_ga_best_is_a_point_it_asked():
    opt = algorithms.GA(np.zeros(3), 0.3, popsize=20, seed=5, elite_candidates=0)
    asked = []
    for _ in range(5):
        X = opt.ask()
        asked.extend(map(tuple, X))
        opt.tell([sphere(x) for x in X])
    x, fx = opt.best
    assert tuple(x) in set(asked) and fx == sphere(x) == min(sphere(np.array(a)) for a in asked)


def test_popsize_and_sigma0_for_every_algorithm_and_x0_settings():
    for name in algorithms.names():
        if name in ("nevergrad", "python") or name in NOVELTY:  # novelty search: no behaviours here
            continue
        opt = algorithms.get(name)(np.zeros(3), 0.1, popsize=10)
        assert opt.ask().shape == (10, 3), name
    assert algorithms.ARS(np.zeros(3), popsize=20).ask().shape == (20, 3)
    with pytest.raises(ValueError, match="even"):
        algorithms.ARS(np.zeros(3), popsize=7)
    # x0= as a keyword is CMA-ES's own setting, not a second x0
    if "cmaes" in algorithms.names():
        opt = algorithms.CMAES(np.zeros(3), 0.5, x0="zeros")
        assert opt.ask().shape[1] == 3
