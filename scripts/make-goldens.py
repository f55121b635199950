"""Regenerate the golden text and HTML reports from the checked-in records (no torch needed).

    python scripts/make-goldens.py

Renders every record under tests/fixtures/records/ and tests/fixtures/schema-1/ with today's analysis and
renderers into tests/golden/<folder>/<stem>.txt and .html. The fast tests compare against these files: after a
deliberate change to analysis or rendering, run this and review `git diff tests/golden` before committing.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.analysis import analyze  # noqa: E402
from inspector.record import load  # noqa: E402
from inspector.render import renderer  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden"


def inputs():
    """(record path, golden path without suffix) for every checked-in record."""
    records = sorted((FIXTURES / "records").glob("*/*.json")) + sorted((FIXTURES / "schema-1").glob("*.json"))
    return [(path, GOLDEN / path.parent.name / path.stem) for path in records]


def render(path):
    """{suffix: text} of one record's golden outputs."""
    analysis = analyze(load(path))  # a program's run (inspector run) has its own views: render picks them
    return {".txt": renderer("text").render(analysis), ".html": renderer("html").render(analysis)}


def main():
    for path, golden in inputs():
        golden.parent.mkdir(parents=True, exist_ok=True)
        for suffix, text in render(path).items():
            golden.with_suffix(suffix).write_text(text, encoding="utf-8")
            print(f"wrote {golden.with_suffix(suffix).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
