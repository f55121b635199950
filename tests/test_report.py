"""End to end through the CLI: `inspector report` on the blog samples, as the README promises."""

import json

import pytest

from conftest import ROOT, run_cli, variant


@pytest.mark.parametrize("stem", ["poly", "trig", "sum"])
def test_every_cpu_variant_runs_and_matches(blog_reports, stem):
    proc, record, html, out = blog_reports[stem]
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    for v in record["variants"]:
        if v["device"] == "cuda" and not record["env"]["cuda"]:
            assert v["status"] == "skipped" and "CUDA" in v["error"]
            continue
        assert v["status"] == "ok", (v["id"], v.get("error"))
        assert v["matches_reference"] is True, (v["id"], v.get("mismatch"))
        t = v["timing"]
        assert t["min_s"] <= t["median_s"] <= t["max_s"] and t["runs"] >= 3
    assert record["reference"] == "python"
    # one progress line per variant, then the seed-style table
    assert sum(line.strip().startswith("[") for line in proc.stderr.splitlines()) == len(record["variants"])
    assert "vs python" in proc.stdout


def test_record_keys_other_tools_read(blog_reports):
    _, record, _, out = blog_reports["trig"]
    assert record["schema"] == "inspector.record/1"
    assert {"path", "title", "population"} <= set(record["sample"])
    assert {"python", "torch", "numpy", "threads", "cuda"} <= set(record["env"])
    for v in record["variants"]:
        assert {"id", "function", "kind", "compiled", "device", "status", "error", "matches_reference",
                "timing", "speedup_vs_python", "graph_breaks", "kernels", "lines"} <= set(v)
    v = variant(record, "numpy-compiled-cpu")
    assert {"compile_s", "first_call_s", "median_s", "min_s", "max_s", "runs"} <= set(v["timing"])
    assert v["timing"]["first_call_s"] > v["timing"]["median_s"]
    for k in v["kernels"]:
        assert {"name", "backend", "parallel", "vectorized", "code"} <= set(k)
    # the structured trace stays beside the record for tlparse
    assert record["trace_dir"] == "trig.trace"
    assert any((out / "trig.trace").iterdir())


@pytest.mark.parametrize("stem", ["poly", "trig"])
def test_constraint_kernels_are_parallel_and_every_helper_line_too(blog_reports, stem):
    _, record, html, _ = blog_reports[stem]
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        v = variant(record, vid)
        cpp = [k for k in v["kernels"] if k["backend"] == "cpp"]
        assert cpp and all(k["parallel"] for k in cpp), vid
        helper_lines = [e for e in v["lines"] if e["function"] != v["function"]]
        assert helper_lines, vid
        for e in helper_lines:
            assert e["status"] == "parallel", (vid, e)
            assert "provenance" in e["how"]
            assert e["kernels"]
        # population stored (N, 3) row-major: strided loads keep SIMD off, and the report says why
        assert all(e["vectorized"] == "none" for e in helper_lines)
        assert any("strided loads" in w for e in helper_lines for w in e["why"])
        assert not v["graph_breaks"]
    assert "Why not vectorized" in html and "#pragma omp parallel" in html


def test_sum_compiled_kernels_are_vectorized(blog_reports):
    _, record, _, _ = blog_reports["sum"]
    for vid in ("numpy-compiled-cpu", "torch-compiled-cpu"):
        cpp = [k for k in variant(record, vid)["kernels"] if k["backend"] == "cpp"]
        assert cpp and all(k["vectorized"] for k in cpp), vid
        assert all(k["reduction"] for k in cpp), vid


def test_apply_along_axis_break_is_reported_on_its_line(blog_reports):
    _, record, _, _ = blog_reports["sum"]
    v = variant(record, "numpy_apply-compiled-cpu")
    source = record["sample"]["source"].splitlines()
    line = next(i for i, text in enumerate(source, 1) if "return np.apply_along_axis" in text)
    assert any(b["line"] == line for b in v["graph_breaks"]), v["graph_breaks"]
    assert any(e["line"] == line and e["status"] == "graph-break" for e in v["lines"])


def test_render_reanalyses_a_record(blog_reports, tmp_path):
    _, record, _, out = blog_reports["poly"]
    proc = run_cli("render", out / "poly.json", "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "poly.html").read_text()
    assert "Constrained polynomial" in html and "numpy-compiled-cpu" in html


def test_a_folder_reports_every_sample_and_links_them_from_an_index(tmp_path):
    proc = run_cli("report", "samples", "-n", "1500", "--budget", "0.02", "-v", "*-compiled-cpu", "-v", "numpy",
                   "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    index = (tmp_path / "index.html").read_text()
    stems = sorted(p.stem for p in (ROOT / "samples").glob("*.py"))
    assert len(stems) >= 6
    for stem in stems:
        assert (tmp_path / f"{stem}.html").exists() and (tmp_path / f"{stem}.json").exists()
        assert f'href="{stem}.html"' in index
    assert "graph break" in index and "numpy-compiled-cpu" in index
