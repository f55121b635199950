"""Every `inspector` command of docs/ci.md's workflow, run as its jobs run them, against the checked-in records: each
leg of the matrix (a torch version) runs its measuring commands with --records reading that version's records instead
of compiling, its records folder becomes an artifact, and the last job's commands run over every leg's artifact."""

import os
import re
import shlex
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from conftest import RECORDS, ROOT
from inspector.cli import app

DOC = ROOT / "docs" / "ci.md"


def workflow():
    """(the matrix's torch versions and OS, the measuring job's inspector commands, the last job's)."""
    (block,) = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), re.S)
    measure, _, last = block.partition("\n  check:\n")
    versions = re.findall(r'"([\d.]+)"', re.search(r"torch: \[(.*)\]", measure).group(1))
    (os_name,) = re.search(r"os: \[(.*)\]", measure).group(1).split(",")
    commands = [re.findall(r"^\s+run: (inspector .*)$", job, re.M) for job in (measure, last)]
    return versions, os_name.strip(), *commands


def workspace(folder):
    """A checkout of what the commands read: the samples and pyproject.toml (its [tool.inspector] table)."""
    shutil.copytree(ROOT / "samples", folder / "samples")
    shutil.copy(ROOT / "pyproject.toml", folder)
    return folder


def run_line(line, cwd, **values):
    """Run one command line of the workflow in ``cwd`` (in this process: the command line's own code, without a
    new interpreter per line), its ${{ matrix.* }} replaced by ``values``; its stdout."""
    for key, value in values.items():
        line = line.replace("${{ matrix." + key + " }}", value)
    assert "${{" not in line and line.startswith("inspector "), line
    here = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, shlex.split(line)[1:])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, (line, result.output, result.exception)
    return result.stdout


def test_every_inspector_command_of_docs_ci_md_runs_against_fixture_records(tmp_path):
    versions, os_name, measure, last = workflow()
    assert versions == ["2.1.2", "2.13.0"] and len(measure) == 2 and len(last) == 3
    final = workspace(tmp_path / "check")
    for version in versions:
        leg = workspace(tmp_path / f"leg-{version}")
        for line in measure:
            out = run_line(f"{line} --records {RECORDS / f'torch-{version}'}", leg, torch=version, os=os_name)
            assert out.splitlines()[-1].startswith("::notice::inspector check: ")
        artifact = final / "records" / f"records-torch-{version}-{os_name}"  # as download-artifact lays them out
        shutil.copytree(leg / "records", artifact)
        assert {p.name for p in (artifact / "samples").iterdir()} >= {"poly.json", "poly.html", "index.html"}
    outputs = [run_line(line, final) for line in last]
    assert (final / "inspector.lock").is_file() and "promises hold, 0 violated" in outputs[1]
    # the last job's verdicts say which leg each came from; its reports and their index cover every leg
    suite = ET.parse(final / "check.xml").getroot().find("testsuite")
    said = " ".join(case.find("system-out").text for case in suite.iter("testcase"))
    for version in versions:
        assert f"torch {version} (measure (torch {version}, {os_name}))" in said
    index = (final / "site" / "index.html").read_text()
    for version in versions:
        name = f"poly-measure-torch-{version}-{os_name}"
        assert f'href="{name}.html"' in index and (final / "site" / f"{name}.json").is_file()


def test_every_path_the_docs_and_scripts_name_is_in_the_checkout():
    """A file the README, docs/, scripts/, bench/ or .ci/run names (a test to run, a sample to report) exists: a moved
    test file is not left named where a GPU session or a reader runs it (``-N``, ``{...}``: placeholders)."""
    named = re.compile(r"(?<![\w/.-])((?:tests|samples|scripts|bench|docs|inspector)/[\w./-]*\w)(?![\w{*<-])")
    texts = [ROOT / "README.md", ROOT / ".ci" / "run", *ROOT.glob("docs/*.md"), *ROOT.glob("scripts/*"),
             *ROOT.glob("bench/*.py")]
    missing = {(text.name, path) for text in texts if text.is_file() for path in named.findall(text.read_text())
               if "-N." not in path and not (ROOT / path).exists()}
    assert not missing
