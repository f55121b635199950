"""Compare analysed records of one sample (torch versions, configurations): from the records alone.

Kernels are paired across runs by the source lines they compute (their ``lines`` verdicts) and the ops
in their names, then diffed after a normalisation that drops what does not change the generated code's
meaning (include paths, thread counts, numbering, 2.1's ``long``/``i0`` spellings, whitespace): a hunk of the diff
is structural when the normalised code differs there, cosmetic when only what normalisation drops does. Each
variant's change of time is read against an eager variant of its family (a control: the machine and NumPy change
it, torch's compiler does not), and what else differs between the runs (NumPy, torch's build, threads, CPU) is named.
Records of a program (``inspector run``) compare per compiled function: its steady time per call, compile time,
calls and recompiles; a program's runs were made one after the other, so each run's machine load is said.
"""

import difflib
import os
import re
import statistics
from pathlib import Path

from inspector.analysis.parse import wrapper as wrapper_parse
from inspector.analysis.rounds import side_by_side
from inspector.errors import InspectorError
from inspector.model import STATUSES, Env

TIMINGS = (("time", "per_population_s"), ("first call", "first_call_s"), ("compile", "compile_s"))
STEADY = "time per steady call"  # a program's function: the time row is the median of its steady calls
# kernel-name tokens that say nothing about the computation (views, constants, prefixes)
NOISE = {"cpp", "triton", "poi", "per", "red", "tem", "fused", "extern", "kernels", "aten", "default", "select",
         "lift", "fresh", "scalar", "tensor", "slice", "view", "unsqueeze", "squeeze", "expand", "permute",
         "clone", "alias", "reshape"}
RULES = (
    (re.compile(r'#include\s*["<].*?(?:cpp_prefix|\w{32,})\.h[">]'), "#include <cpp_prefix.h>"),
    (re.compile(r"\s*num_threads\(\d+\)"), ""),
    (re.compile(r"\blong\b"), "int64_t"),
    (re.compile(r"\bi(\d+)\b"), r"x\1"),
    (re.compile(r"static_cast<[\w:]+>\(([\w.]+)\)"), r"\1"),  # a cast of a literal or a name
    (re.compile(r"([+-] )\((\w+\*\w+)\)"), r"\1\2"),  # 1L + (3L*x0)
    (re.compile(r"\b[0-9a-zA-Z]{32,}\b"), "<hash>"),
    (re.compile(r"\s+"), " "),
)
VECTORIZED = {"all": ", vectorized", "some": ", partly vectorized", "none": ", not vectorized",
              "unknown": ", vectorization unknown"}
NUMBERED = re.compile(r"\b(tmp_acc|tmp|buf)(\d+)")
DROP = re.compile(r"^(?://|# |[{}];?$)|^$")
CONTEXT = 2  # unchanged lines shown around a hunk
CLEAR = 1.1  # a ratio taken once (not in rounds) nearer 1 than this says no clear change
# what may differ between two runs besides torch, and what it changes (threads, cpu, isa, cuda: Env.MACHINE)
CONFOUNDERS = (
    ("numpy", "NumPy", "eager NumPy variants run on it, and torch compiles NumPy code by its rules"),
    ("build", "torch build", "the builds link different libraries, which can change eager torch and compiled code"),
    ("python", "Python", "pure-Python variants and the Python around compiled calls run on it"),
    ("threads", "threads", "compiled kernels run on that many OpenMP threads"),
    ("cpu", "CPU", "another processor"), ("isa", "ISA", "vectorized code is generated for it"),
    ("cuda", "CUDA device", "another GPU"),
)
TOP_KERNELS = 5  # kernels per variant in "where the time goes"


class CompareError(InspectorError):
    """The records cannot be compared; one line for the user."""


def normalise(code):
    """The lines of kernel ``code`` with the noise removed (see the module docstring)."""
    return [norm for _, _, norm in _code_lines(code)]


def _code_lines(code):
    """[(line number, the line stripped, the line normalised)] of the lines of ``code`` normalisation keeps."""
    kept = []
    for number, raw in enumerate(code.splitlines(), 1):
        line = raw
        for pattern, replacement in RULES:
            line = pattern.sub(replacement, line)
        line = line.strip()
        if not DROP.match(line):
            kept.append((number, raw.strip(), line))
    return [(n, raw, norm) for (n, raw, _), norm in zip(kept, _renumber([k[2] for k in kept]))]


def _renumber(lines):
    """tmpN, tmp_accN and bufN renumbered per family in order of first appearance."""
    names, counts = {}, {}

    def rename(m):
        if m.group(0) not in names:
            counts[m.group(1)] = counts.get(m.group(1), -1) + 1
            names[m.group(0)] = f"{m.group(1)}{counts[m.group(1)]}"
        return names[m.group(0)]

    return [NUMBERED.sub(rename, line) for line in lines]


def hunks(a, b):
    """The hunks of the diff of two kernels' code ([] when the code is the same line for line): each
    {"kind": "structural" (the normalised code differs) or "cosmetic" (only what normalisation drops differs),
    "a": (first, last) line of ``a``, "b": the same of ``b``, "lines": ["-..." / "+..." / " ..."]}. Structural hunks
    show normalised lines, with CONTEXT lines around them; cosmetic ones the lines as they are (stripped)."""
    la, lb = _code_lines(a), _code_lines(b)
    rows = []  # (kind, lines of a, lines of b): same, cosmetic (equal once normalised) or structural
    opcodes = difflib.SequenceMatcher(None, [x[2] for x in la], [x[2] for x in lb]).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            rows += [("same" if x[1] == y[1] else "cosmetic", [x], [y]) for x, y in zip(la[i1:i2], lb[j1:j2])]
        else:
            rows.append(("structural", la[i1:i2], lb[j1:j2]))
    structural = _spans([i for i, r in enumerate(rows) if r[0] == "structural"], len(rows), CONTEXT, 0)
    taken = {i for lo, hi in structural for i in range(lo, hi + 1)}
    cosmetic = _spans([i for i, r in enumerate(rows) if r[0] == "cosmetic" and i not in taken], len(rows), 0,
                      2 * CONTEXT, taken)
    spans = sorted([(lo, hi, "structural") for lo, hi in structural] + [(lo, hi, "cosmetic") for lo, hi in cosmetic])
    return [_hunk(kind, rows[lo:hi + 1]) for lo, hi, kind in spans]


def _spans(changed, size, context, gap, taken=frozenset()):
    """[(first, last)] row spans around the ``changed`` rows (ascending), ``context`` rows on each side; spans
    apart by at most ``gap`` rows, none of them ``taken``, are one."""
    spans = []
    for i in changed:
        lo, hi = max(0, i - context), min(size - 1, i + context)
        if spans and lo - spans[-1][1] - 1 <= gap and not taken & set(range(spans[-1][1] + 1, lo)):
            spans[-1][1] = hi
        else:
            spans.append([lo, hi])
    return spans


def _hunk(kind, rows):
    """One hunk (see hunks) of ``rows``."""
    lines = []
    for what, xs, ys in rows:
        if what == "structural":
            lines += [f"-{x[2]}" for x in xs] + [f"+{y[2]}" for y in ys]
        elif what == "cosmetic" and kind == "cosmetic":
            lines += [f"-{xs[0][1]}", f"+{ys[0][1]}"]
        else:  # unchanged once normalised: context
            lines.append(f" {ys[0][2] if kind == 'structural' else ys[0][1]}")
    a = [x[0] for _, xs, _ in rows for x in xs]
    b = [y[0] for _, _, ys in rows for y in ys]
    return {"kind": kind, "a": (min(a), max(a)) if a else None, "b": (min(b), max(b)) if b else None,
            "lines": lines}


def ops(kernel):
    """Op names in a kernel's name (``cpp_fused_add_mul_0`` -> {add, mul}), noise left out."""
    return {t for t in re.split(r"[_.]", kernel.name) if t and not t.isdigit() and t not in NOISE}


def match(kernels_a, kernels_b, lines_a=None, lines_b=None):
    """Pair kernels by shared source lines (``lines_*``: kernel id -> line keys) and ops.

    Returns (pairs [(a, b)], removed [a], added [b]); identical normalised code breaks ties first,
    then similarity, then launch position.
    """
    lines_a, lines_b = lines_a or {}, lines_b or {}
    scored = []
    for i, a in enumerate(kernels_a):
        for j, b in enumerate(kernels_b):
            if a.backend != b.backend:
                continue
            lines = _jaccard(lines_a.get(a.id, set()), lines_b.get(b.id, set()))
            same_ops = _jaccard(ops(a), ops(b))
            if lines or same_ops >= 0.5:
                scored.append((normalise(a.code) == normalise(b.code), lines + same_ops, -abs(i - j), i, j))
    pairs, used_a, used_b = [], set(), set()
    for *_, i, j in sorted(scored, key=lambda s: s[:3], reverse=True):
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.append((kernels_a[i], kernels_b[j]))
    return (sorted(pairs, key=lambda p: kernels_a.index(p[0])),
            [k for i, k in enumerate(kernels_a) if i not in used_a],
            [k for j, k in enumerate(kernels_b) if j not in used_b])


def _jaccard(a, b):
    return len(a & b) / len(a | b) if a | b else 0.0


def labels(analyses):
    """A short name per run: its torch version and --config items, numbered where two are alike."""
    names = [" ".join([f"torch {(a.env.torch or '?').split('+')[0]}", *config(a)]) for a in analyses]
    return [f"{n} (#{i + 1})" if names.count(n) > 1 else n for i, n in enumerate(names)]


def config(analysis):
    """The run's --config and --compile-option items as KEY=VALUE strings."""
    return [f"{c['key']}={c['value']}" for c in analysis.config] + [
        f"{k}={v}" for k, v in sorted(analysis.compile_options.items())]


def compare(analyses):
    """The comparison of ``analyses[0]`` (the baseline) with each other run, as plain data."""
    if len(analyses) < 2:
        raise CompareError("compare needs at least two records")
    if len({bool(a.program) for a in analyses}) > 1:
        raise CompareError("a program's record (inspector run) and a sample's record cannot be compared")
    names = [Path(a.sample.path).name for a in analyses]
    if len(set(names)) > 1:
        what = "programs" if analyses[0].program else "samples"
        raise CompareError(f"the records are of different {what} ({', '.join(dict.fromkeys(names))})")
    names = labels(analyses)
    runs = [{"label": n, "env": a.env, "build": build(a.env.torch), "config": config(a),
             "population": a.sample.population, "created": a.created, "record": None, "report": None,
             "argv": a.program.argv if a.program else None, "load": load_words(a.load) if a.program else None}
            for n, a in zip(names, analyses)]
    return {"sample": analyses[0].sample, "program": bool(analyses[0].program), "runs": runs,
            "pairs": [_pair(analyses[0], a, names[0], n) for a, n in zip(analyses[1:], names[1:])]}


def link_reports(result, records, folder):
    """Name in each run of ``result`` its record (``records``, as given) and its HTML report beside it ("report":
    the path from ``folder``, where the comparison is written; None where `inspector render` has not made it)."""
    for run, record in zip(result["runs"], records):
        html = Path(record).with_suffix(".html")
        run["record"] = str(record)
        run["report"] = Path(os.path.relpath(html, folder)).as_posix() if html.exists() else None


def build(torch):
    """The build a torch version names in its local version: "CPU-only (+cpu)", "CUDA 12.1 (+cu121)", "ROCm 6.0
    (+rocm6.0)"; "unknown" without one (a wheel from PyPI names none: CUDA on Linux, CPU elsewhere)."""
    local = (torch or "").partition("+")[2]
    cuda, rocm = re.fullmatch(r"cu(\d+)(\d)", local), re.fullmatch(r"rocm([\d.]+)", local)
    if not local:
        return "unknown"
    what = ("CPU-only" if local.startswith("cpu") else f"CUDA {cuda[1]}.{cuda[2]}" if cuda
            else f"ROCm {rocm[1]}" if rocm else None)
    return f"{what} (+{local})" if what else f"+{local}"


def confounders(ra, rb):
    """What differs between two runs besides torch's version, from CONFOUNDERS: [{"key", "what", "a", "b", "text"}].
    A value the record does not hold is "unknown", and a change to or from it is said to be unknown; a torch build
    unknown under both runs counts as one when their torch versions differ."""
    found = []
    for key, what, why in CONFOUNDERS:
        a, b = (_setting(r.env, key) for r in (ra, rb))
        if a == b and (a != "unknown" or key != "build" or ra.env.torch == rb.env.torch):
            continue
        if "unknown" in (a, b):
            why = "whether it changed cannot be told" + (
                " (a torch version without +cpu or +cuNNN does not name its build)" if key == "build" else "")
        found.append({"key": key, "what": what, "a": a, "b": b, "text": f"{what} {a} → {b}: {why}" + (
            " (timings are not comparable)" if key in Env.MACHINE and "unknown" not in (a, b) else "")})
    return found


def _setting(env, key):
    """One CONFOUNDERS setting of a run's Env, in words ("none" for no CUDA device, "unknown" where not recorded)."""
    if key == "build":
        return build(env.torch)
    value = getattr(env, key)
    return "none" if value is None and key == "cuda" else "unknown" if value is None else value


def load_words(load):
    """A run's machine load in words: "other processes used 3% of the 2 CPUs, steal 0%, load average 0.4", or
    "not measured" (no /proc, or a record made before inspector measured it)."""
    if load is None:
        return "not measured"
    said = [f"other processes used {load.others_share:.0%} of the {load.cpus} CPUs" if load.others_share is not None
            else "other processes' CPU time unknown",
            f"steal {load.steal_share:.0%}" if load.steal_share is not None else None,
            f"load average {load.loadavg:.1f}" if load.loadavg is not None else None]
    return ", ".join(s for s in said if s) + (" (busy)" if load.busy else "")


def _pair(ra, rb, a_name, b_name):
    found = confounders(ra, rb)
    warnings = [c["text"] for c in found]
    if ra.sample.population != rb.sample.population:
        warnings.append(f"different populations ({ra.sample.population:,} vs {rb.sample.population:,})")
    what = "program" if ra.program else "sample"
    if ra.sample.source != rb.sample.source:
        warnings.append(f"the {what}'s source changed between the runs: lines are matched by their text")
    interleaved = bool(ra.rounds and rb.rounds and ra.rounds.session == rb.rounds.session)
    if ra.program:
        warnings += _program_warnings(ra, rb, a_name, b_name)
    elif not interleaved:
        warnings.append("timed one after the other, not in alternating rounds: a machine busier during one run than "
                        "the other changes the ratios (compare a sample, not records, to interleave them)")
        for name, run in ((a_name, ra), (b_name, rb)):
            busy = [v.id for v in run.variants if v.load and v.load.busy]
            if busy:
                warnings.append(f"{name} timed {', '.join(busy)} on a busy machine (other processes or steal took "
                                "CPU time meanwhile): its ratios may be off")
    va, vb = ({v.id: v for v in r.variants} for r in (ra, rb))
    variants = [_variant(va[i], vb[i], ra, rb, a_name, b_name, interleaved) for i in va if i in vb
                and "skipped" not in (va[i].status, vb[i].status)]
    for v in variants:
        v["control"] = _control(v, variants) if v["compiled"] else None
    return {"a": a_name, "b": b_name, "warnings": warnings, "confounders": found, "variants": variants,
            "program": bool(ra.program),
            "interleaved": interleaved, "only_a": [i for i in va if i not in vb],
            "only_b": [i for i in vb if i not in va]}


def _program_warnings(ra, rb, a_name, b_name):
    """What to keep in mind comparing two runs of a program: they ran one after the other (a program's calls cannot
    take turns with another run's), with each run's machine load; different arguments or exit statuses."""
    out = [f"the runs were sequential (a program's calls cannot alternate with another run's): a machine busier "
           f"during one run changes the ratios; machine load under {a_name}: {load_words(ra.load)}; under "
           f"{b_name}: {load_words(rb.load)}"]
    if ra.program.argv != rb.program.argv:
        out.append(f"the program ran with different arguments ({' '.join(ra.program.argv) or 'none'} vs "
                   f"{' '.join(rb.program.argv) or 'none'})")
    if ra.program.exit != rb.program.exit:
        out.append(f"the program exited with {ra.program.exit} under {a_name}, {rb.program.exit} under {b_name}")
    return out


def time_row(v):
    """A compared variant's time row (its steady time per call for a program's function), or None."""
    return next((t for t in v["timing"] if t["what"] in ("time", STEADY)), None)


def change(time):
    """Which way a time row went: faster, slower, "no clear change" (its rounds disagree, or a ratio taken once is
    within CLEAR of 1), or unknown (not timed under both)."""
    if not time or not time["speedup"]:
        return "unknown"
    low, high = time.get("spread") or [time["speedup"]] * 2
    if not time.get("spread") and 1 / CLEAR < time["speedup"] < CLEAR:
        return "no clear change"
    return "faster" if low > 1 else "slower" if high < 1 else "no clear change"


def _control(v, variants):
    """The id of the eager variant whose change of time is the control for compiled ``v``: its own eager function,
    else its family's eager NumPy variant, else its Python one; None where none ran under both."""
    eager = [e for e in variants if not e["compiled"] and e["family"] == v["family"] and e["change"] != "unknown"]
    for fits in (lambda e: e["function"] == v["function"], lambda e: e["kind"] == "numpy",
                 lambda e: e["kind"] == "python"):
        found = next((e["id"] for e in eager if fits(e)), None)
        if found:
            return found
    return None


def _times(v):
    """{TIMINGS' what: seconds or None} of a variant; a program's function: its steady time per call, its first
    (compiling) call and torch's compile time over all its compiles (None where torch's metrics do not say)."""
    found = {what: getattr(v.timing, key) if v.timing else None for what, key in TIMINGS}
    if v.run:
        found = {STEADY: found["time"], "first call": found["first call"], "compile, all compiles": v.run.compile_s}
    return found


def _variant(a, b, ra, rb, a_name, b_name, interleaved):
    timing, times_b = [], _times(b)
    for what, ta in _times(a).items():
        tb = times_b[what]
        if ta is not None or tb is not None:
            timing.append({"what": what, "a": ta, "b": tb, "speedup": ta / tb if ta and tb else None})
    side = interleaved and a.timing and b.timing and side_by_side(a.timing.rounds_s, b.timing.rounds_s)
    if side:  # the time from the rounds, each round's ratio taken side by side
        speedup, spread, shared = side
        timing[0] = {"what": "time", "a": statistics.median(a.timing.rounds_s[r] for r in shared),
                     "b": statistics.median(b.timing.rounds_s[r] for r in shared), "speedup": speedup,
                     "spread": spread, "rounds": len(shared)}
    out = {"id": a.id, "family": a.family, "function": a.function, "kind": a.kind, "compiled": a.compiled,
           "status": [a.status, b.status], "errors": [a.error, b.error], "timing": timing}
    time = time_row(out)
    out["change"] = change(time)
    if a.run and b.run:
        out["run"] = {"calls": [a.run.calls, b.run.calls], "steady_calls": [a.run.steady_calls, b.run.steady_calls],
                      "recompiles": [len(a.run.recompiles), len(b.run.recompiles)],
                      "raised": [(v.run.error_call, v.error.strip().splitlines()[0]) if v.error else None
                                 for v in (a, b)]}
    if not a.compiled:
        return out
    line_keys = [_kernel_lines(v, r) for v, r in ((a, ra), (b, rb))]
    pairs, removed, added = match(a.kernels, b.kernels, *line_keys)
    out["kernels"] = [_kernel_pair(ka, kb) for ka, kb in pairs]
    out["removed"] = [k.name for k in removed]
    out["added"] = [k.name for k in added]
    out["time_goes"] = _time_goes(a, b, (pairs, removed, added), a_name, b_name, time)
    out["lines"], out["one_sided"], out["same_lines"] = _verdict_changes(a, b, ra, rb)
    out["breaks"] = _break_changes(a, b, ra, rb)
    caches = [", ".join(sorted({g.cache for g in v.graphs if g.cache})) for v in (a, b)]
    if all(caches) and caches[0] != caches[1]:
        out["cache"] = caches
    calls = wrapper(a), wrapper(b)
    if any(calls):
        out["wrapper"] = _code_pair("call()", "call()", *calls)
    return out


def _time_goes(a, b, matched, a_name, b_name, time):
    """Where a compiled call's time went under each run: its TOP_KERNELS costliest kernels (paired; the costliest
    under either run first) in seconds per call, how many kernels are left out, and the rest of the call: {"call":
    the whole call (the time row ``time``), "kernels": [{"what", "a", "b"}], "more", "rest": the profiled pass's
    kernels, wrapper and time outside compiled graphs [{"what", "a", "b"}]} (None: not measured, or not in that run)."""
    pairs, removed, added = matched
    kernels = [{"what": ka.name if ka.name == kb.name else f"{ka.name} → {kb.name}", "a": ka.cost.time_s,
                "b": kb.cost.time_s} for ka, kb in pairs]
    kernels += [{"what": f"{k.name} (only under {a_name})", "a": k.cost.time_s, "b": None} for k in removed]
    kernels += [{"what": f"{k.name} (only under {b_name})", "a": None, "b": k.cost.time_s} for k in added]
    kernels.sort(key=lambda r: -max(r["a"] or 0, r["b"] or 0))
    rest = []
    for key, what in (("kernels_s", "all kernels"), ("wrapper_s", "wrapper: between kernels, inside compiled graphs"),
                      ("outside_graphs_s", "outside compiled graphs")):
        a_s, b_s = (getattr(v.time_split, key) if v.time_split else None for v in (a, b))
        if a_s is not None or b_s is not None:
            rest.append({"what": what, "a": a_s, "b": b_s})
    return {"call": {"what": "the whole call (timed, as above)", "a": time["a"], "b": time["b"]} if time else None,
            "kernels": kernels[:TOP_KERNELS], "more": max(0, len(kernels) - TOP_KERNELS), "rest": rest}


def wrapper(v):
    """The ``call`` functions of a variant's output code, its generated kernels renamed kernel0, kernel1, ..."""
    text = []
    for g in v.graphs:
        for module in g.output_code:
            try:
                text.append(wrapper_parse.call_source(module, wrapper_parse.parse(module)))
            except wrapper_parse.WrapperError:
                continue
    text = "\n".join(text)
    generated = [k.name for k in v.kernels if k.generated]
    for n, name in enumerate(dict.fromkeys(generated)):
        text = re.sub(rf"\b{re.escape(name)}\b", f"kernel{n}", text)
    return text


def _kernel_pair(ka, kb):
    pair = _code_pair(ka.name, kb.name, ka.code, kb.code)
    pair["changes"] = [f"{what}: {_yes(getattr(ka, what))} → {_yes(getattr(kb, what))}"
                       for what in ("parallel", "vectorized") if getattr(ka, what) != getattr(kb, what)]
    return pair


def _code_pair(name_a, name_b, code_a, code_b):
    found = hunks(code_a, code_b)
    structural = [ln for h in found if h["kind"] == "structural" for ln in h["lines"]]
    return {"a": name_a, "b": name_b, "identical": not structural, "hunks": found, "changes": [],
            "added_lines": sum(ln[0] == "+" for ln in structural),
            "removed_lines": sum(ln[0] == "-" for ln in structural)}


def _yes(flag):
    return {True: "yes", False: "no", None: "n/a"}[flag]


def _where(analysis, file, line):
    """A line as two runs can both name it: its file (None for the sample, which each run names as it was given) and
    its stripped text ("" where the record does not hold it)."""
    found = analysis.file(file)
    return None if file == analysis.sample.path else file, found.text(line) if found and line else ""


def _kernel_lines(v, record):
    keys = {}
    for e in v.lines:
        for kid in e.kernels:
            keys.setdefault(kid, set()).add((e.function, *_where(record, e.file, e.line)))
    return keys


def _verdicts(v, record):
    """{(function, file, line text) (see _where): {"file", "line", "verdicts", "how"}}, the verdicts of all call
    sites together."""
    out = {}
    for e in v.lines:
        if not e.status:
            continue
        entry = out.setdefault((e.function, *_where(record, e.file, e.line)),
                               {"file": e.file, "line": e.line, "verdicts": [], "how": set()})
        verdict = e.status + VECTORIZED.get(e.vectorized, "")
        if verdict not in entry["verdicts"]:
            entry["verdicts"].append(verdict)
        entry["how"].update(e.how)
    return out


def _verdict_changes(a, b, ra, rb):
    """The per-line verdict diff: (lines whose verdict changed, lines with a verdict in one run only, lines whose
    verdict stayed), each entry with its file, function, line (in the second run where it has one) and text."""
    va, vb = _verdicts(a, ra), _verdicts(b, rb)
    changed, one_sided, same = [], [], []
    for key in sorted(va.keys() | vb.keys(), key=lambda k: (vb.get(k) or va[k])["line"]):
        ea, eb = va.get(key), vb.get(key)
        entry = {"file": (eb or ea)["file"], "function": key[0], "text": key[2], "line": (eb or ea)["line"]}
        if ea and eb:
            verdicts = " / ".join(ea["verdicts"]), " / ".join(eb["verdicts"])
            (changed if verdicts[0] != verdicts[1] else same).append(dict(entry, a=verdicts[0], b=verdicts[1]))
        else:
            e = ea or eb
            one_sided.append(dict(entry, side="a" if ea else "b", verdict=" / ".join(e["verdicts"]),
                                  how=sorted(e["how"])))
    return changed, one_sided, same


def _break_changes(a, b, ra, rb):
    """Graph breaks gained or lost, matched by their line's text and their normalised cause (torch versions word
    the same break differently; the cause is the same), or their reason where the cause is unknown."""
    ka, kb = ({(_where(r, x.file, x.line), x.cause if x.cause != "unknown" else x.reason): x for x in v.breaks}
              for v, r in ((a, ra), (b, rb)))
    return [{"change": change, "line": x.line, "reason": x.reason}
            for change, mine, other in (("lost", ka, kb), ("gained", kb, ka))
            for key, x in mine.items() if key not in other]


def regressions(result, max_slowdown=0.1):
    """What got worse from the baseline to each other run of a ``compare`` result, in sentences: a variant that ran
    and now fails, a line verdict further down STATUSES (or less vectorized), a graph break gained, a program's
    function that now raises or recompiles more, a compiled variant or function slower by more than ``max_slowdown`` (a fraction;
    with rounds, slower in every round)."""
    found = []
    for pair in result["pairs"]:
        for v in pair["variants"]:
            where = f"{v['id']} ({pair['a']} → {pair['b']})"
            if v["status"][0] == "ok" and v["status"][1] != "ok":
                found.append(f"{where}: {v['status'][1]}: {v['errors'][1]}")
            for change in v.get("lines") or []:
                ranks = _rank(change["a"]), _rank(change["b"])
                if None not in ranks and ranks[1] > ranks[0]:
                    found.append(f"{where}: line {change['line']}: {change['a']} → {change['b']}")
            for b in v.get("breaks") or []:
                if b["change"] == "gained":
                    found.append(f"{where}: a graph break gained at line {b['line']}: {b['reason']}")
            run = v.get("run") or {}
            if run and run["raised"][1] and not run["raised"][0]:
                found.append(f"{where}: raised at call {run['raised'][1][0]}: {run['raised'][1][1]}")
            if run and run["recompiles"][1] > run["recompiles"][0]:
                found.append(f"{where}: recompiles {run['recompiles'][0]} → {run['recompiles'][1]}")
            time = time_row(v)
            best = time and (time.get("spread") or [None, time["speedup"]])[1]
            if best and v["compiled"] and best < 1 / (1 + max_slowdown):
                found.append(f"{where}: {1 / time['speedup']:.2f}x slower" + (
                    f" (in every one of {time['rounds']} rounds)" if time.get("rounds") else ""))
    return found


def _rank(verdicts):
    """How bad a line's verdicts are ("parallel, vectorized / eager"): the worst status, then the least vectorized;
    None where a status is unknown (no worse, no better)."""
    vectorized = [", vectorized", ", partly vectorized", ", not vectorized"]
    worst = 0
    for verdict in verdicts.split(" / "):
        status, comma, rest = verdict.partition(",")
        if status not in STATUSES or status == "unknown":
            return None
        tail = comma + rest
        worst = max(worst, len(vectorized) * STATUSES.index(status) + (vectorized.index(tail) if tail in vectorized
                                                                      else 0))
    return worst
