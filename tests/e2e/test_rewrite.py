"""The rewriter of issue 31 with torch: the samples' per-individual functions rewritten in NumPy and torch and the
blog's break samples' rewrites, each checked against the original on the sample's population; every construct of
the subset in torch, in Python's float64 and on the population's device (``meta``); and compiled with
fullgraph=True, a rewrite has no break left."""

import runpy

import numpy as np
import pytest

from conftest import ROOT
from fast.rewrite_cases import SUBSET, namespace, population, program
from fast.test_rewrite_rows import LOOPS as ROW_LOOPS, population as rows_population, program as rows_program
from inspector.probe.sample import load
from inspector.rewrite import (ChangeKind, Dialect, Rewrite, Row, Verdict, check, program_from_sources,
                               read_program, rewrite_breaks, vectorize)
from inspector.render import rewrites as words
from inspector.rewrite.check import rewritten
from inspector.rewrite.rows import per_row

# knapsack_breaks's rewrites run through `inspector report` (test_report_rewrites.py): not again here
PER_INDIVIDUAL = ["poly", "trig", "penalty_loops", "first_draft", "penalised", "ten_genes", "two_objectives", "sum"]
BREAKS = {"penalty_loops": ["fitness_numpy", "fitness_numpy_apply",
                                                                  "fitness_torch"], "first_draft": ["fitness_numpy"]}


torch = None  # imported when the module's first test runs, not where pytest collects it (each worker collects all)


@pytest.fixture(scope="module", autouse=True)
def _torch():
    global torch
    import torch


@pytest.fixture(scope="module")
def samples():
    """{stem: (program, namespace, population of 2,000)} for the samples the tests use."""
    found = {}
    for stem in {*PER_INDIVIDUAL, *BREAKS, "knapsack_breaks"}:
        path = str(ROOT / "samples" / f"{stem}.py")
        module = load(path)
        found[stem] = (read_program(path), vars(module), module.population(2000, np.random.default_rng(0)))
    return found


@pytest.mark.parametrize("stem", PER_INDIVIDUAL)
def test_the_samples_fitness_python_rewritten_in_numpy_and_torch_match_it(samples, stem):
    program, space, pop = samples[stem]
    for dialect in Dialect:
        rewrite = vectorize(program, "fitness_python", dialect)
        assert isinstance(rewrite, Rewrite), words.declined(rewrite)
        result = check(rewrite, program, space, pop)
        assert result.verdict is Verdict.MATCHED, words.check(result)
        python = np.asarray([space["fitness_python"](row) for row in pop[:50].tolist()]).dtype
        assert result.result_dtype == str(python), (dialect, result.result_dtype)  # Python's own numbers
    assert_placed(rewritten(vectorize(program, "fitness_python", Dialect.TORCH), space), pop.shape)


def test_the_blog_s_breaks_rewritten_match_their_variants(samples):
    for stem, variants in BREAKS.items():
        program, space, pop = samples[stem]
        for variant in variants:
            found = rewrite_breaks(program, variant, Dialect.TORCH if "torch" in variant else Dialect.NUMPY)
            result = check(found.rewrite, program, space, pop)
            assert result.verdict is Verdict.MATCHED and not result.unchecked, (stem, variant, words.check(result))


@pytest.mark.parametrize("case", sorted(SUBSET))
def test_each_construct_in_torch_matches(case):
    body = SUBSET[case]
    rewrite = vectorize(program(body), "fitness", Dialect.TORCH)
    assert isinstance(rewrite, Rewrite), words.declined(rewrite)
    result = check(rewrite, program(body), namespace(body), population())
    assert result.verdict is Verdict.MATCHED, (words.check(result), rewrite.source)
    assert result.result_dtype == "float64", rewrite.source
    assert_placed(rewritten(rewrite, namespace(body)), population().shape)


def test_a_flow_shops_makespan_in_torch_matches_and_takes_its_table_on_the_permutations_device():
    path = str(ROOT / "tests" / "programs" / "plain" / "flowshop.py")
    rewrite = vectorize(read_program(path), "makespan", Dialect.TORCH)
    assert isinstance(rewrite, Rewrite), words.declined(rewrite)
    space = runpy.run_path(path, run_name="flowshop")
    perms = np.array([np.random.default_rng(seed).permutation(space["JOBS"]) for seed in range(300)])
    result = check(rewrite, read_program(path), space, perms)
    assert result.verdict is Verdict.MATCHED and result.result_dtype == "float64", words.check(result)
    assert_placed(rewritten(rewrite, space), perms.shape, torch.int64)


def assert_placed(entry, shape, dtype=None):
    """The torch rewrite run on a population (of ``dtype``) on another device (torch's ``meta``, shapes only: a
    tensor the rewrite made on the CPU, or a value read back to Python, raises there) gives float64 values on that
    device."""
    values = entry(torch.empty(shape, dtype=dtype or torch.float64, device="meta"))
    for value in values if isinstance(values, tuple) else (values,):
        assert (value.device.type, value.dtype) == ("meta", torch.float64)


def test_compiled_whole_a_rewrite_has_no_break_left(samples):
    """NumPy's np.errstate and np.select would break the graph: the rewrite uses neither; the knapsack's `if
    over.any()` and boolean mask were its breaks."""
    trig, trig_space, trig_pop = samples["trig"]
    knapsack, knapsack_space, knapsack_pop = samples["knapsack_breaks"]
    for rewrite, space, pop in ((vectorize(trig, "fitness_python", Dialect.NUMPY), trig_space, trig_pop),
                                (rewrite_breaks(knapsack, "fitness_numpy", Dialect.NUMPY).rewrite, knapsack_space,
                                 knapsack_pop)):
        function = rewritten(rewrite, space)
        torch._dynamo.reset()
        compiled = torch.compile(function, fullgraph=True)
        np.testing.assert_allclose(compiled(pop), function(pop), rtol=1e-6)
    # a loop over the genes that carries a state stays a loop: torch unrolls it into one graph
    body = SUBSET["a state carried from gene to gene"]
    function = rewritten(vectorize(program(body), "fitness", Dialect.TORCH), namespace(body))
    data = torch.from_numpy(population())
    torch._dynamo.reset()
    torch.testing.assert_close(torch.compile(function, fullgraph=True)(data), function(data))


CONDITIONAL = '''
import torch
LIMIT = 0.0

def fitness_torch(population):
    total = population.sum(dim=1)
    spread = population.max(dim=1).values
    if total.mean().item() > LIMIT:
        scaled = total * 2
        total = scaled + spread
    else:
        total = total - spread
    return total + spread
'''


def test_an_if_on_a_tensor_whose_arms_are_computations_becomes_torch_cond():
    program = program_from_sources(CONDITIONAL, path="conditional.py")
    space: dict = {}
    exec(CONDITIONAL, space)
    found = rewrite_breaks(program, "fitness_torch", Dialect.TORCH)
    assert [c.kind for c in found.rewrite.changes] == [ChangeKind.ITEM, ChangeKind.COND] and not found.declined
    assert "    total = torch.cond(total.mean() > LIMIT, when_true, when_false, (total, spread))\n" in \
        found.rewrite.source
    for mean in (-0.2, 0.2):  # each arm, the population's test one way then the other
        pop = np.random.default_rng(0).normal(mean, 1.0, size=(400, 4))
        assert check(found.rewrite, program, space, pop).verdict is Verdict.MATCHED
    function = rewritten(found.rewrite, space)
    torch._dynamo.reset()
    data = torch.from_numpy(np.random.default_rng(1).normal(0.0, 1.0, size=(400, 4)))
    torch.testing.assert_close(torch.compile(function, fullgraph=True)(data), function(data))


@pytest.mark.parametrize("case", sorted(ROW_LOOPS))
def test_a_loop_over_the_rows_is_written_in_torch_with_the_users_values(case):
    """tests/fast/test_rewrite_rows.py's loops, in torch: the rewrite checked against the loop's body per row, and
    its values (a tensor, float64) the user's function's on the population."""
    p = rows_program(ROW_LOOPS[case][0])
    rows = per_row(p, "fitness")
    written = vectorize(rows, "fitness", Dialect.TORCH, Row.ARRAY, suffix="torch")
    assert isinstance(written, Rewrite) and "def fitness_torch(pop):" in written.source, written
    space: dict = {}
    exec(compile(p.main.source, "sample.py", "exec"), space)
    pop = rows_population()
    assert check(written, rows, space, pop).verdict is Verdict.MATCHED
    got = rewritten(written, space)(torch.from_numpy(pop))
    assert got.dtype == torch.float64 and np.allclose(got.numpy(), space["fitness"](pop))


def test_inspector_runs_experiment_on_a_row_loop_writes_checks_and_times_both_rewrites():
    """The experiment `inspector run` makes on a population function that loops over its rows (the program's own
    round of calls, kept as the probe keeps it): its NumPy and torch rewrites checked, each run's output the
    program's, and the program's call changed to call each."""
    import importlib.util

    from inspector.probe.experiment import experiment
    from inspector.probe.hotspots import Round
    path = ROOT / "tests" / "programs" / "plain" / "row_loop.py"
    spec = importlib.util.spec_from_file_location("row_loop", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pop = np.random.default_rng(0).uniform(-2.0, 2.0, size=(500, module.GENES))
    line = path.read_text().splitlines().index("        f = fitness(pop)") + 1
    kept = Round(kind="population", sequence="array", rows=[pop], outputs=[module.fitness(pop)], calls=1,
                 site=(str(path), line, "main"), via="call")
    facts = experiment(module.fitness.__code__, kept, torch.compile, 0.3)
    made = {r["id"]: r for r in facts["rewrites"]}
    assert set(made) == {"numpy", "torch"} and all(r["check"]["verdict"] == "matched" for r in made.values()), made
    assert [c["code"] for r in made.values() for c in r["changes"] if c["kind"] == "call"] == [
        "        f = fitness_numpy(pop)", "        f = fitness_torch(torch.from_numpy(pop)).numpy()"]
    runs = {r["id"]: r for r in facts["runs"]}
    assert {"as-written", "compiled-cpu", "numpy", "numpy-compiled-cpu", "torch", "torch-compiled-cpu"} <= set(runs)
    assert all(r["matches"] for r in runs.values()), [(r["id"], r.get("problem")) for r in runs.values()]


def test_a_row_loop_torch_compile_would_unroll_is_not_compiled_as_it_stands_and_says_why(tmp_path):
    """torch.compile unrolls a Python loop over the rows with no break in it (here a one-line loop over 400 rows took
    97 s to compile; a comprehension over 20,000 ran 10 minutes and grew to 7.7 GB before it was stopped): the
    experiment traces the function on 4 and 8 rows, sees its graphs grow, and runs everything but that, which says
    why; a loop whose `if` breaks the graph (Dynamo then runs the frame eagerly) and a function over the population as
    a whole are compiled."""
    from inspector.probe.unroll import unrolls
    path = tmp_path / "unrolled.py"
    path.write_text("import numpy as np\n\n\ndef fitness(pop):\n    return np.array([np.sum(x ** 2) for x in pop])\n")
    space = runpy.run_path(str(path))
    pop = np.random.default_rng(0).uniform(-1.0, 1.0, size=(2000, 10))
    why = unrolls(space["fitness"], lambda n: pop[:n], len(pop))
    assert why and why.startswith("not compiled: torch.compile unrolls its Python loop over the rows") and \
        why.endswith("not tried on 2,000 rows"), why
    looped = runpy.run_path(str(ROOT / "tests" / "programs" / "plain" / "row_loop.py"))
    whole = runpy.run_path(str(ROOT / "tests" / "programs" / "plain" / "vectorized_es.py"))
    assert unrolls(looped["fitness"], lambda n: pop[:n], len(pop)) is None
    wide = np.random.default_rng(0).uniform(-1.0, 1.0, size=(2000, 200))
    assert unrolls(whole["fitness"], lambda n: wide[:n], len(wide)) is None
