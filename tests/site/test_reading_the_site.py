"""The page as a reader sees it: math and figures that fit, search that reads, print and PDF.

Display math has sums with limits (test_every_page.py measures them in the math font); on
a 390 px phone every figure is within the column or scrolls inside its own box, never
drawn larger than it was drawn, the panel its caption is about on the screen, stepped too,
and no equation is cut; the search index holds the rendered math but no TeX, and no
figure's labels; search works opened from disk; printed, a page shows no Run bar or step
control (the whole book as a PDF: test_whole_book.py).
"""

import html
import json
import re

from tests.helpers.browser import PHONE, assert_clean
from tests.helpers.site import PAGES, url_path
from tools import ROOT
from tools.figures.from_chapters import FIGURES


# The test that visits many pages goes from page to page without waiting for the search
# index and the icon to load, so Chromium aborts those requests: that every page loads
# cleanly is test_every_page.py's.
def _pages_with(built_site, marker: str) -> list:
    return [p for p in PAGES if marker in (built_site / url_path(p).lstrip("/")).read_text()]


DISPLAY_SUM = "<munder><mo>&#x02211;</mo>"  # a display sum with limits, as latex2mathml writes it


def test_display_math_has_a_sum_with_limits_for_the_font_check_to_measure(built_site):
    """test_every_page.py measures each display sum with limits in the math font; the pages
    must have one, or that check would measure nothing."""
    pages = _pages_with(built_site, 'class="arithmatex"')
    assert pages, "no page has display math"
    assert _pages_with(built_site, DISPLAY_SUM), f"no display sum with limits ({DISPLAY_SUM})"


# Each drawing shown (a figure's, or the one drawn for a phone: tools/site/figures.py).
FIGURES_JS = """
[...document.querySelectorAll("article p > :is(svg.picture, svg.picture-narrow)")]
  .filter(svg => svg.checkVisibility()).map(svg => {
  const box = svg.getBoundingClientRect(), holder = svg.parentElement;
  const column = svg.closest("article").getBoundingClientRect();
  const probe = document.createElement("div");
  probe.style.width = getComputedStyle(svg).getPropertyValue("--picture-width");
  document.body.append(probe);
  const drawn = probe.getBoundingClientRect().width;
  probe.remove();
  return {label: svg.getAttribute("aria-label").slice(0, 40), width: box.width, drawn,
          name: svg.dataset.figure || svg.dataset.narrow,
          within: box.left >= column.left - 1 && box.right <= column.right + 1,
          scrolls: getComputedStyle(holder).overflowX === "auto"
                   && holder.getBoundingClientRect().right <= column.right + 1,
          marked: holder.dataset.scrolls === "yes" && holder.tabIndex === 0
                  && holder.nextElementSibling.matches(".scroll-sign")};
})
"""

# Whether the panel that figure `name`'s caption is about (`key`, a DOT cluster; null:
# the whole drawing) is all on the screen, once scrolled to, in the drawing shown: "" if
# it is, else where it is. With `step`, the figure is stepped from its start to its end
# with the keys (as steps.js takes them) and, at each step, the lit node of that panel's
# track must be on the screen: the steps where it is not.
KEY_JS = """
([name, key, step]) => {
  const svg = [...document.querySelectorAll("article p > svg")]
    .find(svg => [svg.dataset.figure, svg.dataset.narrow].includes(name) && svg.checkVisibility());
  const find = (id) => svg.querySelector(`[id="${id}"], [data-id="${id}"]`);
  const off = (element) => {
    const r = element.getBoundingClientRect();
    const on = r.left >= -1 && r.right <= innerWidth + 1
               && r.top >= -1 && r.bottom <= innerHeight + 1;
    return on ? "" : `off the screen at ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`;
  };
  if (!step) {
    const panel = key === null ? svg : find(`${name}-cluster-cluster_${key}`);
    panel.scrollIntoView({ block: "nearest" });
    return off(panel);
  }
  const region = document.querySelector(`.steps[data-figure="${name}"]`);
  const press = (key) => region.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
  const data = bookSteps.data(name), missed = [];
  press("Home");
  for (let at = 0; at <= data.steps; at++, press("ArrowRight")) {
    const [lit] = data.positions[at].tracks[data.key ?? 0].active;
    const where = lit === undefined ? "" : off(find(lit));  // none lit: that walk is done
    if (where) missed.push(`step ${at}: ${lit} ${where}`);
  }
  return missed.join("; ");
}
"""

# Each display equation: whether any of it is hidden (outside its box) without being a
# marked scroller, and whether it is set at least as large as code (page.js may shrink it).
EQUATIONS_JS = """
[...document.querySelectorAll("article div.arithmatex")].map(div => {
  const math = div.querySelector("math").getBoundingClientRect(), box = div.getBoundingClientRect();
  const hidden = math.right > Math.min(box.right, innerWidth) + 1 || math.left < box.left - 1;
  const marked = div.dataset.scrolls === "yes" && div.tabIndex === 0;
  const size = parseFloat(getComputedStyle(div.querySelector("math")).fontSize);
  const text = parseFloat(getComputedStyle(div.closest("article")).fontSize);
  return {tex: div.querySelector("annotation").textContent.slice(0, 50),
          cut: hidden && !marked, legible: size >= 0.85 * text};  // Material's code: 0.85em
})
"""


def test_on_a_phone_figures_make_their_point_and_no_equation_is_cut(
    open_page, site_url, built_site
):
    """At 390 px, one load of each page with a figure or display math: every figure is
    within the column or scrolls inside it (marked, a tab stop), at least 55 % of its drawn
    size; the panel its caption is about (figures.py, ``key``) is on the screen, and so is
    its lit node at every step; no display equation is cut, and none is smaller than code."""
    pages = _pages_with(built_site, 'class="picture"')
    pages += [p for p in _pages_with(built_site, 'class="arithmatex"') if p not in pages]
    tab = open_page(site_url + "/", phone=True)
    seen = stepped = 0
    for page in pages:
        tab.goto(site_url + url_path(page))
        tab.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")
        for figure in tab.evaluate(FIGURES_JS):
            seen += 1
            where = f"{page.name}, the figure {figure['label']!r}"
            assert figure["within"] or figure["scrolls"], f"{where} sticks out: {figure}"
            assert figure["within"] or figure["marked"], f"{where} scrolls unmarked: {figure}"
            assert figure["drawn"] > 0, f"{where} has no --picture-width (tools/site/figures.py)"
            assert figure["width"] <= figure["drawn"] + 1, f"{where} is blown up: {figure}"
            legible = min(figure["drawn"] * 0.55, PHONE["width"])
            assert figure["width"] >= legible - 1, f"{where} is shrunk illegibly: {figure}"
            key = FIGURES[figure["name"]].key
            if key is not None or figure["within"]:  # else: the whole figure, scrolling
                missed = tab.evaluate(KEY_JS, [figure["name"], key, False])
                assert not missed, f"{where}: the panel its caption is about is {missed}"
            if FIGURES[figure["name"]].steps:
                stepped += 1
                missed = tab.evaluate(KEY_JS, [figure["name"], key, True])
                assert not missed, f"{where}, stepped: the lit node is not in sight: {missed}"
        for equation in tab.evaluate(EQUATIONS_JS):
            assert not equation["cut"], f"{page.name}: ${equation['tex']}...$ is cut"
            assert equation["legible"], f"{page.name}: ${equation['tex']}...$ is shrunk illegibly"
    assert seen >= 10 and stepped >= 4, f"only {seen} figures, {stepped} stepped on the phone"
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


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
    tab = open_page(site_url + "/03-backward.html")
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
