"""The committed figures are what the chapters' code draws now (tools/figures.py)."""

from __future__ import annotations

import pytest

from tools.figures import FIGURES, drawn
from tools.notebook import Notebook, chapter
from tools.tangle import ROOT


def namespace(name: str) -> dict:
    """The chapter's namespace: from this session's run of its fences, or a fresh run."""
    path = ROOT / "docs" / name
    book = chapter.notebooks.get(path)
    if book is None or book.failure or book.next < len(book.cells):
        book = Notebook(path)
        book.run_until(len(book.cells))
    if book.failure:
        pytest.skip(f"{name} fails, so its figures cannot be drawn: {book.failure}")
    return book.namespace


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_committed_figure_is_what_its_chapter_draws(name):
    figure = FIGURES[name]
    text = drawn([name], {figure.chapter: namespace(figure.chapter)})[name]
    where = figure.path.relative_to(ROOT)
    assert figure.path.exists(), f"{where} is missing: run `python3 tools/figures.py`"
    assert figure.path.read_text(encoding="utf-8") == text, (
        f"{where} is not what {figure.chapter} draws now: run `python3 tools/figures.py` "
        "(or, if the chapter's code is wrong, fix the chapter)"
    )
