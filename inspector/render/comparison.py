"""A comparison of runs (torch versions, configurations): self-contained HTML and a terminal summary."""

from rich.console import Console

from inspector.analysis.summary import ratio, seconds
from inspector.render.html import _environment

ENV_ROWS = ("torch", "python", "numpy", "threads", "cpu", "isa", "cuda", "platform", "executable")


def headline(v):
    """Status change, or the timings side by side with the speedup of the second run."""
    if v["status"] != ["ok", "ok"]:
        return " → ".join(s + (f" ({e})" if e else "") for s, e in zip(v["status"], v["errors"]))
    return "; ".join(f"{t['what']} {seconds(t['a'])} → {seconds(t['b'])}"
                     + (f" ({ratio(t['speedup'])})" if t["speedup"] else "") for t in v["timing"])


def notes(pair, v):
    """One sentence per finding in a compiled variant: kernels, changed line verdicts, graph breaks."""
    a, b = pair["a"], pair["b"]
    out = []
    for k in _code(v):
        names = k["a"] if k["a"] == k["b"] else f"{k['a']} → {k['b']}"
        state = ("identical after normalisation" if k["identical"]
                 else f"differs (+{k['added_lines']} -{k['removed_lines']} normalised lines)")
        out.append(f"{'wrapper' if k is v.get('wrapper') else 'kernel'} {names}: {state}"
                   + "".join(f"; {c}" for c in k["changes"]))
    out += [f"kernel removed: {name} (only under {a})" for name in v.get("removed", [])]
    out += [f"kernel added: {name} (only under {b})" for name in v.get("added", [])]
    changes = {}
    for e in v.get("lines", []):
        changes.setdefault((e["a"], e["b"]), []).append(e)
    out += [f"{_lines(es)}: {was} under {a} → {now} under {b}" for (was, now), es in changes.items()]
    for side, name, other in (("a", a, b), ("b", b, a)):
        one = [e for e in v.get("one_sided", []) if e["side"] == side]
        if one:
            how = ", ".join(sorted({h for e in one for h in e["how"]}))
            out.append(f"{_lines(one)}: a verdict under {name} only ({how}), no evidence under {other}")
    out += [f"graph break {x['change']} at line {x['line']}: {x['reason']}" for x in v.get("breaks", [])]
    if "cache" in v:
        out.append(f"Inductor's FX graph cache: {v['cache'][0]} under {a}, {v['cache'][1]} under {b} "
                   "(compile times are not comparable)")
    return out


def _lines(entries):
    """'lines 48-51, 58 (objective, check_constraints)' for verdict entries."""
    spans = []
    for n in sorted({e["line"] for e in entries}):
        if spans and spans[-1][1] == n - 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    where = ", ".join(f"{lo}-{hi}" if hi > lo else f"{lo}" for lo, hi in spans)
    functions = ", ".join(dict.fromkeys(e["function"] for e in entries))
    return f"line{'s' if len(spans) > 1 or spans[0][1] > spans[0][0] else ''} {where} ({functions})"


def print_summary(comparison, console=None):
    """A few lines per variant and run pair."""
    console = console or Console(highlight=False, soft_wrap=True)
    for pair in comparison["pairs"]:
        console.print(f"{comparison['sample']['path']}: {pair['a']} → {pair['b']}", markup=False, style="bold")
        for w in pair["warnings"]:
            console.print(f"  warning: {w}", markup=False, style="yellow")
        for v in pair["variants"]:
            console.print(f"  {v['id']}: {headline(v)}", markup=False)
            for note in notes(pair, v):
                console.print(f"    {note}", markup=False)
        for side, ids in (("a", pair["only_a"]), ("b", pair["only_b"])):
            if ids:
                console.print(f"  only under {pair[side]}: {', '.join(ids)}", markup=False)


def render(comparison):
    """The comparison as one HTML page."""
    pairs = [dict(p, variants=[dict(v, headline=headline(v), notes=notes(p, v), anchor=f"p{n}-{v['id']}",
                                    code=[dict(k, diff=[(_css(ln), ln) for ln in k["diff"]]) for k in _code(v)])
                               for v in p["variants"]])
             for n, p in enumerate(comparison["pairs"])]
    env = [(key, [r["env"].get(key) for r in comparison["runs"]]) for key in ENV_ROWS]
    env.append(("config", [" ".join(r["config"]) or "-" for r in comparison["runs"]]))
    return _environment().get_template("compare.html.j2").render(
        sample=comparison["sample"], runs=comparison["runs"], env=env, pairs=pairs)


def _code(v):
    """The kernel pairs of a compiled variant, then its wrapper."""
    return v.get("kernels", []) + ([v["wrapper"]] if "wrapper" in v else [])


def _css(line):
    if line.startswith(("---", "+++")):
        return "file"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "")
