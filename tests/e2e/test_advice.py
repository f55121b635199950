"""The advice `inspector run` gives holds where torch's own account of the same run shows its precondition (issue 30,
items 2 and 6): each program runs once, `inspector run --out DIR` with TORCH_LOGS=recompiles,graph_breaks, so the
program's stderr carries torch's log and the summary follows it."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, line_of
from inspector.analysis import analyze
from inspector.record import load
from inspector.render import renderer

LOGS = dict(os.environ, TORCH_LOGS="recompiles,graph_breaks")
COULD = "Could be tried"


PROGRAMS = ("tests/programs/recompile_on_float.py", "tests/programs/data_dependent_if.py",
            "tests/programs/method_on_self.py", "samples/programs/recompile_limit.py")


@pytest.fixture(scope="module")
def started(tmp_path_factory):
    """Every program's run, started at once (their compiles share the cores), its output into files of its folder:
    {program: (process, its folder)}."""
    runs = {}
    for program in PROGRAMS:
        out = tmp_path_factory.mktemp("advice")
        with open(out / "stdout", "w") as stdout, open(out / "stderr", "w") as stderr:
            runs[program] = (subprocess.Popen([sys.executable, "-m", "inspector", "run", "--out", str(out),
                                               "--no-trace", "--no-profile", "--no-replay", program], cwd=ROOT,
                                              env=LOGS, stdout=stdout, stderr=stderr), out)
    yield runs
    for proc, _ in runs.values():
        if proc.poll() is None:
            proc.kill()


def _run(started, program):
    """(the analysis, inspector's stderr: torch's log then the summary, the HTML page) of one run of ``program``."""
    proc, out = started[program]
    proc.wait(timeout=600)
    stderr = (out / "stderr").read_text(encoding="utf-8")
    assert proc.returncode == 0, stderr
    stem = program.rsplit("/", 1)[-1].removesuffix(".py")
    return analyze(load(out / f"{stem}.json")), stderr, (out / f"{stem}.html").read_text(encoding="utf-8")


def _summary(stderr):
    """What inspector printed after the program's own stderr (torch's log): its summary."""
    return stderr[stderr.index(COULD):] if COULD in stderr else ""


@pytest.fixture(scope="module")
def on_float(started):
    return _run(started, "tests/programs/recompile_on_float.py")


@pytest.fixture(scope="module")
def branch(started):
    return _run(started, "tests/programs/data_dependent_if.py")


@pytest.fixture(scope="module")
def method(started):
    return _run(started, "tests/programs/method_on_self.py")


@pytest.fixture(scope="module")
def at_limit(started):
    return _run(started, "samples/programs/recompile_limit.py")


def test_a_recompile_on_a_float_argument_gets_torchs_fix_pass_it_as_a_tensor(on_float):
    a, stderr, html = on_float
    # torch's own account: the recompile's guard is on the value of c, a Python float
    guards = re.findall(r"guard failure\(s\):\s*\n.*?- \d+/\d+: (.+?)\s+#", stderr)
    assert guards and all(re.match(r"c == \d", g) for g in guards)
    (h,) = a.program.functions
    assert [x.type for x in h.arguments] == ["tensor", "float"] and h.compile_options == {}
    said = _summary(stderr)
    assert "pass c as a tensor (torch.tensor(c))" in said and "pass c as a tensor" in html
    assert "dynamic=False" not in said and "mark_dynamic" not in said and "size" not in said


def test_a_data_dependent_branch_gets_torch_where_or_torch_cond_in_every_renderer(branch):
    a, stderr, html = branch
    # torch's own account: the data-dependent branch at the `if`
    line = line_of(a, "if x.sum() > 0:")
    assert re.search(rf"Graph break in user code at \S*data_dependent_if\.py:{line}\n.*Data-dependent branching",
                     stderr)
    (k,) = a.program.functions
    (b,) = k.code.breaks
    assert (b.line, b.cause) == (line, "data-dependent-branch")
    said = _summary(stderr)
    # both branches return a tensor expression: torch.where, and torch.cond
    assert f"graph break at line {line}" in said and "torch.where(condition, a, b)" in said and "torch.cond" in said
    assert "torch.where(condition, a, b)" in html
    breaks = json.loads(renderer("json").program(a))["program"]["functions"][0]["code"]["breaks"]
    assert "torch.where" in breaks[0]["fix"] and "torch.cond" in breaks[0]["fix"]


def test_no_column_major_advice_for_a_method_whose_array_is_on_self(method):
    a, stderr, html = method
    (f,) = a.program.functions
    assert [(x.name, x.shape) for x in f.arguments] == [("self", None)]
    assert any(n.strided_loads for k in f.code.kernels for n in k.loop_nests)  # strided loads there are
    said = _summary(stderr)
    assert "column-major" not in said and "asfortranarray" not in said and "column-major" not in html
    assert "tiling heuristic off" in said  # a fix that needs no argument


def test_a_function_already_dynamic_false_at_the_limit_gets_the_choices_left(at_limit):
    a, stderr, html = at_limit
    # torch's own account: recompiles on a size, then the limit hit
    assert "size mismatch at index 0" in stderr and re.search(r"hit config\.recompile_limit \(\d+\)", stderr)
    (g,) = a.program.functions
    assert g.compile_options == {"dynamic": False} and g.code.recompilation.limit
    said = _summary(stderr)
    assert "torch.compile(fn, dynamic=False)" not in said and "torch.compile(fn, dynamic=True)" in said
    assert "torch._dynamo.mark_dynamic(x, 0)" in said and "torch._dynamo.config.recompile_limit" in said
    assert "torch.compile(fn, dynamic=False)" not in html and "mark_dynamic(x, 0)" in html
