"""Compare analysed records of one sample (torch versions, configurations): from the records alone.

Kernels are paired across runs by the source lines they compute (their ``lines`` verdicts) and the ops
in their names, then diffed after a normalisation that drops what does not change the generated code's
meaning (include paths, thread counts, numbering, 2.1's ``long``/``i0`` spellings, whitespace).
"""

import difflib
import re
import statistics
from pathlib import Path

from inspector.analysis.parse import wrapper as wrapper_parse
from inspector.analysis.rounds import side_by_side
from inspector.model import STATUSES, Env

TIMINGS = (("time", "per_population_s"), ("first call", "first_call_s"), ("compile", "compile_s"))
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


class CompareError(Exception):
    """The records cannot be compared; one line for the user."""


def normalise(code):
    """The lines of kernel ``code`` with the noise removed (see the module docstring)."""
    out = []
    for line in code.splitlines():
        for pattern, replacement in RULES:
            line = pattern.sub(replacement, line)
        line = line.strip()
        if not DROP.match(line):
            out.append(line)
    return _renumber(out)


def _renumber(lines):
    """tmpN, tmp_accN and bufN renumbered per family in order of first appearance."""
    names, counts = {}, {}

    def rename(m):
        if m.group(0) not in names:
            counts[m.group(1)] = counts.get(m.group(1), -1) + 1
            names[m.group(0)] = f"{m.group(1)}{counts[m.group(1)]}"
        return names[m.group(0)]

    return [NUMBERED.sub(rename, line) for line in lines]


def diff(a, b, from_name="a", to_name="b"):
    """Unified diff of two kernels' normalised code ([] when identical after normalisation)."""
    return list(difflib.unified_diff(normalise(a), normalise(b), from_name, to_name, lineterm="", n=2))


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
    names = [Path(a.sample.path).name for a in analyses]
    if len(set(names)) > 1:
        raise CompareError(f"the records are of different samples ({', '.join(dict.fromkeys(names))})")
    names = labels(analyses)
    runs = [{"label": n, "env": a.env, "config": config(a), "population": a.sample.population}
            for n, a in zip(names, analyses)]
    return {"sample": analyses[0].sample, "runs": runs,
            "pairs": [_pair(analyses[0], a, names[0], n) for a, n in zip(analyses[1:], names[1:])]}


def _pair(ra, rb, a_name, b_name):
    warnings = []
    machine = [f"{k} {getattr(ra.env, k)} vs {getattr(rb.env, k)}" for k in Env.MACHINE
               if getattr(ra.env, k) != getattr(rb.env, k)]
    if machine:
        warnings.append(f"different machines or settings ({', '.join(machine)}): timings are not comparable")
    if ra.sample.population != rb.sample.population:
        warnings.append(f"different populations ({ra.sample.population:,} vs {rb.sample.population:,})")
    if ra.sample.source != rb.sample.source:
        warnings.append("the sample's source changed between the runs: lines are matched by their text")
    interleaved = bool(ra.rounds and rb.rounds and ra.rounds.session == rb.rounds.session)
    if not interleaved:
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
    return {"a": a_name, "b": b_name, "warnings": warnings, "variants": variants, "interleaved": interleaved,
            "only_a": [i for i in va if i not in vb], "only_b": [i for i in vb if i not in va]}


def _variant(a, b, ra, rb, a_name, b_name, interleaved):
    timing = []
    for what, key in TIMINGS:
        ta, tb = (getattr(v.timing, key) if v.timing else None for v in (a, b))
        if ta is not None or tb is not None:
            timing.append({"what": what, "a": ta, "b": tb, "speedup": ta / tb if ta and tb else None})
    side = interleaved and a.timing and b.timing and side_by_side(a.timing.rounds_s, b.timing.rounds_s)
    if side:  # the time from the rounds, each round's ratio taken side by side
        speedup, spread, shared = side
        timing[0] = {"what": "time", "a": statistics.median(a.timing.rounds_s[r] for r in shared),
                     "b": statistics.median(b.timing.rounds_s[r] for r in shared), "speedup": speedup,
                     "spread": spread, "rounds": len(shared)}
    out = {"id": a.id, "status": [a.status, b.status], "errors": [a.error, b.error], "timing": timing}
    if not a.compiled:
        return out
    line_keys = [_kernel_lines(v, r) for v, r in ((a, ra), (b, rb))]
    pairs, removed, added = match(a.kernels, b.kernels, *line_keys)
    out["kernels"] = [_kernel_pair(ka, kb, a_name, b_name) for ka, kb in pairs]
    out["removed"] = [k.name for k in removed]
    out["added"] = [k.name for k in added]
    out["lines"], out["one_sided"] = _verdict_changes(a, b, ra, rb)
    out["breaks"] = _break_changes(a, b, ra, rb)
    caches = [", ".join(sorted({g.cache for g in v.graphs if g.cache})) for v in (a, b)]
    if all(caches) and caches[0] != caches[1]:
        out["cache"] = caches
    calls = wrapper(a), wrapper(b)
    if any(calls):
        out["wrapper"] = _code_pair("call()", "call()", *calls, a_name, b_name)
    return out


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


def _kernel_pair(ka, kb, a_name, b_name):
    pair = _code_pair(ka.name, kb.name, ka.code, kb.code, a_name, b_name)
    pair["changes"] = [f"{what}: {_yes(getattr(ka, what))} → {_yes(getattr(kb, what))}"
                       for what in ("parallel", "vectorized") if getattr(ka, what) != getattr(kb, what)]
    return pair


def _code_pair(name_a, name_b, code_a, code_b, a_name, b_name):
    lines = diff(code_a, code_b, f"{name_a} ({a_name})", f"{name_b} ({b_name})")
    return {"a": name_a, "b": name_b, "identical": not lines, "diff": lines, "changes": [],
            "added_lines": sum(ln[0] == "+" and not ln.startswith("+++") for ln in lines),
            "removed_lines": sum(ln[0] == "-" and not ln.startswith("---") for ln in lines)}


def _yes(flag):
    return {True: "yes", False: "no", None: "n/a"}[flag]


def _text(analysis, line):
    source = analysis.sample.source.splitlines()
    return source[line - 1].strip() if line and 0 < line <= len(source) else ""


def _kernel_lines(v, record):
    keys = {}
    for e in v.lines:
        for kid in e.kernels:
            keys.setdefault(kid, set()).add((e.function, _text(record, e.line)))
    return keys


def _verdicts(v, record):
    """{(function, line text): {"line", "verdicts", "how"}}, the verdicts of all call sites together."""
    out = {}
    for e in v.lines:
        if not e.status:
            continue
        entry = out.setdefault((e.function, _text(record, e.line)), {"line": e.line, "verdicts": [], "how": set()})
        verdict = e.status + VECTORIZED.get(e.vectorized, "")
        if verdict not in entry["verdicts"]:
            entry["verdicts"].append(verdict)
        entry["how"].update(e.how)
    return out


def _verdict_changes(a, b, ra, rb):
    """(lines whose verdict changed, lines with a verdict in one run only)."""
    va, vb = _verdicts(a, ra), _verdicts(b, rb)
    changed, one_sided = [], []
    for key in sorted(va.keys() | vb.keys(), key=lambda k: (vb.get(k) or va[k])["line"]):
        ea, eb = va.get(key), vb.get(key)
        if ea and eb and ea["verdicts"] != eb["verdicts"]:
            changed.append({"function": key[0], "line": eb["line"], "a": " / ".join(ea["verdicts"]),
                            "b": " / ".join(eb["verdicts"])})
        elif not (ea and eb):
            e = ea or eb
            one_sided.append({"function": key[0], "line": e["line"], "side": "a" if ea else "b",
                              "how": sorted(e["how"])})
    return changed, one_sided


def _break_changes(a, b, ra, rb):
    """Graph breaks gained or lost, matched by their line's text and their normalised cause (torch versions word
    the same break differently; the cause is the same), or their reason where the cause is unknown."""
    ka, kb = ({(_text(r, x.line), x.cause if x.cause != "unknown" else x.reason): x for x in v.breaks}
              for v, r in ((a, ra), (b, rb)))
    return [{"change": change, "line": x.line, "reason": x.reason}
            for change, mine, other in (("lost", ka, kb), ("gained", kb, ka))
            for key, x in mine.items() if key not in other]


def regressions(result, max_slowdown=0.1):
    """What got worse from the baseline to each other run of a ``compare`` result, in sentences: a variant that ran
    and now fails, a line verdict further down STATUSES (or less vectorized), a graph break gained, a compiled
    variant slower by more than ``max_slowdown`` (a fraction; with rounds, slower in every round)."""
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
            time = next((t for t in v["timing"] if t["what"] == "time"), None)
            best = time and (time.get("spread") or [None, time["speedup"]])[1]
            if "compiled" in v["id"] and best and best < 1 / (1 + max_slowdown):
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
