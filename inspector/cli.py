"""The command line: options parsed, the Python API (inspector.api) called, its results printed and written.

Every error is an ``InspectorError`` (inspector.errors), said in one line and turned into its exit code in one
place, ``main``: 2 nothing could be run (a bad file, option or record), 4 inspector itself failed (a bug: what was
measured is still written), 130 interrupted. Otherwise a command exits with its result's code: 0 every variant ran
and matched, 1 some variant failed, timed out or did not match, 3 a check failed (``breaks --fail-on-break`` found a
break, ``compare --fail-on-regression`` a regression). docs/exit-codes.md.
"""

import sys
from pathlib import Path
from typing import Any, NoReturn, Optional, TextIO

import typer
from rich.console import Console

from inspector import api, envs as envs_mod
from inspector.errors import (CHECK, INTERNAL, INTERRUPTED, OK, PLEASE_REPORT, InspectorError, Interrupted,
                              InternalFailure)
from inspector.model import Analysis, SampleAnalysis
from inspector.probe.replay import DEFAULT_BUDGET_S, MIN_BUDGET_S
from inspector.record import write_atomic
from inspector.render import renderer
from inspector.render.formats import NUMBER, OLDER, WRITTEN

INDEX = "index.html"  # the index of a folder's reports, beside them
# help shared by several commands
TORCH_HELP = ("Run under this torch: a version (2.1.2), a build (2.13.0+cpu) or a torch wheel, in an environment "
              "inspector makes once in its cache and reuses (this interpreter when it has that torch; with --python, "
              "the environment is made with that interpreter).")
ENVS_HELP = "Folder of the --torch environments (default: inspector's folder in your cache)."
WITH_HELP = "A package the sample or program imports, installed in the --torch environment too (repeatable)."
TIMEOUT_HELP = "Seconds a single variant may run before it is stopped."
POPULATION_HELP = "Population size (default: the sample's POPULATION_SIZE)."
# report
REPORT_PATH_HELP = "A sample file, or a folder of samples (each is reported, plus an index)."
REPORT_POPULATION_HELP = ("Population size (default: the sample's POPULATION_SIZE), or sizes to sweep "
                          "(10000,100000,900000): the report is made at the last and plots speedup against size.")
REPORT_SWEEP_HELP = ("Also time the variants at a tenth and a hundredth of the population (100 individuals at least) "
                     "and say where compiling starts to win, as --population with three sizes does.")
REPORT_FORMAT_HELP = ("html (write the report), text (also print the full summary), json (print the analysis as "
                      "JSON).")
TRITON_PREVIEW_HELP = ("Also show the Triton code Inductor generates for each NumPy/torch function, targeting the CPU "
                       "(a codegen preview, never run or timed; needs the triton package).")
REPORT_COMPILE_OPTION_HELP = ("A torch.compile keyword KEY=VALUE: mode=max-autotune, dynamic=True, fullgraph=True, "
                              "backend=... (repeatable).")
RTOL_HELP = "Relative tolerance of the cross-check (default: the sample's TOLERANCE, else 1e-5)."
REPORT_REDACT_HELP = ("Replace home, site-packages and interpreter paths and the program's printed output in the "
                      "record and HTML, to attach them to a bug report.")
REPORT_ROUNDS_HELP = ("After the variants, time them again in this many rounds, each in turn (half of --budget), so "
                      "that the ratios against Python and NumPy are taken side by side; 0: none.")
REPORT_PROFILE_HELP = ("Profiled passes after the timed runs: each kernel's time, on all threads and on 1 "
                       "(--no-profile skips them: faster, no per-kernel times or thread scaling).")
REPORT_TRY_FIXES_HELP = ("Try the fixes inspector can apply without editing your code where they apply (the "
                         "population column-major, the tiling heuristic off, a Dynamo flag that removes a break), "
                         "timed side by side with the variant in the rounds; their effect is shown where the advice "
                         "is.")
REWRITES_HELP = ("Write the code rewrites (a per-individual Python function over the whole population in NumPy and "
                 "torch; a NumPy or torch variant's graph breaks rewritten), check each against your code and time it "
                 "beside the variant it replaces (independent of --no-try-fixes). On by default; --no-rewrites skips "
                 "them (bench/rewrites.py measures what they cost).")
REPORT_WARM_HELP = ("Compile each compiled variant again in fresh processes with torch's caches warm, as a rerun of "
                    "your code finds them (the caches in inspector's own folder, never yours): the compile cost and "
                    "break-even of a rerun beside the cold ones. --no-warm skips it.")
COMPARE_WARM_HELP = ("A sample's runs: compile each compiled variant again with torch's caches warm, under each run "
                     "(a rerun's compile; a torch that made it slower is a regression). --no-warm skips it.")
# breaks
BREAKS_VARIANT_HELP = "Only this compiled variant id or glob (default: every *-compiled-cpu)."
BREAKS_SIZES_HELP = ("Also call each compiled variant at these sizes (e.g. 1000,20000) and report recompilations "
                     "with the guard that failed.")
BREAKS_TRY_FIXES_HELP = ("Compile again with the config flag that removes a break, and with dynamic=False where a "
                         "--population-sizes size recompiled, and report what each changed.")
# run
RUN_PROGRAM_HELP = ("The program: a .py file, or with -m a module name; what follows it is the program's own "
                    "arguments.")
RUN_FORMAT_HELP = ("text (print the summary on stderr after the program's output) or json (print the analysis on "
                   "stderr).")
RUN_NAME_HELP = ("Name of the report's files (default: the program's stem; with -m, the module and its first "
                 "argument, as unittest-test_ga).")
RUN_TRACE_HELP = ("Trace one call per function (the first after its compile that will not compile again) for the "
                  "lines that ran as Python.")
RUN_PROFILE_HELP = "Profile one call per function (the one after the traced call) for its kernels' times."
RUN_TRY_FIXES_HELP = ("Say which fixes could be tried for each function, and how (not measured: inspector run tries "
                      "none; inspector report measures them on a sample).")
RUN_REPLAY_HELP = ("After the program, run each compiled function eagerly and compiled on copies of one steady "
                   "call's arguments, in alternating rounds, to tell whether compiling paid (the program's output and "
                   "random state untouched).")
RUN_BUDGET_HELP = ("Seconds the replay may take, all functions together; and the experiment's rounds on the hot "
                   "functions (their compiles apart). Default: a twentieth of the program's own run, between "
                   f"{MIN_BUDGET_S:g} and {DEFAULT_BUDGET_S:g} s.")
RUN_WARM_HELP = ("What compiling costs a rerun of the program, beside the first run's compile: measured in the run "
                 "where torch found all of a function's graphs in its caches (see --no-cache), else by rerunning the "
                 "program bare after it (its output discarded) with torch's caches warm, in inspector's own cache "
                 "folder, never yours. Not rerun: a program that failed or ran over a minute. --no-warm skips it.")
RUN_CACHE_HELP = ("torch's caches in inspector's own cache folder (never yours), with what inspector saw each graph "
                  "compile to (loop nests, Inductor's decisions, the first compile's times): a rerun of unchanged code "
                  "loads its graphs instead of compiling them, and the page says which came from the cache. "
                  "--no-cache: every graph is compiled afresh, torch's caches off, as report does.")
RUN_HOTSPOTS_HELP = ("Sample where the program's own time goes, copy one generation's inputs of its hot functions, "
                     "and after the program run the experiment on them: as written, inspector's NumPy and torch "
                     "rewrites, eager and compiled (and under numba where installed), each checked against the "
                     "program's outputs and timed.")
# render
RENDER_FORMAT_HELP = ("html (write the report and print the summary), text (print the full summary), json (print "
                      "the analysis as JSON).")
JSON_FORMAT_HELP = (f"With --format json: the format to write, {NUMBER} (the current one, `inspector schema`) or "
                    f"{' or '.join(map(str, OLDER))} (for readers of that format; docs/record.md lists the changes).")
# compare
COMPARE_INPUTS_HELP = ("Records A.json B.json ... (the first is the baseline), or one sample file to run once per "
                       "--python / --torch / --run; with --program, the program's arguments.")
COMPARE_OUT_HELP = ("Folder for <stem>-compare.html (and a sample's records); default: beside the first record, or "
                    "reports/.")
COMPARE_TORCH_HELP = ("One run under this torch: a version (2.1.2), a build (2.13.0+cpu) or a torch wheel, in an "
                      "environment inspector makes once and reuses (repeatable; after the --python runs).")
COMPARE_PROGRAM_HELP = ("Compare a program instead of a sample: --program PROGRAM ARGS... or --program -m MODULE "
                        "ARGS... runs it as `inspector run` does, once per --torch / --python (one after the other); "
                        "its own options after a --.")
COMPARE_RUN_HELP = ("One run: comma-separated python=PATH, torch=VERSION and Inductor/Dynamo KEY=VALUE items "
                    "(repeatable; after the --python and --torch runs).")
COMPARE_REDACT_HELP = ("Replace home, site-packages and interpreter paths and the program's output in the records "
                       "and HTML.")
COMPARE_BUDGET_HELP = ("Seconds of timed runs per variant: with rounds, half for each run's first timing and half "
                       "for the rounds.")
COMPARE_ROUNDS_HELP = ("After the runs, time their variants again in this many alternating rounds (run 1, 2, ..., "
                       "then back), so that every ratio is taken side by side; 0: no rounds.")
FAIL_ON_REGRESSION_HELP = (f"Exit {CHECK} when a run is worse than the baseline: a variant fails, a line verdict or "
                           "vectorization is worse, a graph break appears, a compiled variant (or a program's hot "
                           "function's compiled candidate) is slower by more than --max-slowdown, or a candidate's "
                           "output no longer matches the program's (for CI).")
COMPARE_HOTSPOTS_HELP = ("With --program: in each run, where the program's own time goes and the experiment on its "
                         "hot functions' inputs (as `run` does), their candidates compared side by side.")
MAX_SLOWDOWN_HELP = ("Percent a compiled variant may be slower before --fail-on-regression fails (with rounds: "
                     "slower in every round).")
# check
CHECK_PATHS_HELP = ("Sample files or folders whose contracts to check (run here, or their records with --records); "
                    "with --program, the program's arguments.")
CHECK_PROGRAM_HELP = ("A program's contracts: --program PROGRAM ARGS... or --program -m MODULE ARGS... runs it as "
                      "`inspector run` does (with --records: finds its records).")
CHECK_TORCH_HELP = ("Under this torch (repeatable): runs in its environment, as report --torch; with --records, only "
                    "the records made under it.")
CHECK_RECORDS_HELP = ("Judge records made elsewhere (other machines, torch versions, CI jobs): files, or folders "
                      "searched for them (repeatable); nothing runs.")
CHECK_OUT_HELP = "Write each run's record (with its job), its HTML report and an index of them into this folder."
CHECK_JOB_HELP = ("The CI job the runs are from, stored in their records (default: the CI's job variable where set; "
                  "records read keep theirs, else their folder's name).")
CHECK_BASELINE_HELP = ("Also fail on whatever got worse than this lock, contract or not, as compare "
                       "--fail-on-regression does.")
CHECK_UPDATE_HELP = ("Write the lock (--baseline's path, default inspector.lock) from these runs instead of comparing "
                     "with it.")
CHECK_FORMAT_HELP = ("text (compiler-style lines), json (the verdicts), github (workflow annotations), junit (a "
                     "JUnit XML file).")
CHECK_STRICT_HELP = f"Exit {CHECK} on an unknown or inconclusive promise too, not only on a violated one."
CHECK_POPULATION_HELP = "Population size of the runs made here (default: the sample's)."
CHECK_ROUNDS_HELP = "Alternating rounds of the runs made here: faster-than is judged on them."

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="See what torch.compile did to your numerical Python code, line by line.")
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> NoReturn:
    """Stop on a bad option: one line (said by ``main``), exit 2."""
    raise InspectorError(message)


def say(line: str) -> None:
    """A progress line on stderr."""
    err.print(line, markup=False)


def _error(error: InspectorError, verbose: bool) -> None:
    """Say an InspectorError: what --verbose adds (the probe's log, a traceback), then its one line."""
    if verbose and error.detail:
        err.print(error.detail, markup=False)
    err.print(error.line(), markup=False, style="red")


def _emit(text: str, stream: Optional[TextIO] = None) -> None:
    """Print ``text`` (a rendered view) on ``stream``, stdout by default, with one final newline."""
    stream = stream or sys.stdout
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()


@app.command()
def report(
    path: Path = typer.Argument(..., help=REPORT_PATH_HELP),
    out: Path = typer.Option(Path("reports"), "--out", "-o",
                             help="Folder for <stem>.html, <stem>.json and <stem>.trace/."),
    population: str = typer.Option("", "--population", "-n", help=REPORT_POPULATION_HELP),
    variant: list[str] = typer.Option([], "--variant", "-v",
                                      help="Only this variant id or glob, e.g. '*-compiled-cpu' (repeatable)."),
    python: Optional[str] = typer.Option(None, "--python",
                                         help="Run the probe under this interpreter (a venv with another torch)."),
    torch: Optional[str] = typer.Option(None, "--torch", help=TORCH_HELP),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: list[str] = typer.Option([], "--with", help=WITH_HELP),
    config: list[str] = typer.Option([], "--config", "-c",
                                     help="Inductor/Dynamo config KEY=VALUE (dynamo. prefix for Dynamo)."),
    timeout: float = typer.Option(300.0, help=TIMEOUT_HELP),
    budget: float = typer.Option(1.0, help="Seconds of timed runs per variant (more = steadier medians)."),
    fmt: str = typer.Option("html", "--format", "-f", help=REPORT_FORMAT_HELP),
    verbose: bool = typer.Option(False, "--verbose", help="Show tracebacks and the probe log on failure."),
    triton_preview: bool = typer.Option(False, "--triton-preview", help=TRITON_PREVIEW_HELP),
    compile_option: list[str] = typer.Option([], "--compile-option", help=REPORT_COMPILE_OPTION_HELP),
    rtol: Optional[float] = typer.Option(None, "--rtol", help=RTOL_HELP),
    redact: bool = typer.Option(False, "--redact", help=REPORT_REDACT_HELP),
    rounds: int = typer.Option(3, "--rounds", min=0, help=REPORT_ROUNDS_HELP),
    profile: bool = typer.Option(True, "--profile/--no-profile", help=REPORT_PROFILE_HELP),
    try_fixes: bool = typer.Option(True, "--try-fixes/--no-try-fixes", help=REPORT_TRY_FIXES_HELP),
    rewrites: bool = typer.Option(True, "--rewrites/--no-rewrites", help=REWRITES_HELP),
    warm: bool = typer.Option(True, "--warm/--no-warm", help=REPORT_WARM_HELP),
    sweep: bool = typer.Option(False, "--sweep", help=REPORT_SWEEP_HELP),
) -> None:
    """Run every variant of a sample, capture its kernels, and write an HTML report and a JSON record."""
    if fmt not in ("html", "text", "json"):
        fail(f"--format {fmt}: expected html, text or json")
    samples = api.samples(path, skipped=lambda line: say(f"inspector: skipped: {line}"))
    options = dict(population=_sizes("--population", population) or None, variants=variant, config=config,
                   python=api.interpreter(torch, envs, with_, python, say), compile_options=compile_option,
                   rtol=rtol, timeout=timeout, budget=budget, rounds=rounds, profile=profile, try_fixes=try_fixes,
                   rewrites=rewrites, triton_preview=triton_preview, warm=warm, redact=redact, sweep=sweep,
                   progress=say)
    folder = len(samples) > 1 or path.is_dir()  # an index links the reports, and each report links back to it
    codes, done = _report_samples(samples, options, out, fmt, verbose, INDEX if folder else None)
    if folder:
        index = out / INDEX
        write_atomic(index, renderer("html").index(done))
        say(f"index: {index}")
    raise typer.Exit(max(codes))


def _report_samples(samples: list[Path], options: dict[str, Any], out: Path, fmt: str, verbose: bool,
                    index: Optional[str]) -> tuple[list[int], list[tuple[str, Optional[SampleAnalysis]]]]:
    """Report each sample in turn: ([exit code], [(stem, Analysis or None)]); a folder goes on past a sample that
    could not run, or that inspector failed on, and stops at Ctrl-C."""
    codes: list[int] = []
    done: list[tuple[str, Optional[SampleAnalysis]]] = []
    try:
        for sample in samples:
            try:
                code, analysis = _report_one(api.report(sample, **options), out, fmt, verbose, index)
            except InspectorError as e:
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
    return codes, done


def _sizes(option: str, text: str) -> list[int]:
    """Comma-separated population sizes (positive integers)."""
    try:
        sizes = [int(n) for n in text.split(",") if n.strip()]
    except ValueError:
        sizes = [0]
    if any(n < 1 for n in sizes):
        fail(f"{option} {text}: expected positive integers, comma-separated")
    return sizes


def _report_one(report: api.Report, out: Path, fmt: str, verbose: bool,
                index: Optional[str]) -> tuple[int, SampleAnalysis]:
    """Write and print one sample's Report: (exit code, its analysis); with --verbose, each failed variant's
    detail."""
    code, analysis = _publish(report, out, fmt, verbose, index=index), report.analysis
    assert isinstance(analysis, SampleAnalysis), "report runs a sample"
    for v in analysis.variants if verbose else ():
        if v.error_detail:
            err.print(f"--- {v.id} ---\n{v.error_detail}", markup=False)
    return code, analysis


def _publish(report: api.Report, folder: Path, fmt: str, verbose: bool, stream: Optional[TextIO] = None,
             index: Optional[str] = None, record: bool = True, number: Optional[int] = None,
             page: bool = True) -> int:
    """Write a Report into ``folder`` (its record first, unless ``record`` is False: it is there already; its page
    unless ``page`` is False), print its summary on ``stream`` (default stdout) as ``fmt`` says, and return its exit
    code; ``index``: the page the HTML links back to (a folder's index). When only the HTML fails, the full text
    summary is printed instead and the exit code says inspector failed; ``number``: the JSON's format."""
    written = [report.save_record(folder)] if record else []
    try:
        analysis = report.analysis
    except InternalFailure:
        if written:
            say(f"wrote {' and '.join(map(str, written))} (no report)")
        raise
    html_failed = False
    try:
        if page:
            written.insert(0, report.save_html(folder, index))
    except Exception as e:  # the text summary below still shows what was measured
        _error(InternalFailure("writing the HTML report", e), verbose)
        html_failed = True
    color = (stream or sys.stdout).isatty()
    _emit(report.json(number) if fmt == "json" else report.text(color) if fmt == "text" or html_failed
          else report.summary(color), stream)
    if written:
        say(f"wrote {' and '.join(map(str, written))}")
    _show_internal_errors(analysis, verbose)
    return INTERNAL if html_failed and not analysis.interrupted else report.exit_code


def _show_internal_errors(analysis: Analysis, verbose: bool) -> None:
    """Say each internal error inspector recorded while measuring (with its detail under --verbose)."""
    for e in analysis.internal_errors:
        err.print(f"inspector: internal error in {e.where}: {e.error} ({PLEASE_REPORT}; what was measured is "
                  "in the report)", markup=False, style="red")
        if verbose and e.detail:
            err.print(e.detail, markup=False)


@app.command()
def breaks(
    path: Path = typer.Argument(..., help="A sample file."),
    variant: list[str] = typer.Option([], "--variant", "-v", help=BREAKS_VARIANT_HELP),
    population: Optional[int] = typer.Option(None, "--population", "-n", min=1, help=POPULATION_HELP),
    sizes: str = typer.Option("", "--population-sizes", help=BREAKS_SIZES_HELP),
    python: Optional[str] = typer.Option(None, "--python", help="Run the probe under this interpreter."),
    torch: Optional[str] = typer.Option(None, "--torch", help=TORCH_HELP),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: list[str] = typer.Option([], "--with", help=WITH_HELP),
    config: list[str] = typer.Option([], "--config", "-c", help="Inductor/Dynamo config KEY=VALUE."),
    compile_option: list[str] = typer.Option([], "--compile-option",
                                             help="A torch.compile keyword KEY=VALUE (repeatable)."),
    try_fixes: bool = typer.Option(True, "--try-fixes/--no-try-fixes", help=BREAKS_TRY_FIXES_HELP),
    rewrites: bool = typer.Option(True, "--rewrites/--no-rewrites", help=REWRITES_HELP),
    timeout: float = typer.Option(300.0, help=TIMEOUT_HELP),
    budget: float = typer.Option(0.3, help="Seconds of timed runs per variant."),
    as_json: bool = typer.Option(False, "--json", help="Print the findings as JSON."),
    fail_on_break: bool = typer.Option(False, "--fail-on-break",
                                       help=f"Exit {CHECK} when any graph break is found (for CI)."),
    verbose: bool = typer.Option(False, "--verbose", help="Show the probe log on failure."),
) -> None:
    """Where do the compiled variants break the graph, why, what does it cost, and how to fix it."""
    result = api.breaks(path, variants=variant, population=population, sizes=_sizes("--population-sizes", sizes),
                        python=python, torch=torch, envs=envs, packages=with_, config=config,
                        compile_options=compile_option, try_fixes=try_fixes, rewrites=rewrites, timeout=timeout,
                        budget=budget, progress=say)
    _emit(result.json() if as_json else result.text(color=sys.stdout.isatty()))
    _show_internal_errors(result.analysis, verbose)
    raise typer.Exit(CHECK if fail_on_break and result.found else result.exit_code)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                "allow_interspersed_args": False})
def run(
    ctx: typer.Context,
    program: str = typer.Argument(..., help=RUN_PROGRAM_HELP),
    module: bool = typer.Option(False, "-m", help="PROGRAM is a module, run as python -m PROGRAM."),
    out: Path = typer.Option(Path("reports"), "--out", "-o",
                             help="Folder for <name>.html, <name>.json and <name>.trace/."),
    python: Optional[str] = typer.Option(None, "--python",
                                         help="Run the program under this interpreter (a venv with another torch)."),
    torch: Optional[str] = typer.Option(None, "--torch", help=TORCH_HELP),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: list[str] = typer.Option([], "--with", help=WITH_HELP),
    fmt: str = typer.Option("text", "--format", "-f", help=RUN_FORMAT_HELP),
    name: Optional[str] = typer.Option(None, "--name", help=RUN_NAME_HELP),
    trace: bool = typer.Option(True, "--trace/--no-trace", help=RUN_TRACE_HELP),
    profile: bool = typer.Option(True, "--profile/--no-profile", help=RUN_PROFILE_HELP),
    try_fixes: bool = typer.Option(True, "--try-fixes/--no-try-fixes", help=RUN_TRY_FIXES_HELP),
    replay: bool = typer.Option(True, "--replay/--no-replay", help=RUN_REPLAY_HELP),
    hotspots: bool = typer.Option(True, "--hotspots/--no-hotspots", help=RUN_HOTSPOTS_HELP),
    warm: bool = typer.Option(True, "--warm/--no-warm", help=RUN_WARM_HELP),
    cache: bool = typer.Option(True, "--cache/--no-cache", help=RUN_CACHE_HELP),
    budget: Optional[float] = typer.Option(None, "--budget", min=0, help=RUN_BUDGET_HELP),
    verbose: bool = typer.Option(False, "--verbose", help="Show tracebacks of internal errors."),
) -> None:
    """Run a program as it is and report what torch.compile did to it: every function it compiled, its graphs,
    graph breaks, recompilations (when, and the guard that failed), kernels, line verdicts and time per call.

    The program's output is shown as usual, Ctrl-C reaches it, and inspector exits with its exit status; the report
    (HTML, JSON record, torch's trace) is written even when it fails. inspector's options come before PROGRAM.
    """
    if fmt not in ("text", "json"):
        fail(f"--format {fmt}: expected text or json")
    result = api.run(program, ctx.args, module=module, name=name, python=python, torch=torch, envs=envs,
                     packages=with_, trace=trace, profile=profile, try_fixes=try_fixes, replay=replay, budget=budget,
                     hotspots=hotspots, warm=warm, cache=cache, progress=say)
    raise typer.Exit(_publish(result, out, fmt, verbose, stream=sys.stderr))


@app.command()
def render(
    record_path: Path = typer.Argument(..., help="A record written by `inspector report`."),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Folder for the HTML (default: beside the record; none is written "
                                            "with --format text or json)."),
    fmt: str = typer.Option("html", "--format", "-f", help=RENDER_FORMAT_HELP),
    number: Optional[int] = typer.Option(None, "--json-format", help=JSON_FORMAT_HELP),
    verbose: bool = typer.Option(False, "--verbose", help="Show tracebacks of internal errors."),
) -> None:
    """Analyse a record again with this version of inspector: re-render its HTML report and print its summary, or
    print its full text summary or its analysis as JSON (then no page is written)."""
    if fmt not in ("html", "text", "json"):
        fail(f"--format {fmt}: expected html, text or json")
    if number is not None and (fmt != "json" or number not in WRITTEN):
        fail(f"--json-format {number}: expected {' or '.join(map(str, WRITTEN))}, with --format json")
    raise typer.Exit(_publish(api.render(record_path), out or record_path.parent, fmt, verbose, record=False,
                              number=number, page=fmt == "html"))


@app.command(context_settings={"ignore_unknown_options": True})
def compare(
    inputs: list[Path] = typer.Argument(None, help=COMPARE_INPUTS_HELP),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help=COMPARE_OUT_HELP),
    python: list[str] = typer.Option([], "--python", help="One run under this interpreter (repeatable)."),
    torch: list[str] = typer.Option([], "--torch", help=COMPARE_TORCH_HELP),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: list[str] = typer.Option([], "--with", help=WITH_HELP),
    program: Optional[str] = typer.Option(None, "--program", help=COMPARE_PROGRAM_HELP),
    run: list[str] = typer.Option([], "--run", help=COMPARE_RUN_HELP),
    config: list[str] = typer.Option([], "--config", "-c", help="Inductor/Dynamo config KEY=VALUE for every run."),
    compile_option: list[str] = typer.Option([], "--compile-option",
                                             help="A torch.compile keyword KEY=VALUE for every run (repeatable)."),
    population: Optional[int] = typer.Option(None, "--population", "-n", min=1, help=POPULATION_HELP),
    variant: list[str] = typer.Option([], "--variant", "-v", help="Only this variant id or glob (repeatable)."),
    redact: bool = typer.Option(False, "--redact", help=COMPARE_REDACT_HELP),
    timeout: float = typer.Option(300.0, help=TIMEOUT_HELP),
    budget: float = typer.Option(1.0, help=COMPARE_BUDGET_HELP),
    rounds: int = typer.Option(6, "--rounds", min=0, help=COMPARE_ROUNDS_HELP),
    fail_on_regression: bool = typer.Option(False, "--fail-on-regression", help=FAIL_ON_REGRESSION_HELP),
    max_slowdown: float = typer.Option(10.0, "--max-slowdown", min=0, help=MAX_SLOWDOWN_HELP),
    hotspots: bool = typer.Option(True, "--hotspots/--no-hotspots", help=COMPARE_HOTSPOTS_HELP),
    warm: bool = typer.Option(True, "--warm/--no-warm", help=COMPARE_WARM_HELP),
    verbose: bool = typer.Option(False, "--verbose", help="Show the probe log on failure."),
) -> None:
    """Compare kernels, line verdicts, graph breaks and timings across torch versions or configurations.

    A sample with a single run is compared against this interpreter with no extra config (the baseline). The runs'
    probes stay alive after their variants and take turns timing them again (--rounds), so each ratio holds on a
    busy machine; records made apart are compared as they are, with a warning. Each --torch runs under that torch in
    an environment inspector makes once and reuses; --program runs a program under each, one after the other, and
    compares its compiled functions.
    """
    inputs = inputs or []
    runs = [api.Run(python=p) for p in python] + [api.Run(torch=t) for t in torch]
    if program:
        if run or config or compile_option:
            fail("--run, --config and --compile-option set a sample's config: a program runs as it is "
                 "(--python, --torch)")
        result = _compare_program(program, inputs, runs, envs, with_, redact, hotspots)
    else:
        result = _compare_sample_or_records(inputs, runs, run, dict(
            config=config, compile_options=compile_option, population=population, variants=variant, envs=envs,
            packages=with_, redact=redact, timeout=timeout, budget=budget, rounds=rounds, warm=warm, progress=say))
    target = result.save(out)
    _emit(result.text(color=sys.stdout.isatty()))
    say(f"wrote {target}")
    worse = result.regressions(max_slowdown / 100) if fail_on_regression else []
    from inspector.render.comparison import regression
    for r in worse:
        say(f"regression: {regression(r)}")
    raise typer.Exit(CHECK if worse else result.exit_code)


def _compare_program(program: str, inputs: list[Path], runs: list[api.Run], envs: Optional[Path],
                     packages: list[str], redact: bool, hotspots: bool) -> api.Comparison:
    """``compare --program``: the program (or with ``-m``, the module named first) run once per run."""
    module = program == "-m"
    if module and not inputs:
        fail("--program -m: name the module")
    entry, argv = (str(inputs[0]), [str(a) for a in inputs[1:]]) if module else (program, [str(a) for a in inputs])
    return api.compare_program(entry, argv, module=module, runs=runs, envs=envs, packages=packages, redact=redact,
                               hotspots=hotspots, progress=say)


def _compare_sample_or_records(inputs: list[Path], runs: list[api.Run], specs: list[str],
                               options: dict[str, Any]) -> api.Comparison:
    """``compare`` of records as they are, or of one sample run once per run (``specs``: the --run values)."""
    unknown = [str(p) for p in inputs if str(p).startswith("-")]
    if unknown:
        fail(f"no such option: {unknown[0]}")
    if not inputs:
        fail("give records (.json files), one sample file, or --program PROGRAM [ARGS...]")
    if all(p.suffix == ".json" for p in inputs):
        if runs or specs or options["config"] or options["compile_options"]:
            fail("--python, --torch, --run, --config and --compile-option run a sample: give a .py file, not records")
        return api.compare(*inputs, redact=options["redact"])
    return api.compare(*inputs, runs=runs + [api.Run(*_run_spec(spec)) for spec in specs], **options)


def _run_spec(spec: str) -> tuple[Optional[str], Optional[str], tuple[str, ...]]:
    """A --run value (python=PATH,torch=VERSION,KEY=VALUE,...) -> (interpreter or None, torch version or None,
    config items); with both, the torch environment is made with that interpreter."""
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if any("=" not in item for item in items):
        fail(f"--run {spec}: expected comma-separated python=PATH, torch=VERSION and KEY=VALUE items")
    named = {key: [item.partition("=")[2] for item in items if item.startswith(f"{key}=")]
             for key in ("python", "torch")}
    return (named["python"][-1] if named["python"] else None, named["torch"][-1] if named["torch"] else None,
            tuple(item for item in items if not item.startswith(("python=", "torch="))))


@app.command(context_settings={"ignore_unknown_options": True})
def check(
    paths: list[str] = typer.Argument(None, help=CHECK_PATHS_HELP),
    program: Optional[str] = typer.Option(None, "--program", help=CHECK_PROGRAM_HELP),
    torch: list[str] = typer.Option([], "--torch", help=CHECK_TORCH_HELP),
    python: Optional[str] = typer.Option(None, "--python", help="Run under this interpreter."),
    envs: Optional[Path] = typer.Option(None, "--envs", help=ENVS_HELP),
    with_: list[str] = typer.Option([], "--with", help=WITH_HELP),
    records: list[Path] = typer.Option([], "--records", help=CHECK_RECORDS_HELP),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help=CHECK_OUT_HELP),
    job: Optional[str] = typer.Option(None, "--job", help=CHECK_JOB_HELP),
    baseline: Optional[Path] = typer.Option(None, "--baseline", help=CHECK_BASELINE_HELP),
    update: bool = typer.Option(False, "--update", help=CHECK_UPDATE_HELP),
    fmt: str = typer.Option("text", "--format", "-f", help=CHECK_FORMAT_HELP),
    write: Optional[Path] = typer.Option(None, "--write", help="Write the output to this file instead of stdout."),
    strict: bool = typer.Option(False, "--strict", help=CHECK_STRICT_HELP),
    population: Optional[int] = typer.Option(None, "--population", "-n", min=1, help=CHECK_POPULATION_HELP),
    variant: list[str] = typer.Option([], "--variant", "-v", help="Only this variant id or glob (repeatable)."),
    rounds: int = typer.Option(3, "--rounds", min=0, help=CHECK_ROUNDS_HELP),
    budget: float = typer.Option(1.0, help="Seconds of timed runs per variant."),
) -> None:
    """Check the performance contracts written in comments (# inspector: parallel vectorized) and in pyproject.toml
    (its tool.inspector table) on runs made here or read from records: compiler-style lines, exit 3 when one is
    violated."""
    from inspector.contracts.command import check as check_contracts
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
    result = check_contracts([] if program else paths, program=program, args=paths if program else (), module=module,
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
    remove: list[str] = typer.Option([], "--remove",
                                     help="Delete the environments of this torch version (repeatable)."),
) -> None:
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


@app.command()
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the JSON that --format json prints, for this version's format."""
    _emit(api.schema())


def main() -> None:
    """Run the command line. The one place errors become exit codes: an InspectorError is said in one line and
    exits with its code; any other exception is a bug in inspector (exit 4; the traceback only with --verbose)."""
    try:
        app()
    except Exception as e:
        error = e if isinstance(e, InspectorError) else InternalFailure("running", e)
        _error(error, "--verbose" in sys.argv)
        sys.exit(error.code)
