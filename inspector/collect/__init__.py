"""Run the probe in child processes and assemble the raw record.

The probe streams JSON lines (see ``inspector.probe``); this side enforces the per-variant timeout, survives a
dying probe (restarting it for the variants left), keeps everything already measured (a variant that times out
keeps the graphs and breaks it streamed after its first call), and cross-checks every variant's output. A
``Session`` does it a step at a time for its caller (``inspector.api``), which decides between the steps which
fixes the live probe tries: nothing here reads the analysis.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, TypeVar, Union

from inspector import __version__
from inspector import source as source_mod
from inspector.collect import files
from inspector.collect.crosscheck import cross_check
from inspector.collect.process import (Clock, ProbeProcess, ProbeStartError, ProtocolError, cache_env, how_it_ended,
                                      probe_env)
from inspector.collect.progress import Progress, RoundStarted, RunStarted, WarmStarted, quiet
from inspector.errors import InspectorError
from inspector.probe.messages import (Compiled, Fatal, Header, Internal, Message, Ready, Round, RoundResult, Start,
                                      Trial, TrialAnswer, Unknown, VariantResult, WarmResult)
from inspector.raw import (JSON, RawCapture, RawError, RawGraph, RawProbeMessages, RawRecord, RawRewrite, RawSweepPoint,
                          RawVariant, RawWarm, Status, cache_missed)
from inspector.record import SCHEMA

M = TypeVar("M", bound=Message)
Runs = Sequence[tuple[Optional[str], Sequence[str]]]  # (interpreter or None: this one, config items) per run
LOG_TAIL = 20_000
EMPTY_CAPTURE, EMPTY_GRAPH = RawCapture.from_json({}), RawGraph.from_json({})
# what a sweep size keeps of a variant: its timing and what the timing's meaning needs
SWEEP_KEYS = ("id", "function", "kind", "compiled", "device", "preview", "status", "error", "timing", "load",
              "measured_population", "family")


class CollectError(InspectorError):
    """The sample could not be run at all; the message is one line for the user, ``detail`` the probe's output."""


def collect(sample: Union[str, Path], *, python: Optional[str] = None, config: Sequence[str] = (), **options: Any
            ) -> RawRecord:
    """Run the variants of ``sample`` (a path) under ``python`` with the ``config`` items; return its RawRecord.

    ``options``: those of ``collect_runs``; with ``rounds``, the variants are also timed in alternating rounds.
    """
    return collect_runs(sample, [(python, list(config))], **options)[0]


def collect_runs(sample: Union[str, Path], runs: Runs, **options: Any) -> list[RawRecord]:
    """Run ``sample`` once per (interpreter or None, config items) of ``runs``, then time them in the rounds the
    ``options`` ask for (those of ``Session``); return their RawRecords. No fix is tried: ``inspector.api`` drives
    a Session to try them."""
    with Session(sample, **options) as session:
        for python, config in runs:
            session.run(python, config)
            if session.interrupted:
                break
        session.time_rounds()
        return session.records()


class Session:
    """The probes of one sample's runs, driven one step at a time by their caller (``inspector.api``), as a profiler
    drives its session: ``run`` the variants under one interpreter and config (the run's record so far), ``try``
    fixes on the last run's probe, kept live (``trials``), ``time_rounds`` (every run's variants again, the runs
    taking turns), then ``records``. Its probes are let go on ``close`` (leaving a ``with`` block).

    ``only``: variant ids or glob patterns; ``sizes``: further population sizes each compiled variant is called
    at, to expose recompilations; ``kernel_times``: also time each kernel of the compiled variants, on all threads
    and on fewer (profiled passes); ``triton_preview``: add the ``*-triton-preview`` variants (Triton code for a CPU
    target, never run); ``compile_options``: torch.compile's keywords as KEY=VALUE; ``rtol``: the cross-check's
    relative tolerance (default: the sample's TOLERANCE, else 1e-5). ``rounds``: afterwards, every run's variants,
    and the fixes tried, are timed ``rounds`` times more, the runs taking turns (``_interleave``): half of ``budget``
    for the rounds, half for the first timing. ``progress(event)`` sees each message as it arrives, and the
    Session's own steps (``inspector.collect.progress``). ``warm``: a folder of inspector's own where torch's caches
    go while each compiled variant is compiled again in fresh processes (``_ProbeRuns.warm``), and while the probe
    compiles it first.
    """

    def __init__(self, sample: Union[str, Path], *, rounds: int = 0, trials: bool = False,
                 population: Optional[int] = None, only: Optional[Sequence[str]] = None,
                 compile_options: Sequence[str] = (), timeout: float = 300.0, trace_dir: Union[str, Path, None] = None,
                 budget: float = 1.0, seed: int = 0, sizes: Sequence[int] = (), kernel_times: bool = True,
                 triton_preview: bool = False, rtol: Optional[float] = None, warm: Optional[Path] = None,
                 progress: Progress = quiet) -> None:
        self.sample, self.rounds, self.trials, self.only, self.rtol = Path(sample), rounds, trials, only, rtol
        self.warm = warm
        self.timeout, self.trace_dir, self.budget, self.progress = timeout, trace_dir, budget, progress
        options = ["--seed", str(seed), "--budget", str(budget / 2 if rounds else budget)]
        options += ["--population", str(population)] if population else []
        options += ["--sizes", ",".join(map(str, sizes))] if sizes else []
        options += [] if kernel_times else ["--no-kernel-times"]
        options += ["--triton-preview"] if triton_preview else []
        options += ["--rounds"] if rounds else []
        options += ["--trials"] if trials else []
        for item in compile_options:
            options += ["--compile-option", item]
        self.options = options
        self._stack = contextlib.ExitStack()
        self._runs: list[_Run] = []

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let every probe go (killed) and remove the runs' work folders."""
        self._stack.close()

    def run(self, python: Optional[str] = None, config: Sequence[str] = ()) -> RawRecord:
        """Run the variants under ``python`` (None: this interpreter) with the ``config`` items; the run's RawRecord
        so far: its variants and the files they name (no rounds, trials or cross-check yet). With rounds or trials
        to come, its probe is kept live for them."""
        self.progress(RunStarted(python, list(config)))
        work = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="inspector-")))
        extra = [arg for item in config for arg in ("--config", item)]
        probes = _ProbeRuns(self.sample, work, python or sys.executable, self.options + extra, self.trace_dir,
                            self.timeout, self.progress, talk=bool(self.rounds or self.trials), cache=self.warm)
        self._stack.callback(probes.close)
        header, results = probes.all(self.only)
        if not probes.interrupted:
            results = probes.warm(results)
        record = RawRecord.from_json(_record(self.sample, header, results, probes))
        run = _Run(probes, header, results, work, files.read(record))
        self._runs.append(run)
        return record.but(files=run.files)

    @property
    def interrupted(self) -> bool:
        """Whether the user interrupted a run (Ctrl-C): what was measured is kept."""
        return any(r.probes.interrupted for r in self._runs)

    @property
    def live(self) -> bool:
        """Whether the last run's probe is still live (fixes can be tried on it)."""
        return bool(self._runs and self._runs[-1].probes.live)

    def try_fixes(self, specs: Sequence[Trial], rewrites: Sequence[RawRewrite] = ()) -> None:
        """Each fix of ``specs`` (Trial commands: ``inspector.probe.trials``; RewriteTrials run ``rewrites``, what
        inspector's rewriter wrote, kept as the record's ``rewrites``) tried by the last run's live probe: its
        record's ``trials``."""
        run = self._runs[-1]
        run.tried = run.probes.try_fixes(specs) if run.probes.live else []
        run.rewrites = list(rewrites)

    def time_rounds(self) -> None:
        """Every run's variants, and the fixes tried, timed ``rounds`` times more, the runs taking turns."""
        timed = _interleave([r.probes for r in self._runs], self.rounds, self.budget / 2 / max(1, self.rounds),
                            self.progress)
        for run, times in zip(self._runs, timed):
            run.timed = times

    def records(self) -> list[RawRecord]:
        """Each run's RawRecord: its variants, rounds and fixes tried, each output cross-checked."""
        records: list[RawRecord] = []
        for run in self._runs:
            record = _record(self.sample, run.header, run.results, run.probes)
            if run.timed:
                record["rounds"] = run.timed
            if self.trials:
                record["trials"] = run.tried
            if run.rewrites:
                record["rewrites"] = [r.to_json() for r in run.rewrites]
            records.append(cross_check(RawRecord.from_json(record), run.work, self.rtol).but(files=run.files))
        return records


@dataclass
class _Run:
    """One run of a Session: its probes, what they said (the header, each variant's result), its work folder, the
    files its record keeps, and later the fixes tried on it and its rounds."""

    probes: _ProbeRuns
    header: Header
    results: list[RawVariant]
    work: Path
    files: dict[str, str]
    tried: list[JSON] = field(default_factory=list)
    timed: Optional[JSON] = None
    rewrites: list[RawRewrite] = field(default_factory=list)


def _interleave(runs: list[_ProbeRuns], rounds: int, budget_s: float, progress: Progress
                ) -> list[Optional[JSON]]:
    """Each run's variants timed ``rounds`` more times, ``budget_s`` each time, the runs taking turns (1, 2, ...,
    then back: ..., 2, 1) so that all see the same machine; per run its record's ``rounds`` (None without)."""
    live = [r for r in runs if r.live]
    if not rounds or not live or any(r.interrupted for r in runs):
        return [None] * len(runs)
    session = f"{time.time():.6f}-{os.getpid()}"
    out: dict[int, JSON] = {id(r): {"session": session, "runs": len(live), "position": i, "rounds": rounds,
                                    "budget_s": budget_s, "warmup_s": r.warmup_s, "variants": {}}
                            for i, r in enumerate(live)}
    try:
        for number in range(rounds):
            progress(RoundStarted(number + 1, rounds))
            for r in live if number % 2 == 0 else live[::-1]:
                answer = r.round(number, budget_s)
                for vid, t in ((answer.variants if answer else None) or {}).items():
                    out[id(r)]["variants"].setdefault(vid, []).append(t.but(round=number).to_json())
    except KeyboardInterrupt:  # the rounds so far are kept; the records say they were interrupted
        for r in live:
            r.interrupted = True
    return [out.get(id(r)) for r in runs]


def sweep_point(record: RawRecord) -> RawSweepPoint:
    """One size of a population sweep: each variant's timing (and its rounds), and the compile metrics its meaning
    needs, as the record's RawVariants keep them."""
    rounds = (record.rounds.variants if record.rounds else None) or {}
    dropped = frozenset(f.name for f in dataclasses.fields(RawVariant)) - {"other", "absent", *SWEEP_KEYS}

    def point(v: RawVariant) -> RawVariant:
        graphs = [EMPTY_GRAPH.but(metrics={"entire_frame_compile_time_s": (g.metrics or {}).get(
            "entire_frame_compile_time_s")}) for g in (v.capture.graphs if v.capture else None) or []]
        kept = dataclasses.replace(v, **dict.fromkeys(dropped), other={}, absent=v.absent | dropped)
        ran = (rounds.get(v.id) if v.id else None) or []
        return kept.but(capture=EMPTY_CAPTURE.but(graphs=graphs), rounds=list(ran))
    return RawSweepPoint(population=record.sample.population if record.sample else None,
                         variants=[point(v) for v in record.variants or []])


class _ProbeRuns:
    """The probe processes of one collect: one, plus one per restart after a variant killed or hung it. With
    ``cache``, torch's caches are there for every probe (``cache_env``): capture, its caches off, leaves there the
    kernels its C++ compiler built, which the warm processes' compiles then load instead of building them again."""

    def __init__(self, sample: Path, work: Path, python: str, options: list[str], trace_dir: Union[str, Path, None],
                 timeout: float, progress: Progress, talk: bool = False, cache: Optional[Path] = None) -> None:
        self.sample, self.work, self.python, self.options, self.talk = sample, work, python, options, talk
        self.cache = cache
        self.env = cache_env(probe_env(trace_dir), cache) if cache else probe_env(trace_dir)
        self.live: Optional[ProbeProcess] = None  # with ``talk``: the probe kept alive after its variants, for rounds
        self.warmup_s: dict[str, Optional[float]] = {}  # its untimed call of each variant before the rounds
        self.trace_dir, self.progress = trace_dir, progress
        self.clock = Clock(timeout)
        self.log = work / "probe.log"
        self.log_mark = 0  # where the current probe's (or variant's) part of the log starts
        self.interrupted = False
        self.restarts = 0
        self.internal_errors: list[RawError] = []
        self.partial: dict[Optional[str], Compiled] = {}  # variant id -> what it compiled before its result
        self.messages_read = 0  # the probes' messages read
        self.unknown: dict[str, int] = {}  # of them, those of a kind this version does not know: {kind: count}

    def all(self, only: Optional[Sequence[str]]) -> tuple[Header, list[RawVariant]]:
        """Run the probe (again, after one died, for the variants left): the header and each selected variant's
        result."""
        header: Optional[Header] = None
        results: dict[str, RawVariant] = {}
        wanted = only
        while True:
            new_header, done = self._one(wanted, results)
            header = header or new_header
            if header is None and self.internal_errors:  # the probe failed before it said anything
                raise CollectError(f"inspector's probe failed under {self.python} before any variant: "
                                   f"{self.internal_errors[0].error}", self.log_tail())
            if header is None:  # interrupted before the probe said anything
                raise KeyboardInterrupt
            ids = [v.id for v in header.variants or [] if v.id is not None]
            if only:
                missing = [p for p in only if not fnmatch.filter(ids, p)]
                if missing:
                    raise CollectError(f"{self.sample}: no variant {', '.join(missing)} "
                                       f"(it has: {', '.join(ids)})")
            selected = [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in only or ["*"])]
            left = [i for i in selected if i not in results]
            if done or not left or self.interrupted or self.internal_errors:
                why = "inspector failed before it ran" if self.internal_errors else "interrupted before it ran"
                for i in left:
                    results[i] = self._lost(header, i, "skipped", why)
                return header, [results[i] for i in selected if i in results]
            wanted = left
            self.restarts += 1

    def warm(self, results: list[RawVariant]) -> list[RawVariant]:
        """``results``, each compiled variant that ran with its ``warm``: compiled again in a fresh process with
        torch's caches in ``self.cache`` (never the user's); a variant whose compile missed a cache there (it filled
        it) is measured in a second process. Without a cache, ``results`` as they are."""
        cache = self.cache
        if cache is None:
            return results
        ids = [v.id for v in results if v.id and v.compiled and not v.preview and v.status == Status.OK]
        if ids:
            self.progress(WarmStarted(str(cache)))
        found: dict[str, RawWarm] = {}
        for process in (1, 2):
            left = [i for i in ids if i not in found or process == 2 and _missed(found[i])]
            if not left or self.interrupted:
                break
            found.update({i: w.but(processes=process) for i, w in self._warm_process(left, cache, process).items()})
        return [v.but(warm=found[v.id]) if v.id in found else v for v in results]

    def _warm_process(self, ids: list[str], cache: Path, number: int) -> dict[str, RawWarm]:
        """{id: RawWarm} of one ``--warm`` probe process over the variants ``ids`` (each it did not answer says why)."""
        results_file = self.work / f"warm-{number}.jsonl"
        results_file.touch()
        env = cache_env(probe_env(), cache)
        command = self._command(ids, results_file) + ["--warm"]
        found: dict[str, RawWarm] = {}
        why = "the probe did not answer"
        self.clock.start()
        try:
            with ProbeProcess(command, env, self.log, results_file) as probe:
                for message in probe.messages():
                    if message is None and self.clock.expired():
                        why = f"timed out after {self.clock.timeout_s:g} s (see --timeout)"
                        break
                    if isinstance(message, WarmResult) and message.id:
                        found[message.id] = RawWarm.from_json({k: v for k, v in message.to_json().items()
                                                               if k not in ("type", "id")})
                    elif isinstance(message, (Fatal, Internal)):
                        why = message.error or why
        except (ProbeStartError, ProtocolError) as e:
            why = str(e)
        except KeyboardInterrupt:
            self.interrupted, why = True, "interrupted (Ctrl-C)"
        finally:
            self.clock.stop()
        return dict({i: RawWarm.from_json({"error": why, "cache_dir": str(cache)}) for i in ids}, **found)

    def _command(self, wanted: Optional[Sequence[str]], results_file: Path) -> list[str]:
        cmd = [self.python, "-m", "inspector.probe", str(self.sample), "--results", str(results_file),
               "--outputs", str(self.work), *self.options]
        return cmd + (["--only", ",".join(wanted)] if wanted else [])

    def _one(self, wanted: Optional[Sequence[str]], results: dict[str, RawVariant]) -> tuple[Optional[Header], bool]:
        """Run one probe process; return (header or None, finished normally)."""
        results_file = self.work / f"results-{self.restarts}.jsonl"
        results_file.touch()
        self.log.touch()
        self.log_mark = self.log.stat().st_size
        state: dict[str, Any] = {"header": None, "current": None}  # the Header, the variant running
        try:
            with ProbeProcess(self._command(wanted, results_file), self.env, self.log, results_file,
                              talk=self.talk) as probe:
                for message in probe.messages():
                    if message is None:
                        if self.clock.expired():
                            probe.kill()
                            vid = state["current"]
                            results[vid] = self._lost(state["header"], vid, "timeout",
                                                      f"timed out after {self.clock.timeout_s:g} s (see --timeout)")
                            return state["header"], False
                        continue
                    self._handle(message, state, results)
                    if state.get("ready"):
                        self.live = probe.hold()
                        return state["header"], True
        except ProbeStartError as e:
            raise CollectError(str(e)) from None
        except ProtocolError as e:
            raise CollectError(f"{e}{self._tail_hint()}", self.log_tail()) from None
        except KeyboardInterrupt:  # the probe is already killed
            self.interrupted = True
            if state["current"]:
                results[state["current"]] = self._lost(state["header"], state["current"], "skipped",
                                                       "interrupted (Ctrl-C)")
            return state["header"], False
        finally:
            self.clock.stop()
        return self._ended(probe.returncode, state, results)

    def _handle(self, message: Message | Unknown, state: dict[str, Any], results: dict[str, RawVariant]) -> None:
        """Act on one message of the probe running the variants, then show it to ``progress``."""
        self._count(message)
        match message:
            case Fatal():
                raise CollectError(message.error or "the probe could not run the sample", self.log_tail())
            case Internal():
                self.internal_errors.append(RawError(where=message.given("where", "probe"), error=message.error,
                                                     detail=message.detail))
            case Header():
                state["header"] = message
            case Start():
                state["current"] = message.id
                self.clock.start()
                self.log_mark = self.log.stat().st_size
            case Compiled():
                self.partial[message.id] = message
            case VariantResult(id=str(vid)):
                results[vid] = message
                state["current"] = None
                self.clock.stop()
            case Ready():
                state["ready"], self.warmup_s = True, message.warmup_s or {}
        self.progress(message)

    def _count(self, message: Message | Unknown) -> None:
        """Count one message read, and its kind where this version does not know it."""
        self.messages_read += 1
        if isinstance(message, Unknown):
            self.unknown[message.kind] = self.unknown.get(message.kind, 0) + 1

    def round(self, number: int, budget_s: float) -> Optional[RoundResult]:
        """The live probe's answer to round ``number``, or None (the probe is then let go) if it died or took
        longer than the timeout."""
        return self._ask(Round(round=number, budget_s=budget_s), RoundResult)

    def try_fixes(self, specs: Iterable[Trial]) -> list[JSON]:
        """Each fix of ``specs`` tried by the live probe: the record's ``trials``, each the command's facts but
        those the command alone needs (``UNRECORDED``) and its answer's but ``id`` (a trial the probe did not answer
        says so)."""
        tried: list[JSON] = []
        for spec in specs:
            self.progress(spec)
            answer = self._ask(spec, TrialAnswer) if self.live else None
            got = answer.to_json() if answer else {"status": "error",
                                                   "error": "the probe did not answer (it died or timed out)"}
            tried.append(dict({k: v for k, v in spec.to_json().items() if k not in spec.UNRECORDED},
                              **{k: v for k, v in got.items() if k != "id"}))
        return tried

    def _ask(self, command: Message, answer: type[M]) -> Optional[M]:
        """The live probe's ``answer`` to ``command``, or None (the probe is then let go) if it died or took longer
        than the timeout."""
        if not self.live or not self.live.send(command):
            self.close()
            return None
        self.clock.start()
        try:
            for message in self.live.messages():
                if message is None and self.clock.expired():
                    break
                if message is not None:
                    self._count(message)
                if isinstance(message, answer):
                    return message
        finally:
            self.clock.stop()
        self.close()
        return None

    def close(self) -> None:
        """Let the live probe go (it is killed); None."""
        if self.live:
            self.live.release()
            self.live = None

    def _ended(self, returncode: Optional[int], state: dict[str, Any], results: dict[str, RawVariant]
               ) -> tuple[Optional[Header], bool]:
        """(header, finished normally) from how a probe that was read to its end exited."""
        how, current, header = how_it_ended(returncode or 0), state["current"], state["header"]
        if current:
            results[current] = self._lost(header, current, "error", f"the probe process died ({how}) "
                                          f"while running it{self._tail_hint()}", self.log_tail(self.log_mark))
            return header, False
        if self.internal_errors:
            return header, False
        if header is None:
            raise CollectError(f"the probe could not start under {self.python} ({how}){self._tail_hint()}",
                               self.log_tail())
        if returncode:
            raise CollectError(f"the probe process died ({how}) between variants{self._tail_hint()}",
                               self.log_tail())
        return header, True

    def _lost(self, header: Header, vid: str, status: str, error: str, detail: Optional[str] = None
              ) -> VariantResult:
        """The result of a variant that did not finish, with what it compiled before it stopped."""
        base = next(v for v in header.variants or [] if v.id == vid)
        partial = self.partial.get(vid)
        compiled = {"capture": partial.capture} if partial and "capture" not in partial.absent else {}
        result = VariantResult.of(base).but(**compiled, status=status, error=error, error_detail=detail or None)
        self.progress(result)
        return result

    def log_tail(self, start: int = 0) -> str:
        """The probe log from byte ``start`` on (its last LOG_TAIL bytes)."""
        if not self.log.exists():
            return ""
        return self.log.read_bytes()[start:][-LOG_TAIL:].decode("utf-8", "replace")

    def _tail_hint(self) -> str:
        """The log's last line, as ``: LINE`` after a message (else nothing)."""
        last = [ln for ln in self.log_tail(self.log_mark).splitlines() if ln.strip()][-1:]
        return f": {last[0].strip()[:300]}" if last else ""


def _missed(warm: RawWarm) -> bool:
    """Whether a warm pass's compile missed Inductor's FX graph cache or AOTAutograd's (it filled them), or torch kept
    no metrics to tell."""
    if warm.error:
        return False
    return warm.metrics is None or cache_missed(warm.metrics)


def _record(sample: Path, header: Header, results: list[RawVariant], runs: _ProbeRuns) -> JSON:
    unread = RawProbeMessages(read=runs.messages_read, unknown_kinds=dict(runs.unknown)) if runs.unknown else None
    return {
        "schema": SCHEMA,
        "inspector": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "sample": header.sample.but(path=str(sample), source=source_mod.text(str(sample)) or "").to_json()
        if header.sample else None,
        "env": header.env.to_json() if header.env else None,
        "config": header.given("config", []),
        "compile_options": header.compile_options or {},
        "trace_dir": str(runs.trace_dir) if runs.trace_dir else None,
        "interrupted": runs.interrupted,
        "probe_restarts": runs.restarts,
        "probe_log": runs.log_tail(),
        "internal_errors": [e.to_json() for e in runs.internal_errors],
        **({"probe_messages": unread.to_json()} if unread else {}),
        "variants": [v.to_json() for v in results],
    }
