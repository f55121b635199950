"""`inspector run`'s record, from checked-in output of samples/programs/ga.py (3,000 individuals, 8 generations)
under torch 2.1.2 and 2.13: the compiled function, its breaks, its recompilations at the call they happened, its
time per call, and the program views."""

import copy
import json

import pytest

from conftest import VERSIONS, analysis, line_of, record_path
from inspector.analysis import analyze
from inspector.record import load
from inspector.render.base import renderer


@pytest.mark.parametrize("version", VERSIONS)
def test_the_gas_compiled_fitness_with_its_breaks_and_recompilations_at_their_calls(version):
    a = analysis(version, "ga")
    raw = load(record_path(version, "ga"))["variants"][0]
    (f,) = a.variants
    assert (f.id, a.program.exit, a.program.ended, f.run.calls) == ("fitness", 0, "normally", 8)
    assert line_of(a, "best = value.min().item()") in {b.line for b in f.breaks}
    # the population grows before generation 4 (of 0-7): the fifth call compiles again
    assert 5 in [c.call for c in f.run.recompiles]
    assert [c.call for c in f.run.recompiles] == [c["call"] for c in raw["run"]["compiles"]]
    assert all(not r.startswith(("0/", "1/")) and "\n" not in r for c in f.run.recompiles for r in c.reasons)
    # every call is one of: the first, a recompiling one, the traced one, the profiled one, or a steady one
    passes = sum(1 for n in (f.run.traced_call, f.run.profiled_call) if n)
    assert f.run.steady_calls + len(f.run.recompiles) + passes + 1 == f.run.calls == f.recompilation.calls + 1
    assert f.timing.runs == f.run.steady_calls and f.timing.median_s <= f.run.total_s
    text = renderer("text").program(a)
    assert "recompiled at call 5" in text and "graph break at line" in text
    page = renderer("html").program(a)
    assert "at call 5" in page and "<code>fitness</code>" in page and "Compiled functions" in page


def test_a_function_with_hundreds_of_graphs_gives_a_page_that_stays_small():
    record = load(record_path("2.13.0", "ga"))
    one = renderer("html").program(analyze(record))  # two graphs with code: a kernel each
    many = copy.deepcopy(record)
    v = many["variants"][0]
    first = next(g for g in v["capture"]["graphs"] if g.get("output_code"))
    text = json.dumps(first)  # 400 more graphs, each with kernels of its own names
    v["recompiles"]["graphs"] += [dict(json.loads(text.replace("cpp_fused_", f"cpp_fused_g{n}_")), compile_id=f"{n}/0")
                                  for n in range(10, 410)]
    a = analyze(many)
    kernels = len(a.variants[0].kernels)
    page = renderer("html").program(a)
    assert kernels > 400 and f"and {kernels - 12} more kernels: in the JSON record" in page
    assert len(one) < len(page) < 1_000_000  # twelve kernels of tens of kB each, not four hundred
