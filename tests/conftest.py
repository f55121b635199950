"""Shared fixtures: real reports built once per session through the CLI (small populations)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SMALL = {"poly": 20_000, "trig": 20_000, "sum": 2_000}


def run_cli(*args, cwd=ROOT, timeout=600, **kwargs):
    """Run ``python -m inspector ARGS`` as a user would; return the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, **kwargs)


@pytest.fixture(scope="session")
def blog_reports(tmp_path_factory):
    """{stem: (CompletedProcess, record, html)} for the three blog samples, reported once."""
    out = tmp_path_factory.mktemp("reports")
    built = {}
    for stem, n in SMALL.items():
        proc = run_cli("report", f"samples/{stem}.py", "--population", n, "--budget", "0.1", "-o", out)
        record = json.loads((out / f"{stem}.json").read_text()) if (out / f"{stem}.json").exists() else None
        html = (out / f"{stem}.html").read_text() if (out / f"{stem}.html").exists() else None
        built[stem] = (proc, record, html, out)
    return built


def variant(record, vid):
    return next(v for v in record["variants"] if v["id"] == vid)
