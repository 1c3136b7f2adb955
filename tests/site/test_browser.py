"""The built site in a real browser: Debian's headless Chromium, driven by Playwright.

The site is built once (tests/site/conftest.py), served once from 127.0.0.1 by a stdlib HTTP
server, and opened in one Chromium for the whole session (a fresh context per test).
Every page must load without console errors or failed requests, show its pictures at a
real size within the text column, and fit a 390-pixel phone screen; opened from disk it
must still navigate. The Run buttons (tools/site/runtime.py, fences.py) must run every chapter in
the page, as pytest does, show failures with their chapter line, stop a runaway loop, and
work in the dark scheme on a phone. Every request of every test must stay on loopback:
any other is refused and reported.

Skipped where `chromium` is not installed (apt-get install chromium fonts-liberation),
except on CI (CI=true), where that is a failure; the same for the site's Python runtime
(it needs npm). Playwright drives Debian's chromium; it never downloads a browser. Set
SITE_SCREENSHOTS=<folder> to also save a light and a dark screenshot of every page there.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.helpers.site import ENGINE_PAGE, SITE_PAGES, build_small_site, serve, url_path
from tools import ROOT
from tools.chapter import chapters
from tools.notebook import Notebook
from tools.site.fences import page_fences
from tools.site.runtime import RUNTIME_FILES

PAGES = chapters(ROOT / "docs")
CHAPTERS = [page for page in PAGES if page_fences(page)["fences"]]
FIGURE = re.compile(r"!\[[^\]]*\]\(figures/[\w-]+\.svg\)")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
PHONE = {"width": 390, "height": 844}
RUN_TIMEOUT = 300_000  # ms: loading Python, then running a whole chapter, on a busy machine

# What the page shows of its pictures (svg.picture, drawn by tools/pictures.py).
PICTURES_JS = """
[...document.querySelectorAll("article svg.picture")].map(svg => {
  const box = svg.getBoundingClientRect(), style = getComputedStyle(svg);
  const column = svg.closest("article").getBoundingClientRect();
  return {width: box.width, height: box.height, hidden: style.visibility !== "visible",
          overflows: box.right > column.right + 1};
})
"""


class Watch:
    """Everything a browser context does that a clean page must not: errors, failed
    requests, and requests to other hosts (refused before they leave)."""

    def __init__(self, context):
        self.problems: list[str] = []
        self.requested: list[str] = []
        context.route(lambda url: not self.local(url), self.refuse)
        context.on("request", lambda request: self.requested.append(request.url))
        context.on("requestfailed", self.failed)
        context.on("response", self.response)
        context.on("console", self.console)
        context.on("weberror", lambda error: self.problems.append(f"uncaught: {error.error}"))

    @staticmethod
    def local(url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme in ("data", "blob", "about", "file") or parts.hostname in LOOPBACK

    def refuse(self, route):
        self.problems.append(f"request to another host: {route.request.url}")
        route.abort()

    def failed(self, request):
        if self.local(request.url):
            self.problems.append(f"request failed: {request.failure}: {request.url}")

    def response(self, response):
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def console(self, message):
        if message.type in ("error", "assert"):
            self.problems.append(f"console.{message.type}: {message.text} {message.location}")


@pytest.fixture
def open_page(browser):
    """Open a page in a fresh browser context: open_page(url, dark=False, phone=False)."""
    opened = []

    def open_(url: str, *, dark: bool = False, phone: bool = False):
        context = browser.new_context(
            color_scheme="dark" if dark else "light",
            viewport=PHONE if phone else {"width": 1280, "height": 900},
        )
        context.set_default_timeout(30_000)
        watch = Watch(context)
        page = context.new_page()
        page.watch = watch
        opened.append(context)
        page.goto(url, wait_until="load")
        return page

    yield open_
    for context in opened:
        context.close()


def assert_clean(page, what: str) -> None:
    assert not page.watch.problems, f"{what} in Chromium: {page.watch.problems}"


# -- every page --------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_page_loads_cleanly_in_chromium(open_page, site_url, built_site, page):
    tab = open_page(site_url + url_path(page))
    tab.wait_for_load_state("networkidle")
    assert_clean(tab, page.name)

    drawn = len(FIGURE.findall(page.read_text(encoding="utf-8")))  # ![...](figures/...)
    pictures = tab.evaluate(PICTURES_JS)
    assert len(pictures) >= drawn, f"{page.name}: {drawn} figures, {len(pictures)} shown"
    for picture in pictures:
        assert picture["width"] > 0 and picture["height"] > 0, f"{page.name}: empty {picture}"
        assert not picture["hidden"], f"{page.name}: hidden picture {picture}"
        assert not picture["overflows"], f"{page.name}: picture wider than the text {picture}"

    if (built_site / "assets" / "pyodide").exists():  # every shown python fence has a bar
        shown = page_fences(page)["fences"]
        bars = tab.locator(".notebook-bar").count()
        assert bars == len(shown), f"{page.name}: {len(shown)} python fences, {bars} Run bars"
        assert not any("pyodide" in url for url in tab.watch.requested), (
            f"{page.name}: the Python runtime was loaded before any Run click"
        )

    if folder := os.environ.get("SITE_SCREENSHOTS"):
        Path(folder).mkdir(parents=True, exist_ok=True)
        for dark in (False, True):
            shot = open_page(site_url + url_path(page), dark=dark)
            shot.wait_for_load_state("networkidle")
            name = f"{page.stem}-{'dark' if dark else 'light'}.png"
            shot.screenshot(path=str(Path(folder) / name), full_page=True)


@pytest.mark.parametrize("page", SITE_PAGES, ids=[page.name for page in SITE_PAGES])
def test_page_fits_a_phone_screen(open_page, site_url, page):
    tab = open_page(site_url + url_path(page), phone=True)
    width = tab.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], (
        f"{page.name} is {width} px wide on a {PHONE['width']} px screen: something "
        "(a formula, a table, a picture) needs to scroll inside its own box"
    )
    assert_clean(tab, page.name)


def test_the_woven_engine_page_loads_cleanly(open_page, site_url):
    tab = open_page(site_url + url_path(ENGINE_PAGE))
    tab.wait_for_load_state("networkidle")
    assert_clean(tab, ENGINE_PAGE.name)
    assert tab.locator("article pre code").count() > 10, "the engine's chunks are shown"


def test_site_navigates_from_disk_and_the_run_buttons_say_to_serve_it(open_page, built_site):
    home = open_page((built_site / "index.html").as_uri())
    first, second = PAGES[1], PAGES[2]
    home.locator("a.md-footer__link--next").click()
    home.wait_for_load_state("load")
    assert home.url.endswith(url_path(first)), home.url
    home.locator("a.md-footer__link--next").click()
    home.wait_for_load_state("load")
    assert home.url.endswith(url_path(second)), home.url
    assert home.locator("article h1").first.is_visible()

    if (built_site / "assets" / "pyodide").exists():
        home.locator(".notebook-run").first.click()
        said = home.locator(".notebook-failure").first.text_content()
        for advice in ("served", "python3 tools/dev.py serve", "python3 -m http.server -d site"):
            assert advice in said, f"from file://, a Run click should say {advice!r}: {said!r}"
    outside = [url for url in home.watch.requested if not url.startswith("file://")]
    assert not outside, f"opened from disk, the site asked for {outside}"


# -- the Run buttons -----------------------------------------------------------------------


def bar(tab, line: int):
    """The Run bar of the fence whose code starts on chapter line ``line``."""
    return tab.locator(f'.notebook-bar[data-line="{line}"]')


def code(tab, line: int):
    """The editable code of that fence (opening the <details> around it, if any)."""
    block = bar(tab, line).locator("xpath=preceding-sibling::div[1]")
    block.evaluate("b => { const d = b.closest('details'); if (d) d.open = true; }")
    return block.locator("pre > code")


def run(tab, line: int) -> None:
    """Click Run on a fence and wait until the chapter has stopped running. A fence in a
    folded block (checks, a solution) is first unfolded, as a reader would."""
    bar(tab, line).evaluate(
        "b => { for (let d = b.closest('details'); d; d = d.parentElement.closest('details'))"
        " d.open = true; }"
    )
    bar(tab, line).locator(".notebook-run").click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=RUN_TIMEOUT)


def states(tab) -> dict[int, str]:
    """Each Run bar's state by fence line: idle, running, ran, failed, not-run, stopped."""
    bars = tab.locator(".notebook-bar:not(.notebook-blocked)").all()
    return {int(b.get_attribute("data-line")): b.get_attribute("data-state") for b in bars}


def printed(tab, line: int) -> str:
    """What the fence printed when it last ran, as the page shows it."""
    result = bar(tab, line).locator("xpath=following-sibling::div[@class='notebook-result'][1]")
    return result.locator(".notebook-printed").text_content()


def failure(tab, line: int) -> str:
    """How the fence failed when it last ran, as the page shows it."""
    result = bar(tab, line).locator("xpath=following-sibling::div[@class='notebook-result'][1]")
    return result.locator(".notebook-failure").text_content()


def chapter_page(open_page, site_url, name: str, **options):
    [page] = [p for p in PAGES if p.name.startswith(name)]
    tab = open_page(site_url + url_path(page), **options)
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    return page, tab


def fence_with(page: Path, text: str) -> dict:
    """The one python fence of ``page`` whose code contains ``text``."""
    found = [f for f in page_fences(page)["fences"] if text in f["code"]]
    assert len(found) == 1, f"{page.name}: {len(found)} python fences contain {text!r}"
    return found[0]


def assert_loaded_locally(tab) -> None:
    """The runtime came from the site itself, and nothing went elsewhere (Watch refuses it)."""
    for name in RUNTIME_FILES:
        assert any(url.endswith(f"/assets/pyodide/{name}") for url in tab.watch.requested), name


@pytest.mark.usefixtures("runtime")
def test_a_late_fence_in_chapter_3_runs_the_fences_above_it_first(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "03-")
    late = fence_with(page, "x2, a2, L2 = diamond()")
    code(tab, late["line"]).fill(late["code"] + "print(x.grad, x2.grad)\n")
    run(tab, late["line"])

    found = states(tab)
    above = [line for line in found if line < late["line"]]
    assert above and all(found[line] == "ran" for line in above), found
    assert found[late["line"]] == "ran", found
    assert all(found[line] == "idle" for line in found if line > late["line"]), found
    assert printed(tab, late["line"]).endswith("a fresh graph gives 30.0\n30.0 30.0\n")
    assert_loaded_locally(tab)
    assert_clean(tab, page.name)


def expected_failure(page: Path, tmp_path: Path, old: str, new: str) -> tuple[int, str, int]:
    """Where pytest's runner stops the chapter with ``old`` replaced by ``new``: the failing
    fence's first line, the error's type, and the chapter line its failure names."""
    copy = tmp_path / page.name
    text = page.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{page.name} should contain {old!r} once"
    copy.write_text(text.replace(old, new), encoding="utf-8")
    book = Notebook(copy)
    book.run_until(len(book.cells))
    assert book.error is not None, f"{page.name} with {new!r} passes under pytest"
    named = int(re.match(rf".*{re.escape(copy.name)}:(\d+): ", book.failure)[1])
    return book.cells[book.next - 1].line, type(book.error).__name__, named


@pytest.mark.usefixtures("runtime")
def test_what_a_fence_prints_shows_under_its_output_block(open_page, tmp_path):
    # A small site's chapter has what no real chapter needs: a fence that prints
    # "</script>" (which must not end the page's fence data early), with its ```output
    # block, and one that imports torch (which the page cannot run).
    small, _ = build_small_site(tmp_path, {})
    with serve(small) as url:
        tab = open_page(url + "/01-a-chapter.html")
        tab.wait_for_selector("body[data-notebook=idle]", state="attached")
        line = 9  # print("</script> stays inside the data"), then its ```output block
        run(tab, line)
        result = bar(tab, line).locator("xpath=following-sibling::div[2]")
        assert "notebook-result" in result.get_attribute("class"), "not below the block"
        assert (
            result.locator("xpath=preceding-sibling::div[1]")
            .get_attribute("class")
            .startswith("language-output")
        )
        assert printed(tab, line) == "</script> stays inside the data\n"
        assert "the same as the book's output" in result.text_content()

        code(tab, line).fill('print("something else")\n')
        run(tab, line)
        assert printed(tab, line) == "something else\n"
        assert "the book's output above differs" in result.text_content()
        assert "imports torch" in tab.locator(".notebook-blocked").text_content()
        assert_clean(tab, "the small site")


@pytest.mark.usefixtures("runtime")
def test_breaking_the_engine_in_chapter_2_fails_the_check_pytest_fails(
    open_page, site_url, tmp_path
):
    old, new = "operand.grad += local * grad", "operand.grad = local * grad"
    page, tab = chapter_page(open_page, site_url, "02-")
    failing_line, error, named = expected_failure(page, tmp_path, old, new)
    engine = fence_with(page, old)
    assert engine["engine"]
    last = max(int(line) for line in states(tab))

    code(tab, engine["line"]).fill(engine["code"].replace(old, new))
    run(tab, last)
    found = states(tab)
    assert found[failing_line] == "failed", found
    assert all(found[line] == "ran" for line in found if line < failing_line), found
    assert all(found[line] == "not-run" for line in found if line > failing_line), found
    said = failure(tab, failing_line)
    headline = re.match(rf"docs/{page.name}:(\d+): {error}", said)
    assert headline, f"the failure should start with the chapter line and {error}: {said!r}"
    assert int(headline[1]) == named, f"pytest names line {named}, the page {headline[1]}"

    bar(tab, engine["line"]).locator(".notebook-reset").click()  # Reset, and all is well
    assert code(tab, engine["line"]).text_content() == engine["code"]
    run(tab, last)
    assert set(states(tab).values()) == {"ran"}, states(tab)

    assert_clean(tab, page.name)


@pytest.mark.usefixtures("runtime")
def test_stop_a_runaway_loop_on_a_phone_in_the_dark(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "01-", dark=True, phone=True)
    assert tab.evaluate("document.body.dataset.mdColorScheme") == "slate"
    first, second = sorted(states(tab))[:2]
    code(tab, second).fill("while True:\n    pass\n")
    bar(tab, second).locator(".notebook-run").click()
    tab.wait_for_selector(f'.notebook-bar[data-line="{second}"][data-state=running]')
    assert tab.evaluate("1 + 1") == 2  # the page answers: Python runs in a worker
    stop = bar(tab, second).locator(".notebook-stop")
    assert stop.is_visible() and box_fits(stop, PHONE["width"])
    [worker] = python_workers(tab)
    with worker.expect_event("close", timeout=10_000):  # Stop ends the worker running Python
        stop.click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    assert states(tab)[second] == "stopped"
    assert python_workers(tab) == []

    bar(tab, second).locator(".notebook-reset").click()
    run(tab, second)  # a fresh Python: the fence above runs again first
    assert states(tab)[first] == states(tab)[second] == "ran", states(tab)
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    run_button = bar(tab, first).locator(".notebook-run")
    assert box_fits(run_button, PHONE["width"])
    colours = run_button.evaluate(
        "b => [getComputedStyle(b).color, getComputedStyle(document.body).backgroundColor]"
    )
    assert colours[0] != colours[1], f"the Run button's text is the page's colour: {colours}"
    assert_clean(tab, page.name)


DEEP = """\
from micrograd import Value


def chain(length):
    node = Value(1.0)
    for _ in range(length):
        node = node * 1.0
    return node


for length in (1_000, 100_000):
    deep = chain(length)
    deep = None  # freeing a deep graph must not crash the browser's Python
    print("freed", length)


def down(n):
    return down(n + 1)


try:
    down(0)
except RecursionError:
    print("RecursionError")
"""


@pytest.mark.usefixtures("runtime")
def test_deep_graphs_are_freed_and_runaway_recursion_is_a_recursion_error(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "01-")
    first = min(states(tab))
    code(tab, first).fill(DEEP)
    run(tab, first)
    assert states(tab)[first] == "ran", failure(tab, first)
    assert printed(tab, first) == "freed 1000\nfreed 100000\nRecursionError\n"
    assert_clean(tab, page.name)


def python_workers(tab) -> list:
    return [worker for worker in tab.workers if worker.url.endswith("/notebook/worker.js")]


def box_fits(locator, width: int) -> bool:
    box = locator.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


@pytest.mark.usefixtures("runtime")
@pytest.mark.parametrize("page", CHAPTERS, ids=[page.name for page in CHAPTERS])
def test_every_fence_runs_and_can_be_edited_in_the_page(open_page, site_url, page):
    tab = open_page(site_url + url_path(page))
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    fences = page_fences(page)["fences"]
    runnable = [f for f in fences if not f["blocked"]]
    if not runnable:
        notes = tab.locator(".notebook-blocked").count()
        assert notes == len(fences), "each fence says why not"
        return
    last = runnable[-1]
    code(tab, last["line"]).fill(last["code"] + 'print("edited in the page")\n')
    run(tab, last["line"])
    found = states(tab)
    failed = {line: state for line, state in found.items() if state != "ran"}
    reports = tab.locator(".notebook-failure").all_text_contents()
    assert not failed, f"{page.name}: fences not passing in the page: {failed}\n{reports}"
    assert set(found) == {f["line"] for f in runnable}  # blocked fences have no Run
    assert printed(tab, last["line"]).endswith("edited in the page\n")
    assert_clean(tab, page.name)


# -- stepping through backward on a figure (tools/site/steps.py, docs/assets/steps/) ---------


def stepped(open_page, url: str, figure: str, **options):
    """A page opened at ``url`` and the step-through region of ``figure`` on it."""
    tab = open_page(url, **options)
    region = tab.locator(f'.steps[data-figure="{figure}"]')
    region.wait_for()
    return tab, region


def position(region) -> str:
    """Where the step-through is: "" (the figure as drawn), "0" (the start), "1", ..."""
    return region.get_attribute("data-position")


def lines_of(region) -> list[str]:
    """The caption's lines: one per walk the figure steps (after "Step k of n:")."""
    return region.locator(".steps-line").all_text_contents()


def cluster_title(region, k: int) -> str:
    """The "x.grad = ..." line of the title of the figure's k-th walk."""
    texts = region.locator(f'[id="03-careless-walk-cluster-cluster_{k}"] > text')
    return next(t for t in texts.all_text_contents() if t.startswith("x.grad = "))


def test_stepping_the_diamond_to_the_end_reads_30_on_x(open_page, site_url):
    tab, region = stepped(open_page, site_url + "/01-what-autograd-records.html", "01-diamond")
    x = region.locator('[id="01-diamond-node-x"] > text').nth(1)
    assert x.text_content() == "dL/dx = 30" and position(region) == ""  # as drawn
    region.locator(".steps-start").click()
    assert position(region) == "0" and x.text_content() == "dL/dx = 0"
    assert region.locator(".steps-caption").text_content().startswith("Start: L.grad = 1")
    for step in range(1, 5):
        region.locator(".steps-next").click()
        assert position(region) == str(step)
        lit = region.locator("g.steps-active").get_attribute("id")
        assert lit == "01-diamond-node-" + "Lcba"[step - 1], f"step {step} lights {lit}"
    assert x.text_content() == "dL/dx = 30"
    said = region.locator(".steps-caption").text_content()
    assert said.startswith("Step 4 of 4: a (grad 5) sends") and "Done: x.grad = 30." in said
    assert region.locator(".steps-next").is_disabled()
    region.locator(".steps-back").click()
    assert position(region) == "3" and x.text_content() == "dL/dx = 0"  # a has not run yet
    assert_clean(tab, "chapter 1's step-through")


def test_the_careless_walks_end_at_12_and_18_beside_30(open_page, site_url):
    tab, region = stepped(open_page, site_url + "/03-backward.html", "03-careless-walk")
    region.locator(".steps-start").click()
    assert [cluster_title(region, k) for k in range(3)] == ["x.grad = 0"] * 3
    for _ in range(3):  # a runs, too early in both careless walks
        region.locator(".steps-next").click()
    assert [cluster_title(region, k) for k in range(3)] == [
        "x.grad = 12",
        "x.grad = 18",
        "x.grad = 0",
    ]
    lines = region.locator(".steps-line").all_text_contents()
    assert lines[0] == "Step 3 of 5:" and "runs too early" in lines[1] and "too early" in lines[2]
    lit = region.locator("g.steps-active").evaluate_all("gs => gs.map(g => g.id)")
    assert sorted(lit) == [
        "03-careless-walk-node-a0",
        "03-careless-walk-node-a1",
        "03-careless-walk-node-b2",
    ]
    region.locator(".steps-end").click()
    assert [cluster_title(region, k) for k in range(3)] == [
        "x.grad = 12",
        "x.grad = 18",
        "x.grad = 30",
    ]
    assert "too late: a has already run" in lines_of(region)[1]
    assert_clean(tab, "chapter 3's step-through")


def test_keyboard_steps_the_figure_that_has_focus(open_page, site_url):
    tab, region = stepped(open_page, site_url + "/04-a-scalar-neuron.html", "04-neuron")
    region.focus()
    scrolled = tab.evaluate("window.scrollY")
    tab.keyboard.press("ArrowRight")
    assert position(region) == "0"
    tab.keyboard.press("ArrowRight")
    tab.keyboard.press("ArrowRight")
    assert position(region) == "2"
    tab.keyboard.press("ArrowLeft")
    assert position(region) == "1"
    tab.keyboard.press("End")
    assert position(region) == "4" and "Done: w.grad = -0.8" in lines_of(region)[0]
    tab.keyboard.press("Home")
    assert position(region) == "0"
    play = region.locator(".steps-play")
    tab.keyboard.press(" ")  # plays, from here
    assert play.text_content() == "‖ Pause"
    tab.locator('.steps[data-figure="04-neuron"][data-position="1"]').wait_for()
    tab.keyboard.press(" ")  # pauses
    assert play.text_content() == "▶ Play" and int(position(region)) >= 1
    assert tab.evaluate("window.scrollY") == scrolled, "the keys scrolled the page as well"
    caption = region.locator(".steps-caption")
    assert caption.get_attribute("aria-live") == "polite"
    assert region.get_attribute("role") == "region" and region.get_attribute("tabindex") == "0"
    assert_clean(tab, "chapter 4's step-through")


def test_step_controls_work_from_disk(open_page, built_site):
    page = built_site / "05-neuron-layer-mlp.html"
    tab, region = stepped(open_page, page.as_uri(), "05-dot")
    region.locator(".steps-next").click()
    region.locator(".steps-next").click()
    assert position(region) == "1"
    lines = lines_of(region)
    assert lines[:1] == ["Step 1 of 6:"] and lines[1].startswith("one dot node: dot (grad 1) sends")
    assert region.locator("g.steps-edge").count() == 7 + 2  # the dot node's 7, the sum's 2
    region.locator(".steps-next").click()
    assert lines_of(region)[1] == "one dot node: Done after step 1."
    outside = [url for url in tab.watch.requested if not url.startswith("file://")]
    assert not outside, f"opened from disk, the page asked for {outside}"
    assert_clean(tab, "chapter 5's step-through, from disk")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_stepping_on_a_phone_fits_the_screen_in_light_and_dark(open_page, site_url, dark):
    tab, region = stepped(
        open_page, site_url + "/03-backward.html", "03-careless-walk", phone=True, dark=dark
    )
    region.locator(".steps-start").click()
    for _ in range(4):
        region.locator(".steps-next").click()
    width = tab.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"stepping, chapter 3 is {width} px wide on a phone"
    for button in region.locator(".steps-button").all():
        assert box_fits(button, PHONE["width"]), f"{button.text_content()} is off the screen"
    colours = region.locator("g.steps-active > polygon").first.evaluate(
        "p => [getComputedStyle(p).stroke, getComputedStyle(document.body).backgroundColor,"
        " getComputedStyle(p.closest('svg')).color]"
    )
    stroke, background, text = colours
    assert stroke not in (background, text), f"the lit box is not set apart: {colours}"
    assert_clean(tab, f"chapter 3's step-through on a phone ({'dark' if dark else 'light'})")


def test_on_a_phone_the_figure_scrolls_sideways_to_the_lit_box(open_page, site_url):
    tab, region = stepped(open_page, site_url + "/05-neuron-layer-mlp.html", "05-dot", phone=True)
    region.locator(".steps-start").click()
    region.locator(".steps-next").click()
    scrolled = tab.evaluate("window.scrollY")
    region.locator(".steps-next").click()  # the dot node is done: only the long way is lit
    lit = region.locator("g.steps-active").bounding_box()
    assert lit["x"] >= 0 and lit["x"] + lit["width"] <= PHONE["width"], f"out of sight: {lit}"
    assert tab.evaluate("window.scrollY") == scrolled, "the page moved, not just the figure"
    assert_clean(tab, "chapter 5's step-through on a phone")
