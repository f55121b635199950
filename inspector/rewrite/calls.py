"""Calls of a per-individual function, written over the population: math and NumPy functions, builtins (abs, min,
max, sum, len, round, float), the program's own helpers, and reductions over the genes (``sum(... for x in
individual)``, ``math.prod``, ``functools.reduce(mul, ...)``) with the iterations they read."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field, replace

from inspector.rewrite import ranges
from inspector.rewrite.dialect import MATH, RAISING, REDUCTIONS, attr, call, name, number
from inspector.rewrite.exprs import Expressions, construct
from inspector.rewrite.model import Reason, Topic
from inspector.rewrite.program import Module
from inspector.rewrite.values import (CELLS, COLUMN, ITEMS, PREAMBLE, SCALAR, WHOLE, Binding, Bound, Decline,
                                      Genes, Kind, Value, join, varies)

IDENTITY: dict[str, bool | float] = {"sum": 0, "prod": 1, "max": -math.inf, "min": math.inf, "any": False,
                                     "all": True}
OPERATOR_REDUCTIONS = {"operator.mul": "prod", "operator.add": "sum"}
MUTATORS = ("append", "extend", "insert", "pop", "update", "sort", "reverse", "clear", "remove")  # a call's effect


@dataclass
class Iteration:
    """What a ``for`` (of a loop or a comprehension) iterates: over the genes (``genes``: its targets bound to the
    population's columns; ``preamble`` makes the constant tables it zips with into arrays), or over something the
    same for every individual (kept as a Python iteration over ``iter``)."""

    genes: bool
    bindings: dict[str, Binding]
    iter: ast.expr
    span: Genes | None = None
    preamble: list[ast.stmt] = field(default_factory=list)


class Translator(Expressions):
    """Expressions with calls, reductions and comprehensions."""

    def child(self, bindings: dict[str, Binding]) -> Translator:
        """A translator for a comprehension's body or a loop's: the same frame, its targets bound."""
        return Translator(replace(self.frame, env={**self.frame.env, **bindings}))

    def _Call(self, node: ast.Call) -> Value:
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            raise Decline(node, "`*`/`**` arguments", Reason.VALUE)
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.frame.env:
            found = self.resolve(func.id)
            if found.what == "builtin":
                return self.builtin(func.id, node)
            if found.what == "function" and found.module is not None:
                return self.helper(found.module, found.module.functions[found.target], node)
            if found.what == "import":
                return self.library(found.target, node)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id not in self.frame.env:
            found = self.resolve(func.value.id)
            if found.what == "import":
                return self.library(f"{found.target}.{func.attr}", node)
            if found.what == "constant" and func.attr not in MUTATORS:  # an object of the module's: its method
                raise Decline(node, f"call to `{self.frame.module.segment(func)}`", Reason.METHOD)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and isinstance(
                func.value.value, ast.Name) and func.value.value.id not in self.frame.env:  # np.linalg.norm
            found = self.resolve(func.value.value.id)
            if found.what == "import":
                return self.library(f"{found.target}.{func.value.attr}.{func.attr}", node)
        elif isinstance(func, ast.Attribute) and func.attr in REDUCTIONS and not node.args and not node.keywords:
            if self.expr(func.value).kind.sequence == "array":
                return self.reduction(func.attr, func.value, node, "numpy")
        mutates = isinstance(func, ast.Attribute) and func.attr in MUTATORS
        raise Decline(node, f"call to `{self.frame.module.segment(func)}`",
                      Reason.SIDE_EFFECT if mutates else Reason.UNKNOWN_CALL)

    @staticmethod
    def as_written(node: ast.Call, values: list[Value]) -> Value:
        """A call of values the same for every individual (``values``: its arguments, translated): as written, with
        its arguments as translated where one changed."""
        same = all(v.node is a for v, a in zip(values, node.args))
        return Value(node if same else call(node.func, *(v.node for v in values)), SCALAR)

    def builtin(self, fn: str, node: ast.Call) -> Value:
        args = node.args
        if fn in ("sum", "min", "max", "any", "all") and len(args) == 1 and not node.keywords:
            return self.reduction(fn, args[0], node, "builtin")
        if fn == "sum" and len(args) == 2 and not node.keywords:
            total = self.reduction("sum", args[0], node, "builtin")
            start = self.expr(args[1])
            return self._BinOp(ast.copy_location(ast.BinOp(args[1], ast.Add(), args[0]), node)) \
                if not varies(total) else Value(ast.BinOp(start.node, ast.Add(), total.node), total.kind)
        if node.keywords:
            raise Decline(node, f"call to `{fn}` with keywords", Reason.UNKNOWN_CALL)
        if fn in ("min", "max") and len(args) >= 2:
            return self.pairwise(fn, node)
        if fn == "len" and len(args) == 1:
            return self.length_of(args[0], node)
        if fn == "pow" and len(args) == 2:
            return self._BinOp(ast.copy_location(ast.BinOp(args[0], ast.Pow(), args[1]), node))
        if fn in ("abs", "float", "int", "bool", "round") and 1 <= len(args) <= 2:
            return self.conversion(fn, node)
        reason = Reason.SIDE_EFFECT if fn in ("print", "input", "open", "setattr") else Reason.UNKNOWN_CALL
        raise Decline(node, f"call to `{fn}`", reason)

    def conversion(self, fn: str, node: ast.Call) -> Value:
        """abs, float, int, bool and round of a value (``float("inf")`` as it is)."""
        if fn == "float" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(
                node.args[0].value, str):
            return Value(node, SCALAR)
        values = [self.expr(a) for a in node.args]
        value = values[0]
        if not any(varies(v) for v in values):
            return self.as_written(node, values)
        if fn == "bool":
            return Value(self.condition(value), replace(value.kind, boolean=True), value.warns)
        value = self.elementwise(value, node)
        if value.kind.boolean and fn in ("float", "int") and len(values) == 1:  # a truth value as 1.0 / 1
            numpy, torch = ("float64", "double") if fn == "float" else ("int64", "long")
            method = ast.Attribute(value.node, torch if self.sp.torch else "astype", ast.Load())
            converted = call(method) if self.sp.torch else call(method, attr("np", numpy))
            return Value(converted, replace(value.kind, boolean=False), value.warns)
        if fn == "int" or value.kind.boolean or len(values) > 1 and fn != "round":
            raise Decline(node, f"`{fn}()` of a value per individual", Reason.VALUE)
        if fn == "float":
            return value
        if fn == "abs":
            return Value(node if value.node is node.args[0] else call(name("abs"), value.node), value.kind,
                         value.warns)
        digits = values[1].node if len(values) > 1 else None
        if digits is None:
            return Value(self.sp.fn("round", value.node), value.kind, value.warns)
        keyword = {"decimals": digits} if self.sp.torch else {}
        return Value(self.sp.fn("round", value.node, *([] if self.sp.torch else [digits]), **keyword), value.kind)

    def pairwise(self, fn: str, node: ast.Call) -> Value:
        """min(a, b, ...) / max(a, b, ...) of numbers: np.minimum / np.maximum (torch.clamp with a Python number)."""
        values = [self.elementwise(self.expr(a), node) for a in node.args]
        if not any(varies(v) for v in values):
            return self.as_written(node, values)
        self.note(Topic.MIN_MAX_NAN, node)
        result = values[0]
        for value in values[1:]:
            kind = join(result.kind, value.kind)
            a, b = self.broadcast([result, value], kind)
            result = Value(self.sp.pairwise(fn, a, b, varies(result), varies(value)), kind,
                           result.warns or value.warns)
        return result

    def length_of(self, arg: ast.expr, node: ast.Call) -> Value:
        """len() of a run of genes (their number), of a list of known length, or of a constant."""
        value = self.expr(arg)
        if value.kind.sequence and value.kind.span:
            return Value(self.length(value.kind.span), SCALAR)
        if value.kind.items is not None and value.kind.items >= 0:
            return Value(number(value.kind.items), SCALAR)
        if not varies(value):
            return self.as_written(node, [value])
        raise Decline(node, "`len()` of a value per individual", Reason.VALUE)

    def library(self, target: str, node: ast.Call) -> Value:
        """A call to a function of math, NumPy or functools."""
        module, _, fn = target.rpartition(".")
        if module == "numpy" and fn in ("asarray", "array", "asanyarray") and len(node.args) == 1 \
                and not node.keywords:
            return self.as_array(node.args[0], node)
        if module == "numpy" and fn in ("dot", "inner", "matmul") and len(node.args) == 2 and not node.keywords:
            return self.dot(node.args[0], node.args[1], node)
        if node.keywords:
            raise Decline(node, f"call to `{self.frame.module.segment(node.func)}` with keywords",
                          Reason.UNKNOWN_CALL)
        if module == "math" and fn in MATH:
            return self.function(fn, node, self.sp.math(fn))
        if module == "math" and fn == "pow" and len(node.args) == 2:
            return self._BinOp(ast.copy_location(ast.BinOp(node.args[0], ast.Pow(), node.args[1]), node))
        if module == "math" and fn in ("prod", "fsum") and len(node.args) == 1:
            return self.reduction("prod" if fn == "prod" else "sum", node.args[0], node, "builtin")
        if module == "numpy" and fn in {*REDUCTIONS, "amax", "amin"} and len(node.args) == 1:
            return self.reduction(fn.replace("amax", "max").replace("amin", "min"), node.args[0], node, "numpy")
        if module == "numpy.linalg" and fn == "norm" and len(node.args) == 1:  # the vector's 2-norm
            return self.reduction("norm", node.args[0], node, "numpy")
        if module == "numpy" and fn in ("cumsum", "cumprod", "diff") and len(node.args) == 1:
            return self.along_genes(fn, node)
        if module == "numpy" and fn == "arange" and 1 <= len(node.args) <= 3:  # a vector over the genes: i + 1
            bounds = [self.expr(a) for a in node.args]
            if any(varies(v) for v in bounds):
                raise Decline(node, f"call to `{self.frame.module.segment(node.func)}`", Reason.VALUE,
                              "of values per individual")
            return Value(self.sp.fn("arange", *(v.node for v in bounds), **self.sp.placed()) if self.sp.torch
                         else call(node.func, *(v.node for v in bounds)), ITEMS)
        count = self.integer(node.args[0], node) if module == "numpy" and len(node.args) == 1 else None
        if fn in ("zeros", "ones") and count is not None and count >= 0:  # a state kept as a list of its entries
            return Value(ast.BinOp(ast.List([ast.Constant(float(fn == "ones"))], ast.Load()), ast.Mult(),
                                   node.args[0]), replace(SCALAR, items=count))
        if module == "numpy" and fn == "where" and len(node.args) == 3:
            test, yes, no = (self.expr(a) for a in node.args)
            return self.where(self.condition(test), test.kind, yes, no, node)
        if module == "numpy" and self.sp.numpy(fn):
            return self.function(fn, node, self.sp.numpy(fn))
        if module == "functools" and fn == "reduce" and len(node.args) in (2, 3):
            return self.folded(node)
        raise Decline(node, f"call to `{self.frame.module.segment(node.func)}`", Reason.UNKNOWN_CALL)

    def along_genes(self, fn: str, node: ast.Call) -> Value:
        """``np.cumsum``, ``np.cumprod`` or ``np.diff`` of a run of genes: along the genes' axis (a diff's run one gene
        shorter); of a value the same for every individual, in NumPy, the call as written."""
        value = self.elementwise(self.expr(node.args[0]), node)
        if not varies(value) and not self.sp.torch:
            return self.as_written(node, [value])
        if not value.kind.genes:
            raise Decline(node, f"call to `{self.frame.module.segment(node.func)}`", Reason.VALUE,
                          "of a value that is not a run of genes")
        span = value.kind.span
        if fn == "diff" and span is not None:
            span = Genes(span.base, span.start.shift(1), span.stop)
        axis = {"dim" if self.sp.torch else "axis": number(1 if value.kind.population else 0)}
        return Value(self.sp.fn(fn, value.node, **axis), replace(value.kind, span=span, boolean=False), value.warns)

    def as_array(self, arg: ast.expr, node: ast.Call) -> Value:
        """``np.asarray(individual)`` (or ``np.array``): a run of genes as an ndarray row, which over the population
        is the population's columns as they are; of a value the same for every individual, in NumPy, the call as
        written (torch would mix an ndarray into its tensors: declined)."""
        value = self.expr(arg)
        if not varies(value) and not self.sp.torch:
            return self.as_written(node, [value])
        if varies(value) and value.kind.sequence and value.kind.items is None:
            return Value(value.node, replace(value.kind, sequence="array"), value.warns)
        raise Decline(node, f"call to `{self.frame.module.segment(node.func)}`" + (
            " of values per individual" if varies(value) else ""), Reason.UNKNOWN_CALL)

    def _BinOp(self, node: ast.BinOp) -> Value:
        return self.dot(node.left, node.right, node) if isinstance(node.op, ast.MatMult) else super()._BinOp(node)

    def dot(self, a: ast.expr, b: ast.expr, node: ast.Call | ast.BinOp) -> Value:
        """``np.dot(x, w)`` or ``x @ w`` of a run of genes (a list row as NumPy reads it) and a vector the same for
        every individual, or two runs of genes: the sum of their products over the genes (a ``w`` that is not one
        vector fails the rewrite's check); of two values the same for every individual, as written."""
        values = [self.expr(e) for e in (a, b)]
        if not any(varies(v) for v in values):
            if isinstance(node, ast.Call):
                return self.as_written(node, values)
            same = values[0].node is a and values[1].node is b
            return Value(node if same else ast.BinOp(values[0].node, node.op, values[1].node), SCALAR)
        if any(v.kind.items is not None or varies(v) and not v.kind.genes for v in values):
            raise Decline(node, construct(node) if isinstance(node, ast.BinOp) else
                          f"call to `{self.frame.module.segment(node.func)}`", Reason.VALUE,
                          "a product of values per individual, not of genes")
        values = [replace(v, kind=replace(v.kind, sequence=None)) if varies(v) else v for v in values]
        kind = join(*(v.kind for v in values))
        left, right = self.broadcast(values, kind)
        return Value(self.sp.reduce("sum", ast.BinOp(left, ast.Mult(), right), 1 if kind.population else None),
                     Kind(population=kind.population), any(v.warns for v in values))

    def function(self, fn: str, node: ast.Call, spelled: str | None) -> Value:
        """An elementwise math or NumPy function of the population's values."""
        values = [self.elementwise(self.expr(a), node) for a in node.args]
        if not any(varies(v) for v in values):
            return self.as_written(node, values)
        if spelled is None:
            raise Decline(node, f"call to `{self.frame.module.segment(node.func)}`", Reason.UNKNOWN_CALL,
                          f"{self.sp.dialect.value} has none")
        if self.sp.torch and len(values) == 2:  # torch's binary functions take tensors: a number as a 0-d one
            kept = 1 if fn == "log" else None  # a constant base of a log stays a number, for math.log
            values = [v if varies(v) or i == kept else Value(self.sp.tensor(v.node), v.kind)
                      for i, v in enumerate(values)]
        kind = replace(join(*(v.kind for v in values)), boolean=fn in ("isnan", "isinf", "isfinite"))
        nodes = self.broadcast(values, kind)
        raises = fn in RAISING and ranges.may_raise(fn, [v.node for v in values])
        warns = any(v.warns for v in values) or raises
        if raises:
            self.note(Topic.RAISES, node)
        if fn == "log" and len(nodes) == 2:
            base = self.sp.fn("log", nodes[1]) if varies(values[1]) else call(attr("math", "log"), nodes[1])
            return Value(ast.BinOp(self.sp.fn("log", nodes[0]), ast.Div(), base), kind, warns)
        keep = not self.sp.torch and self.resolve_module(node) == "numpy" and \
            all(n is a for n, a in zip(nodes, node.args))
        return Value(node if keep else self.sp.fn(spelled, *nodes), kind, warns)

    def resolve_module(self, node: ast.Call) -> str:
        """The library a call's function comes from ("numpy" for np.sqrt or ``from numpy import sqrt``)."""
        func = node.func
        head = func.value if isinstance(func, ast.Attribute) else func
        if isinstance(head, ast.Name):
            target = self.resolve(head.id).target
            return target.partition(".")[0]
        return ""

    def helper(self, module: Module, function: ast.FunctionDef, node: ast.Call) -> Value:
        """A call to a function of the program: the same call of its rewrite, translated for these arguments."""
        values = [self.expr(a) for a in node.args]
        keywords = {k.arg: self.expr(k.value) for k in node.keywords if k.arg}
        if not any(varies(v) for v in [*values, *keywords.values()]):
            same = all(v.node is a for v, a in zip(values, node.args)) and \
                all(keywords[k.arg].node is k.value for k in node.keywords if k.arg)
            return Value(node if same else ast.Call(node.func, [v.node for v in values], [
                ast.keyword(k, v.node) for k, v in keywords.items()]), SCALAR)
        params = [a.arg for a in function.args.posonlyargs + function.args.args]
        kinds = [v.kind for v in values] + [keywords[p].kind if p in keywords else SCALAR
                                            for p in params[len(values):]]
        new, kind = self.frame.helpers.translate(module, function, tuple(kinds), node)
        return Value(ast.Call(name(new), [v.node for v in values], [ast.keyword(k, v.node)
                                                                       for k, v in keywords.items()]),
                     kind, any(v.warns for v in [*values, *keywords.values()]))

    def folded(self, node: ast.Call) -> Value:
        """functools.reduce(operator.mul / operator.add / a lambda of * or +, iterable[, start])."""
        op = self.operator(node.args[0])
        if op is None:
            raise Decline(node, "`reduce` of a function other than * and +", Reason.UNKNOWN_CALL)
        total = self.reduction(op, node.args[1], node, "builtin")
        if len(node.args) < 3:
            return total
        start = self.expr(node.args[2])
        if isinstance(start.node, ast.Constant) and start.node.value == IDENTITY[op]:
            return total
        kind = join(start.kind, total.kind)
        return Value(ast.BinOp(start.node, ast.Mult() if op == "prod" else ast.Add(), total.node), kind)

    def operator(self, func: ast.expr) -> str | None:
        """"prod" or "sum" for operator.mul / operator.add or ``lambda x, y: x * y`` / ``x + y``."""
        if isinstance(func, ast.Lambda) and len(func.args.args) == 2 and isinstance(func.body, ast.BinOp) \
                and isinstance(func.body.left, ast.Name) and isinstance(func.body.right, ast.Name) \
                and [func.body.left.id, func.body.right.id] == [a.arg for a in func.args.args]:
            return {ast.Mult: "prod", ast.Add: "sum"}.get(type(func.body.op))
        head = func.value if isinstance(func, ast.Attribute) else func
        if isinstance(head, ast.Name) and head.id not in self.frame.env:
            target = self.resolve(head.id).target
            full = f"{target}.{func.attr}" if isinstance(func, ast.Attribute) else target
            return OPERATOR_REDUCTIONS.get(full)
        return None

    # reductions, comprehensions, iterations

    def reduction(self, op: str, arg: ast.expr, node: ast.Call, style: str) -> Value:
        """``op`` (sum, prod, max, min, any, all, mean) over the genes, or across a list of per-individual values;
        ``style`` "builtin" keeps Python's sum/math.prod across a list (they add and multiply arrays)."""
        if isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
            return self.comprehension(arg, op, node, style)
        value = self.expr(arg)
        if not varies(value):
            return Value(node if value.node is arg else ast.Call(node.func, [value.node], []), SCALAR)
        boolean = op in ("any", "all")
        if value.kind.items is not None:
            if style == "builtin" and op in ("sum", "prod"):
                return Value(ast.Call(node.func, [value.node], []), value.kind.element(), value.warns)
            return Value(self.sp.reduce_list(op, value.node), replace(COLUMN, boolean=boolean), value.warns)
        if value.kind.genes:
            axis = 1 if value.kind.population else None
            kind = Kind(population=value.kind.population, boolean=boolean)
            return Value(self.sp.reduce(op, value.node, axis), kind, value.warns)
        raise Decline(node, f"`{op}` of a value per individual", Reason.VALUE)

    def comprehension(self, comp: ast.GeneratorExp | ast.ListComp, op: str | None, node: ast.AST,
                      style: str) -> Value:
        """A comprehension reduced by ``op`` (None: a list comprehension's value)."""
        if len(comp.generators) != 1 or comp.generators[0].is_async:
            raise Decline(comp, f"{construct(comp)} with several `for`", Reason.NESTED)
        gen = comp.generators[0]
        iteration = self.iteration(gen.target, gen.iter, [comp.elt, *gen.ifs])
        inner = self.child(iteration.bindings)
        element = inner.expr(comp.elt)
        tests = [inner.expr(t) for t in gen.ifs]
        if not iteration.genes:
            return self.kept(comp, op, node, style, iteration, element, tests)
        self.frame.preamble.extend(iteration.preamble)
        if element.kind.items is not None or element.kind.sequence == "list":
            raise Decline(comp, construct(comp), Reason.NESTED, "of lists")
        if op is None:
            if tests or not element.kind.genes:
                raise Decline(comp, construct(comp), Reason.VALUE, "a list whose length varies")
            return Value(element.node, replace(element.kind, sequence="list", span=iteration.span), element.warns)
        if tests:
            element = self.filtered(op, element, tests, comp)
        elif not element.kind.genes:
            element = self.repeated(op, element, iteration, comp)
        axis = 1 if element.kind.population else None
        return Value(self.sp.reduce(op, element.node, axis),
                     Kind(population=element.kind.population, boolean=op in ("any", "all")), element.warns)

    def filtered(self, op: str, element: Value, tests: list[Value], comp: ast.AST) -> Value:
        """A comprehension's element where its ``if`` tests hold, else what leaves ``op`` unchanged."""
        test = self.logical(ast.And(), [Value(self.condition(t), replace(t.kind, boolean=True)) for t in tests],
                            comp) if len(tests) > 1 else Value(self.condition(tests[0]), tests[0].kind)
        if op in ("max", "min"):
            self.note(Topic.EMPTY, comp)
        if op == "sum" and isinstance(element.node, ast.Constant) and element.node.value == 1:
            return replace(test, kind=join(test.kind, element.kind))  # a count: the sum of the truth values
        identity = IDENTITY[op]
        spelled: ast.expr = ast.Constant(identity) if not isinstance(identity, float) or math.isfinite(identity) \
            else self.sp.constant("inf") if identity > 0 else ast.UnaryOp(ast.USub(), self.sp.constant("inf"))
        return self.where(test.node, test.kind, element, Value(spelled, SCALAR), comp)

    def repeated(self, op: str, element: Value, iteration: Iteration, comp: ast.AST) -> Value:
        """An element the same for every gene: op over the genes of it (sum: it times their number)."""
        assert iteration.span is not None
        count = self.length(iteration.span)
        if op == "sum":
            return Value(ast.BinOp(count, ast.Mult(), element.node), replace(element.kind, genes=False))
        raise Decline(comp, f"`{op}` of a value the same for every gene", Reason.VALUE)

    def kept(self, comp: ast.GeneratorExp | ast.ListComp, op: str | None, node: ast.AST, style: str,
             iteration: Iteration, element: Value, tests: list[Value]) -> Value:
        """A comprehension over something the same for every individual, kept as Python's: per-individual ``if``
        tests become a where."""
        gen = comp.generators[0]
        kept_tests = [t.node for t in tests if not varies(t)]
        varying = [t for t in tests if varies(t)]
        if varying and op is not None:
            element = self.filtered(op, element, varying, comp)
        elif varying:
            raise Decline(comp, construct(comp), Reason.VALUE, "a list whose length varies")
        generator = ast.comprehension(gen.target, iteration.iter, kept_tests, 0)
        if not varies(element):
            same = element.node is comp.elt and iteration.iter is gen.iter and len(kept_tests) == len(gen.ifs)
            rebuilt: ast.expr = comp if same else type(comp)(element.node, [generator])
            if op is None or not isinstance(node, ast.Call):
                return Value(rebuilt, SCALAR)
            return Value(node if same else ast.Call(node.func, [rebuilt], []), SCALAR)
        listed = ast.ListComp(element.node, [generator])
        if op is None:
            return Value(listed, replace(element.kind, items=-1), element.warns)
        if style == "builtin" and op in ("sum", "prod") and isinstance(node, ast.Call):
            return Value(ast.Call(node.func, [ast.GeneratorExp(element.node, [generator])], []),
                         element.kind, element.warns)
        return Value(self.sp.reduce_list(op, listed), Kind(population=True, boolean=op in ("any", "all")),
                     element.warns)

    def _ListComp(self, node: ast.ListComp) -> Value:
        return self.comprehension(node, None, node, "builtin")

    def iteration(self, target: ast.expr, it: ast.expr, body: list[ast.AST]) -> Iteration:
        """What ``for target in it`` iterates (``body``: the code that reads the targets)."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("enumerate", "zip", "range") \
                and it.func.id not in self.frame.env and self.resolve(it.func.id).what == "builtin":
            iteration: Iteration = getattr(self, "over_" + it.func.id)(target, it, body)
            return self.named(iteration, body)
        value = self.expr(it)
        if value.kind.span and value.kind.sequence:
            if not isinstance(target, ast.Name):
                raise Decline(target, "unpacking a gene", Reason.VALUE)
            binding = Binding(replace(CELLS, span=value.kind.span), value.node)
            return self.named(Iteration(True, {target.id: binding}, value.node, value.kind.span), body)
        return self.kept_iteration(target, value, it)

    def named(self, iteration: Iteration, body: list[ast.AST]) -> Iteration:
        """Give the user's name to a loop variable over the genes written as an expression and read more than once
        (``x = population[:, :-1]``), where no other binding of that name in the function would be shadowed."""
        if not iteration.genes:
            return iteration
        reads = [n.id for root in body for n in ast.walk(root) if isinstance(n, ast.Name)]
        for identifier, binding in list(iteration.bindings.items()):
            free = self.frame.bound.get(identifier, 0) <= 1 and self.resolve(identifier).what in ("unknown",
                                                                                                   "builtin")
            if isinstance(binding.node, ast.Name) or binding.index or reads.count(identifier) < 2 or not free:
                continue
            iteration.preamble.append(ast.Assign([ast.Name(identifier, ast.Store())], binding.node, lineno=PREAMBLE))
            iteration.bindings[identifier] = replace(binding, node=name(identifier))
        return iteration

    def kept_iteration(self, target: ast.expr, value: Value, it: ast.expr) -> Iteration:
        """An iteration over something the same for every individual (constants, a list of per-individual values)."""
        if not varies(value) and value.kind.items is None:
            names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
            return Iteration(False, {n: Binding(SCALAR, name(n)) for n in names}, value.node)
        if value.kind.items is not None and isinstance(target, ast.Name):
            return Iteration(False, {target.id: Binding(value.kind.element(), name(target.id))}, value.node)
        raise Decline(it, f"iteration over `{self.frame.module.segment(it)}`", Reason.NOT_GENE_LOOP)

    def over_range(self, target: ast.expr, it: ast.Call, body: list[ast.AST]) -> Iteration:
        """``range(...)``: over the genes where its variable indexes the individual, else kept."""
        base = self.indexed(target, body)
        if base is None or len(it.args) not in (1, 2) or it.keywords:
            args = [self.expr(a) for a in it.args]
            if any(varies(a) for a in args):
                raise Decline(it, f"`{self.frame.module.segment(it)}`", Reason.NOT_GENE_LOOP)
            same = all(a.node is o for a, o in zip(args, it.args))
            return self.kept_iteration(target, Value(it if same else call(it.func, *(a.node for a in args)),
                                                     SCALAR), it)
        assert isinstance(target, ast.Name)
        start = self.bound(it.args[0]) if len(it.args) == 2 else Bound(False, 0)
        stop = self.bound(it.args[-1])
        if start is None or stop is None:
            raise Decline(it, f"`{self.frame.module.segment(it)}`", Reason.NOT_GENE_LOOP, "its bounds")
        run = Genes(base, start, stop)
        first, last = self.position(base, start), self.position(base, stop)
        binding = Binding(replace(ITEMS, span=run), self.sp.arange(first, last, floats=True), run)
        return Iteration(True, {target.id: binding}, it, run)

    def indexed(self, target: ast.expr, body: list[ast.AST]) -> str | None:
        """The individual's name in the rewrite where ``target`` indexes it in ``body`` (``x[i]``, ``x[i + 1]``)."""
        if not isinstance(target, ast.Name):
            return None
        for root in body:
            for node in ast.walk(root):
                if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and any(
                        isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(node.slice)):
                    bound = self.frame.env.get(node.value.id)
                    if bound is not None and bound.kind.sequence and bound.kind.span:
                        return bound.kind.span.base
        return None

    def bound(self, node: ast.expr) -> Bound | None:
        """A range bound as an index into the genes: a constant, ``len(individual)``, either plus a constant."""
        k = self.integer(node, node)
        if k is not None:
            return Bound(False, k)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            shift = self.integer(node.right, node)
            inner = self.bound(node.left)
            if shift is not None and inner is not None:
                return inner.shift(shift if isinstance(node.op, ast.Add) else -shift)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) == 1:
            value = self.expr(node.args[0])
            if value.kind.sequence and value.kind.span:
                times, plus = value.kind.span.length
                return Bound(times == 1, plus) if times in (0, 1) else None
        if isinstance(node, ast.Name) and node.id in self.frame.env:
            return self.frame.env[node.id].length
        return None

    def over_enumerate(self, target: ast.expr, it: ast.Call, body: list[ast.AST]) -> Iteration:
        """``enumerate(individual[, start])``: the gene's position as an arange, the gene as the columns."""
        value = self.expr(it.args[0]) if it.args else None
        if value is None or not (value.kind.span and value.kind.sequence) or len(it.args) > 2 or it.keywords:
            args = [self.expr(a) for a in it.args]
            if any(varies(a) for a in args):
                raise Decline(it, f"`{self.frame.module.segment(it)}`", Reason.NOT_GENE_LOOP)
            return self.kept_iteration(target, Value(it, SCALAR), it)
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                and all(isinstance(e, ast.Name) for e in target.elts)):
            raise Decline(target, "unpacking of `enumerate`", Reason.VALUE)
        first = self.integer(it.args[1], it) if len(it.args) == 2 else 0
        if first is None:
            raise Decline(it, f"`{self.frame.module.segment(it)}`", Reason.NOT_GENE_LOOP, "its start")
        span = value.kind.span
        count = self.length(span)
        last = count if first == 0 else ast.BinOp(count, ast.Add(), number(first))
        index, gene = (e.id for e in target.elts if isinstance(e, ast.Name))
        positions = span if first == 0 and span == replace(WHOLE, base=span.base) else None  # what it indexes
        bindings = {index: Binding(replace(ITEMS, span=span), self.sp.arange(number(first), last, floats=True),
                                   positions),
                    gene: Binding(replace(CELLS, span=span), value.node)}
        return Iteration(True, bindings, it, span)

    def over_zip(self, target: ast.expr, it: ast.Call, body: list[ast.AST]) -> Iteration:
        """``zip(...)`` of runs of genes (of one length) and constant tables (one entry per gene, assumed)."""
        values = [self.expr(a) for a in it.args]
        runs = [v for v in values if v.kind.span and v.kind.sequence]
        if not runs:
            if any(varies(v) for v in values) or it.keywords:
                raise Decline(it, f"`{self.frame.module.segment(it)}`", Reason.NOT_GENE_LOOP)
            return self.kept_iteration(target, Value(it, SCALAR), it)
        span = runs[0].kind.span
        assert span is not None
        if any(r.kind.span and r.kind.span.length != span.length for r in runs) or any(
                varies(v) and not v.kind.sequence for v in values):
            raise Decline(it, f"`{self.frame.module.segment(it)}`", Reason.NOT_GENE_LOOP, "runs of different lengths")
        if not (isinstance(target, ast.Tuple) and len(target.elts) == len(values)):
            raise Decline(target, "unpacking of `zip`", Reason.VALUE)
        bindings: dict[str, Binding] = {}
        preamble: list[ast.stmt] = []
        for element, value in zip(target.elts, values):
            if value.kind.sequence and isinstance(element, ast.Name):
                bindings[element.id] = Binding(replace(CELLS, span=span), value.node)
            elif not varies(value):
                self.table(element, value, span, bindings, preamble, it)
            else:
                raise Decline(element, "unpacking a gene", Reason.VALUE)
        return Iteration(True, bindings, it, span, preamble)

    def table(self, element: ast.expr, value: Value, span: Genes, bindings: dict[str, Binding],
              preamble: list[ast.stmt], it: ast.AST) -> None:
        """A constant table zipped with the genes: one array per gene (a column per tuple item)."""
        self.note(Topic.ZIP_LENGTH, it)
        if self.sp.torch:
            self.note(Topic.CONSTANT_DTYPE, it)
        if isinstance(element, ast.Name):
            bindings[element.id] = Binding(replace(ITEMS, span=span), self.sp.vector(value.node))
            return
        names = [e.id for e in element.elts if isinstance(e, ast.Name)] if isinstance(element, ast.Tuple) else []
        if not names or len(names) != len(element.elts) or any(  # type: ignore[attr-defined]
                self.frame.bound.get(n, 0) > 1 for n in names):
            raise Decline(element, "unpacking of a constant table", Reason.VALUE)
        columns = ast.GeneratorExp(self.sp.vector(name("column")), [ast.comprehension(
            ast.Name("column", ast.Store()), call(name("zip"), ast.Starred(value.node, ast.Load())), [], 0)])
        preamble.append(ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())], columns,
                                   lineno=PREAMBLE))
        bindings.update({n: Binding(replace(ITEMS, span=span), name(n)) for n in names})
