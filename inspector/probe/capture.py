"""Collect what torch.compile emits while a variant compiles: output code, graphs, breaks, metrics.

Two mechanisms, recorded per fact so analysis knows where each came from:
- ``structured_trace``: a handler on the ``torch.__trace`` logger (torch >= 2.3);
- ``logger``: the ``output_code`` artifact logger and Dynamo's "COMPILING GRAPH due to" debug record
  (torch < 2.3; names as in 2.1.2), with ``comment_origin`` on so cpp kernels carry ``// ORIGIN:``
  blocks naming each fused aten op and its user stack.
"""

import json
import logging
import traceback

import torch
import torch._inductor.config  # `import torch` alone does not load it in 2.1

MAX_GRAPH_TEXT = 400_000  # keep readable FX graphs of unrolled loops from bloating the record
OUTPUT_CODE_LOG = "torch._inductor.graph.__output_code"  # DEBUG "Output code: \n%s" % code
# DEBUG "COMPILING GRAPH due to %s" % GraphCompileReason, for every graph. Unlike the graph_breaks
# logger, it also reports a data-dependent `if` at a compiled frame's top level (2.1's generic_jump).
COMPILE_LOG = "torch._dynamo.output_graph"
# compilation metrics left out of the record: whole config dumps (tens of kB per graph) and a copy of provenance
BULKY_METRICS = {"inductor_provenance"}


def _has_structured_trace():
    return hasattr(torch._logging, "trace_structured")


class _TraceHandler(logging.Handler):
    def __init__(self, capture):
        super().__init__(logging.DEBUG)
        self.capture = capture

    def emit(self, record):
        metadata = getattr(record, "metadata", None)
        if isinstance(metadata, dict) and "chromium_event" not in metadata:
            self.capture.records += 1
            try:
                self.capture.on_trace(metadata, getattr(record, "payload", None))
            except Exception as e:  # never let capture break the user's compile
                self.capture.problems.append(f"{type(e).__name__}: {e}")


class _LogHandler(logging.Handler):
    def __init__(self, capture):
        super().__init__(logging.DEBUG)
        self.capture = capture

    def emit(self, record):
        self.capture.records += 1
        try:
            self.capture.on_log(record)
        except Exception as e:  # never let capture break the user's compile
            self.capture.problems.append(f"{type(e).__name__}: {e}")


class Capture:
    """Accumulates compile facts; ``take()`` returns and clears what was seen since the last call."""

    def __init__(self):
        self.mechanism = "structured_trace" if _has_structured_trace() else "logger"
        self.strings = {}
        self._reset()
        self._handlers = []

    def _reset(self):
        self.graphs = {}
        self.breaks = []
        self.problems = []
        self.records = 0

    def install(self):
        trace_config = getattr(torch._inductor.config, "trace", None)
        if hasattr(trace_config, "provenance_tracking_level"):
            trace_config.provenance_tracking_level = 1
        if self.mechanism == "structured_trace":
            self._attach("torch.__trace", _TraceHandler(self))
        else:
            torch._inductor.config.comment_origin = True
            self._attach(OUTPUT_CODE_LOG, _LogHandler(self))
            self._attach(COMPILE_LOG, _LogHandler(self))

    def _attach(self, name, handler):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False  # keep torch's stderr handlers on parent loggers quiet
        logger.addHandler(handler)
        self._handlers.append((logger, handler))

    def uninstall(self):
        for logger, handler in self._handlers:
            logger.removeHandler(handler)
        self._handlers.clear()

    def take(self):
        out = {"mechanism": self.mechanism, "graphs": list(self.graphs.values()), "breaks": self.breaks,
               "problems": self.problems, "records": self.records}
        self._reset()
        return out

    def _graph(self, compile_id):
        return self.graphs.setdefault(compile_id, {"compile_id": compile_id})

    def on_trace(self, metadata, payload):
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
            stack = [dict(f, filename=self.strings.get(f.get("filename"), f.get("filename")))
                     for f in metadata["dynamo_start"].get("stack", [])]
            self._graph(cid)["user_stack"] = stack
        elif "dynamo_output_graph" in metadata:
            self._graph(cid)["fx_graph"] = (payload or "")[:MAX_GRAPH_TEXT]
        elif "inductor_output_code" in metadata:
            self._graph(cid).setdefault("output_code", []).append(payload or "")
        elif "compilation_metrics" in metadata:
            self._graph(cid)["metrics"] = _jsonable({k: v for k, v in metadata["compilation_metrics"].items()
                                                     if k not in BULKY_METRICS and not k.endswith("_config")})
        elif "artifact" in metadata:
            self._on_artifact(cid, metadata["artifact"].get("name", ""), payload or "")

    def _on_artifact(self, cid, name, payload):
        if name == "dynamo_graph_break_reason":
            self.breaks.append({"compile_id": cid, "text": payload, "mechanism": "structured_trace"})
        elif name == "inductor_provenance_tracking_kernel_stack_traces" and payload:
            self._graph(cid).setdefault("kernel_stack_traces", {}).update(json.loads(payload))
        elif name.startswith("fx_graph_cache_"):
            self._graph(cid)["fx_graph_cache"] = name[len("fx_graph_cache_"):]

    def on_log(self, record):
        compile_id = torch._guards.CompileContext.current_compile_id()
        cid = None if compile_id is None else str(compile_id)
        if record.name == OUTPUT_CODE_LOG and record.levelno == logging.DEBUG:  # INFO twin: the path
            self._graph(cid).setdefault("output_code", []).append(str(record.args[0]))
        elif record.name == COMPILE_LOG and str(record.msg).startswith("COMPILING GRAPH due to"):
            reason = record.args[0]
            if reason.graph_break:  # same text as 2.1's graph_breaks logger
                stack = "".join(traceback.format_list(reason.user_stack))
                text = f"Graph break: {reason.reason} from user code at:\n{stack}"
                self.breaks.append({"compile_id": cid, "text": text, "mechanism": "logger"})


def _jsonable(value):
    return json.loads(json.dumps(value, default=str))
