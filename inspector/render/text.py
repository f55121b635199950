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
