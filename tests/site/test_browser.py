"""Every page of the built site in a real browser: Debian's headless Chromium, via Playwright.

The site is built once and served once from 127.0.0.1 (tests/site/conftest.py), and opened
in one Chromium for the whole session (a fresh context per test). Every page must load
without console errors or failed requests, weigh at most 1.2 MB before the reader reaches
for anything, show its pictures at a real size within the text column, and fit a 390-pixel
phone screen; opened from disk it must still navigate.
Every request must stay on loopback: any other is refused and reported
(tests/helpers/browser.py). The Run buttons: test_run_buttons.py and test_every_fence.py.

Skipped where `chromium` is not installed (apt-get install chromium fonts-liberation),
except on CI (CI=true), where that is a failure; the same for the site's Python runtime
(it needs npm). Playwright drives Debian's chromium; it never downloads a browser. Set
SITE_SCREENSHOTS=<folder> to also save a light and a dark screenshot of every page there.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.helpers.browser import PHONE, assert_clean
from tests.helpers.site import ENGINE_PAGE, PAGES, SITE_PAGES, url_path
from tools.site.page_data import page_fences

FIGURE = re.compile(r"!\[[^\]]*\]\(figures/[\w-]+\.svg\)")

PAGE_WEIGHT = 1_200_000  # bytes a page may load before any sign of intent (issue 27)

# What the page shows of its pictures (svg.picture: tools/page/svg.py).
PICTURES_JS = """
[...document.querySelectorAll("article svg.picture")].map(svg => {
  const box = svg.getBoundingClientRect(), style = getComputedStyle(svg);
  const column = svg.closest("article").getBoundingClientRect();
  return {width: box.width, height: box.height, hidden: style.visibility !== "visible",
          overflows: box.right > column.right + 1};
})
"""


@pytest.mark.parametrize("page", SITE_PAGES, ids=[page.name for page in SITE_PAGES])
def test_page_loads_cleanly_and_fits_a_phone_screen(open_page, site_url, built_site, page):
    tab = open_page(site_url + url_path(page))
    tab.wait_for_load_state("networkidle")
    assert_clean(tab, page.name)

    if page == ENGINE_PAGE:
        assert tab.locator("article pre code").count() > 10, "the engine's chunks are shown"
    else:
        drawn = len(FIGURE.findall(page.read_text(encoding="utf-8")))  # ![...](figures/...)
        pictures = tab.evaluate(PICTURES_JS)
        assert len(pictures) >= drawn, f"{page.name}: {drawn} figures, {len(pictures)} shown"
        for picture in pictures:
            assert picture["width"] > 0 and picture["height"] > 0, f"{page.name}: empty {picture}"
            assert not picture["hidden"], f"{page.name}: hidden picture {picture}"
            assert not picture["overflows"], f"{page.name}: picture wider than the text {picture}"

    if page != ENGINE_PAGE and (built_site / "assets" / "pyodide").exists():
        shown = page_fences(page)["fences"]  # every shown python fence has a bar
        bars = tab.locator(".notebook-bar").count()
        assert bars == len(shown), f"{page.name}: {len(shown)} python fences, {bars} Run bars"
        assert not any("pyodide" in url for url in tab.watch.requested), (
            f"{page.name}: the Python runtime was loaded before any Run click"
        )
        assert not any(url.endswith("/editor/editor.js") for url in tab.watch.requested), (
            f"{page.name}: the code editor was loaded with the page (notebook.js loads it when "
            "a reader reaches for a fence, learner.js for the learner's engine)"
        )

    # What a reader who only reads downloads, every file the page and its workers asked for
    # (benchmarks/README.md: "What a page weighs"), served as the site holds it.
    asked = {urlsplit(url).path for url in tab.watch.requested if url.startswith(site_url)}
    files = [built_site / unquote(path).lstrip("/") for path in asked]
    weight = sum(file.stat().st_size for file in files if file.is_file())
    assert weight <= PAGE_WEIGHT, (
        f"{page.name} weighs {weight / 1e6:.2f} MB before the reader reaches for anything, "
        f"over {PAGE_WEIGHT / 1e6} MB: python -m benchmarks.page --weight says what it loads"
    )

    # The same page on a phone: the layout follows the viewport, as it does on a new load.
    tab.set_viewport_size(PHONE)
    width = tab.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], (
        f"{page.name} is {width} px wide on a {PHONE['width']} px screen: something "
        "(a formula, a table, a picture) needs to scroll inside its own box"
    )
    assert_clean(tab, page.name)

    if folder := os.environ.get("SITE_SCREENSHOTS"):
        Path(folder).mkdir(parents=True, exist_ok=True)
        for dark in (False, True):
            shot = open_page(site_url + url_path(page), dark=dark)
            shot.wait_for_load_state("networkidle")
            name = f"{page.stem}-{'dark' if dark else 'light'}.png"
            shot.screenshot(path=str(Path(folder) / name), full_page=True)


def test_opened_from_disk_the_site_works_as_served_but_running_code(open_page, built_site):
    home = open_page((built_site / "index.html").as_uri())
    first, second = PAGES[1], PAGES[2]
    home.locator("a.md-footer__link--next").click()
    home.wait_for_load_state("load")
    assert home.url.endswith(url_path(first)), home.url
    home.locator("a.md-footer__link--next").click()
    home.wait_for_load_state("load")
    assert home.url.endswith(url_path(second)), home.url
    assert home.locator("article h1").first.is_visible()

    # Material's components start, as when served (tools/site/theme/main.html): a copy button
    # on every code block, a header that names the section scrolled to, and folds that open
    # for print (the event Chromium sends before it prints; the PDF: test_whole_book.py).
    blocks = home.locator("article div.highlight pre").count()  # buttons come with the page
    copies = home.locator("article div.highlight .md-code__button").count()
    assert blocks and copies == blocks, f"from disk, {copies} copy buttons for {blocks} blocks"
    home.locator("article h2").nth(1).scroll_into_view_if_needed()
    home.locator(".md-header__title--active").wait_for(state="attached")
    folds = home.locator("article details:not(.notebook-book)")
    assert folds.count() and not any(f.evaluate("d => d.open") for f in folds.all())
    home.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    shut = [
        f.locator("summary").text_content() for f in folds.all() if not f.evaluate("d => d.open")
    ]
    assert not shut, f"from disk, printing leaves these folds shut: {shut}"

    if (built_site / "assets" / "pyodide").exists():
        home.locator(".notebook-run").first.click()
        said = home.locator(".notebook-failure").first
        for advice in ("opened from disk", "python3 -m http.server", "http://localhost:8000/"):
            assert advice in said.text_content(), f"from disk, Run should say {advice!r}: {said}"
        assert said.locator("code").first.text_content() == "python3 -m http.server"
        assert "`" not in said.text_content(), "the advice shows its Markdown backticks"
        idle = "new Promise(r => requestIdleCallback(r, {timeout: 500}))"
        home.evaluate(idle)  # editors are made one an idle moment, the first by now: none here
        home.evaluate(idle)
        assert home.locator(".cm-editor").count() == 0, "from disk, fences offer editors"
    outside = [url for url in home.watch.requested if not url.startswith("file://")]
    assert not outside, f"opened from disk, the site asked for {outside}"
