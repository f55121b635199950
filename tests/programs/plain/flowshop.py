"""A permutation flow shop GA written the plain way: each individual a list of job numbers, its makespan computed with
a list of completion times, one per machine, set by index from gene to gene (``t[m] = max(t[m], t[m - 1]) +
P[j][m]``: a state carried in a list, and a gene used as an index into a constant table), scored with a list
comprehension; order crossover and swap mutation.

    python flowshop.py [POPULATION] [GENERATIONS]
"""

import random
import sys

JOBS, MACHINES = 20, 5
P = [[random.Random(10 * j + m).randint(1, 20) for m in range(MACHINES)] for j in range(JOBS)]


def makespan(perm):
    t = [0] * MACHINES
    for j in perm:
        t[0] += P[j][0]
        for m in range(1, MACHINES):
            t[m] = max(t[m], t[m - 1]) + P[j][m]
    return t[-1]


def crossover(a, b, rng):
    i, k = sorted(rng.sample(range(JOBS), 2))
    middle = a[i:k]
    rest = [g for g in b if g not in middle]
    return rest[:i] + middle + rest[i:]


def main(size, generations):
    rng = random.Random(1)
    pop = [rng.sample(range(JOBS), JOBS) for _ in range(size)]
    for _ in range(generations):
        scores = [makespan(ind) for ind in pop]
        ranked = [ind for _, ind in sorted(zip(scores, pop))][:size // 5]
        pop = []
        for _ in range(size):
            child = crossover(rng.choice(ranked), rng.choice(ranked), rng)
            if rng.random() < 0.2:
                x, y = rng.sample(range(JOBS), 2)
                child[x], child[y] = child[y], child[x]
            pop.append(child)
    print(f"best makespan {min(makespan(ind) for ind in pop)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000, int(sys.argv[2]) if len(sys.argv) > 2 else 40)
