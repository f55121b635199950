"""What a report says, in words, for every renderer (as coverage.py's reporters read ``FileData``), from the answers
the analysis stored: the headline of each family, what to change ranked by the time at stake with each variant's
measured effect, the timings table's rows with their footnotes, the one caution about the machine, and a program's
headlines, rows and fixes. Templates and the terminal only print these typed values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Optional

from inspector import model
from inspector.model import (Change, LineRef, MachineLoad, ProgramAnalysis, ProgramFunction, RewriteRun,
                             Rewritten, SampleAnalysis, SampleVariant, SourceFile, Status, Trace)
from inspector.model.code import OVERHEAD
from inspector.model.timing import OTHERS_BUSY, STEAL_BUSY
from inspector.render import fixes as fix_words
from inspector.render import rewrites as rewrite_words, said as words_said
from inspector.render.words import (NOISY, break_even, break_evens, call_numbers, error_parts, no_cuda_graphs, paid,
                                    ratio, seconds, timing_notes)

# when the page cautions about the machine (see caution), from the thresholds that decide it
CAUTION_WHEN = (f"other processes used {100 * OTHERS_BUSY:.0f} % of the CPUs (or the hypervisor stole "
                f"{100 * STEAL_BUSY:.0f} %) while variants were timed, or when most ratios to NumPy moved by more "
                f"than {NOISY:g}x across the rounds")


@dataclass(frozen=True)
class HeadlineView(model.Headline):
    """The first thing a reader is told about one family (its facts: ``model.Headline``): its fastest variant, by how
    much, whether compiling pays; its fastest eager and compiled variants with their times (the index's "best
    compiled vs fastest eager")."""

    sentences: tuple[str, ...]
    short: str  # the same in one line, for a page of several families


@dataclass(frozen=True)
class ChangeAtView:
    """One variant a change applies to: the measured time at stake there, and what trying it there measured."""

    variant: str
    stake_s: Optional[float]  # seconds per call the fix is about (measured), None where unknown
    stake: str  # that time in words, with what it is
    tried: Optional[str]  # its measured effect (a TrialResult in words), or how inspector can measure it
    gain: Optional[bool]  # tried: whether it measured a gain (False: not advice there); None: not tried


@dataclass(frozen=True)
class ChangeView:
    """One thing to change, said once: what, where (the source lines of every variant it applies to), and, per
    variant, the time at stake and the measured effect (``at``: the most time at stake first)."""

    text: str
    lines: tuple[LineRef, ...]
    at: tuple[ChangeAtView, ...]

    @property
    def stake_s(self) -> Optional[float]:
        return self.at[0].stake_s

    @property
    def advice(self) -> bool:
        """Advice where trying it measured a gain on a variant, or, never tried, it is advised on its precondition;
        otherwise it was tried and gained nowhere (said, never offered)."""
        tried = [a.gain for a in self.at if a.gain is not None]
        return any(tried) or not tried


@dataclass(frozen=True)
class RewriteView:
    """A rewrite inspector wrote, as "What to change" shows it: its title, the code to copy (``language`` python:
    the new functions whole; diff: against the user's lines), its check and each run's measured effect in words,
    how it may differ (``notes``), what was left as it was (``declined``); ``advice``: checked, matched and run;
    ``failed``: written and its check failed (said as failed, never as advice); neither: nothing was written."""

    id: str
    variant: str
    title: str
    advice: bool
    failed: bool
    code: str
    language: str
    check: str
    runs: tuple[str, ...]
    notes: tuple[str, ...]
    declined: tuple[str, ...]
    lines: tuple[LineRef, ...]


@dataclass(frozen=True)
class Footnote:
    number: int
    text: str


@dataclass(frozen=True)
class Skipped:
    """Variants that did not run, and why."""

    why: str
    variants: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """One row of the timings table: every number on it from the same measurements."""

    v: SampleVariant
    time_s: Optional[float]
    range_s: Optional[tuple[float, float]]  # (fastest, slowest) run, scaled as time_s is
    vs_numpy: Optional[float]
    vs_fastest: Optional[float]  # the family's fastest time over this one (1: it is the fastest)
    marks: tuple[int, ...]  # footnote numbers of its notes


@dataclass(frozen=True)
class Table:
    rows: tuple[Row, ...]  # skipped variants left out
    notes: tuple[Footnote, ...]
    skipped: tuple[Skipped, ...]


@dataclass(frozen=True)
class FunctionHeadline:
    """A program's first line about one of its compiled functions."""

    function: str
    sentence: str
    paid: str = ""  # whether compiling it paid, or why that was not measured ("": not asked: the Python API)


@dataclass(frozen=True)
class FunctionRow:
    """One compiled function of a program's table: every share and ratio on it from its own run."""

    v: ProgramFunction
    where: str  # "ga.py:18"
    share: Optional[float]  # of the program's wall time, in its calls
    kernels_share: Optional[float]  # of its profiled call, in its kernels
    eager_s: Optional[float]  # a call run eagerly with the same arguments (inspect)
    vs_eager: Optional[float]  # that over its steady call's median


@dataclass(frozen=True)
class ProgramFix:
    """A fix a program's function could try, and how (not measured)."""

    function: str
    text: str


def headlines(analysis: SampleAnalysis) -> list[HeadlineView]:
    """One Headline per family that timed a variant, in the order the families appear, in words."""
    return [_headline(h, analysis) for h in analysis.headlines]


def _headline(h: model.Headline, analysis: SampleAnalysis) -> HeadlineView:
    fastest, t = analysis.variant(h.fastest), h.time_s
    eager = analysis.variant(h.eager) if h.eager else None
    compiled = analysis.variant(h.compiled) if h.compiled else None
    numpy = _vs_numpy(fastest)
    population = f" for {analysis.sample.population:,} individuals" if analysis.sample.population else ""
    said = [f"{fastest.id} is the fastest{_of(h.family)}: {seconds(t)}{population}" + (f", {numpy}" if numpy else "")
            + (f", {ratio(h.vs_eager, 'of')} the fastest eager variant ({h.eager})" if eager and eager is not fastest
               and not (numpy and eager.kind == "numpy") else "") + "."]
    if compiled is None or h.compiled_s is None:
        said.append("No compiled variant ran.")
    elif not fastest.compiled:
        said.append(f"Compiling does not pay here: the fastest compiled variant, {compiled.id}, is "
                    f"{ratio(t / h.compiled_s, 'of')} {fastest.id}.")
    elif h.eager_s and compiled.speedups.break_even and compiled.speedups.break_even.calls is not None:
        said.append(f"Compiling pays after {break_even(compiled.speedups.break_even)} "
                    f"({seconds(compiled.timing.compile_s if compiled.timing else None)} of "
                    f"compile against {seconds(h.eager_s - t)} saved per call){_rerun(compiled)}.")
    overhead = _overhead(compiled, analysis.sample.population) if compiled else ""
    if overhead:
        said.append(overhead)
    beaten = None
    if h.beaten:
        r = next(r for r in analysis.rewrites if r.id == h.beaten[0])
        beaten = (r, next(x for x in r.runs if x.id == h.beaten[1]))
        said.append(_beaten(*beaten))
    counted = f"{_count(h.breaks, 'graph break')}, {_count(h.recompiles, 'recompile')}"
    said.append(f"{counted}." if h.breaks or h.recompiles else "No graph breaks or recompiles.")
    said[-1] = said[-1][0].upper() + said[-1][1:]
    pays = ("no compiled variant ran" if compiled is None or h.compiled_s is None else
            f"compiling does not pay ({compiled.id} {ratio(t / h.compiled_s)})"
            if not fastest.compiled else f"compiling pays after {break_evens(compiled.speedups)}")
    rewrite = (f"inspector's rewrite {beaten[1].id}: {seconds(beaten[1].timing.per_population_s)}, "
               f"{ratio(beaten[1].vs_fastest, 'of')} {beaten[1].fastest}"
               if beaten and beaten[1].timing else "")
    short = "; ".join(x for x in ((f"{h.family}: " if h.family else "") + f"{fastest.id}, {seconds(t)}"
                                  + (f", {numpy}" if numpy else ""), pays, rewrite,
                                  counted if h.breaks or h.recompiles else "") if x)
    return HeadlineView(**{f.name: getattr(h, f.name) for f in fields(h)}, sentences=tuple(said), short=short)


def _overhead(v: SampleVariant, population: Optional[int]) -> str:
    """"At 2,000 individuals 61 % of a torch-compiled-cpu call is outside its kernels (guards 18 µs, ...)." where a
    profiled call of ``v`` spent OVERHEAD or more outside its kernels, else ""."""
    split = v.code.time_split
    parts, whole = split.parts() if split else (None, None)
    if not parts or not whole or parts.kernels_s is None or parts.kernels_s > (1 - OVERHEAD) * whole:
        return ""
    named = [(what, s) for what, s in (("guards", parts.guards_s), ("torch's wrappers", parts.torch_wrappers_s),
                                        ("Inductor's wrapper", parts.wrapper_s),
                                        ("the rest" if parts.torch_wrappers_s is not None else "outside the graphs",
                                         parts.outside_graphs_s)) if s]
    at = f"At {population:,} individuals " if population else ""
    of = (f"of a call of {seconds(whole)}, the profiler's own cost taken off (estimated)" if parts is not split else
          f"of a profiled call of {seconds(whole)}")
    return (f"{at}{(1 - parts.kernels_s / whole) * 100:.0f} % of a {v.id} call is outside its kernels ("
            + ", ".join(f"{what} {seconds(s)}" for what, s in named)
            + f", {of}): at this size its overhead, not its kernels, sets its time"
            + ("." if v.device == "cuda" else " (mode=\"reduce-overhead\" cuts such overhead with CUDA graphs: on CUDA "
                                             "only, the CPU has none)."))


def crossovers(analysis: SampleAnalysis) -> list[str]:
    """Per family on a sweep, where its compiled variant overtakes the fastest eager one, in one sentence: "On the
    sweep, torch-compiled-cpu overtakes the fastest eager variant between 2,000 and 20,000 individuals per call, and
    with its compile paid over 1,000 calls from 200,000 (faster at every larger size swept)"."""
    largest = max((p.population for p in analysis.sweep), default=0)

    def where(at: Optional[int], before: Optional[int]) -> str:
        if at is None:
            return f"at none of the sizes swept (not at {largest:,} individuals, the largest)"
        if before is None:
            return f"at every size swept (from {at:,} individuals)"
        return f"from {at:,} individuals (not at {before:,})"
    said = []
    for h in analysis.headlines:
        c = h.crossover
        if c is None:
            continue
        family = f" ({h.family})" if h.family else ""
        said.append(f"On the sweep, {c.compiled}{family} is faster than the fastest eager variant per call "
                    f"{where(c.per_call, c.before)}, and with its compile paid over {c.calls:,} calls "
                    f"{where(c.with_compile, c.with_compile_before)}.")
    return said


def _rerun(v: SampleVariant) -> str:
    """"; on a rerun, with torch's caches warm, after 140 calls (52.2 ms of compile; a process's first compile also
    pays 1.75 s once for torch's compiler to start), where torch's cache folder lasts between runs (...)", where it
    was measured: how to keep the caches, where a rerun pays."""
    warm, after = v.timing.warm if v.timing else None, v.speedups.warm_break_even
    if not warm or warm.compile_s is None or not after:
        return ""
    start = (f"; a process's first compile also pays {seconds(warm.compiler_start_s)} once for torch's compiler to "
             "start" if warm.compiler_start_s else "")
    when = "never" if after.calls is None else f"after {break_even(after)}"
    kept = ("" if after.calls is None else ", where torch's cache folder lasts between runs (TORCHINDUCTOR_CACHE_DIR; "
            "or carry the caches over with torch.compiler.save_cache_artifacts and load_cache_artifacts)")
    return (f"; on a rerun, with torch's caches warm, {when}"
            f" ({seconds(warm.compile_s)} of compile{start}){kept}")


def _vs_numpy(v: SampleVariant) -> Optional[str]:
    """"4.3x NumPy", unless ``v`` is the NumPy variant its ratio is taken against (or there is none)."""
    if not v.speedups.vs_numpy or (v.kind == "numpy" and not v.compiled):
        return None
    return f"{ratio(v.speedups.vs_numpy, 'of')} NumPy"


def _of(family: str) -> str:
    return f" of family {family}" if family else ""


def _beaten(r: Rewritten, x: RewriteRun) -> str:
    """The headline's sentence for a rewrite faster than everything the user wrote."""
    return (f"inspector's rewrite of {r.function} ({x.id}) is faster than every variant you wrote: "
            f"{seconds(x.timing.per_population_s if x.timing else None)}, {ratio(x.vs_fastest, 'of')} {x.fastest} "
            "(see What to change).")


def _count(n: int, what: str) -> str:
    return f"{n or 'no'} {what}{'s' if n != 1 else ''}"


def changes(analysis: SampleAnalysis) -> list[ChangeView]:
    """What to change, in words (``SampleAnalysis.changes``, made by ``inspector.analysis.fixes``): every fix for the
    compiled variants that ran that is advice, each once, the largest time at stake first: each graph break's usual
    rewrite (the time its variant spends outside compiled graphs) and the config flag that removes it, a recompile's
    guard (the time of a call that compiles), the layout of strided loads and the tiling heuristic off (the time of
    the kernels they slowed), static shapes where a size recompiled. A fix inspector tried carries its measured
    effect on each variant it was tried on; one that measured no gain anywhere is not here but in
    ``tried_without_gain``."""
    return [_change(c) for c in analysis.changes if c.advice]


def tried_without_gain(analysis: SampleAnalysis) -> list[ChangeView]:
    """The fixes inspector tried that measured no gain (or failed) on every variant they apply to: said, never
    offered as advice."""
    return [_change(c) for c in analysis.changes if not c.advice]


def _change(c: Change) -> ChangeView:
    return ChangeView(fix_words.advice(c.fix), c.lines, tuple(
        ChangeAtView(a.variant, a.fix.stake_s, fix_words.stake(a.fix), fix_words.note(a.fix, a.flag_tried), a.gain)
        for a in c.at))


def rewrites(written: Sequence[Rewritten], variants: Sequence[SampleVariant] = ()) -> list[RewriteView]:
    """Each rewrite inspector wrote or declined, advice first (the most time at stake in its variant, one of
    ``variants``, first), then those that failed their check, then those declined."""
    found, declined = [], set()
    for r in written:
        code, language = (r.diff or "", "diff") if r.kind == "breaks" else (r.source or "", "python")
        left = tuple(rewrite_words.declined(d) for d in r.declined)
        if not r.source and left and (r.variant, left) in declined:  # declined alike in another dialect: said once
            continue
        declined.add((r.variant, left))
        found.append(RewriteView(
            r.id, r.variant, rewrite_words.title(r), r.advice, r.failed, code if r.source else "", language,
            rewrite_words.failure(r) if r.failed else rewrite_words.check(r.check) if r.check else (
                "not checked" if r.source else "not written"),
            tuple(rewrite_words.run(r, x) for x in r.runs),
            rewrite_words.notes(r.notes),
            left,
            tuple(LineRef(r.variant, file=f, line=n)  # each span's first line
                  for f, n in r.lines if n and (f, n - 1) not in r.lines)))
    stake = {v.id: v.timing.per_population_s if v.timing else 0.0 for v in variants}
    return sorted(found, key=lambda x: (not x.advice, not x.failed, -stake.get(x.variant, 0.0)))


def numba_hint(analysis: SampleAnalysis) -> Optional[str]:
    """How to get the numba rows (a per-individual function under @njit, as it stands and rewritten) where the
    probe's interpreter had no numba and a per-individual function was rewritten; else None."""
    if analysis.env.numba or not any(r.kind == "vectorized" and r.source for r in analysis.rewrites):
        return None
    return rewrite_words.NUMBA_HINT


def table(analysis: SampleAnalysis) -> Table:
    """The timings table: a row per variant that ran (skipped ones in one line), each note once, as a footnote."""
    notes: dict[str, int] = {}
    rows: list[Row] = []
    skipped: dict[str, list[str]] = {}
    population = analysis.sample.population
    fastest: dict[str, float] = {}
    for v in analysis.variants:
        if v.timing and v.status == Status.OK and not v.failed:
            best = fastest.get(v.family)
            fastest[v.family] = min(best, v.timing.per_population_s) if best else v.timing.per_population_s
    for v in analysis.variants:
        if v.status == Status.SKIPPED:
            skipped.setdefault(v.error or "skipped", []).append(v.id)
            continue
        t = v.timing
        failed = [f"{v.id}: {v.status}: {error_parts(v.error)[0]}"] if v.status != Status.OK and v.error else []
        marks = tuple(notes.setdefault(text, len(notes) + 1) for text in timing_notes(v, population) + failed)
        rows.append(Row(v, t.per_population_s if t else None, t.per_population_range if t else None,
                        v.speedups.vs_numpy, fastest[v.family] / t.per_population_s if t and v.family in fastest
                        else None, marks))
    return Table(tuple(rows), tuple(Footnote(n, text) for text, n in notes.items()),
                 tuple(Skipped(why, tuple(ids)) for why, ids in skipped.items()))


def caution(analysis: SampleAnalysis) -> Optional[str]:
    """One sentence when a sample's timings were taken on a machine whose speed changed or that others were using,
    with the figures; None on a quiet run. Fires as CAUTION_WHEN says: when the run's timing windows saw other
    processes use OTHERS_BUSY of the CPUs (or steal STEAL_BUSY), or when most timed ratios moved by more than NOISY
    across the alternating rounds."""
    spreads = [s for v in analysis.variants if (s := v.speedups.vs_numpy_spread) and v.kind != "numpy"]
    moved = [s for s in spreads if s[1] > NOISY * s[0]]
    said = [_busy(analysis.load, "the variants were timed")]
    if spreads and len(moved) * 2 > len(spreads):
        worst = max(moved, key=lambda s: s[1] / s[0])
        said.append(f"{len(moved)} of {len(spreads)} ratios to NumPy moved by more than {NOISY:g}x across the "
                    f"alternating rounds (up to {ratio(worst[1] / worst[0])}): the machine's speed changed while it "
                    "was timed")
    return "; ".join(s for s in said if s) or None


def cuda_graphs(analysis: SampleAnalysis) -> str:
    """That the CPU variants of a report made with ``--compile-option mode=reduce-overhead`` have no CUDA graphs."""
    return next((said for v in analysis.variants if v.compiled and (said := no_cuda_graphs(analysis.compile_options,
                                                                                               v.device))), "")


def program_caution(analysis: ProgramAnalysis) -> Optional[str]:
    """One sentence when a program ran on a machine others were using (as ``caution``), else None."""
    return _busy(analysis.load, "it ran") or None


def _busy(load: Optional[MachineLoad], when: str) -> str:
    """Who else used the machine ``when`` (its timing windows), where they made it busy; else ""."""
    return f"{' and '.join(words_said.load_clauses(load))} while {when}" if load and load.busy else ""


def tlparse(trace: Optional[Trace]) -> tuple[str, ...]:
    """The tlparse command of each of torch's trace logs beside a report (``NAME.trace/LOG`` -> ``NAME.tlparse``,
    then ``NAME.tlparse-2``, ...)."""
    if not trace or not trace.dir:
        return ()
    name = trace.dir.removesuffix(".trace")
    return tuple(f"tlparse {trace.dir}/{log} -o {name}.tlparse{'' if i == 0 else f'-{i + 1}'} --no-browser"
                 for i, log in enumerate(trace.logs))


def program_fixes(analysis: ProgramAnalysis) -> list[ProgramFix]:
    """A program's fixes that could be tried (``ProgramAnalysis.could_try``), and how, per compiled function: none is
    measured; ``inspector report`` and ``breaks`` measure them on a sample calling the function."""
    return [ProgramFix(f.variant, text) for f in analysis.could_try
            if (text := fix_words.program(f, analysis.sample.path))]


def program_headlines(analysis: ProgramAnalysis) -> list[FunctionHeadline]:
    """A program's first lines: per compiled function that was called, its share of the run, what compiling cost
    against the time in it, its steady time per call, breaks and recompiles; the costliest first."""
    p, said = analysis.program, []
    for v in sorted((v for v in p.functions if v.run.calls), key=lambda v: -v.run.total_s):
        run = v.run
        inside = f", inside {' and '.join(run.kinds.inside)}'s calls" if run.kinds.inside else ""
        share = f" ({run.total_s / p.wall_s:.0%} of the run{inside})" if p.wall_s else ""
        compiling = f", {seconds(run.compile_s)} of it compiling" if run.compile_s else ""
        steady = (f"; {seconds(v.timing.median_s)} per call over {_count(run.steady_calls, 'steady call')}"
                  if v.timing else "; no steady call to time")
        breaks = f"; {_count(len(v.code.breaks), 'graph break')}, {_count(len(run.recompiles), 'call')} that " \
            "recompiled" if v.code.breaks or run.recompiles else ""
        raised = f"; raised an exception at call {run.error_call} (below)" if v.error else ""
        eager = run.kinds.calls("limit", "eager")
        limit = f" (the recompile limit hit at call {run.kinds.limit.call})" if run.kinds.limit and \
            run.kinds.limit.call else ""
        ran = f"; {call_numbers(eager)} ran eagerly{limit}" if eager else ""
        said.append(FunctionHeadline(v.id, f"{v.id}: {seconds(run.total_s)} in {_count(run.calls, 'call')}{share}"
                                           f"{compiling}{steady}{breaks}{ran}{raised}.",
                                     " ".join(filter(None, [paid(v.id, v.replay, v.timing.median_s if v.timing
                                                                      else None, run) if v.replay else "",
                                                                 no_cuda_graphs(v.compile_options, v.device)]))))
    return said


def program_rows(analysis: ProgramAnalysis) -> list[FunctionRow]:
    """A row per compiled function of a program's run, in the order it compiled them, those it never called last
    (a library's functions compiled at import)."""
    p = analysis.program
    rows = []
    for v in sorted(p.functions, key=lambda v: not v.run.calls):
        split, eager = v.code.time_split, p.eager.get(v.id)
        rows.append(FunctionRow(
            v, where(v, analysis.files), v.run.total_s / p.wall_s if p.wall_s else None,
            split.kernels_s / split.total_s if split and split.kernels_s is not None and split.total_s else None,
            eager, eager / v.timing.median_s if eager and v.timing else None))
    return rows


def where(v: SampleVariant | ProgramFunction, files: Sequence[SourceFile]) -> str:
    """"ga.py:18": where a compiled function is defined, in the report's file names."""
    path = v.location.file if v.location else None
    shown = next((f.display for f in files if f.path == path), path)
    return f"{shown}:{v.location.line}" if path and v.location else ""
