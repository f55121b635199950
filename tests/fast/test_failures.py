"""A compiled function that failed, told once in each output with its name once: the first line of its error, then
the rest as torch wrote it (explanation, hints, the user's code with carets under it), preformatted, folded in the
HTML. The error is torch 2.13's, captured by `inspector run` (tests/fixtures/torch-2.13.0/fullgraph_error.txt)."""

import re

from conftest import FIXTURES, record_path
from inspector.analysis import analyze
from inspector.raw import RawRecord
from inspector.record import load
from inspector.render import renderer

ERROR = (FIXTURES / "torch-2.13.0" / "fullgraph_error.txt").read_text()


def _failed():
    """The GA program's record with its compiled function failed as a fullgraph=True function with a branch fails."""
    record = load(record_path("2.13.0", "ga")).to_json()
    record["variants"][0].update(status="error", error=ERROR)
    return analyze(RawRecord.from_json(record))


def test_the_summary_tells_the_error_once_under_the_name_once_with_its_carets_in_place():
    text = renderer("text").program(_failed())
    assert text.count("fitness: error: Unsupported: Data-dependent branching\n") == 1
    assert text.count("Unsupported: Data-dependent branching") == 1 and "fitness: fitness" not in text
    assert text.count("Hint: Use `torch.cond` to express dynamic control flow.") == 1
    lines = text.splitlines()
    code = next(i for i, line in enumerate(lines) if line.strip() == "if x.sum() > 5:")
    assert lines[code + 1].strip() == "^" * 12 and lines[code + 1].index("^") == lines[code].index("x.sum")


def test_the_page_keeps_torchs_text_preformatted_folded_after_its_first_line_and_out_of_the_table():
    page = renderer("html").program(_failed())
    assert page.count("Hint: Use `torch.cond` to express dynamic control flow.") == 1
    assert '<p class="err">error: Unsupported: Data-dependent branching</p>' in page
    rest = re.search(r'<details class="raw"><summary>the rest of the message</summary><pre>(.*?)</pre>', page, re.S)
    assert rest and "  Explanation: Detected data-dependent branching" in rest.group(1)
    assert "    if x.sum() &gt; 5:\n       ^^^^^^^^^^^^" in rest.group(1)
    for cell in re.findall(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", page, re.S):
        assert "Explanation:" not in cell and "^^^" not in cell
