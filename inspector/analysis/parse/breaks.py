"""Dynamo's graph-break messages (the structured trace's artifact, or torch 2.1's log records) as facts."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional

from inspector import frames as parse_frames
from inspector.frames import Frame
from inspector.model import BackendFailed, BreakFix
from inspector.raw import RawBreak
from inspector.source import Place

AT = re.compile(r"Graph break(?: in user code)? at (.+?):(\d+)")
REASON = re.compile(r"^\s*(?:Graph Break Reason|Reason):\s*(.+)$", re.M)
EXPLANATION = re.compile(r"^\s*Explanation:\s*(.+)$", re.M)
HINT = re.compile(r"^\s*Hint:\s*(.+)$", re.M)
DEBUG_CONTEXT = re.compile(r"^\s*Developer debug context:\s*(.+)$", re.M)
ENCOUNTERED = re.compile(r"Encountered graph break when attempting to (trace \w+)")
GB_URL = re.compile(r"(https://\S+/gb/(gb\d+)\.html)")
NOT_RESUMABLE = ("Encountered graph break that we cannot resume from",  # the real reason follows
                 "Failed to handle graph break gracefully")  # 2.13: "... falling back to eager. Graph break ..."
USER_CODE = "User code traceback:"  # the user's frames follow, then (2.13) torch's own traceback of the exception
TORCH_TRACEBACK = "\nTraceback (most recent call last):"
# 2.13: a second break met while handling the first (Dynamo's "graph break in loop"): its explanation and hints are
# its own, not the break's
ANOTHER = "*** While handling this graph break, another graph break occurred"
IN_LOOP = ("graph break in loop", "graph breaks in loops are not supported")
# the compiler backend failed on a frame (Inductor on data it cannot trace: a fake-tensor exception), which then ran
# eagerly; 2.13 follows it with a "Backend compiler exception" break of the same compile
WONT_CONVERT = re.compile(r"^WON'T CONVERT (\S+) (.+?) line (\d+)")
PROCESSING = "The above exception occurred while processing the following code"  # verbose: the user's frames follow
MODULE = re.compile(r"^(?:\w+\.)+(?=\w+:)")  # torch._subclasses.fake_tensor.DataDependentOutputException: ...
RESUMED_AT = re.compile(r"torch_dynamo_resume_in_\w+?_at_(\d+)")  # the code after the break at that line

SCALARS = "dynamo.capture_scalar_outputs=True"
DYNAMIC_SHAPES = "dynamo.capture_dynamic_output_shape_ops=True"
OPERATOR = re.compile(r"\baten\.(\w+?)(?:\.\w+)?\b")  # Operator `aten.bincount.default`'s output shape ...
# torch's operators whose output shape depends on the data, but for nonzero (a boolean mask's index, or a call):
# the fixed-size form of each, beside Dynamo's flag
SHAPE_FIXES = {"bincount": BreakFix.BINCOUNT, "unique": BreakFix.UNIQUE, "unique_consecutive": BreakFix.UNIQUE,
               "_unique2": BreakFix.UNIQUE, "unique_dim": BreakFix.UNIQUE, "masked_select": BreakFix.MASKED_SELECT,
               "repeat_interleave": BreakFix.REPEAT_INTERLEAVE}
# the names each rewrite gives (its words' dotted and snake_case names, last part: render/said.py's BREAK_FIXES), so
# that torch's hints naming the same are not said again
NAMES = {BreakFix.MASK: {"where"}, BreakFix.BRANCH: {"cond", "where"},
         BreakFix.WHERE: {"cond", "false_fn", "true_fn", "where"}, BreakFix.COND: {"cond", "false_fn", "true_fn"},
         BreakFix.SLICE: {"reduceat", "segment_reduce"}, BreakFix.APPLY_ALONG_AXIS: {"apply_along_axis"},
         BreakFix.BINCOUNT: {"bincount", "float", "index_add_", "ones_like", "scatter_add_", "zeros"},
         BreakFix.UNIQUE: {"sort", "unique"}, BreakFix.MASKED_SELECT: {"masked_select", "where"},
         BreakFix.REPEAT_INTERLEAVE: {"repeat_interleave"}, BreakFix.TORCH_CODE: {"partial"},
         BreakFix.TENSOR_SUBCLASS: {"Tensor", "__torch_function__", "as_subclass"}}


def shape_fix(operator: Optional[str], code: Optional[str]) -> Optional[BreakFix]:
    """The fix for an operator whose output shape depends on data, as the break's operator and line show it: a
    boolean mask's index (nonzero, not called by name) keeps the usual fix; another operator its own (None: only
    Dynamo's flag and torch's hints)."""
    if operator == "nonzero" and not re.search(r"\b(nonzero|argwhere)\(", code or ""):
        return DYNAMIC_SHAPE.fix
    return SHAPE_FIXES.get(operator or "")


def data_dependent_slice(code: Optional[str]) -> bool:
    """Whether a line slices with a bound read out of an array or tensor (``x[ptr[i]:ptr[i + 1]]``)."""
    try:
        tree = ast.parse((code or "").strip())
    except SyntaxError:
        return False
    return any(isinstance(bound, ast.Subscript) for node in ast.walk(tree) if isinstance(node, ast.Slice)
               for bound in (node.lower, node.upper))


@dataclass(frozen=True)
class Cause:
    """A normalised cause of a graph break, the phrases of torch's reason that name it, and the usual rewrite."""

    kind: str
    phrases: tuple[str, ...]
    fix: Optional[BreakFix]  # None: none documented beyond torch's own hints
    flag: Optional[str] = None  # a config flag that removes the break


@dataclass(frozen=True)
class BreakFacts(Place):
    """One break message's facts: where (``file``/``line`` None when it names no location: the caller counts that as
    not understood) and the frames of its user code, outermost first; the reason in torch's words and its normalised
    ``cause`` (``unknown`` where none matched) with the usual ``fix`` and ``flag``; ``resumes``: the line of the break
    whose following code the compiler backend failed on (torch's WON'T CONVERT message), else None."""

    frames: list[Frame]
    reason: str
    resumable: bool
    explanation: Optional[str]
    hints: list[str]
    gb_id: Optional[str]
    url: Optional[str]
    cause: str
    fix: Optional[BreakFix]
    flag: Optional[str]
    resumes: Optional[int]
    compile_id: Optional[str]
    mechanism: Optional[str]
    text: str
    failed: Optional[BackendFailed] = None  # a WON'T CONVERT message: its reason is the exception
    in_loop: bool = False  # torch said the break was inside a loop, which it cannot resume from
    operator: Optional[str] = None  # the aten operator torch named ("bincount"), where it named one


DYNAMIC_SHAPE = Cause("dynamic-shape", ("dynamic shape operator", "nonzero", "output shape depends on input"),
                      BreakFix.MASK, DYNAMIC_SHAPES)
NOT_COMPILED = Cause("not-compiled", ("backend compiler exception",), BreakFix.NOT_COMPILED)
CAUSES = (
    NOT_COMPILED,  # first: its explanation names the exception the backend raised, which may name any cause's operator
    Cause("data-dependent-branch", ("data-dependent branching", "generic_jump"), BreakFix.BRANCH),
    # a Python number read out of a tensor: .item(), int(t), or an operator that needs one (torch.arange(t.max()));
    # aten._local_scalar_dense is what .item() calls, and torch's own hint for it names the flag
    Cause("item", (".item()", "tensor.item", "aten._local_scalar_dense", "aten.item"),
          BreakFix.ITEM, SCALARS),
    DYNAMIC_SHAPE,
    Cause("print", ("builtin operator `print`", "builtin print", "builtinvariable(print)"), BreakFix.PRINT),
    Cause("apply-along-axis", ("apply_along_axis",), BreakFix.APPLY_ALONG_AXIS),
    Cause("skipped-function", ("marked as skipped", "skipfiles", "skip_files"), BreakFix.SKIPPED_FUNCTION),
    # an operand whose class overrides __torch_function__ (a library's tensor subclass: EvoTorch's ReadOnlyTensor)
    Cause("tensor-subclass", ("__torch_function__ overrides",), BreakFix.TENSOR_SUBCLASS),
    Cause("unsupported", ("unsupported", "not supported", "missing bytecode handler"), None),
)


def parse(entry: RawBreak) -> BreakFacts:
    """One break entry's facts."""
    text = entry.text or ""
    not_converted = WONT_CONVERT.match(text)
    if not_converted:
        return _not_converted(text, not_converted, entry.compile_id, entry.mechanism)
    return _graph_break(text, entry.compile_id, entry.mechanism)


def _graph_break(text: str, compile_id: Optional[str], mechanism: Optional[str]) -> BreakFacts:
    """The facts of a graph-break message (of the compile ``compile_id``, read by capture's ``mechanism``)."""
    at = AT.search(text)
    frames = parse_frames.stack(text.split(USER_CODE)[-1].split(TORCH_TRACEBACK)[0])
    file, line = (at.group(1), int(at.group(2))) if at else ((frames[-1].file, frames[-1].line) if frames
                                                             else (None, None))
    reason = REASON.search(text)
    own = text.split(ANOTHER)[0]  # the break's own explanation, hints, link and context
    explanation = EXPLANATION.search(own)
    url = GB_URL.search(own)
    first = reason.group(1).strip() if reason else _first_line(text)
    resumable = not first.startswith(NOT_RESUMABLE)
    if not resumable:  # the same break again, after Dynamo restarted the frame: its reason follows
        following = [ln.strip() for ln in text[reason.end():].splitlines() if ln.strip()] if reason else []
        first = following[0] if following else first
    wrapper = ENCOUNTERED.match(first)
    if wrapper and reason:
        # the real reason is the next non-empty line; keep the bytecode context after it
        following = [ln.strip() for ln in text[text.index(first, reason.start()) + len(first):].splitlines()
                     if ln.strip()]
        if following and not following[0].startswith(("Explanation:", "Hint:")):
            first = f"{following[0]} ({wrapper.group(1)})"
    explained = explanation.group(1).strip() if explanation else None
    debug = DEBUG_CONTEXT.search(own)
    said = " ".join(filter(None, [first, explained, debug.group(1) if debug else None]))
    cause = cause_of(said)
    operator = OPERATOR.search(said)
    resumes = RESUMED_AT.search(text) if cause is NOT_COMPILED else None
    return BreakFacts(
        file=file, line=line, frames=frames, reason=first, resumable=resumable, explanation=explained,
        hints=list(dict.fromkeys(h.strip() for h in HINT.findall(own))),
        gb_id=url.group(2) if url else None, url=url.group(1) if url else None,
        cause=cause.kind if cause else "unknown", fix=cause.fix if cause else None, flag=cause.flag if cause else None,
        resumes=int(resumes.group(1)) if resumes else None, compile_id=compile_id, mechanism=mechanism, text=text,
        in_loop=any(p in text for p in IN_LOOP), operator=operator.group(1) if operator else None)


def _not_converted(text: str, header: re.Match[str], compile_id: Optional[str], mechanism: Optional[str]
                   ) -> BreakFacts:
    """torch's WON'T CONVERT message as the facts of a break: the frame the backend failed on (``resumes``: the
    line of the break whose following code it is, for a resume function), its first line, the exception."""
    trace, _, user = text.partition(PROCESSING)
    raised = [ln for ln in trace.splitlines()[1:] if ln.strip() and not ln[0].isspace()
              and not ln.startswith(("=", "Traceback", "The above exception", "During handling", "due to"))]
    exception = MODULE.sub("", raised[-1].strip()) if raised else "an exception"
    name, file, line = header.group(1), header.group(2), int(header.group(3))
    resumed = RESUMED_AT.match(name)
    resumes = int(resumed.group(1)) if resumed else None
    return BreakFacts(
        file=file, line=line, frames=parse_frames.stack(user), resumable=False, reason=exception, explanation=None,
        hints=[], gb_id=None, url=None, cause=NOT_COMPILED.kind, fix=NOT_COMPILED.fix, flag=None, resumes=resumes,
        compile_id=compile_id, mechanism=mechanism, text=text, failed=BackendFailed(exception, name, resumes))


def cause_of(words: str) -> Optional[Cause]:
    """The first cause whose phrase appears in ``words`` (torch's reason, explanation and debug context, never
    the user's quoted code), or None."""
    lowered = words.lower()
    return next((c for c in CAUSES if any(p in lowered for p in c.phrases)), None)


def _first_line(text: str) -> str:
    """The reason in the older one-line form: 'Graph break: REASON from user code at:' (torch 2.1)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not AT.search(ln)]
    if not lines:
        return "graph break"
    first = re.sub(r"^Graph break:\s*", "", lines[0])
    return re.sub(r"\s*from user code at:?$", "", first)[:300]
