"""Every chapter's fences run in the page as pytest runs them, and can be edited there.

The chapters are opened one after another in one browser context, as one reader would
open them: its HTTP cache keeps the Python runtime, and Chromium keeps its compiled
WebAssembly, so each chapter's Python starts from a warm cache (each chapter still gets a
page and a Python of its own).
"""

from __future__ import annotations

import pytest

from tests.helpers.browser import Watch, code, printed, run, states
from tests.helpers.site import PAGES, url_path
from tools.site.fences import page_fences

CHAPTERS = [page for page in PAGES if page_fences(page)["fences"]]


@pytest.fixture(scope="module")
def reader(browser):
    """One browser context for all the chapters, and what it did that a clean page must not."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    watch = Watch(context)
    yield context, watch
    context.close()


@pytest.fixture
def chapter_tab(reader):
    """A new page in the reader's context; after the test, what went wrong while it was open."""
    context, watch = reader
    before = len(watch.problems)
    tab = context.new_page()
    tab.problems = lambda: watch.problems[before:]
    yield tab
    tab.close()


@pytest.mark.usefixtures("runtime")
@pytest.mark.parametrize("page", CHAPTERS, ids=[page.name for page in CHAPTERS])
def test_every_fence_runs_and_can_be_edited_in_the_page(chapter_tab, site_url, page):
    tab = chapter_tab
    tab.goto(site_url + url_path(page), wait_until="load")
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
    assert not tab.problems(), f"{page.name} in Chromium: {tab.problems()}"
