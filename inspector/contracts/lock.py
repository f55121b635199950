"""``inspector.lock``: what each line and function is today, per run (its torch, job and machine), and the record it
was read from, redacted and compressed, with its digest. ``check --update`` writes it; ``check --baseline`` then
fails on whatever got worse since, contract or not, by ``compare --fail-on-regression``'s rules (facts.regressions:
one implementation), except on a line marked ``allow eager`` that now runs eagerly. A time compared with the lock's
was not taken side by side with it, so a slower time is inconclusive, never a violation.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from inspector import __version__
from inspector.analysis.compare import CompareError
from inspector.contracts.grammar import Position, Problem, local_source
from inspector.contracts.facts import FunctionFact, RunFacts, SourceText, Worse, regressions
from inspector.contracts.judge import (HOLDS, INCONCLUSIVE, STATUS, UNKNOWN, VECTORIZED, VIOLATED, Judgement, Verdict,
                                   label, on_disk, parsed)
from inspector.contracts.versions import release, shown
from inspector.errors import InspectorError
from inspector.raw import RawRecord
from inspector.record import redact, write_atomic

FORMAT = "inspector.lock/1"


class LockError(InspectorError):
    """A lock file that cannot be read (exit 2)."""


@dataclass(frozen=True)
class Locked:
    """One run of a lock: which run it was, and its record."""

    sample: str
    config: tuple[str, ...]
    job: str | None
    torch: str
    record: RawRecord


def write(path: Path, runs: list[tuple[RunFacts, RawRecord]]) -> None:
    """Write the lock of ``runs`` at ``path``."""
    entries = [_entry(run, record) for run, record in runs]
    write_atomic(path, json.dumps({"format": FORMAT, "inspector": __version__, "runs": entries}, indent=1,
                                  ensure_ascii=False) + "\n")


def _entry(run: RunFacts, record: RawRecord) -> dict[str, object]:
    data = json.dumps(redact(record).to_json(), sort_keys=True, ensure_ascii=False).encode()
    return {"sample": run.sample, "record_name": run.name, "config": list(run.config), "job": run.job,
            "torch": run.torch, "machine": {"cpu": run.cpu, "isa": run.isa, "threads": run.threads, "cuda": run.cuda},
            "functions": {f.variant: _function_words(f) for f in run.functions if f.state != "skipped"},
            "lines": {f.variant: _line_words(f) for f in run.functions if f.lines},
            "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
            "record": base64.b64encode(gzip.compress(data, mtime=0)).decode()}


def _function_words(f: FunctionFact) -> str:
    """'ran: 1 graph, 0 breaks, 2 recompiles, limit not hit'."""
    return (f"{f.state}: {f.graphs} graphs, {f.breaks} breaks, {f.recompiles} recompiles, "
            + (f"hit {f.limit}" if f.limit else "limit not hit"))


def _line_words(f: FunctionFact) -> list[str]:
    """'samples/poly.py:58 parallel, not vectorized' per line and verdict."""
    said = [f"{e.file}:{e.line} {STATUS.get(e.status, 'no verdict')}"
            + (f", {VECTORIZED[e.vectorized]}" if e.vectorized in VECTORIZED else "") for e in f.lines]
    return list(dict.fromkeys(said))


def read(path: Path) -> list[Locked]:
    """The runs of the lock at ``path`` (LockError when it is not one, or a record in it was changed)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise LockError(f"{path}: cannot read it as a lock ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LockError(f"{path}: not an inspector lock (no 'format': '{FORMAT}'); write one with --update")
    return [_locked(path, entry) for entry in data.get("runs") or []]


def _locked(path: Path, entry: Any) -> Locked:
    try:
        data = gzip.decompress(base64.b64decode(str(entry["record"])))
        if "sha256:" + hashlib.sha256(data).hexdigest() != entry["digest"]:
            raise ValueError("its digest does not match: it was changed by hand")
        record = RawRecord.from_json(json.loads(data))
        config = tuple(str(c) for c in entry.get("config") or [])
        job = entry.get("job")
        return Locked(str(entry["sample"]), config, str(job) if job else None, str(entry["torch"]), record)
    except (KeyError, ValueError, TypeError, AttributeError, OSError) as e:
        raise LockError(f"{path}: a run cannot be read: {e}") from None


def baseline(locked: list[Locked], runs: list[tuple[RunFacts, RawRecord]], name: str
             ) -> tuple[list[Verdict], list[Problem]]:
    """A "nothing worse than NAME" Verdict per place that got worse in a run (and, per run where nothing did, one
    that holds); a run the lock has no run for is unknown."""
    made: dict[Position, list[Judgement]] = {}
    problems = []
    for run, record in runs:
        sample = run.files[0] if run.files else SourceText(run.sample, run.sample, "sample", "")
        home = Position(file=local_source(sample.display, sample.path)[1], line=1)
        found = _match(locked, run)
        if found is None:
            why = f"{name} has no run of {run.sample} under {label(run)}: write one with --update"
            made.setdefault(home, []).append(Judgement(label(run), None, UNKNOWN, "no baseline", why))
            continue
        try:
            worse = [w for w in (_worse(run, sample, w, found, name) for w in regressions(found.record, record)) if w]
        except CompareError as e:
            problems.append(Problem(f"{name}: {e}"))
            continue
        for place, judgement in worse:
            made.setdefault(place, []).append(judgement)
        if not worse:
            made.setdefault(home, []).append(Judgement(label(run), None, HOLDS, f"nothing {_since(found, name)}"))
    return [Verdict(place, f"nothing worse than {name}", None, tuple(js)) for place, js in made.items()], problems


def _since(found: Locked, name: str) -> str:
    """'worse than inspector.lock (its run under torch 2.1.2, job)'."""
    return f"worse than {name} (its run under torch {shown(found.torch)}{f', {found.job}' if found.job else ''})"


def _match(locked: list[Locked], run: RunFacts) -> Locked | None:
    """The lock's run of the same sample and config: of the same job, else the same torch, else the only one."""
    stem = PurePosixPath(run.sample.replace("\\", "/")).stem
    same = [x for x in locked if PurePosixPath(x.sample.replace("\\", "/")).stem == stem and x.config == run.config]
    for fits in (lambda x: bool(run.job) and x.job == run.job, lambda x: release(x.torch) == release(run.torch)):
        found = [x for x in same if fits(x)]
        if found:
            return found[0]
    return same[0] if len(same) == 1 else None


def _worse(run: RunFacts, sample: SourceText, w: Worse, found: Locked,
           name: str) -> tuple[Position, Judgement] | None:
    """Where a regression is on disk, and its Judgement; None for a line marked allow eager that now runs eagerly."""
    if w.kind in ("line", "break"):
        display, line = w.file or sample.display, w.line or 1
    else:
        function = next((f for f in run.functions if f.variant == w.variant), None)
        display, line = (function.file or sample.display, function.line or 1) if function else (sample.display, 1)
    file = next((f for f in run.files if f.display == display), SourceText(display, display, "user", ""))
    source, shown, allowed = local_source(file.display, file.path)
    place, allowed_here = on_disk(source, shown, allowed, parsed(file), line, file)
    if allowed_here and w.eager_now:
        return None
    outcome = INCONCLUSIVE if w.kind == "time" and not w.interleaved else VIOLATED
    why = _since(found, name) + (": not timed side by side with it" if outcome == INCONCLUSIVE else "")
    return place, Judgement(label(run), w.variant, outcome, w.text, why)
