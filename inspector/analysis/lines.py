"""Line verdicts: for a compiled variant, what happened to each line of the user's own code.

Evidence, best first (each verdict says which gave it, in ``how``):
- ``provenance``: Inductor's kernel stack traces (torch >= 2.6 with provenance tracking);
- ``origin``: ``// ORIGIN:`` / ``# File:`` comments inside a kernel (comment_origin, torch 2.1);
- ``fx_graph``: the FX graph's node stack comments, graph-level only;
- ``python_trace``: lines that ran as Python bytecode during a steady-state compiled call (eager);
- ``graph_break``: Dynamo's graph-break message.
"""

import ast
import re

from inspector.model import LineVerdict, Reason

# a traceback frame and the code line under it
STACK_FRAME = re.compile(r'File "(.+?)", line (\d+), in (\S+)(?:\n[ \t]*(\S[^\n]*))?')
# FX graph comments (`# File: x.py:12 in fn, code: ...`) and 2.1 ORIGIN comments (`File "x.py", line 12, in fn\ code\`)
COMMENT_FRAME = re.compile(r'File:? "?([^",\n]+?\.py)"?(?:, line |:)(\d+)(?:,? in (\w+))?(?:, code: ([^\n]*)|\\\s*([^\\\n]*))?')
RESUME = re.compile(r"torch_dynamo_resume_in_(\w+?)_at_\d+")


def scope(source, function):
    """Statements of ``function`` and of the same-file helpers it calls, transitively.

    Returns {line: {"end": end_line, "function": name, "loop": bool, "in_loop": the header line of the innermost
    for/while around it, or None}} for every statement with a runtime effect.
    """
    tree = ast.parse(source)
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    todo, seen = [function], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        params = {a.arg for a in ast.walk(defs[name].args) if isinstance(a, ast.arg)}
        todo += [n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name) and n.id in defs
                 and n.id not in params]
    lines = {}
    for name in seen:
        for stmt, loop in _statements(defs[name].body):
            end = stmt.end_lineno
            body = getattr(stmt, "body", None)
            if isinstance(body, list) and body:  # compound statement: its header only
                end = max(stmt.lineno, body[0].lineno - 1)
            lines[stmt.lineno] = {"end": end, "function": name, "loop": isinstance(stmt, (ast.For, ast.While)),
                                  "in_loop": loop}
    return lines


def _statements(body, loop=None):
    """(statement, header line of the innermost loop around it) for each statement, nested ones included."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstring
        yield stmt, loop
        inner = stmt.lineno if isinstance(stmt, (ast.For, ast.While, ast.AsyncFor)) else loop
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(stmt, field, []) or [], inner)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _statements(handler.body, inner)


def frames(text, sample):
    """(line, function) of each frame of ``text`` (a stack) that lies in the sample, outermost first."""
    found = []
    for file, line, fn, code in STACK_FRAME.findall(text):
        if in_sample(file, int(line), code, sample):
            resumed = RESUME.match(fn)
            found.append((int(line), resumed.group(1) if resumed else fn))
    return found


def comment_frames(text, sample):
    """(line, function) of each stack comment of an FX graph (or ORIGIN block) that points into the sample."""
    return [(int(line), fn) for file, line, fn, code, origin_code in COMMENT_FRAME.findall(text)
            if in_sample(file, int(line), code or origin_code, sample)]


def unread_comments(fx_graph):
    """The `# File:` comments of an FX graph that COMMENT_FRAME does not read (their lines get no evidence)."""
    return [line.strip() for line in fx_graph.splitlines() if "# File:" in line and not COMMENT_FRAME.search(line)]


def same_path(a, b):
    """Whether two spellings of a path (absolute, or relative to some folder) name the same file."""
    return a == b or a.endswith("/" + b.lstrip("./")) or b.endswith("/" + a.lstrip("./"))


def in_sample(file, line, code, sample):
    """Whether a frame (file, line, its code text if known) is in the sample.

    Stacks that Inductor replays from its cache keep the path of the process that first compiled the
    graph (another checkout, another folder): those count when the file name matches and the code
    on that line is the sample's.
    """
    target = sample.file or sample.path
    if same_path(file, target):
        return True
    if not code or file.rsplit("/", 1)[-1] != target.rsplit("/", 1)[-1]:
        return False
    source = sample.source.splitlines()
    return 0 < line <= len(source) and source[line - 1].strip() == code.strip()


def verdicts(graphs, python_lines, kernels, breaks, sample, env, lines_in_scope):
    """The line verdicts of a compiled variant.

    ``graphs``: its captured graphs (raw); ``python_lines``: the lines that ran as Python in one steady call;
    ``kernels``: its Kernels; ``breaks``: its GraphBreaks; ``lines_in_scope``: ``scope()`` of its function.

    Each piece of evidence says where a line's operations run as a *group* of alternatives: one loop nest (the
    probe's nest records), one of a kernel's nests (provenance, origin comments), or one of a graph's kernels (FX
    graph comments). A verdict is certain only where every alternative agrees; otherwise it says "unknown".
    """
    entries = {}

    def entry(line, via):
        return entries.setdefault((line, via), {"groups": {}, "how": [], "break": None})

    for kernel_ids, nest, chains, how in _evidence(graphs, kernels, sample):
        placed = {line for line, _ in entries} if how == "fx_graph" else set()
        for chain in chains:
            lines = [line for line, _ in chain]
            for depth, line in enumerate(lines):
                if line in placed:  # graph-level evidence only for lines nothing finer placed
                    continue
                e = entry(line, tuple(lines[:depth]))
                e["groups"].setdefault(how, set()).add((kernel_ids, nest))
                if how not in e["how"]:
                    e["how"].append(how)
    for b in breaks:
        if b.line is not None and same_path(b.file or "", sample.file or sample.path):
            e = entry(b.line, ())
            e["break"] = b
            e["how"].append("graph_break")
    def_lines = {n.lineno for n in ast.walk(ast.parse(sample.source))
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    ran_in_python = {p["line"] for p in python_lines or []} - def_lines
    for line in ran_in_python:
        if not any(line == key[0] for key in entries):
            entry(line, ())["how"].append("python_trace")
    by_id = {k.id: k for k in kernels}
    out = []
    for (line, via), e in sorted(entries.items()):
        if line not in lines_in_scope:
            continue
        groups = _groups(e["groups"], by_id)
        status, vectorized, why = _verdict(groups, e["break"], sample, env)
        placed = sorted({f"{k.id}#{n.index}" for g in groups if len(g) == 1 for k, n in g if n})
        out.append(LineVerdict(file=sample.path, line=line, end_line=lines_in_scope[line]["end"],
                               function=lines_in_scope[line]["function"], via=list(via), status=status,
                               vectorized=vectorized, kernels=sorted({k.id for g in groups for k, _ in g}),
                               nests=placed, why=why, how=e["how"]))
    covered = {e.line for e in out}
    for line, info in sorted(lines_in_scope.items()):
        if line not in covered:
            out.append(LineVerdict(
                file=sample.path, line=line, end_line=info["end"], function=info["function"], via=[], status=None,
                vectorized=None, kernels=[], nests=[], how=[], why=[Reason("no-evidence", (
                    "no evidence names this line: no compiled kernel, graph break or Python trace points to it (it "
                    "may have no operations of its own, being evaluated while tracing, or torch filed them under "
                    "another line)"))]))
    out.sort(key=lambda e: (e.line, e.via))
    return out


def _evidence(graphs, kernels, sample):
    """(kernel ids, nest index or None, [frames...], how) for each piece of evidence, best first: the probe's loop
    nest records and Inductor's provenance (per kernel), else origin comments; then the FX graph (per graph), for the
    lines none of those placed."""
    by_graph_name = {(k.graph, k.name): k for k in kernels}
    fx_graphs = []
    for g in graphs:
        mine = [k for k in kernels if k.graph == g.get("compile_id")]
        precise = False
        for k in mine:
            for n in k.loop_nests:
                if n.stacks is not None:
                    precise = True
                    yield (k.id,), n.index, [frames(s, sample) for s in n.stacks], "loop_nest"
        for key, stacks in (g.get("kernel_stack_traces") or {}).items():
            name = key.rsplit(":", 1)[0]
            kernel = by_graph_name.get((g.get("compile_id"), name)) or by_graph_name.get(
                (g.get("compile_id"), name.replace("torch.ops.", "")))
            if kernel:
                precise = True
                yield (kernel.id,), None, [frames(s, sample) for s in stacks], "provenance"
        for k in mine if not precise else []:
            found = comment_frames(k.code, sample)
            if found:
                yield (k.id,), None, [[f] for f in found], "origin"
        if g.get("fx_graph") and mine:
            fx_graphs.append((tuple(k.id for k in mine), [[f] for f in comment_frames(g["fx_graph"], sample)]))
    for kernel_ids, chains in fx_graphs:
        yield kernel_ids, None, chains, "fx_graph"


def _groups(evidence, by_id):
    """The line's groups of alternative units (kernel, nest or None): it runs in at least one unit of each group.

    Nest-level evidence for a kernel supersedes kernel-level evidence for the same kernel."""
    placed = {kernel_ids for kernel_ids, nest in evidence.get("loop_nest", ())}
    groups = [[(by_id[i], n) for i in kernel_ids for n in by_id[i].loop_nests if n.index == nest]
              for kernel_ids, nest in sorted(evidence.get("loop_nest", ()))]
    for how in ("provenance", "origin", "fx_graph"):
        for kernel_ids, _ in sorted(evidence.get(how, ())):
            if kernel_ids not in placed:
                groups.append([(by_id[i], n) for i in kernel_ids for n in (by_id[i].loop_nests or [None])])
    return [g for g in groups if g]


def _status(unit):
    kernel, nest = unit
    if not kernel.generated:
        return "extern"
    return "parallel" if (nest.parallel if nest else kernel.parallel) else "serial"


def _vectorized(unit):
    kernel, nest = unit
    return (nest.vectorized if nest else kernel.vectorized) if kernel.backend == "cpp" else None


def _verdict(groups, graph_break, sample, env):
    """(status, vectorized, [Reason]) of a line from its evidence groups."""
    why = []
    certain = [g for g in groups if len({_status(u) for u in g}) == 1]
    statuses = [_status(g[0]) for g in certain]
    units = [u for g in groups for u in g]
    if graph_break:
        b = graph_break
        why.append(Reason("graph-break", f"graph break: {b.reason}" + (f" ({b.explanation})" if b.explanation else "")))
        if b.fix:
            why.append(Reason("fix", f"fix: {b.fix}"))
        status = "graph-break"
    elif "extern" in statuses:
        status = "extern"
        why.append(Reason("library-call", "ran as a library call: " + ", ".join(
            sorted({k.name for k, _ in units if not k.generated}))))
        generated = sorted({k.name for k, _ in units if k.generated})
        if generated:
            why.append(Reason("generated-around", "with generated kernels around it: " + ", ".join(generated)))
    elif not groups:
        status = "eager"
        why.append(Reason("eager", "ran as Python outside any compiled graph (after a graph break, or in a frame "
                                   "the compiler skipped)"))
    elif "serial" in statuses:
        status = "serial"
    elif len(certain) == len(groups):
        status = "parallel"
        backends = {k.backend for k, _ in units}
        why.append(Reason("parallel", "in " + ", ".join(sorted(
            {"an OpenMP parallel loop" if b == "cpp" else "a Triton grid" for b in backends}))))
    else:
        status = "unknown"
    if status in ("serial", "parallel", "unknown"):
        for kernel, nest in _distinct(u for g in certain for u in g if _status(u) == "serial"):
            where = f"{kernel.name} (loop nest {nest.index})" if nest and len(kernel.loop_nests) > 1 else kernel.name
            why.append(Reason("serial", f"{where} runs single-threaded: {serial_reason(nest, env)}"))
        why += _nest_reasons(groups)
    triton = [k for k, _ in _distinct((k, None) for k, _ in units) if k.backend == "triton"]
    if any(k.strided_loads or k.masked_loads for k in triton):
        why.append(Reason("triton-loads", triton_loads(triton)))
    vectorized = None
    if any(k.backend == "cpp" for k, _ in units):
        per_group = [{_vectorized(u) for u in g if u[0].backend == "cpp"} for g in groups]
        per_group = [v for v in per_group if v]
        if any(len(v) > 1 for v in per_group):
            vectorized = "unknown"
        else:
            values = {v.pop() for v in per_group}
            vectorized = "all" if values == {True} else "none" if values == {False} else "some"
        scalar = [u for g in groups if len(g) == 1 for u in g if u[0].backend == "cpp" and not _vectorized(u)]
        if scalar:
            why.append(not_vectorized_reason(scalar, sample))
    elif triton:
        vectorized = "n/a"
    return status, vectorized, why


def _distinct(units):
    """Units in first-seen order, each once."""
    return list({(k.id, n.index if n else None): (k, n) for k, n in units}.values())


def _nest_reasons(groups):
    """Say where a line's operations are split across nests that run differently, and where the evidence does not
    say which nest (or kernel) computes it while they differ."""
    why = []
    placed = _distinct(u for g in groups if len(g) == 1 for u in g if u[1])
    if len({u[1].describe() for u in placed}) > 1:
        why.append(Reason("split-nests", "its operations run in {} loop nests: {}".format(
            len(placed), "; ".join(f"{k.name} nest {n.index} ({n.describe()})" for k, n in placed))))
    for g in groups:
        if len(g) > 1 and len({_status(u) for u in g} | {f"v{_vectorized(u)}" for u in g}) > 2:
            kernels = sorted({k.name for k, _ in g})
            alternatives = "; ".join(f"{k.name} nest {n.index}: {n.describe()}" if n else f"{k.name}: {_status((k, n))}"
                                     for k, n in g)
            why.append(Reason("nest-unknown", (
                f"nest unknown: the evidence places it in {' or '.join(kernels)}, whose loop nests run differently "
                f"({alternatives}), and does not say which of them computes it")))
    return why


def triton_loads(kernels):
    """What the Triton kernels' loads say about memory access on a GPU: strided (uncoalesced) and masked."""
    strided = sorted({s for k in kernels for s in k.strided_loads})
    masked = sum(k.masked_loads for k in kernels)
    parts = [f"strided loads {', '.join(strided[:3])}: neighbouring threads read elements more than one apart, "
             "which a GPU cannot coalesce (store genes column-major to make them contiguous)"] if strided else []
    parts += [f"{masked} masked load{'s' if masked > 1 else ''} (the mask keeps the last, partial block in "
              "bounds)"] if masked else []
    return "Triton: " + "; ".join(parts)


def serial_reason(nest, env):
    """Why a loop nest (None: a kernel with no loop) runs on one thread."""
    threads = env.threads or 1
    if threads == 1:
        return "torch runs with one thread (torch.get_num_threads() == 1)"
    if nest is None:
        return ("it has no loop: it computes single values per call (the compiled function runs once per "
                "individual, e.g. under np.apply_along_axis, or Dynamo unrolled a Python loop)")
    chunk = env.min_chunk_size
    if nest.work is not None and chunk and nest.work // threads < chunk:
        return (f"its loops cover {nest.work:,} elements, {nest.work // threads:,} per thread, below Inductor's "
                f"minimum chunk (cpp.min_chunk_size = {chunk} per thread, {threads} threads)")
    if nest.work is None and nest.trip:
        return (f"its loop runs over {nest.trip} elements, a size known only at run time (dynamic shapes): Inductor "
                "chose from the size it saw while compiling")
    if not chunk:
        return ("Inductor emitted no OpenMP loop for it (this record does not say Inductor's minimum chunk size, "
                "cpp.min_chunk_size, so whether its loops were too short is unknown)")
    return "Inductor emitted no OpenMP loop for it"


def not_vectorized_reason(units, sample):
    """Why the scalar C++ loop nests (or kernels) ``units`` of a line are scalar, as a ``not-vectorized-*`` Reason."""
    strided = sorted({s for k, n in units for s in (n.strided_loads if n else k.strided_loads)})
    if not any(n for _, n in units):
        return Reason("not-vectorized-no-loop", "nothing to vectorize, its kernels have no loop")
    if not strided:
        return Reason("not-vectorized-scalar", "scalar loop without strided loads (its ops may lack a vector "
                                               "implementation in this torch version)")
    ops = sum(k.ops for k, _ in _distinct((k, None) for k, _ in units))
    layout = f"the row-major {tuple(sample.shape)} population" if len(sample.shape) == 2 else "the input"
    return Reason("not-vectorized-strided", (
        f"strided loads {', '.join(strided[:3])} from {layout} ({len(strided)} "
        f"distinct strided loads among {ops} ops); Inductor's tiling heuristic "
        f"(cpp.enable_tiling_heuristics) turns SIMD off when non-contiguous loads are too large a "
        f"share of a kernel's work. Store genes column-major (shape (d, N), or np.asfortranarray) or "
        f"try --config cpp.enable_tiling_heuristics=False"))
