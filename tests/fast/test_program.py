"""`inspector run`'s record, from checked-in output under torch 2.1.2 and 2.13 of samples/programs/ga.py (3,000
individuals, 8 generations: the compiled function, its breaks, its recompilations at the call they happened, its time
per call, and the program views) and samples/programs/odd_calls.py (functions called once, never, first under a
stance, and two closures of one decorator)."""

import copy
import json

import pytest

from conftest import VERSIONS, analysis, line_of, record_path
from inspector.analysis import analyze
from inspector.record import load
from inspector.api import program_name
from inspector.collect.program import _status
from inspector.raw import RawRecord, RawVariant
from inspector.render import renderer
from inspector.render.words import run_notes


@pytest.mark.parametrize("version", VERSIONS)
def test_the_gas_compiled_fitness_with_its_breaks_and_recompilations_at_their_calls(version):
    a = analysis(version, "ga")
    raw = load(record_path(version, "ga")).to_json()["variants"][0]
    (f,) = a.program.functions
    assert (f.id, a.program.exit, a.program.ended, f.run.calls) == ("fitness", 0, "normally", 8)
    assert line_of(a, "best = value.min().item()") in {b.line for b in f.code.breaks}
    # the population grows before generation 4 (of 0-7): the fifth call compiles again
    assert 5 in [c.call for c in f.run.recompiles]
    assert [c.call for c in f.run.recompiles] == [c["call"] for c in raw["run"]["compiles"] if c["kind"] == "recompile"]
    assert all(not r.text.startswith(("0/", "1/")) and "\n" not in r.text for c in f.run.recompiles for r in c.reasons)
    # every call is one of: the first, a recompiling one, the traced one, the profiled one, or a steady one
    passes = sum(1 for n in (f.run.traced_call, f.run.profiled_call) if n)
    assert f.run.steady_calls + len(f.run.recompiles) + passes + f.run.eager_calls + 1 == f.run.calls
    assert f.run.calls == f.code.recompilation.calls + 1
    assert f.timing.runs == f.run.steady_calls and f.timing.median_s <= f.run.total_s
    text = renderer("text").program(a)
    assert "recompiled at call 5" in text and "graph break at line" in text
    page = renderer("html").program(a)
    assert "at call 5" in page and "<code>fitness</code>" in page and "Compiled functions" in page


def test_a_function_with_hundreds_of_graphs_gives_a_page_that_stays_small():
    record = load(record_path("2.13.0", "ga")).to_json()
    one = renderer("html").program(analyze(RawRecord.from_json(record)))  # two graphs with code: a kernel each
    many = copy.deepcopy(record)
    v = many["variants"][0]
    first = next(g for g in v["capture"]["graphs"] if g.get("output_code"))
    text = json.dumps(first)  # 400 more graphs, each with kernels of its own names
    v["recompiles"]["graphs"] += [dict(json.loads(text.replace("cpp_fused_", f"cpp_fused_g{n}_")), compile_id=f"{n}/0")
                                  for n in range(10, 410)]
    a = analyze(RawRecord.from_json(many))
    kernels = len(a.program.functions[0].code.kernels)
    page = renderer("html").program(a)
    assert kernels > 400 and f"and {kernels - 12} more kernels: in the JSON record" in page
    assert len(one) < len(page) < 1_000_000  # twelve kernels of tens of kB each, not four hundred


@pytest.mark.parametrize("version", VERSIONS)
def test_functions_called_once_never_or_first_eagerly_and_closures_of_one_decorator(version):
    a = analysis(version, "odd_calls")
    normalise, penalty, fitness, *closures = a.program.functions
    # called once: its compile and nothing after it, and both views render
    assert (normalise.run.calls, normalise.run.compiled_at, normalise.timing) == (1, 1, None)
    page, text = renderer("html").program(a), renderer("text").program(a)
    # never compiled itself: inlined into the function that calls it (its FX graph's comments name its lines); its
    # own calls (made inside fitness's eager calls, where the record keeps them) ran eagerly
    assert penalty.run.inlined_into == ["fitness"] and penalty.run.kinds.counts.get("eager", 0) == penalty.run.calls
    assert "penalty: never called itself: inlined into fitness" in text or \
        "penalty: never compiled itself: inlined into fitness" in text
    assert "0 of 0 lines" not in text
    line = line_of(a, "squares = per_row")
    if version == "2.1.2":  # recorded when each closure of one decorator was a function, named by where it was made
        first, second = closures
        assert [first.id, second.id] == [f"per_row.<locals>.objective (odd_calls.py:{n})" for n in (line, line + 1)]
        assert (first.run.shares_code, second.run.shares_code) == ([second.id], [first.id])
        assert ([c.call for c in first.run.recompiles], [c.call for c in second.run.recompiles]) == ([], [1])
        assert "shares its code object with" in page
        assert (first.run.traced_call, first.run.profiled_call) == (2, 3)
    else:  # two closures of one code object: one function, as torch's cache is; the second closure's first call
        (objective,) = closures  # is torch's recompile of it, the guard on the closure's cell
        assert (objective.id, objective.run.kinds.wrappers, objective.run.calls) == ("per_row.<locals>.objective", 2,
                                                                                    10)
        assert [c.call for c in objective.run.recompiles] == [2] and objective.run.kinds.counts["cached"] == 8
        assert "torch.compile was called on it 2 times" in text
        # the passes take the calls right after the compile
        assert (objective.run.traced_call, objective.run.profiled_call) == (3, 4)
    assert a.env.memory_bandwidth
    assert any(k.cost.bandwidth_fraction for v in a.program.functions for k in v.code.kernels)


def test_calls_under_a_stance_are_told_and_eager_ones_kept_out_of_the_compiled_figures():
    a = analysis("2.13.0", "odd_calls")
    fitness = a.function("fitness")
    assert "no call after the compile to set it against" in renderer("html").program(a)  # normalise: called once
    run = fitness.run
    # the first call ran under force_eager: the compile at call 2 is the first, not a recompile
    assert (run.compiled_at, run.recompiles) == (2, [])
    assert [(s.first, s.last, s.stance, s.eager) for s in run.stances] == [
        (1, 1, "force_eager", True), (2, 6, "default", False), (7, 9, "eager_on_recompile", True),
        (10, 10, "default", False)]
    # eager_on_recompile ran calls 7-9 eagerly instead of recompiling: named, with the guard that failed
    assert run.fallbacks == 3 and run.fallback_guards[0][0] == 7 and "rank mismatch" in run.fallback_guards[0][1]
    assert run.eager_calls == 4 and run.eager_median_s > 0
    assert fitness.timing.runs == run.steady_calls == 10 - 4 - 1 - 2  # eager, compiling, traced, profiled
    assert run.traced_call == 3 and run.profiled_call == 4  # never an eager call
    notes = " ".join(run_notes(fitness.run))
    assert "call 1 under torch.compiler.set_stance('force_eager'): ran eagerly" in notes
    assert "3 calls ran eagerly instead of recompiling, the first at call 7" in notes


def test_restarted_attempts_of_one_compile_count_once():
    record = load(record_path("2.13.0", "ga")).to_json()
    plain = analyze(RawRecord.from_json(record)).program.functions[0]
    raw = copy.deepcopy(record)
    v = raw["variants"][0]
    again = [dict(g, compile_id=g["compile_id"] + "_1") for g in v["recompiles"]["graphs"]]
    v["recompiles"]["graphs"] += again  # torch restarted each recompile once: 2/1 and 2/1_1 are one recompile
    for c in v["run"]["compiles"]:
        c["compile_ids"] += [i + "_1" for i in c["compile_ids"]]
    f = analyze(RawRecord.from_json(raw)).program.functions[0]
    assert f.code.recompilation.count == plain.code.recompilation.count
    assert [c.graphs for c in f.run.recompiles] == [c.graphs for c in plain.run.recompiles]


def test_a_report_of_inspect_names_the_api_and_shows_the_eager_time():
    record = load(record_path("2.13.0", "ga")).to_json()
    record["program"].update(made_by="inspect", eager={"fitness": 0.0123})
    a = analyze(RawRecord.from_json(record))
    text, page = renderer("text").program(a), renderer("html").program(a)
    assert "inspector.inspect(" in text and "12.3 ms" in text and "exit status" not in text
    assert "Exit status" not in page and "inspector.inspect()" in page and "eager, same arguments" in page


@pytest.mark.parametrize("program, module, argv, name", [
    ("samples/programs/ga.py", False, ["5000"], "ga"),
    ("unittest", True, ["tests.test_ga", "-v"], "unittest-tests.test_ga"),
    ("unittest", True, ["-v", "test_ga.py"], "unittest-test_ga"), ("unittest", True, [], "unittest"),
    ("mypkg.train", True, ["raise", "--epochs", "3"], "train"), ("mypkg.train", True, ["0.5"], "train")])
def test_a_programs_report_is_named_after_it_and_a_runners_after_what_it_runs(program, module, argv, name):
    assert program_name(program, module, argv) == name


def test_a_function_that_raised_at_a_later_call_keeps_what_its_compiled_calls_showed():
    record = load(record_path("2.13.0", "ga")).to_json()
    v = record["variants"][0]
    v.update(error="ValueError: boom\n  more of the message", error_call=6)
    assert _status(RawVariant.from_json(v)) == "ok"
    assert _status(RawVariant.from_json(dict(v, capture={"graphs": [{"compile_id": "0/0"}]}))) == "error"
    a = analyze(RawRecord.from_json(record))
    (f,) = a.program.functions
    assert f.code.lines and f.code.kernels and f.run.error_call == 6
    text, page = renderer("text").program(a), renderer("html").program(a)
    assert "call 6: raised: ValueError: boom" in text and "raised at call 6" in page


def test_breaks_first_hit_at_a_later_call_are_listed_once_with_the_first_calls():
    record = load(record_path("2.13.0", "ga")).to_json()
    raw = record["variants"][0]
    f = analyze(RawRecord.from_json(record)).program.functions[0]
    assert raw["recompiles"]["breaks"]
    assert len(f.code.breaks) == len({(b.file, b.line, b.reason) for b in f.code.breaks})
    read = next(p for p in analyze(RawRecord.from_json(record)).parse if p.artifact == "graph-break messages").read
    assert read == len(raw["capture"]["breaks"]) + len(raw["recompiles"]["breaks"])
