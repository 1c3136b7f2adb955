"""What a chapter page's Run buttons need: its python fences, and which can run in a browser,
as data in the page (docs/assets/notebook/ runs them through tools/page/run.py).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tools import relative
from tools.chapter import Chapter
from tools.figures.from_chapters import FIGURES, line_showing
from tools.notebook import cells_of, engine_before, needs
from tools.site import page_data


def page_fences(path: Path) -> dict:
    """What a chapter page's notebook needs: its name, its python fences in order, and the
    graph figures that the reader's code draws again (tools/page/live.py), with the lines
    that show them."""
    chapter = Chapter.read(path)
    figures = [
        {"name": figure.name, "line": line}
        for figure in FIGURES.values()
        if figure.graph
        and figure.chapter == path.name
        and (line := line_showing(chapter.lines, figure.name)) is not None
    ]
    return {
        "chapter": relative(path),
        "figures": sorted(figures, key=lambda figure: figure["line"]),
        "engine_before": len(engine_before(path)),  # chunks of assets/notebook/engine.json
        "fences": [dataclasses.asdict(cell) for cell in cells_of(chapter, needs)],
    }


def fences_element(path: Path) -> str:
    """The page's fence data as a hidden element (page_data.py; the same bytes on every
    build)."""
    return page_data.element(page_fences(path), id="notebook-fences")
