"""The machine code of C++ kernels: the probe's instruction counts (``capture.machine_code``, see
``inspector/probe/machine.py``) joined to the kernels and loop nests parsed from the output code, and what they say
against the source verdict.

A loop nest gets counts of its own from the compiler's line table where it wrote one (torch 2.13 builds with
``-g1``): the instructions of the source lines the nest spans, inlined code counted on the line that inlined it.
Without one (torch 2.1), from the kernel's functions: its entry ``kernel`` and one OpenMP outlined function per
``#pragma omp parallel`` region, numbered by GCC in source order (``kernel._omp_fn.N``; clang's ``.omp_outlined.``
likewise); a nest gets the counts of the outlined function of the one region it overlaps, when no other nest overlaps
that region, or, in a kernel with no parallel region and one nest, the entry function's. Other nests have only their
kernel's counts (the entry function also combines the per-thread results of the reductions of every region).
Where a nest's own counts disagree with Inductor's code (a scalar nest the C++ compiler vectorized itself, an
``at::vec`` nest without packed arithmetic), the machine code decides.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence, Sized
from dataclasses import replace
from typing import Optional

from inspector.analysis.facts import Counts, MachineEntry
from inspector.analysis.parse import cpp
from inspector.model import (LISTED, Backend, Kernel, LoopNest, Machine, MachineCode, NestAt, Problem, Reason,
                             ReasonKind, Unread, UnreadKind)
from inspector.record import kernel_key

REGION = re.compile(r"#pragma omp parallel\b")
OUTLINED = re.compile(r"(?:_omp_fn\.|\.omp_outlined\.)\.?(\d*)$")
COUNTS = ("instructions", "packed_fp", "scalar_fp", "packed_int", "simd_data", "gather")
VECTOR_MATH = re.compile(r"^Sleef_")
Unit = tuple[Kernel, Optional[LoopNest]]  # where a line's operations run: a loop nest, or a kernel as a whole
LIBM = {f"{name}{suffix}" for suffix in ("", "f") for name in (
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
    "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "cbrt", "hypot", "erf", "erfc", "lgamma",
    "tgamma", "fmod", "remainder", "nextafter", "ceil", "floor", "round", "trunc", "sincos", "copysign", "fma")}


def with_machine_code(kernels: list[Kernel], entries: Sequence[MachineEntry]
                      ) -> tuple[list[Kernel], tuple[int, list[Problem]]]:
    """(kernels with ``machine`` joined to each C++ kernel and to the loop nests it can be told for, (items read,
    problems)): ``entries``: the variant's ``machine_code``. A kernel joins the entry of its graph with its source's
    key, else any entry with that key (one without a graph: a record made before entries had one, or a kernel no
    output code held; the same source compiles to the same machine code). Items: each C++ kernel, and each entry
    joining none; each problem line says what was not understood of one of them."""
    if not entries:
        return kernels, (0, [])
    keys: dict[str, str] = {k.id: kernel_key(k.code) for k in kernels if k.backend == Backend.CPP}
    by_graph: dict[tuple[Optional[str], Optional[str]], MachineEntry] = {
        (e.graph, e.key): e for e in entries if e.graph is not None}
    by_key = {e.key: e for e in reversed(entries)}  # the first entry of a key
    out: list[Kernel] = []
    problems: list[Problem] = []
    for k in kernels:
        entry = (by_graph.get((k.graph, keys[k.id])) or by_key.get(keys[k.id])) if k.id in keys else None
        if entry is None:
            out.append(k)
            problems += [Problem((Unread(UnreadKind.NO_MACHINE_CODE),), kernel=k.id)] if k.id in keys else []
            continue
        kernel, found = _joined(k, entry)
        out.append(kernel)
        problems += [Problem(tuple(found), kernel=k.id)] if found else []
    placed = {(k.graph, keys[k.id]) for k in kernels if k.id in keys}
    unjoined = [e for e in entries if (e.graph, e.key) not in placed
                and (e.graph is not None or e.key not in {key for _, key in placed})]
    problems += [Problem((Unread(UnreadKind.UNJOINED),), graph=e.graph, kernel=e.kernel or e.key) for e in unjoined]
    return out, (len(keys) + len(unjoined), problems)


def _joined(kernel: Kernel, entry: MachineEntry) -> tuple[Kernel, list[Unread]]:
    """(``kernel`` with its machine code and its nests' own, what was not understood of it)."""
    functions = entry.functions or {}
    unclassified = _merged(f.unclassified for f in functions.values())
    unknown = sum(n for _, n in unclassified)
    problems = [Unread(UnreadKind.UNCLASSIFIED, names=tuple(m for m, _ in unclassified),
                       counts=tuple(n for _, n in unclassified))] if unknown else []
    nests, unattributed = _per_nest(kernel, functions, entry.lines)
    return replace(kernel, machine=_code(functions.items()), loop_nests=nests), problems + unattributed


def _per_nest(kernel: Kernel, functions: dict[str, Counts], lines: Optional[dict[str, Counts]]
              ) -> tuple[list[LoopNest], list[Unread]]:
    """(the kernel's loop nests with their own counts, problems): from the line table's counts per source line
    (``lines``) where the compiler wrote one, else those of the functions that hold a nest alone."""
    nests = kernel.loop_nests
    if lines:
        numbered = sorted((int(line), counts) for line, counts in lines.items())
        at = [line for line, _ in numbered]

        def within(n: LoopNest) -> list[tuple[int, Counts]]:
            return numbered[bisect.bisect_left(at, n.lines[0]):bisect.bisect_right(at, n.lines[1])]
        return [replace(n, machine=_code((f"lines {n.lines[0]}-{n.lines[1]}", counts) for _, counts in within(n)))
                for n in nests], []
    code = kernel.code.splitlines()
    regions = [_span(code, i) for i, line in enumerate(code) if REGION.search(line)]
    outlined = sorted((int(m.group(1) or 0), name) for name in functions if (m := OUTLINED.search(name)))
    if len(outlined) != len(regions):
        return nests, [Unread(UnreadKind.OUTLINED, counts=(len(outlined), len(regions)))]
    owner: dict[int, list[str]] = {}  # nest index: the functions holding it, where they hold no other nest
    if not regions and len(nests) == 1 and "kernel" in functions:
        owner[nests[0].index] = ["kernel"]
    for (first, last), (_, name) in zip(regions, outlined):
        inside = [n for n in nests if _overlaps(n, (first, last))]
        if len(inside) == 1 and sum(_overlaps(inside[0], r) for r in regions) == 1:
            owner[inside[0].index] = [name]
    return [replace(n, machine=_code((f, functions[f]) for f in owner[n.index])) if n.index in owner else n
            for n in nests], []


def _overlaps(nest: LoopNest, region: tuple[int, int]) -> bool:
    first, last = region
    return nest.lines[0] - 1 <= last and first <= nest.lines[1] - 1


def _span(lines: list[str], start: int) -> tuple[int, int]:
    """(first, last) 0-based line of what a ``#pragma omp parallel`` at ``start`` applies to: its block, or the one
    statement (a ``for`` loop with its body) after it."""
    following = next((j for j in range(start + 1, len(lines)) if lines[j].strip()), start)
    return start, cpp.body_end(lines, following)


def _code(functions: Iterable[tuple[str, Counts]]) -> Optional[MachineCode]:
    """One MachineCode summing the counts of ``functions`` ((symbol, raw counts) pairs, or (a nest's "lines A-B",
    the counts of one of its lines) pairs); None where there are none."""
    functions = list(functions)
    if not functions:
        return None
    total = {c: sum(getattr(f, c) or 0 for _, f in functions) for c in COUNTS}
    calls = _merged(f.calls for _, f in functions)
    widths = [f.register for _, f in functions if f.register]
    return MachineCode(
        functions=tuple(dict.fromkeys(name for name, _ in functions)), instructions=total["instructions"],
        packed_fp=total["packed_fp"], scalar_fp=total["scalar_fp"], packed_int=total["packed_int"],
        simd_data=total["simd_data"], gathers=total["gather"],
        register=min(widths, key=("zmm", "ymm", "xmm").index) if widths else None,
        vector_math=tuple((n, c) for n, c in calls if VECTOR_MATH.match(n)),
        scalar_math=tuple((n, c) for n, c in calls if n in LIBM),
        unclassified=_merged(f.unclassified for _, f in functions))


def _merged(dicts: Iterable[Optional[dict[str, int]]]) -> tuple[tuple[str, int], ...]:
    """((name, count), ...) summed over ``dicts``, most first."""
    total: dict[str, int] = {}
    for d in dicts:
        for name, n in (d or {}).items():
            total[name] = total.get(name, 0) + n
    return tuple(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))


def own(unit: Unit) -> Optional[MachineCode]:
    """The machine code of a unit (kernel, nest or None) alone: a nest's own, or a one-nest kernel's; else None."""
    kernel, nest = unit
    if nest is not None:
        return nest.machine
    return kernel.machine if len(kernel.loop_nests) <= 1 else None


def vectorized(unit: Unit) -> Optional[bool]:
    """Whether a C++ unit's operations run in SIMD: its own machine code's answer where it decides (packed or
    scalar), else Inductor's code's."""
    kernel, nest = unit
    if kernel.backend != Backend.CPP:
        return None
    source = nest.vectorized if nest else kernel.vectorized
    code = own(unit)
    return source if code is None or not code.decides else code.simd == "packed"


def reasons(units: Sequence[Unit]) -> list[Reason]:
    """The machine code beside the source verdict, for a line's C++ units: one ``machine-code`` Reason with a part
    per unit, one ``machine-disagrees`` naming the units whose machine code overrules Inductor's code, and one
    ``machine-lane`` for vector code calling scalar math; each keeps the first LISTED of its units."""
    said: dict[NestAt, MachineCode] = {}
    disagree: list[tuple[NestAt, bool]] = []
    lane: list[tuple[NestAt, tuple[tuple[str, int], ...]]] = []
    for kernel, nest in units:
        code = own((kernel, nest)) if kernel.backend == Backend.CPP else None
        shown = code or (kernel.machine if kernel.backend == Backend.CPP else None)
        if shown is None:
            continue
        several = len(kernel.loop_nests) > 1
        where = NestAt(kernel.name, nest.index if nest and several else None)
        if code is None:
            where = NestAt(kernel.name, None, len(kernel.loop_nests))
        said.setdefault(where, shown)
        source = nest.vectorized if nest else kernel.vectorized
        if code is not None and code.overrules(source):
            disagree.append((where, code.simd == "packed"))
        if code is not None and source and code.scalar_math:
            lane.append((where, tuple(code.scalar_math)))
    found = [(ReasonKind.MACHINE_CODE, Machine(code=tuple(said.items())[:LISTED], more=_more(said))),
             (ReasonKind.MACHINE_DISAGREES, Machine(overrules=tuple(disagree[:LISTED]), more=_more(disagree))),
             (ReasonKind.MACHINE_LANE, Machine(lane=tuple(lane[:LISTED]), more=_more(lane)))]
    return [Reason(kind, facts) for kind, facts in found if facts.code or facts.overrules or facts.lane]


def _more(items: Sized) -> int:
    """How many items a listing of the first LISTED leaves out."""
    return max(0, len(items) - LISTED)
