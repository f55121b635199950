"""Split Inductor output code into kernels and classify each one.

Works on the output-code module text alone (any torch version from 2.1 on): kernels are found with
``ast`` as top-level ``name = async_compile.cpp_pybinding(...)`` (2.13+), ``async_compile.cpp(...)``
(2.1) or ``async_compile.triton(...)`` assignments; launch order and library fallbacks
(``extern_kernels.*``, ``aten.*``) come from the ``call`` function of the wrapper.
"""

import ast
import re

CPP_FACTORIES = {"cpp_pybinding", "cpp"}
OMP = re.compile(r"#pragma omp (parallel|for)")
VECTOR = re.compile(r"at::vec::|Vectorized<|VecMask<|::loadu\(")
ACCUMULATOR = re.compile(r"tmp_acc\d+_arr\[|tmp_acc\d+")
# loads/stores indexed by the loop variable: in_ptr0[static_cast<int64_t>(1L + 3L*x0)]
LOAD = re.compile(r"\b(in_ptr\d+|in_out_ptr\d+)\[static_cast<(?:int64_t|long)>\(([^\]]*)\)\]")
STRIDE = re.compile(r"(\d+)L\*(?:x|i)\d+\b")
TRIP = re.compile(r"for\s*\(\s*(?:int64_t|long)\s+(?:x|i)0\s*=\s*static_cast<(?:int64_t|long)>\(0L\);\s*"
                  r"(?:x|i)0\s*<\s*static_cast<(?:int64_t|long)>\((\d+)L\)")
OP = re.compile(r"^\s*auto tmp\d+ =", re.M)
HANDLE = re.compile(r"#\s*\[Provenance debug handles\]\s*(\S+?):(\d+)")
TRITON_KIND = re.compile(r"@triton_heuristics\.(\w+)")
TRITON_MASKED = re.compile(r"tl\.load\([^)]*,\s*\w*mask")


def split(output_code):
    """Return {"kernels": [...], "understood": bool, "problem": str|None} for one output-code module."""
    try:
        tree = ast.parse(output_code)
    except (SyntaxError, ValueError) as e:
        return {"kernels": [], "understood": False, "problem": f"output code does not parse: {e}"}
    kernels = {}
    for node in tree.body:
        kernel = _kernel_definition(node)
        if kernel:
            kernels[kernel["name"]] = kernel
    order = _launches(tree, set(kernels))
    handles = dict(HANDLE.findall(output_code))
    result = []
    for position, name in enumerate(order):
        kernel = kernels.pop(name, None) or _extern(name)
        kernel["launch"] = position
        handle = handles.get(name)
        kernel["handle"] = f"{name}:{handle}" if handle else None
        result.append(kernel)
    result.extend(kernels.values())  # defined but not launched from call(): still show them
    understood = bool(result) or "def call(" in output_code
    return {"kernels": result, "understood": understood,
            "problem": None if understood else "no kernels or call() found in the output code"}


def _kernel_definition(node):
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == "async_compile"):
        return None
    factory = node.value.func.attr
    strings = [a.value for a in node.value.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not strings:
        return None
    name = node.targets[0].id
    if factory in CPP_FACTORIES:
        return classify_cpp(name, strings[-1])
    if factory == "triton":
        return classify_triton(name, strings[-1])
    return None


def _launches(tree, defined):
    """Kernel and library calls inside the wrapper's ``call`` function, in source order."""
    calls = []
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == "call":
            calls += [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
    names = []
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        name = _call_name(call.func)
        if name is None:
            continue
        if name.endswith(".run") and name[:-4] in defined:
            name = name[:-4]
        if name in defined or name.startswith(("extern_kernels.", "aten.", "torch.ops.aten.")):
            names.append(name)
    return names


def _call_name(func):
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
        return ".".join(reversed(parts))
    return None


def _evidence(code, patterns):
    """(1-based line, label) for each line of ``code`` that matches one of ``patterns``."""
    found = []
    for number, line in enumerate(code.splitlines(), 1):
        for label, pattern in patterns:
            if pattern.search(line):
                found.append({"line": number, "what": label})
                break
    return found


def classify_cpp(name, code):
    regions = len(re.findall(r"#pragma omp parallel", code))
    loads = LOAD.findall(code)
    strided = sorted({f"{ptr}[{expr.strip()}]" for ptr, expr in loads
                      if any(int(s) > 1 for s in STRIDE.findall(expr))})
    trips = [int(t) for t in TRIP.findall(code)]
    return {
        "name": name, "backend": "cpp", "code": code,
        "parallel": regions > 0, "parallel_regions": regions,
        "vectorized": bool(VECTOR.search(code)),
        "reduction": bool(ACCUMULATOR.search(code)),
        "kind": "reduction" if ACCUMULATOR.search(code) else "pointwise",
        "ops": len(OP.findall(code)),
        "loads": len(loads), "strided_loads": strided,
        "trip_counts": trips,
        "evidence": _evidence(code, [("OpenMP parallel region", OMP), ("vector instruction", VECTOR),
                                     ("per-thread accumulator", re.compile(r"tmp_acc\d+_arr\[")),
                                     ("strided load", re.compile(r"in_ptr\d+\[static_cast<\w+>\([^\]]*\b[2-9]\d*L\*"))]),
    }


def classify_triton(name, code):
    kind = TRITON_KIND.search(code)
    return {
        "name": name, "backend": "triton", "code": code,
        "parallel": True, "parallel_regions": 1,
        "vectorized": None,
        "reduction": "reduction" in (kind.group(1) if kind else ""),
        "kind": kind.group(1) if kind else "unknown",
        "ops": len(re.findall(r"^\s*tmp\d+ =", code, re.M)),
        "loads": code.count("tl.load("), "strided_loads": [],
        "masked_loads": len(TRITON_MASKED.findall(code)),
        "trip_counts": [],
        "evidence": _evidence(code, [("Triton grid (program_id)", re.compile(r"tl\.program_id")),
                                     ("masked load", TRITON_MASKED), ("tl.where", re.compile(r"tl\.where"))]),
    }


def _extern(name):
    short = name.replace("torch.ops.", "")
    return {"name": short, "backend": "extern", "code": "", "parallel": None, "parallel_regions": 0,
            "vectorized": None, "reduction": False, "kind": "library call", "ops": 0, "loads": 0,
            "strided_loads": [], "trip_counts": [], "evidence": []}
