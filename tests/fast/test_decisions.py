"""Inductor's decisions, recorded where it made them, in the line verdicts: from checked-in probe output."""

from conftest import analysis, line_of, record_path
from inspector.analysis import analyze
from inspector.raw import RawRecord
from inspector.record import load
from inspector.render.said import said


def _reasons(a, vid, text):
    """The reasons of the verdict on the line holding ``text``."""
    line = line_of(a, text)
    return [r for e in a.variant(vid).code.lines if e.line == line for r in e.why]


def _constraints_nest(a, vid):
    """The loop nest computing ten_genes' constraints: the one whose tiling the heuristic turned off."""
    return next(n for k in a.variant(vid).code.kernels for n in k.loop_nests
                if n.decisions and any(t.branch == "non-contiguous" for t in n.decisions.tiling))


def test_ten_genes_constraints_name_the_tiling_decision_with_inductors_numbers():
    a = analysis("2.13.0", "ten_genes")
    tiling = next(t for t in _constraints_nest(a, "numpy-compiled-cpu").decisions.tiling if t.branch != "tiled")
    assert (tiling.count_limit, tiling.ratio_limit) == (35, 0.12)  # the limits Inductor applied, read where it did
    assert tiling.non_contiguous_count >= 35 and tiling.non_contiguous_count / tiling.ops >= 0.12
    (why,) = [r for r in _reasons(a, "numpy-compiled-cpu", "g1 = -105 + 4 * x0") if r.not_vectorized]
    assert why.kind == "not-vectorized-strided"
    assert f"{tiling.non_contiguous_count} of its {tiling.ops} operations index memory non-contiguously" in said(why)
    assert "35 such operations or 0.12 of all" in said(why) and "turned SIMD off" in said(why)


def test_a_vectorized_nest_with_gathered_loads_says_so_on_the_line():
    a = analysis("2.13.0", "ten_genes")
    gathered = [said(r) for e in a.variant("torch-compiled-cpu").code.lines for r in e.why if r.kind == "gathered"]
    assert gathered and all("one element at a time" in t and "scalar loads per vector" in t for t in gathered)
    nests = [n for k in a.variant("torch-compiled-cpu").code.kernels for n in k.loop_nests if n.decisions
             and n.decisions.gathers]
    assert nests and all(n.vectorized for n in nests)


def test_under_torch_2_1_the_checker_says_why_and_what_was_not_recorded_is_said():
    a = analysis("2.1.2", "ten_genes")
    why = [r for r in _reasons(a, "numpy-compiled-cpu", "g1 = -105 + 4 * x0") if r.not_vectorized]
    assert [r.kind for r in why] == ["not-vectorized-checker"]
    assert "vectorization checker turned SIMD off: torch.float64 not supported by load" in said(why[0])
    nest = next(n for k in a.variant("numpy-compiled-cpu").code.kernels for n in k.loop_nests if n.decisions)
    assert dict(nest.decisions.unrecorded)["tiling"].startswith("not recorded under torch 2.1.2")
    assert "gather" in dict(nest.decisions.unrecorded)


def test_sum_row_function_is_serial_from_the_recorded_parallel_decision():
    a = analysis("2.13.0", "sum")
    (why,) = [said(r) for r in _reasons(a, "numpy_apply-compiled-cpu", "return np.sum(individual)")
              if r.kind == "serial"]
    choice = next(n.decisions.parallel[0] for k in a.variant("numpy_apply-compiled-cpu").code.kernels
                  for n in k.loop_nests if n.decisions and n.decisions.parallel)
    assert choice.depth == 0 and choice.work // choice.threads < choice.min_chunk_size
    assert "parallel-depth decision (recorded)" in why
    assert f"{choice.work // choice.threads:,} per thread, under cpp.min_chunk_size = {choice.min_chunk_size}" in why


def test_a_record_without_decisions_says_the_reason_is_not_recorded():
    record = load(record_path("2.13.0", "ten_genes")).to_json()
    for v in record["variants"]:
        for g in (v.get("capture") or {}).get("graphs") or []:
            for n in g.get("nests") or []:
                n.pop("decisions", None)
        (v.get("capture") or {}).pop("decision_hooks", None)
    a = analyze(RawRecord.from_json(record))
    texts = [said(r) for e in a.variant("numpy-compiled-cpu").code.lines for r in e.why if r.not_vectorized]
    assert texts and all("tiling decision is not recorded" in t for t in texts)
    assert not any("turned SIMD off" in t for t in texts)


def test_an_unknown_decision_is_counted_not_guessed():
    record = load(record_path("2.13.0", "ten_genes")).to_json()
    (raw,) = [v for v in record["variants"] if v["id"] == "numpy-compiled-cpu"]
    nest = raw["capture"]["graphs"][0]["nests"][0]
    nest["decisions"].append({"kind": "a-decision-of-torch-3"})
    a = analyze(RawRecord.from_json(record))
    (count,) = [p for p in a.parse if p.artifact == "Inductor decisions"]
    assert count.read > 0 and any("a-decision-of-torch-3" in said(p) for p in count.problems)
