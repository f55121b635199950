"""Whether compiling paid, from `inspector run`'s replay in checked-in output (samples/programs/ga.py under torch 2.13,
replayed; older records, not): the analysis' figures agree with each other and with the record's rounds, and the
first screen says them (or why they were not measured)."""

import copy
import dataclasses
import math
import statistics

import pytest
from markupsafe import escape

from conftest import analysis, record_path
from inspector.analysis import analyze
from inspector.model import BreakEven, Replay, Unmeasured
from inspector.raw import RawRecord
from inspector.record import load
from inspector.render import renderer, views
from inspector.render.said import UNMEASURED
from inspector.render.words import paid, seconds


def test_the_gas_replay_gives_figures_that_agree_with_each_other_and_with_its_rounds():
    a = analysis("2.13.0", "ga")
    (f,) = a.program.functions
    r = f.replay
    raw = load(record_path("2.13.0", "ga")).variants[0].run.replay
    assert r.why is None and r.call == raw.call and r.rounds == len(raw.eager) == len(raw.compiled)
    assert r.eager_s == statistics.median(t.median_s for t in raw.eager)
    assert r.compiled_s == statistics.median(t.median_s for t in raw.compiled)
    # the copies are of a call that ran compiled code and compiled nothing (a steady call, or the one an inspector
    # pass traced or profiled: Replay.after), the compile is torch's over the run, the calls those that ran compiled
    # code
    assert r.call not in {f.run.compiled_at} | {c.call for c in f.run.recompiles}
    assert r.call in {f.run.traced_call, f.run.profiled_call} or r.call > f.run.compiled_at
    compiled_calls = sum(f.run.kinds.counts.get(k, 0) for k in ("first", "recompile", "cached"))
    assert (r.compile_s, r.calls) == (f.run.compile_s, compiled_calls or f.run.calls - f.run.eager_calls)
    assert r.saved_s == pytest.approx(r.calls * (r.eager_s - r.compiled_s))
    if r.pays_after is not None:
        assert r.pays_after == pytest.approx(r.compile_s / (r.eager_s - r.compiled_s))
    assert r.paid == (r.saved_s >= r.compile_s) and r.copied_bytes == raw.bytes > 0


@pytest.mark.parametrize("fmt", ["text", "html"])
def test_the_first_screen_names_the_hottest_function_and_whether_compiling_it_paid(fmt):
    a = analysis("2.13.0", "ga")
    (f,) = a.program.functions
    page = renderer(fmt).program(a)
    said = paid(f.id, f.replay, f.timing.median_s)
    said = str(escape(said)) if fmt == "html" else said  # as the template escapes it
    assert said in page and page.index(said) < page.index("Compiled functions" if fmt == "html" else "exit status")
    assert f"{a.program.functions[0].run.total_s / a.program.wall_s:.0%} of the run" in page
    assert seconds(f.replay.compile_s) in said and seconds(f.replay.saved_s) in said
    assert f"call {f.replay.call}" in said


def test_the_words_say_paid_did_not_pay_never_pays_and_not_measured_with_the_figures():
    base = dict(call=4, rounds=3, compile_s=2.0, calls=10, spread=(1.5, 2.5))
    slow = Replay(eager_s=0.3, compiled_s=0.1, saved_s=2.0, pays_after=10.0, **base)
    assert slow.paid and paid("f", slow).startswith("Compiling f paid: 2.00 s saved over 10 calls against 2.00 s")
    assert "it paid after about 10 calls" in paid("f", slow)
    short = Replay(eager_s=0.2, compiled_s=0.1, saved_s=1.0, pays_after=20.0, **base)
    assert paid("f", short).startswith("Compiling f did not pay in this run: 2.00 s of compile against 1.00 s saved "
                                       "over 10 calls; it pays after about 20 calls (eager 200 ms against compiled "
                                       "100 ms per call, on copies of call 4's arguments")
    lost = Replay(eager_s=0.1, compiled_s=0.2, saved_s=-1.0, pays_after=None, **dict(base, spread=(0.4, 0.6)))
    assert "no faster than eager (1.00 s lost over 10 calls); it never pays" in paid("f", lost)
    unclear = Replay(eager_s=0.2, compiled_s=0.1, saved_s=1.0, pays_after=20.0, **dict(base, spread=(0.8, 2.5)))
    assert not unclear.clear and "the rounds disagree" in paid("f", unclear)
    spread = Replay(eager_s=0.2, compiled_s=0.1, saved_s=1.0, pays_after=20.0, **dict(base, spread=(1.5, 4.0)))
    assert spread.clear and "the rounds agree on which is faster, but not by how much (compiled 1.5x to 4x " \
        "faster)" in paid("f", spread) and "disagree" not in paid("f", spread)
    assert paid("f", Replay(why="--no-replay")) == "Whether compiling f paid: not measured: --no-replay."
    assert math.ceil(short.pays_after) == 20


def test_an_unmeasured_replay_says_what_each_call_would_have_had_to_save():
    """The issue's method that changes ``self``: 2.62 s of compile over 500 calls of 80 µs."""
    replay = Replay(why="it changes its arguments or self", compile_s=2.62, calls=500, needed_s=2.62 / 500)
    assert paid("step", replay, 80e-6) == (
        "Whether compiling step paid: not measured: it changes its arguments or self. To pay in this run, each of its "
        "500 compiled calls (80 µs each) would have had to save 5.24 ms against eager: an eager call of 5.32 ms, "
        "66x as long.")
    assert paid("step", replay).endswith("each of its 500 compiled calls would have had to save 5.24 ms against eager.")


def test_a_run_that_found_its_graphs_in_torchs_caches_says_their_first_compile_measured_or_not():
    """What a run found in torch's caches is a fact of the run, not of the replay's rounds: said with their first
    compile (kept when they compiled) where the replay was not measured too, and when it pays on a cold cache where
    it was."""
    found = " This run found its graphs in torch's caches (what a rerun pays); their first compile, kept from the " \
        "inspector run that compiled them, took 1.20 s"
    unmeasured = Replay(why=Unmeasured.NO_ROUND, compile_s=0.1, calls=3, first_compile_s=1.2)
    assert paid("f", unmeasured).endswith(found + ".")
    assert found not in paid("f", dataclasses.replace(unmeasured, first_compile_s=None))
    measured = Replay(call=2, rounds=3, compile_s=0.1, calls=3, eager_s=0.3, compiled_s=0.1, saved_s=0.6,
                      pays_after=0.5, first_compile_s=1.2, first=BreakEven(6.0))
    assert paid("f", measured).endswith(found + ": on a cold cache it pays after about 6 calls.")


def test_reduce_overhead_on_the_cpu_is_said_to_have_no_cuda_graphs_there():
    data = load(record_path("2.13.0", "ga")).to_json()
    data["variants"][0]["run"]["compile_options"] = {"mode": "reduce-overhead"}
    (head,) = views.program_headlines(analyze(RawRecord.from_json(data)))
    assert head.paid.endswith('. mode="reduce-overhead" was asked for, whose gain is CUDA graphs (torch\'s '
                              "documentation): on the CPU, where this ran, there are none, so it compiled as the "
                              "default mode does.")
    data["variants"][0]["run"]["compile_options"] = {"mode": "max-autotune"}
    (head,) = views.program_headlines(analyze(RawRecord.from_json(data)))
    assert "CUDA graphs" not in head.paid


def test_a_sample_reported_with_reduce_overhead_says_its_cpu_variants_have_no_cuda_graphs():
    data = load(record_path("2.13.0", "poly")).to_json()
    assert "CUDA graphs" not in renderer("html").report(analyze(RawRecord.from_json(data)))
    data["compile_options"] = {"mode": "reduce-overhead"}
    a = analyze(RawRecord.from_json(data))
    assert views.cuda_graphs(a).startswith('mode="reduce-overhead" was asked for')
    assert views.cuda_graphs(a) in renderer("html").report(a).replace("&#34;", '"').replace("&#39;", "'")


def test_a_replay_far_from_the_programs_own_steady_calls_says_so_and_why_only_as_inferred():
    replay = Replay(call=4, rounds=3, compile_s=2.0, calls=10, spread=(1.5, 2.5), eager_s=0.3, compiled_s=0.1,
                    saved_s=2.0, pays_after=10.0)
    alone = paid("f", replay)
    assert paid("f", replay, 0.12) == alone and paid("f", replay, None) == alone  # within NOISY: nothing to add
    slower = paid("f", replay, 0.25)
    assert slower.startswith(alone) and "ran 2.5x faster than the program's own steady calls" in slower
    assert "(inferred, not measured)" in slower
    assert "ran 2.5x slower than the program's own" in paid("f", replay, 0.04)


@pytest.mark.parametrize("stem", ["ga", "odd_calls", "recompile_limit"])
def test_records_made_before_the_replay_still_render_and_say_why_not_measured(stem):
    a = analysis("2.1.2", stem)
    called = [f for f in a.program.functions if f.run.calls]
    assert called and all(f.replay.why == Unmeasured.NO_REPLAY for f in called)
    assert all(f.replay is None for f in a.program.functions if not f.run.calls)
    assert f"not measured: {UNMEASURED[Unmeasured.NO_REPLAY]}" in renderer("text").program(a)


def test_a_replay_that_was_not_measured_keeps_its_why_and_the_python_apis_records_have_none():
    data = load(record_path("2.13.0", "ga")).to_json()
    changed = copy.deepcopy(data)
    changed["variants"][0]["run"]["replay"] = {"call": 6, "bytes": 8, "why": "it changes its arguments"}
    (f,) = analyze(RawRecord.from_json(changed)).program.functions
    assert (f.replay.why, f.replay.eager_s, f.replay.saved_s) == ("it changes its arguments", None, None)
    assert f.replay.paid is None
    # what each compiled call would have had to save: the run's compile over the calls that ran compiled code
    assert f.replay.calls and f.replay.needed_s == f.run.compile_s / f.replay.calls
    data["program"]["made_by"] = "capture"
    (f,) = analyze(RawRecord.from_json(data)).program.functions
    assert f.replay is None


def test_steady_calls_right_after_inspectors_passes_are_said_to_hold_the_pass():
    """method_on_self's record: 4 calls, the 4th its only steady call, after the profiled 3rd. Its replay sentence
    names that call and the pass; more steady calls (the first after the pass) are said so; where the steady calls did
    not follow a pass, the sentence stays the general one."""
    f = analysis("2.13.0", "method_on_self").program.functions[0]
    run, steady = f.run, f.timing.median_s
    assert (run.calls, run.steady_calls, run.profiled_call) == (4, 1, 3)
    extra = seconds(steady - f.replay.compiled_s)
    assert (f"than the program's own call 4, which came right after inspector's profiled call 3: a program that "
            f"times such a call sees inspector's pass in it (inferred: the caches the pass left cold), up to {extra} a "
            "call here") in paid(f.id, f.replay, steady, run)
    more = dataclasses.replace(run, calls=6, steady_calls=3)
    assert "the program's own calls 4-6, the first of which came right after inspector's profiled call 3" in paid(
        f.id, f.replay, steady, more)
    apart = dataclasses.replace(run, calls=9, steady_calls=4)
    assert "than the program's own steady calls: other arguments" in paid(f.id, f.replay, steady, apart)
