"""Fixtures shared by the tests (those of the site's tests are in tests/site/conftest.py)."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers.book import make_book
from tests.helpers.site import missing


@pytest.fixture
def book(tmp_path):
    """A small book of two chapters (tests/helpers/book.py): its docs folder and engine path."""
    return make_book(tmp_path)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, once a test process: Playwright's sync API allows one at a time, so
    every test that drives a browser (tests/site/, tests/test_page_scripts.py) shares it."""
    executable = shutil.which("chromium")
    if executable is None:
        reason = "Debian's chromium is not installed (apt-get install chromium fonts-liberation)"
        missing(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield chromium
        chromium.close()
