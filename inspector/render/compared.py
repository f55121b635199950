"""A comparison page's typed views: per pair of runs (``PairView``) each variant as compared (``ComparedView``: its
verdict, change of time, timings and code pairs as diffs, ``DiffView``), and the runs' environment side by side
(``EnvRow``). ``pages`` builds them once; the template prints them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from inspector.model import (CodePair, ComparedCandidate, ComparedHotspot, ComparedVariant, Comparison, Confounder,
                             Hunk, RunKind, RunPair, TimeRow)
from inspector.render import comparison as words, said
from inspector.render.words import ratio, spread

DIFF_LINES = 400  # diff lines of one kernel pair shown on a comparison page
ENV_ROWS = ("torch", "python", "numpy", "threads", "cpu", "isa", "cuda", "platform", "executable")


@dataclass(frozen=True)
class DiffLine:
    css: str  # add, del or ""
    text: str


@dataclass(frozen=True)
class HunkView:
    """A hunk of a code pair's diff with its lines as shown, and the lines each side it spans ("-" for none)."""

    h: Hunk
    lines: tuple[DiffLine, ...]
    a: str
    b: str


@dataclass(frozen=True)
class DiffView:
    """A kernel (or wrapper) pair as shown: its structural and cosmetic hunks, at most DIFF_LINES lines on the page
    (structural ones first), and how many lines are left out."""

    k: CodePair
    structural: tuple[HunkView, ...]
    cosmetic: tuple[HunkView, ...]
    more: int


@dataclass(frozen=True)
class TimingView:
    """One timing of a variant under both runs, with its speedup (and its spread over the rounds) in words."""

    t: TimeRow
    speedup: str


@dataclass(frozen=True)
class ComparedView:
    """One variant of a pair of runs as the comparison page says it: its headline (its statuses when not ok under
    both), its change of time (``moved``, with its ``spread``) and what it says (``reading``), its findings
    (``notes``), its timings and code pairs."""

    v: ComparedVariant
    anchor: str
    headline: str
    time: Optional[TimeRow]
    moved: str
    spread: str
    reading: Optional[str]
    notes: tuple[str, ...]
    timing: tuple[TimingView, ...]
    code: tuple[DiffView, ...]


@dataclass(frozen=True)
class CandidateView:
    """A hot function's candidate under both runs: its name, its speedup over the function as written under each,
    its change of time, and where its output differed from the program's."""

    c: ComparedCandidate
    label: str
    a: str
    b: str
    moved: str
    differs: str


@dataclass(frozen=True)
class HotView:
    """A hot function under both runs: its sentence and its candidates."""

    h: ComparedHotspot
    sentence: str
    candidates: tuple[CandidateView, ...]


@dataclass(frozen=True)
class PairView:
    """A pair of runs: its one-sentence summary, its variants, its warnings that are not confounders, and its hot
    functions."""

    p: RunPair
    summary: str
    variants: tuple[ComparedView, ...]
    others: tuple[str, ...]
    hot: tuple[HotView, ...]


@dataclass(frozen=True)
class EnvRow:
    """One line of the runs' environment: what it is, whether it differs (a confounder), each run's value."""

    key: str
    differs: bool
    values: tuple[str, ...]


def pairs(comparison: Comparison) -> tuple[PairView, ...]:
    """Each pair of runs as the page shows it."""
    return tuple(PairView(p, words.summary(p), tuple(_compared(n, p, v) for v in p.variants),
                          tuple(said.pair_warning(w) for w in p.warnings if not isinstance(w, Confounder)),
                          tuple(_hot(p, h) for h in p.hotspots))
                 for n, p in enumerate(comparison.pairs))


def _hot(pair: RunPair, h: ComparedHotspot) -> HotView:
    return HotView(h, words.hot_sentence(pair, h), tuple(
        CandidateView(c, words.candidate_label(c), words.over_written(c, 0), words.over_written(c, 1),
                      ratio(c.time.speedup, "change"), words.differs(pair, c)) for c in h.candidates))


def environment(comparison: Comparison) -> tuple[EnvRow, ...]:
    """The runs side by side: a program's arguments and machine load or a sample's population, the date, torch's
    build, the machine and the config; a key that differs between runs of a pair is marked."""
    runs = comparison.runs
    differs = {c.key for p in comparison.pairs for c in p.confounders}
    rows = [EnvRow("arguments", False, tuple(" ".join(r.argv or []) for r in runs)),
            EnvRow("machine load", False, tuple(said.load_words(r.load) for r in runs))] \
        if comparison.kind == RunKind.PROGRAM else [
        EnvRow("population", False, tuple(f"{r.population:,}" for r in runs))]
    rows += [EnvRow("date", False, tuple(r.created.replace("T", " ") for r in runs)),
             EnvRow("torch build", "build" in differs, tuple(r.build for r in runs))]
    rows += [EnvRow(key, key in differs, tuple(_value(getattr(r.env, key)) for r in runs)) for key in ENV_ROWS]
    rows.append(EnvRow("config", False, tuple(" ".join(r.config) or "-" for r in runs)))
    return tuple(rows)


def _value(value: object) -> str:
    return "-" if value is None else str(value)


def _compared(n: int, pair: RunPair, v: ComparedVariant) -> ComparedView:
    """One ComparedVariant ``v`` of a pair of runs, with what the comparison page says of it."""
    time = v.time
    return ComparedView(
        v, f"p{n}-{v.id}", words.headline(v), time, ratio(time.speedup if time else None, "change"),
        spread(time.spread, time.rounds) if time else "", words.reading(pair, v), tuple(words.notes(pair, v)),
        tuple(TimingView(t, words.speedup(t)) for t in v.timing), tuple(_diff(k) for k in words.code(v)))


def _diff(k: CodePair) -> DiffView:
    """A code pair's hunks as shown, at most DIFF_LINES lines on the page (structural ones first)."""
    shown, left = 0, 0
    out: dict[str, list[HunkView]] = {"structural": [], "cosmetic": []}
    for h in sorted(k.hunks, key=lambda h: h.kind != "structural"):
        room = max(0, DIFF_LINES - shown)
        left += max(0, len(h.lines) - room)
        if room:
            lines = h.lines[:room]
            shown += len(lines)
            out[h.kind].append(HunkView(h, tuple(DiffLine(words.diff_class(ln), ln) for ln in lines),
                                        _span(h.a), _span(h.b)))
    return DiffView(k, tuple(out["structural"]), tuple(out["cosmetic"]), left)


def _span(lines: Optional[Sequence[int]]) -> str:
    """"12–15": the lines a hunk spans on one side, "-" for none."""
    return "–".join(str(n) for n in lines) if lines else "-"

