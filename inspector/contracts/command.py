"""``inspector check``: make or read the runs, find the contracts that speak of them, judge, compare with a lock.

Runs are made here (each sample of the paths, or ``program``, under each ``torch`` version, as ``report`` and ``run``
make them) or read from ``records`` (files, or folders searched for records: those another machine or CI job made).
Contracts are read from the comments of the paths' files and of every sample and user file the runs name that is on
disk, and from the nearest pyproject.toml above each of them with a [tool.inspector] table.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from inspector import api
from inspector import source as source_mod
from inspector.contracts import facts, lock
from inspector.contracts.grammar import (Contract, Problem, from_comments, from_pyproject, local, nearest_pyproject,
                                       pattern)
from inspector.contracts.facts import RunFacts
from inspector.contracts.judge import Verdict, judge, label
from inspector.contracts.result import Checked
from inspector.contracts.versions import release
from inspector.errors import InspectorError, Interrupted, InternalFailure
from inspector.raw import RawRecord
from inspector.record import RecordError, load, write_atomic
from inspector.render import renderer

# the CI's own name for the job, where it sets one (GitHub: the job's id; matrix legs share it, so name them)
CI_JOBS = ("GITHUB_JOB", "CI_JOB_NAME", "CIRCLE_JOB", "BUILDKITE_LABEL", "SYSTEM_JOBDISPLAYNAME", "JOB_NAME")
INDEX = "index.html"
Made = tuple[str, RawRecord]  # (its name: the record's stem, the record)


def ci_job(env: dict[str, str] | None = None) -> str | None:
    """The job name the CI sets in the environment (CI_JOBS, first found), or None outside a CI."""
    env = dict(os.environ) if env is None else env
    return next((env[name] for name in CI_JOBS if env.get(name)), None)


def check(paths: Sequence[str | Path] = (), *, program: str | None = None, args: Sequence[str] = (),
          module: bool = False, records: Sequence[str | Path] = (), torch: Sequence[str] = (),
          python: str | None = None, envs: str | Path | None = None, packages: Sequence[str] = (),
          job: str | None = None, out: str | Path | None = None, baseline: str | Path | None = None,
          update: bool = False, strict: bool = False, population: int | None = None, variants: Sequence[str] = (),
          rounds: int = 3, budget: float = 1.0, progress: Callable[[str], None] | None = None) -> Checked:
    """``inspector check`` (``inspector.check()``): judge the contracts (``# inspector:`` comments,
    ``[tool.inspector]`` in pyproject.toml) on runs of the sample ``paths`` (or ``program``) made here under each
    ``torch`` version, or on ``records`` made elsewhere (see the module's docstring); ``job``: the job the runs are
    from (runs made here: by default the CI's own; records read keep theirs, else take it, else their folder's name);
    ``out``: write each run's record, its HTML report and an index there; ``baseline``: an inspector.lock to compare
    with (with ``update``: written instead, default ./inspector.lock). Its ``Checked``: ``.render(fmt)`` (text, json,
    github, junit), ``.exit_code``, ``.verdicts``."""
    say = progress or (lambda line: None)
    problems: list[Problem] = []
    notes: list[str] = []
    files = [Path(p) for p in paths]
    if records:
        made = _read(records, files, program, torch, job, problems, notes)
    else:
        warm = _asks_warm([*files, *([Path(program)] if program else [])])
        made = _measure(files, program, args, module, torch, job or ci_job(),
                        dict(python=python, envs=envs, packages=packages, warm=warm), dict(population=population,
                             variants=variants, rounds=rounds, budget=budget), problems, say)
    runs = [(_facts(name, record), record) for name, record in made]
    contracts, unusable = _contracts(files, [r for r, _ in runs])
    problems += unusable
    verdicts = judge(contracts, [r for r, _ in runs])
    if update:
        target = Path(baseline or "inspector.lock")
        lock.write(target, runs)
        notes.append(f"wrote {target} ({len(runs)} run{'s' * (len(runs) != 1)})")
    elif baseline:
        found, trouble = lock.baseline(lock.read(Path(baseline)), runs, Path(baseline).name)
        verdicts, problems = verdicts + found, problems + trouble
    if out:
        notes.append(f"wrote {_save(Path(out), made)}")
    if not contracts:
        notes.append("no contracts found (# inspector: comments, or [tool.inspector] in pyproject.toml)")
    labels = tuple(dict.fromkeys(label(r) for r, _ in runs))
    return Checked(tuple(sorted(verdicts, key=_order)), tuple(problems), labels, strict, tuple(notes))


def _order(v: Verdict) -> tuple[str, int, int, str]:
    return v.place.file, v.place.line, v.place.column, v.promise


def _facts(name: str, record: RawRecord) -> RunFacts:
    try:
        return facts.read(record, name)
    except Exception as e:  # a record this analysis fails on: inspector's bug, not the user's
        raise InternalFailure(f"analysing the record {name}", e) from e


def _asks_warm(paths: list[Path]) -> bool:
    """Whether a contract may ask for a rerun's compile (``pays-after-warm``): the word in a file of ``paths`` (a
    folder's Python files) or in the pyproject.toml above; only then do the runs measure it."""
    texts = [p for path in paths for p in (sorted(path.rglob("*.py")) if path.is_dir() else [path])]
    texts += [found for path in paths[:1] if (found := nearest_pyproject(path)[0])]
    return any("pays-after-warm" in (source_mod.text(str(p)) or "") for p in texts if p.is_file())


def _measure(files: list[Path], program: str | None, args: Sequence[str], module: bool, torch: Sequence[str],
             job: str | None, where: dict[str, Any], options: dict[str, Any], problems: list[Problem],
             say: Callable[[str], None]) -> list[Made]:
    """Run each sample of ``files`` (or ``program``) under each torch version, as ``report`` (``run``) does; one
    that cannot run is a problem, and the others still run."""
    if not files and not program:
        raise InspectorError("give sample files or folders, --program PROGRAM [ARGS...], or --records DIR")
    versions: list[str | None] = list(torch) or [None]
    made = []
    for version in versions:
        suffix = f"-torch-{version}" if len(versions) > 1 else ""
        targets: list[str | Path] = [program] if program else [s for f in files for s in api.samples(f)]
        for target in targets:  # the program (a str), or the sample files
            try:
                if isinstance(target, Path):
                    report = api.report(target, torch=version, try_fixes=False, rewrites=False, progress=say, **where,
                                        **options)  # a contract judges no fix or rewrite: none is tried
                else:
                    report = api.run(target, list(args), module=module, torch=version, progress=say, **where)
                made.append((report.name + suffix, report.captured))
            except (Interrupted, InternalFailure):
                raise
            except InspectorError as e:
                problems.append(Problem(f"{target}: {e}" if isinstance(target, Path) else str(e)))
    return [(name, record.but(job=job) if job else record) for name, record in made]


def _read(sources: Sequence[str | Path], files: list[Path], program: str | None, torch: Sequence[str],
          job: str | None, problems: list[Problem], notes: list[str]) -> list[Made]:
    """The records in ``sources`` of the paths' files (all, without paths; a program's, with ``program``) under the
    ``torch`` versions; a record without a job takes ``job``, else the folder it is in below its source."""
    wanted = [pattern(p) for f in files for p in ([f] if f.suffix == ".py" else sorted(f.rglob("*.py")))]
    wanted += [pattern(Path(program))] if program and program != "-m" else []
    made, skipped = [], 0
    for source, path in _record_files(sources, problems):
        record = _record(path, problems)
        if record is None:
            skipped += 1
            continue
        if not _wanted(record, wanted, program is not None, torch):
            continue
        folder = path.parent.relative_to(source).parts if path.parent != source and source.is_dir() else ()
        name = job or (folder[0] if folder else None)
        made.append((path.stem, record if record.job or not name else record.but(job=name)))
    if skipped:
        notes.append(f"skipped {skipped} JSON file{'s' * (skipped != 1)} that {'are' if skipped > 1 else 'is'} not "
                     "an inspector record")
    if not made:
        problems.append(Problem(f"no record in {', '.join(map(str, sources))} is of "
                                f"{', '.join(wanted) or 'anything'}{_torch_words(torch)}"))
    return made


def _record_files(sources: Sequence[str | Path], problems: list[Problem]) -> list[tuple[Path, Path]]:
    """(the source given, a JSON file in it) for each file of ``sources`` (a folder: searched)."""
    found = []
    for source in map(Path, sources):
        if source.is_dir():
            found += [(source, p) for p in sorted(source.rglob("*.json"))]
        elif source.is_file():
            found.append((source, source))
        else:
            problems.append(Problem(f"{source}: no such file or folder"))
    return found


def _record(path: Path, problems: list[Problem]) -> RawRecord | None:
    """The record at ``path``; None for JSON that is not a record (counted); a record that cannot be read is a
    problem."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        problems.append(Problem(f"{path}: cannot read it as JSON ({e})"))
        return None
    if not (isinstance(data, dict) and str(data.get("schema", "")).startswith("inspector.record/")):
        return None
    try:
        found: RawRecord = load(path)
        return found
    except RecordError as e:
        problems.append(Problem(str(e)))
        return None


def _wanted(record: RawRecord, wanted: list[str], program: bool, torch: Sequence[str]) -> bool:
    """Whether a record is of one of the ``wanted`` files (all: none wanted), a program's when ``program``, under
    one of the ``torch`` versions (all: none given)."""
    sample = PurePosixPath(((record.sample.path if record.sample else None) or "").replace("\\", "/")).parts
    of_file = not wanted or any(sample[-len(PurePosixPath(w).parts):] == PurePosixPath(w).parts for w in wanted)
    version = release((record.env.torch if record.env else None) or "") or ()
    under = not torch or any(version[:len(release(t) or ())] == release(t) for t in torch)
    return of_file and under and (not program or record.program is not None)


def _torch_words(torch: Sequence[str]) -> str:
    return f" under torch {', '.join(torch)}" if torch else ""


def _contracts(files: list[Path], runs: list[RunFacts]) -> tuple[list[Contract], list[Problem]]:
    """The contracts of the paths' files, of the runs' sample and user files on disk, and of the nearest
    pyproject.toml with a [tool.inspector] table above each of them; what could not be read."""
    sources = [p for f in files for p in ([f] if f.suffix == ".py" else sorted(f.rglob("*.py"))) if p.is_file()]
    sources += [p for run in runs for f in run.files if f.kind in ("sample", "user")
                for p in [local(f.display, f.path)] if p]
    contracts: list[Contract] = []
    problems: list[Problem] = []
    tables: dict[Path, None] = {}
    for path in dict.fromkeys(p.resolve() for p in sources):
        text = source_mod.text(str(path))
        found, trouble = from_comments(path, text) if text is not None else ([], [Problem(f"{path}: cannot read it")])
        table, unreadable = nearest_pyproject(path)
        contracts += found
        problems += trouble + unreadable
        if table:
            tables[table] = None
    for table in tables:
        found, trouble = from_pyproject(table)
        contracts += found
        problems += trouble
    return contracts, list(dict.fromkeys(problems))


def _save(out: Path, made: list[Made]) -> Path:
    """Write each run's record (``<name>.json``, its job kept) and HTML report into ``out``, and an index of them
    (a sample's or a program's row each); the folder's path."""
    names = [n for n, _ in made]
    done = []
    for name, record in made:
        if names.count(name) > 1:  # the same sample from several jobs or torch versions: one file each
            which = record.job or (record.env.torch if record.env else None) or ""
            name += "-" + re.sub(r"[^\w.]+", "-", which).strip("-")
        report = api.Report(name, record)
        report.save(out, index=INDEX)
        done.append((name, report.analysis))
    if done:
        write_atomic(out / INDEX, renderer("html").index(done))
    return out
