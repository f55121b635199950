"""Fixes as values (analysis/fixes.py), from checked-in records: each kind's precondition holding and not holding,
what each fix tried measured (matched to its Fix), which a run tries, and that a fix is advice only as its kind and
its measured effect say."""

import dataclasses
import json
import statistics
from html import escape

import pytest

from conftest import analysis, line_of, record_path
from inspector.analysis import analyze, fixes
from inspector.analysis.parse import breaks as parse_breaks
from inspector.model import BreakFix, FixKind
from inspector.model.code import OVERHEAD
from inspector.raw import TENSOR_GUARDS, RawRecord
from inspector.record import load
from inspector.render import fixes as fix_words, renderer, views
from inspector.render.said import usual_fix

FIXES = "ten_genes-fixes"  # ten_genes at its default size: the layout and the tiling heuristic tried


def _of(a, kind, vid=None):
    return [f for f in a.fixes if f.kind == kind and (vid is None or f.variant == vid)]


def test_the_layout_and_the_tiling_heuristic_apply_to_strided_lines_the_heuristic_kept_scalar():
    a = analysis("2.13.0", "ten_genes")
    v = a.variant("numpy-compiled-cpu")
    strided = fixes.strided_lines(v.code)
    assert strided and fixes.strided_lines(v.code, fixes.HEURISTIC) == strided
    (layout,), (tiling,) = _of(a, FixKind.LAYOUT, v.id), _of(a, FixKind.TILING, v.id)
    assert layout.lines == tiling.lines == tuple(sorted({(e.file, e.line) for e in strided}))
    kernels = {k for e in strided for k in e.kernels}
    # the kernels' share of the profiled call, applied to the timed call: never more than the call it is part of
    share = sum(k.cost.time_share for k in v.code.kernels if k.id in kernels)
    assert layout.stake_s == pytest.approx(share * v.timing.per_population_s)
    assert layout.stake_s <= v.timing.per_population_s
    assert layout.spec.layout == "column-major" and tiling.spec.config == (fixes.TILING_OFF,)
    # under torch 2.1 the vectorization checker decided, not the heuristic: the layout applies, the tiling does not
    old = analysis("2.1.2", "ten_genes")
    code = old.variant("numpy-compiled-cpu").code
    assert fixes.strided_lines(code) and not fixes.strided_lines(code, fixes.HEURISTIC)
    assert _of(old, FixKind.LAYOUT, "numpy-compiled-cpu") and not _of(old, FixKind.TILING)
    # no strided load, neither
    s = analysis("2.13.0", "sum")
    assert not any(fixes.strided_lines(v.code) for v in s.variants)
    assert not _of(s, FixKind.LAYOUT) and not _of(s, FixKind.TILING)


@pytest.mark.parametrize("version", ["2.1.2", "2.13.0"])
def test_a_breaks_rewrite_and_its_flag_apply_where_torch_names_them(version):
    a = analysis(version, "knapsack_breaks")
    v = a.variant("torch-compiled-cpu")
    flagged = [b for b in v.code.breaks if fixes.removing_flag(b)]
    assert flagged and all(fixes.has_rewrite(b) for b in v.code.breaks)
    (flag,) = _of(a, FixKind.FLAG, v.id)
    assert flag.spec.config == (flagged[0].flag,) and set(flag.lines) == {(b.file, b.line) for b in flagged}
    cost = v.code.break_cost
    assert flag.stake_s == pytest.approx(cost.outside_fraction * v.timing.per_population_s) if cost else \
        flag.stake_s is None
    assert len(_of(a, FixKind.BREAK, v.id)) == len(v.code.breaks)
    unnamed = dataclasses.replace(flagged[0], fix=None, flag=None, hints=[])
    assert not fixes.has_rewrite(unnamed) and fixes.removing_flag(unnamed) is None
    if flagged[0].hints:  # torch's own hint names a change: a rewrite, said as torch's
        assert fixes.has_rewrite(dataclasses.replace(unnamed, hints=flagged[0].hints))
    # a break inside a library: its rewrite is the library's call, and no flag
    (lib,) = analysis(version, "pymoo_g7").variant("numpy-compiled-cpu").code.breaks
    assert fixes.has_rewrite(lib) and fixes.removing_flag(lib) is None


@pytest.mark.parametrize("version", ["2.1.2", "2.13.0"])
def test_a_flag_is_said_once_by_its_own_fix_never_inside_a_breaks_rewrite(version):
    a = analysis(version, "knapsack_breaks")
    flags = {f.spec.config[0]: f for f in _of(a, FixKind.FLAG)}
    assert flags
    said = [c.text for c in views.changes(a) + views.tried_without_gain(a)]
    for flag, fix in flags.items():
        # where trying it gained nothing, no advice names it; the break's own line still says it
        assert not any(flag in text or flag.split("=")[0].split(".")[-1] in text for text in said
                       if text != fix_words.advice(fix))
        assert all(flag in (usual_fix(b.usual) or "") for b in a.variant(fix.variant).code.breaks if b.flag == flag)


def test_stopping_recompiles_applies_to_a_variant_that_recompiled_on_every_call_only():
    a = analysis("2.1.2", "recompiling")
    (fix,) = _of(a, FixKind.RECOMPILES)
    v = a.variant(fix.variant)
    assert fixes.recompiles_each_call(v) and fix.cause is v.code.recompilation
    assert fix.stake_s == v.timing.per_population_s
    assert not any(fixes.recompiles_each_call(v) for v in analysis("2.13.0", "trig").variants)


def test_static_shapes_apply_where_a_size_recompiled_on_a_guard_of_a_size():
    a = analysis("2.13.0", "knapsack_breaks")
    v = a.variant("numpy-compiled-cpu")
    assert fixes.size_recompiled(v) and any(fixes.SIZE_GUARD in g for s in v.code.sizes for g in s.guards)
    (fix,) = _of(a, FixKind.STATIC, v.id)
    assert fix.spec.compile_options == {"dynamic": False} and fix.spec.sizes == tuple(s.population
                                                                                        for s in v.code.sizes)
    assert fixes.size_recompiled(analysis("2.13.0", "ga").function("fitness"))  # a program's, from its calls
    assert not any(fixes.size_recompiled(v) for v in analysis("2.13.0", "trig").variants)


def test_dropping_guards_applies_where_their_evaluation_could_make_a_call_gain_and_runs_alone():
    """Guards on tensors only (torch.compiler.keep_tensor_guards_unsafe): where the guards, the profiler's own cost
    taken off, are 1 - 1/GAIN of the call or more; tried side by side (on a copy of the function: the filter is not
    part of the backend, so a compile of the function itself would find the variant's code); said as unsafe; a record
    without the estimate has no such fix."""
    found = 0
    ok = 0
    for stem in ("trig", "knapsack_breaks", "poly", "poly-guards"):
        a, raws = analysis("2.13.0", stem), {t.id: t for t in load(record_path("2.13.0", stem)).trials}
        for v in a.variants:
            split = v.code.time_split if v.compiled else None
            est = split.without_profiler if split else None
            holds = bool(est and est.guards_s and est.guards_s >= (1 - 1 / fixes.GAIN) * split.call_s)
            assert bool(_of(a, FixKind.GUARDS, v.id)) == holds, (stem, v.id)
            for fix in _of(a, FixKind.GUARDS, v.id):
                found += 1
                assert fix.spec.config == (TENSOR_GUARDS,) and fix.stake_s
                raw = raws[f"{v.id}~guard-filter"]
                assert not raw.alone and fix.tried and not fix.tried.alone and fix.tried.status == raw.status
                assert "Unsafe" in fix_words.advice(fix) and "keep_tensor_guards_unsafe" in fix_words.advice(fix)
                assert fix_words.trial(fix.tried).startswith("tried: guards on tensors only → ")
                assert fixes.advised(fix) == fix.tried.gain
                if fix.tried.status == "ok":  # timed in the alternating rounds with its variant
                    ok += 1
                    assert fix.tried.rounds == 3 and fix.tried.spread and fix.tried.matches is True
    assert found and ok


def test_each_fix_tried_is_matched_to_its_fix_with_its_side_by_side_speedup():
    record = load(record_path("2.13.0", FIXES)).to_json()
    rounds = record["rounds"]["variants"]
    a = analysis("2.13.0", FIXES)
    tried = {f.tried.id: f for f in a.fixes if f.tried}
    assert set(tried) == {t["id"] for t in record["trials"]}
    for raw in record["trials"]:
        fix = tried[raw["id"]]
        t = fix.tried
        assert fix.id == t.id and fix.variant == t.variant == raw["variant"] and fix.kind == t.kind
        assert t.spec.name == raw["fix"] and t.status == "ok" and t.matches is True
        before = {r["round"]: r["median_s"] for r in rounds[raw["variant"]]}
        after = {r["round"]: r["median_s"] for r in rounds[raw["id"]]}
        ratios = [before[r] / after[r] for r in sorted(before.keys() & after.keys())]
        assert t.speedup == pytest.approx(statistics.median(ratios)) and t.rounds == len(ratios) == 3
        assert t.spread == (min(ratios), max(ratios))
        assert t.gain == (t.speedup >= fixes.GAIN and min(ratios) > 1)
        assert fix_words.trial(t).startswith(f"tried: {fix_words.LABELS[t.kind]} → ")


def test_column_major_says_which_lines_are_now_vectorized():
    a = analysis("2.13.0", FIXES)
    (fix,) = [f for f in a.fixes if f.kind == FixKind.LAYOUT and f.tried]
    t = fix.tried
    g1 = line_of(a, "g1 = -105")
    before = next(e for e in a.variant(t.variant).code.lines if e.line == g1)
    assert before.vectorized == "none"  # the constraints' nest: scalar, strided loads
    assert (a.sample.path, g1) in t.effect.vectorized_now and (a.sample.path, g1) in fix.lines
    said = fix_words.trial(t)
    assert "lines 42-44, 50-59, 71-72 now vectorized" in said
    # said where the advice is, and above the variant's source, whose lines it was about
    assert f"{said} (the fix applied by inspector" in renderer("html").report(a)


def test_a_fix_is_advice_only_as_its_kind_and_its_measured_effect_say():
    a = analysis("2.13.0", FIXES)
    found = a.fixes
    assert all(fixes.advised(f) == f.tried.gain for f in found if f.tried)
    untried = [f for f in found if not f.tried]
    assert untried and all(fixes.advised(f) == (f.kind in fixes.ADVISED_UNTRIED) for f in untried)
    assert not fixes.advised(dataclasses.replace(_of(analysis("2.13.0", "ga"), FixKind.FLAG)[0], tried=None))
    advice, idle = views.changes(a), views.tried_without_gain(a)
    for t in (f.tried for f in found if f.tried):
        said = fix_words.trial(t)
        assert any(at.tried == said for c in (advice if t.gain else idle) for at in c.at), said
        assert not any(at.tried == said for c in (idle if t.gain else advice) for at in c.at), said
    text, html = renderer("text").report(a), renderer("html").report(a)
    for c in idle:
        assert f"tried, no gain (not advice): {c.text}" in text and "Tried, no gain (not advice)" in html


@pytest.mark.parametrize("version", ["2.1.2", "2.13.0"])
@pytest.mark.parametrize("stem", ["ten_genes", FIXES, "poly", "trig", "knapsack_breaks"])
def test_the_tiling_heuristic_is_advice_only_with_its_measured_effect(version, stem):
    a = analyze(load(record_path(version, stem)))
    for c in views.changes(a) + views.tried_without_gain(a):
        if "tiling" in c.text:
            assert all(at.tried and at.tried.startswith("tried: the tiling heuristic off → ") and at.gain is not None
                       for at in c.at)


def test_a_run_tries_each_fix_where_it_can():
    ten = fixes.to_try(analysis("2.13.0", "ten_genes"), fixes.TRYABLE)
    assert [f.spec.name for f in ten] == ["tiling-off", "column-major"]  # config first, layout last
    assert len({f.variant for f in ten}) == 1
    knapsack = analysis("2.13.0", "knapsack_breaks")
    flags = {(f.variant, f.spec.config[0]) for f in fixes.to_try(knapsack, (FixKind.FLAG,))}
    assert ("torch-compiled-cpu", "dynamo.capture_scalar_outputs=True") in flags
    static = fixes.to_try(knapsack, (FixKind.STATIC,))  # 9,000 recompiled on size
    assert {(f.variant, f.spec.sizes[0]) for f in static} == {("numpy-compiled-cpu", 9000),
                                                              ("torch-compiled-cpu", 9000)}
    assert fixes.to_try(analysis("2.13.0", "sum"), fixes.TRYABLE) == []
    old = analysis("2.1.2", "ten_genes")  # the vectorization checker decided: the tiling heuristic is not tried
    assert [f.spec.name for f in fixes.to_try(old, fixes.TRYABLE)] == ["column-major"]
    record = load(record_path("2.13.0", "ten_genes")).to_json()
    one = RawRecord.from_json(dict(record, sample=dict(record["sample"], shape=[5])))
    assert [f.spec.name for f in fixes.to_try(analyze(one), fixes.TRYABLE)] == ["tiling-off"]  # no rows, no layout


def test_a_program_says_what_could_be_tried_and_how_not_measured():
    record = load(record_path("2.13.0", "ga")).to_json()
    record["program"]["try_fixes"] = False
    assert views.program_fixes(analyze(RawRecord.from_json(record))) == []  # not asked for (--no-try-fixes)
    record["program"]["try_fixes"] = True
    a = analyze(RawRecord.from_json(record))
    said = views.program_fixes(a)
    assert said and all(f.function == "fitness" for f in said)
    assert all(f.tried is None for f in a.fixes)  # a program runs as it is: nothing tried
    text = renderer("text").program(a)
    assert "Could be tried (not measured" in text and "capture_scalar_outputs = True" in text
    assert "dynamic=False" in text and "its argument pop column-major" in text


def test_one_advice_for_several_variants_says_each_variants_measured_effect():
    a = analysis("2.13.0", "knapsack_breaks")  # static shapes tried on both compiled variants
    static = [f for f in a.fixes if f.kind == FixKind.STATIC and f.tried]
    assert {f.variant for f in static} == {"numpy-compiled-cpu", "torch-compiled-cpu"}
    (change,) = [c for c in views.changes(a) + views.tried_without_gain(a) if c.text == fix_words.advice(static[0])]
    assert {(at.variant, at.tried) for at in change.at} == {(f.variant, fix_words.trial(f.tried)) for f in static}
    text, html = renderer("text").report(a), renderer("html").report(a)
    for f in static:
        said = fix_words.trial(f.tried)
        assert said in text and f"<code>{f.variant}</code> · {escape(said, quote=False)}" in html
    # a static trial's speedup is said as it was measured: the median of the steady calls at the last size, not the
    # rounds' spread (said apart, at the first size)
    for f in static:
        last = f.tried.sizes[-1]
        assert f.tried.speedup == pytest.approx(last.steady_before_s / last.steady_after_s)
        assert f"the median of {last.steady_calls} steady calls each at 9,000" in fix_words.trial(f.tried)
        assert "at the first size" in fix_words.trial(f.tried) and last.steady_calls > 1


def test_a_fix_tried_once_for_every_variant_stays_no_gain_for_all_and_each_line_links_to_its_variant():
    a = analysis("2.13.0", "ten_genes")  # the layout tried on numpy-compiled-cpu only: no gain
    layout = [f for f in a.fixes if f.kind == FixKind.LAYOUT]
    assert len(layout) == 2 and [f.variant for f in layout if f.tried] == ["numpy-compiled-cpu"]
    (change,) = [c for c in views.tried_without_gain(a) if c.text == fix_words.advice(layout[0])]
    assert [at.variant for at in change.at] == ["numpy-compiled-cpu"]  # said where it was tried
    assert not [c for c in views.changes(a) if c.text == change.text]  # never advice on the variant not tried
    trig = analysis("2.13.0", "trig")  # the layout's lines are in two variants' functions: each links to its own
    said = views.changes(trig) + views.tried_without_gain(trig)
    (column,) = [c for c in said if c.text == fix_words.advice(layout[0])]
    lines = {(e.file, e.line) for e in trig.variant("numpy-compiled-cpu").code.lines}
    assert {r.variant for r in column.lines} == {"numpy-compiled-cpu", "torch-compiled-cpu"}
    assert all(r.variant == "numpy-compiled-cpu" for r in column.lines if (r.file, r.line) in lines)


def _program(stem, **changes):
    """The analysis of a program's checked-in record, its first function's ``run`` changed as given."""
    record = load(record_path("2.13.0", stem)).to_json()
    record["variants"][0]["run"].update(changes)
    return analyze(RawRecord.from_json(record))


def test_the_layout_is_advice_only_for_an_array_the_function_takes_as_an_argument():
    a = analysis("2.13.0", "ga")
    fitness = a.program.functions[0]
    assert fixes.strided_lines(fitness.code) and fixes.strided_argument(fitness) == "pop"
    (layout,) = _of(a, FixKind.LAYOUT)
    assert layout.detail == "pop" and "its argument pop column-major" in fix_words.program(layout, a.sample.path)
    # a method whose population is on self: strided loads, but no argument to pass column-major; the tiling stays
    m = analysis("2.13.0", "method_on_self")
    method = m.program.functions[0]
    assert fixes.strided_lines(method.code) and [x.type for x in method.arguments] == ["Population"]
    assert fixes.strided_argument(method) is None and not _of(m, FixKind.LAYOUT) and _of(m, FixKind.TILING)
    # a record without the arguments (made before they were recorded): not shown, not given
    old = analysis("2.1.2", "ga").program.functions[0]
    assert old.arguments is None and fixes.strided_argument(old) is None
    # a vmap'd state wrapper as the argument: no array of it to pass column-major
    state = [{"name": "state", "type": "State"}]
    assert not fixes.strided_argument(_program("ga", arguments=state).program.functions[0])
    assert not _of(_program("ga", arguments=state), FixKind.LAYOUT)
    # an argument that is no row-major array: a vector, a column-major array
    assert not fixes.strided_argument(_program("ga", arguments=[{"name": "pop", "type": "tensor", "shape": [9],
                                                                  "strides": [1]}]).program.functions[0])
    assert not fixes.strided_argument(_program("ga", arguments=[{"name": "pop", "type": "tensor", "shape": [9, 3],
                                                                  "strides": [1, 9]}]).program.functions[0])
    # a sample's variant takes its population
    assert fixes.strided_argument(analysis("2.13.0", "ten_genes").variant("numpy-compiled-cpu")) == "population"


def test_a_guard_on_a_python_number_argument_gets_torchs_fix_a_tensor_and_a_size_guard_does_not():
    a = analysis("2.13.0", "recompile_on_float")
    h = a.program.functions[0]
    assert any(r.text.startswith("c == ") for c in h.run.recompiles for r in c.reasons)
    assert fixes.number_guarded(h) == ["c"] and not fixes.size_recompiled(h)
    (fix,) = _of(a, FixKind.NUMBER)
    assert fix.detail == "c" and fixes.advised(fix) and not _of(a, FixKind.STATIC) and not _of(a, FixKind.DYNAMIC)
    assert "Pass c as a tensor (torch.tensor(c))" in fix_words.advice(fix)
    # the guarded name is no number argument (a tensor there): nothing said
    args = [{"name": "x", "type": "tensor", "shape": [9], "strides": [1]}, {"name": "c", "type": "tensor"}]
    assert fixes.number_guarded(_program("recompile_on_float", arguments=args).program.functions[0]) == []
    # an optimizer's float lr, guarded by its value: the lr as a tensor
    compiles = [{"call": 2, "seconds": 1.0, "kind": "recompile", "compile_ids": ["0/1"],
                 "reasons": ["0/0: opt.param_groups[0]['lr'] == 0.01  # lr = group['lr']"]}]
    lr = _program("recompile_on_float", compiles=compiles)
    assert fixes.number_guarded(lr.program.functions[0]) == ["lr"]
    assert "lr=torch.tensor(0.01)" in fix_words.advice(_of(lr, FixKind.NUMBER)[0])
    # a size guard: shapes, not numbers
    assert fixes.number_guarded(analysis("2.13.0", "recompile_limit").program.functions[0]) == []


def test_a_function_already_dynamic_false_is_never_advised_dynamic_false():
    a = analysis("2.13.0", "recompile_limit")
    g = a.program.functions[0]
    assert g.compile_options == {"dynamic": False} and fixes.static_already(g) and fixes.size_recompiled(g)
    (fix,) = _of(a, FixKind.DYNAMIC)
    assert not _of(a, FixKind.STATIC) and fix.detail == "x" and fixes.advised(fix)
    said = " ".join(f.text for f in views.program_fixes(a))
    assert "dynamic=False)" not in said and "torch.compile(fn, dynamic=True)" in said
    assert "torch._dynamo.mark_dynamic(x, 0)" in said and "torch._dynamo.config.recompile_limit" in said
    # the same run had it not said dynamic=False: static shapes and dynamic shapes are two choices, each said once,
    # about the input torch's guard named, each tried (on a sample) at the sizes the function was called at
    b = _program("recompile_limit", compile_options={})
    (static,), (dynamic,) = _of(b, FixKind.STATIC), _of(b, FixKind.DYNAMIC)
    assert (static.detail, static.axis) == (dynamic.detail, dynamic.axis) == ("x", 0)
    assert (static.spec.compile_options, dynamic.spec.compile_options) == ({"dynamic": False}, {"dynamic": True})
    assert static.spec.sizes == dynamic.spec.sizes
    assert "torch._dynamo.mark_static(x, 0) (kernels" in fix_words.static(static)
    assert "dynamic=True" not in fix_words.static(static) and "mark_dynamic(x, 0)" in fix_words.dynamic(dynamic)


def test_a_data_dependent_branch_gets_torch_where_where_both_branches_are_tensor_expressions_else_torch_cond():
    a = analysis("2.13.0", "data_dependent_if")
    (b,) = a.program.functions[0].code.breaks
    assert b.cause == "data-dependent-branch" and b.fix == BreakFix.WHERE
    (fix,) = _of(a, FixKind.BREAK)
    said = " ".join(f.text for f in views.program_fixes(a))
    assert f"graph break at line {b.line}" in said and "torch.where(condition, a, b)" in said
    assert fixes.torch_hints(b) == []  # torch's hints name torch.cond and torch.where, which the fix says
    forms = {"if x.sum() > 0:\n        return x + 1\n    return x - 1": "where",
             "if x.sum() > 0:\n        x = x + 1\n    return x": "where",
             "if x.sum() > 0:\n        x = x + 1\n    else:\n        x = x * 2\n    return x": "where",
             "return x + 1 if x.sum() > 0 else x - 1": "where",
             "if x.sum() > 0:\n        print(x)\n        return x\n    return x - 1": "cond",
             "if x.sum() > 0:\n        return None\n    return x": "cond",
             "if x.sum() > 0:\n        y = x + 1\n    else:\n        z = x\n    return x": "cond",
             "while x.sum() > 0:\n        x = x - 1\n    return x": None}
    for body, form in forms.items():
        assert fixes.branch_form(f"def k(x):\n    {body}\n", 2) == form, body
    assert fixes.branch_form("def k(x:\n", 1) is None


def test_a_breaks_advice_is_torchs_hint_where_it_gave_one_said_as_torchs_and_nothing_where_none_is_known():
    (b,) = analysis("2.13.0", "data_dependent_if").program.functions[0].code.breaks
    logging = dataclasses.replace(b, fix=BreakFix.PRINT, hints=[
        "Please report an issue to PyTorch.",
        "you can try adding it to `torch._dynamo.config.reorderable_logging_functions`."])
    assert fixes.torch_hints(logging) == logging.hints[1:]
    assert fix_words.rewrite(logging, fixes.torch_hints(logging)) == (
        "Remove the print from the compiled function, or log outside it. Torch's hint: you can try adding it to "
        "`torch._dynamo.config.reorderable_logging_functions`.")
    # torch's hint to remove a call the break's line does not make (the call is in torch's code below it): not said
    removing = dataclasses.replace(b, fix=None, hints=["Remove the `torch._dynamo.graph_break()` call."])
    assert fixes.torch_hints(removing) == [] and not fixes.has_rewrite(removing)
    assert fixes.torch_hints(dataclasses.replace(removing, code="torch._dynamo.graph_break()")) == removing.hints
    unknown = dataclasses.replace(b, cause="unsupported", fix=None, hints=["Please report an issue to PyTorch."])
    assert not fixes.has_rewrite(unknown)
    assert parse_breaks.cause_of("Unsupported method call").fix is None  # no guessed rewrite


def test_each_trial_keeps_the_kind_of_fix_it_was_asked_for_and_an_older_record_gets_it_on_loading(tmp_path):
    a = analysis("2.13.0", "knapsack_breaks")
    assert all(f.kind == f.tried.kind for f in a.fixes if f.tried)
    assert {f.kind for f in a.fixes if f.tried} >= {FixKind.FLAG, FixKind.STATIC}
    record = json.loads(record_path("2.13.0", "ten_genes").read_text(encoding="utf-8"))
    asked = {t["id"]: t.pop("kind") for t in record["trials"]}  # as inspector wrote them before trials carried it
    old = tmp_path / "ten_genes.json"
    old.write_text(json.dumps(record), encoding="utf-8")
    assert {t.id: t.kind for t in load(old).trials} == asked == {"numpy-compiled-cpu~tiling-off": "tiling",
                                                                "numpy-compiled-cpu~column-major": "layout"}


def test_cuda_graphs_apply_to_a_cuda_call_mostly_outside_its_kernels_never_on_the_cpu():
    """mode="reduce-overhead" where a CUDA variant's call is OVERHEAD or more outside its kernels (the parts less the
    profiler's own cost where estimated): tried on that variant; on the CPU no such fix (the page says why instead).
    The CUDA variant here (skipped in the record: no GPU) is decoded's CPU one relabelled: its figures, a CUDA
    device."""
    record = load(record_path("2.13.0", "decoded")).to_json()
    cpu = next(v for v in record["variants"] if v["id"] == "torch-compiled-cpu")
    record["variants"] = [dict(cpu, id=v["id"], device="cuda") if v["id"] == "torch-compiled-cuda" else v
                          for v in record["variants"]]
    a = analyze(RawRecord.from_json(record))
    split = a.variant("torch-compiled-cuda").code.time_split
    parts, whole = split.parts()
    assert parts.kernels_s <= (1 - OVERHEAD) * whole  # decoded at 20,000: a call mostly outside its kernels
    assert not _of(a, FixKind.CUDA_GRAPHS, "torch-compiled-cpu")
    (fix,) = _of(a, FixKind.CUDA_GRAPHS, "torch-compiled-cuda")
    assert fix.spec.compile_options == {"mode": "reduce-overhead"} and not fix.tried and not fixes.advised(fix)
    assert fix.stake_s == pytest.approx((1 - parts.kernels_s / whole) * a.variant(fix.variant).timing.per_population_s)
    assert fix in fixes.to_try(a, fixes.TRYABLE) and fixes.can_try(fix, a)
    assert fix_words.advice(fix).startswith('Compile with mode="reduce-overhead" (torch.compile(fn, '
                                            'mode="reduce-overhead")): most of each call is outside its kernels')
