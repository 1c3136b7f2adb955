"""The Run buttons in Chromium: a late fence runs those above it, output under its block,
a broken engine fails where pytest fails, Stop ends a runaway loop, deep graphs are freed.

Python runs in the page (Pyodide, from the site itself: tools/site/runtime.py); each test
starts it once. test_every_fence.py runs every chapter's fences in the page.
"""

from __future__ import annotations

import re

import pytest

from benchmarks.drive import bar, code, serve
from tests.helpers.browser import (
    PHONE,
    RUN_TIMEOUT,
    assert_clean,
    assert_loaded_locally,
    box_fits,
    chapter_page,
    editor_text,
    expected_failure,
    expected_run_all,
    failure,
    fence_with,
    next_chapter_to,
    page_runner,
    printed,
    python_workers,
    requests_for,
    run,
    states,
)
from tests.helpers.site import PAGES, build_small_site
from tools.site.fences import page_fences


@pytest.mark.usefixtures("runtime")
def test_a_late_fence_in_chapter_3_runs_the_fences_above_it_first(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "03-")
    late = fence_with(page, 'print(f"x.grad is still {x.grad}")')  # uses diamond(), from above
    editor = code(tab, late["line"])
    editor.fill(late["code"] + "print(x.grad, a.grad)\n")
    editor.press("Shift+Enter")  # runs the fence, as its Run button does
    ran = f'.notebook-bar[data-line="{late["line"]}"][data-state=ran]'
    tab.wait_for_selector(ran, timeout=RUN_TIMEOUT)

    found = states(tab)
    above = [line for line in found if line < late["line"]]
    assert above and all(found[line] == "ran" for line in above), found
    assert found[late["line"]] == "ran", found
    assert all(found[line] == "idle" for line in found if line > late["line"]), found
    assert printed(tab, late["line"]).endswith("x.grad is still 30.0\n30.0 5.0\n")
    assert_loaded_locally(tab)
    assert_clean(tab, page.name)


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    """A small site (tests/helpers/site.py): a chapter with what no real chapter needs, and
    two more that go on building its class."""
    return build_small_site(tmp_path_factory.mktemp("small"), {})[0]


@pytest.mark.usefixtures("runtime")
def test_output_shows_once_marked_same_or_in_place_of_the_books(open_page, small_site):
    # A small site's chapter has what no real chapter needs: a fence that prints
    # "</script>" (which must not end the page's fence data early), with its ```output
    # block, and one that imports torch (which the page cannot run).
    with serve(small_site) as url:
        tab = open_page(url + "/01-a-chapter.html")
        tab.wait_for_selector("body[data-notebook=idle]", state="attached")
        line = 9  # print("</script> stays inside the data"), then its ```output block
        run(tab, line)
        book = bar(tab, line).locator("xpath=following-sibling::div[1]")
        assert book.get_attribute("class").startswith("language-output")
        result = book.locator("xpath=following-sibling::div[1]")
        assert "notebook-result" in result.get_attribute("class"), "not below the block"
        assert printed(tab, line) == "</script> stays inside the data\n"
        # The same as the book: the book's block, marked, and no second copy.
        assert book.is_visible() and book.get_attribute("data-run") == "same"
        assert "ran: same as the book" in book.locator("pre").evaluate(
            "pre => getComputedStyle(pre, '::before').content"
        )
        assert result.is_hidden(), "the same output is shown twice"

        code(tab, line).fill('print("something else")\n')
        run(tab, line)
        # Something else: the run's output in the block's place, the book's folded below.
        assert printed(tab, line) == "something else\n"
        assert book.is_hidden() and result.locator(".notebook-printed").is_visible()
        folded = result.locator("details.notebook-book")
        assert folded.is_visible() and not folded.evaluate("d => d.open")
        folded.locator("summary").click()
        assert folded.locator("pre").text_content() == "</script> stays inside the data\n"

        bar(tab, line).locator(".notebook-reset").click()
        run(tab, line)
        assert book.is_visible() and result.is_hidden()
        assert "imports torch" in tab.locator(".notebook-blocked").text_content()
        assert_clean(tab, "the small site")


@pytest.mark.usefixtures("runtime")
def test_a_class_built_over_three_chapters_runs_in_the_page_as_in_python(open_page, small_site):
    """Each chapter of the small site runs with the engine as it stands at its place, and a
    failure in code written in chapter 2 is reported at chapter 2's line, from chapter 3."""
    with serve(small_site) as url:
        tab = open_page(url + "/02-it-grows.html")
        run(tab, 4)  # from micrograd import Thing; print(hasattr(Thing, "double"))
        assert printed(tab, 4) == "False\n" and states(tab)[4] == "ran"
        tab.goto(url + "/03-and-more.html")
        tab.wait_for_selector("body[data-notebook=idle]", state="attached")
        run(tab, 9)  # print(Thing().double()): chapter 2's double, chapter 3's size
        assert printed(tab, 9) == "42\n" and states(tab)[9] == "ran"
        code(tab, 4).fill("    def size(self):\n        return None\n")  # 2 * None fails
        run(tab, 4)
        run(tab, 9)
        assert states(tab)[9] == "failed"
        said = failure(tab, 9)  # (the small site's chapters are named by their full path)
        assert re.match(r"\S*/docs/02-it-grows\.md:15: TypeError", said), said
        assert re.search(r'File "\S*/docs/02-it-grows\.md", line 15, in double', said), said
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

    editor = code(tab, engine["line"])
    assert editor.locator(".tok-keyword").count() > 0  # highlighted as Python
    editor.fill("def f():")
    editor.press("End")
    editor.press("Enter")
    editor.type("return 1")
    assert editor_text(editor) == "def f():\n    return 1"  # Enter indents the body
    editor.press("Control+z")  # undo, as often as it takes to bring the book's code back
    for _ in range(5):
        if editor_text(editor) + "\n" == engine["code"]:
            break
        editor.press("Control+z")
    assert editor_text(editor) + "\n" == engine["code"]
    editor.fill(engine["code"].replace(old, new))
    run(tab, last)
    found = states(tab)
    assert found[failing_line] == "failed", found
    assert all(found[line] == "ran" for line in found if line < failing_line), found
    assert all(found[line] == "not-run" for line in found if line > failing_line), found
    said = failure(tab, failing_line)
    headline = re.match(rf"docs/{page.name}:(\d+): {error}", said)
    assert headline, f"the failure should start with the chapter line and {error}: {said!r}"
    assert int(headline[1]) == named, f"pytest names line {named}, the page {headline[1]}"

    # Run all goes on past output that differs from the book's, down to the first exception.
    tab.locator(".notebook-run-all").click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=RUN_TIMEOUT)
    expected = expected_run_all(page, old, new)
    assert states(tab) == expected
    assert "differs" in expected.values() and "failed" in expected.values(), expected

    bar(tab, engine["line"]).locator(".notebook-reset").click()  # Reset, and all is well
    assert editor_text(code(tab, engine["line"])) + "\n" == engine["code"]
    run(tab, engine["line"])  # the engine is built again in book order, the fix in place
    for line in sorted(line for line, state in states(tab).items() if state != "ran"):
        run(tab, line)
    assert set(states(tab).values()) == {"ran"}, states(tab)

    assert_clean(tab, page.name)


PROBE = (  # the methods of the class, as every Python lists them, and one of them used
    "print(sorted(name for name, member in vars(Value).items() if callable(member)))\n"
    "print(Value(2.0) + 1)\n"
)


@pytest.mark.usefixtures("runtime")
def test_rerunning_each_engine_fence_rebuilds_the_engine_in_book_order_as_in_python(
    open_page, site_url
):
    """Chapter 2 run, then each engine fence run again, unedited and edited: the page shows
    what the same runner (tools/page/run.py) gives in CPython, namespace and lines alike."""
    page, tab = chapter_page(open_page, site_url, "02-")
    runner = page_runner(page)
    cells = runner.cells
    engines = [i for i, cell in enumerate(cells) if cell.engine]
    last = max(i for i, cell in enumerate(cells) if not cell.blocked)
    run(tab, cells[last].line)
    runner.run(last)
    for index in engines:  # unedited: every method is still there, in book order
        run(tab, cells[index].line)
        runner.run(index)
    code(tab, cells[last].line).fill(PROBE)
    run(tab, cells[last].line)
    expected = runner.run(last, {last: PROBE})
    assert (
        expected.state == "ran" and "__add__" in expected.printed and "backward" in expected.printed
    )
    assert printed(tab, cells[last].line) == expected.printed

    first = engines[0]  # edited: a bug in the first chunk is reported where it is written
    broken = cells[first].code.replace("self.grad = 0.0", "self.grad = 0.0 / 0", 1)
    assert broken != cells[first].code
    code(tab, cells[first].line).fill(broken)
    run(tab, cells[first].line)
    said = runner.run(first, {first: broken})
    assert said.state == states(tab)[cells[first].line] == "ran"  # defined, not yet called
    run(tab, cells[last].line)
    expected = runner.run(last, {first: broken, last: PROBE})
    assert expected.state == states(tab)[cells[last].line] == "failed"
    headline = expected.report.split("\n")[0]
    assert headline.startswith(f"docs/{page.name}:") and "ZeroDivisionError" in headline
    said = failure(tab, cells[last].line).split("\n")[0]
    assert said.split(": ")[:2] == headline.split(": ")[:2]  # the line; messages vary by Python
    assert_clean(tab, page.name)


@pytest.mark.usefixtures("runtime")
def test_python_starts_when_the_reader_reaches_for_a_fence_and_the_running_one_says_so(
    open_page, site_url
):
    page, tab = chapter_page(open_page, site_url, "03-")
    first, _, third = [line for line in sorted(states(tab)) if bar(tab, line).is_visible()][:3]
    assert python_workers(tab) == []  # a reader who only reads loads no Python
    with tab.expect_worker(lambda worker: worker.url.endswith("/notebook/worker.js")):
        bar(tab, first).hover()  # reaching for a fence's controls starts it
    code(tab, first).fill("while True:  # runs until stopped\n    pass\n")
    bar(tab, third).locator(".notebook-run").click()
    tab.wait_for_selector(f'.notebook-bar[data-line="{first}"][data-state=running]')
    said = bar(tab, first).locator(".notebook-status").text_content()
    runs = len([line for line in states(tab) if line <= third])  # folded ones too
    assert runs >= 3 and said == f"running fence 1 of {runs}…", said
    assert states(tab)[third] == "waiting"
    assert len(python_workers(tab)) == 1  # the one the hover started runs them
    stop = bar(tab, first).locator(".notebook-stop")  # Stop is on the fence that runs
    assert stop.is_visible() and not bar(tab, third).locator(".notebook-stop").is_visible()
    stop.click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    assert states(tab)[first] == "stopped"
    assert_clean(tab, page.name)


@pytest.mark.usefixtures("runtime")
def test_one_python_start_serves_two_chapters_read_in_a_row(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "03-")
    diamond = fence_with(page, "def diamond(x_value=3.0):")
    run(tab, diamond["line"])
    assert states(tab)[diamond["line"]] == "ran"
    [next_page] = [p for p in PAGES if p.name.startswith("04-")]
    next_chapter_to(tab, next_page)  # the footer's link: Material swaps the page in
    first = page_fences(next_page)["fences"][0]
    code(tab, first["line"]).fill('print("diamond" in globals())\n')  # chapter 3's name
    run(tab, first["line"])
    assert states(tab)[first["line"]] == "ran"
    assert printed(tab, first["line"]) == "False\n"  # a fresh namespace for chapter 4
    assert requests_for(tab, "worker.js") == 1, "the worker was made again"
    assert requests_for(tab, "pyodide.asm.wasm") == 1, "Python was loaded again"
    assert len(python_workers(tab)) == 1
    assert_clean(tab, next_page.name)


@pytest.mark.usefixtures("runtime")
def test_an_edit_reruns_only_its_fence_and_marks_the_ones_below_stale(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "01-")
    first, second, third = [line for line in sorted(states(tab)) if bar(tab, line).is_visible()][:3]
    run(tab, third)  # the fences above run first
    assert [states(tab)[line] for line in (first, second, third)] == ["ran"] * 3
    [fence] = [f for f in page_fences(page)["fences"] if f["line"] == second]
    editor = code(tab, second)
    editor.fill(fence["code"] + 'count = globals().get("count", 0) + 1\nprint("run", count)\n')
    editor.press("Control+Enter")  # runs it alone, in the namespace as it is
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=RUN_TIMEOUT)
    editor.press("Shift+Enter")  # and again: the count goes on, nothing ran afresh
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=RUN_TIMEOUT)
    assert printed(tab, second).endswith("run 2\n")
    found = states(tab)
    assert (found[first], found[second], found[third]) == ("ran", "ran", "stale"), found
    assert bar(tab, third).locator(".notebook-status").text_content().startswith("stale")
    editor.press("Escape")  # leaves the editor, for the fence's Run button
    assert tab.evaluate("document.activeElement.matches('.notebook-run')")
    assert bar(tab, second).locator(".notebook-run").evaluate("b => b === document.activeElement")

    tab.locator(".notebook-run-all").click()  # from the top, afresh
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=RUN_TIMEOUT)
    assert printed(tab, second).endswith("run 1\n")
    assert set(states(tab).values()) == {"ran"}, states(tab)
    tab.locator(".notebook-reset-all").click()
    assert editor_text(code(tab, second)) + "\n" == fence["code"]
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
    page, tab = chapter_page(open_page, site_url, "03-")  # the engine is built by then
    first = min(states(tab))
    code(tab, first).fill(DEEP)
    run(tab, first)
    assert states(tab)[first] == "ran", failure(tab, first)
    assert printed(tab, first) == "freed 1000\nfreed 100000\nRecursionError\n"
    assert_clean(tab, page.name)
