"""Data a page's scripts read (fences, steps, nudges, learner mode), as hidden elements.

The JSON rides in a hidden span's ``data-json`` attribute, not in a script: Material's
instant navigation remakes a page's scripts without their attributes, and search does not
index an attribute. Pages read it with ``bookPage.data`` (docs/assets/page/page.js).
"""

import dataclasses
import html
import json
import re
from collections.abc import Callable
from pathlib import Path

import markdown

from tools import relative
from tools.chapter import Chapter
from tools.notebook import cells_of, engine_before, needs
from tools.page import graphs  # noqa: F401 (registers the graph figures)
from tools.page.figures import FIGURES


def element(data, **attributes: str) -> str:
    """``data`` as a hidden element with ``attributes`` (``data_steps="x"`` becomes
    ``data-steps="x"``; ``class_="x"`` adds to its class); the same bytes on every build."""
    text = html.escape(json.dumps(data, sort_keys=True, ensure_ascii=True), quote=True)
    classes = " ".join(["page-data", attributes.pop("class_", "")]).strip()
    said = "".join(
        f' {name.replace("_", "-")}="{html.escape(value, quote=True)}"'
        for name, value in attributes.items()
    )
    return f'<span class="{classes}" hidden{said} data-json="{text}"></span>'


def replace_paragraph(content: str, opening: str, make: Callable[[str], str]) -> tuple[str, bool]:
    """``content`` (a chapter) with its paragraph that starts with ``opening`` (a
    placeholder) replaced by ``make(that paragraph as HTML)``, and whether it had one."""
    found = re.search(rf"^{re.escape(opening)}.*?(?=\n\s*\n|\Z)", content, re.M | re.S)
    if found is None:
        return content, False
    paragraph = re.sub(r'(href="[\w.-]+)\.md\b', r"\1.html", markdown.markdown(found[0]))
    made = make(paragraph)  # one block of HTML: the styles and script it ends with inside it
    made = re.sub(r"(</\w+>)((?:<link [^>]*>|<script [^>]*></script>)+)$", r"\2\1", made)
    return content[: found.start()] + made + content[found.end() :], True


def read(page: str, marker: str) -> list:
    """The data of every element of ``page`` (HTML) made by ``element`` whose attributes
    include ``marker`` (such as ``id="notebook-fences"`` or ``data-steps="fig-3"``)."""
    pattern = r'<span class="page-data[^"]*" hidden([^>]*) data-json="([^"]*)"></span>'
    found = re.finditer(pattern, page)
    return [json.loads(html.unescape(m[2])) for m in found if marker in m[1]]


def page_fences(path: Path) -> dict:
    """What a chapter page's notebook needs (docs/assets/notebook/, as data in the page): its
    name, its python fences as the runner's cells (and their names), how many of
    engine.json's chunks come before it, and the graph figures that the reader's code draws
    again (tools/page/live.py), with the lines that show them."""
    chapter = Chapter.read(path)
    figures = [
        {"name": figure.name, "line": line}
        for figure in FIGURES.values()
        if figure.graph
        and figure.chapter == path.name
        and (line := chapter.figure_line(figure.name)) is not None
    ]
    return {
        "chapter": relative(path),
        "figures": sorted(figures, key=lambda figure: figure["line"]),
        "engine_before": len(engine_before(path)),
        "fences": [dataclasses.asdict(cell) for cell in cells_of(chapter, needs)],
        # Each fence's name, kept by edits elsewhere in the chapter (tools/chapter.py): the
        # page keeps a reader's edit of a fence under it, across reloads.
        "names": [cell.name for cell in chapter.cells],
    }
