"""Shared by both layers: where the checked-in probe output lives, and how to run the CLI as a user does.

tests/fast/ drives analysis and rendering from checked-in probe output (no torch); tests/e2e/ really compiles.
"""

import fcntl
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
RECORDS = FIXTURES / "records"
GOLDEN = ROOT / "tests" / "golden"
VERSIONS = ("2.1.2", "2.13.0")  # the torch versions whose output is checked in (scripts/make-fixtures.py)


# the order in which the two workers (pytest-xdist, --dist loadfile, --no-loadscope-reorder: pyproject.toml) take
# the modules: the real compiles first, the modules that take longest (measured: --durations) leading, so that the
# fast layer's many short modules fill the end and both workers finish together
LONGEST_FIRST = ("test_report.py", "test_run.py", "test_hotspots.py", "test_errors.py", "test_warm.py",
                 "test_program_runtime.py", "test_breaks.py", "test_compare.py", "test_envs.py", "test_browser.py",
                 "test_api.py", "test_programs.py", "test_replay.py", "test_report_rewrites.py", "test_triton.py")

# Inductor checks in each process that compiles that the C++ compiler builds and loads code for each vector ISA the
# CPU has (a compile, or a Python child that loads it, each; some 40 of the suite's processes compile). The base check
# passes on the machines the suite runs on: torch's own switch skips it for every process the tests start (the
# AVX-512 bf16 and VNNI checks still run).
os.environ.setdefault("TORCHINDUCTOR_VEC_ISA_OK", "1")

# Where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE), every process the suite starts (each CLI,
# probe and program) would compile inspector's modules again, and each worker pytest's rewritten test modules: the
# suite writes them, as Python does by default (into __pycache__, ignored by git). Measured on 2 cores, fresh
# checkout: the whole suite took 315 and 324 s of wall time (599 and 617 CPU-s) against 331 and 352 s (627, 667).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


def pytest_configure(config):
    """inspector's cache folder (XDG_CACHE_HOME: torch's caches with what capture kept of each graph, numba's, the
    memory bandwidth measured once) is the checkout's, in pytest's cache (``pytest --cache-clear`` empties it), and so
    are torch's own caches where a test's run leaves them as the user has them (TORCHINDUCTOR_CACHE_DIR,
    TRITON_CACHE_DIR: `report --no-warm`, `compare`): the suite neither reads what runs elsewhere left in the user's
    caches nor fills them (inspector's held 144 MB of them), and a fresh clone's run compiles what it runs first, as on
    a clean machine. Set before the test modules are imported, as some copy the environment then."""
    cache = getattr(config, "cache", None)
    if cache is not None:
        folder = str(cache.mkdir("inspector-cache"))
    else:  # -p no:cacheprovider: a folder of this process's, removed at its end
        folder = tempfile.mkdtemp(prefix="inspector-tests-")
        config.add_cleanup(functools.partial(shutil.rmtree, folder, ignore_errors=True))
    os.environ["XDG_CACHE_HOME"] = folder
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(folder, "torchinductor")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(folder, "triton")


def pytest_collection_modifyitems(items):
    def order(item):
        e2e = item.path.parent.name == "e2e"
        lead = LONGEST_FIRST.index(item.path.name) if e2e and item.path.name in LONGEST_FIRST else len(LONGEST_FIRST)
        return not e2e, lead
    items.sort(key=order)  # stable: a module's tests keep their order


def run_cli(*args, cwd=ROOT, timeout=600, **kwargs):
    """Run ``python -m inspector ARGS`` as a user would; return the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, **kwargs)


def interruptible():
    """For a process the test interrupts as Ctrl-C does: SIGINT as a terminal's foreground process gets it (a suite
    started in the background, as ``cmd &`` does, passes SIGINT ignored to every process it starts)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def record_path(version, stem):
    return RECORDS / f"torch-{version}" / f"{stem}.json"


@functools.lru_cache(maxsize=None)
def _analysis(version, stem):
    from inspector.analysis import analyze
    from inspector.record import load
    return analyze(load(record_path(version, stem)))


def analysis(version, stem):
    """The Analysis of a checked-in record (analysed once per session; values are frozen)."""
    return _analysis(version, stem)


def valid_json(text):
    """The JSON output ``text``, read, once it validates against the schema the package ships (`inspector schema`)."""
    from jsonschema import Draft202012Validator
    from inspector.render import schema
    data = json.loads(text)
    Draft202012Validator(json.loads(schema.path().read_text(encoding="utf-8"))).validate(data)
    return data


def line_of(analysis, text):
    """The first line of the sample that contains ``text``."""
    return next(i for i, s in enumerate(analysis.sample.source.splitlines(), 1) if text in s)


def statuses(analysis, vid):
    """{stripped source line: set of statuses} of the sample's lines, for one compiled variant."""
    source = analysis.sample.source.splitlines()
    found = {}
    for e in analysis.variant(vid).code.lines:
        if e.file != analysis.sample.path:
            continue
        found.setdefault(source[e.line - 1].strip(), set()).add(e.status)
    return found


HOSTILE = "tests/bad_samples/hostile.py"
HOSTILE_TITLE = "<script>window.__pwned=1</script> \"quoted\" & 'single' <b>bold</b>"
HOSTILE_ERROR = "ValueError: <img src=x onerror=window.__pwned=2> \"q\" 'q' caf\udce9"


@pytest.fixture(scope="session")
def hostile_report(tmp_path_factory, worker_id):
    """(CompletedProcess, out folder) of `inspector report` on a sample whose title, description, source and error
    message are hostile HTML (and hold undecodable bytes); shared by the escaping and browser tests, which run on
    either worker: made once per session, by whichever asks first (pytest-xdist's way, the other waiting on a lock
    in the folder the workers share), its output kept beside it. Tests read the folder, never write there."""
    def make(out):
        return run_cli("report", HOSTILE, "-n", 200, "--budget", 0.02, "-v", "numpy", "-v", "numpy_hostile",
                       "--no-rewrites", "-o", out)
    if worker_id == "master":  # no workers: this process's own folder
        out = tmp_path_factory.mktemp("hostile")
        return make(out), out
    shared = tmp_path_factory.getbasetemp().parent  # this session's, above each worker's own
    out, kept = shared / "hostile", shared / "hostile.proc.json"
    with open(shared / "hostile.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not kept.exists():
            proc = make(out)
            kept.write_text(json.dumps([proc.args, proc.returncode, proc.stdout, proc.stderr]))
    return subprocess.CompletedProcess(*json.loads(kept.read_text())), out


def python_with_site(folder, sitecustomize):
    """An interpreter (a shell script in ``folder``) that runs this Python with ``sitecustomize`` on its path:
    given to `--python`, it changes the probe's world the way another installation would, with no mock."""
    (folder / "sitecustomize.py").write_text(sitecustomize)
    python = folder / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{folder}${{PYTHONPATH:+:$PYTHONPATH}}" exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return python


def tlparse(log, folder):
    """Run tlparse (from PyPI, in the test extra) on ``log`` as the README says: it must read the log's records."""
    exe = shutil.which("tlparse") or pytest.skip("tlparse is not installed: pip install -e '.[test]'")
    proc = subprocess.run([exe, str(log), "-o", str(folder), "--no-browser"], capture_output=True, text=True)
    assert proc.returncode == 0 and (folder / "index.html").exists(), proc.stderr
    assert re.search(r"Stats \{ ok: [1-9]\d*\b", proc.stdout + proc.stderr)


PACKAGE = ROOT / "inspector"  # inspector's own files: no frame of them may reach a program's output


def package_frames(text):
    """The traceback frames (``File "PATH", line N``) in ``text`` whose file is one of inspector's package."""
    paths = re.findall(r'File "([^"]+)", line \d+', text)
    return [p for p in paths if Path(p).resolve().is_relative_to(PACKAGE.resolve())]
