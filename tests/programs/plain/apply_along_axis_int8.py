# Integer GA: genes are small signed ints stored as int8.
# Maximise a weighted sum with a budget penalty.
#
#   python apply_along_axis_int8.py [n] [generations]

import sys
import numpy as np

rng = np.random.default_rng(7)

N_GENES = 40
weights = rng.uniform(-1.0, 2.0, size=N_GENES)
costs = rng.integers(1, 5, size=N_GENES)
BUDGET = 150


def score(row):
    value = np.sum(row * weights)
    spent = np.sum(np.abs(row) * costs)
    # over budget -> penalise hard
    if spent > BUDGET:
        value = value - 3.0 * (spent - BUDGET)
    # negative genes are allowed but cost a little
    value = value - 0.1 * np.sum(np.where(row < 0, -row, 0))
    return value


def select(pop, fit, k):
    # truncation selection: keep the top k rows
    order = np.argsort(fit)[::-1]
    return pop[order[:k]]


def mutate(pop, rate=0.02):
    mask = rng.random(pop.shape) < rate
    step = rng.integers(-2, 3, size=pop.shape)
    out = pop.astype(np.int16) + mask * step
    return np.clip(out, -10, 10).astype(np.int8)


def uniform_crossover(parents, n_children):
    a = parents[rng.integers(0, len(parents), n_children)]
    b = parents[rng.integers(0, len(parents), n_children)]
    pick = rng.random(a.shape) < 0.5
    return np.where(pick, a, b)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    gens = int(sys.argv[2]) if len(sys.argv) > 2 else 60

    pop = rng.integers(-10, 11, size=(n, N_GENES)).astype(np.int8)
    for g in range(gens):
        fit = np.apply_along_axis(score, 1, pop)
        if g % 10 == 0:
            print("generation", g, "best", round(float(fit.max()), 3), "avg", round(float(fit.mean()), 3))
        parents = select(pop, fit, n // 4)
        children = mutate(uniform_crossover(parents, n - len(parents)))
        pop = np.vstack([parents, children])

    fit = np.apply_along_axis(score, 1, pop)
    best = pop[np.argmax(fit)]
    print("final best", round(float(fit.max()), 3), "genes", best[:8].tolist(), "...")
