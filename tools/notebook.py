"""Run a chapter's python fences as one notebook, top to bottom: the model the tests run.

Plain Python over tools/chapter.py and tools/kernel.py; the pytest plugin
(tools/chapters_plugin.py), learner mode and the figures drive it. It imports no pytest.

* All fences of a chapter share one namespace, in order, like cells of a notebook.
* Engine fences (```python title="micrograd.py"```) are the chapter's share of the
  engine. They may be pieces of one class body, with demonstrations between them,
  so the engine fences seen so far are executed together, as the tangler joins them.
  (The namespace and the engine pieces are tools/kernel.py's, which the site's Run
  buttons use too.)
* A fence followed by an ```output fence (nothing but blank lines between) must print
  exactly that text; a fence that prints must have one. The reader sees the result in
  the Markdown, and the result cannot drift from the code. ``updated_outputs`` rewrites
  the output blocks with what the fences print now (and adds missing ones).
* The first fence that fails, or does not compile, stops the chapter (``failure``): the
  caller skips the fences after it rather than run them against half-built state. Line
  numbers in tracebacks are the chapter's own; what a fence printed is kept with a failure.
* A fence that imports an optional module which is not installed (PyTorch, for the
  folded "The same in PyTorch" comparisons) is not run: ``skipped`` says why, once per
  fence, and the chapter goes on (those fences bind nothing later fences use).
* Learner mode: with ``engine=PATH`` the chapter runs against the micrograd.py at PATH
  instead of the book's engine fences (tools/learner.py).
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import io
import re
import sys
import types
from collections.abc import Callable
from pathlib import Path

from tools import ROOT, relative
from tools.chapter import OUTPUT, Cell, Chapter
from tools.kernel import Kernel

# Modules a fence may import that the book does not require, and what their absence means.
OPTIONAL = {
    "torch": "PyTorch is not installed, so the folded 'The same in PyTorch' fences do not "
    "run (MICROGRAD_EXTRAS=torch python3 tools/dev.py test installs it)",
}


def needs_optional(module: str) -> bool:
    """Is ``module`` (a name a fence imports) one of the OPTIONAL modules, or inside one?"""
    return module.split(".")[0] in OPTIONAL


def missing_optional(code_imports) -> str | None:
    """Why a fence importing these modules cannot run here, or None if it can."""
    for module in code_imports:
        top = module.split(".")[0]
        if needs_optional(top) and importlib.util.find_spec(top) is None:
            return OPTIONAL[top]
    return None


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

    def __init__(
        self,
        path: Path,
        engine: Path | None = None,
        check_outputs: bool = True,
        patch: Callable[[types.ModuleType], None] | None = None,
        optional: bool = True,
    ):
        self.path = path
        # False: fences that import an OPTIONAL module never run, installed or not (what
        # is drawn from a chapter must come out the same without them).
        self.optional = optional
        self.check_outputs = check_outputs  # False while --update-outputs rewrites them
        self.chapter = Chapter.read(path)
        self.cells = self.chapter.cells
        self.kernel = Kernel(str(path))  # the namespace, and the engine fences run so far
        self.namespace = self.kernel.namespace
        self.engine_file = engine  # a learner's micrograd.py, used instead of engine fences
        self.patch = patch  # applied to the learner's module once imported (a diagnosis)
        self._learner_module: types.ModuleType | None = None
        self.next = 0  # index of the next cell to run
        self.failure: str | None = None  # where and how the first failing cell failed
        self.error: BaseException | None = None
        self.printed: dict[int, str] = {}  # cell index -> what it printed
        self.skipped: dict[int, str] = {}  # cell index -> why it did not run

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
        imports = cell.fence.names.imports
        reason = missing_optional(imports)
        if reason is None and not self.optional and any(needs_optional(m) for m in imports):
            reason = "left out: this run does without the optional modules"
        if reason is not None:
            self.skipped[index] = reason  # its output block stays as it is
            return
        printed = io.StringIO()
        try:
            with self._learner_engine():
                if not (cell.fence.is_engine and self.engine_file is not None):
                    self.kernel.run(cell.fence.code, cell.line, cell.fence.is_engine, printed)
            self.printed[index] = printed.getvalue()
            if self.check_outputs:
                self._check_output(cell, printed.getvalue())
        except BaseException as error:
            where = f"{relative(self.path, ROOT)}:{cell.line - 1}"
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
            if self.patch is not None:
                self.patch(self._learner_module)
            if any(cell.fence.is_engine for cell in self.cells):
                names = vars(self._learner_module).items()
                self.namespace.update({k: v for k, v in names if not k.startswith("_")})
        with as_micrograd(self._learner_module):
            yield

    def _check_output(self, cell: Cell, printed: str) -> None:
        where = f"{relative(self.path, ROOT)}:{cell.line - 1}"
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
    A block shows the text with a final newline added if it had none, between fences longer
    than any run of backticks in it, so nothing printed can close it early.
    """
    chapter = Chapter.read(path)
    lines = re.split(r"(?<=\n)", chapter.text)  # at "\n" only, as Markdown counts lines
    for index, cell in sorted(enumerate(chapter.cells), key=lambda item: -item[1].line):
        if index not in printed:
            continue
        text = printed[index]
        ticks = "`" * max(3, 1 + max(map(len, re.findall("`+", text)), default=0))
        shown = text if text.endswith("\n") else text + "\n"
        block = [f"{ticks}{OUTPUT}\n", shown, f"{ticks}\n"]
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
