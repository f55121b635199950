"""A NumPy function over the population translated to torch (``inspector.rewrite.port``; issue 37, item 3): source in,
torch code out (no torch here: tests/e2e/test_rewrite_port.py runs each translation against its original), and what
it does not know declined with the construct and the line."""

import textwrap

import pytest

from conftest import ROOT
from inspector.probe.experiment import population_call_site
from inspector.rewrite import Declined, Reason, Rewrite, Row, program_from_sources, read_program
from inspector.rewrite.port import port

HEADER = "import math\nimport numpy as np\nBOX = 5.12\nK = 3\n"

# name -> (a function over the population, what its translation says)
PORTED = {
    "reductions over the genes": ("""
        def fitness(pop):
            return np.sum(pop ** 2, axis=1) + np.max(pop, axis=1) - pop.min(axis=1) + np.mean(pop, 1)
    """, "torch.sum(pop ** 2, dim=1) + torch.amax(pop, dim=1) - pop.amin(dim=1) + torch.mean(pop, dim=1)"),
    "elementwise functions and constants": ("""
        def fitness(pop):
            d = pop.shape[1]
            return 10.0 * d + np.sum(np.abs(pop) - np.cos(2.0 * np.pi * pop) + np.sqrt(np.abs(pop)), axis=1)
    """, "torch.sum(torch.abs(pop) - torch.cos(2.0 * math.pi * pop) + torch.sqrt(torch.abs(pop)), dim=1)"),
    "where, masks and the box": ("""
        def fitness(pop):
            outside = np.where(np.abs(pop) > BOX, (np.abs(pop) - BOX) ** 2, 0.0)
            inside = (np.abs(pop) <= BOX) * 1.0
            return np.sum(outside, axis=1) + inside.sum(axis=1)
    """, "torch.where(torch.abs(pop) > BOX, (torch.abs(pop) - BOX) ** 2, 0.0)"),
    "where of two numbers in the population's dtype": ("""
        def fitness(pop):
            return np.sum(np.where(pop > 0, 1.0, -0.5), axis=1)
    """, "torch.where(pop > 0, torch.tensor(1.0, dtype=pop.dtype, device=pop.device), "
         "torch.tensor(-0.5, dtype=pop.dtype, device=pop.device))"),
    "clip, maximum and minimum": ("""
        def fitness(pop):
            return np.sum(np.clip(pop, -1.0, 1.0) + np.maximum(pop, 0.0) - np.minimum(0.5, pop), axis=1)
    """, "torch.clamp(pop, -1.0, 1.0) + torch.clamp(pop, min=0.0) - torch.clamp(pop, max=0.5)"),
    "slices of neighbouring genes": ("""
        def fitness(pop):
            return 0.05 * np.sum(np.sin(pop[:, 1:] * pop[:, :-1]) ** 2, axis=1) + pop[:, 0] - pop[:, K]
    """, "torch.sin(pop[:, 1:] * pop[:, :-1])"),
    "std and var as NumPy's (ddof 0)": ("""
        def fitness(pop):
            return np.std(pop, axis=1) + pop.var(axis=1, ddof=1)
    """, "torch.std(pop, dim=1, correction=0) + pop.var(dim=1, correction=1)"),
    "dtypes, norms and sizes": ("""
        def fitness(pop):
            ones = (pop > 0).astype(np.float64)
            n = pop.size / len(pop)
            total = ones.sum(axis=1)
            total += np.linalg.norm(pop, axis=1) / n
            return total
    """, "torch.linalg.vector_norm(pop, dim=1) / n"),
    "an array made and set by a mask": ("""
        def fitness(pop):
            penalty = np.zeros(len(pop))
            penalty[np.sum(pop, axis=1) > BOX] = 100.0
            out = np.empty(pop.shape[0])
            out[:] = np.sum(pop ** 2, axis=1) + np.full(len(pop), 0.5)
            return out + penalty
    """, "penalty[torch.sum(pop, dim=1) > BOX] = 100.0"),
}

# name -> (source, construct, reason, the line's text)
DECLINED = {
    "a loop": ("""
        def fitness(pop):
            total = 0.0
            for i in range(pop.shape[1]):
                total = total + pop[:, i]
            return total
    """, "for", Reason.STATEMENT, "for i in range(pop.shape[1]):"),
    "a NumPy function torch has no name for here": ("""
        def fitness(pop):
            return np.percentile(pop, 50, axis=1)
    """, "np.percentile", Reason.UNKNOWN_CALL, "return np.percentile(pop, 50, axis=1)"),
    "a helper of the program": ("""
        def helper(x):
            return x * 2
        def fitness(pop):
            return np.sum(helper(pop), axis=1)
    """, "helper", Reason.UNKNOWN_CALL, "return np.sum(helper(pop), axis=1)"),
    "a reversed slice": ("""
        def fitness(pop):
            return np.sum(pop[:, ::-1] * pop, axis=1)
    """, "a slice's step", Reason.INDEX, "return np.sum(pop[:, ::-1] * pop, axis=1)"),
    "a global array": ("""
        W = np.linspace(0.0, 1.0, 10)
        def fitness(pop):
            return np.sum(pop * W, axis=1)
    """, "W", Reason.UNKNOWN_NAME, "return np.sum(pop * W, axis=1)"),
    "setting the population it was given": ("""
        def fitness(pop):
            pop[pop > BOX] = BOX
            return np.sum(pop, axis=1)
    """, "assignment to `pop[pop > BOX]`", Reason.SIDE_EFFECT, "pop[pop > BOX] = BOX"),
    "an argument NumPy takes and torch does not": ("""
        def fitness(pop):
            return np.sum(pop, axis=1, dtype=np.float32)
    """, "np.sum", Reason.UNKNOWN_CALL, "return np.sum(pop, axis=1, dtype=np.float32)"),
}


def program(body):
    return program_from_sources(HEADER + textwrap.dedent(body))


@pytest.mark.parametrize("case", sorted(PORTED))
def test_a_population_function_is_written_in_torch(case):
    body, says = PORTED[case]
    written = port(program(body), "fitness")
    assert isinstance(written, Rewrite), written
    assert (written.entry, written.row, written.dialect.value, written.kind.value) == (
        "fitness_torch", Row.POPULATION, "torch", "port")
    assert says in written.source, written.source
    assert "np." not in written.source and "import torch" in written.imports
    assert ("import math" in written.imports) == ("math." in written.source)
    compile(written.program_source, "<port>", "exec")


@pytest.mark.parametrize("case", sorted(DECLINED))
def test_what_it_does_not_know_is_declined_with_the_construct_and_its_line(case):
    body, construct, reason, code = DECLINED[case]
    p = program(body)
    declined = port(p, "fitness")
    assert isinstance(declined, Declined), declined
    assert (declined.construct, declined.reason) == (construct, reason)
    assert p.main.line(declined.span.first) == code


def test_the_plain_es_fitness_is_translated_whole():
    written = port(read_program(str(ROOT / "tests/programs/plain/vectorized_es.py")), "fitness")
    assert isinstance(written, Rewrite)
    assert written.source.splitlines()[3:] == [
        "    rastrigin = 10.0 * d + torch.sum(pop**2 - 10.0 * torch.cos(2.0 * math.pi * pop), dim=1)",
        "    outside = torch.where(torch.abs(pop) > BOX, (torch.abs(pop) - BOX) ** 2, 0.0)",
        "    coupling = 0.05 * torch.sum(torch.sin(pop[:, 1:] * pop[:, :-1]) ** 2, dim=1)",
        "    return rastrigin + 1000.0 * torch.sum(outside, dim=1) + coupling"]
    assert written.replaces[0].first == 14 and written.diff.startswith("--- a/")


def test_a_function_without_the_population_first_is_declined():
    declined = port(program("def fitness(*pops):\n    return pops\n"), "fitness")
    assert isinstance(declined, Declined) and declined.reason is Reason.PARAMETERS


def test_the_call_site_calls_the_translation_on_the_population_as_a_tensor(tmp_path):
    path = tmp_path / "es.py"
    path.write_text("x = 1\n        f = fitness(children, 2.0)\n")
    assert population_call_site(str(path), 2, "fitness", "fitness_torch") == \
        "        f = fitness_torch(torch.from_numpy(children), 2.0).numpy()"
    assert population_call_site(str(path), 1, "fitness", "fitness_torch") == ""
