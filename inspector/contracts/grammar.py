"""Contracts: promises about a line or a function, written in a comment or in ``pyproject.toml``.

In a comment, on the line (or alone on the line above it)::

    valid = check_constraints(solutions)   # inspector: parallel vectorized
    def fitness_numpy(solutions):           # inspector: graphs=1 breaks=0 recompiles<=1 faster-than=numpy:3x
    mask = pop.nonzero()                    # inspector: allow eager
    total = pop.sum(1)                      # inspector: label=hot

and, for code one cannot annotate, in the nearest ``pyproject.toml`` above the checked file that has a
``[tool.inspector]`` table (as pytest and ruff find theirs)::

    [[tool.inspector.contract]]
    at = "pkg/mod.py:fn"        # a function; "pkg/mod.py@hot" the line marked label=hot
    expect = "graphs=1 breaks=0"
    torch = ">=2.5"             # optional: the torch versions it is promised for

The words (``WORDS``): on a line ``parallel``, ``serial``, ``vectorized``, ``library`` (a library call), ``compiled``
(or ``not eager``), ``simd`` (the machine code has packed SIMD); on a function ``graphs``, ``breaks`` and
``recompiles`` with ``=``, ``<=``, ``>=``, ``<`` or ``>`` and a count, ``compile<=SECONDS`` (torch's compile time;
``30s``, ``500ms``), ``pays-after<=N`` and ``pays-after-warm<=N`` (calls until its compile paid, as measured and on a
rerun with torch's caches warm), ``limit-hit`` / ``no-limit-hit`` (Dynamo's recompile limit),
``faster-than=VARIANT:Nx`` (the speedup against another variant of the run; a program's function: ``eager``, its
eager replay), ``share<=N%`` (a program's function, compiled or not: its share of the run's time, as ``inspector run``
sampled it; one not among the functions the record lists held less than the least of them). Line words on a function
promise each of its lines. ``allow eager`` lets a line run eagerly (after a graph break): no promise on it
and no baseline fails when it does. ``torch>=2.2`` (comma-separated clauses) limits a comment's promises to those
versions. A contract that cannot be read is a Problem (exit 2), never a promise guessed.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.contracts.source import LABEL, Function, Source, Statement, read
from inspector.contracts.versions import Range, RangeError, parse_range
from inspector.source import Place, split

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

LINE_WORDS = ("parallel", "serial", "vectorized", "library", "compiled", "simd")
FUNCTION_WORDS = ("graphs", "breaks", "recompiles", "compile", "limit-hit", "no-limit-hit", "faster-than", "share",
                  "pays-after", "pays-after-warm")
WORDS = LINE_WORDS + FUNCTION_WORDS
BOUND = re.compile(r"(graphs|breaks|recompiles|compile|share|pays-after-warm|pays-after)(<=|>=|==|=|<|>)(\S+)$")
PERCENT = re.compile(r"(\d+(?:\.\d+)?)%$")
FASTER = re.compile(r"faster-than=([\w.*-]+):(\d+(?:\.\d+)?)x?$")
SECONDS = re.compile(r"(\d+(?:\.\d+)?)(ms|s)?$")
TOML_KEYS = ("at", "expect", "torch")


@dataclass(frozen=True)
class Position(Place):
    """A place in a file, as a compiler names it (``file`` as shown: relative to the current folder when under it)."""

    file: str = field(kw_only=True)
    line: int = field(kw_only=True)
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Problem:
    """A contract or an input that cannot be used (exit 2), where it is (None: not in a file)."""

    text: str
    place: Position | None = None


@dataclass(frozen=True)
class Term:
    """One promise: ``word`` (WORDS), with its comparison (``op`` and ``bound``: a count, seconds or a ratio) and,
    for faster-than, the variant it is ``against``; ``text`` as written."""

    text: str
    word: str
    op: str = ""
    bound: float = 0.0
    against: str = ""

    @property
    def on_line(self) -> bool:
        return self.word in LINE_WORDS


@dataclass(frozen=True)
class Target:
    """What a contract is about: a function (``function``) or a statement (``statement``) of the file records name
    by ``pattern`` (its path from the current folder or pyproject.toml's folder, else its name; the records' path
    must end with it), with its ``source`` where the file is on disk (else the recorded source is read)."""

    pattern: str
    shown: str  # the file as places name it
    source: Source | None
    function: str | None = None
    statement: Statement | None = None
    label: str | None = None
    allowed: frozenset[int] = frozenset()  # first lines of the file's statements marked allow eager


@dataclass(frozen=True)
class Contract:
    target: Target
    terms: tuple[Term, ...]
    site: Position  # where it is written
    torch: Range | None = None
    allow_eager: bool = False
    table: bool = False  # written in pyproject.toml: it speaks of the runs of its file, if any are checked


@dataclass(frozen=True)
class Words:
    """The words of one comment or ``expect``: its terms, ``allow eager``, its label and torch range."""

    terms: tuple[Term, ...] = ()
    allow_eager: bool = False
    label: str | None = None
    torch: Range | None = None
    problems: tuple[str, ...] = field(default=())


def parse_words(text: str) -> Words:
    """The Words of ``text``; what is not a word is a problem, in a few words."""
    tokens, terms, problems = text.split(), [], []
    allow, label, torch = False, None, None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        pair = " ".join(tokens[i:i + 2])
        if pair in ("allow eager", "not eager"):
            allow = allow or pair == "allow eager"
            terms += [Term(pair, "compiled")] if pair == "not eager" else []
            i += 2
            continue
        i += 1
        if (found := LABEL.fullmatch(token)) is not None:
            label = found.group(1)
        elif token.startswith("torch") and token[5:6] in "<>=!":
            try:
                torch = parse_range(token[5:])
            except RangeError as e:
                problems.append(f"{token}: {e}")
        else:
            term = _term(token)
            terms += [term] if isinstance(term, Term) else []
            problems += [term] if isinstance(term, str) else []
    return Words(tuple(terms), allow, label, torch, tuple(problems))


def _term(token: str) -> Term | str:
    """The Term a token writes, or why it is none."""
    if token in LINE_WORDS or token in ("limit-hit", "no-limit-hit"):
        return Term(token, token)
    found = BOUND.fullmatch(token)
    if found:
        word, op, value = found.groups()
        percent = PERCENT.fullmatch(value)
        number = (_seconds(value) if word == "compile" else (float(percent.group(1)) / 100 if percent else None)
                  if word == "share" else float(value) if value.isdigit() else None)
        if number is None:
            expected = {"compile": "seconds (30s, 500ms)", "share": "a percentage (20%)"}.get(word, "a whole number")
            return f"{token}: expected {expected} after {op}"
        return Term(token, word, "==" if op == "=" else op, number)
    faster = FASTER.fullmatch(token)
    if faster:
        return Term(token, "faster-than", ">=", float(faster.group(2)), faster.group(1))
    if token.startswith("faster-than"):
        return f"{token}: expected faster-than=VARIANT:Nx (faster-than=numpy:3x)"
    return f"{token}: not a contract word (known: {', '.join(WORDS)}, allow eager, label=NAME, torch>=VERSION)"


def _seconds(value: str) -> float | None:
    found = SECONDS.fullmatch(value)
    if not found:
        return None
    return float(found.group(1)) / (1000 if found.group(2) == "ms" else 1)


def shown(path: Path) -> str:
    """A path as places name it: relative to the current folder when under it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def pattern(path: Path) -> str:
    """How records name a file on disk: its path from the current folder when under it, else its name."""
    relative = shown(path)
    return path.name if Path(relative).is_absolute() else relative


def from_comments(path: Path, text: str) -> tuple[list[Contract], list[Problem]]:
    """The contracts written in the comments of the file ``path`` (its ``text``)."""
    where = shown(path)
    try:
        source = read(text)
    except SyntaxError as e:
        return [], [Problem(f"not Python ({e.msg}): its contracts cannot be read",
                            Position(file=where, line=e.lineno or 1))]
    contracts, problems = [], []
    allowed = allowed_eager(source)
    lines = split(text)
    for line, mark in sorted(source.marks.items()):
        words = parse_words(mark)
        site = Position(file=where, line=line, column=1 + len(lines[line - 1]) - len(lines[line - 1].lstrip()))
        problems += [Problem(p, site) for p in words.problems]
        statement = _marked(source, line)
        if statement is None:
            problems.append(Problem("no statement on or below this comment to promise anything of", site))
            continue
        function = source.function_at(statement.first)
        target = Target(pattern(path), where, source, function.name if function else None,
                        None if function else statement, words.label, allowed)
        problem = _misplaced(words, function)
        if problem:
            problems.append(Problem(problem, site))
        elif words.terms:
            at = Position(file=where, line=function.line, column=function.column) if function else \
                Position(file=where, line=statement.first, column=statement.column)
            contracts.append(Contract(target, words.terms, at, words.torch, words.allow_eager))
    return contracts, problems + _duplicate_labels(source, where)


def allowed_eager(source: Source) -> frozenset[int]:
    """The first lines of the statements of ``source`` marked ``allow eager``."""
    return frozenset(s.first for line, mark in source.marks.items() if parse_words(mark).allow_eager
                     for s in [_marked(source, line)] if s)


def _marked(source: Source, line: int) -> Statement | None:
    """The statement a mark on ``line`` is about: the one on that line, else (a comment alone) the next one."""
    found = source.statement_at(line)
    if found is None and not source.code[line - 1]:
        found = next((s for s in sorted(source.statements, key=lambda s: s.first) if s.first > line), None)
    return found


def _misplaced(words: Words, function: Function | None) -> str | None:
    """Why these words cannot be promised where they are written, or None."""
    wrong = [t.text for t in words.terms if not t.on_line and function is None]
    if wrong:
        return f"{', '.join(wrong)}: a function's promise: write it on the def line"
    if words.allow_eager and function is not None:
        return "allow eager is a line's: write it on the line that may run eagerly"
    return None


def _duplicate_labels(source: Source, where: str) -> list[Problem]:
    return [Problem(f"label={name} marks {len(lines)} lines: a label names one line",
                    Position(file=where, line=lines[1]))
            for name, lines in source.labels.items() if len(lines) > 1]


def nearest_pyproject(path: Path) -> tuple[Path | None, list[Problem]]:
    """The nearest pyproject.toml above ``path`` that has a [tool.inspector] table (None: none); those that cannot
    be read on the way are problems."""
    problems: list[Problem] = []
    for folder in path.resolve().parents:
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            if "inspector" in tomllib.loads(candidate.read_text(encoding="utf-8")).get("tool", {}):
                return candidate, problems
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            problems.append(Problem(f"cannot read it: {e}", Position(file=shown(candidate), line=1)))
    return None, problems


def from_pyproject(path: Path) -> tuple[list[Contract], list[Problem]]:
    """The contracts of the [[tool.inspector.contract]] tables of the pyproject.toml at ``path``."""
    text = path.read_text(encoding="utf-8")
    table: Any = tomllib.loads(text)["tool"]["inspector"]
    where = shown(path)
    unknown = [k for k in table if k != "contract"] if isinstance(table, dict) else ["(not a table)"]
    problems = [Problem(f"[tool.inspector] has no key {k!r} (known: contract)", Position(file=where, line=1))
                for k in unknown]
    contracts = []
    entries = table.get("contract", []) if isinstance(table, dict) else []
    for entry in entries if isinstance(entries, list) else [entries]:
        site = Position(file=where, line=_line_of(text, entry.get("at") if isinstance(entry, dict) else None))
        made = _toml_contract(entry, path.parent, site)
        contracts += [made] if isinstance(made, Contract) else []
        problems += [Problem(p, site) for p in made] if isinstance(made, list) else []
    return contracts, problems


def _line_of(text: str, at: object) -> int:
    """The line of pyproject.toml where ``at`` is written (1 when not found)."""
    needle = f'"{at}"' if isinstance(at, str) else None
    return next((n for n, line in enumerate(text.splitlines(), 1) if needle and needle in line), 1)


def _toml_contract(entry: object, root: Path, site: Position) -> Contract | list[str]:
    """One [[tool.inspector.contract]] table as a Contract, or its problems."""
    if not isinstance(entry, dict):
        return ["a contract is a table with at and expect"]
    problems = [f"a contract has no key {k!r} (known: {', '.join(TOML_KEYS)})" for k in entry if k not in TOML_KEYS]
    at, expect, torch = entry.get("at"), entry.get("expect"), entry.get("torch")
    if isinstance(expect, list) and all(isinstance(e, str) for e in expect):
        expect = " ".join(expect)
    if not isinstance(at, str) or not isinstance(expect, str):
        return problems + ["a contract needs at (\"path.py:function\" or \"path.py@label\") and expect (its words)"]
    words = parse_words(expect)
    problems += list(words.problems)
    if words.label or words.torch:
        problems.append("label= and torch in expect: a label marks a line in its file; write torch = \">=2.5\"")
    try:
        torch_range = parse_range(torch) if isinstance(torch, str) else None
    except RangeError as e:
        problems.append(f"torch = {torch!r}: {e}")
    target = _toml_target(at, root, words)
    problems += [target] if isinstance(target, str) else []
    if problems or isinstance(target, str):
        return problems
    return Contract(target, words.terms, site, torch_range, words.allow_eager, table=True)


def _toml_target(at: str, root: Path, words: Words) -> Target | str:
    """The Target ``at`` names, from pyproject.toml's folder ``root``, or why it names none."""
    found = re.fullmatch(r"(.+\.py)(?::([A-Za-z_][\w.]*)|@([\w.-]+))", at)
    if not found:
        return (f"at = {at!r}: expected \"path.py:function\" or \"path.py@label\""
                + (" (a line number moves: mark the line with label=NAME)" if re.search(r":\d+$", at) else ""))
    file, function, label = found.groups()
    path = root / file
    if function is None and not all(t.on_line for t in words.terms):
        return f"at = {at!r}: a labelled line takes line words ({', '.join(LINE_WORDS)})"
    if not path.is_file():  # a file elsewhere (a library): the records' copy is read
        return Target(file, file, None, function, label=label)
    try:
        source = read(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError) as e:
        return f"at = {at!r}: {file} is not Python ({e})"
    allowed = allowed_eager(source)
    if function is not None:
        if not source.functions_named(function):
            return f"at = {at!r}: {file} defines no function {function}"
        return Target(file, shown(path), source, function, allowed=allowed)
    lines = source.labels.get(label or "", [])
    if len(lines) != 1:
        return f"at = {at!r}: {len(lines) or 'no'} line{'s' * (len(lines) > 1)} of {file} marked label={label}"
    return Target(file, shown(path), source, statement=source.statement_at(lines[0]), label=label, allowed=allowed)


def local(display: str, path: str) -> Path | None:
    """The copy on disk of a file a record names: its display name from the current folder, else its recorded
    path (None: neither is a file here)."""
    return next((p for p in (Path(display), Path(path)) if p.is_file()), None)


def local_source(display: str, path: str) -> tuple[Source | None, str, frozenset[int]]:
    """(the parsed copy on disk of a recorded file, as places name it, its lines marked allow eager); (None, the
    display name, nothing) without a readable copy."""
    found = local(display, path)
    try:
        source = read(found.read_text(encoding="utf-8")) if found else None
    except (SyntaxError, UnicodeDecodeError, ValueError):
        source = None
    if found is None or source is None:
        return None, display, frozenset()
    return source, shown(found), allowed_eager(source)
