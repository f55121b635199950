"""How far the record travels through ``analyze`` (``scripts/flow.py``, docs/pipeline.md: issue 38, item 7): a
sample's and a program's record, each followed by its Raw values, visit no more modules and return from no more
helpers than they did, all of them and those handed the record by another module; the figures may fall (then lower
them here), never rise unnoticed."""

import importlib.util

import pytest

from conftest import ROOT
from inspector.record import load

_spec = importlib.util.spec_from_file_location("flow", ROOT / "scripts" / "flow.py")
assert _spec and _spec.loader
flow = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(flow)

# (record, modules, returns from helpers, of them handed from one module to another) at most; the bounds: 12
# modules, 20 returns
BOUNDS = [("torch-2.13.0/poly.json", 6, 18, 9),  # + a rerun's compile
          ("torch-2.13.0/ga.json", 7, 18, 7)]  # + its hot function's experiment and hot lines


@pytest.mark.parametrize("name, modules, returns, hand_offs", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_the_record_travels_no_further_than_it_did(name, modules, returns, hand_offs):
    record = load(ROOT / "tests" / "fixtures" / "records" / name)
    found = flow.follow(record)
    listed = "\n".join(sorted(found.modules) + sorted(found.returns))
    assert len(found.modules) <= modules, f"the record now enters {len(found.modules)} modules:\n{listed}"
    assert len(found.returns) <= returns, f"{len(found.returns)} helpers now return what it gives:\n{listed}"
    handed = flow.follow(record, hand_offs=True).returns
    assert len(handed) <= hand_offs, f"{len(handed)} helpers of another module now return what it gives:\n" + \
        "\n".join(sorted(handed))
