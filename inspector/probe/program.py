"""Run a program as it is and record what torch.compile did to it (``inspector run``; stdlib, numpy and torch only).

Usage: python -m inspector.probe.program --results FILE [--trace-dir DIR] [--no-trace] [--no-profile] [--no-replay]
[--budget S] [--module] TARGET [ARGS...]

The program runs in this process as ``python TARGET ARGS`` would run it: its own ``__main__`` (``__file__``,
``__loader__``), sys.argv, sys.path[0], environment, stdout, stderr and exit status; inspector's frames are kept out
of the tracebacks it prints. Every callable it gives to ``torch.compile`` (a function, a method, a module; called or
as a decorator) is tracked: each call is timed with the stance torch ran it under, what compiled during it is
captured (graphs, breaks, the guard that failed), the first call after the first compile is traced for the lines
that ran as Python and the next one is profiled for its kernels' times (``--no-trace``, ``--no-profile``: neither).
After the program, each function is replayed eagerly and compiled on copies of one steady call's arguments
(``inspector.probe.replay``; ``--budget`` seconds, ``--no-replay``: not).
Compiles outside tracked calls are counted apart. Messages go to --results (``inspector.probe.messages``): a
``ProgramHeader`` first, one ``ProgramEnd`` at the end, however the program ends (normally, an exception, sys.exit,
Ctrl-C), and a ``ProgramReplay`` after the program's own atexit handlers.
"""

import argparse
import atexit
import contextlib
import functools
import importlib
import os
import re
import statistics
import sys
import time
import traceback

from inspector.probe import experiment, frames, replay
from inspector.probe.hotspots import Hotspots
from inspector.probe.messages import ProgramEnd, ProgramHeader, ProgramReplay, ProgramTarget, Writer
from inspector.raw import RawEnv, RawExperiment, RawHotspot, RawReplay, RawVariant
from inspector.record import compile_key

MAX_SAMPLES = 10_000  # per-call durations kept per function and kind (their count and sum are always kept)
MAX_FALLBACKS = 20  # eager fallbacks kept per function with their failed guard (all are counted)
MAX_KIND_RUNS = 200  # runs of consecutive calls of one kind kept per function (all calls are counted by kind)
GUARD_LOCAL = re.compile(r"L\['([^']+)'\]")  # a guard's frame local as torch's own messages name it: L['x'] -> x
EAGER_STANCES = ("force_eager",)  # torch.compiler.set_stance values under which no compiled code runs
MAX_UNTRACED = 8  # calls not traced because they would compile (or compiled as they were traced): then none is
PACKAGE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "")  # inspector's own files are under it
# why a child process's functions are not replayed
CHILD_NOT_REPLAYED = ("a child process's functions are not replayed (the replay runs in the program's own process, "
                      "after it)")
STARTERS = ("<string>", "<frozen runpy>")  # frames that start a program (``python -c``, ``-m``) besides inspector's


def main(argv=None):
    p = argparse.ArgumentParser(prog="inspector.probe.program")
    p.add_argument("--results", required=True)
    p.add_argument("--trace-dir", help="torch's structured trace goes here (TORCH_TRACE, not left to the program)")
    p.add_argument("--no-trace", action="store_true", help="trace no call for the lines that ran as Python")
    p.add_argument("--no-profile", action="store_true", help="profile no call for its kernels' times")
    p.add_argument("--no-replay", action="store_true", help="replay no function eagerly and compiled afterwards")
    p.add_argument("--no-hotspots", action="store_true",
                   help="profile not where the program's time goes, and run no experiment on its hot functions")
    p.add_argument("--budget", type=float, default=replay.DEFAULT_BUDGET_S,
                   help="seconds of replay at most, and of the experiment's rounds")
    p.add_argument("--module", action="store_true", help="TARGET is a module name, run as python -m would")
    p.add_argument("target")
    p.add_argument("args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    emit = Writer(args.results)
    with _environment_var("TORCH_TRACE", args.trace_dir):  # read once, when torch is imported
        emit(header(args.target, args.module, _file_of(args.target, args.module), args.args))
        tracker = Tracker(trace=not args.no_trace, profile=not args.no_profile,
                          replay=None if args.no_replay else replay.Replay(args.budget))
    _forget_bootstrap()
    status: list[int] = []  # the program's exit status, once it has ended
    atexit.register(_replay_last, tracker, emit, status)  # before the program's own: it runs after theirs
    tracker.install()
    if not args.no_hotspots:
        tracker.hotspots = Hotspots([os.getcwd() if args.module else os.path.dirname(os.path.abspath(args.target))],
                                    skip=tracker.by_key.__contains__)
        tracker.budget = args.budget
    children = _follow_children(args.results, tracker.passes)
    code = 1
    try:
        if tracker.hotspots:
            tracker.hotspots.install()
        code = _run(args.target, args.args, args.module)
    finally:
        emit(tracker.end(code).but(children=[_child_facts(p) for p in children]))
        status.append(code)
    return code


def _follow_children(results, passes):
    """The multiprocessing children the program starts (its Process objects, in order). Those started by spawn or
    forkserver (``torch.multiprocessing.spawn``'s are) run a probe of their own, started as the child reads its
    parent's preparation data (``multiprocessing.spawn.get_preparation_data``): it tracks their torch.compile as here
    and writes to RESULTS.PID; the program sees neither (no PYTHONPATH, the child's sys.path as multiprocessing sets
    it). A forked child is not followed (it shares this process's tracked state, and ends with os._exit)."""
    from multiprocessing import process, spawn
    root = os.path.dirname(PACKAGE_DIR.rstrip(os.sep))
    start = (f"import sys; sys.path.insert(0, {root!r}); from inspector.probe.program import child; "
             f"sys.path.remove({root!r}); child({results!r}, {passes['trace']!r}, {passes['profile']!r})")
    prepared, started = spawn.get_preparation_data, process.BaseProcess.start
    children = []

    def get_preparation_data(name):
        return dict(prepared(name), inspector=_ChildStart(start))

    def start_child(self):
        started(self)
        children.append(self)
    spawn.get_preparation_data, process.BaseProcess.start = get_preparation_data, start_child
    return children


class _ChildStart:
    """Unpickled in a spawned child, runs ``code`` there (before the child imports the program's main module)."""

    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return exec, (self.code, {})


def _child_facts(p):
    """A child process of the program as the record's ``program.children`` has it."""
    import multiprocessing
    method = getattr(p, "_start_method", None) or multiprocessing.get_start_method(allow_none=True) or "fork"
    try:
        code = p.exitcode
    except Exception:  # a process object of another interpreter's making
        code = None
    return {"name": p.name, "pid": p.pid, "start_method": method, "exit": code}


def child(results, trace, profile):
    """The probe of a spawned (or forkserver) child: tracks its torch.compile as ``main`` does the program's,
    follows its own children so, and writes a ``ProgramEnd`` with its process name to RESULTS.PID once the process's
    target has returned."""
    from multiprocessing import process
    emit = Writer(f"{results}.{os.getpid()}")
    tracker = Tracker(trace=trace, profile=profile)
    tracker.install()
    children = _follow_children(results, tracker.passes)  # its own children, as the program's
    bootstrap = process.BaseProcess._bootstrap

    def _bootstrap(self, *args, **kwargs):
        code = 1
        try:
            code = bootstrap(self, *args, **kwargs)
        finally:
            emit(tracker.end(code).but(process=self.name, children=[_child_facts(p) for p in children]))
            emit(tracker.replayed(code, why=CHILD_NOT_REPLAYED))
            emit.close()
        return code
    process.BaseProcess._bootstrap = _bootstrap


def _replay_last(tracker, emit, status):
    """At the interpreter's exit, after the program's own atexit handlers (so nothing it sees changes): the replay's
    ``ProgramReplay`` message, then the results file closed."""
    try:
        if status:
            emit(tracker.replayed(status[0]))
    finally:
        emit.close()


def header(target: str, module: bool, file: str | None, argv: list[str], measure_bandwidth: bool = True
           ) -> ProgramHeader:
    """The first message: this interpreter's env and what runs (``inspector.api`` makes one too); the machine's
    memory bandwidth measured once per machine (else only a cached figure)."""
    from inspector.probe import profile, runner
    env = runner._env()
    env["memory_bandwidth"] = profile.bandwidth(env["cpu"], env["threads"], measure_now=measure_bandwidth)
    return ProgramHeader(env=RawEnv.from_json(env),
                         program=ProgramTarget(target=target, module=module, file=file, argv=argv))


@contextlib.contextmanager
def _environment_var(name, value):
    """Set one environment variable inside the block (None: leave it), then put back what the program would see."""
    before = os.environ.get(name)
    if value is not None:
        os.environ[name] = value
    try:
        yield
    finally:
        if value is not None:
            os.environ.pop(name, None) if before is None else os.environ.update({name: before})


def _forget_bootstrap():
    """Take out of sys.path the folder the parent put first so that inspector imports in any interpreter (see
    ``inspector.collect.program``): the program sees the sys.path ``python PROGRAM`` gives it."""
    bootstrap = os.environ.pop("INSPECTOR_BOOTSTRAP", None)
    if bootstrap and bootstrap in sys.path:
        sys.path.remove(bootstrap)


def _file_of(target, module):
    if not module:
        return os.path.abspath(target)
    import importlib.util
    try:
        spec = importlib.util.find_spec(target)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec else None


def _run(target, argv, module):
    """Run the program as ``python TARGET ARGS`` (or ``-m``) would; its exit status."""
    import runpy
    sys.argv = [target, *argv]
    sys.path[0] = os.getcwd() if module else os.path.dirname(os.path.abspath(target))
    try:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            _run_script(os.path.abspath(target))
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        _print_error()
        return 130
    except BaseException:  # the program's own error, shown as Python shows it
        _print_error()
        return 1


def _run_script(path):
    """Execute a script as the ``__main__`` module, as ``python PATH`` does: an absolute ``__file__``, a source
    loader, no spec, and the module registered in sys.modules (pickle and multiprocessing look it up)."""
    import importlib.machinery
    import types
    main = types.ModuleType("__main__")
    loader = importlib.machinery.SourceFileLoader("__main__", path)
    main.__dict__.update(__file__=path, __loader__=loader, __spec__=None, __package__=None, __cached__=None,
                         __builtins__=__builtins__)
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    previous = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if previous is not None:
            sys.modules["__main__"] = previous


def _print_error():
    """The traceback as Python would print it, without inspector's and runpy's frames."""
    kind, error, tb = sys.exc_info()
    traceback.print_exception(kind, _without_inspector(error), _trimmed(tb))


def _without_inspector(error, seen=None):
    """``error`` and the exceptions it was chained to, their tracebacks without inspector's frames."""
    seen = seen if seen is not None else set()
    if error is None or id(error) in seen:
        return error
    seen.add(id(error))
    error.__traceback__ = _trimmed(error.__traceback__)
    _without_inspector(error.__cause__, seen)
    _without_inspector(error.__context__, seen)
    return error


def _trimmed(tb):
    """A traceback relinked without inspector's frames and runpy's."""
    import runpy
    starters = (runpy.__file__, "<frozen runpy>")
    return _relinked(tb, lambda code: not _ours(code.co_filename) and code.co_filename not in starters)


def _relinked(tb, keep):
    """The traceback ``tb`` relinked through the entries whose frame's code ``keep`` keeps."""
    kept = []
    while tb is not None:
        if keep(tb.tb_frame.f_code):
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:]):
        a.tb_next = b
    if kept:
        kept[-1].tb_next = None
    return kept[0] if kept else None


def _ours(filename):
    return filename.startswith(PACKAGE_DIR)


def _hide(error):
    """Take inspector's frames out of ``error``'s traceback as it leaves one of inspector's wrappers, which then
    re-raises it with a bare ``raise`` (which adds no frame): the program's tracebacks (``unittest``'s, its own
    ``except``) show its frames and torch's, as the bare run's do."""
    error.__traceback__ = _relinked(error.__traceback__, lambda code: not _ours(code.co_filename))


def _fails(manager, part, frame_locals):
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


class _Hidden:
    """``with HIDDEN:`` around a wrapper's call: an error leaving it has inspector's frames taken out (``_hide``)."""

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if error is not None:
            _hide(error)
        return False


HIDDEN = _Hidden()


def _user_frames(stack):
    """A live stack (``traceback.FrameSummary``s, outermost first) without inspector's frames: those that started
    the program (``python -c`` of the parent, ``main``, ``runpy``'s) and its wrappers around compiled calls."""
    import runpy
    starters = (*STARTERS, runpy.__file__)
    lead = 0
    while lead < len(stack) and (stack[lead].filename in starters or _ours(stack[lead].filename)):
        lead += 1
    if not any(_ours(f.filename) for f in stack[:lead]):
        lead = 0
    return [f for f in stack[lead:] if not _ours(f.filename)]


def _hide_from_torch_stacks(restore):
    """torch's "User code traceback" of graph-break messages (the program may log them itself) is the live stack
    that ``torch._dynamo.exc.filter_stack`` cleans of torch's frames: clean it of inspector's too."""
    import traceback as tb
    try:
        from torch._dynamo import exc
    except ImportError:
        return
    original = getattr(exc, "filter_stack", None)
    if original is None:
        return
    restore.append((exc, "filter_stack", original))
    exc.filter_stack = lambda stack: tb.StackSummary.from_list(_user_frames(list(original(stack))))


class Tracker:
    """Wraps torch.compile so that every compiled callable reports its calls (see the module docstring), with a
    Capture of what compiles; ``install`` starts both and the run's clock, ``end`` gives the ``program`` message's
    facts, ``uninstall`` puts torch back (for the Python API, which tracks inside the user's own process)."""

    def __init__(self, trace=True, profile=True, replay=None):
        from inspector.probe.capture import Capture
        for name in ("load", "profile", "runner", "timing"):  # the passes' modules, while inspector is on sys.path
            importlib.import_module(f"inspector.probe.{name}")  # (the program runs without it: _forget_bootstrap)
        self.capture, self.functions, self.start = Capture(), [], None
        self.active = []  # the tracked calls running now, outermost first
        self.by_key, self.frames = {}, {}  # {code object or module: Function}; {torch's frame id: Function or None}
        self.passes = {"trace": trace, "profile": profile}
        self.outside_counts = {"graphs": 0, "breaks": 0}
        self.restore = []  # (object, attribute, value) of torch's that install replaced
        self.replay = replay  # a probe.replay.Replay: copies of one steady call's arguments per function, or None
        self.hotspots = None  # a probe.hotspots.Hotspots: where the program's own time goes, or None
        self.order: list[str] = []  # the hot functions, the most time first
        self.budget = replay.budget_s if replay else 0.0

    def install(self):
        import torch
        self.capture.install()
        self.start = time.perf_counter()
        self.cuda = torch.cuda.is_available()
        self.eval_frame = torch._dynamo.eval_frame  # its _stance: the torch.compiler.set_stance in force
        original = self.original = torch.compile
        self._set_eval_frame = getattr(torch._C._dynamo.eval_frame, "set_eval_frame", None)

        @functools.wraps(original)
        def compile(model=None, **kwargs):
            if model is None:  # @torch.compile(mode=...): a decorator
                return lambda m: compile(m, **kwargs)
            return self.track(model, original(model, **kwargs), _created_at(model), kwargs)

        torch.compile = compile
        _skip_frame(Tracker.call.__code__)
        _hide_from_torch_stacks(self.restore)

    def uninstall(self):
        import torch
        torch.compile = self.original
        self.capture.uninstall()
        for target, name, value in reversed(self.restore):
            setattr(target, name, value)
        self.restore.clear()

    def end(self, status: int) -> ProgramEnd:
        """The last message: the exit status, wall time, each tracked function's facts and what compiled outside."""
        wall_s = time.perf_counter() - self.start
        hot = None
        if self.hotspots:
            self.hotspots.stop()
            hot = self.hotspots.facts(wall_s)
            self.order = [h["id"] for h in hot if (h["share"] or 0) >= experiment.MIN_SHARE]
        self._outside(self.capture.take())
        return ProgramEnd(exit=status, wall_s=wall_s, outside=dict(self.outside_counts),
                          functions=[RawVariant.from_json(f.facts()) for f in self.functions],
                          hotspots=[RawHotspot.from_json(h) for h in hot] if hot is not None else None,
                          profile_problems=(self.hotspots.problems or None) if self.hotspots else None)

    def replayed(self, status: int, why: str | None = None) -> ProgramReplay:
        """Each called function's replay facts (its ``run.replay``), replayed now that the program has finished (not
        after Ctrl-C); without replay, why not (``why``: not replayed, and why)."""
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
            found = experiment.run(self.hotspots.rounds(), self.order, self.original, self.budget, self.capture)
        finally:
            self.active = active
        return {fid: RawExperiment.from_json(facts) for fid, facts in found.items()}

    def track(self, model, compiled, created=None, options=None):
        """The compiled callable, reporting to a new Function (a module keeps its type; its forward reports)."""
        import torch
        function = self._function(model, created)
        function.options = _json_safe(options)
        if isinstance(compiled, torch.nn.Module):
            forward = compiled.forward

            def tracked_forward(*args, **kwargs):
                with HIDDEN:
                    return self.call(function, forward, args, kwargs)
            compiled.forward = tracked_forward
            _skip_frame(tracked_forward.__code__)
            for method in _own_methods(model):
                compiled.__dict__[method] = _counted(function, model, method)  # not the original's (__setattr__)
            return compiled

        @functools.wraps(model)
        def tracked(*args, **kwargs):
            __tracebackhide__ = True  # noqa: F841  (IPython, pytest: not the user's frame)
            with HIDDEN:
                return self.call(function, compiled, args, kwargs)
        for attribute in ("_torchdynamo_orig_callable", "_torchdynamo_inline"):  # Dynamo inlines it as before
            if hasattr(compiled, attribute):
                setattr(tracked, attribute, getattr(compiled, attribute))
        _skip_frame(tracked.__code__)
        return tracked

    def _function(self, model, created):
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

    def _name(self, function):
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

    def call(self, function, fn, args, kwargs):
        """One call of a tracked function: timed with its stance and classed as torch ran it; what compiled during it
        goes to the functions whose frames torch compiled (``_settle``), Dynamo's frame callback kept off inspector's
        own frames meanwhile."""
        __tracebackhide__ = True  # noqa: F841
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
        eager = function.runs_eagerly(stance, args, kwargs) if stance not in (None, "default") or function.limited \
            else False
        sync = _sync(args) if self.cuda else _nothing
        if sync is not _nothing:
            function.device = "cuda"
        mode = None if eager or nested else function.next_pass(self.passes, args, kwargs)
        copied = self.replay.before(function, fn, args, kwargs) if self.replay and not (mode or eager) else None
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
            _hide(e)
            raise
        finally:
            if self._set_eval_frame:
                self._set_eval_frame(None)
            sync()
            seconds = time.perf_counter() - start
            self._settle()
            self.active.pop()
            function.record(seconds, function.pending or EMPTY, mode, stance, eager)
            function.pending = None
            if copied:
                self.replay.after(copied)
            if self._set_eval_frame:
                self._set_eval_frame(dynamo)

    def _settle(self):
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

    def _frame_owner(self, compile_id, code):
        frame = (compile_key(compile_id) or (None,))[0]
        if code is not None:
            found = frames.owner(code, self.functions)
            if frame is not None:
                self.frames[frame] = found
        else:
            found = self.frames.get(frame)
        return found or (self.active[-1] if self.active else None)

    def _limit_owner(self, text):
        code = frames.limit_code(text)
        found = frames.owner(code, self.functions) if code else None
        if found is not None and code == frames.code_of(found.code_object):
            found.limited = True  # torch runs this frame with what it cached from now on
        return found or (self.active[-1] if self.active else None)

    def _outside(self, taken):
        for key in self.outside_counts:
            self.outside_counts[key] += len(taken[key])


EMPTY = {"graphs": [], "breaks": [], "limits": []}


def _merged(into, piece):
    """Two takes of a capture as one (``into`` None: ``piece``)."""
    if into is None:
        return piece
    for key in frames.PARTS:
        into[key] = into.get(key, []) + piece.get(key, [])
    return into


def _skip_frame(code):
    """Keep Dynamo from compiling one of inspector's frames (it runs them with what they call still compiled)."""
    try:
        from torch._dynamo.eval_frame import skip_code
        skip_code(code)
    except (ImportError, AttributeError):  # another torch: its frame may be traced as the program's
        pass


def _own_methods(model):
    """The methods a module's own classes define besides ``forward`` (torch.nn.Module's and dunders left out): the
    compiled module's attribute lookup reaches them on the original module, uncompiled."""
    import types

    import torch
    base = set(dir(torch.nn.Module))
    return sorted({name for cls in type(model).__mro__ if not issubclass(torch.nn.Module, cls)
                   for name, value in vars(cls).items()
                   if isinstance(value, types.FunctionType) and name not in base and not name.startswith("__")})


def _counted(function, model, name):
    """``model.name`` called through the compiled module, each call counted in ``function.other_methods``."""
    def method(*args, **kwargs):
        function.other_methods[name] = function.other_methods.get(name, 0) + 1
        with HIDDEN:
            return getattr(model, name)(*args, **kwargs)
    return functools.wraps(getattr(model, name))(method)


def _created_at(model):
    """"ga.py:40": where the program called torch.compile on ``model``; for a closure, where its enclosing function
    was called (two closures of one decorator are told apart by it)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    enclosing = getattr(model, "__qualname__", "").rpartition(".<locals>.")[0]
    if frame is not None and enclosing and enclosing.rpartition(".")[2] == frame.f_code.co_name and frame.f_back:
        frame = frame.f_back
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}" if frame else None


class Function:
    """What one compiled callable did over the run."""

    def __init__(self, name, code, index, created=None, target=None):
        self.id = self.name = name
        self.index, self.created = index, created
        self.code = {"file": code.co_filename, "line": code.co_firstlineno, "name": code.co_name,
                     "end_line": max((line for *_, line in code.co_lines() if line), default=code.co_firstlineno)
                     } if code else {}
        self.code_object, self.target = code, target
        self.defined = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code else created
        self.wrappers, self.model, self.limited, self.pending = 1, None, False, None
        self.kinds, self.kind_counts = [], {}  # how torch ran each call (see _classify)
        self.inside = {}  # {function id: this function's calls made inside that function's calls}
        self.entry = None  # the compile id of the cached entry whose guards held, where they were checked
        self.signature = False  # not looked up yet (only eager_on_recompile needs it)
        self.calls, self.total_s, self.first_s, self.compiled_at = 0, 0.0, None, None
        self.steady, self.eager = Durations(), Durations()  # calls of compiled code that compiled nothing; eager ones
        self.capture, self.recompiles = None, {key: [] for key in LATER}
        self.compiles, self.fallbacks, self.fallback_count, self.stances = [], [], 0, []
        self.python_lines = self.kernel_times = self.error = self.error_call = None
        self.traced_call = self.profiled_call = None
        self.untraced, self.untraced_count = [], 0  # calls not traced: [{"call", "why", "guard"}] (the first kept)
        self.other_methods = {}  # {method: calls} of a compiled module's methods other than forward (uncompiled)
        self.device = "cpu"
        self.bounds = []
        self.options = self.arguments = None  # torch.compile's keywords; the first call's arguments

    def runs_eagerly(self, stance, args, kwargs):
        """Whether torch runs this call without compiled code: under ``force_eager``; or, under
        ``eager_on_recompile`` or once its frame hit the recompile limit (torch then runs only what it cached),
        when no compiled entry's guards hold for these arguments (then the failed guard is kept); None where it
        cannot be told."""
        if stance in EAGER_STANCES:
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

    def _failed_guard(self, args, kwargs):
        """The first failed guard of each of torch's cached entries for this code ("" when one holds: its compile id
        is kept in ``entry``), or None."""
        try:
            import inspect
            from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list
            if self.signature is False:
                self.signature = inspect.signature(self.target) if self.target else None
            if self.signature is None:
                return None
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            frame_locals = dict(bound.arguments)
            owner = getattr(self.target, "__self__", None)  # a bound method's (a module's forward): its self
            if owner is not None and self.code_object.co_varnames:
                frame_locals.setdefault(self.code_object.co_varnames[0], owner)
            failures, self.entry = [], None
            for entry in _debug_get_cache_entry_list(self.code_object):
                result = entry.guard_manager.check_verbose(frame_locals)
                if result.result:
                    self.entry = str(getattr(entry, "compile_id", "")) or None
                    return ""
                parts = list(result.verbose_code_parts)[:1]
                if any(part.startswith("KeyError") for part in parts):  # a name not among the arguments (a closure's
                    return None  # cell, a global torch reads from the frame): it cannot be told from here
                if not all(_fails(entry.guard_manager, part, frame_locals) for part in parts):
                    return None
                failures += [GUARD_LOCAL.sub(r"\1", part) for part in parts]
            return "; ".join(failures) or "no compiled entry"
        except Exception:  # another torch's internals: say it cannot be told
            return None

    def next_pass(self, enabled, args, kwargs):
        """'trace' for the first call after the function first compiled that will not compile (a guard of its cached
        entries holds, or that cannot be told: then the trace stops if it compiles), then 'profile' for the next
        such call; else None. A call that would compile gets no pass: its compile would run under the pass."""
        if not self.capture or not self.capture.get("graphs"):
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

    def graphs(self):
        return (self.capture or {}).get("graphs", []) + self.recompiles["graphs"]

    def _untraced(self, why, guard=None):
        """Keep a call that was not traced: "recompile" (a guard failed: it would compile), "limit" (every guard
        failed past the recompile limit: it runs eagerly), "compiled" (it compiled as it was traced: the trace was
        stopped when the compile began)."""
        self.untraced_count += 1
        if len(self.untraced) < MAX_UNTRACED:
            self.untraced.append({"call": self.calls, "why": why, "guard": guard})

    def run_pass(self, mode, fn, args, kwargs, sync, capture):
        from inspector.probe import profile, runner
        box = []

        def call():
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

    def record(self, seconds, compiled, mode, stance, eager, counted=True):
        """Account one call: its seconds, what compiled during it (a frame's first compile, or a recompile: another
        compile of a frame torch had compiled before), how torch ran it (``_classify``) and the stance it ran under;
        ``counted`` False: no call of this function, its frame compiled inside another function's call."""
        if counted:
            self.total_s += seconds
        if counted and not (compiled is not EMPTY or mode or eager) and self.capture is not None:  # a steady call
            self.steady.add(seconds)
            kind, ids = "cached" if eager is False else "unknown", []
        else:
            if counted and self.calls == 1:
                self.first_s = seconds
            kind, ids = self._ran(seconds, compiled, mode, eager, counted)
        if counted:
            self._classify(kind, ids)
            self._note_stance(stance, None if kind == "unknown" else kind in ("eager", "limit"))

    def _ran(self, seconds, compiled, mode, eager, counted):
        """(how torch ran a call that compiled, ran eagerly or ran an inspector pass, its compile ids)."""
        if compiled is not EMPTY:
            kind = self._compiled(seconds, compiled, mode, counted)
            if kind == "limit":  # Dynamo gave up on the frame: this call ran it eagerly
                self.eager.add(seconds)
            return kind, [g.get("compile_id") for g in compiled["graphs"]]
        if eager or self.capture is None:  # no compiled code ran
            self.eager.add(seconds)
            return "eager", []
        return "cached" if eager is False else "unknown", []  # an inspector pass ran on compiled code

    def _compiled(self, seconds, compiled, mode, counted):
        """Keep what a call compiled; its kind: first (frames compiled for their first time), recompile, or limit
        (torch hit its recompile limit and ran the frame eagerly)."""
        if mode == "profile":  # it timed kernels that this call's new graphs replaced: profile a later call
            self.kernel_times = self.profiled_call = None
        elif mode == "trace":  # it traced a compiling call (stopped as the compile began): trace a later one
            self.python_lines = self.traced_call = None
            self._untraced("compiled")
        ids = {compile_key(x.get("compile_id")) for x in compiled["graphs"] + compiled["breaks"]}
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

    def _classify(self, kind, compile_ids=()):
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
            self.kinds.append({"first": self.calls, "last": self.calls, "kind": kind,
                               **({"compile_ids": list(compile_ids)} if compile_ids else {}),
                               **({"entry": entry} if entry else {})})

    def _note_stance(self, stance, eager):
        """Extend the run of calls made under one stance (and eagerly or not), or start a new one."""
        last = self.stances[-1] if self.stances else None
        if last and last["stance"] == stance and last["eager"] == eager:
            last["last"] = self.calls
        else:
            self.stances.append({"first": self.calls, "last": self.calls, "stance": stance, "eager": eager})

    def facts(self):
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
EMPTY_CAPTURE = {"mechanism": None, "graphs": [], "breaks": [], "problems": [], "records": 0, "limits": []}


class Durations:
    """The seconds of one kind of call: all counted and summed, the first MAX_SAMPLES kept."""

    def __init__(self):
        self.kept, self.count, self.sum = [], 0, 0.0

    def add(self, seconds):
        self.count += 1
        self.sum += seconds
        if len(self.kept) < MAX_SAMPLES:
            self.kept.append(seconds)

    def timing(self, first_s=None):
        """A timing entry of the kept calls (None without any)."""
        if not self.kept:
            return None
        ordered = sorted(self.kept)
        return {"first_call_s": first_s, "median_s": statistics.median(ordered), "min_s": ordered[0],
                "max_s": ordered[-1], "runs": self.count, "number": 1,
                "samples_s": [round(s, 9) for s in self.kept[:200]]}


MAX_ARGUMENTS = 32  # arguments described per function


def _arguments(target, args, kwargs):
    """What a call passed, by parameter name: each argument's type ("tensor", "ndarray", "float", "int", "bool", or
    its class's name) and, for an array, its shape and strides in elements; None where the call cannot be bound to the
    function's signature (a builtin, a module whose forward is wrapped)."""
    import inspect
    try:
        bound = inspect.signature(target).bind(*args, **kwargs).arguments if target is not None else None
    except (TypeError, ValueError):
        bound = None
    if bound is None:
        return None
    return [_argument(name, value) for name, value in list(bound.items())[:MAX_ARGUMENTS]]


def _argument(name, value):
    import torch
    numpy = sys.modules.get("numpy")  # an ndarray argument means the program imported it
    try:
        if isinstance(value, torch.Tensor):
            return {"name": name, "type": "tensor", "shape": list(value.shape), "strides": list(value.stride())}
        if numpy is not None and isinstance(value, numpy.ndarray):
            return {"name": name, "type": "ndarray", "shape": list(value.shape),
                    "strides": [s // value.itemsize for s in value.strides] if value.itemsize else None}
    except Exception:  # a tensor without strides (sparse, nested): its type only
        pass
    kind = type(value)
    return {"name": name, "type": kind.__name__ if kind in (bool, int, float) else kind.__qualname__}


def _json_safe(value):
    """A JSON value of torch.compile's keywords: numbers, strings, lists and dicts of them, anything else its repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return repr(value)


def _nothing():
    pass


def _sync(args):
    """Wait for the GPU after a call whose arguments live there (CUDA is asynchronous), else nothing."""
    import torch
    if any(isinstance(a, torch.Tensor) and a.is_cuda for a in args):
        return torch.cuda.synchronize
    return _nothing


if __name__ == "__main__":
    sys.exit(main())
