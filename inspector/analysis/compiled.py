"""What torch.compile made of one function's calls, from the record's raw facts alone: ``read`` reads the raw
artifacts of a sample's variant or a program's function (``of_variant``) or of a fix tried on a variant once, into
typed ``Pieces`` (``analysis.facts``), and ``build`` makes its ``CompiledCode`` from them in one go, counting, per
kind of torch output, what its parsers read and did not understand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Optional

from inspector import frames
from inspector.analysis import breaks, cost, kernels as kernels_mod, lines, machine
from inspector.analysis.facts import CompiledGraph, MachineEntry, NestRecord, Profiled
from inspector.analysis.parse import breaks as parse_breaks, decisions
from inspector.analysis.parse.breaks import BreakFacts
from inspector.model import (BreakCost, CompiledCode, CompileWarning, Env, Graph, Kernel, LineVerdict, Problem,
                             SizeCall, SourceFile, Unread, UnreadKind, WarningKind, of_raw)
from inspector.model.lines import FunctionSpan
from inspector.raw import (JSON, RawCapture, RawGraph, RawKernelTimes, RawPythonLine, RawRegions, RawSize,
                           RawThreadScaling, RawVariant)
from inspector.source import Place

# the kinds of torch output a compiled function's analysis parses: each counted, with what was not understood
ARTIFACTS = ("output code", "graph-break messages", "FX graph stack comments", "log records", "Inductor decisions",
             "machine code")
Seen = dict[str, tuple[int, list[Problem]]]  # {artifact: (how many were read, one problem per one not understood)}
NONE = RawCapture.from_json({})


@dataclass(frozen=True)
class Pieces:
    """What one function compiled and what the probe measured of it, read (``read``): the graphs its first
    compiling call compiled (``first``) and later calls compiled (``later``), and what it compiled, taken once
    (``graphs``, ``breaks``, ``machine_code``: its first call's, and for a program's function, ``watched`` whole, also
    its later calls'; a variant's later passes compile none of their own), with how many break messages torch wrote
    (``messages``), the log records capture read (``records``) and its problems, and the recompile limits torch said
    it hit (``limits``); then what the probe measured: the lines that ran as Python in one steady call, a profiled
    pass's kernel times and the time in and out of compiled graphs (``break_cost``), its kernels on fewer threads, a
    CUDA variant's autotuned launch configs, its calls at further population sizes (each with the compile ids and
    failed guards of its recompiles: ``size_recompiles``), how many calls it made after its first, and what
    inspector's bounds on its own cost cut short."""

    first: tuple[CompiledGraph, ...]
    later: tuple[CompiledGraph, ...]
    watched: bool  # its whole run was watched (a program's function): its later calls' own graphs count
    graphs: tuple[CompiledGraph, ...]
    breaks: tuple[BreakFacts, ...]  # each message once (``breaks.told``)
    first_breaks: tuple[BreakFacts, ...]  # every message of its first call's
    messages: int
    machine_code: tuple[MachineEntry, ...]
    records: int
    problems: tuple[str, ...]
    limits: tuple[str, ...]
    python_lines: tuple[Place, ...] = ()
    kernel_times: Optional[Profiled] = None
    thread_scaling: Optional[Profiled] = None
    break_cost: Optional[BreakCost] = None
    launch_configs: Optional[JSON] = None
    sizes: tuple[SizeCall, ...] = ()
    size_recompiles: tuple[tuple[int, Optional[str], str], ...] = ()  # (population, compile id, failed guard)
    calls: Optional[int] = None
    bounds: Sequence[str] = ()
    recompiled_in: Optional[Sequence[int]] = None  # a program's function: the calls in which torch recompiled
    timed_s: Optional[float] = None  # its call timed without the profiler (median): the timings', or its steady calls'
    subclasses: Sequence[tuple[str, str]] = ()  # a program's function: its first call's tensors of a library's class


def of_variant(raw: RawVariant) -> Pieces:
    """The pieces of a sample's variant or a program's function (one with ``run`` facts), its call timed as the
    probe's own timings say it (a sample's first timing, before any round; a program's steady calls)."""
    replayed = raw.run.replay.kernel_times if raw.run and raw.run.replay else None  # its kernels, where it timed them
    pieces = read(raw.capture or NONE, raw.recompiles or NONE, bool(raw.run), raw.sizes or (),
                  python_lines=raw.python_lines or (),
                  kernel_times=replayed if replayed and replayed.events else raw.kernel_times,
                  thread_scaling=raw.thread_scaling, regions=raw.regions)
    return replace(pieces, launch_configs=raw.launch_configs, calls=raw.calls, bounds=raw.bounds or (),
                   recompiled_in=[c.call or 0 for c in raw.run.compiles or [] if c.kind == "recompile"]
                   if raw.run else None, timed_s=raw.timing.median_s if raw.timing else None,
                   subclasses=[(a.name or "", a.subclass) for a in (raw.run.arguments if raw.run else None) or []
                               if a.subclass])


def read(first: RawCapture, later: RawCapture, watched: bool, sizes: Sequence[RawSize], *,
         python_lines: Sequence[RawPythonLine] = (), kernel_times: Optional[RawKernelTimes] = None,
         thread_scaling: Optional[RawThreadScaling] = None, regions: Optional[RawRegions] = None) -> Pieces:
    """The Pieces of what a first compiling call compiled (``first``) and later calls compiled (``later``; a fix
    tried on a variant: none), each artifact read once, and of what the probe measured of it (``of_variant`` gives
    the rest of a variant's or a function's, read as they are)."""
    also = later if watched else NONE
    hooks = first.decision_hooks
    firsts, laters = tuple(_graph(g, hooks) for g in first.graphs or []), tuple(
        _graph(g, hooks) for g in later.graphs or [])
    first_breaks = tuple(parse_breaks.parse(b) for b in first.breaks or [])
    later_breaks = tuple(parse_breaks.parse(b) for b in also.breaks or [])
    messages = len(first_breaks) + len(later_breaks)
    graphs = firsts + (laters if watched else ())
    return Pieces(
        first=firsts, later=laters, watched=watched, graphs=graphs,
        breaks=tuple(breaks.told(first_breaks + later_breaks)), first_breaks=first_breaks, messages=messages,
        machine_code=tuple(of_raw(MachineEntry, m) for m in [*(first.machine_code or []), *(also.machine_code or [])]),
        records=first.given("records", len(graphs) + messages), problems=tuple(first.problems or []),
        limits=tuple([*(first.limits or []), *(later.limits or [])]),
        python_lines=tuple(of_raw(Place, p) for p in python_lines),
        kernel_times=of_raw(Profiled, kernel_times) if kernel_times else None,
        thread_scaling=of_raw(Profiled, thread_scaling) if thread_scaling else None,
        break_cost=breaks.cost(regions.total_s, regions.graphs_s) if regions else None,
        sizes=tuple(of_raw(SizeCall, s, recompiles=len(s.recompiles or []), guards=tuple(  # the guards that failed
            r.reason for r in s.recompiles or [] if r.reason)) for s in sizes),  # (a frame re-entered: none)
        size_recompiles=tuple((s.population or 0, r.compile_id, r.reason) for s in sizes for r in s.recompiles or []
                              if r.reason))


def _graph(raw: RawGraph, hooks: Optional[dict[str, str]]) -> CompiledGraph:
    """One graph read: its nest records with Inductor's decisions parsed (``hooks``: the capture's {decision kind:
    "recorded" or why not})."""
    nests = tuple(NestRecord(tuple(n.code or ()), tuple(o.stack or "" for o in n.origins or []), tuple(n.nodes or ()),
                             *decisions.parse(n.decisions, hooks), len(n.decisions or [])) for n in raw.nests) \
        if raw.nests is not None else None
    return CompiledGraph(
        raw.compile_id, raw.fx_graph or "", tuple(raw.output_code or ()), nests,
        tuple((r.nodes[0], r.nodes[1], r.reason) for r in raw.fusion or [] if r.nodes and len(r.nodes) == 2),
        dict(raw.kernel_stack_traces or {}), raw.metrics, raw.fx_graph_cache, raw.kept)


@dataclass(frozen=True)
class Context:
    """What every compiled function of one record is read against: the files its evidence may name, the machine,
    and the population's shape."""

    sources: lines.Sources
    env: Env
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Target:
    """The function whose lines get verdicts: the file its code is in, and its name there."""

    file: SourceFile
    function: str


def build(pieces: Pieces, target: Optional[Target], context: Context) -> tuple[CompiledCode, Seen]:
    """The CompiledCode of one function and what its parsers read: its kernels (each with its cost), graphs and
    breaks, and, for a ``target`` that ran (None: it did not), its warnings and line verdicts."""
    kernels, graphs, seen = _kernels(pieces)
    within = (target.file.path, target.function.split(".")[-1]) if target else None
    graph_breaks, break_problems = breaks.distinct(pieces.breaks, context.sources, within)
    graph_breaks = breaks.given_subclass(graph_breaks, pieces.subclasses)
    bandwidth = context.env.memory_bandwidth.gb_s if context.env.memory_bandwidth else None
    kernels, split, threads = cost.costs(kernels, pieces.kernel_times, pieces.thread_scaling, bandwidth,
                                         broken=bool(pieces.messages), timed_s=pieces.timed_s,
                                         timed_apart=pieces.watched)
    again = breaks.recompilation(pieces.first, pieces.later, pieces.limits, pieces.watched, pieces.calls,
                                 pieces.recompiled_in)
    warnings: list[CompileWarning] = []
    verdicts: list[LineVerdict] = []
    if target:
        statements = lines.scope(target.file.source, target.function)
        warnings = breaks.warnings(pieces.graphs, again, pieces.size_recompiles, statements, context.sources,
                                   target.file)
        evidence = lines.Evidence(pieces.graphs, pieces.python_lines, kernels, graph_breaks,
                                  [w for w in warnings if w.kind == WarningKind.UNROLLED_LOOP], split, threads)
        verdicts = lines.verdicts(evidence, context.sources, context.env, {target.file.path: statements},
                                  context.shape)
    seen["graph-break messages"] = (pieces.messages, break_problems)
    seen["log records"] = (pieces.records, [Problem((Unread(UnreadKind.PROBE, p),)) for p in pieces.problems])
    return CompiledCode(
        kernels=tuple(kernels), graphs=tuple(graphs), breaks=tuple(graph_breaks), break_cost=pieces.break_cost,
        warnings=tuple(warnings), lines=tuple(verdicts), time_split=split,
        compile_phases=cost.phases([(g.metrics, g.fx_graph_cache) for g in pieces.graphs if g.metrics]),
        threads=threads, recompile_count=len(pieces.later), recompilation=again, sizes=pieces.sizes,
        bounds=tuple(pieces.bounds), functions=_functions(verdicts, context.sources)), seen


def _functions(verdicts: Sequence[LineVerdict], sources: lines.Sources) -> tuple[tuple[str, tuple[FunctionSpan, ...]],
                                                                             ...]:
    """Per file holding line verdicts (its display name), the spans of the innermost functions around them."""
    around = ((f.display, lines.functions_around(f.source, {e.line for e in verdicts if e.file == f.display}))
              for f in sources.files)
    return tuple((display, spans) for display, spans in around if spans)


def _kernels(pieces: Pieces) -> tuple[list[Kernel], list[Graph], Seen]:
    """The kernels of the graphs that produced output code (joined to the probe's nest records and Inductor's
    decisions, their launch configs and machine code), the Graphs, and what the output code, FX graph comments,
    decision records and machine code held that was not understood."""
    graphs, found, problems, decision_problems, parts = [], [], [], [], 0
    for g in pieces.graphs:
        if not g.output_code:  # a frame Dynamo entered that produced no graph (or an attempt it restarted)
            continue
        names = []
        for code in g.output_code:
            split = kernels_mod.split(code, g.compile_id)
            problems += split.problems
            parts += split.read
            joined, unread = kernels_mod.with_nest_records(split.kernels, g.nests)
            found += joined
            decision_problems += [Problem((u,), graph=g.compile_id) for u in unread]
            names += [k.name for k in split.kernels]
        graphs.append(Graph(g.compile_id, (g.metrics or {}).get("graph_op_count"), g.fx_graph_cache, names,
                            list(g.output_code)))
    kernels = kernels_mod.with_launch_configs(kernels_mod.with_ids(found), pieces.launch_configs)
    kernels, machine_seen = machine.with_machine_code(kernels, pieces.machine_code)
    seen: Seen = {
        "output code": (parts, problems),
        "FX graph stack comments": (sum(g.fx_graph.count("# File:") for g in pieces.graphs),
                                    [Problem((Unread(UnreadKind.FX_COMMENT, c),), graph=g.compile_id)
                                     for g in pieces.graphs for c in frames.unread_comments(g.fx_graph)]),
        "Inductor decisions": (sum(n.entries for g in pieces.graphs for n in g.nests or ()), decision_problems),
        "machine code": machine_seen}
    return kernels, graphs, seen
