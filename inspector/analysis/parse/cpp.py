"""A C++ kernel's source (Inductor's CPU backend, OpenMP and ``at::vec``): what it shows about how it runs."""

import re

from inspector.analysis.parse import loads
from inspector.model import Evidence

OMP = re.compile(r"#pragma omp (parallel|for)")
VECTOR = re.compile(r"at::vec::|Vectorized<|VecMask<|::loadu\(")
ACCUMULATOR = re.compile(r"tmp_acc\d+_arr\[|tmp_acc\d+")
THREAD_ACCUMULATOR = re.compile(r"tmp_acc\d+_arr\[")
OP = re.compile(r"^\s*auto tmp\d+ =", re.M)
TRIP = re.compile(r"for\s*\(\s*(?:int64_t|long)\s+(?:x|i)0\s*=\s*static_cast<(?:int64_t|long)>\(0L\);\s*"
                  r"(?:x|i)0\s*<\s*static_cast<(?:int64_t|long)>\((\d+)L\)")


def facts(code):
    """The kernel's properties (the ``Kernel`` fields a C++ kernel fills)."""
    reduction = bool(ACCUMULATOR.search(code))
    return dict(
        kind="reduction" if reduction else "pointwise",
        parallel_regions=len(re.findall(r"#pragma omp parallel", code)),
        vectorized=bool(VECTOR.search(code)),
        reduction=reduction,
        ops=len(OP.findall(code)),
        loads=len(loads.cpp_loads(code)),
        strided_loads=loads.strided_cpp(code),
        masked_loads=0,
        trip_counts=[int(t) for t in TRIP.findall(code)],
        evidence=evidence(code),
    )


def evidence(code):
    """The lines of ``code`` that show it runs in parallel, vectorized, reduces per thread, or loads strided."""
    found = []
    for number, line in enumerate(code.splitlines(), 1):
        what = ("OpenMP parallel region" if OMP.search(line) else "vector instruction" if VECTOR.search(line)
                else "per-thread accumulator" if THREAD_ACCUMULATOR.search(line)
                else "strided load" if loads.strided_cpp(line) else None)
        if what:
            found.append(Evidence(number, what))
    return found
