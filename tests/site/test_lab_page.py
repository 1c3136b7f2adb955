"""The two-moons lab in Chromium: it trains with the page's engine, in the page's one Python,
and gives the chapter's own numbers; Pause, Step, another rate, bad input, a learner's
engine with a planted bug, the keyboard, light and dark and a phone's width (from disk,
tests/site/test_from_disk.py trains it). Read like a chart (the step under the pointer or
the arrow keys), a rate changed mid-run, another network, points added with the keyboard,
a diverged run, focus shown on every control, and the page's address. One tab serves the
tests that need Python: it starts once (and again once, for the learner's engine).
"""

import pytest

from tests.helpers.browser import DESKTOP, PHONE, fence_with, one_python, open_tab, requests_for
from tests.helpers.drive import bar, code
from tests.helpers.site import url_path
from tests.test_lab import LAB_PAGE, STEPS, book, run_with  # noqa: F401 (book: the chapter's)
from tools import ROOT
from tools.page.lab_draw import human as lab_human

pytestmark = pytest.mark.usefixtures("runtime")

FRAME = "window.bookLab.frame"


@pytest.fixture(scope="module")
def tab(browser, site_url):
    """The chapter's page, in one tab for the module; after it, nothing left loopback."""
    page = open_tab(browser, site_url + url_path(LAB_PAGE))
    page.context.set_default_timeout(120_000)
    page.wait_for_selector(".lab[data-state=idle]")
    yield page
    assert not page.watch.problems, page.watch.problems
    page.context.close()


def frame(tab) -> dict:
    return tab.evaluate(FRAME)


def fill(tab, **settings) -> None:
    for name, value in settings.items():
        tab.locator(f".lab-{name}").fill(str(value))


def press(tab, name: str) -> None:
    """Click a lab button, and wait until the lab has answered."""
    tab.locator(f".lab-{name}").click()
    tab.wait_for_selector(".lab[data-state=idle]")


def reset(tab, **settings) -> None:
    """The book's settings (changed by ``settings``) in the fields, then Reset."""
    fill(tab, **{"rate": "1.0", "steps": "100", "seed": "0", **settings})
    press(tab, "reset")


def train_past(tab, steps: int) -> dict:
    """Train, Pause once ``steps`` steps are done; the frame where it stopped."""
    tab.locator(".lab-train").click()
    tab.wait_for_function(f"{FRAME} && {FRAME}.step >= {steps}")
    tab.locator(".lab-pause").click()
    tab.wait_for_selector(".lab[data-state=idle]")
    return frame(tab)


def test_before_a_step_the_data_and_untrained_network_are_drawn_with_readable_text(tab):
    """Drawn while the site was built: the chapter's 200 points over the untrained
    network's sides, the plane's axes, and every text of the drawings at least 11 px."""
    plane = tab.locator(".lab-boundary-here svg")
    assert plane.locator("circle").count() == 200 and plane.locator(".lab-axis-line").count() == 2
    assert {"-1", "0", "1", "2"} <= set(plane.locator(".lab-tick").all_text_contents())
    sizes = tab.evaluate(
        "[...document.querySelectorAll('.lab svg text')].map((t) =>"
        " t.getScreenCTM().a * parseFloat(getComputedStyle(t).fontSize))"
    )
    assert len(sizes) > 10 and min(sizes) >= 11, sizes


def test_the_book_settings_give_the_chapters_losses_and_pause_stops(tab, book):  # noqa: F811
    reset(tab)
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
    assert tab.locator(".lab-speed").text_content() == stepped["speed"] != ""
    tab.locator(".lab-engine").select_option("tensor")  # the same network, on tensors
    press(tab, "step")
    on_tensors = frame(tab)  # the page's floats: within 1e-9 of the chapter's, as above
    assert on_tensors["losses"] == pytest.approx(book["losses"][:1], rel=1e-9, abs=0)
    assert "engine=tensor" in tab.url and "the tensor engine" in on_tensors["speed"]
    assert one_python(tab) and requests_for(tab, "pyodide.asm.wasm") == 1
    tab.locator(".lab-engine").select_option("micrograd")  # the tab goes on on the book's
    press(tab, "reset")
    assert "engine=" not in tab.url


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
        reset(tab)
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
    reset(tab)
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
    for _ in range(20):
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


def test_the_chart_reads_the_step_under_the_pointer_and_the_arrow_keys(tab):
    reset(tab)
    for _ in range(4):
        press(tab, "step")
    readouts = frame(tab)["readouts"]
    assert readouts[0].startswith("Step 0: loss 0.9675 (held out 0.9117), training accuracy 45 %")
    chart = tab.locator(".lab-curves-here")
    for tick in ("loss (log scale)", "100 %", "50", "step"):
        assert tick in chart.locator("svg").text_content(), tick
    readout = tab.locator(".lab-readout")
    assert readout.text_content() == readouts[3]  # the last step, with no pointer
    box = chart.locator("svg").bounding_box()
    geometry = frame(tab)["chart"]
    x = (
        box["x"]
        + (geometry["left"] + 2 / geometry["last"] * (geometry["right"] - geometry["left"]))
        * box["width"]
        / geometry["width"]
    )
    tab.mouse.move(x, box["y"] + box["height"] / 2)
    assert readout.text_content() == readouts[2]
    assert chart.locator(".lab-cursor").get_attribute("visibility") == "visible"
    chart.focus()
    tab.keyboard.press("Home")
    assert chart.get_attribute("aria-valuetext") == readouts[0] == readout.text_content()
    tab.keyboard.press("ArrowRight")
    assert chart.get_attribute("aria-valuetext") == readouts[1]
    assert chart.get_attribute("aria-valuenow") == "1" and chart.get_attribute("role") == "slider"
    tab.mouse.move(0, 0)


def test_a_rate_changed_between_steps_gives_that_schedules_losses_without_a_reset(tab, book):  # noqa: F811
    reset(tab, decay="0")
    for _ in range(3):
        press(tab, "step")
    fill(tab, rate="0.5")
    for _ in range(3):
        press(tab, "step")  # the change is taken as the focus leaves the field, then the step
    stepped = frame(tab)
    assert stepped["step"] == 6 and stepped["losses"] == run_with(book, [1.0] * 3 + [0.5] * 3)[0]
    assert tab.locator(".lab-note").is_hidden()  # no new network: nothing to say
    assert "rate=0.5" in tab.evaluate("location.search")  # the address keeps the settings
    # While training: the next slice takes the rate, and the run goes on from where it was.
    tab.locator(".lab-train").click()
    tab.wait_for_function(f"{FRAME}.step >= 8")
    fill(tab, rate="0.25")
    # At the same step, a first rate of 0.25 gives half what 0.5 gives: the change is seen.
    tab.wait_for_function(
        f"{FRAME}.rates.at(-1) < 0.75 * 0.5 * (1 - 0.9 * ({FRAME}.rates.length - 1) / 100) "
        f"|| {FRAME}.done"
    )
    tab.locator(".lab-pause").click()
    tab.wait_for_selector(".lab[data-state=idle]")
    rates = frame(tab)["rates"]
    changed = next(k for k, rate in enumerate(rates) if rate < 0.75 * 0.5 * (1 - 0.9 * k / 100))
    assert changed >= 8 and rates[changed] == book["learning_rate"](changed, 100, 0.25)
    assert rates[:changed] == [
        book["learning_rate"](k, 100, 0.5 if k >= 3 else 1.0) for k in range(changed)
    ]
    fill(tab, rate="1.0")


def test_another_network_starts_again_and_its_units_are_drawn_with_words(tab):
    reset(tab)
    press(tab, "step")
    assert tab.locator(".lab-units canvas").count() == 32
    tab.locator(".lab-hidden").fill("8, 4")
    tab.locator(".lab-activation").select_option("tanh")
    tab.wait_for_function(f"{FRAME}.settings.activation === 'tanh'")
    tab.wait_for_selector(".lab[data-state=idle]")
    assert frame(tab)["step"] == 0
    note = tab.locator(".lab-note").text_content()
    assert note.startswith("A new network: hidden layers 8, 4, tanh, from seed 0.")
    assert note in tab.locator(".lab-status").text_content()  # told to screen readers
    maps = tab.locator(".lab-units canvas")
    assert maps.count() == 12
    assert maps.first.get_attribute("aria-label").startswith("Unit 1 of hidden layer 1 (tanh): ")
    summaries = tab.locator(".lab-units-summary").all_text_contents()
    assert summaries == [
        "Hidden layer 1: 8 of 8 units active",
        "Hidden layer 2: 4 of 4 units active",
    ]
    for name, value in [("hidden", "17"), ("noise", "-1"), ("points", "3"), ("decay", "2")]:
        tab.locator(f".lab-{name}").fill(value)
        press(tab, "step")
        problem = tab.locator(".lab-problem").text_content()
        assert problem.endswith(f"{value!r} is not. Change it and try again."), problem
        assert frame(tab)["step"] == 0 and frame(tab)["settings"]["hidden"] == "8, 4"
        tab.locator(f".lab-{name}").fill(
            {"hidden": "8, 4", "noise": "0.1", "points": "200", "decay": "0"}[name]
        )
    tab.locator(".lab-hidden").fill("16, 16")
    tab.locator(".lab-activation").select_option("relu")
    press(tab, "reset")


def test_points_are_added_from_the_keyboard_of_either_moon(tab):
    reset(tab)
    plane = tab.locator(".lab-boundary-here")
    plane.focus()
    tab.keyboard.press("ArrowLeft")
    assert tab.locator(".lab-cross").count() == 1
    tab.keyboard.press("Enter")
    tab.wait_for_function(f"{FRAME}.added.split(';').length === 1 && {FRAME}.added !== ''")
    tab.locator(".lab-label").focus()
    tab.keyboard.press("ArrowDown")  # the outer moon
    plane.focus()
    tab.keyboard.press("ArrowUp")
    tab.keyboard.press("Space")
    tab.wait_for_function(f"{FRAME}.added.split(';').length === 2")
    tab.wait_for_selector(".lab[data-state=idle]")
    labels = [point.split(",")[2] for point in frame(tab)["added"].split(";")]
    assert labels == ["1", "-1"] and "added=" in tab.evaluate("location.search")
    note = tab.locator(".lab-note").text_content()
    assert note.startswith("Added a training point of the outer moon"), note
    assert tab.locator(".lab-dot").count() == 102
    press(tab, "clear")
    assert frame(tab)["added"] == "" and "added" not in tab.evaluate("location.search")
    tab.locator(".lab-label").select_option("1")


def test_a_weight_is_read_by_click_or_typing_and_set_by_typing(tab):
    reset(tab)
    press(tab, "step")
    line = tab.locator('.lab-network line[data-weight="3, 1, 5"]')
    assert line.locator("title").text_content().startswith("weight 3, 1, 5: ")
    line.dispatch_event("click")
    tab.wait_for_function(f"{FRAME}.weight.startsWith('Weight 3, 1, 5: ')")
    tab.wait_for_selector(".lab[data-state=idle]")
    assert tab.locator(".lab-which").input_value() == "3, 1, 5"
    now = tab.locator(".lab-weight-now")
    assert now.text_content() == frame(tab)["weight"] and ", gradient " in now.text_content()
    tab.locator(".lab-which").fill("1, 2, b")
    tab.locator(".lab-value").fill("0.25")
    tab.locator(".lab-value").press("Enter")
    tab.wait_for_function(f"{FRAME}.weight.startsWith('Weight 1, 2, b: 0.2500,')")
    tab.wait_for_selector(".lab[data-state=idle]")
    assert tab.locator(".lab-note").text_content().startswith("Weight 1, 2, b set to 0.2500")
    tab.locator(".lab-value").fill("lots")
    press(tab, "set")
    assert "'lots' is not" in tab.locator(".lab-problem").text_content()
    press(tab, "step")
    assert frame(tab)["step"] == 2  # training went on from the weight set


def test_one_step_taken_apart_shows_the_engines_gradients_with_the_keyboard(tab, book):  # noqa: F811
    reset(tab)
    tab.locator(".lab-apart > summary").click()
    tab.locator(".lab-point").fill("")
    press(tab, "take-apart")
    text = tab.locator(".lab-apart-text")
    assert text.text_content().startswith("Part 1 of 9. Forward: training point ")
    assert text.get_attribute("aria-live") == "polite"
    assert tab.locator(".lab-apart-units").is_hidden()  # no numbers to open before backward
    index = int(text.text_content().split("training point ")[1].split(",")[0]) - 1
    model = book["make_model"](0)  # the same network and point, in CPython
    x, y = book["X_train"][index], book["Y_train"][index]
    for p in model.parameters():
        p.grad = 0.0
    (1 - y * model(x)).relu().backward()
    output = model.layers[-1].neurons[0]
    tab.locator(".lab-apart-here").focus()
    for part in range(2, 7):
        tab.keyboard.press("ArrowRight")
        tab.wait_for_function(
            f"document.querySelector('.lab-apart-text').textContent.startsWith('Part {part} ')"
        )
    first_back = text.text_content()  # part 6: the output layer's gradients arrive first
    assert first_back.startswith("Part 6 of 9. Backward (1 of 3): the output's weights")
    tab.locator(".lab-apart-units summary").click()
    numbers = tab.locator(".lab-apart-list li").all_text_contents()
    assert numbers == [
        f"Unit 1: weights {', '.join(lab_human(w.grad) for w in output.w)}; "
        f"bias {lab_human(output.b.grad)}."
    ]
    assert tab.locator(".lab-apart-here .lab-plus, .lab-apart-here .lab-minus").count() == 16
    press(tab, "back")
    assert text.text_content().startswith("Part 5 of 9. Loss: the score is ")
    assert tab.locator(".lab-apart-units").is_hidden()
    tab.locator(".lab-apart-here").focus()
    tab.keyboard.press("End")
    tab.wait_for_function(
        "document.querySelector('.lab-apart-text').textContent.startsWith('Part 9 ')"
    )
    assert "Update: each weight moves by the rate (1.0000)" in text.text_content()
    assert tab.locator(".lab-next").is_disabled() and frame(tab)["step"] == 0  # not stepped
    tab.locator(".lab-point").fill("0")
    press(tab, "take-apart")
    assert "'0' is not" in tab.locator(".lab-problem").text_content()


def test_a_diverged_run_says_so_and_stops(tab):
    reset(tab, rate="1e9")
    tab.locator(".lab-train").click()
    tab.wait_for_function(f"{FRAME}.done")
    tab.wait_for_selector(".lab[data-state=idle]")
    done = frame(tab)
    assert done["step"] == 2 and tab.locator(".lab-problem").text_content().startswith(
        "Training diverged: the loss is 2.4e25 at step 1"
    )
    assert tab.locator(".lab-readout").text_content().startswith("Step 1: loss 2.4e25 (held out ")
    assert tab.locator(".lab-status").text_content().endswith("Training stopped.")
    fill(tab, rate="1.0")
    press(tab, "reset")
    assert tab.evaluate("location.search") == ""  # the book's settings: a bare address


# The focused element shows it: an outline, or (the Run buttons' way) another background.
SHOWS_FOCUS = """(() => {
  const e = document.activeElement, s = getComputedStyle(e);
  if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) return true;
  const focused = s.backgroundColor;
  e.blur();
  const unfocused = getComputedStyle(e).backgroundColor;
  e.focus();
  return focused !== unfocused;
})()"""


def test_every_control_shows_the_focus(tab):
    controls = ".lab input, .lab select, .lab button:not(:disabled), .lab [tabindex], .lab summary"
    tab.locator(".lab-rate").focus()
    seen = {}
    for _ in range(40):
        element = tab.evaluate(
            "document.activeElement.matches('.lab *') ? document.activeElement.className : null"
        )
        if element is None:
            break
        seen[element] = tab.evaluate(SHOWS_FOCUS)
        tab.keyboard.press("Tab")
    focusable = tab.locator(controls).evaluate_all(
        "nodes => nodes.filter(n => n.offsetParent).length"
    )
    assert len(seen) >= focusable - 1, seen  # Tab went through them (less the one started from)
    assert all(seen.values()), [name for name, shown in seen.items() if not shown]
    shown = ("lab-rate", "lab-gradients", "lab-activation", "lab-curves-here", "lab-boundary-here")
    for name in shown:
        assert any(name in element for element in seen), (name, seen)


def test_chapter_1s_nudge_slider_shows_the_focus(open_page, built_site):
    tab = open_page((built_site / "01-what-autograd-records.html").as_uri())
    tab.locator(".nudge-slider").wait_for()
    tab.keyboard.press("Tab")
    tab.locator(".nudge-slider").focus()
    tab.keyboard.press("ArrowRight")
    style = tab.locator(".nudge-slider").evaluate("e => getComputedStyle(e).outlineStyle")
    assert style != "none", "the nudge slider shows no focus"


def test_a_learner_engine_with_a_planted_bug_fails_to_learn_and_the_lab_says_so(tab, book):  # noqa: F811
    text = (ROOT / "micrograd.py").read_text(encoding="utf-8")
    planted = text.replace("operand.grad += local * grad", "operand.grad = local * grad")
    key = tab.evaluate("bookPage.data(document.querySelector('.lab-data')).learnerKey")
    tab.evaluate("([key, text]) => localStorage.setItem(key, text)", [key, planted])
    try:
        tab.reload(wait_until="load")
        tab.wait_for_selector(".lab[data-state=idle]")
        tab.locator(".lab-source").select_option("learner")
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
        if tab.locator(".lab-source-choice").is_visible():  # left by the planted bug's test
            tab.locator(".lab-source").select_option("page")
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
