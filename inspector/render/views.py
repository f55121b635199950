"""What a report says, computed once for every renderer (as coverage.py's reporters read ``FileData``): the headline
of each family, what to change ranked by the time at stake, the timings table's rows with their footnotes, and the
one caution about the machine. Templates and the terminal only print these."""

from dataclasses import dataclass, field, replace
from typing import Optional

from inspector.analysis import trials as trials_mod
from inspector.model import SampleVariant, Status
from inspector.render.words import NOISY, break_even, error_parts, places, ratio, seconds, timing_notes


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
    tried: Optional[str] = None  # its measured effect (a Trial's text), or how inspector can measure it
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
    """Every fix inspector knows for the compiled variants that ran, each once, the largest time at stake first:
    each graph break's usual rewrite (the time its variant spends outside compiled graphs) and the config flag
    that removes it, a recompile's guard (the time of a call that compiles), the layout of strided loads and the
    tiling heuristic off (the time of the kernels they slowed). A fix inspector tried carries its measured effect;
    one that measured no gain is not here but in ``tried_without_gain``."""
    return [c for c in _all_changes(analysis) if c.gain is not False]


def tried_without_gain(analysis):
    """The fixes inspector tried that measured no gain (or failed): said, never offered as advice."""
    return [c for c in _all_changes(analysis) if c.gain is False]


def _all_changes(analysis):
    found = {}
    for v in analysis.variants:
        if not v.ok_compiled or v.preview:
            continue
        trials = {t.fix: t for t in v.trials}
        outside = v.code.break_cost.outside_s if v.code.break_cost else None
        for b in v.code.breaks:
            flag = next((t for t in v.trials if b.flag and t.flag == b.flag), None)
            if b.fix:
                _keep(found, Change(b.fix[0].upper() + b.fix[1:], v.id, [(b.file, b.line)], outside, _stake(
                    outside, "outside compiled graphs per call"), None if flag else _flag(b)))
            if flag:
                name, _, value = b.flag.split(".", 1)[1].partition("=")
                _keep(found, _tried(f"Set torch._dynamo.config.{name} = {value} before compiling (--config "
                                    f"{b.flag}): it removes this break.", v, [(b.file, b.line)], outside,
                                    "outside compiled graphs per call", flag))
        if v.code.recompilation and (v.code.recompilation.every_call or v.code.recompilation.limit):
            _keep(found, Change(f"Stop the recompiles: {v.code.recompilation.text}.", v.id, [], v.timing.per_population_s
                                if v.timing else None, _stake(v.timing.per_population_s if v.timing else None,
                                                             "per call, compiles included")))
        strided = trials_mod.strided_lines(v.code)
        if strided:
            kernels = {k for e in strided for k in e.kernels}
            stake = sum(k.cost.time_s for k in v.code.kernels if k.id in kernels and k.cost.time_s) or None
            lines = sorted({(e.file, e.line) for e in strided})
            what = "in the kernels of these lines per profiled call"
            _keep(found, _tried("Store the population column-major (shape (d, N), or np.asfortranarray) so that "
                                "the genes each line reads are contiguous: these lines ran in scalar loops because "
                                "of strided loads.", v, lines, stake, what, trials.get("column-major")))
            if "tiling-off" in trials:  # advice only with its measured effect
                _keep(found, _tried("Turn Inductor's tiling heuristic off for this function (torch.compile(fn, "
                                    "options={\"cpp.enable_tiling_heuristics\": False})): it kept these lines "
                                    "scalar because of their strided loads.", v, lines, stake, what,
                                    trials["tiling-off"]))
    return sorted(found.values(), key=lambda c: -(c.stake_s or 0))


def _tried(text, v, lines, stake_s, what, trial):
    """The Change of a fix inspector can try, with its Trial's effect where it was tried."""
    return Change(text, v.id, lines, stake_s, _stake(stake_s, what), trial.text if trial else None,
                  trial.gain if trial else None)


def _keep(found, change):
    """Keep one Change per text: the one with the most time at stake, its lines joined with the others'."""
    before = found.get(change.text)
    if before is None:
        found[change.text] = change
        return
    lines = sorted(set(before.lines) | set(change.lines), key=lambda fl: (str(fl[0]), fl[1] or 0))
    best = change if (change.stake_s or 0) > (before.stake_s or 0) else before
    found[change.text] = replace(best, lines=lines)


def _stake(seconds_, what):
    return f"{seconds(seconds_)} {what}" if seconds_ else "time at stake not measured"


def _flag(b):
    """Where a config flag removes the break: ``inspector breaks`` tries it and measures it."""
    return f"inspector breaks FILE tries --config {b.flag} and measures it" if b.flag else None


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
    said = []
    for v in analysis.program.functions:
        strided = sorted({(e.file, e.line) for e in trials_mod.strided_lines(v.code)})
        if strided:
            said.append((v.id, "its input column-major (np.asfortranarray(pop); for a tensor, "
                               "pop.t().contiguous().t()) or Inductor's tiling heuristic off (torch.compile(fn, "
                               "options={\"cpp.enable_tiling_heuristics\": False})), for the strided loads that "
                               f"kept lines {places(strided, analysis.sample.path)} scalar; inspector report "
                               "measures both on a sample"))
        for flag in dict.fromkeys(b.flag for b in v.code.breaks if b.flag):
            name, _, value = flag.split(".", 1)[1].partition("=")
            said.append((v.id, f"torch._dynamo.config.{name} = {value} before compiling, which removes a graph break; "
                               f"inspector breaks measures it on a sample (--config {flag})"))
        if any("size mismatch" in r for c in v.run.recompiles for r in c.reasons):
            said.append((v.id, "torch.compile(fn, dynamic=False) or torch._dynamo.mark_static(x, 0) on the input whose "
                               "size changed (kernels stay specialised, one compile per size), or dynamic=True (one "
                               "compile for every size); inspector breaks --population-sizes shows the recompiles"))
    return said


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
