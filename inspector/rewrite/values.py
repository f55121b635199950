"""What a translated expression is: its new AST and its kind (one value for the whole population, one per individual,
one per gene of each individual, ...), and the exception that stops a translation with its reason."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from inspector.rewrite.model import Reason
from inspector.rewrite.program import Module


PREAMBLE = 0  # the line number of statements the rewrite adds (names for the genes, constant tables as arrays)


class Decline(Exception):
    """A construct outside the subset: ``node`` is the user's node, ``construct`` names it."""

    def __init__(self, node: ast.AST, construct: str, reason: Reason, detail: str = "") -> None:
        super().__init__(f"{construct}: {reason.value} {detail}".strip())
        self.node = node
        self.construct = construct
        self.reason = reason
        self.detail = detail
        self.module: Module | None = None  # where it was raised (set by the function being written)


@dataclass(frozen=True)
class Bound:
    """An index into the genes: ``off`` from the start, or from the end when ``end`` (g + off)."""

    end: bool
    off: int

    def shift(self, k: int) -> Bound:
        return Bound(self.end, self.off + k)


@dataclass(frozen=True)
class Genes:
    """A run of genes [start, stop) of the individual named ``base`` in the rewrite (a slice of it; the whole
    individual is [0, g + 0))."""

    base: str
    start: Bound
    stop: Bound

    @property
    def length(self) -> tuple[int, int]:
        """(how many g, plus how many): the run's length as a multiple of the gene count plus a constant."""
        return int(self.stop.end) - int(self.start.end), self.stop.off - self.start.off


WHOLE = Genes("", Bound(False, 0), Bound(True, 0))  # replace(WHOLE, base=...)


@dataclass(frozen=True)
class Kind:
    """``population``: one value per individual; ``genes``: one value per gene (a second axis, of ``span`` genes
    when known); ``sequence``: a run of the individual's genes as the original holds it ("list": a Python list,
    whose ``+`` and ``*`` join and repeat; "array": an ndarray row, elementwise); ``boolean``: a truth value;
    ``items``: a Python list or tuple of that many values of this kind."""

    population: bool = False
    genes: bool = False
    sequence: str | None = None
    boolean: bool = False
    items: int | None = None
    span: Genes | None = None

    def element(self) -> Kind:
        """The kind of one item of a list kind."""
        return replace(self, items=None)


SCALAR = Kind()
COLUMN = Kind(population=True)
CELLS = Kind(population=True, genes=True)
ITEMS = Kind(genes=True)


def join(*kinds: Kind) -> Kind:
    """The kind of an elementwise result of values of these kinds (a number, not a truth value)."""
    return Kind(population=any(k.population for k in kinds), genes=any(k.genes for k in kinds),
                span=next((k.span for k in kinds if k.span), None))


def joined(*kinds: Kind) -> Kind:
    """The kind of a name that these paths bound (``join``, a list's length kept where every path gives it)."""
    lengths = {k.items for k in kinds}
    return replace(join(*kinds), items=lengths.pop() if len(lengths) == 1 else None)


@dataclass(frozen=True)
class Value:
    """A translated expression: ``node`` the new AST (the user's own node object where nothing changed), ``kind``;
    ``warns``: it may warn or raise where the original would not have computed it (division, a math domain)."""

    node: ast.expr
    kind: Kind
    warns: bool = False


@dataclass(frozen=True)
class Binding:
    """What a local name stands for: its kind, the expression to write for it (a loop variable over the genes is
    written as the population's columns), and for an index over the genes (``for i in range(len(x) - 1)``) the
    run it takes."""

    kind: Kind
    node: ast.expr
    index: Genes | None = None
    length: Bound | None = None  # a name bound to the number of genes (``n = len(individual)``), as a bound
    entries: bool = False  # a list the function made (``[0] * K``): its entries may be set


def varies(value: Value) -> bool:
    """A value that differs between individuals (or genes)."""
    return value.kind.population or value.kind.genes
