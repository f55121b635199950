"""Line verdicts: for a compiled function, what happened to each line of every file its code came from: the
sample, the user's own modules, and libraries.

Evidence, best first (each verdict says which gave it, in ``how``):
- ``loop_nest``: the probe's records of the loop nests Inductor's C++ backend generated, with their user stacks;
- ``provenance``: Inductor's kernel stack traces (torch >= 2.6 with provenance tracking);
- ``origin``: ``// ORIGIN:`` comments inside a kernel (comment_origin, torch 2.1, older records);
- ``fx_graph``: the FX graph's node stack comments, graph-level only;
- ``python_trace``: lines that ran as Python bytecode during a steady-state compiled call (eager);
- ``graph_break``: Dynamo's graph-break message.

``verdicts`` makes each line's verdict once, from all of it (``Evidence``): where the time went and whether
parallel paid are said on a line beside what the placing evidence says.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Optional, Union

from inspector import frames as parse_frames
from inspector.analysis import cost, machine
from inspector.analysis.facts import CompiledGraph
from inspector.analysis.machine import Unit
from inspector.files import same_path
from inspector.model.lines import FunctionSpan
from inspector.model import (LISTED, Backend, Backends, BreakAt, CompileWarning, Env, Gathered, GraphBreak, How, Kernel,
                             LaneOps, LineStatus, LineVerdict, LoopNest, Named, NestAt, NestRun, Nests, NoLoop,
                             NonContiguous, Overruled, Reason, ReasonKind, Serial, SerialCause, SmallLoops, SourceFile,
                             Tail, ThreadScaling, Tiling, TimeSplit, TritonLoads, Undecided, Unfused, Unrecorded,
                             Unrolled, Vectorized)
from inspector.source import Place as Line

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
Place = tuple[tuple[str, ...], Optional[int]]  # (kernel ids, nest index or None): one alternative of a group
Key = tuple[str, int, tuple[tuple[str, int], ...]]  # (path, line, the call sites above it: (path, line))
# {compile id: [(nodes of one, nodes of the other, the scheduler's reason, the pair as said)]} (see _fusion)
Fusion = dict[Optional[str], list[tuple[set[str], set[str], Optional[str], str]]]


class Sources:
    """The files a variant's evidence may point into, and the file a stack frame is in."""

    def __init__(self, files: list[SourceFile]) -> None:
        self.files = files
        self.by_path = {f.path: f for f in files}
        self.by_display = {f.display: f for f in files}
        self._trees: dict[str, Optional[ast.Module]] = {}

    def resolve(self, frame: parse_frames.Frame) -> Optional[SourceFile]:
        """The SourceFile of ``frame``, or None (torch's own files, or a file not in the record).

        Stacks from an older record may name the sample from another checkout (Inductor's cache kept the path
        of whoever compiled the graph first): a frame counts as the sample's when the file name matches and the
        code on that line is the sample's."""
        found = self.by_path.get(frame.file) or next((f for f in self.files if same_path(frame.file, f.path)), None)
        if found or not frame.code:
            return found
        name = frame.file.rsplit("/", 1)[-1]
        return next((f for f in self.files if f.kind != "library" and f.path.rsplit("/", 1)[-1] == name
                     and f.text(frame.line) == frame.code.strip()), None)

    def tree(self, file: SourceFile) -> Optional[ast.Module]:
        if file.path not in self._trees:
            self._trees[file.path] = parse(file.source)
        return self._trees[file.path]

    def chain(self, text: str) -> list[tuple[SourceFile, int]]:
        """[(SourceFile, line)] of a stack's frames in annotated files, outermost first."""
        return [(f, frame.line) for frame in parse_frames.stack(text) if (f := self.resolve(frame))]

    def comments(self, text: str) -> list[tuple[SourceFile, int]]:
        """[(SourceFile, line)] of an FX graph's stack comments in annotated files, in node order."""
        return [(f, frame.line) for frame in parse_frames.comments(text) if (f := self.resolve(frame))]


@dataclass(frozen=True)
class Statement:
    """A statement with a runtime effect, as a verdict covers it: its last line (a compound statement's header
    only), its function, whether it is a loop, and the header line of the innermost loop around it (None: none)."""

    end: int
    function: str
    loop: bool
    in_loop: Optional[int]


Statements = dict[int, Statement]  # {first line: its statement}


@dataclass(frozen=True)
class Scope:
    """Functions of one file, as line verdicts cover them: their statements by first line, and their spans."""

    statements: Statements
    functions: tuple[FunctionSpan, ...]


def scope(source: str, function: str) -> Scope:
    """The statements of ``function`` and of the same-file helpers it calls, transitively."""
    tree = ast.parse(source)
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    todo, seen = [function], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        params = {a.arg for a in ast.walk(defs[name].args) if isinstance(a, ast.arg)}
        todo += [n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name) and n.id in defs
                 and n.id not in params]
    found = sorted((defs[name] for name in seen), key=lambda f: f.lineno)
    return Scope({line: info for f in found for line, info in _function_lines(f).items()},
                 tuple(_span(f) for f in found))


def enclosing_scope(tree: ast.Module, lines: Iterable[int]) -> Scope:
    """The statements and spans of the innermost functions (methods included) around each of ``lines``, as
    ``scope``."""
    found = {f: None for line in lines if (f := innermost(tree, line)) is not None}
    inner = sorted(found, key=lambda f: f.lineno)
    return Scope({line: info for f in inner for line, info in _function_lines(f).items()},
                 tuple(_span(f) for f in inner))


def innermost(tree: ast.Module, line: int) -> Optional[FunctionNode]:
    """The innermost function (or method) around ``line``, or None."""
    around = [f for f in _functions(tree) if f.lineno <= line <= (f.end_lineno or f.lineno)]
    return min(around, key=lambda f: (f.end_lineno or f.lineno) - f.lineno) if around else None


def only_call(source: str, line: int) -> bool:
    """Whether the call at ``line`` is all the function around it does: its one statement (the docstring aside) is
    that call, returned or not."""
    tree = parse(source)
    function = innermost(tree, line) if tree else None
    body = function.body if function else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    value = body[0].value if len(body) == 1 and isinstance(body[0], (ast.Return, ast.Expr)) else None
    return isinstance(value, ast.Call) and value.lineno <= line <= (value.end_lineno or value.lineno)


def functions_around(source: str, lines: Iterable[int]) -> tuple[FunctionSpan, ...]:
    """The spans of the innermost functions around each of ``lines`` of ``source`` (none where it does not parse)."""
    tree = parse(source)
    return enclosing_scope(tree, lines).functions if tree else ()


@functools.lru_cache(maxsize=64)
def parse(source: str) -> Optional[ast.Module]:
    """The syntax tree of a source file (shared: not to be changed), or None where it does not parse."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


@functools.lru_cache(maxsize=64)
def _functions(tree: ast.Module) -> tuple[FunctionNode, ...]:
    """The functions and methods of a syntax tree, wherever they are (each file's are asked for many times)."""
    return tuple(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _span(function: FunctionNode) -> FunctionSpan:
    return FunctionSpan(function.name, min([function.lineno] + [d.lineno for d in function.decorator_list]),
                        function.end_lineno or function.lineno)


def _function_lines(function: FunctionNode) -> Statements:
    lines = {}
    for stmt, loop in _statements(function.body):
        end = stmt.end_lineno or stmt.lineno
        body = getattr(stmt, "body", None)
        if isinstance(body, list) and body:  # compound statement: its header only
            end = max(stmt.lineno, body[0].lineno - 1)
        lines[stmt.lineno] = Statement(end, function.name, isinstance(stmt, (ast.For, ast.While)), loop)
    return lines


def _statements(body: list[ast.stmt], loop: Optional[int] = None) -> Iterator[tuple[ast.stmt, Optional[int]]]:
    """(statement, header line of the innermost loop around it) for each statement, nested ones included."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstring
        yield stmt, loop
        inner = stmt.lineno if isinstance(stmt, (ast.For, ast.While, ast.AsyncFor)) else loop
        for name in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(stmt, name, []) or [], inner)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _statements(handler.body, inner)


@dataclass(frozen=True)
class Evidence:
    """All that a compiled function's line verdicts are made from: its graphs (their nest records, provenance
    and FX graph comments), the lines that ran as Python in one steady call, its kernels (with their costs) and
    graph breaks, the Python loops Dynamo unrolled, where a profiled call's time went (``split``) and whether its
    parallel kernels paid for their threads (``threads``)."""

    graphs: Sequence[CompiledGraph]
    python_lines: Sequence[Line]
    kernels: Sequence[Kernel]
    breaks: Sequence[GraphBreak]
    unrolled: Sequence[CompileWarning]
    split: Optional[TimeSplit]
    threads: Optional[ThreadScaling]


@dataclass
class _Entry:
    """What the evidence says of one line at one call site, gathered before its verdict is made: its groups of
    alternative units per kind of evidence, the kinds used, and the breaks at or under it (with whether each is
    inside this line's call)."""

    file: SourceFile
    groups: dict[How, set[Place]] = field(default_factory=dict)
    how: list[How] = field(default_factory=list)
    breaks: list[tuple[GraphBreak, bool]] = field(default_factory=list)

    def add(self, how: How) -> None:
        if how not in self.how:
            self.how.append(how)


def verdicts(evidence: Evidence, sources: Sources, env: Env, variant_scope: dict[str, Scope],
             shape: Sequence[int]) -> list[LineVerdict]:
    """The line verdicts of a compiled function, over every annotated file its evidence names, each made once.

    ``variant_scope``: {path: ``scope()``} of the function and its helpers, whose lines are listed even without
    evidence. Each piece of evidence says where a line's operations run as a *group* of alternatives: one loop nest
    (the probe's nest records), one of a kernel's nests (provenance, origin comments), or one of a graph's kernels
    (FX graph comments). A verdict is certain only where every alternative agrees; otherwise it says "unknown".
    """
    entries = _entries(evidence, sources)
    scopes = {path: dict(s.statements) for path, s in variant_scope.items()}
    for (path, line, _), e in entries.items():
        tree = sources.tree(e.file)
        if tree is not None and line not in scopes.get(path, {}):
            scopes.setdefault(path, {}).update(enclosing_scope(tree, [line]).statements)
    by_id = {k.id: k for k in evidence.kernels}
    fusion = _fusion(evidence.graphs)
    out = [_placed(key, e, scopes[key[0]][key[1]], by_id, evidence, sources, env, shape, fusion)
           for key, e in sorted(_by_statement(entries, scopes).items())]
    covered = {(e.file, e.line) for e in out}
    out += [_unplaced(sources.by_path[path], line, info, evidence.unrolled) for path, lines in scopes.items()
            for line, info in sorted(lines.items()) if (sources.by_path[path].display, line) not in covered]
    order = {f.display: i for i, f in enumerate(sources.files)}
    out.sort(key=lambda e: (order.get(e.file, len(order)), e.line, e.via))
    return out


def _entries(evidence: Evidence, sources: Sources) -> dict[Key, _Entry]:
    """What each piece of evidence says, per line and call site: kernels and nests, breaks, lines run as Python."""
    entries: dict[Key, _Entry] = {}
    for kernel_ids, nest, chains, how in _evidence(evidence.graphs, evidence.kernels, sources):
        placed = {(path, line) for path, line, _ in entries} if how == How.FX_GRAPH else set()
        for chain in chains:
            for depth, (file, line) in enumerate(chain):
                if (file.path, line) in placed:  # graph-level evidence only for lines nothing finer placed
                    continue
                e = entries.setdefault((file.path, line, tuple((f.path, n) for f, n in chain[:depth])), _Entry(file))
                e.groups.setdefault(how, set()).add((kernel_ids, nest))
                e.add(how)
    for b in evidence.breaks:
        for depth, (display, line) in enumerate(b.chain):
            file = sources.by_display[display]
            e = entries.setdefault((file.path, line, ()), _Entry(file))
            e.breaks.append((b, depth < len(b.chain) - 1))  # (the break, whether it is inside this line's call)
            e.add(How.GRAPH_BREAK)
    for p in evidence.python_lines:
        found = sources.resolve(parse_frames.Frame(None, None, file=p.file or sources.files[0].path, line=p.line or 0))
        tree = sources.tree(found) if found else None
        def_lines = {n.lineno for n in _functions(tree)} if tree else set()
        if found and p.line not in def_lines and not any(k[:2] == (found.path, p.line) for k in entries):
            entries.setdefault((found.path, p.line or 0, ()), _Entry(found)).add(How.PYTHON_TRACE)
    return entries


def _by_statement(entries: dict[Key, _Entry], scopes: dict[str, Statements]) -> dict[Key, _Entry]:
    """The entries merged per statement: evidence on a continuation line of a statement that spans lines belongs to
    the statement (its first line); evidence outside any scope is dropped."""
    starts = {path: {n: start for start, info in lines.items() for n in range(start, info.end + 1)}
              for path, lines in scopes.items()}
    merged: dict[Key, _Entry] = {}
    for (path, line, via), e in entries.items():
        start = starts.get(path, {}).get(line)
        if start is None:
            continue
        m = merged.setdefault((path, start, via), _Entry(e.file))
        for how, groups in e.groups.items():
            m.groups.setdefault(how, set()).update(groups)
        for h in e.how:
            m.add(h)
        m.breaks += [b for b in e.breaks if b not in m.breaks]
    return merged


def _placed(key: Key, e: _Entry, info: Statement, by_id: dict[str, Kernel], evidence: Evidence, sources: Sources,
            env: Env, shape: Sequence[int], fusion: Fusion) -> LineVerdict:
    """The verdict of a line some evidence names: where its operations ran, why, and what its kernels cost."""
    path, line, via = key
    groups = _groups(e.groups, by_id)
    status, vectorized, why = _verdict(groups, e.breaks, shape, env, fusion)
    kernel_ids = sorted({k.id for g in groups for k, _ in g})
    time_s, share = cost.heat(status, kernel_ids, evidence.kernels, evidence.split)
    return LineVerdict(
        file=e.file.display, line=line, end_line=info.end, function=info.function,
        via=[(sources.by_path[p].display, n) for p, n in via], status=status, vectorized=vectorized,
        kernels=kernel_ids, nests=sorted({f"{k.id}#{n.index}" for g in groups if len(g) == 1 for k, n in g if n}),
        why=why + cost.thread_reasons(status, kernel_ids, by_id, evidence.threads), how=e.how,
        time_s=time_s, time_share=share)


def _unplaced(file: SourceFile, line: int, info: Statement, unrolled: Sequence[CompileWarning]) -> LineVerdict:
    """The verdict of a line of the function no evidence names: none, and why (a loop header Dynamo unrolled has no
    operations of its own)."""
    loop = next((w.facts for w in unrolled if line in w.lines and isinstance(w.facts, Unrolled)), None)
    why = Reason(ReasonKind.UNROLLED_LOOP, loop) if loop else Reason(ReasonKind.NO_EVIDENCE)
    return LineVerdict(file=file.display, line=line, end_line=info.end, function=info.function, via=[], status=None,
                       vectorized=None, kernels=[], nests=[], why=[why], how=[])


Chains = list[list[tuple[SourceFile, int]]]  # call chains of (file, line), outermost first


def _evidence(graphs: Sequence[CompiledGraph], kernels: Sequence[Kernel],
              sources: Sources) -> Iterator[tuple[tuple[str, ...], Optional[int], Chains, How]]:
    """(kernel ids, nest index or None, [[(SourceFile, line)...]], how) for each piece of evidence, best first: the
    probe's loop nest records and Inductor's provenance (per kernel), else origin comments; then the FX graph (per
    graph), for the lines none of those placed."""
    by_graph_name = {(k.graph, k.name): k for k in kernels}
    fx_graphs = []
    for g in graphs:
        mine = [k for k in kernels if k.graph == g.compile_id]
        precise = False
        for k in mine:
            for n in k.loop_nests:
                if n.stacks is not None:
                    precise = True
                    yield (k.id,), n.index, [sources.chain(s) for s in n.stacks], How.LOOP_NEST
        for key, stacks in g.kernel_stack_traces.items():
            name = key.rsplit(":", 1)[0]
            kernel = by_graph_name.get((g.compile_id, name)) or by_graph_name.get(
                (g.compile_id, name.replace("torch.ops.", "")))
            if kernel:
                precise = True
                yield (kernel.id,), None, [sources.chain(s) for s in stacks], How.PROVENANCE
        for k in mine if not precise else []:
            found = sources.comments(k.code)
            if found:
                yield (k.id,), None, [[f] for f in found], How.ORIGIN
        if g.fx_graph and mine:
            fx_graphs.append((tuple(k.id for k in mine), [[f] for f in sources.comments(g.fx_graph)]))
    for kernel_ids, chains in fx_graphs:
        yield kernel_ids, None, chains, How.FX_GRAPH


def _groups(evidence: dict[How, set[Place]], by_id: dict[str, Kernel]) -> list[list[Unit]]:
    """The line's groups of alternative units (kernel, nest or None): it runs in at least one unit of each group.

    Nest-level evidence for a kernel supersedes kernel-level evidence for the same kernel."""
    placed = {kernel_ids for kernel_ids, nest in evidence.get(How.LOOP_NEST, ())}
    groups: list[list[Unit]] = [[(by_id[i], n) for i in kernel_ids for n in by_id[i].loop_nests if n.index == nest]
                                for kernel_ids, nest in sorted(evidence.get(How.LOOP_NEST, ()), key=_place_order)]
    for how in (How.PROVENANCE, How.ORIGIN, How.FX_GRAPH):
        for kernel_ids, _ in sorted(evidence.get(how, ()), key=_place_order):
            if kernel_ids not in placed:
                groups.append([u for i in kernel_ids for u in _units(by_id[i])])
    return [g for g in groups if g]


def _units(kernel: Kernel) -> list[Unit]:
    """A kernel's units: each of its loop nests, or the kernel as a whole where it has none."""
    return [(kernel, n) for n in kernel.loop_nests] or [(kernel, None)]


def _place_order(place: Place) -> tuple[tuple[str, ...], int]:
    return place[0], -1 if place[1] is None else place[1]


def _status(unit: Unit) -> LineStatus:
    kernel, nest = unit
    if not kernel.generated:
        return LineStatus.EXTERN
    return LineStatus.PARALLEL if (nest.parallel if nest else kernel.parallel) else LineStatus.SERIAL


def _vectorized(unit: Unit) -> Optional[bool]:
    kernel, nest = unit
    return (nest.vectorized if nest else kernel.vectorized) if kernel.backend == Backend.CPP else None


def _verdict(groups: list[list[Unit]], breaks: list[tuple[GraphBreak, bool]], shape: Sequence[int], env: Env,
             fusion: Fusion) -> tuple[LineStatus, Optional[Vectorized], list[Reason]]:
    """(status, vectorized, [Reason]) of a line from its evidence groups, the graph breaks at or under it, and the
    scheduler's reasons for not fusing (``fusion``: as ``_fusion_reasons`` takes it)."""
    certain = [g for g in groups if len({_status(u) for u in g}) == 1]
    units = [u for g in groups for u in g]
    status, why = _status_of(groups, certain, units, breaks)
    if status in (LineStatus.SERIAL, LineStatus.PARALLEL, LineStatus.UNKNOWN):
        for kernel, nest in _distinct(u for g in certain for u in g if _status(u) == LineStatus.SERIAL):
            why.append(Reason(ReasonKind.SERIAL, serial_reason(kernel, nest, env)))
        why += _nest_reasons(groups)
        why += _fusion_reasons([u for g in groups if len(g) == 1 for u in g], fusion)
    triton = [k for k, _ in _distinct((k, None) for k, _ in units) if k.backend == Backend.TRITON]
    if any(k.strided_loads or k.masked_loads for k in triton):
        why.append(Reason(ReasonKind.TRITON_LOADS, triton_loads(triton)))
    if not any(k.backend == Backend.CPP for k, _ in units):
        return status, Vectorized.NA if triton else None, why
    vectorized, more = _vectorization(groups, shape, env)
    return status, vectorized, why + more


def _status_of(groups: list[list[Unit]], certain: list[list[Unit]], units: list[Unit],
               breaks: list[tuple[GraphBreak, bool]]) -> tuple[LineStatus, list[Reason]]:
    """A line's status, best news first, and the reasons that say what placed it there."""
    statuses = [_status(g[0]) for g in certain]
    if breaks:
        why = []
        for b, inside in breaks:
            why.append(Reason(ReasonKind.GRAPH_BREAK, BreakAt(inside, b.reason, b.explanation, b.failed,
                                                                   file=b.file, line=b.line)))
            if b.fix or b.flag:
                why.append(Reason(ReasonKind.FIX, b.usual))
        return LineStatus.GRAPH_BREAK, why
    if LineStatus.EXTERN in statuses:
        why = [Reason(ReasonKind.LIBRARY_CALL, Named(tuple(sorted({k.name for k, _ in units if not k.generated}))))]
        generated = tuple(sorted({k.name for k, _ in units if k.generated}))
        if generated:
            why.append(Reason(ReasonKind.GENERATED_AROUND, Named(generated)))
        return LineStatus.EXTERN, why
    if not groups:
        return LineStatus.EAGER, [Reason(ReasonKind.EAGER)]
    if LineStatus.SERIAL in statuses:
        return LineStatus.SERIAL, []
    if len(certain) == len(groups):
        backends = tuple(sorted({k.backend for k, _ in units}))
        return LineStatus.PARALLEL, [Reason(ReasonKind.PARALLEL, Backends(backends))]
    return LineStatus.UNKNOWN, []


def _vectorization(groups: list[list[Unit]], shape: Sequence[int],
                   env: Env) -> tuple[Vectorized, list[Reason]]:
    """Whether a line with C++ units runs vectorized (all, some, none, unknown), and why: what left its scalar units
    scalar, what still runs one element at a time in its vector units, and their machine code."""
    per_group = [v for v in ({machine.vectorized(u) for u in g if u[0].backend == Backend.CPP} for g in groups) if v]
    if any(len(v) > 1 for v in per_group):
        vectorized = Vectorized.UNKNOWN
    else:
        values = {v.pop() for v in per_group}
        vectorized = Vectorized.ALL if values == {True} else Vectorized.NONE if values == {False} else Vectorized.SOME
    cpp_groups = [[u for u in g if u[0].backend == Backend.CPP] for g in groups]
    # scalar in Inductor's code wherever the evidence places it: every alternative of its group is; said as why
    # it is not vectorized where the machine code agrees, as why Inductor left it scalar where it does not
    scalar = [u for g in cpp_groups if g and not any(map(_vectorized, g)) for u in g]
    why = not_vectorized_reasons([u for u in scalar if not machine.vectorized(u)], shape, env)
    why += [Reason(ReasonKind.INDUCTOR_SCALAR, Overruled(r))
            for r in not_vectorized_reasons([u for u in scalar if machine.vectorized(u)], shape, env)]
    cpp_units = [u for g in cpp_groups if len(g) == 1 for u in g]  # placed in one nest (or kernel)
    why += vector_reasons([u for u in cpp_units if _vectorized(u)])
    why += machine.reasons(cpp_units)  # the machine code beside Inductor's code; it decides above
    return vectorized, why



def _fusion(graphs: Sequence[CompiledGraph]) -> Fusion:
    """{compile id: [(nodes of one, nodes of the other, reason, the pair as said)]}: the scheduler's records of the
    pairs it did not fuse (torch >= 2.2; a fused node is named ``op1_op4``), read once per graph."""
    return {g.compile_id: [(set(one.split("_")), set(two.split("_")), reason, f"{one} with {two}")
                           for one, two, reason in g.fusion] for g in graphs}


def _fusion_reasons(units: list[Unit], fusion: Fusion) -> list[Reason]:
    """Why the loop nests (or kernels) a line's operations run in were not fused into one, where Inductor's
    scheduler said why it did not fuse a node of one with a node of the other (``fusion``: as ``_fusion`` gives it).
    Each scheduler record is matched to the units holding its nodes, so a line in hundreds of nests costs no more
    than its records."""
    def nodes(unit: Unit) -> set[str]:
        kernel, nest = unit
        return set(nest.nodes or []) if nest else {name for n in kernel.loop_nests for name in n.nodes or []}

    generated = [u for u in _distinct(units) if u[0].generated and nodes(u)]
    if len({u[0].id for u in generated}) > 1:  # across kernels: compare kernels, not each nest of each
        generated = _distinct((k, None) for k, _ in generated)
    holders: dict[str, set[int]] = {}  # node name: the units (their positions in ``generated``) that compute it
    for i, unit in enumerate(generated):
        for node in nodes(unit):
            holders.setdefault(node, set()).add(i)

    def holding(names: set[str]) -> set[int]:
        return set.intersection(*(holders.get(n, set()) for n in names))

    # (i, j), i < j: {reason: the node pairs it was given for}, in the order the scheduler said them
    said: dict[tuple[int, int], dict[Optional[str], list[str]]] = {}
    for graph in dict.fromkeys(k.graph for k, _ in generated):
        for one, two, reason, pair in fusion.get(graph, []):
            if not (holders.keys() >= one and holders.keys() >= two):  # a node no unit of the line computes
                continue
            found = {(min(i, j), max(i, j)) for i in holding(one) for j in holding(two) if i != j}
            for i, j in found:
                if generated[i][0].graph == generated[j][0].graph == graph:
                    said.setdefault((i, j), {}).setdefault(reason, []).append(pair)
    why = []
    for (i, j), reasons in sorted(said.items()):
        why.append(Reason(ReasonKind.NOT_FUSED, Unfused(
            _where(*generated[i]), _where(*generated[j]),
            tuple((reason, pairs[0], len(pairs) - 1) for reason, pairs in reasons.items()))))
    return why


def _distinct(units: Iterable[Unit]) -> list[Unit]:
    """Units in first-seen order, each once."""
    return list({(k.id, n.index if n else None): (k, n) for k, n in units}.values())


def _nest_reasons(groups: list[list[Unit]]) -> list[Reason]:
    """Say where a line's operations are split across nests that run differently, and where the evidence does not
    say which nest (or kernel) computes it while they differ."""
    why = []
    placed = [(k, n) for k, n in _distinct(u for g in groups if len(g) == 1 for u in g) if n]
    if len({n.describe() for _, n in placed}) > 1:
        why.append(Reason(ReasonKind.SPLIT_NESTS, Nests(
            tuple(NestRun(k.name, n.index, n.describe()) for k, n in placed[:LISTED]), len(placed))))
    for g in groups:
        if len(g) > 1 and len({_status(u) for u in g} | {f"v{_vectorized(u)}" for u in g}) > 2:
            kernels = sorted({k.name for k, _ in g})
            runs = tuple(NestRun(k.name, n.index, n.describe()) if n else NestRun(k.name, None, _status((k, n)))
                         for k, n in g[:LISTED])
            why.append(Reason(ReasonKind.NEST_UNKNOWN, Nests(runs, len(g), tuple(kernels[:LISTED]),
                                                             max(0, len(kernels) - LISTED))))
    return why


def _where(kernel: Kernel, nest: Optional[LoopNest]) -> NestAt:
    """A unit as its reasons name it: its nest's index where its kernel has several."""
    return NestAt(kernel.name, nest.index if nest and len(kernel.loop_nests) > 1 else None)


def triton_loads(kernels: list[Kernel]) -> TritonLoads:
    """What the Triton kernels' loads say about memory access on a GPU: strided (uncoalesced) and masked."""
    return TritonLoads(tuple(sorted({s for k in kernels for s in k.strided_loads})[:3]),
                       sum(k.masked_loads for k in kernels))


def serial_reason(kernel: Kernel, nest: Optional[LoopNest], env: Env) -> Serial:
    """Why a loop nest of ``kernel`` (None: a kernel with no loop) runs on one thread: Inductor's recorded
    parallel-depth decision where the record has it, else what the loop sizes in the code suggest."""
    where = _where(kernel, nest)
    threads = env.threads or 1
    if threads == 1:
        return Serial(where, SerialCause.ONE_THREAD)
    if nest is None:
        return Serial(where, SerialCause.NO_LOOP)
    c = next(iter(nest.decisions.parallel), None) if nest.decisions else None
    if c is None:
        return _serial_guess(where, nest, env)
    if not c.levels:
        return Serial(where, SerialCause.NO_LEVEL)
    if c.work is not None and c.min_chunk_size is not None and c.work // c.threads < c.min_chunk_size:
        return Serial(where, SerialCause.SMALL, work=c.work, per_thread=c.work // c.threads,
                      min_chunk_size=c.min_chunk_size, threads=c.threads)
    return Serial(where, SerialCause.DEPTH, depth=c.depth, levels=len(c.levels))


def _serial_guess(where: NestAt, nest: LoopNest, env: Env) -> Serial:
    """A serial nest whose parallel decision is not recorded: what its loop sizes suggest."""
    unrecorded = _unrecorded(nest, env, "parallel")
    chunk = env.min_chunk_size
    per_thread = nest.work // (env.threads or 1) if nest.work is not None else None
    if per_thread is not None and chunk and per_thread < chunk:
        return Serial(where, SerialCause.SMALL_CODE, work=nest.work, per_thread=per_thread, min_chunk_size=chunk,
                      unrecorded=unrecorded)
    if nest.work is None and nest.trip:
        return Serial(where, SerialCause.DYNAMIC, trip=nest.trip, unrecorded=unrecorded)
    return Serial(where, SerialCause.NO_OPENMP, unrecorded=unrecorded)


def _unrecorded(nest: Optional[LoopNest], env: Env, kind: str) -> Unrecorded:
    """Why this record has no decision of ``kind`` for ``nest``."""
    why = dict(nest.decisions.unrecorded).get(kind) if nest and nest.decisions else None
    return Unrecorded(why or None, nest is not None and nest.decisions is None, env.torch)


def not_vectorized_reasons(units: list[Unit], shape: Sequence[int], env: Env) -> list[Reason]:
    """Why the scalar C++ loop nests (or kernels) ``units`` of a line are scalar, as ``not-vectorized-*`` Reasons:
    Inductor's recorded tiling decision for each nest, or, where the record has none, what its code shows, said as
    such. One Reason per distinct facts."""
    reasons: list[Reason] = []
    for kernel, nest in _distinct(units):
        r = _not_vectorized(kernel, nest, tuple(shape) if len(shape) == 2 else (), env)
        if r not in reasons:
            reasons.append(r)
    return reasons


def _not_vectorized(kernel: Kernel, nest: Optional[LoopNest], shape: tuple[int, ...], env: Env) -> Reason:
    if nest is None:
        return Reason(ReasonKind.NOT_VECTORIZED_NO_LOOP, NoLoop(False))
    tiling = [t for t in nest.decisions.tiling] if nest.decisions else []
    decided = next((t for t in tiling if t.branch != "tiled"), None)
    if decided is not None:
        return _tiling_reason(decided, nest, shape)
    if tiling and nest.tail:
        t = tiling[0]
        return Reason(ReasonKind.NOT_VECTORIZED_TAIL, Tail(t.loop_tail_vec, env.torch, t.ratio_limit))
    strided = tuple(nest.strided_loads[:3])
    return Reason(ReasonKind.NOT_VECTORIZED_STRIDED if strided else ReasonKind.NOT_VECTORIZED_UNRECORDED,
                  Undecided(_unrecorded(nest, env, "tiling"), strided, shape))


def _tiling_reason(t: Tiling, nest: LoopNest, shape: tuple[int, ...]) -> Reason:
    """A recorded tiling decision that left a nest scalar (Inductor's own numbers and limits)."""
    if t.branch == "non-contiguous":
        return Reason(ReasonKind.NOT_VECTORIZED_STRIDED, NonContiguous(
            t.non_contiguous_count, t.ops or 0, t.non_contiguous, t.count_limit, t.ratio_limit,
            tuple(nest.strided_loads[:3]), shape))
    if t.branch == "small-inner-range":
        return Reason(ReasonKind.NOT_VECTORIZED_SMALL, SmallLoops(
            t.ranges, t.factor if t.small_fraction == 4 else None, t.ops, t.small_ops))
    if t.branch == "no-loop":
        return Reason(ReasonKind.NOT_VECTORIZED_NO_LOOP, NoLoop(True))
    kinds = {"dtype": ReasonKind.NOT_VECTORIZED_DTYPE, "no-tiling-index": ReasonKind.NOT_VECTORIZED_NO_INDEX,
             "no-vector-isa": ReasonKind.NOT_VECTORIZED_NO_ISA, "checker": ReasonKind.NOT_VECTORIZED_CHECKER}
    kind = kinds.get(t.branch, ReasonKind.NOT_VECTORIZED_UNRECORDED)
    named = {ReasonKind.NOT_VECTORIZED_DTYPE: t.not_vectorizable, ReasonKind.NOT_VECTORIZED_CHECKER: (t.message or "",),
             ReasonKind.NOT_VECTORIZED_UNRECORDED: (t.branch,)}
    return Reason(kind, Named(named[kind]) if kind in named else None)


def vector_reasons(units: list[Unit]) -> list[Reason]:
    """What still runs one element at a time inside the vectorized nests ``units`` of a line: inputs gathered into a
    buffer, and ops with no vector form run lane by lane (recorded where Inductor generated them)."""
    why = []
    for kernel, nest in _distinct(units):
        if nest is None or nest.decisions is None:
            continue
        d = nest.decisions
        where = _where(kernel, nest)
        for store in (False, True):
            moved = [g for g in d.gathers if g.store == store]
            if moved:
                items = [f"{g.buffer}[{g.index}]" for g in moved]
                why.append(Reason(ReasonKind.GATHERED, Gathered(where, store, tuple(items[:LISTED]),
                                                                max(0, len(items) - LISTED), moved[0].lanes)))
        if d.lane_ops:
            ops = [op for op, _ in d.lane_ops]
            why.append(Reason(ReasonKind.LANE_BY_LANE, LaneOps(where, tuple(ops[:LISTED]), max(0, len(ops) - LISTED))))
    return why
