"""Split Inductor output code into kernels, each with its launches from the wrapper's ``call``.

Works on the output-code module text alone (any torch version from 2.1 on): kernels are top-level
``name = async_compile.cpp_pybinding(...)`` (2.13+), ``async_compile.cpp(...)`` (2.1) or
``async_compile.triton(...)`` assignments; launches and library calls (``extern_kernels.*``, ``aten.*``) come
from ``call`` and the subgraph functions it calls (``parse.wrapper``). A kernel launched twice is one kernel with two
launches.
"""

import ast
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Optional

from inspector.analysis.parse import cpp, decisions, triton, wrapper
from inspector.model import Backend, Kernel, Launch
from inspector.raw import RawNest

HANDLE = re.compile(r"#\s*\[Provenance debug handles\]\s*(\S+?):(\d+)")
FACTORIES = {"cpp_pybinding": ("cpp", cpp.facts), "cpp": ("cpp", cpp.facts), "triton": ("triton", triton.facts)}
MIN_SHARED = 0.5  # a nest record joins the parsed nest whose (stripped) lines it holds at least half of


@dataclass(frozen=True)
class Split:
    """The kernels of one output-code module, how many of its parts the splitter read (the wrapper: ``call`` and the
    subgraph functions it calls; each kernel it defines or calls) and what it did not understand in them: one line
    per part at most."""

    kernels: list[Kernel]
    problems: list[str] = field(default_factory=list)
    read: int = 1


def split(output_code: str, graph: Optional[str] = None) -> Split:
    """The module's kernels (``graph``: their compile id), launched ones in launch order, then the rest."""
    try:
        tree = wrapper.parse(output_code)
    except wrapper.WrapperError as e:
        return Split([], [str(e)])
    defined = {}
    for node in tree.body:
        found = _definition(node)
        if found:
            defined[found[0]] = found[1:]
    calls, unknown = wrapper.launches(tree, set(defined))
    problems = _wrapper_problems(tree, list(dict.fromkeys(unknown)))
    handles = dict(HANDLE.findall(output_code))
    launches: dict[str, list[Launch]] = {}
    for position, call in enumerate(calls):
        launches.setdefault(call.name, []).append(Launch(position, call.subgraph, call.repeat))
    kernels = []
    for name in list(launches) + [n for n in defined if n not in launches]:
        backend, code = defined.get(name, ("extern", ""))
        values, not_read = FACTORIES[backend][1](code) if backend != Backend.EXTERN else (_extern_facts(), [])
        problems += [f"{name}: " + "; ".join(not_read)] if not_read else []
        shown = name if backend != Backend.EXTERN else name.replace("torch.ops.", "")
        kernels.append(Kernel(
            id=shown, name=shown, graph=graph, backend=backend, code=code, parallel=_parallel(backend, values),
            launches=launches.get(name, []),
            handle=f"{name}:{handles[name]}" if name in handles else None, **values))
    return Split(kernels, problems, 1 + len(kernels))


def _wrapper_problems(tree: ast.Module, unknown: list[str]) -> list[str]:
    """What was not understood of the wrapper, in one line at most: no ``call``, or the ``unknown`` names it calls."""
    if not wrapper.call_functions(tree):
        return ["no call() function in the output code"]
    if not unknown:
        return []
    one = len(unknown) == 1
    return [f"call() calls {', '.join(unknown)}, neither {'a kernel' if one else 'kernels'} of this module nor "
            f"{'a known library call' if one else 'known library calls'}"]


def _definition(node):
    """(name, backend, code) of a top-level ``name = async_compile.<factory>(..., code)``, else None."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)):
        return None
    factory = wrapper.dotted_name(node.value.func) or ""
    backend = FACTORIES.get(factory.removeprefix("async_compile."), (None,))[0]
    strings = [a.value for a in node.value.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not factory.startswith("async_compile.") or backend is None or not strings:
        return None
    return node.targets[0].id, backend, strings[-1]


def _parallel(backend, values):
    return {"cpp": values["parallel_regions"] > 0, "triton": True}.get(backend)


def _extern_facts():
    return dict(kind="library call", parallel_regions=0, vectorized=None, ops=0, loads=0, strided_loads=[],
                masked_loads=0, evidence=[])


def with_ids(kernels: list[Kernel]) -> list[Kernel]:
    """Kernels of several graphs with ids unique within the variant: the name, or name@graph when it repeats."""
    names = [k.name for k in kernels]
    return [k if names.count(k.name) == 1 else replace(k, id=f"{k.name}@{k.graph}") for k in kernels]


def with_launch_configs(kernels: list[Kernel], configs: Optional[dict[str, Any]]) -> list[Kernel]:
    """Join a CUDA variant's autotuned ``launch_configs`` to its Triton kernels (the grid they ran with)."""
    return [replace(k, triton=triton.launch(k.code, configs[k.name]))
            if k.backend == Backend.TRITON and (configs or {}).get(k.name) else k for k in kernels]


def with_nest_records(kernels: list[Kernel], records: Optional[list[RawNest]],
                      hooks: Optional[dict[str, Any]] = None) -> tuple[list[Kernel], list[str]]:
    """(kernels, [problems]): the C++ kernels of one graph with each loop nest joined to the probe's nest records (the
    code Inductor generated for a nest, the user stacks of the FX nodes it computes, and Inductor's decisions for it:
    ``hooks`` says which decisions the capture could record): each record joins the nest whose code it shares most, if
    it holds at least MIN_SHARED of its lines. A kernel Inductor generated twice and launches twice (the same code for
    two layers) gets the stacks of both, and the decisions of the first."""
    if not records:
        return kernels, []
    nests, holding = [], {}  # (kernel id, nest index, its stripped lines); {stripped line: positions in nests}
    for k in [k for k in kernels if k.backend == Backend.CPP]:
        lines = k.code.splitlines()
        for n in k.loop_nests:
            mine = {line.strip() for line in lines[n.lines[0] - 1:n.lines[1]] if line.strip()}
            for line in mine:
                holding.setdefault(line, []).append(len(nests))
            nests.append((k.id, n.index, mine))
    stacks, nodes, decided, problems = {}, {}, {}, []
    for record in records:
        shared = Counter()
        for line in {line.strip() for line in record.code or [] if line.strip()}:
            shared.update(holding.get(line, ()))
        score, kernel_id, index = max(((count / len(nests[i][2]), *nests[i][:2]) for i, count in shared.items()),
                                      default=(0, None, None))
        if score >= MIN_SHARED:
            stacks.setdefault((kernel_id, index), []).extend(o.stack for o in record.origins)
            nodes.setdefault((kernel_id, index), []).extend(record.nodes or [])
            if (kernel_id, index) not in decided:
                decided[kernel_id, index], found = decisions.parse(record.decisions, hooks)
                problems += found
    return [replace(k, loop_nests=[replace(n, stacks=list(dict.fromkeys(stacks[k.id, n.index])),
                                           nodes=list(dict.fromkeys(nodes[k.id, n.index])),
                                           decisions=decided[k.id, n.index])
                                   if (k.id, n.index) in stacks else n for n in k.loop_nests]) for k in kernels], problems
