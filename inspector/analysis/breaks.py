"""Parse Dynamo's graph-break messages (structured trace artifact or graph_breaks logger) into facts."""

import re

from inspector.analysis.lines import same_path

AT = re.compile(r"Graph break(?: in user code)? at (.+?):(\d+)")
REASON = re.compile(r"^\s*(?:Graph Break Reason|Reason):\s*(.+)$", re.M)
EXPLANATION = re.compile(r"^\s*Explanation:\s*(.+)$", re.M)
HINT = re.compile(r"^\s*Hint:\s*(.+)$", re.M)
ENCOUNTERED = re.compile(r"Encountered graph break when attempting to (trace \w+)")
GB_URL = re.compile(r"(https://\S+/gb/(gb\d+)\.html)")
FRAME = re.compile(r'File "(.+?)", line (\d+), in (\S+)')

SCALARS = "dynamo.capture_scalar_outputs=True"
DYNAMIC_SHAPES = "dynamo.capture_dynamic_output_shape_ops=True"
# The usual rewrite for the common causes, keyed by a phrase in torch's reason or message, and the
# config flag that removes the break where there is one.
FIXES = (
    ("data-dependent branching", "make the branch a mask: compute both sides and select with "
                                 "np.where / torch.where, or use torch.cond", None),
    ("generic_jump", "make the branch a mask: compute both sides and select with np.where / torch.where", None),
    (".item()", f"keep the value as a 0-d tensor, or set {SCALARS}", SCALARS),
    ("dynamic shape operator", "avoid boolean-mask indexing: use np.where / torch.where with a mask, "
                               f"or set {DYNAMIC_SHAPES}", DYNAMIC_SHAPES),
    ("nonzero", f"avoid boolean-mask indexing: use torch.where with a mask, or set {DYNAMIC_SHAPES}",
     DYNAMIC_SHAPES),
    ("print", "remove the print from the compiled function, or log outside it", None),
    ("apply_along_axis", "vectorise the row function over the whole population (axis=1 reductions, "
                         "broadcasting) instead of np.apply_along_axis", None),
    ("unsupported", "rewrite with operations torch.compile supports (vectorised NumPy or torch ops)", None),
)
UNROLLED_MIN_OPS = 100  # a graph this large from a function this many times smaller was unrolled
UNROLLED_RATIO = 8


def parse(entry, sample_path=None):
    """One break entry {text, compile_id, mechanism} -> {file, line, reason, explanation, hints, ...}."""
    text = entry.get("text") or ""
    at = AT.search(text)
    frames = [(f, int(n), fn) for f, n, fn in FRAME.findall(text.split("User code traceback:")[-1])]
    file, line = (at.group(1), int(at.group(2))) if at else (frames[-1][:2] if frames else (None, None))
    if sample_path and frames and file != sample_path:  # prefer the innermost frame in the user's file
        own = [f for f in frames if same_path(f[0], sample_path)]
        if own and not same_path(file or "", sample_path):
            file, line = own[-1][:2]
    reason = REASON.search(text)
    explanation = EXPLANATION.search(text)
    url = GB_URL.search(text)
    first = reason.group(1).strip() if reason else _first_line(text)
    wrapper = ENCOUNTERED.match(first)
    if wrapper and reason:
        # the real reason is the next non-empty line; keep the bytecode context after it
        following = [ln.strip() for ln in text[reason.end():].splitlines() if ln.strip()]
        if following and not following[0].startswith(("Explanation:", "Hint:")):
            first = f"{following[0]} ({wrapper.group(1)})"
    return {
        "file": file, "line": line,
        "reason": first,
        "explanation": explanation.group(1).strip() if explanation else None,
        "hints": list(dict.fromkeys(h.strip() for h in HINT.findall(text))),
        "gb_id": url.group(2) if url else None, "url": url.group(1) if url else None,
        "fix": _fix(text)[0], "flag": _fix(text)[1],
        "compile_id": entry.get("compile_id"), "mechanism": entry.get("mechanism"),
        "text": text,
    }


def _fix(text):
    """(usual rewrite, config flag or None) for a break message; (None, None) when no cause is known."""
    lowered = text.lower()
    return next(((fix, flag) for phrase, fix, flag in FIXES if phrase in lowered), (None, None))


def distinct(breaks):
    """Each (file, line, reason) once, in first-seen order, with how many times it was reported."""
    seen = {}
    for b in breaks:
        key = (b["file"], b["line"], b["reason"])
        if key in seen:
            seen[key]["count"] += 1
        else:
            seen[key] = dict(b, count=1)
    return list(seen.values())


def _first_line(text):
    """The reason in the older one-line form: 'Graph break: REASON from user code at:' (torch 2.1)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not AT.search(ln)]
    if not lines:
        return "graph break"
    first = re.sub(r"^Graph break:\s*", "", lines[0])
    return re.sub(r"\s*from user code at:?$", "", first)[:300]


def cost(variant):
    """Seconds per call spent outside compiled graphs (Python between graphs), from the profiler pass."""
    regions = variant.get("regions")
    if not regions:
        return None
    outside = max(0.0, regions["total_s"] - regions["graphs_s"])
    return {"outside_s": outside, "inside_s": regions["graphs_s"],
            "outside_fraction": outside / regions["total_s"] if regions["total_s"] else 0.0}


def warnings(variant, statements):
    """The silent cousins of a break: unrolled Python loops and recompilations.

    ``statements`` maps the scope's statement lines to {"function", "loop"} (see lines.scope).
    """
    found = []
    loops = sorted(line for line, info in statements.items() if info.get("loop"))
    for g in variant.get("graphs") or []:
        ops = g.get("op_count") or 0
        if ops >= UNROLLED_MIN_OPS and ops > UNROLLED_RATIO * max(1, len(statements)):
            where = f" (Python loops at line {', '.join(map(str, loops))})" if loops else ""
            found.append({"kind": "unrolled-loop", "lines": loops, "graph": g["compile_id"], "op_count": ops,
                          "text": f"graph {g['compile_id']} has {ops} ops from {len(statements)} statements: Dynamo "
                                  f"unrolled a Python loop{where}; compile time and size grow with its trip "
                                  f"count. Vectorise the loop over a new axis instead"})
    recompiled = [("while timing", g.get("compile_id"), (g.get("metrics") or {}).get("recompile_reason"))
                  for g in (variant.get("recompiles") or {}).get("graphs") or []]
    for size in variant.get("sizes") or []:
        recompiled += [(f"at population {size['population']:,}", r["compile_id"], r["reason"])
                       for r in size["recompiles"]]
    for when, compile_id, reason in recompiled:
        if reason:  # frames re-entered without a failed guard (restarts, resume functions) say nothing
            found.append({"kind": "recompile", "lines": [], "graph": compile_id,
                          "text": f"recompiled {when}: {reason.strip().splitlines()[0]}"})
    return found


def findings(record):
    """Per compiled variant that ran (Triton previews left out: their breaks are the compiled variants'):
    its graphs, distinct breaks (with their source line), cost and warnings; the variant that spends most
    time outside compiled graphs first."""
    source = record["sample"]["source"].splitlines()
    rows = []
    for v in record["variants"]:
        if not v.get("compiled") or v["status"] == "skipped" or v.get("preview"):
            continue
        breaks = [{key: b.get(key) for key in ("file", "line", "reason", "explanation", "hints", "gb_id", "url",
                                                "fix", "flag", "count")} for b in v.get("graph_breaks") or []]
        for b in breaks:
            if b["file"] and same_path(b["file"], record["sample"].get("file") or record["sample"]["path"]):
                b["file"] = record["sample"]["path"]
            b["code"] = source[b["line"] - 1].strip() if b["line"] and b["line"] <= len(source) else None
        rows.append({"variant": v["id"], "status": v["status"], "error": v.get("error"),
                     "graphs": [{"compile_id": g["compile_id"], "op_count": g["op_count"]} for g in v.get("graphs") or []],
                     "cost": v.get("break_cost"), "breaks": breaks, "warnings": v.get("warnings") or []})
    return sorted(rows, key=lambda r: -((r["cost"] or {}).get("outside_s") or 0.0))
