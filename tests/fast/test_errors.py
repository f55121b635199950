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
    # a program (no population(n, rng)) is refused from its source, before any probe: the command for it said
    (["report", "samples/programs/ga.py"], "samples/programs/ga.py is not a sample: it has no population(n, rng) "
     "function (a program? `inspector run samples/programs/ga.py` runs it as it is)"),
    (["breaks", "tests/bad_samples/no_population.py"], "no_population.py is not a sample: it has no population(n, "
     "rng) function (a program? `inspector run tests/bad_samples/no_population.py` runs it as it is)"),
    (["report", "samples/programs/"], "samples/programs: no sample files (Python files defining population(n, rng)) "
     "in this folder, only programs (control_flow.py, ga.py, odd_calls.py, own_timing.py, ...): `inspector run "
     "samples/programs/control_flow.py` runs one as it is"),
])
def test_a_users_mistake_is_one_line_and_exit_2(tmp_path, args, message):
    proc = run_cli(*[str(a).format(tmp=tmp_path) for a in args])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("inspector: error: ") and message in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_a_folders_programs_are_skipped_each_in_one_line_and_its_samples_kept(tmp_path):
    (tmp_path / "s.py").write_text("def population(n, rng):\n    return rng.random((n, 2))\n")
    (tmp_path / "prog.py").write_text("import sys\n\nif __name__ == '__main__':\n    main(sys.argv)\n")
    (tmp_path / "helpers.py").write_text("def penalty(x):\n    return x\n")  # a module: left out, said nothing
    said = []
    assert api.samples(tmp_path, said.append) == [tmp_path / "s.py"]
    assert said == [f"{tmp_path}/prog.py is not a sample: it has no population(n, rng) function (a program? "
                    f"`inspector run {tmp_path}/prog.py` runs it as it is)"]


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


def test_sweep_sizes_are_a_hundredth_and_a_tenth_of_the_population_then_itself():
    from inspector.api import sweep_sizes
    assert sweep_sizes(100_000) == [1_000, 10_000, 100_000]
    assert sweep_sizes(2_000) == [100, 200, 2_000] and sweep_sizes(500) == [100, 500] and sweep_sizes(100) == [100]


def test_sweep_with_sizes_of_its_own_is_a_one_line_error():
    proc = run_cli("report", "samples/poly.py", "--sweep", "-n", "1000,2000")
    assert proc.returncode == 2 and "--sweep makes its own sizes" in proc.stderr and "Traceback" not in proc.stderr
