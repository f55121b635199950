"""What a report says, computed once for every renderer (as coverage.py's reporters read ``FileData``): the headline
of each family, what to change ranked by the time at stake, the timings table's rows with their footnotes, and the
one caution about the machine. Templates and the terminal only print these."""

from dataclasses import dataclass, field, replace
from typing import Optional

from inspector.analysis import fixes
from inspector.model import FixKind, SampleVariant, Status
from inspector.render import fixes as fix_words
from inspector.render.words import NOISY, break_even, error_parts, ratio, seconds, timing_notes


@dataclass(frozen=True)
class Headline:
    """The first thing a reader is told about one family: its fastest variant, by how much, whether compiling pays."""

    family: str
    fastest: str  # variant id
    time_s: float  # its time for the whole population (the table's)
    vs_numpy: Optional[float]  # NumPy's time over it
    eager: Optional[str]  # the fastest eager NumPy or torch variant (else Python)
    vs_eager: Optional[float]  # that eager variant's time over the fastest's (1 when it is the fastest)
    compiled: Optional[str]  # the fastest compiled variant
    sentences: list = field(default_factory=list)
    short: str = ""  # the same in one line, for a page of several families


@dataclass(frozen=True)
class Change:
    """One thing to change, once: what, where (source lines), and the measured time at stake."""

    text: str
    variant: str
    lines: list  # [(file display, line)]
    stake_s: Optional[float]  # seconds per call the fix is about (measured), None where unknown
    stake: str  # that time in words, with what it is
    tried: Optional[str] = None  # its measured effect (a TrialResult in words), or how inspector can measure it
    gain: Optional[bool] = None  # tried: whether it measured a gain (False: not advice); None: not tried


@dataclass(frozen=True)
class Row:
    """One row of the timings table: every number on it from the same measurements."""

    v: SampleVariant
    time_s: Optional[float]
    range_s: Optional[tuple]  # (fastest, slowest) run, scaled as time_s is
    vs_numpy: Optional[float]
    vs_fastest: Optional[float]  # the family's fastest time over this one (1: it is the fastest)
    marks: list  # footnote numbers of its notes


@dataclass(frozen=True)
class Table:
    rows: list  # [Row], skipped variants left out
    notes: list  # [(number, text)]
    skipped: dict  # {why: [variant id]}


def headlines(analysis):
    """One Headline per family that timed a variant, in the order the families appear."""
    out = []
    for family in dict.fromkeys(v.family for v in analysis.variants):
        timed = [v for v in analysis.variants if v.family == family and v.timing and v.status == Status.OK
                 and not v.failed]
        if not timed:
            continue
        fastest = min(timed, key=lambda v: v.timing.per_population_s)
        eager = _fastest([v for v in timed if not v.compiled and v.kind != "python"]) or _fastest(
            [v for v in timed if not v.compiled])
        compiled = _fastest([v for v in timed if v.compiled])
        out.append(_headline(family, fastest, eager, compiled, analysis, timed))
    return out


def _fastest(variants):
    return min(variants, key=lambda v: v.timing.per_population_s, default=None)


def _headline(family, fastest, eager, compiled, analysis, timed):
    t = fastest.timing.per_population_s
    vs_eager = eager.timing.per_population_s / t if eager else None
    numpy = _vs_numpy(fastest)
    said = [f"{fastest.id} is the fastest{_of(family)}: {seconds(t)} for {analysis.sample.population:,} individuals"
            + (f", {numpy}" if numpy else "")
            + (f", {_times(vs_eager)} the fastest eager variant ({eager.id})" if eager and eager is not fastest
               and not (numpy and eager.kind == "numpy") else "") + "."]
    if compiled is None:
        said.append("No compiled variant ran.")
    elif not fastest.compiled:
        said.append(f"Compiling does not pay here: the fastest compiled variant, {compiled.id}, is "
                    f"{ratio(t / compiled.timing.per_population_s)} than {fastest.id}.")
    elif compiled.speedups.break_even and compiled.speedups.break_even.calls is not None:
        said.append(f"Compiling pays after {break_even(compiled.speedups.break_even)} "
                    f"({seconds(compiled.timing.compile_s)} of "
                    f"compile against {seconds(eager.timing.per_population_s - t)} saved per call).")
    breaks = {(b.file, b.line) for v in timed if v.compiled for b in v.code.breaks}
    recompiles = sum(v.code.recompilation.count for v in timed if v.compiled and v.code.recompilation)
    said.append(f"{_count(len(breaks), 'graph break')}, {_count(recompiles, 'recompile')}." if breaks or recompiles
                else "No graph breaks or recompiles.")
    said[-1] = said[-1][0].upper() + said[-1][1:]
    pays = ("" if compiled is None else
            f"compiling does not pay ({compiled.id} {ratio(t / compiled.timing.per_population_s)})"
            if not fastest.compiled else f"compiling pays after {break_even(compiled.speedups.break_even)}")
    short = "; ".join(x for x in (
        f"{family}: {fastest.id}, {seconds(t)}" + (f", {numpy}" if numpy else ""),
        pays, f"{_count(len(breaks), 'graph break')}, {_count(recompiles, 'recompile')}"
        if breaks or recompiles else "") if x)
    return Headline(family, fastest.id, t, fastest.speedups.vs_numpy, eager.id if eager else None, vs_eager,
                    compiled.id if compiled else None, said, short)


def _vs_numpy(v):
    """"4.3x NumPy", unless ``v`` is the NumPy variant its ratio is taken against (or there is none)."""
    if not v.speedups.vs_numpy or (v.kind == "numpy" and not v.compiled):
        return None
    return f"{_times(v.speedups.vs_numpy)} NumPy"


def _of(family):
    return f" of family {family}" if family else ""


def _times(value):
    """"4.3x" as a multiplier over another time ("as fast as" below 1.005)."""
    return "as fast as" if abs(value - 1) < 0.005 else f"{value:.3g}x" if value > 1 else f"{1 / value:.3g}x slower than"


def _count(n, what):
    return f"{n or 'no'} {what}{'s' if n != 1 else ''}"


def changes(analysis):
    """Every fix inspector knows for the compiled variants that ran that is advice (``inspector.analysis.fixes``),
    each once, the largest time at stake first: each graph break's usual rewrite (the time its variant spends outside
    compiled graphs) and the config flag that removes it, a recompile's guard (the time of a call that compiles), the
    layout of strided loads and the tiling heuristic off (the time of the kernels they slowed), static shapes where a
    size recompiled. A fix inspector tried carries its measured effect; one that measured no gain is not here but in
    ``tried_without_gain``."""
    return [c for c in _all_changes(analysis) if c.gain is not False]


def tried_without_gain(analysis):
    """The fixes inspector tried that measured no gain (or failed): said, never offered as advice."""
    return [c for c in _all_changes(analysis) if c.gain is False]


def _all_changes(analysis):
    found = {}
    candidates = fixes.candidates(analysis)
    flagged = {(f.variant, f.spec.config[0]) for f in candidates if f.kind == FixKind.FLAG and f.tried}
    for fix in candidates:
        if fix.tried or fixes.advised(fix):
            flag_tried = (fix.variant, fix.cause.flag) in flagged if fix.kind == FixKind.BREAK else False
            _keep(found, Change(fix_words.advice(fix), fix.variant, list(fix.lines), fix.stake_s,
                                fix_words.stake(fix), fix_words.note(fix, flag_tried),
                                fix.tried.gain if fix.tried else None))
    return sorted(found.values(), key=lambda c: -(c.stake_s or 0))


def _keep(found, change):
    """Keep one Change per text: the one with the most time at stake, its lines joined with the others'."""
    before = found.get(change.text)
    if before is None:
        found[change.text] = change
        return
    lines = sorted(set(before.lines) | set(change.lines), key=lambda fl: (str(fl[0]), fl[1] or 0))
    best = change if (change.stake_s or 0) > (before.stake_s or 0) else before
    found[change.text] = replace(best, lines=lines)


def table(analysis):
    """The timings table: a row per variant that ran (skipped ones in one line), each note once, as a footnote."""
    notes, rows, skipped = {}, [], {}
    population = analysis.sample.population
    fastest = {}
    for v in analysis.variants:
        if v.timing and v.status == Status.OK and not v.failed:
            best = fastest.get(v.family)
            fastest[v.family] = min(best, v.timing.per_population_s) if best else v.timing.per_population_s
    for v in analysis.variants:
        if v.status == Status.SKIPPED:
            skipped.setdefault(v.error or "skipped", []).append(v.id)
            continue
        t = v.timing
        marks = []
        failed = [f"{v.id}: {v.status}: {error_parts(v.error)[0]}"] if v.status != Status.OK and v.error else []
        for text in timing_notes(v, population) + failed:
            marks.append(notes.setdefault(text, len(notes) + 1))
        rows.append(Row(v, t.per_population_s if t else None, t.per_population_range if t else None,
                        v.speedups.vs_numpy, fastest[v.family] / t.per_population_s if t and v.family in fastest
                        else None, marks))
    return Table(rows, [(n, text) for text, n in notes.items()], skipped)


def caution(analysis):
    """One sentence when the timings were taken on a machine whose speed changed or that others were using, with
    the figures; None on a quiet run. Fires when the run's timing windows saw other processes use 20 % of the CPUs
    (or steal 5 %), or when most timed ratios moved by more than 1.5x across the alternating rounds."""
    said = []
    load = analysis.load
    if load and load.busy:
        said.append(f"{' and '.join(load.why)} while the variants were timed")
    spreads = [v.speedups.vs_numpy_spread for v in analysis.variants if v.speedups.vs_numpy_spread
               and v.kind != "numpy"]
    moved = [s for s in spreads if s[1] > NOISY * s[0]]
    if spreads and len(moved) * 2 > len(spreads):
        worst = max(moved, key=lambda s: s[1] / s[0])
        said.append(f"{len(moved)} of {len(spreads)} ratios to NumPy moved by more than {NOISY}x across the "
                    f"alternating rounds (up to {worst[1] / worst[0]:.2g}x): the machine's speed changed while it "
                    "was timed")
    return "; ".join(said) or None


def program_fixes(analysis):
    """A program's fixes that could be tried, and how, per compiled function ([(function id, text)]): ``inspector
    run`` does not run the program again, so none is measured; ``inspector report`` and ``breaks`` measure them on a
    sample calling the function. Nothing unless the run asked for them (``--try-fixes``, the default)."""
    if not (analysis.program and analysis.program.try_fixes):
        return []
    order = {f.id: i for i, f in enumerate(analysis.program.functions)}
    said = sorted((f for f in fixes.candidates(analysis) if f.kind in fix_words.PROGRAM_ORDER),
                  key=lambda f: (order[f.variant], fix_words.PROGRAM_ORDER.index(f.kind)))
    return [(f.variant, fix_words.program(f, analysis.sample.path)) for f in said]


def program_headlines(analysis):
    """A program's first lines: per compiled function that was called, its share of the run, what compiling cost
    against the time in it, its steady time per call, breaks and recompiles; the costliest first."""
    p, said = analysis.program, []
    for v in sorted((v for v in p.functions if v.run.calls), key=lambda v: -v.run.total_s):
        run = v.run
        share = f" ({run.total_s / p.wall_s:.0%} of the run)" if p.wall_s else ""
        compiling = f", {seconds(run.compile_s)} of it compiling" if run.compile_s else ""
        steady = (f"; {seconds(v.timing.median_s)} per call over {_count(run.steady_calls, 'steady call')}"
                  if v.timing else "; no steady call to time")
        breaks = f"; {_count(len(v.code.breaks), 'graph break')}, {_count(len(run.recompiles), 'call')} that " \
            "recompiled" if v.code.breaks or run.recompiles else ""
        raised = f"; raised an exception at call {run.error_call} (below)" if v.error else ""
        said.append(f"{v.id}: {seconds(run.total_s)} in {_count(run.calls, 'call')}{share}{compiling}{steady}"
                    f"{breaks}{raised}.")
    return said
