"""Triton kernels: the codegen preview for a CPU target (no GPU needed), and the real CUDA path (GPU only)."""

import importlib.util
import math

import pytest

from conftest import python_with_site, run_cli
from inspector.analysis import analyze
from inspector.record import load

needs_triton = pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                  reason="triton is not installed: pip install -e '.[triton]' (Linux)")


def _cuda_available():
    import torch
    return torch.cuda.is_available()


needs_cuda = pytest.mark.skipif(not _cuda_available(), reason="CUDA is not available (torch.cuda.is_available() is "
                                "False): these run on a GPU machine, see scripts/device-check.sh")


@needs_triton
def test_preview_shows_the_triton_source_inductor_writes(tmp_path):
    proc = run_cli("report", "samples/poly.py", "-n", 2000, "--budget", 0.05, "--triton-preview",
                   "-v", "*-triton-preview", "-v", "numpy", "--no-rewrites", "--no-warm", "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    a = analyze(load(tmp_path / "poly.json"))
    assert [v.id for v in a.variants] == ["numpy", "numpy-triton-preview", "torch-triton-preview"]
    for v in a.variants[1:]:
        (k,) = v.code.kernels
        assert v.status == "ok" and k.backend == "triton" and k.triton.target == "cpu" and "@triton.jit" in k.code
        assert all(e.status == "parallel" and e.vectorized == "n/a" for e in v.code.lines if e.status)
    html = (tmp_path / "poly.html").read_text()
    assert html.count("Triton preview for a CPU target, not the CUDA kernel; not timed") == 2
    assert "not run: a Triton codegen preview for a CPU target" in html
    assert proc.stderr.count("Triton code for a CPU target, not run") == 2


def test_preview_without_triton_is_skipped_with_the_install_hint(tmp_path):
    """An interpreter that cannot import triton (hidden by its sitecustomize): the preview variants are skipped,
    with the hint, and the run still succeeds."""
    python = python_with_site(tmp_path, "import sys\nsys.modules['triton'] = None  # as if not installed\n")
    proc = run_cli("report", "samples/poly.py", "-n", 200, "--budget", 0.02, "--triton-preview", "--python", python,
                   "-v", "numpy", "-v", "numpy-triton-preview", "--no-rewrites", "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    v = analyze(load(tmp_path / "poly.json")).variant("numpy-triton-preview")
    assert (v.status, v.error) == ("skipped", "triton is not installed (pip install 'inspector[triton]')")


@pytest.fixture(scope="module")
def cuda_reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("cuda")
    built = {}
    for stem, n in (("poly", 200_000), ("sum", 20_000)):
        proc = run_cli("report", f"samples/{stem}.py", "-n", n, "--budget", 0.2, "-v", "numpy",
                       "-v", "numpy-compiled-cuda", "-v", "torch-compiled-cuda", "--no-rewrites", "--no-warm",
                       "-o", out)
        built[stem] = (proc, analyze(load(out / f"{stem}.json")), (out / f"{stem}.html").read_text(), n)
    return built


@needs_cuda
@pytest.mark.parametrize("stem", ["poly", "sum"])
def test_cuda_variants_run_triton_kernels_with_their_launch_and_copy_cost(cuda_reports, stem):
    proc, a, html, n = cuda_reports[stem]
    assert proc.returncode == 0, proc.stderr
    assert a.env.cuda
    width, itemsize = a.sample.shape[1], {"float64": 8, "int8": 1}[a.sample.dtype]
    for vid in ("numpy-compiled-cuda", "torch-compiled-cuda"):
        v = a.variant(vid)
        assert v.status == "ok" and v.check.matches is True, (vid, v.error, v.check.mismatch)
        assert v.timing.median_s > 0
        copies = v.timing.transfer
        assert copies.to_device_bytes == n * width * itemsize and copies.to_device_s > 0
        assert copies.to_host_bytes and copies.to_host_s > 0
        triton = [k for k in v.code.kernels if k.backend == "triton"]
        assert triton and all(k.triton.target == "cuda" for k in triton)
        for k in triton:
            launch = k.triton
            blocks = {**launch.blocks, **launch.config["kwargs"]}
            assert launch.config["num_warps"] >= 1 and "XBLOCK" in blocks
            assert launch.grid[0] == math.ceil(launch.numels["xnumel"] / blocks["XBLOCK"])
        lines = [e for e in v.code.lines if e.status]
        assert lines and all(e.status == "parallel" and e.vectorized == "n/a" for e in lines)
    assert "inputs moved to the GPU once, not timed" in html and "warps" in html
