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

    Returns {line: {"end": end_line, "function": name, "loop": bool}} for every statement with a runtime
    effect.
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
        for stmt in _statements(defs[name].body):
            end = stmt.end_lineno
            body = getattr(stmt, "body", None)
            if isinstance(body, list) and body:  # compound statement: its header only
                end = max(stmt.lineno, body[0].lineno - 1)
            lines[stmt.lineno] = {"end": end, "function": name, "loop": isinstance(stmt, (ast.For, ast.While))}
    return lines


def _statements(body):
    for i, stmt in enumerate(body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstring
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(stmt, field, []) or [])
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _statements(handler.body)


def frames(text, sample):
    """(line, function) of each frame of ``text`` (a stack) that lies in the sample, outermost first."""
    found = []
    for file, line, fn, code in STACK_FRAME.findall(text):
        if in_sample(file, int(line), code, sample):
            resumed = RESUME.match(fn)
            found.append((int(line), resumed.group(1) if resumed else fn))
    return found


def _comment_frames(text, sample):
    return [(int(line), fn) for file, line, fn, code, origin_code in COMMENT_FRAME.findall(text)
            if in_sample(file, int(line), code or origin_code, sample)]


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
    """
    entries = {}

    def entry(line, via, how):
        key = (line, via)
        if key not in entries:
            entries[key] = {"kernels": [], "how": [], "break": None}
        if how not in entries[key]["how"]:
            entries[key]["how"].append(how)
        return entries[key]

    for kernel, stacks, how in _kernel_stacks(graphs, kernels, sample):
        for stack in stacks:
            chain = [line for line, _ in stack]
            for depth, line in enumerate(chain):
                e = entry(line, tuple(chain[:depth]), how)
                if kernel.id not in e["kernels"]:
                    e["kernels"].append(kernel.id)
    for b in breaks:
        if b.line is not None and same_path(b.file or "", sample.file or sample.path):
            entry(b.line, (), "graph_break")["break"] = b
    def_lines = {n.lineno for n in ast.walk(ast.parse(sample.source))
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    ran_in_python = {p["line"] for p in python_lines or []} - def_lines
    for line in ran_in_python:
        if not any(line == key[0] for key in entries):
            entry(line, (), "python_trace")
    by_id = {k.id: k for k in kernels}
    out = []
    for (line, via), e in sorted(entries.items()):
        if line not in lines_in_scope:
            continue
        status, vectorized, why = _verdict(e, by_id, sample, env)
        out.append(LineVerdict(file=sample.path, line=line, end_line=lines_in_scope[line]["end"],
                               function=lines_in_scope[line]["function"], via=list(via), status=status,
                               vectorized=vectorized, kernels=e["kernels"], why=why, how=e["how"]))
    covered = {e.line for e in out}
    for line, info in sorted(lines_in_scope.items()):
        if line not in covered:
            out.append(LineVerdict(
                file=sample.path, line=line, end_line=info["end"], function=info["function"], via=[], status=None,
                vectorized=None, kernels=[], how=[], why=[Reason("no-operations", (
                    "no operations of its own in any compiled graph, and it did not run as Python "
                    "(evaluated while tracing)"))]))
    out.sort(key=lambda e: (e.line, e.via))
    return out


def _kernel_stacks(graphs, kernels, sample):
    """(kernel, [frames...], how) from provenance, else origin comments, else graph-level FX stacks."""
    by_graph_name = {(k.graph, k.name): k for k in kernels}
    for g in graphs:
        traces = g.get("kernel_stack_traces") or {}
        mapped = False
        for key, stacks in traces.items():
            name = key.rsplit(":", 1)[0]
            kernel = by_graph_name.get((g.get("compile_id"), name)) or by_graph_name.get(
                (g.get("compile_id"), name.replace("torch.ops.", "")))
            if kernel:
                mapped = True
                yield kernel, [frames(s, sample) for s in stacks], "provenance"
        if mapped:
            continue
        graph_kernels = [k for k in kernels if k.graph == g.get("compile_id")]
        origin = False
        for k in graph_kernels:
            found = _comment_frames(k.code, sample)
            if found:
                origin = True
                yield k, [[f] for f in found], "origin"
        if not origin and g.get("fx_graph"):
            found = _comment_frames(g["fx_graph"], sample)
            for k in graph_kernels:
                yield k, [[f] for f in found], "fx_graph"


def _verdict(e, by_id, sample, env):
    """(status, vectorized, [Reason]) of one line's evidence."""
    kernels = [by_id[i] for i in e["kernels"] if i in by_id]
    generated = [k for k in kernels if k.generated]
    extern = [k for k in kernels if not k.generated]
    why = []
    if e["break"]:
        b = e["break"]
        why.append(Reason("graph-break", f"graph break: {b.reason}" + (f" ({b.explanation})" if b.explanation else "")))
        if b.fix:
            why.append(Reason("fix", f"fix: {b.fix}"))
        status = "graph-break"
    elif extern:
        status = "extern"
        why.append(Reason("library-call", "ran as a library call: " + ", ".join(sorted({k.name for k in extern}))))
        if generated:
            why.append(Reason("generated-around",
                              "with generated kernels around it: " + ", ".join(k.name for k in generated)))
    elif generated:
        serial = [k for k in generated if not k.parallel]
        status = "serial" if serial else "parallel"
        for k in serial:
            why.append(Reason("serial", f"{k.name} runs single-threaded: {serial_reason(k, env)}"))
        if status == "parallel":
            backends = {k.backend for k in generated}
            why.append(Reason("parallel", "in " + ", ".join(sorted(
                {"an OpenMP parallel region" if b == "cpp" else "a Triton grid" for b in backends}))))
    else:
        status = "eager"
        why.append(Reason("eager", "ran as Python outside any compiled graph (after a graph break, or in a frame "
                                   "the compiler skipped)"))
    triton = [k for k in generated if k.backend == "triton"]
    if any(k.strided_loads or k.masked_loads for k in triton):
        why.append(Reason("triton-loads", triton_loads(triton)))
    cpp = [k for k in generated if k.backend == "cpp"]
    vectorized = None
    if cpp:
        count = sum(1 for k in cpp if k.vectorized)
        vectorized = "all" if count == len(cpp) else "some" if count else "none"
        if count < len(cpp):
            why.append(not_vectorized_reason([k for k in cpp if not k.vectorized], sample))
    elif generated:
        vectorized = "n/a"
    return status, vectorized, why


def triton_loads(kernels):
    """What the Triton kernels' loads say about memory access on a GPU: strided (uncoalesced) and masked."""
    strided = sorted({s for k in kernels for s in k.strided_loads})
    masked = sum(k.masked_loads for k in kernels)
    parts = [f"strided loads {', '.join(strided[:3])}: neighbouring threads read elements more than one apart, "
             "which a GPU cannot coalesce (store genes column-major to make them contiguous)"] if strided else []
    parts += [f"{masked} masked load{'s' if masked > 1 else ''} (the mask keeps the last, partial block in "
              "bounds)"] if masked else []
    return "Triton: " + "; ".join(parts)


def serial_reason(kernel, env):
    threads = env.threads or 1
    if threads == 1:
        return "torch runs with one thread (torch.get_num_threads() == 1)"
    trips = kernel.trip_counts
    chunk = env.min_chunk_size
    if trips and chunk and max(trips) < chunk * threads:
        return (f"its loop has {max(trips)} iterations, below Inductor's minimum chunk "
                f"(cpp.min_chunk_size = {chunk} per thread x {threads} threads)")
    if not trips:
        return ("it has no loop: it computes single values per call (the compiled function runs once per "
                "individual, e.g. under np.apply_along_axis, or Dynamo unrolled a Python loop)")
    if not chunk:
        return ("Inductor emitted no OpenMP region for it (this record does not say Inductor's minimum chunk "
                "size, cpp.min_chunk_size, so whether its loop was too short is unknown)")
    return "Inductor emitted no OpenMP region for it"


def not_vectorized_reason(kernels, sample):
    """Why the C++ ``kernels`` of a line are scalar, as a ``not-vectorized-*`` Reason."""
    strided = sorted({s for k in kernels for s in k.strided_loads})
    if not any(k.trip_counts for k in kernels):
        return Reason("not-vectorized-no-loop", "nothing to vectorize, its kernels have no loop")
    if not strided:
        return Reason("not-vectorized-scalar", "scalar loop without strided loads (its ops may lack a vector "
                                               "implementation in this torch version)")
    ops = sum(k.ops for k in kernels)
    layout = f"the row-major {tuple(sample.shape)} population" if len(sample.shape) == 2 else "the input"
    return Reason("not-vectorized-strided", (
        f"strided loads {', '.join(strided[:3])} from {layout} ({len(strided)} "
        f"distinct strided loads among {ops} ops); Inductor's tiling heuristic "
        f"(cpp.enable_tiling_heuristics) turns SIMD off when non-contiguous loads are too large a "
        f"share of a kernel's work. Store genes column-major (shape (d, N), or np.asfortranarray) or "
        f"try --config cpp.enable_tiling_heuristics=False"))
