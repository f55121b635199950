"""A comparison of runs in plain words, shared by the HTML and text renderers."""

from inspector.render.words import ratio, seconds


def headline(v):
    """Status change, or the timings side by side with the speedup of the second run."""
    if v["status"] != ["ok", "ok"]:
        return " → ".join(s + (f" ({e})" if e else "") for s, e in zip(v["status"], v["errors"]))
    return "; ".join(f"{t['what']} {seconds(t['a'])} → {seconds(t['b'])}"
                     + (f" ({speedup(t)})" if t["speedup"] else "") for t in v["timing"])


def speedup(t):
    """A timing's speedup, with its spread over the rounds where it was timed in them: "1.43x (1.38x-1.51x in 6
    alternating rounds)"."""
    if not t["speedup"]:
        return "-"
    spread = t.get("spread")
    return ratio(t["speedup"]) + (f" ({ratio(spread[0])} to {ratio(spread[1])} in {t['rounds']} alternating rounds)"
                                  if spread else "")


def notes(pair, v):
    """One sentence per finding in a compiled variant: kernels, changed line verdicts, graph breaks."""
    a, b = pair["a"], pair["b"]
    out = []
    for k in code(v):
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


def code(v):
    """The kernel pairs of a compiled variant, then its wrapper."""
    return v.get("kernels", []) + ([v["wrapper"]] if "wrapper" in v else [])


def diff_class(line):
    """The CSS class of a unified-diff line."""
    if line.startswith(("---", "+++")):
        return "file"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "")
