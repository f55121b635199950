"""What ``collect`` shows its ``progress`` callback, in order: a ``RunStarted`` before each run's probe, each of the
probe's messages as it arrives (``inspector.probe.messages``; a variant that did not finish as the
``VariantResult`` collect made for it), a ``WarmStarted`` before the compiled variants compile again, each
``Trial`` command before it is sent, and a ``RoundStarted`` before each
alternating round."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional, Union

from inspector.probe.messages import Message, Unknown


@dataclass(frozen=True)
class RunStarted:
    """The next run of a comparison: its interpreter (None: this one) and its --config items."""

    python: Optional[str]
    config: list[str]


@dataclass(frozen=True)
class RoundStarted:
    """Round ``round`` (from 1) of ``of`` alternating rounds."""

    round: int
    of: int


@dataclass(frozen=True)
class WarmStarted:
    """The compiled variants are compiled again in fresh processes, torch's caches in ``cache``."""

    cache: str


Event = Union[Message, Unknown, RunStarted, RoundStarted, WarmStarted]
Progress = Callable[[Event], None]


def quiet(event: Event) -> None:
    """The default progress: nothing."""
