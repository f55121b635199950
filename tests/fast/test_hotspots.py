"""A program's hot functions, from the probe output checked in for the plain programs (``inspector run`` on code that
compiles nothing yet): the figures derived from the record agree with each other, the words say what the record
shows, and a rewrite that failed its check or was declined is never advice."""

import html
import json
import signal
import sys

import numpy as np
import pytest

from conftest import RECORDS, ROOT
from inspector.analysis import analyze
from inspector.model import to_json
from inspector.raw import RawRecord
from inspector.record import load
from inspector.render import renderer
from inspector.render.hotspots import the, view, views
from inspector.render.said import json_words
from inspector.render.words import seconds
from inspector.rewrite import Dialect, Row, program_from_sources, vectorize
from inspector.rewrite.codec import to_json as rewrite_json

PLAIN_FOLDER = ROOT / "tests" / "programs" / "plain"
PLAIN = ["plain_ga", "plain-lists_if_chain", "plain-apply_along_axis_int8", "plain-map_gene_loop",
         "plain-vectorized_es", "plain-flowshop", "plain-list_of_arrays"]


def _analysis(stem, change=None):
    path = RECORDS / "torch-2.13.0" / f"{stem}.json"
    if change is None:
        return analyze(load(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    return analyze(RawRecord.from_json(data))


def _experimented(analysis):
    return [h for h in analysis.program.hotspots if h.runs]


@pytest.mark.parametrize("stem", PLAIN)
def test_each_plain_programs_hot_function_has_figures_that_agree_with_each_other(stem):
    a = _analysis(stem)
    (hot, *_) = _experimented(a)
    assert hot.shape in ("individual", "population") and 0 < hot.share <= 1
    # its time: its share of the run less the time inspector's call hook slowed it (the run the projection starts from)
    assert hot.total_s == pytest.approx(hot.share * hot.run_s) and hot.run_s <= a.program.wall_s
    runs = {r.id: r for r in hot.runs}
    written = runs["as-written"]
    assert hot.runs[0] is written and written.faster == pytest.approx(1.0)
    for r in hot.runs:
        if r.per_round_s:
            assert r.faster == pytest.approx(written.per_round_s / r.per_round_s)
            assert r.low_s <= r.per_round_s <= r.high_s
        assert (r.compile_s is not None) == (r.compiled and r.per_round_s is not None)
    estimated = hot.total_s / written.per_round_s  # counted from the samples, else at least this estimate
    assert hot.rounds == int(hot.rounds) if hot.rounds_counted else hot.rounds >= estimated * (1 - 1e-9)
    if hot.best:
        best = runs[hot.best]
        assert best.matches and best.id != "as-written"
        assert hot.projected_s == pytest.approx(hot.run_s - hot.total_s + hot.rounds * best.per_round_s
                                                + (best.compile_s or 0.0))
        assert hot.rounds * best.per_round_s + (best.compile_s or 0) < hot.rounds * written.per_round_s
    (view, *_) = views(a.program)
    assert view.sentence.startswith(f"{hot.function} (") and f"{hot.share:.0%} of the run" in view.sentence
    assert len(view.rows) == len(hot.runs) and view.rows[0][0] == "as written"
    # the JSON carries them as the page says them
    assert to_json(a)["program"]["hotspots"][0]["id"] == a.program.hotspots[0].id


def test_a_per_individual_functions_round_is_scaled_from_the_rows_copied_to_the_generations_calls():
    a = _analysis("plain_ga")
    (hot,) = _experimented(a)
    c = hot.captured
    assert c.sampled and c.rows < c.calls
    data = json.loads((RECORDS / "torch-2.13.0" / "plain_ga.json").read_text(encoding="utf-8"))
    raw = next(h for h in data["program"]["hotspots"] if h["id"] == hot.id)
    medians = sorted(r["median_s"] for r in next(x for x in raw["experiment"]["runs"] if x["id"] == "as-written")
                     ["rounds"])
    written = next(r for r in hot.runs if r.id == "as-written")
    assert written.per_round_s == pytest.approx(medians[len(medians) // 2] * c.calls / c.rows)
    (view,) = [v for v in views(a.program) if v.id == hot.id]
    assert f"On {c.rows:,} of one generation's {c.calls:,} individuals" in view.sentence
    code = dict(view.code)
    assert set(code) == {"numpy", "torch"} and f"line {c.site.line}" in code["numpy"]


def test_a_rewrite_that_failed_its_check_or_a_run_that_differs_from_the_program_is_never_advice():
    def failed(data):
        for h in data["program"]["hotspots"]:
            for w in (h.get("experiment") or {}).get("rewrites", []):
                if w["id"] == "numpy":
                    w["check"] = dict(w["check"], verdict="failed", mismatch={"individual": 3, "expected": "1.0",
                                                                              "got": "2.0"})
            for r in (h.get("experiment") or {}).get("runs", []):
                if r["id"].startswith("numpy"):
                    r["matches"], r["mismatch"] = False, "individual 3: 2.0, the program got 1.0 (1 differ)"
    a = _analysis("plain_ga", failed)
    (hot,) = _experimented(a)
    assert hot.best is None or not hot.best.startswith("numpy")
    (view,) = [v for v in views(a.program) if v.id == hot.id]
    assert "numpy" not in dict(view.code)
    assert any("NumPy rewrite failed its check (not advice): individual 3" in n for n in view.notes)
    (numpy,) = [w for w in to_json(hot, json_words)["rewrites"] if w["dialect"] == "numpy"]
    assert numpy["problem"] == "individual 3: expected 1.0, got 2.0"  # the JSON's words, as format 4 wrote them
    assert "NumPy rewrite 1" not in view.sentence and "NumPy rewrite compiled" not in view.sentence


def test_a_declined_rewrite_names_its_construct_and_line():
    source = ("import random\n\n\ndef fitness(ind):\n    s = 0.0\n    for g in ind:\n"
              "        s += g * random.random()\n    return s\n")
    program = program_from_sources(source, path="ga.py")
    declined = {d: rewrite_json(vectorize(program, "fitness", d, Row.LIST)) for d in (Dialect.NUMPY, Dialect.TORCH)}

    def notes(*dialects):
        """The hot function's notes, where the rewrites of ``dialects`` were declined as this source is."""
        def declining(data):
            for h in data["program"]["hotspots"]:
                for w in (h.get("experiment") or {}).get("rewrites", []):
                    if w["id"] in [d.value for d in dialects]:
                        w.pop("check", None)
                        w.pop("source", None)
                        w["declined"] = [declined[Dialect(w["id"])]]
        a = _analysis("plain-lists_if_chain", declining)
        (hot,) = _experimented(a)
        return [n for n in next(v for v in views(a.program) if v.id == hot.id).notes
                if n.startswith("no ")]
    # said as a sample's decline is (the reason in words), once for the dialects it stopped
    why = "the call to `random.random` at line 7 (a function the rewriter does not know)"
    assert notes(Dialect.NUMPY) == [f"no NumPy rewrite: {why}"]
    assert notes(Dialect.NUMPY, Dialect.TORCH) == [f"no NumPy or torch rewrite: {why}"]


def test_a_function_whose_runs_never_repeat_the_programs_outputs_has_no_figure_said():
    """The flow shop's crossover draws random numbers: its copy's outputs differ from the program's, so the sentence
    gives no figure (it said "...individuals: ; 1 more below")."""
    a = _analysis("plain-flowshop")
    hot = next(h for h in a.program.hotspots if h.function == "crossover")
    assert hot.runs and not any(r.matches for r in hot.runs) and hot.best is None
    (view,) = [v for v in views(a.program) if v.id == hot.id]
    assert view.sentence.endswith(f"On one generation's {hot.captured.rows:,} individuals: nothing measured repeated "
                                  "the program's outputs.")
    assert not view.code and any("did not repeat the program's outputs" in n for n in view.notes)


def test_a_hot_functions_generations_are_counted_where_the_samples_tell_its_rounds_apart():
    """The rounds the samples fell in are the run's (a lower bound) where each round held a few samples and the rounds
    were apart by a few (with those inspector's call hook saw begin, unsampled); else the time over one round as
    written, at least the rounds sampled where they were apart."""
    def sampled(rounds, gap, watched=None):
        def change(data):
            for h in data["program"]["hotspots"]:
                if h.get("experiment"):
                    h["rounds_sampled"], h["round_gap_samples"], h["rounds_watched"] = rounds, gap, watched
        (hot,) = _experimented(_analysis("plain_ga", change))
        return hot
    estimated = sampled(None, None)
    assert not estimated.rounds_counted and estimated.rounds
    written = next(r for r in estimated.runs if r.id == "as-written")
    assert estimated.rounds == pytest.approx(estimated.total_s / written.per_round_s)
    counted = sampled(5, 8)
    assert counted.rounds_counted and counted.rounds == 5
    assert (view(counted, None).sentence.count("at least 5 generations (counted from the samples)"),
            view(estimated, None).sentence.count("generations (estimated)")) == (1, 1)
    assert sampled(3, 8, watched=2).rounds == 5
    merged = sampled(50, 1)  # rounds a sample apart: one round's calls with a sample between them may count as two
    assert not merged.rounds_counted and merged.rounds == estimated.rounds < 50
    apart = sampled(10_000, 8)  # rounds apart, too short to hold a sample each: a lower bound
    assert not apart.rounds_counted and apart.rounds == 10_000


def test_a_hot_function_not_rewritten_is_said_with_why_where_its_time_is_its_own():
    """plain_ga's breed (a function over a list of parents, calling none of the hot functions) is said with the
    probe's reason for no experiment, terminal and page alike; main, whose time is in the functions it calls, is
    not; a function under LIBRARY_SHARE of the run is not either."""
    a = _analysis("plain_ga")
    hot = {h.function: h for h in a.program.hotspots}
    said = {v.id: v.sentence for v in views(a.program)}
    breed = hot["breed"]
    assert breed.shape == "neither" and breed.why and breed.why in said[breed.id]
    assert f"took {breed.share:.0%} of the run" in said[breed.id]
    assert hot["main"].id not in said and hot["random_individual"].id not in said
    text, page = (renderer(f).render(a) for f in ("text", "html"))
    assert breed.why in text and html.escape(breed.why) in page


def test_a_scripts_top_level_is_told_by_the_file_with_what_its_lines_called_and_no_function_to_rewrite():
    """A hot ``<module>`` (as the probe writes a script's top level whose own lines held the time) is "the top level
    of" its file, with the library its line called, and no word of a function inspector could rewrite."""
    def top_level(data):
        hot = data["program"]["hotspots"]
        main = next(h for h in hot if h["function"] == "main")
        hot.append({**main, "id": "<module> (plain_ga.py:1)", "function": "<module>", "line": 1, "share": 0.4,
                    "samples": 58, "callers": [], "why": "it takes no argument",
                    "lines": [{"line": 90, "samples": 50, "into": "deap.algorithms.eaSimple", "into_samples": 50,
                               "within": None, "within_samples": None}]})
    a = _analysis("plain_ga", top_level)
    (view,) = [v for v in views(a.program) if v.id == "<module> (plain_ga.py:1)"]
    assert view.sentence.startswith("The top level of plain_ga.py took 40% of the run")
    assert "at line 90 (34% in deap.algorithms.eaSimple)" in view.sentence
    assert view.sentence.endswith("held the time at line 90.") and "neither" not in view.sentence


def test_a_function_whose_time_went_into_a_library_and_the_programs_functions_says_both_shares():
    """DEAP's nqueens: main's line calls eaSimple, which calls the program's evalNQueens; main's sentence gives the
    library's share at that line and evalNQueens' share of the run, with the line it was called from. The page says
    how the experiment ran only where one did, and that a program compiled nothing once."""
    a = _analysis("deap-nqueens")
    hot = {h.function: h for h in a.program.hotspots}
    main, evaluate = hot["main"], hot["evalNQueens"]
    (line,) = [x for x in main.lines if x.into]
    (said,) = [v.sentence for v in views(a.program) if v.id == main.id]
    assert f"{line.share:.0%} at line {line.line} ({line.into_share:.0%} in {line.into}" in said
    assert f"in the program's functions it called, {evaluate.share:.0%} in evalNQueens (line {line.line})" in said
    assert said.endswith("on the population: its first argument (seed) is an int, not an individual or a "
                         "population.")
    assert evaluate.runs and "experiment ran" in renderer("html").render(a)
    knapsack = _analysis("deap-knapsack")  # nothing experimented on
    page = renderer("html").render(knapsack)
    assert not any(h.runs for h in knapsack.program.hotspots) and "experiment ran" not in page
    assert page.count("compiled nothing") == 1 and "Compiled functions" not in page


@pytest.mark.parametrize("stem", ["plain_ga", "plain-list_of_arrays"])
def test_a_population_of_lists_is_made_an_array_in_each_run_and_the_words_say_what_that_costs(stem):
    """plain_ga keeps its population as a list of lists, list_of_arrays as a list of arrays each of its own: each run
    over it makes it an array at each call, as the call to copy does, and the sentence says how long that takes and
    what the fastest run would take without it (inferred); a population function's experiment (vectorized_es) and
    np.apply_along_axis's (an array already) have no conversion and no such words."""
    a = _analysis(stem)
    (hot,) = _experimented(a)
    (view,) = [v for v in views(a.program) if v.id == hot.id]
    fastest = min((r for r in hot.runs if r.id != "as-written" and r.matches), key=lambda r: r.per_round_s)
    assert hot.to_array_s and fastest.per_round_s > hot.to_array_s
    kept = seconds(fastest.per_round_s - hot.to_array_s)
    assert (f"{seconds(hot.to_array_s)} of each run over the population is making the program's list of individuals "
            f"an array (np.asarray, as the call to copy does); with the population kept as an array, "
            f"{the(fastest.id)} would take about {kept} (inferred).") in view.sentence
    for stem in ("plain-vectorized_es", "plain-apply_along_axis_int8"):
        other = _analysis(stem)
        assert all(h.to_array_s is None for h in other.program.hotspots)
        assert not any("an array (np.asarray" in v.sentence for v in views(other.program))


def test_a_run_that_numba_cannot_compile_says_what_failed_not_only_the_step():
    """numba's errors open with the step of its pipeline that failed (nested steps on the next lines); what failed
    comes after them: an error, kept whole in the record, is said in one line that keeps both (here the NumPy
    rewrite's running total, a float, then an array; and knapsack_breaks' trial under numba, whose global list numba
    refuses in a nested step)."""
    import numba
    from inspector.render.words import error_line

    def fitness_numpy(pop):
        total = 0.0
        total += np.sum(pop * pop, axis=1)
        return total
    with pytest.raises(Exception) as raised:
        numba.njit(fitness_numpy)(np.ones((4, 3)))
    assert error_line(f"{type(raised.value).__name__}: {raised.value}") == (
        "TypingError: Failed in nopython mode pipeline (step: nopython frontend): No implementation of function "
        "Function(<built-in function iadd>) found for signature: >>> iadd(float64, array(float64, 1d, C))")
    nested = [t.error for t in load(RECORDS / "torch-2.13.0" / "knapsack_breaks.json").trials
              if t.error and "nopython frontend)\n" in t.error]
    assert nested and all(error_line(e).startswith(
        "TypingError: Failed in nopython mode pipeline (step: ensure features that are in use are in a valid form): "
        "The use of a reflected list") for e in nested)
    assert error_line("ValueError: first\nsecond") == "ValueError: first" and error_line(None) == ""


@pytest.mark.parametrize("name, function, row, genes", [("list_of_arrays", "fitness", Row.ARRAY, 12),
                                                        ("map_gene_loop", "evaluate", Row.LIST, 30)])
def test_numba_runs_the_numpy_rewrite_of_a_running_total(name, function, row, genes):
    """The NumPy rewrites of list_of_arrays' fitness and map_gene_loop's evaluate start a total as a number and add an
    array to it (``+=``), and map_gene_loop's returns a tuple (``np.stack([value], axis=1)``), which numba cannot
    type; under numba they run as ``total = total + ...`` with the stack given a tuple (``for_numba``), the rewrite
    shown unchanged, and give the eager rewrite's values."""
    import runpy
    import numba
    from inspector.probe.rewritten import jitted
    from inspector.rewrite import read_program
    from inspector.rewrite.check import rewritten
    path = PLAIN_FOLDER / f"{name}.py"
    written = vectorize(read_program(str(path)), function, Dialect.NUMPY, row, suffix="numpy")
    assert " += " in written.program_source
    entry = rewritten(written, runpy.run_path(str(path)))
    population = np.random.default_rng(0).uniform(-2, 2, (50, genes))
    with pytest.raises(numba.core.errors.TypingError):
        numba.njit(entry)(population)
    assert np.allclose(jitted(written, entry)(population), entry(population))


@pytest.mark.parametrize("name, function, genes", [("map_gene_loop", "evaluate", 30),
                                                  ("list_of_arrays", "fitness", 12)])
def test_numba_runs_a_function_as_it_stands_over_the_rows_whether_it_returns_a_number_or_a_tuple_of_one(
        name, function, genes):
    """A fitness that returns a tuple of one value (DEAP's convention: map_gene_loop's ``return (value,)``) has that
    value put in the loop's array of one number per row, where numba could not put the tuple; one that returns a
    number, the number."""
    import runpy
    from inspector.probe.rewritten import over_rows
    space = runpy.run_path(str(PLAIN_FOLDER / f"{name}.py"))
    fn = space[function]
    population = np.random.default_rng(0).uniform(-2, 2, (20, genes))
    assert np.allclose(over_rows(fn, space)(population), [np.ravel(fn(list(row)))[0] for row in population])


def test_numba_runs_a_fitness_that_reads_a_global_list_of_constraints_and_its_rewrites_totals():
    """penalty_loops' fitness_python reads CONSTRAINTS, a global list of (gene, gene, bound) tuples, which numba
    refuses (a reflected list): under numba it reads the list as a tuple, in a copy of the namespace (the sample's
    stays a list). Its NumPy rewrite starts ``violation = 0.0`` and adds an array to it in the loop over the
    constraints, which numba cannot give one type: under numba the total starts as one number per row. Both give
    the function's own values."""
    import runpy
    import numba
    from inspector.probe.rewritten import for_numba, jitted, over_rows
    from inspector.rewrite import read_program
    from inspector.rewrite.check import rewritten
    path = ROOT / "samples" / "penalty_loops.py"
    space = runpy.run_path(str(path))
    fn, population = space["fitness_python"], np.random.default_rng(0).uniform(-2, 2, (40, 10))
    expected = [fn(row) for row in population]
    with pytest.raises(numba.core.errors.TypingError):
        numba.njit(fn)(population[0])
    assert np.allclose(over_rows(fn, space)(population), expected) and isinstance(space["CONSTRAINTS"], list)
    written = vectorize(read_program(str(path)), "fitness_python", Dialect.NUMPY, Row.LIST, suffix="numpy")
    assert "    violation = 0.0\n" in written.program_source
    assert "    violation = np.full(population.shape[0], 0.0)\n" in for_numba(written)
    entry = rewritten(written, dict(space))
    assert np.allclose(jitted(written, entry)(population), expected)


def test_the_experiments_rounds_leave_what_was_tracked_before_them_out_of_collections():
    """A full collection over torch's objects and the compiles' (a quarter of a second) fell in the one round of
    map_gene_loop's function as written: 310 ms where it takes 17. The rounds run with what the collector tracked
    before them frozen (the first call, a compile, as it is), and unfrozen after."""
    import gc
    from inspector.probe.experiment import _timed
    frozen = []
    facts = _timed({"as-written": (lambda: frozen.append(gc.get_freeze_count()), {"id": "as-written"})}, None, 0.05)
    assert facts[0]["rounds"] and frozen[0] == 0 and min(frozen[1:]) > 0 and gc.get_freeze_count() == 0


def test_a_signal_that_comes_while_the_sampler_runs_takes_no_sample():
    """Python runs a signal handler between bytecodes, the sampler's own included: a sample taken inside another
    would have its counts written over by the one it interrupted (a function's samples then fewer than its lines',
    as an end-to-end run once showed), so it takes none, and the time it stood for is the next sample's."""
    from inspector.probe.hotspots import Hotspots

    hot = Hotspots([str(ROOT / "samples")])
    frame = sys._getframe()
    hot.taking = True
    hot._sample(signal.SIGPROF, frame)
    assert hot.samples == 0 and hot.last_tick is None
    hot.taking = False
    hot._sample(signal.SIGPROF, frame)
    assert hot.samples == 1 and not hot.taking and hot.last_tick is not None
