"""Every way a run can go wrong, made to really happen through the CLI: one clear line, nothing lost.

Tiny populations and eager variants keep this file fast; only the compiler test compiles.
"""

import json
import os
import signal
import subprocess
import sys

import pytest
from markupsafe import escape

from conftest import ROOT, run_cli, variant

BAD = ROOT / "tests" / "bad_samples"
FAST = ("--population", 200, "--budget", 0.05)


def report(sample, *args, out, **kwargs):
    return run_cli("report", sample, "-o", out, *FAST, *args, **kwargs)


def one_error_line(proc):
    """The single "inspector: error:" line of stderr (and no traceback)."""
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "inspector: error:" in ln]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def progress_line(proc, vid):
    return next(ln for ln in proc.stderr.splitlines() if ln.strip().startswith("[") and f" {vid} " in ln)


@pytest.mark.parametrize("sample, args, expected", [
    ("tests/bad_samples/missing.py", (), "missing.py: no such file"),
    ("tests/bad_samples/not_python.txt", (), "not_python.txt: not a Python file"),
    ("tests/bad_samples/syntax_error.py", (), "syntax_error.py:4: syntax error: expected ':'"),
    ("tests/bad_samples/import_error.py", (), "import_error.py: raised on import: RuntimeError: cannot find"),
    ("tests/bad_samples/no_population.py", (), "no_population.py: no population(n, rng) function"),
    ("tests/bad_samples/population_list.py", (), "population_list.py: population() returned list, not a numpy"),
    ("tests/bad_samples/population_empty.py", (), "population_empty.py: population() returned an empty array"),
    ("tests/bad_samples/no_variants.py", (), "no_variants.py: no variants"),
    ("tests/bad_samples/bad_variants.py", ("-v", "nope"), "bad_variants.py: no variant nope (it has: numpy, "),
    # the probe builds population(1) first and refuses before allocating
    ("tests/bad_samples/bad_variants.py", ("-v", "numpy", "--population", 10**15), "use a smaller --population"),
])
def test_sample_that_cannot_run_is_one_line_and_exit_2(tmp_path, sample, args, expected):
    proc = report(sample, *args, out=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert expected in one_error_line(proc)
    assert not list(tmp_path.glob("*.json"))


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory):
    """One report over every failing variant, in an order where each failure is followed by others."""
    out = tmp_path_factory.mktemp("bad")
    ids = ["numpy", "numpy_raises", "numpy_short", "numpy_strings", "numpy_nan", "numpy_exits", "numpy_killed",
           "numpy_hangs", "numpy_last"]
    proc = report("tests/bad_samples/bad_variants.py", "--timeout", 3, *[a for i in ids for a in ("-v", i)],
                  out=out)
    record = json.loads((out / "bad_variants.json").read_text())
    return proc, record, (out / "bad_variants.html").read_text(), out


def test_failed_variants_exit_1_and_the_others_are_measured(bad_run):
    proc, record, html, out = bad_run
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "inspector: error:" not in proc.stderr
    for vid in ("numpy", "numpy_last"):
        assert variant(record, vid)["status"] == "ok" and variant(record, vid)["matches_reference"] is True
    assert record["reference"] == "numpy" and record["probe_restarts"] == 3
    for v in record["variants"]:  # the report marks each failed variant with its message
        for message in (v["error"], v.get("mismatch")):
            assert message is None or str(escape(message)) in html, message
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no temporary files left


def test_variant_that_raises(bad_run):
    proc, record, _, _ = bad_run
    v = variant(record, "numpy_raises")
    assert (v["status"], v["error"], v["error_line"]) == ("error", "ValueError: negative weight in gene 3", 22)
    assert "ValueError: negative weight in gene 3 (line 22)" in progress_line(proc, "numpy_raises")
    assert "Traceback" in v["error_detail"]  # kept for --verbose and the report's details


def test_variant_returning_wrong_length(bad_run):
    proc, record, _, _ = bad_run
    v = variant(record, "numpy_short")
    assert v["matches_reference"] is False
    assert "numpy_short: does not match numpy: returned shape (199,), expected (200,)" in proc.stderr


def test_variant_returning_strings(bad_run):
    proc, record, _, _ = bad_run
    v = variant(record, "numpy_strings")
    assert (v["status"], v["error"]) == ("error", "TypeError: returned ndarray of dtype <U4, not numbers")
    assert v["error"] in progress_line(proc, "numpy_strings")


def test_variant_returning_nan_names_first_differing_individuals(bad_run):
    proc, record, _, _ = bad_run
    v = variant(record, "numpy_nan")
    assert v["matches_reference"] is False
    assert v["mismatch"].startswith("2 of 200 individuals differ (first: #5: expected ")
    assert "got nan; #7: expected " in v["mismatch"]
    assert f"numpy_nan: does not match numpy: {v['mismatch']}" in proc.stderr


@pytest.mark.parametrize("vid, how", [("numpy_exits", "exit code 1"), ("numpy_killed", "killed by SIGKILL")])
def test_variant_that_kills_the_probe(bad_run, vid, how):
    proc, record, _, _ = bad_run
    v = variant(record, vid)
    assert (v["status"], v["error"]) == ("error", f"the probe process died ({how}) while running it")
    assert v["error"] in progress_line(proc, vid)


def test_variant_that_hangs_times_out(bad_run):
    proc, record, _, _ = bad_run
    v = variant(record, "numpy_hangs")
    assert (v["status"], v["error"]) == ("timeout", "timed out after 3 s (see --timeout)")
    assert "timeout" in progress_line(proc, "numpy_hangs")


def test_missing_compiler_is_a_compile_error_of_that_variant(tmp_path):
    # Inductor looks for the C++ compiler in torch._inductor.config.cpp.cxx, which defaults to $CXX (g++)
    # and runs `$CXX --version` when it first compiles a kernel. A fresh cache dir makes sure it has to.
    env = dict(os.environ, CXX=str(tmp_path / "no-such-c++"), TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"))
    proc = report(BAD / "compiled.py", "-v", "torch", "-v", "torch-compiled-cpu", out=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    record = json.loads((tmp_path / "compiled.json").read_text())
    assert variant(record, "torch")["status"] == "ok"
    v = variant(record, "torch-compiled-cpu")
    assert (v["status"], v["error_stage"]) == ("error", "compile")
    assert "InvalidCxxCompiler: No working C++ compiler found" in v["error"]
    assert v["error"] in progress_line(proc, "torch-compiled-cpu")


def test_cuda_variant_without_cuda_is_skipped_not_failed(tmp_path):
    proc = report(BAD / "compiled.py", "-v", "torch", "-v", "torch-compiled-cuda", out=tmp_path)
    record = json.loads((tmp_path / "compiled.json").read_text())
    v = variant(record, "torch-compiled-cuda")
    if record["env"]["cuda"]:
        pytest.skip("this machine has CUDA")
    assert proc.returncode == 0, proc.stderr
    assert (v["status"], v["error"]) == ("skipped", "CUDA is not available (torch.cuda.is_available() is False)")
    assert "skipped" in progress_line(proc, "torch-compiled-cuda")


def test_hostile_text_and_bytes_are_escaped_in_the_report(tmp_path):
    # hostile.py: <script> in the title and in a variant's error, quotes, a latin-1 byte in a comment (no
    # coding line) and an undecodable byte in the error message (a lone surrogate, as os.fsdecode makes).
    proc = report(BAD / "hostile.py", "-v", "numpy", "-v", "numpy_hostile", out=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    html = (tmp_path / "hostile.html").read_text(encoding="utf-8")
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    record = json.loads((tmp_path / "hostile.json").read_text(encoding="utf-8"))
    assert record["sample"]["title"] == "<script>alert(1)</script> \"quoted\" & 'single'"
    assert "caf\ufffd" in record["sample"]["source"]
    assert variant(record, "numpy_hostile")["error"] == "ValueError: <script>alert(1)</script> \"q\" 'q' caf\udce9"
    assert run_cli("render", tmp_path / "hostile.json").returncode == 0


def test_ctrl_c_keeps_what_was_measured(tmp_path):
    cmd = [sys.executable, "-m", "inspector", "report", BAD / "bad_variants.py", "-o", tmp_path, *map(str, FAST),
           "-v", "numpy", "-v", "numpy_hangs", "-v", "numpy_last"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    stderr = ""
    while " numpy " not in stderr:  # the first variant is measured; numpy_hangs sleeps next
        line = proc.stderr.readline()
        assert line, stderr
        stderr += line
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does to the terminal's foreground group
    stderr += proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    record = json.loads((tmp_path / "bad_variants.json").read_text())
    assert record["interrupted"] is True
    assert variant(record, "numpy")["status"] == "ok"
    assert variant(record, "numpy_hangs")["status"] == "skipped"
    assert variant(record, "numpy_last")["error"] == "interrupted before it ran"


@pytest.mark.parametrize("text, expected", [
    ('{"schema": "inspector.rec', "not valid JSON"),
    ('{"a": 1}', "not an inspector record"),
    ('{"schema": "inspector.record/1", "sample": {}, "env": {}, "variants": [{}]}', "internal error: KeyError"),
])
def test_render_of_a_bad_record_is_one_line_and_exit_2(tmp_path, text, expected):
    (tmp_path / "r.json").write_text(text)
    proc = run_cli("render", tmp_path / "r.json")
    assert proc.returncode == 2, proc.stderr
    assert expected in one_error_line(proc)
    assert not (tmp_path / "r.html").exists()
