"""The index of a folder of reports (`inspector report FOLDER` writes it as index.html), from checked-in records: a row
per report whose figures are the report's own, a sortable table that needs no network, and the way back from each
report."""

import re
from html import escape

from conftest import analysis, record_path
from inspector.api import Report
from inspector.record import load
from inspector.render import views
from inspector.render.html import HtmlRenderer
from inspector.render.words import ratio, seconds


def _row(html, stem):
    """The HTML of the index row that links ``stem``'s report."""
    start = html.index(f'<a href="{stem}.html">')
    return html[html.rindex("<tr>", 0, start):html.index("</tr>", start)]


def test_a_row_gives_the_fastest_variant_and_the_best_compiled_against_the_fastest_eager_of_the_report():
    a = analysis("2.13.0", "ten_genes")
    row = _row(HtmlRenderer().index([("ten_genes", a)]), "ten_genes")
    (head,) = views.headlines(a)
    times = {r.v.id: r.time_s for r in views.table(a).rows}  # the report's timings table
    assert head.fastest == head.compiled == "torch-compiled-cpu"  # here compiling pays
    assert f"<code>{head.fastest}</code> {seconds(times[head.fastest])}" in row
    vs = times[head.eager] / times[head.compiled]
    assert f"<strong>{ratio(vs)}</strong>" in row
    assert f"{seconds(times[head.compiled])} vs <code>{head.eager}</code> {seconds(times[head.eager])}" in row
    assert f'data-sort="{vs}"' in row  # the column sorts by the figure it shows
    assert "2.13.0+cpu" in row and a.record.created[:10] in row
    assert '<td data-sort="0" class="small" data-label="status">ok<' in row
    # where the report cautions about the machine, so does the row
    assert ("timed on a busy machine: see the report's caution" in row) == bool(views.caution(a))


def test_several_families_get_a_line_each_and_sort_by_the_worst():
    a = analysis("2.13.0", "five_problems")
    row = _row(HtmlRenderer().index([("five_problems", a)]), "five_problems")
    heads = views.headlines(a)
    assert [h.family for h in heads] == ["sphere", "rastrigin", "rosenbrock", "ackley", "griewank"]
    for h in heads:
        vs = a.variant(h.eager).timing.per_population_s / a.variant(h.compiled).timing.per_population_s
        assert f"<strong>{h.family}</strong>: <strong>{ratio(vs)}</strong>" in row
    worst = min(a.variant(h.eager).timing.per_population_s / a.variant(h.compiled).timing.per_population_s
                for h in heads)
    assert f'data-sort="{worst}"' in row


def test_breaks_recompiles_and_failed_variants_are_counted():
    html = HtmlRenderer().index([("first_draft", analysis("2.13.0", "first_draft")),
                                 ("recompiling", analysis("2.13.0", "recompiling")), ("gone", None)])
    draft = analysis("2.13.0", "first_draft")
    sites = {(b.file, b.line) for v in draft.variants if v.compiled for b in v.code.breaks}
    shown = f'data-sort="{len(sites)}" data-label="graph breaks">{len(sites)}</td>'
    assert sites and shown in _row(html, "first_draft")
    recompiling = analysis("2.13.0", "recompiling").variant("torch-compiled-cpu").code.recompilation
    row = _row(html, "recompiling")
    assert f'data-sort="{recompiling.count}" data-label="recompiles">{recompiling.count}<div class="small err">' \
        'torch-compiled-cpu: ' in row
    assert "could not run: no record" in html and 'href="gone.html"' not in html
    assert bool(views.caution(draft)) == ("busy machine" in _row(html, "first_draft"))


def test_the_index_sorts_by_any_column_with_an_inline_script_and_no_network():
    html = HtmlRenderer().index([("poly", analysis("2.13.0", "poly")), ("poly21", analysis("2.1.2", "poly"))])
    assert html.count('<th scope="col"><button type="button">') == 8
    script = html[html.index("<script>"):html.index("</script>")]
    assert "aria-sort" in script and "data-sort" in script and "localeCompare" in script
    assert not re.search(r"https?://", html) and "<script src" not in html
    assert 'data-sort="0002.0001.0002"' in html and 'data-sort="0002.0013.0000"' in html  # 2.1.2 sorts before 2.13


def test_a_report_written_as_part_of_a_folder_links_back_to_the_index(tmp_path):
    a = analysis("2.13.0", "poly")
    back = '<nav class="back small"><a href="index.html">← index</a></nav>'
    assert back in HtmlRenderer(index="index.html").report(a) and back not in HtmlRenderer().report(a)
    Report("poly", load(record_path("2.13.0", "poly"))).save(tmp_path, index="index.html")
    assert back in (tmp_path / "poly.html").read_text()


def test_a_programs_row_gives_its_compiled_functions_headlines_as_its_report_does():
    ga = analysis("2.13.0", "ga")
    html = HtmlRenderer().index([("ga", ga), ("poly", analysis("2.13.0", "poly"))])
    row = _row(html, "ga")
    heads = views.program_headlines(ga)
    assert heads and all(escape(h.sentence) in row for h in heads)  # the program's report leads with the same
    assert escape(heads[0].sentence) in HtmlRenderer().program(ga)
    breaks = sum(len(f.code.breaks) for f in ga.program.functions)  # as its headline counts them
    recompiled = sum(len(f.run.recompiles) for f in ga.program.functions)
    assert f'data-sort="{breaks}" data-label="graph breaks">{breaks}</td>' in row
    assert f'data-sort="{recompiled}" data-label="recompiles">{recompiled}' in row
    assert f"{breaks} graph breaks" in heads[0].sentence
    assert "no eager run to compare" in row and '<td data-sort="0" class="small" data-label="status">ok<' in row
    assert row.count("<td") == _row(html, "poly").count("<td")  # a cell per column: the table still sorts
