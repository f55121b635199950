"""Inductor's decisions for one loop nest, as the probe recorded them (inspector/probe/decisions.py), to Decisions."""

from collections import Counter

from inspector.model import Decisions, Gather, ParallelChoice, Tiling

VECTOR_KERNELS = ("CppVecKernel", "CppTile2DKernel")  # kernel classes Inductor generates a vector loop with
KINDS = ("tiling", "checker", "parallel", "gather", "lane", "kernel", "dropped")


def parse(entries, hooks):
    """(Decisions, [what could not be read]) of one nest record's ``decisions``; ``hooks``: the capture's
    {decision kind: "recorded" or why not}, absent in records made before decisions were recorded (then None)."""
    if entries is None:
        return None, []
    problems = [f"decision of unknown kind {e.get('kind')!r} not read" for e in entries if e.get("kind") not in KINDS]
    tiling = tuple(_tiling(e) for e in entries if e.get("kind") == "tiling")
    tiling += tuple(Tiling("checker", factor=e.get("factor"), message=e.get("message"))
                    for e in entries if e.get("kind") == "checker")
    kernels = [dict(e, args=e.get("args") if isinstance(e.get("args"), dict) else {}) for e in entries
               if e.get("kind") == "kernel"]
    vector = [e for e in kernels if e.get("class") in VECTOR_KERNELS]
    tail = None
    if vector:  # a vectorized tail is a vector kernel given the tail's size; else the scalar kernel runs the tail
        tail = any(e["args"].get(k) is not None for e in vector for k in ("tail_size", "inner_tail_size"))
    if not tiling and vector:
        factor = vector[0]["args"].get("tiling_factor")
        tiling = (Tiling("tiled", factor=int(factor) if factor and factor.isdigit() else None),)
    unrecorded = tuple((k, why) for k, why in (hooks or {}).items() if why != "recorded")
    return Decisions(
        tiling=tiling,
        parallel=tuple(ParallelChoice(e.get("work"), e.get("threads") or 1, e.get("min_chunk_size"),
                                      bool(e.get("dynamic_threads")), e.get("depth") or 0, tuple(e.get("levels") or ()))
                       for e in entries if e.get("kind") == "parallel"),
        gathers=tuple(dict.fromkeys(Gather(e.get("buffer") or "?", e.get("index") or "?", bool(e.get("store")),
                                           e.get("lanes")) for e in entries if e.get("kind") == "gather")),
        lane_ops=tuple(sorted(Counter(e.get("op") for e in entries if e.get("kind") == "lane").items())),
        tail_vectorized=tail, unrecorded=unrecorded), problems


def _tiling(e):
    limits = e.get("limits") or {}
    return Tiling(
        branch=e.get("branch") or "unknown", factor=e.get("factor"), dtypes=tuple(e.get("dtypes") or ()),
        not_vectorizable=tuple(e.get("not_vectorizable") or ()), ops=e.get("ops"),
        non_contiguous=tuple(sorted((e.get("non_contiguous") or {}).items())), mask_ops=e.get("mask_ops"),
        heuristics=e.get("heuristics"), loop_tail_vec=e.get("loop_tail_vec"), ranges=tuple(e.get("ranges") or ()),
        count_limit=limits.get("non_contiguous_count"), ratio_limit=limits.get("non_contiguous_ratio"),
        small_fraction=limits.get("small_inner_fraction"), small_ops=limits.get("small_inner_ops"))
