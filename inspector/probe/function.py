"""What one compiled callable of a program did over the run (``inspector run``): each call's seconds and how torch
ran it, what compiled during it, the call traced for its Python lines and the one profiled for its kernels, and the
guards of torch's cached entries checked where its stance needs them."""

import inspect
import os
import re
import statistics
import sys
from collections.abc import Callable
from types import CodeType
from typing import TYPE_CHECKING, Any, Literal, Optional, TypedDict, Union

from inspector.frames import gave_up
from inspector.probe import frames
from inspector.raw import JSON
from inspector.record import compile_key

if TYPE_CHECKING:
    from inspector.probe.capture import Capture

MAX_SAMPLES = 10_000  # per-call durations kept per function and kind (their count and sum are always kept)
MAX_FALLBACKS = 20  # eager fallbacks kept per function with their failed guard (all are counted)
MAX_KIND_RUNS = 200  # runs of consecutive calls of one kind kept per function (all calls are counted by kind)
GUARD_LOCAL = re.compile(r"L\['([^']+)'\]")  # a guard's frame local as torch's own messages name it: L['x'] -> x
EAGER_STANCES = ("force_eager",)  # torch.compiler.set_stance values under which no compiled code runs
MAX_UNTRACED = 8  # calls not traced because they would compile (or compiled as they were traced): then none is


def fails(manager: Any, part: str, frame_locals: dict[str, object]) -> bool:  # manager: torch's GuardManager
    """Whether a guard torch's check says failed fails when Python evaluates it, as torch's own recompile reason
    does (a relational guard, "G['m'].torch is G['torch']", keeps state between checks and can fail on a second look
    where it holds): True where it fails or is not Python (a tensor's "size mismatch" words), False where it holds
    or cannot be evaluated here."""
    scope = {"L": frame_locals, "G": manager.global_scope["G"], **(getattr(manager, "closure_vars", None) or {})}
    try:
        return not eval(part, dict(manager.global_scope), scope)
    except SyntaxError:
        return True
    except Exception:
        return False


Piece = dict[str, Any]  # a take of the Capture, or one function's piece of it (frames.split): graphs, breaks, ...
EMPTY: Piece = {"graphs": [], "breaks": [], "limits": []}  # nothing compiled (told apart by identity)
Stance = Optional[str]  # the torch.compiler.set_stance in force (None: torch < 2.6)
Pass = Literal["trace", "profile"]  # a call traced for its Python lines, or profiled for its kernels' times
Arguments = tuple[Any, ...]  # a call's arguments and keywords: the program's values
Keywords = dict[str, Any]


class Fallback(TypedDict):
    """A call run eagerly under ``eager_on_recompile``, and the guard that failed."""

    call: int
    guard: str


class Untraced(TypedDict):
    """A call not traced for its Python lines, and why (see ``Function._untraced``)."""

    call: int
    why: str
    guard: Optional[str]


class Compile(TypedDict):
    """What compiled during a call (``call`` None: during another function's), and its kind."""

    call: Optional[int]
    seconds: Optional[float]
    kind: str
    compile_ids: list[Optional[str]]
    reasons: list[str]


class _KindRun(TypedDict):
    """Consecutive calls torch ran one way (see ``Function._classify``)."""

    first: int
    last: int
    kind: str


class KindRun(_KindRun, total=False):
    """A run of calls of one kind, with what its first call compiled and the cached entry whose guards held."""

    compile_ids: list[Optional[str]]
    entry: str


class StanceRun(TypedDict):
    """Consecutive calls made under one stance, and eagerly or not (None: not told)."""

    first: int
    last: int
    stance: Stance
    eager: Optional[bool]


class Function:
    """What one compiled callable did over the run."""

    def __init__(self, name: str, code: Optional[CodeType], index: int, created: Optional[str] = None,
                 target: Optional[Callable[..., Any]] = None) -> None:
        self.id = self.name = name
        self.index, self.created = index, created
        self.code: JSON = {
            "file": code.co_filename, "line": code.co_firstlineno, "name": code.co_name,
            "end_line": max((line for *_, line in code.co_lines() if line), default=code.co_firstlineno),
        } if code else {}
        self.code_object, self.target = code, target
        self.defined = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code else created
        self.wrappers, self.limited = 1, False
        self.skipped = False  # torch gave up on its frame: it runs eagerly on every call (see _compiled)
        self.model: object = None  # a module, kept alive (and so its id)
        self.pending: Optional[Piece] = None  # what compiled during the running call
        self.kinds: list[KindRun] = []  # how torch ran each call (see _classify)
        self.kind_counts: dict[str, int] = {}
        self.inside: dict[str, int] = {}  # {function id: this function's calls made inside that function's calls}
        self.entry: Optional[str] = None  # the compile id of the cached entry whose guards held, where checked
        # not looked up yet: False (only eager_on_recompile needs it)
        self.signature: Union[inspect.Signature, None, Literal[False]] = False
        self.calls, self.total_s = 0, 0.0
        self.first_s: Optional[float] = None
        self.compiled_at: Optional[int] = None
        self.steady, self.eager = Durations(), Durations()  # calls of compiled code that compiled nothing; eager ones
        self.capture: Optional[Piece] = None
        self.recompiles: dict[str, list[Any]] = {key: [] for key in LATER}
        self.compiles: list[Compile] = []
        self.fallbacks: list[Fallback] = []
        self.fallback_count = 0
        self.stances: list[StanceRun] = []
        self.python_lines: Optional[list[JSON]] = None
        self.kernel_times: Union[JSON, Callable[[], JSON], None] = None
        self.error: Optional[str] = None
        self.error_call: Optional[int] = None
        self.traced_call: Optional[int] = None
        self.profiled_call: Optional[int] = None
        self.untraced: list[Untraced] = []  # calls not traced (the first kept)
        self.untraced_count = 0
        self.other_methods: dict[str, int] = {}  # {method: calls} of a compiled module's other methods (uncompiled)
        self.device = "cpu"
        self.bounds: list[str] = []
        self.options: object = None  # torch.compile's keywords, as JSON values
        self.arguments: Optional[list[JSON]] = None  # the first call's

    def runs_eagerly(self, stance: Stance, args: Arguments, kwargs: Keywords) -> Optional[bool]:
        """Whether torch runs this call without compiled code: under ``force_eager``; or, under
        ``eager_on_recompile`` or once its frame hit the recompile limit (torch then runs only what it cached),
        when no compiled entry's guards hold for these arguments (then the failed guard is kept); None where it
        cannot be told."""
        if stance in EAGER_STANCES or self.skipped:
            return True
        if not (stance == "eager_on_recompile" or self.limited) or not self.graphs():
            return False
        failed = self._failed_guard(args, kwargs)
        if failed is None:
            return None
        if failed and stance == "eager_on_recompile":
            self.fallback_count += 1
            if len(self.fallbacks) < MAX_FALLBACKS:
                self.fallbacks.append({"call": self.calls, "guard": failed})
        return bool(failed)

    def _failed_guard(self, args: Arguments, kwargs: Keywords) -> Optional[str]:
        """The first failed guard of each of torch's cached entries for this code ("" when one holds: its compile id
        is kept in ``entry``), or None."""
        try:
            from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list
            if self.signature is False:
                self.signature = inspect.signature(self.target) if self.target else None
            if self.signature is None or self.code_object is None:
                return None
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            frame_locals = dict(bound.arguments)
            owner = getattr(self.target, "__self__", None)  # a bound method's (a module's forward): its self
            if owner is not None and self.code_object and self.code_object.co_varnames:
                frame_locals.setdefault(self.code_object.co_varnames[0], owner)
            failures: list[str] = []
            self.entry = None
            for entry in _debug_get_cache_entry_list(self.code_object):
                result = entry.guard_manager.check_verbose(frame_locals)
                if result.result:
                    self.entry = str(getattr(entry, "compile_id", "")) or None
                    return ""
                parts = list(result.verbose_code_parts)[:1]
                if any(part.startswith("KeyError") for part in parts):  # a name not among the arguments (a closure's
                    return None  # cell, a global torch reads from the frame): it cannot be told from here
                if not all(fails(entry.guard_manager, part, frame_locals) for part in parts):
                    return None
                failures += [GUARD_LOCAL.sub(r"\1", part) for part in parts]
            return "; ".join(failures) or "no compiled entry"
        except Exception:  # another torch's internals: say it cannot be told
            return None

    def next_pass(self, enabled: dict[Pass, bool], args: Arguments, kwargs: Keywords) -> Optional[Pass]:
        """'trace' for the first call after the function first compiled that will not compile (a guard of its cached
        entries holds, or that cannot be told: then the trace stops if it compiles), then 'profile' for the next
        such call; else None. A call that would compile gets no pass: its compile would run under the pass."""
        if not self.capture or not self.capture.get("graphs") or self.skipped:
            return None
        trace = self.traced_call is None and enabled["trace"] and self.untraced_count < MAX_UNTRACED
        profile = self.profiled_call is None and enabled["profile"]
        if not (trace or profile):
            return None
        failed = self._failed_guard(args, kwargs)
        if failed:
            if trace:
                limited = any(self.capture.get("limits") or []) or any(self.recompiles["limits"])
                self._untraced("limit" if limited else "recompile", failed)
            return None
        return "trace" if trace else "profile"

    def graphs(self) -> list[JSON]:
        first: list[JSON] = (self.capture or {}).get("graphs", [])
        return first + self.recompiles["graphs"]

    def _untraced(self, why: str, guard: Optional[str] = None) -> None:
        """Keep a call that was not traced: "recompile" (a guard failed: it would compile), "limit" (every guard
        failed past the recompile limit: it runs eagerly), "compiled" (it compiled as it was traced: the trace was
        stopped when the compile began)."""
        self.untraced_count += 1
        if len(self.untraced) < MAX_UNTRACED:
            self.untraced.append({"call": self.calls, "why": why, "guard": guard})

    def run_pass(self, mode: Pass, fn: Callable[..., Any], args: Arguments, kwargs: Keywords,
                 sync: Callable[[], object], capture: "Capture") -> Any:
        """Make the call under ``mode``'s pass; what it returned."""
        from inspector.probe import profile, runner
        box: list[Any] = []

        def call() -> None:
            box.append(fn(*args, **kwargs))
        if mode == "trace":
            self.traced_call = self.calls
            previous = sys.gettrace()
            capture.on_start = lambda: sys.settrace(previous)  # a compile begins: no line of it traced
            try:
                trace = runner._trace(call)
            finally:
                capture.on_start = None
            self.python_lines = trace["lines"]
            if trace.get("cut_after_s"):
                self.bounds.append(f"the Python-line trace of call {self.calls} stopped after "
                                   f"{trace['cut_after_s']:.0f} s: lines that ran later are not marked as Python")
        else:
            self.profiled_call = self.calls
            typical = self.steady.sum / self.steady.count if self.steady.count else 1e-3
            self.kernel_times = profile.kernel_times(call, sync, self.graphs(), self.device, typical, max_calls=1,
                                                     later=True)
        return box[0]

    def record(self, seconds: float, compiled: Piece, mode: Optional[Pass], stance: Stance, eager: Optional[bool],
               counted: bool = True) -> None:
        """Account one call: its seconds, what compiled during it (a frame's first compile, or a recompile: another
        compile of a frame torch had compiled before), how torch ran it (``_classify``) and the stance it ran under;
        ``counted`` False: no call of this function, its frame compiled inside another function's call."""
        if counted:
            self.total_s += seconds
        if counted and not (compiled is not EMPTY or mode or eager) and self.capture is not None:  # a steady call
            self.steady.add(seconds)
            kind, ids = "cached" if eager is False else "unknown", list[Optional[str]]()
        else:
            if counted and self.calls == 1:
                self.first_s = seconds
            kind, ids = self._ran(seconds, compiled, mode, eager, counted)
        if counted:
            self._classify(kind, ids)
            self._note_stance(stance, None if kind == "unknown" else kind in ("eager", "limit"))

    def _ran(self, seconds: float, compiled: Piece, mode: Optional[Pass], eager: Optional[bool], counted: bool
             ) -> tuple[str, list[Optional[str]]]:
        """(how torch ran a call that compiled, ran eagerly or ran an inspector pass, its compile ids)."""
        if compiled is not EMPTY:
            kind = self._compiled(seconds, compiled, mode, counted)
            if kind == "limit" or self.skipped:  # Dynamo gave up on the frame: this call ran it eagerly
                self.eager.add(seconds)
                kind = "eager" if self.skipped else kind
            return kind, [g.get("compile_id") for g in compiled["graphs"]]
        if eager or self.capture is None:  # no compiled code ran
            self.eager.add(seconds)
            return "eager", []
        return "cached" if eager is False else "unknown", []  # an inspector pass ran on compiled code

    def _compiled(self, seconds: float, compiled: Piece, mode: Optional[Pass], counted: bool) -> str:
        """Keep what a call compiled; its kind: first (frames compiled for their first time), recompile, or limit
        (torch hit its recompile limit and ran the frame eagerly)."""
        if mode == "profile":  # it timed kernels that this call's new graphs replaced: profile a later call
            self.kernel_times = self.profiled_call = None
        elif mode == "trace":  # it traced a compiling call (stopped as the compile began): trace a later one
            self.python_lines = self.traced_call = None
            self._untraced("compiled")
        ids = {compile_key(x.get("compile_id")) for x in compiled["graphs"] + compiled["breaks"]}
        if self.code_object is not None:  # torch's own record: its compile of the frame left no guarded code
            own = frames.code_of(self.code_object)
            self.skipped = self.skipped or any(gave_up(g.get("metrics") or {}, own) for g in compiled["graphs"])
        first = not compiled["limits"] and all(i is not None and i[1] == 0 for i in ids)
        if self.capture is None:  # the function's own first compile (torch's recompile of a shared code object)
            self.capture, self.compiled_at = compiled, self.calls if counted else None
            self.first_s = seconds if counted else None
        elif first:  # a frame reached for the first time (code after a break, another branch)
            for key in LATER:
                self.capture[key] = self.capture.get(key, []) + compiled.get(key, [])
        else:
            for key in LATER:
                self.recompiles[key] += compiled.get(key, [])
        kind = "limit" if compiled["limits"] else "first" if first else "recompile"
        self.compiles.append({"call": self.calls if counted else None, "seconds": seconds if counted else None,
                              "kind": kind, "compile_ids": [g.get("compile_id") for g in compiled["graphs"]],
                              "reasons": [r for g in compiled["graphs"]
                                          if (r := (g.get("metrics") or {}).get("recompile_reason"))]})
        return kind

    def _classify(self, kind: str, compile_ids: list[Optional[str]]) -> None:
        """Count this call as torch ran it: ``first`` or ``recompile`` (compiled, then ran the new code), ``limit``
        (hit the recompile limit: ran eagerly), ``cached`` (ran code compiled before: no compile, and no guard check
        of ours failed), ``eager`` (no compiled code: a stance, nothing cached whose guards hold after the limit, or
        nothing compiled), ``unknown``; consecutive calls of one kind (and cached entry) as one run."""
        self.kind_counts[kind] = self.kind_counts.get(kind, 0) + 1
        entry = self.entry if kind == "cached" and self.limited else None
        self.entry = None
        last = self.kinds[-1] if self.kinds else None
        if last and last["kind"] == kind and last["last"] == self.calls - 1 and not compile_ids \
                and last.get("entry") == entry:
            last["last"] = self.calls
        elif len(self.kinds) < MAX_KIND_RUNS:
            run: KindRun = {"first": self.calls, "last": self.calls, "kind": kind}
            if compile_ids:
                run["compile_ids"] = list(compile_ids)
            if entry:
                run["entry"] = entry
            self.kinds.append(run)

    def _note_stance(self, stance: Stance, eager: Optional[bool]) -> None:
        """Extend the run of calls made under one stance (and eagerly or not), or start a new one."""
        last = self.stances[-1] if self.stances else None
        if last and last["stance"] == stance and last["eager"] == eager:
            last["last"] = self.calls
        else:
            self.stances.append({"first": self.calls, "last": self.calls, "stance": stance, "eager": eager})

    def facts(self) -> JSON:
        """The raw facts of the record's ``variants`` entry for this function (see docs/record.md)."""
        if callable(self.kernel_times):
            self.kernel_times = self.kernel_times()
        return {"id": self.id, "function": self.id, "index": self.index, "code": self.code, "device": self.device,
                "created": self.created, "calls": max(0, self.calls - 1), "capture": self.capture or EMPTY_CAPTURE,
                "recompiles": self.recompiles, "timing": self.steady.timing(self.first_s),
                "python_lines": self.python_lines, "kernel_times": self.kernel_times, "bounds": self.bounds,
                "error": self.error, "error_call": self.error_call,
                "run": {"calls": self.calls, "total_s": self.total_s, "steady_calls": self.steady.count,
                        "steady_s": self.steady.sum, "compiles": self.compiles, "compiled_at": self.compiled_at,
                        "traced_call": self.traced_call, "profiled_call": self.profiled_call,
                        "untraced": {"count": self.untraced_count, "first": self.untraced},
                        **({"other_methods": self.other_methods} if self.other_methods else {}),
                        "stances": self.stances if any(s["stance"] not in (None, "default") for s in self.stances)
                        else [], "eager": self.eager.timing(), "wrappers": self.wrappers,
                        "kinds": {"counts": self.kind_counts, "runs": self.kinds}, "inside": self.inside,
                        "fallbacks": {"count": self.fallback_count, "first": self.fallbacks},
                        "compile_options": self.options, "arguments": self.arguments}}


# what a later compile adds to a function's capture (a frame's first compile) or its recompiles: the machine code of a
# recompiled graph's kernels too, which share the first graph's kernel names
LATER = ("graphs", "breaks", "limits", "machine_code")
EMPTY_CAPTURE: JSON = {"mechanism": None, "graphs": [], "breaks": [], "problems": [], "records": 0, "limits": []}


class Durations:
    """The seconds of one kind of call: all counted and summed, the first MAX_SAMPLES kept."""

    def __init__(self) -> None:
        self.kept: list[float] = []
        self.count, self.sum = 0, 0.0

    def add(self, seconds: float) -> None:
        self.count += 1
        self.sum += seconds
        if len(self.kept) < MAX_SAMPLES:
            self.kept.append(seconds)

    def timing(self, first_s: Optional[float] = None) -> Optional[JSON]:
        """A timing entry of the kept calls (None without any)."""
        if not self.kept:
            return None
        ordered = sorted(self.kept)
        return {"first_call_s": first_s, "median_s": statistics.median(ordered), "min_s": ordered[0],
                "max_s": ordered[-1], "runs": self.count, "number": 1,
                "samples_s": [round(s, 9) for s in self.kept[:200]]}

