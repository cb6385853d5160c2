# SPDX-License-Identifier: MIT
"""What one ask() of Nevergrad's NGOpt costs at small budgets: NGOpt picks its optimizer from the
budget, the dimension and num_workers, and below a budget of 5 x num_workers it picks a sampling
search (MetaTuneRecentering in Nevergrad 1.0.12) whose ask costs seconds of CPU in thousands of
dimensions, where the DE it picks at larger budgets costs a fraction of a millisecond. With the
lander study's policy (4,996 parameters) and population (200), `--generations 3` (budget 600)
means minutes of asks per generation.

    python3 bench/micro/ngopt_ask.py [DIM] [POPULATION]

Prints, per budget, the optimizer NGOpt chose, the CPU seconds of its first ask and the median of
the next three, and what a generation of POPULATION asks costs at that rate. About 20 s."""
import statistics
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")


def probe(ng, dim: int, pop: int, budget: int) -> tuple[str, float, float]:
    param = ng.p.Array(init=np.zeros(dim)).set_mutation(sigma=0.05)  # as the optimizer server builds it
    param.random_state = np.random.RandomState(1)
    opt = ng.optimizers.registry["NGOpt"](parametrization=param, budget=budget, num_workers=pop)
    t0 = time.process_time()
    opt.ask()
    first = time.process_time() - t0
    rest = []
    for _ in range(3):
        t0 = time.process_time()
        opt.ask()
        rest.append(time.process_time() - t0)
    chosen = getattr(opt.optim, "name", type(opt.optim).__name__)
    return chosen, first, statistics.median(rest)


def main() -> None:
    dim = int(sys.argv[1]) if len(sys.argv) > 1 else 4996
    pop = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    import nevergrad as ng

    print(f"Nevergrad {ng.__version__}, NGOpt, {dim} dimensions, num_workers = population = {pop}")
    print(f"{'budget':>8}  {'chosen optimizer':<24} {'first ask s':>11} {'ask s':>8} {'a generation s':>15}")
    for budget in (3 * pop, 5 * pop - 1, 5 * pop, 30 * pop):
        chosen, first, ask = probe(ng, dim, pop, budget)
        print(f"{budget:>8}  {chosen:<24} {first:>11.4f} {ask:>8.4f} {pop * ask:>15.1f}")


if __name__ == "__main__":
    main()
