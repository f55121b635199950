"""A rewrite inspector wrote, run in the probe that ran the variants (a ``RewriteTrial``): defined in a copy of the
sample's namespace, checked there against the user's code (``inspector.rewrite.check``), then tried as a fix is
(``inspector.probe.trials``): eager or compiled, or under numba's ``@njit``, timed in the rounds beside its variant.
The rewriter itself ran in inspector's process; here only its code runs (``inspector.rewrite`` needs numpy alone)."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import re
import sys
import types
from collections.abc import Callable
from typing import Any, Optional

import numpy as np

from inspector import source as source_mod
from inspector.probe.messages import RewriteTrial
from inspector.probe.sample import Variant
from inspector.rewrite import Dialect, Rewrite, check, read_program
from inspector.rewrite.check import rewritten
from inspector.rewrite.codec import from_json, to_json
from inspector.rewrite.model import UNROLLED_GENES, Topic


def numba_version() -> Optional[str]:
    """numba's version where this interpreter can import it, else None (without importing it)."""
    if importlib.util.find_spec("numba") is None:
        return None
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("numba")
    except PackageNotFoundError:
        return None


def prepared(spec: RewriteTrial, module: types.ModuleType, variant: Variant, sample: str, population: np.ndarray
             ) -> tuple[Variant, Callable[..., Any], Optional[dict[str, Any]], Optional[str]]:
    """(the variant the trial runs as, its function, its check as JSON or None, why a compiled trial does not run
    (``not_compiled``) or None): the rewrite's entry (under ``@njit`` with ``numba``), or with no code the variant's
    own Python function under ``@njit`` over the rows."""
    tolerance = spec.rtol or getattr(module, "TOLERANCE", None)  # --rtol, else the sample's
    if spec.code is None:
        fn = getattr(module, variant.function)
        return (Variant(spec.id or "", variant.function, "numpy", False, "cpu", family=variant.family),
                (spec.cache and rows_module(fn, vars(module), sample, spec.cache)) or over_rows(fn, vars(module)),
                None, None)
    rewrite = from_json(Rewrite, spec.code.to_json())
    space = dict(vars(module))
    entry = rewritten(rewrite, space)
    if spec.numba:
        written = written_module(rewrite, space, spec.cache) if spec.cache else None
        entry = jitted(rewrite, written or entry, cache=written is not None)
    kind = "numpy" if spec.numba else rewrite.dialect.value
    checked = None
    if spec.check_rows is not None:
        rows = population[:spec.check_rows] if spec.check_rows else population
        checked = to_json(check(rewrite, read_program(sample), vars(module), rows,
                                float(tolerance) if isinstance(tolerance, (int, float)) else None, spec.sample))
    as_variant = Variant(spec.id or "", rewrite.entry, kind, bool(spec.compiled), "cpu", family=variant.family)
    return as_variant, entry, checked, not_compiled(rewrite, population.shape[1]) if spec.compiled else None


def not_compiled(rewrite: Rewrite, genes: int) -> Optional[str]:
    """Why ``rewrite`` is not compiled for individuals of ``genes`` genes: its loop over the genes stays (a state
    carried from gene to gene), which torch.compile unrolls, over more than UNROLLED_GENES genes; None where it is."""
    if genes <= UNROLLED_GENES or not any(n.topic is Topic.GENE_LOOP for n in rewrite.notes):
        return None
    return (f"not compiled: its loop over the {genes:,} genes stays (a state carried from gene to gene), and "
            f"torch.compile would unroll it, one copy of its body per gene (inspector compiles it up to "
            f"{UNROLLED_GENES} genes)")


def jitted(rewrite: Rewrite, entry: Callable[..., Any], cache: bool = False) -> Callable[..., Any]:
    """The NumPy rewrite's functions under ``@njit``, each calling the others' jitted versions; ``cache``: kept in
    numba's on-disk cache (``entry`` defined in a module of its own: ``written_module``)."""
    import numba
    if rewrite.dialect is not Dialect.NUMPY:
        raise TypeError("numba runs the NumPy rewrite only")
    space: dict[str, Any] = entry.__globals__
    if not cache:  # (a module of its own is written for numba already)
        space = numba_globals(space)
        exec(compile(for_numba(rewrite), f"<rewrite of {rewrite.target} for numba>", "exec"), space)
    for renamed in rewrite.functions:
        if callable(space.get(renamed.new)):
            space[renamed.new] = numba.njit(cache=cache)(space[renamed.new])
    found: Callable[..., Any] = space.get(rewrite.entry) or entry
    return found if found is not entry else numba.njit(cache=cache)(entry)


STACKS = ("stack", "column_stack", "hstack", "vstack", "concatenate")  # NumPy's joins, which numba takes a tuple to


def for_numba(rewrite: Rewrite) -> str:
    """The NumPy rewrite as numba types it: each ``x += e`` on a name written ``x = x + e`` (a running total the
    rewrite starts as a number, then adds an array to: numba has no in-place add of an array into a number, and
    outside a loop gives the name its new type at the assignment; for an array the same values, a new array); in
    the entry, a total that a loop adds an array made from the population to starts as that array's shape
    (``violation = 0.0`` then ``np.full(population.shape[0], 0.0)``: numba gives a name one type across a loop); and
    the list of arrays a join is given (``np.stack([value], axis=1)``, a tuple's return) a tuple."""
    class Plain(ast.NodeTransformer):
        def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
            if not isinstance(node.target, ast.Name):
                return node
            value = ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, self.visit(node.value))
            return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())], value), node)

        def visit_Call(self, node: ast.Call) -> ast.Call:
            self.generic_visit(node)
            if isinstance(node.func, ast.Attribute) and node.func.attr in STACKS and node.args and \
                    isinstance(node.args[0], ast.List):
                node.args[0] = ast.Tuple(node.args[0].elts, ast.Load())
            return node
    tree = Plain().visit(ast.parse(rewrite.program_source))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == rewrite.entry and node.args.args:
            _totals_as_rows(node, node.args.args[0].arg)
    return ast.unparse(ast.fix_missing_locations(tree))


def _totals_as_rows(function: ast.FunctionDef, rows: str) -> None:
    """In ``function``, each name its body starts as a number (``total = 0.0``) that a loop then adds to an array
    made from ``rows`` (its population parameter) starts as an array of one such number per row."""
    def reads(node: ast.AST, names: set[str]) -> bool:
        return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))

    made, before = {rows}, 0
    while len(made) != before:  # the names whose values are made from the population, directly or not
        before = len(made)
        for n in ast.walk(function):
            if isinstance(n, ast.Assign) and reads(n.value, made) or isinstance(n, ast.For) and reads(n.iter, made):
                made |= {t.id for target in (n.targets if isinstance(n, ast.Assign) else [n.target])
                         for t in ast.walk(target) if isinstance(t, ast.Name)}
    added = {n.targets[0].id for loop in ast.walk(function) if isinstance(loop, (ast.For, ast.While))
             for n in ast.walk(loop) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.BinOp)
             and isinstance(n.value.left, ast.Name) and n.value.left.id == n.targets[0].id
             and reads(n.value.right, made)}
    for n in function.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                n.targets[0].id in added and isinstance(n.value, ast.Constant) and \
                isinstance(n.value.value, (int, float)) and not isinstance(n.value.value, bool):
            n.value = ast.parse(f"np.full({rows}.shape[0], {n.value.value!r})", mode="eval").body


def written_module(rewrite: Rewrite, namespace: dict[str, Any], folder: str) -> Optional[Callable[..., Any]]:
    """The rewrite's entry as numba types it (``for_numba``), defined in a module of its own, its file in ``folder``
    (``module_in``), so that numba's cache (beside the file) finds its machine code again in a later report; None
    where the folder cannot be written."""
    space = module_in(folder, "inspector_rewrite", for_numba(rewrite), namespace)
    entry = space.get(rewrite.entry) if space is not None else None
    return entry if callable(entry) else None


def rows_module(fn: Callable[..., Any], namespace: dict[str, Any], sample: str, folder: str
                ) -> Optional[Callable[..., Any]]:
    """``over_rows``, its functions in a module of their own (``module_in``) and kept in numba's cache: the
    sample's functions as written, each at its own line (decorators left out), and the loop over the rows; None
    where a function of the sample's in ``namespace`` is not one of its top-level ``def``s as written (a
    decorator's wrapper, a function made at run time): ``over_rows`` then runs them as they are."""
    import numba
    lines = source_mod.lines(sample)
    found = _defs(lines)
    if found is None:
        return None
    defs = {n.name: n for n in found}
    kept = [""] * len(lines)
    for name, value in namespace.items():
        if not (isinstance(value, types.FunctionType) and value.__module__ == fn.__module__):
            continue
        node, code = defs.get(name), value.__code__
        if node is None or value.__closure__ or os.path.abspath(code.co_filename) != os.path.abspath(sample) or \
                not _made(node, code):
            return None
        kept[node.lineno - 1:node.end_lineno] = lines[node.lineno - 1:node.end_lineno]
    if fn.__name__ not in defs or not kept[defs[fn.__name__].lineno - 1]:
        return None
    source = "\n".join(kept) + ROWS.format(fn=fn.__name__, pick=_pick(defs[fn.__name__]))
    space = module_in(folder, "inspector_rows", source, dict(namespace, __inspector_np__=np))
    if space is None:
        return None
    for name in [n for n in defs if kept[defs[n].lineno - 1]]:
        space[name] = numba.njit(cache=True)(space[name])
    rows: Callable[..., Any] = numba.njit(cache=True)(space["__inspector_rows__"])
    return rows


ROWS = """


def __inspector_rows__(population):
    out = __inspector_np__.empty(population.shape[0])
    for i in range(population.shape[0]):
        out[i] = {fn}(population[i]){pick}
    return out
"""


def _pick(node: Optional[ast.FunctionDef]) -> str:
    """What the loop over the rows takes of a row's value: "[0]" where each return of the function (``node``) gives a
    tuple of one value (DEAP's fitness: ``return value,``), else the value."""
    def returns(n: ast.AST) -> list[ast.Return]:  # the function's own, not a nested function's
        found = [n] if isinstance(n, ast.Return) else []
        inner = [] if n is not node and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else \
            ast.iter_child_nodes(n)
        return found + [r for child in inner for r in returns(child)]
    given = returns(node) if node is not None else []
    return "[0]" if given and all(isinstance(r.value, ast.Tuple) and len(r.value.elts) == 1 for r in given) else ""


def _def_of(fn: Callable[..., Any]) -> Optional[ast.FunctionDef]:
    """The ``def`` of a module-level function as its file has it, else None."""
    code = fn.__code__
    return next((n for n in _defs(source_mod.lines(code.co_filename)) or [] if _made(n, code)), None)


def _defs(lines: list[str]) -> Optional[list[ast.FunctionDef]]:
    """The top-level ``def``s of a file's ``lines``; None where they do not parse."""
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return None
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)]


def _made(node: ast.FunctionDef, code: Any) -> bool:
    """Whether ``node`` is the ``def`` that made ``code`` (its first line that of the ``def`` or a decorator)."""
    return code.co_firstlineno in {node.lineno, *(d.lineno for d in node.decorator_list)}


def numba_globals(namespace: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``namespace`` as numba reads a function's globals: each list of numbers, or of tuples of numbers (a
    table of constraints), a tuple, which numba compiles in as a constant (a global list it refuses: "reflected
    list"); the program's own namespace is left as it is."""
    def number(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    def table(value: Any) -> bool:
        return isinstance(value, list) and bool(value) and (all(map(number, value)) or all(
            isinstance(row, tuple) and all(map(number, row)) for row in value))
    return {name: tuple(value) if table(value) else value for name, value in namespace.items()}


def module_in(folder: str, prefix: str, source: str, namespace: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The namespace of ``source`` run as a module whose file is in ``folder`` (written once: numba's cache checks
    its time stamp), its globals a copy of ``namespace`` as numba reads them (``numba_globals``); None where the
    folder cannot be written. The module's name is a digest of the code and of every value it reads from
    ``namespace`` (``fingerprint``), which numba compiles in as constants: a changed value is another module, never a
    stale one."""
    namespace = numba_globals(namespace)
    name = f"{prefix}_{fingerprint(source, namespace)}"
    path = os.path.join(folder, f"{name}.py")
    try:
        os.makedirs(folder, exist_ok=True)
        if not os.path.exists(path):
            part = f"{path}.{os.getpid()}.part"
            with open(part, "w", encoding="utf-8") as f:
                f.write(source)
            os.replace(part, path)
    except OSError:
        return None
    module = types.ModuleType(name)
    module.__dict__.update(namespace)
    module.__dict__.update(__name__=name, __file__=path)
    sys.modules[name] = module  # numba's cached code finds its globals by the module's name
    exec(compile(source, path, "exec"), module.__dict__)
    return module.__dict__


def fingerprint(source: str, namespace: dict[str, Any]) -> str:
    """A digest of ``source`` and of the value of each name and attribute chain (``np.pi``, ``config.LIMIT``) it
    reads from ``namespace``, with numba's and numpy's versions."""
    import numba
    tree = ast.parse(source)
    own = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
        (a.asname or a.name).split(".")[0] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names}
    digest = hashlib.sha256("\0".join([source, numba.__version__, np.__version__, sys.version]).encode())
    chains = {c for n in ast.walk(tree) if isinstance(n, (ast.Name, ast.Attribute)) and (c := _chain(n))}
    for chain in sorted(c for c in chains if c[0] not in own):
        value: Any = namespace
        for i, part in enumerate(chain):
            value = value.get(part, _MISSING) if i == 0 else getattr(value, part, _MISSING)
            if value is _MISSING:
                break
        digest.update(f"\0{'.'.join(chain)}={_described(value)}".encode())
    return digest.hexdigest()[:24]


_MISSING = object()


def _chain(node: ast.expr) -> Optional[tuple[str, ...]]:
    """``a.b.c`` as ("a", "b", "c"); None for anything but names and their attributes."""
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        base = _chain(node.value)
        return base + (node.attr,) if base else None
    return None


def _described(value: Any) -> str:
    """What of ``value`` numba may compile in: an array's bytes, a function's code, a module's or another callable's
    name, else its repr (without addresses)."""
    if value is _MISSING:
        return "missing"
    if isinstance(value, np.ndarray):
        return f"array {value.dtype} {value.shape} {hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()}"
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    code = getattr(getattr(value, "py_func", value), "__code__", None)  # a function, or one numba jitted
    if isinstance(code, types.CodeType):
        return f"function {_code(code)}"
    if callable(value):
        return f"callable {getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__qualname__)}"
    return f"{type(value).__module__}.{type(value).__qualname__} {re.sub(r' at 0x[0-9a-fA-F]+', '', repr(value))}"


def _code(code: types.CodeType) -> str:
    """A code object's bytecode, names and constants (nested code objects likewise)."""
    consts = " ".join(_code(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts)
    return f"{code.co_code.hex()} {code.co_names!r} ({consts})"


def over_rows(fn: Callable[..., Any], namespace: dict[str, Any]) -> Callable[..., Any]:
    """``fn`` (a per-individual function) as it stands under ``@njit``, called on each row of the population in an
    ``@njit`` loop; the sample's other functions it calls jitted too (copies: the user's stay as they are)."""
    import numba
    space = numba_globals(namespace)
    for name, value in namespace.items():
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            space[name] = numba.njit(types.FunctionType(value.__code__, space, name, value.__defaults__,
                                                        value.__closure__))
    if fn.__name__ not in space:  # (fn is not in the namespace under its own name)
        space[fn.__name__] = numba.njit(fn)
    space["__inspector_np__"] = np
    exec(compile(ROWS.format(fn=fn.__name__, pick=_pick(_def_of(fn))), f"<rows of {fn.__name__}>", "exec"), space)
    rows: Callable[..., Any] = numba.njit(space["__inspector_rows__"])
    return rows
