"""The Python API (real compiles): ``import inspector`` stays free of torch, and a notebook that captures a block and
inspects a function shows the captured report inline, apart from the notebook's page, and saves the other.
(``inspector.report()`` returns the same Report, shown the same way: tests/fast/test_messages.py runs it on a probe's
checked-in messages.)"""

import html
import re
import subprocess
import sys

import pytest

from conftest import ROOT

SETUP = '''\
import torch
import inspector

def fitness(pop):
    value = (pop**2 - 10 * torch.cos(2 * torch.pi * pop) + 10).sum(1)
    return value + 100.0 * torch.clamp(pop[:, 0] + pop[:, 1] - 2.0, min=0) ** 2

pop = torch.empty(20000, 10).uniform_(-5.12, 5.12)
'''
CAPTURE = '''\
with inspector.capture("ga") as report:
    compiled = torch.compile(fitness)
    for generation in range(6):
        compiled(pop)
report
'''
INSPECT = '''\
one = inspector.inspect(fitness, pop, budget=0.2)
print(one.save(OUT))
print(one.text())
'''


def test_importing_inspector_does_not_import_torch():
    out = subprocess.run([sys.executable, "-c", "import sys, inspector; print('torch' in sys.modules)"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_notebook_shows_the_captured_report_inline_and_inspect_saves_one(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="pip install -e '.[test]'")
    nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[test]'")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the kernel imports this checkout, installed or not
    cells = [SETUP, CAPTURE, f"OUT = {str(tmp_path)!r}\n" + INSPECT]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    (shown,) = [o for o in notebook.cells[1].outputs if "text/html" in o.get("data", {})]
    view = shown["data"]["text/html"]
    assert view.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in view
    page = html.unescape(re.search(r'srcdoc="([^"]*)"', view).group(1))
    assert "<code>fitness</code>" in page and "Compiled functions" in page
    # the notebook cell's own lines, annotated: both fitness lines ran in parallel kernels
    assert page.count('class="ln st-parallel"') >= 2
    saved = tmp_path / "fitness.html"
    assert saved.exists() and "eager, same arguments" in saved.read_text()
    assert "inspector.inspect()" in saved.read_text() and "Exit status" not in saved.read_text()
    # the eager time, the point of inspect(), in the text summary too
    text = "".join(o.get("text", "") for o in notebook.cells[2].outputs)
    assert "inspector.inspect(fitness)" in text and "eager, same" in text and "compiled:" in text
    assert (tmp_path / "fitness.json").exists()
