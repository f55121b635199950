"""The typed values analysis derives from a record, and that every renderer reads, by concern: the closed sets of
words (``words``), compiled code (``code``), line verdicts (``lines``), graph breaks (``breaks``), timing (``timing``),
runs (``runs``), fixes (``fixes``), the analysis of a record (``analysis``) and the comparison of records
(``comparison``). ``from inspector.model import X`` reads any of them.

No torch here, and no JSON but at the boundaries: ``of_raw`` reads a value from its counterpart in the raw record
(``inspector.raw``) where it is one field for one, ``to_json`` turns any of these into plain data (the JSON
renderer's output, versioned as FORMAT). Values are frozen: a later step makes a new value with
``dataclasses.replace`` instead of changing what an earlier step produced. The closed sets of words (a run's status,
a kernel's backend, a line's verdict, a reason's kind, the evidence used) are string-valued enums: a member equals,
hashes and prints as its value, so the JSON and the templates read the words.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from collections.abc import Callable
from typing import Any, Optional, TypeVar

from inspector.model.analysis import (Analysis, Bandwidth, BreaksView, Env, Finding, Headline, Ignored, ParseCount,
                                      ProgramAnalysis, RecordInfo, RunAnalysis, RunEnd, Sample, SampleAnalysis,
                                      SourceFile, Trace)
from inspector.model.breaks import BreakCost, CompileWarning, GraphBreak, Recompilation
from inspector.model.code import (CompiledCode, CompilePhases, Decisions, Evidence, Gather, Graph, Kernel, KernelCost,
                                  Launch, LoopNest, ParallelChoice, SizeCall, ThreadScaling, Tiling, TimeSplit,
                                  TritonLaunch, Unprofiled)
from inspector.model.comparison import (STEADY, VECTORIZED, ArgvChanged, BreakChange, CallsChange, CodePair,
                                        ComparedCandidate, ComparedHotspot, ComparedLine, ComparedRun, ComparedVariant,
                                        Comparison, Confounder, ExitChanged, Hunk, LineVerdicts, PairWarning,
                                        Populations, Regression, RegressionKind, RunPair, Sequential, SourceChanged,
                                        TimedApart, TimedBusy, TimeGoes, TimeRow)
from inspector.model.fixes import Change, ChangeAt, Fix, LineRef, SizeCompared, TrialEffect, TrialResult, TrialSpec
from inspector.model.rewrites import Arm, Declined, Drawn, Note, RewriteCheck, RewriteRun, Rewritten
from inspector.model.lines import CallSite, LineVerdict
from inspector.model.machine import MachineCode
from inspector.model.runs import (Argument, CallKinds, CallRun, ChildProcess, CodeLocation, CrossCheck, Crossover,
                                  FunctionRun,
                                  GaveUp, InternalError, LimitHit, Program, ProgramFunction, Recompile, Replay,
                                  SampleVariant, StanceRun, SweepEntry, SweepPoint, UncompiledMethod, Untraced,
                                  UntracedCalls)
from inspector.model.timing import BreakEven, MachineLoad, Rounds, Speedups, Timing, Transfer, WarmCompile
from inspector.model.why import (LISTED, BackendFailed, Backends, BreakAt, Facts, Gathered, Guard, LaneOps, LibraryFix,
                                 Machine, Named, NestAt, NestRun, Nests, NoLoop, NonContiguous, Overruled, Problem,
                                 Reason, Scaled, Serial, SerialCause, SizeRecompile, SmallLoops, Tail, ThreadSpeedups,
                                 TritonLoads, Undecided, Unfused, Unread, UnreadKind, Unrecorded, Unrolled, UsualFix)
from inspector.model.words import (STATUSES, Backend, BreakFix, FixKind, How, LineStatus, NotTraced, ReasonKind,
                                   RunKind, Status, Unmeasured, Vectorized, WarningKind, Words)
from inspector.source import Place, Span

FORMAT = "inspector.analysis/4"  # the JSON renderer's output (docs/record.md, "The analysis")

__all__ = [
    "ArgvChanged", "ExitChanged", "PairWarning", "Populations", "Sequential", "SourceChanged", "TimedApart",
    "TimedBusy",
    "LISTED", "Backends", "BreakAt", "Facts", "Gathered", "LaneOps", "Machine", "Named", "NestAt", "NestRun",
    "Nests", "NoLoop", "NonContiguous", "Overruled", "Scaled", "Serial", "SerialCause", "SizeRecompile", "SmallLoops",
    "Tail", "ThreadSpeedups", "TritonLoads", "Undecided", "Unfused", "Unrecorded", "Unrolled", "Problem", "Unread",
    "UnreadKind", "LibraryFix", "UsualFix", "BackendFailed", "Guard",
    "FORMAT", "Analysis", "Argument", "Arm", "Backend", "Bandwidth", "BreakChange", "BreakCost", "BreakEven",
    "BreakFix",
    "BreaksView", "CallKinds", "CallSite", "CallRun", "CallsChange", "Change", "ChangeAt", "ChildProcess",
    "CodeLocation", "CodePair", "ComparedCandidate", "ComparedHotspot", "ComparedLine", "ComparedRun",
    "ComparedVariant", "Comparison", "CompilePhases", "CompileWarning",
    "CompiledCode", "Confounder", "CrossCheck", "Crossover", "Decisions", "Declined", "Drawn", "Env", "Evidence",
    "Finding", "Fix", "FixKind", "FunctionRun", "GaveUp", "Gather", "Graph", "GraphBreak", "Headline", "How", "Hunk",
    "Ignored", "InternalError",
    "Kernel", "KernelCost", "Launch", "LimitHit", "LineRef", "LineStatus", "LineVerdict", "LineVerdicts", "LoopNest",
    "MachineCode", "MachineLoad", "NotTraced", "Note", "ParallelChoice", "ParseCount", "Place", "Program",
    "ProgramAnalysis", "ProgramFunction", "Reason", "ReasonKind", "Recompilation", "Recompile", "RecordInfo",
    "Regression", "RegressionKind", "Replay", "RewriteCheck", "RewriteRun", "Rewritten", "Rounds", "RunAnalysis",
    "RunEnd", "RunKind", "RunPair", "STATUSES", "STEADY", "Sample", "SampleAnalysis", "SampleVariant",
    "SizeCall", "SizeCompared", "SourceFile", "Span", "Speedups", "StanceRun", "Status", "SweepEntry", "SweepPoint",
    "ThreadScaling", "Tiling", "TimeGoes", "TimeRow", "TimeSplit", "Timing", "Trace", "Transfer", "TrialEffect",
    "TrialResult", "TrialSpec", "TritonLaunch", "UncompiledMethod", "Unmeasured", "Unprofiled", "Untraced",
    "UntracedCalls", "VECTORIZED", "Vectorized", "WarmCompile", "WarningKind", "Words", "of_raw", "to_json",
]


T = TypeVar("T")
_HINTS: dict[type, dict[str, Any]] = {}  # each model type's fields' types, resolved once


def of_raw(cls: type[T], raw: object, /, **given: Any) -> T:
    """The value of type ``cls`` read from ``raw`` (its counterpart in the raw record): each field from the raw
    field of its name, but those ``given`` (what the analysis derives). A field the raw value lacks or holds None in
    takes its default, else its type's empty value (None where it is Optional, else "", 0, False, an empty list); a
    value of this package inside (or a list or tuple of them, or a dict's values) is read the same way, an enum from its
    value."""
    hints = _HINTS.get(cls) or _HINTS.setdefault(cls, typing.get_type_hints(cls))
    read = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        value = getattr(raw, f.name, None)
        if f.name in given or value is None and (f.default is not dataclasses.MISSING
                                                 or f.default_factory is not dataclasses.MISSING):
            continue
        read[f.name] = _empty(hints[f.name]) if value is None else _read(hints[f.name], value)
    return cls(**read, **given)


def _empty(hint: Any) -> Any:
    """The empty value of a field's type, for a value the raw record does not hold."""
    origin = typing.get_origin(hint) or hint
    if origin in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint):
        return None
    if origin in (str, int, float, bool, list, tuple, dict):
        return origin()
    raise TypeError(f"of_raw: no empty value of {hint} (give it)")


def _read(hint: Any, value: Any) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return _read(next(a for a in args if a is not type(None)), value)
    if origin in (list, tuple) and args and isinstance(value, (list, tuple)):  # tuple[X, ...], or one type a place
        each = args[:1] * len(value) if origin is list or args[-1] is Ellipsis else args
        return origin(_read(a, v) for a, v in zip(each, value))
    if origin is dict and len(args) == 2 and isinstance(value, dict):  # {key: a value read the same way}
        return {k: _read(args[1], v) for k, v in value.items()}
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and not isinstance(value, hint):
        return of_raw(hint, value)
    return value


def to_json(value: object, said: Optional[Callable[[object], dict[str, Any]]] = None) -> Any:
    """Plain JSON data (dicts, lists, numbers, strings) for any value of this package; ``said``: the words a
    renderer builds from a value's facts, by key (its ``text``, say; empty for a value without words), written over
    its fields of that name or after them."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: to_json(getattr(value, f.name), said) for f in dataclasses.fields(value)}
        return {**data, **said(value)} if said else data
    if isinstance(value, (list, tuple)):
        return [to_json(v, said) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v, said) for k, v in value.items()}
    return value
