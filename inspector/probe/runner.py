"""Run a validated sample's variants in this interpreter: torch from here on (see inspector.probe.__main__)."""

from __future__ import annotations

import argparse
import fnmatch
import os
import platform
import re
import statistics
import sys
import sysconfig
import time
import traceback
from types import FrameType, ModuleType
from typing import Any, Callable, Optional

import numpy as np
import torch
import torch._inductor.codecache
import torch._inductor.config  # `import torch` alone does not load it in 2.1

from inspector.probe import cuda
from inspector.probe import guard
from inspector.probe import load
from inspector.probe import profile
from inspector.probe import rewritten
from inspector.probe import rounds
from inspector.probe import sample as samples
from inspector.probe import trials
from inspector.probe import unroll
from inspector.probe import triton_preview
from inspector.probe.capture import Capture
from inspector.probe.messages import (Compiled, Fatal, Header, Message, RewriteTrial, Start, Trial, TrialAnswer,
                                      VariantResult)
from inspector.probe.rounds import Timed
from inspector.probe.timing import MIN_RUNS, measure, once
from inspector.raw import JSON, RawCapture, RawEnv, RawSample, RawVariant

INSPECTOR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PYTHON_PILOT = 1000
TRACE_LIMIT_S = 10.0  # the Python-line trace of one call stops recording after this long
SIZE_CALLS = 5  # steady calls at a further population size (their median)
MAX_PROFILED_GRAPH_CALLS = 5000  # compiled graph calls a profiled pass may record (each makes several events)
COMPILE_OPTIONS = ("mode", "dynamic", "fullgraph", "backend", "options")
Ran = tuple[JSON, Optional[tuple[np.ndarray, Timed]]]  # a variant's raw result; its output and (call, sync), or None
Prepared = tuple[Callable[..., Any], Callable[[np.ndarray], Any], Callable[[], object]]  # see prepare


def run(module: ModuleType, info: JSON, variants: list[samples.Variant], population: np.ndarray,
        args: argparse.Namespace, emit: Callable[[Message], None], make_population: Callable[[int], np.ndarray]
        ) -> int:
    """Apply the --config items, send the header, then run and send each selected variant."""
    try:
        applied = configure(args)
    except samples.SampleError as e:
        emit(Fatal(error=str(e)))
        return 3
    env = _env()
    env["memory_bandwidth"] = profile.bandwidth(env["cpu"], env["threads"])
    emit(Header(env=RawEnv.from_json(env), config=applied, compile_options=args.compile_options,
                sample=RawSample.from_json(dict(info, file=os.path.abspath(args.sample), population=len(population),
                                                seed=args.seed, shape=list(population.shape),
                                                dtype=str(population.dtype))),
                variants=[RawVariant.from_json(v.__dict__) for v in variants]))
    capture = Capture()
    capture.install()
    timed: dict[str, Timed] = {}  # variant id -> (call, sync), for the rounds
    for variant in selected(variants, args.only):
        emit(Start(id=variant.id, time=time.time()))
        fn = getattr(module, variant.function)
        own_peak = load.reset_peak_memory()
        result, kept = _run(variant, fn, population, capture, args, make_population, emit)
        result["peak_memory"] = {"bytes": load.peak_memory(), "since": "variant" if own_peak else "probe start"}
        if kept is not None:
            np_out, timed[variant.id] = kept
            np.save(os.path.join(args.outputs, variant.id + ".npy"), np_out)
        emit(VariantResult.from_json(dict(variant.__dict__, **result)))
    if args.rounds or args.trials:
        ran = {k: v for k, v in timed.items() if v}
        compiled = {v.id for v in variants if v.compiled} if args.rounds else ()
        warmed = {k: ran[k] for k in compiled if k in ran}
        rounds.serve(dict(ran), emit, compiled, trial=lambda spec: _trial(spec, module, variants, population, capture,
                                                                         args, warmed, make_population))
    return 0


def _trial(spec: Trial, module: Any, variants: list[samples.Variant], population: np.ndarray, capture: Capture,
           args: Any, warmed: dict[str, Timed], make_population: Callable[[int], np.ndarray]
           ) -> tuple[TrialAnswer, Optional[Timed]]:
    """Try one fix on a variant that ran (``inspector.probe.trials``), or run a rewrite of it
    (``inspector.probe.rewritten``): (its answer, (call, sync) for the rounds or None). After a trial run alone,
    the ``warmed`` variants compile again, so that the rounds time their own code."""
    variant = next(v for v in variants if v.id == spec.variant)
    fn, checked = getattr(module, variant.function), None

    def at_sizes(target: Callable[..., Any], convert: Callable[[np.ndarray], Any],
                 sync: Callable[[], Any]) -> list[dict[str, Any]]:
        return [_at_size(guard.user(target), convert(make_population(n)), sync, capture, n) for n in spec.sizes or []]
    try:
        skipped = None
        if isinstance(spec, RewriteTrial):
            variant, fn, checked, skipped = rewritten.prepared(spec, module, variant, args.sample, population)
        result, again = ({"status": "skipped", "error": skipped}, None) if skipped else trials.run(
            spec, variant, fn, population, capture, args.outputs, args.compile_options, args.budget, prepare,
            _to_numpy, at_sizes)
    except Exception as e:  # inspector's own code failed: the trial says so, the variants go on
        result, again = {"status": "error", "error": f"inspector failed: {type(e).__name__}: {e}",
                         "internal_errors": [guard.internal("trial", e)]}, None
    if result.get("alone"):
        torch._dynamo.reset()
        for call, sync in warmed.values():
            rounds.warm(call, sync)
    return TrialAnswer.from_json(dict(result, id=spec.id, **({"check": checked} if checked else {}))), again


def selected(variants: list[samples.Variant], only: Optional[str]) -> list[samples.Variant]:
    """The variants --only names (comma-separated ids or glob patterns; None: all)."""
    patterns = only.split(",") if only else ["*"]
    return [v for v in variants if any(fnmatch.fnmatchcase(v.id, p) for p in patterns)]


def configure(args: argparse.Namespace) -> list[JSON]:
    """Apply the --config items (those applied, as the header says them) and read the --compile-option items into
    ``args.compile_options``; a SampleError names a bad one."""
    applied = [_apply_config(item) for item in args.config]
    args.compile_options = dict(_compile_option(item) for item in args.compile_option)
    return applied


def _compile_option(item: str) -> tuple[str, Any]:
    """(keyword, value) of torch.compile from KEY=VALUE (the value read as a Python literal where it is one)."""
    key, sep, raw = item.partition("=")
    if not sep or key not in COMPILE_OPTIONS:
        raise samples.SampleError(f"--compile-option {item}: expected KEY=VALUE, KEY one of "
                                  f"{', '.join(COMPILE_OPTIONS)}")
    return key, trials.literal(raw)


def _apply_config(item: str) -> JSON:
    """Set an Inductor (default) or Dynamo (``dynamo.`` prefix) config value from KEY=VALUE."""
    key, sep, raw = item.partition("=")
    if not sep:
        raise samples.SampleError(f"--config {item}: expected KEY=VALUE")
    value = trials.literal(raw)
    root: Any = torch._inductor.config  # torch's config modules
    path = key
    for prefix, module in (("dynamo.", torch._dynamo.config), ("inductor.", torch._inductor.config)):
        if key.startswith(prefix):
            root, path = module, key[len(prefix):]
    *parents, leaf = path.split(".")
    target = root
    try:
        for part in parents:
            target = getattr(target, part)
        getattr(target, leaf)
    except AttributeError:
        raise samples.SampleError(f"--config {key}: no such torch config option") from None
    setattr(target, leaf, value)
    return {"key": key, "value": value}


def _env() -> JSON:
    """This interpreter, torch and the machine, as the record's ``env``."""
    cuda = torch.cuda.is_available()
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    isa = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", lambda: None)()
    return {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__,
            "threads": torch.get_num_threads(), "cuda": torch.cuda.get_device_name() if cuda else None,
            "cpu": cpu, "isa": isa, "platform": platform.platform(), "executable": sys.executable,
            "cpu_count": os.cpu_count(), "min_chunk_size": torch._inductor.config.cpp.min_chunk_size,
            "loadavg": load.snapshot()["loadavg"],  # before any variant ran
            "stdlib": sysconfig.get_paths()["stdlib"], "torch_dir": os.path.dirname(torch.__file__),
            "inspector_dir": INSPECTOR_DIR, "numba": rewritten.numba_version(),
            "inductor_cache_dir": torch._inductor.codecache.cache_dir()}


def _run(variant: samples.Variant, fn: Callable[..., Any], population: np.ndarray, capture: Capture,
         args: argparse.Namespace, make_population: Callable[[int], np.ndarray], emit: Callable[[Message], None]
         ) -> Ran:
    """Run and time one variant: (its raw result, which goes on the wire; where it ran, (its output as an ndarray to
    save, the (call, sync) that the rounds time again), else None). In-process values never sit in the result."""
    if variant.device == "cuda" and not torch.cuda.is_available():
        return {"status": "skipped", "error": "CUDA is not available (torch.cuda.is_available() is False)"}, None
    if variant.device == "cuda" and variant.kind == "numpy" and not hasattr(torch.compiler, "wrap_numpy"):
        return {"status": "skipped", "error": f"torch {torch.__version__} has no torch.compiler.wrap_numpy"}, None
    if variant.preview and triton_preview.unavailable():
        return {"status": "skipped", "error": triton_preview.unavailable()}, None
    result: JSON = {}
    try:
        if variant.kind == "python":
            return _run_python(fn, population, args)
        if variant.preview:
            return triton_preview.run(variant, fn, population, capture, lambda call: _trace(call)["lines"]), None
        target, convert, sync = prepare(variant, fn, args.compile_options)
        data = convert(population)
        if variant.compiled and (why := unroll.unrolls(fn, lambda n: convert(population[:n]), len(population))):
            capture.take()  # what the trace logged
            return {"status": "skipped", "error": why}, None
        call = guard.user(lambda: target(data))
        capture.take()
        if variant.compiled:
            torch._dynamo.reset()
            output, first = _first_call(call, sync)
            result["capture"] = capture.take()
            emit(Compiled(id=variant.id, capture=RawCapture.from_json(result["capture"])))
            result["timing"], result["load"] = load.during(lambda: measure(call, sync, args.budget, first_call_s=first))
            result["recompiles"] = capture.take()
            trace = _python_trace(result, call)
            _profile(result, call, sync, variant, args, trace.get("graph_calls") or 0)
            if variant.device == "cuda":
                result.update(guard.optional(result, "cuda facts",
                                             lambda: cuda.facts(population, output, result["capture"])) or {})
            later = capture.take()  # what the profiled passes compiled again: one model of recompilation
            result["recompiles"] = {k: v + later[k] if isinstance(v, list) else v
                                    for k, v in result["recompiles"].items()}
            result["calls"] = call.calls - 1  # the compiled function's calls after its first, to count them against
            sizes = [int(n) for n in args.sizes.split(",") if n]
            result["sizes"] = [_at_size(guard.user(target), convert(make_population(n)), sync, capture, n)
                               for n in sizes]
        else:
            output = call()
            sync()
            result["timing"], result["load"] = load.during(lambda: measure(call, sync, args.budget))
            _python_trace(result, call)
        return dict(result, status="ok"), (_to_numpy(output), (call, sync))
    except guard.VariantError as e:
        return dict(_failure(e.error, variant.code.get("file"), capture),
                    **{k: result[k] for k in ("capture", "internal_errors") if k in result}), None
    except Exception as e:  # inspector's own code failed: not the user's error
        return dict(result, status="error", error=f"inspector failed: {type(e).__name__}: {e}",
                    error_stage="inspector", internal_errors=result.get("internal_errors", []) + [
                        guard.internal("run", e)]), None


def _first_call(call: Callable[[], Any], sync: Callable[[], object]) -> tuple[Any, float]:
    """(output, seconds) of the first call of a compiled variant: the one that compiles."""
    start = time.perf_counter()
    output = call()
    sync()
    return output, time.perf_counter() - start


def _at_size(target: Callable[[Any], Any], data: Any, sync: Callable[[], object], capture: Capture, n: int
             ) -> JSON:
    """Call the compiled variant on a population of ``n``: did it recompile, and why (the failed guard); its steady
    call the median of SIZE_CALLS."""
    capture.take()
    first = once(lambda: target(data), sync)
    graphs = capture.take()["graphs"]
    steady = statistics.median(once(lambda: target(data), sync) for _ in range(SIZE_CALLS))
    return {"population": n, "first_call_s": first, "steady_s": steady, "steady_calls": SIZE_CALLS,
            "recompiles": [{"compile_id": g.get("compile_id"),
                            "op_count": (g.get("metrics") or {}).get("graph_op_count"),
                            "reason": (g.get("metrics") or {}).get("recompile_reason")} for g in graphs]}


def prepare(variant: samples.Variant, fn: Callable[..., Any], options: Optional[JSON] = None) -> Prepared:
    """(callable, population -> its input, device sync) for a numpy or torch variant.

    Compiled variants compile ``fn`` itself, as a user would, with ``options`` (torch.compile's keyword
    arguments: mode, dynamic, fullgraph, backend, options): torch 2.1 skips frames that hold no torch
    objects unless they were passed to torch.compile, so after a graph break in a NumPy function
    called from a compiled wrapper, the function would run uncompiled.
    """
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]] = (
        (lambda f: torch.compile(f, **(options or {}))) if variant.compiled else (lambda f: f))
    if variant.device == "cuda":
        target = wrap(torch.compiler.wrap_numpy(fn) if variant.kind == "numpy" else fn)
        return target, (lambda pop: torch.from_numpy(pop).to("cuda")), torch.cuda.synchronize
    convert: Callable[[np.ndarray], Any] = torch.from_numpy if variant.kind == "torch" else (lambda pop: pop)
    return wrap(fn), convert, (lambda: None)


def _to_numpy(output: object) -> np.ndarray:
    """The variant's output as an ndarray; what it returned is the user's doing, so a wrong type is theirs."""
    if isinstance(output, torch.Tensor):
        output = output.detach().cpu().numpy()
    array = np.asarray(output)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise guard.VariantError(TypeError(f"returned {type(output).__name__} of dtype {array.dtype}, not numbers"))
    return array


def _run_python(fn: Callable[[Any], Any], population: np.ndarray, args: argparse.Namespace) -> Ran:
    """Time ``[fn(ind) for ind in population]`` within ``--budget`` (on the first individuals only, when the whole
    would not fit), after an untimed pilot of PYTHON_PILOT individuals. The guard wraps each batch, never each
    individual, so that the timing is of the user's calls alone. Returns as ``_run``."""
    n = len(population)
    pilot = population[:PYTHON_PILOT].tolist()
    start = time.perf_counter()
    guard.user(lambda: [fn(ind) for ind in pilot])()
    per_individual = (time.perf_counter() - start) / max(1, len(pilot))
    share = args.budget / (MIN_RUNS + 2)  # one call: measure() makes 2 untimed calls, then MIN_RUNS timed blocks
    measured = n if per_individual * n <= share else max(len(pilot), int(share / per_individual))
    subset = population[:measured].tolist()
    outputs: list[Any] = [None]

    def call() -> None:
        outputs[0] = [fn(ind) for ind in subset]

    timing, machine = load.during(lambda: measure(guard.user(call), budget_s=args.budget - 2 * share))
    result: dict[str, Any] = {"status": "ok", "timing": timing, "load": machine}
    _python_trace(result, guard.user(lambda: [fn(ind) for ind in pilot[:50]]))
    result["measured_population"] = measured
    return result, (_to_numpy(outputs[0]), (guard.user(call), lambda: None))


def _python_trace(result: JSON, call: Callable[[], object]) -> JSON:
    """Trace one call (``_trace``) into ``result``: its ``python_lines``, and in ``bounds`` a trace cut short.
    Returns the trace ({} when it failed)."""
    trace = guard.optional(result, "python lines", lambda: _trace(call)) or {}
    result["python_lines"] = trace.get("lines")
    if trace.get("cut_after_s"):
        result.setdefault("bounds", []).append(
            f"the Python-line trace stopped after {trace['cut_after_s']:.0f} s of one call: lines that ran later in "
            "it are not marked as run in Python")
    return trace


def _trace(call: Callable[[], object], limit_s: float = TRACE_LIMIT_S) -> JSON:
    """Run ``call()`` traced: {"lines": the lines that ran as Python bytecode (not inside a compiled graph) in
    every file of the user's and of installed packages (not torch's, inspector's, Inductor's generated modules, the
    standard library's, or frames without a file), "graph_calls": how many compiled graphs it called (their
    generated ``call``), "cut_after_s": seconds after which line tracing stopped, or None}."""
    hits: dict[tuple[str, int, str], int] = {}
    wanted: dict[str, bool] = {}
    counts: dict[str, Any] = {"graph_calls": 0, "events": 0, "cut": None}
    generated = os.path.join(torch._inductor.codecache.cache_dir(), "")
    skip = tuple(os.path.join(folder, "") for folder in (os.path.dirname(torch.__file__), INSPECTOR_DIR, generated))
    stdlib = os.path.join(sysconfig.get_paths()["stdlib"], "")
    start = time.perf_counter()

    def traced(name: str) -> bool:
        if name not in wanted:
            wanted[name] = not (name.startswith("<") or name.startswith(skip) or (
                name.startswith(stdlib) and not re.search(r"[/\\](?:site|dist)-packages[/\\]", name)))
        return wanted[name]

    def tracer(frame: FrameType, event: str, arg: object) -> Optional[Callable[[FrameType, str, object], Any]]:
        code = frame.f_code
        if event == "call" and code.co_name == "call" and code.co_filename.startswith(generated):
            counts["graph_calls"] += 1
        if counts["cut"] is not None or not traced(code.co_filename):
            return None
        if event == "line":
            key = (code.co_filename, frame.f_lineno, code.co_name)
            hits[key] = hits.get(key, 0) + 1
            counts["events"] += 1
            if counts["events"] % 4096 == 0 and time.perf_counter() - start > limit_s:
                counts["cut"] = time.perf_counter() - start
                sys.settrace(previous)  # no more events: the rest of the call runs at full speed
        return tracer

    previous = sys.gettrace()  # a program's own tracer (coverage, a debugger) is put back
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(previous)
    return {"lines": [{"file": file, "line": line, "function": name, "count": count}
                      for (file, line, name), count in sorted(hits.items())],
            "graph_calls": counts["graph_calls"], "cut_after_s": counts["cut"]}


def _profile(result: JSON, call: Callable[[], object], sync: Callable[[], object], variant: samples.Variant,
             args: argparse.Namespace, graph_calls: int) -> None:
    """The profiled passes of a compiled variant (time outside graphs; per-kernel times and thread scaling unless
    --no-kernel-times), as many calls as keep the profiler's events bounded: a call that runs a compiled graph per
    row is not profiled at all, and ``bounds`` says so."""
    calls = MAX_PROFILED_GRAPH_CALLS // max(1, graph_calls)
    if calls < 1:
        result.setdefault("bounds", []).append(
            f"not profiled: one call runs {graph_calls:,} compiled graphs (a graph per row?), and profiling them "
            "would record millions of events; the time outside compiled graphs, per-kernel times and thread "
            "scaling are not measured")
        return
    result["regions"] = guard.optional(result, "regions", lambda: profile.regions(call, sync, min(3, calls)))
    if args.no_kernel_times:
        return
    graphs = result["capture"]["graphs"] + result["recompiles"]["graphs"]
    median = result["timing"]["median_s"]
    result["kernel_times"] = guard.optional(result, "kernel times", lambda: profile.kernel_times(
        call, sync, graphs, variant.device, median, max_calls=calls))
    if variant.device == "cpu":
        result["thread_scaling"] = guard.optional(result, "thread scaling", lambda: profile.thread_scaling(
            call, sync, graphs, median, max_calls=calls))


def _failure(error: BaseException, filename: Optional[str], capture: Capture) -> JSON:
    """A failed variant: one-line message naming the line of its code (``filename``) where the error came from."""
    where = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    message = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {message[0] if message else ''}".strip()
    result: JSON = {"status": "error", "error": text, "error_stage": guard.stage(error),
              "error_detail": "".join(traceback.format_exception(error))[-8000:],
              "capture": capture.take()}
    if where:
        result["error_line"] = where[-1].lineno
    return result
