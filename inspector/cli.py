"""The command line: a thin typer layer over collect -> analysis -> render.

Exit codes: 0 every variant ran and matched; 1 some variant failed, timed out or did not match;
2 nothing could be run (bad file, bad option); 130 interrupted (what was measured is still written).
"""

import json
import shutil
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

from inspector.analysis import analyze
from inspector.analysis.summary import seconds
from inspector.collect import CollectError, collect
from inspector.record import RecordError, load, save, write_atomic
from inspector.render import html, text

EXIT_OK, EXIT_FAILED, EXIT_CANNOT_RUN, EXIT_INTERRUPTED = 0, 1, 2, 130

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="See what torch.compile did to your numerical Python code, line by line.")
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message, code=EXIT_CANNOT_RUN):
    err.print(f"inspector: error: {message}", markup=False, style="red")
    raise typer.Exit(code)


@app.command()
def report(
    path: Path = typer.Argument(..., help="A sample file, or a folder of samples (each is reported, plus an index)."),
    out: Path = typer.Option(Path("reports"), "--out", "-o", help="Folder for <stem>.html, <stem>.json and <stem>.trace/."),
    population: Optional[int] = typer.Option(None, "--population", "-n", min=1, help="Population size (default: the sample's POPULATION_SIZE)."),
    variant: List[str] = typer.Option([], "--variant", "-v", help="Only this variant id (repeatable)."),
    python: Optional[str] = typer.Option(None, "--python", help="Run the probe under this interpreter (a venv with another torch)."),
    config: List[str] = typer.Option([], "--config", "-c", help="Inductor/Dynamo config KEY=VALUE (dynamo. prefix for Dynamo)."),
    timeout: float = typer.Option(300.0, help="Seconds a single variant may run before it is stopped."),
    budget: float = typer.Option(1.0, help="Seconds of timed runs per variant (more = steadier medians)."),
    fmt: str = typer.Option("html", "--format", "-f", help="html (write the report), text (also print the full summary), json (print the record)."),
    verbose: bool = typer.Option(False, "--verbose", help="Show tracebacks and the probe log on failure."),
):
    """Run every variant of a sample, capture its kernels, and write an HTML report and a JSON record."""
    if fmt not in ("html", "text", "json"):
        fail(f"--format {fmt}: expected html, text or json")
    samples = _samples(path)
    codes = []
    try:
        for sample in samples:
            codes.append(_report_one(sample, out, population, variant, python, config, timeout, budget, fmt,
                                     verbose))
            if codes[-1] == EXIT_INTERRUPTED:
                break
    except KeyboardInterrupt:  # outside a probe run (those are caught and reported by collect)
        fail("interrupted", EXIT_INTERRUPTED)
    if len(samples) > 1 or path.is_dir():
        index = out / "index.html"
        write_atomic(index, html.render_index([_summary_entry(out, s) for s in samples[:len(codes)]]))
        err.print(f"index: {index}", markup=False)
    raise typer.Exit(max(codes))


def _samples(path):
    if not path.exists():
        fail(f"{path}: no such file or folder")
    if path.is_dir():
        found = sorted(p for p in path.glob("*.py") if "def population" in p.read_text(errors="replace"))
        if not found:
            fail(f"{path}: no sample files (Python files defining population(n, rng)) in this folder")
        return found
    if path.suffix != ".py":
        fail(f"{path}: not a Python file (expected a .py sample)")
    return [path]


def _report_one(sample, out, population, variant, python, config, timeout, budget, fmt, verbose):
    stem = sample.stem
    trace_dir = out / f"{stem}.trace"
    shutil.rmtree(trace_dir, ignore_errors=True)
    progress = _Progress(sample)
    try:
        record = collect(sample, population=population, python=python, only=variant or None, config=config,
                         timeout=timeout, trace_dir=trace_dir.resolve(), budget=budget, progress=progress)
    except CollectError as e:
        if verbose and e.log:
            err.print(e.log, markup=False)
        fail(str(e))
    record["trace_dir"] = trace_dir.name if trace_dir.exists() else None
    for v in record["variants"]:
        if v.get("mismatch"):
            err.print(f"  {v['id']}: does not match {record['reference']}: {v['mismatch']}", markup=False)
    analyze(record)
    save(record, out / f"{stem}.json")
    write_atomic(out / f"{stem}.html", html.render(record))
    if fmt == "json":
        print(json.dumps(record, indent=1, default=str))
    else:
        text.render(record, full=fmt == "text")
    err.print(f"wrote {out / (stem + '.html')} and {out / (stem + '.json')}", markup=False)
    if verbose:
        for v in record["variants"]:
            if v.get("error_detail"):
                err.print(f"--- {v['id']} ---\n{v['error_detail']}", markup=False)
    if record["interrupted"]:
        return EXIT_INTERRUPTED
    failed = [v for v in record["variants"] if v["status"] in ("error", "timeout") or v.get("matches_reference") is False]
    return EXIT_FAILED if failed else EXIT_OK


class _Progress:
    """One line per variant on stderr while the probe works."""

    def __init__(self, sample):
        self.sample, self.total, self.done = sample, 0, 0

    def __call__(self, kind, data):
        if kind == "header" and not self.total:
            self.total = len(data["variants"])
            s = data["sample"]
            err.print(f"{self.sample}: {s['title']} · population {s['population']:,} · torch {data['env']['torch']}",
                      markup=False)
        elif kind == "variant":
            self.done += 1
            t = data.get("timing") or {}
            detail = seconds(t.get("median_s")) if t.get("median_s") else (data.get("error") or "")
            if data.get("error_line"):
                detail += f" (line {data['error_line']})"
            if data.get("compiled") and t.get("first_call_s"):
                detail += f" (first call {seconds(t['first_call_s'])})"
            err.print(f"  [{self.done}] {data['id']:<28} {data['status']:<8} {detail}", markup=False)


def _summary_entry(out, sample):
    path = out / f"{sample.stem}.json"
    try:
        record = load(path)
    except RecordError:
        return {"stem": sample.stem, "title": sample.stem, "record": None}
    return {"stem": sample.stem, "title": record["sample"]["title"], "record": record}


@app.command()
def render(
    record_path: Path = typer.Argument(..., help="A record written by `inspector report`."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for the HTML (default: beside the record)."),
):
    """Analyse a record again with this version of inspector and re-render its HTML report."""
    try:
        record = load(record_path)
    except RecordError as e:
        fail(str(e))
    analyze(record)
    target = (out or record_path.parent) / (record_path.stem + ".html")
    write_atomic(target, html.render(record))
    err.print(f"wrote {target}", markup=False)


def main():
    try:
        app()
    except Exception as e:  # a bug in inspector: one line, the traceback only with --verbose
        if "--verbose" in sys.argv:
            raise
        err.print(f"inspector: error: internal error: {type(e).__name__}: {e} (--verbose shows the traceback)",
                  markup=False, style="red")
        sys.exit(EXIT_CANNOT_RUN)
