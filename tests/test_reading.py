"""The book as a reader sees it: results in the reading flow, checks folded, figures in place.

A chapter's checks are its tests, but a reader should meet results, not scaffolding:
checks live in folded `<details markdown="1">` blocks, which the site, VS Code's preview
and GitHub all render closed. These tests count what stays in the reading flow, make
sure what a reader sees can be copied and run outside this repository (it imports only
micrograd and the standard library), and that every figure a chapter shows exists, has a
text alternative, and is one the figure tool draws.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tools.figures import FIGURES, FOLDER
from tools.tangle import ROOT, chapters, is_python

PAGES = chapters(ROOT / "docs")
VISIBLE_CHECKS_BUDGET = 50  # assert / pytest.raises lines left in the reading flow, book-wide
CHECK_LINE = re.compile(r"^\s*(assert\b|with pytest\.raises\b)")
IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\)")


@dataclass(frozen=True)
class Shown:
    line: int  # of the opening backticks
    code: str
    folded: bool  # inside a <details> block


def python_fences(page: Path) -> list[Shown]:
    """The chapter's python fences, and whether each sits in a folded <details> block."""
    depth, found = 0, []
    for token in MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8")):
        if token.type in ("html_block", "html_inline"):
            depth += len(re.findall(r"<details\b", token.content))
            depth -= len(re.findall(r"</details>", token.content))
        elif token.type == "fence" and is_python(token.info):
            found.append(Shown(token.map[0] + 1, token.content, depth > 0))
    return found


def visible_checks(page: Path) -> list[str]:
    return [
        f"{page.name}:{fence.line + i + 1}"
        for fence in python_fences(page)
        if not fence.folded
        for i, line in enumerate(fence.code.splitlines())
        if CHECK_LINE.match(line)
    ]


def test_figures_are_numbered_in_reading_order():
    numbers = [
        (page.name, int(match[1]))
        for page in PAGES
        for match in re.finditer(r"^\*Figure (\d+)\.", page.read_text(encoding="utf-8"), re.M)
    ]
    assert [n for _, n in numbers] == list(range(1, len(numbers) + 1)), (
        f"figure captions should count 1, 2, 3... through the book: {numbers}"
    )


def test_checks_stay_out_of_the_reading_flow():
    visible = [where for page in PAGES for where in visible_checks(page)]
    assert len(visible) <= VISIBLE_CHECKS_BUDGET, (
        f"{len(visible)} assert/pytest.raises lines are in the reading flow (budget "
        f'{VISIBLE_CHECKS_BUDGET}); fold checks into a <details markdown="1"> block: '
        + ", ".join(visible)
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_what_a_reader_sees_imports_only_micrograd_and_the_standard_library(page):
    for fence in python_fences(page):
        if fence.folded:
            continue
        for node in ast.walk(ast.parse(textwrap.dedent(fence.code))):  # a method alone, too
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top == "micrograd" or top in sys.stdlib_module_names, (
                    f"{page.name}:{fence.line}: a fence in the reading flow imports {name}; "
                    "a reader copying it has only micrograd and the standard library "
                    "(move it into a folded check, or draw it as a figure)"
                )


def figures_shown() -> list[tuple[Path, int, str, str]]:
    found = []
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            found += [(page, number, m["alt"], m["src"]) for m in IMAGE.finditer(line)]
    return found


def test_every_figure_shown_exists_has_a_text_alternative_and_is_drawn_by_the_tool():
    shown = figures_shown()
    for page, line, alt, src in shown:
        where = f"{page.name}:{line}"
        assert src.startswith("figures/") and src.endswith(".svg"), f"{where}: {src}"
        name = Path(src).stem
        assert name in FIGURES, f"{where}: {src} is not a figure tools/figures.py draws"
        assert page.name in (FIGURES[name].chapter, "index.md"), (
            f"{where}: {src} is drawn from {FIGURES[name].chapter}, not from this chapter"
        )
        assert (FOLDER / f"{name}.svg").exists(), f"{where}: {src} does not exist"
        assert len(alt.split()) >= 8, (
            f"{where}: give {src} a text alternative that says what it shows"
        )
    in_chapters = {Path(src).stem for page, *_, src in shown if page.name != "index.md"}
    unused = set(FIGURES) - in_chapters
    assert not unused, f"figures drawn but shown by no chapter: {sorted(unused)}"
    assert len(in_chapters) >= 14, f"only {len(in_chapters)} figures in the chapters"
