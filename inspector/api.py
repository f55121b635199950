"""The Python API: every command's work, returning typed values; the command line parses options and calls these.

    report = inspector.report("samples/trig.py", population=20000)   # in Jupyter: the HTML report inline
    report.save("reports")                     # trig.html, trig.json and trig.trace/, as `inspector report` writes
    print(inspector.breaks("samples/knapsack_breaks.py").text())
    inspector.compare("a.json", "b.json").save()                      # <stem>-compare.html beside a.json
    inspector.render("reports/trig.json")                             # a record analysed again by this version
    inspector.schema()                                                # the JSON Schema of .json()'s output
    program = inspector.run("samples/programs/ga.py", ["5000"])       # a program run as it is, as `inspector run`

    with inspector.capture() as report:
        best = evolve(population)      # code that compiles functions with torch.compile, and calls them
    report = inspector.inspect(fitness, population)   # compiled unless it already is; timed eager and compiled

Each returns a Report (a Comparison for ``compare``): ``.html()``, ``.text()``, ``.save(folder)``, the HTML in
Jupyter (in an iframe, apart from the page), and ``exit_code``, the command line's. What cannot be done raises an
``inspector.errors.InspectorError``; what fails inside a variant is that variant's error, in the report.
``progress``: a callable given one line of text per step (each variant as it finishes, each fix tried, each round);
by default nothing is printed.

Functions compiled with ``torch.compile`` inside a ``capture`` block are tracked (as ``inspector run`` tracks a
program's); ``inspect`` resets Dynamo first so that ``fn`` compiles afresh under capture (other compiled functions
then compile again on their next call).
"""

import contextlib
import html
import importlib
import os
import re
import shlex
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, TypedDict, Union

from inspector import envs as envs_mod
from inspector import source as source_mod
from inspector.collect import CollectError, Session, sweep_point
from inspector.collect.program import collect_program, program_record, rerun, warm_in_run, with_experiments
from inspector.errors import FAILED, INTERNAL, INTERRUPTED, OK, InspectorError, Interrupted, InternalFailure
from inspector.model import BreaksView, Fix, FixKind, ProgramAnalysis, Regression, SampleAnalysis
from inspector.model import Comparison as Compared
from inspector.collect.progress import Event, RoundStarted, RunStarted, WarmStarted, Progress as Events
from inspector.probe import sample as contract
from inspector.probe.messages import Compiled, Header, ProgramEnd, ProgramHeader, Trial, VariantResult
from inspector.raw import RawCapture, RawEnv, RawRecord, RawRewrite, RawSample
from inspector.record import load, redact as redact_record, save, write_atomic

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # pragma: no cover - Python 3.10
    from typing_extensions import Unpack
if TYPE_CHECKING:
    from inspector.probe.tracking import Tracker
    from inspector.render.base import Renderer

PathLike = Union[str, Path]
Progress = Callable[[str], None]  # given one line of text per step


class Report:
    """A record and its Analysis: ``.html()``, ``.text()``, ``.json()``, ``.save(folder)``, its HTML view in Jupyter;
    ``status``: a program's exit status (``run``), else None."""

    _tracker: "Tracker"  # inside a capture block only: the probe's Tracker of the functions compiled in it

    def __init__(self, name: str, record: Optional[RawRecord] = None, traced: bool = False,
                 status: Optional[int] = None) -> None:
        self.name, self.record, self.status = name, record, status
        self._analysis: Union[SampleAnalysis, ProgramAnalysis, None] = None
        self._traces = tempfile.TemporaryDirectory(prefix="inspector-") if traced else None  # removed with the Report
        # torch's trace, until saved
        self.trace_dir = Path(self._traces.name) / f"{name}.trace" if self._traces else None

    @property
    def captured(self) -> RawRecord:
        """The record (RuntimeError inside a capture block, before it is made)."""
        if self.record is None:
            raise RuntimeError("the capture is still running: use the report after the with block")
        return self.record

    @property
    def analysis(self) -> Union[SampleAnalysis, ProgramAnalysis]:
        """The record's analysis, a sample's or a program's (InternalFailure when inspector's analysis fails)."""
        if self._analysis is None:
            record = self.captured
            try:
                from inspector.analysis import analyze
                self._analysis = analyze(record)
            except Exception as e:
                raise InternalFailure("analysing the record", e) from e
        return self._analysis

    @property
    def exit_code(self) -> int:
        """What the command line exits with (docs/exit-codes.md): a program's own status, unless inspector failed."""
        a = self.analysis
        # a program's function that raised is the program's own: its status says it
        code = INTERRUPTED if a.interrupted else INTERNAL if a.internal_errors else (
            FAILED if isinstance(a, SampleAnalysis) and a.failed else OK)
        return self.status if self.status is not None and code != INTERNAL else code

    def _view(self, renderer_: "Renderer") -> str:
        return renderer_.render(self.analysis)

    def html(self, index: Optional[str] = None) -> str:
        """The self-contained HTML report; ``index``: the page it links back to (a folder's index)."""
        return self._view(renderer("html", index=index))

    def text(self, color: bool = False) -> str:
        """The full text summary (``--format text``; what ``inspector run`` prints)."""
        return self._view(renderer("text", color=color))

    def summary(self, color: bool = False) -> str:
        """What ``inspector report`` prints: the first screen of a sample's report, a program's in full."""
        return renderer("text", full=False, color=color).render(self.analysis)  # a program's is always in full

    def json(self, number: Optional[int] = None) -> str:
        """The analysis as JSON (``--format json``); ``number``: an older format still written (``--json-format``)."""
        return self._view(renderer("json", number=number))

    def save_record(self, folder: PathLike) -> Path:
        """Write ``<name>.json`` (the record) and ``<name>.trace/`` (torch's trace logs, when any) into ``folder``;
        return the record's path."""
        path, record = Path(folder) / f"{self.name}.json", self.captured
        save(record, path)
        if self.trace_dir:
            target = path.with_suffix(".trace")
            shutil.rmtree(target, ignore_errors=True)
            if record.trace_logs:
                shutil.copytree(self.trace_dir, target)
        return path

    def save_html(self, folder: PathLike, index: Optional[str] = None) -> Path:
        """Write ``<name>.html`` into ``folder``; return its path."""
        path = Path(folder) / f"{self.name}.html"
        write_atomic(path, self.html(index))
        return path

    def save(self, folder: PathLike = "reports", index: Optional[str] = None) -> Path:
        """Write the files the command line writes into ``folder`` (the record first); return the HTML's path."""
        self.save_record(folder)
        return self.save_html(folder, index)

    def _trace_logs(self, record: RawRecord) -> RawRecord:
        """Give torch's trace logs in ``trace_dir`` stable names, for tlparse: torch_trace.log, then (a probe
        restarted) torch_trace-2.log, ...; the record with the folder and the names (none under torch 2.1, which
        writes none)."""
        folder = self.trace_dir
        if folder is None:
            return record
        logs = sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime) if folder.exists() else []
        names = [f"torch_trace{'' if i == 0 else f'-{i + 1}'}.log" for i in range(len(logs))]
        for log, name in zip(logs, names):
            log.rename(folder / name)
        return record.but(trace_dir=folder.name if logs else None, trace_logs=names)

    def _repr_html_(self) -> str:
        return _iframe(self.html())

    def __repr__(self) -> str:
        if self.record is None:
            return f"<inspector report {self.name!r}: capturing>"
        names = ", ".join(str(v.id) for v in self.record.variants or ()) or "nothing compiled"
        return f"<inspector report {self.name!r}: {names}>"


class Breaks(Report):
    """A sample's graph breaks, recompiles and the flags tried (``view``, a BreaksView); its HTML is the report's,
    which lists the same findings."""

    def __init__(self, sample: PathLike, record: RawRecord) -> None:
        super().__init__(Path(sample).stem, record)
        self.sample = str(sample)

    @property
    def view(self) -> BreaksView:
        a = self.analysis
        assert isinstance(a, SampleAnalysis), "breaks runs a sample"
        return BreaksView(self.sample, a.env.torch, a.sample.population or 0, a.findings, a.rewrites)

    @property
    def found(self) -> bool:
        """Whether any compiled variant broke its graph."""
        return any(row.breaks for row in self.view.variants)

    def text(self, color: bool = False) -> str:
        return renderer("text", color=color).breaks(self.view)

    def json(self, number: Optional[int] = None) -> str:
        return renderer("json", number=number).breaks(self.view)


@dataclass(frozen=True)
class Run:
    """One run of a comparison: under ``python`` (None: this interpreter) or ``torch`` (a version, in an environment
    inspector makes; with both, made with that interpreter), with Inductor/Dynamo ``config`` items."""
    python: Optional[str] = None
    torch: Optional[str] = None
    config: tuple[str, ...] = ()


class Comparison:
    """Runs of one sample or program, the first the baseline: ``result`` (the comparison), ``reports`` (a Report per
    run); ``.html()``, ``.text()``, ``.save(folder)``, its HTML view in Jupyter; ``exit_code`` and ``regressions()``
    as the command line uses them. ``records``: the record files compared, None for runs made here."""

    def __init__(self, reports: Sequence[Report], records: Optional[Sequence[Path]] = None) -> None:
        self.reports, self.records = list(reports), records
        from inspector.analysis import compare as compare_mod
        analyses = [r.analysis for r in reports]
        self.result: Compared = compare_mod.compare(analyses)
        self.name = f"{Path(analyses[0].sample.path).stem}-compare"
        failed = any(a.program.exit if isinstance(a, ProgramAnalysis) else a.failed for a in analyses)
        self.exit_code = FAILED if records is None and failed else OK

    def regressions(self, max_slowdown: float = 0.1) -> list[Regression]:
        """What got worse from the baseline (``max_slowdown``: a fraction): Regression values, each said in one line
        by ``inspector.render.comparison.regression``."""
        from inspector.analysis import compare as compare_mod
        return compare_mod.regressions(self.result, max_slowdown)

    def html(self) -> str:
        return renderer("html").comparison(self.result)

    def text(self, color: bool = False) -> str:
        return renderer("text", color=color).comparison(self.result)

    def save(self, folder: Optional[PathLike] = None) -> Path:
        """Write ``<stem>-compare.html`` (and the runs' records, when made here) into ``folder``, by default beside
        the first record or in reports/; return the HTML's path."""
        folder = Path(folder or (self.records[0].parent if self.records else "reports"))
        from inspector.analysis import compare as compare_mod
        paths = self.records or [r.save_record(folder) for r in self.reports]
        self.result = compare_mod.link_reports(self.result, paths, folder)
        path = folder / f"{self.name}.html"
        write_atomic(path, self.html())
        return path

    def _repr_html_(self) -> str:
        return _iframe(self.html())


def renderer(name: str, **options: Any) -> "Renderer":
    """``inspector.render.renderer``, imported when a page or summary is first made: the renderers are most of what
    the command line would import before the probe starts."""
    from inspector.render import renderer as made
    return made(name, **options)


def _iframe(page: str) -> str:
    """Jupyter's view of a page: in an iframe, so the notebook's styles and scripts and the page's own stay apart."""
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" sandbox="allow-scripts" '
            'style="width: 100%; height: 640px; border: 1px solid #ccc"></iframe>')


def _quiet(line: str) -> None:
    """The default progress: nothing."""


def samples(path: PathLike, skipped: Optional[Progress] = None) -> list[Path]:
    """The sample files at ``path``: the file itself, or a folder's files whose source binds ``population`` (each
    program among the others is said to ``skipped``, a line, when given). A file that is not a sample (its source
    binds no ``population``) is refused without being run, saying that ``inspector run`` runs a program."""
    path = Path(path)
    if not path.exists():
        raise InspectorError(f"{path}: no such file or folder")
    if path.is_dir():
        return _folder_samples(path, skipped or _quiet)
    if path.suffix != ".py":
        raise InspectorError(f"{path}: not a Python file (expected a .py sample)")
    tree = contract.parse(str(path))
    if tree is not None and contract.defines_population(tree) is False:
        raise InspectorError(contract.not_a_sample(str(path)))
    return [path]


def _folder_samples(path: Path, skipped: Progress) -> list[Path]:
    """A folder's sample files (see ``samples``; where the source cannot tell, those defining ``population``); its
    programs are said to ``skipped``, each in one line, or named in the one error when the folder has no sample."""
    found: list[Path] = []
    programs: list[Path] = []
    for file in sorted(path.glob("*.py")):
        tree = contract.parse(str(file))
        defines = None if tree is None else contract.defines_population(tree)
        if defines or defines is None and "def population" in (source_mod.text(str(file)) or ""):
            found.append(file)
        elif tree is not None and defines is False and contract.is_program(tree):
            programs.append(file)
    if not found:
        names = ", ".join(p.name for p in programs[:4]) + (", ..." if len(programs) > 4 else "")
        run = (f", only programs ({names}): `inspector run {shlex.quote(str(programs[0]))}` runs one as it is"
               if programs else "")
        raise InspectorError(f"{path}: no sample files (Python files defining population(n, rng)) in this folder"
                             f"{run}")
    for file in programs:
        skipped(contract.not_a_sample(str(file)))
    return found


def _sample(path: PathLike, command: str) -> Path:
    if Path(path).is_dir():
        raise InspectorError(f"{path}: {command} takes one sample file")
    return samples(path)[0]


SWEEP_FACTORS = (100, 10, 1)  # a small sweep: a hundredth and a tenth of the population, then the population
MIN_SWEEP = 100  # individuals, at least, at a sweep's size
BREAKS_FIXES = (FixKind.FLAG, FixKind.STATIC, FixKind.DYNAMIC)  # what breaks tries: a break's flag, a size's shapes


def sweep_sizes(population: int) -> list[int]:
    """The sizes of a small sweep below ``population``: a hundredth and a tenth of it (MIN_SWEEP at least), then
    itself, where the report is made."""
    return sorted({max(MIN_SWEEP, population // f) for f in SWEEP_FACTORS[:-1]} - {population}) + [population]


def _default_population(sample: Path) -> int:
    """The sample's POPULATION_SIZE where it writes it as a number (read, not imported), else the probe's default."""
    from inspector.rewrite import read_program
    from inspector.rewrite.program import literal
    size = literal(read_program(str(sample)).main, "POPULATION_SIZE")
    return size if isinstance(size, int) and size > 0 else contract.DEFAULT_POPULATION


def report(path: PathLike, *, population: Union[int, Sequence[int], None] = None, variants: Sequence[str] = (),
           python: Optional[str] = None, torch: Optional[str] = None, envs: Optional[PathLike] = None,
           packages: Sequence[str] = (), config: Sequence[str] = (), compile_options: Sequence[str] = (),
           rtol: Optional[float] = None, timeout: float = 300.0, budget: float = 1.0, rounds: int = 3,
           profile: bool = True, try_fixes: bool = True, rewrites: bool = True, triton_preview: bool = False,
           warm: bool = True, redact: bool = False, sweep: bool = False, progress: Optional[Progress] = None
           ) -> Report:
    """Run every variant of the sample at ``path`` and capture its kernels, breaks and timings: its Report.

    ``population``: a size (default: the sample's), or sizes to sweep (the smaller ones timed only, the report made
    at the last); ``sweep``: a small sweep below one size (``sweep_sizes``); ``variants``: ids or globs;
    ``torch``: a version run in an environment inspector makes (``envs``: their folder; ``packages``: more to
    install there); ``config``/``compile_options``: KEY=VALUE items;
    ``rounds``: alternating rounds after the variants; ``try_fixes``: time the fixes inspector can apply beside
    them; ``rewrites``: write the code rewrites (``inspector.rewrite``), check and time them beside them (False:
    none; bench/rewrites.py measures what they add to a report); ``warm``: compile each compiled variant again in
    fresh processes with torch's caches warm (in inspector's own cache folder), as a rerun would;
    ``redact``: paths and the program's output replaced, to attach to a bug report.
    """
    sample, say = _sample(path, "report"), progress or _quiet
    sizes: list[Optional[int]] = list(population) if isinstance(population, (list, tuple)) else [
        population if isinstance(population, int) else None]
    if sweep and len(sizes) > 1:
        raise InspectorError("--sweep makes its own sizes: give it one population size, or none (the sample's)")
    if sweep:
        sizes = list(sweep_sizes(sizes[0] or _default_population(sample)))
    runs = [(interpreter(torch, envs, packages, python, say), list(config))]
    options: dict[str, Any] = dict(compile_options=compile_options, timeout=timeout, budget=budget, rtol=rtol,
                                   only=list(variants) or None, triton_preview=triton_preview)
    result = Report(sample.stem, traced=True)
    records: list[RawRecord] = []
    for i, n in enumerate(sizes):  # the smaller sizes first, timings only; the last in full
        last = i == len(sizes) - 1
        records += _measure(sample, say, runs, population=n, trace_dir=result.trace_dir if last else None,
                            kernel_times=last and profile, rounds=rounds if last else 0,
                            warm=envs_mod.cache("torch") if warm and last else None,
                            fixes=_kinds(try_fixes, rewrites) if last else (), **options)
        if records[-1].interrupted:
            break
    record = records[-1]
    if len(records) > 1:
        record = record.but(sweep=[sweep_point(r) for r in records])
    record = result._trace_logs(record)
    result.record = redact_record(record) if redact else record
    return result


def _kinds(try_fixes: bool, rewrites: bool) -> tuple[FixKind, ...]:
    """The kinds of fix a report's run tries: those inspector applies without editing code, and its rewrites."""
    from inspector.analysis import fixes as fixes_mod
    return (*(fixes_mod.TRYABLE if try_fixes else ()), *((FixKind.REWRITE,) if rewrites else ()))


def breaks(path: PathLike, *, variants: Sequence[str] = (), population: Optional[int] = None,
           sizes: Sequence[int] = (), python: Optional[str] = None, torch: Optional[str] = None,
           envs: Optional[PathLike] = None, packages: Sequence[str] = (), config: Sequence[str] = (),
           compile_options: Sequence[str] = (), try_fixes: bool = True, rewrites: bool = True, timeout: float = 300.0,
           budget: float = 0.3, progress: Optional[Progress] = None) -> Breaks:
    """Compile the sample's NumPy and torch variants on the CPU (``variants``: ids or globs, default every
    ``*-compiled-cpu``) and find where they break the graph and recompile (``sizes``: population sizes to call each
    at too); ``try_fixes``: compile again with the flag that removes a break, or ``dynamic=False`` and
    ``dynamic=True`` where a size recompiled; ``rewrites``: write each break's rewrite, check and time it. Progress
    lines include each break as soon as the probe sees it. Its Breaks."""
    sample, say = _sample(path, "breaks"), progress or _quiet
    runs = [(interpreter(torch, envs, packages, python, say), list(config))]
    records = _measure(sample, say, runs, stream_breaks=True, only=list(variants) or ["*-compiled-cpu"],
                       sizes=list(sizes), fixes=(*(BREAKS_FIXES if try_fixes else ()),
                                                 *((FixKind.REWRITE,) if rewrites else ())),
                       population=population, timeout=timeout, budget=budget, compile_options=compile_options,
                       kernel_times=False)  # no pass whose figures breaks never shows
    return Breaks(sample, records[0])


def render(record_path: PathLike) -> Report:
    """A record written by ``report``, ``run`` or ``compare``, analysed again by this version: its Report."""
    path = Path(record_path)
    return Report(path.stem, load(path))


def schema() -> str:
    """The JSON Schema (draft 2020-12) of the JSON this version prints (``.json()``, ``--format json``), as the
    package ships it: the current format's (``inspector schema``)."""
    from inspector.render import schema as schema_mod
    return schema_mod.path().read_text(encoding="utf-8")


def compare(*paths: PathLike, runs: Sequence[Run] = (), config: Sequence[str] = (),
            compile_options: Sequence[str] = (), population: Optional[int] = None, variants: Sequence[str] = (),
            envs: Optional[PathLike] = None, packages: Sequence[str] = (), redact: bool = False,
            timeout: float = 300.0, budget: float = 1.0, rounds: int = 6, warm: bool = True,
            progress: Optional[Progress] = None) -> Comparison:
    """Compare records (``paths``: .json files, the first the baseline) as they are, or run one sample once per
    ``Run`` in ``runs`` (one run: against this interpreter, the baseline), their probes taking turns timing the
    variants again in ``rounds`` alternating rounds; ``config`` and ``compile_options`` apply to every run;
    ``warm``: each run's compiled variants compiled again with torch's caches warm (as ``report`` does)."""
    files = [Path(p) for p in paths]
    if files and all(p.suffix == ".json" for p in files):
        if runs:
            raise InspectorError("runs are of a sample: give a .py file, not records")
        records = [load(p) for p in files]
        return Comparison([Report(p.stem, redact_record(r) if redact else r) for p, r in zip(files, records)], files)
    if len(files) != 1:
        raise InspectorError("give records (.json files) or one sample file")
    sample, say = _sample(files[0], "compare"), progress or _quiet
    made = _with_baseline(runs, "add --torch VERSION or --python PATH (another torch) or --run KEY=VALUE (a config)")
    pythons = [interpreter(r.torch, envs, packages, r.python, say) for r in made]
    records = _measure(sample, say, [(p, [*config, *r.config]) for p, r in zip(pythons, made)], rounds=rounds,
                       population=population, only=list(variants) or None, compile_options=compile_options,
                       timeout=timeout, budget=budget, warm=envs_mod.cache("torch") if warm else None)
    if any(r.interrupted for r in records) or len(records) < len(made):
        raise Interrupted()
    return _compared(sample.stem, records, redact)


def compare_program(program: str, args: Sequence[str] = (), *, module: bool = False, runs: Sequence[Run] = (),
                    envs: Optional[PathLike] = None, packages: Sequence[str] = (), redact: bool = False,
                    hotspots: bool = True, progress: Optional[Progress] = None) -> Comparison:
    """Run a program (a file, or with ``module`` a module) as ``run`` does once per ``Run`` in ``runs`` (python and
    torch only: a program runs as it is; one run: against this interpreter), one after the other, and compare its
    compiled functions; ``hotspots``: and its hot functions, with the experiment on their inputs in each run."""
    if any(r.config for r in runs):
        raise InspectorError("a program runs as it is: its runs take an interpreter or a torch version, no config")
    _program_file(program, module)
    say = progress or _quiet
    made = _with_baseline(runs, "add --torch VERSION or --python PATH (one: against this interpreter)")
    pythons = [interpreter(r.torch, envs, packages, r.python, say) for r in made]
    records = []
    for n, python in enumerate(pythons, 1):  # a program's calls cannot take turns with another run's
        say(f"run {n} of {len(pythons)}: {program} {' '.join(args)} under {python or sys.executable}")
        status, record = _collect_program(program, args, module, python, replay=False,  # a comparison shows none
                                          hotspots=hotspots)
        if record.interrupted:
            raise Interrupted()
        if status:
            say(f"  the program exited with {status}")
        records.append(record)
    return _compared(program_name(program, module, args), records, redact)


def _with_baseline(runs: Sequence[Run], hint: str) -> list[Run]:
    """``runs``, after this interpreter's run (the baseline) when there is only one."""
    if not runs:
        raise InspectorError(f"nothing to compare with: {hint}")
    return [Run()] * (len(runs) == 1) + list(runs)


def _compared(stem: str, records: Sequence[RawRecord], redact: bool) -> Comparison:
    """The Comparison of runs made here, each Report named ``<stem>-<its label>``."""
    from inspector.analysis import compare as compare_mod
    reports = [Report(stem, redact_record(r) if redact else r) for r in records]
    for report, label in zip(reports, compare_mod.labels([r.analysis for r in reports])):
        report.name = stem + "-" + re.sub(r"[^\w.]+", "-", label).strip("-")
    return Comparison(reports)


def run(program: str, args: Sequence[str] = (), *, module: bool = False, name: Optional[str] = None,
        python: Optional[str] = None, torch: Optional[str] = None, envs: Optional[PathLike] = None,
        packages: Sequence[str] = (), trace: bool = True, profile: bool = True, try_fixes: bool = True,
        replay: bool = True, budget: Optional[float] = None, hotspots: bool = True, warm: bool = True,
        cache: bool = True, progress: Optional[Progress] = None) -> Report:
    """Run a program (a file, or with ``module`` a module) as it is, with ``args``, and report what torch.compile
    did to it: its Report, ``status`` its exit status (128 + N when signal N killed it). ``trace``/``profile``: one
    call per function traced for its Python lines / profiled for its kernels; ``try_fixes``: say what could be
    tried; ``replay``: each function replayed eagerly and compiled after the program, within ``budget`` seconds
    (None: the probe's default), to tell whether compiling paid; ``hotspots``: where the program's own time went, and
    the experiment on its hot functions' inputs (inspector's rewrites, eager and compiled, checked and timed);
    ``warm``: what compiling costs it on a rerun: measured in the run where torch found all of a function's graphs in
    its caches (``cache``), else the program rerun bare, its output discarded, with torch's caches warm in inspector's
    cache folder (``collect.program.rerun``); ``cache``: torch's caches in inspector's folder during the run too,
    with what capture kept of each graph it compiled, so that a rerun of the same code compiles only what changed
    (``inspector.probe.graphcache``; else every graph is compiled afresh)."""
    _program_file(program, module)
    result = Report(name or program_name(program, module, args), traced=True)
    python = interpreter(torch, envs, packages, python, progress or _quiet)
    folder = envs_mod.cache("torch")
    _import_meanwhile(PAGE_MODULES)
    status, record = _collect_program(program, args, module, python, trace_dir=result.trace_dir, trace=trace,
                                      profile=profile, replay=replay, budget=budget, hotspots=hotspots,
                                      cache=folder if cache else None)
    if warm and cache:
        record = warm_in_run(record, folder)
    if warm and any(v.status == "ok" and not v.warm for v in record.variants or []):
        (progress or _quiet)(f"inspector: rerunning the program bare, its output discarded, torch's caches in "
                             f"{folder} (what compiling costs a rerun; --no-warm skips it)")
        record = rerun(record, program, [str(a) for a in args], folder, module=module, python=python)
    record = result._trace_logs(record)
    assert record.program is not None, "a program's record holds its run"
    result.record = record.but(program=record.program.but(try_fixes=try_fixes))
    result.status = status if status >= 0 else 128 - status  # a signal: as a shell says it
    return result


PAGE_MODULES = ("inspector.analysis", "inspector.render.html", "inspector.render.text")  # what a run's page needs


def _import_meanwhile(modules: Sequence[str]) -> None:
    """Import ``modules`` in a thread of their own while the program runs in its process (the command line imports
    them only when its page is made, so that the program starts sooner): the page is written as soon after."""
    threading.Thread(target=lambda: [importlib.import_module(m) for m in modules], daemon=True,
                     name="inspector-imports").start()


def _program_file(program: str, module: bool) -> None:
    if not module and not Path(program).is_file():
        raise InspectorError(f"{program}: no such file (for a module, use -m {program})")


def _collect_program(program: str, args: Sequence[str], module: bool, python: Optional[str],
                     **options: Any) -> tuple[int, RawRecord]:
    ran: tuple[int, RawRecord] = collect_program(program, [str(a) for a in args], module=module, python=python,
                                                 **options)
    return ran


def program_name(program: str, module: bool, argv: Sequence[str]) -> str:
    """A program's report name: its stem; for a module run on a module or file it names first (a test runner:
    ``-m unittest tests.test_ga`` → unittest-tests.test_ga), the module and that name, so that runs of one runner
    keep apart."""
    if not module:
        return Path(program).stem
    name = program.rsplit(".", 1)[-1]
    target = next((a for a in argv if not a.startswith("-")), "")
    if target.endswith(".py") or target and Path(target).is_dir():
        name += f"-{Path(target).stem}"
    elif re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", target):
        name += f"-{target}"
    return name


def interpreter(torch: Optional[str], envs: Optional[PathLike] = None, packages: Sequence[str] = (),
                base: Optional[str] = None, progress: Optional[Progress] = None) -> Optional[str]:
    """The interpreter to run under: ``base`` (None: this one), or with ``torch`` (a version, a build or a wheel)
    that torch's: this interpreter when it has it, else an environment's that inspector makes once in ``envs``
    (with ``base`` and ``packages``), each step a progress line."""
    return envs_mod.interpreter(envs_mod.parse(torch), envs, base, packages, say=progress or _quiet) if torch else base


class SessionOptions(TypedDict, total=False):
    """``measure``'s keywords, ``inspector.collect.Session``'s (its docstring says each)."""

    population: Optional[int]
    only: Optional[list[str]]
    compile_options: Sequence[str]
    timeout: float
    trace_dir: Optional[Path]
    budget: float
    seed: int
    sizes: Sequence[int]
    kernel_times: bool
    triton_preview: bool
    rtol: Optional[float]
    warm: Optional[Path]
    progress: Events


def measure(sample: str | Path, runs: Sequence[tuple[Optional[str], Sequence[str]]], *,
            fixes: Sequence[FixKind] = (), rounds: int = 0, **options: Unpack[SessionOptions]) -> list[RawRecord]:
    """The raw records of ``sample``'s runs (``runs``: (interpreter or None, config items)), each with the fixes of
    the kinds ``fixes`` that apply to its variants tried on its live probe, then every run timed again in ``rounds``
    alternating rounds: the one way through collect (``inspector.collect.Session``) -> analyze -> the fixes that
    apply (``inspector.analysis.fixes``; REWRITE: the rewrites inspector writes here, ``inspector.rewrite``) -> the
    live probe tries them -> the records. ``options``: Session's."""
    from inspector.analysis import analyze, fixes as fixes_mod
    with Session(sample, rounds=rounds, trials=bool(fixes), **options) as session:
        for python, config in runs:
            record = session.run(python, config)
            if fixes and session.live:
                analysis = analyze(record)
                assert isinstance(analysis, SampleAnalysis), "a sample's run"
                written, runs_ = _rewrites(Path(sample), analysis, bool(rounds), options.get("rtol")) \
                    if FixKind.REWRITE in fixes else ([], [])
                session.try_fixes([_trial(f, bool(rounds)) for f in fixes_mod.to_try(analysis, fixes)] + runs_,
                                  written)
            if session.interrupted:
                break
        session.time_rounds()
        records: list[RawRecord] = session.records()
        return records


def _rewrites(sample: Path, analysis: SampleAnalysis, timed: bool, rtol: Optional[float]
              ) -> tuple[list[RawRewrite], list[Trial]]:
    """The rewrites of ``fixes.rewrites`` written here (``inspector.rewrite``: nothing of the sample runs in this
    process), and the RewriteTrials that run each in the live probe, each checked within ``rtol`` (--rtol; None:
    the sample's); a rewriter that fails is said as declined."""
    from inspector.analysis import fixes as fixes_mod
    from inspector.rewrite import Dialect, plan as rewrite_plan, read_program
    program, numba = read_program(str(sample)), bool(analysis.env.numba)
    written: list[RawRewrite] = []
    runs: list[Trial] = []
    for fix in fixes_mod.rewrites(analysis):
        v = analysis.variant(fix.variant)
        dialect = Dialect(fix.spec.name.split("-")[-1] if v.kind == "python" and fix.spec else v.kind)
        rows = v.timing.measured_population or analysis.sample.population if v.timing else analysis.sample.population
        raw, trials = (rewrite_plan.vectorized(program, v.id, v.function, dialect, rows or 0, timed, numba, rtol,
                                               str(envs_mod.cache("numba")) if numba else None)
                       if v.kind == "python" else rewrite_plan.breaks(program, v.id, v.function, dialect, timed, rtol))
        written.append(raw)
        runs += trials
    return written, runs


def _trial(fix: Fix, timed: bool) -> Trial:
    """The live probe's Trial command for ``fix`` (``inspector.probe.trials``); ``timed``: rounds follow (else the
    probe times it on its own)."""
    spec = fix.spec
    assert spec is not None, "fixes.to_try gives only fixes inspector can try"
    found = {"id": fix.id, "variant": fix.variant, "fix": spec.name, "kind": fix.kind.value, "layout": spec.layout,
             "config": list(spec.config),
             "compile_options": dict(spec.compile_options), "sizes": list(spec.sizes)}
    return Trial.from_json(dict({k: v for k, v in found.items() if v}, time=not timed))


def _measure(sample: Path, say: Progress, runs: Sequence[tuple[Optional[str], Sequence[str]]],
             stream_breaks: bool = False, **options: Any) -> list[RawRecord]:
    """measure()'s records of ``runs`` (interpreter or None, config items); each mismatch said as soon as known."""
    progress = _Progress(sample, say, stream_breaks)
    try:
        records = measure(sample, runs, progress=progress, **options)
    except CollectError as e:
        module = envs_mod.missing_module(str(e))
        if module in (None, "numpy", "torch"):
            raise
        raise CollectError(f"{e} (not installed where the probe ran; under --torch, --with {module} installs it in "
                           "the environment, if that is its package's name)", e.detail) from None
    for v in (v for record in records for v in record.variants or []):
        if v.mismatch:
            against = f" {v.checked_against}" if v.checked_against else ""
            say(f"  {v.id}: does not match{against}: {v.mismatch}")
    return records


class _Progress:
    """The probe's messages as progress lines: one per variant; with ``breaks``, each graph break of a compiled
    variant's first call as soon as the probe streams it."""

    def __init__(self, sample: Path, say: Callable[[str], None], breaks: bool = False) -> None:
        self.sample, self.say, self.total, self.done, self.breaks = sample, say, 0, 0, breaks
        self.run: Optional[tuple[RawSample, RawEnv]] = None  # the run's sample and env, from its probe's header

    def __call__(self, event: Event) -> None:
        match event:
            case RunStarted():  # the next run of a comparison: its header and numbering anew
                self.total = self.done = 0
            case Trial():
                self.say(f"  trying {event.fix} on {event.variant}")
            case RoundStarted():
                self.say(f"  timing every run's variants again, taking turns: round {event.round} of {event.of}")
            case WarmStarted():
                self.say(f"  compiling the compiled variants again in fresh processes, torch's caches in {event.cache}"
                         " (what a rerun pays)")
            case Header(sample=RawSample() as s, env=RawEnv() as env) if not self.total:
                self.total, self.run = len(event.variants or []), (s, env)
                self.say(f"{self.sample}: {s.title} · population {s.population:,} · torch {env.torch}")
            case Compiled(capture=RawCapture() as capture) if self.breaks and self.run:
                from inspector.analysis import breaks as breaks_mod
                s, env = self.run
                for file, line, reason in breaks_mod.first_seen(capture.breaks or [], env, str(self.sample), s.file):
                    self.say(f"      {event.id}: graph break at {file}:{line}: {reason}")
            case VariantResult():
                self.done += 1
                self.say(f"  [{self.done}] {event.id or '':<28} {event.status or '':<8} {self._detail(event)}")

    def _detail(self, v: VariantResult) -> str:
        """What a variant's progress line says after its status: its time, or its error."""
        from inspector.render.words import seconds
        median, population = v.timing and v.timing.median_s, self.run and self.run[0].population
        detail = seconds(median) if median else (v.error or "")
        if v.preview and v.status == "ok":
            detail = "Triton code for a CPU target, not run"
        if v.error_line:
            detail += f" (line {v.error_line})"
        if median and v.measured_population and population and v.measured_population < population:
            detail = (f"{seconds(median)} for the first {v.measured_population:,} individuals "
                      "(the table scales it to the population)")
        if v.compiled and v.timing and v.timing.first_call_s:
            detail += f" (first call {seconds(v.timing.first_call_s)})"
        return detail


def capture(name: str = "capture", *, hotspots: bool = True,
            budget: Optional[float] = None) -> contextlib.AbstractContextManager[Report]:
    """Track every function compiled with ``torch.compile`` inside the block; yields the Report, filled at its
    end (also when the block raises). ``hotspots``: where the block's own time went (the code in its caller's folder),
    and, once it has ended without raising, the experiment on its hot functions' inputs within ``budget`` seconds
    (None: the probe's default), as ``run`` does for a program."""
    folder = os.path.dirname(os.path.abspath(sys._getframe(1).f_code.co_filename)) if hotspots else None
    return _capture(name, "capture", folder, budget)


@contextlib.contextmanager
def _capture(name: str, made_by: str, folder: Optional[str] = None, budget: Optional[float] = None
             ) -> Iterator[Report]:
    """Track the block's compiled functions; with ``folder``, also where the time of the code there went."""
    from inspector.probe import ours_left_out_of_collections
    from inspector.probe.hotspots import Hotspots
    from inspector.probe.program import header
    from inspector.probe.tracking import Tracker
    report = Report(name)
    started = header(name, False, None, [], measure_bandwidth=False)  # a cached figure only: no 512 MiB copy here
    tracker = Tracker()
    tracker.install()
    if folder:
        tracker.hotspots = Hotspots([folder], skip=tracker.by_key.__contains__)
        tracker.budget = budget  # None: set by the block's length (inspector.probe.replay.budget)
        tracker.hotspots.install()
    status = 0
    try:
        report._tracker = tracker
        with ours_left_out_of_collections():
            yield report
    except BaseException:
        status = 1
        raise
    finally:
        end = tracker.end(status)
        if not status:
            end = with_experiments(end, tracker.experimented(status))
        tracker.uninstall()
        del report._tracker
        report.record = _record(started, end, status, made_by)


def inspect(fn: Callable[..., Any], *args: Any, budget: float = 1.0, **kwargs: Any) -> Report:
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
    record = report.captured
    assert record.program is not None and record.variants, "a capture's record holds its run and the function"
    report.record = record.but(program=record.program.but(eager={record.variants[0].id: timing["median_s"]}))
    return report


def _record(header: ProgramHeader, end: ProgramEnd, status: int, made_by: str) -> RawRecord:
    return program_record(header, end, status, made_by=made_by)
