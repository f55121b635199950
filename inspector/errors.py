"""The one base exception of inspector's commands and API, and the exit codes (docs/exit-codes.md).

An ``InspectorError`` is said in one line and ends a command with its ``code``: ``kind`` "user" for what the user
can fix (a bad file, option, record or environment), "internal" for a bug in inspector. Errors raised inside the
probe are not exceptions here: they travel as data in the record (a variant's error).
"""

import traceback

OK, FAILED, CANNOT_RUN, CHECK, INTERNAL, INTERRUPTED = 0, 1, 2, 3, 4, 130
PLEASE_REPORT = "this is a bug in inspector: please report it, with the output of --verbose"


class InspectorError(Exception):
    """A one-line error; ``detail``: what ``--verbose`` adds (the probe's log, a traceback)."""

    kind, code = "user", CANNOT_RUN

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail

    def line(self) -> str:
        """The error as the command line says it."""
        return f"inspector: error: {self}"


class Interrupted(InspectorError):
    """Ctrl-C: what was measured before it is kept where it could be."""

    code = INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")


class InternalFailure(InspectorError):
    """inspector itself failed while doing ``what``; ``error`` is the exception it failed with."""

    kind, code = "internal", INTERNAL

    def __init__(self, what: str, error: BaseException) -> None:
        super().__init__(f"{what}: {type(error).__name__}: {error}", "".join(traceback.format_exception(error)))
        self.what, self.error = what, error

    def line(self) -> str:
        return f"inspector: internal error while {self} ({PLEASE_REPORT})"
