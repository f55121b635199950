"""Record the choices Inductor's C++ backend makes without logging them, where it makes them, per loop nest.

Wrapped while capturing (and put back after), each where torch has it:
- ``TilingSelect.select_tiling`` (torch >= 2.5): SIMD tiling or none, the branch that decided, and its numbers (the
  kernel's dtypes, its op count, the non-contiguous index operations, the mask operations) with the limits applied;
- torch 2.1's vectorization checker (``CppVecKernelChecker.disable_vec``): the reason it turned SIMD off;
- the proxy's code generation (``CppKernelProxy.codegen_functions``, 2.1 ``codegen_nodes``): a kernel with no vector
  ISA or no loop stays scalar before any tiling is tried; which kernels it generated (a vectorized tail or not);
- ``CppKernel.decide_parallel_depth``: the work (elements of all loop levels), threads, ``cpp.min_chunk_size``,
  ``cpp.dynamic_threads`` and the depth chosen;
- ``CppVecKernel._load_or_store_non_contiguous`` (torch >= 2.5): an input gathered (or an output scattered) one element
  at a time inside a vector loop;
- the vector ops Inductor generates lane by lane (``CppVecOverrides._scalarize``, torch >= 2.5): an op with no vector
  form run as a scalar loop inside the vector kernel.

Each decision is kept against the kernel proxy it was made for and handed to the loop nest record of that proxy when
Inductor finalizes it (decisions of an outer-loop fusion attempt Inductor abandoned are dropped with it).
"""

import functools
import inspect
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any, Optional

import torch

Restore = list[tuple[Any, str, Any]]  # (target, attribute, original value) to put back after capturing
MAX_PER_KIND = 64  # entries of one kind kept per nest (an unrolled loop may gather thousands of times)


def _constant(source: str, pattern: str) -> Optional[float]:
    """A number torch's own source applies in a comparison (a local constant the function cannot be asked for)."""
    found = re.search(pattern, source)
    return float(found.group(1)) if found else None


class Decisions:
    """Pending decisions per kernel proxy; ``take(kernel)`` returns those of a finalized kernel."""

    def __init__(self, problem: Callable[[str], object]) -> None:
        self.problem = problem  # called with the text of what could not be recorded
        # (proxy, entry); the proxy kept alive so that its id is not reused while pending
        self.pending: list[tuple[object, dict[str, Any]]] = []
        self.current: list[object] = []  # the proxies whose code is being generated, innermost last
        self.hooks: dict[str, str] = {}  # decision kind: "recorded" or why not (this torch lacks the function)

    def install(self, restore: Restore) -> None:
        """Wrap what this torch has; ``restore`` receives (target, name, original) for each wrapped attribute."""
        try:
            from torch._inductor.codegen import cpp
        except ImportError as e:
            self.hooks["all"] = f"torch._inductor.codegen.cpp does not import: {e}"
            return
        self._wrap_proxy(cpp, restore)
        self._wrap_tiling(cpp, restore)
        self._wrap_parallel(cpp, restore)
        self._wrap_gather(cpp, restore)
        self._wrap_lanes(cpp, restore)

    def take(self, kernel: object) -> list[dict[str, Any]]:
        """The decisions made for ``kernel`` (a proxy, or one that outer-loop fusion made of several); clears all."""
        mine = {id(kernel)} | {id(getattr(n, "kernel", None)) for n in getattr(
            getattr(getattr(kernel, "loop_nest", None), "kernel", None), "inner", None) or []}
        out: list[dict[str, Any]] = []
        counts: dict[str, int] = {}
        for proxy, entry in self.pending:
            if id(proxy) in mine:
                counts[entry["kind"]] = counts.get(entry["kind"], 0) + 1
                if counts[entry["kind"]] <= MAX_PER_KIND:
                    out.append(entry)
        dropped = {k: n - MAX_PER_KIND for k, n in counts.items() if n > MAX_PER_KIND}
        if dropped:
            out.append({"kind": "dropped", "counts": dropped})
        self.pending = []
        return out

    def _add(self, entry: dict[str, Any], proxy: object = None) -> None:
        proxy = proxy if proxy is not None else (self.current[-1] if self.current else None)
        if proxy is not None:
            self.pending.append((proxy, entry))

    def _wrap(self, restore: Restore, target: Any, name: str, make: Callable[[Any], Any], kind: str) -> None:
        original = vars(target).get(name) if target is not None else None  # its own, never an inherited one
        if original is None:
            self.hooks.setdefault(kind, f"not recorded under torch {torch.__version__} (it has no {name})")
            return
        wrapper = make(original)
        if wrapper is None:
            return
        setattr(target, name, wrapper)
        restore.append((target, name, original))
        self.hooks[kind] = "recorded"

    def _guarded(self, what: Callable[[], object]) -> None:
        """Run ``what`` without letting a failure reach the user's compile."""
        try:
            what()
        except Exception as e:
            self.problem(f"Inductor decision not recorded: {type(e).__name__}: {e}")

    def _wrap_proxy(self, cpp: ModuleType, restore: Restore) -> None:
        proxy_cls = getattr(cpp, "CppKernelProxy", None)
        name = "codegen_functions" if hasattr(proxy_cls, "codegen_functions") else "codegen_nodes"
        group = getattr(cpp, "KernelGroup", None)
        decisions = self

        def make(original: Callable[..., Any]) -> Callable[..., Any]:
            def codegen(proxy: Any, *args: Any, **kwargs: Any) -> Any:
                decisions.current.append(proxy)
                try:
                    return original(proxy, *args, **kwargs)
                finally:
                    decisions.current.pop()
                    decisions._guarded(lambda: decisions._after_proxy(proxy))
            return codegen

        def make_new_kernel(original: Callable[..., Any]) -> Callable[..., Any]:
            def new_kernel(group_self: Any, cls: Any, *args: Any) -> Any:
                decisions._guarded(lambda: decisions._add({"kind": "kernel", "class": cls.__name__,
                                                           "args": _named(cls, args)}))
                return original(group_self, cls, *args)
            return new_kernel

        self._wrap(restore, proxy_cls, name, make, "proxy")
        self._wrap(restore, group, "new_kernel", make_new_kernel, "kernels")

    def _after_proxy(self, proxy: Any) -> None:
        """A proxy that stays scalar before any tiling is tried: no vector ISA, or no loop."""
        if not getattr(proxy, "picked_vec_isa", None):
            self._add({"kind": "tiling", "branch": "no-vector-isa"}, proxy)
        elif hasattr(proxy, "itervars") and not proxy.itervars:
            self._add({"kind": "tiling", "branch": "no-loop"}, proxy)

    def _wrap_tiling(self, cpp: ModuleType, restore: Restore) -> None:
        select = getattr(cpp, "TilingSelect", None)
        stats_cls = getattr(cpp, "KernelOpStats", None)
        ratio = (getattr(stats_cls, "OVERHEAD_RATIO_THRESHOLD", None)
                 or getattr(select, "OVERHEAD_RATIO_THRESHOLD", None))
        try:
            source = inspect.getsource(select.select_tiling) if select else ""
        except (OSError, TypeError):
            source = ""
        limits = {"non_contiguous_count": _constant(source, r"quantity_threshold\s*=\s*(\d+)"),
                  "non_contiguous_ratio": ratio,
                  "small_inner_fraction": _constant(source, r"<\s*tiling_factor\s*/\s*(\d+)"),
                  "small_inner_ops": _constant(source, r"and\s+op_num\s*<\s*(\d+)")}
        decisions = self

        def make(original: Callable[..., Any]) -> Callable[..., Any]:
            def select_tiling(select_self: Any, fn_list: Any, var_sizes_list: Any, *args: Any, **kwargs: Any) -> Any:
                result = original(select_self, fn_list, var_sizes_list, *args, **kwargs)
                decisions._guarded(lambda: decisions._add(_tiling(cpp, result, fn_list, var_sizes_list, limits)))
                return result
            return select_tiling

        self._wrap(restore, select, "select_tiling", make, "tiling")
        checker = getattr(cpp, "CppVecKernelChecker", None)  # torch 2.1

        def make_checker(original: Callable[..., Any]) -> Callable[..., Any]:
            def disable_vec(checker_self: Any, msg: object = None) -> Any:
                if getattr(checker_self, "simd_vec", True):  # the first reason is the one that decided
                    decisions._guarded(lambda: decisions._add({"kind": "checker", "message": str(msg),
                                                               "factor": getattr(checker_self, "tiling_factor", None)}))
                return original(checker_self, msg)
            return disable_vec

        if checker is not None:
            self._wrap(restore, checker, "disable_vec", make_checker, "checker")

    def _wrap_parallel(self, cpp: ModuleType, restore: Restore) -> None:
        decisions = self

        def make(original: Callable[..., Any]) -> Callable[..., Any]:
            def decide_parallel_depth(kernel: Any, ranges: Any, threads: int, *args: Any, **kwargs: Any) -> Any:
                result = original(kernel, ranges, threads, *args, **kwargs)
                decisions._guarded(lambda: decisions._add(_parallel(kernel, ranges, threads, result), kernel))
                return result
            return decide_parallel_depth

        self._wrap(restore, getattr(cpp, "CppKernel", None), "decide_parallel_depth", make, "parallel")

    def _wrap_gather(self, cpp: ModuleType, restore: Restore) -> None:
        decisions = self

        def make(original: Callable[..., Any]) -> Callable[..., Any]:
            def non_contiguous(kernel: Any, var: str, index: object, dtype: object, buffer: object = None,
                               store_value: object = None, *args: Any, **kwargs: Any) -> Any:
                decisions._guarded(lambda: decisions._add({
                    "kind": "gather", "buffer": var, "index": str(index), "store": store_value is not None,
                    "dtype": str(dtype).replace("torch.", ""), "lanes": getattr(kernel, "tiling_factor", None)}))
                return original(kernel, var, index, dtype, buffer, store_value, *args, **kwargs)
            return non_contiguous

        self._wrap(restore, getattr(cpp, "CppVecKernel", None), "_load_or_store_non_contiguous", make, "gather")

    def _wrap_lanes(self, cpp: ModuleType, restore: Restore) -> None:
        overrides = getattr(cpp, "CppVecOverrides", None)
        if overrides is None or not hasattr(overrides, "_scalarize"):
            self.hooks["lanes"] = f"not recorded under torch {torch.__version__} (it has no _scalarize)"
            return
        for name, attr in list(vars(overrides).items()):
            if not (isinstance(attr, staticmethod) and "_scalarize" in getattr(attr.__func__, "__qualname__", "")):
                continue
            setattr(overrides, name, staticmethod(self._lane(name, attr.__func__)))
            restore.append((overrides, name, attr))
        self.hooks["lanes"] = "recorded"

    def _lane(self, op: str, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)  # torch looks overrides up by their __name__
        def lane(*args: Any, **kwargs: Any) -> Any:
            self._guarded(lambda: self._add({"kind": "lane", "op": op}))
            return func(*args, **kwargs)
        return lane


def _named(cls: Any, args: tuple[Any, ...]) -> dict[str, Optional[str]]:
    """{parameter: value as text} of a kernel class's constructor arguments after (args, num_threads)."""
    names = list(inspect.signature(cls.__init__).parameters)[3:]
    return {n: None if a is None else str(a) for n, a in zip(names, args)}


def _tiling(cpp: ModuleType, result: Any, fn_list: Any, var_sizes_list: Any,
            limits: dict[str, Optional[float]]) -> dict[str, Any]:
    """select_tiling's outcome and the branch that decided it, with its numbers."""
    factors, indices, stats = result
    ops = sum(getattr(stats, "op_counter", {}).values())
    non_contig = dict(getattr(stats, "non_contig_indexing_op_counter", {}))
    heuristics = bool(torch._inductor.config.cpp.enable_tiling_heuristics)
    dtypes = sorted(str(d).replace("torch.", "") for d in cpp._get_dtype_from_loopbodies(cpp._get_loop_body(fn_list)))
    vectorizable = {str(d).replace("torch.", "") for d in getattr(cpp, "VECTORIZABLE_DTYPES", [])}
    group, reduction = max(var_sizes_list, key=lambda sizes: len(sizes[1]))
    tail = getattr(torch._inductor.config.cpp, "enable_loop_tail_vec", None)
    entry = {"kind": "tiling", "factors": list(factors), "indices": list(indices), "dtypes": dtypes, "ops": ops,
             "non_contiguous": non_contig, "mask_ops": getattr(stats, "mask_op_count", None),
             "heuristics": heuristics, "loop_tail_vec": tail,
             "ranges": [str(s) for s in group], "reduction_ranges": [str(s) for s in reduction],
             "limits": limits}
    if factors:
        branch = "tiled"
    elif vectorizable and any(d not in vectorizable for d in dtypes):
        branch = "dtype"
        entry["not_vectorizable"] = [d for d in dtypes if d not in vectorizable]
    elif not ops:
        branch = "no-tiling-index"
    else:
        count, ratio = sum(non_contig.values()), limits["non_contiguous_ratio"]
        over = (limits["non_contiguous_count"] is not None and count >= limits["non_contiguous_count"]) or (
            ratio is not None and count / ops >= ratio)
        branch = "non-contiguous" if over else "small-inner-range"
    entry["branch"] = branch
    try:
        from torch._inductor import cpu_vec_isa
        entry["factor"] = cpu_vec_isa.pick_vec_isa().nelements(dtype=torch.float)
    except Exception:
        entry["factor"] = factors[0] if factors else None
    return entry


def _parallel(kernel: Any, ranges: Any, threads: int, result: Any) -> dict[str, Any]:
    """decide_parallel_depth's inputs and outcome (2.13 passes a ParallelDepth, 2.1 the ranges)."""
    depth = getattr(result, "parallel_depth", result)
    if hasattr(ranges, "parallel_depth"):
        call = list(kernel.call_ranges or [])
        levels = call[ranges.start_depth:ranges.start_depth + ranges.parallel_depth]
    else:
        levels = list(ranges)
    try:
        work = int(kernel.size_hint())
    except (TypeError, ValueError):
        work = None
    cfg = torch._inductor.config.cpp
    return {"kind": "parallel", "work": work, "threads": threads, "min_chunk_size": cfg.min_chunk_size,
            "dynamic_threads": bool(getattr(cfg, "dynamic_threads", False)), "depth": int(depth),
            "levels": [str(r) for r in levels]}
