"""A function over the population that scores it a row at a time (``inspector.rewrite.rows``): its loop body (or its
comprehension's value) read as the per-individual function it is, then written over the whole population (NumPy
here, no torch: the torch rewrite runs in tests/e2e/test_rewrite.py), each checked against the body per individual
and against the user's function on the population; a loop that is not one value per row is not read that way."""

import ast
import textwrap

import numpy as np
import pytest

from inspector.probe.experiment import population_call_site
from inspector.rewrite import Dialect, Rewrite, Row, Verdict, check, program_from_sources, vectorize
from inspector.rewrite.check import rewritten
from inspector.rewrite.rows import per_row

HEADER = "import numpy as np\nW = np.array([2.0, 3.0, 4.0, 5.0, 1.0, 2.0])\nCAP = 9.0\n"

# name -> (a population function looping over its rows, a line its NumPy rewrite holds)
LOOPS = {
    "range, an alias and a constraint as a Python if": ("""
        def fitness(pop):
            n = len(pop)
            fit = np.zeros(n)
            for i in range(n):
                x = pop[i]
                value = np.sum(x ** 2 - 3 * x)
                if x[0] + x[1] > 1.0:
                    value = value + 100.0 * (x[0] + x[1] - 1.0) ** 2
                fit[i] = value
            return fit
    """, "np.where(x[:, 0] + x[:, 1] > 1.0, 100.0 * (x[:, 0] + x[:, 1] - 1.0) ** 2, 0)"),
    "enumerate, one value in each arm": ("""
        def fitness(pop):
            out = np.empty(pop.shape[0])
            for i, ind in enumerate(pop):
                w = np.dot(ind, W)
                if w > CAP:
                    out[i] = -w
                else:
                    out[i] = np.sum(ind)
            return out
    """, "return np.where(w > CAP, -w, np.sum(pop, axis=1))"),
    "rows appended, a loop over the genes inside": ("""
        def fitness(pop):
            scores = []
            for ind in pop:
                s = 0.0
                for g in ind:
                    s += g * g
                scores.append(s)
            return np.array(scores)
    """, "np.sum(pop * pop, axis=1)"),
    "pop[i, j]": ("""
        def fitness(pop):
            fit = np.zeros(len(pop))
            for i in range(pop.shape[0]):
                fit[i] = pop[i, 0] * 2 + abs(pop[i, 1] - pop[i, 2])
            return fit
    """, "return pop[:, 0] * 2 + abs(pop[:, 1] - pop[:, 2])"),
    "a comprehension calling a helper": ("""
        def helper(ind):
            total = np.sum(ind ** 2)
            if ind[0] > 0.5:
                total = total + 10.0
            return total

        def fitness(pop):
            return np.array([helper(ind) for ind in pop])
    """, "return helper_numpy(pop)"),
    "a comprehension with its if inline": ("""
        def fitness(pop):
            return [np.sum(x) * 2 if x[0] > 0 else -np.sum(x) for x in pop]
    """, "np.where(pop[:, 0] > 0, np.sum(pop, axis=1) * 2, -np.sum(pop, axis=1))"),
}

NOT_ROWS = {
    "each value reads the one before": """
        def fitness(pop):
            fit = np.zeros(len(pop))
            for i in range(len(pop)):
                fit[i] = pop[i].sum() + (fit[i - 1] if i else 0)
            return fit
    """,
    "a row left without its value": """
        def fitness(pop):
            fit = np.zeros(len(pop))
            for i in range(len(pop)):
                if pop[i, 0] > 0:
                    fit[i] = 1.0
            return fit
    """,
    "the loop stops early": """
        def fitness(pop):
            fit = np.zeros(len(pop))
            for i in range(len(pop)):
                if pop[i, 0] > 5:
                    break
                fit[i] = pop[i, 0]
            return fit
    """,
    "another argument": """
        def fitness(pop, scale):
            fit = np.zeros(len(pop))
            for i in range(len(pop)):
                fit[i] = scale * pop[i, 0]
            return fit
    """,
    "a comprehension that leaves rows out": """
        def fitness(pop):
            return np.array([np.sum(x) for x in pop if x[0] > 0])
    """,
    "no loop": """
        def fitness(pop):
            return np.sum(pop, axis=1)
    """,
}


def program(body):
    return program_from_sources(HEADER + textwrap.dedent(body))


def population():
    return np.random.default_rng(3).uniform(-2.0, 2.0, size=(400, 6))


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_a_loop_over_the_rows_is_written_over_the_population_and_checked(case):
    body, holds = LOOPS[case]
    p = program(body)
    rows = per_row(p, "fitness")
    assert rows is not None
    assert p.main.functions["fitness"].args.args[0].arg == "pop"  # the program as read is left as it was
    written = vectorize(rows, "fitness", Dialect.NUMPY, Row.ARRAY, suffix="numpy")
    assert isinstance(written, Rewrite), written
    assert "def fitness_numpy(pop):" in written.source and holds in written.source and " for " not in written.source
    space: dict = {}
    exec(compile(p.main.source, "sample.py", "exec"), space)
    assert check(written, rows, space, population()).verdict is Verdict.MATCHED  # against the body, per row
    assert np.allclose(rewritten(written, space)(population()), space["fitness"](population()))  # the user's


@pytest.mark.parametrize("case", sorted(NOT_ROWS))
def test_a_loop_that_is_not_one_value_per_row_is_not_read_as_one(case):
    assert per_row(program(NOT_ROWS[case]), "fitness") is None


def test_the_row_is_named_for_the_population_and_its_lines_keep_their_place():
    """``ind`` for ``pop`` (the vectorizer's plural gives the rewrite the user's name back), the loop's own name for
    the row renamed to it."""
    p = program(LOOPS["a comprehension with its if inline"][0])
    (returned,) = per_row(p, "fitness").main.functions["fitness"].body
    assert ast.unparse(returned) == "return np.sum(ind) * 2 if ind[0] > 0 else -np.sum(ind)"
    p = program(LOOPS["enumerate, one value in each arm"][0])
    row = per_row(p, "fitness").main.functions["fitness"]
    assert [a.arg for a in row.args.args] == ["ind"]
    line = p.main.source.splitlines().index("        w = np.dot(ind, W)") + 1
    assert ast.unparse(row.body[0]) == "w = np.dot(ind, W)" and row.body[0].lineno == line  # as in the user's file


def test_the_call_site_calls_the_numpy_rewrite_on_the_population_as_it_is(tmp_path):
    path = tmp_path / "ga.py"
    path.write_text("        f = fitness(pop)\n")
    assert population_call_site(str(path), 1, "fitness", "fitness_numpy", "numpy") == "        f = fitness_numpy(pop)"


@pytest.mark.parametrize("case, loops", [(c, True) for c in sorted(LOOPS)] + [(c, c in (
    "each value reads the one before", "a row left without its value", "the loop stops early", "another argument",
    "a comprehension that leaves rows out")) for c in sorted(NOT_ROWS)])
def test_the_probe_traces_for_an_unrolled_loop_only_a_function_whose_source_loops_over_its_first_argument(
        case, loops, tmp_path):
    """``inspector.probe.unroll.loops_over_rows``, read from the function's source (only such a function is then
    traced: tests/e2e/test_rewrite.py and test_errors.py): a loop over the genes (``pop.shape[1]``) is not one."""
    import importlib.util

    from inspector.probe.unroll import loops_over_rows
    body = (LOOPS.get(case) or (NOT_ROWS[case],))[0]
    path = tmp_path / "sample.py"
    path.write_text(HEADER + textwrap.dedent(body) + textwrap.dedent("""
        def over_genes(pop):
            total = np.zeros(len(pop))
            for j in range(pop.shape[1]):
                total = total + pop[:, j]
            return total
    """))
    spec = importlib.util.spec_from_file_location("sample", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert loops_over_rows(module.fitness) is loops and not loops_over_rows(module.over_genes)
