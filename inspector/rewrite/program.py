"""The code a rewrite reads: the sample file and the modules of its own folder that it imports, parsed with ``ast``,
and what each module-level name is (a function, a constant, an import)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from inspector import source as source_mod


@dataclass(frozen=True)
class Module:
    """One parsed module: ``name`` is its dotted name as the sample imports it ("" for the sample itself), ``path``
    the file as the caller named it."""

    name: str
    path: str
    source: str
    tree: ast.Module
    functions: Mapping[str, ast.FunctionDef] = field(default_factory=dict)
    constants: Mapping[str, ast.stmt] = field(default_factory=dict)
    imports: Mapping[str, str] = field(default_factory=dict)  # local name -> dotted target (math, math.sin)

    def segment(self, node: ast.AST) -> str:
        """The source text of ``node`` ("" when it has no position)."""
        return ast.get_source_segment(self.source, node) or ""

    def definition(self, name: str) -> ast.FunctionDef | None:
        """The ``def`` that ``name`` is, following the module's aliases (``fitness_python_x = griewank``)."""
        seen: set[str] = set()
        while name not in self.functions and name not in seen:
            seen.add(name)
            bound = self.constants.get(name)
            if not (isinstance(bound, ast.Assign) and len(bound.targets) == 1
                    and isinstance(bound.targets[0], ast.Name) and isinstance(bound.value, ast.Name)):
                return None
            name = bound.value.id
        return self.functions.get(name)

    def line(self, number: int) -> str:
        """Line ``number`` of the source, stripped."""
        lines = source_mod.split(self.source)
        return lines[number - 1].strip() if 0 < number <= len(lines) else ""


@dataclass(frozen=True)
class Resolved:
    """What a name means in a module: ``what`` is "function", "constant", "import" (``target`` the dotted name),
    "builtin" or "unknown"; ``module`` the Module that defines a function or constant."""

    what: str
    target: str = ""
    module: Module | None = None


@dataclass(frozen=True)
class Program:
    """The sample (``main``) and its own modules by dotted name."""

    main: Module
    modules: Mapping[str, Module]

    def module(self, name: str) -> Module | None:
        return self.main if name == "" else self.modules.get(name)

    def resolve(self, module: Module, name: str) -> Resolved:
        """What ``name`` is at the top level of ``module``, following imports into the program's own modules."""
        if name in module.functions:
            return Resolved("function", name, module)
        if name in module.constants:
            return Resolved("constant", name, module)
        if name in module.imports:
            target = module.imports[name]
            owner, _, attr = target.rpartition(".")
            if owner in self.modules and attr:
                return self.resolve(self.modules[owner], attr)
            return Resolved("import", target)
        if hasattr(builtins, name):
            return Resolved("builtin", name)
        return Resolved("unknown", name)


def parse_module(name: str, path: str, source: str) -> Module:
    """A Module from its source (raises SyntaxError as ``ast.parse`` does)."""
    tree = ast.parse(source, filename=path)
    functions: dict[str, ast.FunctionDef] = {}
    constants: dict[str, ast.stmt] = {}
    imports: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        constants[n.id] = node
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imports[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.ClassDef):
            constants[node.name] = node
    return Module(name, path, source, tree, functions, constants, imports)


def program_from_sources(main: str, modules: Mapping[str, str] | None = None, path: str = "sample.py") -> Program:
    """A Program from source text: ``main`` the sample's, ``modules`` its own modules' by dotted name."""
    others = {name: parse_module(name, name.replace(".", "/") + ".py", text) for name, text in (modules or {}).items()}
    return Program(parse_module("", path, main), others)


def read_program(path: str) -> Program:
    """The sample at ``path`` and the modules it imports from its own folder (as ``python path`` would find them),
    recursively; ``path`` names the files as given (a relative path stays relative); OSError where it cannot be
    read."""
    text = source_mod.text(path)
    if text is None:
        raise FileNotFoundError(f"cannot read {path}")
    main = parse_module("", path, text)
    folder = Path(path).parent
    found: dict[str, Module] = {}
    pending = [main]
    while pending:
        for dotted in _imported(pending.pop()):
            file = folder.joinpath(*dotted.split(".")).with_suffix(".py")
            if dotted not in found and file.is_file():
                found[dotted] = parse_module(dotted, str(file), source_mod.text(str(file)) or "")
                pending.append(found[dotted])
    return Program(main, found)


def _imported(module: Module) -> list[str]:
    """The dotted module names ``module`` imports from (``from a.b import c`` gives a.b and a.b.c)."""
    names: list[str] = []
    for node in module.tree.body:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def literal(module: Module, name: str) -> object:
    """The value of a module-level constant written as a literal (``GENES = 10``, ``CONSTRAINTS = [(0, 1, 2.0)]``),
    else ``NotImplemented``."""
    node = module.constants.get(name)
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return NotImplemented
    value, target = node.value, node.targets[0]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        value = next((v for t, v in zip(target.elts, value.elts) if isinstance(t, ast.Name) and t.id == name), value)
    elif not isinstance(target, ast.Name):
        return NotImplemented
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NotImplemented
