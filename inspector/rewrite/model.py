"""The rewriter's typed values: what it wrote (``Rewrite``), what it would not rewrite (``Declined``, with the
construct, its line and why), how the rewrite's semantics differ from the user's code (``Note``), and what the check
found (``Check``). No English here: ``inspector.render.rewrites`` says them."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from inspector.source import Place, Span


class Dialect(enum.Enum):
    """The array library a rewrite is written for."""

    NUMPY = "numpy"
    TORCH = "torch"


class RewriteKind(enum.Enum):
    """A per-individual function written over the whole population, a NumPy/torch variant with its breaks
    rewritten, or a NumPy function over the population written in torch."""

    VECTORIZED = "vectorized"
    BREAKS = "breaks"
    PORT = "port"  # a NumPy function over the population translated to torch (``inspector.rewrite.port``)


class ChangeKind(enum.Enum):
    """One change a rewrite makes to the user's code."""

    FUNCTION = "function"  # a per-individual function (or a row function) written over the population
    WHERE = "where"  # an `if` on an array or tensor -> np.where / torch.where
    COND = "cond"  # an `if` on a tensor whose branches are whole computations -> torch.cond
    ITEM = "item"  # `.item()` / `float(t)` used in arithmetic or a comparison -> the tensor itself
    APPLY = "apply"  # np.apply_along_axis(f, 1, pop) -> f vectorized
    LOOP = "loop"  # a Python loop over genes or constraints (unrolled by Dynamo) -> one reduction


class Row(enum.Enum):
    """How the original function takes its input: one individual as a list (a ``fitness_python`` variant is called
    on ``population.tolist()`` rows), one row as an ndarray (the function ``np.apply_along_axis`` calls), or the
    whole population (a NumPy or torch variant)."""

    LIST = "list"
    ARRAY = "array"
    POPULATION = "population"


class Reason(enum.Enum):
    """Why a construct was not rewritten."""

    STATEMENT = "statement"  # a statement outside the subset (while, try, with, raise, del, nested def, ...)
    NOT_GENE_LOOP = "not-gene-loop"  # a loop that is not a fixed-length loop over the genes or over constants
    EARLY_EXIT = "early-exit"  # break, or return, inside a loop
    SIDE_EFFECT = "side-effect"  # print, an assignment to an item or attribute, a call for its effect
    UNKNOWN_CALL = "unknown-call"  # a call to a function the rewriter does not know
    UNKNOWN_NAME = "unknown-name"  # a name that is not a local, a parameter, a constant or an import
    INDEX = "index"  # an index computed per individual, or one past the genes
    SEQUENCE = "sequence"  # arithmetic on a list (repeats or joins it in Python)
    VALUE = "value"  # a value outside numbers and booleans (strings, None, dicts, sets, lambdas)
    OPERATOR = "operator"  # `in`, `is`, shifts
    NO_RETURN = "no-return"  # the function can end without a `return` (returns None)
    CHANGED_AFTER_RETURN = "changed-after-return"  # a name an early return reads is assigned again later
    RECURRENCE = "recurrence"  # a loop whose accumulator depends on its own previous value other than + * max min
    NESTED = "nested"  # a loop or comprehension inside another one over the genes
    CONDITIONAL_LOOP = "conditional-loop"  # a loop, or a name assigned in a loop, under a per-individual condition
    RETURNS = "returns"  # returns of different lengths (a number here, a tuple there)
    PARAMETERS = "parameters"  # takes parameters besides the individual (without defaults), *args or **kwargs
    NOT_A_FUNCTION = "not-a-function"  # a lambda, a functools.partial, a method, a builtin
    HELPER = "helper"  # a helper called with an individual in one place and a number in another
    HOST_VALUE = "host-value"  # .item()/float(t) whose Python number leaves the graph (print, format, a list)
    NOT_ELEMENTWISE = "not-elementwise"  # a loop body that is not elementwise over the population
    ALIASED = "aliased"  # an in-place update of an array that something else may refer to
    MASK = "mask"  # a boolean-mask read or update outside the `if m.any(): x[m] op= ...` form
    DATA_BRANCH = "data-branch"  # an `if` on a tensor whose branches are not array expressions or assignments
    METHOD = "method"  # a method of an object the module holds (an instance of a class): its state is not followed


@dataclass(frozen=True)
class Declined:
    """A construct left as it was: ``construct`` names it (``while``, ``print``, ...), ``code`` is the user's source
    of it, ``detail`` a name or value the reason is about."""

    target: str
    construct: str
    code: str
    span: Span
    reason: Reason
    detail: str = ""


UNROLLED_GENES = 64  # genes up to which a rewrite whose loop over the genes stays is compiled (torch unrolls it)


class Topic(enum.Enum):
    """A way the rewrite's results can differ from the original's."""

    NAN_COMPARISON = "nan-comparison"  # `not (a < b)` written `a >= b`: they differ where a or b is NaN
    BOTH_BRANCHES = "both-branches"  # np.where computes both branches: warnings for values it discards
    RAISES = "raises"  # Python raises (ZeroDivisionError, ValueError, OverflowError) where arrays give inf or NaN
    COMPLEX_POWER = "complex-power"  # a negative base to a fractional power: Python a complex number, arrays NaN
    MIN_MAX_NAN = "min-max-nan"  # Python's min/max with NaN depend on argument order; np.minimum gives NaN
    OPERANDS = "operands"  # `and`/`or` of numbers return an operand: written as a where
    DEFAULT_DTYPE = "default-dtype"  # torch.where of two Python numbers gives torch's default dtype (float32)
    CONSTANT_DTYPE = "constant-dtype"  # a constant table as a float64 tensor (as Python computed it)
    ZIP_LENGTH = "zip-length"  # zip stops at the shorter: the rewrite assumes one entry per gene
    REBINDS = "rebinds"  # an in-place update written as a new array bound to the same name
    HOST_SCALAR = "host-scalar"  # .item() removed: the 0-d tensor keeps the tensor's dtype
    EMPTY = "empty"  # max/min of no genes: Python raises, the rewrite gives -inf/inf
    GENE_LOOP = "gene-loop"  # a loop over the genes kept (a state carried): torch.compile unrolls it, gene by gene


@dataclass(frozen=True)
class Note(Place):
    """How the rewrite differs from the user's code, about the user's ``line`` of ``file`` (its ``code``)."""

    topic: Topic
    file: str = field(kw_only=True)
    line: int = field(kw_only=True)
    code: str


@dataclass(frozen=True)
class Change:
    """One change: the user's lines it replaces and the kind of rewrite."""

    kind: ChangeKind
    span: Span
    code: str  # the user's code it replaces (its first line)


@dataclass(frozen=True)
class Branch:
    """A branch of the original: an ``if`` (a conditional expression, a comprehension's ``if``) whose two arms the
    check counts."""

    id: int
    function: str
    line: int
    code: str  # the test's source


@dataclass(frozen=True)
class Renamed:
    """A user's function and the name of its rewrite."""

    user: str
    new: str
    module: str  # the dotted module it is defined in ("" for the sample itself)


@dataclass(frozen=True)
class Rewrite:
    """A rewrite to run in place of ``target``: ``source`` (the new functions, whole) run with ``imports`` in the
    sample's namespace; ``entry`` is the function to call on the population."""

    kind: RewriteKind
    dialect: Dialect
    row: Row
    target: str
    entry: str
    source: str
    imports: tuple[str, ...]
    diff: str
    replaces: tuple[Span, ...]
    changes: tuple[Change, ...]
    notes: tuple[Note, ...]
    branches: tuple[Branch, ...]
    functions: tuple[Renamed, ...]

    @property
    def program_source(self) -> str:
        """The imports and the functions: what the probe executes in a copy of the sample's namespace."""
        return "\n".join(self.imports) + "\n\n\n" + self.source


@dataclass(frozen=True)
class Breaks:
    """A NumPy or torch variant's breaks: ``rewrite`` makes every mechanical rewrite at once (None: none
    applies); ``declined`` names each construct left as it was, with why."""

    target: str
    rewrite: Rewrite | None
    declined: tuple[Declined, ...]


class Verdict(enum.Enum):
    """A check's outcome: a rewrite that failed is never advice."""

    MATCHED = "matched"
    FAILED = "failed"


class Unit(enum.Enum):
    """What a check counts: individuals (a per-individual original) or calls (a variant, whole and on rows)."""

    INDIVIDUALS = "individuals"
    CALLS = "calls"


@dataclass(frozen=True)
class Arm:
    """One arm of a branch (``taken``: the test was true) and how many evaluations took it."""

    branch: Branch
    taken: bool
    count: int


@dataclass(frozen=True)
class Mismatch:
    """The first individual (row of the population) whose values differ, or for which the original raised."""

    individual: int
    expected: str  # the original's value, or the exception it raised
    got: str
    raised: bool
    differing: int  # how many individuals differ (raised included)


@dataclass(frozen=True)
class Drawn:
    """How a check's individuals were drawn from a population of ``population``: ``sample`` spread evenly over it,
    then ``witnesses`` more, each an individual of the ``looked_at`` others the original then ran on (in order) that
    took an arm of a branch none before it took."""

    population: int
    sample: int
    witnesses: int
    looked_at: int


@dataclass(frozen=True)
class Check:
    """The rewrite against the original on a population: same values within ``rtol``, inf and NaN in the same
    places; which arms of the original's branches the population took. ``drawn``: how its individuals were drawn
    from a larger population (None: every individual was checked)."""

    target: str
    entry: str
    verdict: Verdict
    unit: Unit
    evaluations: int
    rtol: float
    mismatch: Mismatch | None
    error: str | None  # the rewrite itself raised (type: message)
    arms: tuple[Arm, ...]
    population_dtype: str
    result_dtype: str | None
    drawn: Drawn | None = None

    @property
    def unchecked(self) -> tuple[Arm, ...]:
        """The arms no evaluation took: the check says nothing about them."""
        return tuple(a for a in self.arms if a.count == 0)
