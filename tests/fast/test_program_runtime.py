"""What ``inspector run`` says of calls its trace pass left alone and of a compiled module's other methods (from a
checked-in record with those facts added as the probe writes them), and how the probe keeps its own frames out of
the program's tracebacks and torch's logged stacks (no torch needed)."""

import json
import traceback

from conftest import record_path
from inspector.analysis import analyze
from inspector.model import NotTraced, UncompiledMethod
from inspector.probe import tracebacks, tracking
from inspector.raw import RawRecord
from inspector.render import renderer
from inspector.render.words import run_notes


def _odd_calls(**run):
    """The analysis of odd_calls.py's record (torch 2.13), ``fitness``'s run given ``run``'s facts besides its own."""
    data = json.loads(record_path("2.13.0", "odd_calls").read_text())
    (fitness,) = [v for v in data["variants"] if v["id"] == "fitness"]
    fitness["run"].update(run)
    return analyze(RawRecord.from_json(data))


def test_calls_left_untraced_are_told_with_why_and_the_call_traced_instead():
    guard = "tensor 'x' size mismatch at index 0. expected 1000, actual 2000"
    f = _odd_calls(untraced={"count": 3, "first": [{"call": 2, "why": "recompile", "guard": guard},
                                                    {"call": 3, "why": "compiled", "guard": None},
                                                    {"call": 4, "why": "limit", "guard": guard}]}).function("fitness")
    assert f.run.untraced.count == 3 and [u.why for u in f.run.untraced.first] == [
        NotTraced.RECOMPILE, NotTraced.COMPILED, NotTraced.LIMIT]
    (note,) = [n for n in run_notes(f.run) if n.startswith("not traced")]
    assert note == (f"not traced for the lines that ran as Python: call 2 (it would recompile: {guard}); call 3 (it "
                    "compiled as it was traced, and the trace stopped as the compile began) and 1 more; call "
                    f"{f.run.traced_call} was traced instead")
    # a record from before the probe told them: nothing said
    before = _odd_calls(untraced=None).function("fitness")
    assert before.run.untraced is None and not [n for n in run_notes(before.run) if n.startswith("not traced")]


def test_a_compiled_modules_other_methods_are_told_called_and_uncompiled():
    a = _odd_calls(other_methods={"solve": 3, "step": 1})
    assert a.function("fitness").uncompiled == (UncompiledMethod("solve", 3), UncompiledMethod("step", 1))
    text = renderer("text").program(a)
    assert ("solve was called 3 times on the compiled module and ran uncompiled; compile it: "
            "torch.compile(module.solve) or call the module (forward)") in text
    assert "step was called 1 time on the compiled module" in text


def _frame(filename, name="f"):
    return traceback.FrameSummary(filename, 1, name, lookup_line=False)


def test_torchs_logged_stacks_lose_inspectors_frames_and_the_ones_that_started_the_program():
    ours = tracking.__file__
    user = [_frame("/home/me/inspector/.venv/lib/x.py", "<module>"), _frame("/home/me/run.py", "step")]
    started = [_frame("<string>", "<module>"), _frame(ours, "main"), _frame(ours, "_run"), _frame(ours, "_run_script")]
    stack = started + user[:1] + [_frame(ours, "tracked"), _frame(ours, "call")] + user[1:]
    assert tracebacks.user_frames(stack) == user
    # a program that started itself (python -c, the Python API): its own first frame is kept
    assert tracebacks.user_frames([_frame("<string>", "<module>"), *user]) == [_frame("<string>", "<module>"), *user]


class Model:
    def solve(self, x):
        raise ValueError(x)


class Counts:
    other_methods: dict = {}


def test_an_error_through_inspectors_wrapper_has_no_frame_of_it_and_the_call_is_counted():
    counts = Counts()
    counts.other_methods = {}
    solve = tracking.counted(counts, Model(), "solve")
    try:
        solve(3)
    except ValueError as e:
        files = [f.filename for f in traceback.extract_tb(e.__traceback__)]
    assert files == [__file__, __file__] and counts.other_methods == {"solve": 1}


def test_what_the_probe_holds_is_left_out_of_the_programs_collections_and_tracked_again_after():
    """The objects tracked before the program runs are frozen while it runs (a full collection the program triggers
    does not scan torch's), tracked again after; a program that froze its own keeps them frozen."""
    import gc
    from inspector.probe import ours_left_out_of_collections
    held = [[i] for i in range(1000)]  # the probe's: tracked before the program
    with ours_left_out_of_collections():
        assert gc.get_freeze_count() >= len(held)
        mine = [[i] for i in range(10)]  # the program's own: collected as usual
        assert all(gc.is_tracked(x) for x in mine)
    assert gc.get_freeze_count() == 0
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        with ours_left_out_of_collections():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_guard_that_failed_alike_in_several_frames_is_said_once_with_how_many():
    """A recompile whose frames failed the same guard (EvoTorch's fitness, each frame its graph breaks made: "tensor
    'x' rank mismatch" twice) names it once, with the count of frames."""
    data = json.loads(record_path("2.13.0", "recompile_on_float").read_text())
    (h,) = [v for v in data["variants"] if v["id"] == "h"]
    (again,) = [c for c in h["run"]["compiles"] if c["reasons"]]
    again["reasons"] = [again["reasons"][0], again["reasons"][0].replace("0/0:", "1/0:", 1)]
    text = renderer("text").program(analyze(RawRecord.from_json(data)))
    (said,) = [line for line in text.splitlines() if "recompiled at call 2" in line]
    assert said.count("c == 0.5") == 1 and said.endswith("c == 0.5 (at recompile_on_float.py:8), in 2 frames"), said
