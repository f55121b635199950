"""Graph breaks of a variant, and their silent cousins (unrolled loops, recompilations), as typed values: one model
of recompilation among them (``recompilation``): how often a compiled variant compiled again after its first call, why
(the guards that failed), and whether Dynamo gave up (its recompile limit), from the raw facts of the probe's
passes."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Optional, Union

from inspector import files, frames as parse_frames
from inspector.analysis import fixes
from inspector.analysis.lines import Scope, Sources, only_call
from inspector.analysis.parse import breaks as parse
from inspector.analysis.parse.breaks import RESUMED_AT, BreakFacts
from inspector.frames import Frame
from inspector.model import (BreakCost, BreakFix, CompileWarning, Finding, GraphBreak, Guard, LibraryFix, Problem,
                             ProgramFunction, Recompilation, SampleVariant, SizeRecompile, SourceFile, Status, Unread,
                             UnreadKind, Unrolled, WarningKind)
from inspector.model.why import TENSOR_FILE
from inspector.analysis.facts import CompiledGraph
from inspector.raw import RawBreak, RawEnv
from inspector.record import compile_key

TORCH_FILE = re.compile(r"(?:^|[/\\])torch[/\\](?=_)")  # torch/_dynamo/..., torch/_numpy/...
PROBE_FRAME = re.compile(r"[/\\]inspector[/\\]probe[/\\]\w+\.py$")  # inspector's probe calling the user's code
UNROLLED_MIN_TIMES = 2  # a loop body traced this many times over into one graph was unrolled
Seen = dict[tuple[Optional[str], Optional[int], str], GraphBreak]  # {(path, line, what): the break}
Within = Optional[tuple[str, str]]  # the compiled function: its file's path and its name
LIMIT = re.compile(r"hit config\.(\w+) \((\d+)\)")
LAST_REASON = re.compile(r"last reason: (.+)")  # the limit warning's: the guard that failed at the last compile
COMPILE_ID = re.compile(r"^\d+/\d+(?:_\d+)?:\s*")
VALUE = re.compile(r"(==\s*)-?\d[\d.e+-]*")
OBJECT_ID = re.compile(r"(___check_obj_id\([^,]+,\s*)\d+")  # a fresh object each call: another id each time
USER_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\w+)')  # the user stack under a recompile reason
# the guard's source comment, "  # gbest = best[i]  # mp/pso.py:89 in step": torch cuts the path short from the left
COMMENT_AT = re.compile(r"#\s*([^\s#]+):(\d+) in (\w+)")
STACK_VALUE = re.compile(r"^___stack\d+")  # a value on the stack at a break, passed to the code after it
EVERY_CALL_MIN = 3  # fewer recompiles than this are not a pattern


def distinct(found: Sequence[BreakFacts], sources: Sources, within: Within = None
             ) -> tuple[list[GraphBreak], list[Problem]]:
    """(GraphBreaks, problems): each break once, at its real site, with how many times torch reported it.

    The site is the innermost frame outside torch, inspector and the standard library (often a library's line, not
    the sample's); ``chain`` lists the annotated frames from the compiled function's (``within``: its file's path and
    name, where known) down to it: the program's lines that called the compiled function ran no compiled code.
    Reports of one break (the same site and cause, worded afresh after Dynamo restarted a frame) are counted
    together. That the compiler backend then failed on the code after a break (torch's WON'T CONVERT message and the
    "Backend compiler exception" break that follows it) is told once, as that break's ``after``. Problems: the
    messages that name no location. ``found``: the break messages read (``told``)."""
    seen: Seen = {}
    later: list[BreakFacts] = []
    problems: list[Problem] = []
    for b in found:
        if b.line is None:
            problems.append(Problem((Unread(UnreadKind.BREAK_PLACE, b.reason),), graph=b.compile_id))
        if b.resumes is not None:  # placed once every break it may follow is known
            later.append(b)
        else:
            _add(seen, b, sources, within)
    for b in later:
        path = _site(b, sources, within)[0]
        follows = next((key for key in seen if key[:2] == (path, b.resumes)), None)
        if follows is None:
            _add(seen, b, sources, within)
        elif not seen[follows].failed_after:
            why = (b.explanation or b.reason).split(". ")[0].rstrip(".")  # less torch's "Adding a graph break."
            seen[follows] = replace(seen[follows], failed_after=why,
                                    text=f"{seen[follows].text}\n\n{_shown(b.text, sources)}")
    return list(seen.values()), problems


def told(parsed: Sequence[BreakFacts]) -> list[BreakFacts]:
    """The break messages read (``parse.parse``), less torch's WON'T CONVERT messages that a break of the same compile
    tells again."""
    said = {b.compile_id for b in parsed if not parse.WONT_CONVERT.match(b.text)}
    return [b for b in parsed if not (parse.WONT_CONVERT.match(b.text) and b.compile_id in said)]


def _site(b: BreakFacts, sources: Sources, within: Within = None
          ) -> tuple[Optional[str], Optional[int], Optional[SourceFile], list[tuple[SourceFile, int]]]:
    """(path, line, SourceFile or None, chain) of a parsed break: its innermost frame in an annotated file."""
    frames = b.frames  # those above inspector's own call of the compiled function are its callers' (a sample's)
    frames = frames[1 + max((i for i, f in enumerate(frames) if PROBE_FRAME.search(f.file or "")), default=-1):]
    path, name = within or (None, None)  # and those above the compiled function's frame (a program's)
    frames = frames[next((i for i, f in enumerate(frames) if f.function == name and (
        (s := sources.resolve(f)) and s.path == path)), 0):]
    chain = [(f, frame.line) for frame in frames if (f := sources.resolve(frame)) and f.kind != "stdlib"]
    if not chain and b.file and b.line is not None:
        at = sources.resolve(Frame(None, None, file=b.file, line=b.line))
        chain = [(at, b.line)] if at else []
    if not chain:
        return b.file, b.line, None, chain
    site, line = chain[-1]
    return site.path, line, site, chain


def _add(seen: Seen, b: BreakFacts, sources: Sources, within: Within) -> None:
    """Count a parsed break into ``seen``: a new entry, or one more report of one."""
    path, line, site, chain = _site(b, sources, within)
    key = (path, line, b.cause if b.cause != "unknown" else b.gb_id or b.reason)
    if key in seen:  # the same break reported again: it could not resume if any report says so
        known = seen[key]
        seen[key] = replace(known, count=known.count + 1, resumable=known.resumable and b.resumable)
        return
    fix: Optional[Union[BreakFix, LibraryFix]] = b.fix
    flag, where, file = b.flag, site.kind if site else None, site.display if site else b.file
    code = site.text(line) if site and line is not None else None
    form = fixes.branch_form(site.source, line) if b.cause == "data-dependent-branch" and site and line else None
    fix = {"where": BreakFix.WHERE, "cond": BreakFix.COND}.get(form or "", fix)  # as the source's branches allow
    if b.cause == "dynamic-shape":  # as the operator torch named and the line show it
        fix = parse.shape_fix(b.operator, code)
    elif b.cause == "item" and parse.data_dependent_slice(code):
        fix = BreakFix.SLICE
    if site and site.kind == "library":
        fix, flag = _library_fix(site, line, chain, _torch_caller(b, site, sources)), None
    elif not site and b.file and TORCH_FILE.search(b.file):
        where, file, flag = "torch", "torch/" + TORCH_FILE.split(b.file)[-1], None
        fix = BreakFix.TORCH_CODE
    seen[key] = GraphBreak(
        file=file, line=line, code=code, where=where,
        chain=[(f.display, n) for f, n in chain], reason=b.reason, resumable=b.resumable, cause=b.cause,
        explanation=b.explanation, hints=b.hints, gb_id=b.gb_id, url=b.url, fix=fix, flag=flag, count=1,
        compile_id=b.compile_id, mechanism=b.mechanism, text=_shown(b.text, sources), failed=b.failed)


def first_seen(entries: Sequence[RawBreak], env: RawEnv, sample_path: str,
               sample_file: Optional[str]) -> list[tuple[Optional[str], Optional[int], str]]:
    """[(file, line, reason)] of break entries as soon as the probe streams them, before any record exists: each at
    its innermost frame in an annotated file (the sample, the user's modules, a library), each once."""
    seen: dict[tuple[Optional[str], Optional[int], str], None] = {}
    for b in told([parse.parse(e) for e in entries]):
        sites = [(f.file, f.line, kind) for f in b.frames
                 if (kind := files.kind(f.file, env, sample_file)) in ("sample", "user", "library")]
        path, line, kind = sites[-1] if sites else (b.file, b.line, None)
        shown = files.display(path, kind, sample_path, sample_file, env) if kind and path else path
        seen.setdefault((shown, line, b.reason), None)
    return list(seen)


def _shown(text: str, sources: Sources) -> str:
    """torch's message with the frames of its traceback that are torch's, inspector's or frozen left out."""
    head, marker, trace = text.partition(parse.USER_CODE)
    if not marker:
        return text
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in trace.splitlines(keepends=True):
        if line.lstrip().startswith('File "') and current:
            blocks.append(current)
            current = []
        current.append(line)
    blocks.append(current)
    kept = [b for b in blocks if not b[0].lstrip().startswith('File "')
            or any(sources.resolve(f) for f in parse_frames.stack(b[0]))]
    return head + marker + "".join(line for b in kept for line in b)


def _torch_caller(b: BreakFacts, site: SourceFile, sources: Sources) -> Optional[Frame]:
    """torch's own frame that called the break's site, where torch did (not a line of the user's or the library's)."""
    at = max((i for i, f in enumerate(b.frames) if (s := sources.resolve(f)) and s.path == site.path), default=0)
    return b.frames[at - 1] if at and TORCH_FILE.search(b.frames[at - 1].file or "") else None


def _library_fix(site: SourceFile, line: Optional[int], chain: list[tuple[SourceFile, int]],
                 torch_caller: Optional[Frame] = None) -> LibraryFix:
    """What to do about a break inside a library: it is not the user's code to rewrite; where torch itself called the
    library's code (wrapping a tensor subclass of the library's, say), nor is the call."""
    package = site.display.split("/", 1)[0]
    if torch_caller:  # torch wrapping a tensor in the library's class, or torch.Tensor's own code calling its override
        torch_file = "torch/" + TORCH_FILE.split(torch_caller.file)[-1]
        subclass = torch_caller.function == "to_subclass" or "as_subclass" in (torch_caller.code or "") or \
            torch_file == TENSOR_FILE
        return LibraryFix(package, torch_file, torch_caller.line, torch_caller.function, subclass, file=site.display,
                          line=line)
    mine = next(((f, n) for f, n in chain if f.kind != "library"), None)
    if mine is None:
        return LibraryFix(package, file=site.display, line=line)
    return LibraryFix(package, call=(mine[0].display, mine[1]), whole=only_call(mine[0].source, mine[1]),
                      file=site.display, line=line)


def given_subclass(found: list[GraphBreak], arguments: Sequence[tuple[str, str]]) -> list[GraphBreak]:
    """``found``, each break inside a library whose call chain runs in the file that defines the class of a tensor
    the compiled function is given (``arguments``: (name, "module.Class") of its first call's tensors of a subclass
    not torch's) told so: a plain tensor there leaves that class's overrides out of the compiled code."""
    def runs_in(b: GraphBreak) -> Optional[tuple[str, str]]:
        files = {file for file, _ in b.chain}
        return next(((name, cls) for name, cls in arguments
                     if cls.rsplit(".", 1)[0].replace(".", "/") + ".py" in files), None)
    return [replace(b, fix=replace(b.fix, argument=given)) if isinstance(b.fix, LibraryFix) and (given := runs_in(b))
            else b for b in found]


def cost(total_s: Optional[float], graphs_s: Optional[float]) -> Optional[BreakCost]:
    """Seconds per call outside compiled graphs (Python between graphs), from the profiler pass's regions: a call's
    ``total_s``, and ``graphs_s`` of it in compiled graphs."""
    if total_s is None or graphs_s is None:
        return None
    outside = max(0.0, total_s - graphs_s)
    return BreakCost(outside, graphs_s, outside / total_s if total_s else 0.0)


def warnings(graphs: Sequence[CompiledGraph], again: Optional[Recompilation],
             sizes: Sequence[tuple[int, Optional[str], str]], statements: Scope, sources: Sources,
             code: SourceFile) -> list[CompileWarning]:
    """The silent cousins of a break: unrolled Python loops and recompilations.

    ``graphs``: the function's graphs; ``again``: its recompilation after the first call; ``sizes``: its recompiles
    at further population sizes, each (the size, its compile id, the guard that failed); ``statements``: the lines of
    the function and its helpers in the SourceFile ``code`` (see lines.scope).
    """
    found = []
    for g in graphs:
        for loop, times in unrolled(g.fx_graph, statements, sources, code).items():
            found.append(CompileWarning(WarningKind.UNROLLED_LOOP, [loop], g.compile_id,
                                        Unrolled(loop, times, g.compile_id)))
    if again:
        found.append(CompileWarning(WarningKind.RECOMPILE_LIMIT if again.limit else WarningKind.RECOMPILE, [], None,
                                    again))
    for population, compile_id, reason in sizes:  # (frames re-entered without a failed guard say nothing)
        found.append(CompileWarning(WarningKind.RECOMPILE, [], compile_id,
                                    SizeRecompile(population, failed_guard(reason))))
    return found


def unrolled(fx_graph: str, statements: Scope, sources: Sources, code: SourceFile) -> dict[int, int]:
    """{loop header line: times its body was traced} for the Python loops Dynamo unrolled into a graph.

    The evidence: in the graph's node order (its `# File:` comments), a line inside the loop's body comes back
    after other lines, again and again: straight-line code, however long, visits each line once.
    """
    visits: dict[int, int] = {}
    previous = None
    for line in [line for f, line in sources.comments(fx_graph) if f is code]:
        if line != previous:
            visits[line] = visits.get(line, 0) + 1
        previous = line
    times: dict[int, int] = {}
    for line, count in visits.items():
        loop = statements.statements[line].in_loop if line in statements.statements else None
        if loop and count >= UNROLLED_MIN_TIMES:
            times[loop] = max(times.get(loop, 0), count)
    return dict(sorted(times.items()))


def findings(units: Sequence[SampleVariant | ProgramFunction]) -> tuple[Finding, ...]:
    """Per compiled variant that ran, or program's function (Triton previews left out: their breaks are the
    compiled variants'): its graphs, breaks, cost and warnings, and the fixes tried on it; the one that spends most
    time outside compiled graphs first."""
    rows = [Finding(v.id, v.status, v.error, v.code.graphs, v.code.break_cost, v.code.breaks, v.code.warnings,
                    v.code.recompilation, v.trials if isinstance(v, SampleVariant) else (), v.code.bounds)
            for v in units if isinstance(v, ProgramFunction) or v.compiled and v.status != Status.SKIPPED
            and not v.preview]
    return tuple(sorted(rows, key=lambda r: -(r.cost.outside_s if r.cost else 0.0)))


def recompilation(first: Sequence[CompiledGraph], later: Sequence[CompiledGraph], limits: Sequence[str],
                  watched: bool, calls: Optional[int],
                  recompiled_in: Optional[Sequence[int]] = None) -> Optional[Recompilation]:
    """A function's Recompilation from the graphs its first call compiled (``first``) and later calls compiled
    (``later``) over its ``calls`` after the first, and torch's warnings of a recompile limit hit (``limits``), or
    None when it never compiled again after its first call.
    ``watched``: a program's function (its whole run watched), whose first compile torch may have made as a
    recompile (a shared code object); ``recompiled_in``: its calls in which torch recompiled (several recompiles in
    one call, nested frames', are not a recompile on every call)."""
    # not Dynamo's attempts that stopped at the recompile limit (no graph: not a recompile)
    graphs = [g for g in later if not (
        "recompile limit" in str((g.metrics or {}).get("fail_reason") or "").lower() and not g.output_code
        and not g.fx_graph)]
    if watched:
        graphs = [g for g in first if (compile_key(g.compile_id) or (0, 0))[1] > 0] + graphs
    limit, last = limit_hit(limits)
    if not graphs and limit is None:
        return None
    counted: dict[Guard, int] = {}
    for g in graphs:
        reason = ((g.metrics or {}).get("recompile_reason") or "").strip()
        if reason:  # one guard, whatever value or object it held each time: "G['CALLS']['n'] == …"
            found = failed_guard(reason)
            guard = replace(found, text=OBJECT_ID.sub(r"\1…", VALUE.sub(r"\1…", found.text)))
            counted[guard] = counted.get(guard, 0) + 1
    count = len({compile_key(g.compile_id) or g.compile_id for g in graphs})  # 2/1_1 is 2/1 again
    every_call = bool(calls and count >= EVERY_CALL_MIN and (
        count >= calls - 1 if recompiled_in is None else set(range(2, calls + 2)) <= set(recompiled_in)))
    guards = sorted(counted.items(), key=lambda kv: -kv[1])
    return Recompilation(count, calls, every_call, limit, guards, last)


def limit_hit(texts: Sequence[str]) -> tuple[Optional[str], Optional[Guard]]:
    """(the recompile limit torch's warnings ``texts`` say it hit, "recompile_limit = 8", and the guard that failed at
    its last compile before it: its "last reason"), or (None, None) where none says it hit one."""
    found = next((m for text in texts if (m := LIMIT.search(text))), None)
    if found is None:
        return None, None
    last = next((m.group(1) for text in texts if (m := LAST_REASON.search(text))), None)
    return f"{found.group(1)} = {found.group(2)}", failed_guard(last) if last else None


def failed_guard(reason: str) -> Guard:
    """A failed guard, from torch's recompile reason: its first line without the compile id and the source comment,
    and where the guarded code is, from the reason's user stack, else from the end of that comment (torch adds the
    stack only where the guard kept one)."""
    first = COMPILE_ID.sub("", reason.strip().splitlines()[0]) if reason.strip() else ""
    text, _, comment = first.partition("  #")
    text = " ".join(text.split())
    frames = USER_FRAME.findall(reason) or COMMENT_AT.findall(comment)[:1]
    if not frames:
        return Guard(text)
    path, line, function = frames[-1]
    resumed, stacked = RESUMED_AT.match(function), STACK_VALUE.match(text)
    carried = bool(resumed and stacked)  # torch's resume function names the break's line
    return Guard(text, function.startswith("torch_dynamo_resume_in_"), int(resumed.group(1)) if resumed and carried
                 else None, stacked.group(0) if stacked and carried else None, file=os.path.basename(path),
                 line=int(line))
