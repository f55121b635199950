"""Triton kernels: the codegen preview for a CPU target (no GPU needed), and the real CUDA path (GPU only)."""

import importlib.util
import json
import math

import pytest

from conftest import run_cli, variant
from inspector.analysis import kernels as kernels_mod

needs_triton = pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                  reason="triton is not installed: pip install -e '.[triton]' (Linux)")
PREVIEWS = ("numpy-triton-preview", "torch-triton-preview")


def _cuda_available():
    import torch
    return torch.cuda.is_available()


needs_cuda = pytest.mark.skipif(not _cuda_available(), reason="CUDA is not available (torch.cuda.is_available() is "
                                "False): these run on a GPU machine, see scripts/device-check.sh")


@pytest.fixture(scope="module")
def previews(tmp_path_factory):
    """{stem: (CompletedProcess, record, html)} for poly and trig with --triton-preview."""
    out = tmp_path_factory.mktemp("preview")
    built = {}
    for stem in ("poly", "trig"):
        proc = run_cli("report", f"samples/{stem}.py", "-n", 2000, "--budget", 0.05, "--triton-preview",
                       "-v", "*-triton-preview", "-v", "numpy", "-o", out)
        record = json.loads((out / f"{stem}.json").read_text())
        built[stem] = (proc, record, (out / f"{stem}.html").read_text())
    return built


@needs_triton
@pytest.mark.parametrize("stem", ["poly", "trig"])
def test_preview_shows_triton_source_for_the_constraint_kernels(previews, stem):
    proc, record, html = previews[stem]
    assert proc.returncode == 0, proc.stderr
    assert [v["id"] for v in record["variants"]] == ["numpy", *PREVIEWS]
    for vid in PREVIEWS:
        v = variant(record, vid)
        assert v["status"] == "ok", v.get("error")
        assert v["preview"] is True and v["device"] == "cpu (Triton preview)"
        assert v["timing"] is None and v["matches_reference"] is None  # never timed, never cross-checked
        (k,) = v["kernels"]  # the whole fitness fuses into one pointwise kernel
        assert k["backend"] == "triton" and k["kind"] == "pointwise" and k["parallel"]
        for text in ("@triton.jit", "tl.load(", "tl.where(", "tl.program_id(0)"):
            assert text in k["code"], text
        assert k["triton"]["target"] == "cpu" and k["triton"]["numels"] == {"xnumel": 2000}
        assert k["masked_loads"] == k["loads"] == 3
        # the (N, 3) row-major population: each gene is read every 3rd element, uncoalesced on a GPU
        assert k["strided_loads"] == ["in_ptr0 + (1 + 3*x0)", "in_ptr0 + (2 + 3*x0)", "in_ptr0 + (3*x0)"]
        assert {"Triton grid (program_id)", "strided load", "tl.where"} <= {
            e["what"] for e in k["evidence"]}
        helper = [e for e in v["lines"] if e["function"].startswith("check_constraints")]
        assert helper and all(e["status"] == "parallel" and e["vectorized"] == "n/a" for e in helper)
        assert all("provenance" in e["how"] and k["id"] in e["kernels"] for e in helper)
        assert all(any(w.startswith("Triton: strided loads") for w in e["why"]) for e in helper)
    assert html.count("Triton preview for a CPU target, not the CUDA kernel; not timed") == 2
    assert "not run: a Triton codegen preview for a CPU target" in html
    assert "block sizes and warps autotuned at the first launch" in html
    assert proc.stderr.count("Triton code for a CPU target, not run") == 2


def test_preview_without_triton_is_skipped_with_the_install_hint(monkeypatch):
    from inspector.probe import triton_preview
    monkeypatch.setattr(triton_preview.importlib.util, "find_spec", lambda name: None)
    assert "triton is not installed (pip install 'inspector[triton]')" == triton_preview.unavailable()


def test_launch_config_gives_the_grid():
    code = ("@triton_heuristics.persistent_reduction(\n    size_hints={'x': 2048, 'r0_': 1024},\n"
            "    triton_meta={'device': DeviceProperties(type='cuda', index=0)},\n"
            "    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'k'}\n)\n@triton.jit\n"
            "def k(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):\n"
            "    xnumel = 2000\n    r0_numel = 1000\n    R0_BLOCK: tl.constexpr = 1024\n"
            "    tmp0 = tl.load(in_ptr0 + (r0_1 + 1000*x0), r0_mask & xmask, other=0.0)\n")
    kernel = kernels_mod.classify_triton("k", code)
    assert kernel["strided_loads"] == [] and kernel["masked_loads"] == 1  # contiguous along the row
    assert kernel["triton"]["size_hints"] == {"x": 2048, "r0_": 1024} and kernel["triton"]["target"] == "cuda"
    kernels_mod.attach_launch_configs([kernel], {"k": {"kwargs": {"XBLOCK": 8}, "num_warps": 8, "num_stages": 1}})
    assert kernel["triton"]["grid"] == [250]
    assert kernel["triton"]["text"] == "grid 250 programs; R0_BLOCK=1024, XBLOCK=8; 8 warps"


@pytest.fixture(scope="module")
def cuda_reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("cuda")
    built = {}
    for stem, n in (("poly", 200_000), ("sum", 20_000)):
        proc = run_cli("report", f"samples/{stem}.py", "-n", n, "--budget", 0.2, "-v", "numpy",
                       "-v", "numpy-compiled-cuda", "-v", "torch-compiled-cuda", "-o", out)
        built[stem] = (proc, json.loads((out / f"{stem}.json").read_text()), (out / f"{stem}.html").read_text(), n)
    return built


@needs_cuda
@pytest.mark.parametrize("stem", ["poly", "sum"])
def test_cuda_variants_run_triton_kernels_with_their_launch_and_copy_cost(cuda_reports, stem):
    proc, record, html, n = cuda_reports[stem]
    assert proc.returncode == 0, proc.stderr
    assert record["env"]["cuda"]
    width, itemsize = record["sample"]["shape"][1], {"float64": 8, "int8": 1}[record["sample"]["dtype"]]
    for vid in ("numpy-compiled-cuda", "torch-compiled-cuda"):
        v = variant(record, vid)
        assert v["status"] == "ok" and v["matches_reference"] is True, (vid, v.get("error"), v.get("mismatch"))
        assert v["timing"]["median_s"] > 0
        copies = v["transfer"]
        assert copies["to_device_bytes"] == n * width * itemsize and copies["to_device_s"] > 0
        assert copies["to_host_bytes"] and copies["to_host_s"] > 0
        triton = [k for k in v["kernels"] if k["backend"] == "triton"]
        assert triton and all(k["triton"]["target"] == "cuda" for k in triton)
        assert set(v["launch_configs"]) == {k["name"] for k in triton}
        for k in triton:
            launch = k["triton"]
            blocks = {**launch["blocks"], **launch["config"]["kwargs"]}
            assert launch["config"]["num_warps"] >= 1 and "XBLOCK" in blocks
            assert launch["grid"][0] == math.ceil(launch["numels"]["xnumel"] / blocks["XBLOCK"])
        lines = [e for e in v["lines"] if e["status"]]
        assert lines and all(e["status"] == "parallel" and e["vectorized"] == "n/a" for e in lines)
    assert "inputs moved to the GPU once, not timed" in html and "warps" in html
