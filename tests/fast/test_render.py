"""The renderers, from checked-in records: golden files, one interface, escaping, and what they must show."""

import difflib
import importlib.util
import json
import subprocess
import sys
from dataclasses import replace

import pytest

from conftest import RECORDS, ROOT, analysis, record_path
from inspector.analysis import analyze
from inspector.model import InternalError
from inspector.raw import RawRecord
from inspector.render import html as html_module
from inspector.record import load
from inspector.render import views
from inspector.render import Renderer, renderer
from inspector.render.words import ratio, seconds

_spec = importlib.util.spec_from_file_location("make_goldens", ROOT / "scripts" / "make-goldens.py")
goldens = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(goldens)
CASES = goldens.inputs()


@pytest.mark.parametrize("path, golden", CASES, ids=[f"{p.parent.name}/{p.stem}" for p, _ in CASES])
def test_text_and_html_match_their_golden_files(path, golden):
    for suffix, text in goldens.render(path).items():
        expected = golden.with_suffix(suffix)
        assert expected.exists(), f"no golden file {expected.relative_to(ROOT)}: run scripts/make-goldens.py"
        want = expected.read_text(encoding="utf-8")
        if text != want:
            diff = "\n".join(list(difflib.unified_diff(want.splitlines(), text.splitlines(), "golden", "now",
                                                       lineterm="", n=1))[:40])
            pytest.fail(f"{expected.relative_to(ROOT)} differs (if the change is meant, run "
                        f"scripts/make-goldens.py and review the diff):\n{diff}")


def test_the_golden_files_cover_every_sample_under_both_torch_versions():
    folders = {p.parent.name for p, _ in CASES}
    assert {"torch-2.1.2", "torch-2.13.0", "schema-1"} <= folders
    stems = {p.stem for p in (ROOT / "samples").glob("*.py")}
    for version in ("torch-2.1.2", "torch-2.13.0"):
        assert stems <= {p.stem for p, _ in CASES if p.parent.name == version}, version


def test_every_format_implements_the_renderer_interface():
    a = analysis("2.13.0", "knapsack_breaks")
    for name in ("html", "text", "json"):
        r = renderer(name)
        assert isinstance(r, Renderer) and r.name == name
        assert "knapsack" in r.report(a).lower()
    data = json.loads(renderer("json").report(a))
    v = next(v for v in data["variants"] if v["id"] == "numpy-compiled-cpu")
    assert {"code", "timing", "speedups", "check"} <= set(v)
    assert {"kernels", "lines", "breaks", "time_split", "compile_phases"} <= set(v["code"])
    assert v["code"]["lines"][0]["why"][0].keys() == {"kind", "facts", "text"}
    assert [b["line"] for b in v["code"]["breaks"]] == [b.line for b in a.variant("numpy-compiled-cpu").code.breaks]
    with pytest.raises(NotImplementedError, match="html renderer has no breaks view"):
        renderer("html").breaks(None)


def test_every_page_shares_one_stylesheet():
    a = analysis("2.13.0", "poly")
    from inspector.analysis import compare
    pages = [renderer("html").report(a), html_module.HtmlRenderer().index([("poly", a), ("gone", None)]),
             renderer("html").comparison(compare.compare([analysis("2.1.2", "poly"), a]))]
    css = html_module.STYLESHEET.read_text()
    assert all(css in page for page in pages)
    assert all(page.count("<style>") == 1 for page in pages)


def test_hostile_text_in_a_record_is_escaped_everywhere():
    record = json.loads(record_path("2.13.0", "knapsack_breaks").read_text())
    hostile = "<script>alert(1)</script>\"q\" & 'q' caf\udce9"
    record["sample"]["title"] = hostile
    variant = next(v for v in record["variants"] if v["id"] == "numpy")
    variant.update(status="error", error=f"ValueError: {hostile}", error_detail=hostile)
    a = analyze(RawRecord.from_json(record))
    page = renderer("html").report(a)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert hostile.encode("utf-8", "backslashreplace").decode() in renderer("text").report(a)  # printable anywhere
    assert json.loads(renderer("json").report(a))["sample"]["title"] == hostile


def test_what_inspector_did_not_understand_is_counted_and_shown():
    record = json.loads(record_path("2.13.0", "poly").read_text())
    graph = next(v for v in record["variants"] if v["id"] == "numpy-compiled-cpu")["capture"]["graphs"][0]
    graph["output_code"] = [graph["output_code"][0].replace("def call(self, args):", "def call(self, args):\n"
                                                            "        future_kernel_v9(args)")]
    record["variants"][0].setdefault("capture", {})["problems"] = ["KeyError: 'frame_id'"]
    a = analyze(RawRecord.from_json(record))
    counts = {p.artifact: len(p.problems) for p in a.parse}
    assert counts == {"output code": 1, "graph-break messages": 0, "FX graph stack comments": 0, "log records": 1,
                      "Inductor decisions": 0, "machine code": 0}
    assert a.not_understood == 2
    page = renderer("html").report(a)
    assert "inspector did not understand 2 items of torch's output" in page
    assert "future_kernel_v9, neither a kernel of this module nor a known library call" in page
    assert "not understood: 1 of" in renderer("text").report(a)


def test_internal_errors_are_shown_as_inspectors_not_the_users():
    a = analysis("2.13.0", "poly")
    v = replace(a.variant("numpy-compiled-cpu"),
                internal_errors=[InternalError("kernel times", "KeyError: 'x'", "Traceback ...")])
    a = replace(a, variants=[v if x.id == v.id else x for x in a.variants],
                internal_errors=[InternalError("numpy-compiled-cpu: kernel times", "KeyError: 'x'", "Traceback")])
    page = renderer("html").report(a)
    assert "inspector itself failed" in page and "numpy-compiled-cpu: kernel times: KeyError: &#39;x&#39;" in page
    assert v.status == "ok" and not v.failed  # the user's variant did not fail


def test_source_lines_have_row_headers_and_keyboard_details():
    page = renderer("html").report(analysis("2.13.0", "knapsack_breaks"))
    assert '<th scope="row"><code>numpy-compiled-cpu</code></th>' in page
    assert page.count('role="button"') > 10 and 'aria-controls="v-numpy-compiled-cpu-L45-notes"' in page
    assert 'id="v-numpy-compiled-cpu-L45-notes">' in page  # a graph break's notes are open
    assert ' title="' not in page.split('<div class="code hl src"', 1)[1].split("</div>\n</div>", 1)[0]


def test_analysis_and_rendering_never_import_torch():
    code = ("import sys, json\n"
            "import inspector, inspector.cli, inspector.record, inspector.model, inspector.collect\n"
            "from inspector.analysis import analyze\n"
            "from inspector.record import load\n"
            "from inspector.render import renderer\n"
            f"a = analyze(load({str(record_path('2.13.0', 'knapsack_breaks'))!r}))\n"
            "[renderer(f).report(a) for f in ('html', 'text', 'json')]\n"
            "assert 'torch' not in sys.modules, sorted(m for m in sys.modules if m.startswith('torch'))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


def _shown(text):
    """A duration or ratio as the report prints it, back to a number: "2.78 ms" → 0.00278, "4.76x slower" → 1/4.76."""
    value, unit = text.split(" ", 1) if " " in text else (text, "")
    value = value.replace(",", "")  # "1,450x"
    if value.endswith("x"):
        return float(value[:-1]) if unit != "slower" else 1 / float(value[:-1])
    return float(value) * {"s": 1, "ms": 1e-3, "µs": 1e-6}[unit]


SAMPLE_RECORDS = [p for p in sorted(RECORDS.glob("*/*.json")) if '"kind": "program"' not in p.read_text()]


@pytest.mark.parametrize("path", SAMPLE_RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_numbers_on_each_row_agree_as_shown(path):
    a = analyze(load(path))
    rows = views.table(a).rows
    for r in rows:
        numpy = min((x for x in rows if x.v.kind == "numpy" and not x.v.compiled and x.v.family == r.v.family
                     and x.time_s and x.v.status == "ok"), key=lambda x: x.time_s, default=None)  # the fastest
        if not (r.time_s and r.vs_numpy and numpy):
            continue
        time, reference, shown = _shown(seconds(r.time_s)), _shown(seconds(numpy.time_s)), _shown(ratio(r.vs_numpy))
        # each printed with 3 significant digits: their ratio agrees with the printed ratio within that rounding
        assert shown == pytest.approx(reference / time, rel=0.012), (r.v.id, seconds(r.time_s), seconds(numpy.time_s),
                                                                     ratio(r.vs_numpy))
        fastest = min(x.time_s for x in rows if x.v.family == r.v.family and x.time_s and x.v.status == "ok")
        assert r.vs_fastest == pytest.approx(fastest / r.time_s)


def test_one_ratio_formatter_and_one_range_formatter_say_every_ratio():
    from inspector.render.words import between, seconds, spread
    assert [ratio(x) for x in (6.5, 1 / 16, 1.004, 0.996, None)] == ["6.5x", "16x slower", "1x", "1x", "-"]
    assert [ratio(x, "change") for x in (1.4, 1 / 2.13, 0.998)] == ["1.4x faster", "2.13x slower", "as fast"]
    assert [ratio(x, "of") for x in (4.3, 0.5, 1.0)] == ["4.3x", "2x slower than", "as fast as"]
    assert ratio(622.4) == "622x"  # three significant digits, never 6.2e+02x
    assert [ratio(x) for x in (1334.2, 999.6, 1 / 2000)] == ["1,330x", "1,000x", "2,000x slower"]  # nor 1.33e+03x
    assert between(900, 1500) == "900x to 1,500x faster"
    assert [seconds(x) for x in (0.9996, 0.0009996, 0.5, 12.345)] == ["1.00 s", "1 ms", "500 ms", "12.35 s"]
    assert between(1.9, 2.3) == "1.9x to 2.3x faster" and between(1 / 1.1, 1 / 1.4) == "1.1x to 1.4x slower"
    assert between(1 / 1.2, 1.1) == "1.2x slower to 1.1x faster"
    assert between(1 / 1.2, 1.1, "times") == "1.2x slower to 1.1x"
    assert between(0.998, 10.9) == "1x to 10.9x faster" and between(1.0, 1.0, "times") == "1x"  # an end near 1 is 1
    assert between(2.3, 1.9) == between(1.9, 2.3)
    assert between(180e-6, 220e-6, "seconds") == "180 µs – 220 µs"
    assert spread((1.9, 2.3), 6) == "1.9x to 2.3x faster in 6 alternating rounds" and spread(None, 0) == ""


def test_no_dict_reaches_a_template_and_no_threshold_or_path_is_written_in_one(monkeypatch):
    """Templates print typed views: every value handed to one is a model value or a view, never a dict built for it
    (nor a list or tuple holding one); the caution's thresholds come from the constants that decide it."""
    import dataclasses
    import re

    import jinja2

    from inspector.analysis import compare
    from inspector.model import timing as machine_load
    from inspector.render.words import NOISY
    seen = []

    def walk(value, where):
        if isinstance(value, dict):
            pytest.fail(f"a dict reaches a template: {where}")
        if isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                walk(item, f"{where}[{i}]")
        elif dataclasses.is_dataclass(value) and type(value).__module__.startswith("inspector.render"):
            seen.append(type(value).__name__)
            for f in dataclasses.fields(value):
                walk(getattr(value, f.name), f"{where}.{f.name}")

    render = jinja2.Template.render

    def checked(self, *args, **context):
        for name, value in context.items():
            walk(value, name)
        return render(self, *args, **context)
    monkeypatch.setattr(jinja2.Template, "render", checked)
    a = analysis("2.13.0", "knapsack_breaks")
    page = renderer("html").report(a)
    renderer("html").program(analysis("2.13.0", "ga"))
    renderer("html").comparison(compare.compare([analysis("2.1.2", "poly"), analysis("2.13.0", "poly")]))
    html_module.HtmlRenderer().index([("knapsack", a), ("ga", analysis("2.13.0", "ga")), ("gone", None)])
    assert {"SourceLine", "KernelView", "ComparedView", "DiffView", "IndexRow", "ChangeView", "Row"} <= set(seen)
    assert f"{100 * machine_load.OTHERS_BUSY:.0f} % of the CPUs" in page and f"more than {NOISY:g}x" in page
    for template in (ROOT / "inspector" / "render" / "templates").glob("*.j2"):
        text = template.read_text()
        thresholds = (f"{100 * machine_load.OTHERS_BUSY:.0f} %", f"{100 * machine_load.STEAL_BUSY:.0f} %",
                      f"{NOISY:g}x", f"{compare.CLEAR:g}x")
        assert not any(t in text for t in thresholds), template.name
        # nor a path or a date sliced
        assert not re.search(r"(dir|path|file|created)\[-?\d*:-?\d*\]", text), template.name


def test_a_line_that_ran_eagerly_says_its_time_is_all_the_eager_lines_together_never_its_kernels():
    a = analysis("2.13.0", "ga")
    (f,) = a.program.functions
    eager = {e.line for e in f.code.lines if e.status in ("eager", "graph-break") and e.time_s}
    page = renderer("html").program(a)
    outside = seconds(f.code.time_split.outside_graphs_s)
    assert eager and f"(outside compiled graphs, all the lines that ran eagerly together: {outside} per call" in page
    kernels = [e for e in f.code.lines if e.status == "parallel" and e.time_s]
    assert kernels and f"(its kernels: {seconds(kernels[0].time_s)} per call" in page
