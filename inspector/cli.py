"""The command line: a thin typer layer over collect -> record -> analysis -> render.

Exit codes (docs/exit-codes.md): 0 every variant ran and matched; 1 some variant failed, timed out or did not
match; 2 nothing could be run (bad file, bad option, unreadable record); 3 (`breaks --fail-on-break`) a graph
break was found; 4 inspector itself failed (a bug: what was measured is still written); 130 interrupted.
"""

import re
import shutil
import sys
import traceback
from dataclasses import replace
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

from inspector.analysis import analyze, breaks as breaks_mod
from inspector.analysis import compare as compare_mod, trials
from inspector import envs as envs_mod
from inspector.collect import CollectError, collect, collect_runs, sweep_point
from inspector.collect.program import collect_program
from inspector.model import BreaksView
from inspector.record import RecordError, load, redact as redact_record, save, write_atomic
from inspector.render.base import renderer
from inspector.render.words import seconds

EXIT_OK, EXIT_FAILED, EXIT_CANNOT_RUN, EXIT_CHECK, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
PLEASE_REPORT = "this is a bug in inspector: please report it, with the output of --verbose"
INDEX = "index.html"  # the index of a folder's reports, beside them
TORCH_HELP = ("Run under this torch: a version (2.1.2), a build (2.13.0+cpu) or a torch wheel, in an environment "
              "inspector makes once in its cache and reuses (this interpreter when it has that torch; with --python, "
              "the environment is made with that interpreter).")
ENVS_HELP = "Folder of the --torch environments (default: inspector's folder in your cache)."
WITH_HELP = "A package the sample or program imports, installed in the --torch environment too (repeatable)."

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="See what torch.compile did to your numerical Python code, line by line.")
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message, code=EXIT_CANNOT_RUN):
    err.print(f"inspector: error: {message}", markup=False, style="red")
    raise typer.Exit(code)


def internal(what, error, verbose):
    """Say that inspector itself failed at ``what``: one line (the traceback with --verbose)."""
    if verbose:
        err.print("".join(traceback.format_exception(error)), markup=False)
    err.print(f"inspector: internal error while {what}: {type(error).__name__}: {error} ({PLEASE_REPORT})",
              markup=False, style="red")


def _emit(text, stream=None):
    """Print ``text`` (a rendered view) on ``stream``, stdout by default, with one final newline."""
    stream = stream or sys.stdout
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()


@app.command()
def report(
    path: Path = typer.Argument(..., help="A sample file, or a folder of samples (each is reported, plus an index)."),
    out: Path = typer.Option(Path("reports"), "--out", "-o", help="Folder for <stem>.html, <stem>.json and <stem>.trace/."),
    population: str = typer.Option("", "--population", "-n", help="Population size (default: the sample's POPULATION_SIZE), or sizes to sweep (10000,100000,900000): the report is made at the last and plots speedup against size."),
    variant: List[str] = typer.Option([], "--variant", "-v", help="Only this variant id or glob, e.g. '*-compiled-cpu' (repeatable)."),
    python: Optional[str] = typer.Option(None, "--python", help="Run the probe under this interpreter (a venv with another torch)."),
    torch: Optional[str] = typer.Option(None, "--torch", help=TORCH_HELP),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: List[str] = typer.Option([], "--with", help=WITH_HELP),
    config: List[str] = typer.Option([], "--config", "-c", help="Inductor/Dynamo config KEY=VALUE (dynamo. prefix for Dynamo)."),
    timeout: float = typer.Option(300.0, help="Seconds a single variant may run before it is stopped."),
    budget: float = typer.Option(1.0, help="Seconds of timed runs per variant (more = steadier medians)."),
    fmt: str = typer.Option("html", "--format", "-f", help="html (write the report), text (also print the full summary), json (print the analysis as JSON)."),
    verbose: bool = typer.Option(False, "--verbose", help="Show tracebacks and the probe log on failure."),
    triton_preview: bool = typer.Option(False, "--triton-preview", help="Also show the Triton code Inductor generates for each NumPy/torch function, targeting the CPU (a codegen preview, never run or timed; needs the triton package)."),
    compile_option: List[str] = typer.Option([], "--compile-option", help="A torch.compile keyword KEY=VALUE: mode=max-autotune, dynamic=True, fullgraph=True, backend=... (repeatable)."),
    rtol: Optional[float] = typer.Option(None, "--rtol", help="Relative tolerance of the cross-check (default: the sample's TOLERANCE, else 1e-5)."),
    redact: bool = typer.Option(False, "--redact", help="Replace home, site-packages and interpreter paths and the program's printed output in the record and HTML, to attach them to a bug report."),
    rounds: int = typer.Option(3, "--rounds", min=0, help="After the variants, time them again in this many rounds, each in turn (half of --budget), so that the ratios against Python and NumPy are taken side by side; 0: none."),
    profile: bool = typer.Option(True, "--profile/--no-profile", help="Profiled passes after the timed runs: each kernel's time, on all threads and on 1 (--no-profile skips them: faster, no per-kernel times or thread scaling)."),
    try_fixes: bool = typer.Option(True, "--try-fixes/--no-try-fixes", help="Try the fixes inspector can apply without editing your code where they apply (the population column-major, the tiling heuristic off, a Dynamo flag that removes a break), timed side by side with the variant in the rounds; their effect is shown where the advice is."),
):
    """Run every variant of a sample, capture its kernels, and write an HTML report and a JSON record."""
    if fmt not in ("html", "text", "json"):
        fail(f"--format {fmt}: expected html, text or json")
    samples = _samples(path)
    sizes = _sizes("--population", population)
    python = _managed(torch, envs, with_, python) if torch else python
    run = dict(python=python, config=config, compile_options=compile_option, timeout=timeout, budget=budget,
               rtol=rtol, kernel_times=profile, rounds=rounds, try_fixes=trials.KINDS if try_fixes else ())
    codes, done = [], []
    folder = len(samples) > 1 or path.is_dir()  # an index links the reports, and each report links back to it
    try:
        for sample in samples:
            try:
                code, analysis = _report_one(sample, out, sizes, variant, run, fmt, verbose, triton_preview, redact,
                                             index=INDEX if folder else None)
            except typer.Exit as e:  # the sample could not run: said in one line; a folder goes on
                if len(samples) == 1:
                    raise
                code, analysis = e.exit_code, None
            codes.append(code)
            done.append((sample.stem, analysis))
            if code == EXIT_INTERRUPTED:
                break
    except KeyboardInterrupt:  # outside a probe run (those are caught and reported by collect)
        fail("interrupted", EXIT_INTERRUPTED)
    if folder:
        index = out / INDEX
        write_atomic(index, renderer("html").index(done))
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


def _sizes(option, text):
    """Comma-separated population sizes (positive integers)."""
    try:
        sizes = [int(n) for n in text.split(",") if n.strip()]
    except ValueError:
        sizes = [0]
    if any(n < 1 for n in sizes):
        fail(f"{option} {text}: expected positive integers, comma-separated")
    return sizes


def _report_one(sample, out, sizes, variant, run, fmt, verbose, triton_preview, redact, index=None):
    """Report one sample: (exit code, Analysis or None). With several sizes, the smaller ones first (timings
    only) and the last in full. The raw record is written first, so a failure later loses nothing measured.
    ``index``: the folder's index page beside the report, which the report links back to."""
    stem = sample.stem
    trace_dir = out / f"{stem}.trace"
    shutil.rmtree(trace_dir, ignore_errors=True)
    records, runs = [], sizes or [None]
    for i, n in enumerate(runs):
        last = i == len(runs) - 1
        records.append(_measure(sample, verbose, population=n, only=variant or None,
                                trace_dir=trace_dir.resolve() if last else None, triton_preview=triton_preview,
                                **dict(run, kernel_times=last and run["kernel_times"], rounds=last and run["rounds"],
                                       try_fixes=run["try_fixes"] if last else ())))
        if records[-1]["interrupted"]:
            break
    record = records[-1]
    if len(records) > 1:
        record["sweep"] = [sweep_point(r) for r in records]
    _trace_logs(record, trace_dir)
    if redact:
        record = redact_record(record)
    save(record, out / f"{stem}.json")
    code, analysis = publish(record, out / f"{stem}.html", fmt, verbose, written=[out / f"{stem}.json"], index=index)
    if verbose and analysis:
        for v in analysis.variants:
            if v.error_detail:
                err.print(f"--- {v.id} ---\n{v.error_detail}", markup=False)
    return code, analysis


def _trace_logs(record, trace_dir):
    """Give torch's trace logs in ``trace_dir`` stable names, for tlparse: torch_trace.log, then (a probe restarted)
    torch_trace-2.log, ...; the record keeps the folder and the names (none under torch 2.1, which writes none)."""
    logs = sorted(trace_dir.glob("*.log"), key=lambda p: p.stat().st_mtime) if trace_dir.exists() else []
    names = [f"torch_trace{'' if i == 0 else f'-{i + 1}'}.log" for i in range(len(logs))]
    for log, name in zip(logs, names):
        log.rename(trace_dir / name)
    record["trace_dir"], record["trace_logs"] = (trace_dir.name if logs else None), names


def publish(record, html_path, fmt, verbose, written=(), stream=None, index=None):
    """Analyse a record, write its HTML and print its summary (on ``stream``, default stdout): (exit code, Analysis
    or None); ``written``: other files already written, to name beside the HTML; ``index``: the page the HTML links
    back to (a folder's index). A program's record (``inspector run``) gets the program views.

    When inspector's own analysis fails nothing more is written; when only the HTML fails the full text summary is
    printed instead; either way the exit code says inspector failed (the record itself is the caller's to keep).
    """
    analysis = _analyze(record, verbose)
    if analysis is None:
        if written:
            err.print(f"wrote {' and '.join(map(str, written))} (no report)", markup=False)
        return EXIT_INTERNAL, None
    view = "program" if analysis.program else "report"
    try:
        write_atomic(html_path, getattr(renderer("html", index=index), view)(analysis))
        html_failed = False
    except Exception as e:  # the text summary below still shows what was measured
        internal("writing the HTML report", e, verbose)
        html_failed = True
    color = (stream or sys.stdout).isatty()
    if fmt == "json":
        _emit(getattr(renderer("json"), view)(analysis), stream)
    elif fmt == "text" or html_failed or analysis.program:
        _emit(getattr(renderer("text", color=color), view)(analysis), stream)
    else:
        _emit(renderer("text", full=False, color=color).report(analysis), stream)
    written = ([] if html_failed else [html_path]) + list(written)
    if written:
        err.print(f"wrote {' and '.join(map(str, written))}", markup=False)
    _show_internal_errors(analysis, verbose)
    if analysis.interrupted:
        return EXIT_INTERRUPTED, analysis
    if analysis.internal_errors or html_failed:
        return EXIT_INTERNAL, analysis
    # a program's function that raised is the program's business (run exits with its status), not a failed variant
    return (EXIT_FAILED if analysis.failed and not analysis.program else EXIT_OK), analysis


def _analyze(record, verbose):
    """analyze(record), or None after saying that inspector's analysis failed."""
    try:
        return analyze(record)
    except Exception as e:
        internal("analysing the record", e, verbose)
        return None


def _show_internal_errors(analysis, verbose):
    for e in analysis.internal_errors:
        err.print(f"inspector: internal error in {e.where}: {e.error} ({PLEASE_REPORT}; what was measured is "
                  "in the report)", markup=False, style="red")
        if verbose and e.detail:
            err.print(e.detail, markup=False)


def _measure(sample, verbose, quiet=False, stream_breaks=False, runs=None, **options):
    """collect() (with ``runs``: collect_runs(), a list of records), turning a sample that cannot run into one error
    line; mismatches are said as soon as known."""
    progress = (lambda kind, data: None) if quiet else _Progress(sample, stream_breaks)
    try:
        records = collect_runs(sample, runs, progress=progress, **options) if runs else [
            collect(sample, progress=progress, **options)]
    except CollectError as e:
        if verbose and e.log:
            err.print(e.log, markup=False)
        module = envs_mod.missing_module(str(e))
        fail(str(e) + (f" (not installed where the probe ran; under --torch, --with {module} installs it in the "
                       "environment, if that is its package's name)" if module not in (None, "numpy", "torch") else ""))
    for v in (v for record in records for v in record["variants"]):
        if v.get("mismatch"):
            against = f" {v['checked_against']}" if v.get("checked_against") else ""
            err.print(f"  {v['id']}: does not match{against}: {v['mismatch']}", markup=False)
    return records if runs else records[0]


class _Progress:
    """One line per variant on stderr while the probe works; with ``breaks``, each graph break of a compiled
    variant's first call as soon as the probe streams it."""

    def __init__(self, sample, breaks=False):
        self.sample, self.total, self.done, self.population, self.breaks = sample, 0, 0, None, breaks
        self.header = None

    def __call__(self, kind, data):
        if kind == "run":  # the next run of a comparison: its header and numbering anew
            self.total = self.done = 0
        elif kind == "trial":
            err.print(f"  trying {data['fix']} on {data['variant']}", markup=False)
        elif kind == "round":
            err.print(f"  timing every run's variants again, taking turns: round {data['round']} of {data['of']}",
                      markup=False)
        elif kind == "header" and not self.total:
            self.total = len(data["variants"])
            s, self.header = data["sample"], data
            self.population = s["population"]
            err.print(f"{self.sample}: {s['title']} · population {s['population']:,} · torch {data['env']['torch']}",
                      markup=False)
        elif kind == "compiled" and self.breaks and self.header:
            s = self.header["sample"]
            for file, line, reason in breaks_mod.first_seen(data["capture"].get("breaks") or [], self.header["env"],
                                                            str(self.sample), s.get("file")):
                err.print(f"      {data['id']}: graph break at {file}:{line}: {reason}", markup=False)
        elif kind == "variant":
            self.done += 1
            t = data.get("timing") or {}
            detail = seconds(t.get("median_s")) if t.get("median_s") else (data.get("error") or "")
            if data.get("preview") and data["status"] == "ok":
                detail = "Triton code for a CPU target, not run"
            if data.get("error_line"):
                detail += f" (line {data['error_line']})"
            if t.get("median_s") and data.get("measured_population") and self.population \
                    and data["measured_population"] < self.population:
                detail = (f"{seconds(t['median_s'])} for the first {data['measured_population']:,} individuals "
                          "(the table scales it to the population)")
            if data.get("compiled") and t.get("first_call_s"):
                detail += f" (first call {seconds(t['first_call_s'])})"
            err.print(f"  [{self.done}] {data['id']:<28} {data['status']:<8} {detail}", markup=False)


@app.command()
def breaks(
    path: Path = typer.Argument(..., help="A sample file."),
    variant: List[str] = typer.Option([], "--variant", "-v", help="Only this compiled variant id or glob (default: every *-compiled-cpu)."),
    population: Optional[int] = typer.Option(None, "--population", "-n", min=1, help="Population size (default: the sample's POPULATION_SIZE)."),
    sizes: str = typer.Option("", "--population-sizes", help="Also call each compiled variant at these sizes (e.g. 1000,20000) and report recompilations with the guard that failed."),
    python: Optional[str] = typer.Option(None, "--python", help="Run the probe under this interpreter."),
    torch: Optional[str] = typer.Option(None, "--torch", help=TORCH_HELP),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: List[str] = typer.Option([], "--with", help=WITH_HELP),
    config: List[str] = typer.Option([], "--config", "-c", help="Inductor/Dynamo config KEY=VALUE."),
    compile_option: List[str] = typer.Option([], "--compile-option", help="A torch.compile keyword KEY=VALUE (repeatable)."),
    try_fixes: bool = typer.Option(True, "--try-fixes/--no-try-fixes", help="Compile again with the config flag that removes a break, and with dynamic=False where a --population-sizes size recompiled, and report what each changed."),
    timeout: float = typer.Option(300.0, help="Seconds a single variant may run before it is stopped."),
    budget: float = typer.Option(0.3, help="Seconds of timed runs per variant."),
    as_json: bool = typer.Option(False, "--json", help="Print the findings as JSON."),
    fail_on_break: bool = typer.Option(False, "--fail-on-break", help=f"Exit {EXIT_CHECK} when any graph break is found (for CI)."),
    verbose: bool = typer.Option(False, "--verbose", help="Show the probe log on failure."),
):
    """Where do the compiled variants break the graph, why, what does it cost, and how to fix it."""
    if path.is_dir():
        fail(f"{path}: breaks takes one sample file")
    (sample,) = _samples(path)
    size_list = _sizes("--population-sizes", sizes)
    python = _managed(torch, envs, with_, python) if torch else python
    common = dict(population=population, python=python, timeout=timeout, budget=budget,
                  compile_options=compile_option, kernel_times=False)  # no pass whose figures breaks never shows
    record = _measure(sample, verbose, only=variant or ["*-compiled-cpu"], config=config, sizes=size_list,
                      stream_breaks=not as_json, try_fixes=("flag", "static") if try_fixes else (), **common)
    analysis = _analyze(record, verbose)
    if analysis is None:
        raise typer.Exit(EXIT_INTERNAL)
    findings = [replace(row, tried=analysis.variant(row.variant).trials) for row in analysis.findings]
    view = BreaksView(str(sample), analysis.env.torch, analysis.sample.population, findings)
    _emit(renderer("json" if as_json else "text", **({} if as_json else {"color": sys.stdout.isatty()})).breaks(view))
    _show_internal_errors(analysis, verbose)
    if fail_on_break and any(r.breaks for r in analysis.findings):
        raise typer.Exit(EXIT_CHECK)
    raise typer.Exit(EXIT_INTERNAL if analysis.internal_errors else EXIT_FAILED if analysis.failed else EXIT_OK)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                "allow_interspersed_args": False})
def run(
    ctx: typer.Context,
    program: str = typer.Argument(..., help="The program: a .py file, or with -m a module name; what follows it is the program's own arguments."),
    module: bool = typer.Option(False, "-m", help="PROGRAM is a module, run as python -m PROGRAM."),
    out: Path = typer.Option(Path("reports"), "--out", "-o", help="Folder for <name>.html, <name>.json and <name>.trace/."),
    python: Optional[str] = typer.Option(None, "--python", help="Run the program under this interpreter (a venv with another torch)."),
    torch: Optional[str] = typer.Option(None, "--torch", help=TORCH_HELP),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: List[str] = typer.Option([], "--with", help=WITH_HELP),
    fmt: str = typer.Option("text", "--format", "-f", help="text (print the summary on stderr after the program's output) or json (print the analysis on stderr)."),
    name: Optional[str] = typer.Option(None, "--name", help="Name of the report's files (default: the program's stem; with -m, the module and its first argument, as unittest-test_ga)."),
    trace: bool = typer.Option(True, "--trace/--no-trace", help="Trace one call per function (the first after its compile) for the lines that ran as Python."),
    profile: bool = typer.Option(True, "--profile/--no-profile", help="Profile one call per function (the one after the traced call) for its kernels' times."),
    try_fixes: bool = typer.Option(True, "--try-fixes/--no-try-fixes", help="Say which fixes could be tried for each function, and how (not measured: the program is not run again; inspector report measures them on a sample)."),
    verbose: bool = typer.Option(False, "--verbose", help="Show tracebacks of internal errors."),
):
    """Run a program as it is and report what torch.compile did to it: every function it compiled, its graphs,
    graph breaks, recompilations (when, and the guard that failed), kernels, line verdicts and time per call.

    The program's output is shown as usual, Ctrl-C reaches it, and inspector exits with its exit status; the report
    (HTML, JSON record, torch's trace) is written even when it fails. inspector's options come before PROGRAM.
    """
    if fmt not in ("text", "json"):
        fail(f"--format {fmt}: expected text or json")
    if not module and not Path(program).is_file():
        fail(f"{program}: no such file (for a module, use -m {program})")
    name = name or _program_name(program, module, ctx.args)
    python = _managed(torch, envs, with_, python) if torch else python
    trace_dir = out / f"{name}.trace"
    shutil.rmtree(trace_dir, ignore_errors=True)
    try:
        status, record = collect_program(program, ctx.args, module=module, python=python,
                                         trace_dir=trace_dir.resolve(), trace=trace, profile=profile)
    except CollectError as e:
        fail(str(e))
    _trace_logs(record, trace_dir)
    record["program"]["try_fixes"] = try_fixes
    save(record, out / f"{name}.json")
    code, _ = publish(record, out / f"{name}.html", fmt, verbose, written=[out / f"{name}.json"], stream=sys.stderr)
    status = status if status >= 0 else 128 - status  # killed by a signal: as a shell reports it
    raise typer.Exit(status if code in (EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED) else code)


def _program_name(program, module, argv):
    """The report's file name: the program's stem; for a module run on a module or file it names first (a test
    runner: ``-m unittest tests.test_ga`` → unittest-tests.test_ga), the module and that name, so that runs of one
    runner keep apart."""
    if not module:
        return Path(program).stem
    name = program.rsplit(".", 1)[-1]
    target = next((a for a in argv if not a.startswith("-")), "")
    if target.endswith(".py") or target and Path(target).is_dir():
        name += f"-{Path(target).stem}"
    elif re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", target):
        name += f"-{target}"
    return name


@app.command()
def render(
    record_path: Path = typer.Argument(..., help="A record written by `inspector report`."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for the HTML (default: beside the record)."),
    fmt: str = typer.Option("html", "--format", "-f", help="html (write the report and print the summary), text (print the full summary), json (print the analysis as JSON)."),
    verbose: bool = typer.Option(False, "--verbose", help="Show tracebacks of internal errors."),
):
    """Analyse a record again with this version of inspector, re-render its HTML report and print its summary."""
    if fmt not in ("html", "text", "json"):
        fail(f"--format {fmt}: expected html, text or json")
    try:
        record = load(record_path)
    except RecordError as e:
        fail(str(e))
    code, _ = publish(record, (out or record_path.parent) / (record_path.stem + ".html"), fmt, verbose)
    raise typer.Exit(code)


@app.command(context_settings={"ignore_unknown_options": True})
def compare(
    inputs: List[Path] = typer.Argument(None, help="Records A.json B.json ... (the first is the baseline), or one sample file to run once per --python / --torch / --run; with --program, the program's arguments."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for <stem>-compare.html (and a sample's records); default: beside the first record, or reports/."),
    python: List[str] = typer.Option([], "--python", help="One run under this interpreter (repeatable)."),
    torch: List[str] = typer.Option([], "--torch", help="One run under this torch: a version (2.1.2), a build (2.13.0+cpu) or a torch wheel, in an environment inspector makes once and reuses (repeatable; after the --python runs)."),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: List[str] = typer.Option([], "--with", help=WITH_HELP),
    program: Optional[str] = typer.Option(None, "--program", help="Compare a program instead of a sample: --program PROGRAM ARGS... or --program -m MODULE ARGS... runs it as `inspector run` does, once per --torch / --python (one after the other); its own options after a --."),
    run: List[str] = typer.Option([], "--run", help="One run: comma-separated python=PATH, torch=VERSION and Inductor/Dynamo KEY=VALUE items (repeatable; after the --python and --torch runs)."),
    config: List[str] = typer.Option([], "--config", "-c", help="Inductor/Dynamo config KEY=VALUE for every run."),
    compile_option: List[str] = typer.Option([], "--compile-option", help="A torch.compile keyword KEY=VALUE for every run (repeatable)."),
    population: Optional[int] = typer.Option(None, "--population", "-n", min=1, help="Population size (default: the sample's POPULATION_SIZE)."),
    variant: List[str] = typer.Option([], "--variant", "-v", help="Only this variant id or glob (repeatable)."),
    redact: bool = typer.Option(False, "--redact", help="Replace home, site-packages and interpreter paths and the program's output in the records and HTML."),
    timeout: float = typer.Option(300.0, help="Seconds a single variant may run before it is stopped."),
    budget: float = typer.Option(1.0, help="Seconds of timed runs per variant: with rounds, half for each run's first timing and half for the rounds."),
    rounds: int = typer.Option(6, "--rounds", min=0, help="After the runs, time their variants again in this many alternating rounds (run 1, 2, ..., then back), so that every ratio is taken side by side; 0: no rounds."),
    fail_on_regression: bool = typer.Option(False, "--fail-on-regression", help=f"Exit {EXIT_CHECK} when a run is worse than the baseline: a variant fails, a line verdict or vectorization is worse, a graph break appears, or a compiled variant is slower by more than --max-slowdown (for CI)."),
    max_slowdown: float = typer.Option(10.0, "--max-slowdown", min=0, help="Percent a compiled variant may be slower before --fail-on-regression fails (with rounds: slower in every round)."),
    verbose: bool = typer.Option(False, "--verbose", help="Show the probe log on failure."),
):
    """Compare kernels, line verdicts, graph breaks and timings across torch versions or configurations.

    A sample with a single run is compared against this interpreter with no extra config (the baseline). The runs'
    probes stay alive after their variants and take turns timing them again (--rounds), so each ratio holds on a
    busy machine; records made apart are compared as they are, with a warning. Each --torch runs under that torch in
    an environment inspector makes once and reuses; --program runs a program under each, one after the other, and
    compares its compiled functions.
    """
    inputs = inputs or []
    unknown = [str(p) for p in inputs if str(p).startswith("-")] if not program else []
    if unknown:
        fail(f"no such option: {unknown[0]}")
    if not inputs and not program:
        fail("give records (.json files), one sample file, or --program PROGRAM [ARGS...]")
    from_records = not program and all(p.suffix == ".json" for p in inputs)
    if program:
        if run or config or compile_option:
            fail("--run, --config and --compile-option set a sample's config: a program runs as it is "
                 "(--python, --torch)")
        module = program == "-m"
        if module and not inputs:
            fail("--program -m: name the module")
        entry, argv = (str(inputs[0]), [str(a) for a in inputs[1:]]) if module else (program, [str(a) for a in inputs])
        if not module and not Path(entry).is_file():
            fail(f"{entry}: no such file (for a module, use --program -m {entry})")
        pythons = python + [_managed(t, envs, with_) for t in torch]
        if not pythons:
            fail("nothing to compare with: add --torch VERSION or --python PATH (one: against this interpreter)")
        pythons = [None] * (len(pythons) == 1) + pythons
        stem = _program_name(entry, module, argv)
        records = _program_runs(entry, argv, module, pythons)
        folder = out or Path("reports")
    elif from_records:
        if python or run or config or compile_option or torch:
            fail("--python, --torch, --run, --config and --compile-option run a sample: give a .py file, not records")
        records = []
        for path in inputs:
            try:
                records.append(load(path))
            except RecordError as e:
                fail(str(e))
        folder = out or inputs[0].parent
    else:
        if len(inputs) != 1:
            fail("give records (.json files) or one sample file")
        if inputs[0].is_dir():
            fail(f"{inputs[0]}: compare takes one sample file")
        (sample,) = _samples(inputs[0])
        stem = sample.stem
        runs = [(p, []) for p in python] + [(_managed(t, envs, with_), []) for t in torch] + [
            (_managed(version, envs, with_, p) if version else p, items) for p, version, items in map(_run_spec, run)]
        if not runs:
            fail("nothing to compare with: add --torch VERSION or --python PATH (another torch) or --run KEY=VALUE "
                 "(a config)")
        runs = [(None, [])] * (len(runs) == 1) + runs
        records = _measure(sample, verbose, runs=[(p, [*config, *items]) for p, items in runs], rounds=rounds,
                           population=population, only=variant or None, compile_options=compile_option,
                           timeout=timeout, budget=budget)
        if any(r["interrupted"] for r in records) or len(records) < len(runs):
            fail("interrupted", EXIT_INTERRUPTED)
        folder = out or Path("reports")
    records = [redact_record(r) for r in records] if redact else records
    analyses = [_analyze(r, verbose) for r in records]
    if None in analyses:
        raise typer.Exit(EXIT_INTERNAL)
    paths = inputs
    if not from_records:
        slugs = [re.sub(r"[^\w.]+", "-", label).strip("-") for label in compare_mod.labels(analyses)]
        paths = [folder / f"{stem}-{slug}.json" for slug in slugs]
        for record, path in zip(records, paths):
            save(record, path)
    failed = any(a.program.exit for a in analyses) if program else any(a.failed for a in analyses)
    code = EXIT_FAILED if not from_records and failed else EXIT_OK
    try:
        result = compare_mod.compare(analyses)
    except compare_mod.CompareError as e:
        fail(str(e))
    result = compare_mod.link_reports(result, paths, folder)
    target = folder / f"{Path(analyses[0].sample.path).stem}-compare.html"
    write_atomic(target, renderer("html").comparison(result))
    _emit(renderer("text", color=sys.stdout.isatty()).comparison(result))
    err.print(f"wrote {target}", markup=False)
    worse = compare_mod.regressions(result, max_slowdown / 100) if fail_on_regression else []
    for line in worse:
        err.print(f"regression: {line}", markup=False)
    raise typer.Exit(EXIT_CHECK if worse else code)


def _run_spec(spec):
    """A --run value (python=PATH,torch=VERSION,KEY=VALUE,...) -> (interpreter or None, torch version or None,
    config items); with both, the torch environment is made with that interpreter."""
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if any("=" not in item for item in items):
        fail(f"--run {spec}: expected comma-separated python=PATH, torch=VERSION and KEY=VALUE items")
    named = {key: [item.partition("=")[2] for item in items if item.startswith(f"{key}=")] for key in ("python", "torch")}
    return (named["python"][-1] if named["python"] else None, named["torch"][-1] if named["torch"] else None,
            [item for item in items if not item.startswith(("python=", "torch="))])


def _managed(torch, envs, packages, base=None):
    """The interpreter of a --torch version: this one when it has that torch, else its managed environment's, made
    once (with ``base``, default this interpreter); each step on stderr, an error in one line."""
    try:
        return envs_mod.interpreter(envs_mod.parse(torch), envs, base, packages,
                                    say=lambda line: err.print(line, markup=False))
    except envs_mod.EnvError as e:
        fail(str(e))


def _program_runs(entry, argv, module, pythons):
    """The records of a program run once under each interpreter (None: this one), one after the other: a program's
    calls cannot take turns with another run's."""
    records = []
    for n, python in enumerate(pythons, 1):
        err.print(f"run {n} of {len(pythons)}: {entry} {' '.join(argv)} under {python or sys.executable}", markup=False)
        try:
            status, record = collect_program(entry, argv, module=module, python=python)
        except CollectError as e:
            fail(str(e))
        if record["interrupted"]:
            fail("interrupted", EXIT_INTERRUPTED)
        if status:
            err.print(f"  the program exited with {status}", markup=False)
        records.append(record)
    return records


@app.command("envs")
def envs_command(
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    remove: List[str] = typer.Option([], "--remove", help="Delete the environments of this torch version (repeatable)."),
):
    """List the torch environments inspector made for --torch (folder, torch, NumPy, size), or delete some."""
    try:
        for version in remove:
            for path in envs_mod.remove(version, envs):
                err.print(f"removed {path}", markup=False)
    except envs_mod.EnvError as e:
        fail(str(e))
    if remove:
        raise typer.Exit(EXIT_OK)
    found = envs_mod.environments(envs)
    for env in found:
        _emit(envs_mod.describe(env))
    total = sum(e.size_bytes for e in found)
    err.print(f"{len(found)} environment{'s' * (len(found) != 1)} in {envs_mod.root(envs)}"
              + (f", {envs_mod.human_size(total)} in all" if found else ""), markup=False)


def main():
    try:
        app()
    except Exception as e:  # a bug in inspector: one line, the traceback only with --verbose
        internal("running", e, "--verbose" in sys.argv)
        sys.exit(EXIT_INTERNAL)
