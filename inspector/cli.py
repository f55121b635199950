"""The command line: options parsed, the Python API (inspector.api) called, its results printed and written.

Every error is an ``InspectorError`` (inspector.errors), said in one line and turned into its exit code in one
place, ``main``: 2 nothing could be run (a bad file, option or record), 4 inspector itself failed (a bug: what was
measured is still written), 130 interrupted. Otherwise a command exits with its result's code: 0 every variant ran
and matched, 1 some variant failed, timed out or did not match, 3 a check failed (``breaks --fail-on-break`` found a
break, ``compare --fail-on-regression`` a regression). docs/exit-codes.md.
"""

import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

from inspector import api, envs as envs_mod
from inspector.errors import (CHECK, INTERNAL, INTERRUPTED, OK, PLEASE_REPORT, InspectorError, Interrupted,
                              InternalFailure)
from inspector.record import write_atomic
from inspector.render.base import renderer

INDEX = "index.html"  # the index of a folder's reports, beside them
TORCH_HELP = ("Run under this torch: a version (2.1.2), a build (2.13.0+cpu) or a torch wheel, in an environment "
              "inspector makes once in its cache and reuses (this interpreter when it has that torch; with --python, "
              "the environment is made with that interpreter).")
ENVS_HELP = "Folder of the --torch environments (default: inspector's folder in your cache)."
WITH_HELP = "A package the sample or program imports, installed in the --torch environment too (repeatable)."

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="See what torch.compile did to your numerical Python code, line by line.")
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message):
    """Stop on a bad option: one line (said by ``main``), exit 2."""
    raise InspectorError(message)


def say(line):
    """A progress line on stderr."""
    err.print(line, markup=False)


def _error(error, verbose):
    """Say an InspectorError: what --verbose adds (the probe's log, a traceback), then its one line."""
    if verbose and error.detail:
        err.print(error.detail, markup=False)
    err.print(error.line(), markup=False, style="red")


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
    samples = api.samples(path)
    options = dict(population=_sizes("--population", population) or None, variants=variant, config=config,
                   python=api.interpreter(torch, envs, with_, python, say), compile_options=compile_option,
                   rtol=rtol, timeout=timeout, budget=budget, rounds=rounds, profile=profile, try_fixes=try_fixes,
                   triton_preview=triton_preview, redact=redact, progress=say)
    codes, done = [], []
    folder = len(samples) > 1 or path.is_dir()  # an index links the reports, and each report links back to it
    try:
        for sample in samples:
            try:
                code, analysis = _report_one(api.report(sample, **options), out, fmt, verbose, INDEX if folder else None)
            except InspectorError as e:  # this sample could not run, or inspector failed on it: a folder goes on
                if len(samples) == 1:
                    raise
                _error(e, verbose)
                code, analysis = e.code, None
            codes.append(code)
            done.append((sample.stem, analysis))
            if code == INTERRUPTED:
                break
    except KeyboardInterrupt:  # outside a probe run (those are caught and reported by collect)
        raise Interrupted() from None
    if folder:
        index = out / INDEX
        write_atomic(index, renderer("html").index(done))
        say(f"index: {index}")
    raise typer.Exit(max(codes))


def _sizes(option, text):
    """Comma-separated population sizes (positive integers)."""
    try:
        sizes = [int(n) for n in text.split(",") if n.strip()]
    except ValueError:
        sizes = [0]
    if any(n < 1 for n in sizes):
        fail(f"{option} {text}: expected positive integers, comma-separated")
    return sizes


def _report_one(report, out, fmt, verbose, index):
    """Write and print one sample's Report: (exit code, Analysis); with --verbose, each failed variant's detail."""
    code = _publish(report, out, fmt, verbose, index=index)
    for v in report.analysis.variants if verbose else ():
        if v.error_detail:
            err.print(f"--- {v.id} ---\n{v.error_detail}", markup=False)
    return code, report.analysis


def _publish(report, folder, fmt, verbose, stream=None, index=None, record=True):
    """Write a Report into ``folder`` (its record first, unless ``record`` is False: it is there already), print
    its summary on ``stream`` (default stdout) as ``fmt`` says, and return its exit code; ``index``: the page the
    HTML links back to (a folder's index). When only the HTML fails, the full text summary is printed instead and
    the exit code says inspector failed."""
    written = [report.save_record(folder)] if record else []
    try:
        report.analysis
    except InternalFailure:
        if written:
            say(f"wrote {' and '.join(map(str, written))} (no report)")
        raise
    try:
        written.insert(0, report.save_html(folder, index))
        html_failed = False
    except Exception as e:  # the text summary below still shows what was measured
        _error(InternalFailure("writing the HTML report", e), verbose)
        html_failed = True
    color = (stream or sys.stdout).isatty()
    _emit(report.json() if fmt == "json" else report.text(color) if fmt == "text" or html_failed
          else report.summary(color), stream)
    if written:
        say(f"wrote {' and '.join(map(str, written))}")
    _show_internal_errors(report.analysis, verbose)
    return INTERNAL if html_failed and not report.analysis.interrupted else report.exit_code


def _show_internal_errors(analysis, verbose):
    for e in analysis.internal_errors:
        err.print(f"inspector: internal error in {e.where}: {e.error} ({PLEASE_REPORT}; what was measured is "
                  "in the report)", markup=False, style="red")
        if verbose and e.detail:
            err.print(e.detail, markup=False)


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
    fail_on_break: bool = typer.Option(False, "--fail-on-break", help=f"Exit {CHECK} when any graph break is found (for CI)."),
    verbose: bool = typer.Option(False, "--verbose", help="Show the probe log on failure."),
):
    """Where do the compiled variants break the graph, why, what does it cost, and how to fix it."""
    result = api.breaks(path, variants=variant, population=population, sizes=_sizes("--population-sizes", sizes),
                        python=python, torch=torch, envs=envs, packages=with_, config=config,
                        compile_options=compile_option, try_fixes=try_fixes, timeout=timeout, budget=budget,
                        progress=say)
    _emit(result.json() if as_json else result.text(color=sys.stdout.isatty()))
    _show_internal_errors(result.analysis, verbose)
    raise typer.Exit(CHECK if fail_on_break and result.found else result.exit_code)


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
    result = api.run(program, ctx.args, module=module, name=name, python=python, torch=torch, envs=envs,
                     packages=with_, trace=trace, profile=profile, try_fixes=try_fixes, progress=say)
    raise typer.Exit(_publish(result, out, fmt, verbose, stream=sys.stderr))


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
    raise typer.Exit(_publish(api.render(record_path), out or record_path.parent, fmt, verbose, record=False))


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
    fail_on_regression: bool = typer.Option(False, "--fail-on-regression", help=f"Exit {CHECK} when a run is worse than the baseline: a variant fails, a line verdict or vectorization is worse, a graph break appears, or a compiled variant is slower by more than --max-slowdown (for CI)."),
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
    runs = [api.Run(python=p) for p in python] + [api.Run(torch=t) for t in torch]
    if program:
        if run or config or compile_option:
            fail("--run, --config and --compile-option set a sample's config: a program runs as it is "
                 "(--python, --torch)")
        module = program == "-m"
        if module and not inputs:
            fail("--program -m: name the module")
        entry, argv = (str(inputs[0]), [str(a) for a in inputs[1:]]) if module else (program, [str(a) for a in inputs])
        result = api.compare_program(entry, argv, module=module, runs=runs, envs=envs, packages=with_, redact=redact,
                                     progress=say)
    elif all(p.suffix == ".json" for p in inputs):
        if runs or run or config or compile_option:
            fail("--python, --torch, --run, --config and --compile-option run a sample: give a .py file, not records")
        result = api.compare(*inputs, redact=redact)
    else:
        result = api.compare(*inputs, runs=runs + [api.Run(*_run_spec(spec)) for spec in run], config=config,
                             compile_options=compile_option, population=population, variants=variant, envs=envs,
                             packages=with_, redact=redact, timeout=timeout, budget=budget, rounds=rounds,
                             progress=say)
    target = result.save(out)
    _emit(result.text(color=sys.stdout.isatty()))
    say(f"wrote {target}")
    worse = result.regressions(max_slowdown / 100) if fail_on_regression else []
    for line in worse:
        say(f"regression: {line}")
    raise typer.Exit(CHECK if worse else result.exit_code)


def _run_spec(spec):
    """A --run value (python=PATH,torch=VERSION,KEY=VALUE,...) -> (interpreter or None, torch version or None,
    config items); with both, the torch environment is made with that interpreter."""
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if any("=" not in item for item in items):
        fail(f"--run {spec}: expected comma-separated python=PATH, torch=VERSION and KEY=VALUE items")
    named = {key: [item.partition("=")[2] for item in items if item.startswith(f"{key}=")] for key in ("python", "torch")}
    return (named["python"][-1] if named["python"] else None, named["torch"][-1] if named["torch"] else None,
            tuple(item for item in items if not item.startswith(("python=", "torch="))))


@app.command(context_settings={"ignore_unknown_options": True})
def check(
    paths: List[str] = typer.Argument(None, help="Sample files or folders whose contracts to check (run here, or their records with --records); with --program, the program's arguments."),
    program: Optional[str] = typer.Option(None, "--program", help="A program's contracts: --program PROGRAM ARGS... or --program -m MODULE ARGS... runs it as `inspector run` does (with --records: finds its records)."),
    torch: List[str] = typer.Option([], "--torch", help="Under this torch (repeatable): runs in its environment, as report --torch; with --records, only the records made under it."),
    python: Optional[str] = typer.Option(None, "--python", help="Run under this interpreter."),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: List[str] = typer.Option([], "--with", help=WITH_HELP),
    records: List[Path] = typer.Option([], "--records", help="Judge records made elsewhere (other machines, torch versions, CI jobs): files, or folders searched for them (repeatable); nothing runs."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write each run's record (with its job), its HTML report and an index of them into this folder."),
    job: Optional[str] = typer.Option(None, "--job", help="The CI job the runs are from, stored in their records (default: the CI's job variable where set; records read keep theirs, else their folder's name)."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", help="Also fail on whatever got worse than this lock, contract or not, as compare --fail-on-regression does."),
    update: bool = typer.Option(False, "--update", help="Write the lock (--baseline's path, default inspector.lock) from these runs instead of comparing with it."),
    fmt: str = typer.Option("text", "--format", "-f", help="text (compiler-style lines), json (the verdicts), github (workflow annotations), junit (a JUnit XML file)."),
    write: Optional[Path] = typer.Option(None, "--write", help="Write the output to this file instead of stdout."),
    strict: bool = typer.Option(False, "--strict", help=f"Exit {CHECK} on an unknown or inconclusive promise too, not only on a violated one."),
    population: Optional[int] = typer.Option(None, "--population", "-n", min=1, help="Population size of the runs made here (default: the sample's)."),
    variant: List[str] = typer.Option([], "--variant", "-v", help="Only this variant id or glob (repeatable)."),
    rounds: int = typer.Option(3, "--rounds", min=0, help="Alternating rounds of the runs made here: faster-than is judged on them."),
    budget: float = typer.Option(1.0, help="Seconds of timed runs per variant."),
):
    """Check the performance contracts written in comments (# inspector: parallel vectorized) and in pyproject.toml
    (its tool.inspector table) on runs made here or read from records: compiler-style lines, exit 3 when one is
    violated."""
    from inspector.contracts.result import FORMATS
    if fmt not in FORMATS:
        fail(f"--format {fmt}: expected {', '.join(FORMATS)}")
    paths = paths or []
    unknown = [p for p in paths if p.startswith("-")] if not program else []
    if unknown:
        fail(f"no such option: {unknown[0]}")
    module = program == "-m"
    if module and not paths:
        fail("--program -m: name the module")
    if module:
        program, paths = paths[0], paths[1:]
    result = api.check([] if program else paths, program=program, args=paths if program else (), module=module,
                       records=records, torch=torch, python=python, envs=envs, packages=with_, job=job, out=out,
                       baseline=baseline, update=update, strict=strict, population=population, variants=variant,
                       rounds=rounds, budget=budget, progress=say)
    output = result.render(fmt)
    if write:
        write_atomic(write, output)
        say(f"wrote {write}")
    else:
        _emit(output)
    raise typer.Exit(result.exit_code)


@app.command("envs")
def envs_command(
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    remove: List[str] = typer.Option([], "--remove", help="Delete the environments of this torch version (repeatable)."),
):
    """List the torch environments inspector made for --torch (folder, torch, NumPy, size), or delete some."""
    for version in remove:
        for path in envs_mod.remove(version, envs):
            say(f"removed {path}")
    if remove:
        raise typer.Exit(OK)
    found = envs_mod.environments(envs)
    for env in found:
        _emit(envs_mod.describe(env))
    total = sum(e.size_bytes for e in found)
    say(f"{len(found)} environment{'s' * (len(found) != 1)} in {envs_mod.root(envs)}"
        + (f", {envs_mod.human_size(total)} in all" if found else ""))


def main():
    """Run the command line. The one place errors become exit codes: an InspectorError is said in one line and
    exits with its code; any other exception is a bug in inspector (exit 4; the traceback only with --verbose)."""
    try:
        app()
    except Exception as e:
        error = e if isinstance(e, InspectorError) else InternalFailure("running", e)
        _error(error, "--verbose" in sys.argv)
        sys.exit(error.code)
