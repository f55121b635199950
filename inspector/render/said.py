"""The sentences of the analysis's reasons, warnings and notes, built from the facts it keeps (``inspector.model.why``
and the numbers beside them): the one place their words are. ``said`` gives a value's words (None for a value
without); ``WORDS`` names, by type, the keys the JSON renderer writes them under (``json_words``), where the analysis
once wrote them, and the schema reads it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

from inspector.model import (ArgvChanged, Backend, Backends, BreakAt, BreakChange, BreakFix,
                             ComparedRun, CompileWarning, Confounder, Env,
                             ExitChanged, Facts, Gathered, GraphBreak, Guard, LaneOps, LibraryFix, LimitHit, Machine,
                             MachineLoad, Named, NestAt, Nests, NoLoop, NonContiguous, Overruled, PairWarning,
                             ParseCount, Populations, Problem, Reason, ReasonKind, Recompilation, Recompile, RunPair,
                             Scaled, Sequential, Serial, SerialCause, SizeRecompile, SmallLoops, SourceChanged, Tail,
                             ThreadScaling, ThreadSpeedups, TimeRow, TimedApart, TimedBusy, TritonLaunch, TritonLoads,
                             Undecided, Unfused, Unmeasured, Unread, UnreadKind, Unrecorded, Unrolled, Untraced,
                             UsualFix, to_json)
from inspector.model.hotspots import CheckFailure, HotRewrite
from inspector.model.runs import Replay
from inspector.model.why import TENSOR_FILE
from inspector.model.timing import WarmCompile


def json_words(value: object) -> dict[str, Any]:
    """The words the JSON writes for a value, by key (``WORDS``); empty for a value without words."""
    return {key: say(value) for key, (_, say) in WORDS.get(type(value), {}).items()}


def said(value: object) -> Optional[str]:
    """A value's words (its ``text`` in ``WORDS``): a reason's, a warning's, a recompilation's, a thread scaling's,
    a confounder's, a Triton launch's or a parse problem's; None for any other value."""
    text = WORDS.get(type(value), {}).get("text")
    return text[1](value) if text else None


def after(b: GraphBreak) -> Optional[str]:
    """That the compiler backend failed on the code after a break, and why (torch's words); None where it did not."""
    return f"the code after it did not compile: {b.failed_after}; Dynamo ran it as Python" if b.failed_after else None


def break_reason(b: Union[GraphBreak, BreakAt, BreakChange]) -> str:
    """A break's reason: torch's words, or that the compiler backend failed on its code (torch's WON'T CONVERT)."""
    f = b.failed
    if f is None:
        return b.reason
    what = f"the code after the graph break at line {f.resumes}" if f.resumes is not None else f.function
    return f"the compiler backend failed on {what} ({f.exception}): Dynamo ran it as Python"


def explanation(b: Union[GraphBreak, BreakAt]) -> Optional[str]:
    """torch's explanation of a break, or, where the compiler backend failed on its code, what it raised."""
    return f"the compiler backend failed with {b.failed.exception}" if b.failed else b.explanation


def library(f: LibraryFix, eagerly: str = "") -> str:
    """What to do about a break inside a library: it is not the user's code to rewrite; where the compiled function
    is given a tensor of the library's class whose code the break runs (``argument``), a plain tensor; where torch
    itself called the library's code (wrapping a tensor subclass of the library's, say), nor is the call;
    ``eagerly``: how the function ran eagerly, where the call is all it does ("eagerly it ran 7.7x faster":
    ``Fix.eager_faster``)."""
    if f.argument:  # said of every break that class makes (one fix): none of them is named
        name, cls = f.argument
        return (f"the compiled function is given {name} as a tensor of {f.package}'s {cls.rsplit('.', 1)[-1]} "
                f"({cls}), and torch cannot trace the code that class runs: give it a plain tensor "
                f"({name}.as_subclass(torch.Tensor), where you call it), or report it to {f.package}")
    inside = f"the break is inside {f.package} ({f.file}:{f.line})"
    if f.torch_file:
        called = (f"{inside}, in code torch itself called ({f.torch_file}:{f.torch_line}, in {f.torch_function}), "
                  "not a line of yours")
        if f.subclass and f.torch_file == TENSOR_FILE:  # torch.Tensor's code called the subclass's override
            return (f"{called}: the compiled function is given a tensor of a subclass of {f.package}'s. Give it plain "
                    "tensors (t.as_subclass(torch.Tensor) on its arguments, where you call it), or report it to "
                    f"{f.package}")
        if f.subclass:
            return (f"{called}: torch wraps a tensor in a subclass of {f.package}'s. Give the compiled function "
                    "plain tensors (t.as_subclass(torch.Tensor)) and wrap its result outside it, or report it to "
                    f"{f.package}")
        return f"{called}: report it to {f.package} and to torch"
    call = f" at {f.call[0]}:{f.call[1]}" if f.call else ""
    if f.whole:
        measured = f" ({eagerly})" if eagerly else ""
        return (f"{inside}, not in your code, and the call into it{call} is all the compiled function does: with "
                "torch.compiler.disable around it nothing would stay compiled, so compiling this function gains "
                f"nothing{measured}. Call it uncompiled, call a function torch.compile supports instead, or report it "
                f"to {f.package}")
    return (f"{inside}, not in your code: wrap the call into it{call} with torch.compiler.disable (it runs eagerly, "
            f"the rest stays compiled), call a function torch.compile supports instead, or report it to {f.package}")


def check_failure(f: Optional[CheckFailure]) -> str:
    """How a rewrite of a hot function failed its check: what it raised, else its first differing individual ("" where
    it did not fail)."""
    if f is None:
        return ""
    return f.error or f"individual {f.individual}: expected {f.expected}, got {f.got}"


# a graph break's usual rewrite (the names each gives, dotted or snake_case, are the analysis' parse.breaks.NAMES)
BREAK_FIXES = {
    BreakFix.MASK: "avoid boolean-mask indexing: use np.where / torch.where with a mask",
    BreakFix.NOT_COMPILED: "the compiler backend failed on this code (see torch's message) and Dynamo ran it as "
                           "Python; report it to the backend if the code is supported",
    BreakFix.BRANCH: "make the branch a mask: compute both sides and select with np.where / torch.where, or use "
                     "torch.cond",
    # torch's fix for an `if` on a tensor (its graph-break hint and torch.cond's documentation), where the source shows
    # the branches: both tensor expressions (WHERE), or not (COND)
    BreakFix.WHERE: "both branches are tensor expressions: compute both and select with torch.where(condition, a, b) "
                    "(np.where for NumPy), which stays in one graph; or torch.cond(condition, true_fn, false_fn, "
                    "operands)",
    BreakFix.COND: "express the branch with torch.cond(condition, true_fn, false_fn, operands), which compiles both "
                   "branches into the graph",
    BreakFix.ITEM: "keep the value in a tensor rather than reading it out as a Python number",
    BreakFix.PRINT: "remove the print from the compiled function, or log outside it",
    BreakFix.APPLY_ALONG_AXIS: "vectorise the row function over the whole population (axis=1 reductions, "
                               "broadcasting) instead of np.apply_along_axis",
    BreakFix.SKIPPED_FUNCTION: "the function it calls is one Dynamo never traces: call it outside the compiled "
                               "function",
    # slice bounds read out of a tensor (x[ptr[i]:ptr[i + 1]], a CSR row): Python ints, so an implied .item()
    BreakFix.SLICE: "the slice's bounds are read out of a tensor, and a slice needs Python ints: a data-dependent "
                    "slice. Reduce over all the segments at once instead (torch.segment_reduce(values, 'sum', "
                    "offsets=ptr), np.add.reduceat(values, ptr[:-1]))",
    BreakFix.BINCOUNT: "torch.bincount's length follows the largest value: count into a tensor of fixed length "
                       "instead (torch.zeros(bins).index_add_(0, x, torch.ones_like(x, dtype=torch.float)), or "
                       "scatter_add_)",
    BreakFix.UNIQUE: "torch.unique's length follows how many values differ: where a count or the first occurrences "
                     "is what is needed, sort and compare neighbours (torch.sort, then x[1:] != x[:-1]), which keeps "
                     "the shape",
    BreakFix.MASKED_SELECT: "torch.masked_select's length follows the mask: keep the shape with torch.where(mask, x, "
                            "0)",
    BreakFix.REPEAT_INTERLEAVE: "repeat_interleave with repeats read from a tensor has a length that follows the "
                                "data: there is no fixed-shape form in general",
    BreakFix.TENSOR_SUBCLASS: "an operand here is a tensor of a subclass whose __torch_function__ override torch could "
                              "not trace: give the compiled function plain tensors (t.as_subclass(torch.Tensor), where "
                              "you call it)",
    BreakFix.TORCH_CODE: "the break is in torch's own code, before any line of yours ran: this torch could not trace "
                         "the call of the variant itself (a functools.partial or callable object, say); the "
                         "functions it calls are compiled as frames of their own. A plain function as the variant "
                         "may avoid it",
}


UNMEASURED = {Unmeasured.NO_REPLAY: "the record was made by an inspector that did not replay functions",
              Unmeasured.NO_ROUND: "its replay timed no round",
              Unmeasured.NO_COMPILE_TIME: "torch's compile time of it was not recorded",
              Unmeasured.NOTHING_COMPILED: "the rerun compiled nothing of it"}


def unmeasured(why: Optional[Union[Unmeasured, str]]) -> Optional[str]:
    """Why a figure was not measured: the probe's words, or inspector's (an Unmeasured)."""
    return UNMEASURED[why] if isinstance(why, Unmeasured) else why


def rewrite(u: UsualFix, eagerly: str = "") -> Optional[str]:
    """A break's rewrite: its cause's, or what to do about it inside a library (the JSON's ``fix``; ``eagerly``:
    ``library``'s)."""
    if isinstance(u.rewrite, LibraryFix):
        return library(u.rewrite, eagerly)
    return BREAK_FIXES[u.rewrite] if u.rewrite else None


def usual_fix(u: UsualFix) -> Optional[str]:
    """A break's rewrite and its flag, as one clause where the break is shown alone."""
    fix, flag = rewrite(u), f"set {u.flag}" if u.flag else None
    return f"{fix}, or {flag}" if fix and flag else fix or flag


def load_clauses(load: MachineLoad) -> list[str]:
    """What made the machine busy while it timed: "other processes used 38% of the 2 CPUs", ..."""
    return ([f"other processes used {load.others_share:.0%} of the {load.cpus} CPUs"] if load.others_busy else []) + (
        [f"the hypervisor stole {load.steal_share:.0%} of their time"] if load.steal_busy else [])


def busy(load: MachineLoad) -> Optional[str]:
    """Why a timing is suspect, in one sentence; None when the machine was quiet or unknown."""
    if not load.busy:
        return None
    average = f" (load average {load.loadavg:.1f})" if load.loadavg is not None else ""
    return (f"timed on a busy machine: {' and '.join(load_clauses(load))} meanwhile{average}; the time may be "
            "inflated: rerun on a quiet machine before trusting it")


def _listed(items: list[str], more: int, sep: str = "; ") -> str:
    """``items`` joined, and how many more the analysis left out."""
    return sep.join(items) + (f" (and {more} more)" if more else "")


def _where(w: NestAt, loop: bool = False) -> str:
    """A kernel, or one of its nests: "k nest 2" (``loop``: "k (loop nest 2)"), or all its nests not told apart."""
    if w.nests is not None:
        return f"{w.kernel} (all {w.nests} nests: not told apart)"
    if w.nest is None:
        return w.kernel
    return f"{w.kernel} (loop nest {w.nest})" if loop else f"{w.kernel} nest {w.nest}"


def _layout(shape: tuple[int, ...]) -> str:
    return f"the row-major {shape} population" if len(shape) == 2 else "the input"


def _unrecorded(u: Unrecorded) -> str:
    if u.said:
        return u.said
    if u.before:
        return "not recorded (a record made before inspector recorded Inductor's decisions, or a nest no record joins)"
    return f"not recorded under torch {u.torch}"


def serial(s: Serial) -> str:
    """Why a loop nest (or a kernel with no loop) runs on one thread: Inductor's recorded parallel-depth decision
    where the record has it, else what the loop sizes in the code suggest, said as such."""
    cause, decided = s.cause, "Inductor's parallel-depth decision (recorded)"
    if cause == SerialCause.ONE_THREAD:
        return "torch runs with one thread (torch.get_num_threads() == 1)"
    if cause == SerialCause.NO_LOOP:
        return ("it has no loop: it computes single values per call (a few, such as a best value, cost little; "
                "where most kernels are so, the compiled function may run once per individual, e.g. under "
                "np.apply_along_axis, or Dynamo unrolled a Python loop: inferred)")
    if cause == SerialCause.NO_LEVEL:
        return f"{decided}: none of its loop levels can be an OpenMP loop (a reduction over all of it, or no loop)"
    if cause == SerialCause.SMALL:
        return (f"{decided}: its loops cover {s.work:,} elements, {s.per_thread:,} per thread, under "
                f"cpp.min_chunk_size = {s.min_chunk_size} per thread ({s.threads} threads)")
    if cause == SerialCause.DEPTH:
        return f"{decided} chose {s.depth} parallel loop levels of {s.levels}, yet its code has no OpenMP loop"
    if cause == SerialCause.SMALL_CODE:
        guess = (f"from the code, its loops cover {s.work:,} elements, {s.per_thread:,} per thread, "
                 f"below cpp.min_chunk_size = {s.min_chunk_size} per thread")
    elif cause == SerialCause.DYNAMIC:
        guess = (f"from the code, its loop runs over {s.trip} elements, a size known only at run time (dynamic "
                 "shapes): Inductor chose from the size it saw while compiling")
    else:
        guess = "the code has no OpenMP loop for it"
    unrecorded = _unrecorded(s.unrecorded) if s.unrecorded else ""
    return f"Inductor's parallel decision is {unrecorded}; {guess}"


def _non_contiguous(t: NonContiguous) -> str:
    kinds = ", ".join(f"{n} {kind.replace('_', ' ')}{'s' if n != 1 else ''}" for kind, n in t.kinds)
    limits = " or ".join(([f"{t.count_limit:g} such operations"] if t.count_limit is not None else [])
                         + ([f"{t.ratio_limit:g} of all"] if t.ratio_limit is not None else [])) or "unknown"
    strided = f"; strided loads {', '.join(t.strided)} from {_layout(t.shape)}" if t.strided else ""
    share = f"; {(t.count or 0) / t.ops:.2f} of all" if t.ops else ""
    return (f"{t.count} of its {t.ops} operations index memory non-contiguously ({kinds}{share}), "
            f"reaching the limit of Inductor's tiling heuristic (cpp.enable_tiling_heuristics: {limits}), which "
            f"turned SIMD off{strided}")


def _small(t: SmallLoops) -> str:
    ranges = " x ".join(t.ranges) or "its loops"
    limit = f"a quarter of the {t.factor}-lane vector" if t.factor else "Inductor's minimum"
    under = f" (under {t.small_ops:g})" if t.small_ops else ""
    return (f"its loops ({ranges}) have an inner range under {limit} and {t.ops} operations{under}: Inductor's "
            "tiling heuristic keeps such loops scalar, with #pragma GCC ivdep")


def _tail(t: Tail) -> str:
    if t.loop_tail_vec is False:
        return "the remainder after its vector loop: cpp.enable_loop_tail_vec is off, so the scalar loop runs it"
    if t.loop_tail_vec is None:
        return f"the remainder after its vector loop, which torch {t.torch} always runs with the scalar loop"
    return ("the remainder after its vector loop: Inductor runs it scalar when mask and non-contiguous operations "
            f"exceed {t.ratio_limit:g} of all and the remainder is under half a vector")


def _undecided(u: Undecided) -> str:
    seen = (f"its code has strided loads {', '.join(u.strided)} from {_layout(u.shape)}" if u.strided
            else "its code has no strided load")
    return f"Inductor's tiling decision is {_unrecorded(u.unrecorded)}; {seen}"


def _named(kind: ReasonKind, n: Named) -> str:
    names = ", ".join(n.names)
    if kind == ReasonKind.LIBRARY_CALL:
        return f"ran as a library call: {names}"
    if kind == ReasonKind.GENERATED_AROUND:
        return f"with generated kernels around it: {names}"
    if kind == ReasonKind.NOT_VECTORIZED_DTYPE:
        return f"Inductor has no vector form for its dtype {names} (VECTORIZABLE_DTYPES)"
    if kind == ReasonKind.NOT_VECTORIZED_CHECKER:
        return f"Inductor's vectorization checker turned SIMD off: {names}"
    return f"Inductor's tiling decision was recorded as {names!r}, which inspector does not know"


CONSTANT = {  # the reasons whose facts are their kind
    ReasonKind.EAGER: "ran as Python outside any compiled graph (after a graph break, in a frame the compiler skipped, "
                      "or as the body of a custom operator a graph calls)",
    ReasonKind.NO_EVIDENCE: "no evidence names this line: no compiled kernel, graph break or Python trace points to it "
                            "(it may have no operations of its own, being evaluated while tracing, or torch filed "
                            "them under another line)",
    ReasonKind.NOT_VECTORIZED_NO_INDEX: "Inductor found no loop index it could tile for SIMD",
    ReasonKind.NOT_VECTORIZED_NO_ISA: "torch found no vector instruction set on this CPU",
}


def reason(r: Reason) -> str:
    """A reason's words, from its facts."""
    f = r.facts
    if f is None:
        return CONSTANT[r.kind]
    if isinstance(f, Named):
        return _named(r.kind, f)
    if isinstance(f, UsualFix):
        return f"fix: {usual_fix(f)}"
    if isinstance(f, Serial):
        return f"{_where(f.where, loop=True)} runs single-threaded: {serial(f)}"
    if isinstance(f, ThreadSpeedups):
        speedups = ", ".join(f"{k} {s:.2f}x" for k, s in f.kernels)
        if r.kind == ReasonKind.PARALLEL_PAID:
            return f"parallel paid: on {f.threads} threads against 1, {speedups} faster"
        return f"parallel did not pay: on {f.threads} threads against 1, {speedups} faster (below 1x: slower)"
    return _facts(f)


def _facts(f: Facts) -> str:
    """The words of the facts that say themselves, whatever their reason's kind."""
    if isinstance(f, BreakAt):
        where = f" inside this call, at {f.file}:{f.line}" if f.inside else ""
        why = explanation(f)
        return f"graph break{where}: {break_reason(f)}" + (f" ({why})" if why else "")
    if isinstance(f, Backends):
        return "in " + ", ".join(sorted({"an OpenMP parallel loop" if b == Backend.CPP else "a Triton grid"
                                         for b in f.backends}))
    if isinstance(f, Unrolled):
        return f"Python loop unrolled by Dynamo while tracing: {unrolled(f)}"
    if isinstance(f, Overruled):
        return f"Inductor left it scalar: {reason(f.reason)}"
    return _more(f)


def _more(f: Facts) -> str:
    if isinstance(f, NoLoop):
        return f"nothing to vectorize, its kernel{'' if f.decided else 's'} {'has' if f.decided else 'have'} no loop"
    if isinstance(f, NonContiguous):
        return _non_contiguous(f)
    if isinstance(f, SmallLoops):
        return _small(f)
    if isinstance(f, Tail):
        return _tail(f)
    if isinstance(f, Undecided):
        return _undecided(f)
    if isinstance(f, TritonLoads):
        return _triton(f)
    if isinstance(f, Machine):
        return machine(f)
    return _lists(f)


def _lists(f: Facts) -> str:
    if isinstance(f, Nests):
        return _nests(f)
    if isinstance(f, Unfused):
        pair = (f"nests {f.one.nest} and {f.two.nest} of {f.one.kernel}" if f.one.kernel == f.two.kernel
                and f.one.nest is not None and f.two.nest is not None else f"{_where(f.one)} and {_where(f.two)}")
        return f"{pair} are separate loops: Inductor's scheduler did not fuse them: " + "; ".join(
            f"{why} ({first}{f' and {more} more' if more else ''})" for why, first, more in f.reasons)
    if isinstance(f, Gathered):
        verb, what = ("scatters", "stores") if f.store else ("gathers", "loads")
        return (f"vectorized, but {_where(f.where)} {verb} {_listed(list(f.items), f.more, ', ')} one element at a "
                f"time ({f.lanes} scalar {what} per vector)")
    if isinstance(f, LaneOps):
        return (f"vectorized, but in {_where(f.where)} {_listed(list(f.ops), f.more, ', ')} has no vector form in "
                "Inductor and runs lane by lane, one scalar call per element")
    raise TypeError(f"no words for {type(f).__name__}")


def _nests(f: Nests) -> str:
    runs = [(f"{n.kernel} nest {n.nest}" if n.nest is not None else n.kernel, n.runs) for n in f.nests]
    more = f.count - len(f.nests)
    if not f.kernels:
        return f"its operations run in {f.count} loop nests: " + _listed([f"{w} ({r})" for w, r in runs], more)
    return (f"nest unknown: the evidence places it in {_listed(list(f.kernels), f.more_kernels, ' or ')}, whose loop "
            f"nests run differently ({_listed([f'{w}: {r}' for w, r in runs], more)}), and does not say which of "
            "them computes it")


def _triton(f: TritonLoads) -> str:
    """What the Triton kernels' loads say about memory access on a GPU: strided (uncoalesced) and masked."""
    parts = [f"strided loads {', '.join(f.strided)}: neighbouring threads read elements more than one apart, "
             "which a GPU cannot coalesce (store genes column-major to make them contiguous)"] if f.strided else []
    parts += [f"{f.masked} masked load{'s' if f.masked > 1 else ''} (the mask keeps the last, partial block in "
              "bounds)"] if f.masked else []
    return "Triton: " + "; ".join(parts)


def machine(f: Machine) -> str:
    """The machine code of a line's nests, where it overrules Inductor's code, and its scalar math per lane."""
    if f.code:
        return "machine code: " + _listed([f"{_where(w)}: {c.describe()}" for w, c in f.code], f.more)
    if f.overrules:
        return _listed([f"{_where(w)}: Inductor generated " + (
            "scalar code, and the C++ compiler vectorized it" if packed else
            "at::vec code, and its machine code has no packed arithmetic") for w, packed in f.overrules],
            f.more) + "; the verdict follows the machine code"
    return _listed([f"{_where(w)} calls " + ", ".join(f"{n} x{c}" for n, c in calls) for w, calls in f.lane],
                   f.more) + ": scalar math functions, one vector lane per call"


def unrolled(u: Unrolled) -> str:
    return (f"Dynamo unrolled the Python loop at line {u.line}: its body was traced {u.times} times into graph "
            f"{u.graph}, so compile time and graph size grow with its trip count. Vectorise the loop over a new "
            "axis instead")


def guard(g: Guard) -> str:
    """A failed guard in a few words: "___stack0 == 74.9 (at ga.py:24, in the code after a graph break)"."""
    if g.file is None:
        return g.text
    after = ", in the code after a graph break" if g.resumed else ""
    if g.after is not None and g.stacked:
        after = (f", in the code after the graph break at line {g.after}; {g.stacked} is a value Dynamo carried over "
                 "that break")
    return f"{g.text} (at {g.file}:{g.line}{after})"


def guards(found: Sequence[Guard]) -> Optional[str]:
    """Failed guards in a few words each, one after the other, each said once (with how many times it failed, where
    more frames than one failed it alike); None for none."""
    told = Counter(guard(g) for g in found)
    return "; ".join(f"{words}, in {count} frames" if count > 1 else words for words, count in told.items()) or None


def warning(w: CompileWarning) -> str:
    """A compile warning's words: an unrolled loop, a recompilation, a recompile at a further population size."""
    f = w.facts
    if isinstance(f, Unrolled):
        return unrolled(f)
    if isinstance(f, SizeRecompile):
        return f"recompiled at population {f.population:,}: {guard(f.guard)}"
    return recompilation(f)


def recompilation(r: Recompilation) -> str:
    """What a recompilation means for the timings, in one sentence."""
    failed = f"; the guard that failed: {guard(r.guards[0][0])}" if r.guards else ""
    if r.limit:
        last = r.last or (r.guards[0][0] if r.guards else None)
        return (f"hit torch's recompile limit ({r.limit}) after {r.count} recompiles; the guard that failed last: "
                f"{guard(last) if last else 'not named'}: Dynamo then ran the function without compiling, so the "
                "median mixes compiled, compiling and eager calls")
    if r.every_call:
        return (f"recompiled on every call ({r.count} recompiles in {r.calls} calls after the first){failed}: the "
                "median includes a compile per call")
    return f"recompiled {r.count} time{'s' if r.count > 1 else ''} after its first call{failed}"


def scaling(t: ThreadScaling) -> Optional[str]:
    """Whether running a variant's parallel kernels on torch's threads paid, in one sentence."""
    if t.specialised or t.speedup is None:
        return t.specialised
    if t.scaled == Scaled.FASTER:
        return f"its parallel kernels ran {t.speedup:.1f}x faster on {t.threads} threads than on 1: parallel paid"
    if t.scaled == Scaled.SLOWER:
        return (f"its parallel kernels ran {1 / t.speedup:.1f}x slower on {t.threads} threads than on 1: threads "
                "waiting for busy cores, or too little work per thread for OpenMP to pay")
    return (f"its parallel kernels ran about as fast on {t.threads} threads as on 1 ({t.speedup:.2f}x): parallel did "
            "not pay")


CONFOUNDED = {  # what each setting that differs between two runs changes (inspector.analysis.compare.CONFOUNDERS)
    "numpy": "eager NumPy variants run on it, and torch compiles NumPy code by its rules",
    "build": "the builds link different libraries, which can change eager torch and compiled code",
    "python": "pure-Python variants and the Python around compiled calls run on it",
    "threads": "compiled kernels run on that many OpenMP threads",
    "cpu": "another processor", "isa": "vectorized code is generated for it", "cuda": "another GPU",
}


def confounder(c: Confounder) -> str:
    """A setting that differs between two runs besides torch, and what it changes."""
    why = CONFOUNDED[c.key]
    if "unknown" in (c.a, c.b):
        why = "whether it changed cannot be told" + (
            " (a torch version without +cpu or +cuNNN does not name its build)" if c.key == "build" else "")
    comparable = " (timings are not comparable)" if c.key in Env.MACHINE and "unknown" not in (c.a, c.b) else ""
    return f"{c.what} {c.a} → {c.b}: {why}{comparable}"


def load_words(load: Optional[MachineLoad]) -> str:
    """A run's machine load in words: "other processes used 3% of the 2 CPUs, steal 0%, load average 0.4", or
    "not measured" (no /proc, or a record made before inspector measured it)."""
    if load is None:
        return "not measured"
    said = [f"other processes used {load.others_share:.0%} of the {load.cpus} CPUs" if load.others_share is not None
            else "other processes' CPU time unknown",
            f"steal {load.steal_share:.0%}" if load.steal_share is not None else None,
            f"load average {load.loadavg:.1f}" if load.loadavg is not None else None]
    return ", ".join(s for s in said if s) + (" (busy)" if load.busy else "")


def pair_warning(w: PairWarning) -> str:
    """What to keep in mind comparing two runs, in one sentence."""
    if isinstance(w, Confounder):
        return confounder(w)
    if isinstance(w, Populations):
        return f"different populations ({w.a:,} vs {w.b:,})"
    if isinstance(w, SourceChanged):
        return f"the {w.kind}'s source changed between the runs: lines are matched by " \
            "their text"
    if isinstance(w, TimedApart):
        return ("timed one after the other, not in alternating rounds: a machine busier during one run than the "
                "other changes the ratios (compare a sample, not records, to interleave them)")
    if isinstance(w, TimedBusy):
        return (f"{w.run} timed {', '.join(w.variants)} on a busy machine (other processes or steal took CPU time "
                "meanwhile): its ratios may be off")
    return _program_warning(w)


def _program_warning(w: PairWarning) -> str:
    if isinstance(w, Sequential):
        return ("the runs were sequential (a program's calls cannot alternate with another run's): a machine busier "
                f"during one run changes the ratios; machine load under {w.a}: {load_words(w.load_a)}; under "
                f"{w.b}: {load_words(w.load_b)}")
    if isinstance(w, ArgvChanged):
        return f"the program ran with different arguments ({' '.join(w.a) or 'none'} vs {' '.join(w.b) or 'none'})"
    if isinstance(w, ExitChanged):
        return f"the program exited with {w.exit_a} under {w.a}, {w.exit_b} under {w.b}"
    raise TypeError(f"no words for {type(w).__name__}")


def triton_launch(launch: TritonLaunch) -> str:
    """The launch in a few words: what ran (grid, blocks, warps) or, before a run, what the source fixes."""
    config = launch.config or {}
    blocks = dict(launch.blocks, **config.get("kwargs", {}))
    warps = config.get("num_warps") or launch.num_warps
    parts = [f"grid {' × '.join(map(str, launch.grid))} programs" if launch.grid else "",
             ", ".join(f"{k}={v}" for k, v in blocks.items()), f"{warps} warps" if warps else ""]
    if not launch.config:
        parts += [", ".join(f"{k}={v}" for k, v in launch.numels.items()),
                  "size hints " + ", ".join(f"{k}={v}" for k, v in (launch.size_hints or {}).items()),
                  "block sizes and warps autotuned at the first launch"]
    return "; ".join(p for p in parts if p)


UNREAD: dict[UnreadKind, Callable[[Unread], str]] = {  # what was not understood, by its kind
    UnreadKind.UNPARSED: lambda u: u.text or "",  # the parser's own message
    UnreadKind.NO_CALL: lambda u: "no call() function in the output code",
    UnreadKind.UNKNOWN_CALLS: lambda u: (
        f"call() calls {', '.join(u.names)}, neither a kernel of this module nor a known library call"
        if len(u.names) == 1 else
        f"call() calls {', '.join(u.names)}, neither kernels of this module nor known library calls"),
    UnreadKind.LOOP_HEADER: lambda u: f"loop header not understood: {(u.text or '')[:160]}",
    UnreadKind.LOOP_INDENTED: lambda u: "a loop that is not at the start of a line",
    UnreadKind.TRITON_LOADS: lambda u: f"{u.counts[0]} of {u.counts[1]} Triton loads not understood (their strides "
                                       "are unknown)",
    UnreadKind.DECISION_KIND: lambda u: f"decision of unknown kind {u.text!r} not read",
    UnreadKind.FX_COMMENT: lambda u: f"not read: {(u.text or '')[:160]}",
    UnreadKind.BREAK_PLACE: lambda u: f"no file and line in torch's message: {u.text}",
    UnreadKind.NO_MACHINE_CODE: lambda u: "no machine code recorded for it",
    UnreadKind.UNCLASSIFIED: lambda u: f"{sum(u.counts)} instruction{'s' if sum(u.counts) > 1 else ''} not "
                                       f"classified ({', '.join(f'{m} x{n}' for m, n in zip(u.names, u.counts))})",
    UnreadKind.OUTLINED: lambda u: f"{u.counts[0]} OpenMP outlined functions for {u.counts[1]} parallel regions: its "
                                   "machine code is not told apart per loop nest",
    UnreadKind.RECORD_KEY: lambda u: "not known to this version (kept, not read)",
    UnreadKind.MESSAGE_KIND: lambda u: f"a {u.text!r} message: a kind this version does not know (not read)",
    UnreadKind.PROBE: lambda u: u.text or "",
}
KEPT = (UnreadKind.UNPARSED, UnreadKind.NO_CALL, UnreadKind.UNKNOWN_CALLS, UnreadKind.LOOP_HEADER,
        UnreadKind.LOOP_INDENTED, UnreadKind.TRITON_LOADS)  # output code's problems: its raw code is kept


def problem(p: Problem) -> str:
    """What a parser did not understand of one item, in one line: where (the variant or function, the graph, the
    kernel), then what."""
    first = p.what[0].kind
    if first == UnreadKind.UNJOINED:
        place = [f"machine code of {p.kernel}" + (f" in graph {p.graph}" if p.graph else "")
                 + " joins no kernel of the output code"]
    else:
        graph = [f"graph break {p.graph}" if first == UnreadKind.BREAK_PLACE else f"graph {p.graph}"] if p.graph else []
        key = [p.what[0].text or ""] if first == UnreadKind.RECORD_KEY else []
        place = graph + ([p.kernel] if p.kernel else []) + key + ["; ".join(UNREAD[u.kind](u) for u in p.what)]
    return ": ".join(([p.unit] if p.unit else []) + place) + (" (raw code kept)" if first in KEPT else "")


def _problems(c: ParseCount) -> list[str]:
    return [problem(p) for p in c.problems]


def row(r: TimeRow) -> str:
    """What a row of times is of: a kernel that ran under one run alone says so."""
    return f"{r.what} (only under {r.only})" if r.only else r.what


def _pair_warnings(p: RunPair) -> list[str]:
    return [pair_warning(w) for w in p.warnings]


def _run_load(r: ComparedRun) -> Optional[str]:
    """A program's run's machine load in words (a sample's run: None)."""
    return None if r.argv is None else load_words(r.load)


# the words the JSON writes for a value of each type, by key (over its field of that name, else after its fields):
# their type, as the schema says it (inspector.render.schema), and how they are said
WORDS: dict[type, dict[str, tuple[Any, Callable[[Any], Any]]]] = {
    Reason: {"text": (str, reason)}, CompileWarning: {"text": (str, warning)},
    Recompilation: {"guards": (list[tuple[str, int]], lambda r: [(guard(g), n) for g, n in r.guards]),
                    "last": (Optional[str], lambda r: guard(r.last) if r.last else None),
                    "text": (str, recompilation)},
    ThreadScaling: {"text": (Optional[str], scaling)}, Confounder: {"text": (str, confounder)},
    TritonLaunch: {"text": (str, triton_launch)},
    GraphBreak: {"after": (Optional[str], after), "fix": (Optional[str], lambda b: rewrite(b.usual)),
                 "reason": (str, break_reason), "explanation": (Optional[str], explanation)},
    MachineLoad: {"busy": (Optional[str], busy), "why": (list[str], load_clauses)},
    RunPair: {"warnings": (list[str], _pair_warnings)}, ComparedRun: {"load": (Optional[str], _run_load)},
    TimeRow: {"what": (str, row)}, Problem: {"text": (str, problem)}, ParseCount: {"problems": (list[str], _problems)},
    Recompile: {"reasons": (list[str], lambda c: [guard(g) for g in c.reasons])},
    LimitHit: {"guard": (Optional[str], lambda h: guard(h.guard) if h.guard else None)},
    Untraced: {"guard": (Optional[str], lambda u: guards(u.guard))},
    SizeRecompile: {"guard": (str, lambda s: guard(s.guard))},
    HotRewrite: {"problem": (str, lambda w: check_failure(w.problem))},
    Replay: {"why": (Optional[str], lambda r: unmeasured(r.why))},
    WarmCompile: {"error": (Optional[str], lambda w: unmeasured(w.error))},
    UsualFix: {"rewrite": (Optional[Union[str, LibraryFix]], lambda u: to_json(u.rewrite, json_words)
                           if isinstance(u.rewrite, LibraryFix) else rewrite(u))},
}
