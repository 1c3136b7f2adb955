"""The two-moons lab in Chromium: it trains with the page's engine, in the page's one Python,
and gives the chapter's own numbers; Pause, Step, another rate, bad input, a learner's
engine with a planted bug, the keyboard, light and dark and a phone's width, and the page
opened from disk. One tab serves the tests that need Python: it starts once.
"""

from __future__ import annotations

import pytest

from tests.helpers.browser import DESKTOP, PHONE, Watch, fence_with, python_workers, requests_for
from tests.helpers.drive import bar, code
from tests.helpers.site import url_path
from tests.test_lab import LAB_PAGE, STEPS, book  # noqa: F401 (book: the chapter's numbers)
from tools import ROOT
from tools.site.lab import FILE_NOTE

pytestmark = pytest.mark.usefixtures("runtime")

FRAME = "window.bookLab.frame"


@pytest.fixture(scope="module")
def tab(browser, site_url):
    """The chapter's page, in one tab for the module; after it, nothing left loopback."""
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(120_000)
    watch = Watch(context)
    page = context.new_page()
    page.watch = watch
    page.goto(site_url + url_path(LAB_PAGE), wait_until="load")
    page.wait_for_selector(".lab[data-state=idle]")
    yield page
    assert not watch.problems, watch.problems
    context.close()


def frame(tab) -> dict:
    return tab.evaluate(FRAME)


def fill(tab, **settings) -> None:
    for name, value in settings.items():
        tab.locator(f".lab-{name}").fill(str(value))


def press(tab, name: str) -> None:
    """Click a lab button, and wait until the lab has answered."""
    tab.locator(f".lab-{name}").click()
    tab.wait_for_selector(".lab[data-state=idle]")


def train_past(tab, steps: int) -> dict:
    """Train, Pause once ``steps`` steps are done; the frame where it stopped."""
    tab.locator(".lab-train").click()
    tab.wait_for_function(f"{FRAME} && {FRAME}.step >= {steps}")
    tab.locator(".lab-pause").click()
    tab.wait_for_selector(".lab[data-state=idle]")
    return frame(tab)


def test_the_book_settings_give_the_chapters_losses_and_pause_stops(tab, book):  # noqa: F811
    fill(tab, rate="1.0", steps="100", seed="0")
    press(tab, "reset")
    paused = train_past(tab, STEPS)
    assert STEPS <= paused["step"] < 100, "Pause stopped training before the last step"
    # The page's cos, sin and log (the data's, through random.gauss) are Emscripten's, and
    # differ from glibc's in the last bit for 12 of the 200 points: from step 13 on, the
    # losses differ in their last bits. Within 1e-9 relative, the whole run.
    assert paused["losses"][:STEPS] == pytest.approx(book["losses"], rel=1e-9, abs=0)
    assert paused["accuracies"][:STEPS] == book["accuracies"]
    press(tab, "step")
    stepped = frame(tab)
    assert stepped["step"] == paused["step"] + 1 and stepped["losses"][:-1] == paused["losses"]
    now = tab.locator(".lab-now").text_content()
    assert now == stepped["status"] and now.startswith(f"{stepped['step']} of 100 steps done.")
    assert tab.locator(".lab-status").text_content() == now  # told to screen readers,
    assert tab.locator(".lab-status").bounding_box()["height"] <= 1  # and not shown twice
    assert tab.locator(".lab-boundary rect").count() > 0
    assert tab.locator(".lab-network line").count() == 2 * 16 + 16 * 16 + 16
    assert len(python_workers(tab)) == 1 and requests_for(tab, "pyodide.asm.wasm") == 1


def test_with_the_same_data_the_losses_are_the_same_floats(tab, book):  # noqa: F811
    """The reader's edit of the data fence is what the lab trains on: given the points
    as CPython computes them, the page's Python does the chapter's arithmetic exactly."""
    data = fence_with(LAB_PAGE, "def make_moons")
    points = [[x.hex() for x in point] for point in book["X"]]
    edited = data["code"].replace(
        "X_train, Y_train = X[:100], Y[:100]",
        f"X = [[float.fromhex(x), float.fromhex(y)] for x, y in {points!r}]\n"
        "X_train, Y_train = X[:100], Y[:100]",
    )
    checks = fence_with(LAB_PAGE, "assert X == make_moons")  # the page's own data: not X
    kept = checks["code"].replace("assert X == make_moons", "# assert X == make_moons")
    assert edited != data["code"] and kept != checks["code"]
    code(tab, data["line"]).fill(edited)
    code(tab, checks["line"]).fill(kept)
    try:
        fill(tab, rate="1.0", steps="100", seed="0")
        press(tab, "reset")
        assert frame(tab)["step"] == 0 and tab.locator(".lab-problem").is_hidden()
        paused = train_past(tab, STEPS)
        assert paused["losses"][:STEPS] == book["losses"]  # floats, compared exactly
        assert paused["accuracies"][:STEPS] == book["accuracies"]
        # Another rate gives the trajectory the chapter's functions give for it in CPython.
        fill(tab, rate="3.0")
        press(tab, "reset")
        for _ in range(3):
            press(tab, "step")
        model, expected = book["make_model"](0), []
        for step in range(3):
            expected.append(book["train_step"](model, book["learning_rate"](step, 100, 3.0))[0])
        assert frame(tab)["losses"] == expected and expected[2] > 10
    finally:
        bar(tab, data["line"]).locator(".notebook-reset").click()
        bar(tab, checks["line"]).locator(".notebook-reset").click()
        fill(tab, rate="1.0")


def test_bad_input_is_refused_with_what_to_change_and_the_lab_keeps_its_state(tab):
    fill(tab, rate="1.0", steps="100", seed="0")
    press(tab, "reset")
    press(tab, "step")
    for name, value, says in [
        ("rate", "-0.5", "The learning rate must be a positive number"),
        ("steps", "5000", "The number of steps must be a whole number from 1 to 1000"),
    ]:
        fill(tab, **{name: value})
        press(tab, "step")
        problem = tab.locator(".lab-problem")
        assert problem.is_visible() and problem.text_content().startswith(says)
        assert frame(tab)["step"] == 1, "a refused step changed the lab"
        fill(tab, rate="1.0", steps="100")
    press(tab, "step")
    assert frame(tab)["step"] == 2 and tab.locator(".lab-problem").is_hidden()


def test_the_keyboard_alone_trains_and_steps(tab):
    fill(tab, rate="1.0", steps="100", seed="0")
    tab.locator(".lab-reset").focus()
    tab.keyboard.press("Enter")
    tab.wait_for_selector(".lab[data-state=idle]")
    assert frame(tab)["step"] == 0
    tab.locator(".lab-rate").focus()
    tab.keyboard.press("Enter")  # Enter in a field takes one step
    tab.wait_for_function(f"{FRAME}.step === 1")
    order = []
    tab.locator(".lab-rate").focus()
    for _ in range(8):
        tab.keyboard.press("Tab")
        order.append(tab.evaluate("document.activeElement.className"))
        if tab.evaluate("document.activeElement.classList.contains('lab-step')"):
            break
    else:
        raise AssertionError(f"Tab from the rate field did not reach Step: {order}")
    tab.keyboard.press("Space")
    tab.wait_for_function(f"{FRAME}.step === 2")
    tab.wait_for_selector(".lab[data-state=idle]")
    assert "2 of 100 steps done." in tab.locator(".lab-status").text_content()


def test_a_learner_engine_with_a_planted_bug_fails_to_learn_and_the_lab_says_so(tab, book):  # noqa: F811
    text = (ROOT / "micrograd.py").read_text(encoding="utf-8")
    planted = text.replace("operand.grad += local * grad", "operand.grad = local * grad")
    key = tab.evaluate("bookPage.data(document.querySelector('.lab-data')).learnerKey")
    tab.evaluate("([key, text]) => localStorage.setItem(key, text)", [key, planted])
    try:
        tab.reload(wait_until="load")
        tab.wait_for_selector(".lab[data-state=idle]")
        tab.locator(".lab-engine").select_option("learner")
        fill(tab, rate="1.0", steps=str(STEPS), seed="0")
        tab.locator(".lab-train").click()
        tab.wait_for_function(f"{FRAME} && {FRAME}.done")
        tab.wait_for_selector(".lab[data-state=idle]")
    finally:
        tab.evaluate("key => localStorage.removeItem(key)", key)
    done = frame(tab)
    assert done["engine"] == "your engine from learner mode" and done["step"] == STEPS
    assert min(done["losses"]) > book["losses"][-1]  # it never reaches the book's
    problem = tab.locator(".lab-problem")
    assert "your engine does not learn as the book's does" in problem.text_content()
    link = problem.locator("a")
    assert link.text_content() == "learner mode's table"
    assert link.get_attribute("href").endswith("rebuild-it-yourself.html")
    assert requests_for(tab, "pyodide.asm.wasm") == 2  # the reload started Python again


@pytest.mark.parametrize("look", ["light", "dark", "phone"])
def test_the_lab_fits_and_shows_in_light_dark_and_on_a_phone(tab, look, tmp_path):
    scheme = "slate" if look == "dark" else "default"  # as Material's own toggle sets it
    tab.evaluate("scheme => { document.body.dataset.mdColorScheme = scheme; }", scheme)
    tab.set_viewport_size(PHONE if look == "phone" else DESKTOP)
    try:
        if tab.locator(".lab-engine-choice").is_visible():  # left by the planted bug's test
            tab.locator(".lab-engine").select_option("page")
        press(tab, "reset")
        lab = tab.locator(".lab")
        lab.scroll_into_view_if_needed()
        width = tab.evaluate("window.innerWidth")
        wide = tab.evaluate(
            """width => [...document.querySelectorAll('.lab, .lab *')]
                .filter(e => e.getBoundingClientRect().right > width + 0.5)
                .map(e => e.className.baseVal ?? e.className)""",
            width,
        )
        assert not wide, f"{look}: wider than the screen: {wide[:5]}"
        assert tab.evaluate("document.documentElement.scrollWidth") <= width
        lab.screenshot(path=str(tmp_path / f"lab-{look}.png"))
        outer = tab.locator(".lab-dot.lab-outer").first  # a training point of the outer moon
        fill_colour = outer.evaluate("e => getComputedStyle(e).fill")
        assert fill_colour == ("rgb(90, 169, 230)" if look == "dark" else "rgb(31, 119, 180)")
    finally:
        tab.evaluate("() => { document.body.dataset.mdColorScheme = 'default'; }")
        tab.set_viewport_size(DESKTOP)


def test_opened_from_disk_the_lab_says_it_needs_the_served_site(open_page, built_site):
    tab = open_page((built_site / LAB_PAGE.with_suffix(".html").name).as_uri())
    problem = tab.locator(".lab-problem")
    problem.wait_for()
    assert problem.text_content() == FILE_NOTE
    assert tab.locator(".lab-train").is_disabled() and tab.locator(".lab-reset").is_disabled()
    outside = [url for url in tab.watch.requested if not url.startswith("file://")]
    assert not outside and not tab.watch.problems, (outside, tab.watch.problems)
