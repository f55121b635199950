"""Graph breaks, recompilations and unrolled loops of a variant, from checked-in probe output."""

import dataclasses
import json

import pytest

from conftest import FIXTURES, VERSIONS, analysis, line_of, record_path
from inspector.analysis import analyze, breaks, fixes
from inspector.analysis.lines import Sources
from inspector.analysis.parse import breaks as parse_breaks
from inspector.analysis.parse.breaks import DYNAMIC_SHAPES, SCALARS
from inspector.model import BreaksView, Finding, Fix, FixKind, LibraryFix, SourceFile
from inspector.raw import RawBreak, RawEnv, RawRecord
from inspector.render import renderer
from inspector.render.words import ratio
from inspector.render.said import after, break_reason, explanation, guard, problem, rewrite, said

# torch 2.13's messages from `inspector run` of a particle-swarm program (tests/fixtures/torch-2.13.0/pso_fallback.py)
PSO = json.loads((FIXTURES / "torch-2.13.0" / "pso_fallback.json").read_text())
PSO_BREAKS = {name: [RawBreak.from_json(e) for e in entries] for name, entries in PSO["breaks"].items()}
PSO_SOURCE = (FIXTURES / "torch-2.13.0" / "pso_fallback.py").read_text()
PSO_FILES = Sources([SourceFile("pso_fallback.py", "pso_fallback.py", "sample", PSO_SOURCE)])


def distinct(entries, *args):
    """breaks.distinct of raw break entries, read as compiled.read reads them."""
    return breaks.distinct(breaks.told([parse_breaks.parse(e) for e in entries]), *args)


# torch 2.1 does not break at the boolean mask: after the `if` broke the graph, the rest of the frame ran eagerly
BREAKS = {"numpy-compiled-cpu": {"2.13.0": {"if over.any():", "fitness[over] -= PENALTY"}, "2.1.2": {"if over.any():"}},
          "torch-compiled-cpu": {v: {"(excess > 0).sum().item()", 'print(f"knapsack'} for v in VERSIONS}}


@pytest.mark.parametrize("version", VERSIONS)
def test_each_break_once_with_its_line_reason_and_fix(version):
    a = analysis(version, "knapsack_breaks")
    for vid, expected in ((vid, by_version[version]) for vid, by_version in BREAKS.items()):
        found = a.variant(vid).code.breaks
        assert {b.line for b in found} == {line_of(a, text) for text in expected}
        assert len(found) == len({(b.line, b.reason) for b in found})  # each once
        for b in found:
            assert b.file == "samples/knapsack_breaks.py" and b.code and b.reason and b.fix and b.count >= 1
            assert a.sample.source.splitlines()[b.line - 1].strip() == b.code
            if version == "2.13.0":  # torch's explanation and the graph-break registry's id: newer torch only
                assert b.explanation and b.gb_id.startswith("gb") and b.url.startswith("https://")
    flags = {b.flag for v in a.variants for b in v.code.breaks} - {None}
    assert flags == ({SCALARS, DYNAMIC_SHAPES} if version == "2.13.0" else {SCALARS})


def test_findings_put_the_costliest_variant_first():
    a = analysis("2.13.0", "knapsack_breaks")
    ids = [f.variant for f in a.findings]
    assert sorted(ids) == ["numpy-compiled-cpu", "torch-compiled-cpu"]
    costs = [f.cost.outside_s for f in a.findings]
    assert costs == sorted(costs, reverse=True)
    for f in a.findings:
        assert 0 <= f.cost.outside_fraction <= 1 and len(f.graphs) >= 2 and all(g.op_count for g in f.graphs)


def test_torch_2_1_gives_no_time_outside_graphs_rather_than_a_wrong_one():
    """Its profiler marks no compiled-graph events, so the cost of a break is unknown, and said to be."""
    a = analysis("2.1.2", "knapsack_breaks")
    assert [f.cost for f in a.findings] == [None, None]
    assert all(v.code.time_split.outside_graphs_s is None for v in a.variants if v.compiled and v.status == "ok")


def test_population_sizes_show_recompiles_with_the_failed_guard():
    a = analysis("2.13.0", "knapsack_breaks")
    recompiles = [w for w in a.variant("numpy-compiled-cpu").code.warnings if w.kind == "recompile"]
    assert recompiles and all("at population 9,000" in said(w) for w in recompiles)
    assert any("size mismatch" in said(w) and "expected 10000, actual 9000" in said(w) for w in recompiles)
    # the guard in words, as the program summary gives it: no compile id, and where the guarded code is
    printed = [said(w) for w in a.variant("torch-compiled-cpu").code.warnings if "___stack0" in said(w)]
    assert printed == ["recompiled at population 9,000: ___stack0 == 4749 (at knapsack_breaks.py:55, in the code "
                       "after the graph break at line 54; ___stack0 is a value Dynamo carried over that break)"]
    assert not [w for w in recompiles if "0/0:" in said(w)]


@pytest.mark.parametrize("version", VERSIONS)
def test_unrolled_python_loops_are_flagged_each_with_its_trip_count(version):
    a = analysis(version, "penalty_loops")
    v = a.variant("torch-compiled-cpu")
    assert not v.code.breaks  # an unrolled loop does not break the graph: the only signal is the traced graph itself
    source = a.sample.source.splitlines()
    start = line_of(a, "def fitness_torch")
    loops = [i for i, s in enumerate(source, 1) if s.strip().startswith("for ") and i > start]
    found = [w for w in v.code.warnings if w.kind == "unrolled-loop"]
    assert [w.lines for w in found] == [[loops[0]], [loops[1]]]
    assert "its body was traced 10 times" in said(found[0]) and "its body was traced 6 times" in said(found[1])
    headers = [e for e in v.code.lines if e.line in loops]
    assert headers and all(e.why[0].kind == "unrolled-loop" for e in headers)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("stem", ["ten_genes", "poly", "matmul_fitness"])
def test_long_straight_line_code_is_not_an_unrolled_loop(version, stem):
    """A ten-variable objective traces into hundreds of ops from a few statements, with no loop anywhere."""
    a = analysis(version, stem)
    assert not [w for v in a.variants for w in v.code.warnings if w.kind == "unrolled-loop"]


def test_a_message_without_a_location_is_counted_as_not_understood():
    a = analysis("2.13.0", "poly")
    found, problems = distinct([RawBreak(text="Graph break: something new", compile_id="0/0")], a.sample)
    assert [(b.file, b.line, b.reason, b.cause) for b in found] == [(None, None, "something new", "unknown")]
    assert [problem(p) for p in problems] == ["graph break 0/0: no file and line in torch's message: something new"]


def _pso_line(text):
    return next(i for i, s in enumerate(PSO_SOURCE.splitlines(), 1) if text in s)


def test_a_break_whose_following_code_the_backend_failed_on_is_one_entry_that_says_so():
    """torch reports one site three times: the `.item()` break, WON'T CONVERT for the code after it (the backend
    raised a fake-tensor exception on it), and a "Backend compiler exception" break at the same file:line."""
    entries = PSO_BREAKS["step"]
    assert [e.text.startswith("WON'T CONVERT torch_dynamo_resume_in_step_at_18") for e in entries] == [False, True,
                                                                                                          False]
    (b,), problems = distinct(entries, PSO_FILES)
    assert not problems
    assert (b.line, b.cause, b.flag, b.count) == (_pso_line("spread = pos.abs().max().item()"), "item", SCALARS, 1)
    assert after(b) == ("the code after it did not compile: Backend compiler `inductor_failing_after_breaks` failed "
                        "with aten._local_scalar_dense.default; Dynamo ran it as Python")
    assert "Backend compiler exception" in b.text  # torch's words of it kept, under the break's own
    finding = Finding("step", "ok", None, (), None, (b,), (), None, (), ())
    view = BreaksView("pso_fallback.py", "2.13.0", 1000, (finding,))
    text = renderer("text").breaks(view)
    assert text.count("pso_fallback.py:18") == 1 and text.count("then the code after it did not compile") == 1
    assert "WON'T CONVERT" not in text


def test_a_wont_convert_alone_is_told_in_words_on_the_break_it_follows_or_on_its_own():
    """A torch that gives no "Backend compiler exception" break after it: the WON'T CONVERT message itself."""
    item, wont_convert, _ = PSO_BREAKS["step"]
    (b,), _ = distinct([item, wont_convert], PSO_FILES)
    assert b.cause == "item" and after(b) == ("the code after it did not compile: DataDependentOutputException: "
                                              "aten._local_scalar_dense.default; Dynamo ran it as Python")
    (alone,), _ = distinct([wont_convert], PSO_FILES)
    assert (alone.line, alone.cause, alone.flag, alone.resumable) == (18, "not-compiled", None, False)
    assert alone.reason == "DataDependentOutputException: aten._local_scalar_dense.default" == alone.failed.exception
    assert break_reason(alone) == ("the compiler backend failed on the code after the graph break at line 18 "
                                   "(DataDependentOutputException: aten._local_scalar_dense.default): Dynamo ran it as "
                                   "Python")
    assert explanation(alone) == ("the compiler backend failed with DataDependentOutputException: "
                                  "aten._local_scalar_dense.default") and alone.explanation is None


def test_a_data_dependent_operator_is_an_item_break_with_the_flag_torchs_hint_names():
    """`torch.arange(k.max())` reads a number out of a tensor (aten._local_scalar_dense), as `.item()` does."""
    (b,), _ = distinct(PSO_BREAKS["grid"], PSO_FILES)
    assert (b.line, b.reason) == (_pso_line("torch.arange(k.max())"), "Data dependent operator (trace CALL)")
    assert b.cause == "item" and b.flag == SCALARS and any("capture_scalar_outputs = True" in h for h in b.hints)


@pytest.mark.parametrize("stack", [True, False])
def test_a_failed_guard_keeps_where_the_guarded_code_is(stack):
    """From the reason's user stack, or without one (torch adds it only where the guard kept one) from the end of
    the guard's source comment, whose path torch cuts short."""
    resumed, plain = (r if stack else r.partition("\nUser stack trace:")[0] for r in PSO["recompile_reasons"])
    # the code after a break: torch names it with the break's line, and ___stack0 a value carried over that break
    found = breaks.failed_guard(resumed)
    assert (found.text, found.file, found.line, found.resumed, found.after, found.stacked) == (
        "___stack0 == 724", "pso.py", 22, True, 21, "___stack0")
    assert guard(found) == ("___stack0 == 724 (at pso.py:22, in the code after the graph break at line 21; ___stack0 "
                            "is a value Dynamo carried over that break)")
    other = resumed.replace("___stack0 == 724", "L['x'] == 3")
    assert guard(breaks.failed_guard(other)).endswith("(at pso.py:22, in the code after a graph break)")
    assert guard(breaks.failed_guard(plain)) == "it == 0 (at guards.py:21)"


def test_a_break_streamed_before_any_record_exists_is_told_at_its_site():
    """`inspector breaks` says each break as the probe streams it: its entries and env read as typed values."""
    found = breaks.first_seen(PSO_BREAKS["grid"], RawEnv.from_json({}), "pso_fallback.py", None)
    assert found == [("pso_fallback.py", _pso_line("torch.arange(k.max())"), "Data dependent operator (trace CALL)")]


def test_a_programs_lines_that_called_the_compiled_function_get_no_break_verdict():
    """torch's user code traceback starts at the program's <module>; the lines above the compiled function's frame
    ran no compiled code, so the break's chain starts at the function."""
    a = analysis("2.13.0", "ga")
    (f,) = a.program.functions
    first, last = f.location.line, f.location.end_line
    assert f.code.breaks and all(first <= n <= last for b in f.code.breaks for _, n in b.chain)
    placed = {e.line for e in f.code.lines if e.status == "graph-break"}
    assert placed and all(first <= n <= last for n in placed)
    assert line_of(a, "scores = fitness(pop, 100.0)") not in placed


READ_ONLY = "/venv/site-packages/evotorch/tools/readonlytensor.py"
RAISED = "return super().__getattribute__(attribute_name)"  # its line 56


def _read_only_break(program, frames, torch_frame, within):
    """The one GraphBreak of a break EvoTorch's ReadOnlyTensor.__getattribute__ raised (line 56), called from
    ``torch_frame`` (a file, line, function and its code) under the program's ``frames`` ((line, function, code)),
    read against the program's source ``program`` (/proj/<within's file>) and evotorch's."""
    path, _ = within
    user = "".join(f'  File "{path}", line {n}, in {name}\n    {code}\n' for n, name, code in frames)
    file, line, function, code = torch_frame
    text = (f"Graph break in user code at {READ_ONLY}:56\nGraph Break Reason: Observed exception\n"
            "  Explanation: Dynamo found no exception handler at the top-level compiled function.\n\n"
            f"User code traceback:\n{user}"
            f'  File "/venv/site-packages/{file}", line {line}, in {function}\n    {code}\n'
            f'  File "{READ_ONLY}", line 56, in __getattribute__\n    {RAISED}\n')
    library = "\n" * 55 + f"        {RAISED}\n"
    files = Sources([SourceFile(path, path.rsplit("/", 1)[-1], "sample", program),
                     SourceFile(READ_ONLY, "evotorch/tools/readonlytensor.py", "library", library)])
    (b,), _ = distinct([RawBreak(compile_id="1/0", text=text)], files, within)
    return b


def test_a_break_in_library_code_torch_itself_called_names_torchs_frame_and_not_a_users_line():
    """EvoTorch's ReadOnlyTensor.__getattribute__ raised inside torch's own wrapping of the compiled function's
    result (torch/_dynamo/utils.py, to_subclass): wrapping the user's call in torch.compiler.disable would not help."""
    b = _read_only_break("\n" * 11 + "@torch.compile\ndef rastrigin(x):\n",
                         [(22, "<module>", "snes.run(40)"), (12, "rastrigin", "@torch.compile")],
                         ("torch/_dynamo/utils.py", 3172, "to_subclass", "return t.as_subclass(cls)"),
                         ("/proj/snes.py", "rastrigin"))
    assert (b.file, b.line, b.where) == ("evotorch/tools/readonlytensor.py", 56, "library")
    fix = rewrite(b.usual) or ""
    assert isinstance(b.fix, LibraryFix) and b.fix.subclass and b.fix.call is None
    assert "in code torch itself called (torch/_dynamo/utils.py:3172, in to_subclass)" in fix
    assert "plain tensors (t.as_subclass(torch.Tensor))" in fix and "snes.py:22" not in fix
    assert [n for _, n in b.chain] == [12, 56]  # from the compiled function's frame, not the program's <module>


def test_a_break_in_a_tensor_subclasss_override_that_torch_tensor_called_says_to_give_plain_tensors():
    """EvoTorch gives a compiled fitness its population as a ReadOnlyTensor: ``x ** 2`` runs torch.Tensor's own
    operator code (torch/_tensor.py, wrapped), which calls the subclass's ``__getattribute__``, where Dynamo broke
    and gave up (every call eager). The fix is the argument's, not the call's: plain tensors (measured on EvoTorch
    0.6.1's SNES: with ``x.as_subclass(torch.Tensor)`` at the call, no break, every call compiled)."""
    b = _read_only_break("\n" * 5 + "def sphere(x):\n    return torch.sum(x ** 2, dim=-1)\n",
                         [(12, "<module>", "searcher.run(20)"), (7, "sphere", "return torch.sum(x ** 2, dim=-1)")],
                         ("torch/_tensor.py", 37, "wrapped", "if has_torch_function(sargs):"),
                         ("/proj/evo.py", "sphere"))
    assert isinstance(b.fix, LibraryFix) and b.fix.subclass and b.fix.torch_file == "torch/_tensor.py"
    fix = rewrite(b.usual) or ""
    assert "in code torch itself called (torch/_tensor.py:37, in wrapped)" in fix
    assert "is given a tensor of a subclass of evotorch's" in fix
    assert "t.as_subclass(torch.Tensor) on its arguments" in fix
    assert "torch.compiler.disable" not in fix and "wraps a tensor" not in fix


def test_every_break_in_the_code_of_a_tensor_subclass_the_function_is_given_says_to_give_it_a_plain_tensor():
    """EvoTorch's SNES gives the compiled fitness a ReadOnlyTensor (the probe records its first call's argument's
    class): each break inside evotorch whose call chain runs in readonlytensor.py, where that class is, says to give
    it a plain tensor (measured: with ``x.as_subclass(torch.Tensor)`` where it is called, no break is left and every
    call runs compiled code), not to wrap the call in torch.compiler.disable. A record without the argument's class
    (made before it was recorded) says what it said before."""
    a = analysis("2.13.0", "evotorch-snes")
    (f,) = a.program.functions
    assert [(g.name, g.subclass) for g in f.arguments] == [("x", "evotorch.tools.readonlytensor.ReadOnlyTensor")]
    inside = [b for b in f.code.breaks if isinstance(b.fix, LibraryFix)]
    assert len(inside) >= 3 and all(any(file == "evotorch/tools/readonlytensor.py" for file, _ in b.chain)
                                    for b in inside)
    for b in inside:
        assert b.fix.argument == ("x", "evotorch.tools.readonlytensor.ReadOnlyTensor")
        words = rewrite(b.usual) or ""
        assert "give it a plain tensor (x.as_subclass(torch.Tensor), where you call it)" in words, words
        assert "torch.compiler.disable" not in words
    # and the break at the program's own line, where torch said the operand's __torch_function__ override failed
    (own,) = [b for b in f.code.breaks if b.where == "sample"]
    assert own.cause == "tensor-subclass" and "plain tensors (t.as_subclass(torch.Tensor)" in rewrite(own.usual)
    # one fix for them all, said once: what to change is the argument, whichever of its breaks it is
    (fix,) = [x for x in a.could_try if x.kind == FixKind.BREAK]
    assert sorted(fix.lines) == sorted((b.file, b.line) for b in [own, *inside])
    text = renderer("text").program(a)
    assert text.count("give it a plain tensor") == 1 and f"the graph breaks at line {own.line}, evotorch/" in text
    data = json.loads(record_path("2.13.0", "evotorch-snes").read_text())
    for v in data["variants"]:
        for arg in v["run"]["arguments"]:
            arg.pop("subclass", None)
    (before,) = analyze(RawRecord.from_json(data)).program.functions
    assert not any(b.fix.argument for b in before.code.breaks if isinstance(b.fix, LibraryFix))
    assert any("torch.compiler.disable" in (rewrite(b.usual) or "") for b in before.code.breaks)


def _library_break(site, line, program_line, function="rastrigin"):
    return RawBreak(compile_id="0/0", text=(
        f"Graph break in user code at {site}:{line}\nGraph Break Reason: Unsupported Tensor.item() call\n\n"
        "User code traceback:\n"
        f'  File "/proj/run.py", line {program_line}, in {function}\n    return lib.evaluate(x)\n'
        f'  File "{site}", line {line}, in evaluate\n    total = x.sum().item()\n'))


@pytest.mark.parametrize("whole", [True, False])
def test_breaks_inside_a_library_under_one_call_are_one_change_said_once(whole):
    """Four sites in the library under the compiled function's one call (issue 40 item 3): one change, its stake the
    call's once; where the call is all the function does, torch.compiler.disable around it would leave nothing
    compiled, and that is said instead."""
    site = "/venv/site-packages/lib/core.py"
    body = "    return lib.evaluate(x)\n" if whole else "    y = x * 2\n    return lib.evaluate(y) + y.sum()\n"
    program = "import lib\n\n\n@torch.compile\ndef rastrigin(x):\n" + body
    call = 6 if whole else 7
    library = "".join(f"line {n}\n" for n in range(1, 60))
    files = Sources([SourceFile("/proj/run.py", "run.py", "sample", program),
                     SourceFile(site, "lib/core.py", "library", library)])
    found, _ = distinct([_library_break(site, n, call) for n in (11, 23, 37, 52)], files, ("/proj/run.py",
                                                                                                   "rastrigin"))
    assert len(found) == 4 and {b.fix for b in found} == {
        LibraryFix("lib", call=("run.py", call), whole=whole, file="lib/core.py", line=n) for n in (11, 23, 37, 52)}
    fixes_found = [Fix(FixKind.BREAK, "torch-compiled-cpu", ((b.file, b.line),), 0.412, None, b) for b in found]
    (change,) = fixes.changes(fixes_found)
    assert change.stake_s == 0.412 and len(change.lines) == 4
    said_once = rewrite(found[0].usual) or ""
    assert ("nothing would stay compiled, so compiling this function gains nothing" in said_once) is whole
    assert ("the rest stays compiled" in said_once) is not whole


def test_a_library_call_that_is_all_the_function_does_is_said_with_how_it_ran_eagerly():
    """Where nothing would stay compiled, the page says how the function ran eagerly, from the record's timings: the
    compiled variant's time over its family's eager variant's (a program's: its replay's)."""
    from inspector.render.fixes import advice
    a = analysis("2.13.0", "poly")
    compiled = a.variant("numpy-compiled-cpu")
    site = "/venv/site-packages/lib/core.py"
    files = Sources([SourceFile("/proj/run.py", "run.py", "sample", "import lib\n\n\n@torch.compile\ndef f(x):\n"
                                "    return lib.evaluate(x)\n"),
                     SourceFile(site, "lib/core.py", "library", "".join(f"line {n}\n" for n in range(1, 20)))])
    (b,), _ = distinct([_library_break(site, 11, 6)], files, ("/proj/run.py", "f"))
    fix = fixes._measured(Fix(FixKind.BREAK, compiled.id, ((b.file, b.line),), None, None, b), compiled, a.variants)
    expected = compiled.timing.per_population_s / a.variant("numpy").timing.per_population_s
    assert fix.eager_faster == pytest.approx(expected)
    assert f"gains nothing (eagerly it ran {ratio(expected, 'change')})" in advice(fix)
    # the rest stays compiled: no such figure
    partial = LibraryFix("lib", call=("run.py", 6), file="lib/core.py", line=11)
    other = Fix(FixKind.BREAK, compiled.id, (), None, None, dataclasses.replace(b, fix=partial))
    assert fixes._measured(other, compiled, a.variants).eager_faster is None
