"""Track every callable a program gives to ``torch.compile`` (see ``inspector.probe.program``): ``Tracker`` wraps
torch.compile and each compiled callable, times each call with the stance torch ran it under, and gives what compiled
during it to the ``Function`` whose frames torch compiled."""

import functools
import importlib
import inspect
import os
import sys
import time
from collections.abc import Callable
from types import CodeType, FrameType, FunctionType
from typing import TYPE_CHECKING, Any, Optional

from inspector.probe import experiment, frames
from inspector.probe.function import EMPTY, Arguments, Function, Keywords, Pass, Piece
from inspector.probe.hotspots import Hotspots
from inspector.probe.messages import ProgramEnd, ProgramReplay
from inspector.probe.replay import budget as replay_budget
from inspector.probe.tracebacks import HIDDEN, hide, hide_from_torch_stacks
from inspector.raw import JSON, RawExperiment, RawHotspot, RawReplay, RawVariant
from inspector.record import compile_key

if TYPE_CHECKING:
    from inspector.probe.decisions import Restore  # imports torch
    from inspector.probe.replay import Replay


class Tracker:
    """Wraps torch.compile so that every compiled callable reports its calls (see the module docstring), with a
    Capture of what compiles; ``install`` starts both and the run's clock, ``end`` gives the ``program`` message's
    facts, ``uninstall`` puts torch back (for the Python API, which tracks inside the user's own process)."""

    def __init__(self, trace: bool = True, profile: bool = True, replay: Optional["Replay"] = None) -> None:
        from inspector.probe.capture import Capture  # imports torch: not before the program's TORCH_TRACE is set
        for name in ("load", "profile", "runner", "timing"):  # the passes' modules, while inspector is on sys.path
            importlib.import_module(f"inspector.probe.{name}")  # (the program runs without it: _forget_bootstrap)
        self.capture = Capture()
        self.functions: list[Function] = []
        self.start = 0.0  # the run's clock (time.perf_counter), from install
        self.active: list[Function] = []  # the tracked calls running now, outermost first
        self.by_key: dict[object, Function] = {}  # {code object or ("module", id): Function}
        self.frames: dict[Optional[int], Optional[Function]] = {}  # {torch's frame id: Function or None}
        self.passes: dict[Pass, bool] = {"trace": trace, "profile": profile}
        self.outside_counts = {"graphs": 0, "breaks": 0}
        self.restore: "Restore" = []  # what install replaced of torch's
        self.replay = replay  # copies of one steady call's arguments per function, or None
        self.hotspots: Optional[Hotspots] = None  # where the program's own time goes, or None
        self.order: list[str] = []  # the hot functions, the most time first
        self.budget: Optional[float] = replay.budget_s if replay else 0.0  # the experiment's (None: replay_budget)

    def install(self) -> None:
        """Wrap torch.compile, start the capture and the run's clock."""
        import torch
        self.capture.install()
        self.start = time.perf_counter()
        self.cuda: bool = torch.cuda.is_available()
        self.eval_frame: Any = torch._dynamo.eval_frame  # its _stance: the torch.compiler.set_stance in force
        original = self.original = torch.compile
        self._set_eval_frame: Optional[Callable[[Any], Any]] = getattr(torch._C._dynamo.eval_frame,
                                                                       "set_eval_frame", None)

        @functools.wraps(original)
        def compile(model: Any = None, **kwargs: Any) -> Any:
            if model is None:  # @torch.compile(mode=...): a decorator
                return lambda m: compile(m, **kwargs)
            return self.track(model, original(model, **kwargs), _created_at(model), kwargs)

        torch.compile = compile
        _skip_frame(Tracker.call.__code__)
        hide_from_torch_stacks(self.restore)

    def uninstall(self) -> None:
        """Put torch back as it was."""
        import torch
        torch.compile = self.original
        self.capture.uninstall()
        for target, name, value in reversed(self.restore):
            setattr(target, name, value)
        self.restore.clear()

    def end(self, status: int) -> ProgramEnd:
        """The last message: the exit status, wall time, each tracked function's facts and what compiled outside."""
        wall_s = time.perf_counter() - self.start
        if self.replay and self.replay.budget_s is None:
            self.replay.budget_s = replay_budget(wall_s)
        if self.budget is None:
            self.budget = replay_budget(wall_s)
        hot: Optional[list[JSON]] = None
        if self.hotspots:
            self.hotspots.stop()
            hot = self.hotspots.facts(wall_s)
            self.order = [h["id"] for h in hot if (h["share"] or 0) >= experiment.MIN_SHARE]
        self._outside(self.capture.take())
        return ProgramEnd(exit=status, wall_s=wall_s, outside=dict(self.outside_counts),
                          functions=[RawVariant.from_json(f.facts()) for f in self.functions],
                          hotspots=None if hot is None else [RawHotspot.from_json(h) for h in hot],
                          profile_problems=(self.hotspots.problems or None) if self.hotspots else None)

    def replayed(self, status: int, why: str | None = None) -> ProgramReplay:
        """Each called function's replay facts (its ``run.replay``), replayed now that the program has finished (not
        after Ctrl-C); without replay, why not (``why``: not replayed, and why)."""
        found: dict[Function, JSON]
        if why or self.replay is None or status == 130:
            why = why or ("--no-replay" if self.replay is None else "the program was interrupted (Ctrl-C)")
            found = {f: {"why": why} for f in self.functions if f.calls}
        else:
            active, self.active = self.active, list(self.functions)  # tracked calls the replay makes pass through
            try:
                found = self.replay.run(self.functions, self.capture)
            except (Exception, KeyboardInterrupt) as e:  # the program's facts are kept whatever the replay does
                why = f"the replay stopped ({type(e).__name__}: {e})"
                found = {f: {"why": why} for f in self.functions if f.calls}
            finally:
                self.active = active
        return ProgramReplay(functions={f.id: RawReplay.from_json(facts) for f, facts in found.items()},
                             experiments=self.experimented(status))

    def experimented(self, status: int) -> dict[str, RawExperiment] | None:
        """The experiment on the hot functions' captured inputs (``inspector.probe.experiment``), not after Ctrl-C."""
        if not self.hotspots or status == 130 or not self.order:
            return None
        active, self.active = self.active, list(self.functions)
        try:
            assert self.budget is not None, "set when the program ended (end)"
            found = experiment.run(self.hotspots.rounds(), self.order, self.original, self.budget, self.capture)
        finally:
            self.active = active
        return {fid: RawExperiment.from_json(facts) for fid, facts in found.items()}

    def track(self, model: Any, compiled: Any, created: Optional[str] = None, options: Optional[JSON] = None) -> Any:
        """The compiled callable, reporting to a new Function (a module keeps its type; its forward reports)."""
        import torch
        function = self._function(model, created)
        function.options = _json_safe(options)
        if isinstance(compiled, torch.nn.Module):
            forward = compiled.forward

            def tracked_forward(*args: Any, **kwargs: Any) -> Any:
                with HIDDEN:
                    return self.call(function, forward, args, kwargs)
            compiled.forward = tracked_forward
            _skip_frame(tracked_forward.__code__)
            for method in _own_methods(model):
                compiled.__dict__[method] = counted(function, model, method)  # not the original's (__setattr__)
            return compiled

        def tracked(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True  # IPython, pytest: not the user's frame
            with HIDDEN:
                return self.call(function, compiled, args, kwargs)
        functools.update_wrapper(tracked, model)
        for attribute in ("_torchdynamo_orig_callable", "_torchdynamo_inline"):  # Dynamo inlines it as before
            if hasattr(compiled, attribute):
                setattr(tracked, attribute, getattr(compiled, attribute))
        _skip_frame(tracked.__code__)
        return tracked

    def _function(self, model: Any, created: Optional[str]) -> Function:
        """The Function of ``model``: one per code object, as torch's cache is (``torch.compile(f)`` called again on
        ``f``, or on another closure of ``f``'s code, makes another wrapper of the same function), one per module."""
        import torch
        target = getattr(model, "forward", model)
        code = getattr(target, "__code__", None) or getattr(model, "__code__", None)
        key = ("module", id(model)) if isinstance(model, torch.nn.Module) or code is None else code
        if key in self.by_key:
            self.by_key[key].wrappers += 1
            return self.by_key[key]
        name = getattr(model, "__qualname__", None) or type(model).__name__
        function = self.by_key[key] = Function(name, code, len(self.functions), created, target if code else None)
        function.model = model if key != code else None  # keeps the module, and so its id, alive
        self.functions.append(function)
        self._name(function)
        return function

    def _name(self, function: Function) -> None:
        """Tell apart the functions of one name as torch's logs do, by where each is defined ("f (run.py:7)", the
        first too); those defined at one place (two modules of one class) are numbered ("Net (net.py:3) #2")."""
        same = [f for f in self.functions if f.name == function.name]
        if len(same) == 1:
            return
        for f in same:
            if f.id == f.name and f.defined:
                f.id = f"{f.name} ({f.defined})"
        alike = sum(1 for f in same if f.defined == function.defined)
        if alike > 1:
            function.id = f"{function.id} #{alike}"

    def call(self, function: Function, fn: Callable[..., Any], args: Arguments, kwargs: Keywords) -> Any:
        """One call of a tracked function: timed with its stance and classed as torch ran it; what compiled during it
        goes to the functions whose frames torch compiled (``_settle``), Dynamo's frame callback kept off inspector's
        own frames meanwhile."""
        __tracebackhide__ = True
        if function in self.active:  # a recursive call: part of the running one
            return fn(*args, **kwargs)
        dynamo = self._set_eval_frame(None) if self._set_eval_frame else None
        self._settle()
        nested = bool(self.active)
        if nested:  # made inside another tracked function's call: its time is that call's too
            function.inside[self.active[-1].id] = function.inside.get(self.active[-1].id, 0) + 1
        self.active.append(function)
        function.calls += 1
        if function.calls == 1:
            function.arguments = _arguments(function.target, args, kwargs)
        stance = getattr(getattr(self.eval_frame, "_stance", None), "stance", None)  # None: torch < 2.6
        eager = function.runs_eagerly(stance, args, kwargs) if stance not in (None, "default") \
            or function.limited or function.skipped else False
        sync = _sync(args) if self.cuda else _nothing
        if sync is not _nothing:
            function.device = "cuda"
        mode = None if eager or nested else function.next_pass(self.passes, args, kwargs)
        copied = self.replay.before(function, fn, args, kwargs) if self.replay and not eager else None
        start = time.perf_counter()
        try:
            if self._set_eval_frame:
                self._set_eval_frame(dynamo)
            if mode:
                return function.run_pass(mode, fn, args, kwargs, sync, self.capture)
            return fn(*args, **kwargs)
        except BaseException as e:
            if isinstance(e, Exception):
                function.error, function.error_call = f"{type(e).__name__}: {e}", function.calls
            hide(e)
            raise
        finally:
            if self._set_eval_frame:
                self._set_eval_frame(None)
            sync()
            seconds = time.perf_counter() - start
            self._settle()
            self.active.pop()
            compiled = function.pending or EMPTY
            function.record(seconds, compiled, mode, stance, eager)
            function.pending = None
            if copied and self.replay:
                self.replay.after(copied, compiled is EMPTY)
            if self._set_eval_frame:
                self._set_eval_frame(dynamo)

    def _settle(self) -> None:
        """Give what compiled since the last look to the functions whose frames torch compiled (by the code object its
        metrics name, a resume function being its function's); a frame of no tracked function (a helper it calls)
        goes to the innermost running call, else outside any. A function with no call running gets it at once."""
        if self.capture.empty():
            return
        pieces = frames.split(self.capture.take(), self._frame_owner, self._limit_owner)
        for function, piece in pieces.items():
            if function is None:
                self._outside(piece)
            elif function in self.active:
                function.pending = _merged(function.pending, piece)
            else:  # its own frame, run by another function's call (a callee not called through torch.compile's)
                function.record(0.0, piece, None, None, False, counted=False)

    def _frame_owner(self, compile_id: Optional[str], code: Optional[frames.Code]) -> Optional[Function]:
        frame = (compile_key(compile_id) or (None,))[0]
        if code is not None:
            found = frames.owner(code, self.functions)
            if frame is not None:
                self.frames[frame] = found
        else:
            found = self.frames.get(frame)
        return found or (self.active[-1] if self.active else None)

    def _limit_owner(self, text: str) -> Optional[Function]:
        code = frames.limit_code(text)
        found = frames.owner(code, self.functions) if code else None
        if found is not None and code == frames.code_of(found.code_object):
            found.limited = True  # torch runs this frame with what it cached from now on
        return found or (self.active[-1] if self.active else None)

    def _outside(self, taken: Piece) -> None:
        for key in self.outside_counts:
            self.outside_counts[key] += len(taken[key])


def _merged(into: Optional[Piece], piece: Piece) -> Piece:
    """Two takes of a capture as one (``into`` None: ``piece``)."""
    if into is None:
        return piece
    for key in frames.PARTS:
        into[key] = into.get(key, []) + piece.get(key, [])
    return into


def _skip_frame(code: CodeType) -> None:
    """Keep Dynamo from compiling one of inspector's frames (it runs them with what they call still compiled)."""
    try:
        from torch._dynamo.eval_frame import skip_code
        skip_code(code)
    except (ImportError, AttributeError):  # another torch: its frame may be traced as the program's
        pass


def _own_methods(model: Any) -> list[str]:
    """The methods a module's own classes define besides ``forward`` (torch.nn.Module's and dunders left out): the
    compiled module's attribute lookup reaches them on the original module, uncompiled."""
    import torch
    base = set(dir(torch.nn.Module))
    return sorted({name for cls in type(model).__mro__ if not issubclass(torch.nn.Module, cls)
                   for name, value in vars(cls).items()
                   if isinstance(value, FunctionType) and name not in base and not name.startswith("__")})


def counted(function: Function, model: object, name: str) -> Callable[..., Any]:
    """``model.name`` called through the compiled module, each call counted in ``function.other_methods``."""
    def method(*args: Any, **kwargs: Any) -> Any:
        function.other_methods[name] = function.other_methods.get(name, 0) + 1
        with HIDDEN:
            return getattr(model, name)(*args, **kwargs)
    return functools.wraps(getattr(model, name))(method)


def _created_at(model: object) -> Optional[str]:
    """"ga.py:40": where the program called torch.compile on ``model``; for a closure, where its enclosing function
    was called (two closures of one decorator are told apart by it)."""
    frame: Optional[FrameType] = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    enclosing = getattr(model, "__qualname__", "").rpartition(".<locals>.")[0]
    if frame is not None and enclosing and enclosing.rpartition(".")[2] == frame.f_code.co_name and frame.f_back:
        frame = frame.f_back
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}" if frame else None


MAX_ARGUMENTS = 32  # arguments described per function


def _arguments(target: Optional[Callable[..., Any]], args: Arguments, kwargs: Keywords) -> Optional[list[JSON]]:
    """What a call passed, by parameter name: each argument's type ("tensor", "ndarray", "float", "int", "bool", or
    its class's name) and, for an array, its shape and strides in elements; None where the call cannot be bound to the
    function's signature (a builtin, a module whose forward is wrapped)."""
    try:
        bound = inspect.signature(target).bind(*args, **kwargs).arguments if target is not None else None
    except (TypeError, ValueError):
        bound = None
    if bound is None:
        return None
    return [_argument(name, value) for name, value in list(bound.items())[:MAX_ARGUMENTS]]


def _argument(name: str, value: object) -> JSON:
    """One argument's type, and an array's shape and strides (and a tensor's class, where it is not torch's)."""
    import torch
    numpy = sys.modules.get("numpy")  # an ndarray argument means the program imported it
    try:
        if isinstance(value, torch.Tensor):
            kind = type(value)  # a library's subclass (EvoTorch's ReadOnlyTensor): its class, where torch's is not
            subclass = {} if kind.__module__.split(".")[0] == "torch" else {
                "subclass": f"{kind.__module__}.{kind.__qualname__}"}
            return {"name": name, "type": "tensor", "shape": list(value.shape), "strides": list(value.stride()),
                    **subclass}
        if numpy is not None and isinstance(value, numpy.ndarray):
            return {"name": name, "type": "ndarray", "shape": list(value.shape),
                    "strides": [s // value.itemsize for s in value.strides] if value.itemsize else None}
    except Exception:  # a tensor without strides (sparse, nested): its type only
        pass
    kind = type(value)
    return {"name": name, "type": kind.__name__ if kind in (bool, int, float) else kind.__qualname__}


def _json_safe(value: object) -> object:
    """A JSON value of torch.compile's keywords: numbers, strings, lists and dicts of them, anything else its repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return repr(value)


def _nothing() -> None:
    pass


def _sync(args: Arguments) -> Callable[[], object]:
    """Wait for the GPU after a call whose arguments live there (CUDA is asynchronous), else nothing."""
    import torch
    if any(isinstance(a, torch.Tensor) and a.is_cuda for a in args):
        synchronize: Callable[[], object] = torch.cuda.synchronize
        return synchronize
    return _nothing

