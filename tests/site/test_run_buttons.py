"""The Run buttons in Chromium: a late fence runs those above it, output under its block,
Python started once, a rerun marks the fences below stale, Stop ends a runaway loop, deep
graphs are freed (the engine itself: test_engine_in_the_page.py; every chapter's fences:
test_every_fence.py). Python runs in the page (Pyodide, from the site: tools/site/runtime.py),
started once a test: in a fresh context where a first start is tested, else in kept_context
(a restore: the Run bars behave the same).
"""

import re

import pytest

from tests.helpers.browser import (
    PHONE,
    RUN_TIMEOUT,
    STATUSES_SEEN,
    WORKER_PATH,
    assert_clean,
    assert_loaded_locally,
    box_fits,
    chapter_page,
    editor_text,
    failure,
    fence_with,
    next_chapter_to,
    one_python,
    phases_seen,
    printed,
    python_never_comes,
    python_workers,
    reaches,
    requests_for,
    run,
    states,
)
from tests.helpers.drive import bar, code, serve
from tests.helpers.site import PAGES
from tools.chapter import Chapter
from tools.site.page_data import page_fences

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
def test_a_late_fence_runs_the_fences_above_it_first_and_one_start_serves_the_next_chapter(
    open_page, site_url
):
    page, tab = chapter_page(open_page, site_url, "03-")
    late = fence_with(page, 'print(f"x.grad is still {x.grad}")')  # uses diamond(), from above
    editor = code(tab, late["line"])
    editor.fill(late["code"] + "print(x.grad, a.grad)\n")
    editor.press("Shift+Enter")  # runs the fence, as its Run button does
    reaches(tab, late["line"], "ran")

    found = states(tab)
    above = [line for line in found if line < late["line"]]
    assert above and all(found[line] == "ran" for line in above), found
    assert found[late["line"]] == "ran", found
    assert all(found[line] == "idle" for line in found if line > late["line"]), found
    assert printed(tab, late["line"]).endswith("x.grad is still 30.0\n30.0 5.0\n")
    assert_loaded_locally(tab)
    assert_clean(tab, page.name)

    # The next chapter, read in a row: the same Python, and a fresh namespace.
    [next_page] = [p for p in PAGES if p.name.startswith("04-")]
    next_chapter_to(tab, next_page)  # the footer's link: Material swaps the page in
    first = page_fences(next_page)["fences"][0]
    code(tab, first["line"]).fill('print("diamond" in globals())\n')  # chapter 3's name
    run(tab, first["line"])
    assert states(tab)[first["line"]] == "ran"
    assert printed(tab, first["line"]) == "False\n"  # a fresh namespace for chapter 4
    assert requests_for(tab, "worker.js") == 1, "the worker was made again"
    assert requests_for(tab, "pyodide.asm.wasm") == 1, "Python was loaded again"
    assert one_python(tab)

    # In that Python, deep graphs are freed and runaway recursion is a RecursionError.
    code(tab, first["line"]).fill(DEEP)
    run(tab, first["line"])
    assert states(tab)[first["line"]] == "ran", failure(tab, first["line"])
    assert printed(tab, first["line"]) == "freed 1000\nfreed 100000\nRecursionError\n"
    assert_clean(tab, next_page.name)


@pytest.mark.usefixtures("runtime")
def test_output_shows_once_marked_same_or_in_place_of_the_books(open_page, small_site):
    # A small site's chapter has what no real chapter needs: a fence that prints
    # "</script>" (which must not end the page's fence data early), with its ```output
    # block, and one that imports torch (which the page cannot run).
    with serve(small_site) as url:
        tab = open_page(url + "/01-a-chapter.html", kept=True)
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
def test_python_starts_when_the_reader_reaches_for_a_fence_and_the_running_one_says_so(
    open_page, site_url
):
    page, tab = chapter_page(open_page, site_url, "03-", kept=True)
    first, _, third = [line for line in sorted(states(tab)) if bar(tab, line).is_visible()][:3]
    assert python_workers(tab) == []  # a reader who only reads loads no Python
    with tab.expect_worker(lambda worker: worker.url.endswith(WORKER_PATH)):
        bar(tab, first).hover()  # reaching for a fence's controls starts it
    code(tab, first).fill("while True:  # runs until stopped\n    pass\n")
    bar(tab, third).locator(".notebook-run").click()
    reaches(tab, first, "running")
    said = bar(tab, first).locator(".notebook-status").text_content()
    runs = len([line for line in states(tab) if line <= third])  # folded ones too
    assert runs >= 3 and said == f"running fence 1 of {runs}…", said
    assert states(tab)[third] == "waiting"
    assert one_python(tab)  # the one the hover started runs them
    stop = bar(tab, first).locator(".notebook-stop")  # Stop is on the fence that runs
    assert stop.is_visible() and not bar(tab, third).locator(".notebook-stop").is_visible()
    stop.click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    assert states(tab)[first] == "stopped"
    assert states(tab)[third] == "idle", "after Stop, the fence no longer waits"
    assert_clean(tab, page.name)


@pytest.mark.usefixtures("runtime")
def test_a_chapter_left_is_let_go_and_the_editor_is_made_once_a_tab(open_page, site_url):
    # Material's instant navigation runs a page's scripts again on each page it swaps in,
    # and never removes its media-query listeners: the tab kept a CodeMirror per chapter
    # page shown, and every page left whole (benchmarks/page.py measures the memory).
    page, tab = chapter_page(open_page, site_url, "03-", kept=True)
    python_never_comes(tab)  # the reach starts it: nothing here runs
    code(tab, page_fences(page)["fences"][0]["line"]).wait_for()  # the editor is loaded now
    tab.evaluate(
        "() => { window.firstEditor = window.CodeEditor;"
        " window.left = document.querySelector('[data-md-component=container]'); }"
    )
    [next_page] = [p for p in PAGES if p.name.startswith("04-")]
    next_chapter_to(tab, next_page)
    assert tab.evaluate("() => window.CodeEditor === window.firstEditor"), "editor.js ran again"
    tab.wait_for_function("() => !window.left.isConnected && !window.left.querySelector('*')")
    code(tab, page_fences(next_page)["fences"][0]["line"]).wait_for()  # made by the same one
    assert tab.evaluate("() => window.CodeEditor === window.firstEditor"), "editor.js ran again"
    assert_clean(tab, next_page.name)


@pytest.mark.usefixtures("runtime")
def test_an_edit_reruns_only_its_fence_and_marks_the_ones_below_stale(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "01-", kept=True)
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
    tab.once("dialog", lambda dialog: dialog.accept())  # Reset all asks first
    tab.locator(".notebook-reset-all").click()
    assert editor_text(code(tab, second)) + "\n" == fence["code"]
    assert_clean(tab, page.name)


@pytest.mark.usefixtures("runtime")
def test_stop_a_runaway_loop_on_a_phone_in_the_dark(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "01-", dark=True, phone=True, kept=True)
    assert tab.evaluate("document.body.dataset.mdColorScheme") == "slate"
    first, second = sorted(states(tab))[:2]
    code(tab, second).fill("while True:\n    pass\n")
    bar(tab, second).locator(".notebook-run").click()
    reaches(tab, second, "running")
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


# Where an element is in its parent, and how tall the parent is.
PLACED = """e => { const [r, p] = [e, e.parentElement].map((n) => n.getBoundingClientRect());
  return [r.x - p.x, r.y - p.y, p.height]; }"""


@pytest.mark.usefixtures("runtime")
def test_tab_passes_through_an_editor_and_a_readers_edit_outlives_a_reload(open_page, site_url):
    page, tab = chapter_page(open_page, site_url, "01-", kept=True)
    python_never_comes(tab)  # the reach starts it: nothing here runs
    tab.wait_for_load_state("networkidle")
    assert requests_for(tab, "editor.js") == 0, "the editor loaded before any sign of intent"
    first = min(states(tab))
    block = bar(tab, first).locator("xpath=preceding-sibling::div[1]")
    block.dispatch_event("pointerdown")  # a click in the book's code: its editor, focused
    editor = block.locator(".cm-content")
    tab.wait_for_function("document.activeElement?.matches('.cm-content')")
    assert requests_for(tab, "editor.js") == 1
    book = editor_text(editor)
    hint = bar(tab, first).locator(".notebook-hint")  # in the Run bar: beside the code, not over it
    assert hint.is_visible() and hint.text_content().startswith("Tab moves on"), hint.text_content()
    code_box, hint_box = block.bounding_box(), hint.bounding_box()
    assert hint_box["y"] >= code_box["y"] + code_box["height"], (code_box, hint_box)
    placed = hint.evaluate(PLACED)

    tab.keyboard.press("Tab")  # out, to the fence's Run button, editing nothing
    assert bar(tab, first).locator(".notebook-run").evaluate("b => b === document.activeElement")
    assert not hint.is_visible() and hint.evaluate(PLACED) == placed  # hidden, its place kept
    tab.keyboard.press("Shift+Tab")  # and back
    assert tab.evaluate("document.activeElement.matches('.cm-content')")
    assert editor_text(editor) == book and bar(tab, first).get_attribute("data-edited") == "no"

    tab.keyboard.type("# mine\n")  # once the reader types, Tab indents, and Esc leaves
    assert hint.text_content().startswith("Tab indents now")
    tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.matches('.cm-content')")
    edit = editor_text(editor)
    assert edit == "# mine\n    " + book, edit
    tab.keyboard.press("Escape")
    assert bar(tab, first).locator(".notebook-run").evaluate("b => b === document.activeElement")
    assert bar(tab, first).get_attribute("data-edited") == "yes"
    assert bar(tab, first).locator(".notebook-edited").is_visible()

    tab.reload(wait_until="load")  # the edit is kept, marked; its editor is made at once
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    assert bar(tab, first).get_attribute("data-edited") == "yes"
    editor = bar(tab, first).locator("xpath=preceding-sibling::div[1]").locator(".cm-content")
    editor.wait_for()
    assert editor_text(editor) == edit
    tab.once("dialog", lambda dialog: dialog.accept())  # Reset all asks first
    tab.locator(".notebook-reset-all").click()  # the book's code, and nothing kept
    assert editor_text(editor) == book and bar(tab, first).get_attribute("data-edited") == "no"
    loaded = requests_for(tab, "editor.js")  # once for the first load, once for the reload
    tab.reload(wait_until="networkidle")
    assert tab.locator(".notebook-bar[data-edited=yes]").count() == 0
    assert requests_for(tab, "editor.js") == loaded, "nothing kept: no editor before intent"
    assert_clean(tab, page.name)


@pytest.mark.usefixtures("runtime")
def test_run_all_shows_progress_and_stops_restart_and_leaving_the_page_are_said(
    open_page, site_url
):
    page, tab = chapter_page(open_page, site_url, "03-")
    tab.evaluate(STATUSES_SEEN)
    first = min(states(tab))
    run(tab, first)  # Python loads, at the click: the fence says how far, phase by phase
    seen = phases_seen(tab.evaluate("window.__statuses"))
    assert seen[:2] == ["begin", "download"] and seen[-3:] == ["start", "engine", "keep"], seen
    diamond = fence_with(page, "def diamond(x_value=3.0):")
    code(tab, diamond["line"]).fill(diamond["code"].replace("x_value=3.0", "x_value=2.0"))
    run(tab, diamond["line"])
    said = tab.locator(".notebook-announce").text_content()
    assert said.startswith(f"Fence at line {diamond['line'] - 1}: ran."), said
    assert tab.locator(".notebook-announce").bounding_box()["height"] <= 1  # said, not shown
    figure = '.steps[data-figure="03-careless-walk"]'
    tab.locator(f"{figure} svg[data-live=yes]").wait_for()
    tab.locator(".notebook-restart").click()  # the book's figure is back with a fresh start
    tab.locator(f"{figure} svg[data-live=yes]").wait_for(state="detached")
    assert tab.locator(f"{figure} .notebook-figure-note").is_hidden()

    code(tab, first).fill("while True:  # runs until stopped\n    pass\n")
    tab.locator(".notebook-run-all").click()
    reaches(tab, first, "running")
    tools = tab.locator(".notebook-tools")
    status = tools.locator(".notebook-status").text_content()
    assert re.fullmatch(r"Run all: running fence 1 of \d+…", status), status
    assert "waiting" in states(tab).values()  # the last fence waits for the ones above
    tools.locator(".notebook-stop").click()  # Stop where Run all was clicked
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    assert states(tab)[first] == "stopped" and "waiting" not in states(tab).values(), states(tab)
    assert tools.locator(".notebook-status").text_content() == "Run all: stopped"
    assert tools.locator(".notebook-stop").is_hidden()

    third = [line for line in sorted(states(tab)) if bar(tab, line).is_visible()][2]
    bar(tab, third).locator(".notebook-run").click()
    reaches(tab, first, "running")
    [next_page] = [p for p in PAGES if p.name.startswith("04-")]
    next_chapter_to(tab, next_page)  # leaving while the fence runs: the next page says so
    notice = tab.locator("article .notebook-notice")
    said = f"Leaving “{Chapter.read(page).title}” stopped the fence at line {first - 1},"
    assert notice.is_visible() and said in notice.text_content(), notice.text_content()
    assert_clean(tab, next_page.name)
