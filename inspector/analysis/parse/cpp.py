"""A C++ kernel's source (Inductor's CPU backend, OpenMP and ``at::vec``): its loop nests and what each shows.

A kernel often holds several top-level loops ("nests"): a scalar loop computing most of a fused expression, an
``at::vec`` reduction, a vectorized pointwise loop. Whether code runs in parallel or vectorized is a property of
each nest, not of the kernel; this parser finds the nests and says what it could not read.
"""

from __future__ import annotations

import re
from typing import Optional

from inspector.analysis.parse import KernelFacts, loads
from inspector.model import Evidence, LoopNest, Unread, UnreadKind

OMP = re.compile(r"#pragma omp (parallel|for)")
OMP_FOR = re.compile(r"#pragma omp (?:parallel )?for\b")
VECTOR = re.compile(r"at::vec::|Vectorized<|VecMask<|::loadu\(")
ACCUMULATOR = re.compile(r"tmp_acc\d+")
THREAD_ACCUMULATOR = re.compile(r"tmp_acc\d+_arr\[")
OP = re.compile(r"^\s*auto tmp\d+ =", re.M)
FOR = re.compile(r"^\s*for\s*\(")
# the loop indices Inductor generates (x0, x1 in 2.13; i0 in 2.1); loops over threads (tid, i) only prepare and
# combine per-thread reduction results, and gathers loop over x0_inner inside a vectorized loop
INDEX = re.compile(r"^[xi]\d+$")
# for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(20000L); x0+=static_cast<int64_t>(1L))
HEADER = re.compile(r"for\s*\(\s*(?:int64_t|long|int|auto)\s+(\w+)\s*=\s*(.+?);\s*\1\s*<\s*(.+?);\s*\1\s*(?:\+=|\+\+)")
CAST = re.compile(r"static_cast<[\w:]+>\((.*)\)$")


def facts(code: str) -> tuple[KernelFacts, list[Unread]]:
    """The kernel's properties (the ``Kernel`` fields a C++ kernel fills) and what was not understood."""
    nests, problems = loop_nests(code)
    reduction = bool(ACCUMULATOR.search(code))
    found = loads.cpp_loads(code)
    return KernelFacts(
        kind="reduction" if reduction else "pointwise",
        parallel_regions=len(re.findall(r"#pragma omp parallel", code)),
        vectorized=bool(VECTOR.search(code)),
        ops=len(OP.findall(code)),
        loads=len(found),
        strided_loads=loads.strided_cpp(code, found),
        masked_loads=0,
        evidence=evidence(code),
        loop_nests=nests,
    ), problems


def evidence(code: str) -> list[Evidence]:
    """The lines of ``code`` that show it runs in parallel, vectorized, reduces per thread, or loads strided."""
    found = []
    for number, line in enumerate(code.splitlines(), 1):
        what = ("OpenMP parallel region" if OMP.search(line) else "vector instruction" if VECTOR.search(line)
                else "per-thread accumulator" if THREAD_ACCUMULATOR.search(line)
                else "strided load" if loads.strided_cpp(line) else None)
        if what:
            found.append(Evidence(number, what))
    return found


def loop_nests(code: str) -> tuple[list[LoopNest], list[Unread]]:
    """([LoopNest], problems): every top-level loop over Inductor's indices, with the lines its body spans."""
    lines = code.splitlines()
    nests: list[LoopNest] = []
    problems: list[Unread] = []
    i = 0
    while i < len(lines):
        if not FOR.match(lines[i]):
            i += 1
            continue
        end = body_end(lines, i)
        header = HEADER.search(lines[i])
        if header and not INDEX.match(header.group(1)):  # a loop over threads: not a nest
            i = end + 1
            continue
        pragma = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        body = "\n".join(lines[i:end + 1])
        trip, start = _bounds(lines[i])
        if trip is None:
            problems.append(Unread(UnreadKind.LOOP_HEADER, lines[i].strip()))
        vectorized = bool(VECTOR.search(body))
        previous = nests[-1] if nests else None
        nests.append(LoopNest(
            index=len(nests) + 1, lines=(i + 1, end + 1), parallel=bool(OMP_FOR.search(pragma)),
            vectorized=vectorized, reduction=bool(ACCUMULATOR.search(body)),
            tail=not vectorized and start not in (None, "0") and bool(previous and previous.vectorized),
            trip=trip, work=_work(lines[i:end + 1]), strided_loads=loads.strided_cpp(body)))
        i = end + 1
    if not nests and FOR.search(code):
        problems.append(Unread(UnreadKind.LOOP_INDENTED))
    return nests, problems


def body_end(lines: list[str], start: int) -> int:
    """The index of the last line of the ``for`` at ``start``: its matching brace, or its one statement."""
    depth, opened = 0, False
    for j in range(start, len(lines)):
        text = lines[j].split("//", 1)[0]
        depth += text.count("{") - text.count("}")
        opened = opened or "{" in text
        if opened and depth <= 0:
            return j
        if not opened and j > start and text.strip().endswith(";"):
            return j
    return len(lines) - 1


def _bounds(header: str) -> tuple[Optional[str], Optional[str]]:
    """(elements the loop index runs over, its start), as text: "20000" or a symbolic size; (None, None) when the
    header is not understood."""
    m = HEADER.search(header)
    if not m:
        return None, None
    start, end = _plain(m.group(2)), _plain(m.group(3))
    if start.isdigit() and end.isdigit():
        return str(int(end) - int(start)), start
    return (end if start == "0" else f"{end} - {start}"), start


def _work(lines: list[str]) -> Optional[int]:
    """Elements the nest's loops cover (its range times that of its widest inner loop, recursively): what
    Inductor weighs against its minimum chunk per thread; None when a range is symbolic or not understood."""
    trip, _ = _bounds(lines[0])
    if not (trip or "").isdigit():
        return None
    inner: list[Optional[int]] = []
    i = 1
    while i < len(lines) - 1:
        header = HEADER.search(lines[i]) if FOR.match(lines[i]) else None
        end = body_end(lines, i) if header else i
        if header and INDEX.match(header.group(1)):
            inner.append(_work(lines[i:end + 1]))
        i = end + 1
    known = [n for n in inner if n is not None]
    if len(known) < len(inner):
        return None
    return int(trip or 0) * max(known, default=1)


def _plain(expr: str) -> str:
    """``static_cast<int64_t>(20000L)`` -> ``20000``."""
    expr = expr.strip()
    while (m := CAST.fullmatch(expr)):
        expr = m.group(1).strip()
    return re.sub(r"\b(\d+)L\b", r"\1", expr)
