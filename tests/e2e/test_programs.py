"""Issue 30's programs (tests/programs/), run together once (tests/programs/together.py imports each: one start of
torch for all) by `inspector run`, with torch's own account of the same run: its logs on stderr
(TORCH_LOGS=recompiles,graph_breaks: compile ids, recompiles and their guards, the recompile limit and its last reason,
graph breaks) and the profiler's compiled regions over the whole run ("Torch-Compiled Region: 0/2" each time torch ran
compiled code, none for a call it ran eagerly), written at exit by an interpreter whose sitecustomize profiles (as
another installation would: no mock). inspector's classes of each call, its compile ids, recompiles, guards and the
limit must agree with them, and each piece of advice it gives must be one whose precondition torch's account shows
(items 2 and 6); no count here is hard-coded."""

import ast
import json
import os
import re

import pytest

import inspector
from conftest import ROOT, python_with_site, run_cli
from inspector.analysis import analyze
from inspector.model import BreakFix, UncompiledMethod
from inspector.record import load
from inspector.render import renderer
from inspector.render.said import guard, recompilation, rewrite

PROGRAMS = ROOT / "tests" / "programs"
COULD = "Could be tried"
PROFILE_ALL = '''\
import atexit, json, os
OUT = os.environ.pop("REGIONS_OUT", None)  # not inherited: Inductor's compile workers are not profiled
if OUT:
    import torch
    _profile = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
    _profile.__enter__()

    def _regions():
        _profile.__exit__(None, None, None)
        events = sorted(_profile.events(), key=lambda e: e.time_range.start)
        with open(OUT, "w") as out:
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
    """The `inspector run` of tests/programs/together.py: its process, its analysis, torch's log lines and compiled
    regions, its page."""

    def __init__(self, proc, record, regions, html):
        self.proc, self.record, self.a, self.regions, self.html = proc, record, analyze(record), regions, html
        self.recompiles, self.limits, self.breaks = torch_account(proc.stderr)

    def function(self, name):
        return next(f for f in self.a.program.functions if f.location and f.location.name == name)

    def owner(self, name, file):
        """The function whose frame torch names (its own code, or a resume function of it); a helper's frame (no
        function's own), the compiled function of its file, in whose calls it ran (each program here has one)."""
        while (inner := re.sub(r"^torch_dynamo_resume_in_(.+)_at_\d+$", r"\1", name)) != name:
            name = inner
        in_file = [f for f in self.a.program.functions if f.location and os.path.samefile(f.location.file, file)]
        return next((f for f in in_file if f.location.name == name), None) or next(iter(in_file))

    def recompiles_of(self, function):
        """torch's logged recompiles of ``function``'s frames."""
        return [r for r in self.recompiles if self.owner(r[1], r[2]) is function]

    def said(self, function):
        """The summary's paragraph on ``function``: its line and the indented lines after it."""
        lines = self.proc.stderr.splitlines()
        start = max(i for i, x in enumerate(lines) if x.startswith(f"{function.id}: "))  # after the first screen's
        end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
        return "\n".join(lines[start:end])

    def advice(self, function):
        """(the summary's "Could be tried" lines for ``function``, the page's), joined."""
        said = self.proc.stderr[self.proc.stderr.index(COULD):] if COULD in self.proc.stderr else ""
        lines = [x for x in said.splitlines() if x.startswith(f"  {function.id}: ")]
        page = re.findall(rf"<li><code>{re.escape(function.id)}</code>: (.*?)</li>", self.html)
        return "\n".join(lines), "\n".join(page)


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
            failure = failure.split("  #")[0].strip()  # the guard, without torch's comment (its source line)
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
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("programs")
    python_with_site(folder, PROFILE_ALL)
    out, regions = folder / "out", folder / "regions.json"
    env = dict(os.environ, TORCH_LOGS="recompiles,graph_breaks", REGIONS_OUT=str(regions))
    proc = run_cli("run", "--out", out, "--no-profile", "--no-replay", "--no-warm", "--python", folder / "python",
                   "together.py", cwd=PROGRAMS, env=env)
    (folder / "stderr").write_text(proc.stderr)  # kept for a failing test's reader
    assert proc.returncode == 0, proc.stderr
    return Run(proc, load(out / "together.json"), json.loads(regions.read_text()), (out / "together.html").read_text())


def ran_compiled(f, regions):
    """The compiled regions of ``f``'s own frame (the frame of its first compile), in the order torch ran them,
    against inspector's: per call classed as having run compiled code, the compile id it names (None: not told)."""
    kinds = f.run.kinds
    first = next(r for r in kinds.runs if r.compile_ids)
    frame = first.compile_ids[0].split("/")[0]
    said = []
    for r in kinds.runs:
        for _ in range(r.first, r.last + 1):
            if r.kind in ("first", "recompile"):
                # a call that compiled only another frame (a resume function's) ran this frame's cached code
                said.append(next((i.split("_")[0] for i in r.compile_ids if i.startswith(f"{frame}/")), None))
            elif r.kind == "cached":
                said.append(r.entry)
    torch_said = [r for r in regions if r.split("/")[0] == frame]
    return torch_said, said


def agrees(torch_said, said):
    return len(torch_said) == len(said) and all(s is None or s == t for t, s in zip(torch_said, said))


def test_every_artifact_of_this_versions_own_probe_is_understood(run):
    """Nothing of this version's own probe output is "not understood", and no count says more than it read."""
    assert "not understood" not in run.proc.stderr and "not understood" not in run.html
    assert run.record.unknown() == []
    assert [(p.artifact, p.problems) for p in run.a.parse if p.problems] == []
    assert all(len(p.problems) <= p.read for p in run.a.parse)


def test_the_samplers_own_frames_are_never_compiled_and_a_compiled_function_is_one_hot_function(run):
    """The sampler looked at sampled_helper's helper while torch's frame hook was on (a compiled call broke into it):
    torch compiled none of inspector's frames; a compiled function (torch runs its frames as a code object of its
    own) is one row of the hot functions, and its resume function (the code after a break) none."""
    helper = next(h for h in run.record.program.hotspots if h.function == "total")
    assert "Tensor" in helper.why  # the sampler read its tensor argument
    ours = os.path.dirname(inspector.__file__)
    compiled = {(g.metrics or {}).get("co_filename") or "" for v in run.record.variants
                for g in v.capture.graphs + v.recompiles.graphs}
    assert "sampled_helper.py" in {os.path.basename(f) for f in compiled}
    assert not [f for f in compiled if f.startswith(ours)]
    ids = [h.id for h in run.record.program.hotspots]
    assert "ranked (library_callee.py:11)" in ids and len(ids) == len(set(ids))
    assert "doubled_total (sampled_helper.py:21)" in ids and not [i for i in ids if "torch_dynamo_resume" in i]


def test_a_function_torch_gave_up_on_is_said_to_run_eagerly_with_its_breaks_own_hints(run):
    """torch's log says it skipped crc16's frame at the break inside its loop (issue 40, items 1 and 2): every call is
    said to have run eagerly, at that break; no replay weighs eager against eager; the break's hints are its own."""
    skipped = set(re.findall(r"frame skipped: (\w+) \(", run.proc.stderr)) | {
        enclosing(file, int(line)) for file, line in re.findall(
            r"Graph break in user code at (\S+):(\d+)\n.*Graph Break Reason: Failed to handle graph break gracefully",
            run.proc.stderr)}
    assert {"crc16", "row_sums"} <= skipped
    gave_up = {f.location.name for f in run.a.program.functions if f.location and f.run.kinds.gave_up}
    assert gave_up == skipped & {f.location.name for f in run.a.program.functions if f.location}
    f = run.function("crc16")
    k = f.run.kinds
    (line,) = {ln for cid, file, ln in run.breaks if file.endswith("skipped_loop.py")}
    assert k.gave_up and (k.gave_up.line, k.gave_up.in_loop) == (line, True)
    assert k.counts == {"eager": f.run.calls} and f.run.calls == 3 and f.replay and f.replay.why
    assert not [h for b in f.code.breaks for h in b.hints if "earlier graph break" in h]
    assert any("torch.cond" in h for b in f.code.breaks for h in b.hints)
    assert "torch gave up compiling it at the graph break at line" in run.html


def enclosing(file, line):
    """The name of the function whose ``def`` holds ``line`` of ``file``."""
    tree = ast.parse(open(file).read())
    return next(n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.lineno <= line <= n.end_lineno)


def test_recompiles_made_inside_one_call_are_said_of_that_call_not_of_every_call(run):
    """pair's helper recompiles for its second shape while pair's first call runs (issue 40, item 4): the recompiles
    torch logged for it are said of call 1, never "on every call"; its later calls ran cached code (which the
    profiler's regions check, below)."""
    f = run.function("pair")
    logged = [cid for cid, name, file, _, _ in run.recompiles if file.endswith("nested_recompile.py")]
    assert logged and {r.call for r in f.run.recompiles} == {1}
    assert f.code.recompilation and not f.code.recompilation.every_call
    assert f.run.kinds.calls("cached") == [2, 3]
    assert "recompilation(s) in call 1" in run.html


def test_every_compile_break_and_call_is_the_function_whose_frame_torch_names(run):
    """Each recompile torch logged is its frame's function's, with its guard; each break torch logged is said of the
    function whose frame broke; each function's calls ran compiled code (or not) as the profiler saw."""
    by_function = {}
    for cid, name, file, _, failure in run.recompiles:
        f = run.owner(name, file)
        by_function.setdefault(f.id, []).append(cid)
        assert any(failure in " ".join(guard(r) for r in c.reasons) for c in f.run.recompiles)
    again = {f.id: sorted({i.split("_")[0] for c in f.run.recompiles for i in c.compile_ids  # a frame's first
                           if not i.split("_")[0].endswith("/0")})  # compile, in a recompiling call, is no recompile
             for f in run.a.program.functions}
    assert {k: v for k, v in again.items() if v} == {k: sorted(v) for k, v in by_function.items()}
    frames = {i.split("/")[0]: f for f in run.a.program.functions for r in f.run.kinds.runs for i in r.compile_ids}
    assert run.breaks
    for cid, file, line in run.breaks:
        f = frames[cid.split("/")[0]]
        assert (os.path.basename(file), line) in {(os.path.basename(b.file or ""), b.line) for b in f.code.breaks}
    for f in run.a.program.functions:
        if f.run.calls:
            torch_said, said = ran_compiled(f, run.regions)
            assert agrees(torch_said, said), f.id
            assert not f.run.inlined_into


def test_a_new_wrapper_per_call_is_one_function_whose_later_calls_ran_torchs_cached_code(run):
    f = run.function("f")
    kinds = f.run.kinds
    assert kinds.wrappers == f.run.calls and not f.run.recompiles and not run.recompiles_of(f)
    torch_said, said = ran_compiled(f, run.regions)
    assert agrees(torch_said, said) and len(torch_said) == f.run.calls  # every call ran compiled code
    assert kinds.calls("cached") == list(range(2, f.run.calls + 1)) and f.run.eager_calls == 0
    said = run.said(f)
    assert "ran without compiled code" not in said
    assert f"how torch ran its {f.run.calls} calls: 1 compiled, {f.run.calls - 1} ran compiled code torch had cached" \
        in said


def test_the_recompile_limit_its_last_reason_and_the_calls_torch_then_ran_eagerly_or_cached(run):
    g = run.function("g")
    recompiled = [(i, guard(reason)) for c in g.run.recompiles for i in c.compile_ids for reason in c.reasons[:1]]
    assert [(cid, failure) for cid, *_, failure in run.recompiles_of(g)] == recompiled
    ((cid, limit, value, function, last),) = run.limits
    hit = g.run.kinds.limit
    assert (hit.limit, function) == (f"{limit} = {value}", "g") and hit.guard and guard(hit.guard) in last
    assert hit.call == g.run.kinds.calls("limit")[0] == g.run.recompiles[-1].call + 1
    assert f"the guard that failed last: {guard(hit.guard)}" in recompilation(g.code.recompilation)
    assert len(g.run.recompiles) == g.code.recompilation.count == len(recompiled)
    torch_said, said = ran_compiled(g, run.regions)
    assert agrees(torch_said, said)
    eager = g.run.kinds.calls("limit", "eager")
    assert len(eager) == g.run.calls - len(torch_said) == g.run.eager_calls
    assert any(r.kind == "cached" and r.entry for r in g.run.kinds.runs)  # after the limit, the guards told which
    assert f"{'calls' if len(eager) > 1 else 'call'} {eager[0]}-{eager[-1]} ran eagerly" in run.proc.stderr


def test_a_callee_torch_compiles_as_its_own_frame_is_its_own_function(run):
    """The library's sort (a torch.while_loop: its subgraphs understood) is a function of its own, recompiled in its
    own frame; the function the library compiled and the program never called comes last, folded."""
    sort, ranked = run.function("bubble"), run.function("ranked")
    assert run.recompiles_of(sort) and run.recompiles_of(ranked)
    assert sort.run.calls == ranked.run.calls and ranked.id in sort.run.kinds.inside
    unused = run.function("unused_norm")
    assert unused.run.calls == 0 and run.proc.stderr.index("│ unused_norm") > run.proc.stderr.index("│ ranked")
    assert re.search(r'<details class="idle"><summary>1 function compiled but never called[^<]*</summary><ul><li>'
                     r'<a href="#[^"]*"><code>unused_norm</code>', run.html)


def test_a_compiled_modules_other_method_is_told_as_called_and_uncompiled(run):
    # torch's counters, as the program printed them: solve's calls compiled nothing, forward's compiled
    out = run.proc.stdout
    solve_calls, solve_graphs = map(int, re.search(r"solve calls (\d+) graphs (\d+)", out).groups())
    forward_calls, forward_graphs = map(int, re.search(r"forward calls (\d+) graphs (\d+)", out).groups())
    assert solve_graphs == 0 < forward_graphs
    f = next(f for f in run.a.program.functions if f.uncompiled)
    assert f.uncompiled == (UncompiledMethod("solve", solve_calls),) and f.run.calls == forward_calls
    assert (f"solve was called {solve_calls} times on the compiled module and ran uncompiled; compile it: "
            "torch.compile(module.solve) or call the module (forward)") in run.proc.stderr


def test_a_recompile_on_a_float_argument_gets_torchs_fix_pass_it_as_a_tensor(run):
    h = run.function("h")
    # torch's own account: the recompile's guard is on the value of c, a Python float
    guards = [failure for *_, failure in run.recompiles_of(h)]
    assert guards and all(re.match(r"c == \d", g) for g in guards)
    assert [x.type for x in h.arguments] == ["tensor", "float"] and h.compile_options == {}
    said, page = run.advice(h)
    assert "pass c as a tensor (torch.tensor(c))" in said and "pass c as a tensor" in page
    advice = json.loads(renderer("json").program(run.a))["advice"]
    assert any(a["function"] == h.id and "pass c as a tensor" in a["text"] for a in advice)
    assert "dynamic=False" not in said and "mark_dynamic" not in said and "size" not in said


def test_a_data_dependent_branch_gets_torch_where_or_torch_cond_in_every_renderer(run):
    k = run.function("k")
    line = next(i for i, s in enumerate((PROGRAMS / "data_dependent_if.py").read_text().splitlines(), 1)
                if "if x.sum() > 0:" in s)
    # torch's own account: the data-dependent branch at the `if`
    assert re.search(rf"Graph break in user code at \S*data_dependent_if\.py:{line}\n.*Data-dependent branching",
                     run.proc.stderr)
    (b,) = k.code.breaks
    assert (b.line, b.cause) == (line, "data-dependent-branch")
    said, page = run.advice(k)
    # both branches return a tensor expression: torch.where, and torch.cond
    assert f"graph break at data_dependent_if.py:{line}" in said
    assert "torch.where(condition, a, b)" in said and "torch.cond" in said and "torch.where(condition, a, b)" in page
    functions = json.loads(renderer("json").program(run.a))["program"]["functions"]
    (fix,) = [b["fix"] for f in functions if f["id"] == k.id for b in f["code"]["breaks"]]
    assert "torch.where" in fix and "torch.cond" in fix


def test_a_data_dependent_shape_or_slice_gets_the_fix_for_what_torch_named(run):
    """torch.bincount's break (torch: "Operator `aten.bincount.default`'s output shape depends on input Tensor data")
    gets bincount's fixed-length form, not a boolean mask's; slice bounds read out of a tensor (torch: Tensor.item())
    are said to be a data-dependent slice, not a value to keep in a tensor (issue 40, item 3)."""
    logged = {ln for cid, file, ln in run.breaks if file.endswith("data_dependent_ops.py")}
    assert "bincount" in re.findall(r"Operator `aten\.(\w+)\.default`'s output shape depends", run.proc.stderr)
    histogram, rows = run.function("histogram"), run.function("row_sums")
    (b,) = histogram.code.breaks
    assert b.line in logged and b.cause == "dynamic-shape" and b.fix == BreakFix.BINCOUNT
    assert "torch.bincount" in (rewrite(b.usual) or "") and "mask" not in (rewrite(b.usual) or "")
    (s,) = rows.code.breaks
    assert s.line in logged and s.cause == "item" and s.fix == BreakFix.SLICE
    assert "data-dependent slice" in (rewrite(s.usual) or "")
    said, page = run.advice(histogram)
    assert "boolean-mask" not in said + page and "index_add_" in said and "index_add_" in page
    said, page = run.advice(rows)
    assert "keep the value in a tensor" not in said + page and "segment_reduce" in said and "segment_reduce" in page


def test_no_column_major_advice_for_a_method_whose_array_is_on_self(run):
    f = run.function("fitness")
    assert [(x.name, x.shape) for x in f.arguments] == [("self", None)]
    assert any(n.strided_loads for k in f.code.kernels for n in k.loop_nests)  # strided loads there are
    said, page = run.advice(f)
    assert "column-major" not in said and "asfortranarray" not in said and "column-major" not in page
    assert "tiling heuristic off" in said  # a fix that needs no argument


def test_a_function_already_dynamic_false_at_the_limit_gets_the_choices_left(run):
    g = run.function("g")
    # torch's own account: recompiles on a size, then the limit hit
    assert all("size mismatch at index 0" in failure for *_, failure in run.recompiles_of(g)) and run.limits
    assert g.compile_options == {"dynamic": False} and g.code.recompilation.limit
    said, page = run.advice(g)
    assert "torch.compile(fn, dynamic=False)" not in said and "torch.compile(fn, dynamic=True)" in said
    assert "torch._dynamo.mark_dynamic(x, 0)" in said and "torch._dynamo.config.recompile_limit" in said
    assert "torch.compile(fn, dynamic=False)" not in page and "mark_dynamic(x, 0)" in page
