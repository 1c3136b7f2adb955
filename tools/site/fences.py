"""What a chapter page's Run buttons need: its python fences, and which can run in a browser.

Each chapter page carries its python fences as JSON in a hidden element (page_data.py):
code, first line, engine or not, and why the fence cannot run in a browser, if it cannot,
read through tools/chapter.py.
docs/assets/notebook/notebook.js puts the controls on the page's python code blocks,
which are these fences in the same order. The fences run in a Web Worker
(docs/assets/notebook/worker.js) through tools/kernel.py, the same code that runs them
under pytest.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tools import relative
from tools.chapter import Chapter, Fence

# Which fences cannot run in the browser. The page has the standard library, the engine
# and pytest.raises (tools/site/page_pytest.py), and no files, processes, network or screen.
PAGE_MODULES = {"micrograd", "pytest"}
NOT_IN_A_BROWSER = {
    "subprocess", "multiprocessing", "concurrent", "pty", "signal",  # processes
    "socket", "ssl", "http", "urllib", "ftplib", "smtplib", "webbrowser",  # the network
    "tkinter", "turtle", "curses", "readline", "sqlite3", "venv", "ensurepip",
}  # fmt: skip
FILE_CALLS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "iterdir"}


def _needs(fence: Fence) -> tuple[str, str] | None:
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


def blockers(fences: list[Fence]) -> list[str | None]:
    """For each python fence of a chapter, why the page cannot run it, or None if it can.

    A fence cannot run in the page if it imports a module other than the standard
    library's (less NOT_IN_A_BROWSER), micrograd and pytest, or if it reads or writes
    files. Nor can a fence that uses a name which only such a fence above it defines.
    A fence that does not parse runs, and fails as it would under pytest.
    """
    reasons: list[str | None] = []
    defined: set[str] = set()  # names that fences the page runs have bound so far
    missing: dict[str, str] = {}  # names only a skipped fence binds -> what stops that fence
    for fence in fences:
        names = fence.names
        reason = cause = None
        if names.parses:
            needs = _needs(fence)
            lacking = sorted(names.free & missing.keys())
            if needs is not None:
                cause = needs[0]
                reason = f"it {cause}, {needs[1]}"
            elif lacking:
                cause = missing[lacking[0]]
                said = ", ".join(f"`{name}`" for name in lacking)
                reason = f"it uses {said} from a fence above that {cause}"
        if reason is None:
            defined |= names.bound
            for name in names.bound:
                missing.pop(name, None)
        else:
            for name in names.bound - defined:
                missing.setdefault(name, cause)
        reasons.append(reason)
    return reasons


def page_fences(path: Path) -> dict:
    """What a chapter page's notebook needs: its name, its python fences in order, and the
    graph figures that the reader's code draws again (tools/page/live.py), with the lines
    that show them."""
    from tools.figures.from_chapters import FIGURES, line_showing  # here: the learner's page

    chapter = Chapter.read(path)
    fences = [cell.fence for cell in chapter.cells]
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
        "fences": [
            {
                "line": fence.line,  # of the first line of code
                "code": fence.code,
                "engine": fence.is_engine,
                "blocked": reason,
            }
            for fence, reason in zip(fences, blockers(fences))
        ],
    }


def fences_element(path: Path) -> str:
    """The page's fence data as a hidden element (page_data.py; the same bytes on every
    build)."""
    from tools.site import page_data  # the build's only: learner mode's page imports this file

    return page_data.element(page_fences(path), id="notebook-fences")
