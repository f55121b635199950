"""Run the probe in child processes and assemble the raw record.

The probe streams JSON lines (see ``inspector.probe``); this side enforces the per-variant timeout, survives a
dying probe (restarting it for the variants left), keeps everything already measured (a variant that times out
keeps the graphs and breaks it streamed after its first call), and cross-checks every variant's output.
"""

import fnmatch
import os
import sys
import tempfile
import time
import tokenize
from pathlib import Path

from inspector import __version__
from inspector.analysis import files
from inspector.collect.crosscheck import cross_check
from inspector.collect.process import Clock, ProbeProcess, ProbeStartError, ProtocolError, how_it_ended
from inspector.record import SCHEMA

PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent
LOG_TAIL = 20_000
# what a sweep size keeps of a variant: its timing and what the timing's meaning needs
SWEEP_KEYS = ("id", "function", "kind", "compiled", "device", "preview", "status", "error", "timing",
              "measured_population", "family")


class CollectError(Exception):
    """The sample could not be run at all; the message is one line for the user, ``log`` the probe's output."""

    def __init__(self, message, log=""):
        super().__init__(message)
        self.log = log


def collect(sample, *, population=None, python=None, only=None, config=(), compile_options=(), timeout=300.0,
            trace_dir=None, budget=1.0, seed=0, sizes=(), kernel_times=True, triton_preview=False, rtol=None,
            progress=lambda kind, data: None):
    """Run the variants of ``sample`` (a path; ``only``: ids or glob patterns) and return the raw record.

    ``sizes``: further population sizes each compiled variant is called at, to expose recompilations;
    ``kernel_times``: also time each kernel of the compiled variants (a separate profiled pass);
    ``triton_preview``: add the ``*-triton-preview`` variants (Triton code for a CPU target, never run);
    ``compile_options``: torch.compile's keywords as KEY=VALUE; ``rtol``: the cross-check's relative tolerance
    (default: the sample's TOLERANCE, else 1e-5).
    ``progress(kind, message)`` sees each message as it arrives.
    """
    sample = Path(sample)
    options = ["--seed", str(seed), "--budget", str(budget)]
    options += ["--population", str(population)] if population else []
    options += ["--sizes", ",".join(map(str, sizes))] if sizes else []
    options += [] if kernel_times else ["--no-kernel-times"]
    options += ["--triton-preview"] if triton_preview else []
    for item in config:
        options += ["--config", item]
    for item in compile_options:
        options += ["--compile-option", item]
    with tempfile.TemporaryDirectory(prefix="inspector-") as work:
        runs = _ProbeRuns(sample, Path(work), python or sys.executable, options, trace_dir, timeout, progress)
        header, results = runs.all(only)
        record = _record(sample, header, results, runs)
        cross_check(record, Path(work), rtol)
    record["files"] = files.read(record)
    return record


def sweep_point(record):
    """One size of a population sweep: each variant's timing, and the compile metrics its meaning needs."""
    def point(v):
        graphs = [{"metrics": {"entire_frame_compile_time_s": (g.get("metrics") or {}).get("entire_frame_compile_time_s")}}
                  for g in (v.get("capture") or {}).get("graphs") or []]
        return dict({k: v.get(k) for k in SWEEP_KEYS}, capture={"graphs": graphs})
    return {"population": record["sample"]["population"], "variants": [point(v) for v in record["variants"]]}


class _ProbeRuns:
    """The probe processes of one collect: one, plus one per restart after a variant killed or hung it."""

    def __init__(self, sample, work, python, options, trace_dir, timeout, progress):
        self.sample, self.work, self.python, self.options = sample, work, python, options
        self.trace_dir, self.progress = trace_dir, progress
        self.clock = Clock(timeout)
        self.log = work / "probe.log"
        self.log_mark = 0  # where the current probe's (or variant's) part of the log starts
        self.interrupted = False
        self.restarts = 0
        self.internal_errors = []
        self.partial = {}  # variant id -> what it streamed before its result (its first compiled call)

    def all(self, only):
        header, results, wanted = None, {}, only
        while True:
            new_header, done = self._one(wanted, results)
            header = header or new_header
            if header is None:  # interrupted before the probe said anything
                raise KeyboardInterrupt
            ids = [v["id"] for v in header["variants"]]
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

    def _command(self, wanted, results_file):
        cmd = [self.python, "-m", "inspector.probe", str(self.sample), "--results", str(results_file),
               "--outputs", str(self.work), *self.options]
        return cmd + (["--only", ",".join(wanted)] if wanted else [])

    def _env(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(PACKAGE_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        if self.trace_dir:
            env["TORCH_TRACE"] = str(self.trace_dir)
        return env

    def _one(self, wanted, results):
        """Run one probe process; return (header or None, finished normally)."""
        results_file = self.work / f"results-{self.restarts}.jsonl"
        results_file.touch()
        self.log.touch()
        self.log_mark = self.log.stat().st_size
        state = {"header": None, "current": None}
        try:
            with ProbeProcess(self._command(wanted, results_file), self._env(), self.log, results_file) as probe:
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

    def _handle(self, message, state, results):
        kind = message.pop("type")
        if kind == "fatal":
            raise CollectError(message["error"], self.log_tail())
        if kind == "internal":
            self.internal_errors.append({"where": message.get("where", "probe"), "error": message["error"],
                                         "detail": message.get("detail")})
        elif kind == "header":
            state["header"] = message
        elif kind == "start":
            state["current"] = message["id"]
            self.clock.start()
            self.log_mark = self.log.stat().st_size
        elif kind == "compiled":
            self.partial[message["id"]] = {k: v for k, v in message.items() if k != "id"}
        elif kind == "variant":
            results[message["id"]] = message
            state["current"] = None
            self.clock.stop()
        self.progress(kind, message)

    def _ended(self, returncode, state, results):
        """(header, finished normally) from how a probe that was read to its end exited."""
        how, current, header = how_it_ended(returncode), state["current"], state["header"]
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

    def _lost(self, header, vid, status, error, detail=None):
        """The result of a variant that did not finish, with what it streamed before it stopped."""
        base = next(v for v in header["variants"] if v["id"] == vid)
        result = dict(base, **self.partial.get(vid, {}), status=status, error=error, error_detail=detail or None)
        self.progress("variant", result)
        return result

    def log_tail(self, start=0):
        """The probe log from byte ``start`` on (its last LOG_TAIL bytes)."""
        if not self.log.exists():
            return ""
        return self.log.read_bytes()[start:][-LOG_TAIL:].decode("utf-8", "replace")

    def _tail_hint(self):
        last = [ln for ln in self.log_tail(self.log_mark).splitlines() if ln.strip()][-1:]
        return f": {last[0].strip()[:300]}" if last else ""


def _record(sample, header, results, runs):
    return {
        "schema": SCHEMA,
        "inspector": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "sample": dict(header["sample"], path=str(sample), source=_source(sample)),
        "env": header["env"],
        "config": header.get("config", []),
        "compile_options": header.get("compile_options") or {},
        "trace_dir": str(runs.trace_dir) if runs.trace_dir else None,
        "interrupted": runs.interrupted,
        "probe_restarts": runs.restarts,
        "probe_log": runs.log_tail(),
        "internal_errors": runs.internal_errors,
        "variants": results,
    }


def _source(path):
    """The sample's text decoded as Python did (its "coding:" line, else UTF-8); bytes Python let pass in
    comments are replaced."""
    with open(path, "rb") as f:
        encoding = tokenize.detect_encoding(f.readline)[0]
    return path.read_bytes().decode(encoding, "replace")
