"""The words for inspector's rewrites (``inspector.rewrite``'s values, and the analysis's ``Rewritten``): why a
construct was declined, how a rewrite may differ, what its check found, and what each run of it measured, against the
variant it replaces and the variants the user wrote."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from inspector.model import Declined as DeclinedView, Note as NoteView, RewriteCheck, RewriteRun, Rewritten
from inspector.model.rewrites import AS_WRITTEN
from inspector.render.words import error_line, ratio, seconds, spans, spread
from inspector.rewrite.model import UNROLLED_GENES, Declined, Note, Reason, Topic

REASONS = {
    Reason.STATEMENT: "a statement the rewriter does not write over the population",
    Reason.NOT_GENE_LOOP: "not a fixed-length loop over the genes",
    Reason.EARLY_EXIT: "it leaves the loop early",
    Reason.SIDE_EFFECT: "a side effect, once per call: moving it out of the function is your call",
    Reason.UNKNOWN_CALL: "a function the rewriter does not know",
    Reason.UNKNOWN_NAME: "a name that is not a local, a parameter, a constant or an import",
    Reason.INDEX: "an index computed per individual, or past the genes",
    Reason.SEQUENCE: "arithmetic on a list joins or repeats it",
    Reason.VALUE: "a value other than numbers and truth values",
    Reason.OPERATOR: "an operator without an elementwise meaning here",
    Reason.NO_RETURN: "the function can end without a `return`",
    Reason.CHANGED_AFTER_RETURN: "a name it reads changes after it",
    Reason.RECURRENCE: "each gene's value depends on the previous one's, not a sum, product, max or min",
    Reason.NESTED: "a loop inside a loop",
    Reason.CONDITIONAL_LOOP: "a loop or a per-gene name under a per-individual condition",
    Reason.RETURNS: "its returns differ in length",
    Reason.PARAMETERS: "it takes more than the individual",
    Reason.NOT_A_FUNCTION: "not a function defined with `def` in the sample",
    Reason.HELPER: "a helper called with different kinds of arguments, or recursively",
    Reason.HOST_VALUE: "its Python number leaves the graph",
    Reason.NOT_ELEMENTWISE: "not elementwise over the population",
    Reason.ALIASED: "an in-place update of an array something else may hold",
    Reason.MASK: "a boolean mask outside `if m.any(): x[m] op= ...`",
    Reason.DATA_BRANCH: "its arms are not assignments of arrays or two returns",
    Reason.METHOD: "a method call on an object the sample holds: the rewriter does not follow an object's state",
}

TOPICS = {
    Topic.NAN_COMPARISON: "`not (a < b)` is written `a >= b`: they differ where a value is NaN",
    Topic.BOTH_BRANCHES: "the where computes both branches: NumPy may warn for values it then discards "
                         "(silence it with np.errstate around the call; compiled, nothing warns)",
    Topic.RAISES: "Python raises here (a zero division, a math domain error, an overflow) where the arrays give "
                  "inf or NaN",
    Topic.COMPLEX_POWER: "a negative base to a fractional power: Python gives a complex number, the arrays NaN",
    Topic.MIN_MAX_NAN: "with NaN, Python's min/max depend on the arguments' order; np.minimum/torch.clamp give NaN",
    Topic.OPERANDS: "`and`/`or` of numbers return an operand: written as a where",
    Topic.DEFAULT_DTYPE: "torch.where of two Python numbers gives torch's default dtype (float32)",
    Topic.CONSTANT_DTYPE: "the constant table becomes a float64 tensor, as Python computed it",
    Topic.ZIP_LENGTH: "zip stops at the shorter: the rewrite assumes one entry per gene",
    Topic.REBINDS: "the in-place update is written as a new array under the same name",
    Topic.HOST_SCALAR: "without .item(), the 0-d tensor keeps the tensor's dtype (float32 stays float32)",
    Topic.EMPTY: "a max or min over no genes: Python raises, the rewrite gives -inf or inf",
    Topic.GENE_LOOP: "the loop over the genes stays (it carries a state from one gene to the next), its body over "
                     "the whole population: torch.compile unrolls it, one copy of its body per gene, so its compile "
                     f"grows with the genes (inspector compiles it up to {UNROLLED_GENES} genes)",
}


def declined(d: Union[Declined, DeclinedView]) -> str:
    """not rewritten: the `while` loop at line 31 (not a fixed-length loop over the genes)."""
    line = d.span.first if isinstance(d, Declined) else d.line
    reason = d.reason if isinstance(d.reason, Reason) else Reason(d.reason)
    detail = f": {d.detail}" if d.detail else ""
    return f"not rewritten: the {d.construct} at line {line} ({REASONS[reason]}{detail})"


def reason(value: str) -> str:
    """A decline's reason as it is recorded ("sequence"), in words; one this version does not know, as recorded."""
    known = {r.value: r for r in Reason}
    return REASONS[known[value]] if value in known else value


def note(n: Union[Note, NoteView]) -> str:
    return f"line {n.line}: {TOPICS[n.topic if isinstance(n.topic, Topic) else Topic(n.topic)]}"


def notes(found: Sequence[NoteView]) -> tuple[str, ...]:
    """Each way a rewrite may differ once, with every line it is about: "lines 28, 32-34: ..."."""
    lines: dict[str, set[int]] = {}
    for n in found:
        lines.setdefault(n.topic, set()).update([n.line] if n.line else [])
    return tuple(f"{spans(at)}: {TOPICS[Topic(topic)]}" if at else TOPICS[Topic(topic)] for topic, at in lines.items())


def check(c: RewriteCheck) -> str:
    """matches fitness_python on 900,000 individuals; every branch taken by some individual."""
    unit = "individuals" if c.unit == "individuals" else "calls (the population, then single individuals)"
    d = c.drawn
    if not c.matched:
        if c.error:
            return f"failed: {c.entry} raised {c.error}"
        what = f"{c.target} {c.expected}" if c.raised else f"{c.target} gave {c.expected}, {c.entry} {c.got}"
        checked = f" of the {c.evaluations:,} checked" if d else ""
        return f"failed: individual {c.individual} differs ({what}); {c.differing:,}{checked} differ in all"
    said = f"matches {c.target} on {c.evaluations:,}{f' of {d.population:,}' if d else ''} {unit}"
    said += f" ({'; '.join(said_of)})" if (said_of := [s for s in (drawn(c), dtypes(c)) if s]) else ""
    if not c.arms:
        return said
    unchecked = c.unchecked
    if not unchecked:
        return f"{said}; every branch taken by some individual" if c.unit == "individuals" else \
            f"{said}; every branch taken"
    arms = ", ".join(f"line {a.line} `{a.code}` {'true' if a.taken else 'false'}" for a in unchecked)
    by = f"none of the {d.sample + d.looked_at:,} individuals your code ran on" if d else "none"
    return f"{said}; unchecked (taken by {by}): {arms}"


def drawn(c: RewriteCheck) -> str:
    """How a check's individuals were drawn from the population, where not all were checked ("" where all were)."""
    d = c.drawn
    if d is None:
        return ""
    if not d.witnesses:
        return "spread evenly over them"
    return (f"{d.sample:,} spread evenly over them, and {d.witnesses:,} more that took a branch those did not, "
            f"found among {d.looked_at:,} others")


def dtypes(c: RewriteCheck) -> str:
    """What the population's dtype means for the comparison (Python computes in float64 and unbounded ints)."""
    kind = c.population_dtype
    if kind.startswith(("int", "uint")):
        return f"{kind} population: Python's ints never overflow, {kind} wraps around"
    if kind == "float32":
        return f"float32 population: the rewrite computes in {c.result_dtype or 'float32'}, Python in float64"
    return ""


NUMBA_HINT = ("numba is not installed where the probe ran: `pip install numba` there (or `--with numba` for an "
              "environment inspector makes with --torch) adds the rows a Numba user asks about: your per-individual "
              "function as it stands under @njit (python-numba), and the NumPy rewrite under @njit")
DIALECTS = {"numpy": "NumPy", "torch": "torch"}
HOW = {"eager": "eager", "compiled": "compiled (torch.compile, CPU)", "numba": "under numba's @njit",
       AS_WRITTEN: "your function as it stands under numba's @njit, over the rows"}


def title(r: Rewritten) -> str:
    """fitness_python over the whole population in NumPy / fitness_numpy with its breaks rewritten."""
    if r.kind == "vectorized":
        return f"{r.function} over the whole population in {DIALECTS.get(r.dialect, r.dialect)}"
    return f"{r.function} with its graph breaks rewritten"


def run(r: Rewritten, x: RewriteRun) -> str:
    """"compiled (torch.compile, CPU): 1.2 ms, 58x faster than python (55x to 61x faster in 3 alternating rounds),
    4.1x faster than the fastest variant you wrote (numpy-compiled-cpu)"; the runs after the first that says it name
    that variant alone ("2x slower than numpy-compiled-cpu")."""
    how = HOW.get(x.how, x.how)
    if x.status == "skipped" and x.error:  # not run, by inspector's choice: why (a gene loop over too many genes)
        return f"{how}: {x.error}"
    if x.status != "ok":  # the error in one line (numba's: what failed); the JSON keeps it whole
        return f"{how}: failed: {error_line(x.error) or x.status}"
    if x.matches is False:
        return f"{how}: its output differs from {r.variant}'s ({x.mismatch}): not advice"
    if not x.timing:
        return f"{how}: not timed"
    said = [seconds(x.timing.per_population_s)]
    if x.speedup:
        rounds = spread(x.spread, x.rounds)
        said.append(f"{ratio(x.speedup, 'change')} than {_beside(r, x)}" + (f" ({rounds})" if rounds else ""))
    if _names_fastest(r, x):
        named = any(_names_fastest(r, y) for y in r.runs[:r.runs.index(x)]) if x in r.runs else False
        fastest = x.fastest if named else f"the fastest variant you wrote ({x.fastest})"
        said.append(f"{ratio(x.vs_fastest, 'change')} than {fastest}")
    return f"{how}: " + ", ".join(said)


def _names_fastest(r: Rewritten, x: RewriteRun) -> bool:
    """Whether ``run(r, x)`` says its speed against the fastest variant the user wrote."""
    return bool(x.status == "ok" and x.matches is not False and x.timing and x.fastest and x.vs_fastest
                and x.fastest != _beside(r, x))


def _beside(r: Rewritten, x: RewriteRun) -> str:
    """The variant a run was timed beside (a break's eager rewrite: the eager variant)."""
    return r.variant.removesuffix("-compiled-cpu") if x.how == "eager" and r.kind == "breaks" else r.variant


def failure(r: Rewritten) -> str:
    """Why a written rewrite is not advice: its check, or a run whose output differed."""
    if r.check and not r.check.matched:
        return check(r.check)
    bad = next((x for x in r.runs if x.matches is False), None)
    return f"its output differs from {r.variant}'s ({bad.mismatch})" if bad else "it did not run"
