"""A chapter file run as a notebook: tools/page/run.py's Notebook, fed from a docs/*.md file.

This file reads the chapter, finds the engine as it stands before it, says which fences
cannot run here (an OPTIONAL module not installed) or in a browser, and keeps the interface
the pytest plugin, learner mode (``engine=PATH``) and the figures drive; the first failure
stops a chapter. It imports no pytest.
"""

import ast
import contextlib
import dataclasses
import importlib.util
import re
import sys
import types
from collections.abc import Callable, Iterable
from pathlib import Path

from tools import ENGINE, ROOT, engine_for, relative
from tools.chapter import OUTPUT, ChangedError, Chapter, Fence, fence_ticks, rewrite
from tools.page import run
from tools.page.kernel import Chunk, describe, engine_module
from tools.page.run import OutputMismatchError
from tools.tangle import engine_chunks

# Modules a fence may import that the book does not require, and what their absence means.
OPTIONAL = {
    "torch": "the folded 'The same in PyTorch' fences need it "
    "(MICROGRAD_EXTRAS=torch python3 tools/dev.py test installs it)",
    "hypothesis": "the folded 'Property-based checks, with Hypothesis' fence needs it "
    "(python3 tools/dev.py test installs it)",
}
LEARNER_REMEDY = "Your engine and the book's disagree here: the lines with - are the book's."
# Ends the first line of a check's top-level statement that holds the book's own engine to
# numbers recorded from it (the appendix's collector counts, on the Python the benchmark
# ran on): any correct engine may allocate otherwise, so learner mode does not run it.
BOOK_ONLY = "# the book's engine only"


def for_a_learner(code: str) -> str:
    """``code`` without its top-level statements marked ``BOOK_ONLY`` (each becomes ``pass``
    and blank lines, so every other line keeps its number)."""
    if BOOK_ONLY not in code:
        return code
    lines = code.split("\n")
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    for statement in tree.body:
        if lines[statement.lineno - 1].rstrip().endswith(BOOK_ONLY):
            first, last = statement.lineno - 1, statement.end_lineno
            lines[first:last] = ["pass"] + [""] * (last - first - 1)
    return "\n".join(lines)


class EngineImportError(ImportError):
    """A learner's micrograd.py, given with --engine, does not import."""


def import_engine(path: Path) -> types.ModuleType:
    """The micrograd.py at ``path``, run as a fresh module named ``micrograd`` (a tensor.py,
    ``tensor``), compiled from its text: no __pycache__ is written next to it, or read."""
    name = Path(engine_for(path)).stem
    try:
        return engine_module(path.read_text(encoding="utf-8"), str(path), str(path), name)
    except Exception as error:
        raise EngineImportError(f"{path} does not import: {describe(error)}") from error


def blockers(
    fences: list[Fence], needs: Callable[[Fence], tuple[str, str] | None]
) -> list[str | None]:
    """For each python fence of a chapter, why it cannot run where ``needs`` says what is
    lacking (for a fence: what it needs, and why that stops it), or None if it can. A
    fence that uses a name which only such a fence above it binds cannot run either. A
    fence that does not parse runs, and fails as it would anywhere."""
    reasons: list[str | None] = []
    defined: set[str] = set()  # names that fences which run have bound so far
    missing: dict[str, str] = {}  # names only a blocked fence binds -> what stops that fence
    for fence in fences:
        names = fence.names
        reason = cause = None
        if names.parses:
            need = needs(fence)
            lacking = sorted(names.free & missing.keys())
            if need is not None:
                cause = need[0]
                reason = f"it {cause}, {need[1]}"
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


def optional_needs(everything: bool = True):
    """``needs`` for this machine: an OPTIONAL module that is not installed (with
    ``everything`` False, any OPTIONAL module: the run does without them)."""

    def needs(fence: Fence) -> tuple[str, str] | None:
        for top in (module.split(".")[0] for module in fence.names.imports):
            if top in OPTIONAL and not everything:
                return f"imports `{top}`", "and this run does without the optional modules"
            if top in OPTIONAL and importlib.util.find_spec(top) is None:
                return f"imports `{top}`", f"which is not installed here: {OPTIONAL[top]}"
        return None

    return needs


# Which fences cannot run in the browser. The page has the standard library, the engine
# and pytest.raises (tools/page/pytest.py), and no files, processes, network or screen.
PAGE_MODULES = {"micrograd", "tensor", "pytest"}
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


def engine_before(path: Path, book: Path | None = None) -> list[Chunk]:
    """The engine chunks of the chapters of ``book`` (default: the chapter's folder) that
    come before the chapter ``path`` in reading order, in that order (the tangler's); for
    the home page, which shows the finished engine, all of them."""
    chunks = engine_chunks(book or path.parent, until=None if path.name == "index.md" else path)
    return [Chunk(c.chapter, c.fence.line, c.fence.code, c.fence.engine) for c in chunks]


def cells_of(chapter: Chapter, needs) -> list[run.Cell]:
    """The chapter's python fences as the runner's cells."""
    fences = [cell.fence for cell in chapter.cells]
    cells = []
    for c, why in zip(chapter.cells, blockers(fences, needs)):
        output = {"output": c.output.code, "output_line": c.output.opening} if c.output else {}
        cells.append(run.Cell(c.line, c.fence.code, c.fence.engine, blocked=why, **output))
    return cells


class Notebook(run.Notebook):
    """One chapter file run as tools/page/run.py's Notebook, one fence at a time: its cells
    read from the file, the engine as it stands before it; the first failure stops it.

    ``engine``: a learner's micrograd.py, used instead of the engine chunks (``patch`` is
    applied to it first). ``book``: the folder whose chapters come before this one
    (default: its own). ``optional`` False: fences that import an OPTIONAL module never
    run, installed or not (what is drawn from a chapter must come out the same without them).
    ``text``: the chapter as read already (default: read it now), kept as ``as_read``.
    """

    def __init__(
        self,
        path: Path,
        engine: Path | None = None,
        check_outputs: bool = True,
        patch: Callable[[types.ModuleType], None] | None = None,
        optional: bool = True,
        book: Path | None = None,
        text: str | None = None,
    ):
        self.path = path
        self.as_read = Chapter.read(path, text)  # the text its cells come from
        self.engine_module = None  # a learner's engine, used instead of the engine chunks
        self.engine_error: EngineImportError | None = None  # raised by the first cell run
        cells = cells_of(self.as_read, optional_needs(optional))
        own = engine_for(engine) if engine is not None else ""  # the learner's engine file
        if engine is not None:
            cells = [dataclasses.replace(c, code=for_a_learner(c.code)) for c in cells]
            try:
                self.engine_module = import_engine(engine)
            except EngineImportError as error:
                self.engine_error, self.engine_module = error, types.ModuleType(own[:-3])
            if patch is not None and self.engine_error is None:
                patch(self.engine_module)
        super().__init__(
            relative(path, ROOT),
            cells,
            # a learner's engine file is whole: the other engines' chunks come before
            before=[c for c in engine_before(path, book) if c.file != own],
            engine=self.engine_module,
            check_outputs=check_outputs,
            remedy=LEARNER_REMEDY if engine is not None else run.UPDATE,
            file=str(ROOT / ENGINE),
        )
        self.failure: str | None = None  # where and how the first failing cell failed
        self.error: BaseException | None = None

    @property
    def runner(self) -> run.Notebook:
        """The runner itself (tools/learn/child.py reads ``book.runner.kernel``)."""
        return self

    @property
    def printed(self) -> dict[int, str]:
        """What each cell that ran printed, by index."""
        return {i: o.printed for i, o in self.outcomes.items() if o.state != "blocked"}

    def index_of(self, first_line: int) -> int:
        return next(i for i, c in enumerate(self.cells) if c.line == first_line)

    def run_until(self, index: int) -> None:
        """Run the cells above ``index`` that have not run, stopping at a failure."""
        if self.failure is None and self.next < index:
            with contextlib.suppress(EngineImportError):
                self._check_engine()
                self.run(index - 1)
                self._note()

    def _check_engine(self) -> None:
        """A learner's engine that does not import fails the first cell run."""
        if self.engine_error is not None:
            self.failure = self.failure or describe(self.engine_error)
            self.error = self.error or self.engine_error
            raise self.engine_error

    def run_next(self) -> None:
        """Run the next cell; on failure, remember it and raise."""
        self._check_engine()
        outcome = self.run(self.next)
        self._note()
        if outcome.state == "failed":
            raise outcome.error

    def _note(self) -> None:
        """Remember the first failure: where and how (``failure``), and the error."""
        if self.first_failure is None or self.failure is not None:
            return
        outcome = self.outcomes[self.first_failure]
        self.failure, self.error = outcome.report.split("\n")[0], outcome.error
        shown = outcome.printed and not isinstance(outcome.error, OutputMismatchError)
        if shown and hasattr(outcome.error, "add_note"):  # add_note: Python 3.11+
            outcome.error.add_note(f"The fence printed:\n{outcome.printed.rstrip()}")


def _found(read: Chapter, now: Chapter, ran: Iterable[int]) -> dict[int, int]:
    """For each cell of ``read`` that ran, the index of the same cell in ``now``.

    A cell is found by its content, wherever it went: its info string and code, and then
    its output block must be as read; cells alike in info string and code keep their order
    among themselves. ChangedError if one is not there, or is there more or fewer times
    than when read (which of them ran cannot be told), or its block was changed.
    """
    if now.text == read.text:
        return {index: index for index in ran}

    def alike(chapter: Chapter) -> dict[tuple[str, str], list[int]]:
        found: dict[tuple[str, str], list[int]] = {}
        for index, cell in enumerate(chapter.cells):
            found.setdefault((cell.fence.info, cell.fence.code), []).append(index)
        return found

    def block(cell) -> str | None:
        return cell.output.code if cell.output else None

    then, there = alike(read), alike(now)
    found = {}
    for index in sorted(ran):
        cell = read.cells[index]
        key = cell.fence.info, cell.fence.code
        was, are = then[key], there.get(key, [])
        where = f"the fence the run read at line {cell.opening}"
        if len(are) != len(was):
            if not are:
                raise ChangedError(f"{where} is gone, or its code was changed")
            raise ChangedError(f"{where} is in it {len(are)} times now, {len(was)} when read")
        found[index] = are[was.index(index)]
        if block(now.cells[found[index]]) != block(cell):
            raise ChangedError(f"{where} has had its output block changed")
    return found


def updated_outputs(read: Chapter, printed: dict[int, str], now: Chapter | None = None) -> str:
    """The chapter ``now`` (default: ``read``) with each output block of a cell that ran
    replaced by what the cell printed.

    ``read`` is the chapter as the run read it, and ``printed`` maps the indices of its
    cells to what they printed; cells not in it keep their block. Each is found in ``now``
    by its content (``_found``), so a fence moved or inserted in the meantime keeps its
    place and its own block; one that cannot be found is a ChangedError, and nothing is
    placed. A cell that printed but has no block gets one; one that printed nothing loses
    its block. A block shows the text with a final newline added if it had none, between
    fences longer than any run of backticks in it, so nothing printed can close it early.
    """
    now = read if now is None else now
    found = _found(read, now, printed)
    lines = re.split(r"(?<=\n)", now.text)  # at "\n" only, as Markdown counts lines
    for index, there in sorted(found.items(), key=lambda item: -item[1]):  # bottom up
        cell, text = now.cells[there], printed[index]
        ticks = fence_ticks(text)
        block = [f"{ticks}{OUTPUT}\n", run.shown(text), f"{ticks}\n"]
        if cell.output is not None:  # replace from its opening to its closing backticks
            start = cell.output.opening - 1  # its opening backticks, 0-based
            stop = cell.output.line + cell.output.code.count("\n") - 1  # its closing ones
            if text:
                lines[start : stop + 1] = block
            else:  # nothing printed: drop the block and the blank lines above it
                del lines[cell.end : stop + 1]
        elif text:
            lines[cell.end : cell.end] = ["\n", *block]
    return "".join(lines)


def write_outputs(path: Path, read: str, printed: dict[int, str]) -> bool:
    """Write what the cells of the chapter at ``path`` printed into its output blocks
    (``updated_outputs``): ``read`` is its text as the run read it. True if the file was
    rewritten, False if nothing changed; ChangedError, with nothing written, if the chapter
    changed since in a way that cannot be placed."""
    try:
        now = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ChangedError(f"{relative(path)} was deleted since it was read") from None
    try:
        new = updated_outputs(Chapter(path, read), printed, Chapter(path, now))
    except ChangedError as error:
        raise ChangedError(f"{relative(path)} was edited since it was read: {error}") from None
    if new != now:
        rewrite(path, now, new)
    return new != now
