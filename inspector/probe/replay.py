"""Replay (``inspector run``): each compiled function run eagerly and compiled on copies of the arguments of one of its
calls that ran compiled code and compiled nothing, after the program has finished, to tell whether compiling it paid
(stdlib, numpy and torch only).

During the run, ``before``/``after`` around a call that may run compiled code copy its arguments (tensors cloned, NumPy
arrays copied, other values deep-copied), once per function, their bytes counted against one bound for all functions
(``bound``); a call that turns out to compile gives its copies back and the next one is copied. After the program (at
the interpreter's exit, after the program's atexit handlers), ``run`` calls each function on its copies, compiled
(torch's cached compiled code) and eagerly (under ``torch.compiler.set_stance("force_eager")``, or
``torch._dynamo.disable`` before torch 2.6), one call of each first, then in alternating rounds
(``inspector.probe.rounds.turn``, as ``report`` times its variants) within its share of the budget; torch's, NumPy's and
Python's random state saved and restored, everything it prints captured and dropped. The program's own objects are never
changed by a copy: a function that changes its copied arguments or its ``self`` (tensor versions, NumPy arrays' bytes,
containers' contents, attributes) is called once and not measured, with why, as are arguments that cannot be copied and
a call that raises.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass
from typing import Any, Optional

from inspector.probe.rounds import turn

DEFAULT_BUDGET_S = 3.0  # seconds of replay, all functions together (``inspector run --budget``), at most by default
BUDGET_SHARE, MIN_BUDGET_S = 0.05, 0.5  # by default, a twentieth of the program's own run, this much at least
SHARE = 0.25  # of the memory available (host; a GPU's free memory too) when the first copy is taken
CAP = 2 << 30  # bytes of copies at most, all functions together
ROUNDS = 3  # alternating rounds at most
PROFILE_S = 0.2  # of a replay's share, at most, for its profiled pass (with half as many calls without the profiler)
DEPTH = 4  # how deep the check for changed arguments looks into objects


class NotCopyable(Exception):
    """Arguments that cannot be copied (the message says which and why)."""


@dataclass
class Copy:
    """A steady call's arguments, copied: the call's number, the compiled callable it ran, the copies and their
    bytes."""

    call: int
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    bytes: int


class Replay:
    """The copies taken during the run (``before``/``after``) and their replay after it (``run``)."""

    def __init__(self, budget_s: Optional[float] = None) -> None:
        self.budget_s, self.held = budget_s, 0  # None: ``budget(the program's run)``, once it has ended
        self.copies: dict[Any, Copy] = {}  # per probe.function.Function
        self.why: dict[Any, str] = {}  # why a function's arguments were not copied
        self.bound: Optional[int] = None

    def before(self, function: Any, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> Optional[Any]:
        """Copy the arguments of a call of ``function`` (a ``probe.function.Function``) that may run compiled code,
        unless an earlier call's are kept or could not be; a token for ``after``."""
        if function in self.copies or function in self.why or function.capture is None:
            return None
        try:
            size = nbytes((args, kwargs))
            if self.bound is None:
                self.bound = bound((args, kwargs))
            if self.held + size > self.bound:
                raise NotCopyable(f"copies of its arguments would take {size / 2**20:.0f} MiB, over inspector's bound "
                                  f"({(self.bound - self.held) / 2**20:.0f} MiB left of {self.bound / 2**20:.0f} MiB)")
            copied_args, copied_kwargs = copied((args, kwargs))
        except NotCopyable as e:
            self.why[function] = str(e)
            return None
        self.copies[function] = Copy(function.calls, fn, copied_args, copied_kwargs, size)
        self.held += size
        return function

    def after(self, function: Any, ran_compiled: bool) -> None:
        """Keep the copies if the call ran compiled code and compiled nothing (a steady call, or one an inspector pass
        traced or profiled: a function called twice has no other), else give them back."""
        if not ran_compiled:
            self.held -= self.copies.pop(function).bytes

    def run(self, functions: list[Any], capture: Any) -> dict[Any, dict[str, Any]]:
        """Replay each called function: {function: its record's ``run.replay`` facts}; ``capture``: the run's
        Capture (what the replay compiles is counted, then dropped)."""
        import torch
        found: dict[Any, dict[str, Any]] = {}
        if torch.autograd._profiler_enabled():  # one the program (or its site) started and has not stopped
            why = "a profiler was still recording (the replay's calls would have been in its trace)"
            return {f: {"why": why} for f in functions if f.calls}
        left = sorted((f for f in functions if f in self.copies), key=lambda f: -f.total_s)  # the hottest first
        assert self.budget_s is not None, "set when the program ended (Tracker.end)"
        start = time.perf_counter()
        with _kept_state(), _silenced():
            for n, function in enumerate(left):
                began = time.perf_counter()
                share = (self.budget_s - (began - start)) / (len(left) - n)
                kept = self.copies.pop(function)
                found[function] = dict(replay(function, kept, share, capture) if share > 0 else {
                    "call": kept.call, "bytes": kept.bytes,
                    "why": f"the replay's budget ({self.budget_s:g} s, --budget) was spent on hotter functions"},
                    seconds=time.perf_counter() - began)
        for function in functions:
            if function.calls and function not in found:
                found[function] = {"why": self.why.get(function) or _uncopied(function)}
        return found


def budget(wall_s: float) -> float:
    """The default budget of the replay (and of the experiment) after a program that ran ``wall_s`` seconds: a twentieth
    of it, between MIN_BUDGET_S and DEFAULT_BUDGET_S, so that measuring does not outlast a short program."""
    return min(DEFAULT_BUDGET_S, max(MIN_BUDGET_S, BUDGET_SHARE * wall_s))


def _uncopied(function: Any) -> str:
    if function.capture is None:
        return "nothing of it compiled during the run"
    if function.skipped:
        return "torch gave up compiling it and ran every call eagerly: there is no compiled code to time"
    return "no call ran its compiled code without compiling, to copy the arguments of (every call compiled or ran " \
           "eagerly)"


def replay(function: Any, kept: Copy, share_s: float, capture: Any) -> dict[str, Any]:
    """One function's replay facts: one compiled and one eager call, checked for changes, then alternating rounds
    within ``share_s`` seconds."""
    import torch
    start = time.perf_counter()
    facts: dict[str, Any] = {"call": kept.call, "bytes": kept.bytes}
    sync = torch.cuda.synchronize if function.device == "cuda" else _nothing
    calls = _calls(function, kept)
    owner = getattr(function.target, "__self__", None)
    steady = function.steady.timing() or {}
    if steady and 4 * steady["median_s"] > share_s:
        return dict(facts, why=f"a compiled call takes {steady['median_s']:.3g} s, too long for its share of the "
                               f"replay's budget ({share_s:.3g} s of --budget)")
    before = fingerprint((kept.args, kept.kwargs, owner))
    first = {}
    for kind, (call, stance) in calls.items():
        with stance():
            first[kind] = turn(call, sync, 0.0)  # one call: a turn's error is what it raised
        if "error" in first[kind]:
            return dict(facts, why=f"its {kind} call on the copies raised {first[kind]['error']}")
        if fingerprint((kept.args, kept.kwargs, owner)) != before:
            return dict(facts, why=f"it changes its arguments{' or self' if owner is not None else ''} (the {kind} "
                                   "call changed them): calling it again would not repeat the program's call")
    taken = capture.take() if not capture.empty() else {}
    facts["compiles"] = len(taken.get("graphs", []))
    if facts["compiles"]:  # the compiled call held a compile: what the rounds would take is a steady call's
        call, stance = calls["compiled"]
        with stance():
            first["compiled"] = turn(call, sync, 0.0)
    slowest, left = max(t["median_s"] for t in first.values()), share_s - (time.perf_counter() - start)
    reserve = min(2 * PROFILE_S, share_s / 4) if function.kernel_times is not None else 0.0  # see _profiled
    if left - reserve < 2 * 3 * slowest:  # the rounds first: no round would be left
        reserve = 0.0
    left -= reserve
    rounds = min(ROUNDS, int(left / (2 * 3 * slowest)))  # a turn makes 2 untimed calls and 1 timed call at least
    if rounds < 1:
        pair = sum(t["median_s"] for t in first.values())
        return dict(facts, why=f"an eager and a compiled call take {pair:.3g} s, too long for its share of "
                               f"the replay's budget ({share_s:.3g} s of --budget)")
    per_turn = max(slowest, left / (2 * rounds) - 2 * slowest)  # what a turn may take (measure stops at it)
    timed: dict[str, list[dict[str, Any]]] = {"eager": [], "compiled": []}
    for r in range(rounds):
        if r and time.perf_counter() - start > share_s:  # a busy machine: the rounds so far, within the budget
            break
        for kind in (("eager", "compiled") if r % 2 == 0 else ("compiled", "eager")):
            call, stance = calls[kind]
            with stance():
                timed[kind].append(dict(turn(call, sync, per_turn), round=r))
    failed = next((t["error"] for ts in timed.values() for t in ts if "error" in t), None)
    if not failed and reserve:
        facts.update(_profiled(function, calls["compiled"], sync, first["compiled"]["median_s"], reserve))
    if not capture.empty():
        capture.take()
    return dict(facts, **timed, **({"why": f"a call on the copies raised {failed}"} if failed else {}))


def _profiled(function: Any, compiled: Call, sync: Callable[[], Any], call_s: float, reserve_s: float
              ) -> dict[str, Any]:
    """{"kernel_times"}: the profiled pass of a sample's variant (``probe.profile.kernel_times``: half as many calls
    without the profiler, then with it, medians) made on the copies, where ``reserve_s`` holds MIN_CALLS calls of
    each; the program's one profiled call then stays the fallback. Made only where the run profiled a call."""
    from inspector.probe import profile
    calls = int(reserve_s / (2 * max(call_s, 1e-9)))
    if calls < profile.MIN_CALLS:
        return {}
    call, stance = compiled
    try:
        with stance():
            return {"kernel_times": profile.kernel_times(call, sync, function.graphs(), function.device, call_s,
                                                         max_calls=calls)}
    except Exception as e:  # the program's own profiled call still says where its time went
        return {"kernel_times": {"error": f"the replay's profiled pass raised {type(e).__name__}: {e}"}}


Call = tuple[Callable[[], Any], Callable[[], ContextManager[Any]]]  # a call, and the stance to make it under


def _calls(function: Any, kept: Copy) -> dict[str, Call]:
    """{"compiled", "eager"}: a call of ``function`` on the copies through torch's compiled code, under the default
    stance (whatever stance the program left set), and one without compiled code: its own code (else the compiled
    callable) under ``force_eager``, so that the compiled functions it calls run eagerly too; before torch 2.6 (no
    stances), the compiled callable as it is, and its own code under ``torch._dynamo.disable``. The stance is set
    around a turn's calls, not each call (setting it takes tens of µs)."""
    import torch
    fn, compiled = function.target or kept.fn, kept.fn
    stance = getattr(torch.compiler, "set_stance", None)
    if stance is None:
        disabled = torch._dynamo.disable(fn)
        return {"compiled": (lambda: compiled(*kept.args, **kept.kwargs), contextlib.nullcontext),
                "eager": (lambda: disabled(*kept.args, **kept.kwargs), contextlib.nullcontext)}
    return {"compiled": (lambda: compiled(*kept.args, **kept.kwargs), lambda: stance("default")),
            "eager": (lambda: fn(*kept.args, **kept.kwargs), lambda: stance("force_eager"))}


def _nothing() -> None:
    pass


def nbytes(value: Any, depth: int = 0, seen: Optional[set[int]] = None) -> int:
    """Bytes of the tensors and arrays in ``value``, as copies of them would take: containers, modules (their
    parameters and buffers) and objects' attributes looked into, DEPTH levels deep, each object once."""
    import numpy as np
    import torch
    seen = set() if seen is None else seen
    if id(value) in seen or depth > DEPTH:
        return 0
    seen.add(id(value))
    if isinstance(value, torch.Tensor):
        return int(value.numel() * value.element_size())
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, torch.nn.Module):
        return sum(nbytes(t, depth, seen) for t in value.state_dict(keep_vars=True).values())
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple, set)) else \
        getattr(value, "__dict__", {}).values()
    return sum(nbytes(v, depth + 1, seen) for v in items)


def bound(value: Any) -> int:
    """Bytes all copies may take: CAP, or SHARE of the memory available now (of a GPU's free memory too where
    ``value`` holds CUDA tensors), whichever is less."""
    found: list[float] = [CAP]
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/meminfo", encoding="ascii") as f:
        found += [int(line.split()[1]) * 1024 * SHARE for line in f if line.startswith("MemAvailable:")]
    if _on_cuda(value):
        import torch
        found.append(torch.cuda.mem_get_info()[0] * SHARE)
    return int(min(found))


def _on_cuda(value: Any) -> bool:
    import torch
    if isinstance(value, torch.Tensor):
        return bool(value.is_cuda)
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return any(_on_cuda(v) for v in items)


def copied(value: Any, memo: Optional[dict[int, Any]] = None) -> Any:
    """A copy of ``value``: tensors cloned (detached, their strides, ``requires_grad`` and type kept: torch guards on a
    tensor subclass, whose ``clone`` may give a plain tensor, as EvoTorch's ReadOnlyTensor does), NumPy arrays copied,
    containers copied item by item, anything else deep-copied; one copy of an object passed twice (torch guards on
    arguments that alias); NotCopyable where that fails."""
    import numpy as np
    import torch
    memo = {} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, torch.Tensor):
        found: Any = value.detach().clone().requires_grad_(value.requires_grad)
        if type(found) is not type(value):
            with contextlib.suppress(Exception):
                found = torch.Tensor.as_subclass(found, type(value))
    elif isinstance(value, np.ndarray):
        found = value.copy()
    elif type(value) is dict:
        found = {k: copied(v, memo) for k, v in value.items()}
    elif type(value) in (list, tuple):
        found = type(value)(copied(v, memo) for v in value)
    else:
        try:
            found = copy.deepcopy(value, memo)
        except Exception as e:
            raise NotCopyable(f"an argument of type {type(value).__name__} cannot be copied ({type(e).__name__}: "
                              f"{str(e)[:200]})") from None
    memo[id(value)] = found
    return found


def fingerprint(value: Any, depth: int = 0) -> Any:
    """What a call could change in ``value``, comparable before and after it: each tensor's identity and version
    (torch counts its in-place changes), each array's identity and bytes, containers' contents, objects' attributes
    (DEPTH levels deep); a module's tensors through its state_dict."""
    import numpy as np
    import torch
    if isinstance(value, torch.Tensor):
        return "tensor", id(value), value._version
    if isinstance(value, np.ndarray):
        return "array", id(value), hashlib.blake2b(np.ascontiguousarray(value).view(np.uint8).data).hexdigest()
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)) or depth >= DEPTH:
        return value if depth < DEPTH else id(value)
    if isinstance(value, torch.nn.Module):
        return "module", tuple((k, fingerprint(v, depth)) for k, v in value.state_dict(keep_vars=True).items()), \
            fingerprint(_attributes(value), depth + 1)
    if isinstance(value, dict):
        return "dict", tuple((repr(k), fingerprint(v, depth + 1)) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return type(value).__name__, tuple(fingerprint(v, depth + 1) for v in items)
    return "object", id(value), fingerprint(_attributes(value), depth + 1)


def _attributes(value: Any) -> dict[str, Any]:
    """An object's own attributes (a module's without its parameters, buffers and submodules: fingerprinted
    apart)."""
    found = dict(getattr(value, "__dict__", None) or {})
    for key in ("_parameters", "_buffers", "_modules", "_forward_hooks", "_forward_pre_hooks"):
        found.pop(key, None)
    return found


@contextlib.contextmanager
def _kept_state() -> Iterator[None]:
    """Python's, NumPy's and torch's (CPU and CUDA) random state, as they were before the block."""
    import numpy as np
    import torch
    python, numpy, cpu = random.getstate(), np.random.get_state(), torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    try:
        yield
    finally:
        random.setstate(python)
        np.random.set_state(numpy)
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


@contextlib.contextmanager
def _silenced() -> Iterator[io.StringIO]:
    """Everything printed inside the block, through sys.stdout/sys.stderr or straight to file descriptors 1 and 2
    (C++, a logging handler holding the program's stream), captured and dropped."""
    printed = io.StringIO()
    _flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            try:
                with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                    yield printed
            finally:
                _flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
    finally:
        for fd in saved:
            os.close(fd)


def _flush() -> None:
    """Write out what Python's and C's stdio buffers hold for stdout and stderr."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()  # type: ignore[union-attr]
    with contextlib.suppress(Exception):
        import ctypes
        ctypes.CDLL(None).fflush(None)
