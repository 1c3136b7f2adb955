"""Running a chapter as a notebook: decided here, for every runner.

pytest, learner mode, the figures and the page's Run buttons (in Pyodide) all run chapters
through ``Notebook``. The cells share one namespace (tools/page/kernel.py). ``run(target)``
runs the cells above it that have not run, then it, and stops at the first failure; a cell
that has run runs again alone, and the cells below it that ran become stale. With
``all``, every cell runs from a fresh namespace, and output other than the book's does
not stop it ("differs"). The book's code must print exactly its ```output block; a reader's
edit may print anything. A cell that cannot run here (``blocked``) is left out. What
happens is told, as it happens, to ``tell`` as plain dicts, ``kind`` first, with the
status the page shows: fresh, waiting, running, print, done, not-run, stale, figure,
graphs. Standard library only: this file also runs in the reader's browser (tools/page/).
"""

import difflib
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .kernel import ENGINE, Chunk, Kernel, Printed

Tell = Callable[[dict], object]
DONE = {"ran": "ran", "failed": "failed", "differs": "ran: its output differs from the book's"}
UPDATE = (
    "If the code is right, fix the block or run the tests with --update-outputs (then fix "
    "the prose that quotes it)."
)


class OutputMismatchError(AssertionError):
    """The book's code printed something other than its ```output block shows."""


@dataclass(frozen=True)
class Cell:
    """A python fence: where its code starts, the book's code, the engine file it is a chunk
    of ("" or False: none; True: the first, micrograd.py), the book's ```output block below
    it (None: none), why it cannot run here."""

    line: int
    code: str
    engine: bool | str = False
    output: str | None = None
    blocked: str | None = None
    output_line: int = 0  # the line of the output block's opening backticks

    @property
    def opening(self) -> int:
        """The line of the fence's opening backticks (as tools/chapter.py's Fence.opening)."""
        return self.line - 1


@dataclass
class Outcome:
    """What the latest run of a cell did."""

    state: str  # ran, differs, failed, not-run, stale, blocked
    printed: str = ""
    report: str | None = None  # for failed and differs: chapter:line: Type: message, ...
    error: BaseException | None = None
    edited: bool = False  # it ran a reader's code, not the book's


def shown(printed: str) -> str:
    """Printed text as an ```output block shows it: with a final newline."""
    return printed if printed == "" or printed.endswith("\n") else printed + "\n"


def mismatch(chapter: str, cell: Cell, printed: str, remedy: str = UPDATE) -> str | None:
    """Why the book's code of ``cell`` printing ``printed`` fails its check, or None."""
    where = f"{chapter}:{cell.opening}"
    if cell.output is None:
        if not printed:
            return None
        return (
            f"{where}: the fence prints, but no ```output block follows it to show the "
            f"reader what. It printed:\n{printed.rstrip()}\nAdd the block, or run the tests "
            "with --update-outputs to add it."
        )
    if shown(printed) == cell.output:
        return None
    diff = "".join(
        difflib.unified_diff(
            cell.output.splitlines(keepends=True),
            shown(printed).splitlines(keepends=True),
            f"the ```output block (line {cell.output_line})",
            "what the fence printed",
        )
    )
    return (
        f"{where}: the fence printed something other than what its ```output block shows:"
        f"\n{diff}\n{remedy}"
    )


@dataclass(eq=False)
class Notebook:
    """One chapter's cells, its namespace, and how far it has run.

    ``before``: the engine chunks of the chapters before it. ``figures``: (name, line) of
    the figures the chapter shows, each drawn from the cells above it. ``engine``: a
    module used as ``micrograd`` (or ``tensor``) instead of the chapter's engine chunks of
    that file (learner mode).
    ``check_outputs`` False: output blocks are not compared (while they are rewritten).
    ``remedy``: what a mismatch's message tells the reader to do. ``file``: the engine's
    ``__file__``, the file it is tangled to. The iterables are kept as lists.
    """

    chapter: str
    cells: Iterable[Cell]
    before: Iterable[Chunk] = ()
    figures: Iterable[tuple[str, int]] = ()
    engine: types.ModuleType | None = None
    check_outputs: bool = True
    remedy: str = UPDATE
    file: str = "micrograd.py"

    def __post_init__(self) -> None:
        self.cells, self.before, self.figures = map(list, (self.cells, self.before, self.figures))
        self.restart()

    def restart(self) -> None:
        """A fresh namespace: nothing has run."""
        file = f"{self.engine.__name__ if self.engine else ENGINE}.py"  # the learner's, if any
        has_engine = any(
            (f"{ENGINE}.py" if cell.engine is True else cell.engine) == file for cell in self.cells
        )
        self.kernel = Kernel(self.chapter, self.before, self.engine, has_engine, self.file)
        self.namespace = self.kernel.namespace
        self.next = 0  # cells before this index have had their turn
        self.outcomes: dict[int, Outcome] = {}
        self.first_failure: int | None = None  # the first cell that failed since the start

    def run(
        self,
        target: int,
        codes: dict[int, str] | None = None,
        all: bool = False,  # Run all, as the page names it
        tell: Tell | None = None,
    ) -> Outcome:
        """Run cell ``target`` as a notebook does (see the module's docstring), each cell
        with the book's code, or the reader's edit of it in ``codes`` (by index): what
        ``codes`` holds is edited, whatever it is, as the page decides."""
        tell = tell or (lambda event: None)
        codes = codes or {}
        if all:
            self.restart()
            tell({"kind": "fresh"})
        if target < self.next:
            queue = [target]
            for later in range(target + 1, self.next):
                if self.outcomes.get(later, Outcome("")).state in ("ran", "failed", "differs"):
                    self.outcomes[later].state = "stale"
                    status = "stale: a fence above ran again since"
                    tell({"kind": "stale", "index": later, "status": status})
        else:
            queue = list(range(self.next, target + 1))
        for index in queue:
            if self.cells[index].blocked:
                self.outcomes[index] = Outcome("blocked", report=self.cells[index].blocked)
        runnable = [index for index in queue if not self.cells[index].blocked]
        if len(runnable) > 1 and runnable[-1] == target:
            status = "waiting: the fences above it run first"
            tell({"kind": "waiting", "index": target, "status": status})
        for k, index in enumerate(runnable):
            self.next = max(self.next, index + 1)
            outcome = self._run_cell(index, codes.get(index), (k + 1, len(runnable)), all, tell)
            if outcome.state == "failed":
                where = self.failed_at(index)
                for later in runnable[k + 1 :]:
                    self.outcomes[later] = Outcome("not-run")
                    status = f"not run: {where} failed first"
                    tell({"kind": "not-run", "index": later, "status": status})
                break
        else:
            self.next = max(self.next, target + 1)
        return self.outcomes[target]

    def _run_cell(self, index: int, edit: str | None, place: tuple[int, int], all, tell: Tell):
        cell = self.cells[index]
        code = cell.code if edit is None else edit
        k, n = place
        status = f"running fence {k} of {n}…" if n > 1 else "running…"
        tell({"kind": "running", "index": index, "status": status})
        printed = Printed(lambda text: tell({"kind": "print", "index": index, "text": text}))
        outcome = Outcome("ran", edited=edit is not None)
        try:
            self.kernel.run(code, cell.line, cell.engine, printed)
        except BaseException as error:  # a fence may raise anything; the caller re-raises
            outcome = Outcome("failed", error=error, report=self.kernel.report(error))
        outcome.printed = printed.getvalue()
        why = None if outcome.edited else mismatch(self.chapter, cell, outcome.printed, self.remedy)
        if outcome.state == "ran" and why and self.check_outputs:
            outcome.state = "differs" if all else "failed"
            where, _, rest = why.partition(": ")  # the report names the error, as for others
            outcome.report = f"{where}: {OutputMismatchError.__name__}: {rest}"
            outcome.error = OutputMismatchError(why)
        if outcome.state == "failed" and self.first_failure is None:
            self.first_failure = index
        self.outcomes[index] = outcome
        same = cell.output is not None and shown(outcome.printed) == cell.output
        done = {"state": outcome.state, "status": DONE[outcome.state], "report": outcome.report}
        tell({"kind": "done", "index": index, **done, "same": same})
        if outcome.state != "failed":
            self._after(index, outcome, tell)
        return outcome

    def _after(self, index: int, outcome: Outcome, tell: Tell) -> None:
        """What the page draws after a cell ran: the graphs it printed, and the figures
        between it and the next cell, from the reader's code if any code run so far in
        this namespace was not the book's."""
        if "digraph" in outcome.printed:
            tell({"kind": "graphs", "index": index, "text": outcome.printed})
        line = self.cells[index].line
        following = self.cells[index + 1].line if index + 1 < len(self.cells) else float("inf")
        live = any(o.edited for i, o in self.outcomes.items() if i <= index)
        for name, shown_at in self.figures:
            if line <= shown_at <= following:
                tell({"kind": "figure", "name": name, "live": live})

    def failed_at(self, index: int) -> str:
        """Which fence failed, as a reader finds it: the line of its opening backticks
        (where the failing line inside it is, its report says)."""
        return f"the fence at line {self.cells[index].opening}"
