"""Whose exception is it? The user's code (and torch compiling it) against inspector's own passes.

Every call into the user's function goes through ``user(fn)``: what it raises becomes a ``VariantError``, that
variant's failure. Any other exception in the probe is inspector's own (a bug to report), recorded by
``optional`` beside what was already measured.
"""

import importlib
import traceback
from collections.abc import Callable
from typing import Any, Generic, Optional, TypeVar

T = TypeVar("T")

# torch's own compile failures: the variant's compile error, never inspector's
COMPILE_ERRORS = (("torch._dynamo.exc", "BackendCompilerFailed"), ("torch._dynamo.exc", "InternalTorchDynamoError"),
                  ("torch._dynamo.exc", "Unsupported"),  # fullgraph=True refusing a graph break
                  ("torch._inductor.exc", "InductorError"), ("torch._inductor.exc", "CppCompileError"))


class VariantError(Exception):
    """The user's code (or torch compiling it) raised ``error``."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class UserCall(Generic[T]):
    """A call into the user's function ``fn``: what it raises becomes a VariantError; ``calls`` counts its calls."""

    def __init__(self, fn: Callable[..., T]) -> None:
        self.fn, self.calls = fn, 0

    def __call__(self, *args: Any, **kwargs: Any) -> T:
        self.calls += 1
        try:
            return self.fn(*args, **kwargs)
        except VariantError:
            raise
        except Exception as e:
            raise VariantError(e) from e


def user(fn: Callable[..., T]) -> UserCall[T]:
    """``fn`` with whatever it raises turned into a VariantError; ``.calls`` counts its calls."""
    return UserCall(fn)


def stage(error: BaseException) -> str:
    """"compile" for torch's compile failures, else "run"."""
    classes = []
    for module, name in COMPILE_ERRORS:
        try:
            classes.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            pass
    return "compile" if isinstance(error, tuple(classes)) else "run"


def internal(where: str, error: BaseException) -> dict[str, str]:
    """The record's entry for an exception inside inspector."""
    return {"where": where, "error": f"{type(error).__name__}: {error}",
            "detail": "".join(traceback.format_exception(error))[-8000:]}


def optional(result: dict[str, Any], where: str, pass_: Callable[[], T]) -> Optional[T]:
    """Run one of inspector's passes (profiling, tracing, device facts) and return its value; when inspector's own
    code fails, record an internal error in ``result`` and return None. The user's errors go through."""
    try:
        return pass_()
    except VariantError:
        raise
    except Exception as e:
        result.setdefault("internal_errors", []).append(internal(where, e))
        return None
