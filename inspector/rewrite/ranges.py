"""The range of values an expression of the rewrite can take, from its own form alone (constants, the genes'
positions, ``abs``, squares, ``sqrt``, ``exp``, sums and products of known signs): a small interval reasoning that
tells where Python could raise (a division by zero, ``math.sqrt`` of a negative number) or give a complex number
(a negative base to a fractional power), so that a caution is said only where the operands do not rule it out.
A name, an index or a call it does not know is any number."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

INF = math.inf
SQUARES = {"square"}
UNIT = {"sin", "cos"}  # functions into [-1, 1]
# function -> the range of its argument where Python neither raises nor overflows
DOMAINS: dict[str, tuple[float, float, bool]] = {  # (lowest, highest, lowest excluded)
    "sqrt": (0.0, INF, False), "log": (0.0, INF, True), "log2": (0.0, INF, True), "log10": (0.0, INF, True),
    "log1p": (-1.0, INF, True), "asin": (-1.0, 1.0, False), "acos": (-1.0, 1.0, False), "arcsin": (-1.0, 1.0, False),
    "arccos": (-1.0, 1.0, False), "acosh": (1.0, INF, False), "arccosh": (1.0, INF, False),
    "exp": (-INF, 709.0, False), "expm1": (-INF, 709.0, False), "exp2": (-INF, 1023.0, False),
    "cosh": (-710.0, 710.0, False), "sinh": (-710.0, 710.0, False),
}


@dataclass(frozen=True)
class Interval:
    """Values from ``lo`` to ``hi`` (``open``: ``lo`` itself excluded)."""

    lo: float = -INF
    hi: float = INF
    open: bool = False

    @property
    def positive(self) -> bool:
        return self.lo > 0 or (self.lo == 0 and self.open)

    @property
    def nonzero(self) -> bool:
        return self.positive or self.hi < 0

    def within(self, lo: float, hi: float, open_: bool) -> bool:
        """Inside [lo, hi] (``open_``: lo excluded)."""
        above = self.lo > lo or (self.lo == lo and (self.open or not open_))
        return above and self.hi <= hi


ANY = Interval()
NONNEGATIVE = Interval(0.0)


def interval(node: ast.expr) -> Interval:
    """The values ``node`` can take (ANY where its form does not say)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return Interval(float(node.value), float(node.value))
    if isinstance(node, ast.Attribute) and node.attr in ("pi", "e", "tau", "inf"):
        value = float(getattr(math, node.attr))
        return Interval(value, value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = interval(node.operand)
        return Interval(-inner.hi, -inner.lo)
    if isinstance(node, ast.BinOp):
        return _binary(node)
    if isinstance(node, ast.Call):
        return _call(node)
    return ANY


def _binary(node: ast.BinOp) -> Interval:
    a, b = interval(node.left), interval(node.right)
    if isinstance(node.op, ast.Add):
        return Interval(a.lo + b.lo, a.hi + b.hi, a.open or b.open)
    if isinstance(node.op, ast.Sub):
        return Interval(a.lo - b.hi, a.hi - b.lo)
    if isinstance(node.op, ast.Mult):
        if ast.dump(node.left) == ast.dump(node.right):  # x * x
            return NONNEGATIVE
        if a.lo >= 0 and b.lo >= 0:
            return Interval(_times(a.lo, b.lo), _times(a.hi, b.hi), a.positive and b.positive)
        return ANY
    if isinstance(node.op, ast.Div) and a.lo >= 0 and b.positive:
        return Interval(0.0 if b.hi == INF else a.lo / b.hi, INF if b.lo == 0 else a.hi / b.lo,
                        a.positive and b.hi < INF)
    if isinstance(node.op, ast.Pow):
        return power(a, b)
    return ANY


def power(base: Interval, exponent: Interval) -> Interval:
    """``base ** exponent``: not negative where the exponent is an even integer or the base is not negative."""
    e = exponent.lo if exponent.lo == exponent.hi else None
    if e is not None and e.is_integer() and e % 2 == 0:
        return Interval(0.0, INF, base.nonzero or e == 0)
    if base.lo >= 0:
        return Interval(0.0, INF, base.positive)
    return ANY


def _times(a: float, b: float) -> float:
    return 0.0 if a == 0 or b == 0 else a * b


def _call(node: ast.Call) -> Interval:
    fn = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(
        node.func, ast.Name) else ""
    args = [interval(a) for a in node.args]
    if fn == "tensor" and node.args:  # a number made a 0-d tensor for torch
        return interval(node.args[0])
    if fn == "arange":
        start = args[0] if len(node.args) > 1 else Interval(0.0, 0.0)
        return Interval(start.lo, INF)
    if not args:
        return ANY
    x = args[0]
    if fn in ("abs", "fabs", "absolute"):
        return x if x.lo >= 0 else Interval(0.0, max(-x.lo, x.hi), x.nonzero)
    if fn in SQUARES:
        return Interval(0.0, INF, x.nonzero)
    if fn == "sqrt" and x.lo >= 0:
        return Interval(math.sqrt(x.lo), math.sqrt(x.hi), x.open or x.lo > 0)
    if fn == "exp":
        return Interval(0.0, INF, True)
    if fn in UNIT:
        return Interval(-1.0, 1.0)
    if fn == "cosh":
        return Interval(1.0, INF)
    return ANY


def may_raise(fn: str, args: list[ast.expr]) -> bool:
    """Whether Python's ``fn`` (math's, or NumPy's name for it) could raise or overflow on these arguments, where
    NumPy and torch give NaN or inf."""
    if fn in DOMAINS and len(args) == 1:
        return not interval(args[0]).within(*DOMAINS[fn])
    if fn == "log" and len(args) == 2:  # and its base: positive, not 1
        base = interval(args[1])
        return not (interval(args[0]).positive and base.positive and (base.hi < 1 or base.lo > 1))
    if fn in ("pow", "power") and len(args) == 2:  # math.pow raises where ** would give a complex number
        return may_raise_power(args[0], args[1]) or complex_power(args[0], args[1])
    if fn in ("fmod",) and len(args) == 2:
        return not interval(args[1]).nonzero
    if fn == "reciprocal" and len(args) == 1:
        return not interval(args[0]).nonzero
    return True


def may_raise_power(base: ast.expr, exponent: ast.expr) -> bool:
    """``base ** exponent`` in Python: a zero base to a negative power raises."""
    e = interval(exponent)
    return e.lo < 0 and not interval(base).nonzero


def complex_power(base: ast.expr, exponent: ast.expr) -> bool:
    """Whether Python's ``base ** exponent`` could be a complex number: a negative base, a power not an integer."""
    e = interval(exponent)
    integer = e.lo == e.hi and e.lo.is_integer()
    return not integer and interval(base).lo < 0
