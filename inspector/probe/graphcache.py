"""What capture saw Inductor decide for a graph, kept under the graph's FX graph cache key, so that capture may let
torch use its caches (in inspector's own folder) and still record what a cold compile shows.

On an FX graph cache hit Inductor generates no code: the loop nests, the scheduler's fusion decisions and the compile's
cold metrics are not seen again. When a graph compiled (its key missed), capture keeps them here (``keep``), under the
key torch gave it and a fingerprint of the user code it came from: Dynamo's graph (its ``# File:`` lines), the frame
it compiled and the bytes of every file these name, so that facts of an edited file, or of another file whose
graph is the same, are never replayed; and of inspector's own (the probe's files, ``probe_code``), so that facts an
older or edited inspector kept are not either. A look-up of a key whose facts are not kept here is made a miss
(``Capture``): torch then compiles the graph afresh, and capture sees it.
"""

import functools
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Optional

from inspector.record import write_atomic

FACTS_ENV = "INSPECTOR_GRAPH_FACTS"  # the folder of kept facts, set for a probe whose capture may use torch's caches
COMPILE = ("metrics", "fx_graph_cache")  # the compile's own: a graph found in the caches keeps them apart (``kept``)
KEPT = ("nests", "fusion", "kernel_stack_traces", *COMPILE)  # a graph's facts that only its compile shows
FILE = re.compile(r"# File: (.+?):\d+ in ")  # Dynamo's readable graph names each node's source line


class GraphFacts:
    """The kept facts in ``folder``, a file per (FX graph key, fingerprint)."""

    def __init__(self, folder: str, code: Optional[str] = None) -> None:
        self.folder = folder
        self.code = code or probe_code()  # the inspector that keeps and reads the facts
        self._files: dict[str, str] = {}  # {path: digest of its bytes}, read once per run

    def fingerprint(self, graph: dict[str, Any]) -> str:
        """The user code a graph came from, and inspector's (see the module docstring)."""
        text = graph.get("fx_graph") or ""
        stack = graph.get("user_stack") or []
        last = stack[-1] if stack and isinstance(stack[-1], dict) else {}
        frame = [last.get("filename"), last.get("name")]
        paths = sorted(set(FILE.findall(text)) | ({str(frame[0])} if frame[0] else set()))
        return _digest(json.dumps([self.code, text, frame, [self._file(p) for p in paths]], default=str))

    def has(self, key: str, fingerprint: str) -> bool:
        return os.path.exists(self._path(key, fingerprint))

    def load(self, key: str, fingerprint: str) -> Optional[dict[str, Any]]:
        """The facts kept for a graph, or None."""
        try:
            with open(self._path(key, fingerprint), encoding="utf-8") as f:
                kept: dict[str, Any] = json.load(f)
                return kept
        except (OSError, ValueError):
            return None

    def keep(self, key: str, fingerprint: str, graph: dict[str, Any]) -> None:
        """Keep a graph's ``KEPT`` facts (written whole or not at all: concurrent runs share the folder)."""
        write_atomic(self._path(key, fingerprint), json.dumps({k: graph[k] for k in KEPT if k in graph}))

    def _path(self, key: str, fingerprint: str) -> str:
        name = _digest(f"{key}:{fingerprint}")
        return os.path.join(self.folder, name[:2], name[2:] + ".json")

    def _file(self, path: str) -> str:
        if path not in self._files:
            self._files[path] = file_digest(path) or "unreadable"
        return self._files[path]


@functools.lru_cache(maxsize=None)
def probe_code() -> str:
    """The digest of the probe's own files (what capture sees with, and keeps): another inspector's differs."""
    return _digest(json.dumps([(p.name, file_digest(str(p))) for p in sorted(Path(__file__).parent.glob("*.py"))]))


def file_digest(path: str) -> Optional[str]:
    """The digest of the file's bytes, or None where it cannot be read."""
    try:
        with open(path, "rb") as f:
            return _digest(f.read())
    except OSError:
        return None


def _digest(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()
