"""Per-individual functions for the rewriter's tests, one construct of issue 31's subset each (``SUBSET``), and
constructs outside it with the construct, reason and line it must decline with (``OUTSIDE``). Shared by the fast
tests (NumPy) and tests/e2e/test_rewrite.py (torch)."""

import importlib
import sys
import textwrap
import types

import numpy as np

from inspector.rewrite import Reason, program_from_sources

HEADER = "\n".join([
    "import math", "from functools import reduce", "from operator import mul", "K = 2",
    "WEIGHTS = [1.0, 2.0, 0.5, 3.0, 1.5]", "TABLE = [(1.0, 2.0), (0.5, 1.0), (2.0, 0.0), (1.0, 1.0), (3.0, 0.5)]",
    "CONSTRAINTS = [(0, 1, 0.5), (2, 3, -1.0)]", ""])

# name -> the body of a module defining fitness(individual) (after HEADER); 5 genes
SUBSET = {
    "unpacking": """
        def fitness(individual):
            a, b, c, d, e = individual
            return a * b - c / 2 + d ** 2 - e
    """,
    "indexing": """
        def fitness(individual):
            return individual[0] + 2 * individual[-1] - individual[K] + sum(individual[1:3])
    """,
    "arithmetic": """
        def fitness(individual):
            x, y = individual[0], individual[1]
            return x ** 2 + 2 * y ** 3 - x * y / 4 + (x // 0.5) + (y % 0.7) - (-x) + +y
    """,
    "math functions and constants": """
        def fitness(individual):
            x, y, z = individual[0], individual[1], individual[2]
            return (math.sin(x) + math.cos(y) * math.exp(z / 3) + math.atan2(y, 1.5) + math.hypot(x, y)
                    + math.pi * math.e + math.log(abs(x) + 1, 2) + math.sqrt(abs(y)) + math.fabs(z)
                    + math.floor(x) + math.pow(abs(y), 1.5) + math.tanh(z) + math.tau)
    """,
    "abs, min and max of scalars": """
        def fitness(individual):
            x, y, z = individual[0], individual[1], individual[2]
            return abs(x - y) + min(x, y) - max(x, 0.0, z) + min(1.0, z) + max(y, x)
    """,
    "comparisons, chained": """
        def fitness(individual):
            x, y, z = individual[0], individual[1], individual[2]
            return float(0 < x <= y) + 2 * (z != x) + 4 * (-1 < y < 1 < z)
    """,
    "and, or, not": """
        def fitness(individual):
            x, y, z = individual[0], individual[1], individual[2]
            ok = x > 0 and not y < 0 or z == 1
            return (x and y) + (y or 2.0) + (0.5 if ok else -0.5) + (not z)
    """,
    "if return chains": """
        def fitness(individual):
            x, y, z = individual[0], individual[1], individual[2]
            if x < -1:
                return math.inf
            if not (-2 < y <= 2):
                return -math.inf
            elif z > 1:
                return x * z
            else:
                if x > 1:
                    return 0.0
            return x + y + z
    """,
    "feasibility helper, bool returns": """
        def feasible(individual):
            x, y = individual[0], individual[1]
            if x < 0:
                return False
            if not (-1 <= y <= 1):
                return False
            return True

        def fitness(individual):
            if not feasible(individual):
                return float("inf")
            return individual[0] ** 2 + individual[1]
    """,
    "if else expressions": """
        def fitness(individual):
            x, y = individual[0], individual[1]
            return (x if x > y else y) + (1.0 if x > 0 else -1.0 if x < -1 else 0.0)
    """,
    "if else assignments": """
        def fitness(individual):
            x, y, z = individual[0], individual[1], individual[2]
            v = 0.0
            if x > 0:
                v += x
                w = y * 2
            else:
                w = -y
                if z > 0:
                    v = z
            if y > 0:
                t = w + 1
                w = t * 2
            return v + w
    """,
    "for loop: sum, len, product, count, max": """
        def fitness(individual):
            total = 0.0
            product = 1.0
            count = 0
            best = -math.inf
            for x in individual:
                total += x * x
                product *= 1 + x / 10
                if x > 0:
                    count += 1
                best = max(best, x)
            return total / len(individual) + product + count + best
    """,
    "for loop with continue and else": """
        def fitness(individual):
            s = 0.0
            for x in individual:
                if x < -1:
                    continue
                if x > 1:
                    s += 2 * x
                else:
                    s -= x
            return s
    """,
    "for loop over range with neighbours": """
        def fitness(individual):
            n = len(individual)
            s = 0.0
            for i in range(n - 1):
                s += 100 * (individual[i + 1] - individual[i] ** 2) ** 2 + (1 - individual[i]) ** 2
            return s
    """,
    "enumerate and zip with a constant table": """
        def fitness(individual):
            s = 0.0
            for i, x in enumerate(individual):
                s += (i + 1) * x
            for x, w in zip(individual, WEIGHTS):
                s += w * x
            for x, (a, b) in zip(individual, TABLE):
                if x > 0:
                    s += a * x - b
            return s
    """,
    "a constant table indexed by the gene loop, its rows unpacked": """
        def fitness(individual):
            weight, value = 0.0, 0.0
            for i in range(len(individual)):
                w, v = TABLE[i]
                weight += individual[i] * w
                value += individual[i] * v * WEIGHTS[i]
            for i in range(1, len(individual)):
                value -= individual[i] * TABLE[i - 1][1]
            return value - 10 * max(0.0, weight - 2.0) + sum(x * WEIGHTS[i] for i, x in enumerate(individual))
    """,
    "generators and reductions": """
        def fitness(individual):
            return (sum(x * x for x in individual) + math.prod(1 + x / 10 for x in individual)
                    + max(x for x in individual) - min(abs(x) for x in individual)
                    + sum(1 for x in individual if x > 0) + any(x > 2 for x in individual)
                    + reduce(mul, (math.cos(x) for x in individual), 1)
                    + sum(a * b for a, b in zip(individual[:-1], individual[1:])))
    """,
    "a state carried from gene to gene": """
        def fitness(individual):
            s = 0.0
            for x in individual:
                s = s * 0.5 + x
            return s
    """,
    "a decoder whose test reads its running total": """
        def fitness(individual):
            total = 0.0
            value = 0.0
            for i, g in enumerate(individual):
                if g > 0:
                    if total + WEIGHTS[i] <= 4.0:
                        total += WEIGHTS[i]
                        value += TABLE[i][1]
            return value - total
    """,
    "completion times by index": """
        def fitness(individual):
            start = 0.0
            done = 0.0
            for i in range(len(individual)):
                start = start + abs(individual[i])
                done = max(done, start) + WEIGHTS[i] * abs(individual[i])
            return done
    """,
    "a list of running values set by index": """
        def fitness(individual):
            t = [0.0, 0.0, 0.0]
            for x in individual:
                t[0] += abs(x)
                for m in range(1, 3):
                    t[m] = max(t[m], t[m - 1]) + WEIGHTS[m] * x
            return t[-1] - t[0]
    """,
    "a list with an entry never set": """
        def fitness(individual):
            t = [0.0] * 3
            t[0] = individual[0] * 2
            return t[1], t[0]
    """,
    "a loop over constants kept": """
        def fitness(individual):
            violation = 0.0
            for a, b, bound in CONSTRAINTS:
                excess = individual[a] + individual[b] - bound
                if excess > 0:
                    violation += excess * excess
            return violation + sum(max(individual[a] - bound, 0.0) for a, b, bound in CONSTRAINTS)
    """,
    "an if on constants kept": """
        def fitness(individual):
            if K > 1:
                s = individual[0] * K
            else:
                s = 0.0
            if len(individual) > 3:
                s += individual[3]
            return s
    """,
    "tuple of objectives": """
        def fitness(individual):
            g = 1 + 9 * sum(individual[1:]) / (len(individual) - 1)
            if individual[0] > 2:
                return math.inf, math.inf
            return individual[0], g * (2 - individual[0] / g)
    """,
    "objectives with a constant": """
        def fitness(individual):
            return 0.0, individual[0] + individual[1]
    """,
    "the individual made an array (DEAP's lists)": """
        import numpy as np

        def fitness(individual):
            x = np.asarray(individual)
            value = 10 * len(x) + np.sum(x * x - 10 * np.cos(2 * np.pi * x))
            if np.any(np.abs(x) > 2.5):
                value += 100.0
            return (value + np.sum(np.array(individual[1:]) ** 2),)
    """,
    "dot products with a constant vector (np.dot, @)": """
        import numpy as np

        VALUES = np.array([10.0, 5.0, 15.0, 7.0, 6.0])

        def fitness(individual):
            weight = np.dot(individual, WEIGHTS)
            if weight > 4.0:
                return 0.0
            x = np.asarray(individual)
            return x @ VALUES + np.dot(x, x) + np.dot(VALUES, VALUES)
    """,
    "a constant vector with the genes (torch: a tensor)": """
        import numpy as np

        SHIFT = np.array([1.0, 0.5, 0.0, 0.5, 1.0])

        def fitness(individual):
            x = np.asarray(individual)
            return np.sum(x * WEIGHTS) - np.max(x - SHIFT) + np.min(SHIFT * x + K)
    """,
    "NumPy's reductions and clip of the individual as an array": """
        import numpy as np

        def fitness(individual):
            x = np.asarray(individual)
            spread = np.std(x) + np.var(x) - np.mean(np.clip(x, -1.0, 1.0))
            return np.linalg.norm(x) + spread + np.count_nonzero(x > 0.5)
    """,
    "Griewank: a vector over the genes (np.arange)": """
        import numpy as np

        def fitness(individual):
            x = np.asarray(individual)
            i = np.arange(1, len(x) + 1)
            return 1 + np.sum(x ** 2) / 4000 - np.prod(np.cos(x / np.sqrt(i))) + np.sum(np.arange(3))
    """,
    "differences and running sums along the genes (np.diff, np.cumsum)": """
        import numpy as np

        def fitness(individual):
            x = np.asarray(individual)
            steps = np.diff(x)
            return np.sum(np.abs(steps) * x[1:]) + np.max(np.cumsum(x)) - np.min(np.cumprod(x[:3]))
    """,
    "Rosenbrock: slices of the individual as an array": """
        import numpy as np

        def fitness(individual):
            x = np.asarray(individual)
            return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    """,
    "helpers with columns and tuples": """
        def parts(x, y):
            return x + y, x - y

        def scaled(v, by=2.0):
            return v * by

        def fitness(individual):
            a, b = parts(individual[0], individual[1])
            return scaled(a) * scaled(b, 0.5) + scaled(3.0)
    """,
}

# name -> (module body, construct named, reason, line of the construct in the body, its `def` line 1)
OUTSIDE = {
    "while": ("""
        def fitness(individual):
            i = 0
            s = 0.0
            while i < 3:
                s += individual[i]
                i += 1
            return s
    """, "`while` loop", Reason.NOT_GENE_LOOP, 4),
    "try": ("""
        def fitness(individual):
            try:
                return 1 / individual[0]
            except ZeroDivisionError:
                return math.inf
    """, "`try` statement", Reason.STATEMENT, 2),
    "print": ("""
        def fitness(individual):
            print(individual)
            return individual[0]
    """, "call to `print`", Reason.SIDE_EFFECT, 2),
    "an array of values per individual": ("""
        import numpy as np

        def fitness(individual):
            return np.sum(np.asarray([individual[0], individual[1]]))
    """, "call to `np.asarray` of values per individual", Reason.UNKNOWN_CALL, 4),
    "a dot product of two genes": ("""
        import numpy as np

        def fitness(individual):
            return np.dot(individual[0], individual[1])
    """, "call to `np.dot`", Reason.VALUE, 4),
    "an array of the individual set by index": ("""
        import numpy as np

        def fitness(individual):
            x = np.array(individual)
            x[0] = 0.0
            return np.sum(x)
    """, "assignment to `x[0]`", Reason.SIDE_EFFECT, 5),
    "item assignment": ("""
        def fitness(individual):
            individual[0] = 1.0
            return individual[0]
    """, "assignment to `individual[0]`", Reason.SIDE_EFFECT, 2),
    "break": ("""
        def fitness(individual):
            s = 0.0
            for x in individual:
                if x > 1:
                    break
                s += x
            return s
    """, "`break`", Reason.EARLY_EXIT, 5),
    "random": ("""
        import random
        def fitness(individual):
            return individual[0] + random.random()
    """, "call to `random.random`", Reason.UNKNOWN_CALL, 3),
    "unknown name": ("""
        def fitness(individual):
            return individual[0] * SCALE
    """, "name `SCALE`", Reason.UNKNOWN_NAME, 2),
    "index per individual": ("""
        def fitness(individual):
            k = 1 if individual[0] > 0 else 2
            return individual[k]
    """, "index `individual[k]`", Reason.INDEX, 3),
    "list arithmetic": ("""
        def fitness(individual):
            return sum(individual * 2)
    """, "`*` operator", Reason.SEQUENCE, 2),
    "membership": ("""
        def fitness(individual):
            return 1.0 if individual[0] in (0.0, 1.0) else 0.0
    """, "`in` test", Reason.OPERATOR, 2),
    "no return at the end": ("""
        def fitness(individual):
            if individual[0] > 0:
                return 1.0
    """, "end of `fitness`", Reason.NO_RETURN, 2),
    "changed after an early return": ("""
        def fitness(individual):
            x = individual[0]
            if x > 1:
                return x
            x = x * 2
            return x
    """, "early `return`", Reason.CHANGED_AFTER_RETURN, 3),
    "recurrence": ("""
        def fitness(individual):
            s = 0.0
            for x in individual[1:]:
                s = s * 0.5 + x
            return s
    """, "`s` in the loop", Reason.RECURRENCE, 4),
    "nested loops": ("""
        def fitness(individual):
            s = 0.0
            for x in individual:
                for y in individual:
                    s += x * y
            return s
    """, "`for` loop", Reason.NESTED, 4),
    "an entry set under a per-individual test": ("""
        def fitness(individual):
            t = [0.0] * 2
            for x in individual:
                if x > 0:
                    t[0] += x
            return t[0]
    """, "an entry of `t` set under a per-individual test", Reason.CONDITIONAL_LOOP, 4),
    "an entry at a per-individual index": ("""
        def fitness(individual):
            t = [0.0] * 2
            t[1 if individual[0] > 0 else 0] = 1.0
            return t[0]
    """, "index `t[1 if individual[0] > 0 else 0]`", Reason.INDEX, 3),
    "a table's row chosen per individual": ("""
        def fitness(individual):
            k = 1 if individual[0] > 0 else 0
            return sum(TABLE[k])
    """, "index `TABLE[k]`", Reason.INDEX, 3),
    "returns of different lengths": ("""
        def fitness(individual):
            if individual[0] > 0:
                return 1.0, 2.0
            return 0.0
    """, "`return`", Reason.RETURNS, 4),
    "parameters": ("""
        def fitness(individual, weights):
            return individual[0] * weights
    """, "`fitness`", Reason.PARAMETERS, 1),
    "a lambda": ("""
        fitness = lambda individual: individual[0]
    """, "`fitness`", Reason.NOT_A_FUNCTION, 1),
    "helper called two ways": ("""
        def twice(v):
            return v * 2

        def fitness(individual):
            return twice(individual[0]) + sum(twice(individual))
    """, "call to `twice`", Reason.HELPER, 5),
    "a loop under a test": ("""
        def fitness(individual):
            s = 0.0
            if individual[0] > 0:
                for a, b, bound in CONSTRAINTS:
                    s = s + individual[a]
            return s
    """, "a loop or unpacking under a per-individual test", Reason.CONDITIONAL_LOOP, 3),
    "a range per individual": ("""
        def fitness(individual):
            s = 0.0
            for i in range(int(individual[0])):
                s += i
            return s
    """, "`int()` of a value per individual", Reason.VALUE, 3),
    "a list built": ("""
        def fitness(individual):
            found = []
            found.append(individual[0])
            return sum(found)
    """, "call to `found.append`", Reason.SIDE_EFFECT, 3),
    "a choice between tuples": ("""
        def fitness(individual):
            return (1.0, 2.0) if individual[0] > 0 else (individual[1], 0.0)
    """, "choice between tuples", Reason.VALUE, 2),
    "a string": ("""
        def fitness(individual):
            return len("abc") + individual[0]
    """, "str constant", Reason.VALUE, 2),
    "a method of an object the module holds": ("""
        class Scaled:
            def __init__(self, k):
                self.k = k

            def value(self, x):
                return self.k * sum(v * v for v in x)


        SCALED = Scaled(2.0)


        def fitness(individual):
            return SCALED.value(individual)
    """, "call to `SCALED.value`", Reason.METHOD, 13),
}


def source(body: str) -> str:
    return HEADER + textwrap.dedent(body)


def line_in_file(line: int) -> int:
    """A case's line in its module (after HEADER and the body's first, empty, line)."""
    return HEADER.count("\n") + 1 + line


def program(body: str):
    return program_from_sources(source(body), path="case.py")


def namespace(body: str) -> dict:
    """The case's module, run: what a sample's namespace is to the check."""
    space: dict = {"__name__": "case"}
    exec(compile(source(body), "case.py", "exec"), space)
    return space


def population(n: int = 400, genes: int = 5, seed: int = 0) -> np.ndarray:
    """Random individuals spread so that every branch of the cases is taken."""
    return np.random.default_rng(seed).uniform(-3, 3, size=(n, genes))


def helper_module(name: str, text: str) -> types.ModuleType:
    """A module of the program's own, importable by ``name`` (the sample's folder would hold it)."""
    module = types.ModuleType(name)
    exec(compile(textwrap.dedent(text), f"{name}.py", "exec"), module.__dict__)
    sys.modules[name] = module
    importlib.invalidate_caches()
    return module
