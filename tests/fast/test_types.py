"""One type per thing, each built once, whole: a sample's variant, a program's function, a sweep's size and a fix
tried are separate types; their compiled code is one value built by one function from raw pieces (a fix tried
included, with no fake variant); and the shape the code keeps: no analysis-model dataclass over 20 fields, no
function of the analysis over 60 lines, no module of collect, the probe or the renderers importing the analysis, no
branch on a run being a program's, and no import cycle (a lazy import included)."""

import ast
import dataclasses
import inspect
import re

from conftest import ROOT, analysis, record_path
from inspector import model
from inspector.analysis import compiled, lines
from inspector.analysis.variants import target_of
from inspector.model import (CodeLocation, CompiledCode, ProgramAnalysis, ProgramFunction, SampleAnalysis,
                             SampleVariant, SweepEntry, TrialResult, of_raw)
from inspector.record import load

MAX_FIELDS = 20


def _context(a):
    return compiled.Context(lines.Sources(a.files), a.env, tuple(a.sample.shape))


def test_no_dataclass_of_the_analysis_model_has_more_than_20_fields():
    found = {name: len(dataclasses.fields(t)) for name, t in vars(model).items()
             if isinstance(t, type) and dataclasses.is_dataclass(t)}
    assert {"SampleVariant", "SampleAnalysis", "ProgramAnalysis"} <= set(found)
    assert {name: n for name, n in found.items() if n > MAX_FIELDS} == {}


def test_collect_the_probe_and_the_renderers_import_nothing_from_the_analysis():
    """Collect and the probe come before the analysis; the renderers read what it stored (``inspector.model``)."""
    found = []
    for folder in ("collect", "probe", "render"):
        for path in sorted((ROOT / "inspector" / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                    f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else []
                found += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.startswith("inspector.analysis")]
    assert not found


def _conditions(tree):
    """Every expression of ``tree`` a branch is taken on: an if's, a conditional expression's, a loop's, a
    comprehension's, each operand of ``and``/``or``, what ``bool()`` is asked of."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            yield node.test
        elif isinstance(node, ast.comprehension):
            yield from node.ifs
        elif isinstance(node, ast.BoolOp):
            yield from node.values
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "bool":
            yield from node.args


def _tested(condition):
    """What a condition asks the truth of: ``x`` of ``x``, ``not x``, ``x is None`` and ``x is not None``."""
    if isinstance(condition, ast.UnaryOp) and isinstance(condition.op, ast.Not):
        return _tested(condition.operand)
    if isinstance(condition, ast.Compare) and isinstance(condition.ops[0], (ast.Is, ast.IsNot)):
        return condition.left
    return condition


def test_no_branch_on_whether_a_run_is_a_programs_in_the_analysis_or_the_renderers():
    """A sample's run and a program's are two types (``SampleAnalysis``, ``ProgramAnalysis``): code dispatches on the
    type, never on a ``program`` being there. Only ``analyze`` reads the raw record's (``record.program``) to pick
    the one to make."""
    found = []
    for folder in ("analysis", "render"):
        for path in sorted((ROOT / "inspector" / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [f"{path.relative_to(ROOT)}:{n.lineno}: {ast.unparse(n)}" for n in map(_tested, _conditions(tree))
                      if isinstance(n, ast.Attribute) and n.attr == "program"
                      and not (isinstance(n.value, ast.Name) and n.value.id == "record")]
    for path in sorted((ROOT / "inspector" / "render" / "templates").glob("*.j2")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)}: {m}" for m in re.findall(r"{[{%][^}]*\bif\b[^}]*\.program\b[^}]*[}%]}",
                                                                        text)]
    assert not found


def _imports():
    """{module: the inspector modules it imports}: at the top, under TYPE_CHECKING and inside functions alike
    (``from package import module`` names the module; a package's own parent is not counted)."""
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
               for p in (ROOT / "inspector").rglob("*.py")}
    found = {}
    for name, path in modules.items():
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                             for a in node.names}
        found[name] = {m for m in imported if m in modules and m != name}
    return found


def test_no_import_cycle_not_even_through_a_lazy_import():
    """An import inside a function is there to keep torch out of what imports it, never to break a cycle: counted
    as imports, they make no cycle. ``inspector``'s own lazy attributes (inspector.report, inspector.check) are the
    package's front door, left out."""
    graph = _imports()
    graph["inspector"] = set()
    cycles, done = [], set()

    def visit(name, path):
        if name in path:
            cycles.append(path[path.index(name):] + [name])
        elif name not in done:
            for imported in sorted(graph[name]):
                visit(imported, path + [name])
            done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert not cycles, cycles


def test_a_samples_variants_a_programs_functions_and_a_sweeps_sizes_are_types_of_their_own():
    sample, program = analysis("2.13.0", "ten_genes-fixes"), analysis("2.13.0", "ga")
    assert type(sample) is SampleAnalysis and type(program) is ProgramAnalysis  # one value per run kind
    assert sample.variants and all(type(v) is SampleVariant for v in sample.variants)
    assert not hasattr(sample, "program") and not hasattr(program, "variants")
    assert all(type(f) is ProgramFunction and f.run for f in program.program.functions)
    eager = sample.variant("numpy")
    assert eager.code == CompiledCode() and eager.trials == ()  # an eager variant compiled nothing
    swept = analysis("2.13.0", "trig").sweep
    assert swept and all(type(e) is SweepEntry for point in swept for e in point.variants)
    assert not hasattr(SweepEntry, "code") and not hasattr(SampleVariant, "run")


def test_a_variants_compiled_code_is_built_once_by_one_function_from_its_raw_pieces():
    a = analysis("2.13.0", "ten_genes-fixes")
    raw = next(r for r in load(record_path("2.13.0", "ten_genes-fixes")).variants if r.id == "torch-compiled-cpu")
    v = a.variant(raw.id)
    target = target_of(of_raw(CodeLocation, raw.code), raw.function, _context(a))
    code, seen = compiled.build(compiled.of_variant(raw), target, _context(a))
    assert code == v.code and set(seen) == set(compiled.ARTIFACTS)
    # the line verdicts say the time of their kernels, made with the verdicts, not added to them afterwards
    assert any(e.time_share for e in code.lines) and inspect.signature(lines.verdicts).parameters["evidence"]


def test_a_fix_tried_reads_its_own_pieces_against_its_variants_source():
    a = analysis("2.13.0", "ten_genes-fixes")
    record = load(record_path("2.13.0", "ten_genes-fixes"))
    raw = next(t for t in record.trials if t.fix == "column-major")
    variant = next(r for r in record.variants if r.id == raw.variant)
    target = target_of(of_raw(CodeLocation, variant.code), variant.function, _context(a))
    pieces = compiled.read(raw.capture or compiled.NONE, compiled.NONE, False, raw.sizes or ())
    after, _ = compiled.build(pieces, target, _context(a))
    v = a.variant(raw.variant)
    (t,) = [t for t in v.trials if t.id == raw.id]
    assert type(t) is TrialResult
    assert {(e.file, e.line) for e in after.lines} == {(e.file, e.line) for e in v.code.lines}
    vectorized = {(e.file, e.line) for e in after.lines if e.vectorized == "all"}
    assert t.effect.vectorized_now and set(t.effect.vectorized_now) <= vectorized
    assert t.effect.breaks_before == len(v.code.breaks) and t.effect.breaks_after == len(after.breaks)
