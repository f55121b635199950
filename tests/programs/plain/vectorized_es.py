"""(mu, lambda) evolution strategy on a penalised Rastrigin, fully vectorized with NumPy.

Run:  python vectorized_es.py [lambda] [generations]
"""
import sys

import numpy as np

DIM = 200
MU_FRACTION = 0.1
BOX = 5.12          # feasible region is [-BOX, BOX]^DIM


def fitness(pop):
    """pop: (n, d) float64 -> (n,) values, lower is better."""
    d = pop.shape[1]
    rastrigin = 10.0 * d + np.sum(pop**2 - 10.0 * np.cos(2.0 * np.pi * pop), axis=1)
    # quadratic penalty for leaving the box, per gene
    outside = np.where(np.abs(pop) > BOX, (np.abs(pop) - BOX) ** 2, 0.0)
    # mild coupling term between neighbouring genes
    coupling = 0.05 * np.sum(np.sin(pop[:, 1:] * pop[:, :-1]) ** 2, axis=1)
    return rastrigin + 1000.0 * np.sum(outside, axis=1) + coupling


def es(lam, n_gen, seed=1):
    rng = np.random.default_rng(seed)
    mu = max(1, int(lam * MU_FRACTION))
    sigma = 0.5

    parents = rng.uniform(-BOX, BOX, size=(mu, DIM))
    best_f, best_x = np.inf, None

    for gen in range(n_gen):
        # each child picks a random parent and adds gaussian noise
        idx = rng.integers(0, mu, size=lam)
        children = parents[idx] + sigma * rng.standard_normal((lam, DIM))

        f = fitness(children)

        order = np.argsort(f)
        parents = children[order[:mu]]   # comma selection: parents are discarded
        if f[order[0]] < best_f:
            best_f, best_x = f[order[0]], children[order[0]].copy()

        sigma *= 0.97
        if gen % 3 == 0 or gen == n_gen - 1:
            print(f"[gen {gen:2d}] best={f[order[0]]:.3f} median={np.median(f):.3f} sigma={sigma:.3f}")

    return best_f, best_x


if __name__ == "__main__":
    lam = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    n_gen = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    best_f, best_x = es(lam, n_gen)
    print(f"result: best f = {best_f:.4f}, |x|_inf = {np.abs(best_x).max():.3f}")
