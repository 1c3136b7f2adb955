"""Fixtures shared by the tests (those of the site's tests are in tests/site/conftest.py)."""

from __future__ import annotations

import pytest

from tests.helpers.book import make_book
from tools import ROOT

SPREAD = {ROOT / "tests" / "site" / "test_browser.py"}  # each test opens pages of its own


@pytest.fixture
def book(tmp_path):
    """A small book of two chapters (tests/helpers/book.py): its docs folder and engine path."""
    return make_book(tmp_path)


def pytest_collection_modifyitems(items):
    """Under pytest-xdist (tools/dev.py test), a test module runs in one process, so its
    session fixtures are made once; the browser tests, each on pages of its own, spread."""
    for item in items:
        if item.path.suffix == ".py" and item.path not in SPREAD:
            item.add_marker(pytest.mark.xdist_group(item.path.name))
