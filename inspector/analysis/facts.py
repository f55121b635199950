"""What one function compiled and what the probe measured of it, as the compiled stage reads it: each raw artifact
read once, at the edge (``compiled.read``), into these typed values; every derivation after (``compiled.build``:
kernels, breaks, costs, machine code, line verdicts) reads them, never the record. Those that hold figures as the
probe recorded them are read field for field (``model.of_raw``); a graph's loop nests come with Inductor's decisions
parsed, its breaks parsed (``parse.breaks.BreakFacts``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from inspector.model import Decisions, Unread
from inspector.raw import JSON


@dataclass(frozen=True)
class NestRecord:
    """One C++ loop nest Inductor generated: its code, the user stacks of the FX nodes it computes and their names,
    Inductor's decisions for it (None: not recorded) with what of them could not be read, and how many decision
    entries the probe recorded."""

    code: tuple[str, ...]
    stacks: tuple[str, ...]
    nodes: tuple[str, ...]
    decisions: Optional[Decisions]
    unread: Sequence[Unread]
    entries: int


@dataclass(frozen=True)
class CompiledGraph:
    """One graph torch compiled: its Dynamo graph (``fx_graph``, its ``# File:`` comments), output code modules, nest
    records (None: not recorded), the scheduler's pairs it did not fuse ((one, the other, why)), Inductor's provenance
    ({kernel: user stacks}), the compile's metrics and FX graph cache outcome, and what capture kept of its first
    compile where torch found it in its caches."""

    compile_id: Optional[str]
    fx_graph: str
    output_code: tuple[str, ...]
    nests: Optional[tuple[NestRecord, ...]]
    fusion: tuple[tuple[str, str, Optional[str]], ...]
    kernel_stack_traces: dict[str, list[str]]
    metrics: Optional[JSON]
    fx_graph_cache: Optional[str]
    kept: Optional[JSON]


@dataclass(frozen=True)
class Event:
    """A profiled pass's launches of one kernel or library op (on ``threads``, in the thread-scaling pass), per call."""

    name: Optional[str] = None
    graph: Optional[str] = None
    threads: Optional[int] = None
    count: Optional[float] = None
    time_s: Optional[float] = None
    median_s: Optional[float] = None


@dataclass(frozen=True)
class Profiled:
    """A profiled pass (``unprofiled_s``: its calls timed without the profiler; ``part_events``: {part of a call: the
    profiler's events a call recorded there}); the pass on fewer threads also has ``threads`` and, where it could
    not run, why (``specialised``)."""

    mechanism: Optional[str] = None
    calls: Optional[int] = None
    total_s: Optional[float] = None
    unprofiled_s: Optional[float] = None
    graphs_s: Optional[float] = None
    regions_s: Optional[float] = None
    guards_s: Optional[float] = None
    part_events: Optional[dict[str, float]] = None
    events: Optional[tuple[Event, ...]] = None
    error: Optional[str] = None
    threads: Optional[int] = None
    specialised: Optional[str] = None


@dataclass(frozen=True)
class Counts:
    """A function's or a source line's instructions by class, the calls it makes, its widest vector register."""

    instructions: Optional[int] = None
    packed_fp: Optional[int] = None
    scalar_fp: Optional[int] = None
    packed_int: Optional[int] = None
    simd_data: Optional[int] = None
    gather: Optional[int] = None
    calls: Optional[dict[str, int]] = None
    register: Optional[str] = None
    unclassified: Optional[dict[str, int]] = None


@dataclass(frozen=True)
class MachineEntry:
    """The counted machine code of one C++ kernel (its source's ``key``; the graph whose output code holds it and its
    name there, where known), per function and per source line."""

    key: Optional[str] = None
    graph: Optional[str] = None
    kernel: Optional[str] = None
    functions: Optional[dict[str, Counts]] = None
    lines: Optional[dict[str, Counts]] = None
