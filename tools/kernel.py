"""Run a chapter's python fences as the cells of one notebook: the part that executes code.

Shared by the two places that run chapters: the notebook runner (tools/notebook.py) and the
site's Run buttons, which load this file into Pyodide in the reader's browser
(docs/assets/notebook/worker.js). So it needs the standard library only, and knows
nothing of Markdown files or of pytest: callers hand it each fence's code, the line its
code starts on in the chapter, and whether it is an engine fence.

* All fences of a chapter share one namespace, like the cells of a notebook.
* Engine fences (```python title="micrograd.py"```) may be pieces of one class body with
  experiments between them, so the engine fences seen so far are executed together, as
  the tangler joins them. Each piece is padded to its own line of the chapter.
* Every fence is compiled under the chapter's file name with its own line numbers, so a
  traceback points at the chapter's line.
"""

from __future__ import annotations

import contextlib
import io
import linecache
import traceback
import types
from collections.abc import Callable


def _compile(code: str, chapter: str, first_line: int):
    return compile("\n" * (first_line - 1) + code, chapter, "exec", dont_inherit=True)


class Printed(io.StringIO):
    """What a fence prints: kept, and also handed to ``echo`` as it is printed, if given."""

    def __init__(self, echo: Callable[[str], object] | None = None):
        super().__init__()
        self.echo = echo

    def write(self, text: str) -> int:
        if self.echo is not None:
            self.echo(text)
        return super().write(text)


class Kernel:
    """One chapter's namespace, and the engine fences it has run so far."""

    def __init__(self, chapter: str):
        self.chapter = chapter  # the file name that tracebacks show
        self.namespace = types.ModuleType("fence").__dict__
        self.engine = ""  # the engine fences run so far, padded to their own lines
        self._source: dict[int, str] = {}  # chapter line -> code run there (see attempt)

    def compile(self, code: str, line: int, engine: bool):
        """The code object for one fence whose code starts on chapter line ``line``."""
        if not engine:
            return _compile(code, self.chapter, line)
        padding = "\n" * (line - 1 - self.engine.count("\n"))
        text = self.engine + padding + code
        compiled = _compile(text, self.chapter, 1)
        self.engine = text  # only once it compiles
        return compiled

    def run(self, code: str, line: int, engine: bool, printed: io.TextIOBase) -> None:
        """Run one fence in the namespace, its printing going to ``printed``; raise on failure."""
        compiled = self.compile(code, line, engine)
        with contextlib.redirect_stdout(printed):
            exec(compiled, self.namespace)

    def attempt(
        self, code: str, line: int, engine: bool, echo: Callable[[str], object] | None = None
    ) -> str | None:
        """Run one fence for a reader (the site): None if it passed, else a failure report.

        What the fence prints goes to ``echo`` as it is printed. The report's first line
        says where and what (``docs/x.md:12: AssertionError: ...``, at the innermost line of
        the chapter), then comes the traceback, without this file's own frames. The
        chapter is not a file here, so the code run is registered with ``linecache`` to
        let the traceback quote it.
        """
        for offset, text in enumerate(code.splitlines()):
            self._source[line + offset] = text + "\n"
        last = max(self._source)
        lines = [self._source.get(n, "\n") for n in range(1, last + 1)]
        linecache.cache[self.chapter] = (len("".join(lines)), None, lines, self.chapter)
        try:
            self.run(code, line, engine, Printed(echo))
        except BaseException as error:  # a reader's fence may raise anything
            return self.report(error)
        return None

    def report(self, error: BaseException) -> str:
        """``chapter:line: Type: message`` for the innermost chapter line, then the traceback."""
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename != __file__]
        lines = [f.lineno for f in frames if f.filename == self.chapter]
        if isinstance(error, SyntaxError) and error.filename == self.chapter:
            lines.append(error.lineno)
        message = error.msg if isinstance(error, SyntaxError) else str(error)
        headline = type(error).__name__ + (f": {message}" if message else "")
        if lines and lines[-1]:
            headline = f"{self.chapter}:{lines[-1]}: {headline}"
        shown = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
        return headline.split("\n")[0] + "\n\nTraceback (most recent call last):\n" + "".join(shown)
