"""Regenerate the JSON Schema of the JSON renderer's output from the model's types (no torch needed).

    python scripts/make-schema.py

Writes inspector/schemas/analysis-N.json (N: the current format, inspector.model.FORMAT), which `inspector schema`
prints and tests/fast/test_schema.py compares with the types. The first schema of each format is also kept, never
rewritten, as tests/fixtures/schemas/analysis-N.json: a later schema of that format must still say everything it
said (a field may be added, never moved, removed or retyped, without a new format). After a change to the model,
run this and review `git diff inspector/schemas`; then say the change in docs/record.md's list of formats.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.render import schema  # noqa: E402

FIRST = ROOT / "tests" / "fixtures" / "schemas"  # each format's first schema


def main():
    text = schema.text()
    schema.path().write_text(text, encoding="utf-8")
    print(f"wrote {schema.path().relative_to(ROOT)}")
    first = FIRST / schema.path().name
    if not first.exists():
        first.parent.mkdir(parents=True, exist_ok=True)
        first.write_text(text, encoding="utf-8")
        print(f"wrote {first.relative_to(ROOT)} (the first schema of this format)")


if __name__ == "__main__":
    main()
