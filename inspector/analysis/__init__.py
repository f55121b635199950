"""Derive kernels, graph breaks, line verdicts and costs from a record alone (no torch import).

``analyze(record)`` reads a ``RawRecord`` (``inspector.raw``, as ``inspector.record.load`` returns it) and
returns an ``Analysis`` (``inspector.model``); the record itself is never changed.
"""

import statistics
from dataclasses import replace

from inspector import files as files_mod, frames
from inspector.analysis import breaks, cost, kernels as kernels_mod, lines, recompiles, rounds
from inspector.analysis import machine, trials as trials_mod
from inspector.analysis.load import machine_load, run_load
from inspector.raw import RawCapture, RawFallbacks, RawProbeMessages, RawRecord, RawTiming, RawVariant
from inspector.record import compile_key
from inspector.model import (Analysis, Bandwidth, BreakEven, Env, FunctionRun, Graph, Ignored, InternalError,
                             ParseCount, Program, Reason, Recompile, Rounds, Sample, SourceFile, StanceRun, Status,
                             SweepPoint, Timing, Transfer, Variant)


def analyze(record):
    """The Analysis of a raw record (a ``RawRecord``, schema 2); TypeError for anything else (a dict)."""
    if not isinstance(record, RawRecord):
        raise TypeError(f"analyze takes a RawRecord (inspector.raw), not {type(record).__name__}")
    sample = _sample(record.sample)
    env = _env(record.env)
    sources = lines.Sources(_files(record, sample))
    problems = {"output code": [], "graph-break messages": [], "FX graph stack comments": [], "log records": [],
                "Inductor decisions": [], "machine code": []}
    read = dict.fromkeys(problems, 0)
    variants = []
    timed = (record.rounds.variants if record.rounds else None) or {}
    for raw in record.variants:
        v, seen = _variant(raw.but(rounds=timed.get(raw.id) or []), sample, env, sources)
        variants.append(v)
        for artifact, (count, found) in seen.items():
            read[artifact] += count
            problems[artifact] += [f"{raw.id}: {p}" for p in found]
    variants = _with_trials(_with_speedups(variants), record, sample, env, sources, timed)
    if record.program:
        variants = _program_functions(variants, record.variants)
    sweep = [SweepPoint(s.population, _with_speedups([_timed_variant(v, s.population) for v in s.variants]))
             for s in record.sweep or []]
    internal = [_internal(e) for e in record.internal_errors or []]
    internal += [replace(e, where=f"{v.id}: {e.where}") for v in variants for e in v.internal_errors]
    internal += [replace(_internal(e), where=f"{t.id}: {e.where}") for t in record.trials or []
                 for e in t.internal_errors or []]
    return Analysis(
        schema=record.schema, inspector=record.given("inspector", "?"), created=record.given("created", ""),
        sample=sample, env=env, files=sources.files, config=record.config or [],
        compile_options=record.compile_options or {},
        reference=record.reference,
        interrupted=bool(record.interrupted), probe_restarts=record.given("probe_restarts", 0),
        trace_dir=record.trace_dir, variants=variants, sweep=sweep,
        parse=[ParseCount(a, read[a], problems[a]) for a in problems] + _not_known(record), internal_errors=internal,
        findings=breaks.findings(variants), rounds=_rounds(record.rounds),
        program=_program(record.program) if record.program else None,
        trace_logs=record.trace_logs or [], load=run_load(record))


def _not_known(record: RawRecord) -> list[ParseCount]:
    """The parse statistics' rows of what this version does not know, each only where there is some: the record's
    keys, and the kinds of the probe's messages (counted by collect: ``probe_messages``)."""
    keys = record.unknown()
    rows = [ParseCount("record keys", len(keys), [f"{k}: not known to this version (kept, not read)" for k in keys])]
    messages = record.probe_messages or RawProbeMessages()
    rows.append(ParseCount("probe messages", messages.read or 0, [
        f"a {kind!r} message: a kind this version does not know (not read)"
        for kind, count in (messages.unknown_kinds or {}).items() for _ in range(count)]))
    return [row for row in rows if row.problems]


def _internal(raw):
    return InternalError(raw.where, raw.error, raw.detail)


def _program(raw):
    return Program(**{k: getattr(raw, k) for k in Program.__dataclass_fields__ if k not in raw.absent})


def _rounds(raw):
    return Rounds(raw.session, raw.runs, raw.position, raw.rounds, raw.budget_s) if raw else None


def _sample(raw):
    return Sample(path=raw.path, file=raw.file, title=raw.title or raw.path,
                  description=raw.description or "", population=raw.population,
                  default_population=raw.default_population, seed=raw.seed,
                  shape=list(raw.shape or []), dtype=raw.dtype, source=raw.source or "",
                  tolerance=raw.tolerance, ignored=[Ignored(i.name, i.reason) for i in raw.ignored or []])


def _files(record, sample):
    """The sample and every user or library file the record's evidence names, as SourceFiles, in that order."""
    sample_file = sample.file or sample.path
    found = [SourceFile(sample_file, sample.path, "sample", sample.source)]
    for path, source in sorted((record.files or {}).items()):
        kind = files_mod.kind(path, record.env, sample_file)
        if kind and kind != "sample":
            found.append(SourceFile(path, files_mod.display(path, kind, sample.path, sample_file, record.env),
                                    kind, source))
    order = {"sample": 0, "user": 1, "library": 2, "stdlib": 3}
    return sorted(found, key=lambda f: (order[f.kind], f.display))


def _env(raw):
    bandwidth = raw.memory_bandwidth
    fields = Env.__dataclass_fields__
    return Env(**{k: getattr(raw, k) for k in fields if k != "memory_bandwidth"},
               memory_bandwidth=Bandwidth(**{k: getattr(bandwidth, k) for k in Bandwidth.__dataclass_fields__})
               if bandwidth else None)


def _transfer(raw):
    """The Transfer of a RawTransfer (None without one)."""
    return Transfer(raw.to_device_s, raw.to_device_bytes, raw.to_host_s, raw.to_host_bytes) if raw else None


def _timed_variant(raw, population):
    """A Variant with only what its run and timing say (no kernels or lines)."""
    return Variant(
        id=raw.id, function=raw.given("function", ""), kind=raw.kind, compiled=bool(raw.compiled),
        device=raw.given("device", "cpu"), preview=bool(raw.preview), status=raw.status,
        error=raw.error, error_line=raw.error_line, error_stage=raw.error_stage,
        error_detail=raw.error_detail, timing=_timing(raw, population),
        measured_population=raw.measured_population, matches_reference=raw.matches_reference,
        mismatch=raw.mismatch, family=raw.given("family", ""), checked_against=raw.checked_against,
        code=raw.code.to_json() if raw.code else {}, transfer=_transfer(raw.transfer), load=machine_load(raw),
        peak_memory_bytes=raw.peak_memory.bytes if raw.peak_memory else None, bounds=raw.bounds or [],
        run=_function_run(raw),
        internal_errors=[_internal(e) for e in raw.internal_errors or []])


def _function_run(raw):
    """A program's compiled function over the run, from the program probe's ``run`` facts (None for a variant).
    Its recompiles are the compiles torch made of a frame it had compiled before (records before the ``kind`` of a
    compile counted every compile after the first call)."""
    run = raw.run
    if not run:
        return None
    eager = run.eager or RawTiming.from_json({})
    fallbacks = run.fallbacks or RawFallbacks.from_json({})
    return FunctionRun(
        calls=run.calls, total_s=run.total_s, compile_s=_compile_s(_compiled(raw, "graphs")),
        steady_calls=run.steady_calls, steady_s=run.steady_s,
        recompiles=[Recompile(c.call, c.seconds, [recompiles.guard_text(r) for r in c.reasons],
                              len({compile_key(i) or i for i in c.compile_ids or []}))
                    for c in run.compiles if c.given("kind", "recompile") == "recompile"],
        traced_call=run.traced_call, profiled_call=run.profiled_call,
        compiled_at=run.given("compiled_at", 1 if raw.capture and raw.capture.graphs else None),
        created=raw.created, stances=[StanceRun(s.first, s.last, s.stance, s.eager) for s in run.stances or []],
        eager_calls=eager.given("runs", 0), eager_median_s=eager.median_s,
        fallbacks=fallbacks.given("count", 0),
        fallback_guards=[(f.call, f.guard) for f in fallbacks.given("first", [])],
        error_call=raw.error_call)


def _program_functions(variants, raws):
    """A program's functions (``raws``: their raw facts) with what they share with each other: a code object (torch
    compiles them as one function, recompiling for the second and counting both against one recompile limit), or a
    never-called function's code inlined into another's compiled graphs (their FX graphs' ``# File:`` comments)."""
    out = []
    for v in variants:
        same = [w.id for w in variants if w is not v and v.code and w.code == v.code]
        inlined = [w.id for w in raws if w.id != v.id and any(
            frames.inside(g.fx_graph or "", v.code) for g in _compiled(w, "graphs"))] if v.code and not v.run.calls else []
        out.append(replace(v, run=replace(v.run, shares_code=same, inlined_into=inlined)) if same or inlined else v)
    return out


def _compiled(raw, kind):
    """The raw ``kind`` ("graphs" or "breaks") of what a variant compiled: its first call's, and for a program's
    function also what its later calls compiled (a variant's later passes compile none of their own)."""
    found = (getattr(raw.capture, kind) if raw.capture else None) or []
    return found + ((getattr(raw.recompiles, kind) if raw.recompiles else None) or []) if raw.run else found


def _compile_s(graphs):
    """torch's compile time over ``graphs`` (their metrics' entire_frame_compile_time_s), or None where none says."""
    times = [t for g in graphs if (t := (g.metrics or {}).get("entire_frame_compile_time_s"))]
    return sum(times) if times else None


def _timing(raw, population):
    """The variant's Timing. Timed again in alternating rounds, its figures are the rounds' (median of the rounds'
    medians, lowest and highest run, runs in all), so that a row's time and its ratios, taken from the same rounds,
    agree; the first timing before the rounds stays in the record."""
    t = raw.timing
    timed = [r for r in raw.rounds or [] if r.median_s]
    if not t or (t.median_s is None and not timed):  # a fix tried is timed in the rounds alone
        return None
    if timed:
        t = t.but(median_s=statistics.median(r.median_s for r in timed), min_s=min(r.min_s for r in timed),
                  max_s=max(r.max_s for r in timed), runs=sum(r.given("runs", 0) for r in timed))
    compile_s = None
    if raw.compiled:
        compile_s = _compile_s((raw.capture.graphs if raw.capture else None) or [])
        if compile_s is None and t.first_call_s is not None:
            compile_s = max(0.0, t.first_call_s - t.median_s)
    measured = raw.measured_population or population
    scale = population / measured if population else 1.0
    return Timing(median_s=t.median_s, min_s=t.min_s, max_s=t.max_s, runs=t.given("runs", 0),
                  number=t.given("number", 1), first_call_s=t.first_call_s, samples_s=t.samples_s or [],
                  per_population_s=t.median_s * scale, compile_s=compile_s,
                  rounds_s={r.round: r.median_s * scale for r in timed}, scale=scale)


def _variant(raw, sample, env, sources):
    """(Variant, {artifact: (read, problems)}) for one raw variant."""
    v = _timed_variant(raw, sample.population)
    capture = raw.capture or RawCapture.from_json({})
    graphs_raw = _compiled(raw, "graphs")
    graphs, found, problems, decision_problems, parts = [], [], [], [], 0
    for g in graphs_raw:
        codes = g.output_code or []
        if not codes:  # a frame Dynamo entered that produced no graph (or an attempt it restarted)
            continue
        names = []
        for code in codes:
            split = kernels_mod.split(code, g.compile_id)
            problems += [f"graph {g.compile_id}: {p} (raw code kept)" for p in split.problems]
            parts += split.read
            joined, unread = kernels_mod.with_nest_records(split.kernels, g.nests, capture.decision_hooks)
            found += joined
            decision_problems += [f"graph {g.compile_id}: {p}" for p in unread]
            names += [k.name for k in split.kernels]
        graphs.append(Graph(g.compile_id, (g.metrics or {}).get("graph_op_count"), g.fx_graph_cache, names, codes))
    kernels = kernels_mod.with_launch_configs(kernels_mod.with_ids(found), raw.launch_configs)
    kernels, machine_seen = machine.with_machine_code(kernels, _compiled(raw, "machine_code"))
    breaks_raw = _compiled(raw, "breaks")
    graph_breaks, break_problems = breaks.distinct(breaks_raw, sources)
    seen = {"output code": (parts, problems),
            "graph-break messages": (len(breaks_raw), break_problems),
            "FX graph stack comments": (sum((g.fx_graph or "").count("# File:") for g in graphs_raw),
                                        [f"graph {g.compile_id}: not read: {c[:160]}" for g in graphs_raw
                                         for c in frames.unread_comments(g.fx_graph or "")]),
            "log records": (capture.given("records", len(graphs_raw) + len(breaks_raw)),
                            capture.problems or []),
            "Inductor decisions": (sum(len(n.decisions or []) for g in graphs_raw for n in g.nests or []),
                                   decision_problems),
            "machine code": machine_seen}
    verdicts, warnings = [], []
    if v.ok_compiled:
        code = sources.by_path.get(v.code.get("file")) or sources.files[0]  # where the variant's function is
        statements = lines.scope(code.source, v.code.get("name") if code.kind != "sample" else v.function)
        verdicts = lines.verdicts(graphs_raw, raw.python_lines, kernels, graph_breaks, sources, env,
                                  {code.path: statements}, sample.shape)
        warnings = breaks.warnings(graphs_raw, raw, statements, sources, code)
        verdicts = _explain_unrolled(verdicts, warnings)
    split, kernels = cost.kernel_times(raw.kernel_times, kernels)
    threads, kernels = cost.thread_scaling(raw.thread_scaling, kernels)
    bandwidth = env.memory_bandwidth.gb_s if env.memory_bandwidth else None
    kernels = cost.with_traffic(graphs_raw, kernels, bandwidth)
    return replace(
        v, kernels=kernels, graphs=graphs, breaks=graph_breaks, break_cost=breaks.cost(raw.regions),
        warnings=warnings, lines=cost.with_thread_reasons(cost.with_heat(verdicts, kernels, split), kernels, threads),
        time_split=split, threads=threads,
        compile_phases=cost.phases(graphs_raw),
        recompile_count=len((raw.recompiles.graphs if raw.recompiles else None) or []),
        recompilation=recompiles.recompilation(raw)), seen


def _with_trials(variants, record, sample, env, sources, timed):
    """Variants with the fixes tried on them (the record's ``trials``, each analysed as a variant of its own and
    compared with the variant it changed), said on the lines each was about."""
    raws, tried = {r.id: r for r in record.variants}, record.trials or []
    out = []
    for v in variants:
        found = []
        for raw in (t for t in tried if t.variant == v.id):
            own = RawVariant(**{k: getattr(raws[v.id], k) for k in TRIAL_KEYS}, rounds=timed.get(raw.id) or [],
                             **{k: getattr(raw, k) for k in ("id", "status", "error", "capture", "timing")})
            after, _ = _variant(own, sample, env, sources)
            found.append(trials_mod.trial(raw, v, after, raws[v.id].sizes or []))
        out.append(replace(v, trials=found, lines=trials_mod.on_lines(v, found)) if found else v)
    return out


TRIAL_KEYS = ("function", "kind", "compiled", "device", "preview", "family", "code")  # a trial's, from its variant


def _explain_unrolled(verdicts, warnings):
    """Loop headers Dynamo unrolled have no ops of their own: say so on their line."""
    unrolled = [w for w in warnings if w.kind == "unrolled-loop"]
    return [replace(e, why=[Reason("unrolled-loop", f"Python loop unrolled by Dynamo while tracing: {w.text}")])
            if not e.status and (w := next((w for w in unrolled if e.line in w.lines), None)) else e
            for e in verdicts]


def _with_speedups(variants):
    """Variants with their speedups against the fastest eager Python and NumPy variants of their family (with
    their spread where both were timed in rounds), and break-even against the fastest eager NumPy or torch one."""
    def best(kind, family):
        timed = [v for v in variants if v.kind == kind and v.family == family and not v.compiled
                 and v.status == Status.OK and v.timing]
        return min(timed, key=lambda v: v.timing.per_population_s, default=None)

    out = []
    for v in variants:
        python, numpy = best("python", v.family), best("numpy", v.family)
        eager = [b.timing.per_population_s for b in (numpy, best("torch", v.family)) if b]
        (vs_python, python_spread), (vs_numpy, numpy_spread) = _speedup(python, v), _speedup(numpy, v)
        out.append(replace(v, speedup_vs_python=vs_python, speedup_vs_numpy=vs_numpy,
                           speedup_vs_python_spread=python_spread, speedup_vs_numpy_spread=numpy_spread,
                           break_even=_break_even(v, min(eager) if eager else None)))
    return out


def _speedup(reference, v):
    """(how many times faster ``v`` ran than ``reference``: the ratio of the times their rows show, [lowest, highest]
    of the rounds' side-by-side ratios where both were timed in the same alternating rounds, else None)."""
    if not reference or not v.timing:
        return None, None
    side = rounds.side_by_side(reference.timing.rounds_s, v.timing.rounds_s)
    return reference.timing.per_population_s / v.timing.per_population_s, side[1] if side else None


def _break_even(v, eager):
    """Calls after which compiling paid off against the best eager variant (``calls`` None: never)."""
    if not v.compiled or not eager or not v.timing or v.timing.compile_s is None:
        return None
    gain = eager - v.timing.per_population_s
    return BreakEven(v.timing.compile_s / gain if gain > 0 else None)
