"""Stepping through backward on a figure, in Chromium: the controls, the keys, a phone.

The steps are recorded with the engine while the site is built (tools/page/steps.py) and
played by docs/assets/steps/steps.js, without Python in the page: opened from disk too.
"""

import pytest

from tests.helpers.browser import PHONE, assert_clean, box_fits, walk_results
from tools.figures.from_chapters import nudged
from tools.page.steps import TIMES


def stepped(open_page, url: str, figure: str, **options):
    """A page opened at ``url`` and the step-through region of ``figure`` on it."""
    tab = open_page(url, **options, kept=url.startswith("http"))  # no Python: any tab
    region = tab.locator(f'.steps[data-figure="{figure}"]')
    region.wait_for()
    return tab, region


def position(region) -> str:
    """Where the step-through is: "" (the figure as drawn), "0" (the start), "1", ..."""
    return region.get_attribute("data-position")


def lines_of(region) -> list[str]:
    """The caption's lines: one per walk the figure steps (after "Step k of n:")."""
    return region.locator(".steps-line").all_text_contents()


def test_stepping_the_diamond_to_the_end_reads_30_on_x(open_page, site_url):
    tab, region = stepped(open_page, site_url + "/01-what-autograd-records.html", "01-diamond")
    x = region.locator('[id="01-diamond-node-x"] > text').nth(1)
    assert x.text_content() == "dL/dx = 30" and position(region) == ""  # as drawn
    region.locator(".steps-back").click()  # as drawn is the end: Back is the step before it
    assert position(region) == "3" and x.text_content() == "dL/dx = 0", position(region)
    region.locator(".steps-start").click()
    assert position(region) == "0" and x.text_content() == "dL/dx = 0"
    assert region.locator(".steps-caption").text_content().startswith("Start: L.grad = 1")
    for step in range(1, 5):
        region.locator(".steps-next").click()
        assert position(region) == str(step)
        lit = region.locator("g.steps-active:visible").get_attribute("id")
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
    assert walk_results(region) == ["x.grad = 0"] * 3
    for _ in range(3):  # a runs, too early in both careless walks
        region.locator(".steps-next").click()
    assert walk_results(region) == ["x.grad = 12", "x.grad = 18", "x.grad = 0"]
    lines = region.locator(".steps-line").all_text_contents()
    assert lines[0] == "Step 3 of 5:" and "runs too early" in lines[1] and "too early" in lines[2]
    lit = region.locator("g.steps-active:visible").evaluate_all("gs => gs.map(g => g.id)")
    assert sorted(lit) == [
        "03-careless-walk-node-a0",
        "03-careless-walk-node-a1",
        "03-careless-walk-node-b2",
    ]
    region.locator(".steps-end").click()
    assert walk_results(region) == ["x.grad = 12", "x.grad = 18", "x.grad = 30"]
    assert "too late: a has already run" in lines_of(region)[1]
    assert_clean(tab, "chapter 3's step-through")


def test_keyboard_steps_the_figure_that_has_focus(open_page, site_url):
    tab, region = stepped(open_page, site_url + "/05-a-scalar-neuron.html", "05-neuron")
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
    tab.locator('.steps[data-figure="05-neuron"][data-position="1"]').wait_for()
    tab.keyboard.press(" ")  # pauses
    assert play.text_content() == "▶ Play" and int(position(region)) >= 1
    assert tab.evaluate("window.scrollY") == scrolled, "the keys scrolled the page as well"
    caption = region.locator(".steps-caption")
    assert caption.get_attribute("aria-live") == "polite"
    assert region.get_attribute("role") == "region" and region.get_attribute("tabindex") == "0"
    assert_clean(tab, "chapter 5's step-through")


def test_step_controls_work_from_disk(open_page, built_site):
    page = built_site / "06-neuron-layer-mlp.html"
    tab, region = stepped(open_page, page.as_uri(), "06-dot")
    region.locator(".steps-next").click()
    region.locator(".steps-next").click()
    assert position(region) == "1"
    lines = lines_of(region)
    assert lines[:1] == ["Step 1 of 6:"] and lines[1].startswith("one dot node: dot (grad 1) sends")
    assert region.locator("g.steps-edge:visible").count() == 7 + 2  # the dot node's 7, the sum's 2
    region.locator(".steps-next").click()
    assert lines_of(region)[1] == "one dot node: Done after step 1."
    outside = [url for url in tab.watch.requested if not url.startswith("file://")]
    assert not outside, f"opened from disk, the page asked for {outside}"
    assert_clean(tab, "chapter 6's step-through, from disk")


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
    colours = region.locator("g.steps-active > polygon:visible").first.evaluate(
        "p => [getComputedStyle(p).stroke, getComputedStyle(document.body).backgroundColor,"
        " getComputedStyle(p.closest('svg')).color]"
    )
    stroke, background, text = colours
    assert stroke not in (background, text), f"the lit box is not set apart: {colours}"
    assert_clean(tab, f"chapter 3's step-through on a phone ({'dark' if dark else 'light'})")


def test_the_nudge_under_chapter_1s_figure_reads_what_the_engine_computed(open_page, built_site):
    """From disk, with the keyboard: each nudge shows the move and gradient x nudge that the
    build computed with the chapter's function and the engine's gradient."""
    data = nudged(["01-nudge"])["01-nudge"]
    tab = open_page((built_site / "01-what-autograd-records.html").as_uri())
    control = tab.locator(".nudge")
    control.wait_for()
    slider = control.locator("input[type=range]")
    slider.focus()
    tab.keyboard.press("Home")
    for k, nudge in enumerate(data["nudges"]):
        if k:
            tab.keyboard.press("ArrowRight")
        said = control.locator(".nudge-readout").text_content()
        moved, predicted = (float(f"{nudge[k]:.6g}") for k in ("moved", "predicted"))
        assert f"L moves by {moved:g} " in said and f" = {predicted:g};" in said, said
    assert said.startswith("x from 3 to 4: L moves by 35 (from 45 to 80)")
    assert f"gradient {TIMES} nudge = 30 {TIMES} 1 = 30; apart by 5." in said
    assert control.locator(".nudge-readout").get_attribute("aria-live") == "polite"
    assert all(url.startswith("file://") for url in tab.watch.requested)
    assert_clean(tab, "chapter 1's nudge control, from disk")
