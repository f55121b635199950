"""What the rewriter's typed values say, in words (for the renderers to take over: words live in render/)."""

from __future__ import annotations

from inspector.rewrite.model import Check, Declined, Note, Reason, Topic, Unit, Verdict

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
}


def declined(d: Declined) -> str:
    """not rewritten: the `while` loop at line 31 (not a fixed-length loop over the genes)."""
    detail = f": {d.detail}" if d.detail else ""
    return f"not rewritten: the {d.construct} at line {d.span.first} ({REASONS[d.reason]}{detail})"


def note(n: Note) -> str:
    return f"line {n.line}: {TOPICS[n.topic]}"


def check(c: Check) -> str:
    """matches fitness_python on 900,000 individuals; every branch taken by some individual."""
    unit = "individuals" if c.unit is Unit.INDIVIDUALS else "calls (the population, then single individuals)"
    if c.verdict is Verdict.FAILED:
        if c.error:
            return f"failed: {c.entry} raised {c.error}"
        m = c.mismatch
        assert m is not None
        what = f"{c.target} {m.expected}" if m.raised else f"{c.target} gave {m.expected}, {c.entry} {m.got}"
        return f"failed: individual {m.individual} differs ({what}); {m.differing:,} differ in all"
    said = f"matches {c.target} on {c.evaluations:,} {unit}{dtypes(c)}"
    if not c.arms:
        return said
    unchecked = c.unchecked
    if not unchecked:
        return f"{said}; every branch taken"
    arms = ", ".join(f"line {a.branch.line} `{a.branch.code}` {'true' if a.taken else 'false'}" for a in unchecked)
    return f"{said}; unchecked (taken by none): {arms}"


def dtypes(c: Check) -> str:
    """What the population's dtype means for the comparison (Python computes in float64 and unbounded ints)."""
    kind = c.population_dtype
    if kind.startswith(("int", "uint")):
        return f" ({kind} population: Python's ints never overflow, {kind} wraps around)"
    if kind == "float32":
        return f" (float32 population: the rewrite computes in {c.result_dtype or 'float32'}, Python in float64)"
    return ""
