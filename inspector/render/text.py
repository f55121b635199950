"""Terminal renderer: the seed-style timing table and one sentence per compiled variant (rich)."""

from rich.console import Console
from rich.table import Table

from inspector.analysis.summary import ratio, seconds, sentence, timing_note


def timing_table(record):
    sample = record["sample"]
    table = Table(title=f"{sample['title']} · population {sample['population']:,}", title_justify="left")
    for name in ("variant", "status", "time", "vs python", "vs numpy", "first call", "match"):
        table.add_column(name, justify="left" if name in ("variant", "status") else "right", no_wrap=name == "variant")
    for v in record["variants"]:
        t = v.get("timing") or {}
        time = seconds(t.get("per_population_s"))
        if timing_note(v, sample["population"]):
            time += " *"
        match = {True: "yes", False: "NO", None: "-"}[v.get("matches_reference")]
        table.add_row(v["id"], v["status"], time, ratio(v.get("speedup_vs_python")),
                      ratio(v.get("speedup_vs_numpy")),
                      seconds(t.get("first_call_s")) if v.get("compiled") else "-", match)
    return table


def render(record, console=None, full=True):
    """Print the summary of ``record``; ``full`` adds per-variant sentences, failures and breaks.

    Mismatches are not repeated here: the CLI reports them on stderr as soon as they are known.
    """
    console = console or Console(width=max(Console().width, 110))
    console.print(timing_table(record))
    sample = record["sample"]
    for v in record["variants"]:
        note = timing_note(v, sample["population"])
        if note:
            console.print(f"* {v['id']}: {note}", markup=False)
    if not full:
        return
    for v in record["variants"]:
        if v["status"] not in ("ok", "skipped"):
            console.print(f"{v['id']}: {v['status']}: {v.get('error') or ''}", markup=False, style="red")
        if v.get("compiled") and v["status"] == "ok":
            console.print(f"{v['id']}: {sentence(v)}", markup=False)
            for b in v.get("graph_breaks") or []:
                console.print(f"    graph break at line {b['line']}: {b['reason']}", markup=False)


def render_breaks(record, rows, console):
    """The `inspector breaks` listing: per compiled variant, its graphs, each distinct break once, its cost."""
    console.print(f"{record['sample']['path']} · torch {record['env']['torch']} · population "
                  f"{record['sample']['population']:,}", markup=False)
    for row in rows:
        if row["status"] != "ok":
            console.print(f"\n{row['variant']}: {row['status']}: {row['error'] or ''}", markup=False, style="red")
            continue
        ops = ", ".join(str(g["op_count"]) for g in row["graphs"])
        head = f"\n{row['variant']}: {len(row['graphs'])} graph{'s' if len(row['graphs']) != 1 else ''} (ops: {ops})"
        if row["cost"]:
            c = row["cost"]
            head += (f"; {c['outside_fraction']:.0%} of each call outside compiled graphs (Python between "
                     f"graphs, guards, conversions: {seconds(c['outside_s'])} of "
                     f"{seconds(c['outside_s'] + c['inside_s'])})")
        console.print(head + ("; no graph breaks" if not row["breaks"] else ""), markup=False, style="bold")
        for b in row["breaks"]:
            times = f" ({b['count']}x)" if b["count"] > 1 else ""
            console.print(f"  {b['file']}:{b['line']}{times}  {b['code'] or ''}", markup=False)
            console.print(f"      {b['reason']}", markup=False, style="red")
            for label, value in (("torch", b["explanation"]), *(("hint", h) for h in b["hints"]),
                                 (b["gb_id"], b["url"]), ("fix", b["fix"])):
                if value:
                    console.print(f"      {label}: {value}", markup=False)
        for t in row.get("tried") or []:
            gone = f"break at line {', '.join(map(str, t['gone']))} gone" if t["gone"] else "the break stayed"
            console.print(f"  tried --config {t['flag']}: {t['breaks_before']} -> {t['breaks_after']} breaks, {gone}, "
                          f"median {seconds(t['median_before_s'])} -> {seconds(t['median_after_s'])}"
                          + (f" ({t['status']}: {t['error']})" if t["status"] != "ok" else ""), markup=False)
        for w in row["warnings"]:
            console.print(f"  warning: {w['text']}", markup=False, style="yellow")
