"""Keep inspector's frames out of the program's tracebacks and of torch's logged stacks: the program sees its frames
and torch's, as its bare run shows them."""

import os
import sys
import traceback
from collections.abc import Callable
from types import CodeType, TracebackType
from typing import TYPE_CHECKING, Literal, Optional, TypeVar

if TYPE_CHECKING:
    from inspector.probe.decisions import Restore  # imports torch

E = TypeVar("E", bound=Optional[BaseException])

PACKAGE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "")  # inspector's own files are under it
STARTERS = ("<string>", "<frozen runpy>")  # frames that start a program (``python -c``, ``-m``) besides inspector's


def print_error() -> None:
    """The traceback as Python would print it, without inspector's and runpy's frames."""
    kind, error, tb = sys.exc_info()
    traceback.print_exception(kind, _without_inspector(error), _trimmed(tb))


def _without_inspector(error: E, seen: Optional[set[int]] = None) -> E:
    """``error`` and the exceptions it was chained to, their tracebacks without inspector's frames."""
    seen = seen if seen is not None else set()
    if error is None or id(error) in seen:
        return error
    seen.add(id(error))
    error.__traceback__ = _trimmed(error.__traceback__)
    _without_inspector(error.__cause__, seen)
    _without_inspector(error.__context__, seen)
    return error


def _trimmed(tb: Optional[TracebackType]) -> Optional[TracebackType]:
    """A traceback relinked without inspector's frames and runpy's."""
    import runpy
    starters = (runpy.__file__, "<frozen runpy>")
    return _relinked(tb, lambda code: not ours(code.co_filename) and code.co_filename not in starters)


def _relinked(tb: Optional[TracebackType], keep: Callable[[CodeType], bool]) -> Optional[TracebackType]:
    """The traceback ``tb`` relinked through the entries whose frame's code ``keep`` keeps."""
    kept: list[TracebackType] = []
    while tb is not None:
        if keep(tb.tb_frame.f_code):
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:]):
        a.tb_next = b
    if kept:
        kept[-1].tb_next = None
    return kept[0] if kept else None


def ours(filename: str) -> bool:
    """Whether the file is one of inspector's own."""
    return filename.startswith(PACKAGE_DIR)


def hide(error: BaseException) -> None:
    """Take inspector's frames out of ``error``'s traceback as it leaves one of inspector's wrappers, which then
    re-raises it with a bare ``raise`` (which adds no frame): the program's tracebacks (``unittest``'s, its own
    ``except``) show its frames and torch's, as the bare run's do."""
    error.__traceback__ = _relinked(error.__traceback__, lambda code: not ours(code.co_filename))


class _Hidden:
    """``with HIDDEN:`` around a wrapper's call: an error leaving it has inspector's frames taken out (``hide``)."""

    def __enter__(self) -> "_Hidden":
        return self

    def __exit__(self, kind: Optional[type[BaseException]], error: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]:
        if error is not None:
            hide(error)
        return False


HIDDEN = _Hidden()


def user_frames(stack: list[traceback.FrameSummary]) -> list[traceback.FrameSummary]:
    """A live stack (``traceback.FrameSummary``s, outermost first) without inspector's frames: those that started
    the program (``python -c`` of the parent, ``main``, ``runpy``'s) and its wrappers around compiled calls."""
    import runpy
    starters = (*STARTERS, runpy.__file__)
    lead = 0
    while lead < len(stack) and (stack[lead].filename in starters or ours(stack[lead].filename)):
        lead += 1
    if not any(ours(f.filename) for f in stack[:lead]):
        lead = 0
    return [f for f in stack[lead:] if not ours(f.filename)]


def hide_from_torch_stacks(restore: "Restore") -> None:
    """torch's "User code traceback" of graph-break messages (the program may log them itself) is the live stack
    that ``torch._dynamo.exc.filter_stack`` cleans of torch's frames: clean it of inspector's too."""
    try:
        from torch._dynamo import exc
    except ImportError:
        return
    original = getattr(exc, "filter_stack", None)
    if original is None:
        return
    restore.append((exc, "filter_stack", original))
    exc.filter_stack = lambda stack: traceback.StackSummary.from_list(user_frames(list(original(stack))))
