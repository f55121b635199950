"""The HTML report in a real browser: offline, no script errors, click and keyboard linking, escaping.

Uses the system Chromium through Playwright (never a downloaded browser): /usr/bin/chromium, or the
path in INSPECTOR_CHROMIUM. Skipped when Playwright or the browser is missing. Screenshots go to
test-artifacts/ at the repository root (git-ignored), for a person to look at.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("INSPECTOR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")  # none of these can reach the network

HOSTILE_TITLE = '<script>window.__pwned=1</script> "quotes" & <b>bold</b>'
HOSTILE_ERROR = "<img src=x onerror=window.__pwned=2>"
HOSTILE_SAMPLE = f'''"""{HOSTILE_TITLE}

A description with </p><script>window.__pwned=3</script> in it & more.
"""

import numpy as np
import torch

POPULATION_SIZE = 100


def population(n, rng):
    return rng.uniform(-1, 1, size=(n, 3))


def fitness_python(individual):
    return float(sum(individual))


def fitness_torch(solutions):
    # </script><script>window.__pwned=4</script>
    raise ValueError("{HOSTILE_ERROR}")
'''


def cli_report(sample, out, *extra):
    return subprocess.run([sys.executable, "-m", "inspector", "report", str(sample), *extra, "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (set INSPECTOR_CHROMIUM to a Chromium executable)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def poly_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser-poly")
    subprocess.run([sys.executable, "-m", "inspector", "report", "samples/poly.py", "--population", "5000",
                    "--budget", "0.05", "-o", str(out)], cwd=ROOT, check=True, capture_output=True)
    return out / "poly.html"


class Opened:
    """A page showing a report file offline, with every problem it ran into."""

    def __init__(self, browser, path):
        self.console_errors, self.page_errors, self.remote = [], [], []
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
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

    def open_(path):
        pages.append(Opened(browser, path))
        return pages[-1]

    yield open_
    for o in pages:
        o.close()


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


def test_poly_report_links_lines_and_kernels(poly_report, opened):
    ARTIFACTS.mkdir(exist_ok=True)
    o = opened(poly_report)
    page = o.page
    page.screenshot(path=str(ARTIFACTS / "poly-report.png"), full_page=True)

    src = page.locator(".src").first
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
    page.screenshot(path=str(ARTIFACTS / "poly-click.png"), full_page=True)

    # A click on a kernel summary lights up the source lines it came from, and only those.
    kernel = page.locator(f'.kernel[data-variant="{variant}"]').filter(has=page.locator("summary")).first
    kernel_id = kernel.get_attribute("data-kernel")
    expected = page.evaluate("""([variant, id]) => [...document.querySelectorAll('.src .ln[data-kernels]')]
        .filter(l => l.closest('.src').dataset.variant === variant && l.dataset.kernels.split(' ').includes(id))
        .map(l => +l.dataset.line)""", [variant, kernel_id])
    kernel.locator("summary").click()
    assert "lit" in kernel.get_attribute("class").split()
    lit = lit_lines(page, variant)
    assert lit, f"clicking kernel {kernel_id} lit no source line"
    assert lit == expected

    # A closed kernel is opened again when one of its lines is picked.
    if not kernel_state(page, variant, kernel_id)[1]:
        src.locator(f'.ln[data-kernels~="{kernel_id}"]').first.click()
        assert kernel_state(page, variant, kernel_id) == [True, True]
    o.assert_clean()


def test_poly_report_keyboard(poly_report, opened):
    o = opened(poly_report)
    page = o.page
    src = page.locator(".src").first
    variant = src.get_attribute("data-variant")
    lines = src.locator(".ln[data-kernels]")
    assert lines.count() >= 2

    lines.nth(0).focus()
    page.keyboard.press("ArrowDown")
    second = lines.nth(1)
    assert second.evaluate("l => l === document.activeElement"), "ArrowDown did not move to the next linked line"
    page.keyboard.press("Enter")
    assert "lit" in second.get_attribute("class").split()
    for kernel_id in second.get_attribute("data-kernels").split():
        assert kernel_state(page, variant, kernel_id) == [True, True], kernel_id
    page.keyboard.press("ArrowUp")
    assert lines.nth(0).evaluate("l => l === document.activeElement")
    o.assert_clean()


def test_hostile_sample_is_shown_literally(tmp_path, browser, opened):
    sample = tmp_path / "hostile.py"
    sample.write_text(HOSTILE_SAMPLE)
    out = tmp_path / "out"
    proc = cli_report(sample, out, "--population", "100", "--budget", "0.01",
                      "--variant", "python", "--variant", "torch", "--variant", "torch-compiled-cpu")
    assert proc.returncode in (0, 1), proc.stderr
    html = out / "hostile.html"
    assert html.exists(), proc.stderr

    o = opened(html)
    page = o.page
    page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("h1 b").count() == 0
    assert page.locator("h1").inner_text() == HOSTILE_TITLE
    assert page.title() == f"inspector: {HOSTILE_TITLE}"
    assert page.locator("img").count() == 0
    assert page.locator("body script").count() == 1  # the report's own script only
    assert page.get_by_text(HOSTILE_ERROR).count() > 0, "the variant's error message is not shown literally"
    o.assert_clean()
