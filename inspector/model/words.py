"""The closed sets of words: string-valued enums whose members equal, hash and print as their values, so the JSON
and the templates read the words."""

from __future__ import annotations

from typing import Any

from inspector.raw import Status, Words

__all__ = ["STATUSES", "Backend", "BreakFix", "FixKind", "How", "LineStatus", "NotTraced", "ReasonKind", "RunKind",
           "Status", "Unmeasured", "Vectorized", "WarningKind", "Words", "coerce"]


class RunKind(Words):
    """What a run measured: a sample's variants (``inspector report``, ``breaks``: a ``SampleAnalysis``) or a
    program's compiled functions (``inspector run``: a ``ProgramAnalysis``)."""

    SAMPLE = "sample"
    PROGRAM = "program"


class Backend(Words):
    """What made a kernel: Inductor's C++ or Triton code generation, or a library call (``extern``)."""

    CPP = "cpp"
    TRITON = "triton"
    EXTERN = "extern"


class BreakFix(Words):
    """A graph break's usual rewrite (its words: ``inspector/render/said.py``): its cause's
    (``inspector.analysis.parse.breaks``), a data-dependent branch's as the source's branches allow (``where``,
    ``cond``), an operator's whose output's shape follows the data, a slice's whose bounds are read out of a tensor,
    a tensor subclass's ``__torch_function__`` override's (plain tensors), or, for a break in torch's own code before
    any line of the user's ran, a plain function as the variant."""

    MASK = "mask"
    NOT_COMPILED = "not-compiled"
    BRANCH = "branch"
    WHERE = "where"
    COND = "cond"
    ITEM = "item"
    PRINT = "print"
    APPLY_ALONG_AXIS = "apply-along-axis"
    SKIPPED_FUNCTION = "skipped-function"
    SLICE = "slice"
    BINCOUNT = "bincount"
    UNIQUE = "unique"
    MASKED_SELECT = "masked-select"
    REPEAT_INTERLEAVE = "repeat-interleave"
    TORCH_CODE = "torch-code"
    TENSOR_SUBCLASS = "tensor-subclass"


class Unmeasured(Words):
    """Why the analysis has no figure where the probe gave no words of its own (its words: render/said.py): the
    record was made before inspector replayed a program's functions, the replay timed no round, torch recorded no
    compile time of the function, or a rerun compiled nothing of it."""

    NO_REPLAY = "no-replay"
    NO_ROUND = "no-round"
    NO_COMPILE_TIME = "no-compile-time"
    NOTHING_COMPILED = "nothing-compiled"


class NotTraced(Words):
    """Why a program's call was not traced for the lines that ran as Python: a guard of torch's cached code failed
    for its arguments (it would compile), every guard failed past the recompile limit (it runs eagerly), or it
    compiled as it was traced (the trace stopped as the compile began)."""

    RECOMPILE = "recompile"
    LIMIT = "limit"
    COMPILED = "compiled"


class LineStatus(Words):
    """A line verdict's status, best news first."""

    PARALLEL = "parallel"
    EXTERN = "extern"
    UNKNOWN = "unknown"
    SERIAL = "serial"
    EAGER = "eager"
    GRAPH_BREAK = "graph-break"


STATUSES = tuple(LineStatus)


class Vectorized(Words):
    """A line verdict's vectorized: all, some or none of its C++ units (``n/a``: no CPU notion, such as Triton)."""

    ALL = "all"
    SOME = "some"
    NONE = "none"
    UNKNOWN = "unknown"
    NA = "n/a"


class How(Words):
    """The evidence that placed a line (``inspector/analysis/lines.py``), best first."""

    LOOP_NEST = "loop_nest"
    PROVENANCE = "provenance"
    ORIGIN = "origin"
    FX_GRAPH = "fx_graph"
    PYTHON_TRACE = "python_trace"
    GRAPH_BREAK = "graph_break"


class WarningKind(Words):
    """A CompileWarning's kind: a silent cousin of a graph break."""

    UNROLLED_LOOP = "unrolled-loop"  # Dynamo unrolled a Python loop into a graph
    RECOMPILE = "recompile"
    RECOMPILE_LIMIT = "recompile-limit"  # Dynamo hit its recompile limit and gave up compiling


class ReasonKind(Words):
    """A Reason's kind: the set renderers may branch on."""

    PARALLEL = "parallel"
    PARALLEL_PAID = "parallel-paid"
    PARALLEL_DID_NOT_PAY = "parallel-did-not-pay"
    SERIAL = "serial"
    EAGER = "eager"
    GRAPH_BREAK = "graph-break"
    LIBRARY_CALL = "library-call"
    GENERATED_AROUND = "generated-around"
    NEST_UNKNOWN = "nest-unknown"
    SPLIT_NESTS = "split-nests"
    NO_EVIDENCE = "no-evidence"
    NOT_FUSED = "not-fused"
    TRITON_LOADS = "triton-loads"
    INDUCTOR_SCALAR = "inductor-scalar"
    LANE_BY_LANE = "lane-by-lane"
    GATHERED = "gathered"
    UNROLLED_LOOP = "unrolled-loop"
    MACHINE_CODE = "machine-code"
    MACHINE_DISAGREES = "machine-disagrees"
    MACHINE_LANE = "machine-lane"
    FIX = "fix"
    NOT_VECTORIZED_STRIDED = "not-vectorized-strided"
    NOT_VECTORIZED_NO_LOOP = "not-vectorized-no-loop"
    NOT_VECTORIZED_DTYPE = "not-vectorized-dtype"
    NOT_VECTORIZED_SMALL = "not-vectorized-small"
    NOT_VECTORIZED_NO_INDEX = "not-vectorized-no-index"
    NOT_VECTORIZED_NO_ISA = "not-vectorized-no-isa"
    NOT_VECTORIZED_CHECKER = "not-vectorized-checker"
    NOT_VECTORIZED_TAIL = "not-vectorized-tail"
    NOT_VECTORIZED_UNRECORDED = "not-vectorized-unrecorded"


def coerce(value: Any, name: str, kind: type[Words]) -> None:
    """Set the field ``name`` of a frozen dataclass ``value`` to its ``kind`` member (None stays None): the words a
    constructor was given are checked against the closed set."""
    word = getattr(value, name)
    object.__setattr__(value, name, None if word is None else kind(word))


class FixKind(Words):
    """What a fix changes (``inspector.analysis.fixes``, where each kind's precondition is): the population's
    ``layout`` (column-major) where strided loads kept lines scalar, Inductor's ``tiling`` heuristic off where it turned
    SIMD off for them, a Dynamo ``flag`` that removes a graph break, ``static`` shapes (dynamic=False) where a size
    change recompiled; a graph ``break``'s usual rewrite, and stopping ``recompiles`` on every call or at the limit;
    a Python ``number`` argument (or an optimizer's lr) passed as a tensor where a guard on its value recompiled, and
    ``dynamic`` shapes where a size change recompiled a function already compiled with dynamic=False; Dynamo's
    ``guards`` on all but tensors dropped where their evaluation is a share of a call; ``cuda-graphs``
    (mode="reduce-overhead") where a CUDA call is mostly outside its kernels; and the code ``rewrite`` inspector
    writes (``inspector.rewrite``), checked and timed as a variant."""

    LAYOUT = "layout"
    TILING = "tiling"
    FLAG = "flag"
    STATIC = "static"
    BREAK = "break"
    RECOMPILES = "recompiles"
    NUMBER = "number"
    DYNAMIC = "dynamic"
    GUARDS = "guards"
    CUDA_GRAPHS = "cuda-graphs"
    REWRITE = "rewrite"
