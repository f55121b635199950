"""The parsers of torch's output, on output code and messages captured from torch 2.1.2 and 2.13."""

import json
import re

import pytest
from hypothesis import example, given, settings, strategies as st

from conftest import FIXTURES, VERSIONS, record_path
from inspector.analysis import kernels
from inspector.analysis.parse import breaks, loads, triton, wrapper
from inspector.model import BreakFix, Launch
from inspector.raw import RawBreak
from inspector.render.said import problem, triton_launch


def output_code(version, stem, vid, graph=0):
    """The output code of one graph of a variant in a checked-in record."""
    record = json.loads(record_path(version, stem).read_text())
    variant = next(v for v in record["variants"] if v["id"] == vid)
    codes = [c for g in variant["capture"]["graphs"] for c in g.get("output_code") or []]
    return codes[graph]


def break_texts(version, stem, vid):
    record = json.loads(record_path(version, stem).read_text())
    return [b["text"] for b in next(v for v in record["variants"] if v["id"] == vid)["capture"]["breaks"]]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("vid", ["numpy-compiled-cpu", "torch-compiled-cpu"])
def test_poly_kernel_under_each_torch(version, vid):
    code = output_code(version, "poly", vid)
    split = kernels.split(code, "0/0")
    assert split.problems == []
    (k,) = split.kernels
    assert k.name.startswith("cpp_fused_") and k.backend == "cpp" and k.graph == "0/0"
    assert k.launches == [Launch(0)]
    assert k.parallel and k.parallel_regions >= 1 and not k.vectorized
    assert k.code.lstrip().startswith("#include") and k.code.strip().splitlines()[-3] in code
    assert k.trip_counts == [20000]
    # 2.1 indexes with `long i0` and brackets, 2.13 with `int64_t x0`: both are strided loads of the (N, 3) rows
    assert len(k.strided_loads) == 3 and all(re.search(r"3L\*[xi]0", s) for s in k.strided_loads)
    lines = k.code.splitlines()
    assert any("#pragma omp parallel" in lines[e.line - 1] for e in k.evidence if e.what == "OpenMP parallel region")
    assert {lines[e.line - 1].strip()[:4] for e in k.evidence if e.what == "strided load"} == {"auto"}
    assert (k.handle or "").startswith(k.name + ":") == (version != "2.1.2")  # provenance handles: 2.13 only


@pytest.mark.parametrize("version", VERSIONS)
def test_sum_reduction_is_vectorized(version):
    (k,) = kernels.split(output_code(version, "sum", "torch-compiled-cpu")).kernels
    assert k.reduction and k.kind == "reduction"
    assert k.vectorized == (version != "2.1.2") or k.vectorized  # 2.1 vectorizes int8 sums too
    assert any(e.what == "vector instruction" for e in k.evidence) == k.vectorized


@pytest.mark.parametrize("version", VERSIONS)
def test_library_call_between_kernels(version):
    split = kernels.split(output_code(version, "knapsack_breaks", "numpy-compiled-cpu"))
    names = [k.name for k in split.kernels]
    mm = next(k for k in split.kernels if k.backend == "extern")
    assert mm.name == "extern_kernels.mm" and mm.kind == "library call" and mm.parallel is None
    assert names.index("extern_kernels.mm") == 1  # in launch order, between the generated kernels
    assert [k.launches for k in split.kernels] == [[Launch(0)], [Launch(1)], [Launch(2)]]


def test_a_kernel_launched_twice_is_one_kernel_with_two_launches():
    code = output_code("2.13.0", "poly", "torch-compiled-cpu")
    (k,) = kernels.split(code).kernels
    twice = re.sub(rf"(\n(\s+){k.name}\((.*)\)\n)", r"\1\2extern_kernels.mm(a, b, out=c)\n\2" + k.name + r"(\3)\n",
                   code, count=1)
    split = kernels.split(twice)
    assert [(x.name, x.backend, x.launches) for x in split.kernels] == [
        (k.name, "cpp", [Launch(0), Launch(2)]), ("extern_kernels.mm", "extern", [Launch(1)])]
    assert split.problems == []


def test_while_loop_and_cond_subgraphs_are_followed_with_how_often_their_launches_run():
    """torch.while_loop, torch.cond and nested_compile_region (samples/programs/control_flow.py under torch 2.13):
    call() calls subgraph functions of the module; their kernels are launched from them, per iteration of the loop or
    when a branch is taken, and the profiled pass counted each launch of the call (the loop ran 3 times: ``i < 3``
    from 0)."""
    record = json.loads(record_path("2.13.0", "control_flow").read_text())
    doubled, branch = (next(v for v in record["variants"] if v["id"] == f) for f in ("doubled", "branch"))
    loop = kernels.split(doubled["capture"]["graphs"][0]["output_code"][0], "0/0")
    assert loop.problems == [] and loop.read == 1 + len(loop.kernels) == 4
    launched = {k.name: [(x.subgraph, x.repeat) for x in k.launches] for k in loop.kernels}
    condition, step = (next(n for n in launched if launched[n] and launched[n][0][0] == f"while_loop_{g}_graph_0")
                       for g in ("cond", "body"))
    assert launched[condition] == [("while_loop_cond_graph_0", None), ("while_loop_cond_graph_0", "loop")]
    assert launched[step] == [("while_loop_body_graph_0", "loop")]
    assert [k.launches for k in loop.kernels if k.name not in (condition, step)] == [[Launch(0)]]
    counted = {e["name"]: e["count"] for e in doubled["kernel_times"]["events"]}
    assert (counted[condition], counted[step]) == (4, 3)
    split = kernels.split(branch["capture"]["graphs"][0]["output_code"][0], "0/0")
    taken = {x.subgraph: x.repeat for k in split.kernels for x in k.launches if x.subgraph}
    assert split.problems == [] and taken == {"true_graph_0": "branch", "false_graph_0": "branch"}
    code = branch["capture"]["graphs"][0]["output_code"][0]
    assert "def true_graph_0(args):" in wrapper.call_source(code, wrapper.parse(code))
    # a nested_compile_region called twice: one subgraph function, called twice, its kernel launched at each call
    stacked = next(v for v in record["variants"] if v["id"] == "stacked")
    split = kernels.split(stacked["capture"]["graphs"][0]["output_code"][0], "0/0")
    region = [[(x.subgraph, x.repeat) for x in k.launches] for k in split.kernels if k.launches[0].subgraph]
    assert split.problems == [] and region == [[("repeated_subgraph0", None)] * 2]


def test_a_subgraph_inside_a_loop_runs_per_iteration_however_deep_and_is_followed_once_per_call():
    module = (
        "k = async_compile.cpp_pybinding([], r'''extern \"C\" void kernel() {}''')\n"
        "def inner(args):\n    if args[0]:\n        k(args)\n\n"
        "def outer(args):\n    inner(args)\n    outer(args)\n\n"
        "def call(args):\n    k(args)\n    while args:\n        outer(args)\n    else:\n        k(args)\n"
        "    try:\n        k(args)\n    except ValueError:\n        inner(args)\n")
    tree = wrapper.parse(module)
    found, unknown = wrapper.launches(tree, {"k"})
    assert unknown == [] and list(wrapper.subgraph_functions(tree)) == ["outer", "inner"]
    assert [(c.subgraph, c.repeat) for c in found] == [
        (None, None), ("inner", "loop"), (None, None), (None, None), ("inner", "branch")]


def test_output_code_it_cannot_read_is_a_problem_not_an_empty_answer():
    unknown = kernels.split("def call(args):\n    mystery_kernel_v9(args)\n")
    assert unknown.kernels == []
    assert [problem(p) for p in unknown.problems] == [
        "call() calls mystery_kernel_v9, neither a kernel of this module nor a known library call (raw code kept)"]
    several = kernels.split("def call(args):\n    mystery_kernel_v9(args)\n    other_v9(args)\n    other_v9(args)\n")
    assert [problem(p) for p in several.problems] == [
        "call() calls mystery_kernel_v9, other_v9, neither kernels of this module nor known library calls (raw code "
        "kept)"] and several.read == 1  # one line per part read: the wrapper
    assert problem(kernels.split("%%% not python").problems[0]).startswith("output code does not parse")
    assert [problem(p) for p in kernels.split("x = 1\n", "0/1").problems] == [
        "graph 0/1: no call() function in the output code (raw code kept)"]
    # a graph with nothing to compute (views only) is understood: no kernels, no problem
    assert kernels.split("def call(args):\n    a, = args\n    args.clear()\n    return (a, )\n").problems == []


CPP = "r'''\n#include <x.h>\nextern \"C\" void kernel(const double* in_ptr0, double* out_ptr0)\n{{\n{body}\n}}\n'''"
TRITON = "'''\n@triton_heuristics.pointwise(size_hints={{'x': 1024}})\n@triton.jit\ndef {name}(in_ptr0):\n{body}\n'''"
BODIES = {"parallel": "    #pragma omp parallel\n    #pragma omp for\n"
                      "    auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];",
          "serial": "    auto tmp0 = in_ptr0[static_cast<int64_t>(3L*x0)];",
          "vector": "    auto tmp0 = at::vec::Vectorized<double>::loadu(in_ptr0 + x0, 8);"}


@st.composite
def modules(draw):
    """A well-formed output-code module: kernels of each factory, launched in a random order (some twice, some
    never), with library calls between them."""
    count = draw(st.integers(0, 4))
    defs, expected = [], {}
    for i in range(count):
        factory = draw(st.sampled_from(["cpp_pybinding", "cpp", "triton"]))
        body = draw(st.sampled_from(sorted(BODIES)))
        name = f"k{i}_{factory}"
        source = (TRITON.format(name=name, body="    x0 = tl.program_id(0)\n    tmp0 = tl.load(in_ptr0 + (x0), None)")
                  if factory == "triton" else CPP.format(body=BODIES[body]))
        args = "['const double*'], " if factory == "cpp_pybinding" else f"'{name}', " if factory == "triton" else ""
        defs.append(f"{name} = async_compile.{factory}({args}{source})")
        expected[name] = ("triton" if factory == "triton" else "cpp", body)
    calls = draw(st.lists(st.sampled_from(sorted(expected) + ["extern_kernels.mm", "aten.nonzero.default"]),
                          max_size=8)) if expected else draw(st.lists(st.just("extern_kernels.bmm"), max_size=2))
    lines = [f"    {c}.run(buf0, stream=s)" if expected.get(c, ("",))[0] == "triton" else f"    {c}(buf0, buf1)"
             for c in calls]
    text = "\n".join(["import torch", *defs, "def call(args):", "    buf0 = empty_strided_cpu((4, ), (1, ))",
                      *lines, "    return (buf0, )", ""])
    return text, expected, calls


@settings(max_examples=150, deadline=None)
@given(modules())
def test_splitter_recovers_every_kernel_and_launch_of_a_well_formed_module(module):
    text, expected, calls = module
    split = kernels.split(text)
    assert split.problems == []
    found = {k.name: k for k in split.kernels}
    assert set(found) == set(expected) | set(calls)
    for name, k in found.items():
        assert [launch.position for launch in k.launches] == [i for i, c in enumerate(calls) if c == name]
        backend, body = expected.get(name, ("extern", None))
        assert k.backend == backend
        if backend == "cpp":
            assert k.parallel == (body == "parallel") and k.vectorized == (body == "vector")
            assert k.strided_loads == (["in_ptr0[3L*x0]"] if body == "serial" else [])
        elif backend == "triton":
            assert k.parallel and k.vectorized is None and k.strided_loads == []
    launched = [k.name for k in split.kernels if k.launches]
    assert launched == list(dict.fromkeys(calls))  # launched kernels first, in launch order


FRAGMENTS = ["k0 = async_compile.cpp_pybinding(['const double*'], r'''\n", "k1 = async_compile.cpp('''",
             "t0 = async_compile.triton('t0', '''\n", "@triton_heuristics.pointwise\n", "''')\n",
             "#pragma omp parallel\n", "for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(9L);",
             "auto tmp0 = in_ptr0[static_cast<int64_t>(3L*x0)];\n", "def call(args):\n", "    k0(a, b)\n",
             "    t0.run(a, stream=s)\n", "    extern_kernels.mm(a, b, out=c)\n", "    mystery(a)\n", "class Runner:\n",
             "  ", "\n", "(", ")", "'", "x", "=", ":"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
@example(FRAGMENTS[0] + FRAGMENTS[0] + FRAGMENTS[4] + FRAGMENTS[4])  # two literals joined mid-line
@example(FRAGMENTS[0] + FRAGMENTS[0] + "  " + FRAGMENTS[4] + FRAGMENTS[4])  # ... with white space between them
def test_splitter_on_malformed_code_answers_only_what_the_text_says(text):
    split = kernels.split(text)
    for k in split.kernels:
        # a kernel's code is a string literal of the text, or implicitly concatenated ones (joined mid-line:
        # r'''...r''' ''')''' is "...r)"): each line is there, quotes and line breaks aside
        assert all(_bare(line) in _bare(text) for line in k.code.splitlines())
        assert k.name in text or k.name.replace("torch.ops.", "") in text
        assert k.launches or k.backend != "extern"  # a library call is only known from its launch
    try:
        tree = wrapper.parse(text)
    except wrapper.WrapperError:
        assert split.kernels == [] and problem(split.problems[0]).startswith("output code does not parse")
        return
    if "mystery" in wrapper.call_source(text, tree):
        assert any("mystery" in problem(p) for p in split.problems)  # an unknown call is never silently dropped


def _bare(text):
    """``text`` without quotes and white space (implicitly concatenated literals may be split by any)."""
    return "".join(text.replace("'", "").replace('"', "").split())


@pytest.mark.parametrize("index, expected", [
    ("1L + 3L*x0", True), ("3L*x0", True), ("1L + (3L*i0)", True), ("12L*x0", True), ("1000L*x0", True),
    ("x1 + 1000L*x0", False), ("x0", False), ("x0 + 10L*x1", False),
    ("1 + 3*x0", True), ("r0_1 + 1000*x0", False), ("(3*x0)", True),
])
def test_a_load_is_strided_when_its_inner_index_does_not_step_by_one(index, expected):
    assert loads.strided(index) is expected


@pytest.mark.parametrize("version", VERSIONS)
def test_wrapper_gives_each_launch_its_buffer_sizes(version):
    code = output_code(version, "poly", "numpy-compiled-cpu")
    (k,) = kernels.split(code).kernels
    found, unknown = wrapper.launches(wrapper.parse(code), {k.name})
    assert found == [wrapper.Call(k.name, [20000 * 3, 20000])] and unknown == []


def test_graph_break_in_the_torch_2_1_format():
    b = breaks.parse(RawBreak(text=(FIXTURES / "torch-2.1.2" / "graph-break.txt").read_text(), mechanism="logger"))
    assert b.file.endswith("graph_break.py") and b.line == 12
    assert b.reason.startswith("generic_jump") and "from user code" not in b.reason
    assert b.cause == "data-dependent-branch" and b.fix == BreakFix.BRANCH


@pytest.mark.parametrize("version, vid, causes", [
    ("2.13.0", "numpy-compiled-cpu", {"data-dependent-branch", "dynamic-shape"}),
    ("2.1.2", "numpy-compiled-cpu", {"data-dependent-branch"}),  # 2.1 does not break at the boolean mask
    ("2.13.0", "torch-compiled-cpu", {"item", "print"}),
    ("2.1.2", "torch-compiled-cpu", {"item", "print"}),
])
def test_knapsack_break_messages_name_their_cause_under_each_torch(version, vid, causes):
    parsed = [breaks.parse(RawBreak(text=t)) for t in break_texts(version, "knapsack_breaks", vid)]
    assert parsed and all(b.file.endswith("knapsack_breaks.py") and b.line for b in parsed)
    assert {b.cause for b in parsed} == causes
    flags = {b.cause: b.flag for b in parsed}
    assert flags.get("item", breaks.SCALARS) == breaks.SCALARS
    assert flags.get("dynamic-shape", breaks.DYNAMIC_SHAPES) == breaks.DYNAMIC_SHAPES


def test_the_cause_comes_from_torchs_words_not_the_users_quoted_code():
    (text, *_) = break_texts("2.13.0", "knapsack_breaks", "numpy-compiled-cpu")
    quoted = text.replace("code: if over.any():", "code: print(over.item())")
    assert "print(over.item())" in quoted
    b = breaks.parse(RawBreak(text=quoted))
    assert b.cause == "data-dependent-branch" and b.flag is None


def test_launch_config_gives_the_grid():
    code = ("@triton_heuristics.persistent_reduction(\n    size_hints={'x': 2048, 'r0_': 1024},\n"
            "    triton_meta={'device': DeviceProperties(type='cuda', index=0)},\n"
            "    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'k'}\n)\n@triton.jit\n"
            "def k(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):\n"
            "    xnumel = 2000\n    r0_numel = 1000\n    R0_BLOCK: tl.constexpr = 1024\n"
            "    tmp0 = tl.load(in_ptr0 + (r0_1 + 1000*x0), r0_mask & xmask, other=0.0)\n")
    facts, problems = triton.facts(code)
    assert problems == []
    assert facts.strided_loads == [] and facts.masked_loads == 1  # contiguous along the row
    assert facts.triton and facts.triton.size_hints == {"x": 2048, "r0_": 1024} and facts.triton.target == "cuda"
    ran = triton.launch(code, {"kwargs": {"XBLOCK": 8}, "num_warps": 8, "num_stages": 1})
    assert ran.grid == [250]
    assert triton_launch(ran) == "grid 250 programs; R0_BLOCK=1024, XBLOCK=8; 8 warps"



@pytest.mark.parametrize("version", VERSIONS)
def test_a_fused_kernel_is_parsed_into_its_loop_nests(version):
    code = output_code(version, "ten_genes", "numpy-compiled-cpu")
    (k,) = [k for k in kernels.split(code).kernels if k.backend == "cpp"]
    nests = k.loop_nests
    assert [n.index for n in nests] == [1, 2, 3] and all(n.parallel and n.trip == "20000" for n in nests)
    # torch 2.13 vectorizes the penalty sum and the final add; 2.1 vectorizes no float64 loop
    assert [n.vectorized for n in nests] == ([False, True, True] if version == "2.13.0" else [False, False, False])
    assert [n.reduction for n in nests] == [False, True, False]
    assert all(n.strided_loads for n in nests[:1]) and not nests[1].strided_loads
    lines = k.code.splitlines()
    for n in nests:
        assert lines[n.lines[0] - 1].lstrip().startswith("for") and lines[n.lines[1] - 1].strip() == "}"
        assert "#pragma omp for" in lines[n.lines[0] - 2]
    assert nests[0].lines[1] < nests[1].lines[0] and nests[1].lines[1] < nests[2].lines[0]


def test_loops_over_threads_are_not_nests():
    code = output_code("2.13.0", "knapsack_breaks", "torch-compiled-cpu")
    (k,) = [k for k in kernels.split(code).kernels if "sum" in k.name]
    assert "for (int tid = 0; tid < 2; tid++)" in k.code
    assert [(n.describe(), n.trip) for n in k.loop_nests] == [("parallel, vectorized reduction", "10000")]


@pytest.mark.parametrize("version", VERSIONS)
def test_dynamic_shapes_give_symbolic_trip_counts_not_no_loop(version):
    record = json.loads(record_path(version, "poly-dynamic").read_text())
    variant = next(v for v in record["variants"] if v["id"] == "numpy-compiled-cpu")
    code = variant["capture"]["graphs"][0]["output_code"][0]
    split = kernels.split(code)
    (k,) = split.kernels
    (nest,) = k.loop_nests
    assert nest.trip and not nest.trip.isdigit() and nest.trip_count is None and nest.work is None
    assert re.fullmatch(r"[a-z]+\d+", nest.trip), nest.trip  # ks0 (2.13) or s0 (2.1): the population size
    assert split.problems == []


@pytest.mark.parametrize("version", VERSIONS)
def test_a_strided_gather_and_vector_loads_are_read(version):
    code = output_code(version, "ten_genes", "torch-compiled-cpu")
    (k,) = [k for k in kernels.split(code).kernels if k.backend == "cpp"]
    if version == "2.13.0":  # the vectorized add gathers gene 9 into a buffer: a strided load, read as such
        assert any("9L + 10L*x0 + 10L*x0_inner" in s for s in k.loop_nests[2].strided_loads)
        assert ("out_ptr0", "x0") not in loads.cpp_loads(k.code)  # stores are not loads
    assert all(re.search(r"10L\*[xi]0", s) for s in k.loop_nests[0].strided_loads)


def test_a_loop_header_it_cannot_read_is_a_problem():
    code = output_code("2.13.0", "poly", "numpy-compiled-cpu").replace("x0<static_cast<int64_t>(20000L)",
                                                                        "x0 != end(20000L)")
    split = kernels.split(code)
    (k,) = split.kernels
    assert k.loop_nests[0].trip is None and k.trip_counts == []
    assert len(split.problems) == 1 and "loop header not understood" in problem(split.problems[0])
