"""The Python API: what ``inspector run`` reports, for a block of code or one function, in this process.

    with inspector.capture() as report:
        best = evolve(population)      # code that compiles functions with torch.compile, and calls them
    report                             # in Jupyter: the HTML report inline (in an iframe, apart from the page)
    report.save("reports")             # <name>.html and <name>.json

    report = inspector.inspect(fitness, population)   # compiled unless it already is; timed eager and compiled

Functions compiled with ``torch.compile`` inside the block are tracked (as ``inspector run`` tracks a program's);
``inspect`` resets Dynamo first so that ``fn`` compiles afresh under capture (other compiled functions then compile
again on their next call).
"""

import contextlib
import html
import linecache
from pathlib import Path

from inspector.record import save, write_atomic


class Report:
    """A captured run: ``.html()``, ``.text()``, ``.save(folder)``, and its HTML view in Jupyter."""

    def __init__(self, name):
        self.name, self.record, self._analysis = name, None, None

    @property
    def analysis(self):
        if self.record is None:
            raise RuntimeError("the capture is still running: use the report after the with block")
        if self._analysis is None:
            from inspector.analysis import analyze
            self._analysis = analyze(self.record)
        return self._analysis

    def html(self):
        """The self-contained HTML report."""
        from inspector.render.base import renderer
        return renderer("html").program(self.analysis)

    def text(self):
        """The summary ``inspector run`` prints."""
        from inspector.render.base import renderer
        return renderer("text").program(self.analysis)

    def save(self, folder="reports"):
        """Write ``<name>.html`` and ``<name>.json`` (the record) into ``folder``; return the HTML's path."""
        folder = Path(folder)
        save(self.record, folder / f"{self.name}.json")
        write_atomic(folder / f"{self.name}.html", self.html())
        return folder / f"{self.name}.html"

    def _repr_html_(self):
        """Jupyter's view: the report in an iframe, so the notebook's styles and scripts and the report's own
        stay apart."""
        return (f'<iframe srcdoc="{html.escape(self.html(), quote=True)}" sandbox="allow-scripts" '
                'style="width: 100%; height: 640px; border: 1px solid #ccc"></iframe>')

    def __repr__(self):
        if self.record is None:
            return f"<inspector report {self.name!r}: capturing>"
        names = ", ".join(v["id"] for v in self.record["variants"]) or "nothing compiled"
        return f"<inspector report {self.name!r}: {names}>"


def capture(name="capture"):
    """Track every function compiled with ``torch.compile`` inside the block; yields the Report, filled at its
    end (also when the block raises)."""
    return _capture(name, "capture")


@contextlib.contextmanager
def _capture(name, made_by):
    from inspector.probe.program import Tracker, header
    report = Report(name)
    started = header(name, False, None, [], measure_bandwidth=False)  # a cached figure only: no 512 MiB copy here
    tracker = Tracker()
    tracker.install()
    status = 0
    try:
        report._tracker = tracker
        yield report
    except BaseException:
        status = 1
        raise
    finally:
        end = tracker.end(status)
        tracker.uninstall()
        del report._tracker
        report.record = _record(started, end, status, made_by)


def inspect(fn, *args, budget=1.0, **kwargs):
    """Compile ``fn`` (unless it already is), call it on ``args``: compiled until its calls are steady and for
    about half of ``budget`` seconds, and eager for the other half; return the Report, with the eager time beside
    the compiled one."""
    import torch
    from inspector.probe.timing import measure
    eager = getattr(fn, "_torchdynamo_orig_callable", None) or getattr(fn, "_orig_mod", None) or fn
    torch._dynamo.reset()
    with _capture(getattr(eager, "__name__", "inspect"), "inspect") as report:
        tracker = report._tracker
        compiled = tracker.track(eager, tracker.original(eager) if eager is fn else fn)
        for _ in range(3):  # compile, then the traced call and the profiled one
            compiled(*args, **kwargs)
        measure(lambda: compiled(*args, **kwargs), budget_s=budget / 2)
    timing = measure(lambda: eager(*args, **kwargs), budget_s=budget / 2)
    report.record["program"]["eager"] = {report.record["variants"][0]["id"]: timing["median_s"]}
    return report


def _record(header, end, status, made_by):
    from inspector.collect.program import program_record
    return program_record(header, end, status, reader=_source, made_by=made_by)


def _source(path):
    """A file's text from the disk, else from linecache (a notebook cell's code)."""
    from inspector.analysis.files import from_disk
    text = from_disk(path)
    return text if text is not None else "".join(linecache.getlines(path)) or None
