"""Every page of the built site, opened once in Chromium and swept by each test below in
turn (one visit a page, since loading one costs about 3 s of CPU).

- Its display math is set in the site's math font, sums with limits at their display
  size, and what fits its column has nothing to scroll (so no scrollbar, wherever
  scrollbars are classic).
- It loads without console errors or failed requests, holds each id once and every link
  within itself leads to one, weighs at most 1.45 MB before the reader reaches for
  anything, shows its pictures at a real size within the text column, has a Run bar on
  each python fence, and fits a 390-pixel phone screen; there (resized), each figure
  shows one drawing, legible, within the column or scrolling (marked), its key panel and
  lit node in sight at each step, and no display equation is cut or smaller than code.
- axe-core finds nothing in it light at 1280 px; on the pages of EVERY_LOOK, also at 390
  px (page.js marks what then scrolls sideways) and dark at 1280 px with the fences'
  editors made (switched with the header's toggle as a reader would, its fences reached
  for). The other pages are the same template holding the same kinds of element, so the
  phone and dark passes would only look at the same CSS again (on a phone, each is checked
  for the one rule that depends on its own content: what scrolls can be focused), and so
  would the light pass's two colour rules (BY_KIND: two thirds of a run's time), which
  they leave to the look pages: test_every_look_pages_hold_every_kind_of_element checks,
  in the built HTML, that those pages hold every kind there is, and every property an
  element's own style attribute sets. Any violation fails, with its rule, where and what to
  fix, except those named in EXCEPTIONS, each with the reason the book cannot fix it.
  axe-core is pinned and integrity-checked as the page's own npm packages are
  (tools/site/runtime.py, AXE), but only these tests use it: the site never ships it.

Every request must stay on loopback: any other is refused and reported
(tests/helpers/browser.py).
"""

import re
import tarfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.helpers.browser import DESKTOP, PHONE, WORKER, assert_clean, open_tab, python_never_comes
from tests.helpers.site import ENGINE_PAGE, ENGINE_PAGES, PAGES, SITE_PAGES, missing, url_path
from tools.figures.from_chapters import FIGURES
from tools.site import runtime
from tools.site.page_data import page_fences

FIGURE = re.compile(r"!\[[^\]]*\]\(figures/[\w-]+\.svg\)")

# Bytes a page may load before any sign of intent (issue 27): chapter 10 weighed 1.25 MB after
# issues 39 and 40; Part II (issue 45) put 60 kB in the search index and 22 kB in engine.json,
# which every page loads: 1.33 MB; the lab's first drawing, the data and the untrained
# network made while the site is built (issue 46), 20 kB more on chapter 10 alone: 1.37 MB;
# tensor.py's woven page (issue 45), 34 kB more in the search index: 1.43 MB. Others: under.
PAGE_WEIGHT = 1_450_000

# Ids the page holds twice, and its links within itself that lead to no id.
SAME_PAGE_JS = """(() => {
  const ids = [...document.querySelectorAll("[id]")].map((node) => node.id);
  const twice = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
  const nowhere = [...document.querySelectorAll('a[href^="#"]')]
    .map((a) => decodeURIComponent(a.getAttribute("href").slice(1)))
    .filter((id) => id && !document.getElementById(id));
  return { twice, nowhere };
})()"""

# What the page shows of its pictures (svg.picture: tools/page/svg.py).
PICTURES_JS = """
[...document.querySelectorAll("article svg.picture")].map(svg => {
  const box = svg.getBoundingClientRect(), style = getComputedStyle(svg);
  const column = svg.closest("article").getBoundingClientRect();
  return {width: box.width, height: box.height, hidden: style.visibility !== "visible",
          overflows: box.right > column.right + 1};
})
"""

MATH_JS = """
[...document.querySelectorAll("article div.arithmatex")].map(div => {
  const style = getComputedStyle(div), math = div.querySelector("math");
  return {fits: math.getBoundingClientRect().width <= div.clientWidth,
          scrolls: [div.scrollWidth - div.clientWidth, div.scrollHeight - div.clientHeight],
          overflowY: style.overflowY, tex: math.querySelector("annotation").textContent};
})
"""


# The math font, once loaded (the site's subset: tools/site/mathfont.py), and the height of
# each display sum with limits, in ems: its MATH table's larger size (1.4 em), not the
# text-size glyph (1.05 em) that a font without the table, or without its variants, gives.
FONT_JS = """async () => {
  await document.fonts.ready;
  const sums = [...document.querySelectorAll("article math[display=block] munder > mo")];
  return {faces: [...document.fonts].filter(f => f.family.includes("STIX")).map(f => f.status),
          sums: sums.filter(mo => mo.textContent === "\u2211").map(
            mo => mo.getBoundingClientRect().height / parseFloat(getComputedStyle(mo).fontSize))};
}"""


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


# The pages axe also sees on a phone, dark and by BY_KIND: together they hold every kind of
# element (Kinds: tag, class, style) that any page's article holds, so these
# passes see every rule of the stylesheets that applies: the home page; chapter 6, with
# figures, display math, engine fences (their file name and "used in") and stepped folds;
# chapter 10, the lab's; chapter 15, the only answer fold (its own colour); chapter 16,
# learner mode's; and the engine page. Each kind's first page in this order is named in
# test_every_look_pages_hold_every_kind_of_element's message when one is missing.
EVERY_LOOK = [
    *(p for p in PAGES if p.name.startswith(("index", "06-", "10-", "15-", "16-"))),
    ENGINE_PAGE,
]


class Kinds(HTMLParser):
    """The kinds of element in a page's <article>, as "tag", "tag.class" and "tag[style:p]"
    (its style attribute sets the property p), outside <svg> and <math> (axe reads a
    picture by its label, a formula as text)."""

    def __init__(self):
        super().__init__()
        self.article = self.inside = 0
        self.kinds: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.article += tag == "article"
        self.inside += tag in ("svg", "math")
        if self.article and not self.inside:
            attrs = dict(attrs)
            self.kinds |= {tag, *(f"{tag}.{c}" for c in (attrs.get("class") or "").split())}
            style = (part.split(":")[0].strip() for part in (attrs.get("style") or "").split(";"))
            self.kinds |= {f"{tag}[style:{p}]" for p in style if p}

    def handle_endtag(self, tag):
        self.article -= tag == "article"
        self.inside -= tag in ("svg", "math")


def kinds_of(built_site, page: Path) -> set[str]:
    found = Kinds()
    found.feed((built_site / url_path(page).lstrip("/")).read_text(encoding="utf-8"))
    return found.kinds


def test_every_look_pages_hold_every_kind_of_element(built_site):
    assert len(EVERY_LOOK) == 6, [p.name for p in EVERY_LOOK]
    seen = set().union(*(kinds_of(built_site, page) for page in EVERY_LOOK))
    missing = {}
    for page in SITE_PAGES:
        for kind in sorted(kinds_of(built_site, page) - seen):
            missing.setdefault(kind, page.name)
    assert not missing, (
        f"{missing} (kind of element: the first page holding it) are on no page of "
        "EVERY_LOOK in tests/site/test_every_page.py, so axe never sees them on a phone, "
        "dark, or by its colour rules: add that page to EVERY_LOOK (or a page that holds "
        "them all)"
    )


# (rule, a CSS selector of the elements it excuses): why the book cannot fix it. Nothing
# else is excused: a new violation of the same rule elsewhere still fails.
EXCEPTIONS = {
    ("landmark-unique", ".md-code__nav"): (
        "Material 9 wraps the copy button of every code block in a <nav> without a name, "
        "added by its own script after the page loads; the book has no template for it"
    ),
    ("scrollable-region-focusable", ".cm-scroller"): (
        "CodeMirror's scroller holds its .cm-content, a contenteditable element that takes "
        "the focus and scrolls it with the caret; axe-core does not count contenteditable "
        "as focusable, and a second tab stop on the scroller would only slow a keyboard"
    ),
}

# The rules whose finding for an element follows from the colours the stylesheets give its
# kind and its ancestors' kinds alone: the look pages hold every kind, so the other pages
# leave them out of their light pass. Every other rule looks at each page's own content.
BY_KIND = ("color-contrast", "link-in-text-block")

AXE_RUN = """async ([excused, only, off]) => {
  const rules = only.length ? {runOnly: {type: "rule", values: only}} : {};
  rules.rules = Object.fromEntries(off.map((id) => [id, {enabled: false}]));
  const found = await axe.run(document, {resultTypes: ["violations"], ...rules});
  const problems = [];
  for (const rule of found.violations) {
    const selectors = excused.filter(([id]) => id === rule.id).map(([, selector]) => selector);
    for (const node of rule.nodes) {
      const element = document.querySelector(node.target[0]);
      if (element && selectors.some(selector => element.matches(selector))) continue;
      problems.push(`${rule.id} (${rule.help}) at ${node.target.join(" ")}: ` +
                    node.failureSummary.replace(/\\s+/g, " ").slice(0, 300));
    }
  }
  return problems;
}"""


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, from the pinned tarball (fetched into the cache if need be)."""
    try:
        tarball = runtime.runtime_tarball(runtime.AXE)
    except runtime.RuntimeUnavailableError as why:
        reason = f"axe-core {runtime.AXE.version} cannot be had: {why}"
        missing(reason)
    [script] = runtime.AXE.files
    with tarfile.open(tarball) as archive:
        return archive.extractfile(f"package/{script}").read().decode("utf-8")


def violations(tab, axe_source: str, *only: str, off: tuple[str, ...] = ()) -> list[str]:
    """What axe-core finds in the page (of the rules ``only``, if named; not ``off``)."""
    if not tab.evaluate("typeof axe !== 'undefined'"):
        tab.add_script_tag(content=axe_source)
    return tab.evaluate(AXE_RUN, [[list(key) for key in EXCEPTIONS], list(only), list(off)])


def make_editors(tab) -> None:
    """Reach for the page's first fence, as a reader's click does, and wait for every
    runnable fence's editor. The click focuses the code, which starts Python, as it would
    for a reader; Python never comes (``python_never_comes``)."""
    runnable = tab.locator(".notebook-bar:not(.notebook-blocked)").count()
    if not runnable:
        return
    python_never_comes(tab)
    with tab.expect_request(WORKER):  # the reach asks for Python
        tab.locator("article div.language-python.highlight").first.dispatch_event("pointerdown")
    tab.wait_for_function(f"document.querySelectorAll('.notebook-editor').length >= {runnable}")


@pytest.fixture(scope="module", params=SITE_PAGES, ids=[page.name for page in SITE_PAGES])
def visit(request, browser, site_url, kept_context):
    """(page, tab): the page opened once for the tests below, which pytest runs one page at
    a time, in the order they are written: the pages axe sees light only in turn in the tab
    of kept_context (a fresh context doubles a load's CPU; the server's no-cache has every
    file but the favicon asked for again, and weighed), a page of EVERY_LOOK (made dark,
    its worker routed) in a context of its own."""
    url = site_url + url_path(request.param)
    tab = open_tab(browser, url) if request.param in EVERY_LOOK else kept_context
    if tab is kept_context:
        tab.goto("about:blank")  # what the page before still loads is let go, then forgotten
        tab.watch.problems.clear()
        tab.watch.requested.clear()
        tab.set_viewport_size(DESKTOP)  # the tests below leave it on a phone
        tab.goto(url, wait_until="load")
    tab.wait_for_load_state("networkidle")
    yield request.param, tab
    if tab is not kept_context:
        tab.context.close()


def test_display_math_is_set_in_the_math_font_and_what_fits_has_nothing_to_scroll(visit):
    page, tab = visit
    maths = tab.evaluate(MATH_JS)
    if not maths:
        return  # no display math on this page
    font = tab.evaluate(FONT_JS)
    assert font["faces"] == ["loaded"], f"{page.name}: the math font is {font['faces']}"
    for math in maths:
        if not math["fits"]:
            continue
        assert math["scrolls"] == [0, 0] and math["overflowY"] in ("hidden", "visible"), (
            f"{page.name}: ${math['tex']}$ fits its column but can scroll "
            f"{math['scrolls']} px (x, y), so it shows a scrollbar where scrollbars are "
            "classic: see div.arithmatex in docs/stylesheets/math.css"
        )
    small = [round(height, 2) for height in font["sums"] if height <= 1.3]
    assert not small, f"{page.name}: display sums {small} em high: no MATH table variants?"


def test_page_loads_cleanly_and_fits_a_phone_screen(visit, site_url, built_site):
    page, tab = visit
    assert_clean(tab, page.name)
    same = tab.evaluate(SAME_PAGE_JS)
    assert same == {"twice": [], "nowhere": []}, f"{page.name}: ids twice, links to none: {same}"

    if page in ENGINE_PAGES:
        assert tab.locator("article pre code").count() > 10, "the engine's chunks are shown"
    else:
        drawn = len(FIGURE.findall(page.read_text(encoding="utf-8")))  # ![...](figures/...)
        pictures = tab.evaluate(PICTURES_JS)
        assert len(pictures) >= drawn, f"{page.name}: {drawn} figures, {len(pictures)} shown"
        for picture in pictures:
            assert picture["width"] > 0 and picture["height"] > 0, f"{page.name}: empty {picture}"
            assert not picture["hidden"], f"{page.name}: hidden picture {picture}"
            assert not picture["overflows"], f"{page.name}: picture wider than the text {picture}"

    if page not in ENGINE_PAGES and (built_site / "assets" / "pyodide").exists():
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


def figures_of(built_site, page: Path) -> list[str]:
    html = (built_site / url_path(page).lstrip("/")).read_text(encoding="utf-8")
    return re.findall(r'<svg [^>]*?data-figure="([^"]+)"', html)  # not the phone's drawings


def test_the_pages_hold_figures_and_stepped_ones_for_the_phone_check(built_site):
    seen = [name for page in SITE_PAGES for name in figures_of(built_site, page)]
    stepped = [name for name in seen if FIGURES[name].steps]
    assert len(seen) >= 10 and len(stepped) >= 4, f"too few for the phone check: {seen}"


def test_on_a_phone_figures_make_their_point_and_no_equation_is_cut(visit, built_site):
    """The visit's tab, resized: a phone-sized tab (open_tab's ``phone``) differs in its
    viewport alone, and the media queries and page.js lay it out as on a load."""
    page, tab = visit
    tab.set_viewport_size(PHONE)
    tab.wait_for_timeout(200)  # page.js marks what scrolls sideways 100 ms after a resize
    tab.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")
    figures = tab.evaluate(FIGURES_JS)
    shown, held = sorted(f["name"] for f in figures), sorted(figures_of(built_site, page))
    assert shown == held, f"{page.name}: figures {held}, drawings shown on the phone {shown}"
    for figure in figures:
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
            missed = tab.evaluate(KEY_JS, [figure["name"], key, True])
            assert not missed, f"{where}, stepped: the lit node is not in sight: {missed}"
    for equation in tab.evaluate(EQUATIONS_JS):
        assert not equation["cut"], f"{page.name}: ${equation['tex']}...$ is cut"
        assert equation["legible"], f"{page.name}: ${equation['tex']}...$ is shrunk illegibly"
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], page.name


def test_page_passes_axe_light_and_on_every_look_page_dark_and_on_a_phone(visit, axe_source):
    page, tab = visit
    tab.set_viewport_size(DESKTOP)  # as it opened: the test above saw it on a phone
    tab.wait_for_timeout(200)  # page.js marks what scrolls sideways 100 ms after a resize
    look = page in EVERY_LOOK  # the others hold no kind of element these do not
    found = {"light, 1280 px": violations(tab, axe_source, off=() if look else BY_KIND)}
    if look:
        tab.set_viewport_size(PHONE)
        tab.wait_for_timeout(200)  # page.js marks what scrolls sideways 100 ms after a resize
        found["light, 390 px"] = violations(tab, axe_source)
        tab.set_viewport_size(DESKTOP)
        tab.locator('label[title="Switch to dark mode"]').click()  # the header's toggle
        tab.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
        make_editors(tab)
        found["dark, 1280 px, editors made"] = violations(tab, axe_source)
    else:  # what scrolls on a phone differs page by page: each such box can be focused
        tab.set_viewport_size(PHONE)
        tab.wait_for_timeout(200)
        found["light, 390 px"] = violations(tab, axe_source, "scrollable-region-focusable")
    problems = [f"{how}: {problem}" for how, said in found.items() for problem in said]
    assert not problems, (
        f"{page.name}: {len(problems)} accessibility violations (axe-core "
        f"{runtime.AXE.version}); fix them in docs/stylesheets/ or the page's scripts, or, "
        "if Material breaks a rule the book cannot fix, name it in EXCEPTIONS with the "
        "reason:\n" + "\n".join(problems[:20])
    )
