# SPDX-License-Identifier: MIT
"""The peer side of bench/micro/bench_pyopt.c: Nevergrad's own ask/tell loop in plain Python, the way its
users run it, with the settings the bridge's server uses (Array parametrization around zeros, the
same sigma, num_workers = population, asks then tells in order, the sphere's values as losses).

    python3 bench/micro/nevergrad_loop.py OPTIMIZER DIM POPULATION WARMUP GENERATIONS

Prints the CPU seconds (this process) of each timed generation, one per line, after WARMUP
untimed ones (imports and the optimizer's construction are outside the clock too)."""
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore", message="Could not import matplotlib")


def main() -> None:
    name, dim, pop, warmup, gens = sys.argv[1], *(int(a) for a in sys.argv[2:6])
    import nevergrad as ng

    param = ng.p.Array(init=np.zeros(dim)).set_mutation(sigma=0.1)
    param.random_state = np.random.RandomState(1)
    opt = ng.optimizers.registry[name](parametrization=param, budget=None, num_workers=pop)
    for g in range(warmup + gens):
        t0 = time.process_time()
        asked = [opt.ask() for _ in range(pop)]
        values = [c.value for c in asked]  # what the bridge copies out
        t1 = time.process_time()
        losses = [float(np.dot(v, v)) for v in values]  # the sphere: evaluation, not timed on either side
        t2 = time.process_time()
        for c, loss in zip(asked, losses):
            opt.tell(c, loss)
        if g >= warmup:
            print(f"{time.process_time() - t2 + t1 - t0:.6f}", flush=True)


if __name__ == "__main__":
    main()
