"""The source files a record keeps: those its evidence names, read once from disk while the run's files are there,
so that a report can annotate them later, anywhere (which file is whose: ``inspector.files``)."""

from __future__ import annotations

from typing import Optional

from inspector import frames, source
from inspector.files import kind
from inspector.raw import RawCapture, RawEnv, RawRecord


def referenced(record: RawRecord) -> set[str]:
    """Every file path the raw record's stacks and FX graphs name, and where each variant's code is (the sample
    included)."""
    texts: list[str] = []
    code: set[Optional[str]] = set()
    for v in record.variants or []:
        code.add(v.code.file if v.code else None)
        capture = v.capture or RawCapture.from_json({})
        texts += [b.text or "" for b in capture.breaks or []]
        for g in capture.graphs or []:
            texts.append(g.fx_graph or "")
            texts += [s for stacks in (g.kernel_stack_traces or {}).values() for s in stacks]
            texts += [o.stack or "" for n in g.nests or [] for o in n.origins or []]
    return {p for p in frames.paths(texts) | code if p is not None}


def read(record: RawRecord) -> dict[str, str]:
    """{path: source} of the user and library files the record's evidence names, and of the user's files that ran
    as Python (a library's only where other evidence names it), read as ``inspector.source.text`` reads them: the
    raw facts a report needs to annotate them later, anywhere. Files that cannot be read are left out."""
    sample_file = record.sample.file if record.sample else None
    named = referenced(record)
    traced = {p.file for v in record.variants or [] for p in v.python_lines or [] if p.file is not None}
    found = {}
    env = record.env or RawEnv()
    for path in sorted(named | traced):
        kinds: tuple[Optional[str], ...] = ("user", "library", "stdlib") if path in named else ("user",)
        if kind(path, env, sample_file) in kinds:
            text = source.text(path)
            if text is not None:
                found[path] = text
    return found
