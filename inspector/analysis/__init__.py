"""Derive kernels, graph breaks, line verdicts and costs from a record alone (no torch import).

``analyze(record)`` reads a ``RawRecord`` (``inspector.raw``, as ``inspector.record.load`` returns it) and
returns a ``SampleAnalysis`` or, for a program's run, a ``ProgramAnalysis`` (``inspector.model``): every answer a
renderer reads, stored once; the record itself is never changed. Each value is built once, whole: a sample's
variants (``variants``) or a program's functions (``functions``), each with its compiled code (``compiled.build``),
the sizes of a sweep, the fixes that apply and the advice made of them (``fixes``), each family's headline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Union

from inspector import files as files_mod
from inspector.analysis import breaks, lines, rewrites
from inspector.analysis import fixes as fixes_mod
from inspector.analysis import hotspots as hotspots_mod
from inspector.analysis.headlines import headlines
from inspector.analysis.compiled import ARTIFACTS, Context, Seen
from inspector.analysis.functions import functions
from inspector.analysis.variants import crossovers, over, sweep, variants
from inspector.model import (ChildProcess, Env, InternalError, ParseCount, Problem, Program, ProgramAnalysis,
                             ProgramFunction, RecordInfo, Rounds, RunEnd, Sample, SampleAnalysis, SampleVariant,
                             SourceFile, Trace, Unread, UnreadKind, of_raw)
from inspector.raw import RawEnv, RawProbeMessages, RawProgram, RawRecord, RawSample


def analyze(record: RawRecord) -> Union[SampleAnalysis, ProgramAnalysis]:
    """The analysis of a raw record (a ``RawRecord``, schema 2): a ProgramAnalysis for a program's run, else a
    SampleAnalysis; TypeError for anything else (a dict)."""
    if not isinstance(record, RawRecord):
        raise TypeError(f"analyze takes a RawRecord (inspector.raw), not {type(record).__name__}")
    raw_sample = record.sample or RawSample()
    sample = of_raw(Sample, raw_sample, title=raw_sample.title or raw_sample.path or "")
    env = of_raw(Env, record.env or RawEnv())
    sources = lines.Sources(_files(record.files or {}, sample, env))
    context = Context(sources, env, tuple(sample.shape))
    if record.program:
        made, seen = functions(record, context)
        program, fixes = _program(record.program, made), tuple(fixes_mod.candidates(made, ()))
        return ProgramAnalysis(**_header(record, sample, env, sources, seen, made), program=program, fixes=fixes,
                               could_try=fixes_mod.could_try(made, fixes, bool(program.try_fixes)))
    found, seen = variants(record, context)
    written = rewrites.rewrites(record, found)
    fixes = tuple(fixes_mod.of_variants(found))
    points = sweep(record)
    return SampleAnalysis(
        **_header(record, sample, env, sources, seen, found), variants=found, sweep=points,
        findings=breaks.findings(found), rewrites=written,
        rounds=of_raw(Rounds, record.rounds, count=record.rounds.rounds or 0) if record.rounds else None, fixes=fixes,
        changes=fixes_mod.changes(fixes), headlines=headlines(found, written, crossovers(points)))


def _header(record: RawRecord, sample: Sample, env: Env, sources: lines.Sources, seen: list[tuple[str, Seen]],
            units: Sequence[Union[SampleVariant, ProgramFunction]]) -> dict[str, Any]:
    """The fields every run's analysis holds (``Analysis``'s): what ran, where, what the parsers read, every internal
    error (the record's, each variant's or function's, each trial's), and the machine's load over every timing window
    (each variant's first timing and its alternating rounds, or a program's whole run: what the page's one caution
    about the machine reads)."""
    windows = [v.load for v in record.variants or [] if v.load] + [
        r.load for rounds in ((record.rounds.variants if record.rounds else None) or {}).values() for r in rounds
        if r.load] + [w for w in [record.program.load if record.program else None] if w]
    internal = [of_raw(InternalError, e) for e in record.internal_errors or []]
    internal += [InternalError(f"{v.id}: {e.where}", e.error, e.detail) for v in units for e in v.internal_errors]
    internal += [of_raw(InternalError, e, where=f"{t.id}: {e.where or ''}") for t in record.trials or []
                 for e in t.internal_errors or []]
    return dict(
        record=RecordInfo(record.schema or "", record.given("inspector", "?") or "?",
                          record.given("created", "") or ""),
        sample=sample, env=env, files=sources.files,
        config=record.config or [], compile_options=record.compile_options or {}, reference=record.reference,
        end=RunEnd(bool(record.interrupted), record.given("probe_restarts", 0) or 0),
        trace=Trace(record.trace_dir, tuple(record.trace_logs or ())) if record.trace_dir or record.trace_logs
        else None, parse=_parse(seen, record.unknown(), record.probe_messages or RawProbeMessages()),
        internal_errors=internal, load=over(windows))


def _parse(seen: list[tuple[str, Seen]], keys: list[str], messages: RawProbeMessages) -> list[ParseCount]:
    """Per kind of torch output, over every variant or function: how many were read, and what was not understood
    (each problem after the id of the variant it is in); then what this version does not know, each only where there
    is some: the record's ``keys``, and the kinds of the probe's messages (counted by collect)."""
    counts = [ParseCount(artifact, sum(s[artifact][0] for _, s in seen),
                         [replace(p, unit=vid) for vid, s in seen for p in s[artifact][1]]) for artifact in ARTIFACTS]
    unknown = [ParseCount("record keys", len(keys), [Problem((Unread(UnreadKind.RECORD_KEY, k),)) for k in keys]),
               ParseCount("probe messages", messages.read or 0, [
                   Problem((Unread(UnreadKind.MESSAGE_KIND, kind),))
                   for kind, count in (messages.unknown_kinds or {}).items() for _ in range(count)])]
    return counts + [row for row in unknown if row.problems]


def _program(raw: RawProgram, made: tuple[ProgramFunction, ...]) -> Program:
    children = tuple(of_raw(ChildProcess, c, start_method=c.start_method or "fork",
                            functions=[f.id for f in made if f.process is not None and f.process == c.name])
                     for c in raw.children or [])
    return of_raw(Program, raw, functions=made, load=raw.load.to_json() if raw.load else None, children=children,
                  hotspots=tuple(hotspots_mod.hotspot(h, raw.wall_s) for h in raw.hotspots or []))


def _files(kept: dict[str, str], sample: Sample, env: Env) -> list[SourceFile]:
    """The sample and every user or library file the record's evidence names (``kept``: {path: source}, the
    record's), as SourceFiles, in that order."""
    sample_file = sample.file or sample.path
    found = [SourceFile(sample_file, sample.path, "sample", sample.source)]
    for path, source in sorted(kept.items()):
        kind = files_mod.kind(path, env, sample_file)
        if kind and kind != "sample":
            found.append(SourceFile(path, files_mod.display(path, kind, sample.path, sample_file, env), kind, source))
    order = {"sample": 0, "user": 1, "library": 2, "stdlib": 3}
    return sorted(found, key=lambda f: (order[f.kind], f.display))
