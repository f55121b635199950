"""The HTML report in a real browser: offline, no script errors, click, keyboard and touch, accessibility, escaping.

Uses the system Chromium through Playwright (never a downloaded browser): /usr/bin/chromium, or the path in
INSPECTOR_CHROMIUM; skipped, before any report is made, when Playwright or the browser is missing. The reports
are rendered from checked-in records (no torch), but the hostile one, which a real run makes. Screenshots go to
test-artifacts/ at the repository root (git-ignored), for a person to look at.
"""

import os
from pathlib import Path

import pytest

from conftest import HOSTILE_TITLE, ROOT, analysis

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("INSPECTOR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")  # none of these can reach the network
# WCAG contrast of an element's text against what is really behind it (alpha backgrounds composited over white)
CONTRAST = """(e) => {
    const rgba = s => (s.match(/[\\d.]+/g) || [0, 0, 0, 0]).map(Number).concat([1]).slice(0, 4);
    const layers = [];
    for (let n = e; n; n = n.parentElement) layers.push(rgba(getComputedStyle(n).backgroundColor));
    let bg = [255, 255, 255];
    for (const [r, g, b, a] of layers.reverse())
        bg = [r * a + bg[0] * (1 - a), g * a + bg[1] * (1 - a), b * a + bg[2] * (1 - a)];
    const lum = c => { const [r, g, b] = c.map(v => {
                           v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                       return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const fg = rgba(getComputedStyle(e).color).slice(0, 3), [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
}"""


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (set INSPECTOR_CHROMIUM to a Chromium executable)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def report_html(browser, tmp_path_factory):
    """The report of the ten-gene sample (one kernel of three loop nests), from its checked-in record."""
    from inspector.render import renderer
    path = tmp_path_factory.mktemp("browser") / "ten_genes.html"
    path.write_text(renderer("html").report(analysis("2.13.0", "ten_genes")), encoding="utf-8")
    return path


class Opened:
    """A page showing a report file offline, with every problem it ran into."""

    def __init__(self, browser, path, **context):
        self.console_errors, self.page_errors, self.remote = [], [], []
        self.context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context})
        self.context.route("**/*", self._route)
        self.page = page = self.context.new_page()
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        page.on("request", lambda r: r.url.startswith(LOCAL_SCHEMES) or self.remote.append(r.url))
        page.goto(path.resolve().as_uri(), wait_until="load")

    def _route(self, route):
        # Every request also reaches the "request" listener, which records the remote ones.
        if route.request.url.startswith(LOCAL_SCHEMES):
            route.continue_()
        else:
            route.abort()

    def assert_clean(self):
        assert self.remote == [], f"the report tried to reach the network: {self.remote}"
        assert self.console_errors == [], self.console_errors
        assert self.page_errors == [], self.page_errors

    def close(self):
        self.context.close()


@pytest.fixture
def opened(browser):
    pages = []

    def open_(path, **context):
        pages.append(Opened(browser, path, **context))
        return pages[-1]

    yield open_
    for o in pages:
        o.close()


def open_sections(page):
    """Unfold every variant's section (the page opens with the fastest compiled variant's alone); the page."""
    page.evaluate("() => document.querySelectorAll('details.variant').forEach(d => { d.open = true; })")
    return page


def kernel_state(page, variant, kernel_id):
    """(lit, open) of the kernel element, found by attribute value (ids need no CSS escaping)."""
    return page.evaluate("""([variant, id]) => {
        const k = [...document.querySelectorAll('.kernel')].find(
            e => e.dataset.variant === variant && e.dataset.kernel === id);
        return k ? [k.classList.contains('lit'), k.open] : null;
    }""", [variant, kernel_id])


def lit_lines(page, variant):
    return page.evaluate("""(variant) => [...document.querySelectorAll('.src .ln.lit')]
        .filter(l => l.closest('.src').dataset.variant === variant).map(l => +l.dataset.line)""", variant)


def test_report_links_lines_and_kernels(report_html, opened):
    ARTIFACTS.mkdir(exist_ok=True)
    o = opened(report_html)
    page = o.page
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
    src = open_sections(page).locator(".src").first
    variant = src.get_attribute("data-variant")
    lines = src.locator(".ln[data-kernels]")
    assert lines.count() > 0, "the first compiled variant's source view has no line linked to a kernel"

    # A click on a source line lights up and opens its kernels.
    line = lines.first
    ids = line.get_attribute("data-kernels").split()
    line.click()
    assert "lit" in line.get_attribute("class").split()
    for kernel_id in ids:
        assert kernel_state(page, variant, kernel_id) == [True, True], kernel_id

    # A click on a kernel summary lights up the source lines it came from, and only those.
    kernel_id = ids[0]
    kernel = page.locator(f'.kernel[data-variant="{variant}"][data-kernel="{kernel_id}"]')
    expected = page.evaluate("""([variant, id]) => [...document.querySelectorAll('.src .ln[data-kernels]')]
        .filter(l => l.closest('.src').dataset.variant === variant && l.dataset.kernels.split(' ').includes(id))
        .map(l => +l.dataset.line)""", [variant, kernel_id])
    kernel.locator("summary").click()
    assert "lit" in kernel.get_attribute("class").split()
    assert lit_lines(page, variant) == expected and expected

    # A second click closes the kernel as usual; picking one of its lines opens it again.
    kernel.locator("summary").click()
    assert kernel_state(page, variant, kernel_id)[1] is False
    src.locator(f'.ln[data-line="{expected[0]}"]').click()
    assert kernel_state(page, variant, kernel_id) == [True, True]
    o.assert_clean()


def test_a_line_lights_up_the_loop_nests_it_runs_in(report_html, opened):
    o = opened(report_html)
    page = o.page
    src = open_sections(page).locator(".src").first
    penalty = src.locator(".ln", has_text="penalty = np.clip").first
    nests = penalty.get_attribute("data-nests").split()
    assert len(nests) == 1 and nests[0].endswith("#2")
    penalty.click()
    lit = page.evaluate("""() => [...document.querySelectorAll('.kernel .ln.lit')].map(l => l.dataset.nest)""")
    assert lit and set(lit) == set(nests)
    label = page.locator(".kernel .nest-label", has_text="loop nest 2").first
    assert label.inner_text().startswith("loop nest 2: parallel, vectorized reduction")
    o.assert_clean()


def test_every_line_detail_is_reachable_by_keyboard(report_html, opened):
    o = opened(report_html)
    page = o.page
    src = open_sections(page).locator(".src").first
    lines = src.locator(".ln[tabindex]")
    assert lines.count() >= 2
    first = src.locator(".ln[aria-expanded=false]").first  # a parallel line: its details start folded
    folded = page.locator(f"#{first.get_attribute('id')}")
    notes = page.locator(f"#{folded.get_attribute('aria-controls')}")
    assert not notes.is_visible()
    folded.focus()
    page.keyboard.press("Enter")
    assert notes.is_visible() and folded.get_attribute("aria-expanded") == "true"
    assert "parallel" in notes.inner_text() and "evidence: loop_nest, provenance" in notes.inner_text()

    lines.nth(0).focus()
    page.keyboard.press("ArrowDown")
    assert lines.nth(1).evaluate("l => l === document.activeElement"), "ArrowDown did not move to the next line"
    page.keyboard.press("ArrowUp")
    assert lines.nth(0).evaluate("l => l === document.activeElement")
    # Tab reaches the lines too, from the page's start
    page.evaluate("document.activeElement.blur()")
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('ln')"):
            break
    assert page.evaluate("document.activeElement.getAttribute('role')") == "button"
    o.assert_clean()


def test_line_details_open_with_a_tap(report_html, opened):
    o = opened(report_html, has_touch=True, is_mobile=True)
    page = o.page
    folded = open_sections(page).locator(".src .ln[aria-expanded=false]").first
    notes = page.locator(f"#{folded.get_attribute('aria-controls')}")
    assert not notes.is_visible()
    folded.tap()
    assert notes.is_visible()
    o.assert_clean()


def test_contrast_and_row_headers(report_html, opened):
    o = opened(report_html)
    page = o.page
    for selector in (".code .ln > .no", ".code .ln > .ht"):
        ratios = page.evaluate(f"""(s) => {{ const contrast = {CONTRAST};
            return [...document.querySelectorAll(s)].filter(e => e.innerText.trim()).map(contrast); }}""", selector)
        assert ratios and min(ratios) >= 4.5, (selector, min(ratios, default=None))
    rows = page.evaluate("""() => [...document.querySelectorAll('tbody tr')].map(
        r => r.firstElementChild.tagName + ':' + (r.firstElementChild.getAttribute('scope') || ''))""")
    assert rows and set(rows) == {"TH:row"}
    o.assert_clean()


def test_hostile_sample_is_shown_literally(browser, hostile_report, opened):
    proc, out = hostile_report
    assert proc.returncode == 1, proc.stderr
    o = opened(out / "hostile.html")
    page = o.page
    page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("h1 b").count() == 0
    assert page.locator("h1").inner_text() == HOSTILE_TITLE
    assert page.title() == f"inspector: {HOSTILE_TITLE}"
    assert page.locator("img").count() == 0
    assert page.locator("body script").count() == 1  # the report's own script only
    assert page.get_by_text("<img src=x onerror=window.__pwned=2>").count() > 0
    o.assert_clean()


# The visible prose of a page on opening: what a reader sees before clicking (closed details and hidden notes left
# out), without code, tables' headers and cells (numbers) and charts; split into sentences
PROSE = """() => {
    const style = document.createElement('style');
    style.textContent = 'code, pre, thead, td, .code, svg { display: none !important; }';
    document.head.appendChild(style);
    const text = document.body.innerText;
    style.remove();
    return text;
}"""


def sentences(text):
    """The sentences of a page's visible prose, numbers replaced by # (so that "2.1x" and "3.4x" read alike), those
    of fewer than four words (names, table cells) left out."""
    import re
    found = []
    for part in re.split(r"(?<=[.:;!?])\s+|\n+", text):
        words = re.sub(r"\d[\d.,]*", "#", part).split()
        if len(words) >= 4:
            found.append(" ".join(words))
    return found


# a sample's fastest variant is the analysis's (None here); a program's busiest function is named
FIRST_SCREEN = [("trig", None), ("five_problems", None), ("first_draft", None), ("pymoo_g7", None), ("ga", "fitness"),
                ("ten_genes", None), ("plain_ga", "fitness"), ("plain-apply_along_axis_int8", "score")]


@pytest.mark.parametrize("stem, fastest", FIRST_SCREEN)
def test_the_first_screen_names_the_fastest_and_the_page_fits_any_screen(stem, fastest, opened, tmp_path):
    from collections import Counter

    from inspector.model import ProgramAnalysis
    from inspector.render import renderer, views
    a = analysis("2.13.0", stem)
    path = tmp_path / f"{stem}.html"
    path.write_text(renderer("html").render(a), encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    o = opened(path, viewport={"width": 1280, "height": 800})
    page = o.page
    page.screenshot(path=str(ARTIFACTS / f"first-screen-{stem}-1280.png"))
    # the timings table fits its box at 1280 px: no column off-screen
    box = page.evaluate("""() => { const t = document.querySelector('table.timings') || document.body;
        return [t.scrollWidth, t.parentElement.clientWidth]; }""")
    assert box[0] <= box[1], f"the timings table is {box[0]} px wide in a {box[1]} px box"
    # the first window names the fastest variant with its multiplier (a program: its busiest function's time)
    first = page.evaluate("""() => [...document.querySelectorAll('.headline')]
        .filter(e => e.getBoundingClientRect().bottom <= window.innerHeight).map(e => e.innerText).join(' ')""")
    if isinstance(a, ProgramAnalysis) and a.program.functions:
        assert fastest in first and "per call" in first
    elif isinstance(a, ProgramAnalysis):  # compiling nothing: its hot function, what the experiment gave
        assert first.startswith(f"{fastest} (") and "faster" in first and "the whole run would take" in first
    else:
        head = views.headlines(a)[0]  # the family's fastest, as the analysis found it in this record
        assert head.fastest in first, first
        assert head.fastest == "numpy" or f"{head.vs_numpy:.3g}x" in first, first
    # nothing said more than three times on opening
    counts = Counter(sentences(page.evaluate(PROSE)))
    repeated = [(s, n) for s, n in counts.items() if n > 3]
    assert not repeated, repeated
    o.assert_clean()
    # a phone: the page never scrolls sideways
    phone = opened(path, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.page.screenshot(path=str(ARTIFACTS / f"first-screen-{stem}-390.png"))
    # (innerWidth would grow with the page on a mobile viewport: the layout viewport is the root's clientWidth)
    width = phone.page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide on a {width[1]} px screen"
    # nor with every fold and every line's notes open (output code, kernel names, reasons wrap or scroll in place)
    width = phone.page.evaluate("""() => { document.querySelectorAll('details').forEach(d => d.open = true);
        document.querySelectorAll('.notes').forEach(n => n.hidden = false);
        return [document.documentElement.scrollWidth, document.documentElement.clientWidth]; }""")
    assert width[0] <= width[1], f"opened, the page is {width[0]} px wide on a {width[1]} px screen"
    phone.assert_clean()


def test_kernels_open_folded_files_break_notes_stay_and_keys_move_to_the_lines_that_took_time(opened, tmp_path):
    from inspector.render import renderer
    path = tmp_path / "pymoo_g7.html"
    path.write_text(renderer("html").report(analysis("2.13.0", "pymoo_g7")), encoding="utf-8")
    o = opened(path)
    page = o.page
    # a kernel whose lines are in pymoo's folded files: a click opens the file and lights its lines
    kernel = page.locator(".kernel").filter(has_text="pymoo/problems/single/g.py").first
    assert page.locator("details.file:not([open]) .ln[data-kernels]").count() > 0
    kernel.locator("summary").click()
    lit = page.locator(".src .ln.lit")
    assert lit.count() > 0 and lit.first.is_visible()
    # a graph-break line's note is open from the start, and a click does not fold it away
    broken = page.locator(".src .ln.st-graph-break[aria-controls]").first
    notes = page.locator(f"#{broken.get_attribute('aria-controls')}")
    assert notes.is_visible()
    broken.click()
    assert notes.is_visible()
    # n: the next line that took time (its share shaded); ?: the keys
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("n")
    assert page.evaluate("document.activeElement.querySelector('.ht').textContent.trim().endsWith('%')")
    assert not page.locator("#keys").is_visible()
    page.keyboard.press("?")
    assert page.locator("#keys").is_visible()
    # a line's number links to the line
    number = page.locator(".src .ln a.no").first
    assert number.get_attribute("href") == "#" + number.evaluate("a => a.parentElement.id")
    o.assert_clean()


def test_the_index_and_a_comparison_fit_any_screen_and_the_index_stacks_on_a_phone(opened, tmp_path):
    from inspector.analysis import compare
    from inspector.render import renderer
    from inspector.render.html import HtmlRenderer
    index = tmp_path / "index.html"
    index.write_text(HtmlRenderer().index([(s, analysis("2.13.0", s)) for s in ("trig", "five_problems", "ga")]
                                          + [("gone", None)]), encoding="utf-8")
    comparison = tmp_path / "compare.html"
    comparison.write_text(renderer("html").comparison(compare.compare([analysis("2.1.2", "poly"),
                                                                       analysis("2.13.0", "poly")])), encoding="utf-8")
    programs = tmp_path / "compare-program.html"  # a program's: its hot functions' candidates side by side
    programs.write_text(renderer("html").comparison(compare.compare([analysis("2.13.0", "plain_ga")] * 2)),
                        encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    for path in (index, comparison, programs):
        for width, phone in ((1280, False), (390, True)):
            o = opened(path, viewport={"width": width, "height": 844}, is_mobile=phone, has_touch=phone)
            o.page.screenshot(path=str(ARTIFACTS / f"{path.stem}-{width}.png"))
            page = o.page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            assert page[0] <= page[1], f"{path.name} is {page[0]} px wide on a {page[1]} px screen"
            if path == index:  # every row in view, on a phone as a block per report: no table to scroll sideways
                box = o.page.evaluate("""() => { const t = document.querySelector('table.index');
                    return [t.scrollWidth, t.parentElement.clientWidth]; }""")
                assert box[0] <= box[1], f"the index is {box[0]} px wide in a {box[1]} px box at {width} px"
                assert o.page.locator("tbody tr", has_text="a program's run").count() == 1
            o.assert_clean()
    # sorting still works on the phone's layout: by graph breaks, the program (the only row with any) last but one
    o = opened(index, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    o.page.get_by_role("button", name="graph breaks").click()
    rows = o.page.evaluate("() => [...document.querySelectorAll('table.index tbody th')].map(t => t.innerText)")
    assert "ga.py" in rows[-2] and "gone" in rows[-1]  # a row without a record sorts last (empty cells last)
    o.assert_clean()
