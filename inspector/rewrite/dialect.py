"""How NumPy and torch spell what a per-individual function says with ``math`` and builtins: the functions, the
constants, where, the reductions over the genes, stacking objectives."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from inspector.rewrite.model import Dialect

# math's function -> (NumPy's, torch's); None where that library has none
MATH: dict[str, tuple[str | None, str | None]] = {
    "sin": ("sin", "sin"), "cos": ("cos", "cos"), "tan": ("tan", "tan"), "asin": ("arcsin", "asin"),
    "acos": ("arccos", "acos"), "atan": ("arctan", "atan"), "atan2": ("arctan2", "atan2"), "sinh": ("sinh", "sinh"),
    "cosh": ("cosh", "cosh"), "tanh": ("tanh", "tanh"), "asinh": ("arcsinh", "asinh"), "acosh": ("arccosh", "acosh"),
    "atanh": ("arctanh", "atanh"), "exp": ("exp", "exp"), "expm1": ("expm1", "expm1"), "exp2": ("exp2", "exp2"),
    "log": ("log", "log"), "log2": ("log2", "log2"), "log10": ("log10", "log10"), "log1p": ("log1p", "log1p"),
    "sqrt": ("sqrt", "sqrt"), "cbrt": ("cbrt", None), "fabs": ("abs", "abs"), "floor": ("floor", "floor"),
    "ceil": ("ceil", "ceil"), "trunc": ("trunc", "trunc"), "hypot": ("hypot", "hypot"),
    "copysign": ("copysign", "copysign"), "degrees": ("degrees", "rad2deg"), "radians": ("radians", "deg2rad"),
    "isnan": ("isnan", "isnan"), "isinf": ("isinf", "isinf"), "isfinite": ("isfinite", "isfinite"),
    "erf": (None, "erf"), "erfc": (None, "erfc"), "fmod": ("fmod", "fmod"),
}
# NumPy's elementwise functions a row function may call -> torch's name
NUMPY: dict[str, str] = {
    **{numpy: torch for numpy, torch in MATH.values() if numpy and torch}, "square": "square", "power": "pow",
    "absolute": "abs", "abs": "abs", "maximum": "maximum", "minimum": "minimum", "sign": "sign", "round": "round",
    "reciprocal": "reciprocal", "negative": "neg", "logical_not": "logical_not", "clip": "clamp",
}
# math functions whose domain is not all floats, or that overflow: Python raises where arrays give NaN or inf
RAISING = {"sqrt", "log", "log2", "log10", "log1p", "asin", "acos", "acosh", "atanh", "exp", "expm1", "exp2", "cosh",
           "sinh", "pow", "fmod", "power", "arcsin", "arccos", "arccosh", "arctanh", "reciprocal"}
CONSTANTS = {"pi", "e", "inf", "nan", "tau"}
REDUCTIONS = {"sum": ("sum", "sum"), "prod": ("prod", "prod"), "max": ("max", "amax"), "min": ("min", "amin"),
              "any": ("any", "any"), "all": ("all", "all"), "mean": ("mean", "mean"), "std": ("std", "std"),
              "var": ("var", "var"), "count_nonzero": ("count_nonzero", "count_nonzero"),
              "norm": ("linalg.norm", "linalg.norm")}


def name(identifier: str) -> ast.Name:
    return ast.Name(identifier, ast.Load())


def attr(base: str, *names: str) -> ast.expr:
    """``base.a.b`` as an expression."""
    node: ast.expr = name(base)
    for n in names:
        node = ast.Attribute(node, n, ast.Load())
    return node


def call(func: ast.expr, *args: ast.expr, **keywords: ast.expr) -> ast.Call:
    return ast.Call(func, list(args), [ast.keyword(k, v) for k, v in keywords.items()])


def number(value: int | float) -> ast.expr:
    """A numeric literal (a negative one as unary minus, as Python parses it)."""
    if value < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


@dataclass(frozen=True)
class Spelling:
    """One library's spelling; ``module`` is the name the rewrite's code uses for it; ``like``: a name in the code
    being written that holds a tensor of the population (None: none in scope), whose device torch's new tensors
    take."""

    dialect: Dialect
    like: str | None = None

    @property
    def module(self) -> str:
        return "np" if self.dialect is Dialect.NUMPY else "torch"

    @property
    def import_line(self) -> str:
        return "import numpy as np" if self.dialect is Dialect.NUMPY else "import torch"

    @property
    def torch(self) -> bool:
        return self.dialect is Dialect.TORCH

    def fn(self, function: str, *args: ast.expr, **keywords: ast.expr) -> ast.Call:
        return call(attr(self.module, function), *args, **keywords)

    def math(self, function: str) -> str | None:
        """The library's name for math's ``function`` (None: it has none)."""
        pair = MATH.get(function)
        return None if pair is None else pair[int(self.torch)]

    def numpy(self, function: str) -> str | None:
        """The library's name for NumPy's elementwise ``function``."""
        if function not in NUMPY:
            return None
        return NUMPY[function] if self.torch else function

    def constant(self, which: str) -> ast.expr:
        """math's ``which`` (pi, e, inf, nan, tau): np.pi in NumPy, math.pi in torch code."""
        if self.torch or which == "tau":
            return attr("math", which)
        return attr("np", which)

    def placed(self) -> dict[str, ast.expr]:
        """The keywords that make a new torch tensor float64 (as Python computes) on the population's device."""
        float64: dict[str, ast.expr] = {"dtype": attr("torch", "float64")}
        return float64 | {"device": attr(self.like, "device")} if self.like else float64

    def tensor(self, value: ast.expr) -> ast.expr:
        """A Python number as a 0-d float64 tensor on the population's device (torch's binary functions take
        tensors; a Python number alone would be torch's default dtype, float32)."""
        return self.fn("tensor", value, **self.placed())

    def where(self, condition: ast.expr, a: ast.expr, b: ast.expr) -> ast.expr:
        return self.fn("where", condition, a, b)

    def reduce(self, op: str, value: ast.expr, axis: int | None = 1) -> ast.expr:
        """``op`` (a key of REDUCTIONS) of ``value`` over ``axis`` (None: all of it); torch's std and var as NumPy's
        (no correction)."""
        keywords = {} if axis is None else {"dim" if self.torch else "axis": number(axis)}
        if self.torch and op in ("std", "var"):
            keywords["correction"] = number(0)
        return call(attr(self.module, *REDUCTIONS[op][int(self.torch)].split(".")), value, **keywords)

    def reduce_list(self, op: str, values: ast.expr) -> ast.expr:
        """``op`` across a Python list of per-individual arrays (np.max([a, b], axis=0))."""
        if self.torch:
            return self.reduce(op, self.fn("stack", values), 0)
        return self.reduce(op, values, 0)

    def stack(self, values: list[ast.expr]) -> ast.expr:
        """Objectives side by side: one row per individual."""
        return self.reduce_axis_call("stack", ast.List(values, ast.Load()))

    def reduce_axis_call(self, function: str, value: ast.expr) -> ast.expr:
        return self.fn(function, value, **{"dim" if self.torch else "axis": number(1)})

    def pairwise(self, op: str, a: ast.expr, b: ast.expr, a_array: bool, b_array: bool) -> ast.expr:
        """Elementwise min or max (``op``) of two values; torch.clamp where one is a Python number."""
        if self.torch and not (a_array and b_array):
            tensor, bound = (a, b) if a_array else (b, a)
            return self.fn("clamp", tensor, **{"max" if op == "min" else "min": bound})
        return self.fn("minimum" if op == "min" else "maximum", a, b)

    def columns(self, population: ast.expr) -> ast.expr:
        """The population's columns, to unpack into one name per gene."""
        if self.torch:
            return call(ast.Attribute(population, "unbind", ast.Load()), dim=number(1))
        return ast.Attribute(population, "T", ast.Load())

    def vector(self, table: ast.expr) -> ast.expr:
        """A constant table of numbers (one per gene) as an array: in torch float64, as Python computes, on the
        population's device."""
        if self.torch:
            return self.fn("tensor", table, **self.placed())
        return self.fn("array", table)

    def arange(self, start: ast.expr, stop: ast.expr, floats: bool = False) -> ast.expr:
        """The genes' positions, in torch on the population's device; ``floats``: float64 in torch, for a function
        whose arithmetic on them Python did (``i + 1.0`` is a float64 there, and float32 of torch's int64)."""
        bounds = [stop] if isinstance(start, ast.Constant) and start.value == 0 else [start, stop]
        if not self.torch:
            return self.fn("arange", *bounds)
        placed = self.placed() if floats else {"device": attr(self.like, "device")} if self.like else {}
        return self.fn("arange", *bounds, **placed)

    def full(self, count: ast.expr, value: ast.expr) -> ast.expr:
        """``value`` for each of ``count`` individuals."""
        if self.torch:
            return self.fn("full", ast.Tuple([count], ast.Load()), value, **self.placed())
        return self.fn("full", count, value)

    def truth(self, value: ast.expr) -> ast.expr:
        """A number as a truth value, as Python's ``bool`` (NaN is true)."""
        return ast.Compare(value, [ast.NotEq()], [ast.Constant(0)])

