"""The versioned JSON record: the raw facts of one run, what analysis reads (see docs/record.md).

``load`` returns a ``RawRecord`` (``inspector.raw``), the one typed value every reader takes. Schema 2 holds raw
facts only; everything derived (kernels, verdicts, costs) is recomputed by
``inspector.analysis.analyze`` each time a record is read. Schema-1 records (inspector 0.1, which stored derived
keys beside the raw ones) are read by dropping the derived keys. Writing is atomic (temporary file, then rename).
"""

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Optional, Union

from inspector.errors import InspectorError
from inspector.raw import TILING_OFF, RawRecord

SCHEMA = "inspector.record/2"
SCHEMA_1 = "inspector.record/1"
# schema 1 stored these derived keys in each variant (and per_population_s, compile_s in its timing)
DERIVED_1 = {"kernels", "graphs", "graph_breaks", "break_cost", "warnings", "lines", "line_summary",
             "recompile_count", "analysis_problems", "speedup_vs_python", "speedup_vs_numpy", "break_even_calls",
             "time_split", "compile_phases"}
REQUIRED: dict[str, dict[str, type]] = {"sample": {"path": str, "population": int},
                                        "variant": {"id": str, "kind": str, "status": str}}


COMPILE_ID = re.compile(r"^(\d+)/(\d+)")  # torch's "frame/compile of that frame", perhaps with an attempt "_N"


def compile_key(compile_id: object) -> Optional[tuple[int, int]]:
    """(frame, compile of that frame) of torch's compile id "2/1" or "2/1_1" (a restarted attempt of the same
    compile), or None for none."""
    found = COMPILE_ID.match(str(compile_id or ""))
    return (int(found.group(1)), int(found.group(2))) if found else None


def kernel_key(source: str) -> str:
    """The key joining a C++ kernel's machine code (the probe) to its source in the output code (analysis): a hash
    of its code lines, stripped, without ``#include`` lines and ``//`` comments, which may hold this machine's paths
    (torch 2.1's header path, ORIGIN comments) and change when a record is redacted or made a fixture."""
    lines = [line.strip() for line in source.splitlines()]
    kept = "\n".join(line for line in lines if line and not line.startswith(("#include", "//")))
    return hashlib.sha256(kept.encode()).hexdigest()[:16]


class RecordError(InspectorError):
    """A file is not an inspector record this version can read; one line for the user."""


def write_atomic(path: Union[str, Path], text: str) -> None:
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


def save(record: RawRecord, path: Union[str, Path]) -> None:
    """Write a RawRecord as JSON at ``path``."""
    write_atomic(path, json.dumps(record.to_json(), indent=1, ensure_ascii=False, default=str))


def load(path: Union[str, Path]) -> RawRecord:
    """Read and check a record (migrating schema 1) as a RawRecord; raise RecordError with a one-line reason if it is
    not one."""
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
    if data["schema"] not in (SCHEMA, SCHEMA_1):
        raise RecordError(f"{path}: record schema {data['schema']} is not {SCHEMA} (or {SCHEMA_1})")
    problem = _invalid(data)
    if problem:
        raise RecordError(f"{path}: not a valid record: {problem}")
    return RawRecord.from_json(trial_kinds(migrate(data) if data["schema"] == SCHEMA_1 else data))


def trial_kinds(data: dict[str, Any]) -> dict[str, Any]:
    """A record whose fixes tried (``trials``, a rewrite's runs aside) were made before each carried the kind of its
    fix, with it: read off how the trial was made, as those versions did (a layout, compile options: static shapes,
    the tiling heuristic's item, else a flag)."""
    def kind(t: dict[str, Any]) -> str:
        return "layout" if t.get("layout") else "static" if t.get("compile_options") else "tiling" if t.get(
            "config") == [TILING_OFF] else "flag"
    trials = [t if "kind" in t or t.get("rewrite") or t.get("numba") else dict(t, kind=kind(t))
              for t in data.get("trials") or []]
    return dict(data, trials=trials) if trials else data


def _invalid(data: dict[str, Any]) -> Optional[str]:
    """What makes ``data`` unreadable as a record, in a few words, or None."""
    for key, kind in (("sample", dict), ("env", dict), ("variants", list)):
        if not isinstance(data.get(key), kind):
            return f"'{key}' is missing or not a{'n object' if kind is dict else ' list'}"
    # a program has no population
    sample: dict[str, type] = REQUIRED["sample"] if "program" not in data else {"path": str}
    checks = [("sample", data["sample"], sample)]
    checks += [(f"variant {i + 1}", v, REQUIRED["variant"]) for i, v in enumerate(data["variants"])]
    for where, value, fields in checks:
        if not isinstance(value, dict):
            return f"{where} is not an object"
        for name, expected in fields.items():
            if not isinstance(value.get(name), expected):
                return f"{where} has no {expected.__name__} '{name}'"
    return None


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """A schema-1 record as schema 2: the derived keys dropped, the sweep's timings kept as raw facts."""
    out = dict(data, schema=SCHEMA)
    out["variants"] = [_raw_variant(v) for v in data["variants"]]
    out["sweep"] = [{"population": s["population"], "variants": [_raw_sweep_variant(v, s["population"])
                                                                   for v in s["variants"]]}
                    for s in data.get("sweep") or []]
    return out


def _raw_variant(v: dict[str, Any]) -> dict[str, Any]:
    out = {k: value for k, value in v.items() if k not in DERIVED_1}
    if isinstance(v.get("timing"), dict):
        out["timing"] = {k: value for k, value in v["timing"].items() if k not in ("per_population_s", "compile_s")}
    return out


def _raw_sweep_variant(v: dict[str, Any], population: int) -> dict[str, Any]:
    """Schema 1 kept a sweep size's derived timings only: recover the raw facts they came from."""
    out = _raw_variant(v)
    timing = v.get("timing") or {}
    if timing.get("median_s") and timing.get("per_population_s"):
        out["measured_population"] = round(timing["median_s"] * population / timing["per_population_s"])
    if timing.get("compile_s") is not None:
        out["capture"] = {"graphs": [{"metrics": {"entire_frame_compile_time_s": timing["compile_s"]}}]}
    return out


def redact(record: RawRecord, home: Optional[str] = None) -> RawRecord:
    """The RawRecord ``record`` with what points at a person or a machine replaced, to attach it to a bug report:
    the home folder (``~``), every site-packages or dist-packages folder (``<site-packages>``), the standard library's
    (``<stdlib>``), the interpreter's path (``<python>``), and the program's printed output."""
    text = json.dumps(record.to_json(), ensure_ascii=False)
    swaps = [(record.env.executable, "<python>"), (record.env.stdlib, "<stdlib>")] if record.env else []
    text = re.sub(r'[^"\s\'(]*?[/\\](?:site|dist)-packages(?=[/\\])', "<site-packages>", text)
    for old, new in swaps:
        if old:
            text = text.replace(json.dumps(old)[1:-1], new)
    home = home or os.path.expanduser("~")
    if home and home not in ("/", ""):
        text = re.sub(re.escape(json.dumps(home)[1:-1]) + r'(?=[/"\\])', "~", text)
    return RawRecord.from_json(json.loads(text)).but(probe_log="(redacted: the program's printed output)",
                                                     redacted=True)
