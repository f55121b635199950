"""The rewriter of issue 31, NumPy side (no torch): per-individual functions of every construct of the subset
written over the population and checked against the original on random populations; constructs outside it
declined with their reason; failures of the check reported, never passed; the blog's break samples rewritten (as
source: running them needs torch, tests/e2e/test_rewrite.py)."""

import ast
import re
import runpy

import numpy as np
import pytest

from conftest import ROOT, analysis
from inspector.rewrite import (ChangeKind, Declined, Dialect, Reason, Rewrite, Row, Topic, Verdict, check,
                               program_from_sources, read_program, rewrite_breaks, vectorize)
from inspector.analysis.rewrites import check_of
from inspector.raw import RawRewriteCheck
from inspector.render import rewrites as words
from inspector.rewrite.codec import to_json
from fast.rewrite_cases import OUTSIDE, SUBSET, helper_module, line_in_file, namespace, population, program


def said(result):
    """A check in words, as a report says it: the rewriter's Check as the record keeps it, then as analysed."""
    return words.check(check_of(RawRewriteCheck.from_json(to_json(result))))


def sample(stem):
    return read_program(str(ROOT / "samples" / f"{stem}.py"))


@pytest.mark.parametrize("case", sorted(SUBSET))
def test_each_construct_is_rewritten_and_matches_on_random_populations(case):
    body = SUBSET[case]
    rewrite = vectorize(program(body), "fitness", Dialect.NUMPY)
    assert isinstance(rewrite, Rewrite), words.declined(rewrite)
    ast.parse(rewrite.program_source)
    for seed in (0, 1):
        result = check(rewrite, program(body), namespace(body), population(seed=seed))
        assert result.verdict is Verdict.MATCHED, (said(result), rewrite.source)
        if case != "an if on constants kept":  # whose other arms no population takes: said unchecked
            assert not result.unchecked, said(result)  # the populations take every branch of the cases
    loops = [n for n in ast.walk(ast.parse(rewrite.source)) if isinstance(n, ast.For)]
    kept = {"a loop over constants kept", "a state carried from gene to gene",
            "a decoder whose test reads its running total", "completion times by index",
            "a list of running values set by index"}
    assert not loops or case in kept  # loops over the genes are reductions, unless they carry a state


@pytest.mark.parametrize("case", sorted(OUTSIDE))
def test_constructs_outside_the_subset_are_declined_with_their_reason(case):
    body, construct, reason, line = OUTSIDE[case]
    declined = vectorize(program(body), "fitness", Dialect.NUMPY)
    assert isinstance(declined, Declined), declined
    assert (declined.construct, declined.reason) == (construct, reason)
    assert declined.span.first == line_in_file(line)
    said = words.declined(declined)
    assert said.startswith(f"not rewritten: the {construct} at line {declined.span.first} (")


def test_a_flow_shops_makespan_keeps_its_gene_loop_and_takes_each_jobs_row_of_the_table():
    """Issue 40.8: completion times in a list set by index, a gene used as an index into a constant table."""
    path = str(ROOT / "tests" / "programs" / "plain" / "flowshop.py")
    rewrite = vectorize(read_program(path), "makespan", Dialect.NUMPY)
    assert isinstance(rewrite, Rewrite), words.declined(rewrite)
    assert "    t = [np.full(len(perm), 0)] * MACHINES\n" in rewrite.source
    assert "    P_array = np.array(P)\n" in rewrite.source and "t[m] = np.maximum(t[m], t[m - 1]) + P_array[j, m]" \
        in rewrite.source
    space = runpy.run_path(path, run_name="flowshop")
    perms = np.array([np.random.default_rng(seed).permutation(space["JOBS"]) for seed in range(300)])
    result = check(rewrite, read_program(path), space, perms)
    assert result.verdict is Verdict.MATCHED and result.result_dtype == "int64", said(result)


def test_a_state_of_np_zeros_and_a_table_that_is_an_ndarray_are_rewritten_too():
    body = """
        import numpy as np
        TIMES = np.random.default_rng(0).integers(1, 20, size=(5, 3))

        def fitness(individual):
            t = np.zeros(3)
            for j in individual:
                t[0] += TIMES[j, 0]
                for m in range(1, 3):
                    t[m] = max(t[m], t[m - 1]) + TIMES[j, m]
            return t[-1]
    """
    rewrite = vectorize(program(body), "fitness", Dialect.NUMPY)
    assert isinstance(rewrite, Rewrite), words.declined(rewrite)
    assert "t = [np.full(len(population), 0.0)] * 3" in rewrite.source
    perms = np.array([np.random.default_rng(seed).permutation(5) for seed in range(200)])
    result = check(rewrite, program(body), namespace(body), perms)
    assert result.verdict is Verdict.MATCHED and result.result_dtype == "float64", said(result)


def test_a_variant_bound_to_a_def_by_an_alias_is_that_def_rewritten():
    body = """
        def griewank(individual):
            return sum(v * v for v in individual) / 4000.0


        fitness = griewank
    """
    rewrite = vectorize(program(body), "fitness", Dialect.NUMPY)
    assert isinstance(rewrite, Rewrite), words.declined(rewrite)
    assert (rewrite.target, rewrite.entry) == ("fitness", "griewank_numpy")
    assert check(rewrite, program(body), namespace(body), population()).verdict is Verdict.MATCHED


def test_the_issue_s_example_decline_in_words():
    body, *_ = OUTSIDE["while"]
    assert words.declined(vectorize(program(body), "fitness", Dialect.NUMPY)) == \
        "not rewritten: the `while` loop at line 12 (not a fixed-length loop over the genes)"


def test_the_blog_s_fitness_python_reads_as_the_hand_translation():
    rewrite = vectorize(sample("poly"), "fitness_python", Dialect.NUMPY)
    assert isinstance(rewrite, Rewrite)
    assert [(f.user, f.new) for f in rewrite.functions] == [
        ("objective_python", "objective_numpy"), ("feasible_python", "feasible_numpy"),
        ("fitness_python", "fitness_numpy_rewritten")]
    assert "    return x**2 + 2*y**2 + 3*z**2 + 4*x*y - 5*y*z\n" in rewrite.source  # the user's text, kept
    assert "    return (x >= 1) & (3 < y) & (y <= 7) & (z < 0) & (x + y + z >= 3) & (x**2 + z**2 <= 10)\n" \
        in rewrite.source
    assert "np.where(feasible_numpy(population), -objective_numpy(population), np.inf)" in rewrite.source
    assert {n.topic for n in rewrite.notes} == {Topic.NAN_COMPARISON}  # `x >= 1` for `not x < 1`, said
    assert rewrite.imports == ("import numpy as np",)
    assert [b.line for b in rewrite.branches] == [28, 30, 32, 34, 36, 42]


def test_a_python_raise_fails_the_check_with_the_individual():
    body = """
        def fitness(individual):
            return 1 / individual[0]
    """
    rewrite = vectorize(program(body), "fitness", Dialect.NUMPY)
    assert Topic.RAISES in {n.topic for n in rewrite.notes}
    pop = population(20)
    pop[7, 0] = 0.0
    result = check(rewrite, program(body), namespace(body), pop)
    assert result.verdict is Verdict.FAILED and result.mismatch.individual == 7 and result.mismatch.raised
    assert "ZeroDivisionError" in result.mismatch.expected
    assert said(result).startswith("failed: individual 7 differs (fitness raised ZeroDivisionError")


def test_a_negative_base_to_a_fractional_power_fails_the_check():
    body = """
        def fitness(individual):
            return individual[0] ** 0.5
    """
    rewrite = vectorize(program(body), "fitness", Dialect.NUMPY)
    assert Topic.COMPLEX_POWER in {n.topic for n in rewrite.notes}
    result = check(rewrite, program(body), namespace(body), population(20))
    assert result.verdict is Verdict.FAILED and "j" in result.mismatch.expected  # Python's complex number


# the issue's cautions that could not happen, and others that can: (body, the cautions said)
CAUTIONS = {
    "a sum of squares to a fractional power": ("""
        def fitness(individual):
            x, y = individual[0], individual[1]
            return (x ** 2 + y ** 2) ** 0.25
    """, set()),
    "a division by the square root of a position plus one": ("""
        import math


        def fitness(individual):
            return sum(x / math.sqrt(i + 1.0) for i, x in enumerate(individual))
    """, set()),
    "the square root of an absolute value": ("""
        import math


        def fitness(individual):
            return sum(math.sqrt(abs(x)) for x in individual)
    """, set()),
    "a log of an exponential plus one": ("""
        import math


        def fitness(individual):
            return math.log(math.exp(math.sin(individual[0])) + 1.0)
    """, set()),
    "a division by a gene": ("""
        def fitness(individual):
            return 1.0 / individual[0]
    """, {Topic.RAISES}),
    "a gene to a negative power": ("""
        def fitness(individual):
            return individual[0] ** -2
    """, {Topic.RAISES}),
    "the square root of a difference": ("""
        import math


        def fitness(individual):
            return math.sqrt(individual[0] - individual[1])
    """, {Topic.RAISES}),
}


@pytest.mark.parametrize("case", sorted(CAUTIONS))
def test_a_caution_is_said_only_where_the_operands_do_not_rule_it_out(case):
    """And the population with zeros and negative genes shows it: where none is said, Python raised on no
    individual and the check matches; where one is, an individual made Python raise and the check fails."""
    body, cautions = CAUTIONS[case]
    rewrite = vectorize(program(body), "fitness", Dialect.NUMPY)
    assert {n.topic for n in rewrite.notes} & {Topic.RAISES, Topic.COMPLEX_POWER} == cautions
    hit = np.vstack([np.zeros((1, 5)), population(40)])
    result = check(rewrite, program(body), namespace(body), hit)
    assert result.verdict is (Verdict.FAILED if cautions else Verdict.MATCHED), said(result)


def test_a_flipped_comparison_differs_with_nan_and_the_check_says_so():
    body = """
        def fitness(individual):
            if not individual[0] < 1:
                return 1.0
            return 0.0
    """
    rewrite = vectorize(program(body), "fitness", Dialect.NUMPY)
    assert "population[:, 0] >= 1" in rewrite.source and Topic.NAN_COMPARISON in {n.topic for n in rewrite.notes}
    pop = population(10)
    pop[3, 0] = np.nan
    result = check(rewrite, program(body), namespace(body), pop)
    assert result.verdict is Verdict.FAILED and result.mismatch.individual == 3


def test_a_branch_no_individual_took_is_named_unchecked():
    body = SUBSET["if return chains"]
    result = check(vectorize(program(body), "fitness", Dialect.NUMPY), program(body), namespace(body),
                   np.zeros((5, 5)))
    assert result.verdict is Verdict.MATCHED and result.unchecked
    first = line_in_file(3)
    assert (first, True) in {(a.branch.line, a.taken) for a in result.unchecked}  # x < -1 never true at 0
    assert f"unchecked (taken by none): line {first} `x < -1` true" in said(result)


def test_a_large_population_is_checked_on_a_sample_and_a_witness_of_each_branch_the_sample_missed():
    body = """
        def fitness(individual):
            if individual[0] > 2.999:
                return 1.0
            return individual[1]
    """
    rewrite, pop = vectorize(program(body), "fitness", Dialect.NUMPY), population(50_000, seed=1)
    rare = np.flatnonzero(pop[:, 0] > 2.999)
    pop[rare[1:], 0] = 0.0  # one individual takes the rare arm, and it is not one of the sample's
    spread = set(np.linspace(0, len(pop) - 1, num=2000).round().astype(int).tolist())
    assert rare[0] not in spread
    result = check(rewrite, program(body), namespace(body), pop, sample=2000)
    assert result.verdict is Verdict.MATCHED and not result.unchecked
    assert (result.evaluations, result.drawn.population, result.drawn.sample, result.drawn.witnesses) == (
        2001, 50_000, 2000, 1)
    assert result.drawn.looked_at <= rare[0] + 1  # it stopped at the witness, the first of the others to take it
    assert said(result) == (
        f"matches fitness on 2,001 of 50,000 individuals (2,000 spread evenly over them, and 1 more that took a branch "
        f"those did not, found among {result.drawn.looked_at:,} others); every branch taken by some individual")
    whole = check(rewrite, program(body), namespace(body), pop)  # without a sample: every individual, as before
    assert whole.evaluations == 50_000 and whole.drawn is None and not whole.unchecked


def test_a_sampled_check_that_fails_names_the_individual_by_its_place_in_the_population():
    body = """
        def fitness(individual):
            if not individual[0] < 1:
                return 1.0
            return 0.0
    """
    rewrite, pop = vectorize(program(body), "fitness", Dialect.NUMPY), population(10_000)
    place = int(np.linspace(0, len(pop) - 1, num=500).round()[7])
    pop[place, 0] = np.nan
    result = check(rewrite, program(body), namespace(body), pop, sample=500)
    assert result.verdict is Verdict.FAILED and result.mismatch.individual == place
    assert said(result).endswith(f"; 1 of the {result.evaluations:,} checked differ in all")


def test_a_branch_no_individual_takes_is_said_unchecked_with_how_many_a_sampled_check_ran():
    body = SUBSET["if return chains"]
    result = check(vectorize(program(body), "fitness", Dialect.NUMPY), program(body), namespace(body),
                   np.zeros((3000, 5)), sample=1000)
    assert result.verdict is Verdict.MATCHED and result.unchecked and result.drawn.looked_at == 2000
    assert "unchecked (taken by none of the 3,000 individuals your code ran on): line" in said(result)


def test_an_integer_population_and_its_dtype_are_said():
    body = SUBSET["generators and reductions"]
    pop = np.random.default_rng(0).integers(-3, 4, size=(50, 5))
    result = check(vectorize(program(body), "fitness", Dialect.NUMPY), program(body), namespace(body), pop)
    assert result.verdict is Verdict.MATCHED and "int64 population: Python's ints never overflow" in \
        said(result)


def test_a_helper_of_the_sample_s_own_module_is_rewritten_and_imported_from():
    helpers = "LIMIT = 1.5\n\ndef clipped(v):\n    return min(v, LIMIT)\n"
    helper_module("rewrite_case_helpers", helpers)
    main = "from rewrite_case_helpers import clipped\n\ndef fitness(individual):\n    return sum(clipped(x) for x in " \
           "individual)\n"
    prog = program_from_sources(main, {"rewrite_case_helpers": helpers}, path="case.py")
    rewrite = vectorize(prog, "fitness", Dialect.NUMPY)
    assert isinstance(rewrite, Rewrite) and "from rewrite_case_helpers import LIMIT" in rewrite.imports
    space: dict = {}
    exec(main, space)
    assert check(rewrite, prog, space, population()).verdict is Verdict.MATCHED


def test_an_array_row_function_as_apply_along_axis_calls_it():
    body = """
        import numpy as np
        def row(individual):
            value = np.sum(individual ** 2) + individual.sum() / individual.size
            if individual[0] > 0:
                value += np.square(individual[1])
            return value + np.max([individual[0], individual[1]])
    """
    rewrite = vectorize(program(body), "row", Dialect.NUMPY, Row.ARRAY, "vectorized")
    assert isinstance(rewrite, Rewrite) and rewrite.entry == "row_vectorized"
    assert check(rewrite, program(body), namespace(body), population()).verdict is Verdict.MATCHED


def test_the_blog_s_break_samples_rewritten_as_source():
    knapsack = sample("knapsack_breaks")
    numpy = rewrite_breaks(knapsack, "fitness_numpy", Dialect.NUMPY)
    assert numpy.declined == () and [c.kind for c in numpy.rewrite.changes] == [ChangeKind.WHERE]
    assert "    fitness = np.where(over, fitness - PENALTY * (weight - CAPACITY), fitness)\n" in numpy.rewrite.source
    assert "-    if over.any():\n" in numpy.rewrite.diff and numpy.rewrite.replaces[0].first == 45
    # the diff's hunks numbered where the function is, on both sides: the rewrite takes the user's lines' place
    old_side, new_side = re.search(r"^@@ -(\d+),\d+ \+(\d+),\d+ @@", numpy.rewrite.diff, re.M).groups()
    definition = next(i for i, s in enumerate(knapsack.main.source.splitlines(), 1) if "def fitness_numpy(" in s)
    assert int(old_side) == int(new_side) >= definition
    torch = rewrite_breaks(knapsack, "fitness_torch", Dialect.TORCH)
    assert torch.rewrite is None
    assert [(d.construct, d.span.first, d.reason) for d in torch.declined] == [
        ("`.item()`", 54, Reason.HOST_VALUE), ("call to `print`", 55, Reason.SIDE_EFFECT)]
    loops = sample("penalty_loops")
    for variant, dialect, kinds in (("fitness_numpy", Dialect.NUMPY, [ChangeKind.LOOP, ChangeKind.LOOP]),
                                    ("fitness_torch", Dialect.TORCH, [ChangeKind.LOOP, ChangeKind.LOOP]),
                                    ("fitness_numpy_apply", Dialect.NUMPY, [ChangeKind.APPLY])):
        found = rewrite_breaks(loops, variant, dialect)
        assert [c.kind for c in found.rewrite.changes] == kinds and not found.declined
        rewritten = ast.parse(found.rewrite.source).body[-1]
        assert not [n for n in ast.walk(rewritten) if isinstance(n, ast.For)]
    first = sample("first_draft")
    apply = rewrite_breaks(first, "fitness_numpy", Dialect.NUMPY).rewrite
    assert apply.entry == "fitness_numpy_rewritten" and "return row_vectorized(population)" in apply.source
    assert [d.reason for d in rewrite_breaks(first, "fitness_torch", Dialect.TORCH).declined] == [
        Reason.HOST_VALUE, Reason.SIDE_EFFECT]


def test_a_loop_that_carries_a_state_stays_and_is_compiled_only_over_few_genes():
    from inspector.probe.rewritten import not_compiled
    from inspector.rewrite.model import UNROLLED_GENES
    kept = vectorize(program(SUBSET["a decoder whose test reads its running total"]), "fitness", Dialect.TORCH)
    assert [n.topic for n in kept.notes] == [Topic.GENE_LOOP] and "for i in range(population.shape[1]):" in kept.source
    assert words.note(kept.notes[0]).startswith(f"line {line_in_file(4)}: the loop over the genes stays")
    assert not_compiled(kept, UNROLLED_GENES) is None
    assert f"its loop over the {UNROLLED_GENES + 1} genes stays" in not_compiled(kept, UNROLLED_GENES + 1)
    reduced = vectorize(program(SUBSET["indexing"]), "fitness", Dialect.TORCH)
    assert not_compiled(reduced, 10_000) is None  # no loop kept: compiled at any size
    # a report's compiled trial of it, not run: said as inspector's choice, with why, never as a failure
    from inspector.model import RewriteRun
    written = analysis("2.13.0", "trig").rewrites[0]
    why = not_compiled(kept, 100)
    skipped = RewriteRun("t", "compiled", "skipped", why, None, None, None, None, None, 0, None, None, {})
    assert words.run(written, skipped) == f"compiled (torch.compile, CPU): {why}"
