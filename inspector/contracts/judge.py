"""Contracts judged against the facts of each run: a Verdict per promise and place, from a Judgement per run and
variant.

Unknown is never pass: a fact the torch, the machine or the record cannot show (no SIMD ISA, one thread, a compile
time the torch does not report, an FX graph cache hit, a line with no verdict) is ``unknown``, with why. A speedup is
judged on the alternating rounds: it holds only when every round clears the bound, is violated only when every round
misses it, and is otherwise ``inconclusive``; so is a violation timed on a busy machine.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePosixPath
from typing import NamedTuple

from inspector.contracts.grammar import Contract, Position, Term
from inspector.contracts.facts import FunctionFact, LineFact, Nest, RunFacts, SourceText
from inspector.contracts.source import Source, locate, read
from inspector.contracts.versions import shown
from inspector.model import LineStatus, Vectorized
from inspector.probe.hotspots import MIN_SHARE, SHOWN

COMPARE: dict[str, Callable[[float, float], bool]] = {
    "==": operator.eq, "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}
STATUS: dict[LineStatus | None, str] = {
    LineStatus.PARALLEL: "parallel", LineStatus.SERIAL: "serial", LineStatus.EXTERN: "a library call",
    LineStatus.EAGER: "ran eagerly", LineStatus.GRAPH_BREAK: "broke the graph and ran eagerly",
    LineStatus.UNKNOWN: "compiled (parallel or serial: unknown)"}
VECTORIZED: dict[Vectorized | None, str] = {
    Vectorized.ALL: "vectorized", Vectorized.SOME: "partly vectorized", Vectorized.NONE: "not vectorized",
    Vectorized.UNKNOWN: "vectorization unknown"}
NO_ISA = ("DEFAULT", "NONE", "NO VECTOR")  # torch.backends.cpu.get_cpu_capability() without SIMD
UNPLACED = "no evidence names it here: it did not run, or ran where inspector could not place it"
CACHED = "an FX graph cache hit: Inductor loaded the compiled code and skipped code generation"
LIBRARY = "a library call: inspector does not see the library's code"
MIXED = "the evidence places it in code of both kinds"


class Outcome(str, Enum):
    HOLDS = "holds"
    VIOLATED = "violated"
    INCONCLUSIVE = "inconclusive"
    UNKNOWN = "unknown"

    __str__ = str.__str__


RANK = {Outcome.HOLDS: 0, Outcome.UNKNOWN: 1, Outcome.INCONCLUSIVE: 2, Outcome.VIOLATED: 3}
HOLDS, VIOLATED, INCONCLUSIVE, UNKNOWN = Outcome.HOLDS, Outcome.VIOLATED, Outcome.INCONCLUSIVE, Outcome.UNKNOWN


@dataclass(frozen=True)
class Judgement:
    """One promise under one run (``run``: its label), for one variant (None: no variant had it)."""

    run: str
    variant: str | None
    outcome: Outcome
    said: str  # the fact as found: "not vectorized", "2 graphs", "3.10x faster than numpy (...)"
    why: str = ""  # its evidence, or why it is unknown or inconclusive
    values: tuple[float, ...] = ()  # a speedup's lowest, median and highest ratio over the rounds


@dataclass(frozen=True)
class Verdict:
    """A promise (``promise``: its words, or "nothing regressed") at ``place``, under every run; ``site``: where it
    is written, when not at ``place``."""

    place: Position
    promise: str
    site: Position | None
    judgements: tuple[Judgement, ...]

    @property
    def outcome(self) -> Outcome:
        """The worst judgement's: violated, inconclusive, unknown, holds; unknown when none was made."""
        return max((j.outcome for j in self.judgements), key=RANK.__getitem__, default=UNKNOWN)


class Judged(NamedTuple):
    """A promise judged on one fact: the outcome, the fact as found, why, and a speedup's rounds (Judgement)."""

    outcome: Outcome
    said: str
    why: str = ""
    values: tuple[float, ...] = ()


Made = tuple[Position, str, Judgement]  # (place, promise, judgement)


def _torch(run: RunFacts) -> str:
    """'torch 2.13.0' (its release, without the build)."""
    return f"torch {shown(run.torch)}"


def label(run: RunFacts) -> str:
    """A run as verdicts name it: "torch 2.13.0", with its job and, where it is not the sample's own, its record."""
    stem = PurePosixPath(run.sample.replace("\\", "/")).stem
    return _torch(run) + (f" ({run.job})" if run.job else "") + (f" [{run.name}]" if run.name != stem else "")


def judge(contracts: list[Contract], runs: list[RunFacts]) -> list[Verdict]:
    """A Verdict per promise and place, over every run of the contract's file that its torch range admits; a
    comment's contract no run checked here is of is unknown (a pyproject.toml table's is about other runs)."""
    found: dict[tuple[Position, str, Position | None], list[Judgement]] = {}
    for contract in contracts:
        relevant = [r for r in runs if file_of(contract.target.pattern, r) is not None]
        made = [m for r in relevant if contract.torch is None or r.torch in contract.torch
                for m in _judge_run(contract, r)]
        if not relevant and not contract.table:
            made = [(place_of(contract), t.text, Judgement("every run", None, UNKNOWN, "not judged",
                                                           f"no run checked here is of {contract.target.pattern}"))
                    for t in contract.terms]
        for place, promise, judgement in made:
            found.setdefault((place, promise, contract.site if contract.site != place else None), []).append(
                judgement)
    return [Verdict(place, promise, site, tuple(js)) for (place, promise, site), js in found.items()]


def file_of(pattern: str, run: RunFacts) -> SourceText | str | None:
    """The file of ``run`` whose path ends with ``pattern`` (None: none; a str: why it is ambiguous)."""
    parts = PurePosixPath(pattern.replace("\\", "/")).parts
    hits = [f for f in run.files if any(PurePosixPath(p.replace("\\", "/")).parts[-len(parts):] == parts
                                        for p in (f.display, f.path))]
    exact = [f for f in hits if f.display == pattern]
    if len(exact) == 1 or len(hits) == 1:
        return (exact or hits)[0]
    return f"{len(hits)} files of the run end with {pattern}: {', '.join(f.display for f in hits)}" if hits else None


def place_of(contract: Contract) -> Position:
    """Where a contract's promises are told: its statement or function in the file on disk, else where written."""
    target = contract.target
    if target.source is not None and target.statement is not None:
        return Position(file=target.shown, line=target.statement.first, column=target.statement.column)
    functions = target.source.functions_named(target.function) if target.source and target.function else []
    return Position(file=target.shown, line=functions[0].line, column=functions[0].column) if functions else \
        contract.site


def _judge_run(contract: Contract, run: RunFacts) -> list[Made]:
    file = file_of(contract.target.pattern, run)
    if not isinstance(file, SourceText):
        return [(place_of(contract), t.text, Judgement(label(run), None, UNKNOWN, "not judged", str(file)))
                for t in contract.terms]
    if contract.target.function is None:
        return _line_contract(contract, run, file)
    made = _function_contract(contract, [t for t in contract.terms if not t.on_line and t.word != "share"], run,
                              file)
    made += [_share(contract, t, run, file) for t in contract.terms if t.word == "share"]
    lines = [t for t in contract.terms if t.on_line]
    return made + (_function_lines(contract, lines, run, file) if lines else [])


def parsed(file: SourceText) -> Source | None:
    """The recorded source of ``file``, parsed (None: not Python)."""
    try:
        return read(file.text)
    except (SyntaxError, ValueError):
        return None


def _line_contract(contract: Contract, run: RunFacts, file: SourceText) -> list[Made]:
    """A statement's promises under ``run``: the statement found in the recorded source by its label or code."""
    target, place, name = contract.target, place_of(contract), label(run)
    recorded = parsed(file)
    at: int | str = f"the recorded source of {file.display} is not Python"
    if recorded is not None and target.statement is not None and target.source is not None:
        at = locate(target.statement, target.label, target.source, recorded)
    elif recorded is not None:
        marked = recorded.labels.get(target.label or "", [])
        at = marked[0] if len(marked) == 1 else f"{len(marked) or 'no'} lines of {file.display} marked label=" \
                                                 f"{target.label}"
    if isinstance(at, str):
        return [(place, t.text, Judgement(name, None, UNKNOWN, "not found", at)) for t in contract.terms]
    facts = {f.variant: [e for e in f.lines if e.file == file.display and e.line <= at <= e.end_line]
             for f in run.functions if f.state == "ran"}
    cached = {f.variant: f.cached for f in run.functions}
    allowed = contract.allow_eager or (target.statement is not None and target.statement.first in target.allowed)
    made = []
    for term in contract.terms:
        judged = [(v, j) for v, es in facts.items() if es for j in [_line_term(term, es, run, allowed, cached[v])]
                  if j]
        made += [(place, term.text, Judgement(name, v, *j)) for v, j in judged]
        if not any(facts.values()):
            made.append((place, term.text, Judgement(name, None, UNKNOWN, "no verdict", UNPLACED)))
    return made


def _function_contract(contract: Contract, terms: list[Term], run: RunFacts, file: SourceText) -> list[Made]:
    """A function's own promises under ``run``, for each of its compiled variants."""
    name = (contract.target.function or "").rsplit(".", 1)[-1]
    functions = [f for f in run.functions if f.function.rsplit(".", 1)[-1] == name and f.file == file.display]
    place = place_of(contract)
    if contract.target.source is None and functions:
        place = Position(file=file.display, line=functions[0].line or 1)
    made = []
    for term in terms:
        judged = [(f.variant, j) for f in functions for j in [_function_term(term, f, run)] if j]
        made += [(place, term.text, Judgement(label(run), v, *j)) for v, j in judged]
        if not judged:
            made.append((place, term.text, Judgement(label(run), None, UNKNOWN, "not judged",
                                                     f"no compiled variant of {name} ran in this run")))
    return made


def _share(contract: Contract, term: Term, run: RunFacts, file: SourceText) -> Made:
    """A function's share of a program's run, as sampled: one the record does not list held less than the least it
    lists (the probe lists every function over 2 % of the run, up to six)."""
    name = (contract.target.function or "").rsplit(".", 1)[-1]
    place, who = place_of(contract), label(run)
    if not run.program or not run.sampled:
        why = "only inspector run samples where a program's time goes" if not run.program else \
            "this run's time was not sampled (--no-hotspots, or too short a run)"
        return place, term.text, Judgement(who, None, UNKNOWN, "share unknown", why)
    found = next((h for h in run.hot if h.function == name and h.file == file.display), None)
    if found is not None:
        return place, term.text, Judgement(who, None, HOLDS if COMPARE[term.op](found.share, term.bound) else VIOLATED,
                                           f"{found.share:.0%} of the run (sampled)")
    least = min((h.share for h in run.hot), default=0.0) if len(run.hot) >= SHOWN else MIN_SHARE
    if term.op in ("<=", "<") and least <= term.bound:
        return place, term.text, Judgement(who, None, HOLDS, f"under {least:.0%} of the run (sampled)",
                                           "not among the functions that held the run's time")
    return place, term.text, Judgement(who, None, UNKNOWN, f"under {least:.0%} of the run (sampled)",
                                       "not among the functions the record lists: its share is not known closer")


def _function_lines(contract: Contract, terms: list[Term], run: RunFacts, file: SourceText) -> list[Made]:
    """A function's line promises under ``run``: each of its lines with a verdict, told at its line on disk."""
    name = (contract.target.function or "").rsplit(".", 1)[-1]
    lines: dict[int, dict[str, list[LineFact]]] = {}
    for f in run.functions:
        for e in f.lines if f.state == "ran" else ():
            if e.function.rsplit(".", 1)[-1] == name and e.file == file.display:
                lines.setdefault(e.line, {}).setdefault(f.variant, []).append(e)
    cached = {f.variant: f.cached for f in run.functions}
    recorded = parsed(file)
    made = []
    for line, variants in sorted(lines.items()):
        place, allowed = _on_disk(contract, recorded, line, file)
        made += [(place, t.text, Judgement(label(run), v, *j)) for t in terms for v, es in variants.items()
                 for j in [_line_term(t, es, run, allowed, cached[v])] if j]
    if not lines:
        made += [(place_of(contract), t.text, Judgement(label(run), None, UNKNOWN, "no verdict",
                                                        f"no line of {name} has a verdict: {UNPLACED}"))
                 for t in terms]
    return made


def _on_disk(contract: Contract, recorded: Source | None, line: int, file: SourceText) -> tuple[Position, bool]:
    target = contract.target
    return on_disk(target.source, target.shown, target.allowed, recorded, line, file)


def on_disk(source: Source | None, shown: str, allowed: frozenset[int], recorded: Source | None, line: int,
            file: SourceText) -> tuple[Position, bool]:
    """(where ``line`` of the recorded ``file`` is in its copy on disk, ``source`` shown as ``shown``; whether it is
    marked allow eager there, from ``allowed``); a line the copy on disk no longer has (or no copy) is told where
    the record has it."""
    statement = recorded.statement_at(line) if recorded else None
    if source is not None and recorded is not None and statement is not None:
        at = locate(statement, recorded.label_of(statement), recorded, source)
        mine = source.statement_at(at) if isinstance(at, int) else None
        if mine is not None:
            return Position(file=shown, line=mine.first, column=mine.column), mine.first in allowed
    return Position(file=file.display, line=line, column=statement.column if statement else 1), False


def _line_term(term: Term, facts: list[LineFact], run: RunFacts, allowed: bool, cached: bool) -> Judged | None:
    """A line promise over the line's verdicts in one variant (its call sites): the worst of them; None where the
    promise says nothing of them (vectorized, on Triton code)."""
    judged = [j for j in (_line_fact(term, e, run, allowed, cached) for e in facts) if j]
    return max(judged, key=lambda j: RANK[j[0]], default=None)


def _line_fact(term: Term, e: LineFact, run: RunFacts, allowed: bool, cached: bool) -> Judged | None:
    if e.status is None:
        return Judged(UNKNOWN, "no verdict", UNPLACED)
    if e.status in (LineStatus.EAGER, LineStatus.GRAPH_BREAK):
        return Judged(HOLDS, f"{STATUS[e.status]} (allowed)") if allowed else Judged(
            VIOLATED, STATUS[e.status], _join(e.eager_why))
    return LINE_JUDGES[term.word](e, run, cached)


def _parallel(e: LineFact, run: RunFacts, cached: bool) -> Judged:
    if e.status == LineStatus.PARALLEL:
        return Judged(HOLDS, "parallel")
    if e.status == LineStatus.SERIAL and run.threads == 1:
        return Judged(UNKNOWN, "serial", "torch ran on one thread here: no code of it can be parallel")
    if e.status == LineStatus.SERIAL:
        return Judged(VIOLATED, "serial", _join(e.serial_why))
    return Judged(UNKNOWN, STATUS[e.status], LIBRARY if e.status == LineStatus.EXTERN else MIXED)


def _serial(e: LineFact, run: RunFacts, cached: bool) -> Judged:
    if e.status in (LineStatus.SERIAL, LineStatus.PARALLEL):
        return Judged(HOLDS, "serial") if e.status == LineStatus.SERIAL else Judged(VIOLATED, "parallel")
    return Judged(UNKNOWN, STATUS[e.status], LIBRARY if e.status == LineStatus.EXTERN else MIXED)


def _library(e: LineFact, run: RunFacts, cached: bool) -> Judged:
    if e.status == LineStatus.EXTERN:
        return Judged(HOLDS, "a library call")
    return Judged(VIOLATED, f"{STATUS[e.status]}, in generated code")


def _compiled(e: LineFact, run: RunFacts, cached: bool) -> Judged:
    return Judged(HOLDS, STATUS[e.status or LineStatus.UNKNOWN], "")


def _vectorized(e: LineFact, run: RunFacts, cached: bool) -> Judged | None:
    said = VECTORIZED.get(e.vectorized, "vectorization unknown")
    if e.status == LineStatus.EXTERN:
        return Judged(UNKNOWN, "a library call", LIBRARY)
    if e.vectorized == Vectorized.NA:
        return None
    if e.vectorized == Vectorized.ALL:
        return Judged(HOLDS, said, "")
    scalar = e.vectorized in (Vectorized.NONE, Vectorized.SOME)
    if scalar and not e.no_isa and run.isa and run.isa.upper() not in NO_ISA:
        return Judged(VIOLATED, said, _join(e.scalar_why + tuple(_nest_words(n) for n in e.nests)))
    if scalar:
        return Judged(UNKNOWN, said,
                      f"this CPU has no SIMD instruction set torch vectorizes for (ISA: {run.isa or 'not recorded'})")
    return Judged(UNKNOWN, said, CACHED if cached else f"{MIXED} (vectorized and scalar)")


def _simd(e: LineFact, run: RunFacts, cached: bool) -> Judged:
    if not e.nests:
        return Judged(UNKNOWN, "no C++ loop", "it is placed in no C++ kernel whose machine code was read")
    missing = [n for n in e.nests if n.simd is None]
    if missing:
        return Judged(UNKNOWN, "no machine code", _nest_words(missing[0]) + (f" ({CACHED})" if cached else ""))
    scalar = [n for n in e.nests if n.simd == "scalar"]
    if scalar:
        return Judged(VIOLATED, "scalar only (machine code)", _join(tuple(_nest_words(n) for n in scalar)))
    if all(n.simd == "packed" for n in e.nests):
        return Judged(HOLDS, "packed SIMD (machine code)")
    undecided = next(n for n in e.nests if n.simd != "packed")
    return Judged(UNKNOWN, undecided.said, f"{_nest_words(undecided)}: the machine code does not decide")


LINE_JUDGES: dict[str, Callable[[LineFact, RunFacts, bool], Judged | None]] = {
    "parallel": _parallel, "serial": _serial, "library": _library, "compiled": _compiled,
    "vectorized": _vectorized, "simd": _simd}


def _nest_words(n: Nest) -> str:
    """'kernel cpp_fused_add_0 nest 1: scalar only (machine code)'."""
    return f"kernel {n.kernel}" + (f" nest {n.index}" if n.index is not None else "") + f": {n.said}" + (
        " (machine code)" if n.simd else "")


def _join(texts: tuple[str, ...]) -> str:
    return "; ".join(dict.fromkeys(t for t in texts if t))


def _function_term(term: Term, f: FunctionFact, run: RunFacts) -> Judged | None:
    """A function promise for one compiled variant; None where it did not run here (no device for it)."""
    if f.state == "skipped":
        return None
    if f.state == "failed":
        return Judged(UNKNOWN, "failed", f"it failed: {f.error or 'no error recorded'}")
    if term.word in ("graphs", "breaks", "recompiles"):
        count = {"graphs": f.graphs, "breaks": f.breaks, "recompiles": f.recompiles}[term.word]
        noun = {"graphs": "graph", "breaks": "graph break", "recompiles": "recompile"}[term.word]
        return Judged(HOLDS if COMPARE[term.op](count, term.bound) else VIOLATED,
                      f"{count} {noun}{'s' * (count != 1)}")
    if term.word in ("limit-hit", "no-limit-hit"):
        said = f"hit the recompile limit ({f.limit})" if f.limit else \
            f"did not hit the recompile limit ({f.recompiles} recompiles)"
        return Judged(HOLDS if bool(f.limit) == (term.word == "limit-hit") else VIOLATED, said)
    if term.word == "compile":
        return _compile(term, f, run)
    if term.word in ("pays-after", "pays-after-warm"):
        return _pays(term, f)
    return _faster(term, f, run)


def _pays(term: Term, f: FunctionFact) -> Judged:
    """pays-after (its compile as measured) and pays-after-warm (a rerun's, torch's caches warm), in calls."""
    warm = term.word == "pays-after-warm"
    found, when = (f.warm_pays_after, " on a rerun") if warm else (f.pays_after, "")
    if found is None:
        return Judged(UNKNOWN, "break-even unknown", "the compile of a rerun was not measured here (--no-warm, or "
                      "a program's function not replayed)" if warm else "no compile time, or nothing eager to pay "
                      "against")
    if found.calls is None:
        return Judged(VIOLATED, f"never pays{when}: no faster than the fastest eager run")
    return Judged(HOLDS if COMPARE[term.op](found.calls, term.bound) else VIOLATED,
                  f"pays after {found.calls:,.0f} calls{when}")


def _compile(term: Term, f: FunctionFact, run: RunFacts) -> Judged:
    if f.cached:
        return Judged(UNKNOWN, "compile time unknown", f"{CACHED}: its time is not a compile's")
    if f.compile_s is None:
        return Judged(UNKNOWN, "compile time unknown",
                      f"{_torch(run)} reported no compile time for it (a hook it lacks)")
    return Judged(HOLDS if COMPARE[term.op](f.compile_s, term.bound) else VIOLATED,
                  f"compiled in {f.compile_s:.2f} s")


def _faster(term: Term, f: FunctionFact, run: RunFacts) -> Judged:
    """faster-than, judged on the rounds (see the module's docstring)."""
    if run.program and term.against != "eager":
        return Judged(UNKNOWN, "not timed against it",
                      "a program's function is timed against its eager replay only (faster-than=eager:Nx)")
    s = next((s for s in f.speedups if s.against == term.against), None)
    if s is None:
        timed = ", ".join(x.against for x in f.speedups) or "none"
        return Judged(UNKNOWN, "not timed against it", f"no {term.against} timing in this run (timed: {timed})")
    bound = f"{term.bound:g}x"
    if not s.rounds or s.low is None or s.high is None or s.median is None:
        return Judged(INCONCLUSIVE, f"{s.once or 0:.2f}x {term.against}'s speed, timed once",
                      "not timed in alternating rounds: rerun with --rounds N")
    said = f"{s.median:.2f}x {term.against}'s speed ({s.low:.2f}x to {s.high:.2f}x in {s.rounds} rounds)"
    values = (s.low, s.median, s.high)
    if s.low >= term.bound:
        return Judged(HOLDS, said, "", values)
    if s.high < term.bound and not s.busy:
        return Judged(VIOLATED, said, f"every round under {bound}", values)
    why = f"every round under {bound}, but {s.busy}" if s.high < term.bound and s.busy else \
        f"the rounds straddle {bound}: rerun, or --rounds N"
    return Judged(INCONCLUSIVE, said, why, values)
