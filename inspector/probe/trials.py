"""Fixes tried without editing the user's code, at the parent's request, in the probe that ran the variants.

After ``Ready`` (``inspector.probe.rounds``) the parent may write ``Trial`` commands (``inspector.probe.messages``):
its ``id``, ``variant`` (the variant it changes), ``layout`` ("column-major": the same function on
``np.asfortranarray(pop)``, or for torch on the tensor of it, strides (1, N)), ``config`` [KEY=VALUE, a ``dynamo.``
prefix for Dynamo; ``guard_filter_fn=NAME``: the guard filter torch.compiler.NAME], ``compile_options``
{torch.compile keyword: value}, ``sizes`` (population sizes to call it at afterwards, as the variant was), ``time``
(time it here: no rounds follow). Each is compiled with its own
``torch.compile`` (Inductor's keys as its ``options``, Dynamo's patched around the compiling call) and answered with
a ``TrialAnswer``: what it compiled (``capture``), its status, first call and timing. Its output goes to
DIR/<id>.npy for the parent's cross-check against the variant's.

The variants' compiled code stays live: Dynamo keeps one cache entry per backend (``torch.compile`` call) where
it guards on the backend (torch >= 2.2), and the layout is guarded on strides; automatic dynamic shapes are off
while a trial compiles, so that a stride it has not seen does not turn the strides dynamic. A config trial under a
torch that shares compiled code between backends (2.1) runs ``alone``: after ``torch._dynamo.reset()``, timed here,
not in the rounds, and the variants are compiled again before anything else runs. A guard filter is not part of the
backend either: its trial compiles a copy of the function with a code object of its own.
"""

from __future__ import annotations

import ast
import os
import time
import types
from collections.abc import Callable
from typing import Any, Optional

import numpy as np
import torch

from inspector.probe import guard
from inspector.probe.capture import Capture
from inspector.probe.messages import Trial
from inspector.probe.rounds import Timed
from inspector.probe.sample import Variant
from inspector.probe.timing import measure
from inspector.raw import GUARD_FILTER, Status


def shares_code() -> bool:
    """Whether this torch runs one ``torch.compile``'s cached code for another's: no backend-guarded cache entries
    (their reset function came with them)."""
    import torch._dynamo.eval_frame
    return not hasattr(torch._dynamo.eval_frame, "_reset_guarded_backend_cache")


def run(spec: Trial, variant: Variant, fn: Callable[..., Any], population: np.ndarray, capture: Capture,
        outputs: str, compile_options: Optional[dict[str, Any]], budget_s: float, prepare: Callable[..., Any],
        to_numpy: Callable[[Any], np.ndarray], at_sizes: Callable[..., list[dict[str, Any]]]
        ) -> tuple[dict[str, Any], Optional[Timed]]:
    """(the raw result of the ``Trial`` ``spec``, (call, sync) for the rounds or None). ``prepare`` and
    ``to_numpy`` are the runner's: the variant's compiled callable and its input, and its output as an ndarray;
    ``at_sizes(target, convert, sync)``: the trial called at the spec's ``sizes``, as the variant was (its
    ``sizes``)."""
    inductor: dict[str, Any] = {}
    dynamo: dict[str, Any] = {"automatic_dynamic_shapes": False} if spec.layout else {}
    filters: list[str] = []
    for item in spec.config or []:
        key, _, raw = item.partition("=")
        if key == GUARD_FILTER:
            filters.append(raw)
        else:
            (dynamo if key.startswith("dynamo.") else inductor)[key.split(".", 1)[1] if key.startswith(
                ("dynamo.", "inductor.")) else key] = literal(raw)
    options = dict(compile_options or {}, **spec.compile_options or {})
    missing = [k for k in inductor if not _has(torch._inductor.config, k)] + [
        k for k in dynamo if not _has(torch._dynamo.config, k)]
    if missing:
        return {"status": Status.ERROR, "error": f"torch {torch.__version__} has no config option {missing[0]}"}, None
    if filters and not hasattr(torch.compiler, filters[0]):
        return {"status": Status.ERROR, "error": f"torch {torch.__version__} has no torch.compiler.{filters[0]}"}, None
    if inductor or filters:
        options["options"] = dict(options.get("options") or {}, **inductor,
                                  **({GUARD_FILTER: getattr(torch.compiler, filters[0])} if filters else {}))
    if filters:  # not part of the backend: compiling ``fn`` would find the variant's code, so compile a copy of it
        fn = _own_code(fn)
    alone = bool(spec.config) and shares_code()
    result: dict[str, Any] = {"alone": alone}
    try:
        target, convert, sync = prepare(variant, fn, options)
        data = convert(np.asfortranarray(population) if spec.layout == "column-major" else population)
        call = guard.user(lambda: target(data))
        if alone:
            torch._dynamo.reset()
        capture.take()
        start = time.perf_counter()
        with torch._dynamo.config.patch(dynamo):
            output = call()
            sync()
        first = time.perf_counter() - start
        # read now: under CUDA graphs (mode="reduce-overhead") the next call's replay writes over this output
        np.save(os.path.join(outputs, f"{spec.id}.npy"), to_numpy(output))
        result["capture"] = capture.take()
        if spec.sizes:
            result["sizes"] = at_sizes(target, convert, sync)
        result["timing"] = (measure(call, sync, budget_s, first_call_s=first) if spec.time or alone
                            else {"first_call_s": first})
        return dict(result, status=Status.OK), None if alone else (call, sync)
    except guard.VariantError as e:
        return dict(result, status=Status.ERROR, error=f"{type(e.error).__name__}: {e.error}".strip()[:500],
                    capture=result.get("capture") or capture.take()), None


def _own_code(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with a code object of its own: Dynamo keeps compiled code per code object, so a compile of it neither
    finds nor replaces the code compiled for ``fn``."""
    if not isinstance(fn, types.FunctionType):
        return fn
    copy = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__, copy.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    return copy


def _has(root: object, key: str) -> bool:
    """Whether torch's config module ``root`` has the option ``key`` (dotted: cpp.enable_tiling_heuristics)."""
    for part in key.split("."):
        if not hasattr(root, part):
            return False
        root = getattr(root, part)
    return True


def literal(raw: str) -> Any:
    """A config or compile-option value: the Python literal ``raw`` is, else the text itself."""
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw
