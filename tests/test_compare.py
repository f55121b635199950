"""`inspector compare`: the normaliser on code captured from torch 2.1.2 and 2.13, kernel matching, and the
one-shot CLI run for real (two configurations of this interpreter)."""

import json
import re

import pytest

from conftest import ROOT, run_cli
from inspector.analysis import analyze, compare, kernels
from inspector.render import comparison

FIXTURES = ROOT / "tests" / "fixtures"
FLAG = "cpp.enable_tiling_heuristics=False"


def fixture_kernels(version, name):
    found = kernels.split((FIXTURES / f"torch-{version}" / f"poly-{name}-compiled-cpu.py").read_text())["kernels"]
    return [dict(k, id=k["name"]) for k in found]


@pytest.mark.parametrize("name", ["numpy", "torch"])
def test_poly_kernels_of_2_1_and_2_13_match_and_keep_their_real_differences(name):
    old, new = fixture_kernels("2.1.2", name), fixture_kernels("2.13.0", name)
    pairs, removed, added = compare.match(old, new)
    assert len(pairs) == 1 and not removed and not added
    (a, b), = pairs
    assert a["name"] != b["name"]  # 2.13 names select and scalar_tensor too
    lines = compare.diff(a["code"], b["code"])
    text = "\n".join(lines)
    # the real changes: explicit double() casts, the integer-division error flag, the thread id
    assert "-auto tmp14 = tmp0 + tmp1;" in lines and "+auto tmp14 = double(tmp0 + tmp1);" in lines
    assert "+inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);" in lines
    assert "+int tid = omp_get_thread_num();" in lines
    # the noise is gone: include paths, num_threads, long/i0, ORIGIN comments, nesting braces
    for noise in ("#include", "num_threads", "long", "i0", "ORIGIN", "3L*x0)"):
        assert noise not in text, noise
    assert " for(int64_t x0=0L; x0<20000L; x0+=1L)" in lines  # unchanged context


def _disguise(code):
    """The same kernel as 2.1 would spell it, renumbered and re-indented."""
    code = re.sub(r"\btmp(\d+)\b", lambda m: f"tmp{100 - int(m.group(1))}", code)
    code = code.replace("int64_t", "long").replace("x0", "i0")
    code = code.replace("#pragma omp parallel", "#pragma omp parallel num_threads(8)")
    code = code.replace("#include <torch/csrc/inductor/cpp_prefix.h>", '#include "/c/ib/c' + "a1" * 26 + '.h"')
    return "\n".join(f"  // a comment\n    {line.strip()}" if "auto" in line else line for line in code.splitlines())


def test_identical_code_with_renamed_temporaries_and_kernels_compares_identical():
    (k,) = fixture_kernels("2.13.0", "torch")
    other = dict(k, name=k["name"].replace("_0", "_3"), id="other", code=_disguise(k["code"]))
    assert other["code"] != k["code"] and compare.diff(k["code"], other["code"]) == []
    assert compare.match([k], [other]) == ([(k, other)], [], [])
    changed = other["code"].replace(" >= ", " > ", 1)
    assert compare.diff(k["code"], changed)


def test_kernels_are_matched_by_their_source_lines_not_their_position():
    a = [{"id": f"a{i}", "name": f"cpp_fused_{i}", "backend": "cpp", "code": f"x{i}"} for i in range(2)]
    b = [dict(k, id="b" + k["id"][1:]) for k in reversed(a)]
    pairs, _, _ = compare.match(a, b, {"a0": {("f", "x = 1")}, "a1": {("f", "y = 2")}},
                                {"b1": {("f", "y = 2")}, "b0": {("f", "x = 1")}})
    assert [(x["id"], y["id"]) for x, y in pairs] == [("a0", "b0"), ("a1", "b1")]


@pytest.fixture(scope="module")
def flag_run(tmp_path_factory):
    """`inspector compare samples/poly.py --run FLAG`: this interpreter with and without the flag."""
    out = tmp_path_factory.mktemp("compare")
    proc = run_cli("compare", "samples/poly.py", "--run", FLAG, "-n", 5000, "--budget", 0.05,
                   "-v", "*-compiled-cpu", "-o", out)
    return proc, out


def test_one_shot_compare_shows_the_kernel_diff_and_the_verdict_change(flag_run):
    proc, out = flag_run
    assert proc.returncode == 0, proc.stderr
    records = sorted(out.glob("poly-*.json"))
    assert len(records) == 2 and any(FLAG.replace("=", "-") in p.name for p in records)
    base, flagged = compare.labels([json.loads(p.read_text()) for p in sorted(records, key=lambda p: len(p.name))])
    assert flagged == f"{base} {FLAG}"
    assert f"samples/poly.py: {base} → {flagged}" in proc.stdout
    assert "vectorized: no → yes" in proc.stdout
    assert (f"lines 48-51, 55-58, 67-68 (objective, check_constraints, fitness_torch): parallel, not vectorized "
            f"under {base} → parallel, vectorized under {flagged}") in proc.stdout
    html = (out / "poly-compare.html").read_text()
    assert "<h3 id=\"p0-torch-compiled-cpu\">torch-compiled-cpu</h3>" in html
    assert re.search(r'<span class="add">\+.*at::vec::', html)
    assert 'class="differs"' in html and "http" not in html.replace("http-equiv", "")


def test_records_compare_warns_about_other_machines_breaks_gained_and_cache_hits(flag_run, tmp_path):
    _, out = flag_run
    a, b = (json.loads(p.read_text()) for p in sorted(out.glob("poly-*.json"), key=lambda p: len(p.name)))
    b["env"]["threads"] = 64
    v = next(v for v in b["variants"] if v["id"] == "torch-compiled-cpu")
    v["capture"]["breaks"].append({"compile_id": "0/0", "mechanism": "logger", "text": (
        'Graph break: generic_jump TensorVariable() from user code at:\n  File "samples/poly.py", line 58, '
        'in check_constraints\n    return (x >= 1)')})
    for record, cache in ((a, "hit"), (b, "miss")):
        for g in next(v for v in record["variants"] if v["id"] == "torch-compiled-cpu")["capture"]["graphs"]:
            g["fx_graph_cache"] = cache
    for name, record in (("a", a), ("b", b)):
        (tmp_path / f"{name}.json").write_text(json.dumps(record))
    proc = run_cli("compare", tmp_path / "a.json", tmp_path / "b.json")
    assert proc.returncode == 0, proc.stderr
    assert f"warning: different machines or settings (threads {a['env']['threads']} vs 64)" in proc.stdout
    assert "graph break gained at line 58: generic_jump TensorVariable()" in proc.stdout
    assert "Inductor's FX graph cache: hit under" in proc.stdout
    html = (tmp_path / "poly-compare.html").read_text()
    assert 'class="warn"' in html and "graph break gained at line 58" in html


def test_escaping_in_the_html(flag_run):
    _, out = flag_run
    records = [analyze(json.loads(p.read_text())) for p in sorted(out.glob("poly-*.json"))]
    records[1]["config"] = [{"key": "<script>alert(1)</script>", "value": 1}]
    html = comparison.render(compare.compare(records))
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('{"hello": 1}', "not an inspector record"),
])
def test_corrupt_records_are_one_line_errors(tmp_path, content, message):
    (tmp_path / "bad.json").write_text(content)
    (tmp_path / "other.json").write_text(content)
    proc = run_cli("compare", tmp_path / "bad.json", tmp_path / "other.json")
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_records_of_different_samples_are_refused(flag_run, tmp_path):
    _, out = flag_run
    a = json.loads(next(out.glob("poly-*.json")).read_text())
    b = dict(a, sample=dict(a["sample"], path="samples/trig.py"))
    for name, record in (("a", a), ("b", b)):
        (tmp_path / f"{name}.json").write_text(json.dumps(record))
    proc = run_cli("compare", tmp_path / "a.json", tmp_path / "b.json")
    assert proc.returncode == 2 and "different samples (poly.py, trig.py)" in proc.stderr
    proc = run_cli("compare", tmp_path / "a.json")
    assert proc.returncode == 2 and "at least two records" in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["samples/poly.py"], "nothing to compare with"),
    (["samples/poly.py", "--run", "nonsense"], "expected comma-separated"),
    (["samples", "--python", "python"], "compare takes one sample file"),
    (["a.json", "--python", "python"], "give a .py file"),
])
def test_bad_options_are_one_line_errors(args, message):
    proc = run_cli("compare", *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
