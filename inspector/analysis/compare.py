"""Compare analysed records of one sample (torch versions, configurations): from the records alone.

Kernels are paired across runs by the source lines they compute (their ``lines`` verdicts) and the ops
in their names, then diffed after a normalisation that drops what does not change the generated code's
meaning (include paths, thread counts, numbering, 2.1's ``long``/``i0`` spellings, whitespace): a hunk of the diff
is structural when the normalised code differs there, cosmetic when only what normalisation drops does. Each
variant's change of time is read against an eager variant of its family (a control: the machine and NumPy change
it, torch's compiler does not), and what else differs between the runs (NumPy, torch's build, threads, CPU) is named.
Records of a program (``inspector run``) compare per compiled function: its steady time per call, compile time,
calls and recompiles; a program's runs were made one after the other, so each run's machine load is said. Its hot
functions compare by their share of each run and their experiment's candidates, each one's time per generation.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Optional, Union

from inspector.analysis.parse import wrapper as wrapper_parse
from inspector.analysis.rounds import side_by_side
from inspector.errors import InspectorError
from inspector.model import (STEADY, VECTORIZED, Analysis, ArgvChanged, BreakChange, CallsChange, CodePair,
                             ComparedCandidate, ComparedHotspot, ComparedLine, ComparedRun, ComparedVariant,
                             Comparison, Confounder, Env, ExitChanged, Hunk, Kernel, LineStatus, LineVerdict,
                             LineVerdicts, PairWarning, Populations, ProgramAnalysis, ProgramFunction, Regression,
                             RegressionKind, RunPair, SampleAnalysis, SampleVariant, Sequential, SourceChanged, Status,
                             TimeGoes, TimeRow, TimedApart, TimedBusy, Vectorized)
from inspector.model.comparison import CLEAR
from inspector.model.hotspots import ExperimentRun, Hotspot

TIMINGS = (("time", "per_population_s"), ("first call", "first_call_s"), ("compile", "compile_s"))
RERUN = "compile on a rerun"  # a sample variant's time row: its compile with torch's caches warm
# a rerun's compile this many times slower, and by this many seconds, is a regression (compile times vary run to run)
RERUN_SLOWER, RERUN_SLOWER_S = 1.5, 0.05
# kernel-name tokens that say nothing about the computation (views, constants, prefixes)
NOISE = {"cpp", "triton", "poi", "per", "red", "tem", "fused", "extern", "kernels", "aten", "default", "select",
         "lift", "fresh", "scalar", "tensor", "slice", "view", "unsqueeze", "squeeze", "expand", "permute",
         "clone", "alias", "reshape"}
RULES = (
    (re.compile(r'#include\s*["<].*?(?:cpp_prefix|\w{32,})\.h[">]'), "#include <cpp_prefix.h>"),
    (re.compile(r"\s*num_threads\(\d+\)"), ""),
    (re.compile(r"\blong\b"), "int64_t"),
    (re.compile(r"\bi(\d+)\b"), r"x\1"),
    (re.compile(r"static_cast<[\w:]+>\(([\w.]+)\)"), r"\1"),  # a cast of a literal or a name
    (re.compile(r"([+-] )\((\w+\*\w+)\)"), r"\1\2"),  # 1L + (3L*x0)
    (re.compile(r"\b[0-9a-zA-Z]{32,}\b"), "<hash>"),
    (re.compile(r"\s+"), " "),
)
NUMBERED = re.compile(r"\b(tmp_acc|tmp|buf)(\d+)")
DROP = re.compile(r"^(?://|# |[{}];?$)|^$")
CONTEXT = 2  # unchanged lines shown around a hunk
# what may differ between two runs besides torch, by name (threads, cpu, isa, cuda: Env.MACHINE; what each changes:
# inspector/render/said.py)
CONFOUNDERS = (("numpy", "NumPy"), ("build", "torch build"), ("python", "Python"), ("threads", "threads"),
               ("cpu", "CPU"), ("isa", "ISA"), ("cuda", "CUDA device"))
TOP_KERNELS = 5  # kernels per variant in "where the time goes"
Unit = Union[SampleVariant, ProgramFunction]  # what is compared: a sample's variant, or a program's function
CodeLine = tuple[int, str, str]  # (line number, the line stripped, the line normalised)
Row = tuple[str, list[CodeLine], list[CodeLine]]  # a diff row: same | cosmetic | structural, lines of a, of b
LineKey = tuple[Optional[str], Union[int, str, None]]  # a line as both runs name it (see _place)
FunctionLine = tuple[str, Optional[str], Union[int, str, None]]  # (function, *LineKey)
Matched = tuple[list[tuple[Kernel, Kernel]], list[Kernel], list[Kernel]]  # (pairs, only under a, only under b)


class CompareError(InspectorError):
    """The records cannot be compared; one line for the user."""


def normalise(code: str) -> list[str]:
    """The lines of kernel ``code`` with the noise removed (see the module docstring)."""
    return [norm for _, _, norm in _code_lines(code)]


def _code_lines(code: str) -> list[CodeLine]:
    """The CodeLines of ``code`` that normalisation keeps."""
    kept: list[CodeLine] = []
    for number, raw in enumerate(code.splitlines(), 1):
        line = raw
        for pattern, replacement in RULES:
            line = pattern.sub(replacement, line)
        line = line.strip()
        if not DROP.match(line):
            kept.append((number, raw.strip(), line))
    return [(n, raw, norm) for (n, raw, _), norm in zip(kept, _renumber([k[2] for k in kept]))]


def _renumber(lines: list[str]) -> list[str]:
    """tmpN, tmp_accN and bufN renumbered per family in order of first appearance."""
    names: dict[str, str] = {}
    counts: dict[str, int] = {}

    def rename(m: re.Match[str]) -> str:
        if m.group(0) not in names:
            counts[m.group(1)] = counts.get(m.group(1), -1) + 1
            names[m.group(0)] = f"{m.group(1)}{counts[m.group(1)]}"
        return names[m.group(0)]

    return [NUMBERED.sub(rename, line) for line in lines]


def hunks(a: str, b: str) -> list[Hunk]:
    """The Hunks of the diff of two kernels' code ([] when the code is the same line for line). Structural hunks
    show normalised lines, with CONTEXT lines around them; cosmetic ones the lines as they are (stripped)."""
    la, lb = _code_lines(a), _code_lines(b)
    rows: list[Row] = []  # same, cosmetic (equal once normalised) or structural
    opcodes = difflib.SequenceMatcher(None, [x[2] for x in la], [x[2] for x in lb]).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            rows += [("same" if x[1] == y[1] else "cosmetic", [x], [y]) for x, y in zip(la[i1:i2], lb[j1:j2])]
        else:
            rows.append(("structural", la[i1:i2], lb[j1:j2]))
    structural = _spans([i for i, r in enumerate(rows) if r[0] == "structural"], len(rows), CONTEXT, 0)
    taken = {i for lo, hi in structural for i in range(lo, hi + 1)}
    cosmetic = _spans([i for i, r in enumerate(rows) if r[0] == "cosmetic" and i not in taken], len(rows), 0,
                      2 * CONTEXT, taken)
    spans = sorted([(lo, hi, "structural") for lo, hi in structural] + [(lo, hi, "cosmetic") for lo, hi in cosmetic])
    return [_hunk(kind, rows[lo:hi + 1]) for lo, hi, kind in spans]


def _spans(changed: list[int], size: int, context: int, gap: int,
           taken: Union[set[int], frozenset[int]] = frozenset()) -> list[list[int]]:
    """[first, last] row spans around the ``changed`` rows (ascending), ``context`` rows on each side; spans
    apart by at most ``gap`` rows, none of them ``taken``, are one."""
    spans: list[list[int]] = []
    for i in changed:
        lo, hi = max(0, i - context), min(size - 1, i + context)
        if spans and lo - spans[-1][1] - 1 <= gap and not taken & set(range(spans[-1][1] + 1, lo)):
            spans[-1][1] = hi
        else:
            spans.append([lo, hi])
    return spans


def _hunk(kind: str, rows: list[Row]) -> Hunk:
    """One hunk (see hunks) of ``rows``."""
    lines: list[str] = []
    for what, xs, ys in rows:
        if what == "structural":
            lines += [f"-{x[2]}" for x in xs] + [f"+{y[2]}" for y in ys]
        elif what == "cosmetic" and kind == "cosmetic":
            lines += [f"-{xs[0][1]}", f"+{ys[0][1]}"]
        else:  # unchanged once normalised: context
            lines.append(f" {ys[0][2] if kind == 'structural' else ys[0][1]}")
    a = [x[0] for _, xs, _ in rows for x in xs]
    b = [y[0] for _, _, ys in rows for y in ys]
    return Hunk(kind, (min(a), max(a)) if a else None, (min(b), max(b)) if b else None, tuple(lines))


def ops(kernel: Kernel) -> set[str]:
    """Op names in a kernel's name (``cpp_fused_add_mul_0`` -> {add, mul}), noise left out."""
    return {t for t in re.split(r"[_.]", kernel.name) if t and not t.isdigit() and t not in NOISE}


def match(kernels_a: Sequence[Kernel], kernels_b: Sequence[Kernel],
          lines_a: Optional[dict[str, set[FunctionLine]]] = None,
          lines_b: Optional[dict[str, set[FunctionLine]]] = None) -> Matched:
    """Pair kernels by shared source lines (``lines_*``: kernel id -> line keys, see _place) and ops.

    Returns (pairs [(a, b)], removed [a], added [b]); identical normalised code breaks ties first,
    then similarity, then launch position.
    """
    lines_a, lines_b = lines_a or {}, lines_b or {}
    scored: list[tuple[bool, float, int, int, int]] = []
    for i, a in enumerate(kernels_a):
        for j, b in enumerate(kernels_b):
            if a.backend != b.backend:
                continue
            lines = _jaccard(lines_a.get(a.id, set()), lines_b.get(b.id, set()))
            same_ops = _jaccard(ops(a), ops(b))
            if lines or same_ops >= 0.5:
                scored.append((normalise(a.code) == normalise(b.code), lines + same_ops, -abs(i - j), i, j))
    pairs: list[tuple[Kernel, Kernel]] = []
    used_a: set[int] = set()
    used_b: set[int] = set()
    for *_, i, j in sorted(scored, key=lambda s: s[:3], reverse=True):
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.append((kernels_a[i], kernels_b[j]))
    return (sorted(pairs, key=lambda p: list(kernels_a).index(p[0])),
            [k for i, k in enumerate(kernels_a) if i not in used_a],
            [k for j, k in enumerate(kernels_b) if j not in used_b])


def _jaccard(a: set[str] | set[FunctionLine], b: set[str] | set[FunctionLine]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def labels(analyses: Sequence[Analysis]) -> list[str]:
    """A short name per run: its torch version and --config items, numbered where two are alike."""
    names = [" ".join([f"torch {(a.env.torch or '?').split('+')[0]}", *config(a)]) for a in analyses]
    return [f"{n} (#{i + 1})" if names.count(n) > 1 else n for i, n in enumerate(names)]


def config(analysis: Analysis) -> tuple[str, ...]:
    """The run's --config and --compile-option items as KEY=VALUE strings."""
    return tuple([f"{c['key']}={c['value']}" for c in analysis.config] + [
        f"{k}={v}" for k, v in sorted(analysis.compile_options.items())])


def compare(analyses: Sequence[Union[SampleAnalysis, ProgramAnalysis]]) -> Comparison:
    """The Comparison of ``analyses[0]`` (the baseline) with each other run."""
    if len(analyses) < 2:
        raise CompareError("compare needs at least two records")
    if len({a.KIND for a in analyses}) > 1:
        raise CompareError("a program's record (inspector run) and a sample's record cannot be compared")
    names = [Path(a.sample.path).name for a in analyses]
    if len(set(names)) > 1:
        raise CompareError(f"the records are of different {analyses[0].KIND}s ({', '.join(dict.fromkeys(names))})")
    names = labels(analyses)
    runs = tuple(_run(a, n) for n, a in zip(names, analyses))
    return Comparison(sample=analyses[0].sample, kind=analyses[0].KIND, runs=runs,
                      pairs=tuple(_pair(analyses[0], a, names[0], n) for a, n in zip(analyses[1:], names[1:])))


def _run(a: Union[SampleAnalysis, ProgramAnalysis], label: str) -> ComparedRun:
    """One run of a comparison: a program's with its arguments and machine load."""
    program = a.program if isinstance(a, ProgramAnalysis) else None
    return ComparedRun(label=label, env=a.env, build=build(a.env.torch), config=config(a),
                       population=a.sample.population, created=a.record.created, argv=program.argv if program else None,
                       load=a.load if program else None)


def link_reports(result: Comparison, records: Sequence[Union[str, Path]], folder: Union[str, Path]) -> Comparison:
    """``result`` with each run's record (``records``, as given) and its HTML report beside it (the path from
    ``folder``, where the comparison is written; None where `inspector render` has not made it)."""
    runs = []
    for run, record in zip(result.runs, records):
        html = Path(record).with_suffix(".html")
        runs.append(replace(run, record=str(record),
                            report=Path(os.path.relpath(html, folder)).as_posix() if html.exists() else None))
    return replace(result, runs=tuple(runs))


def build(torch: Optional[str]) -> str:
    """The build a torch version names in its local version: "CPU-only (+cpu)", "CUDA 12.1 (+cu121)", "ROCm 6.0
    (+rocm6.0)"; "unknown" without one (a wheel from PyPI names none: CUDA on Linux, CPU elsewhere)."""
    local = (torch or "").partition("+")[2]
    cuda, rocm = re.fullmatch(r"cu(\d+)(\d)", local), re.fullmatch(r"rocm([\d.]+)", local)
    if not local:
        return "unknown"
    what = ("CPU-only" if local.startswith("cpu") else f"CUDA {cuda[1]}.{cuda[2]}" if cuda
            else f"ROCm {rocm[1]}" if rocm else None)
    return f"{what} (+{local})" if what else f"+{local}"


def confounders(ra: Analysis, rb: Analysis) -> list[Confounder]:
    """What differs between two runs besides torch's version, from CONFOUNDERS: [Confounder].
    A value the record does not hold is "unknown", and a change to or from it is said to be unknown; a torch build
    unknown under both runs counts as one when their torch versions differ."""
    found = []
    for key, what in CONFOUNDERS:
        a, b = (_setting(r.env, key) for r in (ra, rb))
        if a == b and (a != "unknown" or key != "build" or ra.env.torch == rb.env.torch):
            continue
        found.append(Confounder(key, what, a, b))
    return found


def _setting(env: Env, key: str) -> str:
    """One CONFOUNDERS setting of a run's Env, in words ("none" for no CUDA device, "unknown" where not recorded)."""
    if key == "build":
        return build(env.torch)
    value = getattr(env, key)
    return "none" if value is None and key == "cuda" else "unknown" if value is None else str(value)


def _pair(ra: Union[SampleAnalysis, ProgramAnalysis], rb: Union[SampleAnalysis, ProgramAnalysis], a_name: str,
          b_name: str) -> RunPair:
    found = confounders(ra, rb)
    warnings: list[PairWarning] = list(found)
    if ra.sample.population != rb.sample.population:
        warnings.append(Populations(ra.sample.population, rb.sample.population))
    if ra.sample.source != rb.sample.source:
        warnings.append(SourceChanged(ra.KIND))
    interleaved = isinstance(ra, SampleAnalysis) and isinstance(rb, SampleAnalysis) and bool(
        ra.rounds and rb.rounds and ra.rounds.session == rb.rounds.session)
    warnings += _timed_apart(ra, rb, a_name, b_name, interleaved)
    va, vb = (_units(r) for r in (ra, rb))
    compared = [_variant(va[i], vb[i], ra, rb, a_name, b_name, interleaved) for i in va if i in vb
                and Status.SKIPPED not in (va[i].status, vb[i].status)]
    variants = tuple(replace(v, control=_control(v, compared)) if v.compiled else v for v in compared)
    hot = _hotspots(ra, rb) if isinstance(ra, ProgramAnalysis) and isinstance(rb, ProgramAnalysis) else ()
    return RunPair(a=a_name, b=b_name, warnings=tuple(warnings), confounders=tuple(found), variants=variants,
                   kind=ra.KIND, interleaved=interleaved, only_a=tuple(i for i in va if i not in vb),
                   only_b=tuple(i for i in vb if i not in va), hotspots=hot)


def _hotspots(ra: ProgramAnalysis, rb: ProgramAnalysis) -> tuple[ComparedHotspot, ...]:
    """The hot functions of two runs of a program that either run ran an experiment on or found taking an individual
    or a population, matched by name and file, side by side: the baseline's order, then those only hot under b."""
    found = [{(h.function, Path(h.file).name): h for h in r.program.hotspots
              if h.runs or h.shape in ("individual", "population")} for r in (ra, rb)]
    return tuple(_hotspot(found[0].get(key), found[1].get(key)) for key in dict.fromkeys([*found[0], *found[1]]))


def _hotspot(a: Optional[Hotspot], b: Optional[Hotspot]) -> ComparedHotspot:
    """One hot function under two runs (None: not hot in that run), its candidates in the baseline's order (the
    function as written first), then those only run under b."""
    h = b or a
    assert h is not None
    runs = [{r.id: r for r in x.runs} if x else {} for x in (a, b)]
    return ComparedHotspot(
        id=h.id, function=h.function, file=h.file, line=h.line, shape=h.shape,
        share=(a.share if a else None, b.share if b else None), total_s=(a.total_s if a else None,
                                                                         b.total_s if b else None),
        best=(a.best if a else None, b.best if b else None),
        candidates=tuple(_candidate(runs[0].get(i), runs[1].get(i)) for i in dict.fromkeys([*runs[0], *runs[1]])))


def _candidate(a: Optional[ExperimentRun], b: Optional[ExperimentRun]) -> ComparedCandidate:
    """One experiment run under two runs (None: not run there): its time per generation under each, side by side."""
    r = a or b
    assert r is not None
    time = _row("per generation", a.per_round_s if a else None, b.per_round_s if b else None)
    return ComparedCandidate(id=r.id, compiled=r.compiled, time=time, faster=(a.faster if a else None,
                                                                              b.faster if b else None),
                             matches=(a.matches if a else None, b.matches if b else None), change=change(time))


def _units(run: Union[SampleAnalysis, ProgramAnalysis]) -> dict[str, Unit]:
    """{id: what is compared} of a run: a program's functions, or a sample's variants."""
    return {v.id: v for v in (run.program.functions if isinstance(run, ProgramAnalysis) else run.variants)}


def _timed_apart(ra: Union[SampleAnalysis, ProgramAnalysis], rb: Union[SampleAnalysis, ProgramAnalysis], a_name: str,
                 b_name: str, interleaved: bool) -> list[PairWarning]:
    """What to keep in mind where two runs were not timed in alternating rounds: a sample's, which variants a
    busy machine timed; a program's (``_program_warnings``)."""
    if isinstance(ra, ProgramAnalysis) and isinstance(rb, ProgramAnalysis):
        return _program_warnings(ra, rb, a_name, b_name)
    if interleaved or not (isinstance(ra, SampleAnalysis) and isinstance(rb, SampleAnalysis)):
        return []
    warnings: list[PairWarning] = [TimedApart()]
    for name, run in ((a_name, ra), (b_name, rb)):
        busy = tuple(v.id for v in run.variants if v.timing and v.timing.load and v.timing.load.busy)
        if busy:
            warnings.append(TimedBusy(name, busy))
    return warnings


def _program_warnings(ra: ProgramAnalysis, rb: ProgramAnalysis, a_name: str, b_name: str) -> list[PairWarning]:
    """What to keep in mind comparing two runs of a program: they ran one after the other (a program's calls cannot
    take turns with another run's), with each run's machine load; different arguments or exit statuses."""
    out: list[PairWarning] = [Sequential(a_name, b_name, ra.load, rb.load)]
    if ra.program.argv != rb.program.argv:
        out.append(ArgvChanged(tuple(ra.program.argv), tuple(rb.program.argv)))
    if ra.program.exit != rb.program.exit:
        out.append(ExitChanged(a_name, b_name, ra.program.exit, rb.program.exit))
    return out


def change(time: Optional[TimeRow]) -> str:
    """Which way a time row went: faster, slower, "no clear change" (its rounds disagree, or a ratio taken once is
    within CLEAR of 1), or unknown (not timed under both)."""
    if not time or not time.speedup:
        return "unknown"
    low, high = time.spread or (time.speedup, time.speedup)
    if not time.spread and 1 / CLEAR < time.speedup < CLEAR:
        return "no clear change"
    return "faster" if low > 1 else "slower" if high < 1 else "no clear change"


def _control(v: ComparedVariant, variants: Sequence[ComparedVariant]) -> Optional[str]:
    """The id of the eager variant whose change of time is the control for compiled ``v``: its own eager function,
    else its family's eager NumPy variant, else its Python one; None where none ran under both."""
    eager = [e for e in variants if not e.compiled and e.family == v.family and e.change != "unknown"]
    fitting: tuple[Callable[[ComparedVariant], bool], ...] = (
        lambda e: e.function == v.function, lambda e: e.kind == "numpy", lambda e: e.kind == "python")
    for fits in fitting:
        found = next((e.id for e in eager if fits(e)), None)
        if found:
            return found
    return None


def _times(v: Unit) -> dict[str, Optional[float]]:
    """{TIMINGS' what: seconds or None} of a variant; a program's function: its steady time per call, its first
    (compiling) call and torch's compile time over all its compiles (None where torch's metrics do not say)."""
    found: dict[str, Optional[float]] = {what: getattr(v.timing, key) if v.timing else None for what, key in TIMINGS}
    found[RERUN] = v.timing.warm.compile_s if v.timing and v.timing.warm else None
    if isinstance(v, ProgramFunction):
        found = {STEADY: found["time"], "first call": found["first call"], "compile, all compiles": v.run.compile_s}
    return found


def _row(what: str, a: Optional[float], b: Optional[float]) -> TimeRow:
    """A TimeRow of seconds under each run (None: not there), with their ratio."""
    return TimeRow(what, a, b, a / b if a and b else None)


def _variant(a: Unit, b: Unit, ra: Analysis, rb: Analysis, a_name: str, b_name: str,
             interleaved: bool) -> ComparedVariant:
    if isinstance(a, SampleVariant):
        family, kind, compiled = a.family, a.kind, a.compiled
    else:  # a program's function: a compiled torch one, of no family
        family, kind, compiled = "", "torch", True
    out = ComparedVariant(id=a.id, family=family, function=a.function, kind=kind, compiled=compiled,
                          status=(a.status, b.status), errors=(a.error, b.error), timing=_timing(a, b, interleaved),
                          change="")
    out = replace(out, change=change(out.time))
    if isinstance(a, ProgramFunction) and isinstance(b, ProgramFunction):
        out = replace(out, run=CallsChange(
            calls=(a.run.calls, b.run.calls), steady_calls=(a.run.steady_calls, b.run.steady_calls),
            recompiles=(len(a.run.recompiles), len(b.run.recompiles)), raised=(_raised(a), _raised(b))))
    if not out.compiled:
        return out
    pairs, removed, added = match(a.code.kernels, b.code.kernels, _kernel_lines(a, ra, rb), _kernel_lines(b, rb, ra))
    caches = [", ".join(sorted({g.cache for g in v.code.graphs if g.cache})) for v in (a, b)]
    calls = wrapper(a), wrapper(b)
    return replace(
        out, kernels=tuple(_kernel_pair(ka, kb) for ka, kb in pairs), removed=tuple(k.name for k in removed),
        added=tuple(k.name for k in added), time_goes=_time_goes(a, b, (pairs, removed, added), a_name, b_name,
                                                                 out.time),
        lines=_verdict_changes(a, b, ra, rb), breaks=_break_changes(a, b, ra, rb),
        cache=(caches[0], caches[1]) if all(caches) and caches[0] != caches[1] else None,
        wrapper=CodePair("call()", "call()", tuple(hunks(*calls))) if any(calls) else None)


def _timing(a: Unit, b: Unit, interleaved: bool) -> tuple[TimeRow, ...]:
    """The time rows of a variant under two runs (_times), the time from the rounds where the runs took turns:
    each round's ratio taken side by side."""
    times_b = _times(b)
    timing = [_row(what, ta, times_b[what]) for what, ta in _times(a).items()
              if ta is not None or times_b[what] is not None]
    side = side_by_side(a.timing.rounds_s, b.timing.rounds_s) if interleaved and a.timing and b.timing else None
    if side and a.timing and b.timing:
        speedup, (low, high), shared = side
        timing[0] = TimeRow("time", statistics.median(a.timing.rounds_s[r] for r in shared),
                            statistics.median(b.timing.rounds_s[r] for r in shared), speedup, (low, high),
                            len(shared))
    return tuple(timing)


def _raised(v: ProgramFunction) -> Optional[tuple[Optional[int], str]]:
    """(the call that raised, the first line of what it raised) of a program's function, or None."""
    return (v.run.error_call, v.error.strip().splitlines()[0]) if v.error else None


def _time_goes(a: Unit, b: Unit, matched: Matched, a_name: str, b_name: str, time: Optional[TimeRow]) -> TimeGoes:
    """Where a compiled call's time went under each run (TimeGoes): its TOP_KERNELS costliest kernels (paired; the
    costliest under either run first) in seconds per call, how many kernels are left out, the whole call (the time
    row ``time``), and the rest of the profiled pass: its kernels, wrapper and time outside compiled graphs (None:
    not measured, or not in that run)."""
    pairs, removed, added = matched
    kernels = [_row(ka.name if ka.name == kb.name else f"{ka.name} → {kb.name}", ka.cost.time_s, kb.cost.time_s)
               for ka, kb in pairs]
    kernels += [replace(_row(k.name, k.cost.time_s, None), only=a_name) for k in removed]
    kernels += [replace(_row(k.name, None, k.cost.time_s), only=b_name) for k in added]
    kernels.sort(key=lambda r: -max(r.a or 0, r.b or 0))
    rest = []
    for key, what in (("kernels_s", "all kernels"), ("wrapper_s", "wrapper: between kernels, inside compiled graphs"),
                      ("outside_graphs_s", "outside compiled graphs")):
        a_s, b_s = (getattr(v.code.time_split, key) if v.code.time_split else None for v in (a, b))
        if a_s is not None or b_s is not None:
            rest.append(_row(what, a_s, b_s))
    return TimeGoes(call=_row("the whole call (timed, as above)", time.a, time.b) if time else None,
                    kernels=tuple(kernels[:TOP_KERNELS]), more=max(0, len(kernels) - TOP_KERNELS), rest=tuple(rest))


def wrapper(v: Unit) -> str:
    """The ``call`` functions of a variant's output code, its generated kernels renamed kernel0, kernel1, ..."""
    found = []
    for g in v.code.graphs:
        for module in g.output_code:
            try:
                found.append(wrapper_parse.call_source(module, wrapper_parse.parse(module)))
            except wrapper_parse.WrapperError:
                continue
    text = "\n".join(found)
    generated = [k.name for k in v.code.kernels if k.generated]
    for n, name in enumerate(dict.fromkeys(generated)):
        text = re.sub(rf"\b{re.escape(name)}\b", f"kernel{n}", text)
    return text


def _kernel_pair(ka: Kernel, kb: Kernel) -> CodePair:
    return CodePair(ka.name, kb.name, tuple(hunks(ka.code, kb.code)), tuple(
        f"{what}: {_yes(getattr(ka, what))} → {_yes(getattr(kb, what))}"
        for what in ("parallel", "vectorized") if getattr(ka, what) != getattr(kb, what)))


def _yes(flag: Optional[bool]) -> str:
    return {True: "yes", False: "no", None: "n/a"}[flag]


def _place(run: Analysis, other: Analysis, file: Optional[str], line: Optional[int]) -> LineKey:
    """A line of ``run`` as both runs can name it: its file (None for the sample, which each run names as it was
    given) and, where that file's source is the same under ``other``, its number, else its stripped text ("" where
    the record does not hold the file): lines of a changed file are matched by their text."""
    sample = file == run.sample.path
    mine = run.file(file) if file else None
    theirs = other.files[0] if sample else other.file(file) if file else None
    return None if sample else file, line if (mine and mine.source) == (theirs and theirs.source) else _text(
        run, file, line)


def _text(run: Analysis, file: Optional[str], line: Optional[int]) -> str:
    """The stripped text of a line of ``run``, read from its own file ("" where the record does not hold it)."""
    found = run.file(file) if file else None
    return found.text(line) if found and line else ""


def _kernel_lines(v: Unit, run: Analysis, other: Analysis) -> dict[str, set[FunctionLine]]:
    """{kernel id: {(function, *_place)}} of the lines a variant's kernels compute."""
    keys: dict[str, set[FunctionLine]] = {}
    for e in v.code.lines:
        for kid in e.kernels:
            keys.setdefault(kid, set()).add((e.function, *_place(run, other, e.file, e.line)))
    return keys


def _verdicts(v: Unit, run: Analysis, other: Analysis) -> dict[FunctionLine, tuple[LineVerdict, LineVerdicts]]:
    """{(function, *_place): (its first LineVerdict, the LineVerdicts of all its call sites together)}."""
    found: dict[FunctionLine, list[LineVerdict]] = {}
    for e in v.code.lines:
        if e.status:
            found.setdefault((e.function, *_place(run, other, e.file, e.line)), []).append(e)
    return {key: (es[0], LineVerdicts(tuple(dict.fromkeys(_status_pair(e) for e in es)),
                                      tuple(sorted({h for e in es for h in e.how})))) for key, es in found.items()}


def _status_pair(e: LineVerdict) -> tuple[LineStatus, Optional[Vectorized]]:
    """A verdict's (status, vectorized: a key of VECTORIZED, or None where it says nothing)."""
    assert e.status is not None
    return e.status, e.vectorized if e.vectorized in VECTORIZED else None


def _verdict_changes(a: Unit, b: Unit, ra: Analysis, rb: Analysis) -> tuple[ComparedLine, ...]:
    """The lines with a verdict under either run (ComparedLine), in line order (the second run's where it has one)."""
    va, vb = _verdicts(a, ra, rb), _verdicts(b, rb, ra)
    found = []
    for key in dict.fromkeys([*va, *vb]):
        e, run = (vb[key][0], rb) if key in vb else (va[key][0], ra)
        found.append(ComparedLine(file=key[1], line=e.line, function=e.function, text=_text(run, e.file, e.line),
                                  a=va[key][1] if key in va else None, b=vb[key][1] if key in vb else None))
    return tuple(sorted(found, key=lambda c: c.line or 0))


def _break_changes(a: Unit, b: Unit, ra: Analysis, rb: Analysis) -> tuple[BreakChange, ...]:
    """Graph breaks gained or lost (BreakChange), matched by their place and their normalised cause (torch versions
    word the same break differently; the cause is the same), or their reason where the cause is unknown."""
    ka, kb = ({(_place(r, o, x.file, x.line), x.cause if x.cause != "unknown" else x.reason): x for x in v.code.breaks}
              for v, r, o in ((a, ra, rb), (b, rb, ra)))
    return tuple(BreakChange(file=key[0][0], line=x.line, change=change, reason=x.reason, failed=x.failed)
                 for change, mine, other in (("lost", ka, kb), ("gained", kb, ka))
                 for key, x in mine.items() if key not in other)


def regressions(result: Comparison, max_slowdown: float = 0.1) -> list[Regression]:
    """What got worse from the baseline to each other run of a Comparison (``render.comparison.regression`` says
    each): a variant that ran and now fails, a line verdict further down STATUSES (or less vectorized), a graph
    break gained, a program's function that now raises or recompiles more, a compiled variant or function slower by
    more than ``max_slowdown`` (a fraction; with rounds, slower in every round), a hot function's compiled candidate
    slower by more than that or one whose output no longer matches the program's."""
    return [r for pair in result.pairs for r in [*(r for v in pair.variants for r in _worse(pair, v, max_slowdown)),
                                                 *_worse_candidates(pair, max_slowdown)]]


def _worse_candidates(pair: RunPair, max_slowdown: float) -> list[Regression]:
    """The Regressions of a pair's hot functions' candidates (the function as written is none: it is the user's)."""
    found = []
    for h in pair.hotspots:
        for c in h.candidates:
            slower = c.compiled and c.time.speedup and c.time.speedup < 1 / (1 + max_slowdown)
            if c.id != "as-written" and (c.matches == (True, False) or slower and c.matches == (True, True)):
                found.append(Regression(pair.a, pair.b, h.id, h.function, RegressionKind.CANDIDATE, candidate=c))
    return found


def _worse(pair: RunPair, v: ComparedVariant, max_slowdown: float) -> list[Regression]:
    """The Regressions of one compared variant, in the order regressions lists them."""
    new = functools.partial(Regression, pair.a, pair.b, v.id, v.function)
    found = []
    if v.status[0] == Status.OK and v.status[1] != Status.OK:
        found.append(new(RegressionKind.STATUS, status=v.status[1], error=v.errors[1]))
    found += [new(RegressionKind.LINE, line=e) for e in v.changed_lines if _worse_line(e)]
    found += [new(RegressionKind.BREAK, graph_break=b) for b in v.breaks if b.change == "gained"]
    raised = v.run.raised if v.run else (None, None)
    if raised[1] and not raised[0]:
        found.append(new(RegressionKind.RAISED, call=raised[1][0], error=raised[1][1]))
    if v.run and v.run.recompiles[1] > v.run.recompiles[0]:
        found.append(new(RegressionKind.RECOMPILES, recompiles=v.run.recompiles))
    time = v.time
    best = time and (time.spread or (None, time.speedup))[1]
    if time and best and v.compiled and best < 1 / (1 + max_slowdown):
        found.append(new(RegressionKind.TIME, time=time))
    rerun = next((t for t in v.timing if t.what == RERUN), None)
    if rerun and rerun.a and rerun.b and rerun.b > RERUN_SLOWER * rerun.a and rerun.b - rerun.a > RERUN_SLOWER_S:
        found.append(new(RegressionKind.RERUN, time=rerun))
    return found


def _worse_line(e: ComparedLine) -> bool:
    """Whether a changed line's verdict got worse: further down STATUSES, or less vectorized (a rank unknown under
    either run is neither)."""
    ranks = (e.a.rank if e.a else None, e.b.rank if e.b else None)
    return ranks[0] is not None and ranks[1] is not None and ranks[1] > ranks[0]
