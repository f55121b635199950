"""Issue 40's statements on code nobody on the team wrote: DEAP's own example programs (tests/fixtures/third_party/
deap_examples, as DEAP 1.4.4 ships them: plain Python and NumPy GAs, nothing compiled) run by `inspector run` as
they are (scripts/make-fixtures.py, THIRD_PARTY), and pymoo's G7 problem; with every checked-in record, no stake
larger than the call it is part of."""

import ast
import re

import pytest

from conftest import FIXTURES, RECORDS, analysis
from inspector.model import SampleAnalysis
from inspector.render import renderer
from inspector.render.hotspots import LIBRARY_SHARE

DEAP = FIXTURES / "third_party" / "deap_examples"
KEPT = sorted(p.stem for p in RECORDS.glob("torch-2.13.0/deap-*.json"))


def test_the_kept_set_is_recorded():
    assert KEPT == sorted(f"deap-{p.stem}" for p in DEAP.glob("*.py"))


@pytest.mark.parametrize("path", sorted(RECORDS.glob("torch-*/*.json")), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_stake_is_larger_than_its_call(path):
    a = analysis(path.parent.name.removeprefix("torch-"), path.stem)
    units = {u.id: u for u in (a.variants if isinstance(a, SampleAnalysis) else a.program.functions)}
    for fix in a.fixes:
        timing = units[fix.variant].timing
        if fix.stake_s is not None and timing and timing.per_population_s:
            assert fix.stake_s <= timing.per_population_s * (1 + 1e-9), (fix.kind, fix.variant)


@pytest.mark.parametrize("stem", KEPT)
def test_a_third_party_programs_hot_function_is_estimated_from_its_own_figures_and_said_once(stem):
    """Each hot function's generations are its sampled time over one generation as written, within 3x of the
    generations the program runs (its eaSimple's ngen, and its first evaluation); the projection starts from the run
    less inspector's watch and gains; a rewrite is offered only where it matched; a line whose time went into
    DEAP's code says so, naming what it called; every sentence is said once."""
    a = analysis("2.13.0", stem)
    source = (DEAP / f"{stem.removeprefix('deap-')}.py").read_text()
    ngen = [k.value.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
            for k in n.keywords if k.arg == "ngen"]
    for h in a.program.hotspots:
        assert h.total_s <= h.run_s <= a.program.wall_s * (1 + 1e-9)
        written = next((r for r in h.runs if r.id == "as-written"), None)
        if written is None or not written.per_round_s:
            continue
        assert h.rounds == pytest.approx(h.total_s / written.per_round_s)
        if ngen and h.function.startswith("eval"):  # estimated: DEAP's calls in the run cost up to twice the copies'
            assert (ngen[0] + 1) / 3 <= h.rounds <= 3 * (ngen[0] + 1), (h.function, h.rounds, ngen)
        if h.best:
            best = next(r for r in h.runs if r.id == h.best)
            assert best.matches and h.projected_s < h.run_s
        for rewrite in h.rewrites:
            assert rewrite.declined or rewrite.matched, rewrite.dialect
    text = renderer("text").render(a)
    # where the time went into DEAP's own loop (eaSimple, eaMuPlusLambda): the line that called it, and its name
    lines = source.splitlines()
    for h in a.program.hotspots:
        for x in h.lines:
            if x.into and x.into_share >= LIBRARY_SHARE:
                assert f"at line {x.line} ({x.into_share:.0%} in {x.into}" in text
                assert not x.within or x.within == x.into or f"{x.within_share:.0%} in {x.within} itself" in text
                assert x.into.startswith("deap.") and x.into.rsplit(".", 1)[1] in lines[x.line - 1]
    said = [s.strip() for s in re.split(r"(?<=\.)\s+|\n", text) if len(s.strip()) > 40 and s.strip()[0].isalpha()]
    assert len(said) == len(set(said)), [s for s in said if said.count(s) > 1]
