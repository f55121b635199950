"""The torch translations of tests/fast/test_rewrite_port.py run against their NumPy originals (torch here): same
values on populations with NaN, inf and values outside the box, as ``inspector.rewrite.port.checked`` finds."""

import numpy as np
import pytest

from fast.test_rewrite_port import PORTED, program
from inspector.rewrite import Rewrite, Verdict
from inspector.rewrite.check import rewritten
from inspector.rewrite.port import checked, port


def population(dtype=np.float64):
    pop = np.random.default_rng(7).uniform(-6.0, 6.0, size=(300, 10)).astype(dtype)
    pop[1, 2], pop[2, 3], pop[3, 0] = np.nan, np.inf, -np.inf
    return pop


@pytest.mark.parametrize("case", sorted(PORTED))
def test_each_translation_gives_the_originals_values(case):
    p = program(PORTED[case][0])
    written = port(p, "fitness")
    assert isinstance(written, Rewrite)
    space: dict = {}
    exec(compile(p.main.source, "sample.py", "exec"), space)
    result = checked(written, space["fitness"], rewritten(written, space), population())
    assert result.verdict is Verdict.MATCHED, result
    assert result.evaluations == 300 and result.result_dtype == "float64"


def test_a_translation_that_differs_fails_its_check():
    p = program("def fitness(pop):\n    return np.sum(pop, axis=1)\n")
    written = port(p, "fitness")
    assert isinstance(written, Rewrite)
    space: dict = {}
    exec(compile(p.main.source, "sample.py", "exec"), space)
    wrong = rewritten(written, space)
    result = checked(written, space["fitness"], lambda pop: wrong(pop) + 1.0, population())
    assert result.verdict is Verdict.FAILED and result.mismatch and result.mismatch.individual == 0
