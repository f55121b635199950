"""What a report says, computed once for every renderer (as coverage.py's reporters read ``FileData``): the headline
of each family, what to change ranked by the time at stake with each variant's measured effect, the timings
table's rows with their footnotes, the one caution about the machine, and a program's headlines, rows and fixes.
Templates and the terminal only print these typed values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Optional

from inspector.analysis import fixes
from inspector.analysis.load import OTHERS_BUSY, STEAL_BUSY
from inspector.model import (Analysis, Fix, FixKind, GraphBreak, ProgramFunction, RewriteRun, Rewritten, SampleVariant,
                             SourceFile, Status, Trace)
from inspector.model.fixes import Where
from inspector.render import fixes as fix_words
from inspector.render import rewrites as rewrite_words, said as words_said
from inspector.render.words import NOISY, break_even, call_numbers, error_parts, paid, ratio, seconds, timing_notes

# when the page cautions about the machine (see caution), from the thresholds that decide it
CAUTION_WHEN = (f"other processes used {100 * OTHERS_BUSY:.0f} % of the CPUs (or the hypervisor stole "
                f"{100 * STEAL_BUSY:.0f} %) while variants were timed, or when most ratios to NumPy moved by more "
                f"than {NOISY:g}x across the rounds")


@dataclass(frozen=True)
class Headline:
    """The first thing a reader is told about one family: its fastest variant, by how much, whether compiling pays;
    its fastest eager and compiled variants with their times (the index's "best compiled vs fastest eager")."""

    family: str
    fastest: str  # variant id
    time_s: float  # its time for the whole population (the table's)
    vs_numpy: Optional[float]  # NumPy's time over it
    eager: Optional[str]  # the fastest eager NumPy or torch variant (else Python)
    eager_s: Optional[float]
    vs_eager: Optional[float]  # that eager variant's time over the fastest's (1 when it is the fastest)
    compiled: Optional[str]  # the fastest compiled variant
    compiled_s: Optional[float]
    sentences: tuple[str, ...]
    short: str  # the same in one line, for a page of several families

    @property
    def compiled_vs_eager(self) -> Optional[float]:
        """The fastest eager variant's time over the fastest compiled variant's (None without both)."""
        return self.eager_s / self.compiled_s if self.eager_s and self.compiled_s else None


@dataclass(frozen=True)
class LineRef:
    """A source line a change is about, in the variant whose section shows it."""

    variant: str
    file: Optional[str]  # its file's display name
    line: Optional[int]


@dataclass(frozen=True)
class ChangeAt:
    """One variant a change applies to: the measured time at stake there, and what trying it there measured."""

    variant: str
    stake_s: Optional[float]  # seconds per call the fix is about (measured), None where unknown
    stake: str  # that time in words, with what it is
    tried: Optional[str]  # its measured effect (a TrialResult in words), or how inspector can measure it
    gain: Optional[bool]  # tried: whether it measured a gain (False: not advice there); None: not tried


@dataclass(frozen=True)
class Change:
    """One thing to change, said once: what, where (the source lines of every variant it applies to), and, per
    variant, the time at stake and the measured effect (``at``: the most time at stake first)."""

    text: str
    lines: tuple[LineRef, ...]
    at: tuple[ChangeAt, ...]

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


def headlines(analysis: Analysis) -> list[Headline]:
    """One Headline per family that timed a variant, in the order the families appear."""
    out = []
    for family in dict.fromkeys(v.family for v in analysis.variants):
        timed = [v for v in analysis.variants if v.family == family and v.timing and v.status == Status.OK
                 and not v.failed]
        if not timed:
            continue
        fastest = _fastest(timed)
        eager = _fastest([v for v in timed if not v.compiled and v.kind != "python"]) or _fastest(
            [v for v in timed if not v.compiled])
        compiled = _fastest([v for v in timed if v.compiled])
        if fastest:
            out.append(_headline(family, fastest, eager, compiled, analysis, timed))
    return out


def _time(v: SampleVariant) -> float:
    """A timed variant's time for the whole population."""
    return v.timing.per_population_s if v.timing else float("inf")


def _fastest(variants: Sequence[SampleVariant]) -> Optional[SampleVariant]:
    return min(variants, key=_time, default=None)


def _headline(family: str, fastest: SampleVariant, eager: Optional[SampleVariant], compiled: Optional[SampleVariant],
              analysis: Analysis, timed: Sequence[SampleVariant]) -> Headline:
    t = _time(fastest)
    vs_eager = _time(eager) / t if eager else None
    numpy = _vs_numpy(fastest)
    population = f" for {analysis.sample.population:,} individuals" if analysis.sample.population else ""
    said = [f"{fastest.id} is the fastest{_of(family)}: {seconds(t)}{population}" + (f", {numpy}" if numpy else "")
            + (f", {ratio(vs_eager, 'of')} the fastest eager variant ({eager.id})" if eager and eager is not fastest
               and not (numpy and eager.kind == "numpy") else "") + "."]
    if compiled is None:
        said.append("No compiled variant ran.")
    elif not fastest.compiled:
        said.append(f"Compiling does not pay here: the fastest compiled variant, {compiled.id}, is "
                    f"{ratio(t / _time(compiled), 'of')} {fastest.id}.")
    elif eager and compiled.speedups.break_even and compiled.speedups.break_even.calls is not None:
        said.append(f"Compiling pays after {break_even(compiled.speedups.break_even)} "
                    f"({seconds(compiled.timing.compile_s if compiled.timing else None)} of "
                    f"compile against {seconds(_time(eager) - t)} saved per call).")
    beaten = [(r, x) for r in analysis.rewrites if r.family == family and (x := rewrite_words.beats(r))]
    said += [_beaten(*max(beaten, key=lambda rx: rx[1].vs_fastest or 0))] if beaten else []  # the fastest of them
    breaks = {(b.file, b.line) for v in timed if v.compiled for b in v.code.breaks}
    recompiles = sum(v.code.recompilation.count for v in timed if v.compiled and v.code.recompilation)
    said.append(f"{_count(len(breaks), 'graph break')}, {_count(recompiles, 'recompile')}." if breaks or recompiles
                else "No graph breaks or recompiles.")
    said[-1] = said[-1][0].upper() + said[-1][1:]
    pays = ("" if compiled is None else
            f"compiling does not pay ({compiled.id} {ratio(t / _time(compiled))})"
            if not fastest.compiled else f"compiling pays after {break_even(compiled.speedups.break_even)}")
    short = "; ".join(x for x in (
        f"{family}: {fastest.id}, {seconds(t)}" + (f", {numpy}" if numpy else ""),
        pays, f"{_count(len(breaks), 'graph break')}, {_count(recompiles, 'recompile')}"
        if breaks or recompiles else "") if x)
    return Headline(family, fastest.id, t, fastest.speedups.vs_numpy, eager.id if eager else None,
                    _time(eager) if eager else None, vs_eager, compiled.id if compiled else None,
                    _time(compiled) if compiled else None, tuple(said), short)


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


def changes(analysis: Analysis) -> list[Change]:
    """Every fix inspector knows for the compiled variants that ran that is advice (``inspector.analysis.fixes``),
    each once, the largest time at stake first: each graph break's usual rewrite (the time its variant spends outside
    compiled graphs) and the config flag that removes it, a recompile's guard (the time of a call that compiles), the
    layout of strided loads and the tiling heuristic off (the time of the kernels they slowed), static shapes where a
    size recompiled. A fix inspector tried carries its measured effect on each variant it was tried on; one that
    measured no gain anywhere is not here but in ``tried_without_gain``."""
    return [c for c in _all_changes(analysis) if c.advice]


def tried_without_gain(analysis: Analysis) -> list[Change]:
    """The fixes inspector tried that measured no gain (or failed) on every variant they apply to: said, never
    offered as advice."""
    return [c for c in _all_changes(analysis) if not c.advice]


def _all_changes(analysis: Analysis) -> list[Change]:
    """The fixes that are advice or were tried, one Change per advice text (the same advice for several variants
    once, with each variant's stake and effect)."""
    candidates = fixes.candidates(analysis)
    flagged = {(f.variant, f.spec.config[0]) for f in candidates if f.kind == FixKind.FLAG and f.tried and f.spec}
    found: dict[str, list[Fix]] = {}
    for fix in candidates:
        if fix.tried or fixes.advised(fix):
            found.setdefault(fix_words.advice(fix), []).append(fix)
    said = []
    for text, same in found.items():
        at: dict[str, ChangeAt] = {}
        lines: dict[Where, LineRef] = {}
        for f in sorted(same, key=lambda f: -(f.stake_s or 0)):  # each variant and line once, the most at stake
            at.setdefault(f.variant, ChangeAt(f.variant, f.stake_s, fix_words.stake(f),
                                              fix_words.note(f, _flag_tried(f, flagged)), f.tried.gain if f.tried
                                              else None))
            for fl in f.lines:
                lines.setdefault(fl, LineRef(f.variant, *fl))
        change = Change(text, tuple(lines[fl] for fl in sorted(lines, key=lambda fl: (str(fl[0]), fl[1] or 0))),
                        tuple(at.values()))
        # tried without a gain: said where it was tried (a layout is tried once, for every variant)
        said.append(change if change.advice else replace(change, at=tuple(a for a in change.at if a.gain is not None)))
    return sorted(said, key=lambda c: -(c.stake_s or 0))


def rewrites(written: Sequence[Rewritten], variants: Sequence[SampleVariant] = ()) -> list[RewriteView]:
    """Each rewrite inspector wrote or declined, advice first (the most time at stake in its variant, one of
    ``variants``, first), then those that failed their check, then those declined."""
    found = []
    for r in written:
        code, language = (r.diff or "", "diff") if r.kind == "breaks" else (r.source or "", "python")
        found.append(RewriteView(
            r.id, r.variant, rewrite_words.title(r), r.advice, r.failed, code if r.source else "", language,
            rewrite_words.failure(r) if r.failed else rewrite_words.check(r.check) if r.check else (
                "not checked" if r.source else "not written"),
            tuple(rewrite_words.run(r, x) for x in r.runs),
            rewrite_words.notes(r.notes),
            tuple(rewrite_words.declined(d) for d in r.declined),
            tuple(LineRef(r.variant, f, n) for f, n in r.lines if n and (f, n - 1) not in r.lines)))  # spans' first
    stake = {v.id: v.timing.per_population_s if v.timing else 0.0 for v in variants}
    return sorted(found, key=lambda x: (not x.advice, not x.failed, -stake.get(x.variant, 0.0)))


def numba_hint(analysis: Analysis) -> Optional[str]:
    """How to get the numba rows (a per-individual function under @njit, as it stands and rewritten) where the
    probe's interpreter had no numba and a per-individual function was rewritten; else None."""
    if analysis.env.numba or not any(r.kind == "vectorized" and r.source for r in analysis.rewrites):
        return None
    return rewrite_words.NUMBA_HINT


def _flag_tried(fix: Fix, flagged: set[tuple[str, str]]) -> bool:
    """Whether the flag that removes a break's rewrite's break was tried on its variant."""
    return isinstance(fix.cause, GraphBreak) and fix.kind == FixKind.BREAK and (fix.variant, fix.cause.flag) in flagged


def table(analysis: Analysis) -> Table:
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


def caution(analysis: Analysis) -> Optional[str]:
    """One sentence when the timings were taken on a machine whose speed changed or that others were using, with
    the figures; None on a quiet run. Fires as CAUTION_WHEN says: when the run's timing windows saw other processes
    use OTHERS_BUSY of the CPUs (or steal STEAL_BUSY), or when most timed ratios moved by more than NOISY across the
    alternating rounds."""
    said = []
    load = analysis.load
    if load and load.busy:
        clauses = " and ".join(words_said.load_clauses(load))
        said.append(f"{clauses} while {'it ran' if analysis.program else 'the variants were timed'}")
    spreads = [s for v in analysis.variants if (s := v.speedups.vs_numpy_spread) and v.kind != "numpy"]
    moved = [s for s in spreads if s[1] > NOISY * s[0]]
    if spreads and len(moved) * 2 > len(spreads):
        worst = max(moved, key=lambda s: s[1] / s[0])
        said.append(f"{len(moved)} of {len(spreads)} ratios to NumPy moved by more than {NOISY:g}x across the "
                    f"alternating rounds (up to {ratio(worst[1] / worst[0])}): the machine's speed changed while it "
                    "was timed")
    return "; ".join(said) or None


def tlparse(trace: Optional[Trace]) -> tuple[str, ...]:
    """The tlparse command of each of torch's trace logs beside a report (``NAME.trace/LOG`` -> ``NAME.tlparse``,
    then ``NAME.tlparse-2``, ...)."""
    if not trace or not trace.dir:
        return ()
    name = trace.dir.removesuffix(".trace")
    return tuple(f"tlparse {trace.dir}/{log} -o {name}.tlparse{'' if i == 0 else f'-{i + 1}'} --no-browser"
                 for i, log in enumerate(trace.logs))


def program_fixes(analysis: Analysis) -> list[ProgramFix]:
    """A program's fixes that could be tried, and how, per compiled function: ``inspector run`` tries none (its
    replay runs each function only as the program compiled it), so none is measured; ``inspector report`` and
    ``breaks`` measure them on a sample calling the function. Nothing unless the run asked for them
    (``--try-fixes``, the default)."""
    if not (analysis.program and analysis.program.try_fixes):
        return []
    order = {f.id: i for i, f in enumerate(analysis.program.functions)}
    said = sorted((f for f in fixes.candidates(analysis) if f.kind in fix_words.PROGRAM_ORDER),
                  key=lambda f: (order[f.variant], fix_words.PROGRAM_ORDER.index(f.kind)))
    return [ProgramFix(f.variant, text) for f in said if (text := fix_words.program(f, analysis.sample.path))]


def program_headlines(analysis: Analysis) -> list[FunctionHeadline]:
    """A program's first lines: per compiled function that was called, its share of the run, what compiling cost
    against the time in it, its steady time per call, breaks and recompiles; the costliest first."""
    p, said = analysis.program, []
    for v in sorted((v for v in p.functions if v.run.calls), key=lambda v: -v.run.total_s) if p else ():
        run = v.run
        inside = f", inside {' and '.join(run.kinds.inside)}'s calls" if run.kinds.inside else ""
        share = f" ({run.total_s / p.wall_s:.0%} of the run{inside})" if p and p.wall_s else ""
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
                                     paid(v.id, v.replay, v.timing.median_s if v.timing else None)
                                     if v.replay else ""))
    return said


def program_rows(analysis: Analysis) -> list[FunctionRow]:
    """A row per compiled function of a program's run, in the order it compiled them, those it never called last
    (a library's functions compiled at import)."""
    p = analysis.program
    rows = []
    for v in sorted(p.functions, key=lambda v: not v.run.calls) if p else ():
        split, eager = v.code.time_split, p.eager.get(v.id) if p else None
        rows.append(FunctionRow(
            v, where(v, analysis.files), v.run.total_s / p.wall_s if p and p.wall_s else None,
            split.kernels_s / split.total_s if split and split.kernels_s is not None and split.total_s else None,
            eager, eager / v.timing.median_s if eager and v.timing else None))
    return rows


def where(v: SampleVariant | ProgramFunction, files: Sequence[SourceFile]) -> str:
    """"ga.py:18": where a compiled function is defined, in the report's file names."""
    path = v.location.file if v.location else None
    shown = next((f.display for f in files if f.path == path), path)
    return f"{shown}:{v.location.line}" if path and v.location else ""
