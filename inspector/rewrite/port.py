"""A NumPy function over the whole population translated to torch (``port``): the same function on tensors,
``np.X`` spelled as torch spells it (``axis=`` -> ``dim=``, ``np.clip`` -> ``torch.clamp``, ``np.max`` ->
``torch.amax``, ``np.pi`` -> ``math.pi``), constants a torch function needs as tensors in the population's dtype and
on its device, new arrays (``np.zeros(len(pop))``) float64 on its device and set by index as NumPy's are (the
population it was given never: the caller's values would change); anything it does not know is declined with its
construct and line, never guessed."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable

import numpy as np

from inspector.rewrite.check import Outputs, as_array, compared, converted, failed, outcome
from inspector.rewrite.branches import Arms
from inspector.rewrite.dialect import CONSTANTS, NUMPY, attr, call
from inspector.rewrite.emit import diff, function, originals, substitute, unparse
from inspector.rewrite.model import (Change, ChangeKind, Check, Declined, Dialect, Reason, Renamed, Rewrite,
                                     RewriteKind, Row, Unit)
from inspector.rewrite.program import Program, literal
from inspector.source import Span
from inspector.tolerance import RTOL

ARRAY, NUMBER, OTHER = "array", "number", "other"  # what an expression is: a tensor, a Python number, anything else
# NumPy's reductions -> torch's (their axis= is dim=, keepdims= keepdim=, ddof= correction=)
REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "amax", "min": "amin", "amax": "amax",
          "amin": "amin", "any": "any", "all": "all", "argmax": "argmax", "argmin": "argmin", "std": "std",
          "var": "var", "count_nonzero": "count_nonzero", "cumsum": "cumsum", "cumprod": "cumprod"}
KEYWORDS = {"axis": "dim", "keepdims": "keepdim", "ddof": "correction"}
# NumPy's other functions -> torch's, their arguments as they are (axis= as dim=)
OTHER_FUNCTIONS = {"where": "where", "clip": "clamp", "stack": "stack", "concatenate": "cat", "dot": "matmul",
                   "matmul": "matmul", "logical_and": "logical_and", "logical_or": "logical_or",
                   "logical_xor": "logical_xor", "zeros_like": "zeros_like", "ones_like": "ones_like",
                   "full_like": "full_like", "isclose": "isclose"}
NUMBERS_TAKEN = {"pow", "fmod", "copysign", "full_like", "isclose"}  # a number after a tensor works there as is
METHODS = {"copy": "clone", "reshape": "reshape", "flatten": "flatten", "clip": "clamp", "dot": "matmul",
           "ravel": "ravel", "astype": "to"}
DTYPES = {"float": "float64", "int": "int64", "bool": "bool", "float64": "float64", "float32": "float32",
          "int64": "int64", "int32": "int32", "bool_": "bool"}
BUILTINS = {"len", "abs", "float", "int", "min", "max", "round", "range"}
CREATE = {"zeros": 1, "ones": 1, "empty": 1, "full": 2}  # NumPy's new arrays of a length: their arguments


class _Decline(Exception):
    def __init__(self, node: ast.AST, reason: Reason, construct: str, detail: str = "") -> None:
        super().__init__(construct)
        self.node, self.reason, self.construct, self.detail = node, reason, construct, detail


class _Port:
    """The translation of one function: each expression with what it is (ARRAY, NUMBER, OTHER)."""

    def __init__(self, program: Program, definition: ast.FunctionDef) -> None:
        self.program, self.module = program, program.main
        self.population = definition.args.args[0].arg
        self.kinds = {a.arg: OTHER for a in definition.args.args[1:]} | {self.population: ARRAY}
        self.math = False

    def statement(self, node: ast.stmt, first: bool) -> ast.stmt:
        if first and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return node  # the docstring
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value, kind = self.expr(node.value)
            self.kinds[node.targets[0].id] = kind
            return ast.Assign(node.targets, value, lineno=node.lineno)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in self.kinds:
            value, kind = self.expr(node.value)
            self.kinds[node.target.id] = ARRAY if ARRAY in (kind, self.kinds[node.target.id]) else kind
            return ast.AugAssign(node.target, node.op, value, lineno=node.lineno)
        if isinstance(node, ast.Return) and node.value is not None:
            return ast.Return(self.expr(node.value)[0], lineno=node.lineno)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            return self.store(node, node.targets[0])
        raise _Decline(node, Reason.STATEMENT, type(node).__name__.lower())

    def store(self, node: ast.Assign, target: ast.Subscript) -> ast.stmt:
        """``a[i] = v`` (``penalty[mask] = 100.0``) into an array the function made: torch's is NumPy's (into the
        population it was given, or another name, the caller's values would change: declined)."""
        owner = target.value
        if not (isinstance(owner, ast.Name) and owner.id != self.population and self.kinds.get(owner.id) == ARRAY):
            raise _Decline(node, Reason.SIDE_EFFECT, f"assignment to `{self.module.segment(target)}`",
                           "not an array the function made")
        stored = ast.Subscript(owner, self.expr(target.slice)[0], ast.Store())
        return ast.Assign([stored], self.expr(node.value)[0], lineno=node.lineno)

    def expr(self, node: ast.expr) -> tuple[ast.expr, str]:
        """``node`` in torch, and what it is."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float)):
                return node, NUMBER
            if node.value is None or node.value is Ellipsis:
                return node, OTHER
            raise _Decline(node, Reason.VALUE, type(node.value).__name__, repr(node.value))
        if isinstance(node, ast.Name):
            return node, self.named(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [self.expr(e)[0] for e in node.elts]
            return type(node)(items, ast.Load()), OTHER
        if isinstance(node, ast.Slice):
            lower, upper, step = (self.expr(v)[0] if v is not None else None
                                  for v in (node.lower, node.upper, node.step))
            if step is not None and not (isinstance(step, ast.Constant) and isinstance(step.value, int)
                                         and step.value > 0):
                raise _Decline(node, Reason.INDEX, "a slice's step", "torch slices step forward only")
            return ast.Slice(lower, upper, step), OTHER
        return self.operation(node)

    def operation(self, node: ast.expr) -> tuple[ast.expr, str]:
        """Operators, indexing and conditional expressions: torch's are NumPy's."""
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp, ast.Subscript)):
            kinds = [k for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)
                     for k in [self.expr(child)[1]]]
            truth = kinds[:1] if isinstance(node, ast.IfExp) else kinds  # what Python takes the truth of
            if isinstance(node, (ast.BoolOp, ast.IfExp)) and ARRAY in truth or \
                    isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and ARRAY in kinds or \
                    isinstance(node, ast.Compare) and len(node.ops) > 1 and ARRAY in kinds:
                raise _Decline(node, Reason.OPERATOR, self.module.segment(node).split("(")[0][:40])
            if isinstance(node, ast.Subscript) and kinds[0] == OTHER:
                return self.children(node), OTHER if not isinstance(node.slice, ast.Constant) else NUMBER
            return self.children(node), ARRAY if ARRAY in kinds else NUMBER
        raise _Decline(node, Reason.VALUE, type(node).__name__.lower())

    def children(self, node: ast.expr) -> ast.expr:
        """``node`` with each of its expressions translated (its own operator kept)."""
        def replaced(child: ast.AST) -> ast.AST | None:
            return None if child is node or not isinstance(child, ast.expr) else self.expr(child)[0]
        result = substitute(node, replaced)
        assert isinstance(result, ast.expr)
        return result

    def named(self, node: ast.Name) -> str:
        if node.id in self.kinds:
            return self.kinds[node.id]
        found = self.program.resolve(self.module, node.id)
        value = literal(self.module, node.id) if found.what == "constant" and found.module is self.module \
            else NotImplemented
        if isinstance(value, (bool, int, float)):
            return NUMBER
        raise _Decline(node, Reason.UNKNOWN_NAME, node.id, found.what)

    def numpy(self, node: ast.expr) -> str | None:
        """The NumPy name ``node`` spells (``np.cos``: "cos", ``np.linalg.norm``: "linalg.norm"), else None."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.insert(0, node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id not in self.kinds and parts and \
                self.program.resolve(self.module, node.id).target == "numpy":
            return ".".join(parts)
        return None

    def attribute(self, node: ast.Attribute) -> tuple[ast.expr, str]:
        spelled = self.numpy(node)
        if spelled in CONSTANTS:
            self.math = True
            return attr("math", spelled), NUMBER
        if spelled == "newaxis":
            return ast.Constant(None), OTHER
        if isinstance(node.value, ast.Name) and self.program.resolve(self.module, node.value.id).target == "math":
            return node, NUMBER
        value, kind = self.expr(node.value)
        if kind == ARRAY and node.attr in ("shape", "T", "ndim", "size"):
            if node.attr == "size":
                return call(ast.Attribute(value, "numel", ast.Load())), NUMBER
            return ast.Attribute(value, node.attr, ast.Load()), {"shape": OTHER, "T": ARRAY}.get(node.attr, NUMBER)
        raise _Decline(node, Reason.UNKNOWN_NAME, self.module.segment(node), spelled or node.attr)

    def call(self, node: ast.Call) -> tuple[ast.expr, str]:
        spelled = self.numpy(node.func)
        if spelled is not None:
            return self.torch_call(node, spelled)
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and \
                self.program.resolve(self.module, node.func.value.id).target == "math":
            if ARRAY in [self.expr(a)[1] for a in node.args]:
                raise _Decline(node, Reason.UNKNOWN_CALL, self.module.segment(node.func), "math on an array")
            return node, NUMBER
        if isinstance(node.func, ast.Attribute) and self.expr(node.func.value)[1] == ARRAY:
            return self.method(node, node.func)
        if isinstance(node.func, ast.Name) and node.func.id in BUILTINS and \
                self.program.resolve(self.module, node.func.id).what == "builtin":
            args = [self.expr(a) for a in node.args]
            kinds = [k for _, k in args]
            if ARRAY in kinds and node.func.id not in ("len", "abs") or node.keywords:
                raise _Decline(node, Reason.HOST_VALUE, f"{node.func.id}()", "of an array")
            return call(node.func, *[e for e, _ in args]), ARRAY if node.func.id == "abs" and ARRAY in kinds else NUMBER
        raise _Decline(node, Reason.UNKNOWN_CALL, self.module.segment(node.func) or "call")

    def torch_call(self, node: ast.Call, spelled: str) -> tuple[ast.expr, str]:
        """``np.X(...)`` as torch's function."""
        _known_keywords(node, f"np.{spelled}")
        args = [self.expr(a) for a in node.args]
        keywords = [(k.arg, self.expr(k.value)[0]) for k in node.keywords]
        if spelled in REDUCE:
            if not args or args[0][1] != ARRAY:
                raise _Decline(node, Reason.VALUE, f"np.{spelled}", "of no array")
            return call(attr("torch", REDUCE[spelled]), args[0][0], **self.reduced(node, spelled, args[1:],
                                                                                 keywords)), ARRAY
        if spelled in CREATE and args and args[0][1] == NUMBER and len(args) == CREATE[spelled]:
            size = ast.Tuple([args[0][0]], ast.Load()) if spelled == "full" else args[0][0]  # torch.full's a tuple
            return call(attr("torch", spelled), size, *(e for e, _ in args[1:]), dtype=attr("torch", "float64"),
                        device=attr(self.population, "device")), ARRAY  # NumPy's default dtype, float64
        torch_name = NUMPY.get(spelled) or OTHER_FUNCTIONS.get(spelled)
        if torch_name is None and spelled == "linalg.norm" and not any(k != "axis" for k, _ in keywords) \
                and len(args) == 1:
            torch_name = "linalg.vector_norm"
        if torch_name is None:
            raise _Decline(node, Reason.UNKNOWN_CALL, f"np.{spelled}", "no torch translation known")
        if torch_name in ("maximum", "minimum") and len(args) == 2 and NUMBER in (args[0][1], args[1][1]) and \
                ARRAY in (args[0][1], args[1][1]):
            tensor, bound = (args[0][0], args[1][0]) if args[0][1] == ARRAY else (args[1][0], args[0][0])
            return call(attr("torch", "clamp"), tensor, **{"min" if torch_name == "maximum" else "max": bound}), ARRAY
        made = [self.tensor(e) if k == NUMBER and _wrapped(torch_name, [k for _, k in args]) else e for e, k in args]
        return call(attr("torch", *torch_name.split(".")), *made,
                    **{KEYWORDS.get(k, k): v for k, v in keywords if k is not None}), ARRAY

    def reduced(self, node: ast.Call, spelled: str, rest: list[tuple[ast.expr, str]],
                keywords: list[tuple[str | None, ast.expr]]) -> dict[str, ast.expr]:
        """A reduction's keywords in torch's names (a positional axis as ``dim``; std and var with NumPy's
        ``ddof=0`` unless given)."""
        if len(rest) > 1:
            raise _Decline(node, Reason.UNKNOWN_CALL, f"{spelled}()", "more arguments than the axis")
        found = {KEYWORDS[str(k)]: v for k, v in keywords} | ({"dim": rest[0][0]} if rest else {})
        if spelled in ("std", "var"):
            found.setdefault("correction", ast.Constant(0))
        return found

    def method(self, node: ast.Call, func: ast.Attribute) -> tuple[ast.expr, str]:
        """``x.m(...)`` on an array, as torch's method."""
        value = self.expr(func.value)[0]
        _known_keywords(node, f".{func.attr}()")
        if func.attr in REDUCE and func.attr not in ("count_nonzero",):
            found = self.reduced(node, func.attr, [self.expr(a) for a in node.args],
                                 [(k.arg, self.expr(k.value)[0]) for k in node.keywords])
            return call(ast.Attribute(value, REDUCE[func.attr], ast.Load()), **found), ARRAY
        if func.attr not in METHODS or node.keywords:
            raise _Decline(node, Reason.UNKNOWN_CALL, f".{func.attr}()", "no torch translation known")
        if func.attr == "astype":
            given = node.args[0] if len(node.args) == 1 else node
            dtype = self.numpy(given) or (given.id if isinstance(given, ast.Name) else "")
            if dtype not in DTYPES:
                raise _Decline(node, Reason.UNKNOWN_CALL, ".astype()", ast.unparse(given))
            return call(ast.Attribute(value, "to", ast.Load()), attr("torch", DTYPES[dtype])), ARRAY
        return call(ast.Attribute(value, METHODS[func.attr], ast.Load()), *[self.expr(a)[0] for a in node.args]), ARRAY

    def tensor(self, value: ast.expr) -> ast.expr:
        """A number as a 0-d tensor in the population's dtype, on its device."""
        return call(attr("torch", "tensor"), value, dtype=attr(self.population, "dtype"),
                    device=attr(self.population, "device"))


def _known_keywords(node: ast.Call, construct: str) -> None:
    """Decline a call with a keyword torch's function does not take (``dtype=``, ``out=``, ``where=``)."""
    unknown = [str(k.arg) for k in node.keywords if k.arg not in KEYWORDS]
    if unknown:
        raise _Decline(node, Reason.UNKNOWN_CALL, construct, f"{unknown[0]}=")


def _wrapped(torch_name: str, kinds: list[str]) -> bool:
    """Whether torch's ``torch_name`` needs its number arguments as tensors (given what its arguments are):
    ``torch.where`` of two numbers would be float32, ``torch.clamp`` takes tensor bounds or number bounds."""
    if torch_name == "where":
        return ARRAY not in kinds[1:]
    if torch_name == "clamp":
        return ARRAY in kinds[1:]
    return torch_name not in NUMBERS_TAKEN or kinds[:1] != [ARRAY]


def port(program: Program, target: str) -> Rewrite | Declined:
    """``target`` (a function of the program's main module taking the population first) written in torch:
    ``{target}_torch``; or the first construct it does not know."""
    module = program.main
    definition = module.functions.get(target)
    span = Span(module.path, definition.lineno, definition.end_lineno or definition.lineno) if definition else \
        Span(module.path, 0, 0)
    if definition is None or not definition.args.args or definition.args.vararg or definition.args.kwarg or \
            definition.args.kwonlyargs or definition.args.posonlyargs:
        return Declined(target, "def", module.segment(definition).split("\n")[0] if definition else target, span,
                        Reason.PARAMETERS if definition else Reason.NOT_A_FUNCTION)
    translated = _Port(program, definition)
    try:
        body = [translated.statement(s, i == 0) for i, s in enumerate(definition.body)]
    except _Decline as d:
        line = getattr(d.node, "lineno", definition.lineno)
        return Declined(target, d.construct, module.segment(d.node) or module.line(line),
                        Span(module.path, line, getattr(d.node, "end_lineno", None) or line), d.reason, d.detail)
    entry = f"{target}_torch"
    source = unparse(function(entry, definition.args, body), module, originals([definition])) + "\n"
    imports = (("import math",) if translated.math else ()) + ("import torch",)
    return Rewrite(RewriteKind.PORT, Dialect.TORCH, Row.POPULATION, target, entry, source, imports,
                   diff(module.segment(definition), source, module.path, definition.lineno), (span,),
                   (Change(ChangeKind.FUNCTION, span, module.line(definition.lineno)),), (), (),
                   (Renamed(target, entry, ""),))


def checked(rewrite: Rewrite, original: Callable[..., object], entry: Callable[..., object],
            population: np.ndarray, extra: tuple[object, ...] = ()) -> Check:
    """The translation against the user's function on ``population`` (and its ``extra`` arguments), each given
    the whole of it: same values within the variants' tolerance, inf and NaN in the same places."""
    arms, rtol = Arms(0), RTOL
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = Outputs(as_array(original(population, *extra)), {})
        except Exception as e:
            expected = Outputs(np.full(len(population), np.nan),
                                      {i: f"raised {type(e).__name__}: {e}" for i in range(len(population))})
        try:
            got = as_array(entry(converted(population, Dialect.TORCH), *extra))
        except Exception as e:
            return failed(rewrite, Unit.INDIVIDUALS, len(population), rtol, arms, population, e)
    return outcome(rewrite, Unit.INDIVIDUALS, len(population), rtol, compared(expected, got, rtol),
                          arms, population, got)
