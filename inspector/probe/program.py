"""Run a program as it is and record what torch.compile did to it (``inspector run``; stdlib, numpy and torch only).

Usage: python -m inspector.probe.program --results FILE [--module] TARGET [ARGS...]

The program runs in this process with its own stdout, stderr, sys.argv and exit status. Every callable it gives
to ``torch.compile`` (a function, a method, a module; called or as a decorator) is tracked: each call is timed,
what compiled during it is captured (graphs, breaks, the guard that failed), the first call that compiled nothing
is traced for the lines that ran as Python and the next one is profiled for its kernels' times (each bounded:
one call each). Compiles outside tracked calls are kept apart. JSON lines go to --results: a ``header`` first,
one ``program`` message at the end, however the program ends (normally, an exception, sys.exit, Ctrl-C).
"""

import argparse
import functools
import json
import os
import runpy
import sys
import time
import traceback

MAX_SAMPLES = 10_000  # steady calls' durations kept per function (their count and sum are always kept)


def main(argv=None):
    p = argparse.ArgumentParser(prog="inspector.probe.program")
    p.add_argument("--results", required=True)
    p.add_argument("--module", action="store_true", help="TARGET is a module name, run as python -m would")
    p.add_argument("target")
    p.add_argument("args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    out = open(args.results, "a", encoding="utf-8")

    def emit(obj):
        out.write(json.dumps(obj, default=str) + "\n")
        out.flush()

    # torch from here on
    emit(dict(header(args.target, args.module, _file_of(args.target, args.module), args.args), type="header"))
    tracker = Tracker()
    tracker.install()
    code = 1
    try:
        code = _run(args.target, args.args, args.module)
    finally:
        emit(dict(tracker.end(code), type="program"))
        out.close()
    return code


def header(target, module, file, argv):
    """The ``header`` message's facts: this interpreter's env and what runs (``inspector.api`` makes one too)."""
    from inspector.probe import runner
    return {"env": runner._env(), "program": {"target": target, "module": module, "file": file, "argv": argv}}


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
    sys.argv = [target, *argv]
    sys.path[0] = os.getcwd() if module else os.path.dirname(os.path.abspath(target))
    try:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(target, run_name="__main__")
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


def _print_error():
    """The traceback as Python would print it, without this module's and runpy's frames."""
    kind, error, tb = sys.exc_info()
    while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__, "<frozen runpy>"):
        tb = tb.tb_next
    traceback.print_exception(kind, error, tb)


class Tracker:
    """Wraps torch.compile so that every compiled callable reports its calls (see the module docstring), with a
    Capture of what compiles; ``install`` starts both and the run's clock, ``end`` gives the ``program`` message's
    facts, ``uninstall`` puts torch back (for the Python API, which tracks inside the user's own process)."""

    def __init__(self):
        from inspector.probe.capture import Capture
        self.capture, self.functions, self.depth, self.start = Capture(), [], 0, None

    def install(self):
        import torch
        self.capture.install()
        self.start = time.perf_counter()
        original = self.original = torch.compile

        @functools.wraps(original)
        def compile(model=None, **kwargs):
            if model is None:  # @torch.compile(mode=...): a decorator
                return lambda m: compile(m, **kwargs)
            return self.track(model, original(model, **kwargs))

        torch.compile = compile

    def uninstall(self):
        import torch
        torch.compile = self.original
        self.capture.uninstall()

    def end(self, status):
        """The run's end: its exit status, wall time, each tracked function's facts and what compiled outside."""
        return {"exit": status, "wall_s": time.perf_counter() - self.start, "functions": self.facts(),
                "outside": self.outside()}

    def track(self, model, compiled):
        """The compiled callable, reporting to a new Function (a module keeps its type; its forward reports)."""
        import torch
        code = getattr(getattr(model, "forward", model), "__code__", None) or getattr(model, "__code__", None)
        name = getattr(model, "__qualname__", None) or type(model).__name__
        function = Function(name, code, len(self.functions))
        self.functions.append(function)
        if isinstance(compiled, torch.nn.Module):
            forward = compiled.forward
            compiled.forward = lambda *args, **kwargs: self.call(function, forward, args, kwargs)
            return compiled

        @functools.wraps(model)
        def tracked(*args, **kwargs):
            return self.call(function, compiled, args, kwargs)
        return tracked

    def call(self, function, fn, args, kwargs):
        """One call of a tracked function: timed; what compiled during it is its own (the outermost call's)."""
        if self.depth:
            return fn(*args, **kwargs)
        self.depth += 1
        self.capture.take()  # compiled outside any tracked call: not this function's
        function.calls += 1
        sync = _sync(args)
        if sync is not _nothing:
            function.device = "cuda"
        mode = function.next_pass()
        start = time.perf_counter()
        try:
            if mode:
                return function.run_pass(mode, fn, args, kwargs, sync)
            return fn(*args, **kwargs)
        except Exception as e:
            function.error = f"{type(e).__name__}: {e}"
            raise
        finally:
            sync()
            function.record(time.perf_counter() - start, self.capture.take(), mode)
            self.depth -= 1

    def facts(self):
        return [f.facts() for f in self.functions]

    def outside(self):
        """What compiled outside tracked calls at the end (torch.compile given something we could not wrap, or
        torch._dynamo.optimize): graphs and breaks, kept apart."""
        rest = self.capture.take()
        return {"graphs": len(rest["graphs"]), "breaks": len(rest["breaks"])}


class Function:
    """What one compiled callable did over the run."""

    def __init__(self, name, code, index):
        self.name, self.index = name, index
        self.code = {"file": code.co_filename, "line": code.co_firstlineno, "name": code.co_name} if code else {}
        self.calls, self.total_s, self.first_s = 0, 0.0, None
        self.steady, self.steady_count, self.steady_sum = [], 0, 0.0
        self.capture, self.recompiles, self.compiles = None, {"graphs": [], "breaks": [], "limits": []}, []
        self.python_lines = self.kernel_times = self.error = None
        self.traced_call = self.profiled_call = None
        self.last_compiled = True
        self.device = "cpu"
        self.bounds = []

    def next_pass(self):
        """'trace' for the first call after one that compiled nothing, then 'profile' for the next; else None."""
        if self.last_compiled or self.calls < 2:
            return None
        if self.traced_call is None:
            return "trace"
        if self.profiled_call is None and self.graphs():
            return "profile"
        return None

    def graphs(self):
        return (self.capture or {}).get("graphs", []) + self.recompiles["graphs"]

    def run_pass(self, mode, fn, args, kwargs, sync):
        from inspector.probe import profile, runner
        box = []

        def call():
            box.append(fn(*args, **kwargs))
        if mode == "trace":
            self.traced_call = self.calls
            trace = runner._trace(call)
            self.python_lines = trace["lines"]
            if trace.get("cut_after_s"):
                self.bounds.append(f"the Python-line trace of call {self.calls} stopped after "
                                   f"{trace['cut_after_s']:.0f} s: lines that ran later are not marked as Python")
        else:
            self.profiled_call = self.calls
            typical = self.steady_sum / self.steady_count if self.steady_count else 1e-3
            self.kernel_times = profile.kernel_times(call, sync, self.graphs(), self.device, typical, max_calls=1)
        return box[0]

    def record(self, seconds, compiled, mode):
        """Account one call: its seconds and what compiled during it."""
        self.total_s += seconds
        new = bool(compiled["graphs"] or compiled["breaks"] or compiled["limits"])
        if self.calls == 1:
            self.first_s, self.capture = seconds, compiled
        elif new:
            if mode == "profile":  # it timed kernels that this call's new graphs replaced: profile a later call
                self.kernel_times = self.profiled_call = None
            elif mode == "trace":  # it traced a compiling call: trace a steady one later
                self.python_lines = self.traced_call = None
            for key in ("graphs", "breaks", "limits"):
                self.recompiles[key] += compiled[key]
            self.compiles.append({"call": self.calls, "seconds": seconds, "compile_ids": [
                g.get("compile_id") for g in compiled["graphs"]], "reasons": [
                (g.get("metrics") or {}).get("recompile_reason") for g in compiled["graphs"]
                if (g.get("metrics") or {}).get("recompile_reason")]})
        elif not mode:
            self.steady_count += 1
            self.steady_sum += seconds
            if len(self.steady) < MAX_SAMPLES:
                self.steady.append(seconds)
        self.last_compiled = new and self.calls > 1 or self.calls == 1

    def facts(self):
        """The raw facts of the record's ``variants`` entry for this function (see docs/record.md)."""
        steady = sorted(self.steady)
        timing = {"first_call_s": self.first_s, "median_s": steady[len(steady) // 2], "min_s": steady[0],
                  "max_s": steady[-1], "runs": self.steady_count, "number": 1,
                  "samples_s": [round(s, 9) for s in self.steady[:200]]} if steady else None
        return {"id": self.name, "function": self.name, "index": self.index, "code": self.code, "device": self.device,
                "calls": max(0, self.calls - 1), "capture": self.capture, "recompiles": self.recompiles,
                "timing": timing, "python_lines": self.python_lines, "kernel_times": self.kernel_times,
                "bounds": self.bounds, "error": self.error,
                "run": {"calls": self.calls, "total_s": self.total_s, "steady_calls": self.steady_count,
                        "steady_s": self.steady_sum, "compiles": self.compiles, "traced_call": self.traced_call,
                        "profiled_call": self.profiled_call}}


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
