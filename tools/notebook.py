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
* Learner mode: `pytest docs --engine=PATH` (or MICROGRAD_ENGINE=PATH) runs the chapters
  against the micrograd.py at PATH instead of the book's engine fences (tools/learner.py).
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from pytest_markdown_docs._runners import DefaultRunner, register_runner

from tools.kernel import Kernel
from tools.tangle import ROOT, Fence, _relative, is_python, read_fences

RUNNER = "chapter"
OUTPUT = "output"  # the info string of a fence that holds the printed output of the one above
ENGINE_VARIABLE = "MICROGRAD_ENGINE"  # the default of --engine: a learner's micrograd.py


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


class EngineImportError(ImportError):
    """A learner's micrograd.py, given with --engine, does not import."""


def import_engine(path: Path) -> types.ModuleType:
    """The micrograd.py at ``path``, run as a fresh module named ``micrograd``.

    Compiled from its text (no __pycache__ is written next to it, and none is read).
    """
    module = types.ModuleType("micrograd")
    module.__file__ = str(path)
    try:
        code = compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
        with as_micrograd(module):
            exec(code, module.__dict__)
    except Exception as error:
        raise EngineImportError(f"{path} does not import: {describe_error(error)}") from error
    return module


@contextlib.contextmanager
def as_micrograd(module: types.ModuleType):
    """Make ``module`` what `import micrograd` gives, until the block ends."""
    before = sys.modules.get("micrograd")
    sys.modules["micrograd"] = module
    try:
        yield
    finally:
        if before is None:
            del sys.modules["micrograd"]
        else:
            sys.modules["micrograd"] = before


def describe_error(error: BaseException) -> str:
    """``Type: message``, even when the message cannot be formatted (a Value whose
    __repr__ raises, in an assertion's message)."""
    try:
        message = str(error)
    except Exception as broken:
        message = f"(message not shown: formatting it raised {type(broken).__name__})"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


class Notebook:
    """One chapter's namespace, and how far into the chapter it has run."""

    def __init__(self, path: Path, engine: Path | None = None, check_outputs: bool = True):
        self.path = path
        self.check_outputs = check_outputs  # False while --update-outputs rewrites them
        self.cells = cells(path)
        self.kernel = Kernel(str(path))  # the namespace, and the engine fences run so far
        self.namespace = self.kernel.namespace
        self.engine_file = engine  # a learner's micrograd.py, used instead of engine fences
        self._learner_module: types.ModuleType | None = None
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
            with self._learner_engine():
                if not (cell.fence.is_engine and self.engine_file is not None):
                    self.kernel.run(cell.fence.code, cell.line, cell.fence.is_engine, printed)
            self.printed[index] = printed.getvalue()
            if self.check_outputs:
                self._check_output(cell, printed.getvalue())
        except BaseException as error:
            where = f"{_relative(self.path, ROOT)}:{cell.line - 1}"
            self.failure = f"{where}: {describe_error(error)}".split("\n")[0]
            self.error = error
            shown = printed.getvalue() and not isinstance(error, OutputMismatchError)
            if shown and hasattr(error, "add_note"):  # add_note: Python 3.11+
                error.add_note(f"The fence printed:\n{printed.getvalue().rstrip()}")
            raise

    @contextlib.contextmanager
    def _learner_engine(self):
        """With ``engine_file``: it is `micrograd` while a fence runs, and in a chapter that
        builds the engine its public names are in the namespace from the start, where the
        engine fences (which do not run) would have put the book's."""
        if self.engine_file is None:
            yield
            return
        if self._learner_module is None:
            self._learner_module = import_engine(self.engine_file)
            if any(cell.fence.is_engine for cell in self.cells):
                names = vars(self._learner_module).items()
                self.namespace.update({k: v for k, v in names if not k.startswith("_")})
        with as_micrograd(self._learner_module):
            yield

    def _check_output(self, cell: Cell, printed: str) -> None:
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
            remedy = (
                "Your engine and the book's disagree here: the lines with - are the book's."
                if self.engine_file
                else "If the code is right, fix the block or run the tests with "
                "--update-outputs (then fix the prose that quotes it)."
            )
            raise OutputMismatchError(
                f"{where}: the fence printed something other than what its ```output block "
                f"shows:\n{diff}\n{remedy}"
            )


def updated_outputs(path: Path, printed: dict[int, str]) -> str:
    """The chapter's text with each cell's output block replaced by what the cell printed.

    ``printed`` maps cell indices to their printed text; cells not in it keep their block.
    A cell that printed but has no block gets one; one that printed nothing loses its block.
    """
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for index, cell in sorted(enumerate(cells(path)), key=lambda item: -item[1].line):
        if index not in printed:
            continue
        text = printed[index]
        block = [f"```{OUTPUT}\n", text if text.endswith("\n") else text + "\n", "```\n"]
        if cell.output is not None:  # replace from its opening to its closing backticks
            start = cell.output.line - 2  # its opening backticks, 0-based
            stop = cell.output.line + cell.output.code.count("\n") - 1  # its closing ones
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
    parser.addoption(
        "--engine",
        default=os.environ.get(ENGINE_VARIABLE) or None,
        metavar="PATH",
        help=f"run the chapters against this micrograd.py, not the book's engine fences "
        f"(default: ${ENGINE_VARIABLE})",
    )


def pytest_configure(config):
    chapter.check_outputs = not config.getoption("--update-outputs", default=False)
    engine = config.getoption("--engine", default=None)
    chapter.engine_file = None
    if engine is None:
        return
    path = Path(engine).resolve()
    if not path.is_file():
        raise pytest.UsageError(f"--engine / {ENGINE_VARIABLE}: {engine}: no such file")
    if config.getoption("--update-outputs", default=False):
        raise pytest.UsageError(
            "--update-outputs with --engine would write what your engine prints into the "
            "book's chapters: run one or the other"
        )
    chapter.engine_file = path


def pytest_report_header(config):
    if chapter.engine_file is not None:
        return f"chapters run against {chapter.engine_file} (learner mode), not the book's engine"
    return None


def pytest_sessionfinish(session):
    if chapter.check_outputs:
        return
    for path, book in chapter.notebooks.items():
        new = updated_outputs(path, book.printed)
        if new != path.read_text(encoding="utf-8"):
            path.write_text(new, encoding="utf-8", newline="\n")
            print(f"\nupdated the ```output blocks of {path}")


@register_runner()
class chapter(DefaultRunner):  # noqa: N801 (the runner's name is the class name)
    notebooks: ClassVar[dict[Path, Notebook]] = {}
    check_outputs: ClassVar[bool] = True  # False under --update-outputs
    engine_file: ClassVar[Path | None] = None  # set by --engine (learner mode)

    def runtest(self, test, args, **_):
        path = Path(test.source_path)
        book = self.notebooks.get(path)
        line = test.start_line + 1
        if book is not None and book.index_of(line) < book.next:
            if book.failure and book.index_of(line) == book.next - 1:
                raise book.error  # the plugin calls again after a TypeError: no rerun
            book = None  # a fence run again: start the chapter afresh
        if book is None:
            book = self.notebooks[path] = Notebook(
                path, engine=self.engine_file, check_outputs=self.check_outputs
            )
        target = book.index_of(line)
        book.run_until(target)
        if book.failure:  # one failure, one message: the later fences are not run
            pytest.skip(f"not run: an earlier fence failed first, at {book.failure}")
        book.run_next()
        if self.engine_file is not None and book.cells[target].fence.is_engine:
            pytest.skip(f"engine fence: {self.engine_file} is used instead")

    def repr_failure(self, test, excinfo, style=None):
        if isinstance(excinfo.value, OutputMismatchError):
            return str(excinfo.value)
        return super().repr_failure(test, excinfo, style)
