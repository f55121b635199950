"""Split Inductor output code into kernels, each with its launches from the wrapper's ``call``.

Works on the output-code module text alone (any torch version from 2.1 on): kernels are top-level
``name = async_compile.cpp_pybinding(...)`` (2.13+), ``async_compile.cpp(...)`` (2.1) or
``async_compile.triton(...)`` assignments; launches and library calls (``extern_kernels.*``, ``aten.*``) come
from ``call`` and the subgraph functions it calls (``parse.wrapper``). A kernel launched twice is one kernel with two
launches.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Optional

from inspector.analysis.facts import NestRecord
from inspector.analysis.parse import LIBRARY_CALL, KernelFacts, cpp, triton, wrapper
from inspector.model import Backend, Decisions, Kernel, KernelCost, Launch, Problem, Unread, UnreadKind
from inspector.raw import JSON

HANDLE = re.compile(r"#\s*\[Provenance debug handles\]\s*(\S+?):(\d+)")
FACTORIES = {"cpp_pybinding": Backend.CPP, "cpp": Backend.CPP, "triton": Backend.TRITON}  # async_compile.<factory>
PARSERS: dict[Backend, Callable[[str], tuple[KernelFacts, list[Unread]]]] = {Backend.CPP: cpp.facts,
                                                                             Backend.TRITON: triton.facts}
CPP_PARAMS = re.compile(r'extern "C"[^(]*\(([^)]*)\)')
TRITON_SIGNATURE = re.compile(r"""['"]signature['"]:\s*\{([^}]*)\}""")
TRITON_PARAM = re.compile(r"""['"](\w+)['"]:\s*['"]([^'"]*)['"]""")
ITEMSIZE = {"double": 8, "float": 4, "int64_t": 8, "long": 8, "int32_t": 4, "int": 4, "int16_t": 2, "int8_t": 1,
            "uint8_t": 1, "signed char": 1, "unsigned char": 1, "char": 1, "short": 2, "bool": 1, "half": 2,
            "bfloat16": 2, "fp64": 8, "fp32": 4, "fp16": 2, "bf16": 2,
            "i64": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1, "i1": 1}
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
    """The module's kernels (``graph``: their compile id), launched ones in launch order, then the rest; a generated
    kernel's cost holds the bytes a launch of it moves."""
    try:
        read = wrapper.read(output_code, FACTORIES)
    except wrapper.WrapperError as e:
        return Split([], [Problem((Unread(UnreadKind.UNPARSED, str(e)),), graph=graph)])
    problems = [Problem((u,), graph=graph) for u in _wrapper_problems(read)]
    handles = dict(HANDLE.findall(output_code))
    launches: dict[str, list[Launch]] = {}
    for position, call in enumerate(read.calls):
        launches.setdefault(call.name, []).append(Launch(position, call.subgraph, call.repeat))
    kernels = []
    for name in list(launches) + [n for n in read.defined if n not in launches]:
        factory, code = read.defined.get(name, ("", ""))
        backend = FACTORIES.get(factory, Backend.EXTERN)
        f, not_read = PARSERS[backend](code) if backend in PARSERS else (LIBRARY_CALL, [])
        problems += [Problem(tuple(not_read), graph=graph, kernel=name)] if not_read else []
        shown = name if backend != Backend.EXTERN else name.replace("torch.ops.", "")
        kernels.append(Kernel(
            id=shown, name=shown, graph=graph, backend=backend, code=code, parallel=_parallel(backend, f),
            launches=launches.get(name, []), handle=f"{name}:{handles[name]}" if name in handles else None,
            kind=f.kind, parallel_regions=f.parallel_regions, vectorized=f.vectorized, ops=f.ops, loads=f.loads,
            strided_loads=f.strided_loads, masked_loads=f.masked_loads, evidence=f.evidence,
            loop_nests=f.loop_nests, triton=f.triton,
            cost=_moved(backend, code, [c.numels for c in read.calls if c.name == name]) if name in read.defined
            else KernelCost()))
    return Split(kernels, problems, 1 + len(kernels))


def _wrapper_problems(read: wrapper.Wrapper) -> list[Unread]:
    """What was not understood of the wrapper, one thing at most: no ``call``, or the names it calls that are
    neither kernels nor known library calls."""
    if not read.has_call:
        return [Unread(UnreadKind.NO_CALL)]
    return [Unread(UnreadKind.UNKNOWN_CALLS, names=tuple(read.unknown))] if read.unknown else []


def _moved(backend: Backend, code: str, launched: list[list[Optional[int]]]) -> KernelCost:
    """A generated kernel's bytes read and written per launch: those of its first launch whose buffers' sizes (the
    wrapper's ``launched``: each launch's argument numels) and dtypes (its parameters) are known; none without."""
    params = _params(backend, code)
    moved = next((m for numels in launched if (m := _launch_bytes(params, numels))), None)
    return KernelCost(read_bytes=moved[0], written_bytes=moved[1]) if moved else KernelCost()


def _params(backend: Backend, code: str) -> list[tuple[str, Optional[int]]]:
    """[(parameter name, item size or None)] of a cpp or Triton kernel, in launch-argument order."""
    if backend == Backend.TRITON:
        signature = TRITON_SIGNATURE.search(code)
        items = TRITON_PARAM.findall(signature.group(1)) if signature else []
        return [(name, ITEMSIZE.get(kind.lstrip("*")) if kind.startswith("*") else None) for name, kind in items]
    signature = CPP_PARAMS.search(code)
    params = []
    for p in signature.group(1).split(",") if signature else []:
        words = re.findall(r"\w+", p)
        kind = re.sub(r"\b(const|at|c10|std)\b|::|\*", " ", p.rsplit(words[-1], 1)[0]).split() if words else []
        params.append((words[-1] if words else "", ITEMSIZE.get(" ".join(kind).lower()) if "*" in p else None))
    return params


def _launch_bytes(params: list[tuple[str, Optional[int]]], sizes: list[Optional[int]]) -> Optional[tuple[int, int]]:
    """(bytes read, bytes written) of one launch; None when a pointer's size or dtype is unknown."""
    read = written = 0
    for (name, itemsize), n in zip(params, sizes):
        role = re.match(r"(in_out|in|out)_ptr\d+$", name)
        if not role:
            continue
        if itemsize is None or n is None:
            return None
        read += n * itemsize if role.group(1) in ("in", "in_out") else 0
        written += n * itemsize if role.group(1) in ("out", "in_out") else 0
    return (read, written) if read or written else None


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


def with_nest_records(kernels: list[Kernel], records: Optional[Sequence[NestRecord]]
                      ) -> tuple[list[Kernel], list[Unread]]:
    """(kernels, [problems]): the C++ kernels of one graph with each loop nest joined to the probe's nest records (the
    code Inductor generated for a nest, the user stacks of the FX nodes it computes, and Inductor's decisions for it,
    with what of them could not be read): each record joins the nest whose code it shares most, if it holds at least
    MIN_SHARED of its lines. A kernel Inductor generated twice and launches twice (the same code for two layers) gets
    the stacks of both, and the decisions of the first."""
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
        for line in {line.strip() for line in record.code if line.strip()}:
            shared.update(holding.get(line, ()))
        best = max(((count / len(nests[i][2]), nests[i][0], nests[i][1]) for i, count in shared.items()), default=None)
        if best is None or best[0] < MIN_SHARED:
            continue
        key = best[1], best[2]
        stacks.setdefault(key, []).extend(record.stacks)
        nodes.setdefault(key, []).extend(record.nodes)
        if key not in decided:
            decided[key] = record.decisions
            problems += record.unread
    joined = [replace(k, loop_nests=[replace(n, stacks=list(dict.fromkeys(stacks[k.id, n.index])),
                                             nodes=list(dict.fromkeys(nodes[k.id, n.index])),
                                             decisions=decided[k.id, n.index])
                                     if (k.id, n.index) in stacks else n for n in k.loop_nests]) for k in kernels]
    return joined, problems
