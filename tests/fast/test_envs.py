"""Managed torch environments (inspector/envs.py) without installing anything: what a --torch value names, the
NumPy it needs, where its environment lives, how one is found, listed and removed, pip's failures in one line, and
the CLI's one-line errors."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli
from inspector import envs

HERE = envs.facts()


@pytest.mark.parametrize("given, requirement, numpy, folder", [
    ("2.1.2", "torch==2.1.2", "numpy<2", "torch-2.1.2-cp311"),
    ("2.2", "torch==2.2", "numpy<2", "torch-2.2-cp311"),
    ("2.3.0", "torch==2.3.0", "numpy", "torch-2.3.0-cp311"),
    ("2.13.0+cpu", "torch==2.13.0+cpu", "numpy", "torch-2.13.0+cpu-cp311"),
    ("2.1.2+cu121", "torch==2.1.2+cu121", "numpy<2", "torch-2.1.2+cu121-cp311"),
])
def test_a_version_names_its_requirement_its_numpy_and_its_folder(given, requirement, numpy, folder):
    spec = envs.parse(given)
    assert (spec.requirement, spec.numpy, spec.folder("cp311")) == (requirement, numpy, folder)
    assert spec.requirements == [requirement, numpy, "setuptools<81" if numpy == "numpy<2" else "setuptools"]


def test_a_wheel_pins_its_build(tmp_path):
    wheel = tmp_path / "torch-2.13.0%2Bcpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    wheel.write_bytes(b"")
    spec = envs.parse(str(wheel))
    assert (spec.version, spec.local, spec.requirement) == ("2.13.0", "cpu", str(wheel.resolve()))
    assert spec.folder("cp311") == "torch-2.13.0+cpu-cp311"


def test_a_build_matches_only_itself_and_a_version_any_build():
    assert envs.parse("2.13").matches("2.13.0+cpu") and envs.parse("2.13.0").matches("2.13.0")
    assert not envs.parse("2.13.0+cpu").matches("2.13.0+cu121") and not envs.parse("2.1.2").matches("2.13.0")
    assert not envs.parse("2.1").matches("2.1.2") and not envs.parse("2.1.2").matches(None)


@pytest.mark.parametrize("given, message", [
    ("two", "--torch two: expected a version (2.13.0), a build (2.13.0+cpu) or a torch wheel file"),
    ("2.13.0-cpu", "expected a version"),
    ("missing/torch-2.13.0-cp311-cp311-linux_x86_64.whl", "no such wheel file"),
])
def test_what_is_not_a_version_is_said(given, message):
    with pytest.raises(envs.EnvError, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        envs.parse(given)


def test_the_environments_live_in_the_users_cache_unless_told(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if sys.platform.startswith("linux"):
        assert envs.root() == tmp_path / "cache" / "inspector" / "envs"
    assert envs.root(tmp_path / "mine") == tmp_path / "mine"


def _fake_env(top, name, torch, packages=()):
    """An environment as _make leaves it: a venv's interpreter (this one, linked) and the manifest, written last."""
    folder = top / name
    envs.python_in(folder).parent.mkdir(parents=True)
    envs.python_in(folder).symlink_to(sys.executable)
    (folder / envs.MANIFEST).write_text(json.dumps({
        "torch": torch, "numpy": "1.26.4", "packages": list(packages), "base": sys.executable, "python": "3.11.7",
        "created": "2026-12-01T10:00:00+0000", "install_s": 41.5, "size_bytes": 5}))
    return folder


def test_an_environment_is_reused_listed_and_removed(tmp_path):
    tag = HERE["tag"]
    made = _fake_env(tmp_path, f"torch-2.1.2-{tag}", "2.1.2")
    (tmp_path / f"torch-2.5.0-{tag}" / "bin").mkdir(parents=True)  # unfinished: no manifest
    said = []
    python = envs.interpreter(envs.parse("2.1.2"), tmp_path, say=said.append)
    assert python == str(envs.python_in(made)) and said == [f"torch 2.1.2: 2.1.2 in {made}"]
    (env,) = envs.environments(tmp_path)
    assert (env.path, env.torch, env.numpy) == (made, "2.1.2", "1.26.4")
    assert envs.describe(env).startswith(f"torch-2.1.2-{tag}") and "made 2026-12-01 in 42 s" in envs.describe(env)
    with pytest.raises(envs.EnvError, match=rf"no environment of torch 2.5 in {tmp_path} \(there: torch-2.1.2-"):
        envs.remove("2.5", tmp_path)
    assert envs.remove("2.1.2", tmp_path) == [made] and not made.exists() and envs.environments(tmp_path) == []


@pytest.mark.skipif(not HERE["torch"], reason="this interpreter has no torch")
def test_the_running_interpreters_torch_is_used_as_it_is(tmp_path):
    said = []
    assert envs.interpreter(envs.parse(HERE["torch"].split("+")[0]), tmp_path, say=said.append) == sys.executable
    assert "used as it is" in said[0] and not list(tmp_path.iterdir())


def test_the_cli_lists_and_removes_environments(tmp_path):
    _fake_env(tmp_path, f"torch-2.1.2-{HERE['tag']}", "2.1.2", ["pymoo"])
    listed = run_cli("envs", "--envs", tmp_path)
    assert listed.returncode == 0 and "torch 2.1.2" in listed.stdout and "with pymoo" in listed.stdout
    assert f"1 environment in {tmp_path}" in listed.stderr
    gone = run_cli("envs", "--envs", tmp_path, "--remove", "2.1.2")
    assert gone.returncode == 0 and "removed" in gone.stderr and envs.environments(tmp_path) == []
    missing = run_cli("envs", "--envs", tmp_path, "--remove", "2.1.2")
    assert missing.returncode == 2 and "no environment of torch 2.1.2" in missing.stderr


def test_bad_compare_arguments_are_one_line_errors_before_anything_runs(tmp_path):
    proc = run_cli("compare", "samples/poly.py", "--torch", "latest", "--envs", tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [
        "inspector: error: --torch latest: expected a version (2.13.0), a build (2.13.0+cpu) or a torch wheel file"]
    combined = run_cli("compare", "samples/poly.py", "--run", "torch=2.x,cpp.simdlen=8", "--envs", tmp_path)
    assert combined.returncode == 2 and "--torch 2.x: expected a version" in combined.stderr
    typo = run_cli("compare", "samples/poly.py", "--pyhton", "x")
    assert typo.returncode == 2 and "no such option: --pyhton" in typo.stderr
    nothing = run_cli("compare", "--program", "samples/programs/ga.py", "5000")
    assert nothing.returncode == 2 and "nothing to compare with: add --torch VERSION" in nothing.stderr
    assert run_cli("compare").returncode == 2


MADE = {"python": "3.11.7", "platform": "linux-x86_64"}
# pip 23's words, as it prints them
NOT_OFFERED = ("Looking in links: /wheels\nERROR: Could not find a version that satisfies the requirement torch==9.9 "
               "(from versions: 2.1.2, 2.13.0, 2.13.0+cpu)\nERROR: No matching distribution found for torch==9.9\n")
CONSTRAINED = ("ERROR: Cannot install torch==2.15.0 because these package versions have conflicting dependencies.\n\n"
               "The conflict is caused by:\n    The user requested torch==2.15.0\n"
               "    The user requested (constraint) torch<=2.14.1\n\nERROR: ResolutionImpossible: for help visit ...\n")
OFFLINE = ("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection "
           "broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object>: Failed to "
           "establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/torch/\n"
           "ERROR: Could not find a version that satisfies the requirement torch==2.1.2 (from versions: none)\n")


@pytest.mark.parametrize("version, output, lifted, message", [
    ("9.9", NOT_OFFERED, None, "torch 9.9 cannot be installed for Python 3.11 on linux-x86_64: the package "
                               "index offers these versions here: 2.1.2, 2.13.0, 2.13.0+cpu (an older torch may "
                               "need an older Python"),
    ("2.15.0", CONSTRAINED, "", "torch 2.15.0 is excluded by your pip configuration's constraints (torch<=2.14.1; "
                                "`pip config list` shows where): the index offers it"),
    ("9.9", CONSTRAINED.replace("2.15.0", "9.9"), NOT_OFFERED, "torch 9.9 cannot be installed for Python 3.11"),
    ("2.1.2", OFFLINE, None, "no network: pip could not reach the package index to install torch 2.1.2; the "
                             "environments already made, usable offline, are in {top} (torch-2.13.0-"),
    ("2.1.2", "ERROR: Could not find a version that satisfies the requirement pymoox (from versions: none)\n", None,
     "pip could not make the environment of torch 2.1.2: ERROR: Could not find a version that satisfies the "
     "requirement pymoox (from versions: none)"),
])
def test_pips_failures_are_said_in_one_line(tmp_path, version, output, lifted, message):
    _fake_env(tmp_path, f"torch-2.13.0-{HERE['tag']}", "2.13.0")
    said = envs.pip_error(output, envs.parse(version), MADE, tmp_path, lifted)
    assert said.startswith(message.format(top=tmp_path)) and "\n" not in said
    if lifted:
        assert said.endswith("your pip configuration's constraints (torch<=2.14.1; `pip config list` shows where) "
                             "narrow them further")


def test_pips_configuration_is_passed_on_to_uv():
    config = {"index-url": "https://index.example/simple", "extra-index-url": "file:///a/simple file:///b/simple",
              "find-links": "/wheels", "constraint": "/etc/c.txt", "no-index": "true", "timeout": "60"}
    assert envs.uv_options(config) == [
        "--index-url", "https://index.example/simple", "--extra-index-url", "file:///a/simple",
        "--extra-index-url", "file:///b/simple", "--find-links", "/wheels", "--constraint", "/etc/c.txt", "--no-index"]
    assert envs.uv_options({}) == []


def test_a_missing_module_is_named():
    assert envs.missing_module("ModuleNotFoundError: No module named 'pymoo.core'") == "pymoo"
    assert envs.missing_module("ValueError: bad") is None


@pytest.mark.skipif(sys.platform == "win32", reason="no fcntl: no lock")
def test_a_second_inspector_waits_while_the_first_makes_the_environment(tmp_path):
    lock = tmp_path / "torch-2.1.2-cp311.lock"
    other = ("import sys; from pathlib import Path; from inspector import envs\n"
             "with envs._lock(Path(sys.argv[1]), lambda: print('waiting', flush=True)):\n    print('made', flush=True)")
    with envs._lock(lock, lambda: pytest.fail("nobody holds it")):
        child = subprocess.Popen([sys.executable, "-c", other, str(lock)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert child.stdout.readline() == "waiting\n"
    assert child.stdout.readline() == "made\n" and child.wait(timeout=30) == 0


def test_asking_for_pip_leaves_setuptools_importable_in_this_process():
    """Inductor's C++ builds import setuptools in the user's process (the Python API, a notebook); asking whether pip
    is there must not make setuptools' distutils shim stand down first (importlib's find_spec("pip") does)."""
    check = ("from inspector import envs; envs.pip_config(); import setuptools, distutils.core; "
             "assert '_distutils' in distutils.core.__file__, distutils.core.__file__")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
