"""Split Inductor output code into kernels, each with its launches from the wrapper's ``call``.

Works on the output-code module text alone (any torch version from 2.1 on): kernels are top-level
``name = async_compile.cpp_pybinding(...)`` (2.13+), ``async_compile.cpp(...)`` (2.1) or
``async_compile.triton(...)`` assignments; launches and library calls (``extern_kernels.*``, ``aten.*``) come
from ``call`` and the subgraph functions it calls (``parse.wrapper``). A kernel launched twice is one kernel with two
launches.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Optional

from inspector.analysis.parse import LIBRARY_CALL, KernelFacts, cpp, decisions, triton, wrapper
from inspector.model import Backend, Decisions, Kernel, Launch, Problem, Unread, UnreadKind
from inspector.raw import JSON, RawNest

HANDLE = re.compile(r"#\s*\[Provenance debug handles\]\s*(\S+?):(\d+)")
FACTORIES = {"cpp_pybinding": Backend.CPP, "cpp": Backend.CPP, "triton": Backend.TRITON}  # async_compile.<factory>
PARSERS: dict[Backend, Callable[[str], tuple[KernelFacts, list[Unread]]]] = {Backend.CPP: cpp.facts,
                                                                          Backend.TRITON: triton.facts}
MIN_SHARED = 0.5  # a nest record joins the parsed nest whose (stripped) lines it holds at least half of


@dataclass(frozen=True)
class Split:
    """The kernels of one output-code module, how many of its parts the splitter read (the wrapper: ``call`` and the
    subgraph functions it calls; each kernel it defines or calls) and what it did not understand in them: one line
    per part at most."""

    kernels: list[Kernel]
    problems: list[Problem] = field(default_factory=list)
    read: int = 1


def split(output_code: str, graph: Optional[str] = None) -> Split:
    """The module's kernels (``graph``: their compile id), launched ones in launch order, then the rest."""
    try:
        tree = wrapper.parse(output_code)
    except wrapper.WrapperError as e:
        return Split([], [Problem((Unread(UnreadKind.UNPARSED, str(e)),), graph=graph)])
    defined: dict[str, tuple[Backend, str]] = {}
    for node in tree.body:
        found = _definition(node)
        if found:
            defined[found[0]] = found[1], found[2]
    calls, unknown = wrapper.launches(tree, set(defined))
    problems = [Problem((u,), graph=graph) for u in _wrapper_problems(tree, list(dict.fromkeys(unknown)))]
    handles = dict(HANDLE.findall(output_code))
    launches: dict[str, list[Launch]] = {}
    for position, call in enumerate(calls):
        launches.setdefault(call.name, []).append(Launch(position, call.subgraph, call.repeat))
    kernels = []
    for name in list(launches) + [n for n in defined if n not in launches]:
        backend, code = defined.get(name, (Backend.EXTERN, ""))
        f, not_read = PARSERS[backend](code) if backend in PARSERS else (LIBRARY_CALL, [])
        problems += [Problem(tuple(not_read), graph=graph, kernel=name)] if not_read else []
        shown = name if backend != Backend.EXTERN else name.replace("torch.ops.", "")
        kernels.append(Kernel(
            id=shown, name=shown, graph=graph, backend=backend, code=code, parallel=_parallel(backend, f),
            launches=launches.get(name, []), handle=f"{name}:{handles[name]}" if name in handles else None,
            kind=f.kind, parallel_regions=f.parallel_regions, vectorized=f.vectorized, ops=f.ops, loads=f.loads,
            strided_loads=f.strided_loads, masked_loads=f.masked_loads, evidence=f.evidence,
            loop_nests=f.loop_nests, triton=f.triton))
    return Split(kernels, problems, 1 + len(kernels))


def _wrapper_problems(tree: ast.Module, unknown: list[str]) -> list[Unread]:
    """What was not understood of the wrapper, one thing at most: no ``call``, or the ``unknown`` names it calls."""
    if not wrapper.call_functions(tree):
        return [Unread(UnreadKind.NO_CALL)]
    return [Unread(UnreadKind.UNKNOWN_CALLS, names=tuple(unknown))] if unknown else []


def _definition(node: ast.stmt) -> Optional[tuple[str, Backend, str]]:
    """(name, backend, code) of a top-level ``name = async_compile.<factory>(..., code)``, else None."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)):
        return None
    factory = wrapper.dotted_name(node.value.func) or ""
    backend = FACTORIES.get(factory.removeprefix("async_compile."))
    strings = [a.value for a in node.value.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not factory.startswith("async_compile.") or backend is None or not strings:
        return None
    return node.targets[0].id, backend, strings[-1]


def _parallel(backend: Backend, facts: KernelFacts) -> Optional[bool]:
    """Whether a kernel runs in parallel: a C++ kernel with an OpenMP region, a Triton kernel (its grid); None for a
    library call."""
    return {Backend.CPP: facts.parallel_regions > 0, Backend.TRITON: True}.get(backend)


def with_ids(kernels: list[Kernel]) -> list[Kernel]:
    """Kernels of several graphs with ids unique within the variant: the name, or name@graph when it repeats."""
    names = [k.name for k in kernels]
    return [k if names.count(k.name) == 1 else replace(k, id=f"{k.name}@{k.graph}") for k in kernels]


def with_launch_configs(kernels: list[Kernel], configs: Optional[JSON]) -> list[Kernel]:
    """Join a CUDA variant's autotuned ``launch_configs`` to its Triton kernels (the grid they ran with)."""
    tuned = configs or {}
    return [replace(k, triton=triton.launch(k.code, tuned[k.name]))
            if k.backend == Backend.TRITON and tuned.get(k.name) else k for k in kernels]


def with_nest_records(kernels: list[Kernel], records: Optional[list[RawNest]],
                      hooks: Optional[Mapping[str, str]] = None) -> tuple[list[Kernel], list[Unread]]:
    """(kernels, [problems]): the C++ kernels of one graph with each loop nest joined to the probe's nest records (the
    code Inductor generated for a nest, the user stacks of the FX nodes it computes, and Inductor's decisions for it:
    ``hooks`` says which decisions the capture could record): each record joins the nest whose code it shares most, if
    it holds at least MIN_SHARED of its lines. A kernel Inductor generated twice and launches twice (the same code for
    two layers) gets the stacks of both, and the decisions of the first."""
    if not records:
        return kernels, []
    nests: list[tuple[str, int, set[str]]] = []  # (kernel id, nest index, its stripped lines)
    holding: dict[str, list[int]] = {}  # {stripped line: positions in nests}
    for k in [k for k in kernels if k.backend == Backend.CPP]:
        lines = k.code.splitlines()
        for n in k.loop_nests:
            mine = {line.strip() for line in lines[n.lines[0] - 1:n.lines[1]] if line.strip()}
            for line in mine:
                holding.setdefault(line, []).append(len(nests))
            nests.append((k.id, n.index, mine))
    stacks: dict[tuple[str, int], list[str]] = {}
    nodes: dict[tuple[str, int], list[str]] = {}
    decided: dict[tuple[str, int], Optional[Decisions]] = {}
    problems: list[Unread] = []
    for record in records:
        shared = Counter[int]()
        for line in {line.strip() for line in record.code or [] if line.strip()}:
            shared.update(holding.get(line, ()))
        best = max(((count / len(nests[i][2]), nests[i][0], nests[i][1]) for i, count in shared.items()), default=None)
        if best is None or best[0] < MIN_SHARED:
            continue
        key = best[1], best[2]
        stacks.setdefault(key, []).extend(o.stack or "" for o in record.origins or [])
        nodes.setdefault(key, []).extend(record.nodes or [])
        if key not in decided:
            decided[key], found = decisions.parse(record.decisions, hooks)
            problems += found
    joined = [replace(k, loop_nests=[replace(n, stacks=list(dict.fromkeys(stacks[k.id, n.index])),
                                             nodes=list(dict.fromkeys(nodes[k.id, n.index])),
                                             decisions=decided[k.id, n.index])
                                     if (k.id, n.index) in stacks else n for n in k.loop_nests]) for k in kernels]
    return joined, problems
