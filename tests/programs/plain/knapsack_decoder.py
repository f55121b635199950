"""A knapsack GA written the plain way: a greedy decoder takes the items the genes choose, in order, while they fit
(its test reads the running weight: a state carried from gene to gene), scored with a list comprehension; the
parents sorted by a key lambda (a frame the sampler may catch between two lines).

    python knapsack_decoder.py [POPULATION] [GENERATIONS]
"""

import random
import sys

ITEMS = 30
WEIGHTS = [random.Random(i).uniform(1, 10) for i in range(ITEMS)]
VALUES = [random.Random(100 + i).uniform(1, 10) for i in range(ITEMS)]
CAPACITY = 60.0


def decode(individual):
    total = 0.0
    value = 0.0
    for i, g in enumerate(individual):
        if g > 0.5:
            if total + WEIGHTS[i] <= CAPACITY:
                total += WEIGHTS[i]
                value += VALUES[i]
    return value


def main(size, generations):
    rng = random.Random(1)
    pop = [[rng.random() for _ in range(ITEMS)] for _ in range(size)]
    for _ in range(generations):
        scores = [decode(ind) for ind in pop]
        ranked = [ind for _, ind in sorted(zip(scores, pop), key=lambda t: -t[0])][:size // 10]
        pop = [[g if rng.random() > 0.05 else rng.random() for g in rng.choice(ranked)] for _ in range(size)]
    print(f"best value {max(decode(ind) for ind in pop):.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000, int(sys.argv[2]) if len(sys.argv) > 2 else 60)
