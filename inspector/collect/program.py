"""Run a program under the program probe (``inspector.probe.program``) and assemble its raw record.

The program owns the terminal: its output is shown as usual and Ctrl-C reaches it (this process lets it pass while
the program runs, as ``time`` does); what the probe saw is read once it has ended, however it ended.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Union

from inspector import __version__
from inspector import source as source_mod
from inspector.collect import CollectError, files
from inspector.collect.process import PACKAGE_ROOT, cache_env, how_it_ended
from inspector.probe import load
from inspector.probe.frames import RESUMED
from inspector.probe.messages import (PROGRAM, Message, MessageError, ProgramEnd, ProgramHeader, ProgramReplay,
                                      ProgramTarget, Unknown, read)
from inspector.raw import (JSON, RawChild, RawExperiment, RawGraph, RawProbeMessages, RawProgram, RawRecord,
                          RawVariant, RawWarm, PROVENANCE_LEVEL, cache_missed, warm_metrics)
from inspector.record import SCHEMA


# the probe's start: inspector importable from the folder the parent names, whatever the interpreter, without
# touching PYTHONPATH (the program would see it; the probe takes the folder off sys.path before the program runs)
BOOTSTRAP = ("import os, sys; sys.path.insert(0, os.environ['INSPECTOR_BOOTSTRAP']); "
             "from inspector.probe.program import main; sys.exit(main())")
RERUN = BOOTSTRAP.replace("inspector.probe.program", "inspector.probe.rerun")
RERUN_LIMIT_S = 60.0  # a program that ran longer is not rerun for its warm compile (twice as long again)


def collect_program(target: Union[str, Path], argv: Sequence[str] = (), *, module: bool = False,
                    python: Optional[str] = None, trace_dir: Optional[Path] = None, trace: bool = True,
                    profile: bool = True, replay: bool = True, budget: Optional[float] = None, hotspots: bool = True,
                    cache: Optional[Path] = None) -> tuple[int, RawRecord]:
    """(the program's exit status, its RawRecord) for ``python TARGET ARGV`` (``module``: ``python -m``);
    ``trace``/``profile``: whether one call per function is traced for its Python lines / profiled for its kernels;
    ``replay``: whether each function is replayed eagerly and compiled afterwards, for ``budget`` seconds at most
    (None: the probe's default); ``hotspots``: where the program's own time goes, and the experiment on its hot
    functions; ``cache``: torch's caches in this folder of inspector's, and capture's facts kept beside them, so that
    a rerun of the same code finds its graphs there (``inspector.probe.graphcache``; None: compiled afresh)."""
    with tempfile.TemporaryDirectory(prefix="inspector-") as work:
        results = Path(work) / "results.jsonl"
        command = [python or sys.executable, "-c", BOOTSTRAP, "--results", str(results),
                   *(["--trace-dir", str(trace_dir)] if trace_dir else []), *([] if trace else ["--no-trace"]),
                   *([] if profile else ["--no-profile"]), *([] if replay else ["--no-replay"]),
                   *([] if hotspots else ["--no-hotspots"]),
                   *(["--budget", str(budget)] if budget is not None else []), *(["--module"] if module else []),
                   str(target), *argv]
        # Ctrl-C is the program's: a handler that does nothing (SIG_IGN would be inherited, and Python would then
        # never raise KeyboardInterrupt in the program)
        previous = signal.signal(signal.SIGINT, lambda *_: None)
        before, children_cpu = load.snapshot(), _children_cpu()
        try:
            env = dict(os.environ, INSPECTOR_BOOTSTRAP=str(PACKAGE_ROOT))
            status = subprocess.run(command, env=cache_env(env, cache, kept=True) if cache else env).returncode
        except OSError as e:
            raise CollectError(f"cannot start {command[0]}: {e.strerror}") from None
        finally:
            signal.signal(signal.SIGINT, previous)
        window = load.between(before, load.snapshot())
        if window["others_cpu_s"] is not None:  # the program's own CPU time is not the others'
            window["others_cpu_s"] = max(0.0, window["others_cpu_s"] - (_children_cpu() - children_cpu))
        messages = _messages(results)
        # the followed children's (inspector.probe.program.child)
        children = [end for path in sorted(results.parent.glob(f"{results.name}.*"))
                    if (end := _replayed(_messages(path)))]
    header = next((m for m in messages if isinstance(m, ProgramHeader)), None)
    if header is None:
        raise CollectError(f"inspector's probe could not start under {command[0]} ({how_it_ended(status)})")
    end = _replayed(messages)
    unknown = Counter(m.kind for m in messages if isinstance(m, Unknown))
    unread = RawProbeMessages(read=len(messages), unknown_kinds=dict(unknown)) if unknown else None
    record = program_record(header, end, status, trace_dir, probe_messages=unread, children=children)
    return status, record.but(program=(record.program or RawProgram()).but(load=window))


def warm_in_run(record: RawRecord, cache: Path) -> RawRecord:
    """``record`` with the ``warm`` of each compiled function whose graphs torch all found in its caches in
    ``cache`` during the run (each has what capture kept when it compiled, ``RawGraph.kept``): the run's own compile
    of it is what a rerun pays, measured with the rest of the run."""
    def graphs(v: RawVariant) -> list[RawGraph]:
        return [*((v.capture.graphs if v.capture else None) or []), *((v.recompiles.graphs if v.recompiles else None)
                                                                     or [])]

    def found(v: RawVariant) -> bool:
        return any(g.kept for g in graphs(v)) and all(g.kept for g in graphs(v) if g.fx_graph_cache)
    return record.but(variants=[v.but(warm=RawWarm.from_json({
        "metrics": [warm_metrics(g.metrics) for g in graphs(v) if g.metrics], "cache_dir": str(cache), "processes": 1,
        "during_run": True})) if v.status == "ok" and found(v) else v for v in record.variants or []])


def rerun(record: RawRecord, target: Union[str, Path], argv: Sequence[str], cache: Path, *, module: bool = False,
          python: Optional[str] = None) -> RawRecord:
    """``record`` with each compiled function's ``warm``: the program rerun bare in a fresh process with torch's
    caches in ``cache`` (inspector's, never the user's; ``inspector.probe.rerun``), its output discarded, and once
    more where a compile missed a cache there (it filled it); each function gets the metrics of its own frames (and
    of the code Dynamo resumed it with after a break). Not rerun: a program that failed, was interrupted or ran over
    RERUN_LIMIT_S (each function then says why)."""
    program = record.program or RawProgram()
    functions = [v for v in record.variants or [] if v.status == "ok" and v.code and v.code.file and not v.warm]
    why = ("it was interrupted" if record.interrupted else f"it exited with {program.exit}" if program.exit else
           f"its run took {program.wall_s:.0f} s, over the {RERUN_LIMIT_S:.0f} s inspector reruns a program for"
           if (program.wall_s or 0.0) > RERUN_LIMIT_S else None)
    found: dict[str, RawWarm] = {}
    ran: JSON | str = f"the program was not rerun: {why}" if why else ""
    for processes in (1, 2):
        if why or not functions:
            break
        ran = _rerun_once(target, argv, cache, module, python, (program.wall_s or 0.0) * 3 + 60)
        if isinstance(ran, str):
            break
        found = {v.id or "": RawWarm.from_json({"metrics": _frames_of(v, ran["metrics"]), "cache_dir": str(cache),
                                                "processes": processes}) for v in functions}
        if not cache_missed(ran["metrics"]):
            break
    failed = RawWarm.from_json({"error": ran, "cache_dir": str(cache)}) if isinstance(ran, str) and ran else None
    ids = {v.id for v in functions}
    return record.but(variants=[v.but(warm=failed or found.get(v.id or "") or RawWarm.from_json({
        "error": "compiled in a child process: not measured on a rerun" if v.process else "not rerun"}))
        if v.id in ids or v.process and not v.warm else v for v in record.variants or []])


def _rerun_once(target: Union[str, Path], argv: Sequence[str], cache: Path, module: bool, python: Optional[str],
                timeout: float) -> JSON | str:
    """One bare rerun's facts (``inspector.probe.rerun``), or why there are none."""
    with tempfile.TemporaryDirectory(prefix="inspector-") as work:
        results = Path(work) / "rerun.json"
        command = [python or sys.executable, "-c", RERUN, "--results", str(results),
                   *(["--module"] if module else []), str(target), *argv]
        # capture's provenance level (part of the graphs' cache keys) set alike: the rerun finds the run's graphs,
        # as a user's rerun finds what their run left
        env = cache_env(dict(os.environ, INSPECTOR_BOOTSTRAP=str(PACKAGE_ROOT),
                             INDUCTOR_PROVENANCE=str(PROVENANCE_LEVEL)), cache)
        try:
            subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"the rerun took over {timeout:.0f} s"
        except KeyboardInterrupt:
            return "the rerun was interrupted (Ctrl-C)"
        except OSError as e:
            return f"cannot start {command[0]}: {e.strerror}"
        if not results.exists():
            return "the rerun ended without saying what it compiled"
        try:
            found = json.loads(results.read_text(encoding="utf-8"))
        except ValueError:
            found = None
        return found if isinstance(found, dict) and isinstance(found.get("metrics"), list) else (
            "the rerun wrote what inspector cannot read")


def _frames_of(v: RawVariant, metrics: list[JSON]) -> list[JSON]:
    """The compile metrics of a function's frames: its own, and those Dynamo resumed it with after a graph break."""
    code = v.code
    assert code is not None, "a compiled function's code is known"
    return [{k: x for k, x in m.items() if not k.startswith("co_")} for m in metrics
            if m.get("co_filename") == code.file and (m.get("co_name") == code.name or str(
                m.get("co_name", "")).startswith(f"{RESUMED}{code.name}_at_"))]


def _replayed(messages: list[Message | Unknown]) -> Optional[ProgramEnd]:
    """A probe's last message, each function's replay facts (its ProgramReplay, sent after) in its run."""
    end = next((m for m in messages if isinstance(m, ProgramEnd)), None)
    replayed = next((m for m in messages if isinstance(m, ProgramReplay)), None)
    if end and replayed and replayed.functions:
        end = end.but(functions=[f.but(run=f.run.but(replay=replayed.functions[f.id or ""]))
                                 if f.run and f.id in replayed.functions else f for f in end.functions or []])
    return with_experiments(end, replayed.experiments) if end and replayed else end


def with_experiments(end: ProgramEnd, done: Optional[dict[str, RawExperiment]]) -> ProgramEnd:
    """``end`` with each hot function's experiment (``done``: by the function's id) beside its facts."""
    if not done:
        return end
    return end.but(hotspots=[h.but(experiment=done[h.id or ""]) if h.id in done else h for h in end.hotspots or []])


def _messages(results: Path) -> list[Message | Unknown]:
    """The program probe's messages in ``results`` (a line it could not finish, the program killed as it wrote,
    is left out)."""
    if not results.exists():
        return []
    *lines, _ = results.read_text(encoding="utf-8").split("\n")
    try:
        return [read(line, PROGRAM) for line in lines if line.strip()]
    except MessageError as e:
        raise CollectError(f"inspector's program probe wrote {e}") from None


def _children_cpu() -> float:
    """CPU seconds of this process's waited-for children so far."""
    times = os.times()
    return times.children_user + times.children_system


def program_record(header: ProgramHeader, end: Optional[ProgramEnd], status: int, trace_dir: Optional[Path] = None,
                   made_by: str = "run", probe_messages: Optional[RawProbeMessages] = None,
                   children: Sequence[ProgramEnd] = ()) -> RawRecord:
    """The RawRecord of a program's run from the probe's first and last messages (``end``: None when the program
    ended without one); ``made_by``: run, or the Python API's capture or inspect; ``probe_messages``: what was read,
    where some were not understood; ``children``: the last messages of the child processes' probes (their functions
    join the program's, named with their process)."""
    program = header.program or ProgramTarget()
    path = Path(program.file) if program.file else None
    source = (source_mod.text(str(path)) or "") if path and path.is_file() else ""
    shown = program.target if not program.module else f"-m {program.target}"
    record: dict[str, Any] = {
        "schema": SCHEMA, "inspector": __version__, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "kind": "program",
        "sample": {"path": program.target if not program.module else str(path or program.target),
                   "file": str(path) if path else None, "title": " ".join([str(shown), *(program.argv or [])]),
                   "description": "", "population": None, "source": source},
        "env": header.env.to_json() if header.env else None, "config": [], "compile_options": {},
        "trace_dir": str(trace_dir) if trace_dir else None, "interrupted": status in (130, -signal.SIGINT),
        "probe_restarts": 0, "probe_log": "", "internal_errors": [],
        **({"probe_messages": probe_messages.to_json()} if probe_messages else {}),
        "program": {"made_by": made_by, "argv": program.argv, "module": program.module, "exit": status,
                    "wall_s": end.wall_s if end else None, "ended": "normally" if end else (
                        f"without letting inspector write what it saw ({how_it_ended(status)}: os._exit, a crash "
                        "or a kill)"), "outside": end.outside if end else None,
                    **({"children": _children(end.children, children)} if end and end.children else {}),
                    **({"hotspots": [h.to_json() for h in end.hotspots]} if end and end.hotspots else {}),
                    **({"profile_problems": end.profile_problems} if end and end.profile_problems else {})},
        "variants": [f.but(kind="torch", compiled=True, preview=False, family="", status=_status(f)).to_json()
                     for f in _functions(end, children)],
    }
    raw = RawRecord.from_json(record)
    return raw.but(files=files.read(raw))


def _functions(end: Optional[ProgramEnd], children: Sequence[ProgramEnd]) -> list[RawVariant]:
    """The program's tracked functions, then each followed child's, named after their process ("step [SpawnProcess-1]")
    and numbered after the program's."""
    found = list((end.functions if end else None) or [])
    for child in children:
        found += [f.but(id=f"{f.id} [{child.process}]", process=child.process, index=len(found) + i)
                  for i, f in enumerate(child.functions or [])]
    return found


def _children(started: list[RawChild], ends: Sequence[ProgramEnd]) -> list[JSON]:
    """The program's multiprocessing children, then theirs (grandchildren, ...), each with whether its probe's
    account was read, and its wall time."""
    by_name = {e.process: e for e in ends}
    started = started + [c for e in ends for c in e.children or []]
    return [c.but(followed=c.name in by_name, wall_s=by_name[c.name].wall_s if c.name in by_name else None).to_json()
            for c in started]


def _status(function: RawVariant) -> str:
    """"error" for a function that raised before any of its code compiled; one that raised later is "ok", its error
    kept with the call (the calls before it ran compiled code worth analysing)."""
    graphs = (function.capture.graphs if function.capture else None) or []
    return "error" if function.error and not any(g.output_code for g in graphs) else "ok"
