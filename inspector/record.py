"""The versioned JSON record: what a run measured (raw) plus what analysis derived from it.

See docs/record.md for the keys. Writing is atomic (temporary file, then rename).
"""

import json
import os
import tempfile
from pathlib import Path

SCHEMA = "inspector.record/1"


class RecordError(Exception):
    """A file is not an inspector record this version can read; one line for the user."""


def write_atomic(path, text):
    """Write ``text`` to ``path`` through a temporary file and a rename, so readers never see half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        # A lone surrogate (an undecodable byte in a user's message) becomes the text \udcXX: in JSON
        # that is the same character's escape, in HTML it is visible instead of a crash.
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(record, path):
    write_atomic(path, json.dumps(record, indent=1, ensure_ascii=False, default=str))


def load(path):
    """Read and check a record; raise RecordError with a one-line reason if it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except OSError as e:
        raise RecordError(f"{path}: cannot read it ({e.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RecordError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict) or not str(data.get("schema", "")).startswith("inspector.record/"):
        raise RecordError(f"{path}: not an inspector record (no 'schema': '{SCHEMA}')")
    if data["schema"] != SCHEMA:
        raise RecordError(f"{path}: record schema {data['schema']} is not {SCHEMA}")
    for key in ("sample", "env", "variants"):
        if key not in data:
            raise RecordError(f"{path}: record lacks '{key}'")
    return data
