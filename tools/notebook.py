"""Run each chapter's python fences as one notebook, top to bottom (used by conftest.py).

pytest-markdown-docs collects every python fence of docs/*.md as a test. This file
gives those tests notebook semantics without any keyword in the Markdown (keywords
after the language break the site's rendering):

* All fences of a chapter share one namespace, in order, like cells of a notebook.
  Each fence runs once per session; running one fence alone first replays the
  fences above it.
* Engine fences (```python title="micrograd.py"```) are the chapter's share of the
  engine. They may be pieces of one class body, with demonstrations between them,
  so the engine fences seen so far are executed together, as the tangler joins them.
* Line numbers in tracebacks are the chapter's own; what a fence prints is shown
  when it fails.
"""

from __future__ import annotations

import contextlib
import io
import types
from pathlib import Path
from typing import ClassVar

import pytest
from pytest_markdown_docs._runners import DefaultRunner, register_runner

from tools.tangle import Fence, is_python, read_fences

RUNNER = "chapter"


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


def _compile(code: str, path: Path, first_line: int):
    return compile("\n" * (first_line - 1) + code, str(path), "exec", dont_inherit=True)


class Notebook:
    """One chapter's namespace and how far into the chapter it has run."""

    def __init__(self, path: Path):
        self.fences = [f for f in read_fences(path) if f.is_python]
        self.namespace = types.ModuleType("fence").__dict__
        self.engine = ""  # the engine fences run so far, padded to their own lines
        self.done = 0  # fences run so far
        self.failure = ""  # where and how a fence failed, once one has

    def index_of(self, first_line: int) -> int:
        return next(i for i, f in enumerate(self.fences) if f.line == first_line)

    def run(self, fence: Fence) -> None:
        if fence.is_engine:
            padding = "\n" * (fence.line - 1 - self.engine.count("\n"))
            self.engine += padding + fence.code
            code = _compile(self.engine, fence.path, 1)
        else:
            code = _compile(fence.code, fence.path, fence.line)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(code, self.namespace)
        except BaseException as error:
            self.failure = f"line {fence.line}: {type(error).__name__}: {error}"
            if printed.getvalue() and hasattr(error, "add_note"):
                error.add_note(f"The fence printed:\n{printed.getvalue().rstrip()}")
            raise
        finally:
            self.done += 1


@register_runner()
class chapter(DefaultRunner):  # noqa: N801 (the runner's name is the class name)
    notebooks: ClassVar[dict[Path, Notebook]] = {}

    def runtest(self, test, args, **_):
        path = Path(test.source_path)
        book = self.notebooks.get(path)
        target = None if book is None else book.index_of(test.start_line + 1)
        if book is None or target != book.done:  # first fence, or out of order: replay
            book = self.notebooks[path] = Notebook(path)
            target = book.index_of(test.start_line + 1)
            for fence in book.fences[:target]:
                with contextlib.suppress(Exception):  # reported just below
                    book.run(fence)
                if book.failure:
                    break
        if book.failure:
            pytest.fail(
                f"an earlier fence of {path.name} failed, fix it first: {book.failure}",
                pytrace=False,
            )
        book.run(book.fences[target])
