"""Fixtures shared by the tests (those of the site's tests are in tests/site/conftest.py)."""

import shutil
from itertools import chain, zip_longest

import pytest

from tests.helpers.book import make_book
from tests.helpers.browser import CHROMIUM
from tests.helpers.site import missing


@pytest.hookimpl(trylast=True)  # after tests/site/conftest.py marks the site's tests
def pytest_collection_modifyitems(items):
    """The long files first, for `--dist loadfile` (tools/dev.py: a file to a process, given
    out in this order): each that reruns the book (heavy) beside one of the site's, those
    with the most tests first, so that one process builds the site while the other
    computes, and the short files fill in at the end instead of leaving a process idle
    behind the last long one. Each file's tests keep their order; each test is what it was."""
    files: dict = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    marked = lambda tests, mark: any(t.get_closest_marker(mark) for t in tests)  # noqa: E731
    longest = lambda found: sorted(found, key=len, reverse=True)  # noqa: E731 (most tests)
    site = longest(t for t in files.values() if marked(t, "site"))
    heavy = longest(t for t in files.values() if marked(t, "heavy") and t not in site)
    rest = [t for t in files.values() if t not in site and t not in heavy]
    items[:] = chain(*chain(*zip_longest(heavy, site, fillvalue=[])), *rest)


@pytest.fixture
def book(tmp_path):
    """A small book of two chapters (tests/helpers/book.py): its docs folder and engine path."""
    return make_book(tmp_path)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, once a test process: Playwright's sync API allows one at a time, so
    every test that drives a browser (tests/site/, tests/test_page_scripts.py) shares it.
    Its proxy, which does not exist, refuses each request to another host before it leaves
    (the loopback goes direct), and Watch (tests/helpers/browser.py) reports it."""
    executable = shutil.which("chromium")
    if executable is None:
        reason = "Debian's chromium is not installed (apt-get install chromium fonts-liberation)"
        missing(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM)
        yield chromium
        chromium.close()
