"""One parser per artifact of torch's output: the wrapper's call(), C++ and Triton kernels, loads, graph breaks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from inspector.model import Evidence, LoopNest, TritonLaunch


@dataclass(frozen=True)
class KernelFacts:
    """What a kernel's code shows (the ``Kernel`` fields its parser fills: ``cpp.facts``, ``triton.facts``; a library
    call's are ``LIBRARY_CALL``'s)."""

    kind: str  # pointwise | reduction | library call | a Triton heuristic
    parallel_regions: int
    vectorized: Optional[bool]
    ops: int
    loads: int
    strided_loads: list[str]
    masked_loads: int
    evidence: list[Evidence]
    loop_nests: list[LoopNest] = field(default_factory=list)  # C++
    triton: Optional[TritonLaunch] = None  # Triton


LIBRARY_CALL = KernelFacts(kind="library call", parallel_regions=0, vectorized=None, ops=0, loads=0, strided_loads=[],
                           masked_loads=0, evidence=[])
