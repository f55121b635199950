"""Issue 30's programs (tests/programs/), each run once by `inspector run` with torch's own account of the same run:
its logs on stderr (TORCH_LOGS=recompiles,graph_breaks: compile ids, recompiles and their guards, the recompile
limit and its last reason, graph breaks) and the profiler's compiled regions over the whole run ("Torch-Compiled
Region: 0/2" each time torch ran compiled code, none for a call it ran eagerly), written at exit by an interpreter
whose sitecustomize profiles (as another installation would: no mock). inspector's classes of each call, its compile
ids, recompiles, guards and the limit must agree with them; no count here is hard-coded."""

import json
import os
import re

import pytest

from conftest import ROOT, python_with_site, run_cli
from inspector.analysis import analyze
from inspector.record import load

PROGRAMS = ROOT / "tests" / "programs"
PROFILE_ALL = '''\
import atexit, json, os
if os.environ.get("REGIONS_OUT"):
    import torch
    _profile = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
    _profile.__enter__()

    def _regions():
        _profile.__exit__(None, None, None)
        events = sorted(_profile.events(), key=lambda e: e.time_range.start)
        with open(os.environ["REGIONS_OUT"], "w") as out:
            json.dump([e.name.split(": ", 1)[1] for e in events if e.name.startswith("Torch-Compiled Region: ")], out)
    atexit.register(_regions)
'''
LOG = re.compile(r"^[VWIE]\d{4} [\d:.]+ +\d+ \S+\] \[(\d+)/(\d+)(?:_\d+)?\] (.*)$")
RECOMPILING = re.compile(r"Recompiling function (\S+) in (.+):(\d+)$")
FAILURE = re.compile(r"^\[__recompiles\]\s+- (\d+/\d+): (.+)$")
LIMIT = re.compile(r"hit config\.(\w+) \((\d+)\)")
BREAK_AT = re.compile(r"Graph break (?:\(user stack suppressed due to duplicate graph break\) )?in user code at "
                      r"(.+):(\d+)$")


class Run:
    """One program's `inspector run`: its process, its analysis, torch's log lines and compiled regions."""

    def __init__(self, proc, record, regions, html):
        self.proc, self.record, self.a, self.regions, self.html = proc, record, analyze(record), regions, html
        self.recompiles, self.limits, self.breaks = torch_account(proc.stderr)

    def function(self, name):
        return next(f for f in self.a.program.functions if f.location and f.location.name == name)

    def owner(self, name, file, line=None):
        """The function whose frame torch names (its own code, or a resume function of it)."""
        inner = re.sub(r"^(?:torch_dynamo_resume_in_(.+)_at_\d+)$", r"\1", name)
        while inner != (inner := re.sub(r"^torch_dynamo_resume_in_(.+)_at_\d+$", r"\1", inner)):
            pass
        return next(f for f in self.a.program.functions if f.location and f.location.name == inner
                    and os.path.samefile(f.location.file, file))


def torch_account(stderr):
    """torch's logs: [(compile id, function, file, line, first guard failure)] per recompile (not the one that stopped
    at the limit), [(compile id, limit name, value, function, last reason)] per limit hit, [(compile id, file, line)]
    per graph break."""
    recompiles, limits, breaks = [], [], []
    lines = [m.groups() for line in stderr.splitlines() if (m := LOG.match(line))]
    for i, (frame, n, text) in enumerate(lines):
        cid = f"{frame}/{n}"
        if (m := RECOMPILING.search(text)):
            failure = next(f.group(2) for *_, t in lines[i + 1:i + 4] if (f := FAILURE.match(t)))
            recompiles.append((cid, m.group(1), m.group(2), int(m.group(3)), failure))
        elif (m := LIMIT.search(text)):
            follow = " ".join(t for *_, t in lines[i + 1:i + 3])
            function = re.search(r"function: '([^']+)' \((.+):(\d+)\)", follow)
            last = re.search(r"last reason: (.+)$", follow).group(1)
            limits.append((cid, m.group(1), m.group(2), function.group(1), last))
        elif (m := BREAK_AT.search(text)):
            breaks.append((cid, m.group(1), int(m.group(2))))
    stopped = {cid for cid, *_ in limits}  # torch logs the recompile's reasons, then finds the limit hit
    return [r for r in recompiles if r[0] not in stopped], limits, breaks


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each program's Run, made the first time a test asks for it."""
    folder = tmp_path_factory.mktemp("programs")
    python_with_site(folder, PROFILE_ALL)
    made = {}

    def run(stem):
        if stem not in made:
            out = folder / stem
            regions = folder / f"{stem}.regions.json"
            env = dict(os.environ, TORCH_LOGS="recompiles,graph_breaks", REGIONS_OUT=str(regions))
            proc = run_cli("run", "--out", out, "--no-profile", "--no-replay", "--python", folder / "python",
                           f"{stem}.py", cwd=PROGRAMS, env=env)
            (folder / f"{stem}.stderr").write_text(proc.stderr)  # kept for a failing test's reader
            assert proc.returncode == 0, proc.stderr
            made[stem] = Run(proc, load(out / f"{stem}.json"), json.loads(regions.read_text()),
                             (out / f"{stem}.html").read_text())
        return made[stem]
    return run


def ran_compiled(f, regions):
    """The compiled regions of ``f``'s own frame (the frame of its first compile), in the order torch ran them,
    against inspector's: per call classed as having run compiled code, the compile id it names (None: not told)."""
    kinds = f.run.kinds
    first = next(r for r in kinds.runs if r.kind == "first")
    frame = first.compile_ids[0].split("/")[0]
    said = []
    for r in kinds.runs:
        for _ in range(r.first, r.last + 1):
            if r.kind in ("first", "recompile"):
                said.append(next(i.split("_")[0] for i in r.compile_ids if i.startswith(f"{frame}/")))
            elif r.kind == "cached":
                said.append(r.entry)
    torch_said = [r for r in regions if r.split("/")[0] == frame]
    return torch_said, said


def agrees(torch_said, said):
    return len(torch_said) == len(said) and all(s is None or s == t for t, s in zip(torch_said, said))


def understood(run):
    """Nothing of this version's own probe output is "not understood", and no count says more than it read."""
    assert "not understood" not in run.proc.stderr and "not understood" not in run.html
    assert run.record.unknown() == []
    assert [(p.artifact, p.problems) for p in run.a.parse if p.problems] == []
    assert all(len(p.problems) <= p.read for p in run.a.parse)


def test_a_new_wrapper_per_call_is_one_function_whose_later_calls_ran_torchs_cached_code(runs):
    run = runs("compiled_per_call")
    (f,) = run.a.program.functions
    kinds = f.run.kinds
    assert f.id == "f" and kinds.wrappers == f.run.calls and not run.recompiles and not run.limits
    torch_said, said = ran_compiled(f, run.regions)
    assert agrees(torch_said, said) and len(torch_said) == f.run.calls  # every call ran compiled code
    assert kinds.calls("cached") == list(range(2, f.run.calls + 1)) and f.run.eager_calls == 0
    assert "ran without compiled code" not in run.proc.stderr
    assert "ran compiled code torch had cached" in run.proc.stderr
    understood(run)


def test_the_recompile_limit_its_last_reason_and_the_calls_torch_then_ran_eagerly_or_cached(runs):
    run = runs("recompile_limit_hit")
    g = run.function("g")
    recompiled = [(i, reason) for c in g.run.recompiles for i in c.compile_ids for reason in c.reasons[:1]]
    assert [(cid, failure) for cid, *_, failure in run.recompiles] == \
        [(i, reason) for i, reason in recompiled]
    ((cid, limit, value, function, last),) = run.limits
    hit = g.run.kinds.limit
    assert (hit.limit, function) == (f"{limit} = {value}", "g") and hit.guard in last
    assert hit.call == g.run.kinds.calls("limit")[0] == g.run.recompiles[-1].call + 1
    assert f"the guard that failed last: {hit.guard}" in g.code.recompilation.text
    assert len(g.run.recompiles) == g.code.recompilation.count == len(run.recompiles)
    torch_said, said = ran_compiled(g, run.regions)
    assert agrees(torch_said, said)
    eager = g.run.kinds.calls("limit", "eager")
    assert len(eager) == g.run.calls - len(torch_said) == g.run.eager_calls
    assert any(r.kind == "cached" and r.entry for r in g.run.kinds.runs)  # after the limit, the guards told which
    assert f"{'calls' if len(eager) > 1 else 'call'} {eager[0]}-{eager[-1]} ran eagerly" in run.proc.stderr
    understood(run)


def test_a_callee_torch_compiles_as_its_own_frame_is_its_own_function(runs):
    """The library's sort is a torch.while_loop: its subgraphs understood, its calls classed, as torch ran them."""
    run = runs("library_callee")
    by_function = {}
    for cid, name, file, line, failure in run.recompiles:
        f = run.owner(name, file, line)
        by_function.setdefault(f.id, []).append(cid)
        assert any(failure in " ".join(c.reasons) for c in f.run.recompiles)
    assert {f.id: sorted({i.split("_")[0] for c in f.run.recompiles for i in c.compile_ids})
            for f in run.a.program.functions if f.run.recompiles} == {k: sorted(v) for k, v in by_function.items()}
    assert len(by_function) == 2  # the caller's frames and the library's
    frames = {i.split("/")[0]: f for f in run.a.program.functions for r in f.run.kinds.runs for i in r.compile_ids}
    for cid, file, line in run.breaks:
        f = frames[cid.split("/")[0]]
        assert (os.path.basename(file), line) in {(os.path.basename(b.file or ""), b.line) for b in f.code.breaks}
    for f in run.a.program.functions:
        if f.run.calls:
            torch_said, said = ran_compiled(f, run.regions)
            assert agrees(torch_said, said), f.id
            assert not f.run.inlined_into
    # the library's function the program never called: last, folded
    unused = run.function("unused_norm")
    assert unused.run.calls == 0 and run.proc.stderr.index("│ unused_norm") > run.proc.stderr.index("│ ranked")
    assert re.search(r'<details class="idle"><summary>1 function compiled but never called[^<]*</summary><ul><li>'
                     r'<a href="#[^"]*"><code>unused_norm</code>', run.html)
    understood(run)
