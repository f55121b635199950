"""inspector understands what its own probe writes, fresh (real compiles): no record key it does not know, nothing
"not understood", and the kernels of higher-order ops' subgraphs launched, counted and timed per call."""

import html

from conftest import run_cli
from inspector.analysis import analyze
from inspector.record import load

PROGRAM = "samples/programs/control_flow.py"
ITERATIONS = 3  # its torch.while_loop runs while i < 3, from i = 0: the data decides, the code does not say


def test_while_loop_cond_and_nested_region_subgraphs_are_understood_counted_and_timed(tmp_path):
    proc = run_cli("run", "-o", tmp_path, "--no-replay", "--no-warm", PROGRAM)
    assert proc.returncode == 0, proc.stderr
    assert "not understood" not in proc.stderr
    record = load(tmp_path / "control_flow.json")
    assert record.unknown() == []
    a = analyze(record)
    assert [(p.artifact, p.problems) for p in a.parse if p.problems] == []
    doubled, branch = (a.function(f).code for f in ("doubled", "branch"))
    body = next(k for k in doubled.kernels if any(x.subgraph == "while_loop_body_graph_0" for x in k.launches))
    condition = next(k for k in doubled.kernels if any(x.subgraph == "while_loop_cond_graph_0" for x in k.launches))
    assert [x.repeat for x in body.launches] == ["loop"] and [x.repeat for x in condition.launches] == [None, "loop"]
    assert (body.cost.launches_per_call, condition.cost.launches_per_call) == (ITERATIONS, ITERATIONS + 1)
    assert body.cost.time_s > 0 and body.cost.read_bytes and body.machine
    taken = [k for k in branch.kernels if k.launches and k.launches[0].repeat == "branch"]
    assert sorted(k.launches[0].subgraph for k in taken) == ["false_graph_0", "true_graph_0"]
    assert sum(k.cost.launches_per_call or 0 for k in taken) == 1  # one branch per call, whichever the data picked
    (region,) = [k for k in a.function("stacked").code.kernels if k.launches[0].subgraph]
    assert len(region.launches) == region.cost.launches_per_call == 2  # the region is called twice per call
    page = html.unescape((tmp_path / "control_flow.html").read_text())
    assert "launched from while_loop_body_graph_0: once per iteration of the loop" in page
