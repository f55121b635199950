"""inspector understands its own records: every checked-in record (each sample and program under both torch
versions, made by this version's probe) loads with no key this version does not know, and its analysis has nothing
"not understood" and never more problems than items read."""

from pathlib import Path

import pytest

from conftest import FIXTURES, RECORDS
from inspector.analysis import analyze
from inspector.raw import RawCounts, RawMachineCode
from inspector.record import load

MADE = sorted(RECORDS.glob("*/*.json"))  # by this version's probe (scripts/make-fixtures.py)
OLDER = sorted((FIXTURES / "schema-1").glob("*.json"))  # a record of schema 1, read as schema 2


def _id(path: Path) -> str:
    return str(path.relative_to(FIXTURES))


@pytest.mark.parametrize("path", MADE, ids=_id)
def test_a_record_this_version_made_has_no_unknown_key_and_nothing_not_understood(path: Path) -> None:
    record = load(path)
    assert record.unknown() == []
    assert {p.artifact: p.problems for p in analyze(record).parse if p.problems} == {}


@pytest.mark.parametrize("path", MADE + OLDER, ids=_id)
def test_no_artifact_counts_more_problems_than_items_read(path: Path) -> None:
    assert [(p.artifact, p.read, len(p.problems)) for p in analyze(load(path)).parse
            if len(p.problems) > p.read] == []


def test_the_machine_code_keys_the_probe_writes_are_known() -> None:
    """Every key of a machine-code entry and of its counts, as the probe writes them (``take`` and ``count``, with a
    local function counted in its caller), is a field of the typed record."""
    from inspector.probe.machine import count
    functions, lines = count(LOCAL_CALL, "k.cpp")
    assert functions["kernel._omp_fn.0"]["local"] == ["at::vec::exp_u20(at::vec::Vectorized<float>)"]
    entry = {"key": "0" * 16, "graph": "0/1", "kernel": "cpp_fused_exp_0", "functions": functions, "lines": lines,
             "seconds": 0.01}
    assert RawMachineCode.from_json(entry).unknown() == []
    assert set(functions["kernel._omp_fn.0"]) <= set(RawCounts.__dataclass_fields__)


LOCAL_CALL = """
0000000000001000 <at::vec::exp_u20(at::vec::Vectorized<float>)>:
    1000:\tvmulps zmm0,zmm0,zmm1
    1006:\tret

0000000000001100 <kernel._omp_fn.0>:
    1100:\tcall   1000 <at::vec::exp_u20(at::vec::Vectorized<float>)>
    1105:\tret

0000000000001200 <kernel>:
    1200:\tret
"""
