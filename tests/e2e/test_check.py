"""`inspector check --program`: a program run as it is, under inspector run, and the contract pyproject.toml's
[tool.inspector] table makes for it judged on that run (the one real run; tests/fast judges records)."""

import json

from conftest import run_cli
from inspector.record import load


def test_a_programs_contract_in_pyproject_is_checked_on_its_run(tmp_path):
    verdicts = tmp_path / "check.json"
    proc = run_cli("check", "--format", "json", "--write", verdicts, "--out", tmp_path, "--job", "e2e",
                   "--program", "samples/programs/ga.py", 1000, 4)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("best of this generation") == 4  # the program's own output, as it prints it
    data = json.loads(verdicts.read_text())
    assert data["summary"] == {"holds": 3, "violated": 0, "unknown": 0, "inconclusive": 0}
    assert {(v["place"]["path"], v["place"]["line"], v["site"]["path"]) for v in data["verdicts"]} == {
        ("samples/programs/ga.py", 19, "pyproject.toml")}
    (run,) = data["runs"]
    assert run.startswith("torch ") and run.endswith(" (e2e)")
    said = {v["promise"]: v["judgements"][0]["said"] for v in data["verdicts"]}
    assert said["no-limit-hit"].startswith("did not hit the recompile limit")
    assert load(tmp_path / "ga.json").job == "e2e" and (tmp_path / "ga.html").is_file()
