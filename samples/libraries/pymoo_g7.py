"""pymoo's G7 problem through its own _evaluate: a library's code, compiled

Calls pymoo's G7 (ten variables, eight inequality constraints) as a pymoo user would, through the problem's
_evaluate, and adds a static penalty. Dynamo follows the call into pymoo's files: the objective and constraints
compile into one kernel, and a lazy import in pymoo's gradient toolbox breaks the graph. The report shows pymoo's
lines with their verdicts and the break at its site in pymoo. Needs pymoo (pip install pymoo==0.6.2, in the test
extra).
"""

import numpy as np
from pymoo.problems.single.g import G7

POPULATION_SIZE = 100_000
PROBLEM = G7()


def population(n, rng):
    return rng.uniform(-10, 10, size=(n, 10))


def fitness_numpy(x):
    out = {}
    PROBLEM._evaluate(x, out)
    return out["F"] + 1000 * np.maximum(out["G"], 0).sum(axis=1)
