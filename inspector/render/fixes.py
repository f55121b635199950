"""The words for fixes, shared by every renderer (``inspector.analysis.fixes`` decides which applies to what, and the
analysis stores it): a fix as advice, the time at stake, what trying it measured, and how a program's could be
tried."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from inspector.model import Fix, FixKind, GraphBreak, Recompilation, TrialResult, TrialSpec
from inspector.render import said
from inspector.render.words import places, ratio, seconds, spans, spread

# how to make the population column-major, the tiling heuristic off, and a recompiled size static, as a user does
COLUMN_MAJOR = "shape (d, N), or np.asfortranarray"
TILING_OFF = 'torch.compile(fn, options={"cpp.enable_tiling_heuristics": False})'
TENSOR_GUARDS = 'torch.compile(fn, options={"guard_filter_fn": torch.compiler.keep_tensor_guards_unsafe})'
CUDA_GRAPHS = 'mode="reduce-overhead" (torch.compile(fn, mode="reduce-overhead"))'
CUDA_GRAPHS_WHY = "which CUDA graphs cut: the call's kernel launches replayed as one (torch's documentation)"
UNSAFE = ("Unsafe, as torch names it: the compiled code then no longer checks the globals and Python values it read, "
          "and runs on after they change.")
LABELS = {FixKind.LAYOUT: "column-major", FixKind.TILING: "the tiling heuristic off", FixKind.STATIC: "dynamic=False",
          FixKind.DYNAMIC: "dynamic=True", FixKind.GUARDS: "guards on tensors only",
          FixKind.CUDA_GRAPHS: 'mode="reduce-overhead"'}
STAKES = {FixKind.BREAK: "outside compiled graphs per call", FixKind.FLAG: "outside compiled graphs per call",
          FixKind.RECOMPILES: "per call, compiles included", FixKind.NUMBER: "per call, compiles included",
          FixKind.LAYOUT: "in the kernels of these lines per call",
          FixKind.TILING: "in the kernels of these lines per call", FixKind.GUARDS: "evaluating guards per call",
          FixKind.CUDA_GRAPHS: "outside the kernels per call"}


def advice(fix: Fix) -> str:
    """A fix as one sentence of advice."""
    if isinstance(fix.cause, GraphBreak) and fix.kind == FixKind.BREAK:
        return rewrite(fix.cause, fix.hints, fix.eager_faster)
    if fix.kind == FixKind.FLAG:
        flag = _flag(fix)
        return f"Set {_dynamo(flag)} before compiling (--config {flag}): it removes this break."
    if fix.kind == FixKind.NUMBER:
        return number(fix)
    if fix.kind == FixKind.DYNAMIC:
        return dynamic(fix)
    if isinstance(fix.cause, Recompilation):
        return f"Stop the recompiles: {said.recompilation(fix.cause)}."
    if fix.kind == FixKind.LAYOUT:
        return (f"Store the population column-major ({COLUMN_MAJOR}) so that the genes each line reads are contiguous: "
                "these lines ran in scalar loops because of strided loads.")
    if fix.kind == FixKind.TILING:
        return (f"Turn Inductor's tiling heuristic off for this function ({TILING_OFF}): it kept these lines scalar "
                "because of their strided loads.")
    if fix.kind == FixKind.GUARDS:
        return (f"Keep only Dynamo's guards on tensors ({TENSOR_GUARDS}): evaluating its guards before each call "
                f"takes a share of the call. {UNSAFE}")
    if fix.kind == FixKind.CUDA_GRAPHS:
        return f"Compile with {CUDA_GRAPHS}: most of each call is outside its kernels, {CUDA_GRAPHS_WHY}."
    return f"Compile with static shapes ({static(fix)}): a change of population size recompiled it."


def _resized(fix: Fix) -> Optional[tuple[str, int]]:
    """(the input, its dimension) whose size changed, where torch's guard named them."""
    return (fix.detail, fix.axis) if fix.detail and fix.axis is not None else None


def static(fix: Fix) -> str:
    """Static shapes, about the input whose size changed where torch's guard named it."""
    named = _resized(fix)
    marked = (f"torch._dynamo.mark_static({named[0]}, {named[1]})" if named else
              "torch._dynamo.mark_static(x, 0) on the input whose size changed")
    return f"torch.compile(fn, dynamic=False) or {marked} (kernels stay specialised, one compile per size)"


def rewrite(b: GraphBreak, named: Sequence[str], eager_faster: Optional[float] = None) -> str:
    """A break's rewrite: its usual fix (``eager_faster``: ``Fix.eager_faster``), then torch's own hints that name
    another change (``named``: the fix's ``hints``), said as torch's."""
    hints = [f"Torch's hint: {h.strip().rstrip('.')}." for h in named]
    words = said.rewrite(b.usual, f"eagerly it ran {ratio(eager_faster, 'change')}" if eager_faster else "")
    fix = words[0].upper() + words[1:] if words else ""
    return " ".join([fix.rstrip(".") + "." if hints and fix else fix, *hints]).strip()


def number(fix: Fix) -> str:
    """A Python number passed as a tensor (torch's recompilation guide; its LR scheduler tutorial for an lr)."""
    if fix.detail == "lr":
        return ("Make the optimizer's learning rate a tensor (torch.optim.Adam(params, lr=torch.tensor(0.01)), as "
                "torch documents for an LR scheduler): a guard on its float value recompiled the function.")
    name = fix.detail or "the number"
    return (f"Pass {name} as a tensor (torch.tensor({name})) rather than a Python number: torch guarded on its value "
            f"and compiled again when {name} changed (torch's recompilation guide); or compile with dynamic=True, "
            "which makes it a symbol from the first call.")


def dynamic(fix: Fix) -> str:
    """Dynamic shapes where a size recompiled (``fix.spec``: its trial), or for a function the program already
    compiled with dynamic=False; a higher recompile limit where it hit it."""
    name, axis = _resized(fix) or ("x", 0)
    if fix.spec:
        return (f"Compile with dynamic shapes (torch.compile(fn, dynamic=True) or torch._dynamo.mark_dynamic({name}, "
                f"{axis}) before the call: one compile for every size, kernels that take the size as a symbol): a "
                "change of population size recompiled it.")
    limit = fix.cause.limit if isinstance(fix.cause, Recompilation) else None
    higher = (f"; or, to keep a compile per size, a higher torch._dynamo.config.recompile_limit (it hit {limit})"
              if limit else "")
    return (f"It is compiled with dynamic=False and {name}'s size changed: torch.compile(fn, dynamic=True) (one "
            f"compile for every size) or torch._dynamo.mark_dynamic({name}, {axis}) before the call{higher}.")


def stake(fix: Fix) -> str:
    """The time a fix is about, in words, with what it is."""
    return f"{seconds(fix.stake_s)} {STAKES[fix.kind]}" if fix.stake_s else "time at stake not measured"


def note(fix: Fix, flag_tried: bool) -> Optional[str]:
    """What is known of a fix's effect: what trying it measured, or, for a break's rewrite whose flag was not tried
    (``flag_tried``: it was), how inspector measures the flag; None otherwise."""
    if fix.tried:
        return trial(fix.tried)
    flag = fix.cause.flag if isinstance(fix.cause, GraphBreak) and fix.kind == FixKind.BREAK else None
    return f"inspector breaks FILE tries --config {flag} and measures it" if flag and not flag_tried else None


def trial(t: TrialResult) -> str:
    """"tried: column-major → 3.1x faster (2.9x to 3.3x faster in 3 alternating rounds), lines 23-32 now
    vectorized"."""
    label = LABELS.get(t.kind) or what(t.spec)
    if t.status != "ok":
        return f"tried: {label} → failed: {t.error or t.status}"
    if t.matches is False:
        return f"tried: {label} → its output differs from the variant's ({t.mismatch}): not advice"
    if t.speedup is None:
        return f"tried: {label} → not timed"
    # how its speedup was measured: at the last further size (as the analysis takes it there), else in the rounds
    how = (_at_sizes(t) if t.sizes else f" ({spread(t.spread, t.rounds)})" if t.spread
           else " (timed one after the other, not side by side)")
    said = [f"{ratio(t.speedup, 'change')}{how}" if t.gain else f"no gain: {ratio(t.speedup, 'change')}{how}"]
    e = t.effect
    said += [f"{spans({n for _, n in e.vectorized_now if n})} now vectorized"] if e.vectorized_now else []
    said += [f"{spans({n for _, n in e.parallel_now if n})} now parallel"] if e.parallel_now else []
    said += [f"graph breaks {e.breaks_before} → {e.breaks_after}"] if e.breaks_before != e.breaks_after else []
    return f"tried: {label} → " + ", ".join(said)


def _at_sizes(t: TrialResult) -> str:
    """" (the median of 5 steady calls each at 9,000, one after the other; recompiles 6 → 0 over the sizes, ...)": how
    a size trial was measured."""
    last = t.sizes[-1]
    steady = f"the median of {last.steady_calls} steady calls" if last.steady_calls > 1 else "one steady call"
    return (f" ({steady} each at {last.population:,}, one after the other; recompiles "
            f"{sum(s.recompiles_before for s in t.sizes)} → {sum(s.recompiles_after for s in t.sizes)} over the sizes"
            f"{_first_calls(t)}{_own_size(t)})")


def _first_calls(t: TrialResult) -> str:
    """"; their first calls 2.1 s → 0.4 s": a size trial's first calls at the sizes (where each compiled again), where
    all were timed."""
    if not t.first_calls_s:
        return ""
    covers = f": the compiles it saves cover about {t.covers_calls:,.0f} of its slower calls" if t.covers_calls else ""
    return f", their first calls {seconds(t.first_calls_s[0])} → {seconds(t.first_calls_s[1])}{covers}"


def _own_size(t: TrialResult) -> str:
    """"; at the first size 1.02x slower to 1.1x faster in 3 alternating rounds": a size trial's rounds at the
    population its variant was timed at."""
    said = spread(t.spread, t.rounds) if t.spread else ratio(t.own_speedup, "change") if t.own_speedup else ""
    return f"; at the first size {said}" if said else ""


def what(spec: TrialSpec) -> str:
    """A fix as a user applies it."""
    if spec.layout == "column-major":
        return f"the population column-major ({COLUMN_MAJOR})"
    options = ", ".join(f"{k}={v!r}" for k, v in spec.compile_options.items())
    return ", ".join(f"--config {c}" for c in spec.config) or (
        f"torch.compile(fn, {options})" if options else spec.name)


def program(fix: Fix, sample: str) -> Optional[str]:
    """How a program's fix could be tried (``inspector run`` tries no fix on the program), or None for a kind it
    does not list (stopping recompiles: said with them); ``sample``: the program's path, whose lines are named by
    number."""
    if fix.kind == FixKind.BREAK and isinstance(fix.cause, GraphBreak):
        at, said = places(fix.lines, sample), rewrite(fix.cause, fix.hints)
        breaks = "the graph breaks at" if len(fix.lines) > 1 else "the graph break at"
        return f"{breaks} {'line ' + at if at[:1].isdigit() else at}: {said[:1].lower()}{said[1:]}"
    if fix.kind == FixKind.LAYOUT:
        name = fix.detail or "its input"
        return (f"its argument {name} column-major ({name}.T.contiguous().T for a tensor, np.asfortranarray({name}) "
                f"for an array, or shape (d, N)), for the strided loads that kept {_lines(fix, sample)} scalar; "
                "inspector report measures it on a sample")
    if fix.kind == FixKind.TILING:
        return (f"Inductor's tiling heuristic off ({TILING_OFF}), for the strided loads that kept "
                f"{_lines(fix, sample)} scalar; inspector report measures it on a sample")
    if fix.kind == FixKind.FLAG:
        return (f"{_dynamo(_flag(fix))} before compiling, which removes a graph break; inspector breaks "
                f"measures it on a sample (--config {_flag(fix)})")
    if fix.kind == FixKind.STATIC:
        return f"{static(fix)}; inspector breaks --population-sizes shows the recompiles"
    if fix.kind == FixKind.GUARDS:
        return (f"Dynamo's guards on tensors only ({TENSOR_GUARDS}), for the share of each call their evaluation "
                f"takes; inspector report measures it on a sample. {UNSAFE}")
    if fix.kind == FixKind.CUDA_GRAPHS:
        return (f"{CUDA_GRAPHS}, for the share of each call outside its kernels ({CUDA_GRAPHS_WHY}); inspector report "
                "measures it on a sample")
    if fix.kind in (FixKind.NUMBER, FixKind.DYNAMIC):
        said = advice(fix)
        return said[:1].lower() + said[1:]
    return None


def _lines(fix: Fix, sample: str) -> str:
    """"line 13", "lines 21, 22": a fix's lines."""
    return f"line{'s' if len(fix.lines) > 1 else ''} {places(fix.lines, sample)}"


def _flag(fix: Fix) -> str:
    """The config item (KEY=VALUE) a flag fix sets."""
    return fix.spec.config[0] if fix.spec and fix.spec.config else ""


def _dynamo(flag: str) -> str:
    """"torch._dynamo.config.capture_scalar_outputs = True" for dynamo.capture_scalar_outputs=True."""
    name, _, value = flag.split(".", 1)[1].partition("=")
    return f"torch._dynamo.config.{name} = {value}"
