"""Load a sample file and list its variants (the sample contract, see README)."""

import ast
import importlib.util
import inspect
import os
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import CodeType, ModuleType
from typing import Any, Optional

from inspector import source

KINDS = ("python", "numpy", "torch")


class SampleError(Exception):
    """The sample file breaks the contract; the message is one line for the user."""


@dataclass
class Variant:
    id: str
    function: str  # the sample's name for it (fitness_numpy_g4)
    kind: str
    compiled: bool
    device: str
    preview: bool = False  # the Triton codegen preview: generated for a CPU target, never run
    family: str = ""  # variants of one family compute one function: they are checked against each other
    code: dict[str, Any] = field(default_factory=dict)  # where its code is: {"file", "line", "name"} ({}: builtin)


def load(path: str) -> ModuleType:
    """Import the sample at ``path`` as a fresh module, its folder on ``sys.path`` and ``sys.argv`` only ``[path]``
    while it is imported (as ``python path`` would have it, so it imports its own helper modules, and one that reads
    its arguments sees none); messages name ``path`` as given. A file whose source binds no ``population`` is not
    imported: it is not a sample (a program's code is not run)."""
    tree = parse(path)
    if tree is not None and defines_population(tree) is False:
        raise SampleError(not_a_sample(path))
    name = "inspector_sample_" + "".join(c if c.isalnum() else "_" for c in os.path.basename(path)[:-3])
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(path))
    if spec is None or spec.loader is None:
        raise SampleError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    argv, sys.argv = sys.argv, [path]
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise SampleError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
    except Exception as e:
        hint = f" ({program_hint(path)})" if tree is not None and is_program(tree) else ""
        raise SampleError(f"{path}: raised on import: {type(e).__name__}: {e}{hint}") from None
    finally:
        sys.argv = argv
    found = getattr(module, "population", None)
    if not callable(found):
        why = "" if found is None else f": its population is of type {type(found).__name__}"
        raise SampleError(not_a_sample(path, why))
    return module


def parse(path: str) -> Optional[ast.Module]:
    """The module ``path`` holds, parsed (its encoding as its coding line says), or None where it cannot be."""
    text = source.text(path)
    try:
        return ast.parse(text, path) if text is not None else None
    except (SyntaxError, ValueError):
        return None


def not_a_sample(path: str, why: str = "") -> str:
    """The one line for a file that is not a sample, and the command for a program."""
    return f"{path} is not a sample: it has no population(n, rng) function{why} ({program_hint(path)})"


def program_hint(path: str) -> str:
    return f"a program? `inspector run {shlex.quote(str(path))}` runs it as it is"


DYNAMIC = {"globals", "vars", "locals", "exec", "eval", "__import__"}  # builtins that can bind names unseen


def defines_population(tree: ast.Module) -> Optional[bool]:
    """Whether importing the module binds ``population``, told from its source without running it: True where a
    ``def``, class, assignment or import at its top level binds the name (outside an ``if __name__ == "__main__":``
    block), False where nothing can, None where the source cannot tell (a star import, a module ``__getattr__``, a
    ``global population``, ``globals()``, ``exec`` and the like, the name as a string, an attribute of that name
    assigned)."""
    if any(_binds(node) for node in _module_level(tree)):
        return True
    for node in ast.walk(tree):
        if (isinstance(node, ast.alias) and node.name == "*"
                or isinstance(node, (ast.Global, ast.Nonlocal)) and "population" in node.names
                or isinstance(node, ast.NamedExpr) and _binds(node.target)
                or isinstance(node, ast.Name) and node.id in DYNAMIC
                or isinstance(node, ast.Constant) and node.value == "population"
                or isinstance(node, ast.Attribute) and node.attr == "population" and isinstance(node.ctx, ast.Store)
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            return None
    if any(isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in tree.body):
        return None
    return False


def is_program(tree: ast.Module) -> bool:
    """Whether the module does more than define things when run: an ``if __name__ == "__main__":`` block, or calls
    (outside assignments) and loops at its top level."""
    return any(isinstance(node, ast.If) and _main_block(node) or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
               or isinstance(node, ast.Expr) and isinstance(node.value, (ast.Call, ast.Await))
               for node in _module_level(tree))


def _module_level(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes below ``node`` that run in the module's namespace on import: not in a ``def``, lambda, class body,
    comprehension or ``if __name__ == "__main__":`` block (whose own nodes are given, not what they contain)."""
    for child in ast.iter_child_nodes(node):
        yield child
        if isinstance(child, ast.If) and _main_block(child):
            for other in child.orelse:
                yield other
                yield from _module_level(other)
        elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
                                    ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            yield from _module_level(child)


def _main_block(node: ast.If) -> bool:
    """``if __name__ == "__main__":`` (either way round)."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))


def _binds(node: ast.AST) -> bool:
    """Whether ``node`` binds the name ``population`` in the scope it runs in."""
    match node:
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | ast.ClassDef(name=name):
            return name == "population"
        case ast.Name(id=name, ctx=ast.Store()):
            return name == "population"
        case ast.alias(name=name, asname=asname):
            return (asname or name.split(".")[0]) == "population"
        case ast.ExceptHandler(name=name) | ast.MatchAs(name=name) | ast.MatchStar(name=name):
            return name == "population"
        case ast.MatchMapping(rest=rest):
            return rest == "population"
    return False


DEFAULT_POPULATION = 10_000  # a sample without POPULATION_SIZE


def describe(module: ModuleType) -> dict[str, Any]:
    """Title, description, default population size and cross-check tolerance from the module."""
    doc = inspect.cleandoc(module.__doc__ or "").strip()
    title, _, rest = doc.partition("\n")
    size = getattr(module, "POPULATION_SIZE", None)
    tolerance = getattr(module, "TOLERANCE", None)
    return {"title": title.strip() or module.__name__, "description": rest.strip(),
            "default_population": size if isinstance(size, int) else None,
            "tolerance": float(tolerance) if isinstance(tolerance, (int, float)) else None}


def code_of(fn: Any) -> Optional[CodeType]:
    """The code object behind a callable: a function, lambda, bound method, functools.partial or callable object."""
    for _ in range(8):  # partials of partials, methods of objects
        if hasattr(fn, "__code__"):
            code: CodeType = fn.__code__
            return code
        fn = getattr(fn, "func", None) or getattr(fn, "__func__", None) or (type(fn).__call__ if callable(fn) else None)
        if fn is None:
            return None
    return None


def functions(module: ModuleType) -> tuple[list[tuple[str, str, Optional[CodeType]]], list[tuple[str, str]]]:
    """([(name, kind, code)], [(name, why not)]): every top-level callable named ``fitness_<kind>[_suffix]`` (its
    own function, an imported one, a functools.partial, a lambda, a callable object), in the order the sample
    names them; and what is named like a variant but will not run, with the reason."""
    order = _name_lines(module)
    found: list[tuple[float, int, str, str, Optional[CodeType]]] = []
    ignored: list[tuple[str, str]] = []
    for index, (name, value) in enumerate(vars(module).items()):
        if not name.startswith("fitness_"):
            continue
        kind = name[len("fitness_"):].split("_", 1)[0]
        if kind not in KINDS:
            ignored.append((name, f"'{kind}' is not a kind of variant (fitness_python*, fitness_numpy*, "
                                  "fitness_torch*)"))
        elif not callable(value):
            ignored.append((name, f"not callable (a {type(value).__name__})"))
        else:
            found.append((order.get(name, float("inf")), index, name, kind, code_of(value)))
    return [(name, kind, code) for *_, name, kind, code in sorted(found, key=lambda f: f[:2])], ignored


def _name_lines(module: ModuleType) -> dict[str, int]:
    """{name: the line where the sample's source binds it} (def, assignment, import)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return {}
    lines: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.asname or a.name.split(".")[0] for a in node.names]
        else:
            continue
        for name in names:
            lines.setdefault(name, node.lineno)
    return lines


def families(names: list[str], module: ModuleType) -> dict[str, str]:
    """{function name: family}: variants with the same suffix form a family (fitness_python_g4, fitness_numpy_g4);
    the unsuffixed ones form "", which a suffix no other kind shares joins when there is one; a module-level
    ``FAMILIES = {name: family}`` says otherwise for the names it lists."""
    suffix = {name: name[len("fitness_"):].partition("_")[2] for name in names}
    kinds: dict[str, set[str]] = {}
    for name, s in suffix.items():
        kinds.setdefault(s, set()).add(name[len("fitness_"):].split("_", 1)[0])
    plain = "" in kinds
    chosen = {name: s if len(kinds[s]) > 1 or not plain else "" for name, s in suffix.items()}
    given = getattr(module, "FAMILIES", None)
    if isinstance(given, dict):
        chosen.update({k: str(v) for k, v in given.items() if k in chosen})
    return chosen


def variants(module: ModuleType, triton_preview: bool = False) -> tuple[list[Variant], list[dict[str, str]]]:
    """(variants, ignored): the variant matrix, eager, compiled on CPU and compiled on CUDA for numpy and torch
    callables, plus the Triton codegen preview of each when ``triton_preview``; and the names not run, with why."""
    found, ignored = functions(module)
    family = families([name for name, _, _ in found], module)
    out: list[Variant] = []
    for name, kind, code in found:
        base = name[len("fitness_"):]
        where = {"file": code.co_filename, "line": code.co_firstlineno, "name": code.co_name} if code else {}
        common: dict[str, Any] = dict(function=name, kind=kind, family=family[name], code=where)
        out.append(Variant(base, compiled=False, device="cpu", **common))
        if kind != "python":
            out.append(Variant(f"{base}-compiled-cpu", compiled=True, device="cpu", **common))
            out.append(Variant(f"{base}-compiled-cuda", compiled=True, device="cuda", **common))
            if triton_preview:
                out.append(Variant(f"{base}-triton-preview", compiled=True, device="cpu (Triton preview)",
                                   preview=True, **common))
    return out, [{"name": name, "reason": reason} for name, reason in ignored]
