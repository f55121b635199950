"""What torch.compile made of one function's calls, from the record's raw facts alone: ``build`` makes its
``CompiledCode`` in one go from the raw pieces (``Pieces``) that a sample's variant, a program's function or a fix
tried on a variant holds, and counts, per kind of torch output, what its parsers read and did not understand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from inspector import frames
from inspector.analysis import breaks, cost, kernels as kernels_mod, lines, machine
from inspector.model import (CompiledCode, CompileWarning, Env, Graph, Kernel, LineVerdict, Problem, SizeCall,
                             SourceFile, Unread, UnreadKind, WarningKind, of_raw)
from inspector.model.lines import FunctionSpan
from inspector.raw import (JSON, RawBreak, RawCapture, RawGraph, RawKernelTimes, RawMachineCode, RawPythonLine,
                           RawRegions, RawSize, RawThreadScaling, RawTrial, RawVariant)

# the kinds of torch output a compiled function's analysis parses: each counted, with what was not understood
ARTIFACTS = ("output code", "graph-break messages", "FX graph stack comments", "log records", "Inductor decisions",
             "machine code")
Seen = dict[str, tuple[int, list[Problem]]]  # {artifact: (how many were read, one problem per one not understood)}
NONE = RawCapture.from_json({})


@dataclass(frozen=True)
class Pieces:
    """The raw facts about one function's compiled code: what its first compiling call compiled (``capture``: its
    graphs, breaks and machine code, Inductor's decision hooks, the log records read and their problems, recompile
    limits hit) and what later calls compiled (``recompiles``); what it compiled, taken once (``graphs``, ``breaks``,
    ``machine_code``: its first call's, and for a program's function, ``watched`` whole, also its later calls'; a
    variant's later passes compile none of their own), and what the probe measured of it: the lines that ran as
    Python in one steady call, a profiled pass's kernel times and time in and out of compiled graphs, its kernels on
    fewer threads, a CUDA variant's autotuned launch configs, its calls at further population sizes, how many calls
    it made after its first, and what inspector's bounds on its own cost cut short."""

    capture: RawCapture
    recompiles: RawCapture
    watched: bool  # its whole run was watched (a program's function): its later calls' own graphs count
    graphs: list[RawGraph]
    breaks: list[RawBreak]
    machine_code: list[RawMachineCode]
    python_lines: Sequence[RawPythonLine] = ()
    kernel_times: Optional[RawKernelTimes] = None
    thread_scaling: Optional[RawThreadScaling] = None
    regions: Optional[RawRegions] = None
    launch_configs: Optional[JSON] = None
    sizes: Sequence[RawSize] = ()
    calls: Optional[int] = None
    bounds: Sequence[str] = ()
    recompiled_in: Optional[Sequence[int]] = None  # a program's function: the calls in which torch recompiled
    timed_s: Optional[float] = None  # its call timed without the profiler (median): the timings', or its steady calls'
    subclasses: Sequence[tuple[str, str]] = ()  # a program's function: its first call's tensors of a library's class


def of_variant(raw: RawVariant) -> Pieces:
    """The pieces of a sample's variant or a program's function (one with ``run`` facts), its call timed as the
    probe's own timings say it (a sample's first timing, before any round; a program's steady calls)."""
    first, later, watched = raw.capture or NONE, raw.recompiles or NONE, bool(raw.run)
    also = later if watched else NONE
    replayed = raw.run.replay.kernel_times if raw.run and raw.run.replay else None  # its kernels, where it timed them
    return Pieces(first, later, watched, [*(first.graphs or []), *(also.graphs or [])],
                  [*(first.breaks or []), *(also.breaks or [])],
                  [*(first.machine_code or []), *(also.machine_code or [])], raw.python_lines or (),
                  replayed if replayed and replayed.events else raw.kernel_times,
                  raw.thread_scaling, raw.regions, raw.launch_configs, raw.sizes or (), raw.calls,
                  raw.bounds or (), [c.call or 0 for c in raw.run.compiles or [] if c.kind == "recompile"]
                  if raw.run else None, raw.timing.median_s if raw.timing else None,
                  [(a.name or "", a.subclass) for a in (raw.run.arguments if raw.run else None) or [] if a.subclass])


def of_trial(raw: RawTrial) -> Pieces:
    """The pieces of a fix tried on a variant: what it compiled, and its calls at further sizes."""
    first = raw.capture or NONE
    return Pieces(first, NONE, False, list(first.graphs or []), list(first.breaks or []),
                  list(first.machine_code or []), sizes=raw.sizes or ())


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
    graphs_raw = pieces.graphs
    kernels, graphs, seen = _kernels(pieces, graphs_raw)
    breaks_raw = pieces.breaks
    within = (target.file.path, target.function.split(".")[-1]) if target else None
    graph_breaks, break_problems = breaks.distinct(breaks_raw, context.sources, within)
    graph_breaks = breaks.given_subclass(graph_breaks, pieces.subclasses)
    bandwidth = context.env.memory_bandwidth.gb_s if context.env.memory_bandwidth else None
    kernels, split, threads = cost.costs(kernels, pieces.kernel_times, pieces.thread_scaling, bandwidth,
                                         broken=bool(breaks_raw), timed_s=pieces.timed_s, timed_apart=pieces.watched)
    again = breaks.recompilation(pieces.capture, pieces.recompiles, pieces.watched, pieces.calls,
                                 pieces.recompiled_in)
    warnings: list[CompileWarning] = []
    verdicts: list[LineVerdict] = []
    if target:
        statements = lines.scope(target.file.source, target.function)
        warnings = breaks.warnings(graphs_raw, again, pieces.sizes, statements, context.sources, target.file)
        evidence = lines.Evidence(graphs_raw, pieces.python_lines, kernels, graph_breaks,
                                  [w for w in warnings if w.kind == WarningKind.UNROLLED_LOOP], split, threads)
        verdicts = lines.verdicts(evidence, context.sources, context.env, {target.file.path: statements},
                                  context.shape)
    seen["graph-break messages"] = (len(breaks_raw), break_problems)
    seen["log records"] = (pieces.capture.given("records", len(graphs_raw) + len(breaks_raw)),
                           [Problem((Unread(UnreadKind.PROBE, p),)) for p in pieces.capture.problems or []])
    return CompiledCode(
        kernels=tuple(kernels), graphs=tuple(graphs), breaks=tuple(graph_breaks),
        break_cost=breaks.cost(pieces.regions.total_s, pieces.regions.graphs_s) if pieces.regions else None,
        warnings=tuple(warnings), lines=tuple(verdicts), time_split=split,
        compile_phases=cost.phases([(g.metrics, g.fx_graph_cache) for g in graphs_raw if g.metrics]),
        threads=threads, recompile_count=len(pieces.recompiles.graphs or []), recompilation=again,
        sizes=tuple(of_raw(SizeCall, s, recompiles=len(s.recompiles or []), guards=tuple(  # the guards that failed
            r.reason for r in s.recompiles or [] if r.reason)) for s in pieces.sizes),  # (a frame re-entered: none)
        bounds=tuple(pieces.bounds),
        functions=_functions(verdicts, context.sources)), seen


def _functions(verdicts: Sequence[LineVerdict], sources: lines.Sources) -> tuple[tuple[str, tuple[FunctionSpan, ...]],
                                                                             ...]:
    """Per file holding line verdicts (its display name), the spans of the innermost functions around them."""
    around = ((f.display, lines.functions_around(f.source, {e.line for e in verdicts if e.file == f.display}))
              for f in sources.files)
    return tuple((display, spans) for display, spans in around if spans)


def _kernels(pieces: Pieces, graphs_raw: list[RawGraph]) -> tuple[list[Kernel], list[Graph], Seen]:
    """The kernels of the graphs that produced output code (joined to the probe's nest records and Inductor's
    decisions, their launch configs and machine code), the Graphs, and what the output code, FX graph comments,
    decision records and machine code held that was not understood."""
    graphs, found, problems, decision_problems, parts = [], [], [], [], 0
    for g in graphs_raw:
        codes = g.output_code or []
        if not codes:  # a frame Dynamo entered that produced no graph (or an attempt it restarted)
            continue
        names = []
        for code in codes:
            split = kernels_mod.split(code, g.compile_id)
            problems += split.problems
            parts += split.read
            joined, unread = kernels_mod.with_nest_records(split.kernels, g.nests, pieces.capture.decision_hooks)
            found += joined
            decision_problems += [Problem((u,), graph=g.compile_id) for u in unread]
            names += [k.name for k in split.kernels]
        graphs.append(Graph(g.compile_id, (g.metrics or {}).get("graph_op_count"), g.fx_graph_cache, names, codes))
    kernels = kernels_mod.with_launch_configs(kernels_mod.with_ids(found), pieces.launch_configs)
    kernels, machine_seen = machine.with_machine_code(kernels, pieces.machine_code)
    seen: Seen = {
        "output code": (parts, problems),
        "FX graph stack comments": (sum((g.fx_graph or "").count("# File:") for g in graphs_raw),
                                    [Problem((Unread(UnreadKind.FX_COMMENT, c),), graph=g.compile_id)
                                     for g in graphs_raw for c in frames.unread_comments(g.fx_graph or "")]),
        "Inductor decisions": (sum(len(n.decisions or []) for g in graphs_raw for n in g.nests or []),
                               decision_problems),
        "machine code": machine_seen}
    return kernels, graphs, seen

