"""inspector: see what torch.compile did to your numerical Python code, and what it cost.

Layout (probe -> record -> analysis -> renderers):
- ``inspector.probe``: runs inside the target interpreter (stdlib, numpy, torch only) and streams raw facts;
- ``inspector.collect``: runs the probe in child processes and turns its facts into a raw record;
- ``inspector.record``: the versioned JSON record (raw facts only);
- ``inspector.model``: the typed values analysis derives and renderers read (no torch);
- ``inspector.analysis``: kernels, verdicts, breaks and costs derived from a record alone;
- ``inspector.render``: HTML, text and JSON renderers behind one interface (never import torch);
- ``inspector.api``: every command from Python (``report``, ``breaks``, ``compare``, ``compare_program``,
  ``Run``, ``render``, ``run``, ``capture``, ``inspect``), returning Reports; torch imported only when used;
  ``schema``, the JSON Schema of the JSON output;
- ``inspector.contracts``: per-line performance contracts judged across torch versions (``inspector check``,
  ``inspector.check()``), on runs the API makes or on records;
- ``inspector.errors``: ``InspectorError``, the one base exception, and the exit codes;
- ``inspector.cli``: the typer command line: options parsed, the API called, errors turned into exit codes.
"""

import types
from typing import Any

__version__ = "0.2.0"
API = ("report", "breaks", "compare", "compare_program", "Run", "render", "run", "capture", "inspect", "schema")


def __getattr__(name: str) -> Any:
    """``inspector.report`` and the rest of API (from inspector.api), and ``inspector.check`` (from
    inspector.contracts.command), imported on first use: ``import inspector`` alone imports neither."""
    if name in API:
        from inspector import api
        return getattr(api, name)
    if name == "check":
        from inspector.contracts.command import check
        return check
    raise AttributeError(f"module 'inspector' has no attribute {name!r}")


class RenderPackage(types.ModuleType):
    """The class of the renderers' subpackage, ``inspector.render``, whose name is also the API's ``render``:
    importing the subpackage binds that name to it, so that, called, it is the API's (``inspector.render(path)``)."""

    def __call__(self, record_path: Any) -> Any:
        from inspector import api
        return api.render(record_path)
