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
    assert result["mechanism"] == "wrapped_kernels" and result["total_s"] >= event["time_s"]
    regions = profile.regions(lambda: compiled(x), lambda: None)
    assert 0 < regions["graphs_s"] <= regions["total_s"]
