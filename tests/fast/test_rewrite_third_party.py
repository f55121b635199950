"""Per-individual fitness functions nobody on the team wrote (tests/fixtures/third_party: DEAP's benchmarks, taking
a list, and scikit-opt's demo functions, taking an ndarray row): each is rewritten over the population and matches
the original, or is declined with a reason; no rewrite that fails its check is offered."""

import importlib.util

import numpy as np
import pytest

from conftest import FIXTURES
from inspector.rewrite import Declined, Dialect, Reason, Row, Verdict, check, read_program, vectorize
from inspector.render import rewrites as words

THIRD_PARTY = FIXTURES / "third_party"
# (file, how it takes an individual, {function: the reason it is declined}, functions of two genes)
SETS = {
    "deap_benchmarks.py": (Row.LIST, {"rand": Reason.UNKNOWN_CALL, "shekel": Reason.PARAMETERS,
                                      **{f"dtlz{i}": Reason.PARAMETERS for i in range(1, 8)}}, set()),
    "sko_demo_func.py": (Row.ARRAY, {"function_for_TSP": Reason.SIDE_EFFECT},
                         {"schaffer", "shubert", "sixhumpcamel", "ackley"}),
}


def load(path):
    spec = importlib.util.spec_from_file_location(f"third_party_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("stem", sorted(SETS))
def test_third_party_functions_are_rewritten_correctly_or_declined_with_a_reason(stem):
    row, expected_declines, two_genes = SETS[stem]
    path = THIRD_PARTY / stem
    program, namespace = read_program(str(path)), vars(load(path))
    declined, matched = {}, []
    for index, function in enumerate(program.main.functions):
        rewrite = vectorize(program, function, Dialect.NUMPY, row)
        if isinstance(rewrite, Declined):
            declined[function] = rewrite.reason
            assert words.declined(rewrite).startswith("not rewritten: the ")
            continue
        genes = 2 if function in two_genes else 6
        population = np.random.default_rng(index).uniform(0.01, 1.0, size=(300, genes))  # every set's domain
        result = check(rewrite, program, namespace, population)
        assert result.verdict is Verdict.MATCHED, (function, words.check(result), rewrite.source)
        matched.append(function)
    assert declined == expected_declines
    assert len(matched) >= 10
