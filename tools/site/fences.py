"""What a chapter page's Run buttons need: its python fences, and which can run in a browser,
as data in the page (docs/assets/notebook/ runs them through tools/page/run.py).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from tools import relative
from tools.chapter import Chapter, Fence
from tools.notebook import blockers, cells_of, engine_before

# Which fences cannot run in the browser. The page has the standard library, the engine
# and pytest.raises (tools/page/pytest.py), and no files, processes, network or screen.
PAGE_MODULES = {"micrograd", "pytest"}
NOT_IN_A_BROWSER = {
    "subprocess", "multiprocessing", "concurrent", "pty", "signal",  # processes
    "socket", "ssl", "http", "urllib", "ftplib", "smtplib", "webbrowser",  # the network
    "tkinter", "turtle", "curses", "readline", "sqlite3", "venv", "ensurepip",
}  # fmt: skip
FILE_CALLS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "iterdir"}


def needs(fence: Fence) -> tuple[str, str] | None:
    """What this fence needs that the page lacks (a module or files), and why that stops
    it, as ("imports `x`", "which the page's Python does not have"); or None."""
    standard = set(sys.stdlib_module_names) - NOT_IN_A_BROWSER
    names = fence.names
    for module in names.imports:
        if module.startswith("."):
            module = "(a relative import)"
        if module.split(".")[0] not in standard | PAGE_MODULES:
            return f"imports `{module}`", "which the page's Python does not have"
    files = [name for name in names.calls if name in FILE_CALLS]
    if files:
        return f"reads or writes files (`{files[0]}`)", "and the page has none"
    return None


def blocked(fences: list[Fence]) -> list[str | None]:
    """For each python fence of a chapter, why the page cannot run it, or None."""
    return blockers(fences, needs)


def page_fences(path: Path) -> dict:
    """What a chapter page's notebook needs: its name, its python fences in order, and the
    graph figures that the reader's code draws again (tools/page/live.py), with the lines
    that show them."""
    from tools.figures.from_chapters import FIGURES, line_showing  # here: the learner's page

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
    from tools.site import page_data  # the build's only: learner mode's page imports this file

    return page_data.element(page_fences(path), id="notebook-fences")
