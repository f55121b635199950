"""What ``inspector check`` found, and its forms: compiler-style lines (``text``), GitHub workflow annotations
(``github``), a JUnit XML file (``junit``) and the verdicts as JSON (``json``).

Exit codes (docs/exit-codes.md): 0 every promise holds (unknown and inconclusive ones allowed), 3 one is violated (or,
``strict``, unknown or inconclusive), 2 a contract or an input could not be used; 4 (inspector failed) and 130 are
raised, never results.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass

from inspector.contracts.grammar import Position, Problem
from inspector.contracts.judge import HOLDS, INCONCLUSIVE, UNKNOWN, VIOLATED, Judgement, Outcome, Verdict
from inspector.errors import CANNOT_RUN, CHECK, OK

FORMATS = ("text", "json", "github", "junit")
JSON_FORMAT = "inspector.check/1"


@dataclass(frozen=True)
class Checked:
    """The verdicts (in place order), the problems, the runs judged (their labels) and notes for the reader."""

    verdicts: tuple[Verdict, ...]
    problems: tuple[Problem, ...]
    runs: tuple[str, ...]
    strict: bool = False
    notes: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        if self.problems:
            return CANNOT_RUN
        failing = (VIOLATED, UNKNOWN, INCONCLUSIVE) if self.strict else (VIOLATED,)
        return CHECK if any(v.outcome in failing for v in self.verdicts) else OK

    def count(self, outcome: Outcome) -> int:
        return sum(v.outcome == outcome for v in self.verdicts)

    def severity(self, verdict: Verdict) -> str | None:
        """error, warning, or None (it holds)."""
        if verdict.outcome == HOLDS:
            return None
        return "error" if verdict.outcome == VIOLATED or self.strict else "warning"

    def summary(self) -> str:
        """'inspector check: 4 promises hold, 1 violated, 2 unknown, 0 inconclusive (torch 2.1.2, torch 2.13.0)'."""
        counts = ", ".join(f"{self.count(o)} {o}" for o in (VIOLATED, UNKNOWN, INCONCLUSIVE))
        problems = f"; {len(self.problems)} problem{'s' * (len(self.problems) != 1)}" if self.problems else ""
        return (f"inspector check: {self.count(HOLDS)} of {len(self.verdicts)} promises hold, {counts}{problems} "
                f"({', '.join(self.runs) or 'no run'})")

    def render(self, fmt: str) -> str:
        return {"text": text, "json": as_json, "github": github, "junit": junit}[fmt](self)


def message(v: Verdict) -> str:
    """A verdict in one line: 'not vectorized under torch 2.13.0 (vectorized under 2.1.2): <why> [inspector:
    vectorized]'."""
    outcome = v.outcome
    primary = [j for j in v.judgements if j.outcome == outcome]
    first = primary[0] if primary else Judgement("every run", None, UNKNOWN, "not judged", "no run judged it")
    where = f"under {_runs(primary)}{_variants(v, primary)}"
    if outcome == VIOLATED:
        held = [j for j in v.judgements if j.outcome == HOLDS]
        head = f"{first.said} {where}" + (f" ({held[0].said} under {_runs(held, bare=True)})" if held else "")
    elif outcome == INCONCLUSIVE:
        head = f"inconclusive {where}: {first.said}"
    elif outcome == UNKNOWN:
        head = f"unknown {where}" + ("" if first.why else f": {first.said}")
    else:
        head = f"holds {where}"
    tail = f" (promised at {v.site})" if v.site else ""
    return f"{head}{f': {first.why}' if first.why else ''} [inspector: {v.promise}]{tail}"


def _runs(judgements: list[Judgement], bare: bool = False) -> str:
    names = list(dict.fromkeys(j.run for j in judgements))
    return ", ".join(n.removeprefix("torch ") if bare else n for n in names)


def _variants(v: Verdict, primary: list[Judgement]) -> str:
    """' in numpy-compiled-cpu' where only some of the variants judged are the primary ones."""
    mine = list(dict.fromkeys(j.variant for j in primary if j.variant))
    judged = {j.variant for j in v.judgements if j.variant}
    return f" in {', '.join(mine)}" if mine and set(mine) != judged else ""


def text(c: Checked) -> str:
    """Compiler-style lines, one per promise that does not hold and per problem, then the summary."""
    lines = [f"{p.place}: error: {p.text}" if p.place else f"inspector: error: {p.text}" for p in c.problems]
    lines += [f"{v.place}: {c.severity(v)}: {message(v)}" for v in c.verdicts if c.severity(v)]
    lines += [f"note: {n}" for n in c.notes]
    return "\n".join(lines + [c.summary()]) + "\n"


def _escape(value: str, property_: bool = False) -> str:
    """A workflow command's data (or, ``property_``, a property value) escaped as GitHub reads it."""
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if property_ else value


def github(c: Checked) -> str:
    """GitHub Actions workflow commands: an annotation per promise that does not hold and per problem."""
    lines = []
    for p in c.problems:
        where = [f"file={_escape(p.place.file, True)}", f"line={p.place.line}"] if p.place else []
        lines.append(f"::error {','.join(where + ['title=inspector check'])}::{_escape(p.text)}")
    for v in c.verdicts:
        severity = c.severity(v)
        if severity:
            lines.append(f"::{severity} file={_escape(v.place.file, True)},line={v.place.line},col={v.place.column},"
                         f"title={_escape('inspector: ' + v.promise, True)}::{_escape(message(v))}")
    lines += [f"::notice::{_escape(n)}" for n in c.notes]
    return "\n".join(lines + [f"::notice::{_escape(c.summary())}"]) + "\n"


def junit(c: Checked) -> str:
    """A JUnit XML file: a test case per promise and place (failure: violated, or strict; skipped: unknown or
    inconclusive), and one erroring test case per problem."""
    suite = ET.Element("testsuite", name="inspector check", tests=str(len(c.verdicts) + len(c.problems)),
                       failures=str(sum(c.severity(v) == "error" for v in c.verdicts)), errors=str(len(c.problems)),
                       skipped=str(sum(c.severity(v) == "warning" for v in c.verdicts)))
    for p in c.problems:
        case = ET.SubElement(suite, "testcase", classname=p.place.file if p.place else "inspector",
                             name=f"{p.place or 'input'}: contract")
        ET.SubElement(case, "error", message=p.text).text = p.text
    for v in c.verdicts:
        case = ET.SubElement(suite, "testcase", classname=v.place.file, name=f"{v.place.file}:{v.place.line} "
                                                                                f"{v.promise}")
        severity, said = c.severity(v), message(v)
        if severity == "error":
            ET.SubElement(case, "failure", message=said, type=str(v.outcome)).text = _judgements(v)
        elif severity == "warning":
            ET.SubElement(case, "skipped", message=said)
        ET.SubElement(case, "system-out").text = _judgements(v)
    root = ET.Element("testsuites", name="inspector check")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _judgements(v: Verdict) -> str:
    return "\n".join(f"{j.outcome}: {j.run}{f' {j.variant}' if j.variant else ''}: {j.said}"
                     + (f": {j.why}" if j.why else "") for j in v.judgements)


def as_json(c: Checked) -> str:
    """The verdicts as JSON (format inspector.check/1)."""
    data = {"format": JSON_FORMAT, "exit_code": c.exit_code, "strict": c.strict, "runs": list(c.runs),
            "summary": {str(o): c.count(o) for o in (HOLDS, VIOLATED, UNKNOWN, INCONCLUSIVE)},
            "verdicts": [{"place": _place(v.place), "promise": v.promise, "site": _place(v.site) if v.site else None,
                          "outcome": str(v.outcome), "message": message(v),
                          "judgements": [dict(asdict(j), outcome=str(j.outcome)) for j in v.judgements]}
                         for v in c.verdicts],
            "problems": [{"text": p.text, "place": _place(p.place) if p.place else None} for p in c.problems],
            "notes": list(c.notes)}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def _place(p: Position) -> dict[str, object]:
    """A place as inspector.check/1 writes it."""
    return {"path": p.file, "line": p.line, "column": p.column}
