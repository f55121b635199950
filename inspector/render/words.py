"""Plain words shared by every renderer: durations, ratios and their ranges (``seconds``, ``ratio``, ``between``:
the one way each is said), reasons and one-sentence summaries."""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal, Optional, Union

from inspector.model import (Backend, BreakEven, ChildProcess, ComparedHotspot, CompiledCode, FunctionRun, Kernel,
                             LineStatus, NotTraced, Place, ProgramAnalysis, ProgramFunction, Reason, ReasonKind,
                             Recompile, Replay, SampleVariant, Speedups, Status, TimeSplit, Vectorized, WarmCompile)
from inspector.model.hotspots import Hotspot
from inspector.render import said

NOISY = 1.5  # a ratio whose rounds differ by more than this factor was taken on a machine whose speed changed
AFTER_PASS = 3  # steady calls, all right after inspector's passes, whose time the page puts down to those passes
COLOURS = re.compile(r"\x1b\[[0-9;]*m")  # a terminal's colour codes, in a library's error text
STEP = re.compile(r"(?P<kind>\w+: )?(?P<step>Failed in .* pipeline \(step: [^)]*\))")  # numba's: a step that failed

# compile phases as CompilePhases names them: (key, label, what it does)
PHASES = (("dynamo_s", "Dynamo", "tracing your Python into graphs"),
          ("aot_s", "AOTAutograd", "functionalisation and decompositions"),
          ("inductor_s", "Inductor", "lowering, fusion and scheduling, or loading the result from its cache"),
          ("codegen_s", "code generation", "writing the kernels and the wrapper"),
          ("build_s", "C++/Triton build", "waiting for the compiler to build the kernels"))


def recompile_why(c: Recompile) -> str:
    """Why a program's call compiled again (a Recompile): the guards that failed, or what happened without one."""
    if c.reasons:
        return said.guards(c.reasons) or ""
    if not c.graphs:
        return ("no graph: Dynamo traced a frame again and stopped at a graph break before compiling anything (that "
                "tracing is paid on such calls)")
    return "torch named no failed guard: a frame compiled for its first time (such as the code after a graph break)"


def seconds(value: Optional[float]) -> str:
    """A duration for people: 6.91 s, 48.0 ms, 180 µs."""
    if value is None:
        return "-"
    rounded = float(f"{value:.3g}")  # the unit of the figure as shown: 0.9996 s is "1.00 s", not "1e+03 ms"
    if rounded >= 1:
        return f"{value:.2f} s"
    if rounded >= 1e-3:
        return f"{value * 1e3:.3g} ms"
    return f"{value * 1e6:.3g} µs"


# how often a kernel's launches of one Launch.repeat run per graph call: (one launch, n launches)
LAUNCHED: dict[Optional[str], tuple[str, str]] = {
    None: ("once", "{n} times"), "loop": ("once per iteration of the loop", "{n} times per iteration of the loop"),
    "branch": ("when its branch is taken", "{n} times when its branch is taken")}


def launched(k: Kernel, short: bool = False) -> str:
    """How often a kernel runs per graph call, from its launches in the wrapper: "" for once, "2 launches per graph
    call", or, where a subgraph of a higher-order op launches it, from where, how often, and what the profiled call
    counted; ``short``: only the kind of count (for a table of counts), "" where the code says it."""
    repeats = [launch.repeat for launch in k.launches]
    if not any(repeats) and (short or not any(launch.subgraph for launch in k.launches)):
        return "" if short or len(repeats) < 2 else f"{len(repeats)} launches per graph call"
    if short:
        return "a loop's iterations" if "loop" in repeats else "when its branch is taken"
    said = ", then ".join(LAUNCHED[r][n > 1].format(n=n) for r, n in Counter(repeats).items())
    subgraphs = ", ".join(dict.fromkeys(launch.subgraph for launch in k.launches if launch.subgraph))
    how = " (iterations: as many as the data decides, not known from the code)" if "loop" in repeats else ""
    counted = k.cost.launches_per_call
    return ((f"launched from {subgraphs}: " if subgraphs else "launched ") + said + how
            + ("" if counted is None else "; the profiled call launched it " + (
                "once" if counted == 1 else f"{counted:g} times")))


Style = Literal["times", "change", "of"]  # how a ratio of times reads (see ratio)
SAME = 0.005  # a ratio this close to 1 reads as the same time ("1x", "as fast")
ROUNDS = "alternating round"  # where a ratio's spread was measured


def _figure(value: float) -> str:
    """A positive number to three significant digits, without an exponent: "6.5", "622", "1,330"."""
    rounded = float(f"{value:.3g}")
    return f"{value:.3g}" if rounded < 1000 else f"{rounded:,.0f}"


def ratio(value: Optional[float], style: Style = "times") -> str:
    """A ratio of two times (the other's over this one's: above 1, this one is faster) for people, to three
    significant digits, turned over below 1: ``times``, as a table cell says it, "6.5x", "16x slower", "1x";
    ``change``, a change of time, "1.4x faster", "2.13x slower", "as fast"; ``of``, before what it is of, "4.3x"
    (NumPy), "2x slower than", "as fast as". "-" for None (not timed)."""
    if not value:
        return "-"
    if abs(value - 1) < SAME:
        return {"times": "1x", "change": "as fast", "of": "as fast as"}[style]
    if value > 1:
        return f"{_figure(value)}x" + (" faster" if style == "change" else "")
    return f"{_figure(1 / value)}x slower" + (" than" if style == "of" else "")


def between(low: Optional[float], high: Optional[float], style: Union[Style, Literal["seconds"]] = "change") -> str:
    """A range for people: of durations (``seconds``), "180 µs – 220 µs"; of ratios of times, as ``ratio`` says one,
    "1.9x to 2.3x faster", "1.1x to 1.4x slower", "1.2x slower to 1.1x faster" (``times``: "1.9x to 2.3x", "1.2x
    slower to 1.1x"), an end within SAME of 1 read as 1, one figure where both ends read alike."""
    if style == "seconds":
        return f"{seconds(low)} – {seconds(high)}"
    if low is None or high is None:
        return "-"
    low, high = sorted(1.0 if abs(x - 1) < SAME else x for x in (low, high))
    if low < 1 < high:
        return f"{ratio(low, style)} to {ratio(high, style)}"
    if _figure(low) == _figure(high):
        return ratio(low, style)
    if high <= 1:
        return f"{_figure(1 / high)}x to {_figure(1 / low)}x slower"
    return f"{_figure(low)}x to {ratio(high, style)}"


def spread(low_high: Optional[tuple[float, float]], rounds: Optional[int], style: Style = "change") -> str:
    """The lowest and highest of a ratio's side-by-side rounds in words, "1.9x to 2.3x faster in 6 alternating
    rounds" (``between``), or "" where it was not timed in rounds."""
    if not low_high:
        return ""
    return f"{between(*low_high, style)} in {rounds} {ROUNDS}{'s' if rounds != 1 else ''}"


def break_even(value: Optional[BreakEven]) -> str:
    """A BreakEven for people: 1,204 calls, never, or - (not a compiled variant, or no eager one to pay against)."""
    if value is None:
        return "-"
    return "never" if value.calls is None else f"{math.ceil(value.calls):,} calls"


def break_evens(s: Speedups) -> str:
    """A compiled variant's break-even, cold and on a rerun with torch's caches warm: "1,204 calls (140 warm)"."""
    cold, warm = break_even(s.break_even), s.warm_break_even
    if s.break_even is None or warm is None or s.break_even.calls is None and warm.calls is None:
        return cold
    return f"{cold} ({'never' if warm.calls is None else f'{math.ceil(warm.calls):,}'} warm)"


def warm_compile(w: WarmCompile) -> str:
    """A compile on a rerun in one sentence: what it cost, by phase, the caches' outcomes and how it was measured."""
    if w.compile_s is None:
        return f"The compile on a rerun, with torch's caches warm, could not be measured: {said.unmeasured(w.error)}."
    parts = [f"{label} {seconds(getattr(w.phases, key))}" for key, label, _ in PHASES
             if w.phases and getattr(w.phases, key) >= 0.0005]
    cache = ", ".join(f"{n} {k}" for k, n in sorted(w.phases.cache.items())) if w.phases else ""
    return (f"On a rerun, with torch's caches warm: compile {seconds(w.compile_s)}"
            + (f" ({', '.join(parts)}{'; FX graph cache: ' + cache if cache else ''})" if parts or cache else "")
            + (f", first call {seconds(w.first_call_s)} against {seconds(w.steady_s)} per steady call"
               if w.first_call_s is not None else "")
            + (f"; the process's first compile also paid {seconds(w.compiler_start_s)} once for torch's compiler to "
               "start" if w.compiler_start_s else "")
            + (f". Measured in this run: torch found all its graphs in its caches in {w.cache_dir} (inspector's, never "
               "yours)" if w.during_run else
               ". Measured by " + ("compiling it again" if w.first_call_s is not None else "rerunning the program bare")
               + " in a fresh process, torch's caches in "
               f"{w.cache_dir or 'a folder of its own'} (inspector's, never yours)"
               + (" after another process filled them" if w.processes > 1 else "")) + ".")


def paid(name: str, r: Replay, steady_s: Optional[float] = None, run: Optional[FunctionRun] = None) -> str:
    """Whether compiling a program's function paid in its run, as its replay measured it: "compiling fitness did not
    pay in this run: 4.72 s of compile against 1.20 s saved over 8 calls; it pays after about 32 calls (eager ...)",
    or "... paid: ...", or why it was not measured. The figures are the Replay's: saved = calls x (eager -
    compiled), pays after = compile / (eager - compiled). ``steady_s``: the program's own median per steady call,
    set beside the replay's compiled figure where the two are over NOISY apart (``run``: the function's calls, to
    say where those steady calls came right after inspector's passes)."""
    if r.why:
        return f"Whether compiling {name} paid: not measured: {said.unmeasured(r.why)}." + _needed(r, steady_s) + \
            _cached(r)
    low, high = r.spread or (None, None)
    unsteady = bool(low and high and high > NOISY * low)  # the machine's speed changed between rounds
    how = (f"eager {seconds(r.eager_s)} against compiled {seconds(r.compiled_s)} per call, on copies of call "
           f"{r.call}'s arguments replayed after the program in {r.rounds} {ROUNDS}{'s' if r.rounds != 1 else ''}"
           + ("" if r.clear and not unsteady else
              f"; the rounds disagree (compiled {between(low, high)}): not a clear answer" if not r.clear else
              f"; the rounds agree on which is faster, but not by how much (compiled {between(low, high)}): the "
              "machine's speed changed while they ran")
           + (f"; the replay compiled {r.compiles} graph{'s' if r.compiles != 1 else ''} first (the copies failed "
              "the run's guards): its compiled time is of that code, not of the code the program ran"
              if r.compiles else ""))
    calls = f"{r.calls:,} call{'s' if r.calls != 1 else ''}"
    beside = _beside_the_program(r, steady_s, run) + (
        "" if r.warm is None else " On a rerun, with torch's caches warm, it " + (
            "never pays." if r.warm.calls is None else f"pays after about {break_even(r.warm)}.")) + _cached(r)
    if r.pays_after is None:
        return (f"Compiling {name} did not pay in this run: {seconds(r.compile_s)} of compile, and its compiled calls "
                f"were no faster than eager ({seconds(-(r.saved_s or 0.0))} lost over {calls}); it never pays "
                f"({how}).") + beside
    after = f"{math.ceil(r.pays_after):,} call{'s' if math.ceil(r.pays_after) != 1 else ''}"
    if r.paid:
        return (f"Compiling {name} paid: {seconds(r.saved_s)} saved over {calls} against {seconds(r.compile_s)} of "
                f"compile; it paid after about {after} ({how}).") + beside
    return (f"Compiling {name} did not pay in this run: {seconds(r.compile_s)} of compile against "
            f"{seconds(r.saved_s)} saved over {calls}; it pays after about {after} ({how}).") + beside


def _cached(r: Replay) -> str:
    """Where this run found its graphs in torch's caches: what their first compile took (kept when they compiled)
    and, where the replay measured a gain, when it pays on a cold cache."""
    if r.first_compile_s is None:
        return ""
    return (f" This run found its graphs in torch's caches (what a rerun pays); their first compile, kept from the "
            f"inspector run that compiled them, took {seconds(r.first_compile_s)}" + (
                "." if r.first is None else ": on a cold cache it " + (
                    "never pays." if r.first.calls is None else f"pays after about {break_even(r.first)}.")))


def no_cuda_graphs(options: Optional[dict[str, Any]], device: str) -> str:
    """Where torch.compile was asked for ``mode="reduce-overhead"`` (CUDA graphs, torch's documentation says) and
    the code ran on the CPU: that the CPU has none, so the mode changes nothing there (a sentence, else "")."""
    if not options or options.get("mode") != "reduce-overhead" or device == "cuda":
        return ""
    return ('mode="reduce-overhead" was asked for, whose gain is CUDA graphs (torch\'s documentation): on the CPU, '
            "where this ran, there are none, so it compiled as the default mode does.")


def _needed(r: Replay, steady_s: Optional[float]) -> str:
    """What each compiled call would have had to save for an unmeasured compile to pay in the run, and the eager
    call that means beside the program's own compiled one (``steady_s``)."""
    if r.needed_s is None:
        return ""
    calls = "its one compiled call" if r.calls == 1 else f"each of its {r.calls:,} compiled calls"
    if not steady_s:
        return f" To pay in this run, {calls} would have had to save {seconds(r.needed_s)} against eager."
    return (f" To pay in this run, {calls} ({seconds(steady_s)} each) would have had to save "
            f"{seconds(r.needed_s)} against eager: an eager call of {seconds(steady_s + r.needed_s)}, "
            f"{(steady_s + r.needed_s) / steady_s:,.0f}x as long.")


def _beside_the_program(r: Replay, steady_s: Optional[float], run: Optional[FunctionRun] = None) -> str:
    """Why the replay's compiled time per call is not the program's own, where they are over NOISY apart; where the
    program's steady calls (at most AFTER_PASS of them) all came right after inspector's trace or profile pass, that
    it is inspector's pass that the program's own timing of them sees."""
    if not (steady_s and r.compiled_s) or 1 / NOISY <= steady_s / r.compiled_s <= NOISY:
        return ""
    ran = f" The replayed calls, back to back, ran {ratio(steady_s / r.compiled_s, 'change')} than the program's own"
    passes = [(n, what) for n, what in ((run.traced_call, "traced"), (run.profiled_call, "profiled")) if n] \
        if run else []
    last, what = max(passes) if passes else (0, "")
    if run and passes and run.calls - last == run.steady_calls and 0 < run.steady_calls <= AFTER_PASS:
        steady = (f"call {last + 1}, which came" if run.steady_calls == 1 else
                  f"calls {last + 1}-{run.calls}, the first of which came")
        return (f"{ran} {steady} right after inspector's {what} call {last}: a program that times such a call sees "
                f"inspector's pass in it (inferred: the caches the pass left cold), up to "
                f"{seconds(steady_s - r.compiled_s)} a call here (--no-trace --no-profile leave every call to the "
                "program).")
    return (f"{ran} steady calls: other arguments, caches in another state, or calls soon after a compile still "
            "warming up (inferred, not measured).")


def error_parts(text: Optional[str]) -> tuple[str, str]:
    """(first line, the rest) of an error message: torch's goes on for lines (explanation, hints, the user's code
    with carets under it), kept as they are, to be shown after the first line, preformatted or folded."""
    head, _, rest = (text or "").strip().partition("\n")
    return head, "\n".join(line.rstrip() for line in rest.strip("\n").splitlines())


def error_line(text: Optional[str]) -> str:
    """An error as recorded, in one line without a terminal's colours: its first line; where that is numba's (a step
    of its pipeline that failed, nested steps on the next lines), the innermost step and what failed there (the line
    after it, and the next where it goes on)."""
    lines = [line.strip() for line in COLOURS.sub("", text or "").splitlines() if line.strip()]
    matched = [STEP.fullmatch(line) for line in lines]
    steps = next((n for n, m in enumerate(matched) if m is None), len(lines))
    first, last = (matched[0], matched[steps - 1]) if 0 < steps < len(lines) else (None, None)
    if first is None or last is None:
        return lines[0] if lines else ""
    cause = lines[steps] + (f" {lines[steps + 1]}" if lines[steps].endswith(":") and steps + 1 < len(lines) else "")
    return f"{first['kind'] or ''}{last['step']}: {cause}"


def reason(r: Reason) -> str:
    """A Reason as one clause, as it reads inline under a source line."""
    text = said.reason(r)
    return f"not vectorized: {text}" if r.not_vectorized else text


def timing_notes(v: SampleVariant, population: Optional[int]) -> list[str]:
    """What the time column of a variant means, when it is not one plain full-population median: each applicable
    note (the machine's state while it was timed is the page's one caution, not a row's)."""
    notes = []
    again, t = v.code.recompilation, v.timing
    if again and (again.every_call or again.limit):
        notes.append(said.recompilation(again))
    if t and t.measured_population and population is not None and t.measured_population < population:
        notes.append("measured on the first individuals only (as many as the budget allowed: see every timing "
                     "figure), the time scaled to the whole population")
    if v.preview:
        notes.append("not run: a Triton codegen preview for a CPU target, generated and never run or timed")
    copies = t.transfer if t else None
    if copies:
        back = f" and the output back in {seconds(copies.to_host_s)}" if copies.to_host_s else ""
        notes.append(f"inputs moved to the GPU once, not timed: copying the population there takes "
                     f"{seconds(copies.to_device_s)}{back}, which a caller holding NumPy arrays pays on every call")
    threads = v.code.threads
    if threads and threads.speedup and threads.speedup < 1:
        notes.append(said.scaling(threads) or "")
    return notes


def sentence(v: SampleVariant | ProgramFunction, sample: str) -> str:
    """One sentence on a compiled variant: what ran in parallel, what was vectorized, what broke. Lines of files
    other than the sample (its path ``sample``) are named with their file."""
    if v.status != Status.OK:
        return f"{v.status}: {error_parts(v.error)[0]}".rstrip(": ")
    if isinstance(v, ProgramFunction) and (not v.run.calls or (v.run.inlined_into and not v.code.graphs)):
        if v.uncompiled and not v.run.calls:
            return f"{uncompiled(v)}; its forward was never called."
        if v.run.inlined_into:
            return (f"never {'compiled' if v.run.calls else 'called'} itself: inlined into "
                    f"{' and '.join(v.run.inlined_into)}, whose compiled graphs hold its code (its lines' verdicts "
                    "are there).")
        return "never called after torch.compile (nothing of it compiled)."
    code = v.code
    lines = [e for e in code.lines if e.status]
    distinct = {(e.file, e.line) for e in lines}
    parallel = {(e.file, e.line) for e in lines if e.status == LineStatus.PARALLEL}
    vectorized = {(e.file, e.line) for e in lines if e.vectorized == Vectorized.ALL}
    verb = "would run" if not isinstance(v, ProgramFunction) and v.preview else "ran"
    parts = [f"{len(parallel)} of {len(distinct)} lines {verb} in parallel kernels"]
    if {e.vectorized for e in lines} - {None} != {"n/a"}:  # SIMD is a CPU notion: Triton lines are n/a
        parts[-1] += f", {len(vectorized)} vectorized"
    if distinct and not vectorized and any(r.kind == ReasonKind.NOT_VECTORIZED_STRIDED for e in lines for r in e.why):
        parts[-1] += " (strided loads)"
    others: dict[Optional[LineStatus], dict[tuple[str, int], None]] = {}
    for e in lines:
        if e.status != LineStatus.PARALLEL:
            others.setdefault(e.status, {})[(e.file, e.line)] = None
    for status, where in sorted(others.items(), key=lambda kv: str(kv[0])):
        parts.append(f"{status} at line{'s' if len(where) > 1 else ''} {places(where, sample)}")
    if code.breaks:
        sites = ", ".join(line_at(b, b.where == "sample") + (f" {b.count}x" if b.count > 1 else "")
                          for b in code.breaks)
        part = f"{len(code.breaks)} graph break{'s' if len(code.breaks) > 1 else ''} ({sites})"
        if code.break_cost:
            part += f" leave {code.break_cost.outside_fraction:.0%} of each call outside compiled graphs"
        parts.append(part)
    machine = machine_code(code)
    if machine:
        parts.append(machine)
    if code.threads and code.threads.speedup:
        parts.append(said.scaling(code.threads) or "")
    loops = [w for w in code.warnings if w.kind == "unrolled-loop"]
    if loops:
        parts.append(f"{len(loops)} Python loop{'s' if len(loops) > 1 else ''} unrolled into the graph by Dynamo "
                     f"(line{'s' if len(loops) > 1 else ''} {', '.join(str(n) for w in loops for n in w.lines)})")
    if isinstance(v, ProgramFunction) and v.uncompiled:
        parts.append(uncompiled(v))
    again = code.recompilation
    if again:
        at = sorted({r.call for r in v.run.recompiles if r.call}) if isinstance(v, ProgramFunction) else []
        parts.append(f"{again.count} recompilation(s) " + (f"in {call_numbers(at)}" if at else "after the first call")
                     + (f", recompile limit hit ({again.limit})" if again.limit else "")
                     + (", on every call" if again.every_call else ""))
    return "; ".join(parts) + "."


def uncompiled(v: ProgramFunction) -> str:
    """A compiled module's other methods the program called through it, which ran uncompiled, and what to compile."""
    return "; ".join(f"{m.name} was called {m.calls} time{'s' if m.calls != 1 else ''} on the compiled module and ran "
                     f"uncompiled; compile it: torch.compile(module.{m.name}) or call the module (forward)"
                     for m in v.uncompiled)


def profiled_call(split: TimeSplit) -> str:
    """How the parts of a profiled call stand against the call timed without the profiler: "5 profiled calls,
    medians; timed without the profiler 119 µs: the profiler's own cost, in the rows above, about 9 µs (8 %)"."""
    averaged = ", means" if split.mechanism == "wrapped_kernels" else ", medians"  # a record made before 39.2
    head = f"{split.calls} profiled call{'s' + averaged if split.calls != 1 else ''}"
    if not split.call_s or not split.total_s:
        return head
    gap = split.total_s - split.call_s
    if abs(gap) < 0.005 * split.call_s:
        return f"{head}; timed without the profiler: the same"
    if gap < 0:
        return (f"{head}; timed without the profiler {seconds(split.call_s)}: the parts add to "
                f"{-100 * gap / split.call_s:.0f} % less")
    return (f"{head}; timed without the profiler {seconds(split.call_s)}: the profiler's own cost, in the rows above, "
            f"about {seconds(gap)} ({100 * gap / split.call_s:.0f} %)")


def without_profiler(split: TimeSplit) -> str:
    """The parts of a profiled call less the profiler's own cost, where it was estimated: "Without the profiler
    (estimated: 7 events a call, about 1.3 µs each, taken off the part each was recorded in): kernels 84 µs, ...,
    adding to 119 µs, the call timed without it."; else ""."""
    est = split.without_profiler
    if not est or not split.call_s:
        return ""
    named = [(what, s) for what, s in (("kernels", est.kernels_s), ("Inductor's wrapper", est.wrapper_s),
                                        ("torch's wrappers", est.torch_wrappers_s), ("guards", est.guards_s),
                                        ("outside", est.outside_graphs_s)) if s is not None]
    total = sum(s for _, s in named)
    adds = (f"adding to {seconds(total)}, the call timed without it" if abs(total - split.call_s) < 0.005 * split.call_s
            else f"adding to {seconds(total)} against {seconds(split.call_s)} timed without it (a part would have "
                 "gone below 0)")
    return (f"Without the profiler (estimated: {est.events:g} events a call, about {seconds(est.per_event_s)} each, "
            "taken off the part each was recorded in): " + ", ".join(f"{what} {seconds(s)}" for what, s in named)
            + f", {adds}.")


def machine_code(code: CompiledCode) -> Optional[str]:
    """A compiled function's machine code in one clause: the C++ loop nests it holds packed SIMD in, and those where it
    overrules Inductor's code (the line verdicts follow it); for Triton kernels, that it does not apply."""
    cpp = [k for k in code.kernels if k.backend == Backend.CPP]
    if not cpp:
        return "machine code not applicable (Triton kernels)" if any(k.backend == Backend.TRITON
                                                                       for k in code.kernels) else None
    if not any(k.machine for k in cpp):
        return "machine code not recorded"
    told = [(k, n, n.machine) for k in cpp for n in k.loop_nests if n.machine]
    nests = sum(len(k.loop_nests) for k in cpp)
    text = (f"machine code: packed SIMD in {len([m for _, _, m in told if m.simd == 'packed'])} of {len(told)} "
            "C++ loop nests" + (f" told apart (of {nests})" if len(told) < nests else ""))
    named: dict[bool, list[str]] = {True: [], False: []}  # the nests it overrules, by whether the C++ compiler
    for k, n, m in told:                                  # vectorized them
        if m.overrules(n.vectorized):
            named[m.simd == "packed"].append(f"{k.name} nest {n.index}" if len(k.loop_nests) > 1 else k.name)
    if named[True]:
        text += f"; the C++ compiler vectorized {_few(named[True])}, which Inductor left scalar"
    if named[False]:
        text += f"; {_few(named[False])}: at::vec code without packed arithmetic"
    if named[True] or named[False]:
        text += " (the verdicts follow the machine code)"
    return text


def _few(names: list[str], listed: int = 3) -> str:
    return ", ".join(names[:listed]) + (f" and {len(names) - listed} more" if len(names) > listed else "")


def program_title(analysis: ProgramAnalysis) -> str:
    """What a program report is of, in its own words: "ga.py 5000 · exit status 0 · 7.20 s" for ``inspector run``,
    "inspector.inspect(fitness) · 1.52 s" for the Python API (which has no exit status)."""
    p = analysis.program
    if p.made_by == "run":
        return f"{analysis.sample.title} · exit status {p.exit} · {seconds(p.wall_s)}"
    return f"inspector.{p.made_by}({analysis.sample.title}) · {seconds(p.wall_s)}"


def run_notes(run: FunctionRun) -> list[str]:
    """Sentences on how a program's compiled function ran beyond its timings (``run``, its FunctionRun): the stances
    its calls ran under, calls torch ran eagerly, a code object it shares with other compiled functions."""
    notes = calls_told(run)
    for s in run.stances:
        calls = f"call {s.first}" if s.first == s.last else f"calls {s.first}-{s.last}"
        how = {True: "eagerly", False: "compiled", None: "compiled or eagerly (not told for a module)"}[s.eager]
        notes.append(f"{calls} under torch.compiler.set_stance({s.stance!r}): ran {how}")
    if run.eager_calls:
        notes.append(f"{run.eager_calls} call{'s' if run.eager_calls > 1 else ''} ran without compiled code "
                     f"({seconds(run.eager_median_s)} per call, median), kept out of the per-call time")
    if run.fallbacks:
        call, guard = run.fallback_guards[0]
        notes.append(f"eager_on_recompile: {run.fallbacks} call{'s' if run.fallbacks > 1 else ''} ran eagerly instead "
                     f"of recompiling, the first at call {call}, where this guard failed: {guard}")
    if run.untraced and run.untraced.count:
        notes.append(untraced(run))
    if run.shares_code:
        notes.append(f"shares its code object with {', '.join(run.shares_code)}: torch compiles them as one "
                     "function, so a first compile of one is a recompile of the other, and they count against one "
                     "recompile limit")
    return notes


# how torch ran a call, by the kind the probe classed it as (CallRun.kind), in the order they are said
KINDS = {"first": "compiled", "recompile": "recompiled", "limit": "hit the recompile limit (ran eagerly)",
         "cached": "ran compiled code torch had cached", "eager": "ran eagerly", "unknown": "ran as could not be told"}


def calls_told(run: FunctionRun) -> list[str]:
    """How torch ran a program's function's calls (its CallKinds): the calls of each kind, the wrappers
    ``torch.compile`` made of one code object, the recompile limit with the guard that failed last and the calls
    that ran eagerly after it; nothing for a record without them."""
    k = run.kinds
    if not k.counts:
        return []
    told = [f"how torch ran its {run.calls} call{'s' if run.calls != 1 else ''}: "
            + ", ".join(f"{k.counts[kind]} {words}" for kind, words in KINDS.items() if k.counts.get(kind))]
    if k.gave_up:
        at = f"the graph break at line {k.gave_up.line}" if k.gave_up.line else "a graph break"
        told.append(f"torch gave up compiling it at {at}"
                    + (", inside a loop (Dynamo cannot resume after a break in a loop)" if k.gave_up.in_loop else "")
                    + ": it skips the function and runs every call eagerly; its compile time is that attempt's")
    if k.inside:
        told.append(", ".join(f"{n} of them inside {who}'s calls" for who, n in k.inside.items())
                    + " (whose time holds theirs)")
    if k.wrappers > 1:
        told.append(f"torch.compile was called on it {k.wrappers} times: a new wrapper each time around one code "
                    "object, whose compiled code torch keeps, so the later wrappers ran the code compiled before")
    if k.limit:
        after = [n for n in k.calls("limit", "eager") if k.limit.call is None or n >= k.limit.call]
        cached = [r for r in k.runs if r.kind == "cached" and r.entry]
        last = said.guard(k.limit.guard) if k.limit.guard else "not named"
        told.append(f"torch hit its recompile limit ({k.limit.limit})"
                    + (f" at call {k.limit.call}" if k.limit.call else "")
                    + f", where the guard that failed last was: {last}; from then on it ran "
                    f"only what it had cached: {call_numbers(after)} ran eagerly"
                    + "".join(f", {call_numbers(list(range(r.first, r.last + 1)))} the code compiled as {r.entry}"
                              for r in cached[:3]))
    return told


def call_numbers(calls: list[int], listed: int = 6) -> str:
    """Call numbers as "call 9", "calls 9-10, 12", the first ``listed`` runs of consecutive calls and a count after."""
    runs: list[list[int]] = []
    for n in calls:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in runs[:listed])
    more = f" and {len(runs) - listed} more" if len(runs) > listed else ""
    return f"call{'s' if len(calls) != 1 else ''} {text}{more}"


def compile_ids(c: Recompile) -> str:
    """The compile ids a recompiling call made, as torch's logs name them ("0/3"; a restarted attempt "0/3_1" is
    0/3 again)."""
    return ", ".join(dict.fromkeys(i.split("_")[0] for i in c.compile_ids))


def child_process(c: ChildProcess) -> str:
    """A child process of the program in one sentence: how it started and ended, and whether it was followed (what it
    compiled) or why not."""
    ended = "still running when the program ended" if c.exit is None else f"exit status {c.exit}"
    head = f"{c.name} (pid {c.pid}, started by {c.start_method}, {ended}"
    if c.followed:
        compiled = f"compiled {', '.join(c.functions)}" if c.functions else "compiled nothing with torch.compile"
        return f"{head}, {seconds(c.wall_s)}): followed, {compiled}"
    why = ("inspector follows children started by spawn or forkserver; a forked one shares the program's tracked "
           "state and ends with os._exit" if c.start_method == "fork" else
           "its probe wrote nothing (it was killed, crashed or called os._exit)")
    return f"{head}): not followed, nothing it compiled is in this report: {why}"


NOT_TRACED = {NotTraced.RECOMPILE: "it would recompile", NotTraced.LIMIT: "past the recompile limit, it would run "
              "eagerly", NotTraced.COMPILED: "it compiled as it was traced, and the trace stopped as the compile began"}


def untraced(run: FunctionRun, listed: int = 2) -> str:
    """The calls the trace pass (the lines that ran as Python) left alone, why, and the call it traced."""
    calls = run.untraced
    assert calls is not None
    told = "; ".join(f"call {u.call} ({NOT_TRACED[u.why]}{': ' + (said.guards(u.guard) or '') if u.guard else ''})"
                     for u in calls.first[:listed])
    more = f" and {calls.count - listed} more" if calls.count > listed else ""
    after = f"call {run.traced_call} was traced instead" if run.traced_call else "no call was traced"
    return f"not traced for the lines that ran as Python: {told}{more}; {after}"


def line_at(p: Place, home: bool = False) -> str:
    """Where a place is, as the reports say it: "line 7" in the file being read (``home``) or where it names no
    file, else "samples/helpers/penalties.py:7"."""
    return f"line {p.line}" if home or p.file is None else f"{p.file}:{p.line}"


def function_at(f: Union[Hotspot, ComparedHotspot]) -> str:
    """A program's function as the reports name it: "fitness (plain_ga.py:12)"; a module's top level: "the top level
    of evo.py"."""
    if f.function == "<module>":
        return f"the top level of {os.path.basename(f.file)}"
    return f"{f.function} ({os.path.basename(f.file)}:{f.line})"


def places(where: Iterable[tuple[Optional[str], Optional[int]]], sample: str,
           listed: int = 4) -> str:
    """(file, line) pairs as "3, 7, helpers/p.py:12, 16, numpy/x.py (19 lines)": the sample's lines by number,
    another file's after its name, counted when there are more than ``listed``."""
    by_file: dict[Optional[str], list[Optional[int]]] = {}
    for f, n in sorted(where, key=lambda w: (w[0] != sample, w)):
        by_file.setdefault(f, []).append(n)
    return ", ".join(", ".join(map(str, lines)) if f == sample else
                     f"{f}:{', '.join(map(str, lines))}" if len(lines) <= listed else f"{f} ({len(lines)} lines)"
                     for f, lines in by_file.items())


def match(v: SampleVariant) -> str:
    """Whether a variant matched the reference: yes, NO, or - (not checked)."""
    return {True: "yes", False: "NO", None: "-"}[v.check.matches]


def spans(numbers: Iterable[int]) -> str:
    """'lines 48-51, 58', or 'line 7'."""
    spans: list[list[int]] = []
    for n in sorted(numbers):
        if spans and spans[-1][1] == n - 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    where = ", ".join(f"{lo}-{hi}" if hi > lo else f"{lo}" for lo, hi in spans)
    return f"line{'s' if len(spans) > 1 or spans[0][1] > spans[0][0] else ''} {where}"
