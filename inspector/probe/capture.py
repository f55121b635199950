"""Collect what torch.compile emits while a variant compiles: output code, graphs, loop nests, breaks, metrics.

Two mechanisms, recorded per fact so analysis knows where each came from:
- ``structured_trace``: a handler on the ``torch.__trace`` logger (torch >= 2.3);
- ``logger``: the ``output_code`` and ``graph_code`` artifact loggers and Dynamo's graph-compile debug record
  (torch < 2.3; names as in 2.1.2).

And, on every version, a wrapper around the C++ backend's ``KernelGroup.finalize_kernel``, which Inductor calls
once per loop nest it generates: each nest's code and the FX nodes it computes, with their user stacks; and, where
torch has it (2.13, not 2.1), one around the scheduler's ``WhyNoFuse``: why two scheduler nodes were not fused.

Capture must not depend on what a cache held: Inductor's FX graph cache (and AOTAutograd's) replay the stacks of
whoever compiled a graph first (another variant, another file, another checkout) and skip code generation, so
they are turned off while capturing (the C++ compiler's own cache still spares rebuilding unchanged kernels), unless
capture is given a folder of kept facts (``INSPECTOR_GRAPH_FACTS``, set by ``inspector.collect`` with torch's caches
in inspector's own folder; torch >= 2.3): then a graph found in torch's caches gets what capture saw when it compiled
(``inspector.probe.graphcache``), its ``kept`` holding that compile's metrics and cache outcome beside this run's,
and one whose facts are not kept there is compiled afresh.
"""

import json
import logging
import os
import re
import traceback
from typing import Any, Callable, Optional

import torch
import torch._inductor.config  # `import torch` alone does not load it in 2.1

from inspector.probe.decisions import Decisions, Restore
from inspector.probe.graphcache import COMPILE, FACTS_ENV, KEPT, GraphFacts
from inspector.probe.machine import MachineCode
from inspector.raw import PROVENANCE_LEVEL

MAX_GRAPH_TEXT = 400_000  # keep readable FX graphs of unrolled loops from bloating the record
OUTPUT_CODE_LOG = "torch._inductor.graph.__output_code"  # DEBUG "Output code: \n%s" % code
GRAPH_CODE_LOG = "torch._dynamo.output_graph.__graph_code"  # DEBUG: the FX graph, with `# File:` comments
# DEBUG "COMPILING GRAPH due to %s" % GraphCompileReason, for every graph. Unlike the graph_breaks
# logger, it also reports a data-dependent `if` at a compiled frame's top level (2.1's generic_jump).
COMPILE_LOG = "torch._dynamo.output_graph"
# WARNING "torch._dynamo hit config.recompile_limit (8) ..." (2.1: cache_size_limit): the frame then runs eagerly
LIMIT_LOG = "torch._dynamo.convert_frame"
# torch < 2.3 (the logger mechanism): DEBUG ("Recompiling function f in x.py:3", "triggered by the following guard
# failure: ...") before a recompile, with config.report_guard_failures on; 2.13 puts it in the compile's metrics
RECOMPILES_LOG = "torch._dynamo.convert_frame.__recompiles"
GUARD_FAILURE = re.compile(r"triggered by the following guard failures?\(?s?\)?:\s*(.+)", re.S)
# compilation metrics left out of the record: whole config dumps (tens of kB per graph) and a copy of provenance
BULKY_METRICS = {"inductor_provenance"}
# caches that would replay another compile's facts: (module, attribute) set to False while capturing
CACHES = (("torch._inductor.config", "fx_graph_cache"), ("torch._functorch.config", "enable_autograd_cache"))


def _has_structured_trace() -> bool:
    return hasattr(torch._logging, "trace_structured")


class _TraceHandler(logging.Handler):
    def __init__(self, capture: "Capture") -> None:
        super().__init__(logging.DEBUG)
        self.capture = capture

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        if isinstance(metadata, dict) and "chromium_event" not in metadata:
            self.capture.records += 1
            try:
                self.capture.on_trace(metadata, getattr(record, "payload", None))
            except Exception as e:  # never let capture break the user's compile
                self.capture.problems.append(f"{type(e).__name__}: {e}")


class _LogHandler(logging.Handler):
    def __init__(self, capture: "Capture", level: int = logging.DEBUG) -> None:
        super().__init__(level)
        self.capture = capture

    def emit(self, record: logging.LogRecord) -> None:
        self.capture.records += 1
        try:
            self.capture.on_log(record)
        except Exception as e:  # never let capture break the user's compile
            self.capture.problems.append(f"{type(e).__name__}: {e}")


class Capture:
    """Accumulates compile facts; ``take()`` returns and clears what was seen since the last call."""

    def __init__(self) -> None:
        self.mechanism = "structured_trace" if _has_structured_trace() else "logger"
        self.strings: dict[int, str] = {}  # the structured trace's interned file names
        self._reset()
        self.decisions = Decisions(lambda text: self.problems.append(text))
        folder = os.environ.get(FACTS_ENV)
        self.kept = GraphFacts(folder) if folder and self.mechanism == "structured_trace" else None
        self.machine = MachineCode(lambda text: self.problems.append(text), folder if self.kept else None)
        self._handlers: list[tuple[logging.Logger, logging.Handler, int, bool]] = []
        self._restore: Restore = []
        self.on_start: Optional[Callable[[], None]] = None  # called as Dynamo starts compiling a frame (2.3+)

    def _reset(self) -> None:
        self.graphs: dict[Optional[str], dict[str, Any]] = {}  # by compile id
        self.breaks: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.records = 0
        self.limits: list[str] = []  # Dynamo's "hit config.recompile_limit" warnings
        # loop nests generated since the last output code: they belong to the next one
        self.nests: list[dict[str, Any]] = []
        self.fusion: list[dict[str, Any]] = []  # the scheduler's "cannot fuse" reasons since: they belong to it too
        self.guard_failure: Optional[str] = None  # torch < 2.3: the failed guard logged before the next compile
        self.compiling: Optional[str] = None  # the compile id of the graph Dynamo last handed to its backend (2.3+)

    def install(self) -> None:
        trace_config = getattr(torch._inductor.config, "trace", None)
        if trace_config is not None and hasattr(trace_config, "provenance_tracking_level"):
            trace_config.provenance_tracking_level = PROVENANCE_LEVEL
        if not self._hook_lookup():
            for module, name in CACHES:
                config = _module(module)
                if config is not None and hasattr(config, name):
                    self._restore.append((config, name, getattr(config, name)))
                    setattr(config, name, False)
        self._hook_nests()
        self.decisions.install(self._restore)
        self.machine.install(self._restore)
        self._hook_fusion()
        self._attach(LIMIT_LOG, _LogHandler(self, logging.WARNING), quiet=False)
        if self.mechanism == "structured_trace":
            self._attach("torch.__trace", _TraceHandler(self))
        else:
            for name in (OUTPUT_CODE_LOG, GRAPH_CODE_LOG, COMPILE_LOG, RECOMPILES_LOG):
                self._attach(name, _LogHandler(self))
            dynamo = _module("torch._dynamo.config")
            if hasattr(dynamo, "report_guard_failures"):  # else 2.1 logs "set env var ... to debug further"
                self._restore.append((dynamo, "report_guard_failures", dynamo.report_guard_failures))
                dynamo.report_guard_failures = True

    def _attach(self, name: str, handler: logging.Handler, quiet: bool = True) -> None:
        """Handle a logger's records; ``quiet``: at every level, and kept from torch's own stderr handlers."""
        logger = logging.getLogger(name)
        self._handlers.append((logger, handler, logger.level, logger.propagate))
        if quiet:
            logger.setLevel(logging.DEBUG)
            logger.propagate = False
        logger.addHandler(handler)

    def _hook_nests(self) -> None:
        """Wrap the C++ backend's per-nest code generation to record each nest and the FX nodes it computes."""
        cpp = _module("torch._inductor.codegen.cpp")
        group = getattr(cpp, "KernelGroup", None)
        original = getattr(group, "finalize_kernel", None)
        if group is None or original is None:
            self.problems.append("this torch has no KernelGroup.finalize_kernel: loop nests are not attributed")
            return
        capture = self

        def finalize_kernel(group_self: Any, new_kernel: Any, nodes: Any) -> Any:
            before = len(group_self.loops_code._lines)
            result = original(group_self, new_kernel, nodes)
            try:
                capture.nests.append(_nest(group_self.loops_code._lines[before:], nodes,
                                           capture.decisions.take(new_kernel)))
            except Exception as e:  # never let capture break the user's compile
                capture.problems.append(f"loop nest not recorded: {type(e).__name__}: {e}")
            return result

        group.finalize_kernel = finalize_kernel
        self._restore.append((group, "finalize_kernel", original))

    def _hook_lookup(self) -> bool:
        """Where facts are kept (``self.kept``), make Inductor's FX graph cache miss a graph whose facts are not kept
        (see the module docstring); whether it did (else the caches are turned off)."""
        cache = getattr(_module("torch._inductor.codecache"), "FxGraphCache", None)
        original = vars(cache).get("_lookup_graph") if cache is not None else None
        if cache is None or self.kept is None or not isinstance(original, staticmethod):
            return False
        capture, lookup = self, original.__func__

        def _lookup_graph(key: str, *args: Any, **kwargs: Any) -> Any:
            graph = capture.graphs.get(capture.compiling)
            if graph is None or capture.kept is None or not capture.kept.has(key, capture.kept.fingerprint(graph)):
                return None, {}
            return lookup(key, *args, **kwargs)

        cache._lookup_graph = staticmethod(_lookup_graph)
        self._restore.append((cache, "_lookup_graph", original))
        return True

    def _hook_fusion(self) -> None:
        """Wrap the scheduler's WhyNoFuse (torch >= 2.2) to record each pair it did not fuse, and why, without turning
        on the fusion log and its dumps of every candidate node."""
        why = getattr(_module("torch._inductor.scheduler"), "WhyNoFuse", None)
        if why is None:
            return
        original = why.__call__
        capture = self

        def call(why_self: Any, reason: str, *args: Any) -> Any:
            try:
                entry = {"nodes": [why_self.name1, why_self.name2], "reason": reason % args if args else reason}
                if entry not in capture.fusion:
                    capture.fusion.append(entry)
            except Exception as e:  # never let capture break the user's compile
                capture.problems.append(f"fusion reason not recorded: {type(e).__name__}: {e}")
            return original(why_self, reason, *args)

        why.__call__ = call
        self._restore.append((why, "__call__", original))

    def uninstall(self) -> None:
        """Put torch back as it was: loggers, caches, wrapped methods (the Python API captures in the user's own
        process)."""
        for logger, handler, level, propagate in reversed(self._handlers):
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate
        self._handlers.clear()
        for target, name, value in reversed(self._restore):
            setattr(target, name, value)
        self._restore.clear()

    def empty(self) -> bool:
        """Nothing compiled, broke or hit a limit since the last ``take()`` (checked around every tracked call)."""
        return not (self.graphs or self.breaks or self.limits)

    def take(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mechanism": self.mechanism, "graphs": list(self.graphs.values()), "breaks": self.breaks,
               "problems": self.problems, "records": self.records, "limits": self.limits,
               "decision_hooks": dict(self.decisions.hooks)}
        out["machine_code"] = self.machine.take([(g.get("compile_id"), g.get("output_code") or [])
                                                 for g in out["graphs"]])
        self._reset()
        return out

    def _graph(self, compile_id: Optional[str]) -> dict[str, Any]:
        if compile_id not in self.graphs and self.guard_failure:  # the recompile it was logged before
            self.graphs[compile_id] = {"compile_id": compile_id, "metrics": {"recompile_reason": self.guard_failure}}
            self.guard_failure = None
        return self.graphs.setdefault(compile_id, {"compile_id": compile_id})

    def _output_code(self, compile_id: Optional[str], code: str) -> None:
        graph = self._graph(compile_id)
        graph.setdefault("output_code", []).append(code)
        if self.nests:
            graph.setdefault("nests", []).extend(self.nests)
            self.nests = []
        if self.fusion:
            graph.setdefault("fusion", []).extend(self.fusion)
            self.fusion = []

    def on_trace(self, metadata: dict[str, Any], payload: Optional[str]) -> None:
        if "str" in metadata:
            path, index = metadata["str"]
            self.strings[index] = path
            return
        cid = None
        if "frame_id" in metadata:
            cid = f"{metadata['frame_id']}/{metadata.get('frame_compile_id', 0)}"
            if metadata.get("attempt"):
                cid += f"_{metadata['attempt']}"
        if "dynamo_start" in metadata:
            if self.on_start is not None:
                self.on_start()
            stack = [dict(f, filename=self.strings.get(f.get("filename"), f.get("filename")))
                     for f in metadata["dynamo_start"].get("stack", [])]
            self._graph(cid)["user_stack"] = stack
            self.nests, self.fusion = [], []
        elif "dynamo_output_graph" in metadata:
            self._graph(cid)["fx_graph"] = (payload or "")[:MAX_GRAPH_TEXT]
            self.compiling = cid
        elif "inductor_output_code" in metadata:
            self._output_code(cid, payload or "")
        elif "compilation_metrics" in metadata:
            self._graph(cid)["metrics"] = _jsonable({k: v for k, v in metadata["compilation_metrics"].items()
                                                     if k not in BULKY_METRICS and not k.endswith("_config")})
            self._kept(self._graph(cid))
        elif "artifact" in metadata:
            self._on_artifact(cid, metadata["artifact"].get("name", ""), payload or "")

    def _on_artifact(self, cid: Optional[str], name: str, payload: str) -> None:
        if name == "dynamo_graph_break_reason":
            self.breaks.append({"compile_id": cid, "text": payload, "mechanism": "structured_trace"})
        elif name == "inductor_provenance_tracking_kernel_stack_traces" and payload:
            self._graph(cid).setdefault("kernel_stack_traces", {}).update(json.loads(payload))
        elif name.startswith("fx_graph_cache_"):
            graph = self._graph(cid)
            graph["fx_graph_cache"] = name[len("fx_graph_cache_"):]
            key = json.loads(payload).get("key") if payload.startswith("{") else None
            if key and key not in graph.setdefault("fx_graph_keys", []):
                graph["fx_graph_keys"].append(key)

    def _kept(self, graph: dict[str, Any]) -> None:
        """A compiled frame's graph, its compile over: its facts kept where it compiled one graph afresh, or taken
        from those kept where torch found that graph in its caches (``kept``: that compile's metrics and outcome)."""
        keys = graph.pop("fx_graph_keys", [])
        if self.kept is None or len(keys) != 1:
            return
        fingerprint = self.kept.fingerprint(graph)
        if graph.get("fx_graph_cache") == "miss":
            self.kept.keep(keys[0], fingerprint, graph)
        elif graph.get("fx_graph_cache") == "hit" and (kept := self.kept.load(keys[0], fingerprint)) is not None:
            graph.update({k: kept[k] for k in KEPT if k in kept and k not in COMPILE})
            graph["kept"] = {k: kept.get(k) for k in COMPILE}

    def on_log(self, record: logging.LogRecord) -> None:
        if record.name == RECOMPILES_LOG:
            text = " ".join(map(str, record.msg)) if isinstance(record.msg, tuple) else record.getMessage()
            found = GUARD_FAILURE.search(text)
            self.guard_failure = found.group(1).strip() if found else None
            return
        if record.name == LIMIT_LOG:
            if str(record.msg).startswith("torch._dynamo hit config."):
                self.limits.append(record.getMessage())
            return
        compile_id = torch._guards.CompileContext.current_compile_id()
        cid = None if compile_id is None else str(compile_id)
        args: Any = record.args  # the message's arguments: torch's own values
        if record.name == OUTPUT_CODE_LOG and record.levelno == logging.DEBUG:  # INFO twin: the path
            self._output_code(cid, str(args[0]))
        elif record.name == GRAPH_CODE_LOG:
            self._graph(cid)["fx_graph"] = record.getMessage()[:MAX_GRAPH_TEXT]
        elif record.name == COMPILE_LOG and args and hasattr(args[0], "graph_break"):
            reason = args[0]  # a GraphCompileReason, whatever the message's wording
            if reason.graph_break:  # same text as 2.1's graph_breaks logger
                stack = "".join(traceback.format_list(reason.user_stack))
                text = f"Graph break: {reason.reason} from user code at:\n{stack}"
                self.breaks.append({"compile_id": cid, "text": text, "mechanism": "logger"})


def _nest(lines: list[Any], nodes: list[Any], decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """One loop nest as generated: its distinct code lines, stripped (all that analysis needs to find the nest in the
    output code, which holds it as generated: half the size in an unrolled program's record), {user stack: [FX
    node names]} of what it computes, and the decisions Inductor made for it (see decisions.py)."""
    code: dict[str, None] = {}  # ordered, without repeats
    for line in lines:
        text = line if isinstance(line, str) else line() if callable(line) else None  # a DeferredLine
        if isinstance(text, str) and text.strip():
            code[text.strip()] = None
    stacks: dict[str, list[str]] = {}
    for node in nodes:
        for part in node.get_nodes() if hasattr(node, "get_nodes") else [node]:
            for origin in getattr(getattr(part, "node", None), "origins", ()) or ():
                stack = (origin.meta or {}).get("stack_trace") or ""
                stacks.setdefault(stack, []).append(origin.name)
    return {"code": list(code), "nodes": [n.get_name() for n in nodes],
            "origins": [{"stack": s, "fx_nodes": sorted(names)} for s, names in stacks.items()],
            "decisions": decisions}


def _module(name: str) -> Any:
    """The module ``name`` (torch's attributes differ by version: typed as anything), or None where it is missing."""
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _jsonable(value: object) -> Any:
    return json.loads(json.dumps(value, default=str))
