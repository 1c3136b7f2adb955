"""Figures drawn again from the reader's own code, in Chromium (tools/page/live.py).

The reader edits a fence above a figure and runs it: the figure and its step-through are
drawn again from what the code made, with Graphviz in the page (WebAssembly, served by the
site). A fence that prints graph_dot's text gets the graph drawn under what it printed.
"""

import pytest

from tests.helpers.browser import (
    assert_clean,
    assert_loaded_locally,
    chapter_page,
    fence_with,
    printed,
    run,
    walk_results,
)
from tests.helpers.drive import bar, code
from tools.page.live import MAX_NODES

pytestmark = pytest.mark.usefixtures("runtime")

DIAMOND = "def diamond(x_value=3.0):"
FIGURE = '.steps[data-figure="03-careless-walk"]'


def test_x_at_2_in_chapter_3_redraws_the_walks_and_their_steps_end_at_20(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "03-")
    fence = fence_with(page, DIAMOND)
    code(tab, fence["line"]).fill(fence["code"].replace("x_value=3.0", "x_value=2.0"))
    run(tab, fence["line"])
    figure = tab.locator(f"{FIGURE} svg[data-live=yes]")
    figure.wait_for()
    region, note = tab.locator(FIGURE), tab.locator(f"{FIGURE} .notebook-figure-note")
    assert note.text_content().startswith("Drawn again from the code you ran on this page")
    assert walk_results(region) == ["x.grad = 8", "x.grad = 12", "x.grad = 20"]  # as drawn
    phone = tab.locator(f"{FIGURE} svg.picture-narrow")  # the book's, for a phone: not shown
    assert phone.get_attribute("hidden") is not None
    caption = region.locator(".steps-caption").text_content()
    assert "recorded from the code you ran on this page" in caption
    region.locator(".steps-start").click()
    assert walk_results(region) == ["x.grad = 0"] * 3
    region.focus()
    tab.keyboard.press("End")
    assert walk_results(region) == ["x.grad = 8", "x.grad = 12", "x.grad = 20"]
    said = region.locator(".steps-line").all_text_contents()
    assert said[0] == "Step 5 of 5:" and said[-1].endswith("Done: x.grad = 20.")

    # The book's code again: the book's figure again, stepping to 12, 18 and 30.
    bar(tab, fence["line"]).locator(".notebook-reset").click()
    run(tab, fence["line"])
    tab.locator(f"{FIGURE} svg[data-live=yes]").wait_for(state="detached")
    assert note.is_hidden() and phone.get_attribute("hidden") is None
    region.locator(".steps-end").click()
    assert walk_results(region) == ["x.grad = 12", "x.grad = 18", "x.grad = 30"]
    assert_loaded_locally(tab)
    assert_clean(tab, "chapter 3's figure drawn again")


def test_a_fence_that_prints_graph_dot_in_chapter_8_gets_its_graph_drawn_unless_too_big(
    open_page, site_url
):
    page, tab = chapter_page(open_page, site_url, "08-", dark=True, phone=True, kept=True)
    fence = fence_with(page, "dot_text = graph_dot(L, names)")
    run(tab, fence["line"])
    drawn = bar(tab, fence["line"]).locator(
        "xpath=following-sibling::div[@class='notebook-result'][1]//div[@class='notebook-graph']/*"
    )
    drawn.wait_for()
    assert drawn.evaluate("e => e.tagName") == "svg" and drawn.get_attribute("role") == "img"
    boxes = drawn.locator("g.node").all()
    assert len(boxes) == printed(tab, fence["line"]).count("[label=") - 8 == 7  # 8 edges
    assert "x (leaf)" in drawn.locator("g.node").first.text_content()
    # the text takes the page's (dark) colour; the phone page does not scroll sideways
    assert drawn.locator("text").first.evaluate("t => getComputedStyle(t).fill") != "rgb(0, 0, 0)"
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    assert_clean(tab, "chapter 8's printed graph")

    # The same fence edited to print a graph too big to read: not drawn, its size said,
    # and the drawing of the run before is gone.
    long = MAX_NODES + 1  # additions: a chain of long + 1 leaves and long sums
    code(tab, fence["line"]).fill(
        "from micrograd import Value, graph_dot\n\n"
        f"total = Value(0.0)\nfor k in range({long}):\n    total = total + Value(k)\n"
        "print(graph_dot(total))\n"
    )
    run(tab, fence["line"])
    problem = tab.locator(".notebook-graph-problem")
    problem.wait_for()
    said = problem.text_content()
    assert said.startswith(f"This graph has {2 * long + 1} nodes")
    assert f"draws graphs of at most {MAX_NODES}" in said
    assert tab.locator(".notebook-graph").count() == 0
    assert_clean(tab, "a graph too big to draw")
