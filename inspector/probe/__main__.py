"""The probe: run a sample's variants in this interpreter and stream raw facts as JSON lines.

Usage: python -m inspector.probe SAMPLE --results FILE --outputs DIR [--population N] [--seed S]
       [--only ID,ID] [--config KEY=VALUE ...] [--budget S] [--python-budget S] [--triton-preview]

Imports only the standard library, numpy and torch, so it runs under any torch version's venv.
One JSON object per line goes to --results: a ``header``, then ``start`` and ``variant`` per variant,
or ``fatal`` when the sample itself cannot be run. Variant outputs are saved as DIR/<id>.npy.
"""

import argparse
import ast
import fnmatch
import json
import os
import platform
import sys
import time
import traceback

import numpy as np
import torch
import torch._inductor.config  # `import torch` alone does not load it in 2.1

from inspector.probe import cuda
from inspector.probe import profile
from inspector.probe import sample as samples
from inspector.probe import triton_preview
from inspector.probe.capture import Capture
from inspector.probe.timing import measure, once

PYTHON_PILOT = 1000
MEMORY_FACTOR = 3  # the population, a variant's temporaries and its output


def main(argv=None):
    args = _parse(argv)
    out = open(args.results, "a", encoding="utf-8")

    def emit(obj):
        out.write(json.dumps(obj, default=str) + "\n")
        out.flush()

    try:
        applied = [_apply_config(item) for item in args.config]
        module = samples.load(args.sample)
        info = samples.describe(module)
        variants = samples.variants(module, args.triton_preview)
        if not variants:
            raise samples.SampleError(f"{args.sample}: no variants (top-level fitness_python*, fitness_numpy* "
                                      "or fitness_torch* functions)")
        n = args.population or info["default_population"] or 10_000
        population = _population(module, n, args.seed, args.sample)
    except samples.SampleError as e:
        if e.__context__:  # the user's traceback goes to the log, which --verbose shows
            traceback.print_exception(e.__context__)
        emit({"type": "fatal", "error": str(e)})
        return 3
    env = _env()
    env["memory_bandwidth"] = profile.bandwidth(env["cpu"], env["threads"])
    emit({"type": "header", "env": env, "config": applied,
          "sample": dict(info, file=os.path.abspath(args.sample), population=n, seed=args.seed, shape=list(population.shape),
                         dtype=str(population.dtype)),
          "variants": [v.__dict__ for v in variants]})
    capture = Capture()
    capture.install()
    patterns = args.only.split(",") if args.only else ["*"]
    for variant in (v for v in variants if any(fnmatch.fnmatchcase(v.id, p) for p in patterns)):
        emit({"type": "start", "id": variant.id, "time": time.time()})
        fn = getattr(module, variant.function)
        result = _run(variant, fn, population, capture, args,
                      lambda size: _population(module, size, args.seed, args.sample))
        np_out = result.pop("_output", None)
        if np_out is not None:
            np.save(os.path.join(args.outputs, variant.id + ".npy"), np_out)
        emit(dict(variant.__dict__, type="variant", **result))
    return 0


def _parse(argv):
    p = argparse.ArgumentParser(prog="inspector.probe")
    p.add_argument("sample")
    p.add_argument("--results", required=True)
    p.add_argument("--outputs", required=True)
    p.add_argument("--population", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", help="comma-separated variant ids or glob patterns")
    p.add_argument("--sizes", default="", help="comma-separated population sizes to run compiled variants at")
    p.add_argument("--config", action="append", default=[])
    p.add_argument("--budget", type=float, default=1.0)
    p.add_argument("--python-budget", type=float, default=8.0)
    p.add_argument("--triton-preview", action="store_true", help="add the Triton codegen preview variants")
    p.add_argument("--no-kernel-times", action="store_true", help="skip the profiled pass timing each kernel")
    return p.parse_args(argv)


def _apply_config(item):
    """Set an Inductor (default) or Dynamo (``dynamo.`` prefix) config value from KEY=VALUE."""
    key, sep, raw = item.partition("=")
    if not sep:
        raise samples.SampleError(f"--config {item}: expected KEY=VALUE")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    root, path = torch._inductor.config, key
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


def _population(module, n, seed, path):
    """The population array, refused before it is built if it would not fit in memory."""
    one = _call_population(module, 1, seed, path)
    needed = n * one.nbytes / len(one) * MEMORY_FACTOR
    available = _available_memory()
    if available and needed > available:
        raise samples.SampleError(
            f"{path}: a population of {n:,} needs about {needed / 1e9:,.1f} GB ({one.nbytes // len(one):,} bytes "
            f"per individual, {MEMORY_FACTOR}x for copies) but {available / 1e9:,.1f} GB of memory is available; "
            "use a smaller --population")
    return _call_population(module, n, seed, path)


def _call_population(module, n, seed, path):
    try:
        pop = module.population(n, np.random.default_rng(seed))
    except Exception as e:
        raise samples.SampleError(f"{path}: population({n}, rng) raised {type(e).__name__}: {e}") from None
    if not isinstance(pop, np.ndarray):
        raise samples.SampleError(f"{path}: population() returned {type(pop).__name__}, not a numpy array")
    if pop.size == 0 or pop.ndim == 0:
        raise samples.SampleError(f"{path}: population() returned an empty array of shape {pop.shape}")
    return pop


def _available_memory():
    """Bytes of memory available now (MemAvailable), or None where the system does not say."""
    try:
        with open("/proc/meminfo") as f:
            return next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith("MemAvailable:"))
    except (OSError, StopIteration):
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            return None


def _env():
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
            "cpu_count": os.cpu_count()}


def _run(variant, fn, population, capture, args, make_population):
    """Run and time one variant; return its raw result (``_output`` is the ndarray to save)."""
    if variant.device == "cuda" and not torch.cuda.is_available():
        return {"status": "skipped", "error": "CUDA is not available (torch.cuda.is_available() is False)"}
    if variant.device == "cuda" and variant.kind == "numpy" and not hasattr(torch.compiler, "wrap_numpy"):
        return {"status": "skipped", "error": f"torch {torch.__version__} has no torch.compiler.wrap_numpy"}
    if variant.preview and triton_preview.unavailable():
        return {"status": "skipped", "error": triton_preview.unavailable()}
    try:
        if variant.kind == "python":
            return _run_python(fn, population, args)
        if variant.preview:
            return triton_preview.run(variant, fn, population, capture,
                                      lambda call: _lines_run_in_python(call, fn.__code__.co_filename))
        target, convert, sync = _prepare(variant, fn)
        data = convert(population)

        def call():
            return target(data)

        capture.take()
        result = {}
        if variant.compiled:
            torch._dynamo.reset()
            start = time.perf_counter()
            output = call()
            sync()
            first = time.perf_counter() - start
            result["capture"] = capture.take()
            result["timing"] = measure(call, sync, args.budget, first_call_s=first)
            result["recompiles"] = capture.take()
            result["regions"] = _regions(call, sync)
            if not args.no_kernel_times:
                graphs = result["capture"]["graphs"] + result["recompiles"]["graphs"]
                result["kernel_times"] = profile.kernel_times(call, sync, graphs, variant.device,
                                                              result["timing"]["median_s"])
            if variant.device == "cuda":
                result.update(cuda.facts(population, output, result["capture"]))
            sizes = [int(n) for n in args.sizes.split(",") if n]
            result["sizes"] = [_at_size(target, convert(make_population(n)), sync, capture, n) for n in sizes]
        else:
            output = call()
            sync()
            result["timing"] = measure(call, sync, args.budget)
        result["python_lines"] = _lines_run_in_python(call, fn.__code__.co_filename)
        result["status"] = "ok"
        result["_output"] = _to_numpy(output)
        return result
    except Exception as e:
        return _failure(e, fn, capture)


def _regions(call, sync, calls=3):
    """Per-call seconds inside compiled graphs and in the whole call, from the profiler's graph events.

    The rest of the call ran as Python between graphs (the cost of graph breaks). None where this torch's
    profiler does not mark compiled graphs.
    """
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        total = sum(once(call, sync) for _ in range(calls))
    inside = sum(e.cpu_time_total for e in prof.events() if e.name.startswith("## Call CompiledFxGraph")) / 1e6
    return {"calls": calls, "total_s": total / calls, "graphs_s": inside / calls} if inside else None


def _at_size(target, data, sync, capture, n):
    """Call the compiled variant on a population of ``n``: did it recompile, and why (the failed guard)."""
    capture.take()
    first = once(lambda: target(data), sync)
    graphs = capture.take()["graphs"]
    return {"population": n, "first_call_s": first, "steady_s": once(lambda: target(data), sync),
            "recompiles": [{"compile_id": g.get("compile_id"), "op_count": (g.get("metrics") or {}).get("graph_op_count"),
                            "reason": (g.get("metrics") or {}).get("recompile_reason")} for g in graphs]}


def _prepare(variant, fn):
    """(callable, population -> its input, device sync) for a numpy or torch variant.

    Compiled variants compile ``fn`` itself, as a user would: torch 2.1 skips frames that hold no torch
    objects unless they were passed to torch.compile, so after a graph break in a NumPy function
    called from a compiled wrapper, the function would run uncompiled.
    """
    wrap = torch.compile if variant.compiled else (lambda f: f)
    if variant.device == "cuda":
        target = wrap(torch.compiler.wrap_numpy(fn) if variant.kind == "numpy" else fn)
        return target, (lambda pop: torch.from_numpy(pop).to("cuda")), torch.cuda.synchronize
    convert = torch.from_numpy if variant.kind == "torch" else (lambda pop: pop)
    return wrap(fn), convert, (lambda: None)


def _to_numpy(output):
    if isinstance(output, torch.Tensor):
        output = output.detach().cpu().numpy()
    array = np.asarray(output)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise TypeError(f"returned {type(output).__name__} of dtype {array.dtype}, not numbers")
    return array


def _run_python(fn, population, args):
    n = len(population)
    pilot = population[:PYTHON_PILOT].tolist()
    start = time.perf_counter()
    [fn(ind) for ind in pilot]
    per_individual = (time.perf_counter() - start) / max(1, len(pilot))
    measured = n if per_individual * n <= args.python_budget / 3 else max(
        len(pilot), int(args.python_budget / 3 / per_individual))
    subset = population[:measured].tolist()
    outputs = [None]

    def call():
        outputs[0] = [fn(ind) for ind in subset]

    result = {"status": "ok", "timing": measure(call, budget_s=args.python_budget / 2)}
    result["python_lines"] = _lines_run_in_python(lambda: [fn(ind) for ind in pilot[:50]],
                                                  fn.__code__.co_filename)
    result["measured_population"] = measured
    result["_output"] = _to_numpy(outputs[0])
    return result


def _lines_run_in_python(call, filename):
    """Lines of the sample file that ran as Python bytecode (not inside a compiled graph) in one call."""
    hits = {}

    def tracer(frame, event, arg):
        if frame.f_code.co_filename == filename:
            if event == "line":
                key = (frame.f_lineno, frame.f_code.co_name)
                hits[key] = hits.get(key, 0) + 1
            return tracer
        return None

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return [{"line": line, "function": name, "count": count} for (line, name), count in sorted(hits.items())]


def _failure(error, fn, capture):
    """A failed variant: one-line message naming the user's line when the error came from it."""
    filename = fn.__code__.co_filename
    where = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    message = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {message[0] if message else ''}".strip()
    stage = "compile" if "BackendCompilerFailed" in type(error).__name__ or "InductorError" in type(
        error).__name__ else "run"
    result = {"status": "error", "error": text, "error_stage": stage,
              "error_detail": "".join(traceback.format_exception(error))[-8000:],
              "capture": capture.take()}
    if where:
        result["error_line"] = where[-1].lineno
    return result


if __name__ == "__main__":
    sys.exit(main())
