"""Every way a run can go wrong, made to really happen through the CLI: one clear line, nothing lost.

Tiny populations and eager variants keep this file fast: a sample that breaks the contract fails before torch is
imported; only the compiler test and the fault-injection test compile.
"""

import os
import signal
import subprocess
import sys

import pytest
from markupsafe import escape

from conftest import HOSTILE_ERROR, HOSTILE_TITLE, ROOT, interruptible, python_with_site, run_cli
from inspector.analysis import analyze
from inspector.record import load

BAD = ROOT / "tests" / "bad_samples"
FAST = ("--population", 200, "--budget", 0.05, "--rounds", 0, "--no-rewrites", "--no-warm")


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
    ("tests/bad_samples/no_population.py", (), "no_population.py is not a sample: it has no population(n, rng) "
     "function (a program? `inspector run tests/bad_samples/no_population.py` runs it as it is)"),
    # imported with sys.argv [its path] only (it raises on any other), it gets as far as its variants
    ("tests/bad_samples/reads_argv.py", (), "reads_argv.py: no variants"),
    ("tests/bad_samples/population_list.py", (), "population_list.py: population() returned list, not a numpy"),
    ("tests/bad_samples/population_empty.py", (), "population_empty.py: population() returned an empty array"),
    ("tests/bad_samples/no_variants.py", (), "no_variants.py: no variants"),
    ("tests/bad_samples/bad_variants.py", ("-v", "nope"), "bad_variants.py: no variant nope (it has: numpy, "),
    # the probe builds population(1) first and refuses before allocating
    ("tests/bad_samples/bad_variants.py", ("-v", "numpy", "--population", 10**15), "use a smaller --population"),
    ("tests/bad_samples/bad_variants.py", ("-c", "no.such.option=1"), "--config no.such.option: no such torch"),
])
def test_sample_that_cannot_run_is_one_line_and_exit_2(tmp_path, sample, args, expected):
    proc = report(sample, *args, out=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert expected in one_error_line(proc)
    assert not list(tmp_path.glob("*.json"))


def test_a_folders_program_is_skipped_in_one_line_and_its_sample_still_run(tmp_path):
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "no_variants.py").write_text((BAD / "no_variants.py").read_text())
    (tmp_path / "samples" / "ga.py").write_text((ROOT / "samples" / "programs" / "ga.py").read_text())
    proc = report(tmp_path / "samples", out=tmp_path / "out")
    assert proc.returncode == 2 and "no_variants.py: no variants" in one_error_line(proc)
    ga = tmp_path / "samples" / "ga.py"
    assert (f"inspector: skipped: {ga} is not a sample: it has no population(n, rng) function (a program? "
            f"`inspector run {ga}` runs it as it is)") in proc.stderr.splitlines()


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory):
    """One report over every failing variant, in an order where each failure is followed by others."""
    out = tmp_path_factory.mktemp("bad")
    ids = ["numpy", "numpy_raises", "numpy_short", "numpy_strings", "numpy_nan", "numpy_exits", "numpy_killed",
           "numpy_hangs", "numpy_rows-compiled-cpu", "numpy_last"]
    proc = report("tests/bad_samples/bad_variants.py", "--timeout", 3, *[a for i in ids for a in ("-v", i)],
                  out=out)
    record = load(out / "bad_variants.json")
    return proc, record, analyze(record), (out / "bad_variants.html").read_text(), out


def test_failed_variants_exit_1_and_the_others_are_measured(bad_run):
    proc, record, a, html, out = bad_run
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "inspector: error:" not in proc.stderr
    for vid in ("numpy", "numpy_last"):
        assert a.variant(vid).status == "ok" and a.variant(vid).check.matches is True
    assert a.reference == "numpy" and a.probe_restarts == 3
    for v in a.variants:  # the report marks each failed variant with its message
        for message in (v.error, v.check.mismatch):
            assert message is None or str(escape(message)) in html, message
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no temporary files left


def test_a_compiled_variant_torch_would_unroll_over_the_rows_is_skipped_at_once_and_says_why(bad_run):
    """Its loop over the rows traced on 4 and 8 rows with no compiler behind: the graphs grow with the rows, so it is
    not compiled on the 200 (a one-line loop over 400 rows took 97 s to compile; the probe's timeout is 3 s here)."""
    proc, _, a, html, _ = bad_run
    v = a.variant("numpy_rows-compiled-cpu")
    assert v.status == "skipped", (v.status, v.error)
    assert v.error.startswith("not compiled: torch.compile unrolls its Python loop over the rows, one copy of its body")
    assert v.error.endswith("not tried on 200 rows") and str(escape(v.error)) in html


def test_variant_that_raises(bad_run):
    proc, _, a, _, _ = bad_run
    v = a.variant("numpy_raises")
    assert (v.status, v.error, v.error_line, v.error_stage) == ("error", "ValueError: negative weight in gene 3", 22,
                                                                "run")
    assert "ValueError: negative weight in gene 3 (line 22)" in progress_line(proc, "numpy_raises")
    assert "Traceback" in v.error_detail  # kept for --verbose and the report's details
    assert v.internal_errors == ()  # the user's error, not inspector's


def test_variant_returning_wrong_length(bad_run):
    proc, _, a, _, _ = bad_run
    assert a.variant("numpy_short").check.matches is False
    assert "numpy_short: does not match: returned shape (199,), expected (200,) or (200, k)" in proc.stderr


def test_variant_returning_strings(bad_run):
    proc, _, a, _, _ = bad_run
    v = a.variant("numpy_strings")
    assert (v.status, v.error) == ("error", "TypeError: returned ndarray of dtype <U4, not numbers")
    assert v.error in progress_line(proc, "numpy_strings")


def test_variant_returning_nan_names_first_differing_individuals(bad_run):
    proc, _, a, _, _ = bad_run
    v = a.variant("numpy_nan")
    assert v.check.matches is False
    assert v.check.mismatch.startswith("2 of 200 individuals differ (first: #5: expected ")
    assert "got nan; #7: expected " in v.check.mismatch
    assert f"numpy_nan: does not match numpy: {v.check.mismatch}" in proc.stderr


@pytest.mark.parametrize("vid, how", [("numpy_exits", "exit code 1"), ("numpy_killed", "killed by SIGKILL")])
def test_variant_that_kills_the_probe(bad_run, vid, how):
    proc, _, a, _, _ = bad_run
    v = a.variant(vid)
    assert (v.status, v.error) == ("error", f"the probe process died ({how}) while running it")
    assert v.error in progress_line(proc, vid)


def test_variant_that_hangs_times_out(bad_run):
    proc, _, a, _, _ = bad_run
    v = a.variant("numpy_hangs")
    assert (v.status, v.error) == ("timeout", "timed out after 3 s (see --timeout)")
    assert "timeout" in progress_line(proc, "numpy_hangs")


def test_missing_compiler_is_a_compile_error_of_that_variant(tmp_path):
    # Inductor looks for the C++ compiler in torch._inductor.config.cpp.cxx, which defaults to $CXX (g++)
    # and runs `$CXX --version` when it first compiles a kernel. A fresh cache dir makes sure it has to.
    env = dict(os.environ, CXX=str(tmp_path / "no-such-c++"), TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"))
    proc = report(BAD / "compiled.py", "-v", "torch", "-v", "torch-compiled-cpu", out=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    a = analyze(load(tmp_path / "compiled.json"))
    assert a.variant("torch").status == "ok"
    v = a.variant("torch-compiled-cpu")
    assert (v.status, v.error_stage) == ("error", "compile")
    assert "InvalidCxxCompiler: No working C++ compiler found" in v.error
    assert v.error in progress_line(proc, "torch-compiled-cpu") and not a.internal_errors


FAULTY_SITE = '''"""Makes one of inspector's own passes fail in the probe, as a bug in inspector would."""
import sys

if "inspector.probe" in sys.orig_argv:  # not in Inductor's compile workers
    from inspector.probe import profile

    def kernel_times(*args, **kwargs):
        raise RuntimeError("injected fault")

    profile.kernel_times = kernel_times
'''


def test_a_failure_inside_inspector_is_an_internal_error_and_keeps_what_was_measured(tmp_path):
    """A Python whose sitecustomize breaks inspector's kernel-timing pass (given with --python, as another torch's
    interpreter would be): the variant still ran and was timed; inspector says the failure is its own."""
    python = python_with_site(tmp_path, FAULTY_SITE)
    proc = run_cli("report", "samples/poly.py", "-n", 2000, "--budget", 0.02, "-v", "numpy-compiled-cpu",
                   "--no-try-fixes", "--no-rewrites", "--no-warm", "--python", python, "-o", tmp_path)
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "internal error" in ln]  # both passes that time kernels
    assert [ln.split(": RuntimeError: ")[0] for ln in lines] == [
        f"inspector: internal error in numpy-compiled-cpu: {p}" for p in ("kernel times", "thread scaling")]
    assert all("injected fault (this is a bug in inspector: please report it" in ln for ln in lines)
    a = analyze(load(tmp_path / "poly.json"))
    v = a.variant("numpy-compiled-cpu")
    assert v.status == "ok" and v.timing.median_s > 0 and v.code.lines and v.code.time_split is None
    assert "inspector itself failed" in (tmp_path / "poly.html").read_text()


def test_hostile_text_and_bytes_are_escaped_in_the_report(hostile_report, tmp_path):
    proc, out = hostile_report
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    html = (out / "hostile.html").read_text(encoding="utf-8")
    assert "<script>window" not in html and "<img" not in html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    record = load(out / "hostile.json")
    assert record.sample.title == HOSTILE_TITLE
    assert "caf\ufffd" in record.sample.source
    assert analyze(record).variant("numpy_hostile").error == HOSTILE_ERROR
    assert run_cli("render", out / "hostile.json", "-o", tmp_path).returncode == 1  # the failed variant still fails


def test_ctrl_c_keeps_what_was_measured(tmp_path):
    cmd = [sys.executable, "-m", "inspector", "report", BAD / "bad_variants.py", "-o", tmp_path, *map(str, FAST),
           "-v", "numpy", "-v", "numpy_hangs", "-v", "numpy_last"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=interruptible)
    stderr = ""
    while " numpy " not in stderr:  # the first variant is measured; numpy_hangs sleeps next
        line = proc.stderr.readline()
        assert line, stderr
        stderr += line
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does to the terminal's foreground group
    stderr += proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    a = analyze(load(tmp_path / "bad_variants.json"))
    assert a.interrupted is True
    assert a.variant("numpy").status == "ok"
    assert a.variant("numpy_hangs").status == "skipped"
    assert a.variant("numpy_last").error == "interrupted before it ran"


@pytest.mark.parametrize("text, expected", [
    ('{"schema": "inspector.rec', "not valid JSON"),
    ('{"a": 1}', "not an inspector record"),
    ('{"schema": "inspector.record/1", "sample": {}, "env": {}, "variants": [{}]}', "sample has no str 'path'"),
    ('{"schema": "inspector.record/2", "sample": {"path": "x.py", "population": 2}, "env": {}, "variants": [{}]}',
     "variant 1 has no str 'id'"),
])
def test_render_of_a_bad_record_is_one_line_and_exit_2(tmp_path, text, expected):
    (tmp_path / "r.json").write_text(text)
    proc = run_cli("render", tmp_path / "r.json")
    assert proc.returncode == 2, proc.stderr
    assert f"{tmp_path / 'r.json'}: " in one_error_line(proc) and expected in one_error_line(proc)
    assert not (tmp_path / "r.html").exists()
