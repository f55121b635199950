"""One base exception: each error that reaches the user is an InspectorError, said in one line by the command line
and turned into its exit code there (no compile: records and environments only)."""

import json

import pytest

from conftest import record_path, run_cli
from inspector import api
from inspector.errors import PLEASE_REPORT, InspectorError


@pytest.fixture
def broken(tmp_path):
    """A record that loads (its shape is valid) but that inspector's analysis fails on: an internal error."""
    record = json.loads(record_path("2.13.0", "poly").read_text())
    record["variants"][0]["timing"] = "fast"
    (tmp_path / "broken.json").write_text(json.dumps(record))
    return tmp_path / "broken.json"


@pytest.mark.parametrize("args, message", [
    (["render", "missing.json"], "missing.json: no such file"),  # RecordError
    (["compare", record_path("2.13.0", "poly")], "compare needs at least two records"),  # CompareError
    (["envs", "--remove", "9.9.9", "--envs", "{tmp}"], "no environment of torch 9.9.9"),  # EnvError
    (["report", "pyproject.toml"], "not a Python file"),
])
def test_a_users_mistake_is_one_line_and_exit_2(tmp_path, args, message):
    proc = run_cli(*[str(a).format(tmp=tmp_path) for a in args])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("inspector: error: ") and message in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_inspectors_own_failure_is_exit_4_with_the_traceback_only_when_verbose(broken, tmp_path):
    quiet = run_cli("render", broken, "-o", tmp_path)
    assert quiet.returncode == 4 and "Traceback" not in quiet.stderr
    assert quiet.stderr.strip() == ("inspector: internal error while analysing the record: AttributeError: 'str' "
                                    f"object has no attribute 'median_s' ({PLEASE_REPORT})")
    verbose = run_cli("render", broken, "-o", tmp_path, "--verbose")
    assert verbose.returncode == 4 and verbose.stderr.startswith("Traceback (most recent call last)")
    assert not (tmp_path / "broken.html").exists()


def test_the_api_raises_the_same_errors_with_their_kind_and_code(broken):
    with pytest.raises(InspectorError) as user:
        api.render(broken.with_name("missing.json"))
    assert (user.value.kind, user.value.code) == ("user", 2)
    report = api.render(broken)  # it loads; its analysis is where inspector fails
    with pytest.raises(InspectorError) as internal:
        report.html()
    assert (internal.value.kind, internal.value.code) == ("internal", 4)
    assert isinstance(internal.value.error, AttributeError) and internal.value.what == "analysing the record"
