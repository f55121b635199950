"""A program's hot functions in words (``inspector run``): where its time went, what the experiment on one round's
inputs measured, and the code to copy; one view per function, read by the terminal summary and the page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from inspector.model import Program
from inspector.model.hotspots import ExperimentRun, HotLine, Hotspot
from inspector.render import rewrites, said
from inspector.render.words import error_line, function_at, ratio, seconds, spans

LABELS = {"as-written": "as written", "numpy": "NumPy rewrite", "numpy-compiled-cpu": "NumPy rewrite compiled",
          "torch": "torch rewrite", "torch-compiled-cpu": "torch rewrite compiled",
          "compiled-cpu": "torch.compile on it as it is", "numba": "numba's @njit on it as written",
          "numpy-numba": "NumPy rewrite under numba's @njit"}
VIA = {"comprehension": "a comprehension", "loop": "a loop or map", "apply_along_axis": "np.apply_along_axis",
       "vectorize": "np.vectorize"}


@dataclass(frozen=True)
class HotView:
    """One hot function: its sentence, its table rows (label, per round, range, against as written, check), the
    rewrites to copy (dialect, code) and what was declined or failed, each a line."""

    id: str
    sentence: str
    rows: tuple[tuple[str, str, str, str, str], ...]
    code: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class SampledRow:
    """A row of the table of the program's functions that held time: name, share, time, calling lines, what it is."""

    function: str
    share: str
    time: str
    called_from: str
    what: str


def sampled(hot: tuple[Hotspot, ...]) -> list[SampledRow]:
    """Every function of the program's the samples found holding time, the most first."""
    return [SampledRow(function_at(h), f"{h.share:.0%}", seconds(h.total_s),
                       ", ".join(f"line {c.line}" + (f" ({c.function})" if c.function != h.function else "")
                                 for c in h.callers) or "-",
                       shape(h.shape) + (f": {h.why}" if h.why else "")) for h in hot]


NEARLY_ALL = 0.9  # of a run's time, a conversion that leaves too little to tell from the noise
LIBRARY_SHARE = 0.15  # of the run's samples in code not the program's, called from one line, worth a word


def views(program: Program) -> list[HotView]:
    """A program's hot functions worth a word: those the experiment ran on, then the others that take an individual
    or a population (with why no experiment ran), then those whose lines spent much of the run in code not the
    program's (a library's, Python's: what it called there), then, in a program that compiled nothing, the others
    that held LIBRARY_SHARE of the run and called none of the program's hot functions (their time their own: a
    method, a function over a list, with why no experiment ran; the sampler counts a compiled call's time at the
    line that made it, so that in a program that compiled, such time may be compiled code's)."""
    hot, wall_s = program.hotspots, program.wall_s
    chosen = sorted((h for h in hot if h.shape in ("individual", "population")), key=lambda h: not h.runs)
    elsewhere = [h for h in hot if h not in chosen and any((x.into_share or 0.0) >= LIBRARY_SHARE for x in h.lines)]
    callers = {(c.file, c.function) for h in hot for c in h.callers}
    own = [h for h in hot if h not in chosen and h not in elsewhere and h.share >= LIBRARY_SHARE
           and (h.file, h.function) not in callers and h.function != "<module>" and not program.functions]
    return [view(h, wall_s) for h in chosen] + [_elsewhere(h, hot) for h in elsewhere] + [view(h, wall_s) for h in own]


def _within(x: HotLine) -> str:
    """", of which 56% in deap.base.Fitness.dominates itself": where a line's time in code not the program's itself
    was (of the run), where that is not the function the line called."""
    return (f", of which {x.within_share:.0%} in {x.within} itself" if x.within and x.within != x.into
            and x.within_share else "")


def _elsewhere(h: Hotspot, hot: tuple[Hotspot, ...]) -> HotView:
    """A function whose time went mostly into code not the program's, line by line, then into the program's hot
    functions it called (their whole share: where the probe watched one's calls from a loop's or a comprehension's
    line, that line's own time is in it too)."""
    lines = "; ".join(f"{x.share:.0%} at line {x.line}" + (f" ({x.into_share:.0%} in {x.into}{_within(x)})"
                                                            if x.into else "") for x in h.lines)
    called = [(g, [c.line for c in g.callers if (c.file, c.function) == (h.file, h.function)]) for g in hot]
    calls = ", ".join(f"{g.share:.0%} in {g.function} ({spans(at)})" for g, at in called if at and g is not h)
    into = [x.line for x in h.lines if x.into]
    held = f"{function_at(h)} took {h.share:.0%} of the run ({seconds(h.total_s)}, sampled): {lines}" + (
        f"; and in the program's functions it called, {calls}" if calls else "") + \
        f". Code not the program's (a library's or Python's) held the time at {spans(into)}"
    if h.function == "<module>":  # a module's top level ("the top level of evo.py"): no function to rewrite
        return HotView(h.id, f"{held[:1].upper()}{held[1:]}.", (), (), ())
    return HotView(h.id, f"{held}: inspector rewrites and times the program's own functions, and {h.function} is "
                         f"{shape(h.shape)}" + (f": {h.why}." if h.why else "."), (), (), ())


def view(h: Hotspot, wall_s: Optional[float]) -> HotView:
    share = f"{function_at(h)} took {h.share:.0%} of the run ({seconds(h.total_s)}, sampled)"
    if not h.runs:
        why = h.experiment_why or h.why or "inspector ran no experiment on it"
        return HotView(h.id, f"{share}: {shape(h.shape)}; {why}.", (), (), _notes(h))
    c = h.captured
    assert c is not None
    line = f" from line {c.site.line}" if c.site else ""
    calls = (f"called on all {c.rows:,} individuals at once{line}" if h.shape == "population"
             else f"{c.calls:,} calls a generation{line}")
    rounds = (f", at least {h.rounds:,.0f} generations (counted from the samples)" if h.rounds_counted else
              f", about {h.rounds:,.0f} generations (estimated)" if h.rounds else "")
    on = (f"On {c.rows:,} of one generation's {c.calls:,} individuals (scaled to the whole generation)" if c.sampled
          else f"On one generation's {c.rows:,} individuals")
    runs = {r.id: r for r in h.runs}
    best = runs.get(h.best or "")
    compiled = min((r for r in h.runs if r.compiled and r.matches and r.per_round_s), default=None,
                   key=lambda r: r.per_round_s or 0.0)
    eager = min((r for r in h.runs if not r.compiled and r.matches and r.per_round_s and r.id != "as-written"),
                default=None, key=lambda r: r.per_round_s or 0.0)
    said = [f"{LABELS.get(r.id, r.id)} {seconds(r.per_round_s)}" + (f" ({ratio(r.faster, 'change')})"
                                                                      if r.id != "as-written" and r.faster else "")
            for r in h.runs if r.per_round_s and r.matches is not False and r in (runs.get("as-written"), eager,
                                                                                   compiled)]
    pays = _pays(compiled, h.rounds) if compiled else ""
    slowed = (f"its {seconds(wall_s)} under inspector less the time inspector's watch slowed its calls; "
              if wall_s and h.run_s and h.run_s < 0.95 * wall_s else "")
    projection = (f" With {the(best.id)} the whole run would take about {seconds(h.projected_s)} "
                  f"instead of {seconds(h.run_s)} ({slowed}the rest unchanged; inferred)." if best and h.projected_s
                  and h.run_s else " Over this run's generations nothing measured beats it as written." if h.rounds
                  else "")
    via = f", via {VIA.get(c.via, c.via)}" if h.shape == "individual" else ""
    others = len([r for r in h.runs if r.per_round_s]) - len(said)
    more = f"; {others} more below" if others > 0 else ""
    measured = f"{on}: {'; '.join(said)}{more}.{_as_array(h)}{pays}{projection}" if said else \
        f"{on}: nothing measured repeated the program's outputs."
    text = f"{share}: {calls}{rounds}{via}. {measured}"
    notes = list(_notes(h))
    rows = tuple((LABELS.get(r.id, r.id), seconds(r.per_round_s), _range(r),
                  ratio(r.faster, "change") if r.faster and r.id != "as-written" else "",
                  _checked(r)) for r in h.runs)
    ran = [r for r in h.runs if not (r.problem and r.matches is None)]
    if ran and all(r.matches for r in ran):
        notes.insert(0, f"every run's output matched the program's own on these individuals"
                        f"{' (those that ran)' if len(ran) < len(h.runs) else ''}")
    instead = "the call on the NumPy population" if h.shape == "population" else "the call per individual"
    code = tuple((w.dialect, w.source + (f"\n\n# and at line {w.call[0]}, instead of {instead}:\n"
                                         f"{w.call[1].strip()}\n" if w.call else ""))
                 for w in h.rewrites if w.matched and w.source)
    return HotView(h.id, text, rows, code, tuple(notes))


def shape(kind: str) -> str:
    """What a hot function is (Hotspot.shape), in words."""
    return {"individual": "called once per individual", "population": "called on the whole population",
            "neither": "not a function inspector can run alone on an individual or on the population",
            "once": "called once", "unknown": "not watched"}.get(kind, kind)


def _pays(run: ExperimentRun, rounds: Optional[float]) -> str:
    """Whether compiling pays: the fastest compiled run's compile against what it saves a round over the fastest
    eager run."""
    if run.compile_s is None:
        return ""
    name = the(run.id)
    name = name[0].upper() + name[1:]
    if run.pays_after is None:
        return f" {name} took {seconds(run.compile_s)} to compile and is no faster than the fastest eager run."
    verdict = "pays" if rounds and rounds >= run.pays_after else "does not pay"
    within = f"; this run had about {rounds:,.0f}, so compiling {verdict} here" if rounds else ""
    return (f" {name} took {seconds(run.compile_s)} to compile: it pays after about {run.pays_after:,.0f} "
            f"generations against the fastest eager run{within}.")


def _as_array(h: Hotspot) -> str:
    """What making the program's list of individuals an array costs each run over the population (at each call, as
    the call to copy does), and the fastest such run with the population kept as an array (inferred: less that time;
    no figure where the conversion is NEARLY_ALL of its time or more)."""
    fastest = min((r for r in h.runs if r.id != "as-written" and r.matches and r.per_round_s), default=None,
                  key=lambda r: r.per_round_s or 0.0)
    if h.to_array_s is None or fastest is None or not fastest.per_round_s:
        return ""
    left = fastest.per_round_s - h.to_array_s
    kept = (f"with the population kept as an array, {the(fastest.id)} would take about {seconds(left)} (inferred)"
            if left > (1 - NEARLY_ALL) * fastest.per_round_s else
            f"nearly all of the {seconds(fastest.per_round_s)} {the(fastest.id)} took")
    return (f" {seconds(h.to_array_s)} of each run over the population is making the program's list of individuals "
            f"an array (np.asarray, as the call to copy does); {kept}.")


def the(rid: str) -> str:
    """A run's label as a sentence names it ("the NumPy rewrite compiled", "numba's @njit on it as written")."""
    label = LABELS.get(rid, rid)
    return f"the {label}" if label.startswith(("NumPy", "torch rewrite")) else label


def _range(r: ExperimentRun) -> str:
    return f"{seconds(r.low_s)} to {seconds(r.high_s)}" if r.low_s and r.high_s and r.low_s != r.high_s else ""


def _checked(r: ExperimentRun) -> str:
    """What a row says of its output: nothing where it matched the program's (said once, under the table)."""
    if r.problem:
        return error_line(r.problem)
    return "" if r.matches or r.matches is None else "its output differs from the program's"


def _dialect(dialect: str) -> str:
    return "NumPy" if dialect == "numpy" else dialect


def _notes(h: Hotspot) -> tuple[str, ...]:
    notes = [f"the experiment was {said.busy(h.load)}"] if h.load and h.load.busy else []
    declines: dict[tuple[str, int, str], list[str]] = {}  # a decline: said once for the dialects it stopped
    for w in h.rewrites:
        if w.declined:
            declines.setdefault(w.declined, []).append(_dialect(w.dialect))
    notes += [f"no {' or '.join(names)} rewrite: the {construct} at line {line} ({rewrites.reason(why)})"
              for (construct, line, why), names in declines.items()]
    for w in h.rewrites:
        name = _dialect(w.dialect)
        if w.declined:
            continue
        if w.matched is False:
            notes.append(f"the {name} rewrite failed its check (not advice): {said.check_failure(w.problem)}")
        elif w.matched:
            notes.append(f"the {name} rewrite matched the function on {w.checked:,} individuals")
    differ: dict[str, list[str]] = {}  # how a rewrite may differ: said once for the dialects it is about
    for w in h.rewrites:
        for said_once in rewrites.notes(w.notes):
            differ.setdefault(said_once, []).append(_dialect(w.dialect))
    notes += [f"the {' and '.join(names)} rewrite{'s' if len(names) > 1 else ''}, {text}"
              for text, names in differ.items()]
    for r in h.runs:
        if r.id == "as-written" and r.matches is False:
            notes.append("as written on the copies it did not repeat the program's outputs (random numbers or state "
                         f"in it): no figure here is advice ({r.problem})")
    return tuple(notes)
