"""The probes' wire: every message a probe writes and every command the parent sends a live probe, as typed values.

One JSON object per line, its kind in ``"type"`` and its facts beside it: ``encode(message)`` writes one line,
``read(line, kinds)`` reads it back. A kind missing from ``kinds`` reads as an ``Unknown``, which the reader counts
(the record's ``probe_messages``), never an error. The facts are raw.py's types (a ``VariantResult`` is the record's
variant as it will be stored); like a record's, a key a message's type does not know is kept in its ``other``.
Standard library only: the probes import this under the target interpreter (Python >= 3.10).

``PROBE``, the sample probe's (``inspector.probe``), in order: ``Header``; per variant ``Start``, ``Compiled`` (what
a compiled variant's first call compiled, as soon as it did) and ``VariantResult``; with --rounds or --trials,
``Ready``, then a ``RoundResult`` per ``Round`` and a ``TrialAnswer`` per ``Trial`` or ``RewriteTrial``
(``COMMANDS``, the parent's, on the probe's stdin); with --warm, only a ``WarmResult`` per compiled variant;
``Fatal`` when the sample cannot run, ``Internal`` when
inspector itself failed.
``PROGRAM``, the program probe's (``inspector.probe.program``): ``ProgramHeader`` first, ``ProgramEnd`` when the
program has ended, ``ProgramReplay`` last (after the program's atexit handlers).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Optional, TypeVar

from inspector.raw import (Raw, RawCapture, RawChild, RawEnv, RawError, RawExperiment, RawHotspot, RawReplay,
                          RawRewrite, RawRoundTiming, RawSample, RawTrial, RawVariant, RawWarm)

M = TypeVar("M", bound="Message")


@dataclass(frozen=True, kw_only=True)
class Message(Raw):
    """One line of the wire: its facts as fields (read and written as raw.py's values are); ``TYPE`` its kind."""

    TYPE: ClassVar[str] = ""

    @classmethod
    def of(cls: type[M], value: Raw) -> M:
        """This kind of message carrying ``value``'s facts (a raw value whose fields it has: a RawVariant's for a
        VariantResult), its absent and unknown keys included."""
        return cls(**{f.name: getattr(value, f.name) for f in fields(value)})


@dataclass(frozen=True)
class Unknown:
    """A line of a kind the reader does not know: counted, never acted on."""

    kind: str
    data: dict[str, Any]


# the sample probe's messages


@dataclass(frozen=True, kw_only=True)
class Header(Message):
    """The first message: this interpreter, the --config items applied, torch.compile's keywords, the sample and
    its variants (each a RawVariant with its id, function, kind, compiled, device, preview, family and code)."""

    TYPE: ClassVar[str] = "header"
    env: Optional[RawEnv] = None
    config: Optional[list[Any]] = None
    compile_options: Optional[dict[str, Any]] = None
    sample: Optional[RawSample] = None
    variants: Optional[list[RawVariant]] = None


@dataclass(frozen=True, kw_only=True)
class Start(Message):
    """A variant starts (its timeout runs from here); ``time``: the epoch seconds."""

    TYPE: ClassVar[str] = "start"
    id: Optional[str] = None
    time: Optional[float] = None


@dataclass(frozen=True, kw_only=True)
class Compiled(Message):
    """What a compiled variant's first call compiled, sent as soon as it did (kept if the variant then times out)."""

    TYPE: ClassVar[str] = "compiled"
    id: Optional[str] = None
    capture: Optional[RawCapture] = None


@dataclass(frozen=True, kw_only=True)
class VariantResult(Message, RawVariant):
    """A variant's result: the record's variant."""

    TYPE: ClassVar[str] = "variant"


@dataclass(frozen=True, kw_only=True)
class Internal(Message, RawError):
    """inspector's own code failed (a bug): where, the error, its traceback's tail."""

    TYPE: ClassVar[str] = "internal"


@dataclass(frozen=True, kw_only=True)
class Fatal(Message):
    """The sample cannot be run at all (one line for the user)."""

    TYPE: ClassVar[str] = "fatal"
    error: Optional[str] = None


@dataclass(frozen=True, kw_only=True)
class Ready(Message):
    """After the variants, with --rounds or --trials: the variants it can time again, and the seconds of each
    compiled one's untimed call (None where it raised)."""

    TYPE: ClassVar[str] = "ready"
    ids: Optional[list[str]] = None
    warmup_s: Optional[dict[str, Optional[float]]] = None


@dataclass(frozen=True, kw_only=True)
class RoundResult(Message):
    """One ``Round``'s timings, per variant id (in the order timed; ``round``: absent in each)."""

    TYPE: ClassVar[str] = "round"
    round: Optional[int] = None
    variants: Optional[dict[str, RawRoundTiming]] = None


@dataclass(frozen=True, kw_only=True)
class TrialAnswer(Message, RawTrial):
    """What one ``Trial`` did: its id, and the record's trial facts the probe measured (status, capture, timing,
    sizes, ...)."""

    TYPE: ClassVar[str] = "trial"


@dataclass(frozen=True, kw_only=True)
class WarmResult(Message, RawWarm):
    """What compiling one variant cost in a fresh process with torch's caches (``inspector.probe.warm``)."""

    TYPE: ClassVar[str] = "warm"
    id: Optional[str] = None


# the program probe's messages


@dataclass(frozen=True, kw_only=True)
class ProgramTarget(Raw):
    """What a program probe runs: ``python TARGET ARGV`` (``module``: ``-m``); ``file``: where its code is."""

    target: Optional[str] = None
    module: Optional[bool] = None
    file: Optional[str] = None
    argv: Optional[list[str]] = None


@dataclass(frozen=True, kw_only=True)
class ProgramHeader(Message):
    """The program probe's first message: this interpreter and what runs."""

    TYPE: ClassVar[str] = "header"
    env: Optional[RawEnv] = None
    program: Optional[ProgramTarget] = None


@dataclass(frozen=True, kw_only=True)
class ProgramEnd(Message):
    """The program probe's last message, however the program ended: its exit status, wall time, each tracked
    function as a record's variant, and the graphs and breaks compiled outside tracked calls."""

    TYPE: ClassVar[str] = "program"
    exit: Optional[int] = None
    wall_s: Optional[float] = None
    functions: Optional[list[RawVariant]] = None
    outside: Optional[dict[str, int]] = None
    process: Optional[str] = None  # a child's: its multiprocessing name ("SpawnProcess-1"); None: the program's own
    children: Optional[list[RawChild]] = None  # the multiprocessing children the program (or a child) started
    hotspots: Optional[list[RawHotspot]] = None  # the program's own functions holding the most time
    profile_problems: Optional[list[str]] = None


@dataclass(frozen=True, kw_only=True)
class ProgramReplay(Message):
    """After the program and its atexit handlers: each called function's replay (``inspector.probe.replay``), by
    function id: the record's ``run.replay``."""

    TYPE: ClassVar[str] = "replay"
    functions: Optional[dict[str, RawReplay]] = None
    experiments: Optional[dict[str, RawExperiment]] = None  # by hotspot id: the experiment on its inputs


# the parent's commands to a live sample probe


@dataclass(frozen=True, kw_only=True)
class Round(Message):
    """Time each variant (and each trial kept) for ``budget_s`` seconds, their order rotated by ``round``."""

    TYPE: ClassVar[str] = "round"
    round: Optional[int] = None
    budget_s: Optional[float] = None


@dataclass(frozen=True, kw_only=True)
class Trial(Message):
    """Try one fix (of ``kind``) on ``variant`` (``inspector.probe.trials``): ``layout`` ("column-major"), ``config``
    [KEY=VALUE], ``compile_options`` {keyword: value}, ``sizes`` (population sizes to call it at afterwards),
    ``time`` (timed by the probe: no rounds follow)."""

    TYPE: ClassVar[str] = "trial"
    id: Optional[str] = None
    variant: Optional[str] = None
    fix: Optional[str] = None
    kind: Optional[str] = None  # the kind of the fix it tries (a FixKind's value), as it was asked for
    layout: Optional[str] = None
    config: Optional[list[str]] = None
    compile_options: Optional[dict[str, Any]] = None
    sizes: Optional[list[int]] = None
    time: Optional[bool] = None

    UNRECORDED: ClassVar[tuple[str, ...]] = ("time",)  # the command's keys the record's trial does not keep


@dataclass(frozen=True, kw_only=True)
class RewriteTrial(Trial):
    """Run inspector's rewrite of ``variant`` (``inspector.probe.rewritten``): ``code`` (what the rewriter wrote, its
    id ``rewrite``) defined in a copy of the sample's namespace, eager or ``compiled`` on the CPU, or under numba's
    ``@njit`` (``numba``: with no ``code``, the variant's own Python function over the rows); with ``check_rows``,
    first checked against the user's code on that many individuals (0: all), within the relative tolerance ``rtol``
    (None: the sample's TOLERANCE, else the default); ``sample``: a per-individual function's rewrite is checked on
    at most that many of them, spread evenly, and on the witnesses of the branches those did not take
    (``inspector.rewrite.check``); ``cache``: a folder where a rewrite run under numba is written as a module, so
    that numba's on-disk cache keeps its machine code between reports (``inspector.probe.rewritten``). Answered
    with a ``TrialAnswer``."""

    TYPE: ClassVar[str] = "rewrite"
    rewrite: Optional[str] = None
    code: Optional[RawRewrite] = None
    compiled: Optional[bool] = None
    numba: Optional[bool] = None
    check_rows: Optional[int] = None
    sample: Optional[int] = None
    rtol: Optional[float] = None
    cache: Optional[str] = None

    # the command's, not the trial's facts
    UNRECORDED: ClassVar[tuple[str, ...]] = ("time", "code", "check_rows", "sample", "rtol", "cache")


def _kinds(*types: type[Message]) -> dict[str, type[Message]]:
    return {t.TYPE: t for t in types}


PROBE = _kinds(Header, Start, Compiled, VariantResult, Internal, Fatal, Ready, RoundResult, TrialAnswer, WarmResult)
PROGRAM = _kinds(ProgramHeader, ProgramEnd, ProgramReplay)
COMMANDS = _kinds(Round, Trial, RewriteTrial)


class MessageError(ValueError):
    """A line that is not a message (not a JSON object with a string "type"); one line."""


def encode(message: Message | Unknown) -> str:
    """One line of the wire (without its newline); values JSON does not know are written as their str()."""
    kind, facts = (message.kind, message.data) if isinstance(message, Unknown) else (message.TYPE, message.to_json())
    return json.dumps({"type": kind, **facts}, default=str)


def read(line: str, kinds: Mapping[str, type[Message]]) -> Message | Unknown:
    """The message on one line, typed by its kind in ``kinds`` (else an Unknown); MessageError if it is none."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise MessageError(f"a line that is not JSON ({e}): {line[:200]!r}") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise MessageError(f"a message without a type: {line[:200]!r}")
    kind = data.pop("type")
    known = kinds.get(kind)
    return known.from_json(data) if known else Unknown(kind, data)


class Writer:
    """A probe's messages appended to its results file, each line flushed at once (the parent reads them live)."""

    def __init__(self, path: str) -> None:
        self.out = open(path, "a", encoding="utf-8")

    def __call__(self, message: Message) -> None:
        self.out.write(encode(message) + "\n")
        self.out.flush()

    def close(self) -> None:
        self.out.close()
