"""The one adapter between inspector's analysis model and ``inspector check``: what a record shows, as check's own
typed facts. Everything else in inspector.contracts reads these, never the model, so that a change of the model is a
change of this file.

What is read, from ``analyze(record)`` (inspector.model) and the record itself:
- the run: ``env`` (torch, cpu, isa, threads, cuda), ``config`` and ``compile_options`` (as compare labels them),
  ``files`` (each file's path, display name, kind and source), ``program`` (a program's run; ``program.eager``: an
  eager time per function), ``load.busy``; the record's ``job``;
- per compiled variant (previews left out): ``id``, ``function``, ``code`` (its file and def line), ``status``,
  ``error``/``mismatch``, ``graphs`` (and each one's FX graph ``cache`` outcome), ``breaks``, the recompiles (a
  program's ``run.recompiles``, a sample's ``recompilation.count``), ``recompilation.limit``, torch's compile time
  (a program's ``run.compile_s``, a sample's ``compile_phases.total_s``), ``timing.rounds_s`` and
  ``timing.per_population_s`` (speedups, from ``inspector.analysis.rounds.side_by_side``), ``load.busy``;
- per line verdict: ``file``, ``line``, ``end_line``, ``function``, ``status``, ``vectorized``, the texts of its
  ``why`` by kind, and its ``nests`` ("kernel id#index"), each nest's (else its kernel's) ``machine`` code
  (``simd`` and the head of ``describe()``).
- ``regressions``: compare.compare and compare.regressions of two records (see its docstring), each Regression with
  its place and its words (``render.comparison.worse``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from inspector.analysis import analyze
from inspector.analysis import compare as compare_mod
from inspector.analysis.rounds import side_by_side
from inspector.model import (BreakEven, Kernel, LineStatus, LineVerdict, MachineCode, ProgramAnalysis, ProgramFunction,
                             ReasonKind, Regression, RegressionKind, RunAnalysis, SampleAnalysis, SampleVariant,
                             Vectorized)
from inspector.source import Place
from inspector.raw import RawRecord
from inspector.render import said
from inspector.render.comparison import worse

Unit = Union[SampleVariant, ProgramFunction]  # a sample's variant or a program's compiled function
SERIAL = frozenset({ReasonKind.SERIAL})
EAGER = frozenset({ReasonKind.EAGER, ReasonKind.GRAPH_BREAK, ReasonKind.FIX})
LIBRARY = frozenset({ReasonKind.LIBRARY_CALL, ReasonKind.GENERATED_AROUND})
SCALAR = frozenset({ReasonKind.INDUCTOR_SCALAR, ReasonKind.MACHINE_DISAGREES})  # besides every not-vectorized-* kind
MAX_SLOWDOWN = 0.1  # compare --fail-on-regression's default
CALLS = (RegressionKind.RAISED, RegressionKind.RECOMPILES)  # a Worse of kind "calls"


@dataclass(frozen=True)
class Nest:
    """A loop nest (or a kernel without one) a line is placed in, and its machine code's SIMD, when recorded."""

    kernel: str
    index: int | None
    simd: str | None  # packed | mixed | scalar | moves | None (no machine code recorded)
    said: str  # "packed SIMD (zmm)", "scalar only", ...


@dataclass(frozen=True)
class LineFact(Place):
    """A line's verdict in one compiled variant, at one of its call sites."""

    file: str = field(kw_only=True)  # the record's name of its file
    line: int = field(kw_only=True)
    end_line: int
    function: str
    status: LineStatus | None  # None: no evidence names it
    vectorized: Vectorized | None
    serial_why: tuple[str, ...]
    eager_why: tuple[str, ...]
    library_why: tuple[str, ...]
    scalar_why: tuple[str, ...]
    no_isa: bool  # torch found no vector instruction set for it
    nests: tuple[Nest, ...]


@dataclass(frozen=True)
class Speedup:
    """A variant against another: ``low``/``median``/``high`` of the ratios over ``rounds`` alternating rounds
    (above 1: faster), or ``once`` the ratio of two times taken one after the other; ``busy``: the machine-load
    caution on either timing."""

    against: str
    rounds: int
    low: float | None
    median: float | None
    high: float | None
    once: float | None
    busy: str | None


@dataclass(frozen=True)
class FunctionFact(Place):
    """A compiled variant (a program's compiled function): how it ran and what it compiled; ``file``: the record's
    name of its file, ``line``: its def (or decorator) line there."""

    variant: str
    function: str
    state: str  # ran | failed | skipped
    error: str | None
    graphs: int
    breaks: int
    recompiles: int
    limit: str | None  # "recompile_limit = 8" when Dynamo gave up compiling
    compile_s: float | None  # torch's own compile time
    cached: bool  # an FX graph cache hit: Inductor skipped code generation for a graph
    pays_after: Optional[BreakEven]  # calls after which its compile paid (calls None: never; None: unknown)
    warm_pays_after: Optional[BreakEven]  # the same for a rerun's compile, torch's caches warm
    speedups: tuple[Speedup, ...]
    lines: tuple[LineFact, ...]


@dataclass(frozen=True)
class HotFact(Place):
    """One of a program's functions that held its time (``inspector run`` sampled it): its share of the run."""

    function: str
    file: str = field(kw_only=True)  # the record's name of its file
    line: int = field(kw_only=True)  # its def line
    share: float
    shape: str  # individual | population | neither | once | unknown


@dataclass(frozen=True)
class SourceText:
    path: str
    display: str
    kind: str  # sample | user | library | stdlib
    text: str


@dataclass(frozen=True)
class RunFacts:
    """One record: which run it is, on what, and its compiled variants' facts."""

    name: str  # the record's stem
    sample: str  # the sample's or program's path as recorded
    program: bool
    job: str | None
    torch: str
    config: tuple[str, ...]
    cpu: str | None
    isa: str | None
    threads: int | None
    cuda: str | None
    files: tuple[SourceText, ...]
    functions: tuple[FunctionFact, ...]
    variants: tuple[str, ...]  # every variant's id, eager ones too
    hot: tuple[HotFact, ...] = ()  # a program's functions that held its time, the most first
    sampled: bool = False  # a program whose time was sampled (its functions' shares are known)


@dataclass(frozen=True)
class Worse(Place):
    """What got worse from a baseline record to this one, by compare's rules: ``kind`` status | line | break |
    calls | time | candidate (a hot function's candidate whose output no longer matches); where (``file`` None: the
    sample; ``line``: in this record), and ``eager_now``: the line now runs eagerly (or breaks the graph)."""

    variant: str
    function: str
    kind: str
    text: str
    eager_now: bool
    interleaved: bool  # the two timings were taken side by side (a time regression is then one)


def read(record: RawRecord, name: str) -> RunFacts:
    """The RunFacts of ``record`` (its stem ``name``)."""
    a = analyze(record)
    env = a.env
    program = a.program if isinstance(a, ProgramAnalysis) else None
    units: tuple[Unit, ...] = program.functions if program else a.variants if isinstance(a, SampleAnalysis) else ()
    compiled = [v for v in units if isinstance(v, ProgramFunction) or v.compiled and not v.preview]
    return RunFacts(name=name, sample=a.sample.path, program=program is not None, job=record.job,
                    torch=env.torch or "unknown", config=compare_mod.config(a), cpu=env.cpu, isa=env.isa,
                    threads=env.threads, cuda=env.cuda,
                    files=tuple(SourceText(f.path, f.display, f.kind, f.source) for f in a.files),
                    functions=tuple(_function(a, v) for v in compiled), variants=tuple(v.id for v in units),
                    hot=tuple(HotFact(h.function, h.share, h.shape, line=h.line,
                                      file=next((f.display for f in a.files if f.path == h.file), h.file))
                              for h in program.hotspots) if program else (),
                    sampled=bool(program and program.hotspots))


def _function(a: RunAnalysis, v: Unit) -> FunctionFact:
    location, code = v.location, v.code
    path = location.file if location else None
    shown = next((f.display for f in a.files if f.path == path), path)
    state = ("skipped" if v.status == "skipped" else "failed" if v.failed else "ran")
    check = v.check if isinstance(v, SampleVariant) else None
    error = v.error or (f"does not match {check.against}: {check.mismatch}" if check and check.mismatch else None)
    if isinstance(v, ProgramFunction):
        recompiles, compile_s = len(v.run.recompiles), v.run.compile_s
    else:
        recompiles = code.recompilation.count if code.recompilation else 0
        compile_s = code.compile_phases.total_s if code.compile_phases else None
    return FunctionFact(
        variant=v.id, function=v.function, file=shown, line=location.line if location else None, state=state,
        error=error, graphs=len(code.graphs), breaks=len(code.breaks), recompiles=recompiles,
        limit=code.recompilation.limit if code.recompilation else None, compile_s=compile_s,
        cached=any(g.cache == "hit" for g in code.graphs),
        pays_after=v.speedups.break_even if isinstance(v, SampleVariant) else (
            BreakEven(v.replay.pays_after) if v.replay and v.replay.compile_s is not None else None),
        warm_pays_after=v.speedups.warm_break_even if isinstance(v, SampleVariant) else (
            v.replay.warm if v.replay else None),
        speedups=tuple(_speedups(a, v)),
        lines=tuple(_line(v, e) for e in code.lines))


def _speedups(a: RunAnalysis, v: Unit) -> list[Speedup]:
    """``v`` against every other variant timed in the run (a program's function: against its eager time)."""
    found = []
    busy = _busy(v) or (said.busy(a.load) if a.load else None)
    if isinstance(a, ProgramAnalysis):  # its other functions compute other things: only its eager time compares
        eager = a.program.eager.get(v.id)
        return [Speedup("eager", 0, None, None, None, eager / v.timing.median_s, busy)] if eager and v.timing else []
    for other in a.variants:
        if other.id == v.id or not (other.timing and v.timing) or other.preview:
            continue
        caution = busy or _busy(other)
        side = side_by_side(other.timing.rounds_s, v.timing.rounds_s)
        if side:
            median, (low, high), rounds = side
            found.append(Speedup(other.id, len(rounds), low, median, high, None, caution))
        else:
            found.append(Speedup(other.id, 0, None, None, None,
                                 other.timing.per_population_s / v.timing.per_population_s, caution))
    return found


def _busy(v: Unit) -> str | None:
    """Why a variant's timing is suspect (a busy machine while it was timed), or None."""
    load = v.timing.load if v.timing else None
    return said.busy(load) if load else None


def _line(v: Unit, e: LineVerdict) -> LineFact:
    def texts(wanted: frozenset[ReasonKind]) -> tuple[str, ...]:
        return tuple(said.reason(r) for r in e.why if r.kind in wanted)

    return LineFact(
        file=e.file, line=e.line, end_line=e.end_line, function=e.function, status=e.status,
        vectorized=e.vectorized, serial_why=texts(SERIAL), eager_why=texts(EAGER), library_why=texts(LIBRARY),
        scalar_why=tuple(said.reason(r) for r in e.why if r.not_vectorized or r.kind in SCALAR),
        no_isa=any(r.kind == ReasonKind.NOT_VECTORIZED_NO_ISA for r in e.why), nests=tuple(_nests(v, e)))


def _nests(v: Unit, e: LineVerdict) -> list[Nest]:
    """The loop nests (or, placed without one, the kernels) a line verdict names, with their machine code."""
    kernels: dict[str, Kernel] = {k.id: k for k in v.code.kernels}
    found = []
    for ref in e.nests:
        kid, _, index = ref.rpartition("#")
        kernel = kernels.get(kid)
        if kernel is None:
            continue
        nest = next((n for n in kernel.loop_nests if str(n.index) == index), None)
        machine = nest.machine if nest and nest.machine else kernel.machine if len(kernel.loop_nests) <= 1 else None
        found.append(_nest(kernel.name, nest.index if nest else None, machine))
    placed = {ref.rpartition("#")[0] for ref in e.nests}
    found += [_nest(kernels[k].name, None, kernels[k].machine) for k in e.kernels
              if k in kernels and k not in placed and kernels[k].backend == "cpp"]
    return found


def _nest(kernel: str, index: int | None, machine: Optional[MachineCode]) -> Nest:
    if machine is None:
        return Nest(kernel, index, None, "no machine code recorded")
    return Nest(kernel, index, machine.simd, machine.describe().split(":", 1)[0])


def regressions(before: RawRecord, after: RawRecord) -> list[Worse]:
    """What got worse from ``before`` (a baseline) to ``after``, by ``compare --fail-on-regression``'s rules
    (compare.regressions), each at its place. compare.CompareError when the records are of different samples."""
    result = compare_mod.compare([analyze(before), analyze(after)])
    interleaved = {pair.b: pair.interleaved for pair in result.pairs}
    return [Worse(r.variant, r.function, _kind(r), worse(r), _eager_now(r), interleaved[r.b],
                  file=r.place.file if r.place else None, line=r.place.line if r.place else None)
            for r in compare_mod.regressions(result, MAX_SLOWDOWN)]


def _kind(r: Regression) -> str:
    """A regression's kind as a lock judges it: a hot function's candidate that still matches but got slower is a
    timing (inconclusive where the runs were not side by side, as a program's never are)."""
    if r.kind in CALLS:
        return "calls"
    if r.kind == RegressionKind.CANDIDATE and r.candidate and r.candidate.matches == (True, True):
        return "time"
    return r.kind.value


def _eager_now(r: Regression) -> bool:
    """Whether a regression's line now runs eagerly, or breaks the graph (a break gained: it does)."""
    now = r.line.b.verdicts if r.line and r.line.b else ()
    return r.kind == RegressionKind.BREAK or any(s in (LineStatus.EAGER, LineStatus.GRAPH_BREAK) for s, _ in now)
