"""The rewriter of issue 31 with torch: the samples' per-individual functions rewritten in NumPy and torch and the
blog's break samples' rewrites, each checked against the original on the sample's population; every construct of
the subset in torch; and compiled with fullgraph=True, a rewrite has no break left."""

import numpy as np
import pytest
import torch

from conftest import ROOT
from fast.rewrite_cases import SUBSET, namespace, population, program
from inspector.probe.sample import load
from inspector.rewrite import Dialect, Rewrite, Verdict, check, read_program, rewrite_breaks, vectorize
from inspector.rewrite import words
from inspector.rewrite.check import rewritten

PER_INDIVIDUAL = ["poly", "trig", "knapsack_breaks", "penalty_loops", "first_draft", "penalised", "ten_genes",
                  "two_objectives", "sum"]
BREAKS = {"knapsack_breaks": ["fitness_numpy"], "penalty_loops": ["fitness_numpy", "fitness_numpy_apply",
                                                                  "fitness_torch"], "first_draft": ["fitness_numpy"]}


@pytest.fixture(scope="module")
def samples():
    """{stem: (program, namespace, population of 2,000)} for the samples the tests use."""
    found = {}
    for stem in {*PER_INDIVIDUAL, *BREAKS}:
        path = str(ROOT / "samples" / f"{stem}.py")
        module = load(path)
        found[stem] = (read_program(path), vars(module), module.population(2000, np.random.default_rng(0)))
    return found


@pytest.mark.parametrize("stem", PER_INDIVIDUAL)
def test_the_samples_fitness_python_rewritten_in_numpy_and_torch_match_it(samples, stem):
    program, space, pop = samples[stem]
    for dialect in Dialect:
        rewrite = vectorize(program, "fitness_python", dialect)
        assert isinstance(rewrite, Rewrite), words.declined(rewrite)
        result = check(rewrite, program, space, pop)
        assert result.verdict is Verdict.MATCHED, words.check(result)


def test_the_blog_s_breaks_rewritten_match_their_variants(samples):
    for stem, variants in BREAKS.items():
        program, space, pop = samples[stem]
        for variant in variants:
            found = rewrite_breaks(program, variant, Dialect.TORCH if "torch" in variant else Dialect.NUMPY)
            result = check(found.rewrite, program, space, pop)
            assert result.verdict is Verdict.MATCHED and not result.unchecked, (stem, variant, words.check(result))


@pytest.mark.parametrize("case", sorted(SUBSET))
def test_each_construct_in_torch_matches(case):
    body = SUBSET[case]
    rewrite = vectorize(program(body), "fitness", Dialect.TORCH)
    assert isinstance(rewrite, Rewrite), words.declined(rewrite)
    result = check(rewrite, program(body), namespace(body), population())
    assert result.verdict is Verdict.MATCHED, (words.check(result), rewrite.source)


def test_compiled_whole_a_rewrite_has_no_break_left(samples):
    """NumPy's np.errstate and np.select would break the graph: the rewrite uses neither; the knapsack's `if
    over.any()` and boolean mask were its breaks."""
    trig, trig_space, trig_pop = samples["trig"]
    knapsack, knapsack_space, knapsack_pop = samples["knapsack_breaks"]
    for rewrite, space, pop in ((vectorize(trig, "fitness_python", Dialect.NUMPY), trig_space, trig_pop),
                                (rewrite_breaks(knapsack, "fitness_numpy", Dialect.NUMPY).rewrite, knapsack_space,
                                 knapsack_pop)):
        function = rewritten(rewrite, space)
        torch._dynamo.reset()
        compiled = torch.compile(function, fullgraph=True)
        np.testing.assert_allclose(compiled(pop), function(pop), rtol=1e-6)
