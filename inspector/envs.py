"""Managed torch environments: ``--torch VERSION`` names a torch release, a build (``2.13.0+cpu``) or a torch wheel
file, and inspector makes an environment for it, once, and reuses it next time.

An environment is ``ROOT/torch-<version>-<python tag>/`` (ROOT: the user's cache folder, platformdirs', or
``--envs DIR``): a venv holding torch, a NumPy it supports (``numpy<2`` below torch 2.3), setuptools and the
``--with`` packages, nothing of inspector's (its probe imports only the standard library, NumPy and torch, from
inspector's own folder). Its ``inspector-env.json`` is written last: a folder without it is unfinished and made
again; a second inspector making the same one meanwhile waits for it (a lock file beside it). It is made with uv
when uv is on PATH, else with ``python -m venv`` and this interpreter's pip (``pip --python ENV``), which reads the
user's pip configuration (index, find-links, constraints) itself; uv does not read pip's, so it is passed on. pip's
dry run (``--report``) says what will be downloaded and how big before anything is, and pip's words on a failure
become one line: a version the index does not offer for this platform (with the ones it does), a constraint that
excludes it, no network. Nothing is installed into the user's own environment.
"""

from __future__ import annotations  # run as a script by any Python 3 (facts()): annotations stay unevaluated

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Optional, Union

if __name__ != "__main__":
    from inspector.errors import InspectorError
else:  # run as a script under another interpreter (facts()), where inspector is not importable: never raised there
    InspectorError = Exception  # type: ignore[misc,assignment]

MANIFEST = "inspector-env.json"
OLD_TORCH = (2, 3)  # below it: numpy<2 (built against NumPy 1) and setuptools<81 (torch 2.1 imports its
# pkg_resources, gone from setuptools 81)
SPACE_FACTOR = 3  # unpacked, an environment takes about this many times its downloads
HEARTBEAT_S = 15  # pip silent this long (unpacking): say how far the install got
NETWORK = re.compile(r"NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|"
                     r"Network is unreachable|No route to host|ConnectTimeout|Max retries exceeded|"
                     r"Could not fetch URL")


class EnvError(InspectorError):
    """An environment cannot be made or found; one line for the user."""


@dataclass(frozen=True)
class TorchSpec:
    """What ``--torch`` named: a version (resolved as pip would, the index's default build), a build, or a wheel."""

    given: str
    version: str  # "2.13.0", without the build
    local: Optional[str] = None  # the build pinned: "cpu", "cu121"; None: whatever the index serves
    wheel: Optional[Path] = None  # a local torch wheel file

    @property
    def requirement(self) -> str:
        """What pip installs: the wheel file, or ``torch==VERSION[+BUILD]``."""
        return str(self.wheel.resolve()) if self.wheel else f"torch=={self.version}" + (
            f"+{self.local}" if self.local else "")

    @property
    def numpy(self) -> str:
        """The NumPy requirement this torch supports."""
        return "numpy<2" if release(self.version) < OLD_TORCH else "numpy"

    @property
    def requirements(self) -> list[str]:
        """All the probe needs: torch, its NumPy, and setuptools (Inductor's C++ builds import it through
        torch.utils.cpp_extension; a venv made without pip has none)."""
        return [self.requirement, self.numpy, "setuptools<81" if release(self.version) < OLD_TORCH else "setuptools"]

    def folder(self, tag: str) -> str:
        """The environment's folder name under the root, for interpreters of ``tag`` (cp311)."""
        return f"torch-{self.version}" + (f"+{self.local}" if self.local else "") + f"-{tag}"

    def matches(self, installed: Optional[str]) -> bool:
        """Whether an installed torch version ("2.13.0+cpu") is this one (any build, unless one is pinned)."""
        base, _, local = (installed or "").partition("+")
        return bool(installed) and release(base) == release(self.version) and self.local in (None, local)


@dataclass(frozen=True)
class ManagedEnv:
    """One environment under the root, as its manifest describes it."""

    path: Path
    python: Path
    torch: str  # the installed version, build included
    numpy: str
    packages: list[str]  # the --with packages installed in it
    base: str  # the interpreter it was made with
    created: str
    install_s: float
    size_bytes: int


def release(version: str) -> tuple[int, ...]:
    """(2, 13) for "2.13.0" and "2.13": a version's release numbers, trailing zeros dropped."""
    numbers = [int(n) for n in re.findall(r"\d+", version.split("+")[0])[:3]]
    while numbers and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def parse(text: str) -> TorchSpec:
    """The TorchSpec of a ``--torch`` value; EnvError for one that is neither a version, a build nor a wheel."""
    if text.endswith(".whl"):
        path = Path(text).expanduser()
        name = urllib.parse.unquote(path.name).split("-")
        if not path.is_file():
            raise EnvError(f"--torch {text}: no such wheel file")
        if name[0] != "torch" or len(name) < 5:
            raise EnvError(f"--torch {text}: not a torch wheel (torch-VERSION-...-PLATFORM.whl)")
        version, _, local = name[1].partition("+")
        return TorchSpec(text, version, local or None, path)
    found = re.fullmatch(r"(\d+(?:\.\d+){1,2})(?:\+([A-Za-z0-9.]+))?", text.strip())
    if not found:
        raise EnvError(f"--torch {text}: expected a version (2.13.0), a build (2.13.0+cpu) or a torch wheel file")
    return TorchSpec(text, found[1], found[2])


def root(envs: Union[str, Path, None] = None) -> Path:
    """The folder of the environments: ``envs``, else ``envs`` in the user's cache folder."""
    return Path(envs).expanduser() if envs else cache("envs")


def cache(name: str) -> Path:
    """The folder ``name`` in the user's cache folder (inspector's: platformdirs')."""
    import platformdirs
    return Path(platformdirs.user_cache_dir("inspector")) / name


def facts(python: Optional[str] = None) -> dict[str, Any]:
    """{"tag", "python", "platform", "torch", "numpy"} of an interpreter (this one by default), without importing
    torch (this file run as a script under it); EnvError when it cannot be run."""
    if python is None:
        return _here()
    try:
        done = subprocess.run([python, "-I", __file__], capture_output=True, text=True, timeout=60)
        found: dict[str, Any] = json.loads(done.stdout)
        return found
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"cannot run {python}: {e}") from None
    except ValueError:
        raise EnvError(f"cannot run {python}: {(done.stderr.strip().splitlines() or ['no output'])[-1]}") from None


def _here() -> dict[str, Any]:
    return {"tag": "cp%d%d" % sys.version_info[:2], "python": "%d.%d.%d" % sys.version_info[:3],
            "platform": sysconfig.get_platform(), "torch": _version("torch"), "numpy": _version("numpy")}


def _has(requirement: str) -> bool:
    """Whether this interpreter has the distribution ``requirement`` names."""
    return _version(re.split(r"[<>=!~\[; ]", requirement)[0]) is not None


def _version(distribution: str) -> Optional[str]:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def interpreter(spec: TorchSpec, envs: Union[str, Path, None] = None, base: Optional[str] = None,
                packages: Iterable[str] = (), say: Callable[[str], object] = print) -> str:
    """The interpreter to run ``spec``'s torch under: this one when it has that torch (and every ``packages``) and no
    ``base`` is named, else its managed environment's, made (with ``base``, default this interpreter) or completed
    first; ``say`` gets one line per step. EnvError when it cannot be."""
    here = facts()
    if base is None and not spec.wheel and spec.matches(here["torch"]) and all(map(_has, packages)):
        say(f"torch {spec.given}: this interpreter's torch {here['torch']}, used as it is")
        return sys.executable
    made = facts(base) if base else here
    folder = root(envs) / spec.folder(made["tag"])
    with _lock(folder.with_name(folder.name + ".lock"), lambda: say(f"torch {spec.given}: waiting for another "
                                                                    f"inspector making {folder}")):
        env = load(folder)
        if env is None:
            env = _make(spec, folder, base or sys.executable, made, list(packages), say)
        missing = [p for p in packages if p not in env.packages]
        if missing:
            say(f"torch {spec.given}: installing {', '.join(missing)} into {folder}")
            _pip_install(env.python, missing, spec, folder, say)
            env = _write_manifest(folder, dict(_manifest(folder) or {}, packages=env.packages + missing))
    say(f"torch {spec.given}: {env.torch} in {folder}")
    return str(env.python)


@contextlib.contextmanager
def _lock(path: Path, waiting: Callable[[], object]) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` while an environment is made or completed (another inspector making the
    same one waits: ``waiting()`` is called first); no lock where fcntl is missing (Windows)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


def python_in(folder: Path) -> Path:
    """A venv's interpreter."""
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def load(folder: Path) -> Optional[ManagedEnv]:
    """The ManagedEnv in ``folder``, or None where there is none or it is unfinished (no manifest, no interpreter)."""
    raw = _manifest(folder)
    if not raw or not python_in(folder).exists():
        return None
    return ManagedEnv(folder, python_in(folder), raw["torch"], raw["numpy"], raw.get("packages") or [], raw["base"],
                      raw["created"], raw["install_s"], raw.get("size_bytes") or 0)


def _manifest(folder: Path) -> Optional[dict[str, Any]]:
    try:
        manifest: dict[str, Any] = json.loads((folder / MANIFEST).read_text())
        return manifest
    except (OSError, ValueError):
        return None


def _write_manifest(folder: Path, raw: dict[str, Any]) -> ManagedEnv:
    raw = dict(raw, size_bytes=size(folder))
    (folder / MANIFEST).write_text(json.dumps(raw, indent=1))
    env = load(folder)
    if env is None:
        raise EnvError(f"{folder} has no interpreter: not an environment")
    return env


def size(folder: Path) -> int:
    """Bytes of the files under ``folder`` (links not followed)."""
    total = 0
    for parent, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                pass
    return total


def environments(envs: Union[str, Path, None] = None) -> list[ManagedEnv]:
    """[ManagedEnv] under the root, by folder name; unfinished folders left out."""
    top = root(envs)
    found = [load(f) for f in sorted(top.iterdir())] if top.is_dir() else []
    return [e for e in found if e]


def remove(version: str, envs: Union[str, Path, None] = None) -> list[Path]:
    """Delete the environments of ``version`` (any Python; a build only where one is pinned): [their folders]; EnvError
    where none is."""
    spec = parse(version)
    gone = [e.path for e in environments(envs) if spec.matches(e.torch)]
    if not gone:
        have = ", ".join(e.path.name for e in environments(envs)) or "none"
        raise EnvError(f"no environment of torch {version} in {root(envs)} (there: {have})")
    for path in gone:
        shutil.rmtree(path)
    return gone


def _make(spec: TorchSpec, folder: Path, base: str, made: dict[str, Any], packages: list[str],
          say: Callable[[str], object]) -> ManagedEnv:
    """Make the environment of ``spec`` in ``folder`` with the interpreter ``base`` (whose ``made`` facts it has)."""
    requirements = [*spec.requirements, *packages]
    top = folder.parent
    top.mkdir(parents=True, exist_ok=True)
    downloads = _plan(requirements, spec, base, made, folder)
    free = shutil.disk_usage(top).free
    need = sum(s for _, s in downloads if s)
    unknown = sum(1 for _, s in downloads if s is None)
    say(f"torch {spec.given}: making an environment in {folder} for Python {made['python']}: {len(downloads)} "
        f"packages, {human_size(need)} to fetch" + (f" ({unknown} of unknown size)" if unknown else "")
        + f", {human_size(free)} free there")
    if need * SPACE_FACTOR > free:
        raise EnvError(f"not enough disk space for torch {spec.given}: about {human_size(need * SPACE_FACTOR)} needed "
                       f"unpacked, {human_size(free)} free in {top} (--envs DIR puts the environments elsewhere)")
    shutil.rmtree(folder, ignore_errors=True)  # an unfinished one
    start = time.perf_counter()
    uv = shutil.which("uv")
    venv = [uv, "venv", "--quiet", "--python", base, str(folder)] if uv else [
        base, "-m", "venv", *(["--without-pip"] if _has_pip() else []), str(folder)]
    done = subprocess.run(venv, capture_output=True, text=True)
    if done.returncode:
        raise EnvError(f"cannot make a venv in {folder}: {(done.stderr or done.stdout).strip()[-400:]}")
    _pip_install(python_in(folder), requirements, spec, folder, say)
    found = facts(str(python_in(folder)))
    env = _write_manifest(folder, {"torch": found["torch"], "numpy": found["numpy"], "packages": packages,
                                   "requested": spec.given, "base": base, "python": made["python"],
                                   "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                                   "install_s": round(time.perf_counter() - start, 1),
                                   "installer": "uv" if uv else "pip"})
    say(f"torch {spec.given}: installed torch {env.torch} and NumPy {env.numpy} in {env.install_s:.0f} s "
        f"({human_size(env.size_bytes)})")
    return env


def _has_pip() -> bool:
    """Whether this interpreter has pip, asked of its installed distributions: ``find_spec("pip")`` would make
    setuptools' distutils shim stand down for the rest of the process (its finder's ``spec_for_pip``), and Inductor's
    C++ builds in this process would then fail to import setuptools."""
    try:
        metadata.distribution("pip")
    except metadata.PackageNotFoundError:
        return False
    return True


def _pip(python: Union[str, Path]) -> list[str]:
    """The command that runs pip on the environment of ``python``: this interpreter's pip (``--python``), which
    reads the user's pip configuration as ``pip install`` would, else that environment's own."""
    return [sys.executable, "-m", "pip", "--python", str(python)] if _has_pip() else [str(python), "-m", "pip"]


def _plan(requirements: list[str], spec: TorchSpec, base: str, made: dict[str, Any],
          folder: Path) -> list[tuple[str, Optional[int]]]:
    """[(package file, bytes or None)] pip would download for ``requirements`` into a fresh environment of ``base``
    (its dry run); EnvError in pip's words when it cannot resolve them (a constraint in the way: whether the index
    offers the version at all, from a second dry run without the constraints)."""
    if not _has_pip():
        return []
    ok, output, report = _dry_run(requirements, base)
    if not ok:
        lifted = None
        if "(constraint)" in output:
            lifted_ok, lifted_output, _ = _dry_run(requirements, base, dict(os.environ, PIP_CONSTRAINT=os.devnull))
            lifted = "" if lifted_ok else lifted_output
        raise EnvError(pip_error(output, spec, made, folder.parent, lifted))
    return [(url.rsplit("/", 1)[-1], _download_size(url))
            for url in (item["download_info"]["url"] for item in report.get("install", []))]


def _dry_run(requirements: list[str], base: str,
             env: Optional[dict[str, str]] = None) -> tuple[bool, str, dict[str, Any]]:
    """(resolved, pip's output, its install report) of pip's dry run for a fresh environment of ``base``."""
    with tempfile.TemporaryDirectory(prefix="inspector-") as work:
        report = Path(work) / "report.json"
        done = subprocess.run([*_pip(base), "install", "--dry-run", "--ignore-installed", "--report", str(report),
                               *requirements], capture_output=True, text=True, env=env)
        try:
            found = json.loads(report.read_text()) if not done.returncode else {}
        except (OSError, ValueError):
            found = {}
    return not done.returncode, done.stdout + done.stderr, found


def _download_size(url: str) -> Optional[int]:
    """Bytes of a package file: a local one's size, a remote one's Content-Length (None where unknown)."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "file":
        path = Path(urllib.request.url2pathname(parsed.path))
        return path.stat().st_size if path.is_file() else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10) as response:
            return int(response.headers["Content-Length"])
    except (OSError, ValueError, TypeError):
        return None


def _pip_install(python: Path, requirements: list[str], spec: TorchSpec, folder: Path,
                 say: Callable[[str], object]) -> None:
    """Install ``requirements`` into the environment of ``python``, with uv when it is on PATH (the user's pip
    configuration passed on), else pip, without compiling bytecode (as uv: Python compiles what it imports, when it
    does; this halves torch's install); their progress lines through ``say``, and every HEARTBEAT_S seconds pip is
    silent (unpacking several GB) how much the environment holds; EnvError in pip's words on failure."""
    uv = shutil.which("uv")
    command = ([uv, "pip", "install", "--python", str(python), *uv_options(pip_config())] if uv
               else [*_pip(python), "install", "--progress-bar", "off", "--no-compile"]) + list(requirements)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, start, heard = [], time.perf_counter(), [time.perf_counter()]

    def elapsed() -> str:
        return f"  [{time.perf_counter() - start:5.0f} s]"

    def heartbeat() -> None:
        while process.poll() is None:
            time.sleep(1)
            if time.perf_counter() - heard[0] >= HEARTBEAT_S and process.poll() is None:
                heard[0] = time.perf_counter()
                say(f"{elapsed()} installing: {human_size(size(folder))} in {folder} so far")
    threading.Thread(target=heartbeat, daemon=True).start()
    assert process.stdout is not None  # a pipe
    for line in process.stdout:
        lines.append(line)
        if line.startswith(("Collecting", "Downloading", "  Downloading", "Installing", "Successfully", "Prepared",
                            "Installed", "Resolved")):
            heard[0] = time.perf_counter()
            say(f"{elapsed()} {line.strip()}")
    if process.wait():
        made = facts(str(python))
        raise EnvError(pip_error("".join(lines), spec, made, folder.parent))


def pip_error(output: str, spec: TorchSpec, made: dict[str, Any], top: Path, lifted: Optional[str] = None) -> str:
    """pip's failure to install ``spec`` for an interpreter of ``made`` (facts) in one line: a version not offered for
    this Python and platform (with the ones offered), a constraint of the user's pip configuration that excludes it,
    no network, else pip's last words. ``lifted``: pip's output without the constraints ("" where it then
    resolved), where a constraint was in the way."""
    constraints = re.findall(r"The user requested \(constraint\) ([^\s]+)", output)
    if constraints:
        where = f"your pip configuration's constraints ({', '.join(constraints)}; `pip config list` shows where)"
        if lifted:
            return f"{pip_error(lifted, spec, made, top)}; {where} narrow them further"
        return f"torch {spec.given} is excluded by {where}" + (": the index offers it" if lifted == "" else "")
    versions = re.search(r"requirement (\S+) \(from versions: ([^)]*)\)", output)
    offered = [v.strip() for v in versions[2].split(",")] if versions and versions[2].strip() != "none" else []
    if NETWORK.search(output) and not offered:
        have = ", ".join(e.path.name for e in environments(top)) or "none yet"
        return (f"no network: pip could not reach the package index to install torch {spec.given}; the "
                f"environments already made, usable offline, are in {top} ({have})")
    if versions and versions[1].startswith("torch"):
        return (f"torch {spec.given} cannot be installed for Python {made['python'].rsplit('.', 1)[0]} on "
                f"{made['platform']}: the package index offers "
                + (f"these versions here: {', '.join(offered)}" if offered else "no torch for it at all")
                + " (an older torch may need an older Python: --python PATH makes the environment with another)")
    last = [ln.strip() for ln in output.splitlines() if ln.strip() and "is ignored" not in ln][-3:]
    return f"pip could not make the environment of torch {spec.given}: {' '.join(last) or 'no message'}"


def pip_config() -> dict[str, str]:
    """pip's configuration as ``pip config list`` shows it, {key: value}, the value in force where set twice
    (environment over site, user and global files); {} where pip cannot say."""
    if not _has_pip():
        return {}
    done = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True)
    rank = {":env:": 3, "site": 2, "user": 1, "global": 0}
    found = []
    for line in done.stdout.splitlines():
        m = re.fullmatch(r"([^.]*)\.([\w-]+)='(.*)'", line.strip())
        if m:
            found.append((rank.get(m[1], 0), m[2], m[3]))
    return {key: value for _, key, value in sorted(found, key=lambda f: f[0])}


def uv_options(config: dict[str, str]) -> list[str]:
    """uv's options for what pip's ``config`` sets: its index, extra indexes, find-links, constraints, no-index."""
    out = []
    for key, option in (("index-url", "--index-url"), ("extra-index-url", "--extra-index-url"),
                        ("find-links", "--find-links"), ("constraint", "--constraint")):
        for value in (config.get(key) or "").split():
            out += [option, value]
    if (config.get("no-index") or "").lower() in ("1", "true", "yes", "on"):
        out.append("--no-index")
    return out


def missing_module(message: Optional[str]) -> Optional[str]:
    """The module a failed import names ("No module named 'pymoo'" → "pymoo"), or None."""
    found = re.search(r"No module named '([\w.]+)'", message or "")
    return found[1].split(".")[0] if found else None


def human_size(n: float) -> str:
    """Bytes in words: "1.9 GB", "940 MB"."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def describe(env: ManagedEnv) -> str:
    """One line of ``inspector envs``."""
    return (f"{env.path.name:<28} torch {env.torch:<14} NumPy {env.numpy:<8} {human_size(env.size_bytes):>8}"
            + (f"  with {', '.join(env.packages)}" if env.packages else "") + f"  made {env.created[:10]} "
            f"in {env.install_s:.0f} s")


if __name__ == "__main__":  # facts(python): run under another interpreter, standard library only
    print(json.dumps(_here()))
