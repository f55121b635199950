"""The Triton codegen preview: the Triton kernels Inductor writes for a CPU target, generated, never run.

With ``cpu_backend="triton"`` Inductor writes Triton kernels for the CPU even where no GPU (and no Triton
CPU driver) exists. Each graph is lowered and its output code captured like any other, then the graph
runs as its eager FX graph, so the code after a graph break still runs and is compiled in turn. Nothing
is timed: it is a preview of Triton for a CPU target, not the CUDA kernel (on a GPU the block sizes,
warps and grid are autotuned for the device).
"""

import importlib.util
from collections.abc import Callable
from typing import Any, Optional
from unittest import mock

import numpy as np

import torch
import torch._inductor.config

from inspector.probe import guard
from inspector.probe.capture import Capture
from inspector.probe.sample import Variant
from inspector.raw import Status


def unavailable() -> Optional[str]:
    """Why this interpreter cannot make the preview, or None."""
    if importlib.util.find_spec("triton") is None:
        return "triton is not installed (pip install 'inspector[triton]')"
    if not all(hasattr(m, a) for m, a in ((torch._inductor.config, "cpu_backend"), (torch.compiler, "wrap_numpy"),
                                          (torch._logging, "trace_structured"))):
        return f"torch {torch.__version__} cannot generate Triton code for the CPU (cpu_backend)"
    return None


def run(variant: Variant, fn: Callable[..., object], population: np.ndarray, capture: Capture,
        python_lines: Callable[[Callable[[], object]], object]) -> dict[str, Any]:
    """The raw result of one numpy or torch variant's preview (status, capture, python_lines).

    ``python_lines(call)``: the lines that ran as Python during ``call()``.
    """
    from torch._inductor.compile_fx import compile_fx
    from torch._inductor.graph import GraphLowering
    import torch.utils._triton as triton_utils

    def codegen_only(graph: Any) -> _NotCompiled:
        wrapper, _ = graph.codegen_with_cpp_wrapper() if graph.cpp_wrapper else graph.codegen()
        torch._logging.trace_structured("inductor_output_code", payload_fn=lambda: wrapper.value)
        return _NotCompiled()

    def backend(gm: Any, example_inputs: Any) -> Any:
        compile_fx(gm, example_inputs)  # lowers the graph; codegen_only captures its output code
        return gm.forward

    target = guard.user(torch.compile(torch.compiler.wrap_numpy(fn) if variant.kind == "numpy" else fn,
                                      backend=backend))
    torch._dynamo.reset()
    capture.take()
    # the hash names the Triton backend's CPU driver, which triton alone lacks: a constant stands in
    with torch._inductor.config.patch(cpu_backend="triton", fx_graph_cache=False), \
            mock.patch.object(triton_utils, "triton_hash_with_backend", lambda: "triton-preview"), \
            mock.patch.object(GraphLowering, "compile_to_module", codegen_only):
        data = torch.from_numpy(population)
        target(data)
        result = {"status": Status.OK, "capture": capture.take(), "python_lines": python_lines(lambda: target(data))}
    return result


class _NotCompiled:
    """Stands in for the compiled module of a graph that was generated only."""

    def call(self, args: object) -> None:
        raise RuntimeError("the Triton preview is generated, not compiled")
