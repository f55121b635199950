"""The fixes inspector tried without editing the user's code, and what each measured."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from inspector.model.words import Status, coerce


@dataclass(frozen=True)
class Trial:
    """A fix inspector tried without editing the user's code, on one compiled variant, and what it measured.

    ``speedup``: the variant's time over the trial's, the median of their side-by-side ratios over ``rounds``
    alternating rounds (``spread``: the lowest and highest of them), else the ratio of their medians timed one after
    the other (``rounds`` 0), or for a trial called at further sizes (``sizes``) the ratio of one steady call at
    the last; ``gain``: it ran, matched the variant's output, and was at least 1.05x faster (in every
    round); only then is it advice. ``vectorized_now``/``parallel_now``: [(file, line)] that were not and now are.
    """

    id: str
    variant: str  # the variant it changed
    fix: str  # column-major, tiling-off, or a Dynamo flag's name (capture_scalar_outputs)
    what: str  # the fix as a user applies it
    status: Status  # ok | error
    error: Optional[str]
    matches: Optional[bool]  # its output against the variant's
    mismatch: Optional[str]
    speedup: Optional[float]
    spread: Optional[list[float]]
    rounds: int
    median_before_s: Optional[float]
    median_after_s: Optional[float]
    vectorized_now: list[tuple]
    parallel_now: list[tuple]
    breaks_before: int
    breaks_after: int
    gone: list[tuple]  # lines whose breaks went away
    gain: bool
    alone: bool = False  # compiled after torch._dynamo.reset() and timed alone (torch 2.1 shares compiled code)
    flag: Optional[str] = None  # the config item tried (KEY=VALUE), for a config fix
    sizes: list[tuple] = field(default_factory=list)  # [(population, steady s before, after, recompiles before, after)]
    text: str = ""  # "tried: column-major → 3.1x faster (...), lines 23-32 now vectorized"

    def __post_init__(self):
        coerce(self, "status", Status)
