"""Run the probe in child processes and assemble the raw record.

The probe streams JSON lines; this side enforces the per-variant timeout, survives a dying probe
(restarting it for the variants left), keeps everything already measured, and cross-checks every
variant's output against the reference.
"""

import fnmatch
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

import numpy as np

from inspector import __version__
from inspector.record import SCHEMA

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
LOG_TAIL = 20_000


class CollectError(Exception):
    """The sample could not be run at all; the message is one line for the user, ``log`` the probe's output."""

    def __init__(self, message, log=""):
        super().__init__(message)
        self.log = log


def collect(sample, *, population=None, python=None, only=None, config=(), timeout=300.0,
            trace_dir=None, budget=1.0, seed=0, sizes=(), kernel_times=True, triton_preview=False,
            progress=lambda kind, data: None):
    """Run the variants of ``sample`` (a path; ``only``: ids or glob patterns) and return the raw record.

    ``sizes``: further population sizes each compiled variant is called at, to expose recompilations;
    ``kernel_times``: also time each kernel of the compiled variants (a separate profiled pass);
    ``triton_preview``: add the ``*-triton-preview`` variants (Triton code for a CPU target, never run).
    """
    sample = Path(sample)
    options = ["--seed", str(seed), "--budget", str(budget)]
    options += ["--population", str(population)] if population else []
    options += ["--sizes", ",".join(map(str, sizes))] if sizes else []
    options += [] if kernel_times else ["--no-kernel-times"]
    options += ["--triton-preview"] if triton_preview else []
    for item in config:
        options += ["--config", item]
    with tempfile.TemporaryDirectory(prefix="inspector-") as work:
        run = _ProbeRuns(sample, Path(work), python or sys.executable, options, trace_dir, timeout, progress)
        header, results = run.all(only)
        record = _record(sample, header, results, run)
        _cross_check(record, Path(work))
    return record


class _ProbeRuns:
    def __init__(self, sample, work, python, options, trace_dir, timeout, progress):
        self.sample, self.work, self.python, self.options = sample, work, python, options
        self.trace_dir, self.timeout, self.progress = trace_dir, timeout, progress
        self.log = work / "probe.log"
        self.log_mark = 0  # where the current probe's (or variant's) part of the log starts
        self.interrupted = False
        self.restarts = 0

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
            if done or not left or self.interrupted:
                for i in left:
                    results[i] = self._lost(header, i, "skipped", "interrupted before it ran")
                return header, [results[i] for i in selected if i in results]
            wanted = left
            self.restarts += 1

    def _command(self, wanted, results_file):
        cmd = [self.python, "-m", "inspector.probe", str(self.sample), "--results", str(results_file),
               "--outputs", str(self.work), *self.options]
        return cmd + (["--only", ",".join(wanted)] if wanted else [])

    def _one(self, wanted, results):
        """Run one probe process; return (header or None, finished-normally)."""
        results_file = self.work / f"results-{self.restarts}.jsonl"
        results_file.touch()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(PACKAGE_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        if self.trace_dir:
            env["TORCH_TRACE"] = str(self.trace_dir)
        header, current, started = None, None, None
        with open(self.log, "ab") as log, open(results_file, encoding="utf-8") as stream:
            self.log_mark = self.log.stat().st_size
            try:
                proc = subprocess.Popen(self._command(wanted, results_file), stdout=log, stderr=log,
                                        stdin=subprocess.DEVNULL, env=env, start_new_session=True)
            except OSError as e:
                raise CollectError(f"cannot start {self.python}: {e.strerror}") from None
            try:
                pending = ""
                while True:
                    pending += stream.readline()
                    if pending.endswith("\n"):
                        msg, pending = json.loads(pending), ""
                        kind = msg.pop("type")
                        if kind == "fatal":
                            proc.wait()
                            raise CollectError(msg["error"], self.log_tail())
                        if kind == "header":
                            header = msg
                        elif kind == "start":
                            current, started = msg["id"], time.monotonic()
                            self.log_mark = self.log.stat().st_size
                        elif kind == "variant":
                            results[msg["id"]] = msg
                            current = None
                        self.progress(kind, msg)
                        continue
                    if proc.poll() is not None:
                        rest = stream.readline()
                        if not rest:
                            break
                        pending += rest
                        continue
                    if current and time.monotonic() - started > self.timeout:
                        _kill(proc)
                        results[current] = self._lost(header, current, "timeout",
                                                      f"timed out after {self.timeout:g} s (see --timeout)")
                        return header, False
                    time.sleep(0.05)
            except KeyboardInterrupt:
                _kill(proc)
                self.interrupted = True
                if current:
                    results[current] = self._lost(header, current, "skipped", "interrupted (Ctrl-C)")
                return header, False
        how = _how(proc.returncode)
        if current:
            results[current] = self._lost(header, current, "error", f"the probe process died ({how}) "
                                          f"while running it{self._tail_hint()}", self.log_tail(self.log_mark))
            return header, False
        if header is None:
            raise CollectError(f"the probe could not start under {self.python} ({how}){self._tail_hint()}",
                               self.log_tail())
        if proc.returncode:
            raise CollectError(f"the probe process died ({how}) between variants{self._tail_hint()}",
                               self.log_tail())
        return header, True

    def _lost(self, header, vid, status, error, detail=None):
        base = next(v for v in header["variants"] if v["id"] == vid)
        result = dict(base, status=status, error=error, error_detail=detail or None)
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


def _how(code):
    return f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _record(sample, header, results, run):
    return {
        "schema": SCHEMA,
        "inspector": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "sample": dict(header["sample"], path=str(sample), source=_source(sample)),
        "env": header["env"],
        "config": header.get("config", []),
        "trace_dir": str(run.trace_dir) if run.trace_dir else None,
        "interrupted": run.interrupted,
        "probe_restarts": run.restarts,
        "probe_log": run.log_tail(),
        "variants": results,
    }


def _source(path):
    """The sample's text decoded as Python did (its "coding:" line, else UTF-8); bytes Python let pass in
    comments are replaced."""
    with open(path, "rb") as f:
        encoding = tokenize.detect_encoding(f.readline)[0]
    return path.read_bytes().decode(encoding, "replace")


def _cross_check(record, work):
    """Compare each variant's output with the reference: the first of python, numpy, torch that ran."""
    outputs = {}
    for v in record["variants"]:
        path = work / f"{v['id']}.npy"
        if v["status"] == "ok" and path.exists():
            outputs[v["id"]] = np.load(path)
    n = record["sample"]["population"]
    reference = next((v for kind in ("python", "numpy", "torch") for v in record["variants"]
                      if v["kind"] == kind and not v["compiled"] and v["id"] in outputs), None)
    record["reference"] = reference["id"] if reference else None
    for v in record["variants"]:
        if v["id"] not in outputs:
            v["matches_reference"] = None
            continue
        got = outputs[v["id"]]
        expected_len = v.get("measured_population") or n
        if got.shape != (expected_len,):
            v["matches_reference"] = False
            v["mismatch"] = f"returned shape {tuple(got.shape)}, expected ({expected_len},): one value per individual"
            continue
        if reference is None or v["id"] == reference["id"]:
            v["matches_reference"] = True if reference else None
            continue
        ref = outputs[reference["id"]]
        m = min(len(ref), len(got))
        v["matches_reference"], v["mismatch"] = _compare(ref[:m], got[:m])


def _compare(expected, got):
    expected = expected.astype(np.float64)
    got = got.astype(np.float64)
    finite = np.abs(expected[np.isfinite(expected)])
    atol = 1e-9 * (finite.max() if finite.size else 1.0)
    close = np.isclose(got, expected, rtol=1e-5, atol=atol, equal_nan=True)
    if close.all():
        return True, None
    bad = np.flatnonzero(~close)
    first = "; ".join(f"#{i}: expected {float(expected[i])!r}, got {float(got[i])!r}" for i in bad[:3])
    return False, f"{len(bad)} of {len(got)} individuals differ (first: {first})"
