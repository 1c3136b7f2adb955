"""The page as a reader sees it: math and figures that fit, search that reads, print and PDF.

Display math has sums with limits (test_every_page.py measures them in the math font, and
on a 390 px phone sees that figures make their point and no equation is cut); the search
index holds the rendered math but no TeX, and no figure's labels; search works opened
from disk; printed, a page shows no Run bar or step control (the whole book as a PDF:
test_whole_book.py).
"""

import html
import json
import re

from tests.helpers.browser import assert_clean
from tests.helpers.site import PAGES, url_path
from tools import ROOT


def _pages_with(built_site, marker: str) -> list:
    return [p for p in PAGES if marker in (built_site / url_path(p).lstrip("/")).read_text()]


DISPLAY_SUM = "<munder><mo>&#x02211;</mo>"  # a display sum with limits, as latex2mathml writes it


def test_display_math_has_a_sum_with_limits_for_the_font_check_to_measure(built_site):
    """test_every_page.py measures each display sum with limits in the math font; the pages
    must have one, or that check would measure nothing."""
    assert _pages_with(built_site, 'class="arithmatex"'), "no page has display math"
    assert _pages_with(built_site, DISPLAY_SUM), f"no display sum with limits ({DISPLAY_SUM})"


def _tex_commands(built_site) -> set[str]:
    """Every TeX command the book's math uses, from the annotations of the built pages."""
    found = set()
    for page in PAGES:
        text = (built_site / url_path(page).lstrip("/")).read_text(encoding="utf-8")
        for tex in re.findall(r'<annotation encoding="application/x-tex"[^>]*>(.*?)<', text):
            found |= set(re.findall(r"\\[a-zA-Z]+", html.unescape(tex)))
    return found


def _index_text(built_site) -> str:
    docs = json.loads((built_site / "search" / "search_index.json").read_text())["docs"]
    return " ".join(html.unescape(doc["text"]) for doc in docs)


def test_the_search_index_holds_rendered_math_without_tex_or_figure_labels(built_site):
    commands = _tex_commands(built_site)
    assert {r"\partial", r"\frac", r"\cdot"} <= commands, commands
    text = _index_text(built_site)
    assert "∂" in text and "·" in text, "the rendered math is not in the search index"
    in_index = sorted(c for c in commands if re.search(re.escape(c) + "(?![a-zA-Z])", text))
    assert not in_index, f"TeX in the search index: {in_index} (see tools/site/mathml.py)"
    # Math reads as a line of text in the snippets, scripts as <sub> and <sup>, not as the
    # MathML's tokens run together ("log∑jevj", the cross-entropy of the softmax chapter).
    assert "log ∑<sub>j</sub>e<sup>v<sub>j</sub></sup>" in text, "math runs together in search"
    assert "log∑jevj" not in text
    for figure in sorted((ROOT / "docs" / "figures").glob("*.svg")):
        labels = [
            html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]+)</text>", figure.read_text())
        ]
        if len(labels) >= 4:  # drawn with text (the Graphviz ones), not only with paths
            run_on = " ".join(labels[:4])
            assert run_on not in text, f"{figure.name}'s labels are in the search index: {run_on!r}"


def _search(tab, query: str):
    tab.keyboard.press("s")  # Material's shortcut to the search box
    tab.keyboard.type(query)
    results = tab.locator(".md-search-result__item")
    results.first.wait_for(timeout=15_000)
    return results


def test_search_works_from_disk_and_shows_no_tex(open_page, built_site):
    tab = open_page((built_site / "01-what-autograd-records.html").as_uri())
    results = _search(tab, "consumers")
    shown = " ".join(results.all_text_contents())
    assert "consumers" in shown.lower(), shown
    tex = sorted(c for c in _tex_commands(built_site) if c in shown)
    assert not tex, f"search results show TeX {tex}: {shown[:300]}"
    outside = [url for url in tab.watch.requested if not url.startswith("file://")]
    assert not outside, f"search from disk asked for {outside}"
    assert_clean(tab, "search from file://")


def test_printed_pages_show_no_run_bar_or_step_control(open_page, site_url, built_site):
    tab = open_page(site_url + "/03-backward.html", kept=True)
    controls = ".notebook-bar, .notebook-tools, .steps-bar"
    tab.wait_for_selector(".steps-bar")
    shown = tab.locator(controls)
    on_screen = sum(bar.is_visible() for bar in shown.all())
    assert on_screen >= 1, "chapter 3 should have step controls (and Run bars, with the runtime)"
    tab.emulate_media(media="print")
    printed = [bar.get_attribute("class") for bar in shown.all() if bar.is_visible()]
    assert not printed, f"printed, chapter 3 shows {printed} (docs/stylesheets/print.css)"
    kept = tab.locator("article h2").first.evaluate("h => getComputedStyle(h).breakAfter")
    assert kept == "avoid", f"printed, a heading may end a page (break-after: {kept})"
    assert_clean(tab, "chapter 3 in print media")
