"""A per-individual function (and the program's functions it calls) written over the whole population, in NumPy
or torch: ``vectorize`` gives a Rewrite, or a Declined naming the first construct outside the subset."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, replace

from inspector.rewrite import emit
from inspector.rewrite.branches import branches
from inspector.rewrite.calls import Translator
from inspector.rewrite.dialect import Spelling, name
from inspector.rewrite.exprs import Frame
from inspector.rewrite.flow import Body, Steps, result
from inspector.rewrite.layout import Layout
from inspector.rewrite.model import (Change, ChangeKind, Declined, Dialect, Note, Reason, Renamed, Rewrite,
                                     RewriteKind, Row)
from inspector.rewrite.program import Module, Program
from inspector.rewrite.values import WHOLE, Binding, Decline, Kind, SCALAR
from inspector.source import Span

# what a person calls the population where the original called one individual
PLURAL = {"individual": "population", "ind": "pop", "indiv": "pop", "chromosome": "chromosomes", "genes": "population",
          "genome": "genomes", "solution": "solutions", "candidate": "candidates", "particle": "particles",
          "agent": "agents", "phenome": "phenomes", "sol": "sols", "row": "rows"}


@dataclass(frozen=True)
class Done:
    """A function already written: its new name, the kinds it was written for, its result's kind."""

    new: str
    signature: tuple[tuple[bool, bool, bool, bool, int | None], ...]
    kind: Kind
    definition: ast.FunctionDef
    module: Module
    user: ast.FunctionDef


def signature(kinds: tuple[Kind, ...]) -> tuple[tuple[bool, bool, bool, bool, int | None], ...]:
    return tuple((k.population, k.genes, k.sequence is not None, k.boolean, k.items) for k in kinds)


class Vectorizer:
    """Writes functions over the population, each helper once (the Helpers a Frame calls back)."""

    def __init__(self, program: Program, dialect: Dialect, row: Row, suffix: str) -> None:
        self.program = program
        self.sp = Spelling(dialect)
        self.row = row
        self.suffix = suffix
        self.notes: list[Note] = []
        self.imports: set[str] = set()
        self.done: dict[tuple[str, str], Done] = {}
        self.active: set[tuple[str, str]] = set()
        self.taken = set(program.main.functions) | set(program.main.constants) | set(program.main.imports)

    def new_name(self, user: str) -> str:
        """``objective_python`` -> ``objective_numpy``; ``f`` -> ``f_numpy``; "_rewritten" added where taken."""
        base = user.replace("python", self.suffix) if "python" in user else f"{user}_{self.suffix}"
        for candidate in [base, f"{base}_rewritten", *(f"{base}_rewritten{i}" for i in range(2, 100))]:
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
        raise AssertionError("no free name")

    def translate(self, module: Module, function: ast.FunctionDef, kinds: tuple[Kind, ...],
                  call: ast.Call) -> tuple[str, Kind]:
        key = (module.name, function.name)
        if key in self.active:
            raise Decline(call, f"call to `{function.name}`", Reason.HELPER, "recursive")
        done = self.done.get(key)
        if done is not None:
            if done.signature != signature(kinds):
                raise Decline(call, f"call to `{function.name}`", Reason.HELPER)
            return done.new, done.kind
        written = self.function(module, function, kinds, entry=False)
        return written.new, written.kind

    def function(self, module: Module, function: ast.FunctionDef, kinds: tuple[Kind, ...] | None,
                 entry: bool) -> Done:
        """Write ``function`` for arguments of ``kinds`` (the entry: one individual, then its defaults)."""
        key = (module.name, function.name)
        self.active.add(key)
        try:
            done = self.write(module, function, kinds, entry)
        except Decline as decline:
            decline.module = decline.module or module
            raise
        finally:
            self.active.discard(key)
        self.done[key] = done
        return done

    def write(self, module: Module, function: ast.FunctionDef, kinds: tuple[Kind, ...] | None,
              entry: bool) -> Done:
        args = function.args
        params = [a.arg for a in args.posonlyargs + args.args]
        if args.vararg or args.kwarg or args.kwonlyargs or not params or function.decorator_list:
            raise Decline(function, f"`{function.name}`", Reason.PARAMETERS)
        if kinds is None:
            if len(params) - 1 > len(args.defaults):
                raise Decline(function, f"`{function.name}`", Reason.PARAMETERS, ", ".join(params[1:]))
            sequence = "array" if self.row is Row.ARRAY else "list"
            kinds = (Kind(population=True, genes=True, sequence=sequence),) + (SCALAR,) * (len(params) - 1)
        bound = Counter(n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        bound.update(params)
        names = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
        renamed = {p: self.plural(p, names) if k.sequence else p for p, k in zip(params, kinds)}
        env = {p: Binding(replace(k, span=replace(WHOLE, base=renamed[p])) if k.sequence else k, name(renamed[p]))
               for p, k in zip(params, kinds)}
        like = next((renamed[p] for p, k in zip(params, kinds) if (k.population or k.genes) and k.items is None), None)
        frame = Frame(self.program, module, function.name, replace(self.sp, like=like), self.row, self, env,
                      self.notes, [],
                      self.imports, dict(bound))
        body = Body(Translator(frame), Steps()).block(function.body)  # its docstring is the user's function's
        population = renamed[params[0]] if entry else None
        ret, kind = result(body, function, population)
        new_args = ast.arguments(
            posonlyargs=[ast.arg(renamed[a.arg]) for a in args.posonlyargs],
            args=[ast.arg(renamed[a.arg]) for a in args.args], vararg=None, kwonlyargs=[], kw_defaults=[],
            kwarg=None, defaults=list(args.defaults))
        new = self.new_name(function.name)
        definition = emit.function(new, new_args, list(frame.tables.values()) + body.out + [ret])
        return Done(new, signature(kinds), kind, definition, module, function)

    def plural(self, param: str, names: set[str]) -> str:
        """The population's name for a parameter that took one individual (the user's where the function uses
        that name)."""
        wanted = PLURAL.get(param, param)
        return param if wanted in names else wanted


def declined(decline: Decline, program: Program, target: str) -> Declined:
    """The Declined of a Decline (the module it was raised in names the file)."""
    module = decline.module or program.main
    node = decline.node
    line = getattr(node, "lineno", 0)
    return Declined(target, decline.construct, module.segment(node).split("\n")[0] or module.line(line),
                    Span(module.path, line, getattr(node, "end_lineno", None) or line), decline.reason,
                    decline.detail)


def vectorize(program: Program, function: str, dialect: Dialect, row: Row = Row.LIST,
              suffix: str | None = None) -> Rewrite | Declined:
    """``function`` of the sample (one individual in, a number or a tuple out) written over the population in
    ``dialect``; ``row``: how the original takes its individual (a list, or an ndarray row); ``suffix`` replaces
    "python" in the new names (default: the dialect's name)."""
    definition = program.main.definition(function)
    if definition is None:
        line = next((getattr(n, "lineno", 0) for n in [program.main.constants.get(function)] if n), 0)
        return Declined(function, f"`{function}`", program.main.line(line),
                        Span(program.main.path, line, line), Reason.NOT_A_FUNCTION)
    writer = Vectorizer(program, dialect, row, suffix or dialect.value)
    try:
        writer.function(program.main, definition, None, entry=True)
    except Decline as decline:
        return declined(decline, program, function)
    return rewrite_of(writer, function, definition.name, dialect, row)


def rewrite_of(writer: Vectorizer, function: str, defined: str, dialect: Dialect, row: Row) -> Rewrite:
    """The Rewrite of what ``writer`` wrote for ``function`` (the variant; ``defined``: the name of its ``def``, an
    alias's target): the new functions in the user's order."""
    done = sorted(writer.done.values(), key=lambda d: (d.module.name != "", d.module.name, d.user.lineno))
    keep = emit.originals(d.user for d in done)
    source = "\n\n".join(Layout(d.module, keep).function(d.definition) for d in done)
    imports = sorted({writer.sp.import_line} | writer.imports, key=lambda line: (line.startswith("from"), line))
    if any(isinstance(n, ast.Name) and n.id == "math" for d in done for n in ast.walk(d.definition)):
        imports.insert(0, "import math")
    spans = tuple(Span(d.module.path, d.user.lineno, d.user.end_lineno or d.user.lineno) for d in done)
    old = "\n\n\n".join(ast.get_source_segment(d.module.source, d.user) or "" for d in done) + "\n"
    entry = writer.done[("", defined)].new
    return Rewrite(
        kind=RewriteKind.VECTORIZED, dialect=dialect, row=row, target=function, entry=entry, source=source,
        imports=tuple(imports), diff=emit.diff(old, source, writer.program.main.path,
                                              spans[0].first if len(spans) == 1 else 1),
        replaces=spans, changes=tuple(Change(ChangeKind.FUNCTION, s, d.module.line(d.user.lineno))
                                      for s, d in zip(spans, done)),
        notes=tuple(sorted(writer.notes, key=lambda n: (n.file != writer.program.main.path, n.file, n.line,
                                                        n.topic.value))),
        branches=branches((d.module, d.user) for d in done),
        functions=tuple(Renamed(d.user.name, d.new, d.module.name) for d in done))
