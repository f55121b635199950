"""The facts behind a reason, a warning, a note, a graph break's fix, a failed guard or a parse problem: the numbers
and names torch and the code recorded, kept by the analysis so that the renderers say them
(``inspector/render/said.py`` builds the sentences). Lists that can run to hundreds (a call in an unrolled loop runs
in hundreds of nests) keep their first ``LISTED`` items and count the rest in ``more``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from inspector.model.machine import MachineCode
from inspector.model.words import Backend, BreakFix, ReasonKind, Words, coerce
from inspector.source import Place

LISTED = 12  # items a listing keeps; the line verdict's ``nests`` and ``kernels`` name them all


@dataclass(frozen=True)
class NestAt:
    """A kernel, or one loop nest of it (``nest``: its index, where the kernel has several); ``nests``: its nest
    count, where its machine code does not tell them apart."""

    kernel: str
    nest: Optional[int] = None
    nests: Optional[int] = None


@dataclass(frozen=True)
class Named:
    """Names torch or the code gave (library calls, kernels, dtypes, a usual fix, torch's message), in order."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Unrecorded:
    """Why a record has no Inductor decision for a nest: the record's own why (``said``), a record older than the
    decisions (``before``), or a torch that records none (``torch``)."""

    said: Optional[str]
    before: bool
    torch: Optional[str]


class SerialCause(Words):
    """Why a loop nest runs on one thread: torch's one thread, no loop, Inductor's recorded decision (no level could
    be parallel, too little work per thread, a depth its code does not show), or, unrecorded, the code's loop sizes
    (too little work, a size known at run time) or no OpenMP loop."""

    ONE_THREAD = "one-thread"
    NO_LOOP = "no-loop"
    NO_LEVEL = "no-level"
    SMALL = "small"
    DEPTH = "depth"
    SMALL_CODE = "small-code"
    DYNAMIC = "dynamic"
    NO_OPENMP = "no-openmp"


@dataclass(frozen=True)
class Serial:
    """A loop nest (or kernel) that runs single-threaded, and why (``cause``, with the numbers it compared)."""

    where: NestAt
    cause: SerialCause
    work: Optional[int] = None  # elements its loops cover
    per_thread: Optional[int] = None
    min_chunk_size: Optional[int] = None
    threads: Optional[int] = None
    depth: Optional[int] = None  # parallel loop levels Inductor chose
    levels: Optional[int] = None  # of its loop levels
    trip: Optional[str] = None  # a size known at run time
    unrecorded: Optional[Unrecorded] = None  # where Inductor's decision is not in the record


@dataclass(frozen=True)
class BackendFailed:
    """The compiler backend failed on a frame (torch's WON'T CONVERT message) and Dynamo ran it as Python: the
    ``exception`` it raised (torch's words), the frame's ``function`` or, for the code after a graph break, that
    break's line (``resumes``)."""

    exception: str
    function: str
    resumes: Optional[int]


@dataclass(frozen=True)
class BreakAt(Place):
    """A graph break at or under a line (``inside``: inside a call from it, at ``file``:``line``), torch's reason
    and explanation (``failed``: the compiler backend failed on the code, which says both)."""

    inside: bool
    reason: str
    explanation: Optional[str]
    failed: Optional[BackendFailed] = None


@dataclass(frozen=True)
class Backends:
    """The backends whose parallel loops (C++) or grids (Triton) run a line."""

    backends: tuple[Backend, ...]


@dataclass(frozen=True)
class Unrolled:
    """A Python loop Dynamo unrolled: its header ``line``, its body traced ``times`` times into ``graph``."""

    line: int
    times: int
    graph: Optional[str]


@dataclass(frozen=True)
class NestRun:
    """A loop nest (``nest`` None: a whole kernel) and how it runs: its description, or its kernel's status."""

    kernel: str
    nest: Optional[int]
    runs: str


@dataclass(frozen=True)
class Nests:
    """A line's operations split across loop nests that run differently, or placed in one of ``kernels`` that the
    evidence does not name, whose nests run differently."""

    nests: tuple[NestRun, ...]
    count: int  # nests in all
    kernels: tuple[str, ...] = ()
    more_kernels: int = 0


@dataclass(frozen=True)
class Unfused:
    """Two nests (or kernels) Inductor's scheduler did not fuse: its reasons, each with the first node pair it was
    given for and how many more."""

    one: NestAt
    two: NestAt
    reasons: tuple[tuple[Optional[str], str, int], ...]  # (reason, first pair "op1 with op4", more pairs)


@dataclass(frozen=True)
class TritonLoads:
    """What Triton kernels' loads say about memory access on a GPU: strided loads (the first 3), masked loads."""

    strided: tuple[str, ...]
    masked: int


@dataclass(frozen=True)
class NoLoop:
    """Nothing to vectorize: no loop in its kernels (``decided``: Inductor's recorded tiling decision said so)."""

    decided: bool


@dataclass(frozen=True)
class NonContiguous:
    """Inductor's tiling heuristic turned SIMD off: ``count`` of ``ops`` operations index memory non-contiguously
    (``kinds``: (op kind, count)), at its limits; the nest's strided loads (first 3) from a population of ``shape``."""

    count: Optional[int]
    ops: int
    kinds: tuple[tuple[str, int], ...]
    count_limit: Optional[float]
    ratio_limit: Optional[float]
    strided: tuple[str, ...]
    shape: tuple[int, ...]


@dataclass(frozen=True)
class SmallLoops:
    """Inductor's tiling heuristic kept loops of inner ``ranges`` scalar: an inner range under a quarter of the
    ``factor``-lane vector (None: under Inductor's minimum) and ``ops`` operations (under ``small_ops``)."""

    ranges: tuple[str, ...]
    factor: Optional[int]
    ops: Optional[int]
    small_ops: Optional[float]


@dataclass(frozen=True)
class Tail:
    """The remainder after a vector loop runs scalar: cpp.enable_loop_tail_vec (None: a torch that always runs it
    scalar, ``torch``), the ratio limit of mask and non-contiguous operations."""

    loop_tail_vec: Optional[bool]
    torch: Optional[str]
    ratio_limit: Optional[float]


@dataclass(frozen=True)
class Undecided:
    """No tiling decision recorded (``unrecorded``: why); the nest's strided loads (first 3) from ``shape``."""

    unrecorded: Unrecorded
    strided: tuple[str, ...]
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Gathered:
    """A vectorized nest still gathering (``store``: scattering) ``items`` one element at a time, ``lanes`` per
    vector."""

    where: NestAt
    store: bool
    items: tuple[str, ...]
    more: int
    lanes: Optional[int]


@dataclass(frozen=True)
class LaneOps:
    """A vectorized nest whose ``ops`` have no vector form in Inductor, run lane by lane."""

    where: NestAt
    ops: tuple[str, ...]
    more: int


@dataclass(frozen=True)
class ThreadSpeedups:
    """A parallel line's kernels on ``threads`` threads against 1: (kernel, speedup) each."""

    threads: int
    kernels: tuple[tuple[str, float], ...]


class Scaled(Words):
    """Whether parallel kernels ran faster on torch's threads than on one (enough to pay for them), slower, or
    about as fast."""

    FASTER = "faster"
    SLOWER = "slower"
    SAME = "same"


@dataclass(frozen=True)
class Guard(Place):
    """A guard that failed, from torch's recompile reason: its first line (``text``, torch's words without the compile
    id and the source comment) and where the guarded code is (``file``, its base name, and ``line``; None where torch
    named no place): in the code after a graph break (``resumed``), whose line torch's resume function names
    (``after``) where the guard checks ``stacked``, a value Dynamo carried over that break."""

    text: str
    file: Optional[str] = field(default=None, kw_only=True)
    line: Optional[int] = field(default=None, kw_only=True)
    resumed: bool = False
    after: Optional[int] = None
    stacked: Optional[str] = None


@dataclass(frozen=True)
class SizeRecompile:
    """A compiled function recompiled at a further population size: the guard that failed."""

    population: int
    guard: Guard


@dataclass(frozen=True)
class Machine:
    """The machine code of a line's nests (or kernels): what it holds (``code``), where it overrules Inductor's code
    (``overrules``: its SIMD is packed), the scalar math it calls per lane; ``more``: the units left out."""

    code: tuple[tuple[NestAt, MachineCode], ...] = ()
    overrules: tuple[tuple[NestAt, bool], ...] = ()
    lane: tuple[tuple[NestAt, tuple[tuple[str, int], ...]], ...] = ()
    more: int = 0


class UnreadKind(Words):
    """What a parser did not understand: output code that does not parse (``text``: the parser's message), with no
    ``call()``, or calling ``names`` that are neither its kernels nor known library calls; a loop header (``text``)
    or a loop not at the start of a line; Triton loads (``counts``: unread, all); a decision of an unknown kind
    (``text``); an FX graph's ``# File:`` comment (``text``); a graph-break message without a file and line
    (``text``: torch's reason); a C++ kernel without machine code, machine code joining no kernel, instructions not
    classified (``names``, ``counts``: each one's), OpenMP outlined functions not one per parallel region
    (``counts``: functions, regions); a record key or a probe message's kind this version does not know (``text``);
    a line of the probe's own (``text``)."""

    UNPARSED = "unparsed"
    NO_CALL = "no-call"
    UNKNOWN_CALLS = "unknown-calls"
    LOOP_HEADER = "loop-header"
    LOOP_INDENTED = "loop-indented"
    TRITON_LOADS = "triton-loads"
    DECISION_KIND = "decision-kind"
    FX_COMMENT = "fx-comment"
    BREAK_PLACE = "break-place"
    NO_MACHINE_CODE = "no-machine-code"
    UNJOINED = "unjoined"
    UNCLASSIFIED = "unclassified"
    OUTLINED = "outlined"
    RECORD_KEY = "record-key"
    MESSAGE_KIND = "message-kind"
    PROBE = "probe"


@dataclass(frozen=True)
class Unread:
    """One thing a parser did not understand, of one kind (``UnreadKind`` says what each field holds)."""

    kind: UnreadKind
    text: Optional[str] = None  # the text torch (or the probe) wrote
    names: tuple[str, ...] = ()
    counts: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        coerce(self, "kind", UnreadKind)


@dataclass(frozen=True)
class Problem:
    """What a parser did not understand of one item of torch's output (``what``: one or more things), and where: the
    variant or function (``unit``), the graph (its compile id) and the kernel (or machine-code entry) it is in."""

    what: tuple[Unread, ...]
    unit: Optional[str] = None
    graph: Optional[str] = None
    kernel: Optional[str] = None


TENSOR_FILE = "torch/_tensor.py"  # class torch.Tensor's own methods, as ``LibraryFix.torch_file`` names the file


@dataclass(frozen=True)
class LibraryFix(Place):
    """What to do about a graph break inside a library (``package``, at ``file``:``line``), not the user's code to
    rewrite: where torch itself called the library's code (``torch_file``, under torch/, ``torch_line``,
    ``torch_function``), report it, or, where torch wraps a tensor in a subclass of the package's (``subclass``), give
    the compiled function plain tensors; where the break runs in the file of the class of a tensor the compiled
    function is given (``argument``: its name and class, EvoTorch's ReadOnlyTensor), give it a plain tensor; else wrap
    the user's call into it (``call``: its file and line, where known) in torch.compiler.disable, unless that call is
    all the compiled function does (``whole``: then nothing of it would stay compiled, and compiling it gains
    nothing)."""

    package: str
    file: str = field(kw_only=True)
    torch_file: Optional[str] = None
    torch_line: Optional[int] = None
    torch_function: Optional[str] = None
    subclass: bool = False
    call: Optional[tuple[str, int]] = None
    whole: bool = False
    argument: Optional[tuple[str, str]] = None


@dataclass(frozen=True)
class UsualFix:
    """A graph break's usual fix: its rewrite (its cause's words, or, for a break inside a library, what to do
    there) and the config flag that removes it. The model holds a cause's rewrite as a ``BreakFix``, whose words the
    JSON writes (render/said.py)."""

    rewrite: Optional[Union[BreakFix, LibraryFix]]
    flag: Optional[str]


@dataclass(frozen=True)
class Reason:
    """Why something is so: a stable ``kind`` that renderers may branch on, and the ``facts`` its words are built
    from (``inspector/render/said.py``; the JSON writes them as ``text``).

    The words of a ``not-vectorized-*`` reason say why without the words "not vectorized" (renderers show
    such reasons once, under that heading, when many lines share them).
    """

    kind: ReasonKind
    facts: Facts = None

    def __post_init__(self) -> None:
        coerce(self, "kind", ReasonKind)

    @property
    def not_vectorized(self) -> bool:
        return self.kind.startswith("not-vectorized-")


@dataclass(frozen=True)
class Overruled:
    """Inductor left a nest scalar (``reason``: why) where its machine code is vectorized."""

    reason: Reason


Facts = Optional[Union[Serial, BreakAt, Named, Backends, Unrolled, Nests, Unfused, TritonLoads, NoLoop, NonContiguous,
                       SmallLoops, Tail, Undecided, Overruled, Gathered, LaneOps, Machine, ThreadSpeedups, UsualFix]]
# None: the reason's kind says it all
