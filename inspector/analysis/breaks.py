"""Parse Dynamo's graph-break messages (structured trace artifact or graph_breaks logger) into facts."""

import re

AT = re.compile(r"Graph break(?: in user code)? at (.+?):(\d+)")
REASON = re.compile(r"^\s*(?:Graph Break Reason|Reason):\s*(.+)$", re.M)
EXPLANATION = re.compile(r"^\s*Explanation:\s*(.+)$", re.M)
HINT = re.compile(r"^\s*Hint:\s*(.+)$", re.M)
ENCOUNTERED = re.compile(r"Encountered graph break when attempting to (trace \w+)")
GB_URL = re.compile(r"(https://\S+/gb/(gb\d+)\.html)")
FRAME = re.compile(r'File "(.+?)", line (\d+), in (\S+)')

# The usual rewrite for the common causes, keyed by a phrase in torch's reason or message.
FIXES = (
    ("data-dependent branching", "make the branch a mask: compute both sides and select with "
                                 "np.where / torch.where, or use torch.cond"),
    ("generic_jump", "make the branch a mask: compute both sides and select with np.where / torch.where"),
    (".item()", "keep the value as a 0-d tensor, or set dynamo.capture_scalar_outputs=True"),
    ("dynamic shape operator", "avoid boolean-mask indexing: use np.where / torch.where with a mask, "
                               "or set dynamo.capture_dynamic_output_shape_ops=True"),
    ("nonzero", "avoid boolean-mask indexing: use torch.where with a mask, "
                "or set dynamo.capture_dynamic_output_shape_ops=True"),
    ("print", "remove the print from the compiled function, or log outside it"),
    ("apply_along_axis", "vectorise the row function over the whole population (axis=1 reductions, "
                         "broadcasting) instead of np.apply_along_axis"),
    ("unsupported", "rewrite with operations torch.compile supports (vectorised NumPy or torch ops)"),
)


def parse(entry, sample_path=None):
    """One break entry {text, compile_id, mechanism} -> {file, line, reason, explanation, hints, ...}."""
    text = entry.get("text") or ""
    at = AT.search(text)
    frames = [(f, int(n), fn) for f, n, fn in FRAME.findall(text.split("User code traceback:")[-1])]
    file, line = (at.group(1), int(at.group(2))) if at else (frames[-1][:2] if frames else (None, None))
    if sample_path and frames and file != sample_path:  # prefer the innermost frame in the user's file
        own = [f for f in frames if _same(f[0], sample_path)]
        if own and not _same(file or "", sample_path):
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
        "hints": [h.strip() for h in HINT.findall(text)],
        "gb_id": url.group(2) if url else None, "url": url.group(1) if url else None,
        "fix": fix_for(text),
        "compile_id": entry.get("compile_id"), "mechanism": entry.get("mechanism"),
        "text": text,
    }


def fix_for(text):
    lowered = text.lower()
    return next((fix for phrase, fix in FIXES if phrase in lowered), None)


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


def _same(a, b):
    return a == b or a.endswith("/" + b.lstrip("./")) or b.endswith("/" + a.lstrip("./"))
