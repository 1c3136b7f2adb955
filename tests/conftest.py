"""Fixtures shared by the tests (those of the site's tests are in tests/site/conftest.py)."""

from __future__ import annotations

import pytest

from tests.helpers.book import make_book


@pytest.fixture
def book(tmp_path):
    """A small book of two chapters (tests/helpers/book.py): its docs folder and engine path."""
    return make_book(tmp_path)
