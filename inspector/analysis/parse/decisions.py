"""Inductor's decisions for one loop nest, as the probe recorded them (inspector/probe/decisions.py), to Decisions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Optional

from inspector.model import Decisions, Gather, ParallelChoice, Tiling, Unread, UnreadKind
from inspector.raw import RawDecision, RawTilingLimits

VECTOR_KERNELS = ("CppVecKernel", "CppTile2DKernel")  # kernel classes Inductor generates a vector loop with
KINDS = ("tiling", "checker", "parallel", "gather", "lane", "kernel", "dropped")


def parse(entries: Optional[Sequence[RawDecision]],
          hooks: Optional[Mapping[str, str]]) -> tuple[Optional[Decisions], list[Unread]]:
    """(Decisions, [what could not be read]) of one nest record's ``decisions`` (RawDecisions); ``hooks``: the capture's
    {decision kind: "recorded" or why not}, absent in records made before decisions were recorded (then None)."""
    if entries is None:
        return None, []
    problems = [Unread(UnreadKind.DECISION_KIND, e.kind) for e in entries if e.kind not in KINDS]
    tiling = tuple(_tiling(e) for e in entries if e.kind == "tiling")
    tiling += tuple(Tiling("checker", factor=e.factor, message=e.message) for e in entries if e.kind == "checker")
    vector = [e.args if isinstance(e.args, dict) else {} for e in entries
              if e.kind == "kernel" and e.class_ in VECTOR_KERNELS]  # their constructor arguments
    tail = None
    if vector:  # a vectorized tail is a vector kernel given the tail's size; else the scalar kernel runs the tail
        tail = any(args.get(k) is not None for args in vector for k in ("tail_size", "inner_tail_size"))
    if not tiling and vector:
        factor = vector[0].get("tiling_factor")
        tiling = (Tiling("tiled", factor=int(factor) if factor and factor.isdigit() else None),)
    unrecorded = tuple((k, why) for k, why in (hooks or {}).items() if why != "recorded")
    return Decisions(
        tiling=tiling,
        parallel=tuple(ParallelChoice(e.work, e.threads or 1, e.min_chunk_size, bool(e.dynamic_threads), e.depth or 0,
                                      tuple(e.levels or ())) for e in entries if e.kind == "parallel"),
        gathers=tuple(dict.fromkeys(Gather(e.buffer or "?", e.index or "?", bool(e.store), e.lanes)
                                    for e in entries if e.kind == "gather")),
        lane_ops=tuple(sorted(Counter(e.op or "?" for e in entries if e.kind == "lane").items())),
        tail_vectorized=tail, unrecorded=unrecorded), problems


def _tiling(e: RawDecision) -> Tiling:
    limits = e.limits or RawTilingLimits()
    return Tiling(
        branch=e.branch or "unknown", factor=e.factor, dtypes=tuple(e.dtypes or ()),
        not_vectorizable=tuple(e.not_vectorizable or ()), ops=e.ops,
        non_contiguous=tuple(sorted((e.non_contiguous or {}).items())), mask_ops=e.mask_ops,
        heuristics=e.heuristics, loop_tail_vec=e.loop_tail_vec, ranges=tuple(e.ranges or ()),
        count_limit=limits.non_contiguous_count, ratio_limit=limits.non_contiguous_ratio,
        small_fraction=limits.small_inner_fraction, small_ops=limits.small_inner_ops)
