"""The probe's passes in this process, on a real compile (torch imported here)."""

from pathlib import Path

import pytest


def test_the_profiled_pass_wraps_the_timed_kernels_and_puts_them_back():
    torch = pytest.importorskip("torch")
    from inspector.probe import profile
    from inspector.probe.capture import Capture

    from torch._inductor.codegen import cpp

    wrapped = [(cpp.TilingSelect, "select_tiling"), (cpp.CppKernel, "decide_parallel_depth"),
               (cpp.KernelGroup, "finalize_kernel"), (cpp.CppVecOverrides, "atan2")]
    before = [vars(target)[name] for target, name in wrapped]
    capture = Capture()
    capture.install()
    try:
        compiled = torch.compile(lambda x: (x.sin() + 1).sum(dim=1))
        x = torch.ones(64, 8, dtype=torch.float64)
        compiled(x)
        graphs = capture.take()["graphs"]
    finally:
        capture.uninstall()
    assert [vars(target)[name] for target, name in wrapped] == before  # Inductor's code generation put back
    (nest,) = [n for g in graphs for n in g.get("nests") or []]  # and its decisions recorded for the one nest
    assert {"tiling", "parallel", "kernel"} <= {d["kind"] for d in nest["decisions"]}
    (code,) = [c for g in graphs for c in g.get("output_code") or []]
    module = next(m for m in torch._inductor.codecache.PyCodeCache.modules if Path(m.__file__).read_text() == code)
    (name,) = profile.CPP_KERNEL.findall(code)
    kernel = getattr(module, name)
    result = profile.kernel_times(lambda: compiled(x), lambda: None, graphs, "cpu", 1e-3)
    assert getattr(module, name) is kernel  # restored
    (event,) = [e for e in result["events"] if e["name"] == name]
    assert event["graph"] == graphs[0]["compile_id"] and event["count"] == 1 and event["time_s"] > 0
    assert result["mechanism"] == "timed_kernels" and result["total_s"] >= event["time_s"]
    regions = profile.regions(lambda: compiled(x), lambda: None)
    assert 0 < regions["graphs_s"] <= regions["total_s"]


def test_a_library_call_of_the_profiled_pass_is_given_the_graph_whose_wrapper_made_it():
    """The kernels are timed with the clock, not in profiler ranges: the graph of a library call (aten::mm under a
    compiled graph's event) is learnt from the mark a timed kernel of that graph leaves in the same event."""
    torch = pytest.importorskip("torch")
    from inspector.probe import profile
    from inspector.probe.capture import Capture

    capture = Capture()
    capture.install()
    try:
        compiled = torch.compile(lambda x, w: (x @ w).relu().sum(dim=1))
        x, w = torch.rand(256, 16), torch.rand(16, 16)
        compiled(x, w)
        graphs = capture.take()["graphs"]
    finally:
        capture.uninstall()
    result = profile.kernel_times(lambda: compiled(x, w), lambda: None, graphs, "cpu", 1e-3)
    (mm,) = [e for e in result["events"] if e["name"] == "aten::mm"]
    (graph,) = {g["compile_id"] for g in graphs if g.get("output_code")}
    assert mm["graph"] == graph and mm["count"] == 1 and mm["time_s"] > 0


def test_a_failed_guard_is_kept_only_where_python_finds_it_failing_as_torchs_own_reason_does():
    """torch's check can report a relational guard failed where it holds; the probe then says it cannot tell."""
    torch = pytest.importorskip("torch")
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

    from inspector.probe.function import fails

    def scaled(x, c):
        return x * c

    torch.compile(scaled, backend="eager")(torch.ones(4), 2.0)  # Dynamo's guards; no Inductor compile needed
    (entry,) = _debug_get_cache_entry_list(scaled.__code__)
    manager, here = entry.guard_manager, {"x": torch.ones(4), "c": 2.0}
    assert manager.check_verbose(here).result
    assert fails(manager, "L['c'] == 3.0", here) and not fails(manager, "L['c'] == 2.0", here)
    assert fails(manager, "tensor 'x' size mismatch at index 0. expected 4, actual 5", here)  # torch's words
    assert not fails(manager, "L['missing'] == 1", here)  # cannot be evaluated here: not said to fail


def test_a_tensor_argument_of_a_class_not_torchs_is_recorded_with_its_class():
    """EvoTorch hands a fitness a ReadOnlyTensor: the probe records that class for the argument (a break in its
    code gets the fix of a plain tensor); a plain tensor and torch's own subclasses (a Parameter) record none."""
    torch = pytest.importorskip("torch")
    from inspector.probe.tracking import _argument

    class ReadOnly(torch.Tensor):
        pass

    x = torch.zeros(4, 3)
    assert _argument("x", x.as_subclass(ReadOnly))["subclass"] == f"{__name__}.{ReadOnly.__qualname__}"
    assert _argument("x", x.as_subclass(ReadOnly))["shape"] == [4, 3]
    assert "subclass" not in _argument("x", x) and "subclass" not in _argument("w", torch.nn.Parameter(x))
