"""Which fix applies to what: the one place that decides it. ``candidates`` lists every fix whose precondition the
record shows, each kind's precondition a predicate of its own (``strided_lines``, ``has_rewrite``, ``removing_flag``,
``recompiles_each_call``, ``size_recompiled``), each fix with what trying it measured where it was tried; ``advised``
says whether a fix is advice, ``changes`` makes a sample's advice of them (one per kind and what it names: ``same``),
``could_try`` a program's; ``to_try`` picks those a sample's run tries on its live probe; ``result`` reads what a
trial measured. ``analyze`` stores each answer on the analysis; the words for fixes are ``inspector.render.fixes``'.

A fix is tried in the probe that ran the variants (``inspector.probe.trials``), on the variant that needs it most,
and timed side by side with it in the alternating rounds; a fix inspector can try is advice only where it measured a
gain, and some (the tiling heuristic, a flag) only once tried.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Optional, Union

from inspector.analysis import rounds
from inspector.analysis.parse import breaks as parse_breaks
from inspector.model import (BreakFix, Change, ChangeAt, CompiledCode, Fix, FixKind, GraphBreak, LibraryFix, LineRef,
                             LineStatus, LineVerdict, ProgramFunction, Recompilation, SampleAnalysis, SampleVariant,
                             SizeCall, SizeCompared, Status, Timing, TrialEffect, TrialResult, TrialSpec, Vectorized,
                             WarningKind, of_raw)
from inspector.model.code import OVERHEAD
from inspector.model.fixes import Where
from inspector.raw import TENSOR_GUARDS, TILING_OFF, RawTrial

Unit = Union[SampleVariant, ProgramFunction]
Tried = dict[tuple[str, str], TrialResult]  # {(variant id, trial name): what trying it measured}
HEURISTIC = ("non-contiguous", "small-inner-range")  # the branches of Inductor's tiling that the heuristic took
SCALAR = (Vectorized.NONE, Vectorized.SOME)  # a line with C++ units left scalar
SIZE_GUARD = "size mismatch"  # torch's words for a guard on a tensor's size
SIZED = re.compile(r"tensor '([^']+)' size mismatch at index (\d+)")  # ... and the argument and dimension it names
# a guard on a Python number's value or type, as torch's recompile reasons say it: "c == 0.5", "L['c'] == 0.5",
# "___as_python_constant(L['c']) == 0.5", "___check_type_id(L['c'], 94...)", "type(L['c']) ..."
NUMBER_GUARD = re.compile(r"^(?:___as_python_constant\(|___check_type_id\(|type\()?(?:L\['(\w+)'\]|(\w+))\)?"
                          r"(?:\s*==\s*-?(?:\d|inf|nan)|,)")
LR_GUARD = re.compile(r"\['lr'\]\s*==\s*-?\d")  # an optimizer's float learning rate, guarded by its value
NUMBERS = ("float", "int")  # argument types torch guards on by value
# torch's graph-break hints that name no change to make (a report to file, a debugging aid)
NO_FIX_HINT = re.compile(r"report an issue|file an issue|fundamental|Dynamo bug|running in eager|difficult to debug|"
                         r"tracing rules|equivalent alternative|monitor recompilations|^See https", re.I)
REMOVE = re.compile(r"^Remove the `(?:[\w.]+\.)?(\w+)(?:\(\))?` call")  # a hint to remove a call from the code
NAMED = re.compile(r"\w+(?:\.\w+)+|\w+_\w+")  # the names a hint or fix gives (torch.cond, capture_scalar_outputs)
GAIN = 1.05  # a trial at least this much faster (and faster in every round) gained; anything else did not
# config fixes first: a layout trial changes the population's strides
TRYABLE = (FixKind.TILING, FixKind.FLAG, FixKind.STATIC, FixKind.DYNAMIC, FixKind.GUARDS, FixKind.CUDA_GRAPHS,
           FixKind.LAYOUT)
ADVISED_UNTRIED = (FixKind.BREAK, FixKind.RECOMPILES, FixKind.LAYOUT, FixKind.STATIC, FixKind.NUMBER,
                   FixKind.DYNAMIC)  # advice on their precondition alone
# a program's fixes that could be tried, as listed (stopping its recompiles is said with them)
PROGRAM_ORDER = (FixKind.BREAK, FixKind.NUMBER, FixKind.DYNAMIC, FixKind.LAYOUT, FixKind.TILING, FixKind.FLAG,
                 FixKind.STATIC, FixKind.GUARDS, FixKind.CUDA_GRAPHS)


def strided_lines(code: CompiledCode, branches: Optional[Sequence[str]] = None) -> list[LineVerdict]:
    """The precondition of the layout (and, with ``branches``, of the tiling heuristic): the line verdicts not (all)
    vectorized whose C++ loop nests load strided elements. ``branches``: only nests whose recorded tiling decision
    took one of these branches (a nest with no decision recorded counts by its strided loads alone)."""
    nests = {f"{k.id}#{n.index}": n for k in code.kernels for n in k.loop_nests}

    def about(key: str) -> bool:
        n = nests.get(key)
        decided = n.decisions.tiling if n and n.decisions else ()
        return bool(n and n.strided_loads) and (not branches or not decided or any(
            t.branch in branches for t in decided))
    return [e for e in code.lines if e.vectorized in SCALAR and any(about(n) for n in e.nests)]


def has_rewrite(b: GraphBreak) -> bool:
    """The precondition of a break's rewrite: torch's words name its usual fix, or torch gave a hint that names a
    change to make."""
    return bool(b.fix or torch_hints(b))


def torch_hints(b: GraphBreak) -> list[str]:
    """torch's own hints for a break that name a change to make, less those naming what its rewrite or flag names and
    those removing a call the break's line does not make (a call in torch's or a library's code below it)."""
    named = parse_breaks.NAMES.get(b.fix, set()) if isinstance(b.fix, BreakFix) else set()
    said = named | {n.split(".")[-1] for n in NAMED.findall(b.flag or "")} | set(_library_names(b))
    return [h for h in b.hints if not NO_FIX_HINT.search(h)
            and not any(n.split(".")[-1] in said for n in NAMED.findall(h.replace("`", "")))
            and not ((m := REMOVE.match(h)) and m.group(1) not in (b.code or ""))]


def _library_names(b: GraphBreak) -> tuple[str, ...]:
    """What a library break's fix names: plain tensors where torch wraps one in the library's subclass, else
    torch.compiler.disable around the call and a function torch.compile supports; nothing where it is reported."""
    f = b.fix
    if not isinstance(f, LibraryFix) or (f.torch_file and not f.subclass):
        return ()
    return ("as_subclass", "Tensor") if f.subclass else ("disable", "compile")


def branch_form(source: str, line: int) -> Optional[str]:
    """The precondition of torch.where for a data-dependent branch at ``line`` of ``source``: "where" when both of
    its branches are tensor expressions (a conditional expression; an `if` whose two branches are one statement each,
    both returning a value or both assigning the same names, the statement after an `if` that returns being its
    other branch; or an `if` that only reassigns a name, whose other branch keeps it), "cond" for another `if`, None
    where no `if` starts there (a loop, an assert) or the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.IfExp) and node.lineno == line and not _constant(node.body, node.orelse):
            return "where"
        for field in ("body", "orelse", "finalbody"):
            found = getattr(node, field, None)
            block: list[ast.stmt] = found if isinstance(found, list) else []
            for i, stmt in enumerate(block):
                if isinstance(stmt, ast.If) and stmt.lineno == line:  # an early return's other branch follows it
                    returns = stmt.body and isinstance(stmt.body[-1], ast.Return)
                    other = stmt.orelse or (block[i + 1:i + 2] if returns else [])
                    return "where" if _alike(stmt.body, other) else "cond"
    return None


def _alike(body: list[ast.stmt], other: list[ast.stmt]) -> bool:
    """Whether two branches are one tensor expression each: both a return of a value, or both assignments of the
    same names (``other`` empty: the names kept)."""
    if len(body) != 1 or len(other) > 1:
        return False
    a, b = body[0], other[0] if other else None
    if isinstance(a, ast.Return):
        return isinstance(b, ast.Return) and a.value is not None and b.value is not None and not _constant(a.value,
                                                                                                         b.value)
    if isinstance(a, (ast.Assign, ast.AugAssign)):
        if b is None:
            return all(t.startswith("Name(") for t in _targets(a))
        return isinstance(b, (ast.Assign, ast.AugAssign)) and _targets(a) == _targets(b)
    return False


def _targets(stmt: Union[ast.Assign, ast.AugAssign]) -> list[str]:
    return [ast.dump(t) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])]


def _constant(*values: ast.expr) -> bool:
    return any(isinstance(v, ast.Constant) for v in values)


def removing_flag(b: GraphBreak) -> Optional[str]:
    """The precondition of a flag: a Dynamo config flag that removes the break (KEY=VALUE), or None."""
    return b.flag


def recompiles_each_call(unit: Unit) -> bool:
    """The precondition of stopping the recompiles: it recompiled on every call, or until Dynamo's limit."""
    again = unit.code.recompilation
    return bool(again and (again.every_call or again.limit))


def strided_argument(unit: Unit) -> Optional[str]:
    """The precondition of the layout, besides strided lines: the argument the program could pass column-major. A
    sample's variant takes its population; a program's function, the first argument its first call passed as an array
    of two or more axes stored row-major (a unit stride on its last axis of more than one element), else None (a
    method whose array is on ``self``, a state wrapper, arguments not recorded)."""
    if isinstance(unit, SampleVariant):
        return "population"
    return next((a.name for a in unit.arguments or () if a.type in ("tensor", "ndarray") and a.shape and a.strides
                 and len(a.shape) >= 2 and a.shape[-1] > 1 and a.strides[-1] == 1), None)


def number_guarded(unit: Unit) -> list[str]:
    """The precondition of passing a number as a tensor: the arguments its first call passed as Python floats or
    ints whose value (or type) a failed guard checked, and "lr" where a guard checked an optimizer's learning rate;
    a program's functions only (a sample's variants take a population)."""
    if not isinstance(unit, ProgramFunction):
        return []
    numbers = {a.name for a in unit.arguments or () if a.type in NUMBERS}
    found: dict[str, None] = {}
    for r in (r.text for c in unit.run.recompiles for r in c.reasons):
        m = NUMBER_GUARD.match(r)
        name = m.group(1) or m.group(2) if m else None
        if name in numbers:
            found[name] = None
        elif LR_GUARD.search(r):
            found["lr"] = None
    return list(found)


def static_already(unit: Unit) -> bool:
    """Whether the program compiled the function with dynamic=False: static shapes are no advice for it."""
    return isinstance(unit, ProgramFunction) and (unit.compile_options or {}).get("dynamic") is False


def size_recompiled(unit: Unit) -> bool:
    """The precondition of static shapes: a call at another population size compiled again on a guard of a size
    (a sample's variant at further sizes; a program's function during its run)."""
    guards = [r.text for c in unit.run.recompiles for r in c.reasons] if isinstance(unit, ProgramFunction) else [
        g for s in unit.code.sizes for g in s.guards]
    return any(SIZE_GUARD in g for g in guards)


def candidates(units: Sequence[Unit], trials: Sequence[TrialResult], others: Sequence[Unit] = ()) -> list[Fix]:
    """Every fix that applies where the record shows its precondition, each with what trying it measured where it
    was tried (one of ``trials``): for each of ``units`` (a sample's compiled variants that ran, a program's
    functions), each graph break's usual rewrite and the flag that removes it, a recompilation's guard, the layout
    and the tiling heuristic of strided loads, static shapes where a size recompiled, a number passed as a tensor,
    guards on tensors only and CUDA graphs where a call's overhead could pay for them, in that order (``others``:
    the sample's variants, its eager ones among them; else ``units``)."""
    tried = {(t.variant, t.spec.name): t for t in trials}
    return [_measured(fix, unit, others or units) for unit in units for rule in RULES for fix in rule(unit, tried)]


def of_variants(variants: Sequence[SampleVariant]) -> list[Fix]:
    """The fixes of a sample's compiled variants that ran (no Triton preview), with what trying each measured."""
    return candidates([v for v in variants if v.ok_compiled and not v.preview], [t for v in variants for t in v.trials],
                      variants)


def _measured(fix: Fix, unit: Unit, others: Sequence[Unit]) -> Fix:
    """``fix`` with, for a break inside a library at the function's only call, how many times as fast it ran eagerly
    (``Fix.eager_faster``)."""
    rewrite = fix.cause.usual.rewrite if isinstance(fix.cause, GraphBreak) and fix.kind == FixKind.BREAK else None
    if not (isinstance(rewrite, LibraryFix) and rewrite.whole):
        return fix
    if isinstance(unit, ProgramFunction):
        replay = unit.replay
        eager, compiled = (replay.eager_s, replay.compiled_s) if replay else (None, None)
    else:
        base = next((v for v in others if isinstance(v, SampleVariant) and v.family == unit.family and
                     v.kind == unit.kind and not v.compiled and v.status == Status.OK and v.timing), None)
        eager = base.timing.per_population_s if base and base.timing else None
        compiled = unit.timing.per_population_s if unit.timing else None
    return replace(fix, eager_faster=compiled / eager) if eager and compiled else fix


def same(fix: Fix) -> tuple[object, ...]:
    """What makes fixes one change, whatever variant they are on: their kind and what they name (a break's usual
    rewrite and torch's hints, a flag, a recompilation's guards, the argument and its dimension)."""
    cause = fix.cause
    names: object = (_library_call(cause.fix) or (cause.cause, cause.fix)
                     if isinstance(cause, GraphBreak) and fix.kind == FixKind.BREAK else
                     fix.spec.config if fix.kind == FixKind.FLAG and fix.spec else
                     (cause.count, cause.calls, cause.every_call, cause.limit, tuple(cause.guards))
                     if isinstance(cause, Recompilation) else None)
    hints = () if isinstance(cause, GraphBreak) and _library_call(cause.fix) else fix.hints  # a library's own
    return fix.kind, names, hints, fix.detail, fix.axis


def _library_call(fix: object) -> Optional[tuple[object, ...]]:
    """Breaks inside a library under one call of the user's are one change, whatever line of the library each is at:
    the call wrapped once."""
    if isinstance(fix, LibraryFix) and fix.call and not fix.torch_file:
        return "library-call", fix.package, fix.call, fix.whole
    return None


def changes(found: Sequence[Fix]) -> tuple[Change, ...]:
    """The fixes that are advice or were tried, one Change per fix kind and what it names (``same``), each variant's
    fix once (the most at stake), the most time at stake first; one tried without a gain anywhere keeps only the
    variants it was tried on."""
    flagged = {(f.variant, f.spec.config[0]) for f in found if f.kind == FixKind.FLAG and f.tried and f.spec}
    grouped: dict[tuple[object, ...], list[Fix]] = {}
    for fix in found:
        if fix.tried or advised(fix):
            grouped.setdefault(same(fix), []).append(fix)
    said = []
    for group in grouped.values():
        at: dict[str, ChangeAt] = {}
        lines: dict[Where, LineRef] = {}
        for f in sorted(group, key=lambda f: -(f.stake_s or 0)):  # each variant and line once, the most at stake
            at.setdefault(f.variant, ChangeAt(f, isinstance(f.cause, GraphBreak) and f.kind == FixKind.BREAK
                                              and (f.variant, f.cause.flag) in flagged))
            for fl in f.lines:
                lines.setdefault(fl, LineRef(f.variant, file=fl[0], line=fl[1]))
        gains = [a.gain for a in at.values() if a.gain is not None]
        advice = any(gains) or not gains
        said.append(Change(tuple(lines[fl] for fl in sorted(lines, key=lambda fl: (str(fl[0]), fl[1] or 0))),
                           tuple(a for a in at.values() if advice or a.gain is not None), advice))
    return tuple(sorted(said, key=lambda c: -(c.stake_s or 0)))


def could_try(functions: Sequence[ProgramFunction], found: Sequence[Fix], asked: bool) -> tuple[Fix, ...]:
    """A program's fixes that could be tried (``inspector run`` tries none: its replay runs each function only as
    the program compiled it), per function in the program's order, in PROGRAM_ORDER; none unless the run asked for
    them (``asked``: --try-fixes, the default)."""
    order = {f.id: i for i, f in enumerate(functions)}
    return tuple(sorted((f for f in found if f.kind in PROGRAM_ORDER and asked),
                        key=lambda f: (order[f.variant], PROGRAM_ORDER.index(f.kind))))


def _breaks(unit: Unit, tried: Tried) -> list[Fix]:
    """Each break's usual rewrite, each followed by the flag that removes it (once per flag, about all its breaks):
    time outside compiled graphs at stake."""
    code, found, seen = unit.code, [], set()
    outside = _share_of_a_call(unit, code.break_cost.outside_fraction, code.break_cost.outside_s) \
        if code.break_cost else None
    joined = _subclass_groups(code.breaks)
    found += [Fix(FixKind.BREAK, unit.id, tuple((b.file, b.line) for b in group), outside, None, group[0])
              for group in joined]
    for b in code.breaks:
        if not any(b in group for group in joined) and has_rewrite(b):
            found.append(Fix(FixKind.BREAK, unit.id, ((b.file, b.line),), outside, None, b,
                             hints=tuple(torch_hints(b))))
        flag = removing_flag(b)
        if flag and flag not in seen:
            seen.add(flag)
            lines = sorted({(x.file, x.line) for x in code.breaks if x.flag == flag}, key=lambda fl: (str(fl[0]),
                                                                                                       fl[1] or 0))
            spec = TrialSpec(re.sub(r"=.*$", "", flag).split(".")[-1], config=(flag,))
            found.append(Fix(FixKind.FLAG, unit.id, tuple(lines), outside, spec, b, tried.get((unit.id, spec.name))))
    return found


def _subclass_groups(found: Sequence[GraphBreak]) -> list[list[GraphBreak]]:
    """The breaks run by the class of a tensor the function is given (``LibraryFix.argument``), one group per such
    argument, the first also holding those torch said an operand's ``__torch_function__`` override made: each group one
    fix, a plain tensor there (the group's first break says it)."""
    arguments = dict.fromkeys(b.fix.argument for b in found if isinstance(b.fix, LibraryFix) and b.fix.argument)
    return [[b for b in found if isinstance(b.fix, LibraryFix) and b.fix.argument == argument]
            + [b for b in found if n == 0 and b.fix == BreakFix.TENSOR_SUBCLASS]
            for n, argument in enumerate(arguments)]


def _recompiles(unit: Unit, tried: Tried) -> list[Fix]:
    """Stopping recompiles on every call or at the limit: the time of a call, compiles included, at stake."""
    if not recompiles_each_call(unit):
        return []
    stake = unit.timing.per_population_s if unit.timing else None
    return [Fix(FixKind.RECOMPILES, unit.id, (), stake, None, unit.code.recompilation)]


def _share_of_a_call(unit: Unit, share: Optional[float], profiled_s: float) -> float:
    """Seconds of a call that a part of it takes: its share of the profiled call applied to the timed time per call
    (the table's figure: the profiled call is another call, often slower, and a stake must not exceed the call it is
    part of), else its seconds in the profiled call."""
    return share * unit.timing.per_population_s if share is not None and unit.timing else profiled_s


def _strided(unit: Unit, tried: Tried, kind: FixKind, spec: TrialSpec,
             precondition: Callable[[CompiledCode], list[LineVerdict]]) -> list[Fix]:
    """A fix about the strided lines (the layout, the tiling heuristic): all of them, and the time of their
    kernels per call at stake."""
    if not precondition(unit.code):
        return []
    strided = strided_lines(unit.code)
    ids = {k for e in strided for k in e.kernels}
    kernels = [k for k in unit.code.kernels if k.id in ids and k.cost.time_s]
    stake = _share_of_a_call(unit, sum(k.cost.time_share or 0.0 for k in kernels),
                             sum(k.cost.time_s or 0.0 for k in kernels)) or None
    lines = tuple(sorted({(e.file, e.line) for e in strided}))
    return [Fix(kind, unit.id, lines, stake, spec, tried=tried.get((unit.id, spec.name)))]


def _layout(unit: Unit, tried: Tried) -> list[Fix]:
    """The layout of the strided argument, where there is one."""
    argument = strided_argument(unit)
    fixes = _strided(unit, tried, FixKind.LAYOUT, TrialSpec("column-major", layout="column-major"), strided_lines)
    return [replace(f, detail=argument) for f in fixes] if argument else []


def _tiling(unit: Unit, tried: Tried) -> list[Fix]:
    return _strided(unit, tried, FixKind.TILING, TrialSpec("tiling-off", config=(TILING_OFF,)),
                    lambda code: strided_lines(code, HEURISTIC))


def _static(unit: Unit, tried: Tried) -> list[Fix]:
    """Where a size recompiled: static shapes (a compile per size) and dynamic shapes (one compile for every size),
    each called again at the sizes its variant was; dynamic shapes alone for a function the program already
    compiled with dynamic=False (about the input whose size changed)."""
    if not size_recompiled(unit):
        return []
    name, axis = resized(unit)
    if static_already(unit):
        return [Fix(FixKind.DYNAMIC, unit.id, (), None, None, unit.code.recompilation, detail=name, axis=axis)]
    sizes = tuple(s.population for s in unit.code.sizes)
    return [Fix(kind, unit.id, (), None, spec, tried=tried.get((unit.id, spec.name)), detail=name, axis=axis)
            for kind, spec in ((FixKind.STATIC, TrialSpec("dynamic-false", compile_options={"dynamic": False},
                                                          sizes=sizes)),
                               (FixKind.DYNAMIC, TrialSpec("dynamic-true", compile_options={"dynamic": True},
                                                           sizes=sizes)))]


def resized(unit: Unit) -> tuple[Optional[str], Optional[int]]:
    """(the input, its dimension) whose size a program's recompile guard named first, as torch said it ("tensor
    'pop' size mismatch at index 0"); (None, None) for a sample's variant (its sweep changed the population's size)
    or where no guard said it."""
    found = next((m for c in unit.run.recompiles for r in c.reasons if (m := SIZED.search(r.text))), None) \
        if isinstance(unit, ProgramFunction) else None
    return (found.group(1), int(found.group(2))) if found else (None, None)


def _guards(unit: Unit, tried: Tried) -> list[Fix]:
    """Dynamo's guards on all but tensors dropped (torch.compiler.keep_tensor_guards_unsafe) where evaluating them
    takes a share of a call that could make the call GAIN faster, the profiler's own cost taken off (its guard events
    hold their recording cost: a record without that estimate has no such fix): their seconds at stake."""
    split = unit.code.time_split
    parts = split.without_profiler if split else None
    guards, whole = (parts.guards_s, split.call_s) if split and parts else (None, None)
    if not guards or not whole or guards < (1 - 1 / GAIN) * whole:
        return []
    spec = TrialSpec("guard-filter", config=(TENSOR_GUARDS,))
    return [Fix(FixKind.GUARDS, unit.id, (), _share_of_a_call(unit, guards / whole, guards), spec,
                tried=tried.get((unit.id, spec.name)))]


def _cuda_graphs(unit: Unit, tried: Tried) -> list[Fix]:
    """CUDA graphs (mode="reduce-overhead", torch's documentation: one replay for the call's launches) where a CUDA
    call is OVERHEAD or more outside its kernels, and was not compiled with that mode already: the time outside the
    kernels at stake."""
    split = unit.code.time_split
    parts, whole = split.parts() if split else (None, None)
    options = unit.compile_options if isinstance(unit, ProgramFunction) else None
    if (unit.device != "cuda" or (options or {}).get("mode") == "reduce-overhead" or not parts or not whole
            or parts.kernels_s is None or parts.kernels_s > (1 - OVERHEAD) * whole):
        return []
    spec = TrialSpec("reduce-overhead", compile_options={"mode": "reduce-overhead"})
    outside = whole - parts.kernels_s
    return [Fix(FixKind.CUDA_GRAPHS, unit.id, (), _share_of_a_call(unit, outside / whole, outside), spec,
                tried=tried.get((unit.id, spec.name)))]


def _numbers(unit: Unit, tried: Tried) -> list[Fix]:
    """Each Python number a guard recompiled on, passed as a tensor: the time of a call, compiles included, at
    stake."""
    stake = unit.timing.per_population_s if unit.timing else None
    return [Fix(FixKind.NUMBER, unit.id, (), stake, None, unit.code.recompilation, detail=name)
            for name in number_guarded(unit)]


RULES: tuple[Callable[[Unit, Tried], list[Fix]], ...] = (_breaks, _recompiles, _layout, _tiling, _static, _numbers,
                                                        _guards, _cuda_graphs)


def can_try(fix: Fix, analysis: SampleAnalysis) -> bool:
    """Whether a sample's run can try ``fix`` on its variant: one inspector applies without editing code, on a
    compiled CPU variant that ran (CUDA graphs: a CUDA one; no Triton preview, no Python one); the layout needs a
    population of rows."""
    v = next((v for v in analysis.variants if v.id == fix.variant), None)
    device = "cuda" if fix.kind == FixKind.CUDA_GRAPHS else "cpu"
    return bool(fix.spec and v and v.ok_compiled and v.device == device and not v.preview and v.kind != "python"
                and (fix.kind != FixKind.LAYOUT or len(analysis.sample.shape) == 2))


def to_try(analysis: SampleAnalysis, kinds: Sequence[FixKind]) -> list[Fix]:
    """The fixes of ``kinds`` a sample's run tries, where it can (``can_try``): the layout and the tiling heuristic
    once, on the variant with the most time at stake in their kernels; the others (a flag, shapes, guards, CUDA
    graphs) on each variant they apply to; in TRYABLE's order."""
    found: dict[object, Fix] = {}
    for fix in analysis.fixes:
        if fix.kind not in kinds or not fix.spec or not can_try(fix, analysis):
            continue
        key = fix.spec.name if fix.kind in (FixKind.LAYOUT, FixKind.TILING) else (fix.variant, fix.spec.name)
        if key not in found or (fix.stake_s or 0) > (found[key].stake_s or 0):
            found[key] = fix
    return sorted(found.values(), key=lambda f: TRYABLE.index(f.kind))


def advised(fix: Fix) -> bool:
    """Whether a fix is advice: tried with a measured gain, or not tried and of a kind advised on its precondition
    alone (a flag or the tiling heuristic only with its measured effect). A fix tried without gain is said as tried,
    never advised."""
    return fix.tried.gain if fix.tried else fix.kind in ADVISED_UNTRIED


def per_individual(v: SampleVariant) -> bool:
    """The precondition of a vectorized rewrite: a Python variant (its function called on each individual) that
    ran."""
    return v.kind == "python" and v.status == Status.OK


def breaks_rewritable(v: SampleVariant) -> bool:
    """The precondition of a break's rewrite written out: a NumPy or torch variant compiled on the CPU that ran and
    broke its graph, or had a Python loop unrolled (a silent cousin of a break)."""
    return v.kind in ("numpy", "torch") and v.ok_compiled and v.device == "cpu" and not v.preview and bool(
        v.code.breaks or any(w.kind == WarningKind.UNROLLED_LOOP for w in v.code.warnings))


def rewrites(analysis: SampleAnalysis) -> list[Fix]:
    """The rewrites inspector writes (``inspector.rewrite``), each a Fix of kind REWRITE: a per-individual Python
    variant's function over the whole population, in NumPy and in torch (``spec.name`` rewritten-numpy,
    rewritten-torch; its time per population at stake); a NumPy or torch variant's breaks rewritten (rewritten;
    the time outside compiled graphs at stake), about its breaks' lines (a Python loop Dynamo unrolled too)."""
    found = [Fix(FixKind.REWRITE, v.id, (), v.timing.per_population_s if v.timing else None,
                 TrialSpec(f"rewritten-{dialect}")) for v in analysis.variants if per_individual(v)
             for dialect in ("numpy", "torch")]
    return found + [Fix(FixKind.REWRITE, v.id, tuple(sorted({(b.file, b.line) for b in v.code.breaks},
                                                             key=lambda fl: (str(fl[0]), fl[1] or 0))),
                        v.code.break_cost.outside_s if v.code.break_cost else None, TrialSpec("rewritten"))
                    for v in analysis.variants if breaks_rewritable(v)]


def result(raw: RawTrial, timing: Optional[Timing], before: CompiledCode, after_timing: Optional[Timing],
           after: CompiledCode) -> TrialResult:
    """What a trial measured: ``before`` the CompiledCode of the variant it changed (``timing``: its Timing),
    ``after`` the trial's own, analysed as its variant's (``after_timing``). A trial called at further sizes is
    compared on its steady call at the last (its recompiles over all)."""
    side = rounds.side_by_side(timing.rounds_s, after_timing.rounds_s) if timing and after_timing else None
    speedup = side[0] if side else timing.median_s / after_timing.median_s if timing and after_timing else None
    spread = (side[1][0], side[1][1]) if side else None
    at = [(b, a) for b, a in zip(before.sizes, after.sizes) if b.population == a.population]
    ok = raw.status == Status.OK and raw.matches_variant is not False
    gain = bool(ok and speedup and speedup >= GAIN and (spread is None or spread[0] > 1))
    own = covers = first = None
    if raw.sizes:
        own, speedup = speedup, (at[-1][0].steady_s / at[-1][1].steady_s if at and at[-1][0].steady_s
                                 and at[-1][1].steady_s else None)
        fewer = sum(a.recompiles for _, a in at) < sum(b.recompiles for b, _ in at)
        gain = bool(ok and speedup and (speedup >= GAIN or fewer and speedup >= 1 / GAIN)
                    and (own is None or own >= 1 / GAIN))
        first = _first_calls(at)
        covers = _covers(at, first) if fewer else None
    spec = of_raw(TrialSpec, raw, name=raw.fix or (raw.id or "").split("~")[-1],  # how it was made
                  sizes=tuple(s.population or 0 for s in raw.sizes or []))
    return TrialResult(
        id=raw.id or "", variant=raw.variant or "", kind=FixKind(raw.kind), spec=spec,
        status=Status(raw.status or "error"),
        error=raw.error, matches=raw.matches_variant, mismatch=raw.mismatch, speedup=speedup, spread=spread,
        rounds=len(side[2]) if side else 0, median_before_s=timing.median_s if timing else None,
        median_after_s=after_timing.median_s if after_timing else None, effect=_effect(before, after),
        gain=gain, alone=bool(raw.alone), own_speedup=own, covers_calls=covers, first_calls_s=first,
        sizes=tuple(SizeCompared(b.population, b.steady_s, a.steady_s, b.recompiles, a.recompiles, b.first_call_s,
                                 a.first_call_s, min(b.steady_calls, a.steady_calls)) for b, a in at))


def _first_calls(at: list[tuple[SizeCall, SizeCall]]) -> Optional[tuple[float, float]]:
    """A size trial's variant's first calls at the sizes and its own, each summed; None where one was not timed."""
    before, after = [b.first_call_s for b, _ in at], [a.first_call_s for _, a in at]
    return (sum(s or 0.0 for s in before), sum(s or 0.0 for s in after)) if all(before) and all(after) else None


def _covers(at: list[tuple[SizeCall, SizeCall]], first: Optional[tuple[float, float]]) -> Optional[float]:
    """How many of a size trial's slower steady calls at the last size the compile time it saved over the sizes
    (``first``: its first calls against its variant's, summed) pays for; None where it saved none, was not slower,
    or a first call was not timed."""
    saved = first[0] - first[1] if first else 0.0
    lost = (at[-1][1].steady_s or 0.0) - (at[-1][0].steady_s or 0.0)
    return saved / lost if saved > 0 and lost > 0 else None


def _effect(before: CompiledCode, after: CompiledCode) -> TrialEffect:
    """What a trial changed: lines now vectorized or parallel that were not, and its breaks."""
    scalar = {(e.file, e.line) for e in before.lines if e.vectorized in SCALAR}
    serial = {(e.file, e.line) for e in before.lines if e.status == LineStatus.SERIAL}
    left = {(b.file, b.line, b.cause) for b in after.breaks}
    return TrialEffect(
        vectorized_now=tuple(sorted(fl for fl in {(e.file, e.line) for e in after.lines
                                                  if e.vectorized == Vectorized.ALL} if fl in scalar)),
        parallel_now=tuple(sorted(fl for fl in {(e.file, e.line) for e in after.lines
                                                if e.status == LineStatus.PARALLEL} if fl in serial)),
        breaks_before=len(before.breaks), breaks_after=len(after.breaks),
        gone=tuple(sorted(b.line for b in before.breaks if b.line is not None
                          and (b.file, b.line, b.cause) not in left)))
