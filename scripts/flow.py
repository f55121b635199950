"""Count how far the record travels through ``analyze``: the measure of issue 38, item 7 (no torch needed).

    python scripts/flow.py [--list] [--hand-offs] [RECORD.json ...]   (default: every record under
                                                                    tests/fixtures/records)

It runs ``inspector.analysis.analyze`` on each record under ``sys.setprofile`` and follows the record:

- its *parts* are the ``RawRecord`` and every ``Raw*`` value of ``inspector/raw.py`` reached from it through fields,
  lists, tuples and dict values; with ``text`` also every string in them, and every value a call that passes the
  record on returns that is not typed (not an instance of one of inspector's classes, nor a list or tuple of them:
  a syntax tree, a dict, a list of strings);
- a call *passes the record on* when it enters a function of inspector, outside ``inspector.raw`` and
  ``inspector.model`` (the record's own methods answer, they pass nothing on; a typed value of the model is where the
  record ends), with an argument that is a part, or a list, tuple, dict or dataclass holding one directly;
- *modules*: the distinct modules of inspector such calls enter (``inspector.analysis`` itself included);
  *returns*: the distinct helper functions (every function but ``analyze``) such calls return a value from (anything
  but None).

It prints each figure over every record of a kind (sample runs, program runs: the union of what each visits).
``--hand-offs`` counts only the calls that pass the record from one module to another (a module's calls of its own
helpers left out): how many stages the record crosses, not how its readers are cut into functions.
"""

import dataclasses
import enum
import sys
from collections.abc import Iterable
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.analysis import analyze  # noqa: E402
from inspector.raw import RawRecord  # noqa: E402
from inspector.record import load  # noqa: E402

RECORDS = ROOT / "tests" / "fixtures" / "records"
SCALAR = (type(None), bool, int, float, enum.Enum)
OWN = ("inspector.raw", "inspector.model")  # where the record comes from, where it ends
ARGS, KWARGS = 4, 8  # code flags: *args, **kwargs


class Flow(NamedTuple):
    """What following one record (or several) visited: modules, and the helper functions that returned."""

    modules: frozenset[str]
    returns: frozenset[str]


def _inside(value: Any) -> Iterable[Any]:
    """The values a value holds directly."""
    if isinstance(value, dict):
        return value.values()
    if isinstance(value, (list, tuple, set, frozenset)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [getattr(value, f.name, None) for f in dataclasses.fields(value)]
    return ()


def _typed(value: Any) -> bool:
    if isinstance(value, SCALAR) or type(value).__module__.startswith("inspector"):
        return True
    return isinstance(value, (list, tuple)) and bool(value) and all(_typed(v) for v in value)


def _parts(record: RawRecord, text: bool) -> dict[int, Any]:
    """{id: part} of the record (kept, so that no id is reused while it is followed)."""
    parts: dict[int, Any] = {}
    stack: list[Any] = [record]
    while stack:
        value = stack.pop()
        if isinstance(value, SCALAR) or id(value) in parts:
            continue
        if type(value).__module__ == "inspector.raw" or (text and isinstance(value, str)):
            parts[id(value)] = value
        stack.extend(_inside(value))
    return parts


def follow(record: RawRecord, text: bool = False, hand_offs: bool = False) -> Flow:
    """The modules and returning helpers that ``analyze(record)`` passes the record on to (``hand_offs``: from
    another module)."""
    parts = _parts(record, text)
    modules, returns, calls = set(), set(), []

    def holds(value: Any) -> bool:
        return not isinstance(value, SCALAR) and (
            id(value) in parts or any(not isinstance(v, SCALAR) and id(v) in parts for v in _inside(value)))

    def profile(frame: FrameType, event: str, returned: Any) -> None:
        if event == "call":
            module, code = frame.f_globals.get("__name__", ""), frame.f_code
            count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & ARGS) + bool(
                code.co_flags & KWARGS)
            passes = module.startswith("inspector") and not module.startswith(OWN) and any(
                holds(frame.f_locals.get(name)) for name in code.co_varnames[:count]) and not (
                hand_offs and frame.f_back is not None and frame.f_back.f_globals.get("__name__") == module)
            modules.update([module] if passes else [])
            calls.append(f"{module}.{code.co_qualname}" if passes else None)
        elif event == "return" and calls:
            name = calls.pop()
            if name and returned is not None and name != "inspector.analysis.analyze":
                returns.add(name)
                if text and not _typed(returned):
                    parts[id(returned)] = returned

    sys.setprofile(profile)
    try:
        analyze(record)
    finally:
        sys.setprofile(None)
    return Flow(frozenset(modules), frozenset(returns))


def _union(flows: Iterable[Flow]) -> Flow:
    flows = list(flows)
    return Flow(frozenset().union(*(f.modules for f in flows)), frozenset().union(*(f.returns for f in flows)))


def main(argv: list[str]) -> None:
    listed, hand_offs = "--list" in argv, "--hand-offs" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")] or sorted(RECORDS.rglob("*.json"))
    records = [load(p) for p in paths]
    for text in (False, True):
        for kind, mine in (("sample", [r for r in records if not r.program]),
                           ("program", [r for r in records if r.program])):
            if not mine:
                continue
            flow = _union(follow(r, text, hand_offs) for r in mine)
            what = "its Raw values and text, and what is made of them" if text else "its Raw values"
            what += ", from one module to another" if hand_offs else ""
            print(f"{kind} runs ({len(mine)} records), following {what}: "
                  f"{len(flow.modules)} modules, {len(flow.returns)} returns from helpers")
            for name in sorted(flow.modules) + sorted(flow.returns) if listed else []:
                print(f"  {'module' if name in flow.modules else 'return'} {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
