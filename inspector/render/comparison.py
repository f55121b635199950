"""A comparison of runs in plain words, shared by the HTML and text renderers."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Optional

from inspector.model import (CodePair, ComparedCandidate, ComparedHotspot, ComparedLine, ComparedVariant, Env,
                             Regression, RegressionKind, RunKind, RunPair, TimeRow)
from inspector.render.hotspots import LABELS, shape, the
from inspector.render.said import break_reason
from inspector.render.words import function_at, line_at, ratio, seconds, spans, spread

UNIT = {RunKind.SAMPLE: "variant", RunKind.PROGRAM: "function"}  # what a comparison compares, of each kind of run
NO_CONTROL = {RunKind.SAMPLE: "no eager variant of its family ran under both",
              RunKind.PROGRAM: "a program's run has no eager variant to read as the control"}

# what an eager variant's change of time measures, by its kind: the control for its family's compiled variants
CONTROLS = {"numpy": "the machine or NumPy", "python": "the machine or Python",
            "torch": "the machine or torch's eager operators"}


def headline(v: ComparedVariant) -> str:
    """Status change, or the timings side by side with the speedup of the second run."""
    if not v.ok:
        return " → ".join(s + (f" ({e})" if e else "") for s, e in zip(v.status, v.errors))
    return "; ".join(f"{t.what} {seconds(t.a)} → {seconds(t.b)}" + (f" ({speedup(t)})" if t.speedup else "")
                     for t in v.timing)


def speedup(t: TimeRow) -> str:
    """A TimeRow's speedup, with its spread over the rounds where it was timed in them: "1.43x (1.38x to 1.51x in 6
    alternating rounds)"."""
    if not t.speedup:
        return "-"
    return ratio(t.speedup) + (f" ({spread(t.spread, t.rounds, 'times')})" if t.spread else "")


def summary(pair: RunPair) -> str:
    """The pair's answer in one sentence: how many compiled variants got faster or slower under the second run."""
    compiled = [v for v in pair.variants if v.compiled]
    noun = f"compiled {UNIT[pair.kind]}"
    if not compiled:
        return f"No {noun} ran under both {pair.a} and {pair.b}."
    groups: dict[str, list[ComparedVariant]] = {}
    for v in compiled:
        groups.setdefault(v.change if v.ok else "not ok under both", []).append(v)
    said = [f"{len(vs)} {what} ({', '.join(_said(v) for v in vs)})"
            for what in ("slower", "faster", "no clear change", "not ok under both", "unknown")
            if (vs := groups.get(what))]
    how = " (in every alternating round)" if pair.interleaved and ({"slower", "faster"} & groups.keys()) else ""
    return (f"Under {pair.b} against {pair.a}, of {len(compiled)} {noun}{'s' * (len(compiled) > 1)}: "
            + "; ".join(said) + how + ".")


def _said(v: ComparedVariant) -> str:
    """"numpy-compiled-cpu 2.13x slower", or its statuses ("ok → error")."""
    if not v.ok:
        return f"{v.id} {' → '.join(v.status)}"
    return f"{v.id} {ratio(v.timing[0].speedup if v.timing else None, 'change')}"


def reading(pair: RunPair, v: ComparedVariant) -> Optional[str]:
    """What a variant's change of time says: for an eager variant, what it measures (a control); for a compiled one,
    its change read against its control's, in one sentence, saying "unknown" where a machine setting eager code may
    not feel changed too; None when there is nothing to read."""
    if not v.ok or v.change == "unknown":
        return None
    if not v.compiled:
        return f"control: {CONTROLS.get(v.kind, 'the machine')} can change its time, torch's compiler cannot"
    if v.control is None:
        return NO_CONTROL[pair.kind] + (
            ": whether the machine or NumPy changed its time is unknown")
    c = next(e for e in pair.variants if e.id == v.control)
    cause, t, ct = CONTROLS[c.kind], v.timing[0].speedup, c.timing[0].speedup
    if v.change == "no clear change":
        return (f"eager {c.id} shows no clear change either ({ratio(ct, 'change')})" if c.change == "no clear change"
                else f"eager {c.id} {ratio(ct, 'change')}, while this variant shows no clear change")
    if c.change == v.change:
        share = ("the change may be all" if abs(math.log(ct or 1.0)) >= abs(math.log(t or 1.0))
                 else "part of the change is")
        return f"eager {c.id} also {ratio(ct, 'change')}: {share} {cause}, not torch's compiler"
    said = (f"eager {c.id} shows no clear change ({ratio(ct, 'change')})" if c.change == "no clear change"
            else f"eager {c.id} {ratio(ct, 'change')} meanwhile")
    machine = [x.what for x in pair.confounders if x.key in Env.MACHINE]
    if machine:
        return (f"{said}, but the {' and '.join(machine)} changed too, which eager code may not feel: whether the "
                "change is torch's compiler or the machine is unknown")
    return (f"{said}: {cause} cannot explain the change, so it is in torch's compiled code"
            + ("" if pair.interleaved else " (unless a load came and went while the runs were timed apart)"))


def notes(pair: RunPair, v: ComparedVariant) -> list[str]:
    """One sentence per finding in a variant: what its change of time says (see reading), then in a compiled one
    its kernels, changed line verdicts, graph breaks."""
    a, b = pair.a, pair.b
    out = [s for s in [reading(pair, v)] if s]
    if v.run:
        run = v.run
        out.append(f"calls {run.calls[0]} → {run.calls[1]} (steady: {run.steady_calls[0]} → "
                   f"{run.steady_calls[1]}); recompiles {run.recompiles[0]} → {run.recompiles[1]}")
        out += [f"raised under {name} at call {raised[0]}: {raised[1]}"
                for name, raised in zip((a, b), run.raised) if raised]
    for k in code(v):
        names = k.a if k.a == k.b else f"{k.a} → {k.b}"
        state = ("identical after normalisation" if k.identical
                 else f"differs (+{k.added_lines} -{k.removed_lines} normalised lines)")
        out.append(f"{'wrapper' if k is v.wrapper else 'kernel'} {names}: {state}"
                   + "".join(f"; {c}" for c in k.changes))
    out += [f"kernel removed: {name} (only under {a})" for name in v.removed]
    out += [f"kernel added: {name} (only under {b})" for name in v.added]
    changes: dict[tuple[str, str], list[ComparedLine]] = {}
    for e in v.changed_lines:
        if e.a and e.b:  # a changed line has a verdict under both
            changes.setdefault((e.a.describe(), e.b.describe()), []).append(e)
    out += [f"{_lines(es)}: {was} under {a} → {now} under {b}" for (was, now), es in changes.items()]
    for name, other, one in ((a, b, [e for e in v.one_sided if e.a]), (b, a, [e for e in v.one_sided if e.b])):
        if one:
            how = ", ".join(sorted({h for e in one for verdicts in (e.a, e.b) if verdicts for h in verdicts.how}))
            out.append(f"{_lines(one)}: a verdict under {name} only ({how}), no evidence under {other}")
    out += [f"graph break {x.change} at {line_at(x)}: {break_reason(x)}" for x in v.breaks]
    if v.cache:
        out.append(f"Inductor's FX graph cache: {v.cache[0]} under {a}, {v.cache[1]} under {b} "
                   "(compile times are not comparable)")
    return out


def _lines(entries: Iterable[ComparedLine]) -> str:
    """'lines 48-51, 58 (objective, check_constraints)' for ComparedLines; the lines of another file than the sample
    after theirs, named with it: 'line 3; lines 7, 12 of samples/helpers/penalties.py (f, rastrigin)'."""
    entries = list(entries)
    by_file: dict[Optional[str], set[int]] = {}
    for e in sorted(entries, key=lambda e: e.file is not None):
        by_file.setdefault(e.file, set()).update([e.line] if e.line is not None else [])
    where = "; ".join(spans(numbers) + (f" of {file}" if file else "") for file, numbers in by_file.items())
    functions = ", ".join(dict.fromkeys(e.function for e in entries))
    return f"{where} ({functions})"


def code(v: ComparedVariant) -> list[CodePair]:
    """The kernel pairs of a compiled variant, then its wrapper."""
    return [*v.kernels, *([v.wrapper] if v.wrapper else [])]


def diff_class(line: str) -> str:
    """The CSS class of a diff line."""
    return {"+": "add", "-": "del"}.get(line[:1], "")


def hot_sentence(pair: RunPair, h: ComparedHotspot) -> str:
    """A hot function under two runs: where it is and what it is, its share of each run, and each run's fastest
    checked candidate over the run (its compile included)."""
    names = (pair.a, pair.b)
    shares = "; ".join(f"{share:.0%} of the run under {name} ({seconds(total)}, sampled)" if share is not None
                       else f"not hot under {name}" for name, share, total in zip(names, h.share, h.total_s))
    bests = [(the(best) if best else "none faster", name) for best, name, share in zip(h.best, names, h.share)
             if share is not None]  # where it was hot
    fastest = (f"{bests[0][0]} under both" if len(bests) == 2 and bests[0][0] == bests[1][0]
               else "; ".join(f"{best} under {name}" for best, name in bests))
    ran = [m for c in h.candidates for m in c.matches if m is not None]
    checked = " Every candidate's output matched the program's own." if ran and all(ran) else ""
    return (f"{function_at(h)}, {shape(h.shape)}: {shares}. Fastest over the "
            f"whole run, its compile included, against the function as written: {fastest}.{checked}")


def candidate_label(c: ComparedCandidate) -> str:
    """A candidate's name: "as written", "NumPy rewrite compiled", ..."""
    return LABELS.get(c.id, c.id)


def over_written(c: ComparedCandidate, n: int) -> str:
    """A candidate's speedup over the function as written under run ``n`` (0: a, 1: b), as a table cell says it:
    "222x", "2.5x slower"; "" for the function as written, or where it did not run."""
    return ratio(c.faster[n]) if c.id != "as-written" and c.faster[n] else ""


def differs(pair: RunPair, c: ComparedCandidate) -> str:
    """Under which runs a candidate's output differed from the program's own: "its output differs from the
    program's under torch 2.13.0"; "" where it never did."""
    names = [name for name, matches in zip((pair.a, pair.b), c.matches) if matches is False]
    return f"its output differs from the program's under {' and '.join(names)}" if names else ""


def candidate_line(pair: RunPair, c: ComparedCandidate) -> str:
    """A candidate in one line, as the terminal says it: its time per generation under each run (its speedup over as
    written there), the change, and where its output differed: "NumPy rewrite: 1.31 ms (44.8x) → 1.52 ms (38.4x);
    1.16x slower"."""
    sides = [seconds(t) + (f" ({said})" if (said := over_written(c, n)) else "")
             for n, t in enumerate((c.time.a, c.time.b))]
    return "; ".join([f"{candidate_label(c)}: {sides[0]} → {sides[1]}", ratio(c.time.speedup, "change"),
                      *[said for said in [differs(pair, c)] if said]])


def regression(r: Regression) -> str:
    """A Regression in one line, as ``compare --fail-on-regression`` prints it: where (the variant and its two runs,
    a line's place), then what got worse (``worse``)."""
    return f"{r.variant} ({r.a} → {r.b}): " + (f"{line_at(r.line)}: " if r.line else "") + worse(r)


def worse(r: Regression) -> str:
    """What got worse, without where: "parallel, vectorized → serial, not vectorized", "a graph break gained at line
    7: ...", "raised at call 3: ...", "recompiles 1 → 4", "1.32x slower (in every one of 6 rounds)", "error: ..."."""
    if r.kind == RegressionKind.LINE and r.line and r.line.a and r.line.b:
        return f"{r.line.a.describe()} → {r.line.b.describe()}"
    if r.kind == RegressionKind.BREAK and r.graph_break:
        return f"a graph break gained at {line_at(r.graph_break)}: {break_reason(r.graph_break)}"
    if r.kind == RegressionKind.RAISED:
        return f"raised at call {r.call}: {r.error}"
    if r.kind == RegressionKind.RECOMPILES and r.recompiles:
        return f"recompiles {r.recompiles[0]} → {r.recompiles[1]}"
    if r.kind == RegressionKind.CANDIDATE and r.candidate:
        c = r.candidate
        return (f"{candidate_label(c)}: its output no longer matches the program's" if c.matches[1] is False else
                f"{candidate_label(c)} {ratio(c.time.speedup, 'change')} a generation ({seconds(c.time.a)} → "
                f"{seconds(c.time.b)})")
    if r.kind == RegressionKind.RERUN and r.time:
        return f"its compile on a rerun, torch's caches warm, took {seconds(r.time.a)} → {seconds(r.time.b)}"
    if r.kind == RegressionKind.TIME and r.time and r.time.speedup:
        return ratio(r.time.speedup, "change") + (
            f" (in every one of {r.time.rounds} rounds)" if r.time.rounds else "")
    return f"{r.status}: {r.error}"
