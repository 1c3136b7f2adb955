"""Run each chapter's python fences as one notebook, top to bottom (used by conftest.py).

pytest-markdown-docs collects every python fence of docs/*.md as a test. This file
gives those tests notebook semantics without any keyword in the Markdown (keywords
after the language break the site's rendering):

* All fences of a chapter share one namespace, in order, like cells of a notebook.
  Each fence runs once per session; running one fence alone (say from VS Code's Testing
  panel) first runs the fences above it.
* Engine fences (```python title="micrograd.py"```) are the chapter's share of the
  engine. They may be pieces of one class body, with demonstrations between them,
  so the engine fences seen so far are executed together, as the tangler joins them.
  (The namespace and the engine pieces are tools/kernel.py's, which the site's Run
  buttons use too.)
* A fence followed by an ```output fence (nothing but blank lines between) must print
  exactly that text; a fence that prints must have one. The reader sees the result in
  the Markdown, and the result cannot drift from the code. `pytest --update-outputs`
  rewrites the output blocks with what the fences print now (and adds missing ones).
* The first fence that fails, or does not compile, stops the chapter: the fences after
  it are skipped with a pointer to it, not run against half-built state. Line numbers in
  tracebacks are the chapter's own; what a fence printed is shown when it fails.
"""

from __future__ import annotations

import contextlib
import difflib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from pytest_markdown_docs._runners import DefaultRunner, register_runner

from tools.kernel import Kernel
from tools.tangle import ROOT, Fence, _relative, is_python, read_fences, runs_at_build

RUNNER = "chapter"
OUTPUT = "output"  # the info string of a fence that holds the printed output of the one above


def pytest_markdown_docs_markdown_it():
    """The plugin's CommonMark parser, plus a rule that routes python fences to our runner."""
    from markdown_it import MarkdownIt

    def route_python_fences(state):
        for token in state.tokens:
            if token.type == "fence" and is_python(token.info):
                token.info = f"{token.info} runner:{RUNNER}"

    parser = MarkdownIt("commonmark")
    parser.core.ruler.push("route_python_fences", route_python_fences)
    return parser


@dataclass(frozen=True)
class Cell:
    """A python fence of a chapter, and the ```output fence right below it, if any."""

    fence: Fence
    output: Fence | None

    @property
    def line(self) -> int:
        return self.fence.line

    @property
    def end(self) -> int:
        """The line of the fence's closing backticks."""
        return self.fence.line + self.fence.code.count("\n")


def cells(path: Path) -> list[Cell]:
    """The python fences of a chapter, each paired with the output block that follows it."""
    fences = read_fences(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for i, fence in enumerate(fences):
        if not fence.is_python:
            continue
        after = fences[i + 1] if i + 1 < len(fences) else None
        end = fence.line + fence.code.count("\n")  # the closing ``` (1-based)
        adjacent = after is not None and all(not s.strip() for s in lines[end : after.line - 2])
        is_output = adjacent and after.info == OUTPUT
        found.append(Cell(fence, after if is_output else None))
    return found


def misplaced_outputs(path: Path) -> list[int]:
    """Lines of ```output fences that do not sit right below a python fence."""
    paired = {cell.output.line for cell in cells(path) if cell.output}
    return [f.line - 1 for f in read_fences(path) if f.info == OUTPUT and f.line not in paired]


class OutputMismatchError(AssertionError):
    """A fence printed something other than its ```output block shows."""


class Notebook:
    """One chapter's namespace, and how far into the chapter it has run."""

    def __init__(self, path: Path):
        self.path = path
        self.cells = cells(path)
        self.kernel = Kernel(str(path))  # the namespace, and the engine fences run so far
        self.namespace = self.kernel.namespace
        self.next = 0  # index of the next cell to run
        self.failure: str | None = None  # where and how the first failing cell failed
        self.error: BaseException | None = None
        self.printed: dict[int, str] = {}  # cell index -> what it printed

    @property
    def fences(self) -> list[Fence]:
        return [cell.fence for cell in self.cells]

    def index_of(self, first_line: int) -> int:
        return next(i for i, c in enumerate(self.cells) if c.line == first_line)

    def run_until(self, index: int) -> None:
        """Run the cells above ``index`` that have not run, stopping at a failure."""
        while self.next < index and self.failure is None:
            with contextlib.suppress(Exception):  # recorded in self.failure
                self.run_next()

    def run_next(self) -> None:
        """Run the next cell; on failure, remember it and raise."""
        index, cell = self.next, self.cells[self.next]
        self.next += 1
        printed = io.StringIO()
        try:
            self.kernel.run(cell.fence.code, cell.line, cell.fence.is_engine, printed)
            self.printed[index] = printed.getvalue()
            self._check_output(cell, printed.getvalue())
        except BaseException as error:
            where = f"{_relative(self.path, ROOT)}:{cell.line - 1}"
            self.failure = f"{where}: {type(error).__name__}: {error}".split("\n")[0]
            self.error = error
            shown = printed.getvalue() and not isinstance(error, OutputMismatchError)
            if shown and hasattr(error, "add_note"):  # add_note: Python 3.11+
                error.add_note(f"The fence printed:\n{printed.getvalue().rstrip()}")
            raise

    def _check_output(self, cell: Cell, printed: str) -> None:
        if runs_at_build(cell.fence.info):  # markdown-exec prints its pictures into the page
            return
        where = f"{_relative(self.path, ROOT)}:{cell.line - 1}"
        if cell.output is None:
            if printed:
                raise OutputMismatchError(
                    f"{where}: the fence prints, but no ```output block follows it to show "
                    f"the reader what. It printed:\n{printed.rstrip()}\n"
                    "Add the block, or run the tests with --update-outputs to add it."
                )
            return
        if printed != cell.output.code:
            diff = "".join(
                difflib.unified_diff(
                    cell.output.code.splitlines(keepends=True),
                    printed.splitlines(keepends=True),
                    f"the ```output block (line {cell.output.line - 1})",
                    "what the fence printed",
                )
            )
            raise OutputMismatchError(
                f"{where}: the fence printed something else than its ```output block "
                f"shows:\n{diff}\nIf the code is right, fix the block or run the tests with "
                "--update-outputs (then fix the prose that quotes it)."
            )


def updated_outputs(path: Path, printed: dict[int, str]) -> str:
    """The chapter's text with each cell's output block replaced by what the cell printed.

    ``printed`` maps cell indices to their printed text; cells not in it keep their block.
    A cell that printed but has no block gets one; one that printed nothing loses its block.
    """
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for index, cell in sorted(enumerate(cells(path)), key=lambda item: -item[1].line):
        if index not in printed or runs_at_build(cell.fence.info):
            continue
        text = printed[index]
        block = [f"```{OUTPUT}\n", text if text.endswith("\n") else text + "\n", "```\n"]
        if cell.output is not None:  # replace from its opening to its closing backticks
            start = cell.output.line - 2
            stop = cell.output.line + cell.output.code.count("\n")
            if text:
                lines[start : stop + 1] = block
            else:  # nothing printed: drop the block and the blank lines above it
                del lines[cell.end : stop + 1]
        elif text:
            lines[cell.end : cell.end] = ["\n", *block]
    return "".join(lines)


def pytest_addoption(parser):
    parser.addoption(
        "--update-outputs",
        action="store_true",
        help="rewrite each chapter's ```output blocks with what its fences print now",
    )


def pytest_sessionfinish(session):
    if not session.config.getoption("--update-outputs", default=False):
        return
    for path, book in chapter.notebooks.items():
        new = updated_outputs(path, book.printed)
        if new != path.read_text(encoding="utf-8"):
            path.write_text(new, encoding="utf-8", newline="\n")
            print(f"\nupdated the ```output blocks of {path}")


@register_runner()
class chapter(DefaultRunner):  # noqa: N801 (the runner's name is the class name)
    notebooks: ClassVar[dict[Path, Notebook]] = {}

    def runtest(self, test, args, **_):
        path = Path(test.source_path)
        book = self.notebooks.get(path)
        line = test.start_line + 1
        if book is not None and book.index_of(line) < book.next:
            if book.failure and book.index_of(line) == book.next - 1:
                raise book.error  # the plugin calls again after a TypeError: no rerun
            book = None  # a fence run again: start the chapter afresh
        if book is None:
            book = self.notebooks[path] = Notebook(path)
        target = book.index_of(line)
        book.run_until(target)
        if book.failure:  # one failure, one message: the later fences are not run
            pytest.skip(f"not run: an earlier fence failed first, at {book.failure}")
        book.run_next()

    def repr_failure(self, test, excinfo, style=None):
        if isinstance(excinfo.value, OutputMismatchError):
            return str(excinfo.value)
        return super().repr_failure(test, excinfo, style)
