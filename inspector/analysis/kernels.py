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
# tl.load(in_ptr0 + (1 + 3*x0), xmask, ...): pointer, index, mask
TRITON_LOAD = re.compile(r"tl\.load\((\w+) \+ \(((?:[^()]|\([^()]*\))*)\)(?:,\s*([^,)]*mask\b[^,)]*))?")
SIZE_HINTS = re.compile(r"size_hints=(\{[^}]*\})")


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
    loads = TRITON_LOAD.findall(code)
    strided = sorted({f"{ptr} + ({index})" for ptr, index, _ in loads if _strided(index)})
    return {
        "name": name, "backend": "triton", "code": code,
        "parallel": True, "parallel_regions": 1,
        "vectorized": None,
        "reduction": "reduction" in (kind.group(1) if kind else ""),
        "kind": kind.group(1) if kind else "unknown",
        "ops": len(re.findall(r"^\s*tmp\d+ =", code, re.M)),
        "loads": code.count("tl.load("), "strided_loads": strided,
        "masked_loads": sum(1 for *_, mask in loads if mask),
        "trip_counts": [],
        "triton": _triton_launch(code),
        "evidence": _evidence(code, [("Triton grid (program_id)", re.compile(r"tl\.program_id")),
                                     ("strided load", re.compile("|".join(map(re.escape, strided)) or "(?!)")),
                                     ("masked load", re.compile(r"tl\.load\(.*mask")),
                                     ("tl.where", re.compile(r"tl\.where"))]),
    }


def _strided(index):
    """Whether a Triton load index steps by more than one element between neighbouring lanes: no term is a
    bare index variable and one is scaled (``3*x0``), so a GPU cannot coalesce it."""
    terms = [t.strip() for t in index.split("+")]
    return (not any(re.fullmatch(r"[a-z]\w*", t) for t in terms)
            and any(int(m.group(1)) > 1 for t in terms if (m := re.fullmatch(r"(\d+)\*[a-z]\w*", t))))


def _triton_launch(code):
    """Launch facts a Triton kernel's source states: heuristic's size hints, grid type, target device, the
    numels and block sizes fixed in it, and num_warps when fixed (the rest is autotuned at the first call)."""
    hints = SIZE_HINTS.search(code)
    try:
        size_hints = ast.literal_eval(hints.group(1)) if hints else None
    except (ValueError, SyntaxError):
        size_hints = None
    grid = re.search(r"'grid_type': '(\w+)'", code)
    target = re.search(r"DeviceProperties\(type='(\w+)'", code)
    warps = re.search(r"num_warps['\"]?\s*[:=]\s*(\d+)", code)
    launch = {"size_hints": size_hints, "grid_type": grid and grid.group(1), "target": target and target.group(1),
              "numels": {k: int(v) for k, v in re.findall(r"^\s*(\w*numel) = (\d+)$", code, re.M)},
              "blocks": {k: int(v) for k, v in re.findall(r"^\s*(\w*BLOCK)\s*:\s*tl\.constexpr\s*=\s*(\d+)", code, re.M)},
              "num_warps": int(warps.group(1)) if warps else None}
    launch["text"] = _launch_text(launch)
    return launch


def _launch_text(launch):
    """The launch in a few words: what ran (grid, blocks, warps) or, before a run, what the source fixes."""
    config = launch.get("config")
    blocks = dict(launch["blocks"], **(config or {}).get("kwargs", {}))
    warps = (config or {}).get("num_warps") or launch["num_warps"]
    parts = [f"grid {' × '.join(map(str, launch['grid']))} programs" if launch.get("grid") else "",
             ", ".join(f"{k}={v}" for k, v in blocks.items()), f"{warps} warps" if warps else ""]
    if not config:
        parts += [", ".join(f"{k}={v}" for k, v in launch["numels"].items()),
                  "size hints " + ", ".join(f"{k}={v}" for k, v in (launch["size_hints"] or {}).items()),
                  "block sizes and warps autotuned at the first launch"]
    return "; ".join(p for p in parts if p)


def attach_launch_configs(kernels, configs):
    """Join a CUDA variant's autotuned ``launch_configs`` to its Triton kernels: ``triton.config`` and the
    launch ``triton.grid`` (programs per grid dimension) where the grid type and numels allow."""
    for k in kernels:
        config = (configs or {}).get(k["name"])
        if k["backend"] != "triton" or not config:
            continue
        launch = k["triton"]
        launch["config"] = config
        blocks = dict(launch["blocks"], **{n: v for n, v in config["kwargs"].items() if n.endswith("BLOCK")})
        dims = {"Grid1D": "x", "Grid2D": "xy", "Grid3D": "xyz"}.get(launch["grid_type"], "")
        numels = [launch["numels"].get(f"{d}numel") for d in dims]
        if dims and None not in numels:
            launch["grid"] = [-(-n // blocks.get(f"{d.upper()}BLOCK", 1)) for d, n in zip(dims, numels)]
        launch["text"] = _launch_text(launch)


def _extern(name):
    short = name.replace("torch.ops.", "")
    return {"name": short, "backend": "extern", "code": "", "parallel": None, "parallel_regions": 0,
            "vectorized": None, "reduction": False, "kind": "library call", "ops": 0, "loads": 0,
            "strided_loads": [], "trip_counts": [], "evidence": []}
