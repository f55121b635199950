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
import os
import sys
from collections.abc import Callable, Iterator
from multiprocessing.process import BaseProcess
from typing import Any, Optional, TypedDict

from inspector.probe import ours_left_out_of_collections, replay, skip_last_collection
from inspector.probe.hotspots import Hotspots
from inspector.probe.function import Pass
from inspector.probe.messages import ProgramHeader, ProgramTarget, Writer
from inspector.probe.tracebacks import PACKAGE_DIR, print_error
from inspector.probe.tracking import Tracker
from inspector.raw import RawEnv

# why a child process's functions are not replayed
CHILD_NOT_REPLAYED = ("a child process's functions are not replayed (the replay runs in the program's own process, "
                      "after it)")


class ChildFacts(TypedDict):
    """A child process of the program as the record's ``program.children`` has it."""

    name: Optional[str]
    pid: Optional[int]
    start_method: str
    exit: Optional[int]


def main(argv: Optional[list[str]] = None) -> int:
    """Run the program (see the module docstring); its exit status."""
    p = argparse.ArgumentParser(prog="inspector.probe.program")
    p.add_argument("--results", required=True)
    p.add_argument("--trace-dir", help="torch's structured trace goes here (TORCH_TRACE, not left to the program)")
    p.add_argument("--no-trace", action="store_true", help="trace no call for the lines that ran as Python")
    p.add_argument("--no-profile", action="store_true", help="profile no call for its kernels' times")
    p.add_argument("--no-replay", action="store_true", help="replay no function eagerly and compiled afterwards")
    p.add_argument("--no-hotspots", action="store_true",
                   help="profile not where the program's time goes, and run no experiment on its hot functions")
    p.add_argument("--budget", type=float,
                   help="seconds of replay at most, and of the experiment's rounds (default: replay.budget)")
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
    skip_last_collection()
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
        with ours_left_out_of_collections():
            code = _run(args.target, args.args, args.module)
    finally:
        emit(tracker.end(code).but(children=[_child_facts(p) for p in children]))
        status.append(code)
    return code


def _follow_children(results: str, passes: dict[Pass, bool]) -> list[BaseProcess]:
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
    children: list[BaseProcess] = []

    def get_preparation_data(name: str) -> dict[str, object]:
        return dict(prepared(name), inspector=_ChildStart(start))

    def start_child(self: BaseProcess) -> None:
        started(self)
        children.append(self)
    spawn.get_preparation_data = get_preparation_data
    setattr(process.BaseProcess, "start", start_child)  # noqa: B010  (mypy: no assigning to a method)
    return children


class _ChildStart:
    """Unpickled in a spawned child, runs ``code`` there (before the child imports the program's main module)."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, object]]]:
        return exec, (self.code, {})


def _child_facts(p: BaseProcess) -> ChildFacts:
    """A child process's facts."""
    import multiprocessing
    method = getattr(p, "_start_method", None) or multiprocessing.get_start_method(allow_none=True) or "fork"
    code: Optional[int]
    try:
        code = p.exitcode
    except Exception:  # a process object of another interpreter's making
        code = None
    return {"name": p.name, "pid": p.pid, "start_method": method, "exit": code}


def child(results: str, trace: bool, profile: bool) -> None:
    """The probe of a spawned (or forkserver) child: tracks its torch.compile as ``main`` does the program's,
    follows its own children so, and writes a ``ProgramEnd`` with its process name to RESULTS.PID once the process's
    target has returned."""
    from multiprocessing import process
    emit = Writer(f"{results}.{os.getpid()}")
    skip_last_collection()
    tracker = Tracker(trace=trace, profile=profile)
    tracker.install()
    children = _follow_children(results, tracker.passes)  # its own children, as the program's
    bootstrap: Callable[..., int] = getattr(process.BaseProcess, "_bootstrap")  # noqa: B009  (not in typeshed)

    def _bootstrap(self: BaseProcess, *args: Any, **kwargs: Any) -> int:
        code = 1
        try:
            with ours_left_out_of_collections():
                code = bootstrap(self, *args, **kwargs)
        finally:
            emit(tracker.end(code).but(process=self.name, children=[_child_facts(p) for p in children]))
            emit(tracker.replayed(code, why=CHILD_NOT_REPLAYED))
            emit.close()
        return code
    setattr(process.BaseProcess, "_bootstrap", _bootstrap)  # noqa: B010


def _replay_last(tracker: Tracker, emit: Writer, status: list[int]) -> None:
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
def _environment_var(name: str, value: Optional[str]) -> Iterator[None]:
    """Set one environment variable inside the block (None: leave it), then put back what the program would see."""
    before = os.environ.get(name)
    if value is not None:
        os.environ[name] = value
    try:
        yield
    finally:
        if value is not None:
            os.environ.pop(name, None) if before is None else os.environ.update({name: before})


def _forget_bootstrap() -> None:
    """Take out of sys.path the folder the parent put first so that inspector imports in any interpreter (see
    ``inspector.collect.program``): the program sees the sys.path ``python PROGRAM`` gives it."""
    bootstrap = os.environ.pop("INSPECTOR_BOOTSTRAP", None)
    if bootstrap and bootstrap in sys.path:
        sys.path.remove(bootstrap)


def _file_of(target: str, module: bool) -> Optional[str]:
    """The program's file: the script's, or the module's that ``-m`` would run."""
    if not module:
        return os.path.abspath(target)
    import importlib.util
    try:
        spec = importlib.util.find_spec(target)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec else None


def _run(target: str, argv: list[str], module: bool) -> int:
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
        print_error()
        return 130
    except BaseException:  # the program's own error, shown as Python shows it
        print_error()
        return 1


def _run_script(path: str) -> None:
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


if __name__ == "__main__":
    sys.exit(main())
