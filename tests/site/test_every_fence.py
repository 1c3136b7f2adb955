"""Every chapter's fences run in the page as pytest runs them, and can be edited there.

One reader reads the chapters one after another in one tab, following the footer's "next"
links: Material's instant navigation swaps each page in, so one Python, started once,
serves them all, each chapter in a fresh namespace of its own, as each chapter is a
notebook of its own under pytest. (That one start serves two chapters is
tests/site/test_run_buttons.py's; here, that no chapter's fences depend on another's
having run before it in the same Python, and that the Python did start only once.)

That Python is a restored one: the reader's first start is kept in the browser (a memory
snapshot, docs/assets/notebook/worker.js), the page is reloaded, and the start that serves
every chapter restores it. So every chapter's fences give the book's outputs after a
restore, as pytest gives them after a plain start. What it costs: one restore, a second.
"""

import pytest

from tests.helpers.browser import (
    how_python_started,
    kept_start,
    next_chapter_to,
    open_tab,
    printed,
    requests_for,
    run,
    states,
)
from tests.helpers.drive import code
from tests.helpers.site import PAGES, url_path
from tools.site.page_data import page_fences

CHAPTERS = [page for page in PAGES if page_fences(page)["fences"]]


@pytest.fixture(scope="module")
def reader(browser, site_url):
    """One tab for all the chapters, and what it did that a clean page must not."""
    tab = open_tab(browser, site_url + url_path(CHAPTERS[0]))
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    tab.evaluate("window.bookPython.warm()")  # as a reader's reach for a fence does
    assert how_python_started(tab) == "started"
    assert kept_start(tab) is not None, "the browser kept no snapshot of the start"
    tab.reload(wait_until="load")  # the next start restores it
    yield tab, tab.watch
    tab.context.close()


@pytest.fixture
def chapter_tab(reader):
    """The reader's tab; after the test, what went wrong while the test used it."""
    tab, watch = reader
    before = len(watch.problems)
    tab.problems = lambda: watch.problems[before:]
    return tab


@pytest.mark.usefixtures("runtime")
@pytest.mark.parametrize("page", CHAPTERS, ids=[page.name for page in CHAPTERS])
def test_every_fence_runs_and_can_be_edited_in_the_page(chapter_tab, site_url, page):
    tab = chapter_tab
    shown = [p for p in CHAPTERS if tab.url.endswith(url_path(p))]
    if not shown or CHAPTERS.index(shown[0]) > CHAPTERS.index(page):  # run out of order
        tab.goto(site_url + url_path(page), wait_until="load")
    next_chapter_to(tab, page)
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
    assert how_python_started(tab) == "restored"
    starts = requests_for(tab, "pyodide.asm.wasm")
    assert starts == 2, "Python started again in this chapter (once kept, once restored)"
    assert not tab.problems(), f"{page.name} in Chromium: {tab.problems()}"
