"""Every chapter's fences run in the page as pytest runs them, and can be edited there."""

from __future__ import annotations

import pytest

from tests.helpers.browser import assert_clean, code, printed, run, states
from tests.helpers.site import PAGES, url_path
from tools.site.fences import page_fences

CHAPTERS = [page for page in PAGES if page_fences(page)["fences"]]


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
